"""site/math_census.py — how the course texts write their formulas today, counted per text (run from the
repository root): TeX inline ($...$) and display ($$...$$), raw MathML, inline code spans that hold
math in Unicode (`Σ_k`, `e^(μ+σ²/2)`: a span with a math character), and fenced blocks with a math
character and an "=". The last two are heuristics (an arrow or a dot in code is not counted; a
Unicode formula that uses none of the characters below is missed): the size of the move to TeX."""
import re, subprocess, sys
files = subprocess.run(["git","ls-files","*.md"],capture_output=True,text=True).stdout.split()
files=[f for f in files if not f.startswith(("tests/","site/"))]
MATH=re.compile(r"[Σ∑∫√²³⁰¹⁴⁵⁶⁷⁸⁹₀₁₂₃₄ᵢₖₙ·×−≈≤≥αβγμσλθη∂∇∞ε∈⌈⌉⌊⌋]")
tot=[0]*5
print("file                              TeX-inline TeX-display MathML unicode-code-spans code-blocks-with-math")
for f in files:
    t=open(f).read()
    # split fenced blocks
    parts=re.split(r"(^```.*?^```|^~~~.*?^~~~)", t, flags=re.S|re.M)
    prose="".join(p for i,p in enumerate(parts) if i%2==0)
    blocks=[p for i,p in enumerate(parts) if i%2==1]
    disp=len(re.findall(r"\$\$.+?\$\$", prose, re.S))
    p2=re.sub(r"\$\$.+?\$\$","",prose,flags=re.S)
    spans=re.findall(r"(?<!`)`([^`\n]+)`(?!`)", p2)
    p3=re.sub(r"(?<!`)`[^`\n]+`(?!`)","",p2)
    inl=len(re.findall(r"(?<![\\$])\$(?=\S)[^$\n]+?(?<=\S)\$(?!\d)", p3))
    mml=len(re.findall(r"<math", p3))
    uni=sum(1 for s in spans if MATH.search(s))
    blk=sum(1 for b in blocks if MATH.search(b) and "=" in b)
    row=[inl,disp,mml,uni,blk]
    tot=[a+b for a,b in zip(tot,row)]
    print(f"{f:35s} {inl:5d} {disp:5d} {mml:5d} {uni:5d} {blk:5d}")
print(f"{'total':35s} "+" ".join(f"{x:5d}" for x in tot))
