"""Dates and times: printed text -> ISO 8601 (``YYYY-MM-DD``, ``HH:MM`` / ``HH:MM:SS``).

Numeric dates are read with an explicit day/month order (``date_order``: ``"DMY"``, ``"MDY"`` or
``"YMD"``) so that an impossible date (``31/02/2024``, month 13) is reported, never silently swapped
or guessed. Dates with month names in English, French, German, Dutch, Malay, ... (``11 JUN 2018``,
``20 octobre 2022``, ``7. Mai 2014``) are parsed by `dateparser <https://dateparser.readthedocs.io>`_
with strict parsing. Chinese dates are ``YYYY年MM月DD日`` (the format of the State Taxation
Administration's invoices; OCR often loses the 年/月/日 characters, leaving ``2019 05 08``).

Output format: ISO 8601 calendar date, extended format (``YYYY-MM-DD``).
"""
from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from desktop.core.diagnostics import Code, Diagnostic, diag

__all__ = ["DateMatch", "find_dates", "parse_date", "parse_time", "find_times", "warm_up", "DATE_ORDERS"]

DATE_ORDERS = ("DMY", "MDY", "YMD")

_MONTHS = (
    "jan|janv|januar|januari|janvier|january|feb|febr|fev|fév|februar|februari|fevrier|février|february|"
    "mar|mär|mrt|maart|mars|march|märz|maerz|mac|apr|april|avr|avril|may|mai|mei|jun|juni|juin|june|"
    "jul|juli|juil|juillet|july|aug|agu|ogos|augustus|august|aout|août|sep|sept|september|septembre|"
    "oct|okt|oktober|octobre|october|nov|november|novembre|dec|dez|des|december|dezember|decembre|décembre"
)
_MONTH_RE = rf"(?:{_MONTHS})\.?"

#: A year-first date; a time glued to it by OCR that lost the space ("2024-09-1408:52") still ends it.
_YMD_CN = re.compile(
    r"(?<!\d)((?:19|20)\d{2})(?:\s*[年./\-]\s*(\d{1,2})\s*[月./\-]\s*(\d{1,2})\s*日?|\s+(\d{2})\s+(\d{2})(?:\s*日)?|(\d{2})(\d{2}))"
    r"(?:(?!\d)|(?<=[./\-]\d\d)(?=\d{1,2}[:：]\d{2}))")
_NUMERIC = re.compile(r"(?<![\d.])(\d{1,2})\s?([./\-])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})(?:(?!\d)|(?=\d{1,2}[:：]\d{2}))")
_TEXT_DMY = re.compile(rf"(?<![\w])(\d{{1,2}})(?:st|nd|rd|th|er)?\.?[\s\-/]*({_MONTH_RE})[\s\-/,.]*(\d{{4}}|\d{{2}})(?!\d)", re.I)
_TEXT_MDY = re.compile(rf"(?<![\w])({_MONTH_RE})\s*(\d{{1,2}})(?:st|nd|rd|th)?,?\s*(\d{{4}})(?!\d)", re.I)
_TIME = re.compile(r"(?:(?<![\d:])|(?<=\d{4}[./\-]\d\d[./\-]\d\d))([01]?\d|2[0-3])\s?[:：·]\s?([0-5]\d)(?:\s?[:：·]\s?([0-5]\d))?(?!\d)"
                   r"(?:\s*([AaPp])\.?\s*[Mm]\.?(?![A-Za-z])|\s?([AaPp])[HhNn](?![A-Za-z]))?")


@dataclass
class DateMatch:
    """A date found in a text.

    Attributes:
        value: ISO date, or ``None`` when the printed date is impossible.
        raw: the matched text.
        start, end: character offsets of ``raw`` in the searched text.
        problems: messages (impossible date, ambiguous order).
        ambiguous: day and month could be swapped (both <= 12 and different) in a numeric date.
        order: the order used for a numeric date (``DMY``/``MDY``/``YMD``) or ``"text"``.
    """

    value: str | None
    raw: str
    start: int
    end: int
    problems: list[Diagnostic]
    ambiguous: bool = False
    order: str = "text"


def _year(y: str) -> int:
    n = int(y)
    if len(y) == 2:
        # two-digit years: 00-69 -> 2000s, 70-99 -> 1900s (POSIX strptime %y rule)
        n += 2000 if n < 70 else 1900
    return n


def _make(y: int, m: int, d: int, raw: str) -> tuple[str | None, list[Diagnostic]]:
    if not 1 <= m <= 12:
        return None, [diag(Code.IMPOSSIBLE_MONTH, raw=raw, month=m)]
    try:
        return dt.date(y, m, d).isoformat(), []
    except ValueError:
        return None, [diag(Code.IMPOSSIBLE_DAY, raw=raw, day=d, month=m, year=y)]


#: The languages whose month names :func:`_dateparser_parse` reads (the corpora's: MY receipts in
#: English and Malay, EU invoices in German, French, Dutch, Spanish, Italian, Portuguese).
_DATEPARSER_LANGUAGES = ["en", "fr", "de", "nl", "ms", "es", "it", "pt"]


def warm_up() -> None:
    """Load ``dateparser`` and the data of all of :data:`_DATEPARSER_LANGUAGES` now, not on the first
    document that prints a month name: dateparser loads a language's data the first time it tries that
    language, about 0.26 CPU s for all of them (measured 2026-12-05), which a German or French invoice
    would otherwise pay as the first of its kind. A text that is no date makes it try every language.
    Raises ImportError when dateparser is not installed."""
    import dateparser

    dateparser.parse("1 shoebox 2000", settings={"STRICT_PARSING": True}, languages=_DATEPARSER_LANGUAGES)


@lru_cache(maxsize=1024)
def _dateparser_parse(text: str, order: str) -> str | None:
    """The ISO date ``dateparser`` reads in ``text`` (a date written with a month name), ``None`` if none.
    Memoised: the rules, the date order's inference and the candidates read the same dates."""
    import dateparser  # slow import: only when a month name is present

    settings = {"DATE_ORDER": order if order in DATE_ORDERS else "DMY", "STRICT_PARSING": True,
                "PREFER_LOCALE_DATE_ORDER": False, "RETURN_AS_TIMEZONE_AWARE": False}
    cleaned = re.sub(r"(\d)(st|nd|rd|th|er)\b", r"\1", text, flags=re.I)
    cleaned = re.sub(r"(?<=\d)\.(?=\s*[A-Za-zéû])", " ", cleaned)
    cleaned = re.sub(r"[-/]", " ", cleaned)
    d = dateparser.parse(cleaned, settings=settings, languages=_DATEPARSER_LANGUAGES)
    return d.date().isoformat() if d else None


#: Words a date may be glued to by OCR ("DATE15/06/2017", "Tarikh:" without its colon).
_DATE_WORD = re.compile(r"(?i)date|dated|datum|tarikh|fecha|data|on|le|am|du|vom|tgl")


def find_dates(text: str, date_order: str | None = None) -> list[DateMatch]:
    """Every date printed in ``text``, in order of appearance.

    Args:
        text: any text (a line or several).
        date_order: ``"DMY"`` (default when ``None``), ``"MDY"`` or ``"YMD"``: how to read numeric
            dates whose first field is not a 4-digit year.

    Returns:
        A list of :class:`DateMatch`; impossible dates are included with ``value=None`` and a problem.
    """
    order = (date_order or "DMY").upper()
    t = unicodedata.normalize("NFKC", text)
    out: list[DateMatch] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for m in _YMD_CN.finditer(t):
        y = int(m.group(1))
        mo_s = m.group(2) or m.group(4) or m.group(6)
        d_s = m.group(3) or m.group(5) or m.group(7)
        if m.group(6) and not 1 <= int(mo_s) <= 12:
            continue  # 8 bare digits that are not a YYYYMMDD date
        value, problems = _make(y, int(mo_s), int(d_s), m.group(0).strip())
        out.append(DateMatch(value, m.group(0).strip(), m.start(), m.end(), problems, False, "YMD"))
        taken.append((m.start(), m.end()))
    for m in _NUMERIC.finditer(t):
        if not free(m.start(), m.end()):
            continue
        glued = re.search(r"([^\W\d_]{2,})$", t[: m.start()])
        if glued and not _DATE_WORD.fullmatch(glued.group(1)):
            continue  # "HD03-04-06", "KF12-3-70": an article code, not a date ("DATE15/06/2017" still is)
        a, b, y = int(m.group(1)), int(m.group(3)), _year(m.group(4))
        raw = m.group(0)
        if m.group(2) == "." and len(m.group(4)) == 2 and len(m.group(1)) == 1:
            # "1.20.17" looks more like an amount or version than a date
            pass
        if order == "MDY":
            mo, d = a, b
        else:
            d, mo = a, b
        ambiguous = a <= 12 and b <= 12 and a != b
        value, problems = _make(y, mo, d, raw)
        out.append(DateMatch(value, raw, m.start(), m.end(), problems, ambiguous, "MDY" if order == "MDY" else "DMY"))
        taken.append((m.start(), m.end()))
    for rx in (_TEXT_DMY, _TEXT_MDY):
        for m in rx.finditer(t):
            if not free(m.start(), m.end()):
                continue
            raw = m.group(0)
            value = _dateparser_parse(raw, order)
            problems = [] if value else [diag(Code.IMPOSSIBLE_DATE, raw=raw)]
            out.append(DateMatch(value, raw, m.start(), m.end(), problems, False, "text"))
            taken.append((m.start(), m.end()))
    out.sort(key=lambda x: x.start)
    return out


def parse_date(raw: str | None, date_order: str | None = None) -> tuple[str | None, list[Diagnostic]]:
    """Parse the first date in ``raw`` to ISO 8601 ``YYYY-MM-DD``.

    Args:
        raw: printed text, e.g. ``"25/12/2017"``, ``"2019年03月19日"``, ``"11 JUN 2018"``,
            ``"2019-05-08"`` (ISO 8601 is always accepted).
        date_order: ``DMY``/``MDY``/``YMD`` for numeric dates; ``None`` reads them as DMY and notes
            an ambiguity when day and month could be swapped.

    Returns:
        ``(iso date or None, problems)``.
    """
    if raw is None or not str(raw).strip():
        return None, []
    matches = find_dates(str(raw), date_order)
    if not matches:
        return None, [diag(Code.NO_DATE, raw=raw)]
    m = matches[0]
    problems = list(m.problems)
    if m.ambiguous and date_order is None and m.value:
        problems.append(diag(Code.AMBIGUOUS_DATE_ORDER, raw=m.raw, order=m.order))
    return m.value, problems


def find_times(text: str) -> list[tuple[str, str, int]]:
    """Every time of day in ``text`` as ``(ISO time, raw, start offset)``; 12-hour times are converted."""
    out = []
    t = unicodedata.normalize("NFKC", text)
    for m in _TIME.finditer(t):
        h, mi, s, ampm = int(m.group(1)), m.group(2), m.group(3), m.group(4) or m.group(5)
        if ampm:
            if h == 0 or (h > 12 and ampm.lower() == "a"):
                continue
            if h > 12:  # "13:14:15 PM": a 24-hour time with the marker printed anyway; it agrees
                ampm = None
        if ampm:
            if ampm.lower() == "p" and h != 12:
                h += 12
            elif ampm.lower() == "a" and h == 12:
                h = 0
        iso = f"{h:02d}:{mi}" + (f":{s}" if s else "")
        out.append((iso, m.group(0), m.start()))
    return out


def parse_time(raw: str | None) -> tuple[str | None, list[Diagnostic]]:
    """Parse the first time of day in ``raw`` to ISO 8601 ``HH:MM`` or ``HH:MM:SS`` (24-hour)."""
    if raw is None or not str(raw).strip():
        return None, []
    found = find_times(str(raw))
    if not found:
        return None, [diag(Code.NO_TIME, raw=raw)]
    return found[0][0], []
