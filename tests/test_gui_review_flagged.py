"""Mark reviewed with fields still to check (QA finding F1, session 12), in the window (pytest-qt,
offscreen): the question naming them, its Go to / Mark reviewed / Cancel, what the vendor memory learns
with and without the clerk's "I checked them", undo, and the "memory" chip on a value the memory vouched
for."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.core.memory import CONFIRMED_FLAGGED
from tests.test_gui_memory import ScriptedEngine, _png, _read, shown_window


@pytest.fixture
def window(qtbot):
    yield from shown_window(qtbot)


def _answer(button_text: str, seen: list[dict], tick: bool = False) -> None:
    """Once the next modal message box is up: note its texts and buttons, tick its box (``tick``), and
    click the button labelled ``button_text``."""

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        seen.append({"text": box.text(), "info": box.informativeText(), "buttons": [b.text() for b in box.buttons()],
                     "default": box.defaultButton().text() if box.defaultButton() else None,
                     "box": box.checkBox().text() if box.checkBox() else None})
        if tick:
            box.checkBox().setChecked(True)
        next(b for b in box.buttons() if b.text() == button_text).click()

    QTimer.singleShot(0, answer)


def test_mark_reviewed_asks_about_fields_still_to_check_and_the_memory_learns_only_what_was_checked(
        qtbot, window, translated, tmp_path: Path) -> None:
    translated("en")  # the plural forms ("1 field is", "2 fields are")
    w = window
    monday = _read(qtbot, w, _png(tmp_path / "monday.png"))
    doc = w.model.entry(monday).document
    # the scripted receipt's address is flagged by the field model (below its review threshold), its name is not
    assert doc.fields["vendor_address"].needs_review and not doc.fields["vendor_name"].needs_review

    # Go to: nothing is marked, the window stays on the document with the flagged field focused
    seen: list[dict] = []
    _answer("Go to Vendor address", seen)
    w.mark_reviewed_and_next()
    assert seen[0]["text"] == "1 field is still marked to check: Vendor address. Mark reviewed anyway?"
    assert sorted(seen[0]["buttons"]) == ["Cancel", "Go to Vendor address", "Mark reviewed"]
    assert seen[0]["default"] == "Go to Vendor address"  # Enter does not mark it
    assert "learns Vendor address from this document only if you tick" in seen[0]["info"]
    assert seen[0]["box"] == "I checked them: they are right"
    assert not w.model.entry(monday).document.reviewed and w.current_id == monday
    assert w.form.current_field == "vendor_address" and not w.reviewed_button.isChecked()
    assert w.memory.profiles() == [] and w.undo_stack.count() == 0

    # Cancel: nothing either
    _answer("Cancel", seen)
    w.reviewing.toggle_reviewed()  # the Mark reviewed button
    assert len(seen) == 2 and not w.model.entry(monday).document.reviewed and w.memory.profiles() == []

    # Mark reviewed, the box left unticked: reviewed, but the memory does not learn the unchecked address
    _answer("Mark reviewed", seen)
    w.mark_reviewed_and_next()
    doc = w.model.entry(monday).document
    assert doc.reviewed and CONFIRMED_FLAGGED not in doc.extras
    (profile,) = w.memory.profiles()
    assert profile.values["vendor_name"] == "KEDAI RUNCIT MAJU SDN BHD" and "vendor_address" not in profile.values

    # a later receipt of the vendor: the name the memory vouched for says "memory" (not a bare OCR
    # 100 %), naming the document that taught it; the unchecked address is flagged again as read
    tuesday = _read(qtbot, w, _png(tmp_path / "tuesday.png", 250))
    later = w.model.entry(tuesday).document
    name, address = later.fields["vendor_name"], later.fields["vendor_address"]
    assert name.value == "KEDAI RUNCIT MAJU SDN BHD" and name.source == "memory" and name.confidence > 0.99
    assert later.extras["memory"]["fields"]["vendor_name"] == "confirmed"
    row = w.form.rows["vendor_name"]
    assert row.source.text() == "memory"
    assert "Read on the page and confirmed by the vendor memory: monday.png taught it" in row.source.toolTip()
    assert address.source == "ocr" and address.needs_review and address.confidence < 0.9  # the model's, not memory's

    # undo takes the mark and the lesson back; the question's box ticked teaches the address too
    w.select_entry(monday)
    w.undo_stack.undo()
    assert not w.model.entry(monday).document.reviewed and w.memory.profiles() == []
    _answer("Mark reviewed", seen, tick=True)
    w.mark_reviewed_and_next()
    doc = w.model.entry(monday).document
    assert doc.reviewed and doc.extras[CONFIRMED_FLAGGED] == ["vendor_address"]
    (profile,) = w.memory.profiles()
    assert profile.values["vendor_address"] == "NO 8, JALAN KENANGA 3, 68000 AMPANG"
    w.undo_stack.undo()
    assert w.memory.profiles() == [] and CONFIRMED_FLAGGED not in w.model.entry(monday).document.extras
    w.undo_stack.redo()
    assert [p.values.get("vendor_address") for p in w.memory.profiles()] == ["NO 8, JALAN KENANGA 3, 68000 AMPANG"]


def test_nothing_to_check_asks_nothing(qtbot, window, tmp_path: Path) -> None:
    w = window
    entry = _read(qtbot, w, _png(tmp_path / "a.png"))
    w.commit_field("vendor_address", "NO 8, JALAN KENANGA 3, 68000 AMPANG")  # the clerk checked it by editing
    w.mark_reviewed_and_next()  # no box: a modal one would block here
    assert w.model.entry(entry).document.reviewed
    (profile,) = w.memory.profiles()
    assert profile.values["vendor_address"] == "NO 8, JALAN KENANGA 3, 68000 AMPANG"


def test_the_question_in_chinese(qtbot, make_window, translated, tmp_path: Path) -> None:
    translated("zh_CN")
    w = make_window(language="zh_CN", factory=lambda notes: ScriptedEngine())
    _read(qtbot, w, _png(tmp_path / "a.png"))
    seen: list[dict] = []
    _answer("取消", seen)
    w.mark_reviewed_and_next()
    label = w.form.label_of("vendor_address")
    assert seen[0]["text"] == f"还有 1 个字段标记为待核对：{label}。仍要标记为已审核吗？", seen
    assert sorted(seen[0]["buttons"]) == sorted([f"转到 {label}", "标记为已审核", "取消"])
    assert seen[0]["box"] == "我已核对，这些值无误" and "商家记忆" in seen[0]["info"]
