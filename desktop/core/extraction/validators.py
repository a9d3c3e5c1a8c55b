"""Checks on extracted values. Each check returns a list of problems (:class:`~desktop.core.diagnostics.Diagnostic`;
empty = it checks out).

Rule sources:

* Unified social credit code (统一社会信用代码): GB 32100-2015 "Coding rule of the unified social credit
  identifier for legal entities and other organizations", clause 4 and annex: 18 characters from the
  set ``0-9 A-H J-N P-R T-U W-Y`` (no I, O, Z, S, V), the last a check character with weights
  ``3^(i) mod 31`` = 1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28:
  ``check = 31 - (sum mod 31)``, 31 -> 0.
* Chinese VAT invoice code, number and check code: State Taxation Administration (国家税务总局)
  invoice formats: the invoice code (发票代码) has 10 digits on paper special and old paper ordinary
  invoices (增值税专用发票/普通发票) and 12 digits on electronic and new-format ordinary invoices
  (增值税电子普通发票, 卷票, 电子专用发票); positions 1-4 (10 digits) or 2-5 (12 digits) are the
  administrative region code of the issuing tax office (GB/T 2260, province level ``11``-``65``);
  the invoice number (发票号码) has 8 digits, 20 digits on fully digital invoices (全面数字化的电子发票,
  "全电", which carry no invoice code); the check code (校验码) has 20 digits, printed in groups of 5
  (special VAT invoices print none).
* Amount in words (大写金额): the Chinese financial numerals of the People's Bank of China
  accounting rules (《支付结算办法》 / 中国人民银行 正确填写票据和结算凭证的基本规定): 零壹贰叁肆伍陆柒捌玖,
  units 拾佰仟万亿, 圆(元) 角 分, 整(正) for no fractional part.
* Cash rounding to the nearest 5 cents: Bank Negara Malaysia's rounding mechanism (2008), Swiss
  5-Rappen rounding, the 5-cent cash rounding of several euro countries (see :func:`check_sum`).
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from desktop.core.diagnostics import Code, Diagnostic, diag

__all__ = [
    "USCC_CHARSET",
    "USCC_SHAPE",
    "USCC_WEIGHTS",
    "check_check_code",
    "check_invoice_code",
    "check_invoice_number",
    "check_sum",
    "check_sum_without_tax",
    "check_tax_id_cn",
    "parse_chinese_amount",
    "uscc_check_char",
]

#: GB 32100-2015 character set (31 characters, value = index).
USCC_CHARSET = "0123456789ABCDEFGHJKLMNPQRTUWXY"
#: The shape of a unified social credit code (GB 32100-2015 section 4): the registration authority and
#: entity type codes, the six-digit administrative division code (GB/T 2260), the nine-character
#: organisation code (GB 11714) and the check character, all from the standard's character set.
USCC_SHAPE = re.compile(rf"[{USCC_CHARSET}]{{2}}\d{{6}}[{USCC_CHARSET}]{{10}}")
#: GB 32100-2015 weights for positions 1..17.
USCC_WEIGHTS = (1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28)


def uscc_check_char(first17: str) -> str:
    """The GB 32100-2015 check character for the first 17 characters of a unified social credit code.

    Raises:
        ValueError: a character outside the GB 32100-2015 set, or not 17 characters.
    """
    if len(first17) != 17:
        raise ValueError("need the first 17 characters")
    total = 0
    for ch, w in zip(first17.upper(), USCC_WEIGHTS):
        idx = USCC_CHARSET.find(ch)
        if idx < 0:
            raise ValueError(f"character {ch!r} is not allowed in a unified social credit code")
        total += idx * w
    c = 31 - total % 31
    return USCC_CHARSET[0 if c == 31 else c]


def check_tax_id_cn(value: str | None) -> list[Diagnostic]:
    """Check a Chinese taxpayer identification number (纳税人识别号).

    18 characters: the unified social credit code, check character verified (GB 32100-2015).
    15, 17 or 20 characters of digits and capital letters: legacy taxpayer IDs (tax registration
    numbers, 税务登记证号, issued before the unified code; still printed on invoices issued for
    individuals and by tax offices on a seller's behalf). They are valid but carry no check
    character, so there is nothing more to verify: no problem is returned (a problem would mark a
    correct invoice as needing attention). Only the format is checked.
    """
    if not value:
        return []
    v = value.strip().upper()
    if len(v) == 18:
        bad = [c for c in v if c not in USCC_CHARSET]
        if bad:
            return [diag(Code.TAX_ID_BAD_CHARACTER, value=v, char=bad[0])]
        expected = uscc_check_char(v[:17])
        if v[17] != expected:
            return [diag(Code.TAX_ID_CHECK_CHARACTER, value=v, expected=expected)]
        return []
    if len(v) in (15, 17, 20) and re.fullmatch(r"[0-9A-Z]+", v):
        return []  # legacy taxpayer ID: well-formed, nothing further to check (see the docstring)
    return [diag(Code.TAX_ID_LENGTH, value=v, length=len(v))]


def check_invoice_code(value: str | None) -> list[Diagnostic]:
    """Check a Chinese VAT invoice code (发票代码): 10 or 12 digits with a plausible region code."""
    if not value:
        return []
    if not re.fullmatch(r"\d+", value):
        return [diag(Code.INVOICE_CODE_NOT_DIGITS, value=value)]
    if len(value) not in (10, 12):
        return [diag(Code.INVOICE_CODE_LENGTH, value=value, length=len(value))]
    region = value[0:2] if len(value) == 10 else value[1:3]
    if not 11 <= int(region) <= 65:
        return [diag(Code.INVOICE_CODE_REGION, value=value, region=region)]
    return []


def check_invoice_number(value: str | None, *, has_code: bool = True) -> list[Diagnostic]:
    """Check a Chinese VAT invoice number (发票号码): 8 digits, or 20 on fully digital (全电) invoices."""
    if not value:
        return []
    if not re.fullmatch(r"\d+", value):
        return [diag(Code.INVOICE_NUMBER_NOT_DIGITS, value=value)]
    if len(value) == 8 or (len(value) == 20 and not has_code) or len(value) == 20:
        if len(value) == 20 and has_code:
            return [diag(Code.INVOICE_NUMBER_DIGITAL_WITH_CODE, value=value)]
        return []
    return [diag(Code.INVOICE_NUMBER_LENGTH, value=value, length=len(value))]


def check_check_code(value: str | None) -> list[Diagnostic]:
    """Check a Chinese VAT invoice check code (校验码): 20 digits (printed as four groups of five)."""
    if not value:
        return []
    if not re.fullmatch(r"\d{20}", value):
        digits = re.sub(r"\D", "", value)
        return [diag(Code.CHECK_CODE_LENGTH, value=value, length=len(digits))]
    return []


def cash_rounded(amount: Decimal, total: Decimal) -> bool:
    """Whether ``total`` is ``amount`` rounded to the nearest 0.05 and differs from it (cash rounding,
    see :func:`check_sum`); a value exactly between two steps (never, with whole cents) rounds up."""
    nearest = (amount / Decimal("0.05")).quantize(Decimal(1), rounding=ROUND_HALF_UP) * Decimal("0.05")
    return total != amount and total == nearest


def _within(amount: Decimal, total: Decimal) -> bool:
    """``amount`` is ``total`` within 0.01, or ``total`` is ``amount`` cash-rounded (:func:`cash_rounded`)."""
    return abs(amount - total) <= Decimal("0.01") or cash_rounded(amount, total)


def check_sum(subtotal: str | None, tax: str | None, total: str | None, *,
              adjustment: Decimal | None = None) -> list[Diagnostic]:
    """``subtotal + tax = total`` within 0.01, or the total is ``subtotal + tax`` rounded to the nearest
    0.05 (only when all three are known).

    Cash rounding: a total paid in cash may be rounded to the nearest 5 cents, the difference printed on
    a "ROUNDING" / "ADJ" line (Bank Negara Malaysia's rounding mechanism, 2008: 1-2 sen down, 3-4 up to
    5, 6-7 down to 5, 8-9 up; Swiss 5-Rappen rounding; the euro countries' 5-cent cash rounding).

    Printed adjustments: ``adjustment`` is the signed sum of the charges, allowances and rounding printed
    between the subtotal and the total (EN 16931 BG-20/BG-21, BT-114;
    :func:`desktop.core.extraction.adjustments.total_adjustment`); the sum also holds when
    ``subtotal + tax + adjustment = total`` (within 0.01, or cash-rounded). Without it the check is strict.

    Returns:
        ``[Diagnostic(SUM_MISMATCH)]`` ("subtotal + tax ≠ total (96.72 + 15.48 = 112.20, total 112.30)") or ``[]``.
    """
    if subtotal is None or tax is None or total is None:
        return []
    try:
        s, t, g = Decimal(subtotal), Decimal(tax), Decimal(total)
    except (InvalidOperation, TypeError):
        return []
    if not _within(s + t, g) and not (adjustment is not None and _within(s + t + adjustment, g)):
        return [diag(Code.SUM_MISMATCH, field="total", subtotal=str(s), tax=str(t), sum=str(s + t), total=str(g))]
    return []


def check_sum_without_tax(subtotal: str | None, tax: str | None, total: str | None, *,
                          adjustment: Decimal | None = None) -> list[Diagnostic]:
    """Subtotal and total known, no tax read, and they differ by more than 0.01: the tax (or a
    discount, a service charge, rounding) was not read, so ``subtotal + tax = total`` cannot be checked.
    A printed ``adjustment`` (see :func:`check_sum`) that makes ``subtotal + adjustment = total`` explains
    the difference.

    Returns:
        ``[Diagnostic(SUBTOTAL_TOTAL_NO_TAX)]`` ("subtotal 96.72 and total 112.20 differ by 15.48 and no
        tax was read") or ``[]``.
    """
    if tax is not None or subtotal is None or total is None:
        return []
    try:
        s, g = Decimal(subtotal), Decimal(total)
    except (InvalidOperation, TypeError):
        return []
    if not _within(s, g) and not (adjustment is not None and _within(s + adjustment, g)):
        return [diag(Code.SUBTOTAL_TOTAL_NO_TAX, field="total", subtotal=str(s), total=str(g), difference=str(g - s))]
    return []


_CN_DIGITS = {"零": 0, "〇": 0, "壹": 1, "一": 1, "贰": 2, "貳": 2, "二": 2, "两": 2, "叁": 3, "參": 3, "三": 3,
              "肆": 4, "四": 4, "伍": 5, "五": 5, "陆": 6, "陸": 6, "六": 6, "柒": 7, "七": 7, "捌": 8, "八": 8,
              "玖": 9, "九": 9}
_CN_UNITS = {"拾": 10, "十": 10, "佰": 100, "百": 100, "仟": 1000, "千": 1000}
_CN_BIG = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000}


def _cn_integer(s: str) -> int:
    total = section = number = 0
    for ch in s:
        if ch in _CN_DIGITS:
            number = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            section += (number or 1) * _CN_UNITS[ch]
            number = 0
        elif ch in _CN_BIG:
            section += number
            total = (total + section) * _CN_BIG[ch] if _CN_BIG[ch] > 10_000 else total + section * _CN_BIG[ch]
            section = number = 0
        else:
            raise ValueError(f"unexpected character {ch!r}")
    return total + section + number


def parse_chinese_amount(text: str | None) -> str | None:
    """Parse an amount written in Chinese financial numerals (大写), e.g. ``壹佰壹拾贰圆贰角整`` -> ``112.20``.

    Leading noise (``⊗``, ``ⓧ``, labels) is skipped. Returns the canonical amount string, or ``None``
    when the text holds no parsable amount in words.
    """
    if not text:
        return None
    chars = "".join(_CN_DIGITS) + "".join(_CN_UNITS) + "".join(_CN_BIG) + "圆元角分整正"
    m = re.search(f"[{chars}]+", text.replace("圓", "圆"))
    if not m:
        return None
    s = m.group(0).rstrip("整正")
    if not any(c in s for c in "圆元角分"):
        return None
    yuan, _, frac = s.partition("圆") if "圆" in s else s.partition("元")
    if not _ and not ("角" in s or "分" in s):
        return None
    if not _:
        yuan, frac = "", s
    try:
        integer = _cn_integer(yuan.lstrip("零")) if yuan else 0
        jiao = fen = 0
        m_j = re.search(r"([零壹贰叁肆伍陆柒捌玖一二三四五六七八九])角", frac)
        m_f = re.search(r"([零壹贰叁肆伍陆柒捌玖一二三四五六七八九])分", frac)
        if m_j:
            jiao = _CN_DIGITS[m_j.group(1)]
        if m_f:
            fen = _CN_DIGITS[m_f.group(1)]
    except ValueError:
        return None
    return f"{integer}.{jiao}{fen}"
