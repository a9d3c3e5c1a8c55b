"""The clerk splits and merges documents in the app: undoable, saved in the session, in every export."""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from PIL import Image

pytest.importorskip("pytestqt")

from tests.fake_engines import FakeEngine

W, H = 600, 1000


def _recording(shop: str, date: str, total: str) -> dict:
    rows = [shop, "TAX INVOICE", f"Date: {date}", None, "THANK YOU"]
    lines = []
    for i, text in enumerate(rows):
        y = 40 + 40 * i
        if text is None:
            lines += [{"text": "TOTAL", "box": [10, y, 100, y + 22]}, {"text": total, "box": [400, y, 460, y + 22]}]
        else:
            lines.append({"text": text, "box": [10, y, 10 + 9 * len(text), y + 22]})
    return {"width": W, "height": H, "lines": lines}


PAGES = {255: _recording("KEDAI ABC SDN BHD", "01/02/2024", "10.60"),
         254: _recording("XYZ TRADING SDN BHD", "05/02/2024", "21.20"),
         253: _recording("MAMAK CAFE ENTERPRISE", "06/02/2024", "5.30")}


def _stack(path: Path) -> Path:
    frames = [Image.new("RGB", (W, H), (255, 255, blue)) for blue in PAGES]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def test_split_merge_undo_and_export(qtbot, tmp_path) -> None:
    importlib.import_module("desktop.core.pipeline")  # part of the product: never a skip
    from desktop.core.session import SessionStore
    from desktop.gui.mainwindow import MainWindow

    engine = FakeEngine(PAGES, key=lambda image: int(image[0, 0, 2]))
    w = MainWindow(engine_factory=lambda notes: engine)
    qtbot.addWidget(w)
    w.show()
    w.add_paths([_stack(tmp_path / "stack.tif")])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=30000)

    def pages() -> list[tuple[int, int]]:
        return [e.document.pages for e in w.model.entries()]

    def totals() -> list[str]:
        return [e.document.fields["total"].value for e in w.model.entries()]

    assert pages() == [(1, 1), (2, 2), (3, 3)] and totals() == ["10.60", "21.20", "5.30"]
    assert w.reading.throughput.pages_done == 3 and w.reading.throughput.files_done == 1
    first = w.model.entries()[0].id
    w.select_entry(first)
    assert w.merge_action.isEnabled() and not w.split_action.isEnabled()
    w.merge_action.trigger()
    assert pages() == [(1, 2), (3, 3)]
    with SessionStore() as store:  # saved in the session at once
        assert [e.document.pages for e in store.entries()] == [(1, 2), (3, 3)]
    w.undo_stack.undo()
    assert pages() == [(1, 1), (2, 2), (3, 3)] and totals() == ["10.60", "21.20", "5.30"]
    w.undo_stack.redo()
    assert pages() == [(1, 2), (3, 3)]

    w.select_entry(first)
    w.show_page(2)
    assert w.split_action.isEnabled()
    w.split_action.trigger()
    assert pages() == [(1, 1), (2, 2), (3, 3)] and totals() == ["10.60", "21.20", "5.30"]
    w.undo_stack.undo()
    assert pages() == [(1, 2), (3, 3)]
    with SessionStore() as store:
        assert [e.document.pages for e in store.entries()] == [(1, 2), (3, 3)]

    out = tmp_path / "out.json"
    assert w.export_documents(w.documents_for("all"), out)
    exported = json.loads(out.read_text(encoding="utf-8"))["documents"]
    assert [d["pages"] for d in exported] == [[1, 2], [3, 3]]
    assert "clerk_merged" in [n["code"] for n in exported[0]["notes"]]
    assert any("pages 1-1 and 2-2" in n["message"] for n in exported[0]["notes"])
    xlsx = tmp_path / "out.xlsx"
    assert w.export_documents(w.documents_for("all"), xlsx)
    from openpyxl import load_workbook

    sheet = load_workbook(xlsx).worksheets[0]
    assert sheet.max_row == 1 + 2  # header + one row per document
    w.close()
