"""Every page belongs to exactly one document: page-boundary decisions, and the clerk's split/merge."""
from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from desktop.core.boundaries import document_ranges, merge_documents, page_profile, split_document
from desktop.core.diagnostics import Code, DiagnosticError, error_text
from desktop.core.model import Field, Line, PageResult
from desktop.core.pipeline import scan_file
from tests.fake_engines import FakeEngine

W, H = 600, 1000


def page(number: int, rows: list[list[tuple[str, float]]], origin: str = "image") -> PageResult:
    lines = []
    for i, row in enumerate(rows):
        y = 40 + 30 * i
        for text, x0 in row:
            lines.append(Line(text=text, box=(x0, y, x0 + 9 * len(text), y + 22), confidence=0.99))
    return PageResult(number=number, width=W, height=H, lines=lines, origin=origin)


def receipt_rows(shop: str, date: str, sub: str, tax: str, total: str) -> list[list[tuple[str, float]]]:
    return [[(shop, 10)], [("TAX INVOICE", 10)], [(f"Date: {date}", 10)], [("ITEM A", 10), (sub, 400)],
            [("SUBTOTAL", 10), (sub, 400)], [("GST 6%", 10), (tax, 400)], [("TOTAL", 10), (total, 400)],
            [("THANK YOU", 10)]]


RECEIPTS = [
    receipt_rows("KEDAI ABC SDN BHD", "01/02/2024", "10.00", "0.60", "10.60"),
    receipt_rows("XYZ TRADING SDN BHD", "05/02/2024", "20.00", "1.20", "21.20"),
    receipt_rows("MAMAK CAFE ENTERPRISE", "06/02/2024", "5.00", "0.30", "5.30"),
]


def test_three_receipts_in_one_file_are_three_documents() -> None:
    pages = [page(i + 1, rows) for i, rows in enumerate(RECEIPTS)]
    ranges = document_ranges(pages)
    assert [(r.first, r.last) for r in ranges] == [(1, 1), (2, 2), (3, 3)]
    assert [n.code for n in ranges[1].notes] == [Code.PAGES_SPLIT_OWN_START, Code.PAGES_SPLIT_AFTER]
    assert "already has its total" in str(ranges[1].notes[0])


def test_a_continuation_page_joins_the_document_before_it() -> None:
    first = page(1, [[("ACME GMBH", 10)], [("Rechnung", 10)], [("Datum: 05.02.2024", 10)], [("Pos 1", 10), ("3,00", 400)]])
    cont = page(2, [[("Pos 2", 10), ("5,00", 400)], [("Gesamtbetrag", 10), ("8,00", 400)]])
    ranges = document_ranges([first, cont])
    assert [(r.first, r.last) for r in ranges] == [(1, 2)]
    assert ranges[0].notes[0].code is Code.PAGES_JOINED_CONTINUATION and "continues page 1" in str(ranges[0].notes[0])


def test_a_repeated_letterhead_before_the_total_is_still_one_document() -> None:
    first = page(1, [[("ACME GMBH", 10)], [("Rechnung", 10)], [("Datum: 05.02.2024", 10)], [("Pos 1", 10), ("3,00", 400)]])
    second = page(2, [[("ACME GMBH", 10)], [("Pos 2", 10), ("5,00", 400)], [("Gesamtbetrag", 10), ("8,00", 400)]])
    assert [(r.first, r.last) for r in document_ranges([first, second])] == [(1, 2)]


def test_scanned_receipt_then_text_layer_invoice() -> None:
    scan = page(1, RECEIPTS[0])
    invoice = page(2, [[("Northwind Ltd", 10)], [("INVOICE", 10)], [("Invoice date: 2024-02-07", 10)],
                       [("Amount due", 10), ("99.00", 400)]], origin="pdf_text")
    profiles = [page_profile(scan), page_profile(invoice)]
    assert [p.kind for p in profiles] == ["scan", "text_layer"]
    assert [(r.first, r.last) for r in document_ranges([scan, invoice])] == [(1, 1), (2, 2)]


def test_pages_with_their_own_invoice_numbers_split_and_the_same_number_joins() -> None:
    def inv(n: int, number: str) -> PageResult:
        return page(n, [[("Northwind Ltd", 10)], [("INVOICE", 10)], [(f"Invoice No: {number}", 10)]])
    ranges = document_ranges([inv(1, "INV-001"), inv(2, "INV-001"), inv(3, "INV-002")])
    assert [(r.first, r.last) for r in ranges] == [(1, 2), (3, 3)]
    assert ranges[0].notes[0].code is Code.PAGES_JOINED_SAME_NUMBER and "INV-001" in str(ranges[0].notes[0])


def _tiff(path: Path, pages: int) -> Path:
    frames = [Image.new("RGB", (W, H), (255, 255, 255 - i)) for i in range(pages)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def _recording(rows: list[list[tuple[str, float]]]) -> dict:
    p = page(1, rows)
    return {"width": W, "height": H, "lines": [ln.to_dict() for ln in p.lines]}


def test_a_multi_page_tiff_of_receipts_scans_to_one_document_each(tmp_path: Path) -> None:
    f = _tiff(tmp_path / "stack.tif", 3)
    docs = scan_file(f, FakeEngine([_recording(r) for r in RECEIPTS]))
    assert [d.pages for d in docs] == [(1, 1), (2, 2), (3, 3)]
    assert [d.fields["total"].value for d in docs] == ["10.60", "21.20", "5.30"]
    assert [d.fields["date"].value for d in docs] == ["2024-02-01", "2024-02-05", "2024-02-06"]
    assert all(d.notes for d in docs)
    assert [n.code for n in docs[1].notes] == [Code.PAGES_SPLIT_OWN_START, Code.PAGES_SPLIT_AFTER]


def _docs() -> list:
    pages = [page(i + 1, rows) for i, rows in enumerate(RECEIPTS)]
    from desktop.core.extraction import extract_fields
    from desktop.core.model import Document

    doc = Document(source="stack.tif", pages=(1, 3), document_type="receipt", page_results=pages,
                   tables=[{"page": 2, "html": "<table/>"}],
                   extras={"table": [{"page": 1, "text": "a"}, {"page": 3, "text": "c"}]})
    doc.fields = dict(extract_fields(pages, "receipt").fields)
    return [doc]


def test_split_document_gives_each_part_its_own_pages_and_fields() -> None:
    (doc,) = _docs()
    doc.fields["vendor_name"] = Field("vendor_name", value="Typed by clerk", edited=True, source="user", page=1)
    first, rest = split_document(doc, 2)
    assert (first.pages, rest.pages) == ((1, 1), (2, 3))
    assert [p.number for p in first.page_results] == [1] and [p.number for p in rest.page_results] == [2, 3]
    assert first.fields["total"].value == "10.60" and first.fields["vendor_name"].value == "Typed by clerk"
    assert rest.fields["vendor_name"].value != "Typed by clerk"
    assert rest.tables == [{"page": 2, "html": "<table/>"}] and first.tables == []
    assert first.extras["table"] == [{"page": 1, "text": "a"}] and rest.extras["table"] == [{"page": 3, "text": "c"}]
    assert first.notes[-1].code is Code.CLERK_SPLIT and "pages 1-3 at page 2" in str(first.notes[-1])
    assert doc.pages == (1, 3) and len(doc.page_results) == 3  # the input is not changed
    second, third = split_document(rest, 3)
    assert second.fields["total"].value == "21.20" and third.fields["total"].value == "5.30"


@pytest.mark.parametrize("at", [1, 4, 0])
def test_split_outside_the_document_is_refused(at: int) -> None:
    (doc,) = _docs()
    with pytest.raises(DiagnosticError, match="cannot split") as refused:
        split_document(doc, at)
    d = refused.value.diagnostic
    assert d.code is Code.SPLIT_OUTSIDE
    assert d.message("zh_CN") == f"无法在第 {at} 页拆分第 1-3 页：请选择第 2 至 3 页"


def test_merge_undoes_a_split_and_keeps_edits() -> None:
    (doc,) = _docs()
    a, b = split_document(doc, 3)
    b.fields["total"] = Field("total", value="5.35", edited=True, source="user", page=3)
    merged = merge_documents(a, b)
    assert merged.pages == (1, 3) and [p.number for p in merged.page_results] == [1, 2, 3]
    assert merged.fields["total"].value == "5.35" and merged.fields["total"].edited
    assert merged.notes[-1].code is Code.CLERK_MERGED and "pages 1-2 and 3-3" in str(merged.notes[-1])
    assert merge_documents(b, a).pages == (1, 3)  # either order


def test_merge_refuses_other_files_and_gaps() -> None:
    (doc,) = _docs()
    a, rest = split_document(doc, 2)
    b, c = split_document(rest, 3)
    with pytest.raises(DiagnosticError, match="not adjacent") as refused:
        merge_documents(a, c)
    assert refused.value.diagnostic.message("zh_CN") == "无法合并第 1-1 页与第 3-3 页：页码不相邻"
    other = split_document(doc, 2)[1]
    other.source = "other.tif"
    with pytest.raises(DiagnosticError, match="different files") as refused:
        merge_documents(a, other)
    assert refused.value.diagnostic.code is Code.MERGE_OTHER_FILES and "不同文件" in error_text(refused.value, "zh_CN")


def test_a_page_whose_content_may_be_lost_is_never_a_silent_continuation() -> None:
    """A damaged PDF's page that reads as blank because its repair lost its content (or that the engine
    could not read) is a document of its own: it continues nothing, and nothing continues it; a blank page
    with nothing lost still continues the page before."""
    from desktop.core.diagnostics import diag

    first = PageResult(1, 1000, 1400, lines=[Line("ACME SDN BHD", (50, 40, 400, 80)),
                                             Line("Date: 11/01/2019", (50, 100, 400, 140))])
    gone = PageResult(2, 1000, 1400, warnings=[diag(Code.PDF_REPAIRED), diag(Code.PDF_PAGE_CONTENT_GONE),
                                               diag(Code.NO_TEXT)])
    blank = PageResult(3, 1000, 1400, warnings=[diag(Code.NO_TEXT)])
    failed = PageResult(4, 1000, 1400, warnings=[diag(Code.PAGE_NOT_READ, page=4, reason=diag(Code.OUT_OF_MEMORY))])
    # a receipt of its own after the lost page: whether the lost page had its total is not known
    own = PageResult(5, 1000, 1400, lines=[Line("ACME SDN BHD", (50, 40, 400, 80)),
                                           Line("Date: 12/01/2019", (50, 100, 400, 140))])
    ranges = document_ranges([first, gone, blank, failed, own])
    assert [(r.first, r.last) for r in ranges] == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    assert [r.notes[0].code for r in ranges[1:]] == [Code.PAGES_SPLIT_CONTENT_LOST, Code.PAGES_SPLIT_AFTER_CONTENT_LOST,
                                                     Code.PAGES_SPLIT_CONTENT_LOST, Code.PAGES_SPLIT_AFTER_CONTENT_LOST]
    assert ranges[1].notes[0].page == 2
    assert [(r.first, r.last) for r in document_ranges([first, blank])] == [(1, 3)]  # blank, nothing lost: joined
