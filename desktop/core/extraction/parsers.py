"""Value finders used after a label: money, dates, codes, tax IDs inside a piece of OCR text.

Each finder takes the text that follows a label (or a neighbouring box) and returns
``(value, raw, problems)`` or ``None`` when the text holds no such value.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from desktop.core.diagnostics import Diagnostic
from desktop.core.extraction.amounts import find_amounts
from desktop.core.extraction.dates import find_dates

__all__ = ["money_tokens", "amount_finder", "date_finder", "regex_finder", "Finder"]

Finder = Callable[[str], "tuple[str | None, str, list[Diagnostic]] | None"]



def money_tokens(text: str) -> list[tuple[str, str, bool, int]]:
    """Money amounts in ``text`` as ``(value, raw, has_decimals, start)``, left to right.

    Every notation of :func:`desktop.core.extraction.amounts.find_amounts` (signs in parentheses,
    trailing minus, ``CR``; apostrophe, lakh and thin-space thousands groups; ``12.–``).
    """
    return list(_money_tokens(text))


@lru_cache(maxsize=4096)
def _money_tokens(text: str) -> tuple[tuple[str, str, bool, int], ...]:
    """:func:`money_tokens`, memoised: the candidates, their features and the rules read the amounts
    of the same lines (five times each on an invoice)."""
    return tuple((a.value, a.raw, a.has_decimals, a.start) for a in find_amounts(text))


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
