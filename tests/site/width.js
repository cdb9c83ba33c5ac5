/* width.js — tests/site/mkdocs.sh adds this to a copy of a page: after the page's own scripts, it
 * records on <body> what sticks out past the right edge of the viewport. An element counts when
 * its box ends right of the viewport and no ancestor that fits clips or scrolls it (a code block or a
 * table in its scrolling frame is fine: the reader scrolls that block, not the page).
 *   data-width="SCROLLWIDTH/VIEWPORT"  data-overflow="N"  data-overflow-what="tag.class:px ..." */
"use strict";
addEventListener("load", () => setTimeout(() => {
  const vw = document.documentElement.clientWidth;
  const framed = (el) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if (ox !== "visible" && a.getBoundingClientRect().right <= vw + 1) return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= vw + 1) continue;
    if (getComputedStyle(el).visibility === "hidden" || framed(el)) continue;
    // one report per protruding subtree: skip what sits inside an element already reported
    if (out.some((o) => o.el.contains(el))) continue;
    out.push({ el, what: `${el.tagName.toLowerCase()}.${String(el.className).split(" ")[0]}:${Math.round(r.right)}` });
  }
  document.body.dataset.width = `${document.documentElement.scrollWidth}/${vw}`;
  document.body.dataset.overflow = String(out.length);
  document.body.dataset.overflowWhat = out.slice(0, 5).map((o) => o.what).join(" ");
}, 200));
