"""Write scanned documents to JSON, Excel (.xlsx) or CSV, atomically.

Formats
-------
JSON
    The full result, :meth:`desktop.core.model.ScanResult.to_json` (schema in :mod:`desktop.core.model`):
    every field with its raw text, confidence and boxes (page pixels), every page's lines. It is the only
    lossless format; :meth:`ScanResult.load` reads it back.

Excel (.xlsx, written with openpyxl)
    ``Documents``: one row per document. Leading columns *Source file*, *Pages*, *Document type*,
    *Status* (``Error: ...`` when the document or a page of it could not be read, or a page's content may
    be lost, ``Reviewed`` or
    ``Not reviewed``), *Fields to check* (the number of fields to
    check: :func:`desktop.core.flags.flagged_fields`, the same count as the app's queue badge; a document's
    other problems, a read error, a lost page, a possible duplicate, are in *Status*, *Duplicate of* and the
    ``Problems`` sheet) and
    *Duplicate of* (``<earlier source> p. <pages> (<reason>)`` for a possible duplicate,
    ``Document.duplicate_of``; also a row in ``Problems``), then one column per canonical field in
    :func:`desktop.core.doctypes.canonical_fields` order with its English label (fields outside the
    canonical list follow, headed by their name).
    Values keep their meaning as Excel types:

    - ``date`` fields: real dates (``number_format`` ``yyyy-mm-dd``); dates before 1900-03-01 stay text,
      because Excel's 1900 date system cannot hold them (and miscounts 1900-02-29).
    - ``time`` fields: real times (``hh:mm`` / ``hh:mm:ss``).
    - ``amount`` fields: numbers shown with 2 decimals (``0.00``; more when the value has more). The
      decimal string is turned into a float only when it has at most 15 significant digits, the
      precision Excel keeps (Microsoft, "Excel specifications and limits": number precision 15 digits);
      longer values stay text so no digit is lost.
    - ``code`` / ``tax_id`` / ``text`` / ``currency`` fields: text, always. An invoice code such as
      ``012001800311`` keeps its leading zero and a 20-digit check code never becomes a float; the
      cells also get the ``@`` (text) number format so editing them in Excel keeps them text.

    A field without a normalised value but with printed text (``raw``) shows that text, so what was read
    is never hidden; its problem is listed in ``Problems``.

    ``Line items``: one row per line item with the document's source, pages and invoice number (for
    e-invoices the XML's lines: line ID, parent line ID, unit code, price basis quantity, gross price as
    well). ``Tax by rate`` (only when some document carries e-invoice data with a VAT breakdown,
    ``Document.extras["tax_breakdown"]``): one row per rate with category, rate, taxable amount, tax and
    exemption reason; the Documents sheet and the CSV then have a *Tax by rate* column summing it up.
    ``Problems``: one row per field to check (document, field, why: the failed check, "confidence 86%,
    below the 93% needed to pass unchecked" or "empty"; :func:`desktop.core.flags.flag_reason`),
    exactly the fields the app tints; a check's finding several fields share (a failed ``subtotal + tax =
    total``) is one row naming them all ("Subtotal, Tax, Total"), not one identical row per field; on a
    document marked reviewed, where none is left to check, the fields extraction had flagged, each said to
    be checked by the clerk (``FIELD_REVIEWED``, with the reason it was flagged); plus unreadable files,
    every page whose content is lost or may be lost (:meth:`~desktop.core.model.Document.lost_pages`: a
    page the engine could not read, a damaged PDF's page whose repair lost its content) and cells that had
    to be cut. ``Tables`` (only when some document carries HTML tables, as HunyuanOCR's table and
    markdown tasks give): each table parsed into rows (``colspan``/``rowspan`` laid out on a grid),
    one block per table headed by its source and page.

    Safety: every string is stored as a string (``t="s"``), never as a formula or an error value, even
    when it begins with ``=``; strings beginning with ``= + - @``, tab or CR also get Excel's
    ``quotePrefix`` style so Excel keeps them text when the user edits the cell (OWASP, "CSV Injection").
    Characters an XML 1.0 worksheet cannot hold (C0 controls except tab/LF/CR, lone surrogates,
    U+FFFE/U+FFFF) are removed. Text over Excel's 32,767-character cell limit (Microsoft, "Excel
    specifications and limits", counted in UTF-16 code units) is cut, with a cell comment and a row in
    ``Problems``.

CSV
    One row per document with the same columns as the ``Documents`` sheet, values as in JSON (ISO dates,
    decimal strings), UTF-8 with a byte order mark so Excel opens Chinese text correctly, RFC 4180 quoting
    and CRLF line ends. The same characters as in Excel are removed. Cells beginning with ``= + - @``, tab or CR get a leading ``'`` so a spreadsheet
    does not run them as formulas (OWASP, "CSV Injection"); plain numbers such as ``-12.50`` are left
    alone, since a number cannot run anything. Note: spreadsheet programs opening a CSV may still turn
    long digit strings (invoice codes) into numbers; use the .xlsx export for Excel.

Languages
---------
The spreadsheets (xlsx, CSV) are written in English (``language="en"``, the default, the words above) or
Simplified Chinese (``"zh"``; a locale name such as ``zh_CN`` is taken too): sheet names (单据, 明细,
分税率汇总, 表格, 问题), column headers, status words (已审核 / 未审核 / 错误：...), duplicate notes and
the Problems sheet's phrases from :mod:`desktop.core.export_words`; field labels and document type names
from ``resources/doctypes`` (``label_for``: the labels the GUI's form shows; a Problems row names a field
as its document's type words it, a receipt's 商家名称); every message (errors, page warnings, field
problems, why a field is flagged, duplicate reasons) rendered from :data:`desktop.core.diagnostics.CATALOGUE`
in the language. Values (amounts, dates, codes, names, file names) and their Excel types and number formats
are the same in both. JSON is the same in every language (its keys are the schema; its ``message`` texts
are English).

Atomic writes
-------------
Every writer writes to a temporary file in the destination folder, flushes and ``fsync``\\ s it, then
``os.replace``\\ s it over the destination: the destination is either the old file or the complete new
one. On any failure the temporary file is removed, the destination is untouched, and
:class:`ExportError` is raised with a message naming the file and the reason.
"""
from __future__ import annotations

import csv
import datetime as dt
import errno
import io
import json
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any

from desktop.core import flags
from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.doctypes import canonical_fields, document_types
from desktop.core.export_words import EXPORT_LANGUAGES, export_language, item_key_label, word
from desktop.core.model import Document, ScanResult

__all__ = [
    "check_writable",
    "EXPORT_LANGUAGES",
    "EXPORT_SUFFIXES",
    "ExportError",
    "export",
    "export_csv",
    "export_json",
    "export_xlsx",
    "parse_html_tables",
    "tax_rates_text",
    "write_failure",
]

EXPORT_SUFFIXES = (".xlsx", ".csv", ".json")
"""Suffixes :func:`export` understands, for file dialogs and the command line."""

EXCEL_CELL_LIMIT = 32_767
"""Most characters (UTF-16 code units) one Excel cell holds (Microsoft, "Excel specifications and limits")."""

EXCEL_DIGITS = 15
"""Significant decimal digits Excel keeps in a number (Microsoft, "Excel specifications and limits")."""

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat a cell as a formula (OWASP, "CSV Injection")."""

# Characters XML 1.0 forbids (openpyxl.cell.cell.ILLEGAL_CHARACTERS_RE covers the C0 controls; lone
# surrogates cannot be encoded as UTF-8 and U+FFFE/U+FFFF are XML non-characters).
_XML_ILLEGAL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_PLAIN_NUMBER_RE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
_TIME_RE = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")

LEADING_COLUMNS = ("Source file", "Pages", "Document type", "Status", "Fields to check", "Duplicate of")

# Line-item keys the extraction gives, in column order, with the ones that hold numbers.
_ITEM_KEY_ORDER = ("line_id", "parent_line_id", "description", "quantity", "unit", "unit_code", "unit_price",
                   "price_basis_quantity", "gross_unit_price", "amount", "tax_rate", "tax")
_ITEM_NUMBER_KEYS = {"quantity": "General", "unit_price": "0.00", "amount": "0.00", "tax": "0.00",
                     "price": "0.00", "total": "0.00", "gross_unit_price": "0.00", "price_basis_quantity": "General"}

_MAX_SPAN = 1000  # colspan/rowspan cap for HTML tables from a model (a bad value must not explode memory)


class ExportError(Exception):
    """A file could not be written.

    Attributes:
        path: the destination asked for.
        diagnostic: why, as a diagnostic (an ``EXPORT_*`` code), worded in either language.
        reason: why, in English words (``permission denied``, ``the folder /x does not exist``, ...).

    ``str()`` is ``Could not write <path>: <reason>``.
    """

    def __init__(self, path: str | os.PathLike[str], reason: Diagnostic | str) -> None:
        self.path = os.fspath(path)
        self.diagnostic = reason if isinstance(reason, Diagnostic) else diag(Code.EXPORT_OS_ERROR, detail=reason)
        self.reason = self.diagnostic.message("en")
        super().__init__(f"Could not write {self.path}: {self.reason}")


# --------------------------------------------------------------------------------------------------
# Public entry points


def export(documents: Sequence[Document], path: str | os.PathLike[str], *, language: str = "en") -> None:
    """Write ``documents`` in the format named by ``path``'s suffix (``.json``, ``.xlsx``, ``.csv``).

    Args:
        documents: the documents, in row order.
        path: the file to write.
        language: the language of the xlsx and CSV words (``en`` or ``zh``, or a locale name such as
            ``zh_CN``; see "Languages" in the module docstring); JSON is the same in every language.

    Raises:
        ValueError: an unknown ``language``.
        ExportError: unknown suffix, or the file could not be written.
    """
    language = export_language(language)
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        export_json(documents, path)
        return
    writers = {".xlsx": export_xlsx, ".csv": export_csv}
    if suffix not in writers:
        raise ExportError(path, diag(Code.EXPORT_UNKNOWN_TYPE, suffix=suffix) if suffix else diag(Code.EXPORT_NO_SUFFIX))
    writers[suffix](documents, path, language=language)


def export_json(documents: Sequence[Document], path: str | os.PathLike[str]) -> None:
    """Write the full result as JSON (UTF-8, :class:`~desktop.core.model.ScanResult` schema).

    Raises:
        ExportError: the file could not be written.
    """
    def write(fh: IO[bytes]) -> None:
        # A lone surrogate (broken OCR text) becomes a \uXXXX escape, which is still valid JSON.
        fh.write((ScanResult(list(documents)).to_json() + "\n").encode("utf-8", "backslashreplace"))

    _atomic_write(path, write)


def export_csv(documents: Sequence[Document], path: str | os.PathLike[str], *, language: str = "en") -> None:
    """Write one row per document (the ``Documents`` sheet's columns) as UTF-8 CSV with a BOM, its
    headers and words in ``language`` (``en`` / ``zh``).

    Raises:
        ValueError: an unknown ``language``.
        ExportError: the file could not be written.
    """
    language = export_language(language)

    def write(fh: IO[bytes]) -> None:
        columns = _document_columns(documents, language)
        buf = io.StringIO(newline="")
        writer = csv.writer(buf, lineterminator="\r\n")
        writer.writerow([c.header for c in columns])
        for doc in documents:
            writer.writerow([_csv_safe(_plain_cell(doc, c, language)) for c in columns])
        fh.write(buf.getvalue().encode("utf-8-sig"))

    _atomic_write(path, write)


def export_xlsx(documents: Sequence[Document], path: str | os.PathLike[str], *, language: str = "en") -> None:
    """Write an Excel workbook (sheets ``Documents``, ``Line items``, ``Problems``, maybe ``Tax by rate``
    and ``Tables``), its sheet names, headers and words in ``language`` (``en`` / ``zh``).

    Raises:
        ValueError: an unknown ``language``.
        ExportError: the file could not be written.
    """
    language = export_language(language)
    _atomic_write(path, lambda fh: fh.write(_workbook_bytes(documents, language)))


def _workbook_bytes(documents: Sequence[Document], language: str = "en") -> bytes:
    """The .xlsx file in memory. openpyxl writes through a ``ZipFile``: when the disk fills up under
    it, the half-written archive's ``__del__`` later prints "Exception ignored ... seek of closed
    file" on stderr; building the file in memory first leaves the disk write (and its one clear
    error) to :func:`_atomic_write`."""
    buf = io.BytesIO()
    _build_workbook(documents, language).save(buf)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------------
# Columns shared by the Documents sheet and the CSV


@dataclass(frozen=True)
class _Column:
    header: str
    kind: str  # "source" | "pages" | "type" | "status" | "problems" | "duplicate" | "field"
    field: str | None = None
    type: str = "text"  # the canonical field type for field columns


def _document_columns(documents: Iterable[Document], language: str = "en") -> list[_Column]:
    specs = canonical_fields()
    cols = [
        _Column(word("Source file", language), "source"),
        _Column(word("Pages", language), "pages"),
        _Column(word("Document type", language), "type"),
        _Column(word("Status", language), "status"),
        _Column(word("Problems column", language), "problems"),
        _Column(word("Duplicate of", language), "duplicate"),
    ]
    cols += [_Column(spec.label_for(language), "field", spec.name, spec.type) for spec in specs.values()]
    extra: list[str] = []
    for doc in documents:
        for name in doc.fields:
            if name not in specs and name not in extra:
                extra.append(name)
    cols += [_Column(name, "field", name, "text") for name in extra]
    if any(doc.extras.get("tax_breakdown") for doc in documents):
        cols.append(_Column(word("Tax by rate", language), "tax_rates"))
    return cols


def tax_rates_text(doc: Document, language: str = "en") -> str | None:
    """A document's per-rate tax (``extras["tax_breakdown"]``, from e-invoice data) as one cell:
    ``"19%: tax 160.55 on 845.00; 7%: tax 3.50 on 50.00"`` (a category code in brackets where the
    rate is 0 or absent, e.g. ``"0% (AE): tax 0.00 on 100.00"``); in Chinese
    ``"19%：税额 160.55，计税金额 845.00；7%：…"``."""
    parts = []
    for row in doc.extras.get("tax_breakdown") or []:
        if not isinstance(row, dict):
            continue
        rate = row.get("rate")
        label = f"{rate}%" if rate and str(rate)[0].isdigit() else str(rate or "")
        if row.get("category") and (not rate or str(rate) in ("0", "0.00")):
            label = f"{label} ({row['category']})".strip()
        text = word("{rate}: tax {tax}", language, rate=label, tax=row.get("tax") or "-")
        if row.get("basis"):
            text += word(" on {basis}", language, basis=row["basis"])
        parts.append(text)
    return ("；" if language == "zh" else "; ").join(parts) or None


def _pages_text(doc: Document) -> str:
    first, last = doc.pages
    return str(first) if first == last else f"{first}-{last}"


def _type_label(name: str | None, language: str = "en") -> str:
    if not name:
        return ""
    dtype = document_types().get(name)
    return dtype.label_for(language) if dtype else name


def _field_labels(document_type: str | None, language: str) -> dict[str, str]:
    """Field labels for a document's Problems rows: the canonical labels, worded as its type words them
    (``DocumentType.field_specs``: a receipt's 商家名称 where the canonical label says 销售方名称)."""
    labels = {name: spec.label_for(language) for name, spec in canonical_fields().items()}
    dtype = document_types().get(document_type or "")
    if dtype is not None:
        labels.update({spec.name: spec.label_for(language) for spec in dtype.field_specs()})
    return labels


def _page_errors(doc: Document, language: str = "en") -> list[tuple[int, str]]:
    """``(page number, message)`` of every page whose content is lost or may be lost
    (:meth:`~desktop.core.model.Document.lost_pages`: it could not be read, or a damaged PDF lost part or all
    of it), so no lost page is silent; the message without the page, which the Problems sheet's column names."""
    out = []
    for lost in doc.lost_pages():
        inner = lost.params.get("warning") if lost.code is Code.PAGE_CONTENT_LOST else None
        out.append((lost.page or 0, inner.message(language) if isinstance(inner, Diagnostic) else lost.message(language)))
    return out


def _status(doc: Document, language: str = "en") -> str:
    if doc.error:
        return word("Error: {}", language, doc.error.message(language))
    lost = doc.lost_pages()
    if lost:  # each message names its page
        return word("Error: {}", language, ("；" if language == "zh" else "; ").join(d.message(language) for d in lost))
    return word("Reviewed" if doc.reviewed else "Not reviewed", language)


def _field_text(doc: Document, name: str) -> str | None:
    f = doc.fields.get(name)
    if f is None:
        return None
    value = f.value if f.value is not None else f.raw
    return None if value is None else str(value)


def _duplicate_earlier(mark: dict[str, Any], language: str) -> str:
    """The earlier document of a duplicate mark: ``"<source> p. <pages>"``."""
    first, last = (list(mark.get("pages") or [1, 1]) + [1, 1])[:2]
    pages = str(first) if first == last else f"{first}-{last}"
    return word("{source} p. {pages}", language, source=mark.get("source"), pages=pages)


def _duplicate_text(doc: Document, language: str = "en") -> str | None:
    """``"<earlier source> p. <pages> (<reason>)"`` for a possible duplicate (``Document.duplicate_of``);
    in Chinese ``"<earlier source> 第 <pages> 页（<reason>）"``, the reason worded from its code
    (:func:`desktop.core.duplicates.reason_of`)."""
    mark = doc.duplicate_of
    if not mark:
        return None
    if language == "zh":
        from desktop.core.duplicates import reason_of

        return f"{_duplicate_earlier(mark, language)}（{reason_of(mark).message(language)}）"
    return f"{_duplicate_earlier(mark, language)} ({mark.get('reason')})"


def _duplicate_problem(doc: Document, language: str) -> str:
    """The Problems row of a possible duplicate: ``possible duplicate of <earlier> (<reason>)``."""
    if language == "zh":
        # duplicates (rapidfuzz, hashlib) only here: `shoebox scan` imports this module for its output
        # checks before it starts the engine's worker, and that start is the scan's critical path
        from desktop.core.duplicates import reason_of

        mark = doc.duplicate_of or {}
        return diag(Code.POSSIBLE_DUPLICATE, source=_duplicate_earlier(mark, language), reason=reason_of(mark)).message(language)
    return f"possible duplicate of {_duplicate_text(doc, language)}"


def _plain_cell(doc: Document, col: _Column, language: str = "en") -> str | int | None:
    """The value of a column as JSON has it (text / int), its words in ``language``, for the CSV."""
    if col.kind == "source":
        return doc.source
    if col.kind == "pages":
        return _pages_text(doc)
    if col.kind == "type":
        return _type_label(doc.document_type, language)
    if col.kind == "status":
        return _status(doc, language)
    if col.kind == "problems":
        return len(flags.flagged_fields(doc))
    if col.kind == "duplicate":
        return _duplicate_text(doc, language)
    if col.kind == "tax_rates":
        return tax_rates_text(doc, language)
    return _field_text(doc, col.field or "")


def _csv_safe(value: str | int | None) -> str:
    """Text for a CSV cell; formula-looking text gets a leading ``'`` (OWASP, "CSV Injection")."""
    if value is None:
        return ""
    text = _clean(str(value))
    if text.startswith(FORMULA_TRIGGERS) and not _PLAIN_NUMBER_RE.fullmatch(text):
        return "'" + text
    return text


# --------------------------------------------------------------------------------------------------
# Excel values


def _clean(text: str) -> str:
    """Remove characters an XML worksheet cannot hold (see module docstring)."""
    return _XML_ILLEGAL_RE.sub("", text)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _cut_to_limit(text: str, limit: int = EXCEL_CELL_LIMIT) -> str:
    """``text`` cut to at most ``limit`` UTF-16 code units, never splitting a surrogate pair."""
    if len(text) <= limit // 2 or _utf16_len(text) <= limit:
        return text
    out, used = [], 0
    for ch in text:
        n = 2 if ord(ch) > 0xFFFF else 1
        if used + n > limit:
            break
        out.append(ch)
        used += n
    return "".join(out)


def _to_date(value: str) -> dt.date | None:
    try:
        d = dt.date.fromisoformat(value.strip())
    except ValueError:
        return None
    return d if d >= dt.date(1900, 3, 1) else None


def _to_time(value: str) -> tuple[dt.time, str] | None:
    m = _TIME_RE.fullmatch(value.strip())
    if not m:
        return None
    h, mi, s = int(m.group(1)), int(m.group(2)), m.group(3)
    try:
        t = dt.time(h, mi, int(s) if s else 0)
    except ValueError:
        return None
    return t, ("hh:mm:ss" if s else "hh:mm")


def _to_number(value: Any, min_decimals: int = 2) -> tuple[float | int, str] | None:
    """A decimal string (or number) as an Excel number and its number format, or ``None``.

    ``None`` when it is not a finite decimal or has more significant digits than Excel keeps.
    """
    if isinstance(value, bool):
        return None
    try:
        d = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite():
        return None
    sign, digits, exponent = d.as_tuple()
    if len(digits) > EXCEL_DIGITS or abs(d.adjusted()) > 300:
        return None
    decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    if min_decimals == 0:
        fmt = "General"
        number: float | int = int(d) if decimals == 0 else float(d)
        return number, fmt
    decimals = min(max(decimals, min_decimals), 10)
    return float(d), "0." + "0" * decimals


class _Sheet:
    """A worksheet being filled row by row, with text safety, problems and column widths."""

    def __init__(self, ws: Any, problems: list[tuple[str, str, str, str]], language: str = "en") -> None:
        self.ws = ws
        self.problems = problems  # (source, pages, field label, message) rows for the Problems sheet
        self.language = language  # of the notes it writes (a cell cut at Excel's limit)
        self.widths: dict[int, float] = {}
        self.row = 0

    def header(self, labels: Sequence[str]) -> None:
        from openpyxl.styles import Font

        self.row += 1
        bold = Font(bold=True)
        for col, label in enumerate(labels, start=1):
            cell = self.put(self.row, col, label)
            cell.font = bold

    def put(self, row: int, col: int, value: Any, *, kind: str = "text", number_format: str | None = None,
            where: tuple[str, str, str] | None = None) -> Any:
        """Write one cell. ``kind``: ``text`` (always a string), ``code`` (a string with the ``@`` format),
        ``date``, ``time``, ``amount``, ``int``. A value that does not fit its kind is written as text.
        ``where`` = (source, pages, column label) names the cell in a Problems row when text is cut."""
        from openpyxl.comments import Comment

        cell = self.ws.cell(row=row, column=col)
        if value is None or value == "":
            if kind == "code":
                cell.number_format = "@"
            return cell
        if kind == "date" and isinstance(value, str) and (d := _to_date(value)) is not None:
            cell.value = d
            cell.number_format = "yyyy-mm-dd"
            self._width(col, 11)
            return cell
        if kind == "time" and isinstance(value, str) and (t := _to_time(value)) is not None:
            cell.value, cell.number_format = t
            self._width(col, 9)
            return cell
        if kind in ("amount", "number", "int") and (
            n := _to_number(value, min_decimals=2 if kind == "amount" else 0)
        ) is not None:
            cell.value, fmt = n
            cell.number_format = number_format or fmt
            self._width(col, len(str(value)) + 2)
            return cell
        # Everything else is text: set the value, then force the string type so openpyxl never writes a
        # formula (leading "=") or an error value ("#N/A").
        text = _clean(str(value))
        if _utf16_len(text) > EXCEL_CELL_LIMIT:
            full = _utf16_len(text)
            text = _cut_to_limit(text)
            note = word("text cut from {full} to {limit} characters (the most an Excel cell holds); the JSON export has all of it",
                        self.language, full=f"{full:,}", limit=f"{EXCEL_CELL_LIMIT:,}")
            cell.comment = Comment(note, "Shoebox")
            if where is not None:
                self.problems.append((where[0], where[1], where[2], note))
        cell.value = text
        cell.data_type = "s"
        if text.startswith(FORMULA_TRIGGERS):
            cell.quotePrefix = True
        if kind == "code":
            cell.number_format = "@"
        self._width(col, _display_width(text))
        return cell

    def _width(self, col: int, width: float) -> None:
        if width > self.widths.get(col, 0):
            self.widths[col] = width

    def finish(self, *, autofilter: bool = True, min_width: float = 8, max_width: float = 60) -> None:
        from openpyxl.utils import get_column_letter

        ws = self.ws
        for col, width in self.widths.items():
            ws.column_dimensions[get_column_letter(col)].width = max(min_width, min(max_width, width + 2))
        ws.freeze_panes = "A2"
        if autofilter and ws.max_column >= 1 and self.row >= 1:
            ws.auto_filter.ref = f"A1:{get_column_letter(ws.max_column)}{max(ws.max_row, 1)}"


def _display_width(text: str) -> float:
    """Rough width in Excel character units of the longest line (East Asian wide characters count 2)."""
    longest = 0.0
    for line in text.splitlines() or [""]:
        if len(line) > 200:  # far past the cap; no need to measure
            return 200
        w = sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in line)
        longest = max(longest, w)
    return longest


_KIND_BY_FIELD_TYPE = {"date": "date", "time": "time", "amount": "amount", "code": "code", "tax_id": "code",
                       "text": "text", "currency": "text"}


def _field_problems(doc: Document, labels: dict[str, str], language: str) -> list[tuple[str, str]]:
    """``(field labels, message)`` Problems rows of a document's flagged fields: one row per field with
    its reasons, except that a check's finding several fields share (a failed ``subtotal + tax = total``
    flags the subtotal, the tax and the total alike) is one row naming them all ("Subtotal, Tax, Total"),
    at the place of the first of them, and is not repeated in each field's own row; a field whose every
    reason is shared has no row of its own. Two empty or unsure fields are two problems: a row each."""
    keys = flags.document_key_fields(doc)
    to_check = flags.flagged_fields(doc)
    per_field: list[tuple[str, list[str]]] = []
    holders: dict[str, list[str]] = {}
    for name in flags.flagged_before_review(doc):
        f = doc.fields.get(name)
        reasons = flags.flag_diagnostics(f, name in keys) if f is not None else [diag(Code.FIELD_EMPTY_KEY)]
        if name not in to_check:  # a reviewed document: the clerk checked what extraction flagged
            reasons = [diag(Code.FIELD_REVIEWED, flagged=reasons)]
        messages = list(dict.fromkeys(d.message(language) for d in reasons))
        label = labels.get(name, name)
        per_field.append((label, messages))
        if f is not None and f.problems:  # a check's finding; an empty or unsure field is a problem of its own
            for m in messages:
                holders.setdefault(m, []).append(label)
    sep, comma = ("；", "、") if language == "zh" else ("; ", ", ")
    rows: list[tuple[str, str]] = []
    done: set[str] = set()
    for label, messages in per_field:
        own = [m for m in messages if len(holders.get(m, ())) < 2]
        for m in messages:
            if len(holders.get(m, ())) > 1 and m not in done:
                done.add(m)
                rows.append((comma.join(holders[m]), m))
        if own:
            rows.append((label, sep.join(own)))
    return rows


def _build_workbook(documents: Sequence[Document], language: str = "en") -> Any:
    from openpyxl import Workbook

    def w(english: str, *args: object) -> str:
        return word(english, language, *args)

    wb = Workbook()
    problems: list[tuple[str, str, str, str]] = []

    # Documents
    docs_ws = wb.active
    docs_ws.title = w("Documents")
    sheet = _Sheet(docs_ws, problems, language)
    columns = _document_columns(documents, language)
    sheet.header([c.header for c in columns])
    for doc in documents:
        sheet.row += 1
        pages = _pages_text(doc)
        labels = _field_labels(doc.document_type, language)
        if doc.error:
            problems.append((doc.source, pages, "", w("could not be read: {}", doc.error.message(language))))
        for number, message in _page_errors(doc, language):
            problems.append((doc.source, pages, w("page {}", number), message))
        for note in doc.notes:  # nothing read on any page: no type, no field, so no field row says it
            if note.code is Code.NO_TEXT_IN_DOCUMENT and not doc.reviewed:
                problems.append((doc.source, pages, "", note.message(language)))
        problems.extend((doc.source, pages, label, message) for label, message in _field_problems(doc, labels, language))
        if doc.duplicate_of:
            problems.append((doc.source, pages, "", _duplicate_problem(doc, language)))
        for col_no, col in enumerate(columns, start=1):
            where = (doc.source, pages, col.header)
            if col.kind == "field":
                sheet.put(sheet.row, col_no, _field_text(doc, col.field or ""),
                          kind=_KIND_BY_FIELD_TYPE.get(col.type, "text"), where=where)
            elif col.kind == "problems":
                sheet.put(sheet.row, col_no, len(flags.flagged_fields(doc)), kind="int")
            elif col.kind == "pages":  # a number for one page, "2-3" for a range
                sheet.put(sheet.row, col_no, pages, kind="int")
            else:
                sheet.put(sheet.row, col_no, _plain_cell(doc, col, language), where=where)
    sheet.finish()

    # Line items
    items_ws = wb.create_sheet(w("Line items"))
    sheet = _Sheet(items_ws, problems, language)
    item_keys = _item_keys(documents)
    number_label = canonical_fields()["invoice_number"].label_for(language)
    sheet.header([w("Source file"), w("Pages"), number_label] + [item_key_label(k, language) for k in item_keys])
    for doc in documents:
        pages = _pages_text(doc)
        for item in doc.line_items:
            sheet.row += 1
            sheet.put(sheet.row, 1, doc.source)
            sheet.put(sheet.row, 2, pages, kind="int")
            sheet.put(sheet.row, 3, _field_text(doc, "invoice_number"), kind="code")
            for offset, key in enumerate(item_keys, start=4):
                value = item.get(key) if isinstance(item, dict) else None
                if isinstance(value, (dict, list)):
                    value = json.dumps(value, ensure_ascii=False)
                fmt = _ITEM_NUMBER_KEYS.get(key)
                kind = ("amount" if fmt == "0.00" else "number") if fmt else "text"
                sheet.put(sheet.row, offset, value, kind=kind,
                          where=(doc.source, pages, w("line item {}", item_key_label(key, language))))
    sheet.finish()

    # Tax by rate (only when some document has a per-rate breakdown: e-invoice data)
    if any(doc.extras.get("tax_breakdown") for doc in documents):
        rates_ws = wb.create_sheet(w("Tax by rate"))
        sheet = _Sheet(rates_ws, problems, language)
        sheet.header([w("Source file"), w("Pages"), number_label, w("Category"), w("Rate"), w("Taxable amount"), w("Tax"),
                      w("Exemption reason")])
        for doc in documents:
            pages = _pages_text(doc)
            for row in doc.extras.get("tax_breakdown") or []:
                if not isinstance(row, dict):
                    continue
                sheet.row += 1
                where = (doc.source, pages, w("tax by rate"))
                sheet.put(sheet.row, 1, doc.source)
                sheet.put(sheet.row, 2, pages, kind="int")
                sheet.put(sheet.row, 3, _field_text(doc, "invoice_number"), kind="code")
                sheet.put(sheet.row, 4, row.get("category"), where=where)
                sheet.put(sheet.row, 5, row.get("rate"), where=where)
                sheet.put(sheet.row, 6, row.get("basis"), kind="amount", where=where)
                sheet.put(sheet.row, 7, row.get("tax"), kind="amount", where=where)
                sheet.put(sheet.row, 8, row.get("exemption"), where=where)
        sheet.finish()

    # Tables (only when some document has any)
    if any(doc.tables for doc in documents):
        tables_ws = wb.create_sheet(w("Tables"))
        _fill_tables(_Sheet(tables_ws, problems, language), documents)

    # Problems (last, so it also lists the cells cut above)
    problems_ws = wb.create_sheet(w("Problems"))
    sheet = _Sheet(problems_ws, problems=[], language=language)
    sheet.header([w("Source file"), w("Pages"), w("Field"), w("Message")])
    for source, pages, field_label, message in problems:
        sheet.row += 1
        for col_no, value in enumerate((source, pages, field_label, message), start=1):
            sheet.put(sheet.row, col_no, value, kind="int" if col_no == 2 else "text")
    sheet.finish()
    return wb


def _item_keys(documents: Iterable[Document]) -> list[str]:
    seen: list[str] = []
    for doc in documents:
        for item in doc.line_items:
            if isinstance(item, dict):
                for key in item:
                    if key not in seen:
                        seen.append(str(key))
    known = [k for k in _ITEM_KEY_ORDER if k in seen]
    return known + [k for k in seen if k not in known]


def _fill_tables(sheet: _Sheet, documents: Sequence[Document]) -> None:
    from openpyxl.styles import Font

    bold = Font(bold=True)
    sheet.row = 0
    first_block = True
    for doc in documents:
        for t_no, table in enumerate(doc.tables, start=1):
            page = table.get("page") if isinstance(table, dict) else None
            html = table.get("html", "") if isinstance(table, dict) else str(table)
            parsed = parse_html_tables(html or "")
            blocks = parsed if parsed else [[[html]]] if html and html.strip() else []
            for b_no, rows in enumerate(blocks, start=1):
                if not first_block:
                    sheet.row += 1  # blank row between blocks
                first_block = False
                sheet.row += 1
                title = word("Table {}", sheet.language, f"{t_no}" + (f".{b_no}" if len(blocks) > 1 else ""))
                for col, value in enumerate(
                    (doc.source, word("Page {}", sheet.language, page) if page is not None else "", title), start=1
                ):
                    sheet.put(sheet.row, col, value).font = bold
                where = (doc.source, _pages_text(doc), title)
                for cells in rows:
                    sheet.row += 1
                    for col, value in enumerate(cells, start=1):
                        sheet.put(sheet.row, col, value or None, where=where)
    sheet.finish(autofilter=False)
    sheet.ws.freeze_panes = None


# --------------------------------------------------------------------------------------------------
# HTML tables


class _TableParser(HTMLParser):
    """Collects the top-level ``<table>`` elements of an HTML fragment as rows of cells.

    A cell is ``(text, colspan, rowspan)``; tables nested in a cell add their text to that cell.
    ``<br>`` and block ends inside a cell become line breaks.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[tuple[str, int, int]]]] = []
        self.depth = 0
        self.row: list[tuple[str, int, int]] | None = None
        self.cell: list[str] | None = None
        self.spans = (1, 1)

    @staticmethod
    def _span(attrs: list[tuple[str, str | None]], name: str) -> int:
        for key, value in attrs:
            if key == name and value:
                try:
                    return max(1, min(_MAX_SPAN, int(value.strip())))
                except ValueError:
                    return 1
        return 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.tables.append([])
            elif self.cell is not None:
                self.cell.append("\n")
            return
        if self.depth != 1:
            if tag in ("tr", "br") and self.cell is not None:
                self.cell.append("\n")
            elif tag in ("td", "th") and self.cell is not None:
                self.cell.append(" ")
            return
        if tag == "tr":
            self._end_row()
            self.row = []
        elif tag in ("td", "th"):
            self._end_cell()
            if self.row is None:
                self.row = []
            self.cell = []
            self.spans = (self._span(attrs, "colspan"), self._span(attrs, "rowspan"))
        elif tag == "br" and self.cell is not None:
            self.cell.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            if self.depth == 1:
                self._end_row()
            self.depth = max(0, self.depth - 1)
            return
        if self.depth != 1:
            return
        if tag in ("td", "th"):
            self._end_cell()
        elif tag == "tr":
            self._end_row()
        elif tag in ("p", "div", "li") and self.cell is not None:
            self.cell.append("\n")

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def _end_cell(self) -> None:
        if self.cell is not None and self.row is not None:
            lines = [" ".join(part.split()) for part in "".join(self.cell).split("\n")]
            text = "\n".join(line for line in lines if line)
            self.row.append((text, *self.spans))
        self.cell = None

    def _end_row(self) -> None:
        self._end_cell()
        if self.row is not None and self.tables:
            self.tables[-1].append(self.row)
        self.row = None


def parse_html_tables(html: str) -> list[list[list[str]]]:
    """Parse the top-level ``<table>`` elements of an HTML fragment into grids of cell text.

    ``colspan``/``rowspan`` cells are placed on a grid (the text in the top-left cell of the span, the
    other cells of the span empty), so columns line up as they do on the page.

    Args:
        html: HTML text, as HunyuanOCR writes tables (possibly inside markdown).

    Returns:
        One list of rows per table; each row a list of cell strings, all rows of a table padded to the
        same length. Empty when the text holds no table.
    """
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    parser._end_row()
    grids: list[list[list[str]]] = []
    for rows in parser.tables:
        grid: dict[tuple[int, int], str] = {}
        width = 0
        for r, cells in enumerate(rows):
            c = 0
            for text, colspan, rowspan in cells:
                while (r, c) in grid:
                    c += 1
                for dr in range(rowspan):
                    for dc in range(colspan):
                        grid[(r + dr, c + dc)] = text if dr == dc == 0 else ""
                c += colspan
                width = max(width, c)
        height = max((r for r, _ in grid), default=-1) + 1
        if height == 0:
            continue
        grids.append([[grid.get((r, c), "") for c in range(width)] for r in range(height)])
    return grids


# --------------------------------------------------------------------------------------------------
# Atomic writing


def _on_windows() -> bool:
    return os.name == "nt"


def _missing_folder(folder: Path) -> Diagnostic:
    """The folder to write into is not there: missing, or a file stands where it (or a folder above it)
    should be (``…/receipt.jpg/out.xlsx``)."""
    for part in (folder, *folder.parents):
        if part.exists():
            if not part.is_dir():
                return diag(Code.EXPORT_NOT_A_FOLDER, folder=str(folder), file=str(part))
            break
    return diag(Code.EXPORT_NO_FOLDER, folder=str(folder))


def _destination(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """``(file, folder)`` of a destination to write.

    Raises:
        ExportError: it is a folder, or its folder is not there (:func:`_missing_folder`).
    """
    dest = Path(path)
    if dest.is_dir():
        raise ExportError(path, diag(Code.EXPORT_IS_FOLDER))
    if not dest.parent.is_dir():
        raise ExportError(path, _missing_folder(dest.parent))
    return dest, dest.parent


def write_failure(exc: OSError, path: str | os.PathLike[str], *, replacing: bool = False) -> Diagnostic:
    """Why writing ``path`` failed with ``exc``, as a diagnostic (an ``EXPORT_*`` code) in short words
    (``permission denied``, ``the disk is full``), for any file the app writes; ``replacing``: the
    error came when the finished file replaced the old one."""
    path = Path(path)
    if isinstance(exc, PermissionError):
        if replacing and _on_windows():
            # Windows refuses to replace a file another program (Excel) holds open.
            return diag(Code.EXPORT_FILE_OPEN)
        return diag(Code.EXPORT_PERMISSION)
    code = exc.errno
    if code == errno.ENOENT:
        if path.parent.is_dir():
            # e.g. /proc or a virtual file system: the folder is there but refuses new files.
            return diag(Code.EXPORT_FOLDER_REFUSES, folder=str(path.parent))
        return _missing_folder(path.parent)
    if code == errno.ENOTDIR:
        return _missing_folder(path.parent)
    words = {errno.EISDIR: Code.EXPORT_IS_FOLDER, errno.ENOSPC: Code.EXPORT_DISK_FULL,
             getattr(errno, "EDQUOT", -1): Code.EXPORT_QUOTA, errno.EROFS: Code.EXPORT_READ_ONLY,
             errno.ENAMETOOLONG: Code.EXPORT_NAME_TOO_LONG}
    if code in words:
        return diag(words[code])
    return diag(Code.EXPORT_OS_ERROR, detail=exc.strerror or str(exc))


def _umask() -> int:
    """The process umask, read without changing it where the platform allows (Linux /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Free space below which an output folder counts as full before a scan starts (one spreadsheet of a
#: few thousand documents is a few MiB).
MIN_FREE_BYTES = 4 * 1024 * 1024


def check_writable(path: str | os.PathLike[str]) -> None:
    """Check, before a long scan, that ``path`` can be written: its folder exists, a file can be
    created there (created and removed at once), and the disk has at least :data:`MIN_FREE_BYTES` free.

    Raises:
        ExportError: with the reason (a folder, a missing folder, permission denied, read-only disk,
            disk full), the same words :func:`export` would use an hour later.
    """
    dest, folder = _destination(path)
    try:
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{dest.name}.", suffix=".check")
        os.close(fd)
        os.unlink(tmp_name)
    except OSError as exc:
        raise ExportError(path, write_failure(exc, dest)) from exc
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return
    if free < MIN_FREE_BYTES:
        raise ExportError(path, diag(Code.EXPORT_DISK_FULL_FREE, free=free // 1024))


def _atomic_write(path: str | os.PathLike[str], write: Callable[[IO[bytes]], Any]) -> None:
    """Write a file through ``write(binary file object)`` atomically (see module docstring).

    The new file gets the old file's permission bits, or the usual ``0666 & ~umask`` for a new file
    (``mkstemp`` alone would leave it ``0600``).

    Raises:
        ExportError: the folder is missing, the destination is a folder, permission denied, disk full,
            the file is open in another program (Windows), or ``write`` failed.
    """
    dest, folder = _destination(path)
    try:
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{dest.name}.", suffix=".tmp")
    except OSError as exc:
        raise ExportError(path, write_failure(exc, dest)) from exc
    tmp = Path(tmp_name)
    stage = "write"
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if not _on_windows():
            try:
                mode = dest.stat().st_mode & 0o7777
            except OSError:
                mode = 0o666 & ~_umask()
            os.chmod(tmp, mode)
        stage = "replace"
        os.replace(tmp, dest)
    except BaseException as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise ExportError(path, write_failure(exc, dest, replacing=stage == "replace")) from exc
        if isinstance(exc, Exception):
            raise ExportError(path, diag(Code.EXPORT_WRITER_FAILED, detail=f"{type(exc).__name__}: {exc}")) from exc
        raise
    if not _on_windows():  # make the rename itself durable
        try:
            dir_fd = os.open(folder, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)
