"""The e-invoice's data wins; the printed page is checked against it.

:func:`apply` puts the structured values (:class:`~desktop.core.einvoice.data.EInvoice`) into a
document's fields with source ``xml`` (e-invoice XML), ``qr`` or the OFD text, and then looks for each
value on the page:

- found as printed (amounts in any common notation, ``1.234,56`` / ``1,234.56`` / ``1 234,56``, a
  credit note's amounts with or without the minus; dates numeric or with month names; names and IDs
  ignoring case, spaces and punctuation): the field gets the page and the boxes of the text it was
  printed in, so the viewer outlines it, and no problem;
- the amounts, the invoice number and the parties' names must be printed on an invoice (EN 16931 is the
  legal invoice, but its visual PDF must show the same invoice, Factur-X 1.0 specification, section 1;
  GB/T 33190 OFD invoices print every field of their XML): not found, the field gets a problem naming
  both values and ``needs_review``;
- the issue date and the due date must be printed too (found on every one of the 31 e-invoice PDFs of
  the samples that carries them, 55 dates, numeric or with month names);
- the amount due must be printed when it is neither the total nor zero: EN 16931 BR-CO-16 makes it the
  total less what was prepaid plus rounding, and an invoice that asks for another amount than its total
  shows why; equal to the total it is checked through the total;
- the IBAN: when the page prints IBANs (ISO 13616, the MOD 97-10 check of ISO 7064, through
  python-stdnum) and the structured IBAN is not among them, it is flagged naming the printed one (a
  changed account to pay into is the classic invoice fraud); a page that prints none is not checked;
- tax IDs are often printed in forms not matched here (a VAT number only in the footer image): they are
  flagged only when the page reading found a different value and the structured value is nowhere on the
  page.

A document without a page of its own (an XML invoice shown as a generated view) is not cross-checked:
its page is the data.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.einvoice.data import EInvoice
from desktop.core.model import Box, Document, Field, PageResult

__all__ = ["MUST_PRINT", "apply", "find_amount", "find_text", "mismatch_problem"]

#: Fields whose structured value must be printed on the page (see the module docstring).
MUST_PRINT = ("invoice_number", "subtotal", "tax", "total", "vendor_name", "buyer_name", "date", "due_date")
#: Fields flagged only when the page shows another value and not the structured one.
#: The amount due is also a must when it is neither the total nor zero (:func:`_amount_due_needs_print`);
#: for the IBAN, "another value" is the IBANs the page prints (:func:`printed_ibans`).
SOFT = ("vendor_tax_id", "buyer_tax_id", "invoice_code", "check_code", "amount_due", "iban")

SOURCE_LABELS = {"xml": "e-invoice XML", "ofd_text": "OFD text", "qr": "QR", "text_layer": "PDF text",
                 "ocr": "OCR", "user": "you", "model": "AI",
                 "inferred": "inferred"}

_NUM = re.compile(r"[-−–]?\d(?:[\d.,'’]|[ \u00a0\u202f](?=\d{3}(?!\d)))*\d|[-−]?\d")
_NUM_PLAIN = re.compile(r"[-−–]?\d[\d.,'’]*\d|[-−]?\d")


def _decimals(token: str) -> set[Decimal]:
    """Every value a printed number token can mean (``1.234`` is 1234 or 1.234)."""
    t = re.sub(r"[ \u00a0\u202f'’]", "", token).lstrip("-−–")
    out: set[Decimal] = set()
    for dec, group in ((".", ","), (",", ".")):
        if t.count(dec) > 1:
            continue
        s = t.replace(group, "")
        if dec == ",":
            s = s.replace(",", ".")
        try:
            out.add(Decimal(s))
        except InvalidOperation:
            pass
    return out


def _lines(pages: list[PageResult]) -> list[tuple[int, Any]]:
    return [(p.number, ln) for p in pages for ln in p.lines]


def find_amount(pages: list[PageResult], value: str) -> tuple[int, list[Box]] | None:
    """Where ``value`` (a canonical amount) is printed: ``(page number, boxes)`` of the first line, or ``None``.

    The sign is ignored (credit notes print positive amounts under a "credit note" heading as often as
    negative ones); an amount with zero cents also matches a printed whole number of three or more
    digits or with thousands separators (``87.859`` HUF).
    """
    try:
        want = abs(Decimal(value))
    except InvalidOperation:
        return None
    for number, ln in _lines(pages):
        text = unicodedata.normalize("NFKC", ln.text)
        for tok in dict.fromkeys(m.group(0) for rx in (_NUM_PLAIN, _NUM) for m in rx.finditer(text)):
            if not re.search(r"[.,]\d", tok):
                # a bare whole number ("87859") stands for an amount only when it has no cents and
                # at least three digits: "2" or "19" on a page is a page number, a rate, a quantity
                if want != want.to_integral_value() or len(tok.lstrip("-−–")) < 3:
                    continue
            if want in _decimals(tok):
                return number, _word_boxes(ln, tok)
    return None


def _word_boxes(line: Any, token: str) -> list[Box]:
    words = [w for w in (line.words or []) if w.text and (w.text in token or token in w.text)]
    return [w.box for w in words] or [line.box]


def _squash(text: str) -> str:
    t = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", "", t)


def find_text(pages: list[PageResult], value: str, *, fuzzy: bool = False) -> tuple[int, list[Box]] | None:
    """Where ``value`` is printed, ignoring case, spaces and punctuation: ``(page, boxes)`` or ``None``.

    A value split over consecutive lines (a long name wrapped) is found too. With ``fuzzy``, a line
    that matches 90 % (rapidfuzz ``partial_ratio``) also counts, for names printed with a legal form
    abbreviated or a typographic variant.
    """
    want = _squash(value)
    if not want:
        return None
    entries = _lines(pages)
    for i, (number, ln) in enumerate(entries):
        s = _squash(ln.text)
        if want in s:
            return number, [ln.box]
        joined, boxes = s, [ln.box]
        for nxt_number, nxt in entries[i + 1:i + 4]:
            if nxt_number != number or not s:
                break
            joined += _squash(nxt.text)
            boxes.append(nxt.box)
            at = joined.find(want)
            if 0 <= at < len(s):
                return number, list(boxes)
    if fuzzy and len(want) >= 6:
        from rapidfuzz import fuzz

        best = None
        for number, ln in entries:
            s = _squash(ln.text)
            if len(s) >= 4:
                score = fuzz.partial_ratio(want, s) if len(s) >= len(want) * 0.6 else 0
                if score >= 90 and (best is None or score > best[0]):
                    best = (score, number, ln.box)
        if best:
            return best[1], [best[2]]
    return None


def find_date(pages: list[PageResult], value: str) -> tuple[int, list[Box]] | None:
    """Where the ISO date ``value`` is printed (numeric in any order, or with a month name)."""
    from desktop.core.extraction.dates import find_dates

    y, m, d = value.split("-")
    forms = {f"{d}.{m}.{y}", f"{d}/{m}/{y}", f"{m}/{d}/{y}", f"{y}{m}{d}", value, f"{d}-{m}-{y}",
             f"{int(d)}.{int(m)}.{y}", f"{d}.{m}.{y[2:]}", f"{y}年{m}月{d}日", f"{y}年{int(m)}月{int(d)}日"}
    for number, ln in _lines(pages):
        text = unicodedata.normalize("NFKC", ln.text)
        if any(f in text.replace(" ", "") for f in forms):
            return number, [ln.box]
        for order in ("DMY", "MDY"):
            if any(dm.value == value for dm in find_dates(text, order)):
                return number, [ln.box]
    return None


def _locate(name: str, value: str, pages: list[PageResult]) -> tuple[int, list[Box]] | None:
    from desktop.core.doctypes import canonical_fields

    spec = canonical_fields().get(name)
    kind = spec.type if spec else "text"
    if kind == "amount":
        return find_amount(pages, value)
    if kind == "date":
        return find_date(pages, value)
    if name == "iban":
        return find_text(pages, value)
    return find_text(pages, value, fuzzy=name in ("vendor_name", "buyer_name", "vendor_address", "buyer_address"))


def printed_ibans(pages: list[PageResult]) -> list[str]:
    """Every valid IBAN printed on the pages, compact (``DE12500105170648489890``), in reading order
    (:func:`desktop.core.extraction.banking.find_ibans` on each line: ISO 13616-1 print format, MOD
    97-10 check of ISO 7064 and the country's length)."""
    from desktop.core.extraction.banking import find_ibans

    found: list[str] = []
    for _number, ln in _lines(pages):
        for compact in find_ibans(ln.text):
            if compact not in found:
                found.append(compact)
    return found


def _amount_due_needs_print(inv: EInvoice) -> bool:
    """Whether the amount due must be printed: it is neither the total nor zero (module docstring)."""
    total = inv.values.get("total")
    try:
        due = Decimal(inv.values.get("amount_due") or "0")
        return due != 0 and (total is None or due != Decimal(total))
    except InvalidOperation:
        return False


def mismatch_problem(name: str, value: str, printed: str | None) -> Diagnostic:
    """The problem of a field whose structured value is not what the page shows (the extraction's
    ``validate`` keeps these cross-source problems: ``CROSS_CHECK_CODES``)."""
    label = "IBAN" if name == "iban" else name.replace("_", " ")
    if printed:
        return diag(Code.EINVOICE_MISMATCH, label=label, value=value, printed=printed)
    return diag(Code.EINVOICE_NOT_PRINTED, label=label, value=value)


def _same(name: str, a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    try:
        return abs(Decimal(a)) == abs(Decimal(b))
    except InvalidOperation:
        return _squash(a) == _squash(b)


def apply(doc: Document, inv: EInvoice, *, source: str = "xml", crosscheck: bool = True,
          sources: dict[str, str] | None = None, pages: list[PageResult] | None = None) -> list[str]:
    """Let the structured data override the document's fields, then cross-check the page against it.

    Args:
        doc: a document whose fields were read from its pages (changed in place: ``fields``,
            ``line_items`` when the data has lines, ``extras["einvoice"]``, ``extras["tax_breakdown"]``).
        inv: the structured data.
        source: the ``Field.source`` of the structured values (``xml``; ``qr`` for a QR code alone).
        crosscheck: compare with the page (``False`` for a generated view of the data itself).
        sources: per-field sources overriding ``source`` (an OFD's values from its QR code).
        pages: the pages to look for the values on (default: all of the document's pages).

    Returns:
        The names of the fields flagged as disagreeing with the page.

    Fields the clerk edited are left as they are. Fields of the structured data the document type lacks
    are added (the form shows the type's fields; exports carry every field).
    """
    pages = doc.page_results if pages is None else pages
    flagged: list[str] = []
    for name, value in inv.values.items():
        old = doc.fields.get(name)
        if old is not None and old.edited:
            continue
        where = _locate(name, value, pages) if pages else None
        f = Field(name=name, value=value, raw=value, confidence=1.0,
                  source=(sources or {}).get(name, source))
        if where is not None:
            f.page, f.boxes = where[0], list(where[1])
            f.box = None
            f.__post_init__()
        if crosscheck and pages and where is None:
            printed = old.value if old is not None else None
            if name == "iban":
                ibans = printed_ibans(pages)
                printed = ", ".join(ibans) if ibans else None
            must = name in MUST_PRINT or (name == "amount_due" and _amount_due_needs_print(inv))
            if must or (name in SOFT and printed and not _same(name, printed, value)):
                f.problems.append(mismatch_problem(name, value, printed if not _same(name, printed, value) else None))
                f.needs_review = True
                flagged.append(name)
        doc.fields[name] = f
    if inv.line_items:
        doc.line_items = [dict(x) for x in inv.line_items]
    if inv.tax_breakdown:
        doc.extras["tax_breakdown"] = [dict(x) for x in inv.tax_breakdown]
    doc.extras["einvoice"] = {"syntax": inv.syntax, "profile": inv.profile, "origin": inv.origin,
                              "notes": list(inv.notes), "mismatches": list(flagged)}
    return flagged
