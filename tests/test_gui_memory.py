"""The vendor memory and duplicates in the window (pytest-qt, offscreen): learning and undo, the
memory chip, the duplicate banner (keep both / drop this one) and the Vendors dialog."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from desktop.core.engines.base import Engine, PageReading
from desktop.core.memory import VendorMemory
from desktop.core.model import Line
from tests.test_memory import BAKERY, STATIONERY, _confirm

LINES = [  # (text, relative box)
    ("KEDAI RUNCIT MAJU SDN BHD", (0.05, 0.03, 0.90, 0.07)),
    ("NO 8, JALAN KENANGA 3, 68000 AMPANG", (0.05, 0.08, 0.90, 0.12)),
    ("TEL: 03-42961111", (0.05, 0.13, 0.60, 0.17)),
    ("DATE: 11/01/2019", (0.05, 0.25, 0.60, 0.29)),
    ("TOTAL", (0.05, 0.60, 0.30, 0.64)),
    ("RM 12.50", (0.65, 0.60, 0.95, 0.64)),
]


class ScriptedEngine(Engine):
    name = "scripted"
    version = "1"

    def read_page(self, image: np.ndarray) -> PageReading:
        h, w = image.shape[:2]
        return PageReading([Line(t, (x0 * w, y0 * h, x1 * w, y1 * h), 0.95) for t, (x0, y0, x1, y1) in LINES])


def _png(path: Path, shade: int = 255) -> Path:
    from PIL import Image

    Image.new("RGB", (500, 800), (shade, shade, shade)).save(path)
    return path


def _opened(qtbot):
    """A new main window on the scripted engine, shown (a session of the app, opened again)."""
    importlib.import_module("desktop.core.pipeline")  # part of the product: never a skip
    from desktop.gui.mainwindow import MainWindow

    w = MainWindow(engine_factory=lambda notes: ScriptedEngine())
    qtbot.addWidget(w)
    w.show()
    return w


def shown_window(qtbot):
    """The ``window`` fixture's body (shared with other GUI tests): a main window on the scripted engine,
    1300 x 850, exposed; closed afterwards."""
    w = _opened(qtbot)
    w.resize(1300, 850)
    qtbot.waitExposed(w)
    yield w
    w.close()


@pytest.fixture
def window(qtbot):
    yield from shown_window(qtbot)


def _read(qtbot, w, path: Path) -> int:
    (entry_id,) = w.add_paths([path], remember=False)
    qtbot.waitUntil(lambda: not w.is_busy() and w.model.entry(entry_id).document is not None, timeout=20000)
    w.select_entry(entry_id)
    return entry_id


def test_review_teaches_the_memory_and_undo_takes_it_back(qtbot, window, tmp_path: Path) -> None:
    w = window
    assert w.memory is not None and w.vendors_action.isEnabled()
    _read(qtbot, w, _png(tmp_path / "monday.png"))
    w.commit_field("vendor_name", "Kedai Runcit Maju")
    w.set_reviewed(True)
    (profile,) = w.memory.profiles()
    assert profile.name == "Kedai Runcit Maju" and profile.documents == 1
    w.undo_stack.undo()  # mark reviewed undone: the lesson goes
    assert w.memory.profiles() == []
    w.undo_stack.redo()
    assert [p.name for p in w.memory.profiles()] == ["Kedai Runcit Maju"]
    w.set_reviewed(False)  # "mark as needing review" forgets it too
    assert w.memory.profiles() == []
    w.undo_stack.undo()
    assert [p.name for p in w.memory.profiles()] == ["Kedai Runcit Maju"]

    # a later receipt of the vendor: the confirmed name comes from memory, with its own chip
    tuesday = _read(qtbot, w, _png(tmp_path / "tuesday.png", 250))
    doc = w.model.entry(tuesday).document
    assert doc.fields["vendor_name"].value == "Kedai Runcit Maju" and doc.fields["vendor_name"].source == "memory"
    row = w.form.rows["vendor_name"]
    assert row.source.text() == "memory" and "monday.png taught it" in row.source.toolTip()
    # the page's own reading stays in sight
    assert "the page reads 'KEDAI RUNCIT MAJU SDN BHD'" in row.source.toolTip()
    assert doc.extras["memory"]["page_read"] == {"vendor_name": "KEDAI RUNCIT MAJU SDN BHD"}

    # ... and it is a possible duplicate of Monday's (same vendor, date and total)
    assert doc.duplicate_of == {"source": str((tmp_path / "monday.png").resolve()), "pages": [1, 1],
                                "reason": "same vendor, date and total", "reason_code": "duplicate_same_date_total"}
    assert w.duplicate_banner.isVisible() and "monday.png" in w.duplicate_banner.label.text()
    assert "possible duplicate" in w.model.status_text(w.model.entry(tuesday))


def test_keep_both_and_drop_this_one(qtbot, window, tmp_path: Path) -> None:
    w = window
    first = _read(qtbot, w, _png(tmp_path / "a.png"))
    copy = tmp_path / "copy.png"
    copy.write_bytes((tmp_path / "a.png").read_bytes())
    second = _read(qtbot, w, copy)
    assert w.model.entry(first).document.duplicate_of is None
    mark = w.model.entry(second).document.duplicate_of
    assert mark is not None and mark["reason"] == "same file"
    w.duplicate_banner.open_earlier.emit(mark["source"], 1)
    assert w.current_id == first
    w.select_entry(second)
    w.keep_duplicate()
    doc = w.model.entry(second).document
    assert doc.duplicate_of is None and doc.extras["duplicate_kept"]["reason"] == "same file"
    assert not w.duplicate_banner.isVisible()
    w.undo_stack.undo()
    assert w.model.entry(second).document.duplicate_of is not None
    # the clerk reviews the first one (teaching the memory), then drops the copy
    w.select_entry(first)
    w.set_reviewed(True)
    w.select_entry(second)
    w.drop_duplicate()
    assert w.model.entry(second) is None and w.model.entry(first) is not None
    assert len(w.memory.profiles()) == 1  # dropping a document never deletes a profile


def test_vendors_dialog_lists_renames_merges_deletes_and_shares(qtbot, tmp_path: Path, monkeypatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    from desktop.gui.vendors import VendorsDialog

    memory = VendorMemory(tmp_path / "session.db")
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    _confirm(memory, BAKERY, "b.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    _confirm(memory, STATIONERY, "c.jpg", vendor_name="SANYU STATIONERY SHOP")
    dialog = VendorsDialog(memory)
    qtbot.addWidget(dialog)
    dialog.show()
    t = dialog.table
    assert t.rowCount() == 2
    assert [t.item(r, 0).text() for r in range(2)] == ["GARDENIA BAKERIES (KL) SDN BHD", "SANYU STATIONERY SHOP"]
    assert [t.item(r, 2).text() for r in range(2)] == ["2", "1"] and t.item(0, 3).text()
    assert not dialog.merge_button.isEnabled()

    bakery, shop = (int(t.item(r, 0).data(0x0100)) for r in range(2))
    assert dialog.rename(bakery, "Gardenia")
    assert t.item(0, 0).text() == "Gardenia"
    assert dialog.edit(shop, {"currency": "MYR"})
    assert memory.profile(shop).values["currency"] == "MYR"

    out = tmp_path / "vendors.json"
    assert dialog.export_to(out)
    other = VendorMemory(tmp_path / "other.db")
    shared = VendorsDialog(other)
    qtbot.addWidget(shared)
    assert shared.import_from(out)
    assert [shared.table.item(r, 0).text() for r in range(shared.table.rowCount())] == ["Gardenia", "SANYU STATIONERY SHOP"]
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[2]))
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert not shared.import_from(bad) and "not a Shoebox vendor list" in warnings[0]

    dialog.select_ids([bakery, shop])
    assert dialog.merge_button.isEnabled()
    assert dialog.merge([bakery, shop])
    assert t.rowCount() == 1 and t.item(0, 0).text() == "Gardenia" and t.item(0, 2).text() == "3"
    dialog.select_ids([bakery])
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    dialog.delete_dialog()
    assert t.rowCount() == 1  # the clerk said no
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    dialog.delete_dialog()
    assert t.rowCount() == 0 and memory.profiles() == []
    memory.close()
    other.close()


def test_vendors_dialog_errors_are_worded_in_the_ui_language(qtbot, tmp_path: Path, monkeypatch) -> None:
    """In the Chinese UI a vendor list that is not one, is not JSON or cannot be read, and a rename to
    nothing, are explained in Chinese (the English words stay for the CLI and ``str()``)."""
    from PySide6.QtWidgets import QMessageBox, QWidget

    from desktop.gui.vendors import VendorsDialog

    memory = VendorMemory(tmp_path / "session.db")
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    parent = QWidget()
    parent.language = "zh_CN"  # type: ignore[attr-defined]  # what the main window carries
    qtbot.addWidget(parent)
    dialog = VendorsDialog(memory, parent)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[2]))
    (tmp_path / "not-a-list.json").write_text("{}", encoding="utf-8")
    (tmp_path / "not-json.json").write_text("{oops", encoding="utf-8")
    assert not dialog.import_from(tmp_path / "not-a-list.json")
    assert not dialog.import_from(tmp_path / "not-json.json")
    assert not dialog.import_from(tmp_path / "missing.json")
    (profile,) = memory.profiles()
    assert not dialog.rename(profile.id, "  ")
    assert len(warnings) == 4, warnings
    assert "不是 Shoebox 商家列表" in warnings[0] and "不是 JSON 文件" in warnings[1]
    assert "无法读取商家列表" in warnings[2] and "找不到文件" in warnings[2] and warnings[3] == "商家必须有名称"
    for text in warnings:  # no English but the file names and product names
        leftover = re.sub(r"\S*\.json|Shoebox|JSON", "", text)
        assert not re.search(r"[A-Za-z]{3,}", leftover), text
    memory.close()


def test_duplicates_are_found_across_sessions(qtbot, tmp_path: Path) -> None:
    """A file read in an earlier session of the app is caught when it comes again: while it is still in
    the (restored) queue, and after the clerk confirmed it and took it out of the queue (the memory
    keeps what it learned)."""
    def opened():
        return _opened(qtbot)

    first = opened()
    monday = _png(tmp_path / "monday.png")
    entry = _read(qtbot, first, monday)
    first.close()

    second = opened()  # the queue comes back from the session database
    assert [e.source for e in second.model.entries()] == [str(monday.resolve())]
    again = tmp_path / "monday again.png"
    again.write_bytes(monday.read_bytes())
    copy_id = _read(qtbot, second, again)
    mark = second.model.entry(copy_id).document.duplicate_of
    assert mark is not None and mark["source"] == str(monday.resolve()) and mark["reason"] == "same file"
    second.select_entry(entry)
    second.set_reviewed(True)  # confirmed: the memory learns it
    second.model.remove([entry, copy_id])  # exported and cleared from the queue
    second.close()

    third = opened()
    assert third.model.entries() == [] and len(third.memory.profiles()) == 1
    later = tmp_path / "monday third time.png"
    later.write_bytes(monday.read_bytes())
    later_id = _read(qtbot, third, later)
    mark = third.model.entry(later_id).document.duplicate_of
    assert mark is not None and mark["source"] == str(monday.resolve()) and mark["reason"] == "same file"
    third.close()


def test_the_same_file_dropped_three_times_is_said_and_survives_a_restart(qtbot, tmp_path: Path) -> None:
    """The issue's case: one file dropped three times (one path, so one name for all three). The second
    and third are marked with a link to the first (by its queue row, not only its file name), the end of
    the batch says so in the status bar, the link never opens the marked entry itself, and "keep both" /
    "drop this one" are what the session database holds after the window is closed and opened again."""
    def opened():
        return _opened(qtbot)

    receipt = _png(tmp_path / "receipt.png")
    w = opened()
    ids = w.add_paths([receipt, receipt, receipt], remember=False)
    assert len(ids) == 3  # queued three times ...
    qtbot.waitUntil(lambda: not w.is_busy() and all(w.model.entry(i).document is not None for i in ids), timeout=20000)
    first, second, third = (w.model.entry(i).document for i in ids)
    # ... and not without a word: the later two are marked, the first is not
    assert first.duplicate_of is None
    for doc in (second, third):
        assert doc.duplicate_of is not None and doc.duplicate_of["source"] == str(receipt.resolve())
        assert doc.duplicate_of["reason"] == "same file"
    assert [w.model.status_text(w.model.entry(i)).endswith("possible duplicate") for i in ids] == [False, True, True]
    message = w.statusBar().currentMessage()
    assert re.search(r"2 possible duplicate(s|\(s\)) marked: receipt\.png$", message), message
    w.select_entry(ids[2])
    assert w.duplicate_banner.isVisible()
    assert "receipt.png, row 1 of the queue" in w.duplicate_banner.label.text()
    w.duplicate_banner._link("earlier")
    assert w.current_id == ids[0]
    # the clerk keeps the second (and takes it back: undoable), drops the third
    w.select_entry(ids[1])
    w.keep_duplicate()
    assert w.model.entry(ids[1]).document.duplicate_of is None and not w.duplicate_banner.isVisible()
    w.undo_stack.undo()
    assert w.model.entry(ids[1]).document.duplicate_of is not None
    w.select_entry(ids[2])
    w.drop_duplicate()
    assert [e.id for e in w.model.entries()] == ids[:2]
    # with the first one gone too, the second's link cannot open the second itself
    w.select_entry(ids[0])
    w.reviewing.remove_selected()  # Edit > Remove from queue (not reviewed, no edits: no question asked)
    assert w.current_id == ids[1]
    assert "read before (no longer in the queue)" in w.duplicate_banner.label.text()
    w.duplicate_banner._link("earlier")
    assert w.current_id == ids[1] and "no longer in the queue" in w.statusBar().currentMessage()
    w.keep_duplicate()
    w.close()

    again = opened()  # the session database brings the queue back as the clerk left it
    (entry,) = again.model.entries()
    assert entry.id == ids[1] and entry.document.duplicate_of is None
    assert entry.document.extras["duplicate_kept"]["reason"] == "same file"
    assert not again.model.status_text(entry).endswith("possible duplicate")
    # the file dropped a fourth time is still caught (against the kept one, which is in the queue)
    (fourth,) = again.add_paths([receipt], remember=False)
    qtbot.waitUntil(lambda: not again.is_busy() and again.model.entry(fourth).document is not None, timeout=20000)
    mark = again.model.entry(fourth).document.duplicate_of
    assert mark is not None and mark["reason"] == "same file"
    again.select_entry(fourth)
    assert "receipt.png, row 1 of the queue" in again.duplicate_banner.label.text()
    again.close()
