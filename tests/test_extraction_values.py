"""Table-driven tests for amounts, dates, validators and the VAT QR code (no OCR, no samples)."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import normalise_field
from desktop.core.extraction.amounts import currency_from_text, parse_amount
from desktop.core.extraction.dates import find_times, parse_date
from desktop.core.extraction.qr import decode_qr, parse_vat_qr
from desktop.core.extraction.validators import (
    check_check_code,
    check_invoice_code,
    check_invoice_number,
    check_sum,
    check_tax_id_cn,
    parse_chinese_amount,
    uscc_check_char,
)


@pytest.mark.parametrize(
    ("raw", "value", "currency"),
    [
        ("￥77.10元", "77.10", "CNY"),
        ("¥46.62", "46.62", "JPY"),  # a bare yen sign off a Chinese document (CNY on one: see below)
        ("RM6.00", "6.00", "MYR"),
        ("RM 96.20", "96.20", "MYR"),
        ("1.234,56 €", "1234.56", "EUR"),
        ("$1,234.56", "1234.56", "USD"),
        ("EUR 1.234,56", "1234.56", "EUR"),
        ("1 234,56", "1234.56", None),
        ("56,02 €", "56.02", "EUR"),
        ("4.904,94", "4904.94", None),
        ("(小写)¥52.70", "52.70", "CNY"),
        ("12", "12.00", None),
        ("-5.00", "-5.00", None),
        ("Rs -40.00", "-40.00", "INR"),
        ("TOTAL: 37.80", "37.80", None),
    ],
)
def test_parse_amount(raw: str, value: str, currency: str | None) -> None:
    got, cur, problems = parse_amount(raw)
    assert (got, cur, problems) == (value, currency, [])


@pytest.mark.parametrize("raw", ["abc", "TOTAL", "—"])
def test_parse_amount_bad(raw: str) -> None:
    value, _cur, problems = parse_amount(raw)
    assert value is None and [p.code for p in problems] == [Code.NO_AMOUNT] and raw in problems[0].message()


def test_parse_amount_empty() -> None:
    assert parse_amount("") == (None, None, [])
    assert parse_amount(None) == (None, None, [])


@pytest.mark.parametrize(
    ("text", "code"),
    [("TOTAL (RM)", "MYR"), ("Total EUR 34,73", "EUR"), ("SDN BHD", None), ("€ 717,97", "EUR"), ("US$ 5", "USD")],
)
def test_currency_from_text(text: str, code: str | None) -> None:
    assert currency_from_text(text) == code


def test_yen_sign_on_chinese_document_is_cny() -> None:
    assert currency_from_text("¥46.62", chinese_document=True) == "CNY"
    assert currency_from_text("价税合计 ¥46.62") == "CNY"


@pytest.mark.parametrize(
    ("raw", "order", "value"),
    [
        ("25/12/2017", None, "2017-12-25"),
        ("11/01/2019", "DMY", "2019-01-11"),
        ("03/20/2023", "MDY", "2023-03-20"),
        ("08-03-17", "DMY", "2017-03-08"),
        ("2019-05-08", None, "2019-05-08"),
        ("2019年03月19日", None, "2019-03-19"),
        ("开票日期：2019 05 08", None, "2019-05-08"),
        ("20190614", None, "2019-06-14"),
        ("11 JUN 2018", None, "2018-06-11"),
        ("07 May 2018 18:21", None, "2018-05-07"),
        ("19 april 2014", None, "2014-04-19"),
        ("7. Mai 2014", None, "2014-05-07"),
        ("20 octobre 2022", None, "2022-10-20"),
        ("Oct 20, 2015", "MDY", "2015-10-20"),
        (":16-03-201812:07:10", None, "2018-03-16"),
        ("8-9-2022", "DMY", "2022-09-08"),
    ],
)
def test_parse_date(raw: str, order: str | None, value: str) -> None:
    got, problems = parse_date(raw, order)
    assert got == value
    assert not [p for p in problems if p.code in (Code.IMPOSSIBLE_DATE, Code.IMPOSSIBLE_DAY, Code.IMPOSSIBLE_MONTH)]


@pytest.mark.parametrize(
    ("raw", "order", "message"),
    [("31/02/2024", "DMY", "day 31 of month 2"), ("05/13/2024", "DMY", "month 13"), ("2019年13月01日", None, "month 13")],
)
def test_parse_date_impossible(raw: str, order: str | None, message: str) -> None:
    value, problems = parse_date(raw, order)
    assert value is None
    assert any(message in p.message() for p in problems)


def test_parse_date_ambiguous_without_order_is_noted() -> None:
    value, problems = parse_date("05/08/2017")
    assert value == "2017-08-05"
    assert [p.code for p in problems] == [Code.AMBIGUOUS_DATE_ORDER]
    assert parse_date("05/08/2017", "DMY") == ("2017-08-05", [])
    assert parse_date("25/08/2017") == ("2017-08-25", [])


def test_parse_date_none() -> None:
    assert parse_date("INV/2023/03/0008")[0] is None
    assert parse_date("") == (None, [])


def test_times() -> None:
    assert [t[0] for t in find_times("13-02-2016 02:29 PM x 23:59 09:44:00 18·24")] == ["14:29", "23:59", "09:44:00", "18:24"]


@pytest.mark.parametrize("tax_id", ["91120222079642398Y", "91440300708436854B", "92440300L08175019R",
                                    "91120118MA06APGQXE", "91510100MA61T6NU56"])
def test_uscc_valid(tax_id: str) -> None:
    assert check_tax_id_cn(tax_id) == []
    assert uscc_check_char(tax_id[:17]) == tax_id[17]


@pytest.mark.parametrize("tax_id", ["91120222079642398X", "91120222079642399Y", "91440300708436864B"])
def test_uscc_one_char_changed(tax_id: str) -> None:
    problems = check_tax_id_cn(tax_id)
    assert [p.code for p in problems] == [Code.TAX_ID_CHECK_CHARACTER] and "GB 32100-2015" in problems[0].message()


def test_tax_id_other_forms() -> None:
    # legacy taxpayer IDs (15/17/20 characters) carry no check character: well-formed is all we can
    # say, and that is not a problem
    for legacy in ("51019800DK01187", "44030019201900000", "44030019201900000123"):
        assert check_tax_id_cn(legacy) == []
    assert check_tax_id_cn("51019800DK011")[0].code == Code.TAX_ID_LENGTH
    assert check_tax_id_cn("51019800DK01-87")[0].code == Code.TAX_ID_LENGTH
    assert check_tax_id_cn("91120222O79642398Y")[0].code == Code.TAX_ID_BAD_CHARACTER  # letter O: not in the charset
    assert "expected 18" in check_tax_id_cn("9112022207")[0].message()


@pytest.mark.parametrize(
    ("check", "value", "ok"),
    [
        (check_invoice_code, "012001800311", True),
        (check_invoice_code, "5100191160", True),
        (check_invoice_code, "044031800104", True),
        (check_invoice_code, "01200180031", False),
        (check_invoice_code, "0120018003A1", False),
        (check_invoice_code, "9900191160", False),
        (check_invoice_number, "33207675", True),
        (check_invoice_number, "3320767", False),
        (check_check_code, "76939056883466677916", True),
        (check_check_code, "7693905688346667791", False),
    ],
)
def test_code_formats(check, value: str, ok: bool) -> None:
    assert (check(value) == []) is ok


def test_invoice_number_fully_digital() -> None:
    assert check_invoice_number("24442000000012345678", has_code=False) == []
    assert check_invoice_number("24442000000012345678", has_code=True)


@pytest.mark.parametrize(
    ("words", "value"),
    [("伍拾贰圆柒角", "52.70"), ("壹佰壹拾贰圆贰角整", "112.20"), ("壹仟伍佰圆整", "1500.00"),
     ("⊗伍拾贰圆柒角", "52.70"), ("壹万零伍拾圆零伍分", "10050.05"), ("拾圆整", "10.00"), ("壹仟零壹拾圆", "1010.00"),
     ("叁亿贰仟万圆整", "320000000.00"), ("no words", None)],
)
def test_chinese_amount(words: str, value: str | None) -> None:
    assert parse_chinese_amount(words) == value


@pytest.mark.parametrize(("subtotal", "tax", "total", "ok"), [
    ("106.10", "6.37", "112.45", True),   # 112.47 rounded down to the nearest 5 sen (1-2 sen down)
    ("4.60", "0.28", "4.90", True),       # 4.88 up (8-9 sen up)
    ("52.00", "3.12", "55.10", True),     # 55.12 down
    ("52.00", "3.13", "55.15", True),     # 55.13 up to 5 (3-4 sen up)
    ("52.00", "3.12", "55.15", False),    # 55.12 is rounded to 55.10, not 55.15
    ("52.00", "3.12", "55.00", False),    # a difference larger than any rounding
    ("52.00", "3.11", "55.10", True),
])
def test_check_sum_allows_cash_rounding_to_five_cents(subtotal: str, tax: str, total: str, ok: bool) -> None:
    from desktop.core.extraction.validators import check_sum_without_tax

    assert (check_sum(subtotal, tax, total) == []) is ok
    # the same rounding with no tax read: subtotal 112.47, total 112.45 is no unexplained difference
    s = str(Decimal(subtotal) + Decimal(tax))
    assert (check_sum_without_tax(s, None, total) == []) is ok


def test_check_sum() -> None:
    assert check_sum("96.72", "15.48", "112.20") == []
    assert [str(p) for p in check_sum("96.72", "15.48", "112.30")] == [
        "subtotal + tax ≠ total (96.72 + 15.48 = 112.20, total 112.30)"]
    assert check_sum(None, "15.48", "112.30") == []


QR_TIANJIN = "01,10,012001800311,33207675,46.62,20190508,76939056883466677916,E1BD,"


def test_parse_vat_qr() -> None:
    d = parse_vat_qr(QR_TIANJIN)
    assert d is not None
    assert (d["invoice_code"], d["invoice_number"], d["subtotal"], d["date"], d["check_code"], d["type"]) == (
        "012001800311", "33207675", "46.62", "2019-05-08", "76939056883466677916", "10")
    special = parse_vat_qr("01,01,5100191160,00472703,1456.31,20190614,,E6B0,")
    assert special and special["check_code"] is None and special["type_name"] == "增值税专用发票"
    assert parse_vat_qr("https://example.com") is None
    assert parse_vat_qr("01,10,ABC,33207675,46.62,20190508,,X,") is None


def _qr_image(text: str, scale: int = 4) -> np.ndarray:
    import zxingcpp

    barcode = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode)
    return np.asarray(barcode.to_image(scale=scale))


def test_decode_qr_generated() -> None:
    img = _qr_image(QR_TIANJIN)
    page = np.full((600, 900, 3), 255, np.uint8)
    page[20:20 + img.shape[0], 30:30 + img.shape[1]] = img[..., None]
    assert decode_qr(page) == [QR_TIANJIN]
    assert decode_qr(np.full((100, 100, 3), 255, np.uint8)) == []


def test_decode_qr_small_code_in_top_left_quarter() -> None:
    # a QR code drawn at 1 pixel per module is too small to read directly; the 2x upscale finds it
    img = _qr_image(QR_TIANJIN, scale=1)
    page = np.full((400, 600), 255, np.uint8)
    page[10:10 + img.shape[0], 10:10 + img.shape[1]] = img
    assert QR_TIANJIN in decode_qr(page)


@pytest.mark.parametrize(
    ("name", "raw", "value"),
    [("total", "￥77.10元", "77.10"), ("date", "2019年05月08日", "2019-05-08"), ("check_code", "76939 05688 34666 77916",
      "76939056883466677916"), ("currency", "€", "EUR"), ("currency", "rm", "MYR"), ("vendor_tax_id", "9112 0222 0796 4239 8y",
      "91120222079642398Y"), ("time", "02:29 PM", "14:29"), ("invoice_number", "# BLR_WFLD2015", "BLR_WFLD2015"),
     ("buyer_name", "小米商业保理(天津)有限责任公司", "小米商业保理（天津）有限责任公司")],
)
def test_normalise_field(name: str, raw: str, value: str) -> None:
    assert normalise_field(name, raw)[0] == value


def test_subtotal_and_total_differ_without_tax_is_flagged() -> None:
    from desktop.core.extraction.validators import check_sum_without_tax

    (problem,) = check_sum_without_tax("96.72", None, "112.20")
    assert problem.code == Code.SUBTOTAL_TOTAL_NO_TAX and problem.field == "total"
    assert problem.message() == ("subtotal 96.72 and total 112.20 differ by 15.48 and no tax was read: check the tax "
                                 "(or a discount, service charge or rounding)")
    assert check_sum_without_tax("96.72", None, "96.72") == []  # nothing to explain
    assert check_sum_without_tax("96.72", "15.48", "112.30") == []  # check_sum's case
    assert check_sum_without_tax(None, None, "112.20") == []
