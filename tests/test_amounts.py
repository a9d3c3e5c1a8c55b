"""Every sign and thousands notation of printed amounts (table-driven and property-based), the label
vocabularies, and credit notes as their own document type."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from desktop.core.diagnostics import Code
from desktop.core.doctypes import get_document_type
from desktop.core.extraction import detect_document_type, extract_fields, is_credit_note, validate
from desktop.core.extraction.amounts import find_amounts, format_amount, parse_amount
from desktop.core.extraction.dates import parse_date
from desktop.core.extraction.labels import ROLES, label_pattern, label_phrases, label_vocabulary
from desktop.core.extraction.parsers import money_tokens
from desktop.core.model import Field
from tests.pages import synthetic_page

NOTATIONS = [
    # sign notations
    ("(12.50)", "-12.50"),
    ("（12.50）", "-12.50"),
    ("(RM 12.50)", "-12.50"),
    ("RM (12.50)", "-12.50"),
    ("12.50-", "-12.50"),
    ("-12.50", "-12.50"),
    ("\u221212.50", "-12.50"),  # U+2212 minus sign
    ("-RM5.00", "-5.00"),
    ("RM -5.00", "-5.00"),
    ("€ -1.234,56", "-1234.56"),
    ("12.50 CR", "-12.50"),
    ("12.50CR", "-12.50"),
    ("Total:-12.50", "-12.50"),
    ("0.00-", "0.00"),
    # apostrophe groups (Switzerland, Liechtenstein)
    ("CHF 1'234.50", "1234.50"),
    ("1\u2019234.50", "1234.50"),
    ("Fr. 12'345'678.90", "12345678.90"),
    ("CHF 1'234", "1234.00"),
    ("CHF 12.–", "12.00"),
    ("12,- €", "12.00"),
    # Indian lakh / crore groups
    ("₹ 1,23,456.78", "123456.78"),
    ("Rs. 12,34,56,789.00", "123456789.00"),
    # thin, narrow no-break and no-break spaces
    ("1\u2009234,56", "1234.56"),
    ("1\u202f234\u202f567.89", "1234567.89"),
    ("1\u00a0234", "1234.00"),
    ("1 234 567,89", "1234567.89"),
    # dot / comma conventions
    ("1.234,56", "1234.56"),
    ("1,234.56", "1234.56"),
    ("1,234,567", "1234567.00"),
    ("1.234.567", "1234567.00"),
    ("12,5", "12.50"),
    ("０.５０", "0.50"),
    ("￥77.10元", "77.10"),
]


@pytest.mark.parametrize(("raw", "value"), NOTATIONS)
def test_every_notation_keeps_sign_and_size(raw: str, value: str) -> None:
    got, _cur, problems = parse_amount(raw)
    assert (got, problems) == (value, [])
    # the same amount found inside a labelled line, as the extractors see it
    tokens = money_tokens(f"TOTAL {raw}")
    assert [t[0] for t in tokens] == [value]


@pytest.mark.parametrize(
    "text",
    ["5-10", "10:30", "12/05/2019", "6%", "A4", "No123", "SR 100100000170- Veggies", "GST ID:002116837376",
     "2019年03月19日", "(728384-M)", "12345.678"],
)
def test_not_amounts(text: str) -> None:
    assert money_tokens(text) == []


@pytest.mark.parametrize(("text", "amounts"), [
    # footnote and note references are no money (QA: "Net[note 2]" in a report's chart given as the
    # total, 2.00, at 99.9%)
    ("\u2022Net[note 2]", []), ("SeNet{note 2]", []), ("Total [2]", []), ("see Note 4", []),
    ("Credit note 5", []), ("Anm. 1", []), ("Fu\u00dfnote 3", []), ("nota 2", []),
    # money beside a reference, or after a note word with its decimals or currency, stays money
    ("Note: 12.50", ["12.50"]), ("Total 12.50 [3]", ["12.50"]), ("RM 2 [1]", ["2.00"]),
    ("Net (note 7) 1,234.00", ["1234.00"]), ("TOTAL 2", ["2.00"]), ("Banknote 50", ["50.00"]),
])
def test_a_reference_number_is_no_amount(text: str, amounts: list[str]) -> None:
    assert [t[0] for t in money_tokens(text)] == amounts


def test_a_single_separator_before_three_digits_follows_the_document_convention() -> None:
    assert parse_amount("1.234")[0] == "1234.00"
    assert parse_amount("1.234", decimal_separator=".")[0] == "1.23"
    assert parse_amount("1,234", decimal_separator=",")[0] == "1.23"


def test_amount_offsets_point_at_the_printed_text() -> None:
    text = "Refund (CHF 1'234.50) and fee 3.00-"
    found = find_amounts(text)
    assert [(a.value, text[a.start:a.end]) for a in found] == [("-1234.50", "(CHF 1'234.50)"), ("-3.00", "3.00-")]
    assert found[0].negative and found[0].currency_marker == "CHF"


def test_an_unbalanced_parenthesis_is_text_not_a_sign() -> None:
    assert [t[0] for t in money_tokens("GST (6%) 3.00")] == ["3.00"]
    assert [t[0] for t in money_tokens("(incl. 12.50")] == ["12.50"]
    assert [t[0] for t in money_tokens("Total (RM) 12.50")] == ["12.50"]


def test_ocr_letters_for_digits_are_repaired() -> None:
    assert parse_amount("1O.5O")[0] == "10.50"
    assert parse_amount("abc")[0] is None


# -- property tests ------------------------------------------------------------------------------

cents = st.integers(min_value=0, max_value=10**11)


def _group(digits: str, sep: str, indian: bool = False) -> str:
    if indian and len(digits) > 3:
        head, tail = digits[:-3], digits[-3:]
        parts = []
        while len(head) > 2:
            parts.insert(0, head[-2:])
            head = head[:-2]
        parts.insert(0, head)
        return ",".join(parts) + "," + tail
    parts = []
    while len(digits) > 3:
        parts.insert(0, digits[-3:])
        digits = digits[:-3]
    parts.insert(0, digits)
    return sep.join(parts)


@st.composite
def printed_amounts(draw: st.DrawFn) -> tuple[str, Decimal]:
    c = draw(cents)
    value = Decimal(c) / 100
    integer, frac = divmod(c, 100)
    style = draw(st.sampled_from(["en", "de", "ch", "in", "fr_thin", "fr_space", "nbsp", "plain"]))
    digits = str(integer)
    group, dec = {"en": (",", "."), "de": (".", ","), "ch": ("'", "."), "in": (",", "."),
                  "fr_thin": ("\u202f", ","), "fr_space": (" ", ","), "nbsp": ("\u00a0", ","),
                  "plain": ("", ".")}[style]
    body = _group(digits, group, indian=style == "in") if group else digits
    body = f"{body}{dec}{frac:02d}"
    cur = draw(st.sampled_from(["", "RM", "€", "CHF ", "USD ", "₹", "¥"]))
    after = draw(st.booleans())
    text = f"{body} {cur.strip()}" if after and cur else f"{cur}{body}"
    sign = draw(st.sampled_from(["", "-", "()", "trail", "CR"]))
    if value and sign == "-":
        text, value = "-" + text, -value
    elif value and sign == "()":
        text, value = f"({text})", -value
    elif value and sign == "trail" and not (after and cur):
        text, value = text + "-", -value
    elif value and sign == "CR" and not (after and cur):
        text, value = text + " CR", -value
    return text, value


@settings(max_examples=200, deadline=None)
@given(printed_amounts())
def test_property_printed_amount_reads_back(case: tuple[str, Decimal]) -> None:
    text, value = case
    got, _cur, problems = parse_amount(text)
    assert problems == [] and got == format_amount(value), text
    tokens = money_tokens(f"TOTAL {text} ")
    assert [t[0] for t in tokens] == [format_amount(value)], text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789.,'-() CR€$¥元:%/\u2009\u00a0abcX合计"), max_size=30))
def test_property_any_text_never_raises_and_values_are_canonical(text: str) -> None:
    for a in find_amounts(text):
        assert Decimal(a.value) == Decimal(a.value).quantize(Decimal("0.01"))
        assert text[a.start:a.end].strip() == a.raw
    value, _cur, problems = parse_amount(text)
    # no value comes with the reason why; a value comes alone, or with the one warning that goes with a
    # value read one of two ways ("12.345": a thousands group or three decimals)
    assert value is not None or problems or not text.strip()
    if value is not None:
        assert all(p.code is Code.AMOUNT_GROUPING_AMBIGUOUS for p in problems), problems


@settings(max_examples=100, deadline=None)
@given(st.dates(min_value=dt.date(1970, 1, 1), max_value=dt.date(2069, 12, 31)),
       st.sampled_from(["{d:02d}/{m:02d}/{y}", "{y}-{m:02d}-{d:02d}", "{y}年{m}月{d}日", "{d:02d}.{m:02d}.{y}",
                        "{d} {mon} {y}", "{d:02d}-{m:02d}-{yy:02d}", "Date: {d:02d}/{m:02d}/{y} 10:30"]))
def test_property_printed_dates_read_back(date: dt.date, pattern: str) -> None:
    """Documents of 1970-2069 (four-digit years of the 1900s and 2000s; two-digit years follow the
    POSIX %y rule, 70-99 -> 19xx, so the 2000s up to 2069)."""
    assume("{yy" not in pattern or date.year >= 2000)
    mon = date.strftime("%b").upper()
    text = pattern.format(d=date.day, m=date.month, y=date.year, yy=date.year % 100, mon=mon)
    value, _problems = parse_date(text, "DMY")
    assert value == date.isoformat(), text


# -- label vocabularies -----------------------------------------------------------------------------

def test_vocabulary_has_every_role_and_the_chinese_receipt_labels() -> None:
    vocab = label_vocabulary()
    assert set(vocab) == set(ROLES)
    zh_totals = set(label_phrases("total", languages=["zh"]))
    assert {"合计", "总计", "实付", "应付", "实收", "金额"} <= zh_totals
    assert "小计" in label_phrases("subtotal", languages=["zh"])


def test_latin_labels_match_whole_words_and_chinese_ones_anywhere() -> None:
    total = label_pattern("total", languages=["fr", "zh"])
    assert total.search("Total TTC") and total.search("合 计：12.50") and total.search("本单合计")
    credit = label_pattern("credit_note", languages=["fr"])
    assert credit.search("AVOIR n° 12") and not credit.search("savoir-faire")


@pytest.mark.parametrize(
    ("rows", "total", "subtotal"),
    [
        # 合计 is the total; 实收 - 找零 agrees with it (实收 is the cash handed over)
        ([[("便利店", 10)], [("小计", 10), ("11.50", 400)], [("合计", 10), ("11.50", 400)],
          [("实收", 10), ("20.00", 400)], [("找零", 10), ("8.50", 400)]], "11.50", "11.50"),
        ([[("超市", 10)], [("合计：¥46.00", 10)], [("优惠：¥2.00", 10)], [("应付：¥44.00", 10)]], "44.00", None),
        ([[("超市", 10)], [("总计", 10), ("88.00元", 400)]], "88.00", None),
        ([[("Bäckerei GmbH", 10)], [("Zwischensumme", 10), ("3,50", 400)], [("Zu zahlen EUR", 10), ("3,50", 400)],
          [("Gegeben", 10), ("5,00", 400)], [("Rückgeld", 10), ("1,50", 400)]], "3.50", None),
        ([[("Boulangerie SARL", 10)], [("Sous-total", 10), ("10,00", 400)], [("TVA", 10), ("0,55", 400)],
          [("Total TTC", 10), ("10,55", 400)]], "10.55", "10.00"),
        ([[("Migros AG", 10)], [("Total CHF", 10), ("1'234.50", 400)]], "1234.50", None),
    ],
    ids=["zh_heji", "zh_yingfu", "zh_zongji", "de", "fr", "ch_apostrophe"],
)
def test_receipt_totals_in_other_languages(rows, total: str, subtotal: str | None) -> None:  # type: ignore[no-untyped-def]
    fields = extract_fields(synthetic_page(rows), "receipt").fields
    assert fields["total"].value == total
    if subtotal is not None:
        assert fields["subtotal"].value == subtotal


# -- credit notes -----------------------------------------------------------------------------------

def test_a_refund_receipt_is_a_credit_note_with_negative_amounts() -> None:
    pages = synthetic_page([[("ACME STORE SDN BHD", 10)], [("REFUND", 10)], [("Date: 05/03/2024", 10)],
                            [("SUBTOTAL", 10), ("11.79", 400)], [("GST 6%", 10), ("0.71", 400)],
                            [("TOTAL", 10), ("12.50", 400)]])
    assert detect_document_type(pages) == "credit_note"
    fields = extract_fields(pages, "credit_note").fields
    assert (fields["subtotal"].value, fields["tax"].value, fields["total"].value) == ("-11.79", "-0.71", "-12.50")
    assert fields["total"].problems == []  # negative is what a credit note is, not a problem


def test_a_credit_note_heading_is_not_the_vendor() -> None:
    """A credit note laid out as a till receipt is read by the receipt model (same fields, same
    calibration): the shop's name above the heading is the vendor, not the heading itself."""
    from desktop.core.extraction.field_model import load_model

    pages = synthetic_page([[("LIGHTROOM GALLERY SDN BHD", 150)], [("CREDIT NOTE", 220)],
                            [("NO 28, JALAN ASTANA 1C,", 150)], [("41050 KLANG SELANGOR", 160)],
                            [("GST REG NO: 000584089600", 150)], [("Date: 20/11/2017", 10)],
                            [("LAMP SHADE", 10), ("39.80", 400)], [("TOTAL", 10), ("39.80", 400)],
                            [("CASH REFUND", 10), ("39.80", 400)], [("THANK YOU", 220)]])
    assert detect_document_type(pages) == "credit_note"
    result = extract_fields(pages, "credit_note")
    model = load_model()
    assert model is not None and result.model_version == model.version  # the learned model chose
    fields = result.fields
    assert fields["vendor_name"].value == "LIGHTROOM GALLERY SDN BHD"
    assert fields["total"].value == "-39.80" and fields["date"].value == "2017-11-20"


def test_a_credit_note_invoice_printed_in_parentheses() -> None:
    pages = synthetic_page([[("Gutschrift", 10)], [("Muster GmbH", 10)], [("Rechnungsnummer: GS-2024-7", 10)],
                            [("Datum: 05.03.2024", 10)], [("Gesamtbetrag", 10), ("(119,00) EUR", 400)]])
    assert detect_document_type(pages) == "credit_note"
    fields = extract_fields(pages, "credit_note").fields
    assert fields["total"].value == "-119.00" and fields["invoice_number"].value == "GS-2024-7"


def test_a_returns_policy_is_not_a_credit_note() -> None:
    pages = synthetic_page([[("ACME STORE", 10)], [("No refund after 7 days", 10)], [("TOTAL", 10), ("12.50", 400)]])
    assert not is_credit_note(pages) and detect_document_type(pages) == "receipt"


def test_positive_total_typed_on_a_credit_note_is_flagged() -> None:
    assert get_document_type("credit_note").amount_sign == -1
    fields = {"total": Field("total", value="12.50", edited=True, source="user")}
    validate(fields, "credit_note")
    assert [p.code for p in fields["total"].problems] == [Code.POSITIVE_ON_CREDIT_NOTE]
    assert "credit note" in str(fields["total"].problems[0])


# -- document type: German invoice headings --------------------------------------------------------

@pytest.mark.parametrize("heading, expected", [
    ("Handelsrechnung (380) Nr. 123 vom 03.06.2025", "invoice"),  # EN 16931 BT-3 name with its code
    ("Mietrechnung Nr. 9314110911/00/M vom 01.10.2018", "invoice"),
    ("K O S T E N R E C H N U N G Seite 1", "invoice"),  # a heading in spaced capitals
    ("Rechnungsnummer: 2014-03", "invoice"),
    ("Abschlagsrechnung", "invoice"),
    ("Berechnung der Umsatzsteuer", "receipt"),  # "calculation": not an invoice
    ("Verrechnung mit Guthaben", "receipt"),  # "offsetting"
])
def test_german_invoice_headings(heading: str, expected: str) -> None:
    rows = [[("Muster GmbH", 10)], [("Hauptstr. 1, 10115 Berlin", 10)], [(heading, 10)],
            [("Datum: 03.06.2025", 10)], [("Artikel", 10), ("Menge", 500), ("Betrag", 800)],
            [("Beratung", 10), ("1", 500), ("100,00", 800)], [("Summe netto", 10), ("100,00", 800)],
            [("USt 19 %", 10), ("19,00", 800)], [("Gesamtbetrag", 10), ("119,00", 800)]]
    assert detect_document_type(synthetic_page(rows, width=1200)) == expected
