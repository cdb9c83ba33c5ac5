"""hooks.py — MkDocs hooks of the course site (site/mkdocs/mkdocs.yml names this file).

The links of the course texts are written for a reader of the repository (`../../common/rng.h`,
`ring.c` in inline code, `out/demo/loss.png`). While MkDocs renders a page, a Markdown tree step
rewrites them with course_links.py's rules to the site's pages: a course file to its highlighted
page, a folder to its README, a plot to its figure on the plots page, and inline code that names a
course file into a link to its page. It runs before MkDocs' own step that turns .md links into the
pages' URLs and reports any that go nowhere, so a broken link still shows in the build's log.
Before that, a table's \\| inside code (written so for GitHub) becomes the | it stands for.
"""

import os
import posixpath
import re
import sys
import xml.etree.ElementTree as etree

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import course_links  # noqa: E402

ROOT = os.environ.get("DPC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_page = {"src": ""}  # the page being rendered (set by on_page_markdown, read by the tree step)


def _relative(page, path):
    """PATH (docs-relative, with an optional #anchor) as a link written in the page at PAGE."""
    p, sep, anchor = path.partition("#")
    rel = posixpath.relpath(p, posixpath.dirname(page) or ".")
    return rel + sep + anchor


class CourseLinks(Treeprocessor):
    def run(self, root):
        page = _page["src"]
        self._walk(root, page, in_link=False)

    def _walk(self, parent, page, in_link):
        for i, child in enumerate(list(parent)):
            if child.tag == "a":
                href = child.get("href", "")
                t = course_links.target(ROOT, page, href)
                if t:
                    child.set("href", _relative(page, t))
                self._walk(child, page, in_link=True)
            elif child.tag == "pre":
                continue  # code blocks and diagrams: as written
            elif child.tag == "code" and not in_link:
                t = course_links.target(ROOT, page, (child.text or "").strip(), code=True)
                if t and not (page == "plots.md" and t.startswith("plots.md")):
                    a = etree.Element("a", {"href": _relative(page, t)})
                    a.tail, child.tail = child.tail, None
                    parent.remove(child)
                    a.append(child)
                    parent.insert(i, a)
            else:
                self._walk(child, page, in_link)


class CourseLinksExtension(Extension):
    def extendMarkdown(self, md):
        # after the inline step (20) has made <code> and <a>, before MkDocs' relative-path step (0)
        md.treeprocessors.register(CourseLinks(md), "course_links", 5)


def on_config(config):
    config.markdown_extensions.append(CourseLinksExtension())
    return config


FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def unescape_table_pipes(markdown):
    """A | inside code in a table cell is written \\| in the texts, for GitHub, whose table rows split
    on every | before code spans are parsed and which drops the backslash again. Python-Markdown keeps
    a code span whole and would show the backslash: so, in table rows, \\| inside code becomes |."""
    out, fence = [], None
    for line in markdown.split("\n"):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None and TABLE_ROW.match(line):
            line = CODE_SPAN.sub(lambda c: c.group(1) + c.group(2).replace("\\|", "|") + c.group(1), line)
        out.append(line)
    return "\n".join(out)


def on_page_markdown(markdown, page, config, files):
    _page["src"] = page.file.src_uri
    return unescape_table_pipes(markdown)
