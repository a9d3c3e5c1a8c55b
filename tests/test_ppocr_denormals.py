"""Subnormal floats flushed to zero in PP-OCR's sessions (``ppocr_stages.session_options``).

The detector ran 2.3x its CPU time on subnormal activations (BENCHMARKS.md, issue 11); the flags must
reach every thread that runs it, and the readings must not change.
"""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop.core.engines import ppocr_stages
from desktop.core.engines.ppocr_stages import _ShrinkingSession

REPO = Path(__file__).resolve().parent.parent


class _FakeSession:
    """Records whether a run came through ``run`` (calling thread) or ``run_async`` (its own threads)."""

    def __init__(self, threads: int, *, async_fails: bool = False) -> None:
        self.threads = threads
        self.async_fails = async_fails
        self.calls: list[str] = []

    def get_session_options(self) -> Any:
        return type("Options", (), {"intra_op_num_threads": self.threads})()

    def run(self, names: Any, feed: Any, options: Any) -> list[np.ndarray]:
        self.calls.append("run")
        return [feed["x"] * 2]

    def run_async(self, names: Any, feed: Any, callback: Any, data: Any, options: Any) -> None:
        if self.async_fails:
            raise RuntimeError("intra op thread pool must have at least one thread for RunAsync")
        self.calls.append("run_async")
        worker = threading.Thread(target=lambda: callback([feed["x"] * 2], data, ""))
        worker.start()


def test_a_thread_without_the_flags_runs_the_detector_on_onnxruntimes_threads(monkeypatch):
    session = _FakeSession(threads=2)
    wrapped = _ShrinkingSession(session)
    x = np.arange(4, dtype=np.float32)
    monkeypatch.setattr(ppocr_stages, "flushes_denormals", lambda: False)
    assert np.array_equal(wrapped.run(None, {"x": x})[0], x * 2)
    monkeypatch.setattr(ppocr_stages, "flushes_denormals", lambda: True)
    assert np.array_equal(wrapped.run(None, {"x": x})[0], x * 2)
    assert session.calls == ["run_async", "run"]


def test_without_a_pool_of_its_own_the_run_stays_in_the_calling_thread(monkeypatch):
    monkeypatch.setattr(ppocr_stages, "flushes_denormals", lambda: False)
    one = _FakeSession(threads=1)
    assert _ShrinkingSession(one).run(None, {"x": np.ones(2, dtype=np.float32)})[0].tolist() == [2, 2]
    assert one.calls == ["run"]
    refused = _FakeSession(threads=2, async_fails=True)  # onnxruntime made no pool after all
    wrapped = _ShrinkingSession(refused)
    assert wrapped.run(None, {"x": np.ones(2, dtype=np.float32)})[0].tolist() == [2, 2]
    wrapped.run(None, {"x": np.ones(2, dtype=np.float32)})
    assert refused.calls == ["run", "run"] and not wrapped._has_pool


def test_an_async_error_is_raised_in_the_caller(monkeypatch):
    class Failing(_FakeSession):
        def run_async(self, names: Any, feed: Any, callback: Any, data: Any, options: Any) -> None:
            callback(None, data, "Failed to allocate memory")

    monkeypatch.setattr(ppocr_stages, "flushes_denormals", lambda: False)
    with pytest.raises(RuntimeError, match="allocate"):
        _ShrinkingSession(Failing(threads=2)).run(None, {"x": np.ones(1, dtype=np.float32)})


_PROBE = r"""
import threading
from desktop.core.engines import ppocr_stages as S
from desktop.core.engines.ppocr import MODEL_FILES, model_dir
seen = [S.flushes_denormals()]
cls = S._session(str(model_dir() / MODEL_FILES["Cls"]), 1)   # the process's first session, in main
seen.append(S.flushes_denormals())
later = []
t = threading.Thread(target=lambda: later.append(S.flushes_denormals())); t.start(); t.join()
print(seen + later, cls.get_session_options().get_session_config_entry("session.set_denormal_as_zero"))
"""


@pytest.mark.slow
def test_the_first_session_sets_the_flags_in_its_thread_and_threads_started_after():
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[False,", "True,", "True]", "1"]


@pytest.mark.slow
def test_the_detector_reads_the_same_whichever_thread_runs_it(samples, monkeypatch):
    # A detector run from a thread without the flags (through onnxruntime's threads) and from one with
    # them (in the calling thread) must find the very same boxes.
    from PIL import Image

    from desktop.core.engines.ppocr import PPOCREngine

    image = np.asarray(Image.open(samples / "sroie" / "sroie_007.jpg").convert("RGB"))[:, :, ::-1]
    engine = PPOCREngine(threads=2)
    engine.warm_up()
    try:
        stages = engine._stages
        session = stages._det.session
        paths: list[str] = []
        real_pool = session._run_in_pool

        def pool(*args: Any) -> Any:
            paths.append("pool")
            return real_pool(*args)

        monkeypatch.setattr(session, "_run_in_pool", pool)
        boxes = {}
        for flags in (False, True):
            monkeypatch.setattr(ppocr_stages, "flushes_denormals", lambda f=flags: f)
            boxes[flags] = stages.detect(np.ascontiguousarray(image)).boxes
    finally:
        engine.close()
    assert paths == ["pool"]
    assert len(boxes[True]) > 10 and np.array_equal(boxes[False], boxes[True])


_HEAP = r"""
import sys
import numpy as np
from desktop.core.engines import ppocr_stages as S
if sys.argv[1] == "bounded":
    assert S.bound_heap()
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20
big = np.ones(20 * 2**20, dtype=np.uint8); del big  # glibc raises its mmap threshold to 20 MB
before = rss()
blocks = [np.ones(5 * 2**20, dtype=np.uint8) for _ in range(30)]  # 150 MB of page-sized buffers
keep = blocks[-1]
del blocks  # all freed but the last
print(round(rss() - before))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator (mallopt) only")
def test_a_bounded_heap_gives_freed_page_buffers_back():
    # Without bound_heap, 5 MB buffers come from the heap once a 20 MB one was freed, and 145 MB of them
    # stay resident after they are freed; with it each is mapped on its own and unmapped when freed.
    held = {}
    for mode in ("default", "bounded"):
        out = subprocess.run([sys.executable, "-c", _HEAP, mode], cwd=REPO, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        held[mode] = float(out.stdout)
    assert held["default"] > 100 and held["bounded"] < 20, held


def test_the_engine_bounds_the_heap_once_when_it_loads(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(ppocr_stages, "_HEAP_BOUND", False)
    monkeypatch.setattr(ppocr_stages, "bound_heap", lambda: calls.append(1) or True)
    stages = ppocr_stages.Stages(Path("nowhere"), {}, workers=1, text_score=0.5)
    stages._det = stages._rec = stages._cls = object()  # sessions already there: load() only bounds
    stages.load()
    stages.load()
    assert calls == [1]
