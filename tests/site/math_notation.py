"""tests/site/math_notation.py [--census] [FILE.md ...] — the course's texts write every formula in one notation, TeX
($...$ inline, $$...$$ displayed), which the site draws with KaTeX and a terminal reads as it is typed.
Run from the repository root.

Checks the FILEs, or every Markdown text git tracks (tests/ and site/ aside): no inline code span outside a fenced
block holds a math character (`Σ_k`, `2(N−1)/N·|g|`, `e^(μ+σ²/2)`): such a span is a formula written
in Unicode, drawn as code. Prints FILE:LINE: `span` for each and exits 1; else one line of counts.
Fenced blocks are not checked: there the characters draw ASCII diagrams and program output.

--census: the counts per text instead (TeX inline and display, Unicode math in code spans, fenced
blocks with a math character and an "="), the size of what is left to move.
"""
import re
import subprocess
import sys

MATH = re.compile(r"[Σ∑∫√²³⁰¹⁴⁵⁶⁷⁸⁹₀₁₂₃₄ᵢₖₙ·×−≈≤≥αβγμσλθη∂∇∞ε∈⌈⌉⌊⌋]")
FENCE = re.compile(r"(^```.*?^```|^~~~.*?^~~~)", re.S | re.M)
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def texts():
    given = [a for a in sys.argv[1:] if not a.startswith("--")]
    if given:
        return given
    files = subprocess.run(["git", "ls-files", "*.md"], capture_output=True, text=True, check=True).stdout.split()
    return [f for f in files if not f.startswith(("tests/", "site/"))]


def prose_of(text):
    """TEXT with its fenced blocks blanked (their lines kept, so line numbers stay right)."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def main():
    census = "--census" in sys.argv[1:]
    bad = []
    rows = []
    nspans = 0
    for f in texts():
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        prose = prose_of(text)
        for m in SPAN.finditer(prose):
            nspans += 1
            if MATH.search(m.group(1)):
                bad.append(f"{f}:{prose.count(chr(10), 0, m.start()) + 1}: `{m.group(1)}`")
        if census:
            display = len(re.findall(r"\$\$.+?\$\$", prose, re.S))
            rest = SPAN.sub("", re.sub(r"\$\$.+?\$\$", "", prose, flags=re.S))
            inline = len(re.findall(r"(?<![\\$])\$(?=\S)[^$\n]+?(?<=\S)\$(?!\d)", rest))
            uni = sum(1 for s in SPAN.findall(prose) if MATH.search(s))
            blocks = sum(1 for b in FENCE.findall(text) if MATH.search(b) and "=" in b)
            rows.append((f, inline, display, uni, blocks))
    if census:
        print(f"{'text':38s} {'TeX':>6s} {'$$':>4s} {'Unicode-in-code':>16s} {'blocks-with-math':>17s}")
        for r in rows:
            print(f"{r[0]:38s} {r[1]:6d} {r[2]:4d} {r[3]:16d} {r[4]:17d}")
        return 0
    if bad:
        print("\n".join(bad))
        print(f"math_notation: {len(bad)} formulas written in Unicode inside code; write them as TeX ($...$)")
        return 1
    print(f"{len(texts())} texts, {nspans} code spans: no formula in Unicode inside code")
    return 0


sys.exit(main())
