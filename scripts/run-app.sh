#!/usr/bin/env bash
# Quick start 1: set up Shoebox in ./.venv (CPU engine, no GPU needed) and open the app.
# Extra arguments are passed on: `bash scripts/run-app.sh ~/Scans/*.jpg` opens the app with those files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
PY=${PYTHON:-python3}
# a folder left by a failed attempt (no pip inside) is made again
.venv/bin/python -m pip --version >/dev/null 2>&1 || {
  rm -rf .venv
  "$PY" -m venv .venv || { echo "Could not create .venv with $PY -m venv: on Debian/Ubuntu install the" \
    "python3-venv package (apt-get install python3-venv), or set PYTHON to another Python 3.11+." >&2; exit 1; }
}
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" = "" ]; then
  echo "No display found: starting Shoebox on a virtual X screen (Xvfb). Stop it with Ctrl+C." >&2
  echo "To see it on a headless machine, take screenshots with:" \
    "xvfb-run -a -s \"-screen 0 1600x1000x24\" .venv/bin/python scripts/screenshots.py --out screenshots" >&2
  exec xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/shoebox "$@"
fi
exec .venv/bin/shoebox "$@"
