"""course_links.py — where a link of a course text points on the MkDocs site (site/links.lua's rules).

The site's Markdown tree (build/mkdocs/docs) mirrors the repository: a text is the Markdown file at
its own path, and any other course file FILE has a highlighted page FILE.md beside it. A link to a
folder goes to its README.md, a plot under out/ to its figure on plots.md, and inline code that names
a course file (`ring.c`, `common/rng.h`) becomes a link to its page. gen.py uses these rules to find
the pages to make, hooks.py to rewrite the links while MkDocs renders; MkDocs then turns every .md
link into the page's .html and checks it.
"""

import os
import posixpath
import re

# inline code that may name a course file, and the kinds of files that it then links to
FILE_NAME = re.compile(r"^[\w./-]+\.[A-Za-z]+$")
LINKED_KINDS = (".c", ".h", ".cu", ".sh", ".mk", ".py", ".md")
EXTERNAL = re.compile(r"^[A-Za-z][\w+.-]*:")


def plot_id(path):
    """The id of a plot's figure on plots.md (out/a/b.png -> plot-out-a-b-png)."""
    return "plot-" + re.sub(r"[^A-Za-z0-9-]", "-", path)


def normalize(path):
    """A repository-relative path without . and .., or None when it leaves the repository."""
    out = []
    for part in path.split("/"):
        if part == "..":
            if not out:
                return None
            out.pop()
        elif part not in ("", "."):
            out.append(part)
    return "/".join(out)


def course_file(root, path):
    """PATH as the course file it names (a folder names its README.md), or None."""
    if not path:
        return None
    full = os.path.join(root, path)
    if os.path.isdir(full) and os.path.isfile(os.path.join(full, "README.md")):
        return path + "/README.md"
    if path.endswith(".html") and os.path.isfile(os.path.join(root, path[:-5] + ".md")):
        return path[:-5] + ".md"  # a site path written as a page's .html
    return path if os.path.isfile(full) else None


STATIC_KINDS = (".png", ".jpg", ".jpeg", ".gif", ".svg")


def page_of(path):
    """The Markdown page that shows course file PATH on the site (a picture is shown as itself)."""
    return path if path.endswith(".md") or path.lower().endswith(STATIC_KINDS) else path + ".md"


def target(root, page, href, code=False):
    """Where HREF, written in the text at repository path PAGE, goes on the site: a docs-relative path
    with its #anchor, or None to leave it alone. CODE: HREF is inline code (relative to the page's
    folder, else to the repository root)."""
    r = resolve(root, page, href, code)
    if r is None:
        return None
    f, anchor = r
    return (f if f.startswith("plots.md") else page_of(f)) + ("#" + anchor if anchor else "")


def resolve(root, page, href, code=False):
    """The course file HREF names and its anchor, as (file, anchor), or None (see target)."""
    if EXTERNAL.match(href) or href.startswith("#") or href.startswith("/"):
        return None
    path, _, anchor = href.partition("#")
    path = path.split("?")[0]
    if code and not FILE_NAME.match(path):
        return None
    here = posixpath.dirname(page)
    bases = [here, ""] if code else [here]
    for base in bases:
        full = normalize(posixpath.join(base, path))
        if full is None or full == "":
            continue
        full = full.rstrip("/")
        if re.match(r"^out/.*\.png$", full):
            return "plots.md", plot_id(full)
        if full.startswith("out/") or full == "out":
            return ("plots.md", "") if not code else None
        if code and not full.endswith(LINKED_KINDS):
            return None
        f = course_file(root, full)
        if f:
            return f, anchor
    return None


CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")


def mentioned(root, page, text):
    """Every course file TEXT (the page at PAGE) may link to: its links and the inline code naming a
    file. A superset (code inside a fenced block counts too): a page made for nothing costs little."""
    found = set()
    for m in LINK.finditer(text):
        found.add(resolve(root, page, m.group(1)))
    for m in CODE_SPAN.finditer(text):
        found.add(resolve(root, page, m.group(1).strip(), code=True))
    return {r[0] for r in found if r and r[0] != "plots.md"}


def images(root, page, text):
    """The course files TEXT shows as images (copied next to the page, at the same path)."""
    out = set()
    for m in IMAGE.finditer(text):
        src = m.group(1)
        if EXTERNAL.match(src) or src.startswith("/"):
            continue
        full = normalize(posixpath.join(posixpath.dirname(page), src))
        if full and os.path.isfile(os.path.join(root, full)):
            out.add(full)
    return out
