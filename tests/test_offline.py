"""Reading a document opens no network connection and leaves nothing in the user's home folder.

onnxruntime >= 1.2x writes ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db}``
(a device id and a queued telemetry event) when imported without ``ORT_DISABLE_TELEMETRY=1``; PyMuPDF 2.x
imports onnxruntime too. ``desktop.core`` sets the variable on import (:mod:`desktop.core.offline`).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent


def test_scanning_with_pp_ocr_makes_no_network_attempt(samples, network_attempts):
    from desktop.core.engines.ppocr import PPOCREngine
    from desktop.core.pipeline import scan_file

    docs = scan_file(samples / "sroie" / "sroie_007.jpg", PPOCREngine())
    assert docs[0].error is None and "20.00" in docs[0].text
    assert network_attempts == []


def _files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_scan_in_a_fresh_process_writes_nothing_under_home(samples, tmp_path):
    from desktop.core.engines.ppocr import model_dir

    home = tmp_path / "home"
    home.mkdir()
    models_before = _files_under(model_dir())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORT_", "HF_", "TRANSFORMERS_", "XDG_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local" / "share"), SHOEBOX_HOME=str(tmp_path / "shoebox"),
               PYTHONPATH=str(REPO))
    code = (
        "import sys\n"
        "import desktop.core\n"
        "from desktop.core.engines.ppocr import PPOCREngine\n"
        "from desktop.core.pipeline import scan_file\n"
        f"docs = scan_file({str(samples / 'sroie' / 'sroie_007.jpg')!r}, PPOCREngine())\n"
        "print(docs[0].error, len(docs[0].page_results[0].lines))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "None" and int(out.stdout.split()[1]) > 10
    assert _files_under(home) == []  # no ~/.cache/Microsoft, no model downloads, nothing
    assert _files_under(model_dir()) == models_before
