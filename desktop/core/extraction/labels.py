"""Label vocabularies: the printed labels of document amounts, per role and language, as data.

The vocabulary lives in ``resources/labels/amounts.json`` (its ``_comment`` gives the sources). Roles:

* ``total`` -- ``strong`` labels state the amount to pay (GRAND TOTAL, Net à payer, 实付, 应付);
  ``plain`` labels name a total among others (TOTAL, Summe, 合计, 金额).
* ``subtotal`` -- the amount before tax or rounding (SUBTOTAL, Zwischensumme, 小计).
* ``tax`` -- the tax amount (GST, MwSt., TVA, 税额).
* ``not_total`` -- amounts that are never the document's total (change, discount, quantity: 找零, 优惠).
* ``tendered`` / ``change`` -- the cash (or payment) handed over and the change given back; on a
  till receipt ``tendered - change`` is the amount paid (实收 50.00, 找零 6.00).
* ``cash_back`` -- cash handed out at the till on a card payment ("CASH BACK 20.00", Bargeldauszahlung):
  charged to the card with the purchase but no part of it, so "TOTAL DEBIT" = purchase + cash back is
  not the purchase total.
* ``credit_note`` -- headings that make a document a credit note or refund (Credit note, Gutschrift,
  Avoir, 红字发票, 退款).
* ``charge`` / ``allowance`` / ``rounding`` -- the document-level adjustments printed in the totals
  block between the subtotal and the total (EN 16931 BG-21 charges and BG-20 allowances, BT-114
  rounding): service charge, shipping, Versand, frais de port (added); discount, Rabatt, remise, sconto
  (subtracted); rounding, Rundung, arrondi (as printed). See :mod:`.adjustments`.
* ``withholding`` -- a tax withheld from the payment (ritenuta d'acconto, retención IRPF, Einbehalt):
  the amount payable is the total less it; it is no part of the total.

Languages are ISO 639-1 codes (``en``, ``ms``, ``de``, ``fr``, ``nl``, ``es``, ``it``, ``pt``, ``zh``).
The field-candidate generator and the rule extractors read the same lists, through
:func:`label_phrases` (the words) or :func:`label_pattern` (one compiled regular expression).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from itertools import groupby

from desktop.resources import resources_dir

__all__ = ["LANGUAGES", "ROLES", "label_pattern", "label_phrases", "label_vocabulary"]

ROLES = ("total", "subtotal", "tax", "not_total", "tendered", "change", "cash_back", "credit_note", "charge", "allowance",
         "rounding", "withholding")


@cache
def label_vocabulary() -> dict[str, dict[str, dict[str, tuple[str, ...]]]]:
    """``{role: {strength: {language: phrases}}}`` as read from ``resources/labels/amounts.json``.

    Raises:
        ValueError: the file names a role outside :data:`ROLES`.
    """
    data = json.loads((resources_dir() / "labels" / "amounts.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {}
    for role, strengths in data.items():
        if role.startswith("_"):
            continue
        if role not in ROLES:
            raise ValueError(f"labels/amounts.json: unknown role {role!r}; known: {', '.join(ROLES)}")
        out[role] = {s: {lang: tuple(p) for lang, p in langs.items()} for s, langs in strengths.items()}
    return out


LANGUAGES = ("en", "ms", "de", "fr", "nl", "es", "it", "pt", "zh")


def label_phrases(role: str, strength: str | None = None, languages: Iterable[str] | None = None) -> list[str]:
    """The label phrases of ``role`` (every strength unless one is named), for ``languages`` (all
    languages when ``None``), without duplicates, longest first.

    Raises:
        KeyError: an unknown role.
    """
    vocab = label_vocabulary()[role]
    langs = set(languages) if languages is not None else None
    seen: dict[str, None] = {}
    for s, by_lang in vocab.items():
        if strength is not None and s != strength:
            continue
        for lang, phrases in by_lang.items():
            if langs is None or lang in langs:
                for p in phrases:
                    seen.setdefault(p.lower(), None)
    return sorted(seen, key=lambda p: (-len(p), p))


#: No letter before: a Latin-script phrase starts a word.
_WORD_START = r"(?<![^\W\d_])"


def _phrase_regex(phrase: str) -> tuple[bool, str]:
    """``(starts a word, regex)``: whether the phrase must start a word (:data:`_WORD_START`, left for
    the caller to put in front) and the regex of the rest."""
    parts = [re.escape(w) for w in phrase.split()]
    body = r"\s*".join(parts)
    # CJK characters may be spaced out by OCR ("合 计")
    if re.search(r"[\u3000-\u9fff]", phrase) and len(parts) == 1:
        body = r"\s*".join(re.escape(c) for c in phrase)
    left = bool(re.match(r"[^\W\d_]", phrase)) and not re.match(r"[\u3000-\u9fff]", phrase)
    right = r"(?![^\W\d_])" if re.search(r"[^\W\d_]$", phrase) and not re.search(r"[\u3000-\u9fff]$", phrase) else ""
    return left, body + right


@cache
def _compiled(role: str, strength: str | None, languages: tuple[str, ...] | None) -> re.Pattern[str]:
    phrases = label_phrases(role, strength, languages)
    if not phrases:
        return re.compile(r"(?!x)x")  # matches nothing
    # Consecutive phrases that start a word share one look-behind, ``(?<!…)(?:a|b)`` for
    # ``(?<!…)a|(?<!…)b``: the same matches, in the same order of preference, but a search inside a
    # word fails once per position instead of once per phrase (five times faster on a page's rows).
    parts = []
    for word_start, run in groupby((_phrase_regex(p) for p in phrases), key=lambda wr: wr[0]):
        bodies = [body for _w, body in run]
        parts.append(f"{_WORD_START}(?:{'|'.join(bodies)})" if word_start else "|".join(bodies))
    return re.compile("|".join(parts), re.I)


def label_pattern(role: str, strength: str | None = None, languages: Iterable[str] | None = None) -> re.Pattern[str]:
    """One case-insensitive pattern matching any label of ``role`` (see :func:`label_phrases`).

    Latin-script phrases match whole words only ("total" not in "subtotal"; "avoir" not in
    "savoir"); Chinese phrases match anywhere, also with spaces between the characters. A pattern
    that matches nothing is returned when no phrase is selected.
    """
    return _compiled(role, strength, tuple(sorted(languages)) if languages is not None else None)


@cache
def any_label(*roles: str) -> re.Pattern[str]:
    """One case-insensitive pattern matching a label of any of ``roles`` (each role's
    :func:`label_pattern`, all strengths and languages): ``any_label("subtotal", "not_total", "tax")``
    for the rows whose amount is no total."""
    return re.compile("|".join(f"(?:{label_pattern(r).pattern})" for r in roles), re.I)
