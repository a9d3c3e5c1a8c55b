"""Value finders used after a label: money, dates, codes, tax IDs inside a piece of OCR text.

Each finder takes the text that follows a label (or a neighbouring box) and returns
``(value, raw, problems)`` or ``None`` when the text holds no such value.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from desktop.core.diagnostics import Diagnostic
from desktop.core.extraction.amounts import parse_amount
from desktop.core.extraction.dates import find_dates

__all__ = ["MONEY_RE", "money_tokens", "amount_finder", "date_finder", "regex_finder", "Finder"]

Finder = Callable[[str], "tuple[str | None, str, list[Diagnostic]] | None"]

_CUR = r"(?:RM|MYR|USD|EUR|GBP|INR|SGD|RMB|CNY|Rs\.?|HK\$|US\$|S\$|[$€£¥￥₹])"
MONEY_RE = re.compile(
    rf"(?<![\w.,/:-])(?P<neg>[-−]\s?)?(?P<cur>{_CUR})?\s?(?P<neg2>[-−]\s?)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d{1,3}(?:\.\d{3})+,\d{1,2}|\d{1,3}(?: \d{3})+[.,]\d{2}"
    r"|\d{1,3}(?:\.\d{3})+(?![\d,])|\d+(?:[.,]\d{1,2})?)"
    rf"(?![\d%/:-]|[.,]\d|\s?%)(?:\s?(?P<cur2>元|€|EUR|RM|{_CUR}))?(?!\w)"
)


def money_tokens(text: str) -> list[tuple[str, str, bool, int]]:
    """Money amounts in ``text`` as ``(value, raw, has_decimals, start)``, left to right."""
    out = []
    for m in MONEY_RE.finditer(text):
        raw = m.group(0).strip()
        num = m.group("num")
        value, _cur, problems = parse_amount(raw)
        if value is None:
            continue
        has_dec = bool(re.search(r"[.,]\d{2}$", num)) and not re.fullmatch(r"\d{1,3}\.\d{3}", num)
        out.append((value, raw, has_dec, m.start()))
    return out


def amount_finder(*, need_decimals: bool = False, rightmost: bool = True) -> Finder:
    """A finder for money amounts: the rightmost (or first) amount, preferring ones with decimals."""

    def find(text: str) -> tuple[str | None, str, list[Diagnostic]] | None:
        toks = money_tokens(text)
        if not toks:
            return None
        dec = [t for t in toks if t[2]]
        if need_decimals and not dec:
            return None
        pool = dec or toks
        tok = pool[-1] if rightmost else pool[0]
        return tok[0], tok[1], []

    return find


def date_finder(date_order: str | None) -> Finder:
    """A finder for the first date in the text (impossible dates come back with ``value=None``)."""

    def find(text: str) -> tuple[str | None, str, list[Diagnostic]] | None:
        found = find_dates(text, date_order)
        if not found:
            return None
        d = found[0]
        if d.value is None:
            return None
        return d.value, d.raw, list(d.problems)

    return find


def regex_finder(pattern: str, group: int = 0, clean: Callable[[str], str] | None = None, flags: int = 0) -> Finder:
    """A finder returning the first match of ``pattern`` (``clean`` normalises the matched text)."""
    rx = re.compile(pattern, flags)

    def find(text: str) -> tuple[str | None, str, list[Diagnostic]] | None:
        m = rx.search(text)
        if not m:
            return None
        raw = m.group(group)
        return (clean(raw) if clean else raw), raw, []

    return find
