"""The engine worker reads the next file's page ahead (WorkerEngine.read_ahead, used by ``shoebox scan``):
each page is still read once, with the same reading, and a page that breaks the worker is still the one
page charged with it (tests/fault_engines.py: engines that really fail)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from desktop import cli
from desktop.core import pipeline
from desktop.core.isolation.process import EngineSpec, Watchdog, WorkerEngine, image_key
from desktop.core.model import Document
from desktop.core.pipeline import ScanOptions, scan_file
from tests.fault_engines import TEXTS, mark_poison

FAST = Watchdog(min_s=3.0, start_s=60.0, file_s=30.0)


def _png(path: Path, height: int, *, poisoned: bool = False) -> Path:
    image = np.full((height, 300, 3), 255, np.uint8)
    image[height // 2, 10:290] = 0  # some ink
    if poisoned:
        mark_poison(image)
    Image.fromarray(image).save(path)
    return path


def _worker(tmp_path: Path, fault: str | None = None, delay: float = 0.0,
            watchdog: Watchdog = FAST) -> tuple[WorkerEngine, Path]:
    log = tmp_path / "reads.log"
    spec = EngineSpec("tests.fault_engines:make_upright", {"fault": fault, "delay": delay, "log": str(log)})
    return WorkerEngine(spec, watchdog=watchdog), log


def _scan(engine: WorkerEngine, files: list[Path]) -> list[Document]:
    console = cli._Console(quiet=True)
    results: list[Document] = []
    cli._scan_files(pipeline, files, engine, ScanOptions(), console, Document, results)
    return results


def test_each_page_is_read_once_ahead_and_collected(tmp_path):
    files = [_png(tmp_path / f"{name}.png", height) for name, height in (("a", 400), ("b", 420), ("c", 440))]
    engine, log = _worker(tmp_path, delay=0.3)
    try:
        docs = _scan(engine, files)
        assert engine.read_ahead_hits == 3 and engine.restarts == 0
    finally:
        engine.close()
    assert [Path(d.source).name for d in docs] == ["a.png", "b.png", "c.png"]
    assert all(d.error is None and d.page_results[0].text == "\n".join(TEXTS) for d in docs)
    assert sorted(log.read_text().split()) == ["300x400", "300x420", "300x440"]  # one read per page
    # The same documents as read one at a time (the reading does not depend on the read-ahead).
    (tmp_path / "plain").mkdir()
    plain, _ = _worker(tmp_path / "plain")
    try:
        alone = [scan_file(f, plain, ScanOptions())[0] for f in files]
    finally:
        plain.close()
    assert [d.page_results[0].to_dict() for d in docs] == [d.page_results[0].to_dict() for d in alone]


def test_a_page_read_another_way_is_read_normally(tmp_path):
    path = _png(tmp_path / "a.png", 400)
    engine, log = _worker(tmp_path)
    try:
        assert engine.read_ahead(path)
        other = np.full((100, 100, 3), 255, np.uint8)  # not the page read ahead
        assert engine.read_upright(other).lines
        assert engine.read_ahead_hits == 0
        assert not engine.read_ahead(tmp_path / "missing.png")  # nothing to read ahead: no error here
        big = tmp_path / "big.png"
        Image.fromarray(np.full((1500, 1500, 3), 255, np.uint8)).save(big)
        assert not engine.read_ahead(big)  # over READ_AHEAD_MAX_PIXELS: read alone, for memory
    finally:
        engine.close()
    assert sorted(log.read_text().split()) == ["100x100", "300x400"]


def test_image_key_names_the_pixels():
    a = np.zeros((4, 5, 3), np.uint8)
    b = a.copy()
    assert image_key(a) == image_key(b)
    b[0, 0, 0] = 1
    assert image_key(a) != image_key(b) and image_key(a) != image_key(a.reshape(5, 4, 3))


@pytest.mark.parametrize("fault", ["kill", "hang"])
def test_a_page_that_breaks_the_worker_while_read_ahead_is_charged_alone(tmp_path, fault):
    # b kills (or hangs) the worker while a is read beside it: a and c are read, b has its own error.
    files = [_png(tmp_path / "a.png", 400), _png(tmp_path / "b.png", 420, poisoned=True), _png(tmp_path / "c.png", 440)]
    engine, _ = _worker(tmp_path, fault=fault, delay=0.2, watchdog=Watchdog(min_s=1.5, start_s=60.0, file_s=30.0))
    try:
        docs = _scan(engine, files)
    finally:
        engine.close()
    a, b, c = docs
    for doc in (a, c):
        assert doc.error is None and doc.page_results[0].text == "\n".join(TEXTS), doc
    warnings = [w.message() for w in b.page_results[0].warnings] if b.page_results else []
    expected = ("the engine stopped unexpectedly while reading page 1 (killed by SIGKILL" if fault == "kill"
                else "reading page 1 took longer than")
    assert any(expected in w for w in warnings), (b.error, warnings)
