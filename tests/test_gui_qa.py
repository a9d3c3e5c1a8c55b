"""Fixes from a QA run of the real app (X11 shortcuts, single instance, empty key fields, notes)."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtGui import QAction, QKeySequence  # noqa: E402


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

    raw_turn = "turned 270 degrees clockwise to read it upright (100% of the text lines run vertically)"
    raw_scale = "read at 2339x1653 px (downscaled from 3508x2479)"
    raw_fields = "the hunyuan engine returned no fields; fields were read from the text instead"
    doc = Document(source="/tmp/a.png", document_type="receipt",
                   fields={"vendor_name": Field("vendor_name", "ACME", confidence=0.9),
                           "date": Field("date", "2024-03-05", confidence=0.9),
                           "total": Field("total", "12.50", confidence=0.9)},
                   page_results=[PageResult(1, 100, 100, warnings=[raw_scale, raw_turn])],
                   extras={"notes": [raw_fields]})
    window.select_entry(window.model.add_document(doc))
    text = window.summary_label.text()
    assert "Every field checks out" in text
    assert "Page 1 was turned 270° to read it upright" in text
    assert "The AI model gave no fields" in text
    assert "downscaled" not in text and "degrees clockwise" not in text
    tip = window.summary_label.toolTip()
    assert raw_scale in tip and raw_turn in tip and raw_fields in tip


def test_failed_row_does_not_repeat_the_file_name(window) -> None:
    from PySide6.QtCore import Qt

    from desktop.core.model import Document

    entry_id = window.model.add_document(Document(source="/tmp/empty.jpg", error="empty.jpg: the file is empty (0 bytes)"))
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
