"""Engines in a worker process (desktop/core/isolation/process.py), with engines that really fail
(tests/fault_engines.py): a killed, aborted, crashed, hanging or memory-exhausted worker, or one that
answers garbage, costs that page one named error; the worker starts again and the batch goes on.
"""
from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from desktop import cli
from desktop.core.diagnostics import Code, diag
from desktop.core.engines.base import (
    EngineCrashed,
    EngineInterrupted,
    EngineTimedOut,
    MalformedOutput,
)
from desktop.core.isolation.process import EngineSpec, Watchdog, WorkerEngine, describe_exit, worker_pid_alive
from desktop.core.model import ScanResult
from desktop.core.pipeline import Cancelled, ScanOptions, scan_file
from tests.fault_engines import TEXTS, mark_poison

#: Small limits so a hang costs the test seconds, not minutes (the hog needs time to fill 128 MiB).
FAST = Watchdog(min_s=3.0, start_s=60.0, file_s=30.0)
HOG = Watchdog(min_s=20.0, start_s=60.0, file_s=30.0)

#: What each fault's page says (the named error).
EXPECTED = {
    "kill": "the engine stopped unexpectedly while reading page 1 (killed by SIGKILL",
    "abort": "the engine stopped unexpectedly while reading page 1 (aborted: SIGABRT)",
    "segfault": "the engine stopped unexpectedly while reading page 1 (crashed: SIGSEGV)",
    "hang": "reading page 1 took longer than 3 s and was stopped",
    "hog": "out of memory",
    "garbage": "has a box or confidence that is not finite",
}


def worker(fault: str | None = None, delay: float = 0.0, **kwargs) -> WorkerEngine:
    watchdog = HOG if fault == "hog" else FAST
    return WorkerEngine(EngineSpec("tests.fault_engines:make", {"fault": fault, "delay": delay}),
                        watchdog=kwargs.pop("watchdog", watchdog), **kwargs)


def blank(h: int = 300, w: int = 200) -> np.ndarray:
    return np.full((h, w, 3), 255, np.uint8)


def png(path: Path, *, poisoned: bool = False) -> Path:
    image = blank(400, 300)
    if poisoned:
        mark_poison(image)
    Image.fromarray(image).save(path)
    return path


@pytest.fixture
def batch(tmp_path: Path) -> list[Path]:
    return [png(tmp_path / "a_good.png"), png(tmp_path / "b_poison.png", poisoned=True), png(tmp_path / "c_good.png")]


def test_worker_reads_pages_and_stays_warm():
    eng = worker()
    try:
        assert eng.pid is None and eng.describe() == "OCR engine (not started)"  # creating it starts nothing
        first = eng.read_page(blank())
        pid = eng.pid
        second = eng.read_page(blank(500, 400))
        assert [ln.text for ln in first.lines] == list(TEXTS)
        assert second.lines[2].box == pytest.approx((40, 250, 360, 300))  # boxes in the pixels of the image given
        assert eng.pid == pid and eng.restarts == 0  # one warm worker
        assert eng.name == "fault" and eng.last_rss > 0
    finally:
        eng.close()
    assert eng.pid is None


@pytest.mark.parametrize("fault", ["kill", "abort", "segfault"])
def test_a_dying_worker_is_a_named_error_and_restarts(fault):
    eng = worker(fault)
    try:
        eng.read_page(blank())
        with pytest.raises(EngineCrashed) as crash:
            eng.read_page(mark_poison(blank()))
        assert crash.value.exitcode is not None and crash.value.exitcode < 0
        assert crash.value.detail == describe_exit(crash.value.exitcode)
        assert crash.value.detail.code is {"kill": Code.WORKER_KILLED, "abort": Code.WORKER_ABORTED,
                                           "segfault": Code.WORKER_SEGFAULT}[fault]
        assert len(eng.read_page(blank()).lines) == 3 and eng.restarts == 1
    finally:
        eng.close()


def test_a_hanging_page_is_stopped_by_the_watchdog():
    eng = worker("hang")
    try:
        t0 = time.monotonic()
        with pytest.raises(EngineTimedOut) as timeout:
            eng.read_page(mark_poison(blank()))
        assert 3.0 <= time.monotonic() - t0 < 10 and timeout.value.limit_s == 3.0
        assert len(eng.read_page(blank()).lines) == 3 and eng.restarts == 1
    finally:
        eng.close()


def test_watchdog_scales_with_the_page_and_the_engine():
    dog = Watchdog(min_s=60, factor=20)
    assert dog.page_limit(500_000, 3.0) == 60            # a receipt with PP-OCR: the floor
    assert dog.page_limit(4_000_000, 3.0) == 240         # a 4 MP page: 20x its typical 12 s
    assert dog.page_limit(2_560_000, 120.0) == pytest.approx(6144)  # HunyuanOCR on the CPU: minutes
    assert dog.render_limit(4_000_000) > dog.render_limit(100_000)


def test_malformed_output_is_refused_at_the_boundary():
    eng = worker("garbage")
    try:
        with pytest.raises(MalformedOutput, match="line 1 .*not finite"):
            eng.read_page(mark_poison(blank()))
        assert eng.restarts == 0 and len(eng.read_page(blank()).lines) == 3  # the worker itself is fine
    finally:
        eng.close()


def test_memory_hog_is_stopped_by_the_os_and_the_worker_restarts():
    eng = worker("hog")
    try:
        with pytest.raises(MemoryError, match="out of memory"):
            eng.read_page(mark_poison(blank()))
        assert len(eng.read_page(blank()).lines) == 3 and eng.restarts == 1
    finally:
        eng.close()


def test_worker_is_recycled_between_calls_past_its_memory_limit():
    eng = worker(rss_limit_mb=1)  # any Python process is over 1 MiB: recycled after every call
    try:
        eng.read_page(blank())
        first = eng.pid
        assert len(eng.read_page(blank()).lines) == 3
        assert eng.restarts == 1 and eng.pid != first
    finally:
        eng.close()


def test_interrupt_stops_the_call_in_flight_and_holds_until_cleared():
    eng = worker(delay=30)
    try:
        eng.warm_up()
        threading.Timer(0.3, eng.interrupt).start()
        t0 = time.monotonic()
        with pytest.raises(EngineInterrupted):
            eng.read_page(blank())
        assert time.monotonic() - t0 < 2.0 and eng.pid is None
        with pytest.raises(EngineInterrupted):
            eng.read_page(blank())  # still interrupted: nothing starts again by itself
        eng.clear_interrupt()
        eng.interrupt(grace_s=60)  # a grace period longer than the page: it finishes
        eng.clear_interrupt()
    finally:
        eng.close()


def test_cancel_inside_a_page_raises_cancelled_from_the_pipeline(tmp_path):
    eng = worker(delay=30)
    try:
        eng.warm_up()
        threading.Timer(0.3, eng.interrupt).start()
        t0 = time.monotonic()
        with pytest.raises(Cancelled):
            scan_file(png(tmp_path / "a.png"), eng, ScanOptions(auto_rotate=False))
        assert time.monotonic() - t0 < 2.0
    finally:
        eng.close()


def test_a_pdf_that_kills_the_renderer_is_one_documents_error(tmp_path):
    """Rendering happens in the worker: a native crash there is that document's error, not the app's."""
    import pymupdf

    pdf = tmp_path / "evil.pdf"
    doc = pymupdf.open()
    doc.new_page(width=200, height=300)  # two image-only pages: both are rendered for OCR
    doc.new_page(width=200, height=300)
    doc.save(pdf)
    good = png(tmp_path / "good.png")
    eng = WorkerEngine(EngineSpec("tests.fault_engines:make_render_killer", {"victim": "evil.pdf"}), watchdog=FAST)
    try:
        bad_docs = scan_file(pdf, eng, ScanOptions(auto_rotate=False))
        good_docs = scan_file(good, eng, ScanOptions(auto_rotate=False))
    finally:
        eng.close()
    assert len(bad_docs) == 1 and bad_docs[0].error is not None
    assert "stopped unexpectedly" in bad_docs[0].error.message()
    assert good_docs[0].error is None and "TOTAL RM 12.50" in good_docs[0].page_results[0].text
    assert os.getpid() != eng.pid  # (the parent is alive to say so)


#: The error of an e-invoice whose embedded data crashes the reader (tests.fault_engines.make_einvoice_killer).
EINVOICE_STOPPED = "the reader stopped unexpectedly while reading the file's e-invoice data (crashed: SIGSEGV)"


def einvoice_batch(tmp_path: Path) -> list[Path]:
    """A good receipt, a Factur-X PDF whose embedded data crashes the reader (``b_evil.pdf``), a good receipt."""
    from tests.einvoice_fixtures import cii_xml, facturx_pdf

    return [png(tmp_path / "a_good.png"), facturx_pdf(tmp_path / "b_evil.pdf", cii_xml("EN16931")),
            png(tmp_path / "c_good.png")]


def einvoice_killer() -> WorkerEngine:
    return WorkerEngine(EngineSpec("tests.fault_engines:make_einvoice_killer", {"victim": "b_evil.pdf"}), watchdog=FAST)


def test_an_einvoice_whose_data_crashes_the_reader_is_one_documents_error(tmp_path):
    """The e-invoice data is read in the worker: MuPDF dying on a hostile attachment costs that document."""
    from tests.einvoice_fixtures import cii_xml, facturx_pdf

    good_invoice = facturx_pdf(tmp_path / "rechnung.pdf", cii_xml("EN16931"))
    eng = einvoice_killer()
    try:
        docs = [scan_file(p, eng, ScanOptions(auto_rotate=False)) for p in [*einvoice_batch(tmp_path), good_invoice]]
        assert eng.restarts == 1
    finally:
        eng.close()
    assert [len(d) for d in docs] == [1, 1, 1, 1]
    a, b, c, invoice = (d[0] for d in docs)
    assert b.error is not None and b.error.code.value == "einvoice_stopped" and EINVOICE_STOPPED in b.error.message()
    assert b.page_results  # the pages read before the crash stay with the error
    for d in (a, c):
        assert d.error is None and d.page_results[0].text == "\n".join(TEXTS)
    # the same reader, in the restarted worker, reads another e-invoice's data normally
    assert invoice.error is None and invoice.extras["einvoice"]["data"]["syntax"]
    assert invoice.fields["total"].value == "1487.50" and invoice.fields["total"].source == "xml"


def test_cli_batch_with_an_einvoice_that_crashes_the_reader(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: einvoice_killer())
    out = tmp_path / "out.json"
    status = cli.main(["scan", *map(str, einvoice_batch(tmp_path)), "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert status == 1, err
    errors = [ln for ln in err.splitlines() if ln.startswith("shoebox: error:")]
    assert len(errors) == 1 and "b_evil.pdf" in errors[0] and EINVOICE_STOPPED in errors[0], err
    docs = ScanResult.load(out).documents
    assert [Path(d.source).name for d in docs] == ["a_good.png", "b_evil.pdf", "c_good.png"]
    assert docs[0].error is None and docs[2].error is None and docs[2].page_results[0].text == "\n".join(TEXTS)


@pytest.mark.parametrize("fault", ["kill", "abort", "segfault", "hang", "hog", "garbage"])
def test_cli_batch_finishes_with_one_named_error(fault, batch, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: worker(fault))
    out = tmp_path / "out.json"
    status = cli.main(["scan", *map(str, batch), "--type", "receipt", "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert status == 1, err
    errors = [ln for ln in err.splitlines() if ln.startswith("shoebox: error:")]
    assert len(errors) == 1 and "b_poison.png" in errors[0] and EXPECTED[fault] in errors[0], err
    docs = ScanResult.load(out).documents
    assert [Path(d.source).name for d in docs] == ["a_good.png", "b_poison.png", "c_good.png"]
    for d in (docs[0], docs[2]):  # before and after the failure: read normally
        assert d.error is None and d.page_results[0].text == "\n".join(TEXTS)
    assert docs[1].error and EXPECTED[fault] in docs[1].error.message()
    if fault in ("kill", "abort", "segfault", "hang", "hog"):  # read back from the JSON, said in Chinese throughout
        zh = docs[1].error.message("zh")
        assert re.search(r"[\u4e00-\u9fff]", zh) and not re.search(r"[a-z]{3,}", re.sub(r"SIG[A-Z]+", "", zh)), zh


def test_how_a_worker_ended_is_said_in_both_languages():
    """describe_exit is a diagnostic (issue 10): the crash detail inside a Chinese sentence is Chinese."""
    killed = describe_exit(-signal.SIGKILL)
    assert killed.code is Code.WORKER_KILLED
    crash = diag(Code.ENGINE_CRASHED, page=2, detail=killed)
    assert crash.message() == ("the engine stopped unexpectedly while reading page 2 "
                               "(killed by SIGKILL, as when the computer runs out of memory)")
    assert crash.message("zh") == "读取第 2 页时识别引擎意外停止（进程被 SIGKILL 强行终止，通常是因为电脑内存不足）"
    assert describe_exit(-signal.SIGABRT).message("zh") == "进程异常中止：SIGABRT"
    assert describe_exit(-signal.SIGSEGV).message() == "crashed: SIGSEGV"
    assert describe_exit(-signal.SIGTERM).message() == "ended by SIGTERM"
    assert describe_exit(-signal.SIGTERM).message("zh") == "进程被信号 SIGTERM 终止"
    assert describe_exit(3).message() == "exit code 3" and describe_exit(3).message("zh") == "进程退出，退出码 3"
    assert describe_exit(None).code is Code.WORKER_UNRESPONSIVE
    assert type(crash).from_dict(crash.to_dict()) == crash  # the detail survives the JSON as a diagnostic


def test_a_file_that_crashes_the_reader_on_opening_is_its_own_error(tmp_path):
    """A native crash opening a file (before any page) is that file's error, named in both languages; the
    next file is read by the restarted worker."""
    evil, good = png(tmp_path / "evil.png"), png(tmp_path / "good.png")
    eng = WorkerEngine(EngineSpec("tests.fault_engines:make_open_killer", {"victim": "evil.png"}), watchdog=FAST)
    try:
        bad_docs = scan_file(evil, eng, ScanOptions(auto_rotate=False))
        good_docs = scan_file(good, eng, ScanOptions(auto_rotate=False))
    finally:
        eng.close()
    (bad,) = bad_docs
    assert bad.error is not None and bad.error.code is Code.READER_STOPPED
    assert bad.error.message() == ("the file reader stopped unexpectedly (crashed: SIGSEGV): the file may be damaged "
                                   "or malicious")
    assert bad.error.message("zh") == "文件读取进程意外停止（进程崩溃：SIGSEGV）：文件可能已损坏或含有恶意内容"
    assert good_docs[0].error is None and good_docs[0].page_results[0].text == "\n".join(TEXTS)


def test_killing_the_worker_from_outside_is_survived(tmp_path):
    eng = worker()
    try:
        eng.read_page(blank())
        os.kill(eng.pid, signal.SIGKILL)
        time.sleep(0.2)
        assert len(eng.read_page(blank()).lines) == 3 and eng.restarts == 1
    finally:
        eng.close()


def test_an_engine_that_cannot_load_says_so_and_starts_nothing_more():
    from desktop.core.engines.base import EngineUnavailable
    from desktop.core.isolation import create_worker_engine

    eng = create_worker_engine("hunyuan")  # no model folder anywhere in this test's SHOEBOX_HOME
    assert eng.describe() == "HunyuanOCR (not started)"
    with pytest.raises(EngineUnavailable, match="no complete HunyuanOCR model folder") as first:
        eng.warm_up()
    with pytest.raises(EngineUnavailable) as second:
        eng.read_page(blank())
    assert second.value is first.value and eng.pid is None and eng.restarts == 0
    # why, as the worker's diagnostic: the Chinese UI says it in Chinese
    reason = first.value.diagnostic
    assert reason is not None and reason.code is Code.HUNYUAN_NO_MODEL_FOLDER
    assert reason.message("zh").startswith("没有找到完整的 HunyuanOCR 模型文件夹")


def test_default_memory_limit_leaves_room_for_a_big_model():
    eng = worker()
    try:
        eng.warm_up()
        assert eng.rss_limit_bytes == max(2048 * 2**20, 2 * eng.last_rss)
        eng.read_page(blank())
        eng.read_page(blank())
        assert eng.restarts == 0
    finally:
        eng.close()


def test_the_worker_path_reads_a_turned_page_once_and_upright(samples, tmp_path):
    """PP-OCR's own orientation (Capability.UPRIGHT) crosses the process boundary: a receipt lying on its
    side costs one engine call, which answers it turned upright (no read, probe and second read)."""
    pytest.importorskip("rapidocr")
    from benchmarks.textmetrics import cer
    from desktop.core.engines.base import Capability
    from desktop.core.isolation import create_worker_engine

    sample = samples / "sroie" / "sroie_007.jpg"
    truth = "\n".join(row.split(",", 8)[8] for row in sample.with_suffix(".box.txt").read_text().splitlines() if row)
    upright = Image.open(sample).convert("RGB")
    upright.rotate(90, expand=True).save(tmp_path / "turned.png")  # content a quarter turn anticlockwise
    eng = create_worker_engine("ppocr")
    calls: list[str] = []
    send = eng._call

    def spy(op, args, **kwargs):
        calls.append(op)
        return send(op, args, **kwargs)

    eng._call = spy  # type: ignore[method-assign]
    try:
        assert Capability.UPRIGHT in eng.capabilities
        (doc,) = scan_file(tmp_path / "turned.png", eng, ScanOptions(document_type="receipt", decode_qr=False))
    finally:
        eng.close()
    assert [op for op in calls if op.startswith("read_")] == ["read_upright"], calls
    page = doc.page_results[0]
    assert page.rotation == 90 and any(w.code.value == "turned" for w in page.warnings)
    assert (page.width, page.height) == upright.size  # the page as stored is the upright one
    assert cer(page.text, truth) < 0.25  # 0.18 measured (the truth's line order differs); unturned: 0.9
    assert doc.fields["total"].value == "20.00"


def test_a_dead_workers_replacement_starts_at_once():
    """The replacement loads while the caller deals with the failed page; the next call takes it over."""
    eng = worker("kill")
    try:
        eng.read_page(blank())
        first = eng.pid
        with pytest.raises(EngineCrashed):
            eng.read_page(mark_poison(blank()))
        ahead = eng.next_pid
        assert eng.pid is None and ahead is not None and ahead != first  # started before anyone asked
        assert len(eng.read_page(blank()).lines) == 3
        assert eng.pid == ahead and eng.restarts == 1 and eng.replacements == 1 and eng.next_pid is None
    finally:
        eng.close()


def test_a_spare_worker_takes_over_after_a_crash_and_a_new_spare_follows():
    eng = worker("segfault", spare=True)
    try:
        eng.warm_up()
        spare = eng.next_pid
        assert spare is not None and spare != eng.pid  # kept warm beside the worker in use
        eng.read_page(blank())
        with pytest.raises(EngineCrashed):
            eng.read_page(mark_poison(blank()))
        assert eng.next_pid == spare  # no second replacement: the spare is it
        assert len(eng.read_page(blank()).lines) == 3 and eng.pid == spare and eng.restarts == 1
        new_spare = eng.next_pid
        assert new_spare is not None and new_spare != spare
    finally:
        eng.close()
    assert not worker_pid_alive(spare) and not worker_pid_alive(new_spare)  # close stops both


def test_no_spare_for_a_big_engine(monkeypatch):
    from desktop.core.isolation import process

    monkeypatch.setattr(process, "SPARE_MAX_MB", 1)  # any worker is bigger than 1 MiB
    eng = worker(spare=True)
    try:
        eng.warm_up()
        eng.read_page(blank())
        assert eng.pid is not None and eng.next_pid is None
    finally:
        eng.close()


def test_an_interrupt_starts_no_replacement():
    eng = worker(delay=30, spare=False)
    try:
        eng.warm_up()
        threading.Timer(0.3, eng.interrupt).start()
        with pytest.raises(EngineInterrupted):
            eng.read_page(blank())
        assert eng.pid is None and eng.next_pid is None
    finally:
        eng.close()


def test_an_engine_here_has_its_files_opened_and_rendered_in_a_page_worker(tmp_path):
    """PagesInWorker (the office-server engine's wrapper): a PDF that crashes MuPDF costs one document."""
    import pymupdf

    from desktop.core.isolation.process import PagesInWorker
    from tests.fake_engines import FakeEngine

    pdf = tmp_path / "evil.pdf"
    doc = pymupdf.open()
    doc.new_page(width=200, height=300)
    doc.save(pdf)
    pages = WorkerEngine(EngineSpec("tests.fault_engines:make_render_killer", {"victim": "evil.pdf"}), watchdog=FAST)
    here = FakeEngine([{"width": 300, "height": 400, "lines": [{"text": "TOTAL 9.00", "box": [10, 10, 200, 40]}]}],
                      capabilities={"markdown"})
    here.concurrency = 3  # an attribute of the engine itself reads through
    eng = PagesInWorker(here, pages=pages)
    try:
        assert eng.name == here.name and eng.capabilities == here.capabilities and eng.concurrency == 3
        bad = scan_file(pdf, eng, ScanOptions(auto_rotate=False))
        good = scan_file(png(tmp_path / "good.png"), eng, ScanOptions(auto_rotate=False))
        assert pages.pid is not None and pages.pid != os.getpid()
    finally:
        eng.close()
    assert len(bad) == 1 and bad[0].error is not None and "stopped unexpectedly" in bad[0].error.message()
    assert good[0].error is None and good[0].page_results[0].text == "TOTAL 9.00"
    assert pages.pid is None  # closed with the engine



def test_the_front_ends_engines_keep_native_file_readers_out_of_their_process():
    """shoebox scan / serve: a worker engine, or the office-server engine here with a page worker."""
    from desktop.core.engines.server import ServerConfig, ServerEngine
    from desktop.core.isolation import create_isolated_engine
    from desktop.core.isolation.process import PagesInWorker

    local = create_isolated_engine("ppocr")
    assert isinstance(local, WorkerEngine) and local.pid is None  # nothing started yet
    auto = create_isolated_engine("auto", spare=True)  # no server configured here: HunyuanOCR or PP-OCR
    assert isinstance(auto, WorkerEngine) and auto.spare and auto.spec.kwargs["use_server"] is False
    remote = create_isolated_engine("server", server=ServerConfig("http://127.0.0.1:9", cpu_fallback=True))
    try:  # (the server engine connects on warm_up, not before)
        assert isinstance(remote, PagesInWorker) and isinstance(remote.engine, ServerEngine)
        assert remote.page_host() is remote.pages.page_host() and remote.pages.spec is None
        fallback = remote.engine._fallback_factory()  # the CPU engine for a server that is down
        assert isinstance(fallback, WorkerEngine) and fallback.spec.kwargs["name"] == "ppocr"
    finally:
        remote.close()


_PARENT = """
import sys, time, threading
import numpy as np
sys.path.insert(0, {root!r})
from desktop.core.isolation.process import EngineSpec, Watchdog, WorkerEngine
from tests.fault_engines import mark_poison
eng = WorkerEngine(EngineSpec("tests.fault_engines:make", {{"fault": "hang"}}),
                   watchdog=Watchdog(min_s=600.0, start_s=60.0, file_s=600.0))
eng.warm_up()
print(eng.pid, flush=True)
eng.read_page(mark_poison(np.full((300, 200, 3), 255, np.uint8)))  # hangs; the test kills this process
"""


def test_a_worker_busy_with_a_page_ends_when_the_app_is_killed(tmp_path):
    """kill -9 of the app (or a crash) with a page in flight leaves no worker holding CPU and memory."""
    import signal
    import subprocess
    import sys

    root = str(Path(__file__).resolve().parent.parent)
    parent = subprocess.Popen([sys.executable, "-c", _PARENT.format(root=root)], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        assert worker_pid_alive(pid)
        time.sleep(0.5)  # the page is in flight
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        import psutil

        def running() -> bool:  # an exited orphan may stay a zombie until init reaps it
            try:
                return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess:
                return False

        deadline = time.monotonic() + 10
        while running() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not running(), "the worker outlived the app that started it"
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.parametrize("fault, said", [("kill", "stopped unexpectedly"), ("garbage", "not finite")])
def test_a_lost_page_of_a_multi_page_file_is_an_error_everywhere(fault, said, tmp_path, monkeypatch, capsys):
    """Page 2 of 3 kills the worker: the CLI says so as an error even with -q, exits 1, and the CSV
    and xlsx say the page was not read (a lost page is never silent)."""
    from PIL import Image

    pages = [np.full((800, 600, 3), 255, np.uint8) for _ in range(3)]
    mark_poison(pages[1])
    pdf = tmp_path / "three.pdf"
    Image.fromarray(pages[0]).save(pdf, save_all=True, append_images=[Image.fromarray(p) for p in pages[1:]])
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: worker(fault))
    good = png(tmp_path / "a_good.png")
    for out in (tmp_path / "out.csv", tmp_path / "out.xlsx"):
        status = cli.main(["scan", str(good), str(pdf), "--type", "receipt", "-o", str(out), "-q"])
        err = capsys.readouterr().err
        assert status == 1, err
        errors = [ln for ln in err.splitlines() if ln.startswith("shoebox: error:")]
        assert len(errors) == 1 and "three.pdf:" in errors[0] and "page 2" in errors[0] and said in errors[0], err
    csv_text = (tmp_path / "out.csv").read_text(encoding="utf-8-sig")
    assert "Error: " in csv_text and "page 2" in csv_text
    import openpyxl

    wb = openpyxl.load_workbook(tmp_path / "out.xlsx")
    problems = [" ".join(str(c) for c in row if c) for row in wb["Problems"].iter_rows(values_only=True)]
    assert any("three.pdf" in r and "page 2" in r and said in r for r in problems), problems


@pytest.fixture
def stderr_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the stderr files the workers started in this test were given."""
    import tempfile

    made: list[str] = []
    real = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        fd, path = real(*args, **kwargs)
        made.append(path)
        return fd, path

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    return made


def test_a_worker_that_dies_while_starting_names_its_last_words_on_stderr(caplog, stderr_files) -> None:
    """A native library that prints why and exits while the engine loads: the error says how the worker ended
    and what it last wrote on stderr (a hint for IT), the Chinese message leaves the library's English out,
    and the worker's stderr file is gone afterwards."""
    eng = WorkerEngine(EngineSpec("tests.fault_engines:make_start_failure",
                                  {"words": "libfoo: cannot initialise the device (error 42)"}), watchdog=FAST)
    try:
        with caplog.at_level("WARNING"), pytest.raises(EngineCrashed) as crash:
            eng.warm_up()
    finally:
        eng.close()
    assert crash.value.exitcode == 255
    assert crash.value.detail is not None and crash.value.detail.code is Code.WORKER_LAST_WORDS
    assert str(crash.value) == ("the worker process stopped unexpectedly while starting the engine (exit code 255; "
                                "its last words on stderr: some harmless warning first / libfoo: cannot initialise "
                                "the device (error 42))")
    assert crash.value.detail.message("zh") == "进程退出，退出码 255"
    assert "libfoo: cannot initialise" in caplog.text  # the whole of it in the log
    assert len(stderr_files) == 1 and not any(os.path.exists(p) for p in stderr_files)


def test_a_worker_s_stderr_file_is_removed_when_it_closes(stderr_files) -> None:
    eng = worker()
    try:
        eng.read_page(blank())
        assert stderr_files and all(os.path.exists(p) for p in stderr_files)
    finally:
        eng.close()
    assert not any(os.path.exists(p) for p in stderr_files)
