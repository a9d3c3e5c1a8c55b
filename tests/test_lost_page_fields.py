"""Fields of a document part of which was lost: read from a damaged page, printed where a damaged page or a
PDF cut short lost content, or expected and not found. Each is flagged with the reason, never shown as
confident (QA: a date read at 0.9997 from a page marked page_content_lost)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from desktop import cli
from desktop.core.diagnostics import Code, Diagnostic, diag, render
from desktop.core.engines.base import Engine, PageReading
from desktop.core.extraction import FAILED_CHECK_CONFIDENCE, extract_fields
from desktop.core.model import PageResult
from tests.pages import INVOICE_FIRST_PAGE, INVOICE_LAST_PAGE, numbered_page

_CONTENT_LOST = diag(Code.PDF_CONTENT_LOST, detail="zlib error: invalid distance too far back")
_CONTENT_GONE = diag(Code.PDF_PAGE_CONTENT_GONE)
_TRUNCATED = diag(Code.PDF_TRUNCATED)

_FIRST, _LAST = INVOICE_FIRST_PAGE, INVOICE_LAST_PAGE


_page = numbered_page


def _codes(pages: list[PageResult]) -> dict[str, list[Code]]:
    fields = extract_fields(pages, "invoice").fields
    return {name: [p.code for p in f.problems] for name, f in fields.items()}


# (what happened to each page of a two-page invoice, field -> the page-loss reason it must carry;
#  None: no page-loss reason)
_LOSS = {Code.READ_FROM_LOST_PAGE, Code.LAST_PAGE_LOST, Code.FIRST_PAGE_LOST, Code.PAGES_CUT_OFF_AFTER,
         Code.NOT_FOUND_PART_LOST, Code.PAGES_NOT_READ_AFTER, Code.PAGES_NOT_READ_BEFORE}


@pytest.mark.parametrize(("first", "last", "expected"), [
    # page 1 damaged: what was read from it (the header), not the total read from page 2
    ([_CONTENT_LOST], [], {"vendor_name": Code.READ_FROM_LOST_PAGE, "invoice_number": Code.READ_FROM_LOST_PAGE,
                           "date": Code.READ_FROM_LOST_PAGE, "total": None}),
    # page 2 damaged: the total read from it; the header read from page 1 stays as it was
    ([], [_CONTENT_LOST], {"total": Code.READ_FROM_LOST_PAGE, "invoice_number": None, "vendor_name": None}),
    # a file cut short: the pages after the last one may be gone, with the totals; the header is whole
    ([_TRUNCATED], [_TRUNCATED], {"total": Code.PAGES_CUT_OFF_AFTER, "invoice_number": None}),
    # nothing lost
    ([], [], {"total": None, "invoice_number": None, "date": None, "vendor_name": None}),
])
def test_the_fields_a_lost_part_may_have_held_are_flagged(first: list[Diagnostic], last: list[Diagnostic],
                                                          expected: dict[str, Code | None]) -> None:
    pages = [_page(1, _FIRST, first), _page(2, _LAST, last)]
    fields = extract_fields(pages, "invoice").fields
    for name, code in expected.items():
        f = fields[name]
        loss = [p.code for p in f.problems if p.code in _LOSS]
        if code is None:
            assert loss == [], (name, f.problems)
        else:
            assert loss == [code], (name, f.problems)
            assert f.needs_review and f.confidence <= FAILED_CHECK_CONFIDENCE, name


@pytest.mark.parametrize(("warning", "field", "code"), [
    # the last page lost its content entirely: the totals were read elsewhere (or not at all)
    (_CONTENT_GONE, "total", Code.LAST_PAGE_LOST),
    (diag(Code.PAGE_NOT_READ, page=2, reason="the engine stopped"), "total", Code.LAST_PAGE_LOST),
])
def test_a_last_page_that_lost_everything_puts_the_totals_in_doubt(warning: Diagnostic, field: str, code: Code) -> None:
    pages = [_page(1, _FIRST, []), _page(2, [], [warning])]
    f = extract_fields(pages, "invoice").fields[field]
    assert code in [p.code for p in f.problems] and f.needs_review
    assert f.confidence <= FAILED_CHECK_CONFIDENCE


def test_a_first_page_that_lost_everything_puts_the_header_in_doubt() -> None:
    pages = [_page(1, [], [_CONTENT_GONE]), _page(2, [[("Muster Lieferant GmbH", 10)]] + _LAST, [])]
    fields = extract_fields(pages, "invoice").fields
    assert Code.FIRST_PAGE_LOST in [p.code for p in fields["vendor_name"].problems]
    assert fields["vendor_name"].needs_review
    assert not any(p.code in _LOSS for p in fields["total"].problems)


def test_a_key_field_left_empty_says_the_lost_part_may_have_held_it() -> None:
    """A date not found on a document whose last page lost content: the reason says where it may have
    been; an empty field the document need not print (the buyer's tax ID) gets no such reason."""
    rows = [r for r in _FIRST if "Datum" not in r[0][0]]
    fields = extract_fields([_page(1, rows, []), _page(2, _LAST, [_CONTENT_LOST])], "invoice").fields
    assert fields["date"].value is None
    assert [p.code for p in fields["date"].problems] == [Code.NOT_FOUND_PART_LOST]
    assert fields["date"].needs_review
    assert fields["buyer_tax_id"].value is None and not fields["buyer_tax_id"].problems


_MIDDLE = [[("Übertrag", 10), ("380,00", 900)]]


@pytest.mark.parametrize(("lost_page", "flagged", "not_flagged"), [
    # the last page lost content: the empty totals and what an invoice prints with them are in doubt
    # (QA: subtotal, tax, currency and IBAN of a garbled page 2 came out empty and unflagged)
    (3, ["subtotal", "currency", "payment_terms", "iban", "due_date"], ["buyer_tax_id", "buyer_name"]),
    # the first page lost content: the empty header fields, not the totals' company
    (1, ["buyer_tax_id", "buyer_name"], ["iban", "payment_terms"]),
    # a middle page: it could have held anything
    (2, ["currency", "iban", "payment_terms", "buyer_tax_id", "buyer_name"], []),
])
def test_an_empty_field_is_flagged_where_the_lost_part_could_have_held_it(
        lost_page: int, flagged: list[str], not_flagged: list[str]) -> None:
    rows = {1: _FIRST, 2: _MIDDLE, 3: _LAST}
    pages = [_page(n, rows[n], [_CONTENT_LOST] if n == lost_page else []) for n in (1, 2, 3)]
    fields = extract_fields(pages, "invoice").fields
    for name in flagged:
        f = fields[name]  # empty, or read elsewhere and in doubt all the same
        assert f.needs_review and any(p.code in _LOSS for p in f.problems), (name, f.value, f.problems)
    for name in not_flagged:
        f = fields[name]
        assert f.value is None and not any(p.code in _LOSS for p in f.problems), (name, f.problems)


def test_printed_page_numbers_that_show_the_last_page_keep_a_cut_file_s_totals() -> None:
    """A file cut short whose last page read says "Seite 2 von 2": no page after it is missing."""
    pages = [_page(1, _FIRST + [[("Seite 1 von 2", 900)]], [_TRUNCATED]),
             _page(2, _LAST + [[("Seite 2 von 2", 900)]], [_TRUNCATED])]
    assert not any(c in _LOSS for c in _codes(pages)["total"])


def test_the_reasons_are_worded_in_english_and_chinese() -> None:
    for code in (Code.READ_FROM_LOST_PAGE, Code.LAST_PAGE_LOST, Code.FIRST_PAGE_LOST):
        d = diag(code, page=2, warning=_CONTENT_LOST)
        assert "page 2" in render(d) and "original" in render(d)
        assert "第 2 页" in render(d, "zh") and "原件" in render(d, "zh")
    cut = diag(Code.PAGES_CUT_OFF_AFTER, last=3)
    assert "after page 3" in render(cut) and "第 3 页之后" in render(cut, "zh")
    empty = diag(Code.NOT_FOUND_PART_LOST, pages=[2])
    assert "not found" in render(empty) and "没有找到" in render(empty, "zh")


# ---------------------------------------------------------------------------------------- a real file


def _invoice_pdf() -> bytes:
    """A two-page text invoice, each line of it a content stream of its own (so damage to one loses
    that line only): the header, number and date on page 1, the total on page 2."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    for y, text in ((80, "Muster GmbH, Hauptstr. 1, 10115 Berlin"), (110, "Rechnung Nr. R-2024-17"),
                    (140, "Datum: 03.10.2024"), (170, "Physiotherapie 10 x 26,00   260,00")):
        page.insert_text((72, y), text, fontsize=12)
    page = doc.new_page()
    for y, text in ((80, "Hausbesuch 120,00"), (110, "Gesamtbetrag EUR 380,00")):
        page.insert_text((72, y), text, fontsize=12)
    return doc.tobytes(garbage=0, deflate=True, no_new_id=True)


def _garble(data: bytes, text_line: int) -> bytes:
    """``data`` with the compressed bytes of the ``text_line``-th content stream (0-based) overwritten."""
    out = bytearray(data)
    at = -1
    for _ in range(text_line + 1):
        at = out.find(b"/Filter/FlateDecode>>\nstream\n", at + 1)
    start = out.find(b"stream\n", at) + 7
    out[start + 5:start + 40] = b"A" * 35
    return bytes(out)


class _BlankEngine(Engine):
    """Text-layer pages need no engine; a page rendered for OCR reads as blank."""

    name = "fake"
    version = "1"
    capabilities = frozenset()

    def read_page(self, image: np.ndarray) -> PageReading:
        return PageReading([])

    def close(self) -> None:
        pass


@pytest.mark.parametrize(("damage", "field", "label", "code"), [
    ("header line lost", "date", "Date", Code.READ_FROM_LOST_PAGE),  # page 1 lost a line; the date was read there
    ("cut short", "total", "Total", Code.PAGES_CUT_OFF_AFTER),  # the file stops where page 2's total begins
])
def test_a_damaged_pdf_s_fields_are_flagged_in_json_and_xlsx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             damage: str, field: str, label: str, code: Code) -> None:
    """Through ``shoebox scan`` on a PDF damaged in the test: the field carries the problem in the JSON,
    ``needs_review`` is set, and a row in the xlsx Problems sheet names it with the reason."""
    data = _invoice_pdf()
    if damage == "cut short":
        data = data[:[m.start() for m in re.finditer(rb"\n\d+ 0 obj\n", data)][-1]]  # before its last object
    else:
        data = _garble(data, 3)
    pdf = tmp_path / "damaged.pdf"
    pdf.write_bytes(data)
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: _BlankEngine())
    out = tmp_path / "out.json"
    cli.main(["scan", str(pdf), "-o", str(out), "-q"])
    (doc,) = json.loads(out.read_text(encoding="utf-8"))["documents"]
    got = doc["fields"][field]
    assert got["needs_review"] and got["confidence"] <= FAILED_CHECK_CONFIDENCE, got
    (problem,) = [Diagnostic.from_dict(p) for p in got["problems"] if p["code"] == code.value]
    xlsx = tmp_path / "out.xlsx"
    cli.main(["scan", str(pdf), "-o", str(xlsx), "-q"])
    rows = list(openpyxl.load_workbook(xlsx)["Problems"].iter_rows(min_row=2, values_only=True))
    # the row names the field, with the other fields the same finding flags ("Vendor, Invoice number, Date")
    assert any(r[3] == problem.message() and label in (r[2] or "").split(", ") for r in rows), rows
