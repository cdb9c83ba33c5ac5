"""gen.py ROOT DOCS CONFIG — the Markdown tree MkDocs builds the course site from, made from the course's
own files (site/mkdocs/build.sh runs it; nothing in the repository moves or changes).

DOCS mirrors the repository: the top README (MkDocs makes it index.html), every lesson's README with
a last section that lists its reference solutions and its quiz, the other guides, and every Markdown
text they link to; every course file a text links to or names in inline code, and every reference
solution, as a page FILE.md that shows it highlighted (course_links.py says which). CONFIG is
site/mkdocs/mkdocs.yml with the navigation appended: Start, the lessons in order, the rest.
The quiz page, the plots page and the KaTeX files are put into DOCS by build.sh before this runs.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import course_links  # noqa: E402

ROOT, DOCS, CONFIG = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def write(path, text):
    full = os.path.join(DOCS, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def title_of(path):
    """The first heading of a Markdown file, without its code marks."""
    for line in read(path).splitlines():
        if line.startswith("# "):
            return line[2:].replace("`", "").strip()
    return path


LESSONS = sorted(p for p in glob.glob("lessons/[0-9][0-9]-*/README.md", root_dir=ROOT))
MORE = [p for p in ("lessons/pytorch-semantics.md", "grading/README.md", "datasets/README.md", "common/README.md")
        if os.path.isfile(os.path.join(ROOT, p))]
MAIN = ["README.md"] + LESSONS + MORE


def lesson_extra(page):
    """The section a lesson's page gets on the site: its reference solutions and its quiz."""
    name = page.split("/")[1]
    lines = ["", "## On this site", ""]
    for s in sorted(glob.glob(f"solutions/{name}/*.c", root_dir=ROOT) + glob.glob(f"solutions/{name}/*.cu", root_dir=ROOT)):
        lines.append(f"- Reference solution: [{os.path.basename(s)}](../../{s})")
    nn = name[:2]
    if os.path.isfile(os.path.join(ROOT, f"grading/quizzes/q{nn}.c")):
        lines.append(f"- [The self-check quiz of lesson {nn}](../../quiz.md?lesson={nn})")
    return "\n".join(lines) + "\n"


def language(path):
    """The highlighter's name for a course file (site/build.sh's table)."""
    base = os.path.basename(path)
    ext = os.path.splitext(path)[1]
    table = {".c": "c", ".h": "c", ".cu": "cpp", ".sh": "bash", ".mk": "makefile", ".py": "python", ".json": "json"}
    if base in ("grade", "quiz", "mpirun", "grade-all"):
        return "bash"
    if base == "Makefile":
        return "makefile"
    return table.get(ext, "text")


def source_page(path):
    """The page that shows course file PATH: its text highlighted, under a line saying where it belongs."""
    d = os.path.dirname(path)
    out = [f"# {path}", ""]
    if os.path.isfile(os.path.join(ROOT, d, "README.md")):
        out += [f"In [{title_of(d + '/README.md')}](README.md).", ""]
    m = re.match(r"^solutions/([0-9][0-9]-[^/]*)/", path)
    if m and os.path.isfile(os.path.join(ROOT, "lessons", m.group(1), "README.md")):
        lesson = f"lessons/{m.group(1)}/README.md"
        out += [f"The reference solution, for [{title_of(lesson)}](../../{lesson}).", ""]
    text = read(path)
    fence = "~" * max(4, 1 + max((len(r) for r in re.findall(r"^~+", text, re.M)), default=0))
    out += [f"{fence} {language(path)}", text.rstrip("\n"), fence, ""]
    return "\n".join(out)


def main():
    todo = list(MAIN)
    todo += sorted(glob.glob("solutions/*/*.c", root_dir=ROOT) + glob.glob("solutions/*/*.cu", root_dir=ROOT))
    done = set()
    pages = sources = pictures = 0
    while todo:
        path = todo.pop(0)
        if path in done:
            continue
        done.add(path)
        if path.lower().endswith(course_links.STATIC_KINDS):
            os.makedirs(os.path.dirname(os.path.join(DOCS, path)) or DOCS, exist_ok=True)
            with open(os.path.join(ROOT, path), "rb") as src, open(os.path.join(DOCS, path), "wb") as dst:
                dst.write(src.read())
            pictures += 1
            continue
        if path.endswith(".md"):
            text = read(path)
            if path in LESSONS:
                text = text.rstrip("\n") + "\n" + lesson_extra(path)
            write(path, text)
            pages += 1
            todo += sorted(course_links.mentioned(ROOT, path, text))
            todo += sorted(course_links.images(ROOT, path, text))
        else:
            try:
                text = source_page(path)
            except UnicodeDecodeError:
                continue  # not a text: no page (the link stays as written)
            write(path + ".md", text)
            sources += 1
            # a source page links to its folder's README and the lesson it solves
            todo += sorted(course_links.mentioned(ROOT, path, text))
    with open(os.path.join(HERE, "mkdocs.yml"), encoding="utf-8") as f:
        config = f.read().replace("  - hooks.py", "  - " + os.path.join(HERE, "hooks.py"))
    nav = ["nav:", "  - Start: README.md", "  - Lessons:"]
    nav += [f"      - {p}" for p in LESSONS]
    nav += ["  - More:"]
    nav += [f"      - {p}" for p in MORE]
    nav += ["      - Quizzes: quiz.md", "      - Plots: plots.md"]
    with open(CONFIG, "w", encoding="utf-8") as f:
        f.write(config.rstrip("\n") + "\n\n# written by site/mkdocs/gen.py\n" + "\n".join(nav) + "\n")
    print(f"site: {pages} texts, {sources} source pages, {pictures} pictures", file=sys.stderr)


main()
