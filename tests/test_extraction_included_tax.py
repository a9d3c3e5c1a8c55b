"""Tax-inclusive receipts that print the tax their total includes and the amount before tax, and Indian
GST invoices that print CGST and SGST at the same rate (table-driven, made-up documents)."""
from __future__ import annotations

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import extract_fields
from tests.pages import synthetic_page


def _rows(pairs: list[tuple[str, str | None]]) -> list[list[tuple[str, float]]]:
    return [[(a, 10)] + ([(b, 420)] if b else []) for a, b in pairs]


_HEAD = [("THE LITTLE DELI", None), ("Receipt 0042", None)]

# (id, rows after the items, subtotal, tax, total)
INCLUDED = [
    ("uk-vat-incl-net", [("2 x Tea", "£5.00"), ("1 x Scone", "£3.40"), ("TOTAL", "£8.40"), ("Card", "£8.40"),
                         ("VAT @ 20% incl.", "£1.40"), ("Net", "£7.00")], "7.00", "1.40", "8.40"),
    ("uk-vat-included-no-net", [("Soup", "£6.00"), ("TOTAL", "£6.00"), ("VAT 20% included", "£1.00")],
     None, "1.00", "6.00"),
    ("de-inkl-mwst-netto", [("Brezel", "2,38"), ("SUMME", "2,38"), ("inkl. 19% MwSt.", "0,38"),
                            ("Netto", "2,00")], "2.00", "0.38", "2.38"),
    ("fr-dont-tva-ht", [("Croissant", "2,40"), ("TOTAL", "2,40"), ("dont TVA 20%", "0,40"), ("Montant HT", "2,00")],
     "2.00", "0.40", "2.40"),
    ("es-iva-incluido-base", [("Menú del día", "12,10"), ("TOTAL", "12,10"), ("IVA incluido 10%", "1,10"),
                              ("Base imponible", "11,00")], "11.00", "1.10", "12.10"),
]


@pytest.mark.parametrize(("tail", "subtotal", "tax", "total"), [c[1:] for c in INCLUDED], ids=[c[0] for c in INCLUDED])
def test_the_tax_a_total_includes_is_read(tail, subtotal, tax, total) -> None:
    fields = extract_fields(synthetic_page(_rows(_HEAD + tail)), "receipt").fields
    assert fields["total"].value == total
    assert fields["tax"].value == tax
    assert fields["subtotal"].value == subtotal
    assert not any(p.code == Code.SUM_MISMATCH for p in fields["total"].problems)


# rows that look alike but state no included tax
NOT_INCLUDED = [
    # a total "incl. VAT" is the total, not the tax in it
    ("total-incl-vat", [("Soup", "£6.00"), ("Total incl. VAT", "£6.00")]),
    # an "incl." tax that agrees with neither a net amount nor its rate
    ("rate-disagrees", [("Soup", "£6.00"), ("TOTAL", "£6.00"), ("VAT 20% incl.", "£2.50")]),
]


@pytest.mark.parametrize("tail", [c[1] for c in NOT_INCLUDED], ids=[c[0] for c in NOT_INCLUDED])
def test_no_included_tax_is_made_up(tail) -> None:
    fields = extract_fields(synthetic_page(_rows(_HEAD + tail)), "receipt").fields
    assert fields["tax"].value is None


# (id, tax rows, tax): CGST and SGST (or UTGST) at one rate are two taxes, summed
INDIA = [
    ("cgst-sgst-9", [("CGST @ 9%", "900.00"), ("SGST @ 9%", "900.00")], "1800.00", "11800.00"),
    ("cgst-utgst-2.5", [("CGST 2.5%", "250.00"), ("UTGST 2.5%", "250.00")], "500.00", "10500.00"),
    ("cgst-sgst-6", [("CGST @ 6%", "600.00"), ("SGST @ 6%", "600.00")], "1200.00", "11200.00"),
]


@pytest.mark.parametrize(("rows", "tax", "total"), [c[1:] for c in INDIA], ids=[c[0] for c in INDIA])
def test_cgst_and_sgst_are_summed(rows, tax, total) -> None:
    lines = [("Mehta Hardware Pvt. Ltd.", None), ("GSTIN: 27AAPFM1234K1Z2", None), ("TAX INVOICE", None),
             ("Invoice No: MH/2026/118", None), ("Invoice Date: 02-06-2026", None), ("Steel pipes", "10,000.00"),
             ("Taxable Value", "10,000.00"), *rows, ("Grand Total", total)]
    fields = extract_fields(synthetic_page(_rows(lines), width=700), "invoice").fields
    assert fields["tax"].value == tax
    assert fields["total"].value == total.replace(",", "")
