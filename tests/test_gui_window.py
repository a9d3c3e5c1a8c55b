"""The desktop app end to end (pytest-qt, offscreen): read, edit, undo, export, reopen, cancel, errors.

Most tests read files through the real pipeline with a scripted engine (an :class:`Engine` that
returns fixed lines placed relative to the page, so the boxes are known); they are skipped until the
pipeline module is present.
"""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent, QGuiApplication, QImage, QKeySequence
from PySide6.QtWidgets import QMessageBox

from desktop.core.diagnostics import Code
from desktop.core.engines.base import Engine, EngineError, PageReading
from desktop.core.model import Line
from tests.responsiveness import ENGINE_DELAY_S, GapMeter, Timed

REPO = Path(__file__).resolve().parent.parent

LINES = [  # (text, relative box)
    ("ACME STORE", (0.10, 0.05, 0.60, 0.09)),
    ("DATE 05/03/2024", (0.10, 0.12, 0.60, 0.16)),
    ("TOTAL 12.50", (0.10, 0.80, 0.70, 0.84)),
]


class ScriptedEngine(Engine):
    """Returns :data:`LINES` scaled to the image (optionally slowly, or failing)."""

    name = "scripted"
    version = "1"

    def __init__(self, delay_s: float = 0.0, fail: str | None = None) -> None:
        self.delay_s = delay_s
        self.fail = fail
        self.calls = 0

    def read_page(self, image: np.ndarray) -> PageReading:
        self.calls += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail:
            raise EngineError(self.fail)
        h, w = image.shape[:2]
        return PageReading([Line(t, (x0 * w, y0 * h, x1 * w, y1 * h), 0.9) for t, (x0, y0, x1, y1) in LINES])


def make_png(path: Path, size: tuple[int, int] = (400, 600)) -> Path:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(img)
    for text, (x0, y0, _x1, _y1) in LINES:
        d.text((x0 * size[0], y0 * size[1]), text, fill="black")
    img.save(path)
    return path


window_engine = ScriptedEngine  # the conftest's make_window reads with one unless told otherwise


def wait_read(qtbot, window, timeout: int = 30000) -> None:
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=timeout)


# --------------------------------------------------------------------------------------- no pipeline
def test_start_up_imports_no_engine() -> None:
    """The window's modules load without torch, onnxruntime, rapidocr or transformers."""
    code = ("import sys; import desktop.gui.app, desktop.gui.mainwindow; "
            "print(','.join(m for m in ('torch','onnxruntime','rapidocr','transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_window_basics(make_window) -> None:
    w = make_window(factory=lambda notes: ScriptedEngine())
    assert w.windowTitle() == "Shoebox"
    titles = [a.text().replace("&", "") for a in w.menuBar().actions()]
    assert titles == ["File", "Edit", "View", "Document", "Settings", "Help"]
    assert w.open_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    assert w.export_action.shortcut().toString() == "Ctrl+E"
    assert w.quit_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Quit)
    assert w.fullscreen_action.shortcut().toString() == "F11"
    assert not w.open_action.icon().isNull()


def test_engine_warms_up_and_is_described(qtbot, make_window) -> None:
    w = make_window()
    qtbot.waitUntil(lambda: w.engine_label.text().endswith("ready"), timeout=10000)
    assert "scripted 1 (CPU)" in w.engine_label.text()


def test_engine_that_cannot_start_is_reported(qtbot, make_window, tmp_path) -> None:
    def broken(notes):
        raise EngineError("model folder missing")

    w = make_window(factory=broken)
    qtbot.waitUntil(lambda: "model folder missing" in w.engine_label.toolTip(), timeout=10000)
    # the status bar says it in few words (a reason can be a long sentence); the tooltip says it whole
    assert w.engine_label.text() == "OCR engine not available (details in the tooltip)"
    (entry_id,) = w.add_paths([make_png(tmp_path / "a.png")])
    wait_read(qtbot, w)
    entry = w.model.entry(entry_id)
    assert entry.status == "failed" and "model folder missing" in entry.document.error.message()


def test_viewer_zoom_and_outlines(qtbot) -> None:
    from desktop.core.model import PageResult
    from desktop.gui.viewer import PageViewer

    v = PageViewer()
    qtbot.addWidget(v)
    v.resize(500, 500)
    v.show()
    image = QImage(200, 300, QImage.Format.Format_RGB888)  # half the page's pixel size
    image.fill(Qt.GlobalColor.white)
    page = PageResult(1, 400, 600, [Line("x", (40, 30, 240, 54), 0.9), Line("y", (40, 480, 280, 504), 0.3)])
    v.set_page(image, page)
    assert len(v.line_items()) == 2
    assert v.line_items()[0].sceneBoundingRect().left() == pytest.approx(40, abs=1)
    v.fit_page()
    assert v.zoom_factor() * 600 <= v.viewport().height()
    v.fit_width()
    assert v.zoom_factor() * 400 == pytest.approx(v.viewport().width() - 16, abs=2)
    v.zoom_actual()
    assert v.zoom_factor() == pytest.approx(1 / max(1.0, v.devicePixelRatioF()))
    before = v.zoom_factor()
    v.zoom_in()
    assert v.zoom_factor() > before
    v.set_outlines_visible(False)
    assert not any(i.isVisible() for i in v.line_items())
    v.highlight([(40, 30, 240, 54)])
    assert len(v.highlighted_boxes()) == 1



def test_a_line_read_askew_is_outlined_by_its_quadrilateral(qtbot) -> None:
    """A photo taken askew: the source outline follows the slanted line (the engine's quadrilateral),
    not its upright bounding box, which would cover the lines above and below; an upright line keeps
    its rectangle."""
    from PySide6.QtWidgets import QGraphicsPolygonItem, QGraphicsRectItem

    from desktop.core.model import PageResult
    from desktop.gui.viewer import PageViewer

    v = PageViewer()
    qtbot.addWidget(v)
    image = QImage(400, 600, QImage.Format.Format_RGB888)
    image.fill(Qt.GlobalColor.white)
    slanted = Line("TOTAL 12.50", (40, 100, 340, 160), 0.9, polygon=[(40, 130), (330, 100), (340, 130), (50, 160)])
    upright = Line("CASH 20.00", (40, 300, 340, 330), 0.9, polygon=[(40, 300), (340, 300), (340, 330), (40, 330)])
    v.set_page(image, PageResult(1, 400, 600, [slanted, upright]))

    v.highlight([slanted.box])
    (item,) = v._highlight
    assert isinstance(item, QGraphicsPolygonItem)
    poly = item.polygon()
    assert poly.count() == 4
    assert poly.containsPoint(QPointF(185, 130), Qt.FillRule.OddEvenFill)  # the line's middle
    assert not poly.containsPoint(QPointF(45, 105), Qt.FillRule.OddEvenFill)  # the box's corner above it

    v.highlight([upright.box])
    (item,) = v._highlight
    assert isinstance(item, QGraphicsRectItem)
    assert len(v.highlighted_boxes()) == 1

    # the page's line outlines (hover, click to fill) follow the same shape
    slanted_item, upright_item = v.line_items()
    assert slanted_item.quad is not None and upright_item.quad is None
    assert slanted_item.shape().contains(QPointF(185, 130))
    assert not slanted_item.shape().contains(QPointF(45, 105))
    assert upright_item.shape().contains(QPointF(45, 305))

# --------------------------------------------------------------------------------------- with pipeline
@pytest.fixture
def pipeline():
    return importlib.import_module("desktop.core.pipeline")


def test_read_edit_undo_redo_export_reopen(qtbot, make_window, pipeline, samples, tmp_path) -> None:
    """The clerk's whole loop on a real SROIE scan, then a new window on the same session."""
    sample = samples / "sroie" / "sroie_007.jpg"
    w = make_window()
    (entry_id,) = w.add_paths([sample])
    wait_read(qtbot, w)
    entry = w.model.entry(entry_id)
    assert entry.status == "needs_review", entry.document and entry.document.error
    assert w.current_id == entry_id
    assert set(w.form.rows) == set(w.current_document().fields) and "total" in w.form.rows
    assert w.viewer.page is not None and len(w.viewer.line_items()) == len(LINES)
    assert "TOTAL 12.50" in w.text_view.toPlainText()

    edit = w.form.rows["total"].edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "45.60")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    doc = w.model.entry(entry_id).document
    assert doc.fields["total"].value == "45.60" and doc.fields["total"].edited
    assert doc.fields["total"].source == "user"
    edit_command = w.undo_stack.command(0).command  # the stack holds the review core's edit, as data
    assert w.undo_stack.count() == 1 and edit_command.action == "edit_field"
    assert edit_command.params["field"] == "total" and edit_command.entry_ids == [entry_id]

    qtbot.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # committed: the stack undoes
    assert w.model.entry(entry_id).document.fields["total"].value != "45.60"
    assert w.form.rows["total"].edit.text() != "45.60"
    qtbot.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert w.model.entry(entry_id).document.fields["total"].value == "45.60"
    w.undo_stack.undo()
    w.undo_stack.redo()
    assert w.model.entry(entry_id).document.fields["total"].value == "45.60"
    assert w.form.rows["total"].edit.text() == "45.60"

    seen: list[str] = []
    _answer_the_box("Mark reviewed", seen)  # fields are still to check: the window asks first
    w.mark_reviewed_and_next()
    assert seen and "still marked to check" in seen[0]
    assert w.model.entry(entry_id).status == "reviewed"

    export = importlib.import_module("desktop.core.export")
    assert export  # the module exists
    out = tmp_path / "out.json"
    assert w.export_documents(w.documents_for("reviewed"), out)
    text = out.read_text(encoding="utf-8")
    assert "45.60" in text
    assert not list(tmp_path.glob(".*partial*"))
    w.close()

    w2 = make_window()
    (restored,) = w2.model.entries()
    assert restored.document.fields["total"].value == "45.60" and restored.document.reviewed
    assert restored.source == str(sample.resolve())  # the window keeps resolved paths


def test_unsupported_and_missing_files_fail_with_reason(qtbot, make_window, pipeline, tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture", encoding="utf-8")
    good = make_png(tmp_path / "good.png")
    w = make_window()
    ids = w.add_paths([notes, tmp_path / "missing.jpg", good])
    wait_read(qtbot, w)
    entries = [w.model.entry(i) for i in ids]
    assert [e.status for e in entries] == ["failed", "failed", "needs_review"]
    assert entries[0].document.error.code == Code.UNSUPPORTED_TEXT_FILE
    assert entries[1].document.error.code == Code.FILE_NOT_FOUND
    assert "Failed" in w.model.status_text(entries[0])


def test_failing_engine_shows_error_on_document(qtbot, make_window, pipeline, tmp_path) -> None:
    w = make_window(ScriptedEngine(fail="simulated engine failure"))
    (entry_id,) = w.add_paths([make_png(tmp_path / "a.png")])
    wait_read(qtbot, w)
    entry = w.model.entry(entry_id)
    assert "simulated engine failure" in json.dumps(entry.document.to_dict())
    w.select_entry(entry_id)
    assert entry.status == "failed" and entry.document.error.code == Code.ENGINE_FAILED
    assert "simulated engine failure" in w.form._empty.text()
    # the queue card in plain words; the engine's own words a hover away
    assert w.model.status_text(entry) == "Failed: the engine failed"
    assert "simulated engine failure" in w.model.index(w.model.row_of(entry_id), 0).data(Qt.ItemDataRole.ToolTipRole)


def test_event_loop_keeps_turning_and_cancel_stops(qtbot, make_window, pipeline, tmp_path) -> None:
    """A slow engine reads in the background: the event loop never stalls for an engine call; Cancel stops."""
    # eight different files (copies of one file are read once: their reading is reused)
    files = [make_png(tmp_path / f"r{i}.png", (300 + i, 400)) for i in range(8)]
    engine = ScriptedEngine(delay_s=ENGINE_DELAY_S)
    engine.read_page = timed = Timed(engine.read_page)  # type: ignore[method-assign]
    w = make_window(engine)
    with GapMeter("slow engine, batch then Cancel") as meter:
        w.add_paths(files)
        qtbot.waitUntil(lambda: sum(e.status == "needs_review" for e in w.model.entries()) >= 1, timeout=20000)
        assert w.progress.isVisible() and w.cancel_action.isEnabled()
        w.cancel_action.trigger()
        wait_read(qtbot, w, timeout=10000)
    assert timed.calls and meter.stalled(timed.calls) == [], "the event loop froze while the engine ran"
    statuses = [e.status for e in w.model.entries()]
    assert statuses.count("needs_review") < len(files)
    assert "queued" in statuses and all(s in ("needs_review", "queued") for s in statuses)
    assert not w.progress.isVisible()
    read_before = engine.calls
    w.resume_queued()
    wait_read(qtbot, w, timeout=30000)
    assert [e.status for e in w.model.entries()] == ["needs_review"] * len(files)
    assert engine.calls == read_before + statuses.count("queued")


def test_the_gap_meter_sees_a_freeze(qtbot) -> None:
    """The responsiveness bound can fail: the same slow engine called on the GUI thread stalls the loop."""
    engine = ScriptedEngine(delay_s=ENGINE_DELAY_S)
    timed = Timed(engine.read_page)
    image = np.zeros((40, 30, 3), np.uint8)
    with GapMeter("slow engine called on the GUI thread") as meter:
        QTimer.singleShot(50, lambda: timed(image))
        qtbot.wait(int(ENGINE_DELAY_S * 1000) + 300)
    assert len(timed.calls) == 1 and len(meter.ticks) > 5
    assert meter.stalled(timed.calls) == timed.calls and meter.longest >= ENGINE_DELAY_S


def test_click_to_fill_and_field_highlight(qtbot, make_window, pipeline, tmp_path) -> None:
    w = make_window()
    (entry_id,) = w.add_paths([make_png(tmp_path / "a.png", (400, 600))])
    wait_read(qtbot, w)
    qtbot.waitUntil(lambda: w.viewer._pixmap_item is not None, timeout=10000)
    w.form.focus_field("vendor_name")
    qtbot.waitUntil(lambda: w.form.current_field == "vendor_name")
    pos = w.viewer.view_pos_of_line(2)  # "TOTAL 12.50"
    qtbot.mouseClick(w.viewer.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert w.pages.fill_menu is not None
    fill = next(a for a in w.pages.fill_menu.actions() if a.objectName() == "fill_action")
    assert "TOTAL 12.50" in fill.text()
    fill.trigger()
    w.pages.fill_menu.close()
    field = w.model.entry(entry_id).document.fields["vendor_name"]
    assert field.value == "TOTAL 12.50" and field.source == "user"
    assert field.box == pytest.approx((40, 480, 280, 504))
    w.form.focus_field("date")
    w.form.focus_field("vendor_name")
    qtbot.waitUntil(lambda: len(w.viewer.highlighted_boxes()) == 1)
    box = w.viewer.highlighted_boxes()[0]
    assert box.contains(QPointF(160, 492))
    w.undo_stack.undo()
    assert w.model.entry(entry_id).document.fields["vendor_name"].value != "TOTAL 12.50"


def test_change_type_mark_reviewed_and_next(qtbot, make_window, pipeline, tmp_path) -> None:
    w = make_window()
    a, b = w.add_paths([make_png(tmp_path / "a.png"), make_png(tmp_path / "b.png")])
    wait_read(qtbot, w)
    w.select_entry(a)
    w.change_document_type("invoice")
    assert w.model.entry(a).document.document_type == "invoice"
    assert "invoice_number" in w.form.rows
    w.undo_stack.undo()
    assert w.model.entry(a).document.document_type != "invoice"
    seen: list[str] = []
    _answer_the_box("Mark reviewed", seen)  # fields are still to check: the window asks first
    w.reviewed_action.trigger()
    assert seen and w.model.entry(a).status == "reviewed"
    assert w.current_id == b
    assert [d.source for d in w.documents_for("reviewed")] == [w.model.entry(a).source]


def test_export_failure_is_reported_and_leaves_nothing(qtbot, make_window, pipeline, tmp_path, monkeypatch) -> None:
    importlib.import_module("desktop.core.export")  # part of the product: never a skip
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args, **kw: shown.append(args[2]))
    w = make_window()
    w.add_paths([make_png(tmp_path / "a.png")])
    wait_read(qtbot, w)
    target = tmp_path / "no-such-folder" / "out.xlsx"
    assert not w.export_documents(w.documents_for("all"), target)
    assert shown and "out.xlsx" in shown[0]
    assert not target.exists() and not (tmp_path / "no-such-folder").exists()


def _answer_the_box(button_text: str | None, seen: list[str]) -> None:
    """Once the next modal message box is up: note its text, and click the button labelled
    ``button_text`` (``None``: close it)."""
    from PySide6.QtWidgets import QApplication

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        seen.append(box.text())
        chosen = next((b for b in box.buttons() if b.text() == button_text), None) if button_text else None
        (chosen or box.button(QMessageBox.StandardButton.Close)).click()

    QTimer.singleShot(0, answer)


@pytest.mark.parametrize("answer", ["Export all…", None])
def test_export_reviewed_with_none_reviewed_offers_export_all(qtbot, make_window, pipeline, tmp_path, monkeypatch,
                                                               answer) -> None:
    """Ctrl+E is Export reviewed: with documents read but none reviewed it says so and points at File >
    Export all… (Ctrl+Shift+E), whose button exports every document read."""
    from PySide6.QtWidgets import QFileDialog

    importlib.import_module("desktop.core.export")
    asked: list[str] = []
    out = tmp_path / "all.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kw: (asked.append(args[1]), (str(out), ""))[1])
    w = make_window()
    w.add_paths([make_png(tmp_path / "a.png"), make_png(tmp_path / "b.png")])
    wait_read(qtbot, w)
    assert w.documents_for("reviewed") == [] and len(w.documents_for("all")) == 2
    seen: list[str] = []
    _answer_the_box(answer, seen)
    assert w.export_action.shortcut().toString() == "Ctrl+E"
    w.export_action.trigger()
    assert len(seen) == 1 and seen[0].startswith("No document is marked reviewed yet (Ctrl+Enter marks one).")
    assert "File > Export all… (Ctrl+Shift+E)" in seen[0]
    assert w.export_all_action.shortcut().toString() == "Ctrl+Shift+E"
    if answer is None:
        assert asked == [] and not out.exists()
        return
    assert len(asked) == 1 and asked[0].startswith("Export 2 document")  # the all scope: both
    assert [d["source"] for d in json.loads(out.read_text(encoding="utf-8"))["documents"]] == [
        str((tmp_path / "a.png").resolve()), str((tmp_path / "b.png").resolve())]


def test_restored_queue_is_read_after_restart(qtbot, make_window, pipeline, tmp_path) -> None:
    from desktop.core.session import SessionStore

    with SessionStore() as store:
        store.add(str(make_png(tmp_path / "a.png")), status="reading")  # killed while reading
    w = make_window()
    wait_read(qtbot, w)
    qtbot.waitUntil(lambda: w.model.entries()[0].status == "needs_review", timeout=10000)


def test_drop_folder_and_paste_image(qtbot, make_window, pipeline, tmp_path) -> None:
    folder = tmp_path / "box"
    folder.mkdir()
    make_png(folder / "1.png")
    make_png(folder / "2.png")
    w = make_window()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder))])
    drop = QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    w.dropEvent(drop)
    assert [Path(e.source).name for e in w.model.entries()] == ["1.png", "2.png"]

    image = QImage(str(folder / "1.png"))
    QGuiApplication.clipboard().setImage(image)
    w.queue_view.setFocus()
    w.paste()
    wait_read(qtbot, w)
    pasted = w.model.entries()[-1]
    assert "pasted" in pasted.source and Path(pasted.source).is_file()
    assert pasted.status == "needs_review"


@pytest.mark.slow
def test_real_ppocr_reads_a_sroie_receipt(qtbot, make_window, pipeline, samples) -> None:
    ppocr = importlib.import_module("desktop.core.engines.ppocr")
    w = make_window(factory=lambda notes: ppocr.PPOCREngine())
    (entry_id,) = w.add_paths([samples / "sroie" / "sroie_007.jpg"])
    wait_read(qtbot, w, timeout=90000)
    doc = w.model.entry(entry_id).document
    assert doc.error is None and "TOTAL" in doc.text.upper()
    assert len(w.viewer.line_items()) == len(doc.page_results[0].lines) > 5


def test_queued_signals_do_not_exhaust_true(qtbot) -> None:
    """PySide6 6.12 drops a reference to ``True`` per queued signal; the app must outlive that.

    Without the workaround in ``desktop.gui._pyside_fix`` this aborts the interpreter (bool_dealloc)
    once the count runs out; here 20 000 queued signals must leave ``True`` alive and well.
    """
    from PySide6.QtCore import QCoreApplication, QObject, Signal

    import desktop.gui  # noqa: F401 - applies the workaround

    class Emitter(QObject):
        ping = Signal(int)

    got: list[int] = []
    e = Emitter()
    e.ping.connect(got.append, Qt.ConnectionType.QueuedConnection)
    for i in range(20_000):
        e.ping.emit(i)
    QCoreApplication.processEvents()
    assert len(got) == 20_000
    assert sys.getrefcount(True) > 1_000_000
