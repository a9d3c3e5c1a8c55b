"""Invoice fields read from the page itself (OCR or a text layer), by kind: the due date, the IBAN, the
payment terms, a tax printed after its rate, the buyer labelled with its address on the row."""
from __future__ import annotations

import pytest

from desktop.core.extraction import extract_fields
from desktop.core.extraction.banking import find_ibans
from tests.pages import synthetic_page


def _invoice(*extra_rows):
    rows = [[("Müller & Söhne GmbH", 40)], [("Hauptstraße 17, 80331 München", 40)], [("RECHNUNG", 40)],
            [("Rechnungsnummer: RE-2024-0815", 40)], [("Rechnungsdatum: 05.02.2024", 40)],
            *extra_rows,
            [("Nettobetrag", 40), ("1.350,00 EUR", 420)], [("Gesamtbetrag", 40), ("1.606,50 EUR", 420)]]
    return extract_fields(synthetic_page(rows, width=800), "invoice").fields


@pytest.mark.parametrize("label, date", [("Fällig am: 05.03.2024", "2024-03-05"), ("Due date: 05/03/2024", "2024-03-05"),
                                         ("Échéance : 05/03/2024", "2024-03-05"), ("Vervaldatum: 05-03-2024", "2024-03-05"),
                                         ("Zahlbar bis 05.03.2024", "2024-03-05"),
                                         ("Zahlbar ohne Abzug bis zum 05.03.2024.", "2024-03-05"),
                                         ("Zahlbar netto bis 05.03.2024", "2024-03-05"),
                                         # "Due" alone as the line's label (US invoices: "Terms: Net 15" / "Due: ...")
                                         ("Due: March 5, 2024", "2024-03-05"), ("Due on 05/03/2024", "2024-03-05"),
                                         ("Payable by 05/03/2024", "2024-03-05"),
                                         ("Date limite de paiement : 05/03/2024", "2024-03-05"),
                                         ("Vervaldag: 05-03-2024", "2024-03-05"),
                                         ("Data de vencimento: 05/03/2024", "2024-03-05"),
                                         ("Fecha de vencimiento: 05/03/2024", "2024-03-05"),
                                         ("Data di scadenza: 05/03/2024", "2024-03-05"),
                                         # "Due" alone as the whole label, its date after it (QA2)
                                         ("Due  March 5, 2024", "2024-03-05"), ("Due  5 March 2024", "2024-03-05"),
                                         ("Due 05/03/2024", "2024-03-05"),
                                         # Zahlungsziel followed by a date alone; the deadline as a phrase
                                         ("Zahlungsziel  05.03.2024", "2024-03-05"),
                                         ("Zahlungsziel: 05.03.2024", "2024-03-05"),
                                         ("Zahlbar am 05.03.2024", "2024-03-05"),
                                         ("À régler avant le 05/03/2024", "2024-03-05"),
                                         ("Te betalen vóór 05-03-2024", "2024-03-05"),
                                         ("Uiterste betaaldatum: 05-03-2024", "2024-03-05"),
                                         ("Da pagare entro il 05/03/2024", "2024-03-05"),
                                         ("Fecha límite de pago: 05/03/2024", "2024-03-05"),
                                         ("Pay before 05/03/2024", "2024-03-05")])
def test_the_due_date_after_its_label(label, date):
    fields = _invoice([(label, 40)])
    assert fields["due_date"].value == date
    assert fields["date"].value == "2024-02-05"  # the issue date stays the issue date


def test_no_due_date_without_its_label():
    assert _invoice()["due_date"].value is None


# "Due" alone labels the date in the box to its right (the invoice head's Date / Due pair), in a text
# layer's separate boxes as in OCR; a Zahlungsziel box likewise
@pytest.mark.parametrize("label, value", [("Due", "April 4, 2024"), ("Due", "4 April 2024"), ("Zahlungsziel", "04.04.2024"),
                                          ("Due:", "04/04/2024")])
def test_the_due_date_in_the_box_right_of_a_bare_label(label, value):
    fields = _invoice([(label, 40), (value, 420)])
    assert fields["due_date"].value == "2024-04-04"
    assert fields["payment_terms"].value is None  # a label and a date are no terms


@pytest.mark.parametrize("row", ["Total Due 05.03.2024", "Due to the holidays our office is closed", "Zahlungsziel: 14 Tage",
                                 "Zahlungsziel 30 Tage netto", "Due upon receipt"])
def test_a_due_word_without_a_date_after_it_is_no_due_date(row):
    assert _invoice([(row, 40)])["due_date"].value is None


# payment terms are a period or a phrase: a terms label alone, or followed by a date alone, is none
@pytest.mark.parametrize("row", [[("Zahlungsziel", 40)], [("Zahlungsziel  10.04.2024", 40)], [("Payment terms:", 40)],
                                 [("Zahlungsziel", 40), ("10.04.2024", 420)], [("Zahlungsbedingungen:", 40)]])
def test_a_terms_label_alone_or_with_a_date_is_no_terms(row):
    assert _invoice(row)["payment_terms"].value is None


@pytest.mark.parametrize("row", ["Balance due 05.03.2024", "Amount due: 05/03/2024", "Overdue since 05.03.2024",
                                 "Dues paid 05.03.2024"])
def test_due_inside_another_label_is_no_due_date_label(row):
    assert _invoice([(row, 40)])["due_date"].value is None


def test_a_valid_iban_is_read_compact_and_an_invalid_one_is_not():
    assert find_ibans("IBAN: DE89 3704 0044 0532 0130 00  BIC: COBADEFFXXX") == ["DE89370400440532013000"]
    assert find_ibans("IBAN: DE89 3704 0044 0532 0130 01") == []  # its MOD 97-10 check fails (ISO 7064)
    assert _invoice([("IBAN: DE89 3704 0044 0532 0130 00", 40)])["iban"].value == "DE89370400440532013000"


@pytest.mark.parametrize("row, terms", [("Zahlbar innerhalb 30 Tagen ohne Abzug", "Zahlbar innerhalb 30 Tagen ohne Abzug"),
                                        ("Payment terms: 30 days net", "30 days net"),
                                        ("Conditions de paiement : à 30 jours", "à 30 jours"),
                                        # the label is dropped whichever terms label it is
                                        ("Terms: Net 15", "Net 15"), ("Terms of payment: Net 30", "Net 30"),
                                        ("Zahlungsziel: 14 Tage netto", "14 Tage netto"),
                                        ("Conditions de règlement : à 45 jours", "à 45 jours"),
                                        ("Betalingstermijn: 30 dagen", "30 dagen"),
                                        ("Condiciones de pago: Net 30", "Net 30"),
                                        ("Termini di pagamento: Net 60", "Net 60"),
                                        ("Condiciones de pago: 30 días", "30 días"),
                                        ("Condições de pagamento: 30 dias", "30 dias")])
def test_the_payment_terms_line(row, terms):
    assert _invoice([(row, 40)])["payment_terms"].value == terms


# The terms end where another labelled field starts on their line: bank details, a tax or registration
# number, a due date; in several languages. A bank or tax word that is no label stays in the terms.
@pytest.mark.parametrize("row, terms", [
    ("Payment terms: 30 days. Bank: Barclays  IBAN GB33BUKB20201555555555", "30 days"),
    ("Payment terms: 30 days net, IBAN GB33 BUKB 2020 1555 5555 55", "30 days net"),
    ("Terms: Net 30  Account No. 12345678  Sort code 20-20-15", "Net 30"),
    ("Terms: Net 15 | Routing number 021000021", "Net 15"),
    ("Payment terms: 14 days  VAT No. GB 123 4567 89", "14 days"),
    ("Terms: Net 30  EIN 12-3456789", "Net 30"),
    ("Terms: Net 30. Due date: 14/04/2024", "Net 30"),
    ("Zahlungsbedingungen: 14 Tage netto. Bankverbindung: Sparkasse Stuttgart", "14 Tage netto"),
    ("Zahlungsziel: 30 Tage, Konto 1234567 BLZ 600 501 01", "30 Tage"),
    ("Zahlbar innerhalb 14 Tagen ohne Abzug. USt-IdNr.: DE123456789", "Zahlbar innerhalb 14 Tagen ohne Abzug"),
    ("Zahlbar innerhalb 14 Tagen, BIC COBADEFFXXX", "Zahlbar innerhalb 14 Tagen"),
    ("Conditions de paiement : à 30 jours. Banque : BNP Paribas", "à 30 jours"),
    ("Conditions de règlement : 45 jours, RIB 30004 00001 00012345678 42", "45 jours"),
    ("Conditions de paiement : 30 jours fin de mois - SIRET 732 829 320 00074", "30 jours fin de mois"),
    ("Betalingstermijn: 30 dagen. Rekeningnummer: NL91ABNA0417164300", "30 dagen"),
    ("Termini di pagamento: 30 gg d.f. Coordinate bancarie: Intesa Sanpaolo", "30 gg d.f"),
    ("Condiciones de pago: 30 días. Cuenta: ES91 2100 0418 4502 0005 1332", "30 días"),
    ("Condições de pagamento: 30 dias. Dados bancários: Millennium", "30 dias"),
    # an unlabelled terms phrase after the bank details starts the value
    ("IBAN DE89 3704 0044 0532 0130 00  Zahlbar innerhalb 14 Tagen", "Zahlbar innerhalb 14 Tagen"),
    # no label: the words stay
    ("Payment terms: 30 days by bank transfer", "30 days by bank transfer"),
    ("Zahlbar innerhalb von 30 Tagen netto auf unser Konto. Bitte", "Zahlbar innerhalb von 30 Tagen netto auf unser Konto. Bitte"),
    ("Payment terms: 30 days net, prices excl. VAT", "30 days net, prices excl. VAT"),
])
def test_the_payment_terms_end_where_another_field_starts(row, terms):
    assert _invoice([(row, 40)])["payment_terms"].value == terms


# A tax or registration number printed after the issuer's address ends it, on its own line or at the
# end of the last address line (US EIN, Australian ABN, UK VAT, German USt-IdNr./Steuernummer, French
# SIRET, Dutch KvK, Italian P.IVA)
@pytest.mark.parametrize("rows, address", [
    ([["1200 Tech Row, San Jose, CA 95110"], ["EIN 12-3456789"]], "1200 Tech Row, San Jose, CA 95110"),
    ([["1200 Tech Row, San Jose, CA 95110, EIN 12-3456789"]], "1200 Tech Row, San Jose, CA 95110"),
    ([["Level 9, 120 Collins Street", "Melbourne VIC 3000  ABN 51 824 753 556"]],
     "Level 9, 120 Collins Street, Melbourne VIC 3000"),
    ([["27 Fenchurch Street, London EC3M 3BY, VAT Reg No GB 123 4567 89"]], "27 Fenchurch Street, London EC3M 3BY"),
    ([["Industriestraße 42, 70565 Stuttgart", "USt-IdNr.: DE123456789"]], "Industriestraße 42, 70565 Stuttgart"),
    ([["Industriestraße 42, 70565 Stuttgart, Steuernummer: 93815/08152"]], "Industriestraße 42, 70565 Stuttgart"),
    ([["12 rue de la République, 69002 Lyon - SIRET 732 829 320 00074"]], "12 rue de la République, 69002 Lyon"),
    ([["Kerkstraat 12, 1017 GC Amsterdam, KvK 12345678"]], "Kerkstraat 12, 1017 GC Amsterdam"),
    ([["Via Roma 10, 20121 Milano, P.IVA 01234567890"]], "Via Roma 10, 20121 Milano"),
], ids=["ein-own-line", "ein-end-of-line", "abn", "uk-vat", "ust-idnr", "steuernummer", "siret", "kvk", "p-iva"])
def test_a_registration_number_ends_the_vendor_address(rows, address):
    lines = [[(t, 40)] for block in rows for t in block]
    page = synthetic_page([[("Initech Staffing Solutions LLC", 40)], *lines, [("INVOICE", 40)],
                           [("Invoice No. 5567", 40)], [("Invoice Date: 09/30/2024", 40)],
                           [("Total Due", 40), ("USD 7,600.00", 420)]], width=800)
    assert extract_fields(page, "invoice").fields["vendor_address"].value == address


def test_a_tax_after_its_rate_is_the_rows_only_amount():
    fields = _invoice([("MwSt. 19 %", 40), ("256,50 EUR", 420)])
    assert fields["tax"].value == "256.50"
    # a tax summary row holds the base and the tax: it is no "rate, then the tax" row
    fields = _invoice([("MwSt. 19 %", 40), ("1.350,00", 300), ("256,50", 420)])
    assert fields["tax"].value != "1350.00"


def test_a_labelled_buyer_with_its_address_on_the_row():
    fields = _invoice([("Kunde: Schmidt Bau AG, Ringstr. 3, 10115 Berlin", 40)])
    assert fields["buyer_name"].value == "Schmidt Bau AG"
    assert fields["buyer_address"].value == "Ringstr. 3, 10115 Berlin"


def test_a_table_heading_under_the_buyer_label_is_no_buyer():
    fields = _invoice([("Kunde:", 40)], [("Pos", 40), ("Beschreibung", 120), ("Menge", 420), ("Betrag", 560)])
    assert fields["buyer_name"].value != "Pos"


def test_a_misprinted_iban_is_kept_and_flagged_never_dropped():
    from desktop.core import flags

    iban = _invoice([("IBAN: DE89 3704 0044 0532 0131 00", 40)])["iban"]  # one digit off: MOD 97-10 fails
    assert iban.value == "DE89370400440532013100"
    assert [p.code for p in iban.problems] == ["iban_invalid"] and flags.is_flagged(iban)


def test_a_tax_amount_under_a_vat_label_is_no_tax_id():
    rows = [[("Acme Supplies Ltd", 40)], [("INVOICE", 40)], [("Invoice number: INV-2024-17", 40)],
            [("Invoice date: 19 Apr 2024", 40)], [("Subtotal", 40), ("5,619.00 GBP", 420)],
            [("VAT 20%", 40)], [("1,123.80 GBP", 420)], [("Total", 40), ("6,742.80 GBP", 420)]]
    fields = extract_fields(synthetic_page(rows, width=800), "invoice").fields
    assert fields["vendor_tax_id"].value is None


@pytest.mark.parametrize("row, name, address", [
    ("Bill to: Acme Widgets plc, 3 Dock Road, Bristol BS1 5TT", "Acme Widgets plc", "3 Dock Road, Bristol BS1 5TT"),
    ("Klant: De Vries B.V., Kerkstraat 12, 1017 GC Amsterdam", "De Vries B.V.", "Kerkstraat 12, 1017 GC Amsterdam")])
def test_a_buyer_row_with_its_address(row, name, address):
    fields = _invoice([(row, 40)])
    assert (fields["buyer_name"].value, fields["buyer_address"].value) == (name, address)


# A letter's recipient heading names the buyer as "From:" names the sender: alone on its line with the
# name below, or with the name after it; in English, German, French, Dutch, Spanish/Portuguese. "to"
# inside a line is no heading.
RECIPIENTS = [
    ("to-below", [[("To:", 40)], [("Globex Corporation, Accounts Payable", 40)]], "Globex Corporation, Accounts Payable"),
    ("to-same-line", [[("To: Globex Corporation", 40)]], "Globex Corporation"),
    ("an", [[("An:", 40)], [("Schmidt Bau AG", 40)]], "Schmidt Bau AG"),
    ("a-grave", [[("À :", 40)], [("Dupont et Fils SARL", 40)]], "Dupont et Fils SARL"),
    ("aan", [[("Aan:", 40)], [("De Vries B.V.", 40)]], "De Vries B.V."),
    ("para", [[("Para:", 40)], [("Comercial Ibérica S.L.", 40)]], "Comercial Ibérica S.L."),
    ("payable-to", [[("Cheques payable to: Initech Ltd", 40)]], None),
    ("welcome", [[("Welcome to our shop", 40)]], None),
]


@pytest.mark.parametrize("rows, name", [c[1:] for c in RECIPIENTS], ids=[c[0] for c in RECIPIENTS])
def test_a_recipient_heading_names_the_buyer(rows, name):
    assert _invoice(*rows)["buyer_name"].value == name


def test_dutch_payment_terms():
    assert _invoice([("Betaling binnen 30 dagen", 40)])["payment_terms"].value == "Betaling binnen 30 dagen"


@pytest.mark.parametrize("text, date, time", [("日期：2024-09-1408:52", "2024-09-14", "08:52"),
                                              ("2024/09/1408:52:11", "2024-09-14", "08:52:11"),
                                              ("2024-09-14 08:52", "2024-09-14", "08:52")])
def test_a_time_glued_to_its_date_by_ocr(text, date, time):
    """OCR that loses the space between a year-first date and its time ("2024-09-1408:52") still
    gives both."""
    from desktop.core.extraction.dates import find_dates, find_times

    assert [d.value for d in find_dates(text, "YMD")] == [date]
    assert [t[0] for t in find_times(text)] == [time]


# After a buyer label, what is no name is no buyer: another field's label or value ("VAT ID", an IBAN, a
# currency code), a sentence; "Kunden" (customers, a plural or a compound's head) is no label, "Kunde" is.
NOT_A_BUYER = [
    ("vat-id-same-line", [[("Customer VAT ID: GB123456789", 40)]], "VAT ID"),
    ("kunden-is-a-name", [[("Kunden AG Mitte", 40)], [("Hauptstr. 1, 10115 Berlin", 40)]], "AG Mitte"),
    ("iban-below", [[("Rechnungsempfänger:", 40)], [("IBAN DE89 3704 0044 0532 0130 00", 40)]], "IBAN DE89"),
    ("sentence-same-line", [[("Client : régler par virement sur le compte suivant", 40)]], "régler par virement"),
    ("currency-below", [[("Bill to:", 40)], [("EUR", 40)]], "EUR"),
]


@pytest.mark.parametrize("rows, wrong", [c[1:] for c in NOT_A_BUYER], ids=[c[0] for c in NOT_A_BUYER])
def test_what_follows_a_buyer_label_and_is_no_name_is_no_buyer(rows, wrong):
    buyer = _invoice(*rows)["buyer_name"]
    assert not (buyer.value or "").startswith(wrong)


@pytest.mark.parametrize("rows", [[[("Kunde: Schmidt Bau AG", 40)]], [[("Bill to:", 40)], [("Contoso Retail Plc", 40)]],
                                  [[("Facturé à :", 40)], [("Boulangerie Martin", 40)]]])
def test_a_labelled_buyer_is_read_and_flagged(rows):
    # the rules' buyer was right on 10 of 64 e-invoice pages, on 0 of 12 with the name on the label's line:
    # no kind of evidence is shown unchecked (invoice.BUYER_LABELLED_CONFIDENCE)
    from desktop.core import flags

    buyer = _invoice(*rows)["buyer_name"]
    assert buyer.value and flags.is_flagged(buyer)


# The buyer under its label when the label's row below also holds a dated field beside it (no table
# heading row: its cells with digits are values), and a label alone on its line is never the buyer.
@pytest.mark.parametrize("rows, name", [
    ([[("Aan:", 40)], [("Hotel Zonneveld", 40), ("Factuurdatum", 420), ("05-03-2025", 560)]], "Hotel Zonneveld"),
    ([[("Bill To", 40)], [("Greenleaf Landscaping LLC", 40), ("Invoice Date", 420), ("03/05/2025", 560)]],
     "Greenleaf Landscaping LLC"),
])
def test_the_buyer_below_its_label_beside_a_dated_field(rows, name):
    assert _invoice(*rows)["buyer_name"].value == name


def test_a_buyer_label_alone_is_never_the_buyer():
    from desktop.core.extraction.invoice import pick_buyer
    from desktop.core.extraction.layout import Layout

    rows = [[("Bloemenhandel De Tulp B.V.", 40)], [("Prinsengracht 263", 40)], [("1016 GV Amsterdam", 40)],
            [("FACTUUR", 40)], [("Aan:", 40)], [("Pos", 40), ("Omschrijving", 120), ("Aantal", 420), ("Bedrag", 560)]]
    buyer = pick_buyer(Layout(synthetic_page(rows, width=800)))
    assert buyer is None or buyer.value.strip(" :") not in ("Aan", "Prinsengracht 263")
