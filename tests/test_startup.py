"""What ``shoebox scan`` and its engine worker import at start-up: only what the page needs.

The figures live in BENCHMARKS.md (``benchmarks/bench_speed.py``, start-up section); these tests keep
the lazy imports lazy (a module imported again at start-up costs every scan its import time).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from desktop.core.engines import SERVER_URL_ENV, server_engine
from desktop.core.settings import Settings

REPO = Path(__file__).resolve().parent.parent


def _modules_after(code: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code`` (from this checkout)."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    run_env = {**os.environ, **(env or {})}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120,
                         env=run_env)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_server_variable_is_the_server_modules():
    from desktop.core.engines import server

    assert SERVER_URL_ENV == server.ENV_URL


def test_no_server_configured_is_found_without_the_server_module(tmp_path, monkeypatch):
    monkeypatch.delenv(SERVER_URL_ENV, raising=False)
    home = {"SHOEBOX_HOME": str(tmp_path), SERVER_URL_ENV: ""}
    mods = _modules_after("from desktop.core.engines import server_engine\nassert server_engine('auto', None, None) is None",
                          home)
    assert "desktop.core.engines.server" not in mods and "desktop.core.engines.hunyuan" not in mods
    # Configured (settings or environment): the server module reads its configuration as before.
    from desktop.core.engines import server

    asked: list[int] = []
    monkeypatch.setattr(server.ServerConfig, "from_settings", classmethod(lambda cls: asked.append(1)))
    Settings(server_url="http://gpu-box:8000/v1").save()
    assert server_engine("auto", None, []) is None and asked == [1]
    Settings().save()
    assert server_engine("auto", None, []) is None and asked == [1]
    monkeypatch.setenv(SERVER_URL_ENV, "gpu-box:8000")
    assert server_engine("auto", None, []) is None and asked == [1, 1]


@pytest.mark.slow
def test_a_ppocr_worker_imports_neither_hunyuan_nor_the_file_readers_it_does_not_need(tmp_path, samples):
    # What the engine worker of `shoebox scan` does for one JPEG: create the engine (auto), warm it up,
    # render the page, read it, look for e-invoice data.
    code = (
        "import desktop.core\n"
        "from desktop.core.engines import create_engine\n"
        "from desktop.core import intake, einvoice\n"
        "e = create_engine('auto', use_server=False); e.warm_up()\n"
        f"page = next(iter(intake.open_pages({str(samples / 'sroie' / 'sroie_007.jpg')!r})))\n"
        "e.read_upright(page.render(e.max_pixels)[0])\n"
        f"assert einvoice.structured_for({str(samples / 'tesseract' / 'phototest.tif')!r}) == (None, None)\n"
    )
    mods = _modules_after(code, {"SHOEBOX_HOME": str(tmp_path)})
    unwanted = {"desktop.core.engines.hunyuan", "desktop.core.engines.server", "desktop.core.einvoice.ofd",
                "desktop.core.einvoice.facturx", "numpy.ma", "psutil", "omegaconf", "requests",
                "PIL.EpsImagePlugin", "desktop.core.einvoice.xmlsafe", "lxml"}
    assert not (mods & unwanted), sorted(mods & unwanted)
    assert not any(m.startswith(("rapidocr.ch_ppocr", "rapidocr.inference_engine")) for m in mods)


def test_a_tiff_opens_without_every_pillow_plugin(tmp_path):
    from PIL import Image

    path = tmp_path / "page.tif"
    Image.fromarray(np.full((40, 60, 3), 200, np.uint8)).save(path)
    mods = _modules_after(f"from desktop.core import intake\npage = next(iter(intake.open_pages({str(path)!r})))\n"
                          "assert page.render(10_000)[0].shape[2] == 3")
    assert "PIL.TiffImagePlugin" in mods
    assert not {"PIL.EpsImagePlugin", "PIL.PsdImagePlugin", "PIL.IcoImagePlugin"} & mods


def test_the_worker_reports_its_resident_memory_without_psutil():
    from desktop.core.isolation.process import _rss_bytes

    rss = _rss_bytes()
    if sys.platform.startswith("linux"):
        import psutil

        assert abs(rss - psutil.Process().memory_info().rss) < 64 * 2**20
    assert rss > 10 * 2**20


def test_the_cli_module_imports_neither_package_metadata_nor_difflib():
    # the engine worker imports the CLI module again when it is spawned: both would cost every scan twice
    mods = _modules_after("import desktop.cli")
    assert "importlib.metadata" not in mods and "difflib" not in mods


def test_after_preload_the_first_document_imports_nothing_more():
    code = (
        "from desktop.core import extraction\n"
        "from tests.pages import synthetic_page\n"
        "extraction.preload()\n"
        "before = set(sys.modules)\n"
        "pages = synthetic_page([[('KEDAI MAJU SDN BHD', 150)], [('NO 8, JALAN 7/118B, 43000 KAJANG', 120)],\n"
        "                        [('Date: 03/02/2024', 40)], [('TOTAL', 40), ('12.50', 400)]])\n"
        "for doctype in ('receipt', 'invoice'):\n"
        "    extraction.extract_fields(pages, doctype)\n"
        "new = sorted(m for m in set(sys.modules) - before if m.startswith(('desktop', 'rapidfuzz')))\n"
        "assert not new, new\n"
    )
    mods = _modules_after(code)
    assert "desktop.core.extraction.receipt" in mods and "desktop.core.extraction.invoice" in mods


def test_the_engine_worker_can_be_started_before_numpy_is_imported(tmp_path):
    # shoebox scan starts the worker first (its numpy, onnxruntime and models take the other core), so
    # creating the isolated engine imports no numpy in the scan's own process
    mods = _modules_after("import desktop.cli\nfrom desktop.core.isolation import create_isolated_engine\n"
                          "create_isolated_engine('auto', None, notes=[])", {"SHOEBOX_HOME": str(tmp_path)})
    assert "desktop.core.isolation.process" in mods and "numpy" not in mods


def test_a_finished_scan_leaves_without_the_teardown_but_with_its_exit_work(tmp_path):
    # desktop.cli.run after `scan`: the thread pools and non-daemon threads are finished, the atexit
    # handlers run, stdout is flushed and the status kept, then os._exit skips the modules' teardown
    done = tmp_path / "thread.txt"
    code = (
        "import atexit, sys, threading, time\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from desktop import cli\n"
        "atexit.register(lambda: print('atexit ran', file=sys.stderr))\n"
        "pool = ThreadPoolExecutor(1); pool.submit(int)\n"
        f"def late(): time.sleep(0.2); open({str(done)!r}, 'w').write('done')\n"
        "def fake_main(argv): threading.Thread(target=late).start(); sys.stdout.write('out'); return 3\n"
        "cli.main = fake_main\n"
        "cli.run(['scan', 'x.jpg'])\n"
        "print('not reached')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 3 and out.stdout == "out", (out.stdout, out.stderr)
    assert "atexit ran" in out.stderr and done.read_text() == "done"
    # every other command exits the ordinary way
    with pytest.raises(SystemExit) as stop:
        __import__("desktop.cli").cli.run(["--version"])
    assert stop.value.code == 0


def test_the_engine_worker_of_a_cpu_only_install_imports_no_package_metadata(tmp_path):
    # without torch and transformers (the ordinary install), creating the engine of `auto` and naming its
    # version reads no distribution metadata (importlib.metadata: 15-50 ms of CPU at every worker start)
    mods = _modules_after("sys.modules['torch'] = sys.modules['transformers'] = None\n"
                          "from desktop.core.engines import create_engine\n"
                          "e = create_engine('auto', use_server=False)\nassert e.version.startswith('rapidocr ')",
                          {"SHOEBOX_HOME": str(tmp_path)})
    assert "desktop.core.engines.ppocr" in mods and "importlib.metadata" not in mods


def test_the_rapidocr_version_is_the_distributions():
    from importlib import metadata

    from desktop.core.engines.ppocr import _rapidocr_version

    assert _rapidocr_version() == metadata.version("rapidocr")
