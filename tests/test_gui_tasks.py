"""The Document menu's engine tasks in the app (pytest-qt, offscreen) with a fake task-capable engine:
enabling, running in the worker, the Task output tab, session, Excel Tables sheet, errors, safety."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtGui import QGuiApplication

from tests.fake_engines import FakeEngine
from tests.responsiveness import ENGINE_DELAY_S, GapMeter, Timed

W, H = 400, 600
PAGE = {"width": W, "height": H, "lines": [
    {"text": "ACME STORE", "box": [40, 30, 240, 54], "confidence": 0.99},
    {"text": "TOTAL 12.50", "box": [40, 480, 280, 504], "confidence": 0.99},
]}
TABLE = "<table><tr><th>Item</th><th>Qty</th></tr><tr><td>Green tea</td><td>2</td></tr></table>"
CAPS = {"markdown", "table", "translate"}


def png(path: Path) -> Path:
    from PIL import Image

    Image.new("RGB", (W, H), "white").save(path)
    return path


WINDOW_WAITS_FOR_ENGINE = True  # the conftest's make_window: task actions need a ready engine


def read_one(qtbot, w, path: Path) -> int:
    (entry_id,) = w.add_paths([path])
    qtbot.waitUntil(lambda: not w.is_busy() and w.model.entry(entry_id).status == "needs_review", timeout=20000)
    w.select_entry(entry_id)
    return entry_id


def run(qtbot, w, task: str, timeout: int = 20000) -> None:
    with qtbot.waitSignal(w.task_finished, timeout=timeout):
        w.task_actions[task].trigger()
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=timeout)


def test_actions_need_the_capability_and_a_read_document(qtbot, make_window, tmp_path) -> None:
    w = make_window(FakeEngine([PAGE]))  # like PP-OCR: no capabilities
    assert [a.text().replace("&", "") for a in w.menuBar().actions()][3] == "Document"
    read_one(qtbot, w, png(tmp_path / "a.png"))
    for action in w.task_actions.values():
        assert not action.isEnabled()
        assert "HunyuanOCR" in action.toolTip()
    # where they are disabled, the toolbar's buttons say why (a disabled button still shows its tooltip)
    buttons = [w.task_bar.widgetForAction(w.task_actions[t]) for t in ("markdown", "table")] + [w.translate_button]
    assert all(not b.isEnabled() and "HunyuanOCR engine on a GPU" in b.toolTip() for b in buttons)
    assert not w.run_document_task("table")
    w.close()

    w2 = make_window(FakeEngine([PAGE], capabilities=CAPS))
    w2.show_document(None)
    assert all(not a.isEnabled() and "read first" in a.toolTip() for a in w2.task_actions.values())
    w2.select_entry(w2.model.entries()[0].id)
    assert all(a.isEnabled() for a in w2.task_actions.values())
    assert {a.text().replace("&", "") for a in w2.document_menu.actions() if not a.isSeparator()} == {
        "Split document at this page", "Merge with next document",
        "Convert to Markdown", "Extract tables (HTML)", "Translate to English", "Translate to Chinese"}
    bar = [a for a in w2.task_bar.actions() if a in w2.task_actions.values()]
    assert bar == [w2.task_actions["markdown"], w2.task_actions["table"]]
    # the translations sit under one "Translate document" button whose menu names the language the
    # document is translated into: not to be taken for the window's language
    button = w2.translate_button
    assert button.text() == "Translate document" and button.isEnabled()
    assert [a.text().replace("&", "") for a in button.menu().actions()] == ["Translate to English",
                                                                            "Translate to Chinese"]
    w2.show_document(None)
    assert not button.isEnabled() and "read first" in button.toolTip()


def test_extract_tables_fills_tab_session_and_excel_without_blocking(qtbot, make_window, tmp_path) -> None:
    engine = FakeEngine([PAGE], capabilities=CAPS, task_outputs={"table": TABLE}, task_delay=ENGINE_DELAY_S)
    engine.run_task = timed = Timed(engine.run_task)  # type: ignore[method-assign]
    w = make_window(engine)
    entry_id = read_one(qtbot, w, png(tmp_path / "receipt.png"))
    with GapMeter("slow table task") as meter:
        run(qtbot, w, "table")
    assert timed.calls and meter.stalled(timed.calls) == [], "the event loop froze while the task ran"
    assert engine.task_calls == ["table"]

    doc = w.model.entry(entry_id).document
    assert doc.tables == [{"page": 1, "html": TABLE}] and doc.extras["table"] == [{"page": 1, "text": TABLE}]
    assert w.tabs.currentWidget() is w.task_panel
    assert w.task_panel.text() == TABLE
    shown = w.task_panel.browser.toPlainText()
    assert "Green tea" in shown and "<td>" not in shown  # rendered, not source
    w.task_panel.copy_button.click()
    assert QGuiApplication.clipboard().text() == TABLE
    assert w.task_panel.save(tmp_path / "t.html") and TABLE in (tmp_path / "t.html").read_text(encoding="utf-8")
    assert '<meta charset="utf-8">' in (tmp_path / "t.html").read_text(encoding="utf-8")
    assert not list(tmp_path.glob(".*partial*"))

    out = tmp_path / "out.xlsx"
    assert w.export_documents(w.documents_for("all"), out)
    import openpyxl

    sheet = openpyxl.load_workbook(out)["Tables"]
    cells = [str(c.value) for row in sheet.iter_rows() for c in row if c.value is not None]
    assert {"Item", "Qty", "Green tea"} <= set(cells) and ("2" in cells)
    w.close()

    w2 = make_window(FakeEngine([PAGE], capabilities=CAPS))  # the session keeps the result
    (entry,) = w2.model.entries()
    assert entry.document.tables == [{"page": 1, "html": TABLE}]
    w2.select_entry(entry.id)
    assert w2.task_panel.text() == TABLE


def test_markdown_and_translation_outputs_and_edits_kept(qtbot, make_window, tmp_path) -> None:
    engine = FakeEngine([PAGE], capabilities=CAPS, task_outputs={
        "markdown": "# ACME STORE\n\n**TOTAL** 12.50", "translate_zh": "总计 12.50"})
    w = make_window(engine)
    entry_id = read_one(qtbot, w, png(tmp_path / "r.png"))
    run(qtbot, w, "markdown")
    assert "ACME STORE" in w.task_panel.browser.toPlainText() and "#" not in w.task_panel.browser.toPlainText()
    w.task_panel.source_check.setChecked(True)
    assert w.task_panel.browser.toPlainText().startswith("# ACME STORE")
    w.commit_field("total", "99.00")  # an edit while (or after) a task ran stays
    run(qtbot, w, "translate_zh")
    doc = w.model.entry(entry_id).document
    assert doc.fields["total"].value == "99.00"
    assert doc.extras["translate_zh"] == [{"page": 1, "text": "总计 12.50"}] and "markdown" in doc.extras
    assert w.task_panel.current_task() == "translate_zh" and w.task_panel.browser.toPlainText() == "总计 12.50"
    assert w.task_panel.task_combo.count() == 2
    assert w.task_panel.save(tmp_path / "zh.txt")
    assert (tmp_path / "zh.txt").read_text(encoding="utf-8") == "总计 12.50\n"


def test_failing_task_shows_an_error_on_the_document(qtbot, make_window, tmp_path) -> None:
    engine = FakeEngine([PAGE], capabilities=CAPS, task_error="CUDA out of memory")
    w = make_window(engine)
    entry_id = read_one(qtbot, w, png(tmp_path / "r.png"))
    before = w.model.entry(entry_id).document.to_dict()
    run(qtbot, w, "table")
    entry = w.model.entry(entry_id)
    assert entry.status == "needs_review" and entry.document.to_dict() == before
    assert "CUDA out of memory" in entry.message and "r.png" in entry.message
    assert w.task_panel.message.isVisible() and "CUDA out of memory" in w.task_panel.message.text()
    assert "CUDA out of memory" in w.model.status_text(entry)
    assert all(a.isEnabled() for a in w.task_actions.values())  # can try again


def test_model_html_loads_nothing(qtbot, tmp_path) -> None:
    from desktop.core.model import Document, PageResult
    from desktop.gui.taskview import TaskOutputPanel

    secret = tmp_path / "secret.png"
    png(secret)
    html = (f'<table><tr><td><img src="{secret.as_uri()}"><img src="http://example.com/x.png">'
            '<a href="http://example.com">link</a></td></tr></table>'
            '<link rel="stylesheet" href="http://example.com/s.css">')
    panel = TaskOutputPanel()
    qtbot.addWidget(panel)
    doc = Document(source=str(secret), page_results=[PageResult(1, W, H)],
                   extras={"table": [{"page": 1, "text": html}]})
    panel.set_document(doc)
    panel.show()
    qtbot.waitExposed(panel)
    assert "link" in panel.browser.toPlainText()
    assert {secret.as_uri(), "http://example.com/x.png"} <= panel.browser.blocked  # asked for, refused
    other = png(tmp_path / "other.png").as_uri()
    panel.set_document(Document(source=str(secret), page_results=[PageResult(1, W, H)],
                                extras={"markdown": [{"page": 1, "text": f"![x]({other}) text"}]}))
    qtbot.waitUntil(lambda: other in panel.browser.blocked, timeout=3000)
    assert not panel.browser.openLinks() and not panel.browser.openExternalLinks()


def test_cancel_keeps_the_document_and_undo_takes_the_output_back(qtbot, make_window, tmp_path) -> None:
    engine = FakeEngine([PAGE], capabilities=CAPS, task_output="# out", task_delay=0.5)
    w = make_window(engine)
    entry_id = read_one(qtbot, w, png(tmp_path / "r.png"))
    assert w.run_document_task("markdown")
    assert w.cancel_action.isEnabled() and not w.task_actions["table"].isEnabled()  # one job per document
    w.cancel_action.trigger()
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=10000)
    entry = w.model.entry(entry_id)
    assert "markdown" not in entry.document.extras and "cancelled" in entry.message
    assert w.undo_stack.count() == 0

    engine.task_delay = 0.0
    run(qtbot, w, "markdown")
    assert w.model.entry(entry_id).document.extras["markdown"] == [{"page": 1, "text": "# out"}]
    w.undo_stack.undo()
    assert "markdown" not in w.model.entry(entry_id).document.extras
    assert w.task_panel.current_task() is None and not w.task_panel.copy_button.isEnabled()
