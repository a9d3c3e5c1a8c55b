"""E-invoice data: CII (Factur-X profiles, ZUGFeRD 1.0), UBL, hostile XML, and the page cross-check."""
from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.diagnostics import Code
from desktop.core.einvoice import EInvoiceError, read_structured, read_xml
from desktop.core.einvoice.xmlsafe import MAX_XML_BYTES, XmlError, parse_xml
from desktop.core.pipeline import scan_file
from tests.einvoice_fixtures import (
    VALUES,
    cii_xml,
    facturx_pdf,
    page_lines,
    ubl_xml,
    zugferd1_xml,
)
from tests.fake_engines import FakeEngine

HEADER = ("invoice_number", "date", "vendor_name", "vendor_tax_id", "buyer_name", "subtotal", "tax", "total", "currency")


@pytest.mark.parametrize("profile", ["MINIMUM", "BASIC WL", "BASIC", "EN16931", "EXTENDED", "XRECHNUNG 2.0"])
def test_cii_profiles(profile: str) -> None:
    inv = read_xml(cii_xml(profile))
    assert inv.syntax == "CII" and inv.profile == profile
    for name in HEADER:
        assert inv.values[name] == VALUES[name], name
    assert inv.values["due_date"] == "2025-04-13"
    assert inv.values["amount_due"] == "1487.50"
    assert inv.values["iban"] == VALUES["iban"]
    assert inv.values["vendor_address"] == "Hafenstraße 7, 20095 Hamburg, DE"
    assert inv.values["invoice_type"] == "commercial invoice"
    assert inv.tax_breakdown == [{"category": "S", "rate": "19", "basis": "1250.00", "tax": "237.50"}]
    if profile in ("MINIMUM", "BASIC WL"):
        assert inv.line_items == []
    else:
        assert [(x["description"], x["quantity"], x["unit_price"], x["amount"]) for x in inv.line_items] == [
            ("Gusseisenpfanne 28 cm", "10", "100.00", "1000.00"), ("Deckel", "5", "50.00", "250.00")]


def test_extended_group_lines_are_not_lines() -> None:
    inv = read_xml(cii_xml("EXTENDED", groups=True))
    assert [x["line_id"] for x in inv.line_items] == ["1", "2"]
    assert all(x["parent_line_id"] == "G1" for x in inv.line_items)


def test_zugferd_1() -> None:
    inv = read_xml(zugferd1_xml())
    assert inv.syntax == "CII (ZUGFeRD 1.0)" and inv.profile == "ZUGFeRD 1.0 COMFORT"
    assert inv.values["total"] == "1487.50" and inv.values["subtotal"] == "1250.00" and inv.values["tax"] == "237.50"
    assert inv.values["date"] == "2025-03-14" and inv.values["vendor_tax_id"] == VALUES["vendor_tax_id"]
    assert inv.line_items[0] == {"line_id": "1", "description": "Gusseisenpfanne", "quantity": "10",
                                 "unit_code": "C62", "unit_price": "125.00", "amount": "1250.00"}
    assert inv.tax_breakdown[0]["rate"] == "19"


@pytest.mark.parametrize("kind", ["Invoice", "CreditNote"])
def test_xrechnung_ubl(kind: str) -> None:
    inv = read_xml(ubl_xml(kind))
    assert inv.syntax == f"UBL {kind}" and inv.profile == "XRECHNUNG 2.0"
    for name in HEADER:
        assert inv.values[name] == VALUES[name], name
    assert inv.values["date"] == "2025-03-14"  # the +01:00 time zone is dropped
    assert inv.values["vendor_name"] == VALUES["vendor_name"]  # the legal name, not the trading name
    assert inv.values["invoice_type"] == ("commercial invoice" if kind == "Invoice" else "credit note")
    assert inv.values["payment_terms"] == "Zahlbar innerhalb 30 Tagen netto"
    assert inv.line_items[0]["quantity"] == "10" and inv.line_items[0]["unit_price"] == "125.00"


# -- hostile and malformed XML ---------------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">&lol3;</rsm:CrossIndustryInvoice>"""


def test_entity_expansion_refused() -> None:
    with pytest.raises(XmlError, match="DOCTYPE"):
        parse_xml(BILLION_LAUGHS)


def test_external_entity_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    xxe = (f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file://{secret}">]>'
           '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>&xxe;</ID></Invoice>').encode()
    with pytest.raises(EInvoiceError, match="DOCTYPE"):
        read_xml(xxe)


def test_parser_itself_expands_nothing() -> None:
    # Even past the DOCTYPE check the parser neither loads DTDs nor resolves entities.
    from lxml import etree

    from desktop.core.einvoice.xmlsafe import _parser

    root = etree.fromstring(BILLION_LAUGHS, parser=_parser())
    assert "lollol" not in etree.tostring(root).decode()


def test_huge_file_refused() -> None:
    with pytest.raises(XmlError, match="too large"):
        parse_xml(b"<a>" + b"x" * (MAX_XML_BYTES + 1) + b"</a>")


def test_malformed_and_wrong_namespace() -> None:
    with pytest.raises(EInvoiceError, match="not well-formed"):
        read_xml(cii_xml()[:-40])
    wrong = cii_xml().replace(b"urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100", b"urn:example:not-cii")
    with pytest.raises(EInvoiceError, match="root element <CrossIndustryInvoice> in namespace urn:example:not-cii") as err:
        read_xml(wrong)
    assert err.value.not_an_invoice
    with pytest.raises(EInvoiceError, match="empty"):
        read_xml(b"  ")


# -- Factur-X PDFs and the cross-check --------------------------------------------------------------

def test_facturx_pdf_agrees_with_its_page(tmp_path: Path) -> None:
    pdf = facturx_pdf(tmp_path / "rechnung.pdf", cii_xml("EN16931"))
    inv = read_structured(pdf)
    assert inv is not None and inv.origin == "factur-x.xml embedded in the PDF"
    (doc,) = scan_file(pdf, FakeEngine())
    assert doc.document_type == "invoice"
    for name in HEADER + ("due_date", "amount_due", "iban"):
        f = doc.fields[name]
        assert f.value == VALUES[name] and f.source == "xml", name
        assert f.problems == [] and not f.needs_review, (name, f.problems)
    assert doc.fields["total"].page == 1 and doc.fields["total"].boxes  # located on the page for the outline
    assert doc.extras["einvoice"]["mismatches"] == []
    assert doc.extras["tax_breakdown"][0]["tax"] == "237.50"
    assert len(doc.line_items) == 2


def test_page_and_xml_disagree(tmp_path: Path) -> None:
    pdf = facturx_pdf(tmp_path / "tampered.pdf", cii_xml("EN16931", total="1587.50"),
                      lines=page_lines(vendor="Ganz Andere Firma AG"))
    (doc,) = scan_file(pdf, FakeEngine())
    total = doc.fields["total"]
    assert total.value == "1587.50" and total.source == "xml"  # the XML wins ...
    assert total.needs_review and any("e-invoice data says total 1587.50" in p.message() for p in total.problems)  # ... flagged
    vendor = doc.fields["vendor_name"]
    assert vendor.needs_review and vendor.problems
    assert set(doc.extras["einvoice"]["mismatches"]) >= {"total", "vendor_name"}
    assert not doc.fields["subtotal"].problems  # what agrees is not flagged


@pytest.mark.parametrize(("name", "old", "new", "shows"), [
    # the amount to pay changed in the data alone (EN 16931 BR-CO-16: due = total - prepaid + rounding)
    ("amount_due", b"<ram:DuePayableAmount>1487.50", b"<ram:DuePayableAmount>1847.50", None),
    # another account to pay into: a valid IBAN, but not the one the page prints
    ("iban", b"DE02 1203 0000 0000 2020 51", b"DE89 3704 0044 0532 0130 00", "DE02120300000000202051"),
    ("due_date", b'<ram:DueDateDateTime><udt:DateTimeString format="102">20250413',
     b'<ram:DueDateDateTime><udt:DateTimeString format="102">20250613', "2025-04-13"),
    ("date", b'<ram:IssueDateTime><udt:DateTimeString format="102">20250314',
     b'<ram:IssueDateTime><udt:DateTimeString format="102">20250315', "2025-03-14"),
])
def test_payment_details_changed_in_the_data_alone_are_flagged(tmp_path: Path, name: str, old: bytes,
                                                               new: bytes, shows: str | None) -> None:
    xml = cii_xml("EN16931")
    assert old in xml
    pdf = facturx_pdf(tmp_path / "tampered.pdf", xml.replace(old, new))
    (doc,) = scan_file(pdf, FakeEngine())
    f = doc.fields[name]
    assert f.source == "xml" and f.needs_review, (name, f.value)
    codes = [p.code for p in f.problems]
    assert codes == [Code.EINVOICE_MISMATCH if shows else Code.EINVOICE_NOT_PRINTED], codes
    if shows:
        assert shows in f.problems[0].message()
    assert name in doc.extras["einvoice"]["mismatches"]
    others = [n for n, g in doc.fields.items() if g.needs_review and n != name]
    assert others == [], others  # nothing else is flagged


def test_payment_details_the_page_cannot_check_are_not_flagged(tmp_path: Path) -> None:
    """A page that prints no IBAN cannot contradict the data's; an amount due of zero (all prepaid)
    need not be printed."""
    lines = [ln for ln in page_lines() if not ln.startswith("IBAN")]
    xml = cii_xml("EN16931").replace(b"<ram:DuePayableAmount>1487.50", b"<ram:DuePayableAmount>0.00")
    (doc,) = scan_file(facturx_pdf(tmp_path / "prepaid.pdf", xml, lines=lines), FakeEngine())
    assert doc.fields["iban"].value == VALUES["iban"] and not doc.fields["iban"].needs_review
    assert doc.fields["amount_due"].value == "0.00" and not doc.fields["amount_due"].needs_review
    assert doc.extras["einvoice"]["mismatches"] == []


def test_printed_ibans_are_check_digit_valid_and_compact() -> None:
    from desktop.core.model import Line, PageResult
    from desktop.core.structured.crosscheck import printed_ibans

    page = PageResult(number=1, width=100, height=100, lines=[
        Line("IBAN: DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX", (0, 0, 10, 10)),
        Line("IBAN DE89 3704 0044 0532 0130 01", (0, 20, 10, 30)),  # a check-digit error: not an IBAN
        Line("GB82WEST12345698765432", (0, 40, 10, 50))])
    assert printed_ibans([page]) == ["DE89370400440532013000", "GB82WEST12345698765432"]


def test_attachment_under_another_name_and_af_only(tmp_path: Path) -> None:
    pdf = facturx_pdf(tmp_path / "zugferd1.pdf", zugferd1_xml(), name="ZUGFeRD-invoice.xml")
    inv = read_structured(pdf)
    assert inv is not None and inv.syntax == "CII (ZUGFeRD 1.0)"
    other = facturx_pdf(tmp_path / "renamed.pdf", ubl_xml(), name="rechnung-daten.xml")
    inv = read_structured(other)
    assert inv is not None and inv.syntax == "UBL Invoice"


def test_pdf_without_xml_and_with_broken_xml(tmp_path: Path) -> None:
    assert read_structured(facturx_pdf(tmp_path / "plain.pdf", None)) is None
    broken = facturx_pdf(tmp_path / "broken.pdf", BILLION_LAUGHS)
    with pytest.raises(EInvoiceError, match=r"factur-x\.xml.*DOCTYPE"):
        read_structured(broken)
    (doc,) = scan_file(broken, FakeEngine())  # the page is still read, and the clerk is told
    assert doc.error is None and doc.fields["total"].source == "text_layer"
    assert any(n.code == Code.EINVOICE_UNREADABLE and "factur-x.xml" in n.message() for n in doc.notes)


def test_exports_carry_the_new_fields_lines_and_tax_by_rate(tmp_path: Path) -> None:
    import csv
    import json

    import openpyxl

    from desktop.core.export import export_csv, export_json, export_xlsx
    from desktop.core.model import ScanResult

    (doc,) = scan_file(facturx_pdf(tmp_path / "rechnung.pdf", cii_xml("EN16931")), FakeEngine())
    export_xlsx([doc], tmp_path / "out.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "out.xlsx")
    header = [c.value for c in wb["Documents"][1]]
    row = [c.value for c in wb["Documents"][2]]
    got = dict(zip(header, row))
    assert got["Due date"].date().isoformat() == "2025-04-13" and got["Amount due"] == 1487.5
    assert got["Invoice type"] == "commercial invoice" and got["IBAN"] == VALUES["iban"]
    assert got["Tax by rate"] == "19%: tax 237.50 on 1250.00"
    rates = list(wb["Tax by rate"].iter_rows(values_only=True))
    assert rates[1][3:7] == ("S", "19", 1250, 237.5)
    items = list(wb["Line items"].iter_rows(values_only=True))
    assert len(items) == 3 and "Gusseisenpfanne 28 cm" in items[1]
    export_csv([doc], tmp_path / "out.csv")
    with open(tmp_path / "out.csv", encoding="utf-8-sig", newline="") as f:
        (line,) = list(csv.DictReader(f))
    assert line["Due date"] == "2025-04-13" and line["Tax by rate"] == "19%: tax 237.50 on 1250.00"
    export_json([doc], tmp_path / "out.json")
    back = ScanResult.load(tmp_path / "out.json").documents[0]
    assert back.fields["amount_due"].value == "1487.50" and back.fields["total"].source == "xml"
    assert back.extras["tax_breakdown"][0]["rate"] == "19" and len(back.line_items) == 2
    assert json.loads((tmp_path / "out.json").read_text())["schema_version"]
