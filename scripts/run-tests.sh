#!/usr/bin/env bash
# Quick start 2: set up ./.venv-test (CPU build of torch for the HunyuanOCR tests) and run the whole suite.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
PY=${PYTHON:-python3}
[ -x .venv-test/bin/python ] || "$PY" -m venv .venv-test
# torch is pinned (CPU build on this kind of machine): an unpinned torch pulls a multi-GB CUDA build.
.venv-test/bin/python -m pip install -q --disable-pip-version-check -e ".[gpu,test]"
export QT_QPA_PLATFORM=offscreen
# Gates (configured in pyproject.toml): style, types of the Qt-free core, the import layers.
.venv-test/bin/ruff check .
.venv-test/bin/mypy
.venv-test/bin/lint-imports
exec .venv-test/bin/python -m pytest -n 2 -q "$@"
