"""Multi-rate VAT breakdowns of invoices (:mod:`desktop.core.extraction.vat_breakdown`), by kind, in
German, French, English and Dutch: the tax is the sum of the rates' taxes and the subtotal that of
their bases; a single rate reads as before; one rate's base is never a confident subtotal."""
from __future__ import annotations

from decimal import Decimal

import pytest

from desktop.core.extraction import extract_fields
from desktop.core.extraction.layout import Layout
from desktop.core.extraction.vat_breakdown import breakdown_row, find_vat_breakdown
from tests.pages import synthetic_page

# (language, title row, number row, table heading (rate, base, tax), rows [(rate, base, tax)], total label, total)
TABLES = [
    ("de", "Rechnung", "Rechnungsnummer: RE-2025-0042", ("Steuersatz", "Netto", "MwSt."),
     [("19 %", "100,00", "19,00"), ("7 %", "50,00", "3,50")], "Gesamtbetrag", "172,50 EUR"),
    ("fr", "Facture", "Facture n° F-2025-117", ("Taux TVA", "Base HT", "Montant TVA"),
     [("20 %", "1 200,00", "240,00"), ("5,5 %", "300,00", "16,50")], "Total TTC", "1 756,50 €"),
    ("en", "Invoice", "Invoice No: INV-88812", ("VAT rate", "Net amount", "VAT"),
     [("20%", "412.50", "82.50"), ("5%", "80.00", "4.00"), ("0%", "15.00", "0.00")], "Total", "594.00"),
    ("nl", "Factuur", "Factuurnummer: 2025-3310", ("BTW %", "Grondslag", "BTW-bedrag"),
     [("21%", "€ 250,00", "€ 52,50"), ("9%", "€ 120,00", "€ 10,80")], "Te betalen", "€ 433,30"),
]


def _table_page(title, number, heading, rates, total_label, total, between=()):
    rows = [[("Nordlicht Handel GmbH", 40)], [("Hauptstraße 1, 10115 Berlin", 40)], [(title, 40)],
            [(number, 40), ("Datum: 12.03.2025", 600)], [("Beratung  1  100,00", 40)],
            [(heading[0], 400), (heading[1], 560), (heading[2], 760)]]
    rows += [[(r, 400), (b, 560), (t, 760)] for r, b, t in rates]
    rows += [list(x) for x in between]
    rows += [[(total_label, 400), (total, 760)]]
    return synthetic_page(rows, width=1000)


def _sums(rates):
    def d(s):
        return Decimal(s.replace("€", "").replace(" ", "").replace(".", "").replace(",", ".")) if "," in s \
            else Decimal(s.replace(",", ""))
    return str(sum(d(b) for _r, b, _t in rates)), str(sum(d(t) for _r, _b, t in rates))


@pytest.mark.parametrize("lang, title, number, heading, rates, total_label, total", TABLES, ids=[t[0] for t in TABLES])
def test_a_multi_rate_table_is_summed(lang, title, number, heading, rates, total_label, total):
    fields = extract_fields(_table_page(title, number, heading, rates, total_label, total), "invoice").fields
    base_sum, tax_sum = _sums(rates)
    assert fields["tax"].value == tax_sum
    assert fields["subtotal"].value == base_sum
    # the sums agree with the total: shown as likely right, and the totals check passes
    assert not fields["tax"].needs_review and not fields["subtotal"].needs_review
    assert not fields["total"].problems


INLINE = [
    ("de", ["MwSt. 19 % auf 1.000,00", "MwSt. 7 % auf 200,00"], ["190,00", "14,00"], "Rechnungsbetrag", "1.404,00"),
    ("fr", ["TVA 20 % sur 500,00", "TVA 10 % sur 80,00"], ["100,00", "8,00"], "Net à payer", "688,00"),
    ("en", ["VAT 20% on 150.00", "VAT 5% on 40.00"], ["30.00", "2.00"], "Amount due", "222.00"),
    ("nl", ["BTW 21% over € 300,00", "BTW 9% over € 100,00"], ["€ 63,00", "€ 9,00"], "Totaal incl. BTW", "€ 472,00"),
]


@pytest.mark.parametrize("lang, labels, taxes, total_label, total", INLINE, ids=[t[0] for t in INLINE])
def test_rate_rows_with_their_base_in_the_label_are_summed(lang, labels, taxes, total_label, total):
    rows = [[("Atlas Media B.V.", 40)], [("Invoice / Rechnung / Facture / Factuur", 40)],
            [("Invoice No: 2025-0007", 40)], [("Consulting 4 h  100,00", 40)]]
    rows += [[(label, 400), (t, 760)] for label, t in zip(labels, taxes)]
    rows += [[(total_label, 400), (total, 760)]]
    fields = extract_fields(synthetic_page(rows, width=1000), "invoice").fields
    tax_sum = str(sum(Decimal(t.replace("€", "").strip().replace(".", "").replace(",", ".")) if "," in t
                      else Decimal(t) for t in taxes))
    assert fields["tax"].value == tax_sum
    assert fields["subtotal"].value is not None and not fields["total"].problems


@pytest.mark.parametrize("lang, title, number, heading, rates, total_label, total", TABLES, ids=[t[0] for t in TABLES])
def test_one_rates_base_is_never_a_confident_subtotal(lang, title, number, heading, rates, total_label, total):
    # the total does not add up with the rows (a document discount, a misread total): whatever is chosen
    # is flagged, and a row's base is not shown as the subtotal
    page = _table_page(title, number, heading, rates, total_label, "9.999,99" if lang != "en" else "9,999.99")
    fields = extract_fields(page, "invoice").fields
    bases = {_sums([r])[0] for r in rates}
    sub = fields["subtotal"]
    assert sub.value is None or sub.needs_review
    assert sub.value not in bases
    assert fields["tax"].needs_review


def test_printed_net_and_vat_totals_under_the_table_are_kept():
    rates = [("19 %", "100,00", "19,00"), ("7 %", "50,00", "3,50")]
    between = [[("Summe netto", 400), ("150,00", 760)], [("Summe MwSt.", 400), ("22,50", 760)]]
    page = _table_page("Rechnung", "Rechnungsnummer: 77", ("Satz", "Netto", "MwSt."), rates, "Gesamtbetrag", "172,50",
                       between)
    fields = extract_fields(page, "invoice").fields
    assert (fields["subtotal"].value, fields["tax"].value) == ("150.00", "22.50")
    assert fields["subtotal"].raw == "150,00" and not fields["subtotal"].needs_review


SINGLE = [
    ("de", [("Zwischensumme", "100,00"), ("MwSt. 19 %", "19,00"), ("Gesamtbetrag", "119,00")]),
    ("fr", [("Total HT", "200,00"), ("TVA 20 %", "40,00"), ("Total TTC", "240,00")]),
    ("en", [("Subtotal", "50.00"), ("VAT 20%", "10.00"), ("Total", "60.00")]),
    ("nl", [("Subtotaal", "€ 80,00"), ("BTW 21%", "€ 16,80"), ("Totaal", "€ 96,80")]),
]


@pytest.mark.parametrize("lang, totals", SINGLE, ids=[t[0] for t in SINGLE])
def test_a_single_rate_invoice_reads_as_before(lang, totals, monkeypatch):
    rows = [[("Kestrel Systems Ltd", 40)], [("Invoice No: 4711", 40)], [("Support 1 x", 40)]]
    rows += [[(label, 400), (v, 760)] for label, v in totals]
    page = synthetic_page(rows, width=1000)
    with_rule = extract_fields(page, "invoice").fields
    from desktop.core.extraction import invoice

    monkeypatch.setattr(invoice, "apply_breakdown", lambda _b, sub, tax, *_a: (sub, tax))
    without = extract_fields(page, "invoice").fields
    for name in ("subtotal", "tax", "total"):
        assert (with_rule[name].value, with_rule[name].confidence) == (without[name].value, without[name].confidence)
    assert with_rule["tax"].value is not None


@pytest.mark.parametrize("row, rate", [
    (["19 %", "100,00", "19,00"], "19"), (["TVA 5,5 % 543,00 € 29,87 €"], "5.5"), (["BTW 9%", "€ 120,00", "€ 10,80"], "9"),
    (["VAT 20% on 1,234.56", "246.91"], "20"), (["0%", "15.00", "0.00"], "0"),
    (["MwSt.7 % auf 3.346,02", "234,22"], "7"),  # OCR dropped the space after the label's full stop
])
def test_a_breakdown_row(row, rate):
    page = synthetic_page([[(t, 40 + 200 * k) for k, t in enumerate(row)]], width=1000)
    got = breakdown_row(Layout(page).lines)
    assert got is not None and got.rate == Decimal(rate)


@pytest.mark.parametrize("row", [
    ["Skonto 2 %", "100,00", "2,00"],              # a cash discount, not a VAT rate
    ["19 %", "100,00", "25,00"],                   # the second amount is not the first times the rate
    ["Rabatt 10 %", "50,00", "5,00"],              # a discount at a rate that is also a VAT rate
    ["Beratung 19 %", "279,71", "2.517,39"],       # an item row: unit price and amount
    ["1 %", "100,00", "1,00"],                     # no VAT rate anywhere
    ["1.5 %", "100,00", "5,00"],                   # "5 %" is the tail of 1.5 %, no rate
])
def test_not_a_breakdown_row(row):
    page = synthetic_page([[(t, 40 + 200 * k) for k, t in enumerate(row)]], width=1000)
    assert breakdown_row(Layout(page).lines) is None


def test_item_rows_that_repeat_a_rate_are_not_the_breakdown():
    # items printing their own tax (19, 7, 19), then the breakdown (19, 7): the breakdown is the last block
    rows = [[("Item A", 40), ("19 %", 400), ("10,00", 560), ("1,90", 760)],
            [("Item B", 40), ("7 %", 400), ("20,00", 560), ("1,40", 760)],
            [("Item C", 40), ("19 %", 400), ("30,00", 560), ("5,70", 760)],
            [("19 %", 400), ("40,00", 560), ("7,60", 760)],
            [("7 %", 400), ("20,00", 560), ("1,40", 760)]]
    got = find_vat_breakdown(Layout(synthetic_page(rows, width=1000)))
    assert got is not None and (got.base_sum, got.tax_sum) == ("60.00", "9.00")


def test_a_row_whose_rate_ocr_misread_joins_the_table():
    # "9 %" read as "%6": the row's amounts stand in the table's columns and their ratio is another rate
    rows = [[("BTW %", 400), ("Grondslag", 560), ("BTW-bedrag", 760)],
            [("21 %", 400), ("5.058,41", 560), ("1.062,27", 760)],
            [("%6", 400), ("170,59", 560), ("15,35", 760)],
            [("Totaal incl. BTW", 400), ("6.306,62", 760)]]
    fields = extract_fields(synthetic_page(rows, width=1000), "invoice").fields
    assert (fields["subtotal"].value, fields["tax"].value) == ("5229.00", "1077.62")
    assert not fields["tax"].needs_review


def test_an_unlabelled_sum_row_under_the_table_is_no_rate():
    rows = [[("19 %", 400), ("100,00", 560), ("19,00", 760)],
            [("7 %", 400), ("50,00", 560), ("3,50", 760)],
            [("150,00", 560), ("22,50", 760)]]  # the column sums: 22.50 / 150.00 is 15 %, a rate elsewhere
    got = find_vat_breakdown(Layout(synthetic_page(rows, width=1000)))
    assert got is not None and (got.base_sum, got.tax_sum) == ("150.00", "22.50")
