"""The names of sales taxes, by kind, on receipts and invoices: each tax printed with its rate and its
amount is read as the tax, and a total it explains is not flagged.

The names come from the shared label vocabulary (``resources/labels/amounts.json``, role ``tax``; its
``_comment`` gives the sources): VAT / TVA / MwSt. / USt. / BTW / IVA (EU VAT, as each language prints
it), GST, Sales Tax, and Canada's sales taxes (Canada Revenue Agency, Revenu Québec): GST / TPS (goods and
services tax), HST / TVH (harmonized sales tax), PST (provincial sales tax), QST / TVQ (Québec sales tax).
"""
from __future__ import annotations

import pytest

from desktop.core.extraction import extract_fields
from desktop.core.extraction.labels import label_pattern
from tests.pages import synthetic_page

_RECEIPT_HEAD = [[("MAPLE LEAF CAFE", 40)], [("123 King Street West", 40)], [("Date: 14/03/2025 12:41", 40)],
                 [("2 x Latte", 40), ("9.00", 420)], [("1 x Bagel", 40), ("13.00", 420)]]


@pytest.mark.parametrize("label, tax, total", [
    ("HST 8%", "1.76", "23.76"),          # Ontario, as QA's receipt prints it
    ("HST 13%", "2.86", "24.86"),
    ("GST 5%", "1.10", "23.10"),
    ("PST 7%", "1.54", "23.54"),
    ("QST 9.975%", "2.19", "24.19"),
    ("TPS 5%", "1.10", "23.10"),          # French: taxe sur les produits et services (GST)
    ("TVQ 9,975%", "2.19", "24.19"),      # French: taxe de vente du Québec (QST)
    ("TVH 13%", "2.86", "24.86"),         # French: taxe de vente harmonisée (HST)
    ("Sales Tax 8.25%", "1.82", "23.82"),
    ("VAT 20%", "4.40", "26.40"),
    ("MwSt 19%", "4.18", "26.18"),
    ("USt 7%", "1.54", "23.54"),
    ("TVA 20%", "4.40", "26.40"),
    ("BTW 21%", "4.62", "26.62"),
    ("IVA 22%", "4.84", "26.84"),
])
def test_a_receipts_sales_tax_with_its_rate(label, tax, total):
    rows = [*_RECEIPT_HEAD, [("SUBTOTAL", 40), ("22.00", 420)], [(label, 40), (tax, 420)], [("TOTAL", 40), (total, 420)]]
    fields = extract_fields(synthetic_page(rows), "receipt").fields
    assert fields["tax"].value == tax
    assert fields["total"].value == total and not fields["total"].needs_review
    assert fields["subtotal"].value == "22.00"


_INVOICE_HEAD = [[("Northern Lights Design Inc.", 40), ("INVOICE", 700)], [("Invoice No. NL-2207", 600)],
                 [("Invoice date 2025-03-02", 600)], [("Bill to", 40)], [("Lakeside Dental", 40)],
                 [("Logo design  1  1,000.00", 40)]]


@pytest.mark.parametrize("label, tax, total", [
    ("HST 13%", "130.00", "1,130.00"),
    ("GST 5%", "50.00", "1,050.00"),
    ("TPS 5%", "50.00", "1,050.00"),
    ("TVQ 9.975%", "99.75", "1,099.75"),
    ("Umsatzsteuer 19%", "190.00", "1,190.00"),
    ("Mehrwertsteuer 7%", "70.00", "1,070.00"),
])
def test_an_invoices_sales_tax_with_its_rate(label, tax, total):
    rows = [*_INVOICE_HEAD, [("Subtotal", 420), ("1,000.00", 760)], [(label, 420), (tax, 760)],
            [("Total", 420), (total, 760)]]
    fields = extract_fields(synthetic_page(rows, width=1000), "invoice").fields
    assert fields["tax"].value == tax.replace(",", "")
    assert fields["total"].value == total.replace(",", "")


@pytest.mark.parametrize("text", ["HST", "GST", "PST", "QST", "TPS", "TVQ", "TVH", "VAT", "TVA", "MwSt.", "USt.",
                                  "IVA", "BTW", "Sales Tax", "Mehrwertsteuer", "Umsatzsteuer"])
def test_the_tax_vocabulary_names_the_common_sales_taxes(text):
    assert label_pattern("tax").search(f"{text} 8%  1.76")


@pytest.mark.parametrize("text", ["Hostel", "Posted", "Steps", "Tvqx", "Bhstreet"])
def test_a_tax_name_inside_a_word_is_no_tax_label(text):
    assert not label_pattern("tax").search(text)


# Several sales taxes printed one under the other between the subtotal and the total: the tax is their
# sum where subtotal + sum = total (Canada's GST + PST and GST/TPS + QST/TVQ, a US state + county tax,
# two German VAT rates on one receipt)
@pytest.mark.parametrize("taxes, tax, total", [
    ([("GST 5%", "1.10"), ("PST 7%", "1.54")], "2.64", "24.64"),                 # British Columbia
    ([("TPS 5%", "1.10"), ("TVQ 9,975%", "2.19")], "3.29", "25.29"),             # Québec, in French
    ([("GST 5%", "1.10"), ("QST 9.975%", "2.19")], "3.29", "25.29"),             # Québec, in English
    ([("State Tax 6.25%", "1.38"), ("County Tax 1%", "0.22")], "1.60", "23.60"),  # US state + county
    ([("MwSt 7%", "0.84"), ("MwSt 19%", "1.90")], "2.74", "24.74"),              # two VAT rates
])
def test_a_receipts_several_sales_taxes_are_summed(taxes, tax, total):
    rows = [*_RECEIPT_HEAD, [("SUBTOTAL", 40), ("22.00", 420)], *[[(lab, 40), (v, 420)] for lab, v in taxes],
            [("TOTAL", 40), (total, 420)]]
    fields = extract_fields(synthetic_page(rows), "receipt").fields
    assert fields["tax"].value == tax
    assert fields["subtotal"].value == "22.00"
    assert not any(fields[n].needs_review for n in ("subtotal", "tax", "total"))


@pytest.mark.parametrize("taxes, tax, total", [
    # the sum does not make the total: one tax is read and the mismatch is flagged, never a sum
    ([("GST 5%", "1.10"), ("PST 7%", "1.54")], "1.10", "30.00"),
    # the same tax printed twice (a summary line repeating it) is not added to itself
    ([("GST 5%", "1.10"), ("GST 5%", "1.10")], "1.10", "23.10"),
])
def test_tax_rows_are_summed_only_when_the_sum_makes_the_total(taxes, tax, total):
    rows = [*_RECEIPT_HEAD, [("SUBTOTAL", 40), ("22.00", 420)], *[[(lab, 40), (v, 420)] for lab, v in taxes],
            [("TOTAL", 40), (total, 420)]]
    fields = extract_fields(synthetic_page(rows), "receipt").fields
    assert fields["tax"].value == tax
