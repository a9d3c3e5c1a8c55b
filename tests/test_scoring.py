"""The benchmark's comparison helpers (benchmarks/scoring.py), reused by the end-to-end benchmark."""
from __future__ import annotations

import pytest

from benchmarks.scoring import load_ground_truth, normalise_for_compare, read_manifest, same


@pytest.mark.parametrize(
    ("field", "a", "b"),
    [("total", "RM96.20", "96.2"), ("total", 319.0, "319.00"), ("date", "25/12/2017", "2017-12-25"),
     ("vendor_name", "Broadview Marketing Sdn Bhd", "BROADVIEW  MARKETING SDN BHD."),
     ("invoice_number", "#BLR_WFLD2015", "BLR_WFLD2015"), ("check_code", "76939 05688", "7693905688"),
     ("vendor_address", "NO.1, TAMAN SRI DENGKIL", "NO. 1, TAMAN SRI DENGKIL"),
     ("vendor_address", "Lot NO: 20, Level UG1", "LOT NO : 20, LEVEL UG1"),
     ("vendor_tax_id", "DE 232 446 240", "DE232446240"),
     ("buyer_name", "小米商业保理(天津)有限责任公司", "小米商业保理（天津）有限责任公司")],
)
def test_same(field: str, a, b) -> None:
    assert same(field, a, b)


def test_not_same() -> None:
    assert not same("vendor_name", "99 SPEED NART S/B", "99 SPEED MART S/B")
    assert not same("total", "4.0", "4.70")
    assert not same("vendor_address", "No1, Jalan Dutamas", "NO 1, JALAN DUTAMAS")  # a lost space between words
    assert not same("vendor_address", "TAMAN SRI PUTRA. 81200", "TAMAN SRI PUTRA, 81200")
    assert normalise_for_compare("total", None) is None


def test_load_ground_truth(samples) -> None:
    rows = {r["path"]: r for r in read_manifest(samples)}
    sroie = load_ground_truth(rows["sroie/sroie_388.jpg"], samples)
    assert sroie["total"] == "96.20" and sroie["date"] == "2016-02-13" and sroie["vendor_name"] == "CHEF LEE SDN BHD"
    cn = load_ground_truth(rows["cn_invoice/vat_special_sichuan_photo.png"], samples)
    assert cn["invoice_code"] == "5100191160" and cn["check_code"] is None and cn["vendor_tax_id"] == "51019800DK01187"
    inv = load_ground_truth(rows["invoice2data/coolblue1.pdf"], samples)
    assert inv["total"] == "717.97" and inv["subtotal"] == "593.36" and inv["currency"] == "EUR"
    assert inv["vendor_tax_id"] == "NL810433941B01"
    assert load_ground_truth(rows["tesseract/phototest.tif"], samples) == {}


@pytest.mark.parametrize("got, expected", [
    ("Au bon moulin SARL", "Au bon moulin"),          # fr: the dénomination is registered without its form
    ("Kraxi GmbH", "Kraxi"),                           # de
    ("e-Luscious Nederland B.V.", "e-Luscious Nederland"),  # nl
    ("DKV Euro Service GmbH + Co. KG", "DKV Euro Service"),
    ("Rossi S.r.l.", "Rossi"), ("Apex Solutions Ltd.", "Apex Solutions"), ("Vidal S.L.", "Vidal"),
])
def test_same_party_ignores_a_trailing_legal_form(got, expected):
    from benchmarks.scoring import same_party

    assert same_party(got, expected) and same_party(expected, got)


@pytest.mark.parametrize("got, expected", [
    ("LOGO LE FOURNISSEUR", "LE FOURNISSEUR"), ("Kraxi AG", "Kraxo GmbH"), ("GmbH", "Kraxi GmbH"),
    ("Au bon moulin SARL", "Au bon"),
])
def test_same_party_still_needs_the_name(got, expected):
    from benchmarks.scoring import same_party

    assert not same_party(got, expected)
