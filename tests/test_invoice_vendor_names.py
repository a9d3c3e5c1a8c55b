"""Long company names on an invoice's letterhead are read (QA report, defect 5: "Schmidt & Partner
Elektrotechnik GmbH" came back empty). The invoice vendor model had learned from e-invoices and
invoice2data only, whose issuers' names are at most four words: a five-word, 37-character name fell
below every name it had seen and was scored as no name at all. The invoice vendor model now also learns
from the receipts (``benchmarks.train_fields.POOLED``), whose shop names are often that long, with a
``doc_invoice`` feature telling the two apart. Table-driven, made-up invoices in several languages."""
from __future__ import annotations

import json

import pytest

from desktop.core.extraction import candidate_sets, extract_fields
from tests.pages import numbered_page

DE = ("RECHNUNG", "Rechnungsnummer:", "Rechnungsdatum:", "Kunde:", "Nettobetrag:", "zzgl. 19% USt:", "Gesamtbetrag:")
# (id, name, address, labels: heading, number label, date label, buyer label, net, tax, total)
CASES = [
    ("de-und-partner", "Schmidt und Partner Elektrotechnik GmbH", "Industriestraße 42, 70565 Stuttgart", DE),
    ("de-ampersand-partner", "Schmidt & Partner Elektrotechnik GmbH", "Industriestraße 42, 70565 Stuttgart", DE),
    ("de-partnerschaft", "Partnerschaft Schmidt Elektro GmbH", "Industriestraße 42, 70565 Stuttgart", DE),
    ("en-partners", "Harbour & Partners Marine Engineering Ltd", "14 Dock Road, Liverpool L3 4BB",
     ("INVOICE", "Invoice No:", "Invoice Date:", "Bill To:", "Net:", "VAT 20%:", "Total:")),
    ("fr-et-fils", "Dupont et Fils Menuiserie Générale SARL", "8 avenue Jean Jaurès, 31000 Toulouse",
     ("FACTURE", "Facture N°", "Date de facture :", "Client :", "Total HT", "TVA 20 %", "Total TTC")),
    ("nl-en-zonen", "Van der Berg en Zonen Installatietechniek B.V.", "Dorpsstraat 5, 1234 AB Utrecht",
     ("FACTUUR", "Factuurnummer:", "Factuurdatum:", "Klant:", "Subtotaal", "BTW 21%", "Totaal")),
]


def _invoice(name: str, address: str, labels: tuple[str, ...]) -> list:
    heading, number, date, buyer, net, tax, total = labels
    rows = [[(name, 150)], [(address, 10)], [(heading, 400)], [(buyer, 10), (f"{number} RE-2026/0815", 700)],
            [("Hausverwaltung Weber KG", 10), (f"{date} 02.10.2026", 700)], [(f"{net} 100,00", 700)],
            [(f"{tax} 19,00", 700)], [(f"{total} 119,00", 700)]]
    return [numbered_page(1, rows)]


def test_the_shipped_model_pools_the_receipts_for_the_invoice_vendor() -> None:
    """The shipped model's invoice vendor scorer was trained with the receipts (its features name
    ``doc_invoice``): a model trained before cannot read these names."""
    from desktop.resources import resources_dir

    spec = json.loads((resources_dir() / "models" / "field_model.json").read_text(encoding="utf-8"))
    assert "doc_invoice" in spec["document_types"]["invoice"]["vendor_name"]["features"]


@pytest.mark.parametrize(("name", "address", "labels"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_long_company_name_on_the_letterhead_is_the_vendor(name, address, labels) -> None:
    f = extract_fields(_invoice(name, address, labels), "invoice").fields["vendor_name"]
    assert f.value == name


@pytest.mark.parametrize(("name", "address", "labels"), [c[1:] for c in CASES[:1]], ids=[c[0] for c in CASES[:1]])
def test_invoice_vendor_candidates_say_they_are_an_invoices_and_training_pools_them(name, address, labels) -> None:
    from benchmarks.train_fields import POOLED

    assert POOLED["invoice"]["vendor_name"] == "receipt"
    pages = _invoice(name, address, labels)
    assert all(c.features.get("doc_invoice") == 1.0 for c in candidate_sets(pages, "invoice")["vendor_name"])
    # the receipts' own vendor model is trained on receipts alone: their candidates carry no such feature
    assert all("doc_invoice" not in c.features for c in candidate_sets(pages, "receipt")["vendor_name"])
