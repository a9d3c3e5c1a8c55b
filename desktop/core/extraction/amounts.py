"""Amounts and currencies: printed money text -> canonical decimal string and ISO 4217 code.

Canonical amount: a decimal string with a dot, no thousands separator and exactly two decimals
(``"1234.56"``, ``"-5.00"``).

The grammar of printed amounts (:func:`find_amounts`) covers every common notation:

* **Decimal mark**: ``.`` or ``,`` followed by one or two digits (``12.50``, ``12,5``); the Swiss and
  German ``.–`` / ``,-`` for "no cents" (``CHF 12.–``, ``12,- €``).
* **Thousands groups** of three digits separated by ``,`` ``.`` an apostrophe (``'`` ``’`` ``ʼ``:
  Swiss and Liechtenstein prices, ``CHF 1'234.50``), a no-break space (U+00A0), a thin space
  (U+2009) or a narrow no-break space (U+202F) (the SI / ISO 80000-1 group separator), or an ordinary
  space when the amount has decimals (``1 234,56``; without decimals ``1 234`` is two numbers on a
  receipt line, a quantity and a price). One amount uses one group separator, and its decimal mark
  is a different character.
* **A stray mark** before an amount that carries the other decimal mark (``.322,46``, ``,48.41``: OCR's
  reading of a ``€`` or a speck) is no part of it.
* **Indian lakh/crore groups** (``12,34,567.00``: three digits, then groups of two; Reserve Bank of
  India style).
* **Signs**: a leading minus (``-``, U+2212 minus, en dash), before or after the currency
  (``-RM5.00``, ``RM -5.00``); accounting parentheses (``(12.50)``, ``(RM 12.50)``, ``RM (12.50)``,
  full-width ``（12.50）``); a trailing minus (``12.50-``, as printed by tills and SAP); a ``CR``
  suffix (``12.50 CR``, credit).
* **Currency** symbols and ISO 4217 codes before or after the number (``RM6.00``, ``EUR 1.234,56``,
  ``￥77.10元``), full-width digits and signs (NFKC).

A single separator followed by exactly three digits (``1,234``, ``1.234``) is a thousands group
unless the caller says that separator is the document's decimal mark. Ranges (``5-10``), times
(``10:30``), dates and percentages are not amounts. (This grammar replaced price-parser, which has
no notion of signs, apostrophe or lakh groups, and read ``5-10`` as -5 and ``12345.678`` as
12345678 without a word.)

Currency codes follow ISO 4217 (https://www.iso.org/iso-4217-currency-codes.html).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from desktop.core.diagnostics import Code, Diagnostic, diag

__all__ = [
    "DOLLAR_SIGN_CURRENCIES",
    "ISO_4217_COMMON",
    "Amount",
    "bare_dollar",
    "currency_from_text",
    "find_amounts",
    "format_amount",
    "normalise_currency",
    "parse_amount",
    "to_decimal",
]

def to_decimal(value: str | None) -> Decimal | None:
    """A canonical amount string (``"12.50"``) as a :class:`~decimal.Decimal`; ``None`` for ``None`` or
    text that is no number."""
    try:
        return Decimal(value) if value is not None else None
    except InvalidOperation:
        return None


#: ISO 4217 codes accepted as printed (the common ones). BHD is left out on purpose: "SDN BHD" (Malaysian
#: company suffix) would read as Bahraini dinars.
ISO_4217_COMMON = frozenset(
    "AED AUD BDT BGN BRL CAD CHF CNY CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KES KRW KWD LKR "
    "MAD MOP MXN MYR NGN NOK NZD PHP PKR PLN QAR RON RUB SAR SEK SGD THB TRY TWD UAH USD VND ZAR".split()
)

#: The common currencies whose local sign is a bare ``$`` (Unicode CLDR's narrow currency symbols: the
#: US, Australian, Canadian, New Zealand, Singapore, Hong Kong and New Taiwan dollars and the Mexican
#: peso). A ``$`` alone does not say which of them is meant; a prefixed sign (``US$``, ``A$``, ``S$``...)
#: or the ISO 4217 code does.
DOLLAR_SIGN_CURRENCIES = frozenset("USD AUD CAD NZD SGD HKD TWD MXN".split())

# Printed currency markers -> ISO 4217. Order matters: longer markers first.
_SYMBOLS: list[tuple[str, str]] = [
    ("HK$", "HKD"), ("US$", "USD"), ("S$", "SGD"), ("A$", "AUD"), ("C$", "CAD"), ("NZ$", "NZD"),
    ("RMB", "CNY"), ("RM", "MYR"), ("Rs.", "INR"), ("Rs", "INR"), ("₹", "INR"), ("€", "EUR"),
    ("£", "GBP"), ("￥", "CNY"), ("¥", "CNY"), ("元", "CNY"), ("₩", "KRW"), ("₫", "VND"), ("฿", "THB"),
    ("₱", "PHP"), ("zł", "PLN"), ("Kč", "CZK"), ("₺", "TRY"), ("Fr.", "CHF"), ("$", "USD"),
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
    m = unicodedata.normalize("NFKC", marker).strip().rstrip(":")
    if m.rstrip(".").upper() in ISO_4217_COMMON:
        return m.rstrip(".").upper()
    if m in ("¥", "￥") or m == "\u00a5":
        return "CNY" if chinese_document else "JPY"
    for sym, code in _SYMBOLS:
        if sym.upper() == m.upper() or sym.rstrip(".").upper() == m.rstrip(".").upper():
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


def bare_dollar(text: str) -> bool:
    """Whether the currency :func:`currency_from_text` finds in ``text`` is a bare ``$`` (no ISO 4217
    code on the line, no ``US$`` / ``A$`` / ``NZ$``-style prefix): a sign that several currencies use
    (:data:`DOLLAR_SIGN_CURRENCIES`)."""
    if "$" not in text and "\uff04" not in text:  # the full-width dollar sign reads as "$" under NFKC
        return False
    t = unicodedata.normalize("NFKC", text)
    if _CODE_RE.search(t):
        return False
    m = _SYMBOL_RE.search(text) or _SYMBOL_RE.search(t)
    return m is not None and m.group(0) == "$"


def format_amount(value: Decimal) -> str:
    """``Decimal`` -> canonical string with two decimals (half-up rounding)."""
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


# --------------------------------------------------------------------------------------------------
# the grammar of printed amounts

#: Thousands separators (see the module docstring): comma, dot, apostrophes (ASCII, U+2019, U+02BC),
#: no-break space, thin space, narrow no-break space. An ordinary space is allowed only with decimals.
_GROUP_SEPS = (",", ".", "'", "\u2019", "\u02bc", "\u00a0", "\u2009", "\u202f")
_DECIMAL_MARKS = (".", ",")
_MINUS = "\\-\u2212\u2013"  # hyphen-minus, minus sign, en dash (escaped for a character class)
#: "no cents" written as a dash after the decimal mark (Swiss/German price notation: "12.–", "12,-")
_NO_CENTS = r"[.,][-\u2013\u2014]{1,2}(?![\d\-\u2013\u2014])"


def _body_alternatives() -> str:
    alts = [r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2}|" + _NO_CENTS + r")?"]  # Indian lakh/crore groups
    for g in _GROUP_SEPS:
        ge = re.escape(g)
        decs = "|".join(re.escape(d) + r"\d{1,2}" for d in _DECIMAL_MARKS if d != g)
        alts.append(rf"\d{{1,3}}(?:{ge}\d{{3}})+(?:(?:{decs})(?!\d)|{_NO_CENTS})?")
    for d in _DECIMAL_MARKS:  # ordinary spaces: only with decimals
        alts.append(rf"\d{{1,3}}(?: \d{{3}})+{re.escape(d)}\d{{1,2}}(?!\d)")
    # a plain number: no leading zero ("0.50" but not "05688") and at most ten integer digits; longer
    # digit runs are account, registration and invoice numbers, not money
    alts.append(r"(?:0|[1-9]\d{0,9})(?!\d)(?:[.,]\d{1,2}(?!\d)|" + _NO_CENTS + r")?")
    return "|".join(f"(?:{a})" for a in alts)


_CUR = (r"(?:HK\$|US\$|NZ\$|[SAC]\$|RMB|RM|Rs\.?|Fr\.|" + "|".join(sorted(ISO_4217_COMMON))
        + r"|[₹€£¥￥₩₫฿₱$])")
# Word characters that are not CJK: a number glued to a Latin word ("A4", "No123") is no amount, one
# glued to a Chinese label ("合计12.50") is.
_LATIN_W = r"[^\W\u3000-\u9fff\uff00-\uffef]"
_AMOUNT_RE = re.compile(
    rf"(?:(?<!{_LATIN_W})(?<![.,/\d])(?P<neg>[{_MINUS}])\s?|(?<!{_LATIN_W})(?<![.,/\d{_MINUS}])(?<!\d:))"
    rf"(?P<open>[(（]\s?)?"
    rf"(?:(?P<cur>{_CUR})\s?)?"
    rf"(?P<neg2>[{_MINUS}]\s?)?"
    rf"(?P<open2>[(（]\s?)?"
    rf"(?P<num>{_body_alternatives()})"
    rf"(?![\d%/:]|[.,]\d|\s?%)"
    rf"(?:\s?(?P<cur2>元|圆|{_CUR})(?!\w))?"
    rf"(?P<close>\s?[)）])?"
    rf"(?P<trail>[{_MINUS}](?![\d\w{_MINUS}])|\s?CR\b|\s?Cr\b)?"
    rf"(?!\w|[{_MINUS}]\w)"
)


@dataclass(frozen=True)
class Amount:
    """One amount found in a text.

    Attributes:
        value: the canonical amount string (``"-1234.50"``).
        raw: the matched text as printed (sign, currency and parentheses included).
        start, end: character offsets of ``raw`` in the text given to :func:`find_amounts`.
        has_decimals: the amount was printed with two decimals (``12.50``) or a no-cents dash
            (``12.–``), not as an integer (``12``, ``1,234``) or with one decimal (``4.7``); tills print
            money with two decimals, so the others are weaker evidence.
        negative: a sign notation made it negative (minus, parentheses, trailing minus, ``CR``).
        currency_marker: the currency symbol or code printed with it, as printed (or ``None``).
    """

    value: str
    raw: str
    start: int
    end: int
    has_decimals: bool
    negative: bool
    currency_marker: str | None


def _same_length_nfkc(text: str) -> str:
    """NFKC per character where that keeps the length (full-width digits and signs), so offsets
    into the result are offsets into ``text``."""
    out = []
    for c in text:
        n = unicodedata.normalize("NFKC", c)
        out.append(n if len(n) == 1 and c not in _GROUP_SEPS else c)
    return "".join(out)


def _number_value(num: str, decimal_separator: str | None) -> tuple[Decimal, bool]:
    """``(magnitude, has_decimals)`` of a matched number body."""
    m = re.search(_NO_CENTS + "$", num)
    if m:
        num = num[: m.start()]
        digits = re.sub(r"\D", "", num)
        return Decimal(digits), True
    m = re.search(r"([.,])(\d{1,3})$", num)
    if m:
        sep, tail = m.group(1), m.group(2)
        head = num[: m.start()]
        other_marks = set(re.findall(r"[.,]", head))
        is_decimal = len(tail) <= 2 or (decimal_separator == sep and not other_marks)
        if len(tail) == 3 and sep in other_marks:
            is_decimal = False  # "1,234,567": every separator is a group separator
        if is_decimal:
            return Decimal(re.sub(r"\D", "", head) + "." + tail), len(tail) == 2
    return Decimal(re.sub(r"\D", "", num)), False


#: A separator standing alone before an amount that carries the other decimal mark (``.322,46``,
#: ``,48.41``): OCR's reading of a currency sign or a speck before the figures. It can be neither that
#: amount's decimal mark nor a group separator (nothing stands before it), so it is read as a space.
_STRAY_MARK = re.compile(r"(?:(?<=\s)|^)(?:\.(?=\d{1,3}(?:[ .\u00a0]\d{3})*,\d{2}(?![\d.,]))|"
                         r",(?=\d{1,3}(?:[ ,\u00a0]\d{3})*\.\d{2}(?![\d.,])))")


#: A word that makes the bare number after it a reference, not money: a footnote or a note of the
#: accounts ("Net [note 2]", "see Note 4", "Anm. 1", "Fußnote 3", "nota 2"; IFRS statements and
#: reports number their notes so).
_REFERENCE_WORD = re.compile(r"(?i)(?:\b(?:foot)?notes?|\bAnm(?:erkung)?\.?|\bFu(?:ß|ss)note|\bnota)\s*[:.#]?\s*$")


def _is_reference(text: str, start: int, end: int) -> bool:
    """Whether the bare integer at ``text[start:end]`` is a reference: a numeric citation or footnote
    mark in square brackets (``[2]``: ISO 690's numeric citations, and how reports mark footnotes), or a
    number after a note word (:data:`_REFERENCE_WORD`). Callers ask it only of numbers with no
    decimals and no currency: ``Note: 12.50`` is still money."""
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    if before.endswith("[") and after.startswith("]"):
        return True
    return bool(_REFERENCE_WORD.search(before.rstrip("[{( ")))  # "note 2", "note (2)", "{note 2]"


def find_amounts(text: str, *, decimal_separator: str | None = None) -> list[Amount]:
    """Every amount printed in ``text``, left to right (notations: see the module docstring).

    Args:
        text: any text (a line, a label and its value).
        decimal_separator: ``"."`` or ``","`` when the document's convention is known; it decides
            only whether a lone separator before three digits (``1,234``) is a decimal mark.

    Returns:
        The amounts as :class:`Amount`, offsets into ``text``. Percentages, times (``10:30``), dates
        and numbers glued to Latin letters (``A4``, ``No123``) are not amounts.
    """
    t = _STRAY_MARK.sub(" ", _same_length_nfkc(text))
    out: list[Amount] = []
    for m in _AMOUNT_RE.finditer(t):
        num = m.group("num")
        opened = bool(m.group("open") or m.group("open2"))
        closed = bool(m.group("close"))
        start, end = m.start(), m.end()
        trail = (m.group("trail") or "").strip()
        cur = m.group("cur") or m.group("cur2")
        signs = [m.start(g) for g in ("neg", "neg2") if m.group(g)]
        if opened and not closed:
            # "(incl. 12.50": the parenthesis belongs to the text around, not to the amount
            start = m.end("open2") if m.group("open2") else m.end("open")
            signs = [s for s in signs if s >= start]
            if m.group("cur") and m.start("cur") < start:
                cur = m.group("cur2")
            negative = bool(signs or trail)
        elif closed and not opened:
            # "(Total 12.50)": likewise
            end = m.start("close")
            negative = bool(signs)
        else:
            negative = bool(signs or opened or trail)
        try:
            magnitude, has_dec = _number_value(num, decimal_separator)
        except InvalidOperation:  # pragma: no cover - the grammar only matches digits
            continue
        if trail and not has_dec and not re.search(r"[.,]\d$", num):
            # a trailing minus or CR marks money printed with its decimals ("12.50-"); after a bare
            # integer it is a code or a range ("100100000170-", "3->")
            continue
        if not has_dec and not cur and _is_reference(t, start, end):
            continue
        value = -magnitude if negative and magnitude != 0 else magnitude
        raw = text[start:end].strip()
        out.append(Amount(format_amount(value), raw, start, end, has_dec, negative and magnitude != 0, cur))
    return out


# OCR confusions inside numbers ("1O.5O", "l2.00")
_OCR_DIGITS = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1", "S": "5"})


def _clean(raw: str) -> str:
    t = _same_length_nfkc(raw)
    # "(小写)" and other CJK labels around the number
    t = re.sub(r"[（(]\s*小写\s*[)）]", " ", t)
    # a digit group split by OCR around the decimal point: "12 .50", "12. 50"
    t = re.sub(r"(\d)\s+([.,])\s*(\d{2})(?!\d)", r"\1\2\3", t)
    t = re.sub(r"(\d)([.,])\s+(\d{2})(?!\d)", r"\1\2\3", t)
    return t.strip()


def parse_amount(raw: str | None, *, decimal_separator: str | None = None) -> tuple[str | None, str | None, list[Diagnostic]]:
    """Parse printed money text (one amount, perhaps with a label) to a canonical amount.

    Every notation of :func:`find_amounts` is understood (``CHF 1'234.50``, ``12,34,567.00``,
    ``(12.50)``, ``12.50-``, ``12.50 CR``, ``1 234,56``, ``￥77.10元``). When the text holds several
    numbers, the first one printed with decimals is the amount (else the first one). Letters OCR
    reads for digits inside a number (``1O.5O``, ``l2.00``) are repaired when the result has decimals.

    Args:
        raw: the text as printed (may contain a label, which is ignored).
        decimal_separator: ``"."`` or ``","`` when the document's locale is known.

    Returns:
        ``(value, currency, problems)``: the canonical amount string (or ``None`` when there is no
        number), the ISO 4217 code of a currency marker printed with it (or ``None``), and problems
        (e.g. ``"no amount in '...'"``; a lone separator before three digits, ``2.500``, read as a
        thousands group without ``decimal_separator``: ``AMOUNT_GROUPING_AMBIGUOUS``, the value kept).
    """
    if raw is None or not str(raw).strip():
        return None, None, []
    text = _clean(str(raw))
    currency = currency_from_text(str(raw))
    found = find_amounts(text, decimal_separator=decimal_separator)
    if not found:
        # OCR read digits as letters inside a number ("1O.5O", "l2.00"): repair only letters that
        # touch a digit or a decimal mark, then read again
        fixed = re.sub(r"(?<=[\d.,])[OoIlS]|[OoIlS](?=[\d.,]*\d)", lambda m: m.group(0).translate(_OCR_DIGITS), text)
        if fixed != text and re.search(r"\d[.,]\d{2}(?!\d)", fixed):
            found = find_amounts(fixed, decimal_separator=decimal_separator)
    if not found:
        return None, currency, [diag(Code.NO_AMOUNT, raw=str(raw))]
    best = next((a for a in found if a.has_decimals), found[0])
    lone = re.search(r"(?<![\d.,'])(\d{1,3})([.,])(\d{3})(?![\d.,])", best.raw)
    if lone and decimal_separator is None:
        # "2.500" / "0,050": a thousands group by the rule above, or three decimals typed; the value
        # stands, flagged, saying how it was read
        return best.value, currency, [diag(Code.AMOUNT_GROUPING_AMBIGUOUS, raw=str(raw).strip(), value=best.value,
                                           separator=lone.group(2))]
    return best.value, currency, []
