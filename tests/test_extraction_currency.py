"""Table-driven tests of how a document's currency is decided when it is not printed, or printed with an
ambiguous or misread sign (desktop.core.extraction.common.document_currency and .country).

All texts are made up; each kind of evidence is tried in several variants.
"""
from __future__ import annotations

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import extract_fields
from desktop.core.extraction.country import country_evidence
from desktop.core.flags import is_flagged
from tests.pages import synthetic_page


def _receipt(lines: list[str]) -> list:
    return synthetic_page([[(t, 10)] for t in lines])


_TAIL = ["Iced coffee 1 4.50", "Toast set 1 3.80", "TOTAL 8.30", "CASH 10.00", "CHANGE 1.70"]

# (id, page lines, currency, flagged)
INFERRED = [
    # Singapore: postal code + GST at a Singapore rate: strong, not flagged
    ("sg-postcode-gst9", ["Kopi Corner Pte Ltd", "21 Bukit Merah Lane, Singapore 159521", "GST Reg No: M90312345K",
                          *_TAIL, "GST 9% incl. 0.69"], "SGD", False),
    ("sg-postcode-uen", ["Lim Trading Pte Ltd", "UEN: 201934567K", "3 Jalan Kayu, Singapore 799487", *_TAIL],
     "SGD", False),
    # only one piece of Singapore evidence: weak, flagged
    ("sg-gst8-only", ["Harbour Bakery", "GST 8% 0.61", *_TAIL], "SGD", True),
    ("sg-phone-only", ["Noodle Bar", "Tel +65 6234 5678", *_TAIL], "SGD", True),
    # Malaysia
    ("my-sdn-bhd-state", ["KEDAI RUNCIT MAJU SDN BHD", "NO 5, JALAN MAWAR, 43000 KAJANG, SELANGOR", *_TAIL],
     "MYR", False),
    ("my-gst6-gstid", ["99 MINI MART", "GST ID: 000123456789", *_TAIL, "GST 6% 0.47"], "MYR", False),
    ("my-sdn-bhd-only", ["SYARIKAT ABC SDN BHD", *_TAIL], "MYR", True),
    # India
    ("in-gstin-cgst", ["Sharma Sweets", "GSTIN: 07AABCS1234F1Z9", *_TAIL, "CGST 2.5% 0.21", "SGST 2.5% 0.21"],
     "INR", False),
    ("in-rupees-lakh", ["Patel Traders", "Total 1,25,000.00", "Rupees One Lakh Twenty Five Thousand only"], "INR", False),
    # United Kingdom
    ("gb-postcode-vat", ["The Olive Tree", "4 High Street, Leeds LS1 6AB", "VAT Reg No GB 123 4567 89", *_TAIL],
     "GBP", False),
    ("gb-postcode-only", ["Corner Shop", "9 Mill Lane, Bath BA1 1AA", *_TAIL], "GBP", True),
    # United States
    ("us-state-zip", ["Fresh Foods Market", "1200 SE Oak St, Portland OR 97214", *_TAIL], "USD", True),
]


@pytest.mark.parametrize(("lines", "currency", "flagged"), [c[1:] for c in INFERRED], ids=[c[0] for c in INFERRED])
def test_an_unprinted_currency_is_inferred_and_says_so(lines, currency, flagged) -> None:
    f = extract_fields(_receipt(lines), "receipt").fields["currency"]
    assert f.value == currency
    assert f.source == "inferred"
    assert f.raw is None and f.box is None and not f.boxes
    assert any(p.code == Code.CURRENCY_INFERRED for p in f.problems) == flagged
    assert is_flagged(f) == flagged


def test_a_japanese_page_points_to_japan() -> None:
    ev = country_evidence("カフェ さくら\n〒150-0001 東京都渋谷区")
    assert ev is not None and ev.currency == "JPY" and ev.strong


def test_a_weak_inference_message_names_its_evidence() -> None:
    f = extract_fields(_receipt(["Harbour Bakery", "GST 8% 0.61", *_TAIL]), "receipt").fields["currency"]
    (p,) = [p for p in f.problems if p.code == Code.CURRENCY_INFERRED]
    assert "SGD" in p.message("en") and "GST at a Singapore rate" in p.message("en")
    assert "SGD" in p.message("zh")


# (id, page lines, currency): a printed code or sign is read as printed, source ocr
PRINTED = [
    ("sg-dollar-sign", ["Kopi Corner", "Singapore 159521", "TOTAL $8.30"], "SGD"),
    ("sgd-code", ["Kopi Corner", "GST Reg No: M90312345K", "TOTAL SGD 8.30"], "SGD"),
    ("s-dollar", ["Kopi Corner", "GST Reg No: M90312345K", "TOTAL S$8.30"], "SGD"),
    ("my-dollar-is-ringgit", ["KEDAI MAJU SDN BHD", "SELANGOR", "TOTAL $8.30"], "MYR"),
    ("us-dollar", ["Fresh Foods", "Portland OR 97214", "TOTAL $8.30"], "USD"),
    ("pound", ["The Olive Tree", "Leeds LS1 6AB", "TOTAL £8.30"], "GBP"),
    ("rupee", ["Sharma Sweets", "Total ₹1,250.00"], "INR"),
    ("yen-japan", ["Cafe Sakura", "〒150-0001 Tokyo", "TOTAL ¥1200"], "JPY"),
]


@pytest.mark.parametrize(("lines", "currency"), [c[1:] for c in PRINTED], ids=[c[0] for c in PRINTED])
def test_a_printed_currency_wins(lines, currency) -> None:
    f = extract_fields(_receipt(lines), "receipt").fields["currency"]
    assert f.value == currency
    if currency == "MYR":
        assert f.source == "inferred" and f.raw is None  # "$" printed, the ringgit inferred
    else:
        assert f.source == "ocr" and f.raw


# ₹ misread as ¥ on an Indian page: INR, flagged
RUPEE_AS_YEN = [
    ("gstin", ["Sharma Sweets", "GSTIN: 07AABCS1234F1Z9", "Total ¥1,250.00"]),
    ("cgst-sgst", ["Sharma Sweets", "CGST 9% ¥45.00", "SGST 9% ¥45.00", "Total ¥590.00"]),
    ("lakh-rupees", ["Patel Traders", "Total ¥1,05,000.00", "Rupees One Lakh Five Thousand only"]),
]


@pytest.mark.parametrize("lines", [c[1] for c in RUPEE_AS_YEN], ids=[c[0] for c in RUPEE_AS_YEN])
def test_a_yen_sign_on_an_indian_page_is_a_misread_rupee(lines) -> None:
    f = extract_fields(_receipt(lines), "receipt").fields["currency"]
    assert f.value == "INR"
    assert any(p.code == Code.CURRENCY_SIGN_CONFLICT for p in f.problems)
    assert is_flagged(f)


def test_no_evidence_no_currency() -> None:
    f = extract_fields(_receipt(["Corner Shop", "Milk 1.20", "TOTAL 1.20"]), "receipt").fields["currency"]
    assert f.value is None


def test_chinese_registration_gives_renminbi_inferred() -> None:
    f = extract_fields(_receipt(["某某超市", "统一社会信用代码：91310000MA1K000000", "合计 12.50"]), "receipt").fields["currency"]
    assert f.value == "CNY" and f.source == "inferred" and f.raw is None


# A bare "$" is the sign of several currencies (amounts.DOLLAR_SIGN_CURRENCIES): what else on the page
# says which dollar. (id, page lines, currency)
_DOLLARS = ["Subtotal: $600.00", "Discount 10%: -$60.00", "GST 10%: $54.00", "Paid: -$594.00", "Balance: $0.00"]
DOLLAR_NAMED = [
    # an ISO 4217 code printed on the page wins over any number of bare "$" lines
    ("aud-in-the-total-label", ["Bluepeak Software", *_DOLLARS, "Total AUD: $594.00"], "AUD"),
    ("cad-statement", ["Maple Goods", "All amounts in CAD", *_DOLLARS, "TOTAL $594.00"], "CAD"),
    ("nzd-after-the-total", ["Kiwi Cafe", *_DOLLARS, "TOTAL $594.00 NZD"], "NZD"),
    ("hkd-column-header", ["Harbour Trading", "Amount (HKD)", *_DOLLARS, "TOTAL $594.00"], "HKD"),
    ("usd-code", ["Acme Supplies", *_DOLLARS, "Total Due USD 594.00"], "USD"),
    ("prefixed-sign", ["Acme Supplies", *_DOLLARS, "TOTAL A$594.00"], "AUD"),
    # no code: the country the page points to names the dollar
    ("au-state-postcode", ["Bluepeak Software", "120 Collins Street, Melbourne VIC 3000", "TOTAL $8.30"], "AUD"),
    ("au-abn", ["Harbour Cafe", "ABN 51 824 753 556", "TOTAL $8.30"], "AUD"),
    ("ca-postal-code", ["Maple Diner", "100 King St W, Toronto ON M5H 1J9", "TOTAL $8.30"], "CAD"),
    ("ca-hst", ["Maple Diner", "HST 13% $0.95", "TOTAL $8.30"], "CAD"),
    ("sg-postcode", ["Kopi Corner", "Singapore 159521", "TOTAL $8.30"], "SGD"),
    ("us-state-zip", ["Fresh Foods", "Portland OR 97214", "TOTAL $8.30"], "USD"),
]


@pytest.mark.parametrize(("lines", "currency"), [c[1:] for c in DOLLAR_NAMED], ids=[c[0] for c in DOLLAR_NAMED])
def test_the_page_says_which_dollar_a_bare_sign_is(lines, currency) -> None:
    f = extract_fields(_receipt(lines), "receipt").fields["currency"]
    assert f.value == currency
    assert f.source == "ocr" and f.raw
    assert f.confidence >= 0.8 and not is_flagged(f)


# a bare "$" and nothing that says which dollar, or a country whose currency is no dollar, or several
# countries: USD is a guess, flagged
DOLLAR_UNSURE = [
    ("no-evidence", ["Corner Shop", "Milk $1.20", "TOTAL $1.20"]),
    ("uk-page", ["The Olive Tree", "4 High Street, Leeds LS1 6AB", "TOTAL $8.30"]),
    ("japanese-page", ["Cafe Sakura", "〒150-0001 Tokyo", "TOTAL $12.00"]),
    ("two-countries", ["Acme Supplies", "Portland OR 97214", "Ship to: Leeds LS1 6AB", "TOTAL $8.30"]),
    ("indian-page", ["Sharma Exports", "GSTIN: 07AABCS1234F1Z9", "TOTAL $8.30"]),
]


@pytest.mark.parametrize("lines", [c[1] for c in DOLLAR_UNSURE], ids=[c[0] for c in DOLLAR_UNSURE])
def test_a_bare_dollar_sign_alone_is_not_confident(lines) -> None:
    f = extract_fields(_receipt(lines), "receipt").fields["currency"]
    assert f.value == "USD"
    (p,) = [p for p in f.problems if p.code == Code.CURRENCY_AMBIGUOUS_SIGN]
    assert "$" in p.message("en") and "USD" in p.message("en") and "USD" in p.message("zh")
    assert f.confidence < 0.6 and is_flagged(f)


# One rule for an inferred currency, whether nothing or a Malaysian till's "$" is printed: strong country
# evidence 0.8, not flagged; weak 0.5, flagged. (id, page lines, flagged)
MY_DOLLAR = [
    ("strong-sdn-bhd-state", ["KEDAI MAJU SDN BHD", "NO 5, JALAN MAWAR, 43000 KAJANG, SELANGOR", "TOTAL $8.30"], False),
    ("strong-gst6-gstid", ["99 MINI MART", "GST ID: 000123456789", "GST 6% $0.47", "TOTAL $8.30"], False),
    ("strong-chinese-shop", ["大马茶餐室", "KEDAI MAJU SDN BHD", "43000 KAJANG, SELANGOR", "TOTAL $8.30"], False),
    ("weak-sdn-bhd-only", ["SYARIKAT ABC SDN BHD", "TOTAL $8.30"], True),
    ("weak-bhd-word-only", ["大马茶餐室 ABC BHD", "TOTAL $8.30"], True),
]


@pytest.mark.parametrize(("lines", "flagged"), [c[1:] for c in MY_DOLLAR], ids=[c[0] for c in MY_DOLLAR])
def test_a_dollar_sign_on_a_malaysian_page_is_inferred_ringgit_by_the_one_rule(lines, flagged) -> None:
    f = extract_fields(_receipt(lines), "receipt").fields["currency"]
    assert f.value == "MYR" and f.source == "inferred"
    assert f.confidence == (0.5 if flagged else 0.8)
    assert any(p.code == Code.CURRENCY_INFERRED for p in f.problems) == flagged
    assert is_flagged(f) == flagged


# (text, country or None): an ABN counts only when it passes the ATO's modulus-89 check
AU_CA_EVIDENCE = [
    ("ABN 51 824 753 556", "AU"),
    ("ABN: 53004085616", "AU"),
    ("ABN 51 824 753 557", None),
    ("Sydney NSW 2000", "AU"),
    ("Hobart TAS 7000", "AU"),
    ("Tel +61 2 9876 5432", "AU"),
    ("Vancouver BC V6B 4Y8", "CA"),
    ("Montréal QC H3B 2Y5", "CA"),
    ("GST/HST 123456789 RT0001", "CA"),
    ("Seattle WA 98101", "US"),  # a five-digit ZIP is the US's, not Australia's Western Australia
]


@pytest.mark.parametrize(("text", "country"), AU_CA_EVIDENCE, ids=[c[0] for c in AU_CA_EVIDENCE])
def test_australian_and_canadian_evidence(text, country) -> None:
    ev = country_evidence(text)
    assert (ev.country if ev else None) == country


# An engine that returns values as printed (HunyuanOCR, fields_from_values): a "$" in its amounts, or "$"
# as its currency, is resolved by the page like an OCR reading. (id, page lines, values, currency, flagged)
ENGINE_DOLLAR = [
    ("aud-code-on-page", ["Bluepeak Software", "Total AUD: $594.00"], {"total": "$594.00"}, "AUD", False),
    ("au-postcode", ["Bluepeak Software", "Melbourne VIC 3000", "TOTAL $8.30"], {"total": "$8.30"}, "AUD", False),
    ("engine-says-dollar", ["Maple Diner", "Toronto ON M5H 1J9", "TOTAL $8.30"], {"total": "8.30", "currency": "$"},
     "CAD", False),
    ("us-zip", ["Fresh Foods", "Portland OR 97214", "TOTAL $8.30"], {"total": "$8.30"}, "USD", False),
    ("nothing-says-which", ["Corner Shop", "TOTAL $8.30"], {"total": "$8.30"}, "USD", True),
    ("engine-code-stands", ["Corner Shop", "TOTAL $8.30"], {"total": "$8.30", "currency": "USD"}, "USD", False),
]


@pytest.mark.parametrize(("lines", "values", "currency", "flagged"), [c[1:] for c in ENGINE_DOLLAR],
                         ids=[c[0] for c in ENGINE_DOLLAR])
def test_an_engines_dollar_sign_is_resolved_by_the_page(lines, values, currency, flagged) -> None:
    from desktop.core.extraction import fields_from_values

    f = fields_from_values(values, _receipt(lines), "receipt").fields["currency"]
    assert f.value == currency
    assert is_flagged(f) == flagged
