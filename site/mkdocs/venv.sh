#!/bin/sh
# site/mkdocs/venv.sh VENV — the Python environment make site builds with: MkDocs, Material and
# pymdown-extensions at the versions site/mkdocs/requirements.txt pins, installed from PyPI into VENV
# (build/mkdocs-venv) the first time, and again only when the pins change. Prints VENV/bin/python.
#
# Why a venv and not Debian's packages: Debian 12 has mkdocs-material 8.2.5, whose search needs a web
# server; Material 9's offline plugin makes search work on a site opened from disk, as the course's
# site must. Nothing is installed outside VENV.
set -u
VENV=${1:?usage: site/mkdocs/venv.sh VENV}
REQ=$(cd "$(dirname "$0")" && pwd)/requirements.txt
if [ -x "$VENV/bin/python" ] && cmp -s "$REQ" "$VENV/requirements.txt"; then
    echo "$VENV/bin/python"
    exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "site: no python3; make deps installs python3-venv" >&2; exit 2; }
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")" || exit 2
python3 -m venv "$VENV" 2>"$VENV.log" ||
    { echo "site: python3 -m venv failed ($(tail -n 1 "$VENV.log")); make deps installs python3-venv" >&2; exit 2; }
# one line, finished when pip is: "... done" or why not
printf 'site: installing MkDocs from PyPI into %s (once; pins in site/mkdocs/requirements.txt) ... ' "$VENV" >&2
# --only-binary: wheels only, so nothing is compiled; pip's own time-out keeps an offline machine short
if ! "$VENV/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: --timeout 20 -r "$REQ" >"$VENV.log" 2>&1; then
    rm -rf "$VENV"
    echo "failed: no PyPI (offline?); make site needs the network once (pip's words: $VENV.log)" >&2
    exit 2
fi
echo "done" >&2
cp "$REQ" "$VENV/requirements.txt"
rm -f "$VENV.log"
echo "$VENV/bin/python"
