#!/usr/bin/env bash
# Check an installed Shoebox package (after `apt install ./shoebox_<version>_amd64.deb`).
#
#   bash installer/check_installed.sh SAMPLE_IMAGE [PREFIX]
#
# PREFIX (default /usr/bin) holds the `shoebox` and `shoebox-gui` links. Runs, with HOME set to an empty
# temporary folder:
#   1. shoebox --version                     (every engine library present in the bundle)
#   2. shoebox scan SAMPLE_IMAGE -o out.json (exit 0, a document with fields and at least one value)
#      and nothing written under $HOME/.cache (onnxruntime telemetry, model downloads)
#   3. shoebox-gui on Qt's offscreen platform for 10 s: must still be running (timeout) with no traceback
# Exit status 0 when every check passes. Prints timings.
set -uo pipefail

SAMPLE="${1:?usage: check_installed.sh SAMPLE_IMAGE [PREFIX]}"
PREFIX="${2:-/usr/bin}"
WORK="$(mktemp -d -t shoebox-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home"
mkdir -p "$HOME"
unset SHOEBOX_HOME XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME
FAIL=0
fail() { echo "FAIL: $*"; FAIL=1; }

echo "== 1. $PREFIX/shoebox --version"
if "$PREFIX/shoebox" --version > "$WORK/version.txt" 2>&1; then
    cat "$WORK/version.txt"
    grep -E '^(rapidocr|onnxruntime|PyMuPDF|PySide6-Essentials) not installed' "$WORK/version.txt" \
        && fail "an engine library is missing from the bundle"
else
    cat "$WORK/version.txt"; fail "shoebox --version exited non-zero"
fi

echo "== 2. shoebox scan $SAMPLE"
START=$(date +%s.%N)
"$PREFIX/shoebox" scan "$SAMPLE" -o "$WORK/out.json" > "$WORK/scan.log" 2>&1
RC=$?
END=$(date +%s.%N)
tail -5 "$WORK/scan.log"
echo "exit $RC, $(echo "$END - $START" | bc) s"
[ "$RC" = 0 ] || fail "shoebox scan exited $RC"
if [ -s "$WORK/out.json" ]; then
    python3 - "$WORK/out.json" <<'EOF' || FAIL=1
import json, sys
data = json.load(open(sys.argv[1], encoding="utf-8"))
docs = data.get("documents", data) if isinstance(data, dict) else data
doc = docs[0]
if doc.get("error"):
    print("FAIL: document error:", doc["error"]); sys.exit(1)
fields = doc.get("fields") or {}
found = {k: (v.get("value") if isinstance(v, dict) else v) for k, v in fields.items()}
found = {k: v for k, v in found.items() if v not in (None, "")}
print(f"type {doc.get('document_type')}, {len(fields)} fields, {len(found)} with values:")
for k, v in found.items():
    print(f"   {k} = {v}")
if not found:
    print("FAIL: no field values"); sys.exit(1)
EOF
else
    fail "no output file"
fi
if [ -e "$HOME/.cache" ]; then
    find "$HOME/.cache" | head -20
    fail "something was written under \$HOME/.cache"
else
    echo "nothing under \$HOME/.cache"
fi

echo "== 3. QT_QPA_PLATFORM=offscreen shoebox-gui (10 s)"
QT_QPA_PLATFORM=offscreen timeout 10 "$PREFIX/shoebox-gui" > "$WORK/gui.log" 2>&1
RC=$?
cat "$WORK/gui.log" | head -20
[ "$RC" = 124 ] || fail "shoebox-gui exited $RC before the timeout"
grep -q "Traceback" "$WORK/gui.log" && fail "traceback from shoebox-gui"

if [ "$FAIL" = 0 ]; then echo "== all checks passed"; else echo "== some checks FAILED"; fi
exit "$FAIL"
