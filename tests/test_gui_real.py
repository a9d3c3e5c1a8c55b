"""The desktop app on real samples with the real pipeline, intake, extraction and export.

The engine is :class:`~tests.fake_engines.FakeEngine` replaying what PP-OCR recorded on the same
sample (``tests/data/ocr/*.json``), so everything but the neural network is the real thing and the
tests stay fast and deterministic (the real PP-OCR engine is exercised in ``test_gui_window.py``).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from desktop.core.diagnostics import Code
from tests.fake_engines import FailingEngine, FakeEngine
from tests.responsiveness import GapMeter

DATA = Path(__file__).parent / "data" / "ocr"



def recorded(name: str) -> FakeEngine:
    """A FakeEngine replaying the recorded PP-OCR pages of sample ``name`` (one recording, every page)."""
    pages = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))["pages"]
    return FakeEngine(pages)




def wait_read(qtbot, window, timeout: int = 60000) -> None:
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=timeout)


def wait_image(qtbot, window, timeout: int = 30000) -> None:
    qtbot.waitUntil(lambda: window.viewer._pixmap_item is not None, timeout=timeout)


def drop(window, paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    window.dropEvent(QDropEvent(QPointF(300, 300), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier))


def shown_attention(window) -> int:
    """Fields the form marks: a red problem line shown, or the amber to-check tint."""
    return sum(1 for r in window.form.rows.values() if r.problems.isVisibleTo(window.form) or r.edit.property("low"))


def test_vat_invoice_edit_undo_export_reopen(qtbot, make_window, samples, tmp_path) -> None:
    """Drop a Chinese VAT e-invoice: QR-filled fields say so; edit, undo, redo, export xlsx, reopen."""
    openpyxl = pytest.importorskip("openpyxl")
    sample = samples / "cn_invoice" / "vat_einvoice_tianjin.png"
    w = make_window(recorded("vat_einvoice_tianjin"))
    drop(w, [sample])
    wait_read(qtbot, w)
    (entry,) = w.model.entries()
    doc = entry.document
    assert entry.status == "needs_review", doc.error
    assert doc.document_type == "cn_vat_invoice" and "invoice_number" in w.form.rows
    assert doc.extras.get("qr_payloads"), "the QR code on the invoice was not decoded"

    # where each value came from is on screen
    qr_fields = [n for n, f in doc.fields.items() if f.source == "qr"]
    assert qr_fields
    for name in qr_fields:
        chip = w.form.rows[name].source
        assert chip.isVisibleTo(w.form) and chip.text() == "QR" and "QR code" in chip.toolTip()
    ocr_field = next(n for n, f in doc.fields.items() if f.source == "ocr" and f.value)
    assert w.form.rows[ocr_field].source.text() == "OCR"
    # the queue's count is what the form shows
    assert w.model.data(w.model.index(0, 3)) == str(shown_attention(w))

    # edit the total: one undoable edit, marked as typed by the clerk, problems re-checked inline
    edit = w.form.rows["total"].edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "99.99")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    doc = w.current_document()
    assert doc.fields["total"].value == "99.99" and doc.fields["total"].source == "user"
    row = w.form.rows["total"]
    assert row.source.text() == "you" and "Entered by you" in row.source.toolTip()
    assert row.problems.isVisibleTo(w.form) and "99.99" in row.problems.text()  # subtotal + tax != total
    assert w.model.data(w.model.index(0, 3)) == str(shown_attention(w))
    w.undo_stack.undo()
    assert w.current_document().fields["total"].value == "52.70" and edit.text() == "52.70"
    assert not w.form.rows["total"].problems.isVisibleTo(w.form)
    w.undo_stack.redo()
    assert w.current_document().fields["total"].value == "99.99" and edit.text() == "99.99"

    out = tmp_path / "out.xlsx"
    assert w.export_documents(w.documents_for("all"), out)
    wb = openpyxl.load_workbook(out, read_only=True)
    cells = [c for ws in wb.worksheets for r in ws.iter_rows(values_only=True) for c in r]
    assert any(c == pytest.approx(99.99) if isinstance(c, int | float) else c == "99.99" for c in cells)
    wb.close()
    w.close()

    w2 = make_window(recorded("vat_einvoice_tianjin"))
    (restored,) = w2.model.entries()
    assert restored.document.fields["total"].value == "99.99"
    w2.select_entry(restored.id)
    assert w2.form.rows["total"].edit.text() == "99.99" and w2.form.rows["total"].source.text() == "you"


def test_change_type_rotate_reread_click_to_fill(qtbot, make_window, samples) -> None:
    w = make_window(recorded("sroie_086"))
    (entry_id,) = w.add_paths([samples / "sroie" / "sroie_086.jpg"])
    wait_read(qtbot, w)
    wait_image(qtbot, w)
    doc = w.current_document()
    assert doc.document_type == "receipt" and doc.fields["total"].value
    assert w.form.rows["total"].source.text() == "OCR"

    w.change_document_type("invoice")
    assert w.current_document().document_type == "invoice" and "invoice_number" in w.form.rows
    assert w.type_combo.currentData() == "invoice"
    w.undo_stack.undo()
    assert w.current_document().document_type == "receipt" and "invoice_number" not in w.form.rows

    # click-to-fill: focus a field, click a recognised line on the page, take the offer
    w.form.focus_field("vendor_name")
    qtbot.waitUntil(lambda: w.form.current_field == "vendor_name")
    lines = w.viewer.page.lines
    index = next(i for i, ln in enumerate(lines) if any(c.isdigit() for c in ln.text))
    w.viewer.centerOn(w.viewer.line_items()[index])
    qtbot.mouseClick(w.viewer.viewport(), Qt.MouseButton.LeftButton, pos=w.viewer.view_pos_of_line(index))
    fill = next(a for a in w.pages.fill_menu.actions() if a.objectName() == "fill_action")
    fill.trigger()
    w.pages.fill_menu.close()
    field = w.current_document().fields["vendor_name"]
    assert field.raw == lines[index].text.strip() and field.source == "user" and field.boxes
    assert "Entered by you" in w.form.rows["vendor_name"].source.toolTip()

    # rotate the page and read it again: the page turns (width and height swap), edits are kept
    before = w.current_document().page_results[0]
    w.rotate_right_action.trigger()
    wait_read(qtbot, w)
    after = w.current_document().page_results[0]
    assert after.rotation == 90 and (after.width, after.height) == (before.height, before.width)
    assert w.current_document().fields["vendor_name"].raw == field.raw
    qtbot.waitUntil(lambda: w.viewer.page is not None and w.viewer.page.rotation == 90, timeout=10000)
    w.undo_stack.undo()
    assert w.current_document().page_results[0].rotation == 0


def test_failing_engine_marks_its_document(qtbot, make_window, samples) -> None:
    w = make_window(FailingEngine("simulated engine failure"))
    (entry_id,) = w.add_paths([samples / "sroie" / "sroie_007.jpg"])
    wait_read(qtbot, w)
    entry = w.model.entry(entry_id)
    assert entry.status == "failed" and "simulated engine failure" in entry.document.error.message()
    assert w.model.status_text(entry) == "Failed: the engine failed"  # plain words; the engine's own in the tooltip
    assert "simulated engine failure" in w.model.tooltip(entry)
    assert "simulated engine failure" in w.form._empty.text()


def test_multi_page_pdf_navigation(qtbot, make_window, samples) -> None:
    """cardinal.pdf: 4 scanned pages, each turned another 90 degrees; page through them."""
    w = make_window(recorded("sroie_006"))
    w.add_paths([samples / "ocrmypdf" / "cardinal.pdf"])
    wait_read(qtbot, w)
    entries = w.model.entries()
    assert all(e.status == "needs_review" for e in entries), [e.document.error for e in entries]
    pages = [p.number for e in entries for p in e.document.page_results]
    assert pages == [1, 2, 3, 4]
    w.select_entry(entries[0].id)
    wait_image(qtbot, w)
    seen = []
    for _ in range(len(entries[0].document.page_results)):
        seen.append(w.current_page)
        assert w.page_label.text().startswith(f"Page {len(seen)} of ")
        qtbot.waitUntil(lambda: w.viewer.page is not None and w.viewer.page.number == w.current_page)
        w.next_page_action.trigger() if w.next_page_action.isEnabled() else None
    assert seen == [p.number for p in entries[0].document.page_results]
    if len(entries) > 1:  # split into documents: one queue row each, named by its pages
        assert "(p. " in entries[1].name


def test_huge_page_stays_responsive_and_bounded(qtbot, make_window, samples) -> None:
    """multipage.pdf has a 9000 x 9000 px page: reading and showing it must not stall the window."""
    from desktop.gui.mainwindow import VIEW_MAX_PIXELS

    w = make_window(recorded("sroie_006"))
    with GapMeter("multipage.pdf (a 9000 x 9000 px page) read and shown") as meter:
        (first,) = w.add_paths([samples / "ocrmypdf" / "multipage.pdf"])
        wait_read(qtbot, w, timeout=90000)
        doc = next(e.document for e in w.model.entries() if any(p.number == 2 for p in e.document.page_results))
        assert doc.error is None
        w.select_entry(next(e.id for e in w.model.entries() if e.document is doc))
        w.show_page(2)
        qtbot.waitUntil(lambda: w.viewer._pixmap_item is not None and w.viewer.page.number == 2, timeout=30000)
        qtbot.wait(200)
    pixmap = w.viewer._pixmap_item.pixmap()
    assert pixmap.width() * pixmap.height() <= VIEW_MAX_PIXELS
    assert w.viewer.sceneRect().width() == 9000  # boxes stay in page pixels
    # Decoding or scaling the 81-megapixel page on the GUI thread stalls it for seconds; the loader
    # thread keeps it to scheduling noise (well under a second even on a loaded two-core machine).
    assert meter.longest < 1.0, f"event loop stalled for {meter.longest * 1000:.0f} ms"


def test_batch_with_bad_files(qtbot, make_window, samples, tmp_path) -> None:
    """The whole samples folder plus a corrupt JPEG and a text file: bad rows say why, the rest are read."""
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00garbage" * 50)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a receipt", encoding="utf-8")
    w = make_window(recorded("sroie_265"))
    drop(w, [samples, corrupt, notes])
    wait_read(qtbot, w, timeout=600000)  # every sample file: 73-139 s alone on the shared machine (load 20-30)
    entries = w.model.entries()
    failed = {Path(e.source).name: e for e in entries if e.status == "failed"}
    assert set(failed) == {"corrupt.jpg", "notes.txt"}, {k: e.document.error for k, e in failed.items()}
    for name, e in failed.items():
        text = w.model.status_text(e)
        # the card's first line is the file name: the reason below it does not repeat it
        assert text.startswith("Failed: ") and f"{name}: " not in text and len(text) < 200
        assert name not in e.document.error.message()  # the document (its source) names the file
        assert "Traceback" not in text
    assert sum(e.status == "needs_review" for e in entries) >= 10


@pytest.mark.parametrize("with_file", [False, True])
def test_shoebox_command_opens_the_window(samples, shoebox_home, with_file) -> None:
    """``shoebox`` and ``shoebox FILE`` (desktop.cli main) open the window; the file is queued in the session."""
    import subprocess
    import sys

    from desktop.core.session import SessionStore

    sample = samples / "sroie" / "sroie_007.jpg"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SHOEBOX_EXIT_WHEN_SHOWN="1", SHOEBOX_HOME=str(shoebox_home))
    code = "import sys; from desktop.cli import main; raise SystemExit(main(sys.argv[1:]))"
    args = [str(sample)] if with_file else []
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=Path(__file__).parent.parent, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    with SessionStore() as store:
        sources = [e.source for e in store.entries()]
    assert sources == ([str(sample.resolve())] if with_file else [])




def test_badge_and_header_count_the_same_fields(qtbot, make_window, samples, translated) -> None:
    """sroie_514: the queue badge, the tinted rows and the header all count ``needs_check`` fields,
    and the header says what it counts, in proper English plurals."""
    import re

    from desktop.gui.queue import ATTENTION_ROLE, attention_count

    translated("en")
    w = make_window(recorded("sroie_514"))
    (entry_id,) = w.add_paths([samples / "sroie" / "sroie_514.jpg"])
    wait_read(qtbot, w)
    doc = w.model.entry(entry_id).document
    flagged = next(n for n, f in doc.fields.items() if f.value and n not in ("total", "subtotal", "tax"))
    doc.fields[flagged].needs_review = True  # as extraction flags a field it is unsure of
    w.model.set_document(entry_id, doc)
    w.select_entry(entry_id)
    doc = w.current_document()

    def header_count() -> int:
        match = re.search(r"(\d+) fields? to check", w.summary_label.text())
        return int(match.group(1)) if match else 0

    expected = attention_count(doc)
    assert expected >= 1
    assert w.model.index(0, 0).data(ATTENTION_ROLE) == expected == shown_attention(w) == header_count()
    assert ("1 field to check" if expected == 1 else f"{expected} fields to check") in w.summary_label.text()

    # a typed total that no longer adds up: a problem on top of the flagged field, on the total and on
    # the subtotal and tax the failed check involves
    from desktop.core import flags

    before = set(flags.flagged_fields(doc))
    w.commit_field("total", "99.99")
    doc = w.current_document()
    n = attention_count(doc)
    involved = {"total"} | {k for k in ("subtotal", "tax") if doc.fields.get(k) and doc.fields[k].value}
    assert set(flags.flagged_fields(doc)) == before | involved and n == len(before | involved) > expected
    assert w.model.index(0, 0).data(ATTENTION_ROLE) == n == shown_attention(w) == header_count()
    assert f"{n} fields to check" in w.summary_label.text()
    assert w.model.data(w.model.index(0, 3), Qt.ItemDataRole.ToolTipRole) == f"{n} fields to check"  # the header's words


def test_failed_file_shows_no_type_and_a_wrapped_message(qtbot, make_window, tmp_path) -> None:
    """No document / a failed file: the type combo is blank ("—"); the error wraps inside the viewer."""
    w = make_window()
    assert w.type_combo.currentIndex() == -1 and w.type_combo.currentText() == ""
    assert w.type_combo.placeholderText() == "—"
    bad = tmp_path / ("a-rather-long-file-name-for-a-scanned-receipt-" * 3 + ".jpg")
    bad.write_bytes(b"this is not a JPEG at all " * 40)
    (entry_id,) = w.add_paths([bad])
    wait_read(qtbot, w)
    w.select_entry(entry_id)
    doc = w.current_document()
    assert doc.error is not None and doc.error.code == Code.UNSUPPORTED_TEXT_FILE
    assert w.type_combo.currentIndex() == -1 and w.type_combo.currentText() == ""
    assert not w.type_combo.isEnabled()
    assert doc.error.message() in w.viewer.message
    qtbot.wait(50)
    assert w.viewer.horizontalScrollBar().maximum() == 0, "the message runs off the side"
    w.resize(900, 700)  # narrower: the message wraps again
    qtbot.wait(50)
    assert w.viewer.horizontalScrollBar().maximum() == 0


def test_chinese_ui_labels_core_errors(qtbot, make_window, tmp_path, translated) -> None:
    """zh_CN: the core's reason is worded in Chinese too (from its code), under a translated label."""
    translated("zh_CN")
    w = make_window(language="zh_CN")
    (entry_id,) = w.add_paths([tmp_path / "missing.jpg"])
    wait_read(qtbot, w)
    w.select_entry(entry_id)
    error = w.current_document().error
    assert error.code == Code.FILE_NOT_FOUND
    assert w.viewer.message == "读取失败：找不到文件"
    assert w.form._empty.text().startswith("无法读取此文件")
    assert w.model.status_text(w.model.entry(entry_id)).startswith("失败：")
