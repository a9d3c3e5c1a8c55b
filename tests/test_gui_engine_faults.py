"""The window with its engine in a worker process that really fails (tests/fault_engines.py): the failed
document shows its named error, the rest of the queue is read, and the window keeps working; closing the
window with a page in flight ends within 2 s and that file is read again at the next start; Cancel stops
a page that runs past its grace period.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from desktop.core.isolation.process import EngineSpec, Watchdog, WorkerEngine
from tests.fault_engines import TEXTS
from tests.test_engine_worker import EXPECTED, png

FAST = Watchdog(min_s=3.0, start_s=60.0, file_s=30.0)
HOG = Watchdog(min_s=20.0, start_s=60.0, file_s=30.0)


def factory(fault: str | None = None, delay: float = 0.0, spare: bool = False):
    def make(notes: list[str]) -> WorkerEngine:
        return WorkerEngine(EngineSpec("tests.fault_engines:make", {"fault": fault, "delay": delay}),
                            watchdog=HOG if fault == "hog" else FAST, spare=spare)

    return make


@pytest.fixture
def window(qtbot):
    from desktop.gui.mainwindow import MainWindow

    made = []

    def make(engine_factory):
        w = MainWindow(engine_factory=engine_factory)
        qtbot.addWidget(w)
        w.show()
        qtbot.waitExposed(w)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


@pytest.mark.parametrize("fault", ["kill", "abort", "segfault", "hang", "hog", "garbage"])
def test_failed_document_shows_its_error_and_the_queue_goes_on(qtbot, window, tmp_path, fault):
    w = window(factory(fault))
    ids = w.add_paths([png(tmp_path / "a_good.png"), png(tmp_path / "b_poison.png", poisoned=True),
                       png(tmp_path / "c_good.png")])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=90_000)
    a, b, c = (w.model.entry(i) for i in ids)
    assert a.status == "needs_review" and c.status == "needs_review", (a.document.error, c.document.error)
    assert b.status == "failed" and EXPECTED[fault] in b.document.error.message()
    w.select_entry(b.id)
    # the queue card says it in plain words (an engine's own words, as "garbage"'s, a hover away)
    assert EXPECTED[fault] in (w.model.tooltip(b) if fault == "garbage" else w.model.status_text(b))
    # the window keeps working: the next document is read normally
    (d,) = w.add_paths([png(tmp_path / "d_good.png")])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=30_000)
    assert w.model.entry(d).status == "needs_review"
    assert w.model.entry(d).document.page_results[0].text == "\n".join(TEXTS)


@pytest.mark.parametrize("spare", [False, True], ids=["one_worker", "with_spare"])
def test_closing_with_a_page_in_flight_ends_within_2_s_and_the_file_is_read_again(qtbot, window, tmp_path, spare):
    from desktop.core.isolation.process import worker_pid_alive

    w = window(factory(delay=60, spare=spare))
    (entry_id,) = w.add_paths([png(tmp_path / "slow.png")])
    qtbot.waitUntil(lambda: w.worker._engine is not None and w.worker._engine.pid is not None
                    and w.model.entry(entry_id).status == "reading", timeout=30_000)
    time.sleep(0.3)  # the page is in the worker now
    engine = w.worker._engine
    pids = [engine.pid, engine.next_pid]
    assert (pids[1] is not None) == spare
    t0 = time.monotonic()
    w.close()
    assert not w.threads_running()
    assert time.monotonic() - t0 < 2.0
    assert not any(pid is not None and worker_pid_alive(pid) for pid in pids)  # no worker outlives the window
    again = window(factory())
    qtbot.waitUntil(lambda: again.model.entries() and again.model.entries()[0].status == "needs_review",
                    timeout=30_000)
    assert Path(again.model.entries()[0].source).name == "slow.png"


def test_cancel_stops_a_page_past_its_grace_period(qtbot, window, tmp_path, monkeypatch):
    from desktop.gui import worker as worker_module

    monkeypatch.setattr(worker_module, "CANCEL_GRACE_S", 0.5)
    w = window(factory(delay=60))
    (entry_id,) = w.add_paths([png(tmp_path / "slow.png")])
    qtbot.waitUntil(lambda: w.model.entry(entry_id).status == "reading" and w.worker._engine is not None
                    and w.worker._engine.pid is not None, timeout=30_000)
    t0 = time.monotonic()
    w.cancel_reading()
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=10_000)
    assert time.monotonic() - t0 < 3.0
    assert w.model.entry(entry_id).status == "queued" and w.model.entry(entry_id).document is None


def test_an_einvoice_that_crashes_the_reader_fails_alone_and_the_window_goes_on(qtbot, window, tmp_path):
    from tests.test_engine_worker import EINVOICE_STOPPED, einvoice_batch, einvoice_killer

    w = window(lambda notes: einvoice_killer())
    ids = w.add_paths(einvoice_batch(tmp_path))
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=90_000)
    a, b, c = (w.model.entry(i) for i in ids)
    assert a.status == "needs_review" and c.status == "needs_review", (a.document.error, c.document.error)
    assert b.status == "failed" and EINVOICE_STOPPED in b.document.error.message()
    w.select_entry(b.id)
    assert EINVOICE_STOPPED in w.model.status_text(b)
    (d,) = w.add_paths([png(tmp_path / "d_good.png")])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=30_000)
    assert w.model.entry(d).status == "needs_review"
    assert w.model.entry(d).document.page_results[0].text == "\n".join(TEXTS)


def test_the_viewer_opens_anything_but_an_image_in_its_page_worker(tmp_path):
    """PDFs, OFD packages and XML invoices are parsed by native code (MuPDF, lxml): never in the window's process."""
    from desktop.core.isolation import LOCAL_PAGES
    from desktop.gui.worker import ImageLoader
    from tests.einvoice_fixtures import cii_xml, facturx_pdf

    xml = tmp_path / "invoice.xml"
    xml.write_bytes(cii_xml("EN16931"))
    loader = ImageLoader()
    try:
        assert loader._host(str(png(tmp_path / "photo.png"))) is LOCAL_PAGES
        for path in (xml, facturx_pdf(tmp_path / "rechnung.pdf", cii_xml("EN16931"))):
            host = loader._host(str(path))
            assert host is not LOCAL_PAGES and host is loader._pdf_worker.page_host()
    finally:
        if loader._pdf_worker is not None:
            loader._pdf_worker.close()


def test_a_lost_page_of_a_multi_page_file_is_named_in_the_queue(qtbot, window, tmp_path):
    import numpy as np
    from PIL import Image

    from tests.fault_engines import mark_poison

    pages = [np.full((800, 600, 3), 255, np.uint8) for _ in range(3)]
    mark_poison(pages[1])
    pdf = tmp_path / "three.pdf"
    Image.fromarray(pages[0]).save(pdf, save_all=True, append_images=[Image.fromarray(p) for p in pages[1:]])
    w = window(factory("kill"))
    ids = w.add_paths([pdf])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=90_000)
    assert ids
    # the page the engine died on stays with its file's document (boundaries: a page on which nothing was
    # read is no sign of a new document, so no phantom row for it), and the row names it
    entries = [e for e in w.model.entries() if e.document is not None and e.document.source == str(pdf.resolve())]
    assert [e.document.pages for e in entries] == [(1, 3)]
    texts = " ".join(w.model.status_text(e) for e in entries)
    assert "stopped unexpectedly while reading page 2" in texts, texts
