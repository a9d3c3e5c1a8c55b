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


# -- dates -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("title", ["Rechnung Nr. 4711 vom", "Handelsrechnung (380) Nr. R18-31 vom",
                                   "Facture n° F-12 du", "Invoice No. INV-12 of", "Factuur nr. 2024-7 van",
                                   "Fattura n. 12/A del", "Factura n.º 45 de"])
def test_the_date_after_the_documents_title_and_number_is_marked(title):
    rows = [[("Muster GmbH", 40)], [(f"{title} 01.10.2018", 40)], [("Lieferdatum: 29.09.2018", 40)]]
    cands = _cands(rows, field="date")
    c = [c for c in cands if c.value == "2018-10-01"]
    assert c and c[0].features["dt_title_number"] == 1.0


@pytest.mark.parametrize("label, term", [
    ("Invoice date:", "issue"), ("Rechnungsdatum:", "issue"), ("Date de facture", "issue"), ("Factuurdatum", "issue"),
    ("Data fattura", "issue"), ("Fecha de factura", "issue"),
    ("Due date:", "due"), ("Fälligkeitsdatum:", "due"), ("Date d'échéance :", "due"), ("Vervaldatum", "due"),
    ("Data di scadenza", "due"), ("Fecha de vencimiento", "due"),
    ("Delivery date:", "delivery"), ("Liefer- und Leistungsdatum:", "delivery"), ("Date de livraison", "delivery"),
    ("Leverdatum", "delivery"), ("Data di consegna", "delivery"), ("Fecha de entrega", "delivery"),
])
def test_date_label_terms(label, term):
    rows = [[("Muster GmbH", 40)], [("Rechnung Nr. 4711", 40)], [(label, 40), ("03.06.2025", 400)]]
    cands = _cands(rows, field="date")
    assert cands and cands[0].features[f"dt_{term}"] == 1.0


def test_a_label_glued_to_the_date_before_it_still_names_its_date():
    rows = [[("FACTURE", 40)], [("N° FA-2026-0001", 40)], [("Date:20260815·Échéance:20260914", 40)]]
    by = {c.value: c for c in _cands(rows, field="date")}
    assert by["2026-09-14"].features["dt_due"] == 1.0 and by["2026-08-15"].features["dt_due"] == 0.0


@pytest.mark.parametrize("version", ["Stylesheet-Version: 2.0 vom 18.10.2018", "ZUGFeRD-Version : 2.1 vom 18.10.2018",
                                     "Copyright (c) 18.10.2018", "Version du formulaire : 18/10/2018"])
def test_a_version_date_is_no_invoice_date(version):
    rows = [[(version, 40)], [("Rechnung Nr. 4711 vom 01.10.2018", 40)]]
    assert _values(_cands(rows, field="date")) == ["2018-10-01"]


@pytest.mark.parametrize("row, is_range", [("vom 01.12.2025 - RECHNUNG", False), ("01.11.2025 bis 30.11.2025", True),
                                           ("Période 01/11/2025 - 30/11/2025", True), ("01.12.2025 – Kopie", False)])
def test_a_dash_makes_a_range_only_before_another_date(row, is_range):
    rows = [[("Muster GmbH", 40)], [(row, 40)], [("Datum: 02.12.2025", 40)]]
    cands = candidate_sets(synthetic_page(rows, width=1000), "receipt")["date"]
    assert ("2025-12-01" in _values(cands) or "2025-11-01" in _values(cands)) is not is_range


# -- vendor name -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, party", [
    ("Verkäufer", "seller"), ("Informationen zum Verkäufer", "seller"), ("Seller", "seller"), ("Émetteur", "seller"),
    ("Fournisseur", "seller"), ("Leverancier", "seller"), ("Fornitore", "seller"), ("Proveedor", "seller"),
    ("Käufer/Leistungsempfänger", "buyer"), ("Bill to:", "buyer"), ("Adresse du client", "buyer"), ("Klant", "buyer"),
    ("Cliente", "buyer"), ("Destinataire", "buyer"),
    ("Abweichender Warenempfänger", "other"), ("Ship to", "other"), ("Représentant fiscal", "other"),
    ("Seller Company", ""), ("Lieferanten-Str. 12", ""), ("Kundennummer: 4711", ""),
])
def test_party_headings(text, party):
    from desktop.core.extraction.invoice_features import party_heading

    assert party_heading(text) == party


@pytest.mark.parametrize("seller, buyer, name, contact", [
    ("Verkäufer", "Käufer", "Name:", "Ansprechpartner:"),
    ("Seller", "Buyer", "Name:", "Contact:"),
    ("Vendeur", "Acheteur", "Raison sociale :", "Contact :"),
    ("Verkoper", "Koper", "Naam:", "Contactpersoon:"),
    ("Fornitore", "Cliente", "Ragione sociale:", "Referente:"),
    ("Proveedor", "Cliente", "Razón social:", "Persona de contacto:"),
])
def test_the_seller_is_the_name_in_the_sellers_block(seller, buyer, name, contact):
    rows = [[("Rechnung Nr. 4711 vom 01.10.2018", 40)],
            [(seller, 40)], [(name, 40), ("Tischlerei Holz", 300)], [(contact, 40), ("Erika Mustermann", 300)],
            [("Musterweg 1, 12345 Musterstadt", 40)],
            [(buyer, 40)], [(name, 40), ("Kunde und Partner", 300)], [(contact, 40), ("Hans Kunde", 300)]]
    assert _values(_cands(rows, field="vendor_name")) == ["Tischlerei Holz"]


def test_the_first_name_under_a_seller_heading_opens_its_block():
    rows = [[("LOGO LE FOURNISSEUR", 40), ("FACTURE N° F-1", 600)],
            [("SELLER TRADE NAME", 40), ("Adresse du Client", 600)],
            [("LE FOURNISSEUR", 40)], [("35 rue d'ici", 40), ("LE CLIENT", 600)], [("75018 PARIS, FR", 40)]]
    assert _values(_cands(rows, field="vendor_name")) == ["LE FOURNISSEUR"]


@pytest.mark.parametrize("net, vat, gross", HEADERS)
def test_the_sum_row_of_a_per_rate_table_is_the_total(net, vat, gross):
    # EN 16931 BG-23: one row per VAT rate, then the row that adds them up
    rows = [[("Muster GmbH", 40)], [("Rechnung Nr. 4711", 40)],
            [(net, 400), (vat, 600), (gross, 800)],
            [("326,50", 400), ("62,04", 600), ("388,54", 800)],
            [("130,70", 400), ("9,15", 600), ("139,85", 800)],
            [("457,20", 400), ("71,19", 600), ("528,39", 800)]]
    cands = _cands(rows)
    assert _values(cands) == ["528.39"]
    assert cands[0].features["eq_col_sum"] == 1.0


def test_a_labelled_amount_keeps_its_own_label_under_a_block_heading():
    # "Gesamtbeträge der Rechnung" heads a block of labelled amounts: it names none of them
    rows = [[("Muster GmbH", 40)], [("Rechnung Nr. 4711", 40)], [("Gesamtbeträge der Rechnung", 40)],
            [("Summe netto", 40), ("100,00", 500)], [("Summe Umsatzsteuer", 40), ("19,00", 500)],
            [("Gesamtsumme brutto", 40), ("119,00", 500)], [("Rundungsbetrag", 40), ("0,81", 500)],
            [("Fälliger Betrag", 40), ("119,81", 500)]]
    by = {c.value: c for c in _cands(rows)}
    assert by["119.00"].features["bt_grand_total"] == 1.0
    assert "0.81" not in by or by["0.81"].features["col_grand_total"] == 0.0


@pytest.mark.parametrize("paid, rounding, due", [
    ("Gezahlter Betrag brutto", "Rundungsbetrag brutto", "Fälliger Betrag brutto"),
    ("Acompte TTC", "Arrondi TTC", "Net à payer TTC"),
    ("Amount paid incl. VAT", "Rounding incl. VAT", "Amount due incl. VAT"),
])
def test_an_amount_named_rounding_or_paid_is_not_the_total_whatever_else_its_label_says(paid, rounding, due):
    # BR-CO-16: due 8120 = total 8410 - paid 500 + rounding 210; 210 also happens to be 400 net + -190 VAT
    rows = [[("EntServ GmbH", 40)], [("Rechnung Nr. 4711", 40)],
            [("Gesamtsumme netto", 40), ("7.900,00", 500)], [("Summe Umsatzsteuer", 40), ("510,00", 500)],
            [("Gesamtsumme brutto", 40), ("8.410,00", 500)], [(paid, 40), ("500,00", 500)],
            [(rounding, 40), ("210,00", 500)], [(due, 40), ("8.120,00", 500)],
            [("Umsatzsteuerkategorie S", 40)], [("Gesamtsumme netto", 40), ("400,00", 500)],
            [("Umsatzsteuerbetrag", 40), ("-190,00", 500)]]
    values = _values(_cands(rows))
    assert "8410.00" in values and "210.00" not in values and "8120.00" not in values
@pytest.mark.parametrize("sender, name", [
    ("DKV EURO SERVICE GmbH + Co.KG, Balcke-Dürr-Allee 3, D-40882 Ratingen, Tel.: +49 2102 5518-0",
     "DKV EURO SERVICE GmbH + Co. KG"),
    ("Muster GmbH, Hauptstr. 1, 10115 Berlin", "Muster GmbH"),
    ("Dupont SARL, 12 rue de la Paix, 75002 Paris", "Dupont SARL"),
    ("Acme Ltd, 1 High Street, London", "Acme Ltd"),
    ("Janssen B.V., Kerkstraat 1, 1000 AB Amsterdam", "Janssen B.V."),
    ("Rossi SRL, Via Roma 1, 20121 Milano", "Rossi SRL"),
])
def test_a_name_ending_in_its_legal_form_before_a_comma_is_a_candidate(sender, name):
    rows = [[("Rechnung Nr. 4711", 40)], [("Positionen", 40)], [(sender, 40)]]
    assert name in _values(_cands(rows, field="vendor_name"))


@pytest.mark.parametrize("sender, seller, recipient", [
    ("Muster GmbH · Hauptstr. 1 · 10115 Berlin", "Muster GmbH", "Kunde und Partner AG"),
    ("Dupont SARL • 12 rue de la Paix • 75002 Paris", "Dupont SARL", "Client Martin SA"),
    ("Acme Ltd | 1 High Street | London EC1A 1BB", "Acme Ltd", "Buyer Brothers Inc"),
    ("Janssen B.V. · Kerkstraat 1 · 1000 AB Amsterdam", "Janssen B.V.", "Klant De Vries B.V."),
])
def test_the_address_field_under_a_sender_line_is_the_recipients(sender, seller, recipient):
    # DIN 5008: the sender's return line atop the envelope window, the recipient's address under it
    rows = [[(sender, 40)], [(recipient, 40), ("Rechnung Nr. 4711", 600)], [("Kundenweg 2", 40)],
            [("20095 Hamburg", 40)], [("Positionen", 40)]]
    values = _values(_cands(rows, field="vendor_name"))
    assert seller in values and recipient not in values
