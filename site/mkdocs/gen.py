"""gen.py ROOT DOCS CONFIG [PLOTS] — the Markdown tree MkDocs builds the course site from, made from the course's
own files (site/mkdocs/build.sh runs it; nothing in the repository moves or changes).

DOCS mirrors the repository: the top README (MkDocs makes it index.html), every lesson's README with
a last section that lists its reference solutions and its quiz, the other guides, and every Markdown
text they link to; every course file a text links to or names in inline code, and every reference
solution, as a page FILE.md that shows it highlighted (course_links.py says which). CONFIG is
site/mkdocs/mkdocs.yml with the navigation appended: Start, the lessons in order, the rest.

Figures. A lesson text shows a plot as a quoted paragraph that a terminal reads as it is:

    > **Figure 5.2** · `out/ddp_timeline.png` by the commands above, or `out/demo/ddp_timeline.png` by `make demo`.
    > Two steps of DDP on 2 ranks ... (the caption: what to see in it)

On the site it becomes a figure with that caption, showing the first of its plots drawn under PLOTS
(default ROOT/out; copied into DOCS/plots/), or, where none is, the commands that draw them. plots.md
gathers every lesson's figures, one per plot, under the ids course_links.plot_id gives (inline code
naming a plot links there). The site never runs the commands. The quiz page and the KaTeX files are
put into DOCS by build.sh before this runs.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import course_links  # noqa: E402

ROOT, DOCS, CONFIG = sys.argv[1:4]
PLOTS = sys.argv[4] if len(sys.argv) > 4 else os.path.join(ROOT, "out")
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


FIGURE = re.compile(r"^> \*\*Figure (\d+)\.(\d+)\*\* · (.+)$")
SOURCE = re.compile(r"`(out/[^`]+\.png)` by (`[^`]+`|the commands above)")


def figures_of(text):
    """The figures of a text: (first line, last line + 1, number, [(plot, command)], caption), in order."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        m = FIGURE.match(lines[i])
        if not m:
            i += 1
            continue
        sources = SOURCE.findall(m.group(3))
        if not sources:
            sys.exit(f"site: a figure without its plot: '{lines[i]}' (write `out/PATH.png` by `COMMAND`)")
        j = i + 1
        while j < len(lines) and lines[j].startswith("> "):
            j += 1
        caption = " ".join(line[2:].strip() for line in lines[i + 1 : j])
        if not caption:
            sys.exit(f"site: {m.group(0)[:40]}... has no caption (quoted lines under it)")
        found.append((i, j, f"{m.group(1)}.{m.group(2)}", sources, caption))
        i = j
    return found


def drawn(plot):
    """PLOT (out/...) copied into the site if it was drawn; its docs-relative path, or None."""
    src = os.path.join(PLOTS, plot[len("out/") :])
    if not os.path.isfile(src):
        return None
    dst = os.path.join(DOCS, "plots", plot[len("out/") :])
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "rb") as a, open(dst, "wb") as b:
        b.write(a.read())
    return "plots/" + plot[len("out/") :]


def alt_of(caption):
    """A picture's alternative text: the caption's first sentence, without Markdown or TeX marks."""
    first = re.split(r"(?<=[.:;])\s", caption, maxsplit=1)[0]
    return re.sub(r"[`*$\\]", "", first).replace('"', "'").rstrip(".:;")


def figure_html(page, fid, number, sources, caption, shown=None):
    """A figure as Markdown-in-HTML, on the page at docs path PAGE: the first drawn of SOURCES (or SHOWN
    only), else the commands that draw them."""
    up = "../" * page.count("/")
    cands = [s for s in sources if shown is None or s[0] == shown]
    pic = next(((p, c, d) for p, c in cands if (d := drawn(p))), None)
    how = " or ".join(f"{c} draw{'s' if c.startswith('`') else ''} it into `{p}`" for p, c in cands)
    attrs = f'id="{fid}" data-plots="{" ".join(p for p, _ in sources)}"'
    out = []
    if pic:
        p, c, d = pic
        out += [f'<figure markdown="block" {attrs}>', f'<img src="{up}{d}" alt="{alt_of(caption)}">']
        where = f"Drawn by {c} into `{p}`." if c.startswith("`") else f"Drawn into `{p}` {c}."
    else:
        out += [f'<figure markdown="block" class="not-drawn" {attrs}>', "",
                f"Not drawn yet: {how}; then `make site` again.", ""]
        where = ""
    out += ['<figcaption markdown="block">', "", f"**Figure {number}.** {caption} {where}".rstrip(), "",
            "</figcaption>", "</figure>"]
    return "\n".join(out)


def with_figures(page, text, gathered):
    """TEXT with its figure paragraphs as figures; each figure also added to GATHERED for plots.md."""
    lines = text.split("\n")
    for i, j, number, sources, caption in reversed(figures_of(text)):
        fid = "figure-" + number.replace(".", "-")
        lines[i:j] = figure_html(page, fid, number, sources, caption).split("\n")
        gathered.insert(0, (page, fid, number, sources, caption))
    return "\n".join(lines)


def plots_page(gathered):
    """plots.md: every figure of the lessons, one per plot, grouped by lesson, in reading order."""
    out = ["# Plots", ""]
    nplots = sum(len(g[3]) for g in gathered)
    ndrawn = sum(1 for g in gathered for p, _ in g[3] if os.path.isfile(os.path.join(PLOTS, p[len("out/") :])))
    out += [f"The {nplots} plots the course's commands draw, each with the figure of its lesson's text that "
            f"shows it: {ndrawn} drawn here, copied from `out/` when the site was built. The site never "
            "runs the commands: a plot not drawn yet shows the command that draws it; run it, then "
            "`make site` again.", ""]
    group = None
    for page, fid, number, sources, caption in gathered:
        if page != group:
            group = page
            out += [f"## {title_of(page)}", ""]
        for plot, command in sources:
            label = f"{number} ({command.strip('`')})" if len(sources) > 1 else number
            html = figure_html("plots.md", course_links.plot_id(plot), label, sources, caption, shown=plot)
            out += [html, "", f"[Figure {number} in its lesson]({page}#{fid})", ""]
    return "\n".join(out) + "\n"


def language(path):
    """The highlighter's name for a course file (the highlighter names of the course file kinds)."""
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
    gathered = []
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
                text = with_figures(path, text, gathered).rstrip("\n") + "\n" + lesson_extra(path)
            # a hint is a <details> block: Markdown inside it, as GitHub reads it (md_in_html)
            text = re.sub(r"^<details>", '<details markdown="block">', text, flags=re.M)
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
    gathered.sort(key=lambda g: MAIN.index(g[0]))
    write("plots.md", plots_page(gathered))
    with open(os.path.join(HERE, "mkdocs.yml"), encoding="utf-8") as f:
        config = f.read().replace("  - hooks.py", "  - " + os.path.join(HERE, "hooks.py"))
    nav = ["nav:", "  - Start: README.md", "  - Lessons:"]
    nav += [f"      - {p}" for p in LESSONS]
    nav += ["  - More:"]
    nav += [f"      - {p}" for p in MORE]
    nav += ["      - Quizzes: quiz.md", "      - Plots: plots.md"]
    with open(CONFIG, "w", encoding="utf-8") as f:
        f.write(config.rstrip("\n") + "\n\n# written by site/mkdocs/gen.py\n" + "\n".join(nav) + "\n")
    nfig = len(gathered)
    print(f"site: {pages} texts, {sources} source pages, {pictures} pictures, {nfig} figures", file=sys.stderr)


main()
