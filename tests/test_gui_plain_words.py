"""The window's compact places speak plainly: a damaged PDF's queue card and page notes say what
happened without MuPDF's own words ("cannot load content stream part 45/58"), which their tooltips
give for support; the card's status takes at most two lines, cut short with "…" (the tooltip has it
in full)."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics

from desktop.core.diagnostics import Code, diag, library_text
from desktop.core.model import Document, Field, PageResult
from tests.fake_engines import FakeEngine

PLAIN = "the PDF is damaged and part of this page could not be loaded; text may be missing"


def damaged_pdf(path: Path) -> Path:
    """A two-page PDF whose first page's content stream is garbage (MuPDF: a zlib error on page 1)."""
    import pymupdf

    doc = pymupdf.open()
    for text in ("TOTAL 12.50 first page", "Second page text"):
        doc.new_page().insert_text((72, 100), text, fontsize=14)
    data = bytearray(doc.tobytes(garbage=0, deflate=True))
    i = data.find(b"stream\n") + 7
    data[i + 10:i + 40] = b"A" * 30
    path.write_bytes(bytes(data))
    return path


def second_lines(window, row: int, row_width: int) -> tuple[str, int, int]:
    """The card's type-and-status text as row ``row`` shows it ``row_width`` px wide, its height, and
    the height of two lines of text in the queue's font."""
    view, delegate = window.queue_view, window.queue_view.itemDelegate()
    index = window.model.index(row, 0)
    width = delegate._text_width(row_width, index.data(Qt.ItemDataRole.UserRole + 1) or "")
    _, second_rect, _, second = delegate.text_layout(view.font(), width, index)
    two = QFontMetrics(view.font()).boundingRect(QRect(0, 0, width, 10_000), int(Qt.TextFlag.TextWordWrap), "Xg\nXg")
    return second, second_rect.height(), two.height()


def test_a_damaged_pdf_is_said_in_plain_words_with_the_library_words_a_hover_away(qtbot, make_window, tmp_path) -> None:
    w = make_window(FakeEngine([]))
    w.add_paths([damaged_pdf(tmp_path / "damaged.pdf")])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=60_000)
    (entry,) = [e for e in w.model.entries() if e.document is not None and e.document.lost_pages()]
    lost = entry.document.lost_pages()
    words = [t for d in lost for t in library_text(d)]
    assert lost[0].code is Code.PAGE_CONTENT_LOST and words, lost  # MuPDF's words, e.g. "zlib error"
    assert all(t in lost[0].message() for t in words)  # the English message (CLI, JSON, xlsx) keeps them

    status = w.model.status_text(entry)
    assert f"page 1: {PLAIN}" in status and "MuPDF" not in status and not any(t in status for t in words), status
    tip = w.model.index(w.model.row_of(entry.id), 0).data(Qt.ItemDataRole.ToolTipRole)
    assert entry.source in tip and status in tip and all(t in tip for t in words), tip

    w.select_entry(entry.id)
    summary = w.summary_label.text()
    assert f"Page 1: {PLAIN}" in summary and "MuPDF" not in summary and not any(t in summary for t in words)
    assert all(t in w.summary_label.toolTip() for t in words)

    for row_width in (200, 240, 300, 400):  # the card's status: at most two lines at any queue width
        second, height, two = second_lines(w, w.model.row_of(entry.id), row_width)
        assert second.count("\n") <= 1 and height <= two, (row_width, second, height, two)
        assert "MuPDF" not in second


def test_a_long_status_is_cut_to_two_lines_and_the_tooltip_has_it_all(qtbot, make_window) -> None:
    w = make_window(FakeEngine([]))
    pages = [PageResult(n, 100, 100, warnings=[diag(Code.PDF_CONTENT_LOST, detail=f"cannot load content stream part {n}/58")])
             for n in range(1, 7)]
    entry_id = w.model.add_document(Document(source="/scans/damaged.pdf", pages=(1, 6), document_type="receipt",
                                             page_results=pages))
    entry = w.model.entry(entry_id)
    status = w.model.status_text(entry)
    assert status.count(PLAIN) == 6 and "MuPDF" not in status and "content stream" not in status
    row = w.model.row_of(entry_id)
    for row_width in (200, 260, 320, 400):
        second, height, two = second_lines(w, row, row_width)
        assert second.count("\n") == 1 and second.endswith("…") and height <= two, (row_width, second)
        first_line = second.split("\n")[0]
        assert (w.model.type_labels.get("receipt", "receipt") + " · " + status).startswith(first_line)
        # the row is only as tall as the thumbnail or its name and two lines of status
        assert w.queue_view.itemDelegate().row_height(w.queue_view.font(), row_width, w.model.index(row, 0)) <= 64 + two
    tip = w.model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert status in tip and all(f"cannot load content stream part {n}/58" in tip for n in range(1, 7))


def test_a_failed_file_and_a_failed_reread_are_said_plainly(qtbot, make_window) -> None:
    w = make_window(FakeEngine([]))
    failed = w.model.add_document(Document(source="/scans/broken.pdf", error=diag(
        Code.PDF_UNOPENABLE_DETAIL, detail="no objects found")))
    assert w.model.status_text(w.model.entry(failed)) == "Failed: the PDF is damaged and cannot be opened"
    tip = w.model.index(w.model.row_of(failed), 0).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.splitlines() == ["/scans/broken.pdf", "Failed: the PDF is damaged and cannot be opened", "no objects found"]

    read = w.model.add_document(Document(source="/scans/a.png", document_type="receipt", page_results=[PageResult(1, 10, 10)]))
    w.model.fail(read, diag(Code.ENGINE_FAILED, detail="CUDA error: an illegal memory access was encountered"))
    entry = w.model.entry(read)
    assert entry.message == "the engine failed" and "CUDA" not in w.model.status_text(entry)
    assert "CUDA error: an illegal memory access" in w.model.index(w.model.row_of(read), 0).data(Qt.ItemDataRole.ToolTipRole)
    w.model.set_message(read, "cancelled")  # a later message: the failure's words leave the tooltip with it
    assert "CUDA" not in w.model.index(w.model.row_of(read), 0).data(Qt.ItemDataRole.ToolTipRole)


def test_a_fields_problem_line_is_plain_with_the_library_words_in_its_tooltip(qtbot, make_window) -> None:
    w = make_window(FakeEngine([]))
    problem = diag(Code.MEMORY_UNAVAILABLE, field="total", detail="database is locked")
    doc = Document(source="/scans/r.png", document_type="receipt", page_results=[PageResult(1, 10, 10)],
                   fields={"total": Field("total", value="12.50", confidence=0.9, problems=[problem])})
    w.select_entry(w.model.add_document(doc))
    label = w.form.rows["total"].problems
    assert label.text() == "⚠ the vendor memory could not be used" and label.toolTip() == "database is locked"


def test_the_chinese_card_is_plain_too_with_the_library_words_in_its_tooltip(qtbot, make_window, translated) -> None:
    translated("zh_CN")
    w = make_window(FakeEngine([]), language="zh_CN")
    entry_id = w.model.add_document(Document(source="/scans/broken.pdf", error=diag(
        Code.PDF_DAMAGED, detail="cannot find startxref")))
    status = w.model.status_text(w.model.entry(entry_id))
    assert "PDF 已损坏" in status and "startxref" not in status
    assert "cannot find startxref" in w.model.index(w.model.row_of(entry_id), 0).data(Qt.ItemDataRole.ToolTipRole)
