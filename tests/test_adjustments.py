"""Charges, allowances and rounding printed between the subtotal and the total
(:mod:`desktop.core.extraction.adjustments`, EN 16931 BG-20/BG-21, BT-114), by kind and in several
languages: ``subtotal + tax + charges - allowances (+ rounding) = total`` holds where the page prints
them; the check stays strict where none is printed, or where the printed ones do not explain the
difference; a withholding explains the amount due, not the total."""
from __future__ import annotations

from decimal import Decimal

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import extract_fields
from desktop.core.extraction.adjustments import adjustment_label
from desktop.core.extraction.validators import check_sum, check_sum_without_tax
from tests.pages import INVOICE_HEADS, synthetic_page

INVOICE_HEAD = INVOICE_HEADS
RECEIPT_HEAD = [[("OCEAN VIEW CAFE SDN BHD", 10)], [("2 Beach Rd, 10050 Penang", 10)], [("Date 30/06/2024", 10)]]


def _rows(pairs: list[tuple[str, str]]) -> list[list[tuple[str, float]]]:
    return [[(label, 420), (value, 760)] for label, value in pairs]


def _invoice(lang: str, pairs: list[tuple[str, str]]):
    return extract_fields(synthetic_page(INVOICE_HEAD[lang] + _rows(pairs), width=1000), "invoice").fields


def _receipt(rows: list[list[tuple[str, float]]]):
    return extract_fields(synthetic_page(RECEIPT_HEAD + rows), "receipt").fields


def _sum_codes(fields) -> set[Code]:
    return {p.code for n in ("subtotal", "tax", "total") for p in fields[n].problems} & {
        Code.SUM_MISMATCH, Code.SUBTOTAL_TOTAL_NO_TAX}


# ------------------------------------------------------------------------------------------------
# the check itself


@pytest.mark.parametrize("sub, tax, total, adjustment, ok", [
    ("1280.00", "89.60", "1394.60", None, False),  # strict: shipping not counted
    ("1280.00", "89.60", "1394.60", Decimal("25.00"), True),  # shipping
    ("600.00", "54.00", "594.00", Decimal("-60.00"), True),  # discount
    ("32.40", "2.14", "37.75", Decimal("3.21"), True),  # service charge 3.24 and rounding -0.03
    ("32.40", "2.14", "37.80", Decimal("3.24"), True),  # service charge, then cash rounding to 0.05
    ("26.50", "1.59", "20.10", Decimal("0.01"), False),  # a misread total no adjustment explains
    ("26.50", "1.59", "20.10", Decimal("2.65"), False),
])
def test_the_sum_counts_the_printed_adjustment(sub, tax, total, adjustment, ok):
    assert (check_sum(sub, tax, total, adjustment=adjustment) == []) is ok


@pytest.mark.parametrize("sub, total, adjustment, ok", [
    ("100.00", "107.50", None, False),
    ("100.00", "107.50", Decimal("7.50"), True),  # no tax, a delivery charge
    ("100.00", "90.00", Decimal("-10.00"), True),  # no tax, a discount
    ("100.00", "120.00", Decimal("7.50"), False),
])
def test_the_sum_without_tax_counts_the_printed_adjustment(sub, total, adjustment, ok):
    assert (check_sum_without_tax(sub, None, total, adjustment=adjustment) == []) is ok


# ------------------------------------------------------------------------------------------------
# the vocabulary


@pytest.mark.parametrize("label, kind", [
    ("Service Charge 10%", "charge"), ("Serv. Charge (10%):", None), ("SVC CHG", "charge"),
    ("Caj Perkhidmatan", "charge"), ("Shipping:", "charge"), ("Shipping & handling", "charge"),
    ("Delivery fee", "charge"), ("Freight", "charge"), ("Versandkosten", "charge"), ("Servicegebühr", "charge"),
    ("Frais de port", "charge"), ("Frais de service", "charge"), ("Spese di spedizione", "charge"),
    ("Gastos de envío", "charge"), ("Verzendkosten", "charge"), ("Portes", "charge"),
    # a tip or gratuity the customer adds (QA2: "Tip 3.00" between subtotal and total)
    ("Tip", "charge"), ("TIP:", "charge"), ("Gratuity 18%", "charge"), ("Trinkgeld", "charge"),
    ("Pourboire", "charge"), ("Propina", "charge"), ("Mancia", "charge"), ("Fooi", "charge"), ("小费", "charge"),
    ("Tipo de cambio", None),
    ("Discount 10%:", "allowance"), ("TOTAL DISCOUNT", "allowance"), ("Rabatt", "allowance"),
    ("Remise fidélité", "allowance"), ("Sconto", "allowance"), ("Descuento", "allowance"), ("Korting", "allowance"),
    ("Diskaun", "allowance"), ("Rounding Adj:", "rounding"), ("Rounding Adjustment", "rounding"),
    ("Rundung", "rounding"), ("Arrondi", "rounding"), ("Arrotondamento", "rounding"), ("Afronding", "rounding"),
    # no adjustments: totals, subtotals, taxes, a withholding, a total before or after the adjustment, a date
    ("Service Tax 6%", None), ("SST 6%", None), ("Subtotal", None), ("Total", None), ("Rounded Total", None),
    ("Total after discount", None), ("Summe nach Rabatt", None), ("Total Incl GST", None),
    ("Ritenuta d'acconto 20%", None), ("Retención IRPF 15%", None), ("Einbehalt 5 %", None),
    ("Delivery date", None), ("Netto a pagare", None), ("Paid", None), ("Change", None),
])
def test_adjustment_labels(label, kind):
    # "Serv. Charge" is an abbreviation the vocabulary does not hold: not an adjustment (the check stays strict)
    assert adjustment_label(label) == kind


# ------------------------------------------------------------------------------------------------
# documents: the printed adjustments explain the total


@pytest.mark.parametrize("lang, pairs, sub", [
    ("en", [("Subtotal:", "$1,280.00"), ("Sales Tax (7%):", "$89.60"), ("Shipping:", "$25.00"),
            ("Total:", "$1,394.60")], "1280.00"),
    ("en", [("Subtotal", "200.00"), ("Delivery charge", "15.00"), ("VAT 20%", "43.00"), ("Total", "258.00")], "200.00"),
    ("de", [("Zwischensumme", "340,00"), ("Versandkosten", "5,90"), ("MwSt. 19 %", "65,72"),
            ("Gesamtbetrag", "411,62")], "340.00"),
    ("de", [("Zwischensumme", "340,00"), ("Rabatt 5 %", "-17,00"), ("MwSt. 19 %", "61,37"),
            ("Gesamtbetrag", "384,37")], "340.00"),
    ("fr", [("Total HT", "720,00"), ("Frais de port", "12,00"), ("TVA 20 %", "146,40"),
            ("Total TTC", "878,40")], "720.00"),
    ("fr", [("Total HT", "720,00"), ("Remise 10 %", "-72,00"), ("TVA 20 %", "129,60"),
            ("Total TTC", "777,60")], "720.00"),
    ("it", [("Subtotale", "10,00"), ("Spese di spedizione", "5,00"), ("IVA 22%", "3,30"),
            ("Totale documento", "18,30")], "10.00"),
    ("it", [("Subtotale", "10,00"), ("Sconto", "1,00"), ("IVA 22%", "1,98"), ("Totale documento", "10,98")], "10.00"),
])
def test_a_printed_charge_or_discount_explains_the_total(lang, pairs, sub):
    fields = _invoice(lang, pairs)
    assert fields["subtotal"].value == sub
    assert not _sum_codes(fields)
    assert not any(fields[n].needs_review for n in ("subtotal", "tax", "total"))


@pytest.mark.parametrize("rows", [
    # a restaurant's service charge and the cash rounding (Malaysia)
    [[("Subtotal", 10), ("32.40", 400)], [("Service Charge 10%", 10), ("3.24", 400)], [("SST 6%", 10), ("2.14", 400)],
     [("Rounding", 10), ("-0.03", 400)], [("TOTAL (RM)", 10), ("37.75", 400)]],
    [[("Sub Total", 10), ("295.00", 400)], [("Service Charge 10%", 10), ("29.50", 400)], [("GST 6%", 10), ("19.47", 400)],
     [("Rounding Adj", 10), ("-0.02", 400)], [("Net Total", 10), ("343.95", 400)]],
    # the amount before tax on a tax-inclusive receipt, rounded by a printed line
    [[("Total Excl GST:", 10), ("28.87", 400)], [("GST 6%:", 10), ("1.36", 400)], [("Total Incl GST:", 10), ("30.23", 400)],
     [("Rounding Adj:", 10), ("-0.03", 400)], [("Total Payable:", 10), ("30.20", 400)]],
    # a tip printed between the tax and the total (US restaurant receipts; Trinkgeld, pourboire)
    [[("Subtotal", 10), ("18.50", 400)], [("Sales Tax 10.25%", 10), ("1.89", 400)], [("Tip", 10), ("3.00", 400)],
     [("TOTAL", 10), ("23.39", 400)]],
    [[("Subtotal", 10), ("32.00", 400)], [("Tax 8.875%", 10), ("2.84", 400)], [("Gratuity 20%", 10), ("6.40", 400)],
     [("Total", 10), ("41.24", 400)]],
    [[("Zwischensumme", 10), ("40,00", 400)], [("MwSt 19%", 10), ("7,60", 400)], [("Trinkgeld", 10), ("4,40", 400)],
     [("Summe", 10), ("52,00", 400)]],
    [[("Sous-total", 10), ("40,00", 400)], [("TVA 10%", 10), ("4,00", 400)], [("Pourboire", 10), ("5,00", 400)],
     [("TOTAL", 10), ("49,00", 400)]],
])
def test_a_receipt_with_a_service_charge_or_rounding_is_not_flagged(rows):
    fields = _receipt(rows)
    assert fields["subtotal"].value == rows[0][1][0].replace(",", ".")
    assert not _sum_codes(fields)


# ------------------------------------------------------------------------------------------------
# documents: the check stays strict


@pytest.mark.parametrize("rows", [
    # a total read lower than its subtotal (QA): no adjustment is printed, or none explains it
    [[("Subtotal", 10), ("26.50", 400)], [("Service Tax 6%", 10), ("1.59", 400)], [("Total", 10), ("20.10", 400)]],
    [[("Subtotal", 10), ("26.50", 400)], [("Service Charge 10%", 10), ("2.65", 400)],
     [("Service Tax 6%", 10), ("1.59", 400)], [("Total", 10), ("20.10", 400)]],
    [[("Subtotal", 10), ("26.50", 400)], [("Discount", 10), ("-1.00", 400)], [("Service Tax 6%", 10), ("1.59", 400)],
     [("Total", 10), ("20.10", 400)]],
    # an item discount above the subtotal and a delivery note below the total are no part of the totals block
    [[("Item discount", 10), ("-6.41", 400)], [("Subtotal", 10), ("26.50", 400)], [("Service Tax 6%", 10), ("1.59", 400)],
     [("Total", 10), ("21.68", 400)]],
    [[("Subtotal", 10), ("26.50", 400)], [("Service Tax 6%", 10), ("1.59", 400)], [("Total", 10), ("30.09", 400)],
     [("Delivery", 10), ("2.00", 400)]],
    # a "rounding" of a whole unit or more is no rounding
    [[("Subtotal", 10), ("26.50", 400)], [("Service Tax 6%", 10), ("1.59", 400)], [("Rounding", 10), ("-8.00", 400)],
     [("Total", 10), ("20.09", 400)]],
])
def test_the_sum_stays_strict_where_no_printed_adjustment_explains_it(rows):
    fields = _receipt(rows)
    assert Code.SUM_MISMATCH in {p.code for p in fields["total"].problems}
    assert fields["total"].needs_review


def test_the_clerks_edit_is_checked_with_the_printed_adjustments():
    """Re-validation after an edit (:mod:`desktop.core.review`) reads the adjustments from the pages too."""
    from desktop.core.model import Document
    from desktop.core.review import edited_document

    pages = synthetic_page(INVOICE_HEAD["en"] + _rows([("Subtotal:", "1,280.00"), ("Sales Tax (7%):", "89.60"),
                                                        ("Shipping:", "25.00"), ("Total:", "1,394.60")]), width=1000)
    doc = Document(source="x.pdf", document_type="invoice", fields=extract_fields(pages, "invoice").fields,
                   page_results=pages)
    after = edited_document(doc, "tax", "89.60")
    assert not after.fields["total"].problems
    wrong = edited_document(doc, "tax", "98.60")
    assert Code.SUM_MISMATCH in {p.code for p in wrong.fields["total"].problems}


# ------------------------------------------------------------------------------------------------
# the subtotal: the total without VAT (BT-109), never the amount payable


@pytest.mark.parametrize("lang, pairs, sub, due", [
    # the sum of the lines, a discount, then the net the tax is computed on
    ("en", [("Subtotal:", "$600.00"), ("Discount 10%:", "-$60.00"), ("Net:", "$540.00"), ("GST 10%:", "$54.00"),
            ("Total AUD:", "$594.00")], "540.00", None),
    # a withholding (ritenuta d'acconto, retención IRPF) comes off the amount payable, not the total
    ("it", [("Imponibile:", "1.000,00 €"), ("IVA 22%:", "220,00 €"), ("Totale documento:", "1.220,00 €"),
            ("Ritenuta d'acconto 20%:", "-200,00 €"), ("Netto a pagare:", "1.020,00 €")], "1000.00", "1020.00"),
    ("es", [("Base imponible", "1.000,00"), ("IVA 21%", "210,00"), ("Total factura", "1.210,00"),
            ("Retención IRPF 15%", "-150,00"), ("Total a pagar", "1.060,00")], "1000.00", "1060.00"),
    ("fr", [("Total HT", "720,00"), ("TVA 20 %", "144,00"), ("Total TTC", "864,00"),
            ("Retenue de garantie 5 %", "-43,20"), ("Net à payer", "820,80")], "720.00", "820.80"),
])
def test_the_subtotal_is_the_net_and_a_withholding_explains_the_amount_due(lang, pairs, sub, due):
    fields = _invoice(lang, pairs)
    assert fields["subtotal"].value == sub
    assert not _sum_codes(fields)
    if due is not None:
        assert fields["amount_due"].value == due
        assert not fields["amount_due"].problems


def test_payment_terms_net_30_are_no_subtotal():
    fields = _invoice("en", [("Terms: Net 30", ""), ("Subtotal", "200.00"), ("VAT 20%", "40.00"), ("Total", "240.00")])
    assert fields["subtotal"].value == "200.00"
