"""The core (intake, engines, extraction, export, CLI scan path) never imports Qt or torch eagerly."""
from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import desktop.core

REPO = Path(__file__).resolve().parent.parent


def _core_modules() -> list[str]:
    names = ["desktop.core"]
    for info in pkgutil.walk_packages(desktop.core.__path__, prefix="desktop.core."):
        names.append(info.name)
    return names


def test_core_imports_no_qt_and_no_heavy_ml() -> None:
    """Import every core module in a fresh interpreter; PySide6, torch and transformers stay unloaded.

    torch/transformers are only loaded when the HunyuanOCR engine actually runs (lazy), so importing the
    engine module must not pull them in.
    """
    modules = _core_modules()
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('PySide6', 'PyQt5', 'PyQt6', 'torch', 'transformers'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core imported: {out.stdout.strip()}"


def test_import_linter_contract_declared() -> None:
    """pyproject.toml keeps the import-linter contract that forbids Qt in the core (run by lint-imports)."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "The core never imports Qt" in text
    assert '"desktop.core"' in text and '"PySide6"' in text
