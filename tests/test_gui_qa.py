"""Fixes from a QA run of the real app (X11 shortcuts, single instance, empty key fields, notes)."""
from __future__ import annotations

import pytest
import shiboken6

from desktop.core.diagnostics import Code, diag

pytest.importorskip("pytestqt")
from PySide6.QtGui import QAction, QKeySequence


@pytest.fixture
def window(qtbot):
    from desktop.gui.mainwindow import MainWindow
    from tests.test_gui_window import ScriptedEngine

    w = MainWindow(engine_factory=lambda notes: ScriptedEngine())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


# ------------------------------------------------------------------------------------------ shortcuts
def test_unique_shortcuts_expands_and_deduplicates(qapp) -> None:
    from desktop.gui.mainwindow import unique_shortcuts

    keys = unique_shortcuts("Ctrl+Shift+Z", "Ctrl+Y", QKeySequence.StandardKey.Redo, "Ctrl+Y")
    assert len(keys) == len({k.toString() for k in keys})
    assert keys[:2] == [QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")]
    for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Redo):
        assert k in keys


def test_no_action_binds_a_key_twice(window) -> None:
    """A key bound twice (in one action or two) is ambiguous in Qt and then does nothing."""
    seen: dict[str, str] = {}
    for a in window.findChildren(QAction):
        keys = [k.toString() for k in a.shortcuts()]
        assert len(keys) == len(set(keys)), (a.text(), keys)
        for k in keys:
            assert k not in seen, f"{k} bound to both {seen[k]!r} and {a.text()!r}"
            seen[k] = a.text()
    redo = [k.toString() for k in window.redo_action.shortcuts()]
    assert "Ctrl+Shift+Z" in redo and "Ctrl+Y" in redo
    assert QKeySequence(QKeySequence.StandardKey.Undo) in window.undo_action.shortcuts()


# ----------------------------------------------------------------------------------- empty key fields
@pytest.mark.parametrize(("doctype", "keys"), [
    ("receipt", {"vendor_name", "date", "total"}),
    ("invoice", {"vendor_name", "invoice_number", "date", "total"}),
    ("cn_vat_invoice", {"invoice_code", "invoice_number", "date", "total", "vendor_name", "buyer_name"}),
])
def test_empty_key_fields_are_to_check(window, doctype, keys) -> None:
    """Every field empty: the badge, the header and the form all count the type's key fields."""
    from desktop.core.doctypes import get_document_type
    from desktop.core.model import Document, Field, PageResult
    from desktop.gui.queue import ATTENTION_ROLE, attention_count

    assert set(get_document_type(doctype).key_fields) == keys
    fields = {name: Field(name) for name in get_document_type(doctype).fields}
    doc = Document(source="/tmp/blank.png", document_type=doctype, fields=fields,
                   page_results=[PageResult(1, 100, 100)])
    assert attention_count(doc) == len(keys)
    entry_id = window.model.add_document(doc)
    window.select_entry(entry_id)
    row = window.model.row_of(entry_id)
    assert window.model.index(row, 0).data(ATTENTION_ROLE) == len(keys)
    assert f"{len(keys)} field" in window.summary_label.text()  # plural forms need the en translator
    assert "Every field checks out" not in window.summary_label.text()
    marked = {name for name, r in window.form.rows.items() if r.edit.property("low")}
    assert marked == keys
    assert {name for name, r in window.form.rows.items() if r.badge.text() == "empty"} == keys
    # the clerk fills one in: one fewer to check
    window.commit_field("total", "12.50")
    assert attention_count(window.current_document()) == len(keys) - 1


# ------------------------------------------------------------------------------------------- notes
def test_notes_are_in_a_clerks_words(window) -> None:
    from desktop.core.model import Document, Field, PageResult

    turn = diag(Code.TURNED, degrees=270, reason="100% of the text lines run vertically")
    scale = diag(Code.DOWNSCALED, width=2339, height=1653, page_width=3508, page_height=2479)
    no_fields = diag(Code.MODEL_NO_FIELDS, engine="hunyuan")
    doc = Document(source="/tmp/a.png", document_type="receipt",
                   fields={"vendor_name": Field("vendor_name", "ACME", confidence=0.9),
                           "date": Field("date", "2024-03-05", confidence=0.9),
                           "total": Field("total", "12.50", confidence=0.9)},
                   page_results=[PageResult(1, 100, 100, warnings=[scale, turn])],
                   notes=[no_fields])
    window.select_entry(window.model.add_document(doc))
    text = window.summary_label.text()
    assert "Every field checks out" in text
    assert "Page 1: turned 270° clockwise to read it upright" in text
    assert "The AI model (hunyuan) gave no fields" in text
    assert "downscaled" not in text  # a detail: the tooltip has it
    tip = window.summary_label.toolTip()
    assert all(d.message() in tip for d in (scale, turn, no_fields))


def test_the_queue_and_the_header_say_the_same(window) -> None:
    """A fresh user saw "Needs review" in the queue and "Every field checks out" in the header for one
    document: both now follow review.standing (flags.field_reasons, lost pages)."""
    from desktop.core.model import Document, Field, PageResult

    def receipt(**extra: Field) -> Document:
        fields = {"vendor_name": Field("vendor_name", "ACME", confidence=0.9),
                  "date": Field("date", "2024-03-05", confidence=0.9), "total": Field("total", "12.50", confidence=0.9)}
        fields.update(extra)
        return Document(source="/tmp/a.png", document_type="receipt", fields=fields, page_results=[PageResult(1, 100, 100)])

    clean = window.model.add_document(receipt())
    window.select_entry(clean)
    assert "Every field checks out" in window.summary_label.text()
    assert window.model.status_text(window.model.entry(clean)) == "Checks out, not yet reviewed"
    flagged = window.model.add_document(receipt(total=Field("total", "12.50", confidence=0.3, needs_review=True)))
    window.select_entry(flagged)
    assert "Every field checks out" not in window.summary_label.text() and "1 field" in window.summary_label.text()
    assert window.model.status_text(window.model.entry(flagged)) == "Needs review"
    lost_doc = receipt()
    lost_doc.page_results[0].warnings.append(diag(Code.PAGES_AFTER_NOT_READ, page=1, reason=diag(Code.PDF_DAMAGED, detail="x")))
    lost = window.model.add_document(lost_doc)
    window.select_entry(lost)
    assert "Every field checks out" not in window.summary_label.text()
    assert window.model.status_text(window.model.entry(lost)).startswith("Needs review – pages after 1 could not be read")
    window.select_entry(clean)
    window.reviewing.mark_reviewed_and_next()
    assert window.model.status_text(window.model.entry(clean)) == "Reviewed"


def test_a_page_whose_content_may_be_lost_leads_the_notes_and_the_queue_says_it(window) -> None:
    """Behind "repaired" and "blank" notes of earlier pages, the page whose repair lost its content is the
    first note of the summary, and the queue row names it with its page."""
    from desktop.core.model import Document, PageResult

    pages = [PageResult(n, 100, 100, warnings=[diag(Code.PDF_REPAIRED), diag(Code.NO_TEXT)]) for n in (1, 2, 3)]
    pages[2].warnings.append(diag(Code.PDF_PAGE_CONTENT_GONE))
    entry = window.model.add_document(Document(source="/tmp/cut.pdf", pages=(1, 3), document_type="receipt",
                                               page_results=pages))
    window.select_entry(entry)
    summary = window.summary_label.text()
    assert "Page 3: the PDF was damaged and its repair lost this page" in summary.split(";")[0], summary
    assert window.model.status_text(window.model.entry(entry)).startswith(
        "Needs review – page 3: the PDF was damaged and its repair lost this page")


def test_a_dropped_folder_names_the_files_it_skipped(window, tmp_path) -> None:
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a scan", encoding="utf-8")
    (folder / ".hidden.txt").write_text("not said", encoding="utf-8")
    assert window.adding.add_paths([folder], remember=False) == []
    message = window.statusBar().currentMessage()
    assert "No documents found in" in message and "1 file(s) skipped" in message and "(notes.txt)" in message
    assert ".hidden" not in message


def test_failed_row_does_not_repeat_the_file_name(window) -> None:
    from PySide6.QtCore import Qt

    from desktop.core.model import Document

    entry_id = window.model.add_document(Document(source="/tmp/empty.jpg", error=diag(Code.EMPTY_FILE)))
    entry = window.model.entry(entry_id)
    assert window.model.status_text(entry) == "Failed: the file is empty (0 bytes)"
    index = window.model.index(window.model.row_of(entry_id), 2)
    assert index.data(Qt.ItemDataRole.ToolTipRole) == "empty.jpg: the file is empty (0 bytes)"


# ------------------------------------------------------------------------------------------ status bar
def test_hunyuan_on_the_cpu_warns_in_the_status_bar(qtbot) -> None:
    from desktop.gui.mainwindow import MainWindow
    from tests.test_gui_window import ScriptedEngine

    class CpuHunyuan(ScriptedEngine):
        name = "hunyuan"
        device = "cpu"

        def describe(self) -> str:
            return "HunyuanOCR (CPU, float32)"

    w = MainWindow(engine_factory=lambda notes: CpuHunyuan())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: "ready" in w.engine_label.text(), timeout=10000)
    assert "slow on the CPU" in w.engine_label.text()
    assert "expect minutes per page" in w.engine_label.toolTip()
    w.close()


def test_cpu_ppocr_is_not_called_slow(qtbot, window) -> None:
    qtbot.waitUntil(lambda: "ready" in window.engine_label.text(), timeout=10000)
    assert "slow" not in window.engine_label.text() and not window.worker.slow_warning


def test_progress_text_has_room(window) -> None:
    from PySide6.QtCore import Qt

    bar = window.progress
    sample = bar.format().replace("%v", "9999").replace("%m", "9999")
    assert bar.minimumWidth() > bar.fontMetrics().horizontalAdvance(sample)
    assert bar.alignment() & Qt.AlignmentFlag.AlignCenter


# ------------------------------------------------------------------------------------- single instance
def _app_cmd(*files: str) -> list[str]:
    import sys

    return [sys.executable, "-c", "import sys; from desktop.gui.app import main; raise SystemExit(main(sys.argv[1:]))",
            *files]


def test_second_start_hands_its_files_to_the_first(qapp, shoebox_home, tmp_path) -> None:
    import os
    import signal
    import subprocess
    import time
    from pathlib import Path

    from desktop.core.session import SessionStore
    from desktop.gui.single import send_to_running
    from tests.test_gui_window import make_png

    repo = Path(__file__).resolve().parent.parent
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SHOEBOX_HOME=str(shoebox_home))
    env.pop("SHOEBOX_MULTI_INSTANCE", None)
    first = subprocess.Popen(_app_cmd(), cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not send_to_running([]):  # an empty list only raises the window
            assert first.poll() is None, first.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "the first app never listened"
            time.sleep(0.2)
        png = make_png(tmp_path / "second.png")
        start = time.monotonic()
        # a relative path: the running app gets it made absolute
        second = subprocess.run(_app_cmd("second.png"), cwd=tmp_path, env=dict(env, PYTHONPATH=str(repo)),
                                capture_output=True, text=True, timeout=60)
        took = time.monotonic() - start
        assert second.returncode == 0, second.stderr[-2000:]
        print(f"second start handed its file over in {took:.2f} s")
        deadline = time.monotonic() + 20
        while True:
            with SessionStore() as store:
                sources = [e.source for e in store.entries()]
            if str(png) in sources or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert sources == [str(png)]
        assert first.poll() is None  # still running
    finally:
        first.send_signal(signal.SIGTERM)
        try:
            first.wait(60)
        except subprocess.TimeoutExpired:
            first.kill()
            first.wait()


def test_stale_socket_after_a_crash_is_replaced(qapp, tmp_path) -> None:
    """A socket file left behind by a killed app: nothing answers, the new app removes it and listens."""
    import socket as pysocket
    from pathlib import Path

    from PySide6.QtCore import QDir

    from desktop.gui.single import InstanceServer, send_to_running, server_name

    name = server_name(tmp_path)
    path = Path(QDir.tempPath()) / name
    stale = pysocket.socket(pysocket.AF_UNIX, pysocket.SOCK_STREAM)
    stale.bind(str(path))  # bound, never listening, then closed: the file stays, as after a crash
    stale.close()
    try:
        assert path.exists()
        assert not send_to_running(["x"], name)
        server = InstanceServer(name)
        assert server.listen()
        got: list[list[str]] = []
        server.files_received.connect(got.append)
        # the client blocks while the server needs this process's event loop: a client process
        import subprocess
        import sys
        import time

        from PySide6.QtCore import QCoreApplication

        code = ("import sys; from desktop.gui.single import send_to_running; "
                "raise SystemExit(0 if send_to_running(sys.argv[2:], sys.argv[1]) else 3)")
        client = subprocess.Popen([sys.executable, "-c", code, name, str(tmp_path / "a.png")],
                                  cwd=Path(__file__).resolve().parent.parent)
        deadline = time.monotonic() + 30
        while client.poll() is None and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.01)
        assert client.wait(5) == 0
        assert got == [[str(tmp_path / "a.png")]]
        server.close()
        shiboken6.delete(server)  # now, not at some later garbage collection inside another test
    finally:
        path.unlink(missing_ok=True)


def _server_and_client(folder):
    """A listening instance server named after ``folder`` and a local socket connected to it."""
    from PySide6.QtNetwork import QLocalSocket

    from desktop.gui.single import InstanceServer, server_name

    name = server_name(folder)
    server = InstanceServer(name)
    assert server.listen()
    client = QLocalSocket()
    client.connectToServer(name)
    assert client.waitForConnected(2000)
    return server, client


def test_server_destroyed_with_a_connection_open_calls_nothing_back(qapp, tmp_path) -> None:
    """CI crash: a half-read connection's ``disconnected`` fired into a server being destroyed.

    Destroying the server deletes its connections; with lambda slots that outlived it, the closing
    socket called back into the dead server (use after delete). Its slots are now its own methods, which
    Qt disconnects first.
    """
    import time

    from PySide6.QtCore import QCoreApplication
    from PySide6.QtNetwork import QLocalSocket

    server, client = _server_and_client(tmp_path)
    deadline = time.monotonic() + 5
    while not server.server.findChildren(QLocalSocket) and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.005)
    assert server.server.findChildren(QLocalSocket), "the server never took the connection"
    client.write(b'{"files": [')  # half a message: the connection stays open on the server's side
    client.flush()
    for _ in range(20):
        QCoreApplication.processEvents()
        time.sleep(0.005)
    shiboken6.delete(server)  # pytest-qt fails the test on any exception raised in a slot
    client.disconnectFromServer()
    for _ in range(50):
        QCoreApplication.processEvents()
        time.sleep(0.005)
    assert client.state() == QLocalSocket.LocalSocketState.UnconnectedState


def test_closing_the_server_drops_open_connections(qapp, tmp_path) -> None:
    from PySide6.QtNetwork import QLocalSocket

    server, client = _server_and_client(tmp_path)
    assert server.server.waitForNewConnection(2000)
    server.close()
    assert not server.server.isListening()
    assert client.waitForDisconnected(2000) or client.state() == QLocalSocket.LocalSocketState.UnconnectedState
    shiboken6.delete(server)


def test_files_opened_at_start_are_shown_over_the_restored_selection(window, qtbot, tmp_path) -> None:
    # QA: a restored session's selected document (a failed one) stayed on screen, not the files given
    first = window.add_paths([str(tmp_path / "kept.png")])  # missing files: queued, read as failed at once
    assert window.current_id == first[0]
    dropped = window.add_paths([str(tmp_path / "dropped.png")])  # dropped while a document is open
    assert dropped and window.current_id == first[0]
    opened = window.add_paths([str(tmp_path / "a.png"), str(tmp_path / "b.png")], show=True)
    assert window.current_id == opened[0]
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=10000)
