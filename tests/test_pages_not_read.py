"""Page numbers printed on a document ("Seite 1 von 2") and the pages a scan did not include."""
from __future__ import annotations

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import extract_fields
from desktop.core.extraction.common import missing_pages, page_marker
from tests.pages import INVOICE_FIRST_PAGE, INVOICE_LAST_PAGE, numbered_page


@pytest.mark.parametrize(("text", "expected"), [
    ("Page 1 of 3", (1, 3)),
    ("Seite 2 von 3", (2, 3)),
    ("Page 1 / 1", (1, 1)),
    ("Page 1 /2", (1, 2)),
    ("page 2 sur 4", (2, 4)),
    ("Pagina 1 van 2", (1, 2)),
    ("Página 3 de 3", (3, 3)),
    ("Strona 1 z 2", (1, 2)),
    ("Halaman 1 dari 2", (1, 2)),
    ("第1页 共2页", (1, 2)),
    ("共 3 页 第 2 页", (2, 3)),
    ("Rechnung 2024-17   Seite 1 von 2", (1, 2)),
    # not page numbers
    ("1/2 kg Äpfel", None),
    ("Datum 1/3/2024", None),
    ("Page 4 of 3", None),  # impossible: not taken
    ("Seite von", None),  # a text layer whose numbers sit in boxes of their own
    ("Homepage 1 of 2 offers", None),
])
def test_page_marker(text: str, expected: tuple[int, int] | None) -> None:
    assert page_marker([text]) == expected


@pytest.mark.parametrize(("markers", "expected"), [
    ([(1, 2)], ([], [2])),  # the last page was not scanned
    ([(2, 3), (3, 3)], ([1], [])),  # the first was not
    ([(1, 3), None], ([], [3])),  # the second page's marker was not read: it is page 2
    ([(1, 3), (2, 3), (3, 3)], ([], [])),
    ([(1, 3), None, None], ([], [])),  # as many pages as printed: complete, whatever was misread
    ([(1, 1)], ([], [])),
    ([None], ([], [])),  # no page numbers: nothing known
    ([(1, 2), (1, 2)], ([], [2])),  # page 1 scanned twice, page 2 never
])
def test_missing_pages(markers: list, expected: tuple[list[int], list[int]]) -> None:
    assert missing_pages(markers) == expected


_page = numbered_page


_FIRST, _LAST = INVOICE_FIRST_PAGE, INVOICE_LAST_PAGE


def test_a_total_read_before_the_last_page_is_flagged() -> None:
    """Page 1 of 2 alone: whatever amount is taken for the total is flagged with the reason."""
    first = _page(1, _FIRST + [[("Seite 1 von 2", 900)]])
    total = extract_fields([first], "invoice").fields["total"]
    assert total.needs_review
    assert Code.PAGES_NOT_READ_AFTER in [p.code for p in total.problems]
    assert total.confidence <= 0.5


def test_every_page_read_keeps_the_total_unflagged_by_page_numbers() -> None:
    first = _page(1, _FIRST + [[("Seite 1 von 2", 900)]])
    last = _page(2, _LAST + [[("Seite 2 von 2", 900)]])
    fields = extract_fields([first, last], "invoice").fields
    assert fields["total"].value == "380.00"
    codes = [p.code for f in fields.values() for p in f.problems]
    assert Code.PAGES_NOT_READ_AFTER not in codes and Code.PAGES_NOT_READ_BEFORE not in codes


def test_the_header_fields_of_a_document_read_from_its_second_page_are_flagged() -> None:
    last = _page(1, [[("Muster Lieferant GmbH", 10)]] + _LAST + [[("Seite 2 von 2", 900)]])
    fields = extract_fields([last], "invoice").fields
    vendor = fields["vendor_name"]
    assert Code.PAGES_NOT_READ_BEFORE in [p.code for p in vendor.problems]
    assert vendor.needs_review
    assert Code.PAGES_NOT_READ_AFTER not in [p.code for p in fields["total"].problems]
