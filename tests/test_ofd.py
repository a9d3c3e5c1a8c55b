"""OFD packages and XML invoices as documents: drawn pages, text from the page XML, QR codes, data."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from desktop.core import intake
from desktop.core.diagnostics import Code
from desktop.core.einvoice import ofd, read_structured
from desktop.core.pipeline import scan_file
from tests.einvoice_fixtures import ubl_xml
from tests.fake_engines import FakeEngine
from tests.ofd_fixtures import DIGITAL, invoice_xml, make_ofd, qr_payload


def _scan(path: Path):
    (doc,) = scan_file(path, FakeEngine())
    assert doc.error is None, doc.error
    return doc


def test_ofd_with_xml_and_vector_qr(tmp_path: Path) -> None:
    path = make_ofd(tmp_path / "fapiao.ofd", qr="vector")
    assert intake.sniff_format(path) == "ofd"
    doc = _scan(path)
    assert doc.document_type == "cn_vat_invoice"
    assert [p.origin for p in doc.page_results] == ["ofd"]
    assert qr_payload() in doc.extras["qr_payloads"]  # the vector-drawn QR code renders and decodes
    for name in ("invoice_number", "date", "buyer_name", "buyer_tax_id", "vendor_name", "vendor_tax_id",
                 "subtotal", "tax", "total"):
        f = doc.fields[name]
        assert f.value == DIGITAL[name] and f.source == "xml", (name, f.source, [str(n) for n in doc.notes],
                                                                 doc.extras.get("einvoice"))
        assert not f.problems and not f.needs_review, (name, f.problems)
    assert doc.fields["invoice_number"].boxes  # found on the page: the viewer can outline it
    # a 20-digit 数电票 number without code and check code is valid
    assert doc.fields["invoice_code"].value is None and not doc.fields["invoice_number"].problems
    # ... and its empty invoice code is nothing missing: not flagged, not counted
    from desktop.core import flags

    assert not doc.fields["invoice_code"].needs_review and "invoice_code" not in flags.flagged_fields(doc)
    assert doc.fields["invoice_type"].value == "电子发票（普通发票）"
    exempt = doc.line_items[1]
    assert exempt["tax_rate"] == "免税" and exempt["tax"] == "0.00" and exempt["tax_printed"] == "***"


def test_ofd_multipage_without_xml_with_image_qr(tmp_path: Path) -> None:
    path = make_ofd(tmp_path / "list.ofd", xml=False, qr="image", pages=2)
    assert read_structured(path) is None
    doc = _scan(path)
    assert doc.pages == (1, 2) and [p.origin for p in doc.page_results] == ["ofd", "ofd"]
    assert "第2页/共2页" in doc.page_results[1].text
    assert qr_payload() in doc.extras["qr_payloads"]
    assert doc.fields["invoice_number"].value == DIGITAL["invoice_number"]
    assert doc.fields["total"].value == "1000.00"  # the 数电票 QR amount is the tax-inclusive total
    assert doc.fields["total"].source == "qr"
    assert doc.fields["subtotal"].value == "990.10" and doc.fields["subtotal"].source == "ofd_text"
    # 数电票 layout: buyer and seller blocks side by side, read from the OFD text
    for name in ("buyer_name", "buyer_tax_id", "vendor_name", "vendor_tax_id"):
        assert doc.fields[name].value == DIGITAL[name] and doc.fields[name].source == "ofd_text", name


def test_ofd_fonts_missing_everywhere_still_reads_every_character(tmp_path: Path) -> None:
    path = make_ofd(tmp_path / "fonts.ofd", font_name="方正不存在体-GBK", qr=None)
    drawn = ofd.to_pdf(path)
    text = " ".join(ln.text for ln in drawn.lines[1])
    assert DIGITAL["vendor_name"] in text and DIGITAL["invoice_number"] in text
    import pymupdf

    pdf = pymupdf.open(stream=drawn.pdf, filetype="pdf")
    assert DIGITAL["vendor_name"] in pdf[0].get_text().replace("\n", "")  # drawn, not dropped
    page = next(intake.open_pages(path))
    image, scale = page.render(2_000_000)
    assert image.ndim == 3 and image.shape[2] == 3 and (image < 128).any()


def test_qr_total_disagreeing_with_the_xml_is_flagged(tmp_path: Path) -> None:
    path = make_ofd(tmp_path / "tampered.ofd", qr="vector", qr_total="1100.00")
    doc = _scan(path)
    total = doc.fields["total"]
    assert total.value == "1000.00" and total.source == "xml"
    assert total.needs_review and any(p.code == Code.EINVOICE_QR_MISMATCH and "QR code says 1100.00" in p.message()
                                      for p in total.problems)
    assert "total" in doc.extras["einvoice"]["mismatches"]


def test_metadata_only_ofd(tmp_path: Path) -> None:
    path = make_ofd(tmp_path / "meta.ofd", xml=False, qr=None, custom_data=True)
    inv = read_structured(path)
    assert inv is not None and inv.syntax == "CN OFD metadata"
    assert inv.values["invoice_number"] == DIGITAL["invoice_number"] and inv.values["date"] == DIGITAL["date"]
    doc = _scan(path)
    assert doc.fields["subtotal"].source == "xml" and not doc.fields["subtotal"].problems


def test_damaged_and_hostile_packages(tmp_path: Path) -> None:
    broken = tmp_path / "broken.ofd"
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("OFD.xml", "<ofd:OFD xmlns:ofd='http://www.ofdspec.org/2016'><ofd:DocBody><ofd:DocRoot>Doc_0/Document.xml"
                   "</ofd:DocRoot></ofd:DocBody></ofd:OFD>")
    (doc,) = scan_file(broken, FakeEngine())
    assert doc.error is not None and doc.error.code == Code.OFD_UNREADABLE and "Document.xml" in doc.error.message()
    hostile = make_ofd(tmp_path / "hostile.ofd", xml=b'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><eInvoice>&x;</eInvoice>')
    (doc,) = scan_file(hostile, FakeEngine())  # the pages are still read; the clerk is told why the data was not
    assert doc.error is None and any(n.code == Code.EINVOICE_UNREADABLE and "DOCTYPE" in n.message() for n in doc.notes)
    plain_zip = tmp_path / "photos.zip"
    with zipfile.ZipFile(plain_zip, "w") as z:
        z.writestr("a.txt", "x")
    with pytest.raises(intake.UnsupportedFormatError, match="ZIP"):
        intake.sniff_format(plain_zip)


def test_xml_invoice_is_a_document_with_a_generated_view(tmp_path: Path) -> None:
    path = tmp_path / "xrechnung.xml"
    path.write_bytes(ubl_xml())
    assert intake.sniff_format(path) == "xml"
    doc = _scan(path)
    assert doc.document_type == "invoice" and doc.page_results[0].origin == "xml_view"
    assert doc.fields["total"].value == "1487.50" and doc.fields["total"].source == "xml"
    assert not any(f.problems for f in doc.fields.values())  # nothing to cross-check: the view is the data
    assert doc.fields["buyer_address"].value is not None
    assert "Gusseisenpfanne" in doc.page_results[0].text  # the view shows the lines
    image, _ = intake.load_page(path, 1).render(1_000_000)
    assert image.shape[2] == 3 and (image < 100).any()


def test_xml_that_is_not_an_invoice(tmp_path: Path) -> None:
    path = tmp_path / "feed.xml"
    path.write_bytes(b'<?xml version="1.0"?><rss version="2.0"><channel/></rss>')
    (doc,) = scan_file(path, FakeEngine())
    assert doc.error is not None and doc.error.code == Code.XML_NOT_AN_INVOICE and "<rss>" in doc.error.message()
    assert "XML" in doc.error.message("zh")


def test_cn_invoice_xml_file(tmp_path: Path) -> None:
    path = tmp_path / "fapiao.xml"
    path.write_bytes(invoice_xml(DIGITAL))
    doc = _scan(path)
    assert doc.document_type == "cn_vat_invoice" and doc.fields["vendor_name"].value == DIGITAL["vendor_name"]
    assert DIGITAL["vendor_name"] in doc.page_results[0].text  # CJK drawn in the generated view
    assert np.asarray(intake.load_page(path, 1).render(500_000)[0]).size
