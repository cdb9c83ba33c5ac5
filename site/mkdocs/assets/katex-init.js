/* katex-init.js — the formulas of a page, written as TeX in the texts ($...$, $$...$$), drawn by KaTeX.
 * pymdownx.arithmatex leaves each as \(...\) or \[...\] in an element of class "arithmatex". A
 * formula KaTeX cannot draw stays as its TeX, marked data-katex="error" (tests/site finds it). */
"use strict";
function renderCourseMath() {
  for (const el of document.querySelectorAll(".arithmatex")) {
    if (el.dataset.katex) continue;
    const tex = el.textContent.trim();
    const display = tex.startsWith("\\[");
    const body = tex.replace(/^\\[(\[]/, "").replace(/\\[)\]]$/, "");
    try {
      katex.render(body, el, { displayMode: display, throwOnError: true });
      el.dataset.katex = "rendered";
    } catch (e) {
      el.dataset.katex = "error";
      el.title = String(e.message || e);
    }
  }
}
document.addEventListener("DOMContentLoaded", renderCourseMath);
