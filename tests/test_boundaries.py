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


# -- pages on which nothing was read: no evidence of a boundary -----------------------------------

def _nothing_read(number: int, how: str, origin: str = "image") -> PageResult:
    """A page with no lines: ``gone`` (a damaged PDF's repair lost its content), ``cut`` (part of its
    content could not be loaded), ``failed`` (the engine could not read it), ``blank`` (nothing lost)."""
    from desktop.core.diagnostics import diag

    warnings = {"gone": [diag(Code.PDF_REPAIRED), diag(Code.PDF_PAGE_CONTENT_GONE), diag(Code.NO_TEXT)],
                "cut": [diag(Code.PDF_TRUNCATED), diag(Code.PDF_CONTENT_LOST, detail="cannot load content stream")],
                "failed": [diag(Code.PAGE_NOT_READ, page=number, reason=diag(Code.OUT_OF_MEMORY))],
                "blank": [diag(Code.NO_TEXT)]}[how]
    return PageResult(number=number, width=W, height=H, lines=[], origin=origin, warnings=warnings)


#: The first page of an invoice: letterhead, heading and date, no total yet; its last page: the total.
INVOICE_FIRST = [[("Northwind Ltd", 10)], [("INVOICE", 10)], [("Invoice date: 2024-02-07", 10)],
                 [("Item A", 10), ("40.00", 400)]]
INVOICE_LAST = [[("Item B", 10), ("59.00", 400)], [("Total", 10), ("99.00", 400)]]


def _invoice_no(number: str) -> list[list[tuple[str, float]]]:
    return [[("Northwind Ltd", 10)], [("INVOICE", 10)], [(f"Invoice No: {number}", 10)], [("Item", 10), ("5.00", 400)]]


_J_LOST, _J_CONT, _J_BEFORE = Code.PAGES_JOINED_CONTENT_LOST, Code.PAGES_JOINED_CONTINUATION, \
    Code.PAGES_JOINED_NOTHING_READ_BEFORE


@pytest.mark.parametrize(("pages", "ranges", "why"), [
    # the QA case: a cut-short two-page invoice whose second page (with the total) was lost
    pytest.param(lambda: [page(1, INVOICE_FIRST, "pdf_text"), _nothing_read(2, "gone", "pdf_text")],
                 [(1, 2)], {2: _J_LOST}, id="lost-at-the-end"),
    pytest.param(lambda: [page(1, INVOICE_FIRST), _nothing_read(2, "cut"), page(3, INVOICE_LAST)],
                 [(1, 3)], {2: _J_LOST, 3: _J_CONT}, id="lost-in-the-middle"),
    pytest.param(lambda: [page(1, INVOICE_FIRST), _nothing_read(2, "failed"), page(3, INVOICE_LAST)],
                 [(1, 3)], {2: _J_LOST, 3: _J_CONT}, id="engine-failed-in-the-middle"),
    pytest.param(lambda: [_nothing_read(1, "gone"), page(2, INVOICE_FIRST), page(3, INVOICE_LAST)],
                 [(1, 3)], {2: _J_BEFORE, 3: _J_CONT}, id="lost-at-the-start"),
    pytest.param(lambda: [_nothing_read(1, "failed"), _nothing_read(2, "gone"), page(3, RECEIPTS[0])],
                 [(1, 3)], {2: _J_LOST, 3: _J_BEFORE}, id="two-lost-at-the-start"),
    pytest.param(lambda: [_nothing_read(1, "gone"), _nothing_read(2, "gone")],
                 [(1, 2)], {2: _J_LOST}, id="every-page-lost"),
    pytest.param(lambda: [page(1, INVOICE_FIRST), _nothing_read(2, "blank"), page(3, INVOICE_LAST)],
                 [(1, 3)], {2: _J_CONT, 3: _J_CONT}, id="blank-in-the-middle"),
    pytest.param(lambda: [_nothing_read(1, "blank"), page(2, RECEIPTS[0])],
                 [(1, 2)], {2: _J_BEFORE}, id="blank-at-the-start"),
    # real boundaries are kept across a page on which nothing was read
    pytest.param(lambda: [page(1, RECEIPTS[0]), _nothing_read(2, "gone"), page(3, RECEIPTS[1])],
                 [(1, 2), (3, 3)], {2: _J_LOST, 3: Code.PAGES_SPLIT_OWN_START}, id="receipt-lost-receipt"),
    pytest.param(lambda: [_nothing_read(1, "gone"), page(2, RECEIPTS[0]), page(3, RECEIPTS[1])],
                 [(1, 2), (3, 3)], {2: _J_BEFORE, 3: Code.PAGES_SPLIT_OWN_START}, id="lost-receipt-receipt"),
    pytest.param(lambda: [page(1, _invoice_no("INV-001")), _nothing_read(2, "cut"), page(3, _invoice_no("INV-002"))],
                 [(1, 2), (3, 3)], {2: _J_LOST, 3: Code.PAGES_SPLIT_OWN_NUMBER}, id="new-invoice-number-after-lost"),
    # the kind is the last page read's, not the lost page's (here a text-layer page that showed nothing)
    pytest.param(lambda: [page(1, INVOICE_FIRST), _nothing_read(2, "gone", "pdf_text"),
                          page(3, [[("Contoso Ltd", 10)], [("INVOICE", 10)], [("Amount due", 10), ("12.00", 400)]],
                               "pdf_text")],
                 [(1, 2), (3, 3)], {2: _J_LOST, 3: Code.PAGES_SPLIT_KIND}, id="new-kind-after-lost"),
])
def test_a_page_on_which_nothing_was_read_is_no_boundary(pages, ranges: list[tuple[int, int]],
                                                         why: dict[int, Code]) -> None:
    """A page that shows nothing (lost, unreadable or blank) carries no evidence of a boundary: it stays
    with the document it is in, wherever it is in the file, and a file whose first pages show nothing is
    still one document with the pages after them; a page that shows a new document still starts one."""
    got = document_ranges(pages())
    assert [(r.first, r.last) for r in got] == ranges
    notes = {n.page: n.code for r in got for n in r.notes if n.code is not Code.PAGES_SPLIT_AFTER}
    assert notes == why
    assert not {n.code for r in got for n in r.notes} & {Code.PAGES_SPLIT_CONTENT_LOST,
                                                         Code.PAGES_SPLIT_AFTER_CONTENT_LOST}


def test_the_note_on_a_lost_page_says_it_stays_and_may_be_split_off() -> None:
    got = document_ranges([page(1, INVOICE_FIRST), _nothing_read(2, "gone")])
    note = got[0].notes[0]
    assert note.code is Code.PAGES_JOINED_CONTENT_LOST and note.page == 2
    assert "stays with page 1" in str(note) and "split it off" in str(note)
    first = document_ranges([_nothing_read(1, "gone"), page(2, INVOICE_FIRST)])[0].notes[0]
    assert first.code is Code.PAGES_JOINED_NOTHING_READ_BEFORE and "pages before page 2" in str(first)


# -- till receipts whose shop name has no legal form and no heading ------------------------------

def _till(shop: str, date: str, lines: list[tuple[str, str]], total_label: str, total: str,
          *, centred: bool = True) -> list[list[tuple[str, float]]]:
    """A till receipt: the shop name printed centred over the text column (x 10..445) when ``centred``,
    left-aligned otherwise; a date line; item lines; a total."""
    x = (10 + 445) / 2 - 9 * len(shop) / 2 if centred else 10
    return [[(shop, x)], [("12 Main Street", 160)], [(f"{date} 15:42", 10)],
            *[[(item, 10), (amount, 400)] for item, amount in lines], [(total_label, 10), (total, 400)]]


TILLS = [  # (first receipt, second receipt): English, French, German, Spanish, Chinese shop names
    (_till("KITSILANO HARDWARE", "2025-02-14", [("Screws", "12.99"), ("Roller", "31.81")], "TOTAL", "44.80"),
     _till("DÉPANNEUR CHEZ MARCEL", "2025-03-05", [("Journal", "3.00"), ("Croustilles", "20.00")], "TOTAL", "23.00")),
    (_till("BOULANGERIE DU COIN", "05/03/2025", [("Baguette", "1.20")], "TOTAL TTC", "1.20"),
     _till("PHARMACIE CENTRALE", "06/03/2025", [("Sirop", "7.90")], "TOTAL TTC", "7.90")),
    (_till("Bäckerei Müller", "05.03.2025", [("Brezel", "0,90")], "Summe", "0,90"),
     _till("Apotheke am Markt", "06.03.2025", [("Tee", "4,50")], "Summe", "4,50")),
    (_till("Ferretería López", "05/03/2025", [("Tornillos", "3,20")], "Total", "3,20"),
     _till("Panadería Santa Ana", "06/03/2025", [("Pan", "1,10")], "Total", "1,10")),
    (_till("好又多超级市场", "2025-03-05", [("苹果", "12.00")], "合计", "12.00"),
     _till("老王面馆", "2025-03-06", [("牛肉面", "18.00")], "合计", "18.00")),
]


@pytest.mark.parametrize(("first", "second"), TILLS, ids=["en-fr", "fr", "de", "es", "zh"])
def test_two_till_receipts_with_centred_shop_names_are_two_documents(first, second) -> None:
    ranges = document_ranges([page(1, first), page(2, second)])
    assert [(r.first, r.last) for r in ranges] == [(1, 1), (2, 2)]
    assert ranges[1].notes[0].code is Code.PAGES_SPLIT_OWN_START


@pytest.mark.parametrize("second", [
    pytest.param(lambda: _till("DÉPANNEUR CHEZ MARCEL", "2025-03-05", [("Pan", "3.00")], "TOTAL", "23.00",
                               centred=False), id="name-not-centred"),  # e.g. a table heading
    pytest.param(lambda: [r for r in TILLS[0][1] if "TOTAL" not in r[0][0]], id="no-total"),
    pytest.param(lambda: [r for r in TILLS[0][1] if "15:42" not in r[0][0]], id="no-date"),
    pytest.param(lambda: [[("Page 2 of 2", 180)], *TILLS[0][1][1:]], id="page-number-on-top"),
    pytest.param(lambda: [[("Description  Qty  Amount", 10)], *TILLS[0][1][1:]], id="column-headings"),
])
def test_a_centred_name_alone_or_an_incomplete_page_does_not_split(second) -> None:
    """A name is weaker evidence than a heading: it starts a document only on a complete page."""
    ranges = document_ranges([page(1, TILLS[0][0]), page(2, second())])
    assert [(r.first, r.last) for r in ranges] == [(1, 2)]


def test_a_multi_frame_tiff_of_two_till_receipts_is_two_documents(tmp_path: Path) -> None:
    """The QA case: each frame its own receipt (shop name without a legal form); fields not mixed."""
    f = _tiff(tmp_path / "two.tif", 2)
    docs = scan_file(f, FakeEngine([_recording(r) for r in TILLS[0]]))
    assert [d.pages for d in docs] == [(1, 1), (2, 2)]
    assert [d.fields["vendor_name"].value for d in docs] == ["KITSILANO HARDWARE", "DÉPANNEUR CHEZ MARCEL"]
    assert [d.fields["date"].value for d in docs] == ["2025-02-14", "2025-03-05"]
    assert [d.fields["total"].value for d in docs] == ["44.80", "23.00"]


# -- a document on whose pages nothing was read: no type guessed, one note, the clerk checks it ---

def _blank() -> dict:
    return {"width": W, "height": H, "lines": []}


@pytest.mark.parametrize("pages", [1, 3])
def test_a_file_of_blank_pages_gets_no_document_type_and_one_note(tmp_path: Path, pages: int) -> None:
    from desktop.core.review import Standing, standing

    docs = scan_file(_tiff(tmp_path / "blank.tif", pages), FakeEngine([_blank()]))
    assert len(docs) == 1 and docs[0].document_type is None and docs[0].fields == {} and docs[0].error is None
    notes = [n for n in docs[0].notes if n.code is Code.NO_TEXT_IN_DOCUMENT]
    assert len(notes) == 1 and f"any of its {pages} page(s): no document type was guessed" in str(notes[0])
    assert f"其 {pages} 页均未找到文字" in notes[0].message("zh")
    assert standing(docs[0]) is Standing.TO_CHECK  # not "every field checks out": it has none


def test_blank_pages_with_a_forced_type_or_with_text_keep_the_type(tmp_path: Path) -> None:
    from desktop.core.pipeline import ScanOptions

    forced = scan_file(_tiff(tmp_path / "a.tif", 2), FakeEngine([_blank()]), ScanOptions(document_type="invoice"))
    assert forced[0].document_type == "invoice"
    mixed = scan_file(_tiff(tmp_path / "b.tif", 2), FakeEngine([_blank(), _recording(RECEIPTS[0])]))
    assert [d.document_type for d in mixed] == ["receipt"]
    assert not any(n.code is Code.NO_TEXT_IN_DOCUMENT for d in forced + mixed for n in d.notes)


def test_a_blank_document_has_a_problems_row(tmp_path: Path) -> None:
    from desktop.core.export import _build_workbook

    docs = scan_file(_tiff(tmp_path / "blank.tif", 2), FakeEngine([_blank()]))
    for language, words in (("en", "no text was found on any of its 2 page(s)"), ("zh", "其 2 页均未找到文字")):
        rows = [[c.value for c in r] for r in _build_workbook(docs, language)["Problems" if language == "en" else "问题"]
                .iter_rows(min_row=2)]
        assert any(words in str(r) for r in rows), rows
