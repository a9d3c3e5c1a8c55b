"""Which pages of a file make one document: page-boundary decisions, and splitting/merging documents.

Every page of a file belongs to exactly one document. A file can hold several receipts or invoices,
one after another (a multi-page TIFF from a sheet-fed scanner, a scanned stack saved as one PDF, a
scanned receipt page followed by a text-layer invoice page), or one document over several pages.
What each page *is* decides (:func:`page_profile`, :func:`document_ranges`):

* a page that carries its own invoice number, different from the current document's, starts a new
  document; the same number again continues it;
* a page with a start of its own -- a header at the top (a document heading such as INVOICE,
  RECEIPT, Rechnung, 发票, 收据, or a company name with a legal-form suffix) together with a date in
  its top half or a total -- starts a new document when the current document already has its total
  (a complete receipt has its own header, date and total; so does the next one); except that when
  the current document carries an invoice number and the page carries none, only a complete page
  (header, date and total) starts a new one (a later page of an invoice repeats the letterhead and
  may show dates and amounts);
* a till receipt's shop name rarely carries a legal form or a heading (``KITSILANO HARDWARE``,
  ``DÉPANNEUR CHEZ MARCEL``): the topmost line of a page also counts as its header when it is a name
  printed centred over the page's text (till printers centre the shop name; a table heading, a
  letterhead or a page number at the top of a continuation page is left-aligned, spans the columns
  or carries digits) -- but only on a complete page (that name, a date in the top half and a total):
  a name alone is weaker evidence than a heading, so it never starts a document with a date or a
  total alone. Without it, a multi-page TIFF of two such receipts was one document mixing both;
* a page whose kind differs from the current document's (a Chinese VAT invoice after a receipt; a
  text-layer page after a scanned one) and that has a start of its own starts a new document;
* a page on which nothing was read -- blank, or its content lost or maybe lost (a page warning of
  :func:`desktop.core.diagnostics.is_page_lost`: a damaged PDF's page whose repair left it blank, a page
  the engine could not read) -- continues the current document: it shows nothing, so it carries no
  evidence of a boundary, and the pages of one file are one document unless a page shows that a new
  one starts. Its loss is not hidden by joining it: the document names the lost page
  (``Document.lost_pages``: an error line, a Problems row, the queue row) and every field that was or
  may have been on it is flagged (``extraction._pages_in_doubt``). Kept apart instead (as before), a
  cut-short two-page invoice became two documents: the invoice without its total and an empty
  phantom "document" on the lost page, typed as a receipt;
* the page after such a page is judged by the rules above as if that page were not there (against
  the kind of the last page read). A lost page may have held the total of the document before, so a
  next receipt that starts after it can be taken for a continuation; that document has a lost page
  and is flagged for review either way, and a page that merely might end a document is no positive
  evidence of a boundary (a later page of a multi-page invoice repeats the letterhead, the date and
  carries the total, and would be split off);
* while nothing has been read on any page of the current document (a file whose first page is lost
  or blank), the next page joins it: there is nothing to tell them apart from;
* every other page continues the current document (a continuation page has no header of its own
  with a date or total, or the document before it has no total yet).

Measured on the multi-page files of the shared samples (20 files of 2-6 pages, each one document):
all 20 are kept whole (before the two stricter rules above, 2 were split).

Each document gets notes saying why its pages were joined and why it was split from its neighbours.
:func:`split_document` and :func:`merge_documents` are the clerk's corrections: pure functions
returning new documents (the review core calls them; undo keeps the old ones).
"""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field

from desktop.core.diagnostics import Code, Diagnostic, DiagnosticError, diag, is_page_lost
from desktop.core.model import Document, Field, PageResult

__all__ = [
    "PageProfile",
    "PageRange",
    "document_ranges",
    "merge_documents",
    "page_profile",
    "split_document",
]

#: Document headings printed at the top of a receipt or invoice (English, Malay, German, French,
#: Dutch, Spanish, Italian, Portuguese, Chinese).
_HEADING = re.compile(
    r"(?<![^\W\d_])(tax\s*invoice|invoice|receipt|official\s*receipt|cash\s*(?:bill|sale)|bill|credit\s*note|"
    r"refund|rechnung|quittung|kassenbon|beleg|gutschrift|facture|re[çc]u|ticket|avoir|factuur|kassabon|bon|"
    r"creditnota|factura|recibo|fattura|ricevuta|scontrino|nota\s*fiscal|resit|invois)(?![^\W\d_])"
    r"|发票|發票|收据|收據|小票|销售单|销售清单|购物清单|欢迎光临|收银|退款单", re.I)
#: Legal-form suffixes of company names (a letterhead or a till's shop name).
_COMPANY = re.compile(
    r"(?<![^\W\d_])(?<!\d )(?<!\d)(sdn\.?\s*bhd|bhd|berhad|ltd|limited|llc|inc|corp|gmbh|ag|b\.?v|n\.?v|sarl|sas|s\.?a|s\.?l|"
    r"s\.?r\.?l|s\.?p\.?a|plc|pte|kg|bvba|a/s)(?![^\W\d_])\.?|有限公司|商店|超市|便利店|餐厅|酒店", re.I)


def _is_company(text: str) -> bool:
    """A company name line: a legal-form suffix not right after a number (``1 kg`` is a weight, not
    a KG), at least two words, not starting with a number."""
    return bool(_COMPANY.search(text)) and len(re.findall(r"[^\W\d_]{2,}", text)) >= 2 \
        and not re.match(r"\W*\d", text)


#: The share of the page height, from the top, where a header is looked for.
_HEADER_ZONE = 0.25
#: The share of the page height, from the top, where a date counts as the document's own date.
_DATE_ZONE = 0.5
#: How far (share of the text column's width) a name's centre may be from the text column's centre to
#: count as centred (a till's shop name); a left-aligned or a full-width line is far off or too wide.
_CENTRED = 0.06
#: A centred name is narrower than this share of the text column (a full-width line is not "centred").
_NAME_WIDTH = 0.85


def _centred_name(page: PageResult) -> str | None:
    """The page's topmost line when it is a shop name printed centred (see the module docstring): in
    the header zone, letters only (no digit: not a page number, an address, a date), two words of
    two letters or more (or one CJK name of two characters), no amount label (total, tax, change ...),
    centred over the page's text column and narrower than it."""
    lines = [ln for ln in page.lines if ln.text.strip()]
    if len(lines) < 3:
        return None
    top = min(lines, key=lambda ln: ln.box[1])
    text = unicodedata.normalize("NFKC", top.text).strip()
    if not _top(page, top.box[1], _HEADER_ZONE) or re.search(r"\d", text) or _labelled(text):
        return None
    if len(re.findall(r"[^\W\d_]{2,}", text)) < 2 and not re.search(r"[\u4e00-\u9fff]{2,}", text):
        return None
    left, right = min(ln.box[0] for ln in lines), max(ln.box[2] for ln in lines)
    width = right - left
    if width <= 0 or top.box[2] - top.box[0] > _NAME_WIDTH * width:
        return None
    centre = (top.box[0] + top.box[2]) / 2
    return text if abs(centre - (left + right) / 2) <= _CENTRED * width else None


@dataclass(frozen=True)
class PageProfile:
    """What one page shows of a document's structure.

    Attributes:
        number: the page number in the file (1-based).
        header: the text of a header line at the top (a heading or a company name), or ``None``.
        date: the first date printed in the top half, as printed, or ``None``.
        total: the printed total (a total label with an amount), as printed, or ``None``.
        invoice_key: the invoice number (with code) printed on the page, or ``None``.
        kind: ``cn_vat_invoice`` for a Chinese VAT invoice page, else ``text_layer`` (a PDF text
            layer) or ``scan`` (read by OCR).
        lost: nothing was read on the page and its content is lost or may be lost (see the module
            docstring).
        empty: nothing was read on the page (no lines): blank, or lost (``lost``).
    """

    number: int
    header: str | None
    date: str | None
    total: str | None
    invoice_key: str | None
    kind: str
    lost: bool = False
    empty: bool = False

    @property
    def starts(self) -> bool:
        """The page has a start of its own: a header at the top, with a date in its top half or a
        total (a repeated letterhead alone, a payment-terms date alone are not a start)."""
        return self.header is not None and (self.date is not None or self.total is not None)

    @property
    def complete(self) -> bool:
        """Header, date and total: everything a receipt or invoice of one page has."""
        return self.header is not None and self.date is not None and self.total is not None


@dataclass
class PageRange:
    """Pages ``first``..``last`` (1-based, inclusive) that are one document, and why (``notes``:
    document notes, codes ``pages_split_*`` and ``pages_joined_*``)."""

    first: int
    last: int
    notes: list[Diagnostic] = field(default_factory=list)


def _top(page: PageResult, line_y0: float, share: float) -> bool:
    return not page.height or line_y0 <= share * page.height


def _not_total() -> re.Pattern[str]:
    from desktop.core.extraction.labels import any_label

    return any_label("subtotal", "not_total", "tax")


def _labelled(text: str) -> bool:
    """Whether ``text`` holds an amount's label (total, subtotal, tax, tendered, change ...)."""
    from desktop.core.extraction.labels import any_label

    return bool(any_label("total", "subtotal", "tax", "not_total", "tendered", "change").search(text))


def page_profile(page: PageResult) -> PageProfile:
    """Read a page's structure: header, date, total and invoice number (see the module docstring)."""
    from desktop.core.extraction import _page_key, detect_document_type
    from desktop.core.extraction.dates import find_dates
    from desktop.core.extraction.labels import label_pattern
    from desktop.core.extraction.layout import Layout
    from desktop.core.extraction.parsers import amount_finder

    header = None
    date = None
    for ln in page.lines:
        text = unicodedata.normalize("NFKC", ln.text).strip()
        if header is None and _top(page, ln.box[1], _HEADER_ZONE) and (_HEADING.search(text) or _is_company(text)):
            header = text
        if date is None and _top(page, ln.box[1], _DATE_ZONE):
            found = [d for d in find_dates(text) if d.value]
            if found:
                date = found[0].raw
    layout = Layout([page])
    totals = layout.labelled(label_pattern("total"), amount_finder(need_decimals=True), exclude=_not_total(),
                             prefer_rightmost=True)
    total = totals[-1].raw if totals else None
    try:
        key = _page_key(page)
    except Exception:
        key = None
    if detect_document_type([page]) == "cn_vat_invoice":
        kind = "cn_vat_invoice"
    else:
        kind = "text_layer" if page.origin == "pdf_text" else "scan"
    if header is None and date is not None and total is not None:
        header = _centred_name(page)  # a till receipt's shop name: only on a complete page
    lost = not page.lines and any(is_page_lost(w) for w in page.warnings)
    return PageProfile(page.number, header, date, total, key, kind, lost, not page.lines)


def document_ranges(pages: list[PageResult]) -> list[PageRange]:
    """Split a file's pages into documents (rules: see the module docstring).

    Args:
        pages: the pages read from one file, any order (sorted by ``number`` here).

    Returns:
        Page ranges covering every page exactly once, in page order, each with notes (diagnostics)
        saying why its pages were joined and why it starts where it does. One page: one range, no
        notes.
    """
    ordered = sorted(pages, key=lambda p: p.number)
    if not ordered:
        return []
    if len(ordered) == 1:
        return [PageRange(ordered[0].number, ordered[0].number)]
    profiles = [page_profile(p) for p in ordered]
    ranges = [PageRange(profiles[0].number, profiles[0].number)]
    current = [profiles[0]]
    for p in profiles[1:]:
        prev = current[-1]
        read = [c for c in current if not c.empty]  # the document's pages that show something
        last = read[-1] if read else prev
        key = next((c.invoice_key for c in current if c.invoice_key), None)
        has_total = any(c.total for c in current)
        start: Diagnostic | None = None
        join: Diagnostic | None = None
        if p.empty:  # shows nothing, so no sign of a new document (its loss is reported on the document)
            join = diag(Code.PAGES_JOINED_CONTENT_LOST if p.lost else Code.PAGES_JOINED_CONTINUATION,
                        page=p.number, previous=prev.number)
        elif not read:  # nothing read before it in this document: nothing to tell it apart from
            join = diag(Code.PAGES_JOINED_NOTHING_READ_BEFORE, page=p.number, previous=prev.number)
        elif p.invoice_key and key and p.invoice_key != key:
            start = diag(Code.PAGES_SPLIT_OWN_NUMBER, page=p.number, number=p.invoice_key, previous=key)
        elif p.invoice_key and key and p.invoice_key == key:
            join = diag(Code.PAGES_JOINED_SAME_NUMBER, page=p.number, number=key)
        elif p.starts and has_total and key and not p.invoice_key and not p.complete:
            # the document has an invoice number and this page none: a later page of that invoice
            join = diag(Code.PAGES_JOINED_CONTINUATION, page=p.number, previous=prev.number)
        elif p.starts and has_total:
            start = diag(Code.PAGES_SPLIT_OWN_START, page=p.number, header=p.header, date=p.date, total=p.total)
        elif p.starts and p.kind != last.kind and (p.kind == "cn_vat_invoice" or last.kind == "cn_vat_invoice"
                                                   or p.total is not None):
            start = diag(Code.PAGES_SPLIT_KIND, page=p.number, kind=p.kind, previous=last.kind)
        elif not p.starts:
            join = diag(Code.PAGES_JOINED_CONTINUATION, page=p.number, previous=prev.number)
        else:
            join = diag(Code.PAGES_JOINED_NO_TOTAL_YET, page=p.number, previous=prev.number, header=p.header,
                        date=p.date)
        if start is not None:
            ranges[-1].notes.append(diag(Code.PAGES_SPLIT_AFTER, page=prev.number, next=p.number))
            ranges.append(PageRange(p.number, p.number, [start]))
            current = [p]
        else:
            ranges[-1].last = p.number
            if join is not None:  # every branch above that does not start a document says why it joins
                ranges[-1].notes.append(join)
            current.append(p)
    return ranges


# -- the clerk's corrections ------------------------------------------------------------------------

def _note(doc: Document, note: Diagnostic) -> None:
    doc.notes = [*doc.notes, note]


def _refill(doc: Document, keep: dict[str, Field]) -> Document:
    """Read ``doc``'s fields again from its pages (own reading of the text; the engine is not asked
    again), then put back the fields in ``keep`` (clerk edits and model values of these pages)."""
    from desktop.core.extraction import detect_document_type, extract_fields, validate

    doc_type = doc.document_type or detect_document_type(doc.page_results)
    qr = tuple(doc.extras.get("qr_payloads", []))
    result = extract_fields(doc.page_results, doc_type, qr_payloads=qr)
    doc.document_type = doc_type
    doc.fields = dict(result.fields)
    doc.line_items = list(result.line_items)
    for name, f in keep.items():
        if name in doc.fields:
            doc.fields[name] = dataclasses.replace(f, boxes=list(f.boxes), problems=list(f.problems))
    validate(doc.fields, doc_type, doc.page_results)
    return doc


def _kept_fields(doc: Document, first: int, last: int, *, take_unplaced: bool) -> dict[str, Field]:
    """Fields that stay as they are in the part ``first..last``: the clerk's edits and the engine's
    (``model``) values read on a page of the part; an edited field without a page goes to the first
    part (``take_unplaced``)."""
    out = {}
    for name, f in doc.fields.items():
        if not (f.edited or f.source == "model") or f.value is None:
            continue
        if (f.page is not None and first <= f.page <= last) or (f.page is None and f.edited and take_unplaced):
            out[name] = f
    return out


def split_document(doc: Document, at_page: int) -> tuple[Document, Document]:
    """Split a document in two before page ``at_page`` (the clerk's "split here").

    Args:
        doc: a document of two or more pages; it is not changed.
        at_page: the file page number that becomes the first page of the second document
            (``doc.pages[0] < at_page <= doc.pages[1]``).

    Returns:
        ``(first, second)``: new documents over ``doc.pages[0]..at_page-1`` and ``at_page..doc.pages[1]``,
        with their own page results, fields read again from their own pages (the clerk's edits and
        engine values stay with the page they were read on; an edit without a page stays with the
        first), the document type kept, ``reviewed`` cleared, and a note saying the clerk split them.
        Table and task outputs go with their pages.

    Raises:
        ValueError: ``at_page`` is not inside the document, or the document has an error (no pages read).
    """
    first, last = doc.pages
    if not first < at_page <= last:
        raise DiagnosticError(diag(Code.SPLIT_OUTSIDE, first=first, last=last, page=at_page, lowest=first + 1))
    if doc.error is not None and not doc.page_results:
        raise DiagnosticError(diag(Code.SPLIT_NOT_READ))
    parts = []
    for lo, hi in ((first, at_page - 1), (at_page, last)):
        extras = dict(doc.extras)
        for key, value in list(extras.items()):
            if isinstance(value, list) and value and all(isinstance(o, dict) and "page" in o for o in value):
                extras[key] = [o for o in value if lo <= int(o["page"]) <= hi]
        part = dataclasses.replace(
            doc, pages=(lo, hi), page_results=[p for p in doc.page_results if lo <= p.number <= hi],
            tables=[t for t in doc.tables if lo <= int(t.get("page", lo)) <= hi], reviewed=False,
            extras=extras, fields={}, line_items=[], notes=list(doc.notes))
        _note(part, diag(Code.CLERK_SPLIT, first=first, last=last, at=at_page, lo=lo, hi=hi))
        parts.append(_refill(part, _kept_fields(doc, lo, hi, take_unplaced=lo == first)))
    return parts[0], parts[1]


def merge_documents(a: Document, b: Document) -> Document:
    """Join two adjacent documents of one file into one (the clerk's "merge with next").

    Args:
        a: the earlier document; ``b`` must start on the page after ``a``'s last page, in the same
            source file. Neither is changed.

    Returns:
        A new document over ``a.pages[0]..b.pages[1]`` with both documents' pages, tables and task
        outputs, ``a``'s document type, fields read again from all its pages (the clerk's edits kept:
        ``a``'s win where both edited a field), ``reviewed`` cleared, and a note saying the clerk
        merged them.

    Raises:
        ValueError: different source files, or the pages are not adjacent.
    """
    if a.source != b.source:
        raise DiagnosticError(diag(Code.MERGE_OTHER_FILES, first=a.source, second=b.source))
    if b.pages[0] != a.pages[1] + 1:
        if a.pages[0] == b.pages[1] + 1:
            a, b = b, a
        else:
            raise DiagnosticError(diag(Code.MERGE_NOT_ADJACENT, a_first=a.pages[0], a_last=a.pages[1],
                                       b_first=b.pages[0], b_last=b.pages[1]))
    extras = dict(b.extras)
    for key, value in a.extras.items():
        other = extras.get(key)
        if isinstance(value, list) and isinstance(other, list):
            extras[key] = list(dict.fromkeys([*value, *other])) if all(isinstance(x, str) for x in value + other) \
                else [*value, *other]
        else:
            extras[key] = value
    merged = dataclasses.replace(
        a, pages=(a.pages[0], b.pages[1]), page_results=[*a.page_results, *b.page_results],
        tables=[*a.tables, *b.tables], reviewed=False, extras=extras, fields={}, line_items=[],
        error=a.error if a.error is not None else b.error, notes=[*a.notes, *b.notes])
    _note(merged, diag(Code.CLERK_MERGED, a_first=a.pages[0], a_last=a.pages[1], b_first=b.pages[0], b_last=b.pages[1]))
    keep = {**_kept_fields(b, *b.pages, take_unplaced=True), **_kept_fields(a, *a.pages, take_unplaced=True)}
    return _refill(merged, keep)
