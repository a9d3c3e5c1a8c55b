"""Company legal forms (:mod:`desktop.core.extraction.legal_forms`): the common EU, EEA, Swiss and UK forms
end a company name, in their usual spellings and with OCR's misreads; words that look like a form do
not; and an invoice's issuer whose legal form the receipts' vocabulary lacked is read."""
from __future__ import annotations

import pytest

from desktop.core.extraction import extract_fields
from desktop.core.extraction.candidates import clean_name
from desktop.core.extraction.common import looks_like_name
from desktop.core.extraction.legal_forms import LEGAL_FORM, ends_with_legal_form, restore_legal_form
from tests.pages import synthetic_page

NAMES = [
    # NL / BE
    "Jansen Groep B.V.", "Jansen Groep BV", "Jansen Groep B. V.", "Jansen Groep B.V", "Philips N.V.", "Bakker & Zn V.O.F.",
    "Colruyt SRL", "Van Dijk BVBA",
    # DE / AT / CH
    "Muster GmbH", "MUSTERLIEFERANT GMBH", "Siemens AG", "Müller KG", "Schmidt e.K.", "Nordlicht UG (haftungsbeschränkt)",
    "Nordlicht UG", "Kraxi GmbH & Co. KG", "Henkel AG & Co. KGaA", "Wien Bau OG", "Genève Conseil Sàrl",
    # FR / LU
    "Au bon moulin SARL", "Lumière SAS", "Dupont S.A.", "Moulin EURL", "Brightwater S.à r.l.", "Atelier SNC",
    # IT / ES / PT
    "Ferrari S.p.A.", "Roma SpA", "Bianchi S.r.l.", "Madrid Digital S.L.", "Lisboa Lda.",
    # UK / IE
    "Kestrel Systems Ltd", "Kestrel Systems Ltd.", "ACME LIMITED", "Harbour LLP", "Tesco PLC", "Dublin DAC",
    # Nordic, Central and Eastern Europe
    "Volvo AB", "Maersk A/S", "Dansk ApS", "Equinor ASA", "Nordlys AS", "Nokia Oyj", "Kone Oy",
    "Kowalski sp. z o.o.", "Kowalski Sp. z o.o.", "Praha s.r.o.", "Škoda a.s.", "Budapest Kft.", "Magyar Zrt.",
    "Zagreb d.o.o.", "Tallinn OÜ", "Riga SIA", "Vilnius UAB", "Sofia EOOD", "București S.R.L.",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_legal_form_ends_the_name(name):
    assert ends_with_legal_form(name)
    assert looks_like_name(name)  # a lower-case form ("sp. z o.o.", "S.à r.l.") is no sentence


@pytest.mark.parametrize("text", [
    "Same as", "Paid as agreed", "BT-10", "Total", "Invoice", "we do as", "Rabatt", "Keizersgracht 12",
    "1017 AB Amsterdam", "Praha as", "Budapest bt",
])
def test_no_legal_form(text):
    assert not ends_with_legal_form(text)


@pytest.mark.parametrize("text", ["ENTRY AS PER", "BT-10 Seller name", "1017 AB Amsterdam", "SE corner"])
def test_an_ambiguous_short_form_counts_only_at_the_end(text):
    assert not LEGAL_FORM.search(text)


@pytest.mark.parametrize("misread, restored", [
    ("Brightwater Zeeland S.à r.I.", "Brightwater Zeeland S.à r.l."), ("Kowalski sp. z 0.0.", "Kowalski sp. z o.o."),
    ("Praha s.r.0.", "Praha s.r.o."), ("Roma S.r.I.", "Roma S.r.l."),
    ("Muster GmbH", "Muster GmbH"), ("Hello I.", "Hello I."), ("Total l.", "Total l."),
])
def test_a_misread_legal_form_is_restored(misread, restored):
    assert restore_legal_form(misread) == restored
    assert clean_name(misread) == restored


# the issuer's letterhead (name, street, town), then the customer's labelled block and the invoice header
LETTERHEADS = [
    ("nl", "Lumière Moulin V.O.F.", "Keizersgracht 12", "1017 AB Amsterdam", "Factuuradres", "Factuurnummer: 2025-118"),
    ("nl", "De Vries Techniek B.V.", "Stationsweg 4", "3511 CE Utrecht", "Factuuradres", "Factuurnummer: 2025-119"),
    ("fr", "Moulin Sonnen EURL", "12 rue de la Paix", "75002 Paris", "Client", "Facture n° F-2025-7"),
    ("fr", "Brightwater Zeeland S.à r.l.", "3 avenue Foch", "69001 Lyon", "Client", "Facture n° F-2025-8"),
    ("de", "Delta Sonnen UG (haftungsbeschränkt)", "Am Markt 3", "20095 Hamburg", "Rechnungsempfänger",
     "Rechnungsnummer: RE-2025-4"),
    ("en", "Kowalski Trading sp. z o.o.", "ul. Prosta 5", "00-838 Warszawa", "Bill to", "Invoice No: PL-2025-3"),
]


def _letterhead(name, street, town, buyer_label, number):
    rows = [[(name, 40)], [(street, 40)], [(town, 40)], [("Tel. +31 20 1234567", 40)], [(buyer_label, 40)],
            [("Stadtwerke Nord AG", 40)], [("Industrieweg 4", 40)], [("10115 Berlin", 40)], [(number, 40)],
            [("Omschrijving / Description", 40), ("Bedrag", 700)], [("Advies", 40), ("100,00", 700)],
            [("Totaal / Total", 500), ("121,00", 700)]]
    page = synthetic_page(rows, width=1000)
    page[0].origin = "pdf_text"  # a text layer: its accents are printed, not OCR noise
    return page


@pytest.mark.parametrize("lang, name, street, town, buyer_label, number", LETTERHEADS, ids=[t[1] for t in LETTERHEADS])
def test_the_issuers_candidate_carries_its_legal_form(lang, name, street, town, buyer_label, number):
    from desktop.core.extraction import candidate_sets

    cands = candidate_sets(_letterhead(name, street, town, buyer_label, number), "invoice")["vendor_name"]
    issuer = [c for c in cands if c.value == name]
    assert issuer, "the issuer's name is a candidate, whole"
    f = issuer[0].features
    assert f["legal_end"] == f["t_company"] == 1.0
    assert f["rule_pick"] == 1.0  # the rules' issuer (a company name near the top) is it too


@pytest.mark.parametrize("lang, name, street, town, buyer_label, number", LETTERHEADS, ids=[t[1] for t in LETTERHEADS])
def test_the_vendor_is_the_issuer_or_flagged_never_another_name(lang, name, street, town, buyer_label, number):
    vendor = extract_fields(_letterhead(name, street, town, buyer_label, number), "invoice").fields["vendor_name"]
    assert vendor.value == name or (vendor.value is None and vendor.needs_review)


@pytest.mark.parametrize("lang, name, street, town, buyer_label, number", LETTERHEADS, ids=[t[1] for t in LETTERHEADS])
def test_the_rules_issuer_is_the_company_at_the_top(lang, name, street, town, buyer_label, number):
    # the forms the receipts' vocabulary lacked (V.O.F., EURL, S.à r.l., sp. z o.o.) and a "De ..." / "Delta ..."
    # name the sender-label strip used to cut; the rules' value is a feature of the model's candidates
    from desktop.core.extraction.invoice import extract_invoice
    from desktop.core.extraction.layout import Layout

    vendor = extract_invoice(Layout(_letterhead(name, street, town, buyer_label, number)))["vendor_name"]
    assert vendor is not None and vendor.value == name
