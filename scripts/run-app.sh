#!/usr/bin/env bash
# Quick start 1: set up Shoebox in ./.venv (CPU engine, no GPU needed) and open the app.
# Extra arguments are passed on: `bash scripts/run-app.sh ~/Scans/*.jpg` opens the app with those files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" = "" ]; then
  echo "No display found: starting Shoebox on a virtual X screen (Xvfb). Stop it with Ctrl+C." >&2
  echo "To see it on a headless machine, use: .venv/bin/python scripts/screenshots.py" >&2
  exec xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/shoebox "$@"
fi
exec .venv/bin/shoebox "$@"
