"""Vendor memory: what the clerk confirmed about a vendor, recognised again on later documents.

Everything stays in the local session database (``session.db``, see :mod:`desktop.core.session`), in
two tables beside the queue's: ``vendor_profiles`` (one row per vendor, holding only what the clerk
edited in the Vendors list) and ``vendor_lessons`` (one row per confirmed document: the values it
taught, the evidence found on its page, and where its total and date were printed). A profile *is*
its lessons plus its edits: the newest lesson with a value wins, an edit wins over every lesson. So
taking a lesson back (undo, "mark as needing review") restores exactly the profile there was before,
and nothing but an explicit delete in the Vendors list removes a profile: removing a document from the
queue leaves its lesson (and the profile) alone. Each change is its own committed transaction in WAL
mode with ``synchronous=FULL``, like the queue, so the memory survives a killed process.

Recognising a vendor (:meth:`VendorMemory.match`) uses the evidence on the document's pages
(:func:`page_evidence`):

* a tax / registration ID (GST, SST, VAT, company registration number, 税号): an exact match after
  removing spaces and punctuation (score 0.99);
* a telephone or fax number: the last 8 digits equal (score 0.93; national and international
  spellings of one number agree);
* the header text (the first :data:`HEADER_LINES` lines of the first page with letters and fewer than
  7 digits: name, address, branch; phone, ID and date lines are left out):
  ``rapidfuzz.fuzz.ratio`` (normalised Indel similarity, 0-100) against the headers of the profile's
  documents, counted from :data:`HEADER_MIN` (score = ratio / 100 x 0.95).

When one of these agrees, the profile's address printed on the page (:func:`printed_on`, any of the
spellings its documents taught) adds 0.9 (it tells a chain's branches apart). Profiles of one vendor
name whose scores are within :data:`BRANCH_TIE` of the best (a chain's branches, all matching its
shared tax ID) are told apart by how well the page supports their address (:func:`support_on`).
An ID or phone number known to more than one profile (an office's own number printed on its
suppliers' invoices) is no evidence for either, except a tax ID whose profiles all bear one vendor
name (a chain's branches share its GST ID: it names the chain, the header and address tell the
branch). Independent pieces combine as ``1 - prod(1 - s)``. A tax ID on the page that differs from every ID of the profile is conflicting
evidence: the score is halved and the conflict named.

Applying a profile (:meth:`VendorMemory.apply`) to a document whose match score is at least
:data:`MATCH_MIN`. A profile keeps every distinct value its documents taught for a field, with the
documents that taught it (:attr:`VendorProfile.variants`, :attr:`VendorProfile.taught_docs`: one
shop's receipts are transcribed with and without a comma, a word cut short, one with the clerk's typing
slip): the one spelled most like the value read, or with none read the one the page supports best, is
used, ties going to the one more documents taught (:func:`pick_choice`), so one slip is one vote.

A clerk's typing slip (``RSTORAN`` for the ``RESTORAN`` printed, ``SELANGIR``) or a faded print
transcribed as printed (``PETA ING``) is taught by one document; a real misreading that the memory is
there to mend (``Temensgung`` for ``Temenggung``) is read on one page. The page's word stands against
such a value when it is *attested*, a word known without this vendor (:meth:`VendorMemory.attested`:
the extraction's address and trade words, or the clerk's own words for :data:`VOCABULARY_PROFILES`
other vendors), or has more letters than the value's spelling of it (:func:`_reads_more_letters`:
an engine confuses and drops letters, it does not add them: ``BERJUNTAI`` printed, ``BEJUNTAL``
typed once), and the value spells it another way with a word fewer than :data:`SPELLING_VOTES`
documents confirmed and that is not attested itself (:func:`_page_spelling_stands`: the page's value
stays, flagged as a conflict); an empty field filled from such a value takes the page's attested
spelling of the word (:func:`_checked_fill`, flagged). Two confirmations outweigh the page. Then:

* vendor name, address, tax ID and currency: an empty field is filled (source ``memory``; flagged for
  review when the value is not printed on the page, :func:`printed_on`, or the match is not strong,
  score < :data:`STRONG_MATCH`), except an address the page does not show when only the tax ID agreed
  (:attr:`Match.kinds`: the ID names the company, which a chain's branches share; the phone number,
  the header or the printed address name the shop). A value that agrees (the same words, whatever the case and
  punctuation) is spelled as the clerk confirmed it when the two differ only in case and spacing, or
  only by OCR noise in the marks (:func:`marks_misread`: a mark of the clerk's the page lacks, a
  speck read as an apostrophe), or when :data:`SPELLING_VOTES` documents confirmed its punctuation;
  else it is kept as printed (one confirmation does not outweigh the page's own commas). A value that
  differs takes the confirmed one (source ``memory``, the page's text stays in ``raw`` and in
  ``extras["memory"]["page_read"]``, which the form's tooltip shows) without a flag when no number
  differs (:func:`number_change`) and it is a misreading of it (``fuzz.ratio`` >= :data:`VARIANT_MIN`) or a
  fragment of it or it of the extracted value (``fuzz.partial_ratio`` >= :data:`EVIDENCE_MIN`: half a
  name, an address with the name line in front) and the confirmed value is printed on this page, or
  when both hold the same words in another order (``fuzz.token_sort_ratio`` >= :data:`EVIDENCE_MIN`).
  Any other difference is *flagged*, never silently replaced (``needs_review`` and a problem naming
  both values): when the confirmed value is printed on this page too and the match is strong (a shop's
  name beside its company's name, a digit the engine misread: ``1351`` for ``1851``), it goes in the
  field (``replaced``), except on a branch the profile does not know (the page's own address is none of
  the profile's, :func:`_new_branch`: a chain's branch under its brand name) and where the page prints
  another number (:func:`number_change` ``"other"``: another street, unit or branch number, which a
  fuzzy "printed on the page" cannot tell from the confirmed one); otherwise, when most of the page's words agree with the confirmed value
  (:func:`repair_words`: a chain's branch with its own branch number, misread words), the shared words
  are spelled as confirmed and single-character misreadings of confirmed words are corrected, the rest
  stays as read (``repaired``, flagged); when every word of the page is a word of the confirmed value
  or what is left of one (:func:`damaged_copy`: a print cut at its margin, faded letters), the
  confirmed value goes in (``repaired``, flagged); otherwise the page's value stays (``conflict``: a chain's branch
  with an address of its own). Values from an e-invoice's data or a QR code
  (:data:`AUTHORITATIVE`) are never replaced, only flagged.
* document type: returned as a suggestion (the pipeline reads the fields again as that type).
* total and date are never copied: the memory only *locates* them. When extraction found no total
  (or date), the line whose label reads like the label beside the profile's last total (or date) is
  looked for on this page and the value printed there is read (source ``ocr``).

Memory-made values have ``confidence`` = the match score, so the form's tint reflects how sure the
match is. A value the memory filled, confirmed or corrected on a strong match with no conflicting
evidence (:func:`_sure`) is flagged (``needs_review``) only by a failed check, not by the field
model's review threshold, which is set for values nobody confirmed (it flags every address); a weak
match or a conflict keeps the flag. ``Field.needs_review`` stays the one flag the form's tint, the
queue badge, the summary counts and the Problems sheet read (:mod:`desktop.core.flags`);
``Document.extras["memory"]`` says which profile matched, why, and which earlier document
taught each value (the form's tooltip names it).

What a reviewed document teaches (:meth:`VendorMemory.learn`, :func:`unchecked_fields`): only what a
person vouched for. Marking a document reviewed says the clerk is done with it, not that every value the
extraction flagged is right: QA found a clerk marking a German invoice reviewed with its vendor (the
buyer's name, read from the "An:" line) still tinted "check", and the memory then confirming that wrong
vendor at 100 % and unflagged on a photo of the same invoice (finding F1, session 12). So a field of
:data:`MEMORY_FIELDS` or :data:`LOCATED_FIELDS` that still needs checking when the document is learned
(:func:`desktop.core.flags.field_reasons`: ``needs_review``, or a failed check) and that the clerk did not
type or edit is **not learned at all** (weight 0): it is left out of the lesson's values (and, for total
and date, out of its layout), unless the clerk confirmed it explicitly: the window's question on Mark
reviewed ("2 fields are still marked to check ... Mark reviewed anyway?") has a box "I checked them: they
are right", whose fields are recorded in ``Document.extras["confirmed_flagged"]`` (:data:`CONFIRMED_FLAGGED`);
``shoebox learn`` honours that list too, and its ``--include-flagged`` learns every flagged field
(``learn(include_flagged=True)``). The rest of the document (the values that passed unflagged or were
edited, the page's evidence) is learned as before; a lesson left without a vendor name joins the profile
of its tax ID, and a later lesson that names the vendor joins that nameless profile (:meth:`_profile_for`).
Why not a reduced weight: every copy of one document misreads it alike (the QA invoice's four copies all
read the buyer as the vendor), so a tentative value "confirmed" by a second unchecked copy would be the
same mistake counted twice; and any weight that lets such a value fill or vouch for a field brings back
the silent error. At weight 0 a value nobody checked leaves the next document exactly as it would be
without the memory: flagged again, never worse.

A page value the memory vouches for says so: where a value read on the page agrees with the profile
(``confirmed``) and the memory raised its confidence or cleared its flag, its ``source`` becomes
``memory`` (the page's reading stays the value, its box the page's), so the form shows the "memory" chip
and the sentence naming the document that taught it, and the JSON does not call a memory-made 99.99 %
``ocr``. A value the memory agrees with but did not change keeps its source.

This module imports no Qt.
"""
from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from desktop.core.diagnostics import Code, DiagnosticError, diag
from desktop.core.duplicates import normalise_text
from desktop.core.flags import field_reasons
from desktop.core.model import Document, Field, PageResult

__all__ = [
    "CONFIRMED_FLAGGED",
    "MEMORY_FIELDS",
    "Evidence",
    "Lesson",
    "Match",
    "MemoryError_",
    "Teaching",
    "VendorMemory",
    "VendorProfile",
    "doc_key",
    "page_evidence",
    "printed_on",
    "unchecked_fields",
]

#: Fields a profile remembers and fills (plus the document type).
MEMORY_FIELDS = ("vendor_name", "vendor_address", "vendor_tax_id", "currency")
#: Fields the memory only helps to locate on the page (never copies).
LOCATED_FIELDS = ("total", "date")
#: ``Document.extras`` key: the names of fields still flagged when the clerk marked the document reviewed
#: that the clerk said are right (the window's question on Mark reviewed); the memory learns them.
CONFIRMED_FLAGGED = "confirmed_flagged"
#: Text fields whose misread words the memory repairs (:func:`repair_words`); IDs and codes never.
REPAIRED_FIELDS = ("vendor_name", "vendor_address")

HEADER_LINES = 6
HEADER_MIN = 82.0
MATCH_MIN = 0.80
STRONG_MATCH = 0.90
VARIANT_MIN = 85.0
EVIDENCE_MIN = 94.0
#: Field sources the memory never replaces: the data of an e-invoice (XML, OFD) and QR codes.
AUTHORITATIVE = frozenset({"xml", "ofd_text", "qr"})
BRANCH_MIN = 92.0
#: Profiles of one vendor name whose match scores are this close are told apart by their address.
BRANCH_TIE = 0.01
LABEL_MIN = 85.0
TAX_ID_SCORE = 0.99
PHONE_SCORE = 0.93
HEADER_WEIGHT = 0.95
ADDRESS_SCORE = 0.9
MAX_HEADERS = 12
#: Documents that must have confirmed a value's punctuation before it overrides the page's own. One
#: vote was measured against two on the sroie_dev replay (``benchmarks.bench_memory``, four orders,
#: 2026-12): it mends the receipts whose keys all drop a mark the print shows, but a single receipt's
#: key that drops one turns the vendor's next receipt from right to wrong; the right-to-wrong limit
#: decides for two.
SPELLING_VOTES = 2
#: Word-level repair (:func:`repair_words`): at most one edit per this many characters of a word.
REPAIR_CHARS_PER_EDIT = 4
#: ... and only when at least this share of the page's words agree with the confirmed value.
REPAIR_AGREEMENT = 0.6
#: A word the page prints is *attested* (a real word, not a misreading) when it is one of the
#: extraction's address and trade words (:data:`desktop.core.extraction.candidates.ADDRESS_WORDS`,
#: ``NAME_WORDS``) or the clerk confirmed it in the names or addresses of at least this many other
#: vendors (:meth:`VendorMemory.attested`): one other vendor's slip does not make a word.
VOCABULARY_PROFILES = 2
#: Words shorter than this (and words with digits) are never judged attested: numbers, units and
#: abbreviations are a shop's own.
LEXICAL_MIN = 4
EXPORT_FORMAT = "shoebox-vendors"
EXPORT_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vendor_profiles (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    overrides TEXT    NOT NULL DEFAULT '{}',
    created   REAL    NOT NULL,
    updated   REAL    NOT NULL
);
CREATE TABLE IF NOT EXISTS vendor_lessons (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    profile_id INTEGER NOT NULL,
    doc_key    TEXT    NOT NULL UNIQUE,
    source     TEXT    NOT NULL,
    pages      TEXT    NOT NULL,
    taught     TEXT    NOT NULL,
    evidence   TEXT    NOT NULL,
    layout     TEXT    NOT NULL,
    facts      TEXT    NOT NULL,
    created    REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS vendor_lessons_profile ON vendor_lessons(profile_id);
"""


class MemoryError_(DiagnosticError):
    """A vendor-memory operation was given something it cannot use (``diagnostic``: a ``VENDOR_*``
    code naming the problem, worded in either language; ``str()``: the English message)."""


# --------------------------------------------------------------------------------------------------
# evidence


_TAX_LABEL = re.compile(
    r"(GST|SST|VAT|TAX|TIN|ABN|UEN|ROC|BRN|CO(MPANY)?\.?\s*-?\s*(REG(ISTRATION)?|NO)|REG(ISTRATION)?\.?\s*NO|"
    r"纳税人识别号|税号|统一社会信用代码)[^:：\n]{0,14}?[:：.#]?\s*(?P<id>[A-Z0-9][A-Z0-9 .\-/]{4,24}[A-Z0-9])",
    re.I)
_REG_IN_PARENS = re.compile(r"\(\s*(?P<id>\d{3,}[\s-]?[A-Z])\s*\)", re.I)
_PHONE = re.compile(
    r"(TEL(EPHONE)?|PHONE|PH|FAX|H/?P|MOBILE|MOB|HOTLINE|CALL|WHATSAPPS?|电话|電話|传真)[^\d+(\n]{0,16}?"
    r"(?P<num>\+?[\d(][\d\s()./-]{5,20}\d)", re.I)


def _squash_id(text: str) -> str:
    return re.sub(r"[^0-9A-Z]", "", unicodedata.normalize("NFKC", text).upper())


def _phone_key(raw: str) -> str | None:
    digits = re.sub(r"\D", "", raw)
    return digits[-8:] if len(digits) >= 7 else None


@dataclass
class Evidence:
    """What identifies a vendor on a document's pages.

    Attributes:
        tax_ids: registration / tax IDs, squashed (upper case, no spaces or punctuation).
        phones: telephone and fax numbers, as their last 8 digits.
        header: the normalised text of the first :data:`HEADER_LINES` lines of the first page that have
            letters and fewer than 7 digits.
    """

    tax_ids: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)
    header: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"tax_ids": list(self.tax_ids), "phones": list(self.phones), "header": self.header}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Evidence:
        return cls(list(d.get("tax_ids", [])), list(d.get("phones", [])), str(d.get("header", "")))


def _reading_lines(page: PageResult) -> list[str]:
    lines = sorted(page.lines, key=lambda ln: ((ln.box[1] + ln.box[3]) / 2, ln.box[0]))
    return [ln.text for ln in lines if ln.text and ln.text.strip()]


def page_evidence(document: Document) -> Evidence:
    """The evidence on ``document``'s pages (and its ``vendor_tax_id`` field), see :class:`Evidence`.

    The buyer's tax ID (field ``buyer_tax_id``) is never taken as the vendor's.
    """
    texts = [t for p in document.page_results for t in _reading_lines(p)]
    buyer = _squash_id((document.fields.get("buyer_tax_id") or Field("x")).value or "")
    tax_ids: list[str] = []
    vendor_id = document.fields.get("vendor_tax_id")
    if vendor_id is not None and vendor_id.value:
        tax_ids.append(_squash_id(vendor_id.value))
    phones: list[str] = []
    for text in texts:
        t = unicodedata.normalize("NFKC", text)
        for m in _TAX_LABEL.finditer(t):
            code = _squash_id(m.group("id"))
            if sum(c.isdigit() for c in code) >= 5:
                tax_ids.append(code)
        for m in _REG_IN_PARENS.finditer(t):
            tax_ids.append(_squash_id(m.group("id")))
        for m in _PHONE.finditer(t):
            key = _phone_key(m.group("num"))
            if key:
                phones.append(key)
    tax_ids = [x for x in dict.fromkeys(tax_ids) if x and x != buyer]
    header_lines: list[str] = []
    if document.page_results:
        first = min(document.page_results, key=lambda p: p.number)
        for text in _reading_lines(first):
            norm = normalise_text(text)
            # contact and ID lines are evidence of their own, and dates change: header = name, address
            if sum(c.isalpha() for c in norm) >= 3 and sum(c.isdigit() for c in norm) < 7:
                header_lines.append(norm)
            if len(header_lines) >= HEADER_LINES:
                break
    return Evidence(tax_ids, list(dict.fromkeys(phones)), " ".join(header_lines))


# --------------------------------------------------------------------------------------------------
# profiles


def doc_key(document: Document) -> str:
    """The key a document's lesson is stored under: ``<source>#<first>-<last>`` (learning the same
    document again replaces its lesson)."""
    return f"{document.source}#{document.pages[0]}-{document.pages[1]}"


def unchecked_fields(document: Document) -> list[str]:
    """The fields :meth:`VendorMemory.learn` leaves out of ``document``'s lesson (see the module
    docstring): those of :data:`MEMORY_FIELDS` and :data:`LOCATED_FIELDS`, in that order, that hold a
    value, still need checking (:func:`desktop.core.flags.field_reasons` of the field alone:
    ``needs_review`` or a failed check, whether or not the document is marked reviewed), were not typed
    or edited by the clerk (``Field.edited``, source ``user``) and are not named in
    ``document.extras["confirmed_flagged"]`` (:data:`CONFIRMED_FLAGGED`: the clerk said they are right).
    Empty for an error document."""
    if document.error:
        return []
    confirmed = document.extras.get(CONFIRMED_FLAGGED) or []
    confirmed = set(confirmed) if isinstance(confirmed, list | tuple | set) else set()
    out = []
    for name in (*MEMORY_FIELDS, *LOCATED_FIELDS):
        f = document.fields.get(name)
        if f is None or f.value is None or not str(f.value).strip() or f.edited or f.source == "user":
            continue
        if name not in confirmed and field_reasons(f):
            out.append(name)
    return out


def _taught_label(source: str, pages: Any) -> str:
    first, last = (list(pages) + [1, 1])[:2] if pages else (1, 1)
    name = Path(source).name or source
    if first == last == 1:
        return name
    return f"{name} (p. {first})" if first == last else f"{name} (p. {first}-{last})"


@dataclass
class VendorProfile:
    """One vendor as the memory knows it (computed from its lessons and the clerk's edits).

    Attributes:
        id: the profile's row id.
        values: ``{field: value}`` for :data:`MEMORY_FIELDS` and ``document_type`` (missing = unknown).
        taught_by: ``{field: label}`` of the document that taught each value (``"edited in the Vendors
            list"`` for the clerk's edits).
        tax_ids, phones: every ID / phone number seen on its documents (see :class:`Evidence`).
        headers: the header texts of its newest documents (at most :data:`MAX_HEADERS`).
        layout: ``{"total"|"date": {"label": text, "rel_box": [x0, y0, x1, y1]}}`` from its newest
            document that had them (``rel_box`` in fractions of the page size).
        documents: how many confirmed documents taught it.
        last_seen: POSIX time of its newest lesson (or edit).
        overrides: the clerk's edits.
        variants: ``{field: [(value, label), ...]}``: every distinct value its documents taught for a
            field, newest first, with the newest document that taught it; one shop's documents may
            spell its address differently (with or without a comma, a word cut short, a clerk's typing
            slip), and :meth:`VendorMemory.apply` uses the one the page supports. A field the clerk
            edited in the Vendors list has that value only.
        spellings: ``{field: {spelling: n}}``: how many documents taught each spelling
            (:func:`_spelling`) of a field.
        taught_docs: ``{field: {value: [label, ...]}}``: every document that taught each value, newest
            first (so one slip is seen as one document against the others).
        word_counts: ``{field: {WORD: n}}``: how many documents taught a value of the field holding
            each word (:func:`_words`, upper case): a word confirmed on one document only may be a
            clerk's typing slip (:func:`_page_spelling_stands`).
    """

    id: int
    values: dict[str, str] = field(default_factory=dict)
    taught_by: dict[str, str] = field(default_factory=dict)
    tax_ids: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    layout: dict[str, dict[str, Any]] = field(default_factory=dict)
    documents: int = 0
    last_seen: float = 0.0
    overrides: dict[str, str] = field(default_factory=dict)
    variants: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    spellings: dict[str, dict[str, int]] = field(default_factory=dict)
    taught_docs: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    word_counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def word_confirmations(self, name: str, word: str) -> int:
        """How many of its documents taught field ``name`` a value holding ``word`` (upper case); a
        word of a value edited in the Vendors list counts as confirmed for good (a large number)."""
        if self.overrides.get(name):
            return 1_000_000 if word in _words(self.overrides[name]) else 0
        return self.word_counts.get(name, {}).get(word, 0)

    def confirmations(self, name: str, value: str) -> int:
        """How many of its documents confirmed ``value`` for field ``name`` spelled alike
        (:func:`_spelling`: the same letters, digits and punctuation); a value edited in the Vendors
        list counts as confirmed for good (a large number)."""
        if self.overrides.get(name):
            return 1_000_000 if _spelling(self.overrides[name]) == _spelling(value) else 0
        return self.spellings.get(name, {}).get(_spelling(value), 0)

    def choices(self, name: str) -> list[tuple[str, str]]:
        """The values known for field ``name`` as ``(value, label)`` pairs, newest first (the current
        value alone when no lesson recorded variants)."""
        got = self.variants.get(name)
        if got:
            return list(got)
        value = self.values.get(name)
        return [(value, self.taught_by.get(name, ""))] if value else []

    @property
    def name(self) -> str:
        return self.values.get("vendor_name") or f"vendor {self.id}"


@dataclass
class Match:
    """A profile recognised on a document.

    Attributes:
        profile: the profile.
        score: in [0, 1] (see the module docstring).
        reasons: the evidence that agreed, in words.
        conflicts: evidence that disagreed, in words.
        kinds: the kinds of evidence that agreed (``tax_id``, ``phone``, ``header``, ``address``): a tax
            or registration ID names the company (a chain's branches share it), the others the shop.
    """

    profile: VendorProfile
    score: float
    reasons: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)


@dataclass
class Lesson:
    """What one :meth:`VendorMemory.learn` did, so :meth:`VendorMemory.forget` can take it back.

    Attributes:
        doc_key: the document's key (:func:`doc_key`).
        lesson_id: the new lesson row.
        profile_id: the profile it taught.
        replaced: the lesson row it replaced (the same document learned before), as a dict, or ``None``.
        created_profile: whether the profile was created by this lesson.
        left_out: the fields not learned because nobody checked them (:func:`unchecked_fields`).
    """

    doc_key: str
    lesson_id: int
    profile_id: int
    replaced: dict[str, Any] | None = None
    created_profile: bool = False
    left_out: tuple[str, ...] = ()


@dataclass
class Teaching:
    """What :meth:`VendorMemory.teach_change` did: a lesson learned, or a document forgotten (its dict)."""

    learned: Lesson | None = None
    forgotten: dict[str, Any] | None = None


def _near_any(ids: list[str], known: list[str]) -> bool:
    """Whether one of ``ids`` is an OCR misreading of a known ID (same length, ratio >= 80)."""
    return any(len(a) == len(b) and fuzz.ratio(a, b) >= 80 for a in ids for b in known)


def _same_text(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and normalise_text(a) == normalise_text(b)


def _similarity(a: str | None, b: str | None) -> float:
    if not a or not b:
        return 0.0
    return float(fuzz.ratio(normalise_text(a), normalise_text(b)))


def _label_of(page: PageResult, f: Field) -> tuple[str, list[float]] | None:
    """The label printed beside a field's value (the nearest text on its row, at or left of the value,
    digits dropped), and the value's box in fractions of the page size; ``None`` when there is none."""
    if f.box is None or not page.width or not page.height:
        return None
    x0, y0, x1, y1 = f.box
    rel = [x0 / page.width, y0 / page.height, x1 / page.width, y1 / page.height]
    cy, h = (y0 + y1) / 2, max(1.0, y1 - y0)
    found: list[tuple[float, str]] = []
    for ln in page.lines:
        lx0, ly0, lx1, ly1 = ln.box
        if abs((ly0 + ly1) / 2 - cy) > 0.6 * h or lx0 > x0 + 1:
            continue
        text = ln.text.replace(f.raw, " ") if f.raw else ln.text
        words = normalise_text(re.sub(r"[\d.,:/-]+", " ", text))
        if sum(c.isalpha() for c in words) >= 2:
            found.append((max(0.0, x0 - lx1), words))
    if not found:
        return None
    return min(found)[1], rel


def _new_branch(document: Document, p: VendorProfile, page_text: str) -> bool:
    """Whether ``document`` is from a branch of ``p``'s vendor that ``p`` does not know: the page has an
    address of its own (field ``vendor_address``) that is none of ``p``'s addresses told another way,
    and none of them is printed on the page (a chain's branches share its tax ID)."""
    f = document.fields.get("vendor_address")
    read = normalise_text(f.value if f is not None else None)
    known = p.choices("vendor_address")
    if not read or not known:
        return False
    for value, _label in known:
        v = normalise_text(value)
        if fuzz.ratio(read, v) >= VARIANT_MIN or fuzz.partial_ratio(read, v) >= EVIDENCE_MIN or printed_on(value, page_text):
            return False
    return True


class VendorMemory:
    """The vendor memory in the session database.

    Thread-safe: one connection (``check_same_thread=False``) behind a lock, so the reading thread can
    apply the memory while the window's thread learns.

    Args:
        path: the database file; ``None`` = ``user_data_dir() / "session.db"`` (the queue's file).

    Raises:
        sqlite3.DatabaseError: the file is not an SQLite database.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            from desktop.core.settings import user_data_dir

            path = user_data_dir() / "session.db"
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(_SCHEMA)
        self._cache: list[VendorProfile] | None = None
        self._vocabulary: dict[str, set[int]] = {}

    # -- housekeeping ------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite when the last connection closes)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> VendorMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _changed(self) -> None:
        self._cache = None

    def _tx(self, fn: Any) -> Any:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                out = fn()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            finally:
                self._changed()
            return out

    # -- reading -----------------------------------------------------------------------------------
    def profiles(self) -> list[VendorProfile]:
        """Every profile, by name."""
        with self._lock:
            if self._cache is None:
                self._cache = self._load_profiles()
                vocabulary: dict[str, set[int]] = {}
                for p in self._cache:
                    for name in REPAIRED_FIELDS:
                        for value in ([p.overrides[name]] if p.overrides.get(name) else p.word_counts.get(name, {})):
                            for w in _words(value):
                                vocabulary.setdefault(w, set()).add(p.id)
                self._vocabulary = vocabulary
            return list(self._cache)

    def attested(self, word: str, profile_id: int | None = None) -> bool:
        """Whether ``word`` (upper case) is a word known without vendor ``profile_id``: one of
        :func:`known_words`, or a word of the names or addresses the clerk confirmed for at least
        :data:`VOCABULARY_PROFILES` other vendors. Words of fewer than :data:`LEXICAL_MIN` letters,
        or with digits, are never attested."""
        if not _lexical(word):
            return False
        if word in known_words():
            return True
        self.profiles()
        with self._lock:
            return len(self._vocabulary.get(word, set()) - {profile_id}) >= VOCABULARY_PROFILES

    def profile(self, profile_id: int) -> VendorProfile | None:
        return next((p for p in self.profiles() if p.id == profile_id), None)

    def __len__(self) -> int:
        return len(self.profiles())

    def _load_profiles(self) -> list[VendorProfile]:
        profiles: dict[int, VendorProfile] = {}
        for pid, overrides, updated in self._db.execute("SELECT id, overrides, updated FROM vendor_profiles"):
            loaded = VendorProfile(pid, overrides=json.loads(overrides or "{}"))
            loaded.last_seen = float(updated) if loaded.overrides else 0.0
            profiles[pid] = loaded
        rows = self._db.execute(
            "SELECT profile_id, source, pages, taught, evidence, layout, created FROM vendor_lessons "
            "ORDER BY created DESC, id DESC")
        for pid, source, pages, taught, evidence, layout, created in rows:
            p = profiles.get(pid)
            if p is None:
                continue
            label = _taught_label(source, json.loads(pages))
            p.documents += 1
            p.last_seen = max(p.last_seen, float(created))
            for name, value in json.loads(taught).items():
                if value and name not in p.values:
                    p.values[name], p.taught_by[name] = value, label
                if value and name in MEMORY_FIELDS:
                    counts = p.spellings.setdefault(name, {})
                    counts[_spelling(value)] = counts.get(_spelling(value), 0) + 1
                    known = p.variants.setdefault(name, [])
                    if all(v != value for v, _l in known):
                        known.append((value, label))
                    p.taught_docs.setdefault(name, {}).setdefault(value, []).append(label)
                    words = p.word_counts.setdefault(name, {})
                    for w in set(_words(value)):
                        words[w] = words.get(w, 0) + 1
            ev = Evidence.from_dict(json.loads(evidence))
            p.tax_ids.extend(x for x in ev.tax_ids if x not in p.tax_ids)
            p.phones.extend(x for x in ev.phones if x not in p.phones)
            if ev.header and len(p.headers) < MAX_HEADERS:
                p.headers.append(ev.header)
            for name, where in json.loads(layout).items():
                if name not in p.layout:
                    p.layout[name] = dict(where, taught_by=label)
        for p in profiles.values():
            for name, value in p.overrides.items():
                if value:
                    p.values[name], p.taught_by[name] = value, "edited in the Vendors list"
                    p.variants[name] = [(value, "edited in the Vendors list")]
                    p.taught_docs[name] = {value: ["edited in the Vendors list"]}
                else:
                    p.values.pop(name, None)
                    p.variants.pop(name, None)
                    p.taught_docs.pop(name, None)
            tid = p.values.get("vendor_tax_id")
            if tid and _squash_id(tid) not in p.tax_ids:
                p.tax_ids.append(_squash_id(tid))
        return sorted(profiles.values(), key=lambda p: (p.name.casefold(), p.id))

    def lessons(self) -> list[dict[str, Any]]:
        """Every lesson row as a dict (``id, profile_id, doc_key, source, pages, taught, evidence, layout,
        facts, created``; JSON columns parsed), oldest first."""
        with self._lock:
            return [self._lesson_dict(r) for r in self._db.execute(
                "SELECT id, profile_id, doc_key, source, pages, taught, evidence, layout, facts, created "
                "FROM vendor_lessons ORDER BY created, id")]

    @staticmethod
    def _lesson_dict(r: tuple) -> dict[str, Any]:
        keys = ("id", "profile_id", "doc_key", "source", "pages", "taught", "evidence", "layout", "facts", "created")
        d = dict(zip(keys, r, strict=True))
        for k in ("pages", "taught", "evidence", "layout", "facts"):
            d[k] = json.loads(d[k])
        return d

    # -- recognising -------------------------------------------------------------------------------
    def match(self, document: Document, evidence: Evidence | None = None) -> Match | None:
        """The profile ``document`` most likely comes from, or ``None`` (see the module docstring)."""
        ev = evidence or page_evidence(document)
        profiles = self.profiles()
        if not profiles:
            return None
        id_owners: dict[str, set[int]] = {}
        phone_owners: dict[str, set[int]] = {}
        for p in profiles:
            for x in p.tax_ids:
                id_owners.setdefault(x, set()).add(p.id)
            for x in p.phones:
                phone_owners.setdefault(x, set()).add(p.id)
        names = {p.id: normalise_text(p.values.get("vendor_name")) for p in profiles}
        found: list[tuple[Match, float]] = []  # each with how well the page supports its address
        page_text: str | None = None
        for p in profiles:
            parts: list[float] = []
            reasons: list[str] = []
            conflicts: list[str] = []
            kinds: list[str] = []
            shared_ids = [x for x in ev.tax_ids if x in p.tax_ids]
            if any(len(id_owners[x]) == 1 or len({names[o] for o in id_owners[x]}) == 1 for x in shared_ids):
                parts.append(TAX_ID_SCORE)
                reasons.append(f"tax ID {shared_ids[0]}")
                kinds.append("tax_id")
            shared_phones = [x for x in ev.phones if x in p.phones and len(phone_owners[x]) == 1]
            if shared_phones:
                parts.append(PHONE_SCORE)
                reasons.append(f"phone number …{shared_phones[0][-4:]}")
                kinds.append("phone")
            if ev.header and p.headers:
                ratio = max(fuzz.ratio(ev.header, h) for h in p.headers)
                if ratio >= HEADER_MIN:
                    parts.append(ratio / 100.0 * HEADER_WEIGHT)
                    reasons.append(f"header text {ratio:.0f}% alike")
                    kinds.append("header")
            if not parts:
                continue
            if page_text is None:
                page_text = _page_text(document)
            support = max((support_on(a, page_text) for a, _l in p.choices("vendor_address")), default=0.0)
            if support >= EVIDENCE_MIN:
                parts.append(ADDRESS_SCORE)  # supporting only: tells a chain's branches apart
                reasons.append("its address is printed")
                kinds.append("address")
            miss = 1.0
            for s in parts:
                miss *= 1.0 - s
            score = 1.0 - miss
            if ev.tax_ids and p.tax_ids and not shared_ids and not _near_any(ev.tax_ids, p.tax_ids):
                conflicts.append(f"the page's tax ID {ev.tax_ids[0]} is not the profile's {p.tax_ids[0]}")
                score *= 0.5
            found.append((Match(p, round(score, 4), reasons, conflicts, kinds), support))
        if not found:
            return None
        best = max(found, key=lambda ms: ms[0].score)[0]
        # a chain's branches (one name, several profiles) tie on the chain's shared evidence: the
        # branch whose address the page supports best is the one
        name = names[best.profile.id]
        branches = [ms for ms in found if name and names[ms[0].profile.id] == name
                    and ms[0].score >= best.score - BRANCH_TIE and not ms[0].conflicts]
        if len(branches) > 1:
            best = max(branches, key=lambda ms: (ms[1], ms[0].score))[0]
        return best

    # -- applying ----------------------------------------------------------------------------------
    def apply(self, document: Document, match: Match | None = None) -> Match | None:
        """Fill, confirm or flag ``document``'s vendor fields from the profile it matches (in place).

        Args:
            document: a read document (not an error document).
            match: a match found before (default: :meth:`match`).

        Returns:
            The match used (score >= :data:`MATCH_MIN`), or ``None`` when no profile is close enough
            (the document is then unchanged). ``document.extras["memory"]`` records what was done:
            ``profile_id``, ``vendor``, ``score``, ``reasons``, ``conflicts``, ``fields`` (``{name:
            filled|confirmed|corrected|replaced|conflict|located}``), ``taught_by`` (``{name: label}``),
            ``page_read`` (``{name: text}``: what the page read where the memory's value went in, so the
            form and the JSON keep the page's reading visible) and ``document_type`` (the profile's type
            when it differs from the document's).
        """
        if document.error:
            return None
        m = match if match is not None else self.match(document)
        if m is None or m.score < MATCH_MIN:
            return None
        p = m.profile
        actions: dict[str, str] = {}
        taught: dict[str, str] = {}
        page_read: dict[str, str] = {}  # what the page read where the memory's spelling went in
        page_text = _page_text(document)
        new_branch = _new_branch(document, p, page_text)

        def attested(word: str) -> bool:
            return self.attested(word, p.id)

        for name in MEMORY_FIELDS:
            choices = p.choices(name)
            if not choices or name not in document.fields:
                continue
            f = document.fields[name]
            if f.edited or f.source == "user":
                continue
            read_before = str(f.value).strip() if f.value is not None else ""
            taught_docs = p.taught_docs.get(name, {})

            def votes(value: str, taught_docs: dict[str, list[str]] = taught_docs) -> int:
                return len(taught_docs.get(value, ()))

            def confirmed(word: str, name: str = name) -> int:
                return p.word_confirmations(name, word)

            value, label = pick_choice(f, choices, page_text, votes=votes)
            if name == "vendor_address" and not (f.value and str(f.value).strip()) \
                    and "phone" not in m.kinds and "header" not in m.kinds and not printed_on(value, page_text):
                # only the tax ID agrees: it names the company, and a chain's branches share it; an
                # address the page does not show is not guessed for the shop
                continue
            action = _apply_value(f, value, m, label, page_text, may_replace=not new_branch,
                                  confirmations=p.confirmations(name, value),
                                  attested=attested, confirmed=confirmed)
            if action:
                actions[name], taught[name] = action, label
            if read_before and f.source == "memory" and f.value != read_before:
                page_read[name] = read_before
        for name in LOCATED_FIELDS:
            where = p.layout.get(name)
            empty = document.fields.get(name)
            if where and empty is not None and empty.value is None and not empty.edited:
                if _locate(document, empty, where, m.score):
                    actions[name], taught[name] = "located", str(where.get("taught_by", ""))
        info: dict[str, Any] = {"profile_id": p.id, "vendor": p.name, "score": m.score, "reasons": m.reasons,
                                "conflicts": m.conflicts, "fields": actions, "taught_by": taught,
                                "page_read": page_read}
        mem_type = p.values.get("document_type")
        if mem_type and mem_type != document.document_type:
            info["document_type"] = mem_type
        document.extras["memory"] = info
        return m

    # -- learning ----------------------------------------------------------------------------------
    def learn(self, document: Document, *, include_flagged: bool = False) -> Lesson | None:
        """Learn from a document the clerk confirmed (reviewed): its vendor values, evidence and layout.

        Values nobody checked (:func:`unchecked_fields`: still flagged, not edited, not confirmed in
        ``extras["confirmed_flagged"]``) are left out (see the module docstring), unless
        ``include_flagged`` (``shoebox learn --include-flagged``: the caller vouches for them).

        The profile taught is the one one of whose names equals the confirmed name and whose address
        is alike (``fuzz.ratio`` >= :data:`BRANCH_MIN`) or printed on this document (the clerk corrected
        its spelling); a chain's branches (same name, another address printed) become separate
        profiles; else the one whose tax ID or phone number is on this document, whose address is
        alike and whose name is spelled alike (``fuzz.ratio`` >= :data:`VARIANT_MIN`: one vendor's name
        typed two ways, it keeps both spellings); else the one with the confirmed tax ID and no name,
        else a new profile. Learning the same document again (:func:`doc_key`) replaces its lesson.

        Returns:
            What was done (for :meth:`forget`; ``left_out`` names the fields not learned), or ``None``
            when the document has no vendor name and no tax ID to learn (an error document, an empty
            form, or both left out as unchecked).
        """
        if document.error:
            return None
        left_out = () if include_flagged else tuple(unchecked_fields(document))
        taught = {name: (document.fields[name].value or None) if name in document.fields and name not in left_out else None
                  for name in MEMORY_FIELDS}
        taught["document_type"] = document.document_type
        if not taught.get("vendor_name") and not taught.get("vendor_tax_id"):
            return None
        ev = page_evidence(document)
        layout: dict[str, Any] = {}
        for name in LOCATED_FIELDS:
            if name in left_out:
                continue
            f = document.fields.get(name)
            page = next((pg for pg in document.page_results if f is not None and pg.number == f.page), None)
            if f is not None and f.value and page is not None:
                got = _label_of(page, f)
                if got:
                    layout[name] = {"label": got[0], "rel_box": [round(v, 4) for v in got[1]]}
        from desktop.core.duplicates import facts_of

        facts = facts_of(document)
        key = doc_key(document)

        def run() -> Lesson:
            old = self._db.execute(
                "SELECT id, profile_id, doc_key, source, pages, taught, evidence, layout, facts, created "
                "FROM vendor_lessons WHERE doc_key=?", (key,)).fetchone()
            replaced = self._lesson_dict(old) if old else None
            pid = self._profile_for(taught, ev, _page_text(document))
            if old:
                self._db.execute("DELETE FROM vendor_lessons WHERE id=?", (old[0],))
                if old[1] != pid:
                    self._drop_if_empty(old[1])
            self._cache = None
            created = pid is None
            now = time.time()
            if pid is None:
                pid = _row_id(self._db.execute(
                    "INSERT INTO vendor_profiles(overrides, created, updated) VALUES ('{}', ?, ?)", (now, now)))
            cur = self._db.execute(
                "INSERT INTO vendor_lessons(profile_id, doc_key, source, pages, taught, evidence, layout, facts, created) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (pid, key, document.source, json.dumps(list(document.pages)), json.dumps(taught, ensure_ascii=False),
                 json.dumps(ev.to_dict(), ensure_ascii=False), json.dumps(layout, ensure_ascii=False),
                 json.dumps(facts, ensure_ascii=False), max(now, self._newest() + 1e-6)))
            return Lesson(key, _row_id(cur), pid, replaced, created, left_out)

        return self._tx(run)

    def _newest(self) -> float:
        top = self._db.execute("SELECT MAX(created) FROM vendor_lessons").fetchone()[0]
        return float(top or 0.0)

    def _profile_for(self, taught: dict[str, Any], ev: Evidence, page_text: str = "") -> int | None:
        profiles = self._load_profiles()
        name, address, tax_id = taught.get("vendor_name"), taught.get("vendor_address"), taught.get("vendor_tax_id")
        if name:
            def address_alike(p: VendorProfile) -> bool:
                have = [v for v, _l in p.choices("vendor_address")]
                return not address or not have or any(
                    _similarity(h, address) >= BRANCH_MIN or printed_on(h, page_text) for h in have)

            same_name = [p for p in profiles
                         if any(_same_text(v, name) for v, _l in p.choices("vendor_name"))]
            for p in same_name:
                if address_alike(p):
                    return p.id
            if same_name:
                return None  # another branch of a known name
            # the name spelled another way (a letter dropped, a typing slip) on a document whose tax ID
            # or phone number is the profile's and whose address is the profile's: one vendor, one more
            # spelling of its name (the page's own spelling picks it, :func:`pick_choice`)
            for p in profiles:
                shared = set(ev.tax_ids) & set(p.tax_ids) or set(ev.phones) & set(p.phones)
                if shared and address_alike(p) and max(
                        (_similarity(v, name) for v, _l in p.choices("vendor_name")), default=0.0) >= VARIANT_MIN:
                    return p.id
            # a profile with no name yet (its documents' vendor names were left out unchecked,
            # :func:`unchecked_fields`) whose tax ID this document confirms: the name it lacked
            if tax_id:
                squashed = _squash_id(tax_id)
                for p in profiles:
                    if not p.choices("vendor_name") and squashed in p.tax_ids and address_alike(p):
                        return p.id
        if tax_id:
            squashed = _squash_id(tax_id)
            for p in profiles:
                if _squash_id(p.values.get("vendor_tax_id") or "") == squashed and not name:
                    return p.id
        return None

    def forget(self, lesson: Lesson) -> None:
        """Take back what :meth:`learn` did (undo): the document's lesson goes, the lesson it replaced
        comes back, and a profile left with no lesson and no edit goes."""

        def run() -> None:
            # by document (a doc_key has one lesson): the lesson may have been learned again since
            row = self._db.execute("SELECT profile_id FROM vendor_lessons WHERE doc_key=?", (lesson.doc_key,)).fetchone()
            self._db.execute("DELETE FROM vendor_lessons WHERE doc_key=?", (lesson.doc_key,))
            if lesson.replaced is not None:
                r = lesson.replaced
                exists = self._db.execute("SELECT 1 FROM vendor_profiles WHERE id=?", (r["profile_id"],)).fetchone()
                if not exists:  # it went with the lesson it lost: it comes back under its own id
                    self._db.execute("INSERT INTO vendor_profiles(id, overrides, created, updated) VALUES (?, '{}', ?, ?)",
                                     (r["profile_id"], r["created"], r["created"]))
                self._db.execute(
                    "INSERT OR REPLACE INTO vendor_lessons(id, profile_id, doc_key, source, pages, taught, evidence, "
                    "layout, facts, created) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (r["id"], r["profile_id"], r["doc_key"], r["source"], json.dumps(r["pages"]),
                     json.dumps(r["taught"], ensure_ascii=False), json.dumps(r["evidence"], ensure_ascii=False),
                     json.dumps(r["layout"], ensure_ascii=False), json.dumps(r["facts"], ensure_ascii=False),
                     r["created"]))
            for pid in {lesson.profile_id, *(row or ())}:
                self._drop_if_empty(pid)

        self._tx(run)

    def teach_change(self, before: Document | dict[str, Any], after: Document | dict[str, Any]) -> Teaching:
        """Teach the memory what one review change means (the hook of an undoable review command).

        A document that is reviewed after the change is learned (again, when an edit changed it); one
        that stops being reviewed is forgotten. :meth:`untaught` takes exactly that back.

        Args:
            before, after: the document before and after the change (objects or ``to_dict`` dicts).
        """
        b = before if isinstance(before, dict) else before.to_dict()
        a = after if isinstance(after, dict) else after.to_dict()
        if a.get("reviewed"):
            return Teaching(learned=self.learn(Document.from_dict(a)))
        if b.get("reviewed") and self.forget_document(Document.from_dict(b)):
            return Teaching(forgotten=b)
        return Teaching()

    def untaught(self, teaching: Teaching) -> None:
        """Undo a :meth:`teach_change`: a lesson it taught goes (one it replaced comes back); a
        document it forgot is learned again."""
        if teaching.learned is not None:
            self.forget(teaching.learned)
        elif teaching.forgotten is not None:
            self.learn(Document.from_dict(teaching.forgotten))

    def forget_document(self, document: Document) -> bool:
        """Remove the lesson of ``document`` (the clerk marked it as needing review again). Returns
        whether there was one; a profile left without lessons and edits goes with it."""
        key = doc_key(document)

        def run() -> bool:
            row = self._db.execute("SELECT id, profile_id FROM vendor_lessons WHERE doc_key=?", (key,)).fetchone()
            if row is None:
                return False
            self._db.execute("DELETE FROM vendor_lessons WHERE id=?", (row[0],))
            self._drop_if_empty(row[1])
            return True

        return bool(self._tx(run))

    def _drop_if_empty(self, pid: int) -> None:
        left = self._db.execute("SELECT COUNT(*) FROM vendor_lessons WHERE profile_id=?", (pid,)).fetchone()[0]
        overrides = self._db.execute("SELECT overrides FROM vendor_profiles WHERE id=?", (pid,)).fetchone()
        if not left and (overrides is None or not json.loads(overrides[0] or "{}")):
            self._db.execute("DELETE FROM vendor_profiles WHERE id=?", (pid,))

    # -- the clerk's edits (Vendors list) ------------------------------------------------------------
    def edit(self, profile_id: int, **values: str | None) -> None:
        """Set values of a profile by hand (``vendor_name=...``, ``vendor_address=...``, ``vendor_tax_id``,
        ``currency``, ``document_type``); ``None`` or ``""`` clears the edit (lessons speak again).

        Raises:
            MemoryError_: unknown field or profile.
        """
        allowed = (*MEMORY_FIELDS, "document_type")
        bad = [k for k in values if k not in allowed]
        if bad:
            raise MemoryError_(diag(Code.VENDOR_NO_FIELD, name=bad[0], allowed=", ".join(allowed)))

        def run() -> None:
            row = self._db.execute("SELECT overrides FROM vendor_profiles WHERE id=?", (profile_id,)).fetchone()
            if row is None:
                raise MemoryError_(diag(Code.VENDOR_NOT_FOUND, profile=profile_id))
            overrides = json.loads(row[0] or "{}")
            for k, v in values.items():
                if v is None or not str(v).strip():
                    overrides.pop(k, None)
                else:
                    overrides[k] = str(v).strip()
            self._db.execute("UPDATE vendor_profiles SET overrides=?, updated=? WHERE id=?",
                             (json.dumps(overrides, ensure_ascii=False), time.time(), profile_id))

        self._tx(run)

    def rename(self, profile_id: int, name: str) -> None:
        """Give a profile another vendor name (what it fills in from now on)."""
        if not name.strip():
            raise MemoryError_(diag(Code.VENDOR_NEEDS_NAME))
        self.edit(profile_id, vendor_name=name)

    def merge(self, keep_id: int, other_id: int) -> None:
        """Merge profile ``other_id`` into ``keep_id``: every lesson moves; ``keep_id``'s edits win.

        Raises:
            MemoryError_: the same profile twice, or an unknown profile.
        """
        if keep_id == other_id:
            raise MemoryError_(diag(Code.VENDOR_MERGE_SELF))

        def run() -> None:
            rows = {pid: json.loads(o or "{}") for pid, o in self._db.execute(
                "SELECT id, overrides FROM vendor_profiles WHERE id IN (?, ?)", (keep_id, other_id))}
            if len(rows) != 2:
                raise MemoryError_(diag(Code.VENDOR_NOT_FOUND, profile=other_id if keep_id in rows else keep_id))
            merged = {**rows[other_id], **rows[keep_id]}
            self._db.execute("UPDATE vendor_lessons SET profile_id=? WHERE profile_id=?", (keep_id, other_id))
            self._db.execute("UPDATE vendor_profiles SET overrides=?, updated=? WHERE id=?",
                             (json.dumps(merged, ensure_ascii=False), time.time(), keep_id))
            self._db.execute("DELETE FROM vendor_profiles WHERE id=?", (other_id,))

        self._tx(run)

    def delete(self, profile_id: int) -> None:
        """Delete a profile and what its documents taught (the clerk asked for it in the Vendors list;
        the documents themselves are untouched)."""

        def run() -> None:
            self._db.execute("DELETE FROM vendor_lessons WHERE profile_id=?", (profile_id,))
            self._db.execute("DELETE FROM vendor_profiles WHERE id=?", (profile_id,))

        self._tx(run)

    # -- sharing -----------------------------------------------------------------------------------
    def export_dict(self) -> dict[str, Any]:
        """Every profile with its lessons and edits, as a JSON-ready dict::

            {"format": "shoebox-vendors", "version": 1, "vendors": [
              {"name": ..., "values": {...}, "overrides": {...}, "documents": n, "last_seen": "ISO time",
               "lessons": [{"source", "pages", "taught", "evidence", "layout", "facts", "created"}]}]}
        """
        lessons = self.lessons()
        out = []
        for p in self.profiles():
            mine = [{k: les[k] for k in ("source", "pages", "taught", "evidence", "layout", "facts", "created")}
                    for les in lessons if les["profile_id"] == p.id]
            out.append({"name": p.name, "values": dict(p.values), "overrides": dict(p.overrides),
                        "documents": p.documents,
                        "last_seen": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(p.last_seen)) if p.last_seen else None,
                        "lessons": mine})
        return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "vendors": out}

    def export_json(self, path: str | Path) -> int:
        """Write :meth:`export_dict` to ``path`` (UTF-8). Returns the number of profiles.

        Raises:
            OSError: the file cannot be written.
        """
        data = self.export_dict()
        Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        return len(data["vendors"])

    def import_dict(self, data: dict[str, Any], origin: str = "the vendor list") -> int:
        """Add the profiles of an export (:meth:`export_dict`). A lesson whose document is already known
        is skipped; an imported vendor whose name (and address) equals a known profile's joins it.

        Returns:
            The number of lessons added.

        Raises:
            MemoryError_: ``data`` is not a Shoebox vendor list (the message names ``origin``).
        """
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise MemoryError_(diag(Code.VENDOR_LIST_FORMAT, file=origin, expected=EXPORT_FORMAT))
        if int(data.get("version", 0)) > EXPORT_VERSION:
            raise MemoryError_(diag(Code.VENDOR_LIST_NEWER, file=origin, version=data.get("version")))
        vendors = data.get("vendors")
        if not isinstance(vendors, list):
            raise MemoryError_(diag(Code.VENDOR_LIST_NO_VENDORS, file=origin))

        def run() -> int:
            added = 0
            for i, v in enumerate(vendors):
                if not isinstance(v, dict):
                    raise MemoryError_(diag(Code.VENDOR_LIST_BAD_VENDOR, file=origin, number=i + 1))
                values = dict(v.get("values") or {})
                pid = self._profile_for(values, Evidence()) if values.get("vendor_name") else None
                now = time.time()
                if pid is None:
                    pid = _row_id(self._db.execute(
                        "INSERT INTO vendor_profiles(overrides, created, updated) VALUES (?, ?, ?)",
                        (json.dumps(v.get("overrides") or {}, ensure_ascii=False), now, now)))
                for les in v.get("lessons") or []:
                    try:
                        key = f"{les['source']}#{les['pages'][0]}-{les['pages'][1]}"
                        if self._db.execute("SELECT 1 FROM vendor_lessons WHERE doc_key=?", (key,)).fetchone():
                            continue
                        self._db.execute(
                            "INSERT INTO vendor_lessons(profile_id, doc_key, source, pages, taught, evidence, layout, "
                            "facts, created) VALUES (?,?,?,?,?,?,?,?,?)",
                            (pid, key, les["source"], json.dumps(les["pages"]),
                             json.dumps(les.get("taught") or {}, ensure_ascii=False),
                             json.dumps(les.get("evidence") or {}, ensure_ascii=False),
                             json.dumps(les.get("layout") or {}, ensure_ascii=False),
                             json.dumps(les.get("facts") or {}, ensure_ascii=False), float(les.get("created") or now)))
                        added += 1
                    except (KeyError, IndexError, TypeError, ValueError) as exc:
                        raise MemoryError_(diag(Code.VENDOR_LIST_BAD_DOCUMENT, file=origin, name=v.get("name"),
                                                detail=str(exc))) from None
                self._cache = None
            return added

        return int(self._tx(run))

    def import_json(self, path: str | Path) -> int:
        """:meth:`import_dict` of a JSON file.

        Raises:
            OSError: the file cannot be read.
            MemoryError_: it is not JSON, or not a vendor list (the message names the file).
        """
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MemoryError_(diag(Code.VENDOR_LIST_NOT_JSON, file=str(path), detail=str(exc))) from None
        return self.import_dict(data, origin=str(path))

    # -- what duplicates are checked against --------------------------------------------------------
    def known_documents(self) -> list[dict[str, Any]]:
        """The facts (:func:`desktop.core.duplicates.facts_of`) of every learned document, oldest first,
        each with ``doc_key``."""
        return [dict(les["facts"], doc_key=les["doc_key"], source=les["source"], pages=les["pages"])
                for les in self.lessons()]


# --------------------------------------------------------------------------------------------------
# applying to one field


def _page_text(document: Document) -> str:
    """Every line of the document in reading order, normalised (:func:`normalise_text`), joined by spaces."""
    return " ".join(normalise_text(t) for p in document.page_results for t in _reading_lines(p))


def support_on(value: str | None, page_text: str) -> float:
    """How well ``page_text`` (:func:`_page_text`) supports ``value``, 0-100: ``fuzz.partial_ratio`` of
    the normalised value against the page (the best-aligned stretch); values under 6 characters score
    100 when they appear exactly, else 0."""
    v = normalise_text(value)
    if not v or not page_text:
        return 0.0
    if len(v) < 6:
        return 100.0 if f" {v} " in f" {page_text} " else 0.0
    return float(fuzz.partial_ratio(v, page_text))


def printed_on(value: str, page_text: str) -> bool:
    """Whether ``value`` is printed on the page, allowing OCR misreadings: ``rapidfuzz.fuzz.partial_ratio``
    (the best-aligned stretch of the page text) >= :data:`EVIDENCE_MIN`; values under 6 characters must
    appear exactly."""
    return support_on(value, page_text) >= EVIDENCE_MIN


#: Marks a speck, a fold or the paper's grain is read as (quotes, apostrophes, accents, carets, tildes,
#: asterisks, underscores, bars): a reading that has one of these where the confirmed spelling has a
#: space or nothing shows dirt on the page, not punctuation the clerk left out.
SPECK_MARKS = frozenset("'`´‘’\"“”^~*_|¨")


def marks_misread(read: str, value: str) -> bool:
    """Whether ``read`` (the page's reading) is ``value`` (a spelling the clerk confirmed) with the same
    letters and digits and only OCR noise in its marks: every difference of their :func:`_spelling`
    (``rapidfuzz.distance.Levenshtein.opcodes``) is a mark of ``value`` the page lacks (a faint full
    stop or comma dropped, read as nothing or a space) or a :data:`SPECK_MARKS` mark the page has where
    ``value`` has a space or nothing. A mark the page prints that ``value`` lacks or spells as another
    mark (a comma for a full stop) is the page's own punctuation, not noise.

    ``MR. D.I.Y (KUCHAI)`` read for ``MR. D.I.Y. (KUCHAI)`` and ``Level'6`` for ``Level 6`` are
    misread marks; ``23/1. 40300`` for ``23/1, 40300`` is not.
    """
    a, b = _spelling(read), _spelling(value)
    if normalise_text(a) != normalise_text(b):
        return False
    for op in Levenshtein.opcodes(a, b):
        if op.tag == "equal":
            continue
        page, known = a[op.src_start:op.src_end], b[op.dest_start:op.dest_end]
        if any(c.isalnum() for c in page + known):
            return False
        if any(not (c.isspace() or c in SPECK_MARKS) for c in page):
            return False
    return True


#: OCR's letter-for-digit confusions (as :mod:`desktop.core.duplicates` undoes them in document
#: numbers): a word of digits with one of these letters in it is a number misread.
_DIGIT_LOOKALIKES = str.maketrans({"O": "0", "Q": "0", "D": "0", "I": "1", "L": "1", "S": "5", "B": "8", "Z": "2"})


def _numbers(text: str) -> list[str]:
    """The numbers of ``text`` (:func:`normalise_text` words with a digit that are all digits once
    :data:`_DIGIT_LOOKALIKES` are undone: ``4115O`` is 41150, ``0ATU`` is no number)."""
    out = []
    for w in normalise_text(text).split():
        if any(c.isdigit() for c in w):
            digits = w.translate(_DIGIT_LOOKALIKES)
            if digits.isdigit():
                out.append(digits)
    return out


#: Digits an engine reads one for the other (closed and open loops: 3/8, 6/8, 9/8, 0/8, 5/6, 1/7).
_DIGIT_CONFUSIONS = frozenset(frozenset(p) for p in ("38", "68", "98", "08", "56", "17"))


def number_change(read: str, value: str) -> str | None:
    """How the numbers of the page's reading ``read`` differ from those of the confirmed ``value``
    (:func:`_numbers`, aligned by ``rapidfuzz.distance.Levenshtein.opcodes``; a number only one of them
    has, as a fragment lacks, is no difference): ``None`` when none is replaced by another;
    ``"misread"`` when each replaced number has the same length and differs only in digits an engine
    confuses (:data:`_DIGIT_CONFUSIONS`: ``1351`` read for ``1851``); ``"other"`` when a number is
    another (another street, unit or branch number: a substantive disagreement, never a misreading).
    Letter-for-digit confusions are undone first (``4115O`` is 41150)."""
    a, b = _numbers(read), _numbers(value)
    change: str | None = None
    for op in Levenshtein.opcodes(a, b):
        if op.tag == "equal" or op.tag in ("insert", "delete"):
            continue
        for x, y in zip(a[op.src_start:op.src_end], b[op.dest_start:op.dest_end], strict=False):
            if len(x) != len(y) or any(c != d and frozenset((c, d)) not in _DIGIT_CONFUSIONS for c, d in zip(x, y, strict=True)):
                return "other"
        if (op.src_end - op.src_start) != (op.dest_end - op.dest_start):
            return "other"
        change = "misread"
    return change


def _spelling(text: str) -> str:
    """Text as spelled (NFKC, upper case, runs of white space as one, none beside ``. , : ;``): two
    spellings of one value differ here only by their letters, digits and punctuation."""
    t = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).upper()).strip()
    return re.sub(r"\s*([.,:;])\s*", r"\1", t)


def pick_choice(f: Field, choices: list[tuple[str, str]], page_text: str,
                votes: Callable[[str], int] | None = None) -> tuple[str, str]:
    """The known value (of :meth:`VendorProfile.choices`) the document supports best: the one spelled
    most like the value read (``fuzz.ratio`` of :func:`_spelling`), or, with no value read, the one
    best supported by the page (:func:`support_on`, then the most of its words printed whole); ties go
    to the one most documents taught (``votes``: a value confirmed twice outweighs one slip), then to
    the newest.

    Raises:
        ValueError: ``choices`` is empty.
    """
    if not choices:
        raise ValueError("no known values to choose from")
    read = str(f.value).strip() if f.value is not None else ""
    if read:
        spelled = _spelling(read)
        scores = [float(fuzz.ratio(spelled, _spelling(v))) for v, _l in choices]
    else:
        # partial_ratio scores a word cut short as high as the whole word: whole words printed decide
        words = set(page_text.split())
        scores = [support_on(v, page_text) + sum(w in words for w in normalise_text(v).split()) / 1000.0
                  for v, _l in choices]
    counts = [votes(v) if votes is not None else 0 for v, _l in choices]
    best = max(range(len(choices)), key=lambda i: (scores[i], counts[i], -i))
    return choices[best]


_WORD = re.compile(r"[^\W_]+")


def _pieces(text: str) -> tuple[str, list[str], list[str], list[str]]:
    """``(lead, words, spelled, seps)``: the text before the first word, the words (letters and digits,
    upper case), each word as written, and the separator written after each word (the last one's is the
    text's end)."""
    t = unicodedata.normalize("NFKC", text)
    found = list(_WORD.finditer(t))
    if not found:
        return t, [], [], []
    ends = [m.start() for m in found[1:]] + [len(t)]
    return (t[:found[0].start()], [m.group().upper() for m in found], [m.group() for m in found],
            [t[m.end():end] for m, end in zip(found, ends, strict=True)])


def _misread_word(read: str, known: str) -> bool:
    """Whether ``read`` is an OCR misreading of the confirmed word ``known``: ``known`` has at least
    three characters and no digit (numbers tell a branch, a unit, a lot apart and are never repaired),
    and at most one edit per :data:`REPAIR_CHARS_PER_EDIT` characters separates them (engines misread
    single characters: B/8, O/0, I/1, S/5)."""
    if len(known) < 3 or any(c.isdigit() for c in known):
        return False
    return Levenshtein.distance(read, known) <= max(1, len(known) // REPAIR_CHARS_PER_EDIT)


def _words(text: str | None) -> list[str]:
    """The words of ``text`` as compared (:func:`normalise_text`: upper case, letters and digits)."""
    return normalise_text(text).split()


def _lexical(word: str) -> bool:
    return len(word) >= LEXICAL_MIN and word.isalpha()


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """The extraction's address and trade words (upper case): words whose spelling is known without
    the clerk (:data:`desktop.core.extraction.candidates.ADDRESS_WORDS` and ``NAME_WORDS``)."""
    from desktop.core.extraction.candidates import ADDRESS_WORDS, NAME_WORDS

    return frozenset(w for w in (*ADDRESS_WORDS, *NAME_WORDS) if _lexical(w))


def _respelling(word: str, value_words: list[str], read_words: set[str]) -> tuple[str, ...] | None:
    """The word, or two neighbouring words, of a confirmed value (``value_words``, none of them read
    on the page: ``read_words``) that spell the page's ``word`` another way (at most one edit per
    :data:`REPAIR_CHARS_PER_EDIT` characters, the pair joined: ``PETA ING`` for ``PETALING``); the
    closest, or ``None``."""
    limit = max(1, len(word) // REPAIR_CHARS_PER_EDIT)
    spans = [(w,) for w in value_words] + [tuple(value_words[i:i + 2]) for i in range(len(value_words) - 1)]
    best: tuple[int, tuple[str, ...]] | None = None
    for span in spans:
        if all(w in read_words for w in span):
            continue
        d = Levenshtein.distance(word, "".join(span), score_cutoff=limit)
        if d <= limit and (best is None or d < best[0]):
            best = (d, span)
    return best[1] if best else None


def _page_spelling_stands(read: str, value: str, attested: Callable[[str], bool],
                          confirmed: Callable[[str], int]) -> frozenset[str]:
    """The words of the page's reading that stand against the confirmed ``value`` (upper case; empty
    when none does).

    One document's confirmation may be a clerk's typing slip (``RSTORAN`` typed for the ``RESTORAN``
    printed) or a faded print transcribed as printed (``PETA ING``): the page's word stands when the
    confirmed value spells it another way (:func:`_respelling`) with a word that fewer than
    :data:`SPELLING_VOTES` documents confirmed (``confirmed``) and that is not attested itself, and the
    page's word is attested (``attested``: a word known without this vendor) or has more letters than
    the confirmed spelling (:func:`_reads_more_letters`: no misreading adds letters). A respelling
    confirmed twice outweighs the page (the shop's own spelling, a misreading the page repeats).
    """
    read_words, value_words = _words(read), _words(value)
    read_set, value_set = set(read_words), set(value_words)
    standing: set[str] = set()
    for w in read_words:
        if w in value_set or not _lexical(w):
            continue
        span = _respelling(w, value_words, read_set)
        if span is None or not any(confirmed(x) < SPELLING_VOTES and not (_lexical(x) and attested(x))
                                   for x in span):
            continue
        if attested(w) or _reads_more_letters(w, "".join(span)):
            standing.add(w)
    return frozenset(standing)


#: Wide letters an engine may read as two narrow ones (``rn`` for ``m``, ``vv`` for ``w``, ``cl`` for
#: ``d``): the one way an OCR reading has more letters than the print. An engine confuses look-alike
#: glyphs, drops faint ones and reads specks as marks; it does not add letters that are not there.
_SPLITS = (("RN", "M"), ("VV", "W"), ("CL", "D"))


def _reads_more_letters(read_word: str, known: str) -> bool:
    """Whether the page's word ``read_word`` has more letters than ``known`` (upper case, a value's
    word or two joined), once :data:`_SPLITS` are folded: OCR drops and confuses letters, it does not
    invent them, so such a word is the print's own spelling, not a misreading of ``known``
    (``BERJUNTAI`` printed, ``BEJUNTAL`` typed once)."""
    def fold(w: str) -> str:
        for split, whole in _SPLITS:
            w = w.replace(split, whole)
        return w

    return len(fold(read_word)) > len(fold(known))


def _checked_fill(value: str, page_text: str, attested: Callable[[str], bool],
                  confirmed: Callable[[str], int]) -> str:
    """``value`` (a confirmed value about to fill an empty field) with each word that fewer than
    :data:`SPELLING_VOTES` documents confirmed, that is not attested and that the page does not print,
    spelled as the page prints it where the page has exactly one attested word that is a misspelling
    away (:func:`_misread_word`): one slip (``SELANGIR``) is not copied onto a page that prints
    ``SELANGOR``."""
    page_words = set(page_text.split())
    lexicon = [w for w in page_words if _lexical(w) and attested(w)]
    out = value
    for x in dict.fromkeys(_words(value)):
        if x in page_words or not _lexical(x) or confirmed(x) >= SPELLING_VOTES or attested(x):
            continue
        near = [w for w in lexicon if w != x and _misread_word(x, w)]
        if len(near) != 1:
            continue
        w = near[0]

        def styled(m: re.Match[str], w: str = w) -> str:
            t = m.group(0)
            return w if t.isupper() else (w.capitalize() if t[:1].isupper() else w.lower())

        out = re.sub(rf"(?<![^\W_]){re.escape(x)}(?![^\W_])", styled, out, flags=re.I)
    return out


#: A damaged copy (:func:`damaged_copy`) may skip at most this many words of the confirmed value
#: between two of its own.
DAMAGE_SKIP = 2


def damaged_copy(read: str, known: str) -> bool:
    """Whether ``read`` (a value read from the page) is what is left of ``known`` (a confirmed value)
    on a damaged print: a print cut at its margin, letters faded or torn off.

    Every word of the page is, in order, a word of ``known`` (at most :data:`DAMAGE_SKIP` of its
    words skipped between two): the same word, a misreading of it (:func:`_misread_word`), or, for a
    word without digits, its start or end of at least two characters (``AN`` of ``JALAN``, ``ANGOR``
    of ``SELANGOR``); at least one is not the whole word, and the page's words cover at least
    :data:`REPAIR_AGREEMENT` of ``known``'s. A number that differs (a branch's own street number) is
    never damage.
    """
    words_r, words_k = _words(read), _words(known)
    if len(words_r) < 3 or not words_k:
        return False
    j = matched = 0
    damaged = False
    for w in words_r:
        for k in range(j, min(len(words_k), j + DAMAGE_SKIP + 1)):
            v = words_k[k]
            whole = w == v or _misread_word(w, v)
            cut = not any(c.isdigit() for c in v + w) and len(w) >= 2 and len(w) < len(v) \
                and (v.startswith(w) or v.endswith(w))
            if whole or cut:
                damaged = damaged or not whole or w != v
                j, matched = k + 1, matched + 1
                break
        else:
            return False
    return damaged and matched >= REPAIR_AGREEMENT * len(words_k)


def _row_id(cursor: sqlite3.Cursor) -> int:
    """The id SQLite gave the row an ``INSERT`` on ``cursor`` just added.

    Raises:
        MemoryError_: when the statement inserted no row (``lastrowid`` is ``None``).
    """
    if cursor.lastrowid is None:
        raise MemoryError_(diag(Code.VENDOR_NOT_STORED))
    return int(cursor.lastrowid)


def repair_words(read: str, known: str, keep: frozenset[str] = frozenset()) -> str | None:
    """``read`` (a value read from the page) with the words it shares with ``known`` (a value the clerk
    confirmed) spelled as confirmed, and its OCR-misread words (:func:`_misread_word`) corrected; the
    words where the two really differ (a branch's own name or number) stay as read.

    The words are aligned by ``rapidfuzz.distance.Levenshtein.opcodes`` over the word sequences. The
    punctuation between two words is the confirmed one only where both words are aligned with two
    neighbouring confirmed words; anywhere else (beside a word of the page's own, at a word the
    confirmed value has and the page lacks) the page's punctuation stays: the confirmed comma after
    ``PT17920`` in ``PT17920, SEKSYEN U9`` belongs before ``SEKSYEN``, not before the page's ``SEK``.

    Args:
        keep: words of the page (upper case) never respelled as a misreading: the page's attested
            words that stand against ``known`` (:func:`_page_spelling_stands`).

    Returns:
        The repaired text, or ``None`` when fewer than :data:`REPAIR_AGREEMENT` of the page's words
        agree with ``known`` (equal or misread: they are not one value told two ways).
    """
    lead_r, words_r, spelled_r, seps_r = _pieces(read)
    lead_k, words_k, spelled_k, seps_k = _pieces(known)
    if not words_r or not words_k:
        return None
    ops = Levenshtein.opcodes(words_r, words_k)
    aligned: list[int | None] = [None] * len(words_r)  # the confirmed word each page word is (equal or misread)
    for op in ops:
        if op.tag == "equal":
            for k in range(op.src_end - op.src_start):
                aligned[op.src_start + k] = op.dest_start + k
        elif op.tag == "replace":
            for i, j in zip(range(op.src_start, op.src_end), range(op.dest_start, op.dest_end), strict=False):
                if words_r[i] not in keep and _misread_word(words_r[i], words_k[j]):
                    aligned[i] = j
        # "delete": words of the page the confirmed value does not have; "insert": confirmed words the
        # page does not show are not added
    agree = sum(j is not None for j in aligned)
    if agree < REPAIR_AGREEMENT * len(words_r):
        return None
    out: list[str] = []
    last_r, last_k = len(words_r) - 1, len(words_k) - 1
    for i, at in enumerate(aligned):
        if at is None:
            out.append(spelled_r[i] + seps_r[i])
            continue
        keep_known_sep = (aligned[i + 1] == at + 1) if i < last_r else (at == last_k)
        out.append(spelled_k[at] + (seps_k[at] if keep_known_sep else seps_r[i]))
    lead = lead_k if aligned[0] == 0 else lead_r
    return (lead + "".join(out)).strip() or None


def _apply_value(f: Field, value: str, m: Match, label: str, page_text: str, *,
                 may_replace: bool = True, confirmations: int = 1,
                 attested: Callable[[str], bool] | None = None,
                 confirmed: Callable[[str], int] | None = None) -> str | None:
    """Fill, confirm, correct or flag one field (in place, rules in the module docstring).

    Args:
        may_replace: whether a different value printed on the page may replace the one read
            (``False`` on a chain's branch the memory has not seen: :meth:`VendorMemory.apply`).
        confirmations: how many documents confirmed ``value`` spelled so
            (:meth:`VendorProfile.confirmations`).
        attested: whether a word (upper case) is known without this vendor
            (:meth:`VendorMemory.attested`); with ``confirmed`` (how many of the vendor's documents
            confirmed a word, :meth:`VendorProfile.word_confirmations`) it lets an attested word the
            page prints stand against a word one document confirmed (:func:`_page_spelling_stands`,
            :func:`_checked_fill`). ``None``: no such check.

    Returns:
        ``filled``, ``confirmed``, ``corrected``, ``replaced`` (flagged), ``repaired`` (flagged) or
        ``conflict`` (flagged).
    """
    taught = label or "an earlier document"
    votes = attested is not None and confirmed is not None and f.name in REPAIRED_FIELDS
    if f.value is None or not str(f.value).strip():
        checked = _checked_fill(value, page_text, attested, confirmed) if attested and confirmed and votes else value
        printed = printed_on(checked, page_text)
        # a currency is a code, not printed text (RM, €): filling it needs no evidence on the page
        evidenced = printed or f.name == "currency"
        f.value, f.source = checked, "memory"
        f.confidence = m.score if evidenced else round(m.score * 0.6, 4)
        # the field was flagged for being empty (or too unlikely to show): that reason is gone; what
        # stands is the memory's own (no evidence on the page, a weak match, a slip kept out) and any
        # problem the field carries
        f.needs_review = bool(f.problems) or not evidenced or not _sure(m) or checked != value
        return "filled"
    printed = printed_on(value, page_text)
    read = str(f.value)
    own = f.source not in AUTHORITATIVE  # an e-invoice's data or a QR code is never overruled
    if _same_text(read, value):
        # the same words: spelled as the clerk confirmed them (the page's reading stays in ``raw``) when
        # they differ only in case and spacing, or when the clerk's punctuation was confirmed on
        # SPELLING_VOTES documents; a single confirmation does not outweigh the page's own punctuation
        # (one receipt's transcription may drop a comma that every receipt prints), except where the
        # page only lacks the clerk's marks or shows specks the clerk did not type (:func:`marks_misread`:
        # the engine drops a faint full stop and reads a speck as an apostrophe; it does not print commas)
        spelled_alike = _spelling(read) == _spelling(value)
        if own and read != value and (spelled_alike or marks_misread(read, value) or confirmations >= SPELLING_VOTES):
            if f.raw is None:
                f.raw = read
            f.value, f.source = value, "memory"
        raised, flagged = m.score > f.confidence, f.needs_review
        f.confidence = max(f.confidence, m.score)
        if _sure(m):
            # what the clerk confirmed for this vendor, read again on its page: the field model's
            # threshold (which flags every address) has nothing left to say; a failed check still has
            f.needs_review = bool(f.problems)
        if own and (raised or (flagged and not f.needs_review)):
            # the memory vouches for the page's reading: it says so (chip, tooltip, JSON), never a
            # bare "OCR 100%" (QA finding F1)
            f.source = "memory"
        return "confirmed"
    standing = _page_spelling_stands(read, value, attested, confirmed) if own and attested and confirmed and votes \
        else frozenset()
    if standing:
        # the page prints a known word the vendor's one document spelled another way (a typing
        # slip, a faded print): that word stays as printed, the rest is repaired as confirmed
        # (:func:`repair_words`), and the disagreement is flagged
        return _repair_or_flag(f, read, value, repair_words(read, value, keep=standing), taught, m.score)
    a, b = normalise_text(read), normalise_text(value)
    same_words = own and fuzz.token_sort_ratio(a, b) >= EVIDENCE_MIN  # the same words read in another order
    misread = fuzz.ratio(a, b) >= VARIANT_MIN or fuzz.partial_ratio(a, b) >= EVIDENCE_MIN
    numbers = number_change(read, value)
    if (same_words or (own and printed and misread)) and numbers is None:
        if f.raw is None:
            f.raw = read
        f.value, f.source, f.confidence = value, "memory", m.score
        f.needs_review = bool(f.problems) if _sure(m) else True
        return "corrected"
    if own and printed and m.score >= STRONG_MATCH and may_replace and numbers != "other":
        # both are printed (a shop's name and its company's): the one the clerk confirmed for this
        # vendor goes in, flagged, with what extraction had chosen in the problem
        problem = diag(Code.MEMORY_REPLACED, field=f.name, read=read, value=value, taught=taught)
        if f.raw is None:
            f.raw = read
        f.value, f.source, f.confidence = value, "memory", m.score
        action = "replaced"
    else:
        fixed = repair_words(read, value) if own and f.name in REPAIRED_FIELDS else None
        if own and f.name in REPAIRED_FIELDS and damaged_copy(read, value):
            # the page shows what is left of the confirmed value (a print cut at its margin, faded
            # letters): the confirmed value, flagged
            fixed = value
        # the same value told two ways (a chain's branch with its own number, misread words): the words
        # the clerk confirmed are taken, the rest stays as read, flagged
        return _repair_or_flag(f, read, value, fixed, taught, m.score)
    if problem not in f.problems:
        f.problems.append(problem)
    f.needs_review = True
    return action


def _sure(m: Match) -> bool:
    """Whether a match is sure enough for the values it confirms to pass unflagged: a strong score
    (>= :data:`STRONG_MATCH`) with no conflicting evidence. The replay benchmark
    (``benchmarks/bench_memory.py``) measures how often such values are wrong."""
    return m.score >= STRONG_MATCH and not m.conflicts


def _repair_or_flag(f: Field, read: str, value: str, fixed: str | None, taught: str, score: float) -> str:
    """Put ``fixed`` (the page's reading with words repaired as the memory has them) into ``f`` when it
    changes anything (``repaired``), else leave the reading (``conflict``); flagged either way, with the
    problem naming both values (in place)."""
    if fixed is not None and fixed != read:
        problem = diag(Code.MEMORY_REPAIRED, field=f.name, read=read, value=value, taught=taught)
        if f.raw is None:
            f.raw = read
        f.value, f.source, f.confidence = fixed, "memory", score
        action = "repaired"
    else:
        problem = diag(Code.MEMORY_CONFLICT, field=f.name, read=read, value=value, taught=taught)
        action = "conflict"
    if problem not in f.problems:
        f.problems.append(problem)
    f.needs_review = True
    return action


def _locate(document: Document, f: Field, where: dict[str, Any], score: float) -> bool:
    """Read a total / date on the line labelled like the profile's (in place); whether one was found."""
    from desktop.core.extraction import normalise_field

    label = str(where.get("label") or "")
    rel = where.get("rel_box") or [0.5, 0.5, 0.5, 0.5]
    if not label:
        return False
    best: tuple[float, Any, Any, str, str] | None = None
    for page in document.page_results:
        rows = page.lines
        for ln in rows:
            words = normalise_text(re.sub(r"[\d.,:]+", " ", ln.text))
            if not words or fuzz.ratio(words, label) < LABEL_MIN:
                continue
            cy, h = (ln.box[1] + ln.box[3]) / 2, max(1.0, ln.box[3] - ln.box[1])
            same_row = [o for o in rows if abs((o.box[1] + o.box[3]) / 2 - cy) <= 0.6 * h and o.box[0] >= ln.box[0]]
            for o in sorted(same_row, key=lambda o: -o.box[0]):
                text = o.text.replace(ln.text, " ") if o is ln else o.text
                value, problems = normalise_field(f.name, text)
                if value is None:
                    continue
                dy = abs(cy / max(1, page.height) - (rel[1] + rel[3]) / 2)
                if best is None or dy < best[0]:
                    best = (dy, page, o, value, text.strip())
                break
    if best is None:
        return False
    _dy, page, line, value, raw = best
    f.value, f.raw, f.page = value, raw, page.number
    f.box, f.boxes = tuple(line.box), [tuple(line.box)]
    f.source = "text_layer" if page.origin == "pdf_text" else "ocr"
    f.confidence = round(min(float(line.confidence), score) * 0.9, 4)
    f.needs_review = True
    return True
