# The course cites its own PyTorch-semantics page, lessons/pytorch-semantics.md — never a file students do
# not have. Every `pytorch-semantics.md#anchor` cited anywhere names a heading of the page, every path to
# the page resolves, and every course file the page names exists (so a moved file shows up here).
. "$(dirname "$0")/lib.sh"
DOC=lessons/pytorch-semantics.md
SELF=tests/sh/citations.sh

# The anchors of a Markdown file's headings, as GitHub makes them: outside code fences, lower case,
# everything but letters, digits, spaces, '_' and '-' dropped, spaces to '-'. Headings must be ASCII
# (reported by problems below) so that this is the whole rule.
anchors() {
    awk '/^```/ { fence = !fence; next } !fence && /^#+ / { sub(/^#+ /, ""); print }' "$1" |
        LC_ALL=C tr 'A-Z' 'a-z' | LC_ALL=C sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

# problems DIR: one line per problem in the tree DIR (its files: git's list when DIR is a checkout).
problems() (
    cd "$1" || exit 2
    if [ -d .git ] || [ -f .git ]; then
        git ls-files --cached --others --exclude-standard
    else
        find . -type f ! -path './.git/*' | sed 's|^\./||'
    fi | grep -v "^$SELF\$" | while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done >"$TMP/files.$$"
    if [ ! -f "$DOC" ]; then
        echo "$DOC is missing"
        exit 0
    fi
    # the reference outside the repository, under its old name or path
    tr '\n' '\0' <"$TMP/files.$$" | xargs -0 grep -nIE 'pytorch_semantics|shared/reference' /dev/null |
        sed 's/^/cites a file students do not have: /'
    # headings: ASCII, one anchor each
    LC_ALL=C grep -n '^#.*[^ -~]' "$DOC" | sed "s|^|$DOC: non-ASCII heading (its anchor is not predictable): |"
    anchors "$DOC" | sort | uniq -d | sed "s|^|$DOC: two headings with the anchor #|"
    anchors "$DOC" >"$TMP/anchors.$$"
    # every path to the page resolves (from the repository root, or from the citing file's folder)
    tr '\n' '\0' <"$TMP/files.$$" | xargs -0 grep -noIE '[A-Za-z0-9_./-]*pytorch-semantics\.md' /dev/null |
        while IFS=: read -r f line p; do
            [ "$p" = "$DOC" ] || [ "$f" = "$DOC" ] && continue
            [ -f "$(dirname "$f")/$p" ] && [ "$(basename "$p")" = "$(basename "$DOC")" ] && continue
            echo "$f:$line: '$p' is not a path to $DOC (from the root: $DOC)"
        done
    # every anchor cited exists: pytorch-semantics.md#a anywhere, and the page's own ](#a) links
    {
        tr '\n' '\0' <"$TMP/files.$$" | xargs -0 grep -noIE 'pytorch-semantics\.md#[A-Za-z0-9_-]+' /dev/null |
            sed 's/pytorch-semantics\.md#//'
        grep -noE '\]\(#[A-Za-z0-9_-]+\)' "$DOC" | sed "s|^|$DOC:|; s/](#//; s/)\$//"
    } | while IFS=: read -r f line a; do
        grep -qxF -- "$a" "$TMP/anchors.$$" || echo "$f:$line: #$a is not a heading of $DOC"
    done
    # every course file the page names exists (placeholders like lessons/NN-name/ excepted)
    grep -noE '`(lessons|solutions|common|grading|tests|datasets)/[^` ]+`' "$DOC" | tr -d '`' |
        while IFS=: read -r line p; do
            case $p in *NN*) continue ;; esac
            [ -e "$p" ] || echo "$DOC:$line: names $p, which does not exist"
        done
    rm -f "$TMP/files.$$" "$TMP/anchors.$$"
)

out=$(problems "$ROOT")
if [ -z "$out" ]; then
    pass "every citation points at $DOC, with anchors that exist; the paths it names exist"
else
    printf '%s\n' "$out" | while read -r l; do fail "$l"; done
fi

# The check can fail: a copy with an old citation, a missing anchor, a wrong path and a moved file.
mkdir -p "$TMP/tree/lessons/01-x" "$TMP/tree/grading"
cp "$DOC" "$TMP/tree/$DOC"
printf '%s\n' 'see `../shared/reference/pytorch_semantics.md` §7.4' \
    '[x](../pytorch-semantics.md#no-such-heading)' '[y](pytorch-semantics.md#adamw)' \
    >"$TMP/tree/lessons/01-x/README.md"
printf '%s\n' 'printf("lessons/pytorch-semantics.md#adamw");' >"$TMP/tree/grading/c.c"
out=$(problems "$TMP/tree")
for want in "cites a file students do not have" "#no-such-heading is not a heading" \
    "'pytorch-semantics.md' is not a path" "which does not exist"; do
    case $out in
    *"$want"*) pass "the citation check notices: $want" ;;
    *) fail "the citation check missed: $want (it said: $(printf '%s' "$out" | head -c 300))" ;;
    esac
done
case $out in
*grading/c.c*) fail "the citation check refused a good citation: $out" ;;
*) pass "the citation check accepts lessons/pytorch-semantics.md#adamw" ;;
esac
