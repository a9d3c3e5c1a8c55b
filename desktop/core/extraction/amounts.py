"""Amounts and currencies: printed money text -> canonical decimal string and ISO 4217 code.

Canonical amount: a decimal string with a dot, no thousands separator and exactly two decimals
(``"1234.56"``, ``"-5.00"``). Parsing is done by `price-parser <https://github.com/scrapinghub/price-parser>`_
(which understands decimal commas, thousands separators of ``.``, ``,``, space and thin space, and
currency symbols before or after the number); this module adds what it lacks: the sign, Chinese
suffixes (``元``), full-width characters, OCR noise around the number, and the mapping from printed
symbols to ISO 4217 codes.

Currency codes follow ISO 4217 (https://www.iso.org/iso-4217-currency-codes.html).
"""
from __future__ import annotations

import re
import unicodedata
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from price_parser import Price

from desktop.core.diagnostics import Code, diag

__all__ = [
    "ISO_4217_COMMON",
    "currency_from_text",
    "format_amount",
    "normalise_currency",
    "parse_amount",
]

#: ISO 4217 codes accepted as printed (the common ones). BHD is left out on purpose: "SDN BHD" (Malaysian
#: company suffix) would read as Bahraini dinars.
ISO_4217_COMMON = frozenset(
    "AED AUD BDT BGN BRL CAD CHF CNY CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KES KRW KWD LKR "
    "MAD MOP MXN MYR NGN NOK NZD PHP PKR PLN QAR RON RUB SAR SEK SGD THB TRY TWD UAH USD VND ZAR".split()
)

# Printed currency markers -> ISO 4217. Order matters: longer markers first.
_SYMBOLS: list[tuple[str, str]] = [
    ("HK$", "HKD"), ("US$", "USD"), ("S$", "SGD"), ("A$", "AUD"), ("C$", "CAD"), ("NZ$", "NZD"),
    ("RMB", "CNY"), ("RM", "MYR"), ("Rs.", "INR"), ("Rs", "INR"), ("₹", "INR"), ("€", "EUR"),
    ("£", "GBP"), ("￥", "CNY"), ("¥", "CNY"), ("元", "CNY"), ("₩", "KRW"), ("₫", "VND"), ("฿", "THB"),
    ("₱", "PHP"), ("zł", "PLN"), ("Kč", "CZK"), ("₺", "TRY"), ("$", "USD"),
]
_CJK = re.compile(r"[\u4e00-\u9fff]")


def normalise_currency(marker: str | None, *, chinese_document: bool = False) -> str | None:
    """Map a printed currency marker (symbol or code) to its ISO 4217 code.

    Args:
        marker: what was printed (``"RM"``, ``"€"``, ``"eur"``, ``"￥"``, ``"$"``...).
        chinese_document: ``¥``/``￥`` means CNY on a Chinese document and JPY elsewhere.

    Returns:
        The ISO 4217 code, or ``None`` when the marker is unknown.
    """
    if not marker:
        return None
    m = unicodedata.normalize("NFKC", marker).strip().rstrip(".:")
    if m.upper() in ISO_4217_COMMON:
        return m.upper()
    if m in ("¥", "￥") or m == "\u00a5":
        return "CNY" if chinese_document else "JPY"
    for sym, code in _SYMBOLS:
        if sym.upper() == m.upper() or sym == unicodedata.normalize("NFKC", sym) == m:
            return code
    return None


_CODE_RE = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(ISO_4217_COMMON)) + r")(?![A-Za-z])")
_SYMBOL_RE = re.compile(
    r"HK\$|US\$|NZ\$|(?<![A-Za-z])[SAC]\$|(?<![A-Za-z])RMB(?![A-Za-z])|(?<![A-Za-z])RM(?=\s*\d|\s*$|\))"
    r"|(?<![A-Za-z])Rs\.?(?=\s*-?\d)|[₹€£￥¥₩₫฿₱$]|元"
)


def currency_from_text(text: str, *, chinese_document: bool | None = None) -> str | None:
    """The first currency marker found in ``text`` as an ISO 4217 code (``None`` if none).

    ``chinese_document`` defaults to "the text contains Chinese characters".
    """
    t = unicodedata.normalize("NFKC", text)
    if chinese_document is None:
        chinese_document = bool(_CJK.search(text))
    m = _CODE_RE.search(t)
    if m:
        return m.group(1)
    m = _SYMBOL_RE.search(text) or _SYMBOL_RE.search(t)
    if m:
        return normalise_currency(m.group(0), chinese_document=chinese_document)
    return None


def format_amount(value: Decimal) -> str:
    """``Decimal`` -> canonical string with two decimals (half-up rounding)."""
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


_NEG_RE = re.compile(r"(^|[\s:(（])[-−–]\s*[^\s\d]{0,4}\s*\d|\d\s*[-−]$|^\(.*\d.*\)$")
_NUM_RE = re.compile(r"\d")
# OCR confusions inside numbers ("1O.5O", "l2.00")
_OCR_DIGITS = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1", "S": "5"})


def _clean(raw: str) -> str:
    t = unicodedata.normalize("NFKC", raw)
    t = t.replace("\u2009", " ").replace("\u202f", " ").replace("'", " ").replace("’", " ")
    # "(小写)" and other CJK labels around the number
    t = re.sub(r"[（(]\s*小写\s*[)）]", " ", t)
    t = t.replace("元", " ").replace("圆", " ")
    # a digit group split by OCR around the decimal point: "12 .50", "12. 50"
    t = re.sub(r"(\d)\s+([.,])\s*(\d{2})(?!\d)", r"\1\2\3", t)
    t = re.sub(r"(\d)([.,])\s+(\d{2})(?!\d)", r"\1\2\3", t)
    return t.strip()


def parse_amount(raw: str | None, *, decimal_separator: str | None = None) -> tuple[str | None, str | None, list[str]]:
    """Parse printed money text.

    Handles decimal commas and dots, thousands separators (``1,234.56``, ``1.234,56``, ``1 234,56``),
    currency symbols and codes before or after the number (``RM6.00``, ``EUR 1.234,56``,
    ``￥77.10元``), a leading minus or accounting parentheses.

    Args:
        raw: the text as printed (may contain a label, which is ignored).
        decimal_separator: ``"."`` or ``","`` when the document's locale is known; otherwise guessed
            by price-parser from the digits.

    Returns:
        ``(value, currency, problems)``: the canonical amount string (or ``None`` when there is no
        number), the ISO 4217 code of a currency marker printed with it (or ``None``), and problems
        (e.g. ``"no amount in '...'"``).
    """
    if raw is None or not str(raw).strip():
        return None, None, []
    text = _clean(str(raw))
    if not _NUM_RE.search(text):
        # maybe OCR read digits as letters
        fixed = text.translate(_OCR_DIGITS)
        if not re.search(r"\d[.,]\d{2}\b", fixed):
            return None, currency_from_text(str(raw)), [diag(Code.NO_AMOUNT, raw=str(raw))]
        text = fixed
    price = Price.fromstring(text, decimal_separator=decimal_separator)
    if price.amount is None:
        return None, currency_from_text(str(raw)), [diag(Code.NO_AMOUNT, raw=str(raw))]
    try:
        value = Decimal(price.amount)
    except InvalidOperation:  # pragma: no cover - price-parser returns Decimals
        return None, None, [diag(Code.NO_AMOUNT, raw=str(raw))]
    amount_text = price.amount_text or ""
    idx = text.find(amount_text) if amount_text else -1
    before = text[:idx] if idx >= 0 else ""
    after = text[idx + len(amount_text):] if idx >= 0 else ""
    negative = bool(re.search(r"[-−–]\s*\S{0,4}\s*$", before) and not re.search(r"\d\s*[-−–]\s*\S{0,4}\s*$", before))
    negative = negative or bool(re.match(r"^\s*[-−]", after))
    negative = negative or (before.rstrip().endswith("(") and after.lstrip().startswith(")"))
    if negative:
        value = -value
    currency = currency_from_text(str(raw))
    return format_amount(value), currency, []
