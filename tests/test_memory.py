"""Vendor memory: recognising a vendor from page evidence, learning, applying, undo, sharing, kill -9."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.extraction import extract_fields
from desktop.core.memory import (
    CONFIRMED_FLAGGED,
    MATCH_MIN,
    STRONG_MATCH,
    MemoryError_,
    VendorMemory,
    doc_key,
    page_evidence,
)
from desktop.core.model import Document
from desktop.core.session import SessionStore
from tests.pages import synthetic_page

REPO = Path(__file__).resolve().parent.parent

BAKERY = [
    [("GARDENIA BAKERIES (KL) SDN BHD", 40)],
    [("(139386-X)", 40)],
    [("LOT 3, JALAN PELABUR 23/1,", 40)],
    [("40300 SHAH ALAM, SELANGOR.", 40)],
    [("TEL: 03-55423228 FAX: 03-55423213", 40)],
    [("GST ID: 000381399040", 40)],
    [("CASH BILL", 40)],
    [("DATE: 15/01/2018", 40)],
    [("BREAD", 40), ("3.50", 480)],
    [("TOTAL AMOUNT PAYABLE", 40), ("{total}", 480)],
]
STATIONERY = [
    [("SANYU STATIONERY SHOP", 40)],
    [("NO. 31G&33G, JALAN SETIA INDAH X", 40)],
    [("U13/X 40170 SETIA ALAM", 40)],
    [("MOBILE/WHATSAPPS: 017-2098663", 40)],
    [("GST ID NO: 001531760640", 40)],
    [("CASH SALES COUNTER", 40)],
    [("DATE: 20/03/2018", 40)],
    [("TOTAL", 40), ("{total}", 480)],
]


def _doc(rows: list, source: str, *, total: str = "12.50", edit: dict | None = None,
         document_type: str = "receipt") -> Document:
    filled = [[(t.replace("{total}", total), x) for t, x in row] for row in rows]
    pages = synthetic_page(filled)
    doc = Document(source=source, document_type=document_type, page_results=pages)
    doc.fields = dict(extract_fields(pages, document_type).fields)
    for name, value in (edit or {}).items():
        f = doc.fields[name]
        f.value, f.edited, f.source = value, True, "user"
    return doc


def _noisy(rows: list, swaps: dict[str, str]) -> list:
    """OCR-style misreadings: characters swapped as engines do (O<->0, I<->1, S<->5, B<->8)."""
    out = []
    for row in rows:
        new = []
        for text, x in row:
            for a, b in swaps.items():
                text = text.replace(a, b)
            new.append((text, x))
        out.append(new)
    return out


@pytest.fixture
def memory(tmp_path: Path):
    with VendorMemory(tmp_path / "session.db") as m:
        yield m


def _confirm(memory: VendorMemory, rows: list, source: str, **values: str):
    """The clerk edits ``values``, says every other value is right (the box of the question on Mark
    reviewed, ``extras["confirmed_flagged"]``) and marks the document reviewed: it is learned."""
    doc = _doc(rows, source, edit=values)
    doc.reviewed = True
    doc.extras[CONFIRMED_FLAGGED] = sorted(doc.fields)
    return memory.learn(doc), doc


# ------------------------------------------------------------------------------------------ evidence


def test_evidence_reads_tax_ids_phones_and_header() -> None:
    ev = page_evidence(_doc(BAKERY, "a.jpg"))
    assert "000381399040" in ev.tax_ids and "139386X" in ev.tax_ids
    assert ev.phones == ["55423228", "55423213"]
    assert ev.header.startswith("GARDENIA BAKERIES KL SDN BHD")


def test_buyer_tax_id_is_not_vendor_evidence() -> None:
    doc = _doc(BAKERY, "a.jpg", document_type="invoice")
    if "buyer_tax_id" in doc.fields:
        doc.fields["buyer_tax_id"].value = "000381399040"
        assert "000381399040" not in page_evidence(doc).tax_ids


# ------------------------------------------------------------------------------------------ matching


def test_match_on_tax_id_alone(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    other = [[("SOMETHING ELSE ENTIRELY", 40)], [("GST ID: 000381399040", 40)], [("TOTAL", 40), ("5.00", 480)]]
    m = memory.match(_doc(other, "b.jpg"))
    assert m is not None and m.score >= 0.99 and any("tax ID" in r for r in m.reasons)


def test_match_on_phone_alone(memory: VendorMemory) -> None:
    _confirm(memory, STATIONERY, "a.jpg", vendor_name="SANYU STATIONERY SHOP")
    other = [[("UNRELATED HEADER TEXT", 40)], [("TEL 017 209 8663", 40)], [("TOTAL", 40), ("5.00", 480)]]
    m = memory.match(_doc(other, "b.jpg"))
    assert m is not None and 0.9 <= m.score < 0.99 and any("phone" in r for r in m.reasons)


def test_fuzzy_header_survives_ocr_noise(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    # tax ID and phone lines unreadable: only the header, misread the way engines misread
    noisy = _noisy(BAKERY, {"GST ID: 000381399040": "G5T 1D: OOO381399O4O", "TEL: 03-55423228 FAX: 03-55423213":
                            "TEI: 03-5542322B FAX 03-554Z3213", "(139386-X)": "(I39386-X", "BAKERIES": "BAKER1ES",
                            "SELANGOR": "5ELANG0R", "JALAN": "JA1AN"})
    m = memory.match(_doc(noisy, "b.jpg"))
    assert m is not None and m.score >= MATCH_MIN and m.reasons == [m.reasons[0]] and "header" in m.reasons[0]


def test_unrelated_vendor_does_not_match(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    assert memory.match(_doc(STATIONERY, "b.jpg")) is None


def test_conflicting_tax_id_lowers_the_score(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    forged = _noisy(BAKERY, {"000381399040": "000999888777", "139386-X": "555111-Y"})
    forged = [r for r in forged if "TEL" not in r[0][0]]
    m = memory.match(_doc(forged, "b.jpg"))
    assert m is not None and m.conflicts and "000999888777" in m.conflicts[0]
    assert m.score < MATCH_MIN  # the header alike is not enough against a different tax ID
    doc = _doc(forged, "b.jpg")
    assert memory.apply(doc) is None


def test_a_chains_shared_id_names_the_chain_and_the_address_picks_the_branch(memory: VendorMemory) -> None:
    """Two branches of one chain share a GST ID: the header decides which branch it is."""
    branch_b = [list(r) for r in BAKERY]
    branch_b[2] = [("NO 8, JALAN KENANGA 3, TAMAN MELUR", 40)]
    branch_b[3] = [("68000 AMPANG, SELANGOR.", 40)]
    branch_b[4] = [("TEL: 03-42961111", 40)]
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    _confirm(memory, branch_b, "b.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    assert len(memory.profiles()) == 2  # same name, other address: a branch of its own
    m = memory.match(_doc(branch_b, "c.jpg"))
    assert m is not None and m.profile.values["vendor_address"].startswith("NO 8")
    assert "its address is printed" in m.reasons  # the chain's GST ID names the chain, the address the branch
    # an ID shared by profiles of different names is no evidence at all
    memory.rename(m.profile.id, "SOME OTHER SHOP")
    other = _noisy(STATIONERY, {"GST ID NO: 001531760640": "GST ID: 000381399040"})
    assert memory.match(_doc(other, "d.jpg")) is None


# ------------------------------------------------------------------------------------------ applying


def test_apply_fills_confirms_and_flags(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD",
             vendor_address="LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR.", currency="MYR")
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_address"].value = None
    doc.fields["vendor_name"].value = "CASH BILL"  # extraction picked the wrong line
    m = memory.apply(doc)
    assert m is not None and m.score >= STRONG_MATCH
    name, address = doc.fields["vendor_name"], doc.fields["vendor_address"]
    assert address.value.startswith("LOT 3") and address.source == "memory" and address.confidence == m.score
    # the confirmed name is printed too: it goes in, flagged, never silently
    assert name.value == "GARDENIA BAKERIES (KL) SDN BHD" and name.source == "memory"
    assert name.needs_review and "CASH BILL" in name.problems[0].message()
    info = doc.extras["memory"]
    assert info["fields"]["vendor_name"] == "replaced" and info["fields"]["vendor_address"] == "filled"
    assert info["taught_by"]["vendor_address"] == "a.jpg"


def test_a_filled_field_is_not_flagged_for_having_been_empty(memory: VendorMemory) -> None:
    """An empty address flagged as "not found" and filled from a strong match with the confirmed value
    printed on the page is flagged no more (the reason it was flagged is gone); filled without evidence
    on the page, it stays flagged."""
    from desktop.core.flags import flag_reason

    address = "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR."
    _confirm(memory, BAKERY, "a.jpg", vendor_address=address)
    doc = _doc(BAKERY, "b.jpg")
    f = doc.fields["vendor_address"]
    f.value, f.confidence, f.needs_review = None, 0.0, True  # the extraction found nothing
    m = memory.apply(doc)
    assert m is not None and m.score >= STRONG_MATCH
    f = doc.fields["vendor_address"]
    assert f.value == address and f.source == "memory" and not f.needs_review and flag_reason(f) is None

    unprinted = _doc([row for row in BAKERY if "PELABUR" not in str(row)], "c.jpg")
    g = unprinted.fields["vendor_address"]
    g.value, g.needs_review = None, True
    memory.apply(unprinted)
    g = unprinted.fields["vendor_address"]
    assert g.source != "memory" or g.needs_review  # no evidence on the page: still the clerk's to check


def test_a_value_confirmed_on_a_sure_match_is_not_flagged_by_the_model_threshold(memory: VendorMemory) -> None:
    """After the clerk confirmed the bakery once, its next receipt reads the same name and address: the
    memory confirms them on a strong match with nothing in conflict, so the field model's threshold (the
    address's is above 1: it flags every address nobody confirmed) no longer flags them; every reader
    of the one flag (flagged_fields: tint, badge, summary, Problems sheet) agrees. A weak match or a
    conflicting tax ID keeps the flag."""
    from desktop.core.flags import flagged_fields

    name, address = "GARDENIA BAKERIES (KL) SDN BHD", "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR."
    _confirm(memory, BAKERY, "a.jpg", vendor_name=name, vendor_address=address)
    doc = _doc(BAKERY, "b.jpg")
    for n, v in (("vendor_name", name), ("vendor_address", address)):
        doc.fields[n].value, doc.fields[n].needs_review = v, True  # read right, flagged by the threshold
    m = memory.apply(doc)
    assert m is not None and m.score >= STRONG_MATCH and not m.conflicts
    for n in ("vendor_name", "vendor_address"):
        f = doc.fields[n]
        assert doc.extras["memory"]["fields"][n] == "confirmed" and f.confidence >= STRONG_MATCH
        assert not f.needs_review and not f.problems, n
    assert not {"vendor_name", "vendor_address"} & set(flagged_fields(doc))

    # a misreading the memory mends on the same sure match: not flagged either
    misread = _doc(BAKERY, "c.jpg")
    misread.fields["vendor_name"].value, misread.fields["vendor_name"].needs_review = "GARDENIA BAKERIE5 (KL) SDN BHD", True
    memory.apply(misread)
    assert misread.fields["vendor_name"].value == name and not misread.fields["vendor_name"].needs_review

    # a weak match, or a strong one with conflicting evidence: the threshold's flag stands
    from desktop.core.memory import Match

    profile = memory.profiles()[0]
    for match in (Match(profile, 0.85, ["header text 86% alike"], [], ["header"]),
                  Match(profile, 0.95, ["phone 55423228"], ["another tax ID on the page"], ["phone"])):
        again = _doc(BAKERY, "d.jpg")
        for n, v in (("vendor_name", name), ("vendor_address", address)):
            again.fields[n].value, again.fields[n].needs_review = v, True
        assert memory.apply(again, match) is match
        assert {"vendor_name", "vendor_address"} <= set(flagged_fields(again)), match

def test_a_fragment_of_the_name_takes_the_confirmed_name(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_name"].value = "BAKERIES (KL) SDN BHD"  # extraction kept half of the name
    memory.apply(doc)
    f = doc.fields["vendor_name"]
    assert f.value == "GARDENIA BAKERIES (KL) SDN BHD" and f.source == "memory" and not f.problems
    assert doc.extras["memory"]["fields"]["vendor_name"] == "corrected"


def test_apply_keeps_a_disagreeing_address_and_flags_it(memory: VendorMemory) -> None:
    """Another branch (its own address printed, the chain's GST ID): the page's address stays, flagged."""
    _confirm(memory, BAKERY, "a.jpg", vendor_address="LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM")
    branch = _noisy(BAKERY, {"LOT 3, JALAN PELABUR 23/1,": "NO 8, JALAN KENANGA 3,",
                             "40300 SHAH ALAM, SELANGOR.": "68000 AMPANG, SELANGOR."})
    doc = _doc(branch, "b.jpg")
    doc.fields["vendor_address"].value = "NO 8, JALAN KENANGA 3, 68000 AMPANG, SELANGOR."
    m = memory.apply(doc)
    assert m is not None and m.score >= STRONG_MATCH
    f = doc.fields["vendor_address"]
    assert f.value == "NO 8, JALAN KENANGA 3, 68000 AMPANG, SELANGOR." and f.source == "ocr"
    assert f.needs_review and "LOT 3" in f.problems[0].message()
    assert doc.extras["memory"]["fields"]["vendor_address"] == "conflict"


def test_ocr_variant_takes_the_confirmed_spelling(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_name"].value = "GARDENIA BAKERIE5 (KL) 5DN BHD"
    memory.apply(doc)
    f = doc.fields["vendor_name"]
    assert f.value == "GARDENIA BAKERIES (KL) SDN BHD" and f.source == "memory" and not f.problems


ADDRESS = "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR."


def test_a_profile_keeps_each_spelling_and_uses_the_one_the_page_supports(memory: VendorMemory) -> None:
    """One shop's receipts transcribed two ways: the newest spelling does not overwrite a page that
    reads the older one."""
    _confirm(memory, BAKERY, "a.jpg", vendor_address=ADDRESS)
    _confirm(memory, BAKERY, "b.jpg", vendor_address="LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGO.")
    (p,) = memory.profiles()
    assert [v for v, _l in p.choices("vendor_address")] == [
        "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGO.", ADDRESS]
    doc = _doc(BAKERY, "c.jpg")
    doc.fields["vendor_address"].value = ADDRESS.title()
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    assert f.value.upper() == ADDRESS and not f.problems
    assert doc.extras["memory"]["taught_by"]["vendor_address"] == "a.jpg"
    # with nothing read, the spelling the page supports fills the field
    doc = _doc(BAKERY, "d.jpg")
    doc.fields["vendor_address"].value = None
    memory.apply(doc)
    assert doc.fields["vendor_address"].value == ADDRESS


def test_punctuation_confirmed_once_does_not_outweigh_the_page(memory: VendorMemory) -> None:
    """The same words with other commas: the page's punctuation stays until two documents confirmed the
    clerk's; a difference of case and spacing only takes the clerk's spelling at once."""
    read = "LOT 3, JALAN PELABUR 23/1. 40300 SHAH ALAM, SELANGOR."
    _confirm(memory, BAKERY, "a.jpg", vendor_address=ADDRESS)
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_address"].value = read
    memory.apply(doc)
    assert doc.fields["vendor_address"].value == read and doc.extras["memory"]["fields"]["vendor_address"] == "confirmed"
    doc.fields["vendor_address"].value = ADDRESS.lower().replace(", ", " ,")
    memory.apply(doc)
    assert doc.fields["vendor_address"].value == ADDRESS and doc.fields["vendor_address"].source == "memory"
    _confirm(memory, BAKERY, "c.jpg", vendor_address=ADDRESS)
    doc = _doc(BAKERY, "d.jpg")
    doc.fields["vendor_address"].value = read
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    assert f.value == ADDRESS and f.source == "memory" and not f.problems


def test_a_chains_branch_number_stays_and_misread_words_are_repaired(memory: VendorMemory) -> None:
    """A chain prints one address with each branch's own number and name after it: the shared words
    are spelled as confirmed, a misread word corrected, the branch's own words kept, flagged."""
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD",
             vendor_address="LOT P.T. 33198, BATU 4 JALAN KAPAR, 42100 KLANG, SELANGOR 1320-TMN BATU")
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_address"].value = "LOT P.T, 33198, 0ATU 4 JALAN KAPAR, 42100 KLANG, SELANGOR 1174-PERMATA MAGNA"
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    assert f.value == "LOT P.T. 33198, BATU 4 JALAN KAPAR, 42100 KLANG, SELANGOR 1174-PERMATA MAGNA"
    assert f.source == "memory" and f.needs_review and "0ATU" in f.problems[0].message()
    assert doc.extras["memory"]["fields"]["vendor_address"] == "repaired"


def test_repair_words_needs_most_words_to_agree() -> None:
    from desktop.core.memory import repair_words

    assert repair_words("NO 8, JALAN KENANGA 3, 68000 AMPANG", "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM") is None
    assert repair_words("SANYU STAT1ONERY SH0P", "SANYU STATIONERY SHOP") == "SANYU STATIONERY SHOP"
    assert repair_words("NO 12 JALAN 5", "NO 13 JALAN 5") == "NO 12 JALAN 5"  # digits stay as read


def test_repair_words_keeps_the_pages_punctuation_beside_its_own_words() -> None:
    """The confirmed punctuation goes between two words the page shares with the confirmed value; beside
    a word of the page's own, or where the confirmed value goes on and the page stops, the page's own
    punctuation stays (a branch's shorter address printed without the comma the longer one has)."""
    from desktop.core.memory import repair_words

    known = "PT17920, SEKSYEN U9, 40150 SHAH ALAM, SELANGOR DARUL EHSAN."
    assert repair_words("Pt17920 Sek U9, Shah Alam", known) == "PT17920 Sek U9, SHAH ALAM"
    assert repair_words("Pt17920, Sek U9; Shah Alam", known) == "PT17920, Sek U9; SHAH ALAM"
    # between shared words the confirmed punctuation is taken, and at the end when both end alike
    assert repair_words("LOT P.T, 33198, 0ATU 4 JALAN KAPAR", "LOT P.T. 33198, BATU 4 JALAN KAPAR.") \
        == "LOT P.T. 33198, BATU 4 JALAN KAPAR."


def test_a_name_typed_another_way_on_the_same_vendors_page_joins_its_profile(memory: VendorMemory) -> None:
    """A document with the profile's GST ID and address, its name confirmed with a letter dropped: the
    profile keeps both spellings (no second profile), and a page printing the usual spelling keeps it."""
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD", vendor_address=ADDRESS)
    _confirm(memory, BAKERY, "b.jpg", vendor_name="GARDENA BAKERIES (KL) SDN BHD", vendor_address=ADDRESS)
    (p,) = memory.profiles()
    assert {v for v, _l in p.choices("vendor_name")} == {"GARDENIA BAKERIES (KL) SDN BHD",
                                                         "GARDENA BAKERIES (KL) SDN BHD"}
    doc = _doc(BAKERY, "c.jpg")
    memory.apply(doc)
    f = doc.fields["vendor_name"]
    assert f.value == "GARDENIA BAKERIES (KL) SDN BHD" and doc.extras["memory"]["fields"]["vendor_name"] == "confirmed"


def test_a_like_name_without_shared_evidence_is_another_vendor(memory: VendorMemory) -> None:
    """A name spelled alike is not enough: without the profile's tax ID or phone number on the page, the
    document teaches a profile of its own."""
    _confirm(memory, STATIONERY, "a.jpg", vendor_name="SANYU STATIONERY SHOP")
    other = _noisy(STATIONERY, {"SANYU STATIONERY SHOP": "SANYO STATIONERY SHOP",
                                "MOBILE/WHATSAPPS: 017-2098663": "TEL: 03-7777 1234",
                                "GST ID NO: 001531760640": "GST ID NO: 009999999999"})
    _confirm(memory, other, "b.jpg", vendor_name="SANYO STATIONERY SHOP")
    assert len(memory.profiles()) == 2


def test_a_branch_the_profile_does_not_know_keeps_its_own_name(memory: VendorMemory) -> None:
    """The chain's tax ID matches, but the page's own address is none of the profile's: a name printed
    on the page is not replaced by the one confirmed for another branch, only flagged."""
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD",
             vendor_address="LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM")
    branch = _noisy(BAKERY, {"LOT 3, JALAN PELABUR 23/1,": "NO 8, JALAN KENANGA 3,",
                             "40300 SHAH ALAM, SELANGOR.": "68000 AMPANG, SELANGOR.",
                             "TEL: 03-55423228 FAX: 03-55423213": "TEL: 03-42961111"})
    branch.insert(1, [("GARDENIA AMPANG OUTLET", 40)])
    doc = _doc(branch, "b.jpg")
    doc.fields["vendor_name"].value = "GARDENIA AMPANG OUTLET"
    doc.fields["vendor_address"].value = "NO 8, JALAN KENANGA 3, 68000 AMPANG, SELANGOR."
    m = memory.apply(doc)
    assert m is not None and m.score >= STRONG_MATCH
    f = doc.fields["vendor_name"]
    assert f.value == "GARDENIA AMPANG OUTLET" and f.needs_review
    assert doc.extras["memory"]["fields"]["vendor_name"] == "conflict"


def test_a_chains_branches_are_told_apart_by_the_address_the_page_supports(memory: VendorMemory) -> None:
    """Three branches share the chain's GST ID and name; the page's address, misread, is closest to the
    second's: that profile matches, whatever order the profiles are in."""
    addresses = ["LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM", "NO 8, JALAN KENANGA 3, 68000 AMPANG",
                 "NO 21, JALAN MELATI 7, 43000 KAJANG"]
    for i, address in enumerate(addresses):
        rows = _noisy(BAKERY, {"LOT 3, JALAN PELABUR 23/1,": address, "40300 SHAH ALAM, SELANGOR.": "SELANGOR.",
                               "TEL: 03-55423228 FAX: 03-55423213": f"TEL: 03-4296111{i}"})
        _confirm(memory, rows, f"{i}.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD", vendor_address=address)
    assert len(memory.profiles()) == 3
    rows = _noisy(BAKERY, {"LOT 3, JALAN PELABUR 23/1,": "N0 8, JALAN KENANGA 3, 68000 AMPAN6",
                           "40300 SHAH ALAM, SELANGOR.": "SELANGOR.", "TEL: 03-55423228 FAX: 03-55423213": ""})
    m = memory.match(_doc(rows, "x.jpg"))
    assert m is not None and m.profile.values["vendor_address"] == addresses[1]


def test_edited_fields_are_never_touched(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    doc = _doc(BAKERY, "b.jpg", edit={"vendor_name": "MY OWN NAME"})
    memory.apply(doc)
    assert doc.fields["vendor_name"].value == "MY OWN NAME" and doc.fields["vendor_name"].source == "user"


def test_totals_and_dates_are_located_never_copied(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    profile = memory.profiles()[0]
    assert profile.layout["total"]["label"] == "TOTAL AMOUNT PAYABLE"
    # a receipt of the vendor with no total printed: nothing is copied from memory
    no_total = [r for r in BAKERY if "TOTAL" not in r[0][0]]
    doc = _doc(no_total, "b.jpg")
    doc.fields["total"].value = None  # whatever extraction guessed, the clerk cleared it
    memory.apply(doc)
    assert doc.fields["total"].value is None and "total" not in doc.extras["memory"]["fields"]
    # the total is printed where the profile says: read from this page, not from memory
    doc = _doc(BAKERY, "c.jpg", total="7.77")
    doc.fields["total"].value = None
    memory.apply(doc)
    assert doc.fields["total"].value == "7.77" and doc.fields["total"].source == "ocr"
    assert doc.extras["memory"]["fields"]["total"] == "located"


# ------------------------------------------------------------------------------------------ learning


def test_learn_and_forget_restore_the_profile(memory: VendorMemory) -> None:
    first, _ = _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    before = memory.profiles()[0]
    # the clerk corrects the address on a second receipt: the newest lesson wins
    second, _ = _confirm(memory, BAKERY, "b.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD",
                         vendor_address="LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM")
    (p,) = memory.profiles()
    assert p.documents == 2 and p.values["vendor_address"] == "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM"
    assert p.taught_by["vendor_address"] == "b.jpg"
    memory.forget(second)
    (p,) = memory.profiles()
    assert p.documents == 1 and p.values == before.values
    memory.forget(first)
    assert memory.profiles() == []


def test_learning_the_same_document_again_replaces_and_undo_restores(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    again, _ = _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD", currency="SGD")
    (p,) = memory.profiles()
    assert p.documents == 1 and p.values["currency"] == "SGD"
    memory.forget(again)
    (p,) = memory.profiles()
    assert p.documents == 1 and p.values.get("currency") != "SGD"


def test_deleting_a_document_keeps_the_profile(memory: VendorMemory, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.db")
    _lesson, doc = _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    entry = store.add(doc.source, doc)
    store.remove([entry])
    store.clear()
    assert len(memory.profiles()) == 1 and memory.profiles()[0].documents == 1
    store.close()


def test_nothing_to_learn_from_an_empty_form(memory: VendorMemory) -> None:
    doc = Document(source="x.jpg", document_type="receipt")
    assert memory.learn(doc) is None
    assert memory.learn(Document(source="y.jpg", error="y.jpg: damaged")) is None


# ------------------------------------------------------------------------------------------ the clerk's edits


def test_rename_edit_merge_delete(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    _confirm(memory, STATIONERY, "b.jpg", vendor_name="SANYU STATIONERY SHOP")
    bakery, shop = sorted(memory.profiles(), key=lambda p: p.id)
    memory.rename(bakery.id, "Gardenia")
    memory.edit(bakery.id, currency="MYR")
    p = memory.profile(bakery.id)
    assert p.name == "Gardenia" and p.values["currency"] == "MYR" and p.taught_by["currency"] == "edited in the Vendors list"
    memory.merge(bakery.id, shop.id)
    (merged,) = memory.profiles()
    assert merged.documents == 2 and merged.name == "Gardenia" and "55423228" in merged.phones
    with pytest.raises(MemoryError_):
        memory.merge(merged.id, merged.id)
    with pytest.raises(MemoryError_, match="no field"):
        memory.edit(merged.id, total="1.00")
    with pytest.raises(MemoryError_):
        memory.rename(merged.id, "  ")
    memory.delete(merged.id)
    assert memory.profiles() == [] and memory.lessons() == []


def test_export_import_round_trip(memory: VendorMemory, tmp_path: Path) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    _confirm(memory, STATIONERY, "b.jpg", vendor_name="SANYU STATIONERY SHOP")
    memory.rename(memory.profiles()[0].id, "Gardenia Bakeries")
    out = tmp_path / "vendors.json"
    assert memory.export_json(out) == 2
    with VendorMemory(tmp_path / "other.db") as other:
        assert other.import_json(out) == 2
        assert [(p.name, p.values, p.documents, p.phones) for p in other.profiles()] == \
               [(p.name, p.values, p.documents, p.phones) for p in memory.profiles()]
        assert other.import_json(out) == 0  # importing twice adds nothing
        assert len(other.profiles()) == 2
        m = other.match(_doc(STATIONERY, "c.jpg"))
        assert m is not None and m.profile.name == "SANYU STATIONERY SHOP"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"vendors": []}), encoding="utf-8")
    with pytest.raises(MemoryError_, match="bad.json"):
        memory.import_json(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(MemoryError_, match="not a JSON file"):
        memory.import_json(bad)


def test_memory_survives_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "session.db"
    script = f"""
import os, signal, sys
sys.path.insert(0, {str(REPO)!r})
from tests.test_memory import BAKERY, _doc
from desktop.core.memory import VendorMemory
m = VendorMemory({str(db)!r})
doc = _doc(BAKERY, "a.jpg", edit={{"vendor_name": "GARDENIA BAKERIES (KL) SDN BHD"}})
m.learn(doc)
os.kill(os.getpid(), signal.SIGKILL)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    with VendorMemory(db) as m:
        (p,) = m.profiles()
        assert p.name == "GARDENIA BAKERIES (KL) SDN BHD" and p.documents == 1


def test_doc_key_names_source_and_pages() -> None:
    assert doc_key(Document(source="/x/a.pdf", pages=(2, 3))) == "/x/a.pdf#2-3"


def test_teach_change_and_untaught_follow_review_commands(memory: VendorMemory) -> None:
    """The hook an undoable review command calls (Qt-free): mark reviewed, edit, unmark, and undo each."""
    doc = _doc(BAKERY, "a.jpg", edit={"vendor_name": "GARDENIA BAKERIES (KL) SDN BHD"})
    reviewed = Document.from_dict(doc.to_dict())
    reviewed.reviewed = True
    mark = memory.teach_change(doc, reviewed)  # mark reviewed
    assert [p.name for p in memory.profiles()] == ["GARDENIA BAKERIES (KL) SDN BHD"]
    renamed = Document.from_dict(reviewed.to_dict())
    renamed.fields["vendor_name"].value = "Gardenia"
    edit = memory.teach_change(reviewed, renamed)  # an edit of a reviewed document teaches again
    assert [p.name for p in memory.profiles()] == ["Gardenia"] and memory.profiles()[0].documents == 1
    memory.untaught(edit)
    assert [p.name for p in memory.profiles()] == ["GARDENIA BAKERIES (KL) SDN BHD"]
    unmarked = Document.from_dict(reviewed.to_dict())
    unmarked.reviewed = False
    unmark = memory.teach_change(reviewed, unmarked)
    assert memory.profiles() == [] and unmark.forgotten is not None
    memory.untaught(unmark)
    assert [p.name for p in memory.profiles()] == ["GARDENIA BAKERIES (KL) SDN BHD"]
    memory.untaught(mark)
    assert memory.profiles() == []
    assert memory.teach_change(doc, doc).learned is None  # nothing reviewed: nothing taught


def test_a_database_holding_only_the_memory_opens_as_a_session(tmp_path: Path) -> None:
    """`shoebox learn` before the window ever ran: the file has the memory's tables only."""
    from desktop.core.session import open_session

    db = tmp_path / "session.db"
    with VendorMemory(db) as m:
        _confirm(m, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD")
    opened = open_session(db)
    assert opened.problem is None and opened.store.path == db
    opened.store.close()
    with VendorMemory(db) as m:
        assert len(m.profiles()) == 1


def test_an_address_the_page_does_not_show_is_not_guessed_from_the_tax_id_alone(memory: VendorMemory) -> None:
    """Only the company's GST ID agrees (a chain's branches share it): the field stays empty rather than
    take another shop's address; with the shop's phone number on the page too, it is filled (flagged)."""
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD", vendor_address=ADDRESS)
    other_shop = [[("KEDAI ROTI MAJU", 40)], [("GST ID: 000381399040", 40)], [("CASH BILL", 40)],
                  [("DATE: 15/01/2018", 40)], [("BREAD", 40), ("3.50", 480)], [("TOTAL", 40), ("3.50", 480)]]
    doc = _doc(other_shop, "b.jpg")
    doc.fields["vendor_address"].value = None
    m = memory.apply(doc)
    assert m is not None and m.kinds == ["tax_id"]
    assert doc.fields["vendor_address"].value is None and "vendor_address" not in doc.extras["memory"]["fields"]
    doc = _doc([*other_shop, [("TEL: 03-55423228", 40)]], "c.jpg")
    doc.fields["vendor_address"].value = None
    m = memory.apply(doc)
    assert m is not None and "phone" in m.kinds
    f = doc.fields["vendor_address"]
    assert f.value == ADDRESS and f.source == "memory" and f.needs_review


# ------------------------------------------------------------------------------------------ one slip, one vote

RESTAURANT = [
    [("RESTORAN WAN SHENG", 40)],
    [("(002043319-W)", 40)],
    [("NO.2, JALAN TEMENGGUNG 19/9,", 40)],
    [("43200 CHERAS, SELANGOR", 40)],
    [("TEL: 03-90813066", 40)],
    [("DATE: 15/01/2018", 40)],
    [("TOTAL", 40), ("{total}", 480)],
]
SLIP_NAME = "RSTORAN WAN SHENG"  # the clerk's typing slip for the RESTORAN printed


def test_one_typing_slip_does_not_respell_a_known_word_the_page_prints(memory: VendorMemory) -> None:
    """A name the clerk typed with a slip on one receipt: the next receipt prints the known word
    RESTORAN, which stays (flagged as a conflict); once two receipts confirmed the spelling, it wins."""
    _confirm(memory, RESTAURANT, "a.jpg", vendor_name=SLIP_NAME)
    doc = _doc(RESTAURANT, "b.jpg")
    assert doc.fields["vendor_name"].value == "RESTORAN WAN SHENG"
    memory.apply(doc)
    f = doc.fields["vendor_name"]
    assert f.value == "RESTORAN WAN SHENG" and f.source == "ocr" and f.needs_review
    assert SLIP_NAME in f.problems[0].message()
    assert doc.extras["memory"]["fields"]["vendor_name"] == "conflict"
    # the known word stays as printed while a misread word beside it is still mended (flagged)
    doc = _doc(_noisy(RESTAURANT, {"SHENG": "SHENC"}), "b2.jpg")
    memory.apply(doc)
    f = doc.fields["vendor_name"]
    assert f.value == "RESTORAN WAN SHENG" and f.source == "memory" and f.needs_review
    assert doc.extras["memory"]["fields"]["vendor_name"] == "repaired"
    _confirm(memory, RESTAURANT, "c.jpg", vendor_name=SLIP_NAME)
    doc = _doc(RESTAURANT, "d.jpg")
    memory.apply(doc)
    assert doc.fields["vendor_name"].value == SLIP_NAME and doc.extras["memory"]["fields"]["vendor_name"] == "corrected"


def test_a_misreading_is_still_mended_after_one_confirmation(memory: VendorMemory) -> None:
    """The page's word is no known word (an OCR misreading): one confirmation corrects it."""
    _confirm(memory, RESTAURANT, "a.jpg", vendor_name="RESTORAN WAN SHENG",
             vendor_address="NO.2, JALAN TEMENGGUNG 19/9, 43200 CHERAS, SELANGOR")
    doc = _doc(_noisy(RESTAURANT, {"TEMENGGUNG": "TEMENSGUNG"}), "b.jpg")
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    assert f.value == "NO.2, JALAN TEMENGGUNG 19/9, 43200 CHERAS, SELANGOR" and f.source == "memory"
    assert doc.extras["memory"]["fields"]["vendor_address"] == "corrected"


def test_a_slip_is_not_copied_into_an_empty_field(memory: VendorMemory) -> None:
    """Filling an empty address from a value one document taught with a slip in a known word: the
    page's spelling of that word is taken, and the field is flagged."""
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD",
             vendor_address="LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGIR.")
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_address"].value = None
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    assert f.value == ADDRESS and f.source == "memory" and f.needs_review
    # confirmed twice, the clerk's spelling is the vendor's own
    _confirm(memory, BAKERY, "c.jpg", vendor_address="LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGIR.")
    doc = _doc(BAKERY, "d.jpg")
    doc.fields["vendor_address"].value = None
    memory.apply(doc)
    assert doc.fields["vendor_address"].value.endswith("SELANGIR.")


def test_attested_words(memory: VendorMemory) -> None:
    """Known without a vendor: the extraction's address words, and words the clerk confirmed for two
    other vendors (the vendor's own documents and a single other vendor do not make a word)."""
    assert memory.attested("SELANGOR") and not memory.attested("SELANGIR")
    assert not memory.attested("KL") and not memory.attested("23")  # short words and numbers never
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD", vendor_address="TAMPOI ROAD")
    (bakery,) = memory.profiles()
    assert not memory.attested("TAMPOI")
    _confirm(memory, STATIONERY, "b.jpg", vendor_name="SANYU STATIONERY SHOP", vendor_address="12 TAMPOI ROAD")
    assert memory.attested("TAMPOI")  # two vendors, for anyone else
    assert not memory.attested("TAMPOI", bakery.id)  # one other vendor is not enough for the bakery
    _confirm(memory, RESTAURANT, "c.jpg", vendor_name="RESTORAN WAN SHENG", vendor_address="3 TAMPOI ROAD")
    assert memory.attested("TAMPOI", bakery.id)
    assert not memory.attested("GARDENIA")


def test_damaged_copy() -> None:
    from desktop.core.memory import damaged_copy

    known = "NO.12,JALAN SS4C/5,PETALING JAYA SELANGOR DARUL EHSAN"
    # a receipt cut at its left margin: "NO.12, JAL" and "SEL" are gone
    assert damaged_copy("NO . AN SS4C/5,PETALING JAYA ANGOR DARUL EHSAN", known)
    assert not damaged_copy("NO.14, JALAN SS4C/5,PETALING JAYA SELANGOR DARUL EHSAN", known)  # another number
    assert not damaged_copy("NO.12,JALAN SS4C/5,PETALING JAYA SELANGOR DARUL EHSAN", known)  # nothing damaged
    assert not damaged_copy("JAYA ANGOR", known)  # too little left to tell
    assert not damaged_copy("LOT 5 JALAN SS4C/5 PETALING JAYA ANGOR", known)  # words of its own


def test_a_damaged_print_takes_the_confirmed_address_flagged(memory: VendorMemory) -> None:
    _confirm(memory, BAKERY, "a.jpg", vendor_name="GARDENIA BAKERIES (KL) SDN BHD", vendor_address=ADDRESS)
    # letters torn off at the receipt's edges: the page itself shows only what is left
    doc = _doc(_noisy(BAKERY, {"LOT 3, JALAN PELABUR": "OT 3, AN PELAB", "SHAH ALAM, SELANGOR.": "AH ALAM, NGOR"}), "b.jpg")
    doc.fields["vendor_address"].value = "OT 3, AN PELAB 23/1, 40300 AH ALAM, NGOR"
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    assert f.value == ADDRESS and f.source == "memory" and f.needs_review
    assert doc.extras["memory"]["fields"]["vendor_address"] == "repaired"


def test_each_value_keeps_its_documents_and_undo_takes_back_one_vote(memory: VendorMemory, tmp_path: Path) -> None:
    slip = "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGIR."
    _confirm(memory, BAKERY, "a.jpg", vendor_address=ADDRESS)
    _confirm(memory, BAKERY, "b.jpg", vendor_address=ADDRESS)
    lesson, _ = _confirm(memory, BAKERY, "c.jpg", vendor_address=slip)
    (p,) = memory.profiles()
    assert p.taught_docs["vendor_address"] == {slip: ["c.jpg"], ADDRESS: ["b.jpg", "a.jpg"]}
    assert p.word_confirmations("vendor_address", "SELANGOR") == 2
    assert p.word_confirmations("vendor_address", "SELANGIR") == 1
    assert p.word_confirmations("vendor_address", "PELABUR") == 3
    # nothing read: the page supports both spellings alike; the value two documents taught wins the vote
    from desktop.core.memory import pick_choice
    from desktop.core.model import Field

    assert pick_choice(Field("vendor_address"), p.choices("vendor_address"), "",
                       votes=lambda v: len(p.taught_docs["vendor_address"][v]))[0] == ADDRESS
    assert pick_choice(Field("vendor_address"), p.choices("vendor_address"), "")[0] == slip  # no votes: newest
    # export and import keep every document of every value
    out = tmp_path / "vendors.json"
    memory.export_json(out)
    with VendorMemory(tmp_path / "other.db") as other:
        other.import_json(out)
        (q,) = other.profiles()
        assert q.taught_docs == p.taught_docs and q.word_counts == p.word_counts
    memory.forget(lesson)
    (p,) = memory.profiles()
    assert p.taught_docs["vendor_address"] == {ADDRESS: ["b.jpg", "a.jpg"]}
    assert p.word_confirmations("vendor_address", "SELANGIR") == 0 and [v for v, _l in p.choices("vendor_address")] == [ADDRESS]


def test_an_export_written_before_variants_were_counted_still_reads(memory: VendorMemory) -> None:
    """An export of version 1 as the first Shoebox with a vendor memory wrote it (no counts stored: they
    are computed from the lessons) imports with every document counted."""
    lesson = {"source": "a.jpg", "pages": [1, 1], "taught": {"vendor_name": "SANYU STATIONERY SHOP",
              "vendor_address": "NO. 31G&33G, JALAN SETIA INDAH X", "vendor_tax_id": None, "currency": "MYR",
              "document_type": "receipt"}, "evidence": {"tax_ids": ["001531760640"], "phones": ["72098663"],
              "header": "SANYU STATIONERY SHOP"}, "layout": {}, "facts": {}, "created": 1.0}
    second = dict(lesson, source="b.jpg", created=2.0)
    data = {"format": "shoebox-vendors", "version": 1, "vendors": [
        {"name": "SANYU STATIONERY SHOP", "values": {"vendor_name": "SANYU STATIONERY SHOP"}, "overrides": {},
         "documents": 2, "last_seen": None, "lessons": [lesson, second]}]}
    assert memory.import_dict(data) == 2
    (p,) = memory.profiles()
    assert p.documents == 2 and p.taught_docs["vendor_name"] == {"SANYU STATIONERY SHOP": ["b.jpg", "a.jpg"]}
    assert p.word_confirmations("vendor_address", "SETIA") == 2


def test_page_spelling_stands_against_one_documents_respelling() -> None:
    """A faded print transcribed as printed (one document's PETA ING) does not respell the PETALING
    another receipt prints; confirmed on two documents it does. A word nobody knows stands when the
    page reads more letters than the one document's spelling (no misreading adds letters), not when
    it could be a misreading of it."""
    from desktop.core.memory import _page_spelling_stands

    known = {"PETALING", "SELANGOR"}
    read = "NO.3, JALAN SS21/39,47400 Petaling Jaya Selangor"
    faded = "NO.3, JALAN SS21/39,47400 PETA ING JAYA SELANGOR"
    assert _page_spelling_stands(read, faded, known.__contains__, lambda w: 1) == {"PETALING"}
    assert _page_spelling_stands(read, faded, known.__contains__, lambda w: 2) == set()
    assert _page_spelling_stands(read, faded, set().__contains__, lambda w: 1) == {"PETALING"}
    slip = "NO.53, JALAN BESAR, 45600 BATANG BEJUNTAL SELANGOR"
    printed = "NO. 53, JALAN BESAR, 45600 BATANG BERJUNTAI SELANGOR"
    assert _page_spelling_stands(printed, slip, set().__contains__, lambda w: 1) == {"BERJUNTAI"}
    assert _page_spelling_stands(printed, slip, set().__contains__, lambda w: 2) == set()
    # the same number of letters (BERJUNTAL for BERJUNTAI) may be a misreading: the confirmed word wins
    assert _page_spelling_stands(printed.replace("BERJUNTAI", "BERJUNTAL"), printed, set().__contains__,
                                 lambda w: 1) == set()
    # a split wide letter (rn for m) is a misreading too
    assert _page_spelling_stands("JALAN TEMPLER", "JALAN TEMPLER", set().__contains__, lambda w: 1) == set()
    assert _page_spelling_stands("JALAN TERNPLER", "JALAN TEMPLER", set().__contains__, lambda w: 1) == set()
    # a word the value does not respell (another street) is no reason to keep the page's value
    assert _page_spelling_stands(read, "NO.3, JALAN SS21/39,47400 KLANG JAYA SELANGOR", known.__contains__, lambda w: 1) == set()


def test_misread_marks_take_the_confirmed_spelling_and_keep_the_pages_reading(memory: VendorMemory) -> None:
    """A near variant of what the clerk confirmed once, differing only by OCR noise in its marks (a full
    stop the engine dropped, a speck read as an apostrophe), takes the confirmed spelling on a sure
    match, unflagged, with the page's reading kept (``raw``, ``extras["memory"]["page_read"]``); a
    mark the page prints that the clerk's spelling lacks is the page's own and stays."""
    name, address = "GARDENIA BAKERIES (K.L.) SDN BHD", "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR"
    _confirm(memory, BAKERY, "a.jpg", vendor_name=name, vendor_address=address)
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_name"].value = "GARDENIA BAKERIES (K.L) SDN BHD"  # the last full stop not read
    doc.fields["vendor_address"].value = "LOT'3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR"  # a speck
    m = memory.apply(doc)
    assert m is not None and m.score >= STRONG_MATCH
    for n, v in (("vendor_name", name), ("vendor_address", address)):
        f = doc.fields[n]
        assert f.value == v and f.source == "memory" and not f.needs_review and not f.problems, n
    assert doc.extras["memory"]["page_read"] == {"vendor_name": "GARDENIA BAKERIES (K.L) SDN BHD",
                                                 "vendor_address": "LOT'3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR"}
    # the page prints a comma the clerk's spelling lacks: the page's punctuation, not noise
    doc = _doc(BAKERY, "c.jpg")
    doc.fields["vendor_address"].value = "LOT 3, JALAN PELABUR, 23/1, 40300 SHAH ALAM, SELANGOR"
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    # (the page's spelling stays; the memory vouched for it, so it says so: source memory, "confirmed")
    assert f.value == "LOT 3, JALAN PELABUR, 23/1, 40300 SHAH ALAM, SELANGOR" and f.raw != "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR"
    assert doc.extras["memory"]["fields"]["vendor_address"] == "confirmed"
    assert "vendor_address" not in doc.extras["memory"]["page_read"]


def test_marks_misread() -> None:
    from desktop.core.memory import marks_misread

    assert marks_misread("MR. D.I.Y (KUCHAI) SDN BHD", "MR. D. I. Y. (KUCHAI) SDN BHD")
    assert marks_misread("Level'6, Bangunan TH", "Level 6, Bangunan TH")
    assert marks_misread("LEVEL 6 BANGUNAN TH", "Level 6, Bangunan TH")  # a comma not read
    assert not marks_misread("LOT 3, JALAN PELABUR 23/1. 40300", "LOT 3, JALAN PELABUR 23/1, 40300")  # another mark
    assert not marks_misread("LEVEL 6, BANGUNAN TH", "LEVEL 6 BANGUNAN TH")  # a comma the page prints
    assert not marks_misread("LEVEL 8, BANGUNAN TH", "LEVEL 6, BANGUNAN TH")  # another number


def test_a_word_printed_fuller_than_one_confirmation_stays_flagged(memory: VendorMemory) -> None:
    """A substantive disagreement: the page prints a word with more letters than the one document that
    taught the address spelled it (``PELABR`` typed for the ``PELABUR`` printed; no misreading adds a
    letter), so the page's word stays and the field is flagged; confirmed on two documents, the
    clerk's spelling is the vendor's own and goes in."""
    slip = "LOT 3, JALAN PELABR 23/1, 40300 SHAH ALAM, SELANGOR."
    _confirm(memory, BAKERY, "a.jpg", vendor_address=slip)
    doc = _doc(BAKERY, "b.jpg")
    doc.fields["vendor_address"].value = ADDRESS
    memory.apply(doc)
    f = doc.fields["vendor_address"]
    assert "PELABUR" in f.value and f.needs_review and slip in f.problems[0].message()
    assert doc.extras["memory"]["fields"]["vendor_address"] in ("conflict", "repaired")
    # a reading with no letter more than the confirmed word (PELABK) may be a misreading: mended
    doc = _doc(BAKERY, "c.jpg")
    doc.fields["vendor_address"].value = ADDRESS.replace("PELABUR", "PELABK")
    memory.apply(doc)
    assert doc.fields["vendor_address"].value == slip and doc.fields["vendor_address"].source == "memory"
    _confirm(memory, BAKERY, "d.jpg", vendor_address=slip)
    doc = _doc(BAKERY, "e.jpg")
    doc.fields["vendor_address"].value = ADDRESS
    memory.apply(doc)
    assert doc.fields["vendor_address"].value == slip and doc.extras["memory"]["fields"]["vendor_address"] == "corrected"


def test_another_number_on_the_page_is_kept_and_flagged(memory: VendorMemory) -> None:
    """A substantive disagreement: the page prints another lot number (another shop of the vendor, or a
    move) in an address otherwise alike; the page's number stays and the field is flagged with both
    values. A digit an engine confuses (8 read as 3) on a strong match takes the confirmed value,
    flagged too; the same address with no number changed passes as a misreading, unflagged."""
    from desktop.core.memory import number_change

    confirmed = "LOT 8, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR."
    _confirm(memory, _noisy(BAKERY, {"LOT 3": "LOT 8"}), "a.jpg", vendor_address=confirmed)
    moved = _doc(_noisy(BAKERY, {"LOT 3": "LOT 5"}), "b.jpg")
    moved.fields["vendor_address"].value = "LOT 5, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR."
    memory.apply(moved)
    f = moved.fields["vendor_address"]
    assert f.value.startswith("LOT 5,") and f.needs_review and confirmed in f.problems[0].message()
    assert moved.extras["memory"]["fields"]["vendor_address"] in ("conflict", "repaired")

    misread = _doc(_noisy(BAKERY, {"LOT 3": "LOT 8"}), "c.jpg")
    misread.fields["vendor_address"].value = "LOT 3, JALAN PELABUR 23/1, 40300 SHAH ALAM, SELANGOR."
    memory.apply(misread)
    f = misread.fields["vendor_address"]
    assert f.value == confirmed and f.source == "memory" and f.needs_review
    assert misread.extras["memory"]["fields"]["vendor_address"] == "replaced"

    letters = _doc(_noisy(BAKERY, {"LOT 3": "LOT 8"}), "d.jpg")
    letters.fields["vendor_address"].value = "LOT 8, JALAN PELA8UR 23/1, 4O300 SHAH ALAM, SELANGOR."
    memory.apply(letters)
    f = letters.fields["vendor_address"]
    assert f.value == confirmed and f.source == "memory" and not f.needs_review

    assert number_change("NO 12, JALAN X", "NO 18, JALAN X") == "other"
    assert number_change("LOT 1351-A", "LOT 1851-A") == "misread"
    assert number_change("TAMAN 4115O", "TAMAN 41150") is None  # a letter for a digit
    assert number_change("ACME SDN BHD 123-X LOT 3", "LOT 3") is None  # a fragment
    assert number_change("NO 123", "NO 1234") == "other"
