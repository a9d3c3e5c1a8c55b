#!/usr/bin/env bash
# Quick start 2: set up ./.venv-test (CPU build of torch for the HunyuanOCR tests) and run the whole suite.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
PY=${PYTHON:-python3}
# a folder left by a failed attempt (no pip inside) is made again
.venv-test/bin/python -m pip --version >/dev/null 2>&1 || {
  rm -rf .venv-test
  "$PY" -m venv .venv-test || { echo "Could not create .venv-test with $PY -m venv: on Debian/Ubuntu install the" \
    "python3-venv package (apt-get install python3-venv), or set PYTHON to another Python 3.11+." >&2; exit 1; }
}
# torch is pinned (CPU build on this kind of machine): an unpinned torch pulls a multi-GB CUDA build.
.venv-test/bin/python -m pip install -q --disable-pip-version-check -e ".[gpu,test]"
export QT_QPA_PLATFORM=offscreen
# Gates (configured in pyproject.toml): style, types of the Qt-free core, the import layers.
.venv-test/bin/ruff check .
.venv-test/bin/mypy
.venv-test/bin/lint-imports
exec .venv-test/bin/python -m pytest -n 2 -q "$@"
