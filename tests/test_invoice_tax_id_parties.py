"""Tax IDs on invoices: Spanish NIF/CIF/NIE read with their letter and checked, Austrian/Swiss UID and Canadian
GST/HST registrations read, a tax ID or a contact line never taken into the issuer's address, the issuer's own
number in its letterhead never filed as the buyer's, and an address line never read as the buyer's name.
Table-driven, made-up letterheads in several languages (QA round 2, defects 1, 4, 5, 8b)."""
from __future__ import annotations

import pytest

from desktop.core.extraction import HEURISTIC_REVIEW_THRESHOLD, extract_fields
from desktop.core.extraction.invoice import pick_buyer, pick_vendor_address
from desktop.core.extraction.layout import Candidate, Layout
from desktop.core.extraction.taxids import check_digits_fail, match_es_nif
from tests.pages import numbered_page

BODY = [[("Factura 2025-17", 10)], [("Fecha 02.03.2025", 10)], [("Base 100,00", 10)],
        [("IVA 21% 21,00", 10)], [("Total 121,00", 10)]]


@pytest.mark.parametrize(("text", "value", "bad_check"), [
    ("B-84512375", "B84512375", False),     # CIF, control digit (Orden EHA/451/2008)
    ("B84512376", "B84512376", True),       # same CIF, a wrong control digit
    ("12.345.678-Z", "12345678Z", False),   # DNI, mod-23 letter
    ("12345678A", "12345678A", True),
    ("X1234567L", "X1234567L", False),      # NIE
    ("ES B84512375", "B84512375", False),
    ("28013 Madrid", None, None),
    ("B845123761", None, None),             # longer: not a NIF
])
def test_spanish_nif_is_read_with_its_letter_and_checked(text, value, bad_check) -> None:
    assert match_es_nif(text) == value
    if value:
        assert check_digits_fail(value) is bad_check


# (id, letterhead rows, address)
ADDRESS_CASES = [
    ("es-cif-line", [[("Ferretería Ejemplo S.L.", 10)], [("Calle Mayor 23, 28013 Madrid", 10)], [("CIF B-84512375", 10)]],
     "Calle Mayor 23, 28013 Madrid"),
    ("es-nif-line-end", [[("Taller Ejemplo S.L.", 10)], [("Calle Mayor 23, 28013 Madrid, NIF B84512375", 10)]],
     "Calle Mayor 23, 28013 Madrid"),
    ("at-uid", [[("Beispiel Logistik GmbH", 10)], [("Handelskai 94", 10)], [("A-1200 Wien", 10)], [("UID ATU12345675", 10)]],
     "Handelskai 94, A-1200 Wien"),
    ("at-bare-uid-line-end", [[("Beispiel Logistik GmbH", 10)], [("Handelskai 94", 10)], [("A-1200 Wien ATU12345675", 10)]],
     "Handelskai 94, A-1200 Wien"),
    ("ch-uid-mwst", [[("Beispiel Treuhand AG", 10)], [("Bahnhofstrasse 17", 10)], [("CH-8001 Zürich", 10)],
                     [("CHE-123.456.789 MWST", 10)]], "Bahnhofstrasse 17, CH-8001 Zürich"),
    ("ca-hst", [[("Example Digital Inc.", 10)], [("220 King Street West", 10)], [("Toronto, ON M5H 1K4", 10)],
                [("HST/GST No. 81234 5678 RT0001", 10)]], "220 King Street West, Toronto, ON M5H 1K4"),
    ("ca-bare-bn", [[("Example Digital Inc.", 10)], [("220 King Street West", 10)], [("Toronto, ON M5H 1K4", 10)],
                    [("812345678 RT0001", 10)]], "220 King Street West, Toronto, ON M5H 1K4"),
    ("us-email", [[("Example Software Inc.", 10)], [("900 Congress Ave, Suite 300", 10)], [("Austin, TX 78701", 10)],
                  [("billing@example.com", 10)]], "900 Congress Ave, Suite 300, Austin, TX 78701"),
    ("fr-url", [[("Atelier Exemple SARL", 10)], [("8 rue des Martyrs", 10)], [("75009 Paris", 10)],
                [("atelier-exemple.fr", 10)]], "8 rue des Martyrs, 75009 Paris"),
    ("one-line-sender-email", [[("Example Software Inc. · 900 Congress Ave, Austin, TX 78701 · billing@example.com", 10)]],
     "900 Congress Ave, Austin, TX 78701"),
    ("one-line-sender-url", [[("Beispiel GmbH - Uferweg 40 - D-63571 Gelnhausen - www.beispiel.de", 10)]],
     "Uferweg 40, D-63571 Gelnhausen"),
]


@pytest.mark.parametrize(("rows", "address"), [c[1:] for c in ADDRESS_CASES], ids=[c[0] for c in ADDRESS_CASES])
def test_the_issuer_address_ends_at_a_tax_id_or_a_contact(rows, address) -> None:
    layout = Layout([numbered_page(1, rows + BODY)])
    name = rows[0][0][0].split(" · ")[0].split(" - ")[0]
    head = [ln for ln in layout.lines if ln.text.startswith(name)]
    found = pick_vendor_address(layout, Candidate(name, name, head, [], 1.0))
    assert found is not None and found.value == address


# (id, rows, vendor_tax_id, buyer_tax_id): the issuer's letterhead on the left, the recipient on the right
LETTERHEAD = [
    ("nl-btw-in-letterhead", [[("Bloemenhandel Voorbeeld B.V.", 10)], [("Keizersgracht 263", 10)],
                              [("1016 GV Amsterdam", 10), ("Aan:", 340)], [("BTW NL123456782B01 KvK 34127788", 10),
                                                                           ("Hotel Voorbeeld", 340)],
                              [("Damrak 12, 1012 LG Amsterdam", 340)]], "NL123456782B01", None),
    ("de-ust-in-letterhead", [[("Beispiel Handel GmbH", 10)], [("Hauptstraße 5", 10)], [("10115 Berlin", 10)],
                              [("USt-IdNr. DE136695976", 10)]], "DE136695976", None),
    ("at-uid-in-letterhead", [[("Beispiel Logistik GmbH", 10)], [("Handelskai 94", 10)], [("1200 Wien", 10)],
                              [("UID ATU12345675", 10)]], "ATU12345675", None),
    ("es-cif-in-letterhead", [[("Ferretería Ejemplo S.L.", 10)], [("Calle Mayor 23", 10)], [("28013 Madrid", 10)],
                              [("CIF B-84512375", 10)]], "B84512375", None),
    ("de-buyer-worded", [[("Beispiel Handel GmbH", 10)], [("Hauptstraße 5", 10)], [("10115 Berlin", 10)],
                         [("USt-IdNr. DE136695976", 10)], [("Kunde: Muster AG", 10)],
                         [("Ihre USt-IdNr. DE811907980", 10)]], "DE136695976", "DE811907980"),
    ("nl-buyer-worded", [[("Bloemenhandel Voorbeeld B.V.", 10)], [("Keizersgracht 263", 10)], [("1016 GV Amsterdam", 10)],
                         [("BTW NL123456782B01", 10)], [("Klant: Hotel Voorbeeld", 10)],
                         [("Uw BTW-nummer NL810433941B01", 10)]], "NL123456782B01", "NL810433941B01"),
]


@pytest.mark.parametrize(("rows", "vendor_id", "buyer_id"), [c[1:] for c in LETTERHEAD], ids=[c[0] for c in LETTERHEAD])
def test_a_tax_id_in_the_issuers_letterhead_is_the_issuers(rows, vendor_id, buyer_id) -> None:
    fields = extract_fields([numbered_page(1, rows + BODY)], "invoice").fields
    assert fields["vendor_tax_id"].value == vendor_id
    assert fields["buyer_tax_id"].value == buyer_id


def test_a_buyer_tax_id_found_only_by_an_unlabelled_block_is_flagged() -> None:
    rows = [[("Beispiel Handel GmbH", 10)], [("Rechnung", 10)], [("", 10)], [("", 10)],
            [("Muster AG", 10)], [("Ringstraße 3", 10)], [("10115 Berlin", 10)], [("USt-IdNr. DE811907980", 10)]]
    rows = [r for r in rows if r[0][0]]
    fields = extract_fields([numbered_page(1, rows + BODY)], "invoice").fields
    b = fields["buyer_tax_id"]
    if b.value == "DE811907980":
        assert b.confidence < HEURISTIC_REVIEW_THRESHOLD and b.needs_review


@pytest.mark.parametrize("street", ["Prinsengracht 263", "Kellergasse 3", "Via Roma 12/b", "Hauptstr. 5-7",
                                    "12 High Street", "Calle Mayor 23"])
def test_the_window_fallback_never_names_an_address_line_the_buyer(street) -> None:
    rows = [[("Beispiel B.V.", 10)], [("Factuur 17", 10)], [(street, 300)], [("1016 GV Amsterdam", 300)]]
    layout = Layout([numbered_page(1, rows + BODY)])
    found = pick_buyer(layout, None)
    assert found is None or found.value != street
