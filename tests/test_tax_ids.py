"""Whose tax ID is whose on an invoice (the issuer's block, the customer's), and VAT numbers' check digits."""
from __future__ import annotations

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import extract_fields
from desktop.core.extraction.taxids import check_digits_fail
from tests.pages import synthetic_page

# Check digits verified with python-stdnum: FR11123456782 (key of SIREN 123456782), DE242688168 and
# DE232446240 (ISO 7064 MOD 11,10), HU30048650; DE123456789 and FR05987654321 fail theirs.
SELLER_ID, BUYER_ID = "FR11123456782", "DE242688168"

_TOTALS = [[("Total HT", 40), ("100,00 €", 1100)], [("TVA 20 %", 40), ("20,00 €", 1100)],
           [("Total TTC", 40), ("120,00 €", 1100)]]


def _fields(rows):
    return extract_fields(synthetic_page(rows + _TOTALS, width=1400), "invoice").fields


@pytest.mark.parametrize(("seller_heading", "buyer_heading"), [
    ("Vendeur", "Acheteur"),
    ("SELLER TRADE NAME", "Adresse du Client"),
    ("Verkäufer", "Käufer"),
    ("Nos références", "Vos identifiants"),
])
def test_each_block_keeps_its_own_tax_id(seller_heading: str, buyer_heading: str) -> None:
    """Two party blocks side by side, each with a VAT line: the heading above each says whose it is,
    and the customer's contact on the issuer's row does not make the issuer's number the customer's."""
    rows = [[("FACTURE N° F2024-17", 40)], [("Date : 31/01/2024", 40)],
            [(seller_heading, 40), (buyer_heading, 700)],
            [("LE FOURNISSEUR SARL", 40), ("LE CLIENT SA", 700)],
            [("35 rue d'ici, 75018 Paris", 40), ("58 rue de la mer, 06000 Nice", 700)],
            [("N° TVA : " + SELLER_ID, 40), ("Contact : buyer@client.example", 700)],
            [("N° TVA : " + BUYER_ID, 700)]]
    fields = _fields(rows)
    assert fields["vendor_tax_id"].value == SELLER_ID
    assert fields["buyer_tax_id"].value == BUYER_ID


@pytest.mark.parametrize("label", ["N° TVA client", "Ku.-USt-Id/Nat.St.Nr.:", "Your VAT number", "Uw BTW nummer"])
def test_a_label_naming_the_customer_makes_the_number_the_customers(label: str) -> None:
    rows = [[("Muster Lieferant GmbH · Hauptstr. 1 · 10115 Berlin · USt-IdNr. DE232446240", 40)],
            [("Rechnung Nr. 2024-17", 40)], [("Datum: 31.01.2024", 40)],
            [(label, 40), (BUYER_ID, 500)]]
    fields = _fields(rows)
    assert fields["vendor_tax_id"].value == "DE232446240"
    assert fields["buyer_tax_id"].value == BUYER_ID


def test_the_customers_number_printed_again_unlabelled_is_not_the_issuers() -> None:
    rows = [[("Rechnung Nr. 2024-17", 40)], [("Datum: 31.01.2024", 40)],
            [("Kunden-USt-IdNr.:", 700), (BUYER_ID, 1000)],
            [("Bestätigung für " + BUYER_ID, 40)]]
    fields = _fields(rows)
    assert fields["vendor_tax_id"].value != BUYER_ID
    assert fields["buyer_tax_id"].value == BUYER_ID


def test_a_date_beside_an_empty_tax_id_label_is_no_tax_id() -> None:
    rows = [[("Muster GmbH", 40)], [("Rechnung Nr. 2024-17", 40)],
            [("USt-IdNr :", 40), ("Bestell-Datum : 01.08.2013", 700)]]
    fields = _fields(rows)
    assert fields["vendor_tax_id"].value is None and fields["buyer_tax_id"].value is None


def test_a_tax_representatives_number_is_neither_partys() -> None:
    rows = [[("Rechnung Nr. 2024-17", 40)], [("Datum: 31.01.2024", 40)],
            [("Représentant Fiscal", 40)], [("SELLER TAX REP", 40)], [("TVA : " + SELLER_ID, 40)]]
    fields = _fields(rows)
    assert fields["vendor_tax_id"].value != SELLER_ID


@pytest.mark.parametrize(("value", "fails"), [
    ("FR11123456782", False), ("DE242688168", False), ("HU30048650", False), ("NL810433941B01", False),
    ("DE123456789", True), ("FR05987654321", True),
    ("CHE123456789", False),  # a format python-stdnum's EU check does not cover: no verdict, no flag
])
def test_check_digits(value: str, fails: bool) -> None:
    assert check_digits_fail(value) is fails


def test_a_vat_number_failing_its_check_digits_is_flagged() -> None:
    rows = [[("Muster GmbH", 40)], [("USt-IdNr.: DE123456789", 40)], [("Rechnung Nr. 2024-17", 40)],
            [("Datum: 31.01.2024", 40)]]
    tax_id = _fields(rows)["vendor_tax_id"]
    assert tax_id.value == "DE123456789"
    assert [p.code for p in tax_id.problems] == [Code.TAX_ID_CHECK_DIGITS]
    assert tax_id.needs_review and tax_id.confidence <= 0.5


def test_a_vat_number_with_good_check_digits_is_not_flagged_for_them() -> None:
    rows = [[("Muster GmbH", 40)], [("USt-IdNr.: DE232446240", 40)], [("Rechnung Nr. 2024-17", 40)],
            [("Datum: 31.01.2024", 40)]]
    tax_id = _fields(rows)["vendor_tax_id"]
    assert tax_id.value == "DE232446240" and not tax_id.problems
