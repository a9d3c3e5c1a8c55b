"""The totals block of invoices (:mod:`desktop.core.extraction.invoice_totals`), by kind and in English,
German, French and Dutch: a rate's base in the tax label is never the tax; tax rows of several rates
are summed; a subtotal is never the total beside a larger total; the amount due after a deposit; a
subtotal found as the total less the tax; sums that do not add up and fields the page prints but
nothing read are flagged."""
from __future__ import annotations

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import _not_a_smaller_subtotal, extract_fields
from desktop.core.extraction.amounts import find_amounts
from desktop.core.extraction.candidates import FieldCandidate
from desktop.core.extraction.invoice_totals import AMOUNT_DUE_LABEL, PAID_LABEL, strip_rate_base
from tests.pages import INVOICE_HEADS, synthetic_page

HEAD = INVOICE_HEADS


def _invoice(lang: str, totals: list[list[tuple[str, float]]]):
    return extract_fields(synthetic_page(HEAD[lang] + totals, width=1000), "invoice").fields


def _rows(pairs: list[tuple[str, str]]) -> list[list[tuple[str, float]]]:
    return [[(label, 420), (value, 760)] for label, value in pairs]


# ------------------------------------------------------------------------------------------------
# the stray mark OCR reads for a currency sign


@pytest.mark.parametrize("text, value", [(".322,46", "322.46"), (".48,41", "48.41"), (",48.41", "48.41"),
                                         (".1 038,01", "1038.01"), ("Totaal .3,60", "3.60")])
def test_a_stray_mark_before_an_amount_with_the_other_decimal_mark_is_no_part_of_it(text, value):
    assert [a.value for a in find_amounts(text)] == [value]


@pytest.mark.parametrize("text", [".50", "x.50", "1.234", "No.12,50"])
def test_a_mark_that_may_be_a_decimal_mark_or_glued_to_text_is_not_set_aside(text):
    # ".50" might be fifty cents and "1.234" a thousands group: nothing is read into them
    assert [a.value for a in find_amounts(text)] == {".50": [], "x.50": [], "1.234": ["1234.00"],
                                                      "No.12,50": []}[text]


# ------------------------------------------------------------------------------------------------
# a rate's base in the label


@pytest.mark.parametrize("label, stripped", [
    ("BTW 9% over 39,95", "BTW 9%"), ("BTW 21% over € 230,50", "BTW 21%"), ("TVA 20 % sur 785,00", "TVA 20 %"),
    ("MwSt. 19 % auf 1.000,00", "MwSt. 19 %"), ("VAT 20% on £150.00", "VAT 20%"), ("USt. 7 % aus 20,00 EUR", "USt. 7 %"),
    ("VAT 20%", "VAT 20%")])
def test_the_base_a_rate_applies_to_is_set_aside(label, stripped):
    assert strip_rate_base(label) == stripped


@pytest.mark.parametrize("lang, rows, tax, total", [
    # OCR read the euro sign before each amount as a full stop (a scanned Dutch invoice)
    ("nl", [("Subtotaal", ".270,45"), ("BTW 21% over 230,50", ".48,41"), ("BTW 9% over 39,95", ".3,60"),
            ("Totaal incl. BTW", ".322,46")], "52.01", "322.46"),
    ("fr", [("Total HT", "876,00"), ("TVA 20 % sur 785,00", "157,00"), ("TVA 5,5 % sur 91,00", "5,01"),
            ("Total TTC", "1 038,01")], "162.01", "1038.01"),
    ("de", [("Zwischensumme", "440,00"), ("MwSt. 19 % auf 340,00", "64,60"), ("MwSt. 7 % auf 100,00", "7,00"),
            ("Gesamtbetrag", "511,60")], "71.60", "511.60"),
    # one rate: its base in the label is still not the tax
    ("en", [("Subtotal", "150.00"), ("VAT 20% on 150.00", "30.00"), ("Total", "180.00")], "30.00", "180.00"),
])
def test_a_base_in_the_label_is_never_the_tax(lang, rows, tax, total):
    fields = _invoice(lang, _rows(rows))
    assert fields["tax"].value == tax
    assert fields["total"].value == total
    assert not fields["total"].problems and not fields["tax"].problems


# ------------------------------------------------------------------------------------------------
# tax rows of several rates, each with its tax alone


@pytest.mark.parametrize("lang, rows, sub, tax", [
    ("en", [("Net total", "£362.89"), ("VAT 20%", "£65.59"), ("VAT 0%", "£0.00"), ("Invoice total", "£428.48"),
            ("Amount due", "£428.48")], "362.89", "65.59"),
    ("de", [("Nettobetrag", "440,00 EUR"), ("USt. 19 %", "64,60 EUR"), ("USt. 7 %", "7,00 EUR"),
            ("Gesamtbetrag", "511,60 EUR")], "440.00", "71.60"),
    ("nl", [("Totaal excl. BTW", "€ 270,45"), ("BTW 21%", "€ 48,41"), ("BTW 9%", "€ 3,60"),
            ("Totaalbedrag", "€ 322,46")], "270.45", "52.01"),
])
def test_tax_rows_of_distinct_rates_are_summed(lang, rows, sub, tax):
    fields = _invoice(lang, _rows(rows))
    assert fields["tax"].value == tax
    assert fields["subtotal"].value == sub
    assert not fields["tax"].needs_review and not fields["total"].problems


# ------------------------------------------------------------------------------------------------
# the total and the amount due


def test_a_subtotal_label_never_wins_over_a_larger_total():
    def cand(value: str, **labels: float) -> FieldCandidate:
        return FieldCandidate("total", value, value, [], {"lab_total": 1.0, **labels})

    sub, grand = cand("270.45", lab_excl_tax=1.0), cand("322.46", lab_incl_tax=1.0)
    assert _not_a_smaller_subtotal([sub, grand]) == [grand]
    # a larger amount labelled as a subtotal too is no total: nothing is dropped then
    assert _not_a_smaller_subtotal([sub, cand("400.00", lab_excl_tax=1.0)]) == [sub, cand("400.00", lab_excl_tax=1.0)]


@pytest.mark.parametrize("lang, rows, total, due", [
    ("fr", [("Total HT", "876,00"), ("TVA 20 %", "175,20"), ("Total TTC", "1 051,20"), ("Acompte versé", "-300,00"),
            ("Net à payer", "751,20")], "1051.20", "751.20"),
    ("de", [("Nettobetrag", "500,00"), ("USt. 19 %", "95,00"), ("Gesamtbetrag", "595,00"), ("Anzahlung", "200,00"),
            ("Zu zahlen", "395,00")], "595.00", "395.00"),
    ("nl", [("Subtotaal", "100,00"), ("BTW 21%", "21,00"), ("Totaal incl. BTW", "121,00"),
            ("Aanbetaling", "-50,00"), ("Te betalen", "71,00")], "121.00", "71.00"),
    ("en", [("Subtotal", "200.00"), ("VAT 20%", "40.00"), ("Total", "240.00"), ("Deposit paid", "100.00"),
            ("Balance due", "140.00")], "240.00", "140.00"),
])
def test_the_amount_due_after_a_deposit_is_read_and_the_total_stays_the_total(lang, rows, total, due):
    fields = _invoice(lang, _rows(rows))
    assert fields["total"].value == total
    assert fields["amount_due"].value == due
    assert not fields["amount_due"].problems and not fields["total"].problems


@pytest.mark.parametrize("lang, rows, total, due", [
    # paid in full: a payment recorded on the invoice leaves a balance of nothing
    ("en", [("Subtotal", "6,000.00"), ("Sales tax (0%)", "0.00"), ("Total", "6,000.00"),
            ("Payment received 03/10/2026", "-6,000.00"), ("Balance due", "0.00")], "6000.00", "0.00"),
    ("en", [("Subtotal", "200.00"), ("VAT 20%", "40.00"), ("Total", "240.00"), ("Less payments", "-100.00"),
            ("Amount due", "140.00")], "240.00", "140.00"),
    ("de", [("Nettobetrag", "500,00"), ("USt. 19 %", "95,00"), ("Gesamtbetrag", "595,00"),
            ("Zahlungseingang 12.03.2026", "-200,00"), ("Zu zahlen", "395,00")], "595.00", "395.00"),
    ("fr", [("Total HT", "876,00"), ("TVA 20 %", "175,20"), ("Total TTC", "1 051,20"), ("Paiement reçu", "-300,00"),
            ("Net à payer", "751,20")], "1051.20", "751.20"),
    ("nl", [("Subtotaal", "100,00"), ("BTW 21%", "21,00"), ("Totaal incl. BTW", "121,00"),
            ("Ontvangen betaling", "-50,00"), ("Te betalen", "71,00")], "121.00", "71.00"),
])
def test_a_payment_received_explains_the_amount_due(lang, rows, total, due):
    fields = _invoice(lang, _rows(rows))
    assert fields["total"].value == total
    assert fields["amount_due"].value == due
    assert not fields["amount_due"].problems and not fields["amount_due"].needs_review


@pytest.mark.parametrize("text", ["Payment received 03/10/2025", "Payments/Credits", "Amount received", "Erhaltene Zahlung",
                                  "Règlement reçu", "Betaling ontvangen", "Pago recibido", "Pagamento ricevuto",
                                  "Pagamento recebido", "Deposit", "Anzahlung", "Acompte versé"])
def test_paid_amount_labels(text):
    assert PAID_LABEL.search(text)


@pytest.mark.parametrize("text", ["Payment terms: Net 15", "Payment details", "Received by", "Unpaid balance"])
def test_a_payment_heading_is_no_paid_amount_label(text):
    assert not PAID_LABEL.search(text)


def test_an_amount_due_no_paid_amount_explains_is_flagged():
    fields = _invoice("en", _rows([("Subtotal", "200.00"), ("VAT 20%", "40.00"), ("Total", "240.00"),
                                   ("Balance due", "140.00")]))
    assert fields["amount_due"].value == "140.00"
    assert [p.code for p in fields["amount_due"].problems] == [Code.AMOUNT_DUE_UNEXPLAINED]
    assert fields["amount_due"].needs_review


@pytest.mark.parametrize("label", ["Amount due", "Balance due", "Net à payer", "Reste à payer", "Zu zahlen",
                                   "Zahlbetrag", "Te betalen", "Nog te betalen", "Importe a pagar", "Da pagare"])
def test_amount_due_labels(label):
    assert AMOUNT_DUE_LABEL.search(label)


@pytest.mark.parametrize("text", ["Te betalen voor 4 maart 2026", "Gelieve binnen 30 dagen te betalen op NL91",
                                  "Amount due by 02/04/2026"])
def test_a_due_date_or_a_sentence_is_no_amount_due_label(text):
    assert not AMOUNT_DUE_LABEL.search(text)


# ------------------------------------------------------------------------------------------------
# no subtotal read: the total and the tax checked against the printed amounts


def test_the_net_printed_under_an_unknown_label_is_the_subtotal():
    fields = _invoice("en", _rows([("Goods value", "100.00"), ("VAT 20%", "20.00"), ("Total", "120.00")]))
    assert fields["subtotal"].value == "100.00"
    assert fields["subtotal"].boxes  # read from the page, with its box: not computed
    assert not fields["total"].problems


def test_a_total_and_tax_whose_difference_is_printed_nowhere_are_flagged():
    fields = _invoice("en", _rows([("VAT 20%", "20.00"), ("Total", "120.00")]))
    assert fields["subtotal"].value is None
    assert fields["subtotal"].needs_review  # the invoice has a tax, so it has a subtotal nothing read
    for name in ("total", "tax"):
        assert [p.code for p in fields[name].problems] == [Code.NET_NOT_PRINTED]
        assert fields[name].needs_review


def test_a_zero_tax_asks_for_no_subtotal():
    fields = _invoice("en", _rows([("VAT 0%", "0.00"), ("Total", "120.00")]))
    assert fields["subtotal"].value is None and not fields["subtotal"].needs_review
    assert not fields["total"].problems


def test_an_amount_due_label_with_nothing_read_flags_the_empty_field():
    rows = _rows([("Subtotal", "200.00"), ("VAT 20%", "40.00"), ("Total", "240.00")]) + [[("Amount due", 420)]]
    fields = _invoice("en", rows)
    assert fields["amount_due"].value is None and fields["amount_due"].needs_review


def test_a_text_layer_row_with_the_base_in_its_label_and_the_tax_after_it():
    # one text line holds label, base and tax: the base is set aside, the tax stays
    fields = _invoice("nl", [[("Subtotaal 270,45", 420)], [("BTW 21% over 230,50 48,41", 420)],
                             [("BTW 9% over 39,95 3,60", 420)], [("Totaal incl. BTW 322,46", 420)]])
    assert (fields["subtotal"].value, fields["tax"].value, fields["total"].value) == ("270.45", "52.01", "322.46")


@pytest.mark.parametrize("lang, heading, buyer", [
    ("fr", "Facturé à", "Boulangerie Duval"), ("fr", "Adresse de facturation", "Boulangerie Duval"),
    ("de", "Rechnung an", "Praxis Dr. Lehmann"), ("nl", "Gefactureerd aan", "Bakkerij De Molen"),
    ("en", "Invoice to", "Greenway Dental Practice")])
def test_a_billing_heading_is_no_buyer_name(lang, heading, buyer):
    head = [row if row[0][0] not in ("Bill to", "Rechnung an", "Facturé à", "Factuuradres") else [(heading, 40)]
            for row in HEAD[lang]]
    fields = extract_fields(synthetic_page(head + _rows([("Total", "100,00")]), width=1000), "invoice").fields
    assert fields["buyer_name"].value == buyer


def test_the_subtotal_the_clerk_types_settles_the_total_and_the_tax():
    from desktop.core.model import Document
    from desktop.core.review import edited_document

    pages = synthetic_page(HEAD["en"] + _rows([("VAT 20%", "20.00"), ("Total", "120.00")]), width=1000)
    fields = extract_fields(pages, "invoice").fields
    doc = Document(source="x.pdf", document_type="invoice", fields=fields, page_results=pages)
    after = edited_document(doc, "subtotal", "100.00")
    for name in ("total", "tax"):
        assert not after.fields[name].problems and not after.fields[name].needs_review
