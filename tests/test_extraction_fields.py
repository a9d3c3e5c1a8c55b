"""Field extraction driven by recorded engine output (tests/data/ocr/*.json: our own PP-OCR lines for
sample images and the text layers of two invoice2data PDFs). Expected values are the samples' ground truth."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from desktop.core import flags
from desktop.core.diagnostics import Code
from desktop.core.doctypes import get_document_type
from desktop.core.extraction import (
    ExtractionResult,
    detect_document_type,
    extract_fields,
    fields_from_values,
    split_documents,
    validate,
)
from desktop.core.model import Field, Line, PageResult
from tests.pages import pages_of

DATA = Path(__file__).parent / "data" / "ocr"
QR_TIANJIN = "01,10,012001800311,33207675,46.62,20190508,76939056883466677916,E1BD,"
QR_SICHUAN = "01,01,5100191160,00472703,1456.31,20190614,,E6B0,"




def values(result: ExtractionResult) -> dict[str, str | None]:
    return {k: f.value for k, f in result.fields.items()}


@pytest.mark.parametrize(
    ("name", "doc_type"),
    [("sroie_006", "receipt"), ("sroie_086", "receipt"), ("sroie_265", "receipt"), ("sroie_430", "receipt"),
     ("vat_einvoice_tianjin", "cn_vat_invoice"), ("vat_normal_shenzhen_photo", "cn_vat_invoice"),
     ("vat_special_sichuan_photo", "cn_vat_invoice"), ("AzureInterior", "invoice"), ("coolblue1", "invoice")],
)
def test_detect_document_type(name: str, doc_type: str) -> None:
    assert detect_document_type(pages_of(name)) == doc_type


RECEIPTS = [
    ("sroie_006", {"vendor_name": "SOON HUAT MACHINERY ENTERPRISE", "date": "2019-01-11", "total": "327.00",
                   "currency": "MYR", "vendor_tax_id": "002116837376", "time": "09:44:00"}),
    ("sroie_086", {"vendor_name": "MR. D.I.Y. (KUCHAI) SDN BHD", "date": "2017-03-08", "total": "37.80",
                   "vendor_address": "LOT 1851-A & 1851-B, JALAN KPB 6, KAWASAN PERINDUSTRIAN BALAKONG, "
                                     "43300 SERI KEMBANGAN, SELANGOR"}),
    ("sroie_265", {"vendor_name": "Broadview Marketing Sdn Bhd", "date": "2017-05-15", "total": "4.70"}),
    ("sroie_430", {"vendor_name": "UNIHAKKA INTERNATIONAL SDN BHD", "date": "2018-05-07", "total": "8.70",
                   "currency": "MYR"}),
]


@pytest.mark.parametrize(("name", "expected"), RECEIPTS)
def test_receipt_fields(name: str, expected: dict[str, str]) -> None:
    result = extract_fields(pages_of(name), "receipt")
    assert set(result.fields) == set(get_document_type("receipt").fields)
    got = values(result)
    for key, value in expected.items():
        assert got[key] == value, key
    total = result.fields["total"]
    assert total.page == 1 and total.box is not None and 0 < total.confidence <= 1 and total.source == "ocr"


CN = [
    ("vat_einvoice_tianjin", {"invoice_code": "012001800311", "invoice_number": "33207675", "date": "2019-05-08",
                              "check_code": "76939056883466677916", "buyer_name": "个人", "buyer_tax_id": None,
                              "vendor_name": "天津瑞佳讯贸易有限公司", "vendor_tax_id": "91120222079642398Y",
                              "subtotal": "46.62", "tax": "6.08", "total": "52.70", "currency": "CNY"}),
    ("vat_normal_shenzhen_photo", {"invoice_code": "044031800104", "invoice_number": "41108527", "date": "2019-03-19",
                                   "check_code": "55617567333517793345", "buyer_name": "深圳市华云中盛科技有限公司",
                                   "buyer_tax_id": "91440300708436854B", "vendor_name": "深圳市南山区江南百货商场",
                                   "vendor_tax_id": "92440300L08175019R", "subtotal": "96.72", "tax": "15.48",
                                   "total": "112.20"}),
    ("vat_special_sichuan_photo", {"invoice_code": "5100191160", "invoice_number": "00472703", "date": "2019-06-14",
                                   "check_code": None, "buyer_name": "小米商业保理（天津）有限责任公司",
                                   "buyer_tax_id": "91120118MA06APGQXE", "vendor_name": "高新自助代开七",
                                   "vendor_tax_id": "51019800DK01187", "subtotal": "1456.31", "tax": "43.69",
                                   "total": "1500.00"}),
]


@pytest.mark.parametrize(("name", "expected"), CN)
def test_cn_vat_fields(name: str, expected: dict[str, str | None]) -> None:
    result = extract_fields(pages_of(name), "cn_vat_invoice")
    got = values(result)
    for key, value in expected.items():
        assert got[key] == value, key
    # everything checks out (the Sichuan seller's legacy 15-character tax ID included: it has no
    # check character, which is information, not a problem)
    problems = {k: f.problems for k, f in result.fields.items() if f.problems}
    assert problems == {}


CN_ITEMS = [
    ("vat_normal_shenzhen_photo", "*焙烤食品*泡吧夹心软面包", "96.72", "16%", "15.48"),
    ("vat_special_sichuan_photo", "技术服务费", "1456.31", "3%", "43.69"),
    ("vat_einvoice_tianjin", "(详见销货清单)", "46.62", "13%", "6.08"),
    # real-pipeline recording (shoebox scan): OCR splits the headers 金额 and 税额 into one box per
    # character, so the columns come from joined header boxes (6.08 is in the 税额 column)
    ("vat_einvoice_tianjin_pipeline", "(详见销货清单)", "46.62", "13%", "6.08"),
]


@pytest.mark.parametrize(("name", "description", "amount", "rate", "tax"), CN_ITEMS, ids=[c[0] for c in CN_ITEMS])
def test_cn_vat_line_items(name: str, description: str, amount: str, rate: str, tax: str) -> None:
    items = extract_fields(pages_of(name), "cn_vat_invoice").line_items
    assert len(items) == 1 and items[0]["description"] == description
    assert (items[0]["amount"], items[0]["tax_rate"], items[0]["tax"]) == (amount, rate, tax)


def test_qr_agreement_marks_source() -> None:
    result = extract_fields(pages_of("vat_einvoice_tianjin"), "cn_vat_invoice", qr_payloads=[QR_TIANJIN])
    for name in ("invoice_code", "invoice_number", "date", "subtotal", "check_code"):
        f = result.fields[name]
        assert (f.source, f.confidence, f.problems) == ("qr", 1.0, []), name
        assert f.box is not None  # still points at the printed value
    assert result.fields["total"].source == "ocr"


def test_qr_disagreement_is_a_problem() -> None:
    pages = pages_of("vat_einvoice_tianjin")
    for line in pages[0].lines:
        line.text = line.text.replace("33207675", "33207676")
    result = extract_fields(pages, "cn_vat_invoice", qr_payloads=[QR_TIANJIN])
    f = result.fields["invoice_number"]
    assert f.value == "33207675" and f.source == "qr"
    assert [str(p) for p in f.problems] == ["QR code says 33207675, printed 33207676"]
    validate(result.fields, "cn_vat_invoice")  # cross-checks survive revalidation
    assert [str(p) for p in f.problems] == ["QR code says 33207675, printed 33207676"]


def test_qr_fills_missing_fields() -> None:
    pages = pages_of("vat_special_sichuan_photo")
    pages[0].lines = [ln for ln in pages[0].lines if "00472703" not in ln.text]
    result = extract_fields(pages, "cn_vat_invoice", qr_payloads=[QR_SICHUAN])
    f = result.fields["invoice_number"]
    assert (f.value, f.source, f.confidence, f.box) == ("00472703", "qr", 1.0, None)


def test_amount_in_words_mismatch() -> None:
    pages = pages_of("vat_normal_shenzhen_photo")
    for line in pages[0].lines:
        line.text = line.text.replace("￥112.20", "￥112.30")
    total = extract_fields(pages, "cn_vat_invoice").fields["total"]
    assert total.value == "112.30"
    assert any(p.code == Code.AMOUNT_IN_WORDS_MISMATCH and p.params["words_value"] == "112.20" for p in total.problems)
    assert "subtotal + tax ≠ total (96.72 + 15.48 = 112.20, total 112.30)" in [str(p) for p in total.problems]


INVOICES = [
    ("AzureInterior", {"invoice_number": "INV/2023/03/0008", "date": "2023-03-20", "total": "279.84",
                       "subtotal": "262.90", "tax": "16.94", "currency": "USD", "vendor_name": "Azure Interior"}),
    ("coolblue1", {"invoice_number": "993548900", "date": "2014-04-19", "total": "717.97", "subtotal": "593.36",
                   "currency": "EUR", "vendor_name": "Coolblue B.V."}),
]


@pytest.mark.parametrize(("name", "expected"), INVOICES)
def test_invoice_fields(name: str, expected: dict[str, str]) -> None:
    result = extract_fields(pages_of(name), "invoice")
    got = values(result)
    for key, value in expected.items():
        assert got[key] == value, key
    assert result.fields["total"].source == "text_layer"


def test_every_field_present_even_when_empty() -> None:
    page = PageResult(number=1, width=100, height=100, lines=[])
    for doc_type in ("receipt", "invoice", "cn_vat_invoice"):
        result = extract_fields([page], doc_type)
        assert set(result.fields) == set(get_document_type(doc_type).fields)
        assert all(f.value is None or k == "currency" for k, f in result.fields.items())


def test_date_order_override() -> None:
    page = PageResult(number=1, width=400, height=600, lines=[
        Line("SOME SHOP SDN BHD", (10, 10, 300, 30), 0.99),
        Line("Date: 05/08/2017", (10, 50, 200, 70), 0.99),
        Line("TOTAL", (10, 100, 80, 120), 0.99), Line("RM 12.50", (200, 100, 300, 120), 0.99),
    ])
    assert extract_fields([page], "receipt").fields["date"].value == "2017-08-05"
    assert extract_fields([page], "receipt", date_order="MDY").fields["date"].value == "2017-05-08"


def test_impossible_date_is_flagged() -> None:
    page = PageResult(number=1, width=400, height=600, lines=[
        Line("SHOP ENTERPRISE", (10, 10, 300, 30), 0.99), Line("Date: 31/02/2024", (10, 50, 200, 70), 0.99)])
    f = extract_fields([page], "receipt").fields["date"]
    assert f.value is None
    assert any(p.code in (Code.IMPOSSIBLE_DATE, Code.IMPOSSIBLE_DAY, Code.IMPOSSIBLE_MONTH) for p in f.problems)


def test_fields_from_values_hunyuan_style() -> None:
    pages = pages_of("vat_einvoice_tianjin")
    printed = {"invoice_code": "012001800311", "invoice_number": "33207675", "date": "2019年05月08日",
               "check_code": "76939 05688 34666 77916", "total": "￥52.70元", "subtotal": "¥46.62",
               "vendor_tax_id": "91120222079642398Y", "not_a_field": "x", "tax": None}
    result = fields_from_values(printed, pages, "cn_vat_invoice", qr_payloads=[QR_TIANJIN])
    f = result.fields
    assert "not_a_field" not in f and set(f) == set(get_document_type("cn_vat_invoice").fields)
    assert (f["total"].value, f["total"].raw, f["total"].source) == ("52.70", "￥52.70元", "model")
    assert f["total"].page == 1 and f["total"].box is not None
    assert f["check_code"].value == "76939056883466677916" and f["check_code"].box is not None
    assert f["date"].value == "2019-05-08"
    assert f["tax"].value is None and f["buyer_name"].value is None  # never invented
    assert f["currency"].value == "CNY"
    assert f["invoice_code"].source == "qr"
    # the engine gave no tax: subtotal 46.62 and total 52.70 cannot be checked, and the clerk is told
    assert [p.code for p in f["total"].problems] == [Code.SUBTOTAL_TOTAL_NO_TAX]
    assert all(not x.problems for name, x in f.items() if name != "total")


def test_fields_from_values_flags_bad_values() -> None:
    pages = pages_of("vat_einvoice_tianjin")
    result = fields_from_values({"vendor_tax_id": "91120222079642398X", "date": "2019年02月30日"}, pages,
                                "cn_vat_invoice")
    assert result.fields["vendor_tax_id"].problems[0].code == Code.TAX_ID_CHECK_CHARACTER
    assert result.fields["date"].value is None and "impossible" in result.fields["date"].problems[0].message()


def test_negative_total_is_flagged() -> None:
    page = PageResult(number=1, width=400, height=600, lines=[
        Line("SHOP ENTERPRISE", (10, 10, 300, 30), 0.99),
        Line("GRAND TOTAL", (10, 100, 120, 120), 0.99), Line("-12.50", (200, 100, 300, 120), 0.99)])
    f = extract_fields([page], "receipt").fields["total"]
    assert f.value == "-12.50" and [str(p) for p in f.problems] == ["total -12.50 is negative"]


def test_validate_after_edit() -> None:
    result = extract_fields(pages_of("vat_normal_shenzhen_photo"), "cn_vat_invoice")
    f = result.fields
    f["total"].value, f["total"].edited = "112.30", True
    validate(f, "cn_vat_invoice")
    assert [p.code for p in f["total"].problems] == [Code.SUM_MISMATCH]
    assert str(f["total"].problems[0]) == "subtotal + tax ≠ total (96.72 + 15.48 = 112.20, total 112.30)"
    f["total"].value = "112.20"
    validate(f, "cn_vat_invoice")
    assert f["total"].problems == []


def test_a_failed_sum_flags_the_subtotal_and_tax_with_the_total() -> None:
    # the check cannot say which value is wrong: the subtotal and tax it involved carry it too, and
    # lose it once the values add up
    f = {"subtotal": Field("subtotal", "10000.00"), "tax": Field("tax", "1900.00"), "total": Field("total", "14380.00")}
    validate(f, "invoice")
    assert [p.code for p in f["subtotal"].problems] == [p.code for p in f["tax"].problems] == [Code.SUM_MISMATCH]
    assert flags.is_flagged(f["subtotal"]) and flags.is_flagged(f["tax"])
    f["subtotal"].value = "12480.00"
    validate(f, "invoice")
    assert f["subtotal"].problems == f["tax"].problems == f["total"].problems == []


def _renumbered(pages: list[PageResult], number: int, old: str, new: str) -> PageResult:
    page = copy.deepcopy(pages[0])
    page.number = number
    for line in page.lines:
        line.text = line.text.replace(old, new)
    return page


def test_split_documents() -> None:
    tianjin = pages_of("vat_einvoice_tianjin")
    a = _renumbered(tianjin, 1, "33207675", "33207675")
    b = _renumbered(tianjin, 2, "33207675", "33207699")
    blank = PageResult(number=3, width=980, height=575, lines=[Line("(续页) 第2页", (10, 10, 200, 30), 0.9)])
    assert split_documents([a, b, blank]) == [(1, 1), (2, 3)]
    same_again = _renumbered(tianjin, 2, "x", "x")
    assert split_documents([a, same_again]) == [(1, 2)]
    azure = pages_of("AzureInterior")
    cont = PageResult(number=2, width=612, height=792, lines=[Line("Terms and conditions", (30, 30, 200, 40))])
    assert split_documents([azure[0], cont]) == [(1, 2)]
    assert split_documents([]) == []


def test_a_vat_invoice_qr_code_decides_the_type_even_without_text():
    """The engine read nothing useful, but the tax authority's QR code says what the paper is."""
    from desktop.core.extraction import detect_document_type
    from desktop.core.model import PageResult

    blank = [PageResult(number=1, width=980, height=575, lines=[])]
    payload = "01,10,012001800311,33207675,46.62,20190508,76939056883466677916,E1BD,"
    assert detect_document_type(blank) == "receipt"
    assert detect_document_type(blank, qr_payloads=[payload]) == "cn_vat_invoice"
    assert detect_document_type(blank, qr_payloads=["https://example.com/not-an-invoice"]) == "receipt"
