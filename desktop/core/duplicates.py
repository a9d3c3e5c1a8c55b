"""Possible duplicates: the same receipt or invoice must not be claimed twice.

A document is a possible duplicate of an earlier one when (:func:`duplicate_reason`, first rule that
holds):

1. ``same file``: the source files have the same content (SHA-256 of the bytes, :func:`content_hash`)
   and the document covers the same pages;
2. ``same vendor and invoice number``: both name the same vendor and carry the same invoice number;
3. ``same vendor, date and total``: both name the same vendor and have the same date and total (a
   receipt scanned again at another resolution or turned: its bytes differ, what it says does not);
3b. ``same document number, date and total``: the vendor is not known on one of them (no vendor name
   read and no profile matched, and no tax ID or IBAN that both carry: an invoice whose vendor line
   the extraction missed), and both carry the same document number (:func:`document_numbers`: the
   invoice number, a receipt or order number), the same date and the same total. Without the vendor,
   the three together name one document: another vendor's invoice with the same number, date and
   amount is not a case a pile holds;
4. ``same vendor and the same figures``: both name the same vendor, nothing that both carry disagrees
   (date, total, invoice number), and the figures printed on them -- every number in reading order --
   are alike (``rapidfuzz.fuzz.ratio`` >= :data:`FIGURES_MIN`, at least :data:`FIGURES_COUNT`
   numbers): a re-scan on which OCR missed the date or the total. Two receipts of one shop with the
   same items still differ in their receipt number, date or time.

Rules 3 and 4 are ruled out by *conflicting evidence*, whatever else agrees: two receipts of one shop
on one day for the same amount (the same coffee bought twice) are two expenses. Evidence conflicts when
both documents carry it and it differs (:func:`conflicts`):

* their document numbers (:func:`document_numbers`: the invoice number field, and every number printed
  after a receipt, bill, invoice, transaction, order or document number label) have none in common;
* their times of day (the ``time`` field, hours and minutes) differ.

A re-scan of one receipt reads the same numbers and the same time, so it is still caught; OCR
confusions of letters and digits (``O``/``0``, ``l``/``1``, ``S``/``5``, ``B``/``8``) and a number cut
short at the paper's edge (one number inside the other) are no conflict.

"The same vendor" means (:func:`same_vendor`): the same vendor-memory profile matched both
(``extras["memory"]["profile_id"]``), or the same vendor tax ID (both carry one: equal or not decides),
or the same IBAN (both carry one: the account paid names the payee), or vendor names alike after
normalisation (``rapidfuzz.fuzz.ratio`` >= :data:`NAME_MIN`, tolerant of OCR misreadings). When one of
them has none of these, the vendor is *unknown* and only rules 1 and 3b apply. Two receipts from one
shop on one day with different totals are *not* duplicates.

The mark goes on the later document as ``Document.duplicate_of`` = ``{"source", "pages", "reason",
"reason_code"}`` (the earlier document's source file and pages, the rule's English key and its
diagnostic code, :func:`reason_of`); the clerk decides (keep both: the mark
is cleared and ``extras["duplicate_kept"]`` remembers it, so it is not raised again; or drop this one).

This module imports no Qt.
"""
from __future__ import annotations

import copy
import hashlib
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from desktop.core.diagnostics import Code, Diagnostic, diag, text
from desktop.core.model import Document

__all__ = ["DOCUMENT_NUMBER_LABEL", "NAME_MIN", "REASON_CODES", "DuplicateChecker", "ReadingCache", "conflicts",
           "content_hash", "document_numbers", "duplicate_reason", "facts_of", "find_duplicate", "normalise_text", "reason_of",
           "same_vendor"]

NAME_MIN = 90.0
FIGURES_MIN = 97.0
FIGURES_COUNT = 5
_NUMBER = re.compile(r"\d[\d.,:/-]*\d|\d")
_CHUNK = 1 << 20
#: A label before a document's own number: receipt / bill / invoice / transaction / order / document /
#: ticket / check number in English (``No``, ``Number``, ``#``, ``Nr``, ``ID``), Beleg-/Bon-/Rechnungs-/
#: Quittungsnummer, numéro de facture / de ticket, 单号 / 票号 / 流水号 / 发票号码. Numbers of the till, the
#: table, the cashier, the member or the tax registration are the same on every receipt of a shop and are
#: not document numbers.
DOCUMENT_NUMBER_LABEL = re.compile(
    r"\b(?:receipt|rcpt|rcp|bill|invoice|inv|transaction|trans|txn|trx|order|ord|document|doc|ticket|"
    r"check|chk|slip|voucher|sales?)\s*[-.]?\s*(?:no\b\.?|number|num\b\.?|nr\b\.?|#|id\b)|"
    r"\b(?:beleg|bon|rechnungs?|quittungs?)\s*-?\s*(?:nummer|nr\b\.?|no\b\.?)|"
    r"\bnum[ée]ro\s*(?:de\s*)?(?:facture|ticket|re[çc]u)|\b(?:facture|ticket)\s*(?:n[°ºo]\.?|nr\.?|#)|"
    r"单\s*号|票\s*号|流\s*水\s*号|发\s*票\s*号\s*码", re.I)
_CODE = re.compile(r"[#:.：\s]*([A-Z0-9][A-Z0-9/_\-]*\d[A-Z0-9/_\-]*)", re.I)
_DATE = re.compile(r"\d{1,4}[/.\-]\d{1,2}[/.\-]\d{1,4}")
#: OCR's usual letter-for-digit confusions, undone before document numbers are compared.
_CONFUSABLE = str.maketrans({"O": "0", "Q": "0", "D": "0", "I": "1", "L": "1", "S": "5", "B": "8", "Z": "2"})

SAME_FILE = "same file"
SAME_NUMBER = "same vendor and invoice number"
SAME_DATE_TOTAL = "same vendor, date and total"
SAME_FIGURES = "same vendor and the same figures"
SAME_NUMBER_DATE_TOTAL = "same document number, date and total"
#: Each rule's diagnostic code (``duplicate_of["reason_code"]``): the interfaces word the reason from it,
#: in their language; ``duplicate_of["reason"]`` keeps the rule's English key for older readers.
REASON_CODES: dict[str, Code] = {SAME_FILE: Code.DUPLICATE_SAME_FILE, SAME_NUMBER: Code.DUPLICATE_SAME_NUMBER,
                                 SAME_DATE_TOTAL: Code.DUPLICATE_SAME_DATE_TOTAL,
                                 SAME_FIGURES: Code.DUPLICATE_SAME_FIGURES,
                                 SAME_NUMBER_DATE_TOTAL: Code.DUPLICATE_SAME_NUMBER_DATE_TOTAL}
_REASON_BY_CODE = {code.value: code for code in REASON_CODES.values()}


def reason_of(mark: dict[str, Any]) -> Diagnostic:
    """Why ``mark`` (a ``Document.duplicate_of``) was raised, as a diagnostic: from its ``reason_code``,
    or (a mark saved before codes were stored) its rule key; an unknown reason as free text."""
    known = _REASON_BY_CODE.get(str(mark.get("reason_code"))) or REASON_CODES.get(str(mark.get("reason")))
    return diag(known) if known else text(str(mark.get("reason", "")))


def content_hash(path: str | Path) -> str | None:
    """SHA-256 (hex) of a file's bytes, or ``None`` when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def _value(doc: Document, name: str) -> str | None:
    f = doc.fields.get(name)
    return str(f.value).strip() if f is not None and f.value not in (None, "") else None


def figures(document: Document) -> str:
    """Every number printed on the document, in reading order, space-separated (at most 2000 characters)."""
    numbers: list[str] = []
    for page in document.page_results:
        for line in sorted(page.lines, key=lambda ln: ((ln.box[1] + ln.box[3]) / 2, ln.box[0])):
            numbers.extend(_NUMBER.findall(line.text or ""))
    return " ".join(numbers)[:2000]


def document_numbers(document: Document) -> list[str]:
    """The document's own numbers, as printed: its ``invoice_number`` field, then every number printed
    right after a :data:`DOCUMENT_NUMBER_LABEL` on its pages (in reading order, each once). A number
    holds a digit, is at least 3 characters long and is not a date (``14/03/2024``, ``2024-03-14``)."""
    out: list[str] = []
    number = _value(document, "invoice_number")
    if number:
        out.append(number)
    for page in document.page_results:
        for line in sorted(page.lines, key=lambda ln: ((ln.box[1] + ln.box[3]) / 2, ln.box[0])):
            text = line.text or ""
            for label in DOCUMENT_NUMBER_LABEL.finditer(text):
                m = _CODE.match(text, label.end())
                if m is None:
                    continue
                token = m.group(1).rstrip("-/_")
                if len(token) >= 3 and not _DATE.fullmatch(token) and token not in out:
                    out.append(token)
    return out


def _number_key(number: str) -> str:
    return _squash(number).translate(_CONFUSABLE)


def _time_key(value: Any) -> str | None:
    m = re.match(r"\s*(\d{1,2})[:.](\d{2})", str(value or ""))
    return f"{int(m.group(1)):02d}:{m.group(2)}" if m else None


def conflicts(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """The evidence two documents (facts, :func:`facts_of`) both carry and disagree on: ``numbers`` (no
    document number in common, letter/digit confusions undone, a number inside the other one agreeing)
    and ``time`` (hours and minutes); empty when nothing disagrees, or when one of them lacks the
    evidence (facts recorded before these were kept lack both)."""
    out = []
    a = {_number_key(n) for n in new.get("numbers") or []} - {""}
    b = {_number_key(n) for n in old.get("numbers") or []} - {""}
    if a and b and not any(x == y or (min(len(x), len(y)) >= 4 and (x in y or y in x)) for x in a for y in b):
        out.append("numbers")
    ta, tb = _time_key(new.get("time")), _time_key(old.get("time"))
    if ta and tb and ta != tb:
        out.append("time")
    return out


def facts_of(document: Document) -> dict[str, Any]:
    """What duplicates are compared on, as a JSON-ready dict: ``source``, ``pages``, ``content_hash``,
    ``vendor_name``, ``vendor_tax_id``, ``iban``, ``invoice_number``, ``date``, ``time``, ``total``,
    ``numbers`` (:func:`document_numbers`), ``profile_id``, ``figures`` (:func:`figures`)."""
    memory = document.extras.get("memory") or {}
    return {
        "figures": figures(document),
        "numbers": document_numbers(document),
        "time": _value(document, "time"),
        "source": document.source,
        "pages": list(document.pages),
        "content_hash": document.extras.get("content_hash"),
        "vendor_name": _value(document, "vendor_name"),
        "vendor_tax_id": _value(document, "vendor_tax_id"),
        "iban": _value(document, "iban"),
        "invoice_number": _value(document, "invoice_number"),
        "date": _value(document, "date"),
        "total": _value(document, "total"),
        "profile_id": memory.get("profile_id") if isinstance(memory, dict) else None,
    }


def normalise_text(text: str | None) -> str:
    """Text as compared by the duplicate check and the vendor memory: NFKC, upper case, runs of
    non-alphanumerics -> one space."""
    if not text:
        return ""
    t = unicodedata.normalize("NFKC", text).upper()
    return re.sub(r"[\W_]+", " ", t).strip()


def _squash(text: str | None) -> str:
    return "".join(c for c in (text or "").upper() if c.isalnum())


def same_vendor(a: dict[str, Any], b: dict[str, Any]) -> bool | None:
    """Whether the documents with facts ``a`` and ``b`` (:func:`facts_of`) are from one vendor: ``True``
    or ``False`` when they tell (see the module docstring), ``None`` when one of them carries no vendor
    name, profile, tax ID or IBAN that the other carries too (the vendor is unknown)."""
    if a.get("profile_id") is not None and a.get("profile_id") == b.get("profile_id"):
        return True
    ta, tb = _squash(a.get("vendor_tax_id")), _squash(b.get("vendor_tax_id"))
    if ta and tb:
        return ta == tb
    ia, ib = _squash(a.get("iban")), _squash(b.get("iban"))
    if ia and ib:
        return ia == ib
    na, nb = normalise_text(a.get("vendor_name")), normalise_text(b.get("vendor_name"))
    if not na or not nb:
        return None
    return fuzz.ratio(na, nb) >= NAME_MIN


def _same_number(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """Whether both carry a document number (:func:`document_numbers`) and one of them is the same
    (letter/digit confusions undone, at least 4 characters)."""
    a = {_number_key(n) for n in new.get("numbers") or []}
    b = {_number_key(n) for n in old.get("numbers") or []}
    if new.get("invoice_number"):
        a.add(_number_key(new["invoice_number"]))
    if old.get("invoice_number"):
        b.add(_number_key(old["invoice_number"]))
    return any(len(x) >= 4 for x in a & b)


def duplicate_reason(new: dict[str, Any], old: dict[str, Any]) -> str | None:
    """Why the document with facts ``new`` duplicates the one with facts ``old`` (:func:`facts_of`),
    or ``None`` (see the module docstring for the rules)."""
    if new.get("content_hash") and new.get("content_hash") == old.get("content_hash") \
            and list(new.get("pages") or []) == list(old.get("pages") or []):
        return SAME_FILE
    vendor = same_vendor(new, old)
    if vendor is None:
        # the vendor is unknown on one of them: its document number, date and total together name it
        if new.get("date") and new.get("total") and new["date"] == old.get("date") and new["total"] == old.get("total") \
                and _same_number(new, old) and "time" not in conflicts(new, old):
            return SAME_NUMBER_DATE_TOTAL
        return None
    if not vendor:
        return None
    if new.get("invoice_number") and _squash(new["invoice_number"]) == _squash(old.get("invoice_number")):
        return SAME_NUMBER
    if conflicts(new, old):
        return None  # the same shop, day and amount, but another receipt (its number or time of day)
    if new.get("date") and new.get("total") and new["date"] == old.get("date") and new["total"] == old.get("total"):
        return SAME_DATE_TOTAL
    if any(new.get(k) and old.get(k) and _squash(new[k]) != _squash(old[k]) for k in ("date", "total", "invoice_number")):
        return None
    a, b = str(new.get("figures") or ""), str(old.get("figures") or "")
    if min(a.count(" "), b.count(" ")) + 1 >= FIGURES_COUNT and fuzz.ratio(a, b) >= FIGURES_MIN:
        return SAME_FIGURES
    return None


def find_duplicate(document: Document, earlier: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The first earlier document (facts, :func:`facts_of`) that ``document`` duplicates, as
    ``{"source", "pages", "reason"}``; ``None`` when there is none, when the document could not be
    read, or when the clerk kept it already (``extras["duplicate_kept"]``). ``earlier`` must not hold
    the document itself (the same file added again *is* a duplicate)."""
    if document.error or document.extras.get("duplicate_kept"):
        return None
    new = facts_of(document)
    for old in earlier:
        reason = duplicate_reason(new, old)
        if reason:
            return {"source": old.get("source"), "pages": list(old.get("pages") or [1, 1]), "reason": reason,
                    "reason_code": REASON_CODES[reason].value}
    return None


@dataclass
class DuplicateChecker:
    """Marks possible duplicates in a batch, in order, against each other and against ``known``.

    Args:
        known: facts of documents seen before the batch (the vendor memory's learned documents,
            :meth:`desktop.core.memory.VendorMemory.known_documents`).
    """

    known: list[dict[str, Any]] = field(default_factory=list)

    def check(self, document: Document) -> dict[str, Any] | None:
        """Set ``document.duplicate_of`` (or clear it), remember the document, and return the mark."""
        mark = find_duplicate(document, self.known)
        document.duplicate_of = mark
        if not document.error:
            self.known.append(facts_of(document))
        return mark


class ReadingCache:
    """Readings of files by their content, so that a file whose bytes were already read in this batch or
    session is not read by the engine again (200 copies of one JPEG are one OCR run, not 200).

    The pipeline (:func:`desktop.core.pipeline.scan_file`, through ``ScanOptions.readings``) stores the
    documents of each file it read completely -- every page read, no document failed or cancelled -- as
    they were *before* the vendor memory was applied, under a key made of the file's content hash
    (:func:`content_hash`) and whatever else decides the reading (engine, its version and model, document
    type, date order, task, turning and QR options). A later file with the same key gets copies of those
    documents with its own source; the memory is then applied to them as it stands at that moment, and
    the duplicate check marks them ``same file`` as before: each is still a document of its own. At most
    ``limit`` files are kept, the least recently used dropped first. Safe to use from several threads.

    Args:
        limit: how many files' readings to keep (a receipt's reading is tens of kB).
    """

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self.hits = 0
        self._entries: OrderedDict[tuple[Any, ...], tuple[str, list[dict[str, Any]]]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[Any, ...]) -> tuple[str, list[Document]] | None:
        """The source that was read under ``key`` and copies of its documents, or ``None``."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            source, docs = found
        return source, [Document.from_dict(copy.deepcopy(d)) for d in docs]

    def put(self, key: tuple[Any, ...], source: str, documents: list[Document]) -> None:
        """Remember ``documents`` (read from ``source``) under ``key``."""
        data = [copy.deepcopy(d.to_dict()) for d in documents]
        with self._lock:
            self._entries[key] = (source, data)
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)
