"""A credit note's own number, printed in its heading, is its number, and its total is the total credit,
not the tax line (table-driven, made-up documents)."""
from __future__ import annotations

import pytest

from desktop.core.extraction import detect_document_type, extract_fields, laid_out_as
from desktop.core.extraction.layout import Layout
from tests.pages import synthetic_page

# (id, heading, labels: net, tax, total, number)
CASES = [
    ("en-heading-code", "CREDIT NOTE CN-00417", ("Net", "VAT 20%", "Total credit"), "CN-00417"),
    ("en-no", "Credit note no. 2026-031", ("Net", "VAT 20%", "Total"), "2026-031"),
    ("de-gutschrift-nr", "Gutschrift Nr. GS-7781", ("Netto", "MwSt. 19%", "Gesamtbetrag"), "GS-7781"),
    ("fr-avoir-n", "Avoir n° AV-2026-12", ("Total HT", "TVA 20%", "Total TTC"), "AV-2026-12"),
    ("nl-creditnota", "Creditnota CR-5521", ("Subtotaal", "BTW 21%", "Totaal"), "CR-5521"),
]


@pytest.mark.parametrize(("heading", "labels", "number"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_credit_note_heading_gives_its_number_and_total(heading, labels, number) -> None:
    net, vat, total = labels
    rows = [[("Harbour Stationers Ltd", 10)], [("3 Quay Road, Hull HU1 1AA", 10)], [(heading, 10)],
            [("Date: 09/02/2026", 10)], [("Against invoice INV-55120", 10)],
            [("Returned: 2 x desk lamp", 10), ("-150.00", 700)], [(net, 10), ("-150.00", 700)],
            [(vat, 10), ("-30.00", 700)], [(total, 10), ("-180.00", 700)]]
    pages = synthetic_page(rows, width=800)
    assert detect_document_type(pages) == "credit_note"
    assert laid_out_as(Layout(pages), "credit_note") == "invoice"
    fields = extract_fields(pages, "credit_note").fields
    assert fields["invoice_number"].value == number
    assert fields["total"].value == "-180.00"
