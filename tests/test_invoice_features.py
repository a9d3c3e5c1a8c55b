"""Invoice candidate features (:mod:`desktop.core.extraction.invoice_features`): EN 16931 business
terms in six languages, column headers over values, and the totals arithmetic, by kind."""
from __future__ import annotations

import pytest

from desktop.core.extraction import candidate_sets
from desktop.core.extraction.invoice_features import amount_terms
from tests.pages import synthetic_page


@pytest.mark.parametrize("label, term", [
    # BT-109 invoice total without VAT
    ("Total HT", "net_total"), ("Nettobetrag", "net_total"), ("Total excl. VAT", "net_total"),
    ("Totaal excl. BTW", "net_total"), ("Imponibile", "net_total"), ("Base imponible", "net_total"),
    # BT-110 invoice total VAT amount
    ("Total TVA", "vat_total"), ("Summe Umsatzsteuer", "vat_total"), ("VAT amount", "vat_total"),
    ("BTW-bedrag", "vat_total"), ("Totale IVA", "vat_total"), ("Cuota IVA", "vat_total"),
    # BT-112 invoice total with VAT
    ("Total TTC", "grand_total"), ("Gesamtsumme brutto", "grand_total"), ("Invoice total", "grand_total"),
    ("Totaal incl. BTW", "grand_total"), ("Totale fattura", "grand_total"), ("Importe total", "grand_total"),
    ("Endbetrag", "grand_total"),
    # BT-113 paid amount
    ("Acompte", "paid"), ("Erhaltene Anzahlungen", "paid"), ("Amount paid", "paid"),
    ("Reeds betaald", "paid"), ("Acconto", "paid"), ("Importe pagado", "paid"),
    # BT-115 amount due for payment
    ("NET À PAYER", "due"), ("Zahlbetrag", "due"), ("Amount due", "due"), ("Te betalen", "due"),
    ("Importo da pagare", "due"), ("Total a pagar", "due"),
    # BT-106 sum of line net amounts, BT-114 rounding
    ("Positionssumme", "line_net"), ("Total des lignes", "line_net"), ("Sum of invoice line net amount", "line_net"),
    ("Rundungsbetrag", "rounding"), ("Arrondi", "rounding"), ("Afronding", "rounding"),
])
def test_amount_terms(label, term):
    assert term in amount_terms(label)


@pytest.mark.parametrize("label, term", [("Nettopreis", "grand_total"), ("Date d'échéance", "due"),
                                         ("Zahlbar bis", "paid"), ("Bruttopreis", "net_total")])
def test_amount_terms_leave_other_words_alone(label, term):
    assert term not in amount_terms(label)


def _cands(rows, doc_type="invoice", field="total"):
    return candidate_sets(synthetic_page(rows, width=1000), doc_type)[field]


def _values(cands):
    return sorted({c.value for c in cands})


# a totals table: the terms are column headers, the values in the row below them (en, de, fr, nl, it, es)
HEADERS = [
    ("Net total", "VAT", "Invoice total"),
    ("Nettobetrag", "MwSt-Betrag", "Endbetrag"),
    ("TOTAL HT", "TOTAL TVA", "TOTAL TTC"),
    ("Totaal excl. BTW", "BTW", "Totaal incl. BTW"),
    ("Imponibile", "IVA", "Totale fattura"),
    ("Base imponible", "IVA", "Importe total"),
]


@pytest.mark.parametrize("net, vat, gross", HEADERS)
def test_a_column_header_names_the_term_of_the_value_below(net, vat, gross):
    rows = [[("Muster GmbH", 40)], [("Rechnung Nr. 4711", 40)],
            [(net, 400), (vat, 600), (gross, 800)],
            [("Payment within 30 days of the date of this invoice, without deduction.", 20)],
            [("100,00", 400), ("19,00", 600), ("119,00", 800)]]
    cands = _cands(rows)
    assert _values(cands) == ["119.00"]  # the only amount named BT-112 that BR-CO-15 confirms
    c = cands[0]
    assert c.features["col_grand_total"] == 1.0 and c.features["eq_net_vat"] == 1.0
    assert c.features["eq_row_sum"] == 1.0


@pytest.mark.parametrize("paid, due", [("Acompte :", "NET A PAYER"), ("Erhaltene Anzahlung", "Zahlbetrag"),
                                       ("Prepaid amount", "Amount due"), ("Reeds betaald", "Te betalen"),
                                       ("Acconto", "Netto a pagare"), ("Anticipo", "Total a pagar")])
def test_the_amount_due_after_a_prepayment_is_not_the_total(paid, due):
    rows = [[("Muster GmbH", 40)], [("Rechnung Nr. 4711", 40)],
            [("TOTAL HT", 20), ("100,00", 500)], [("TOTAL TVA", 20), ("20,00", 500)],
            [("TOTAL TTC", 20), ("120,00", 500)], [(paid, 20), ("20,00", 500)], [(due, 20), ("100,00 EUR", 500)]]
    cands = _cands(rows)
    assert "120.00" in _values(cands)
    assert not any(c.features.get("bt_due") for c in cands)  # BR-CO-16: BT-115 = BT-112 - BT-113


def test_without_a_prepayment_the_amount_due_stays_a_candidate():
    rows = [[("Muster GmbH", 40)], [("Rechnung Nr. 4711", 40)],
            [("Nettobetrag", 20), ("100,00", 500)], [("MwSt 19%", 20), ("19,00", 500)],
            [("Zahlbetrag", 20), ("119,00", 500)]]
    cands = _cands(rows)
    assert any(c.value == "119.00" and c.features["bt_due"] for c in cands)


def test_the_totals_row_of_a_per_rate_table_sits_under_its_header_in_one_text_line():
    # a text-layer line holding the whole header row, values in one line per rate and a sum row
    header = "Warenwert Nettobetrag MwSt-Betrag Endbetrag"
    values = f"{'-7,90':<9} {'-7,67':^11} {'-1,12':^11} {'-8,79':>9}"  # one line as wide as the header's
    assert len(values) == len(header)
    rows = [[("Muster GmbH", 40)], [(header, 300)], [(values, 300)]]
    cands = _cands(rows)
    c = [c for c in cands if c.value == "-8.79"]
    assert c and c[0].features["col_grand_total"] == 1.0


@pytest.mark.parametrize("gross", ["Gesamtwert brutto", "Total TTC", "Invoice total"])
def test_a_whole_number_under_a_total_header_is_an_invoice_amount(gross):
    rows = [[("DKV Euro Service GmbH", 40)], [("Rechnung Nr. 21/001", 40)],
            [("Netto", 400), ("USt.", 600), (gross, 800)],
            [("23.440", 400), ("6.329", 600), ("29.769", 800)],
            [("45.740", 400), ("12.350", 600), ("58.090", 800)],
            [("69.180", 400), ("18.679", 600), ("87.859", 800)]]
    assert "87859.00" in _values(_cands(rows))
    # a receipt keeps its rule: a bare whole number without a label is no amount of money
    assert "87859.00" not in _values(_cands(rows, "receipt"))


def test_receipts_get_no_invoice_features():
    rows = [[("SHOP SDN BHD", 100)], [("TOTAL", 20), ("10.60", 400)]]
    assert not any(k.startswith(("bt_", "col_")) for c in _cands(rows, "receipt") for k in c.features)
