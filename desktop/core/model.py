"""The result model: document -> pages -> lines (-> words), and the fields read from them.

Coordinate system
-----------------
Every box is ``(x0, y0, x1, y1)`` in **page pixels**: pixels of the page image as the user sees it,
upright, after EXIF orientation and after any rotation Shoebox applied to read it (``PageResult.rotation``),
but *before* any downscaling done to fit an engine's pixel budget. Origin top-left, x to the right,
y down, floats. For PDF pages, page pixels are PDF points scaled by ``PageResult.dpi / 72``.
A ``polygon`` is a list of ``(x, y)`` points in the same system (four corners clockwise from top-left
for PP-OCR).

JSON schema (``SCHEMA_VERSION``)
--------------------------------
``ScanResult.to_json()`` writes::

    {"schema_version": "2.3", "generator": "shoebox 0.1.0", "documents": [
      {"source": "<path>", "pages": [first, last], "document_type": "receipt", "error": null,
       "engine": "ppocr", "engine_version": "rapidocr 3.10.0 (PP-OCRv6_det_small + ...)", "reviewed": false,
       "notes": [],
       "fields": {"total": {"value": "12.50", "raw": "RM12.50", "confidence": 0.97, "page": 1,
                            "box": [x0, y0, x1, y1], "boxes": [[...]], "source": "ocr",
                            "problems": [], "edited": false,
                            "needs_review": false}, ...},
       "line_items": [{"description": ..., "quantity": ..., "unit_price": ..., "amount": ...}],
       "tables": [{"page": 1, "html": "<table>...</table>"}],
       "page_results": [{"number": 1, "width": 800, "height": 1200, "dpi": null, "rotation": 0,
                         "origin": "image", "warnings": [],
                         "lines": [{"text": ..., "box": [...], "confidence": 0.98,
                                    "polygon": [[x, y], ...] | null, "words": [...],
                                    "char_confidences": [0.99, ...] (when known)}]}],
       "duplicate_of": null | {"source": "<earlier path>", "pages": [first, last], "reason": "same file",
                        "reason_code": "duplicate_same_file"},
       "extras": {}}]}

``pages`` are 1-based page numbers within ``source``. ``value`` is the normalised value (amounts are
decimal strings with a dot and no thousands separator, dates ISO 8601 ``YYYY-MM-DD``, times ``HH:MM`` or
``HH:MM:SS``, currency ISO 4217), ``raw`` the text as printed. ``confidence`` is in [0, 1]: for values chosen by the field-scoring
model it is a calibrated probability that the value is right. ``needs_review`` is true when the clerk
should check the field (see :class:`Field`); ``review_threshold`` (optional, written when extraction
compared the confidence with one) is the confidence the value needed to pass unchecked.
``source`` says where the value came from: ``xml`` (the e-invoice's own XML: Factur-X/ZUGFeRD,
XRechnung/UBL/CII, a Chinese e-invoice's XML or OFD metadata), ``ofd_text`` (an OFD page's text
objects), ``qr`` (a QR code), ``text_layer`` (a PDF's text layer), ``ocr``, ``model`` (HunyuanOCR) or
``memory`` (the vendor memory, :mod:`desktop.core.memory`), ``inferred`` (not printed: a currency inferred
from the country the page points to, with ``raw`` null; see :mod:`desktop.core.extraction.country`) or
``user`` (typed by the clerk). The GUI's chips call them "e-invoice XML", "OFD text", "QR", "PDF text",
"OCR", "AI", "memory", "inferred" and "you".
``duplicate_of`` marks a possible duplicate of an earlier document (:mod:`desktop.core.duplicates`);
``extras["reading_reused_from"]`` names the file with the same bytes whose reading a document reuses
(it was not read by the engine again: ``desktop.core.duplicates.ReadingCache``).

Schema 1.1 (additive over 1.0, which this build still reads): the invoice fields ``invoice_type``,
``due_date``, ``amount_due``, ``buyer_address``, ``payment_terms`` and ``iban``; line items may carry
``line_id``, ``parent_line_id``, ``unit_code``, ``price_basis_quantity``, ``gross_unit_price``,
``tax_rate`` and ``tax`` (Chinese invoices: ``specification``, ``unit``, ``tax_rate`` such as ``"13%"`` or
``"免税"``, and ``tax_printed`` = ``"***"`` where a tax-exempt line prints no tax); ``extras["tax_breakdown"]`` lists the VAT breakdown of an
e-invoice
(``[{"category": "S", "rate": "19", "basis": "845.00", "tax": "160.55"}]``) and ``extras["einvoice"]``
says where its data came from (``syntax``, ``profile``, ``origin``, ``mismatches``: the fields whose
printed value disagrees with the data, and ``data``: the data itself). Page ``origin`` may be ``ofd``
(an OFD page, text from its page XML) or ``xml_view`` (a page generated to show an XML invoice).

``error`` (a document that could not be read), each entry of ``warnings`` (a page), ``problems`` (a field)
and ``notes`` (the document) is a diagnostic object (:mod:`desktop.core.diagnostics`)::

    {"code": "sum_mismatch", "severity": "warning", "message": "subtotal + tax ≠ total (...)",
     "page": null, "field": "total", "params": {...}}

``code`` is stable and says what happened; ``message`` is its English wording (not read back).

Schema 2.0 made ``error``, ``warnings``, ``problems`` and ``notes`` diagnostic objects (1.x wrote
English strings, and document notes under ``extras["notes"]``). Schema 2.1 added
``duplicate_of["reason_code"]`` (the duplicate rule as a diagnostic code; a 2.0 mark without it is read by
its ``reason``). Schema 2.2 repeats every page whose content is lost or may be lost (a page warning of
:func:`desktop.core.diagnostics.is_page_lost`) in the document's ``notes``, named with its page
(:meth:`Document.lost_pages`: code ``page_not_read``, or ``page_content_lost`` wrapping the page's warning), so
that a reader of the document level sees it beside the other problems; these notes are derived from
``page_results`` and dropped when read back (they are written again). Schema 2.3 added a field's optional
``review_threshold`` (the confidence its value needed to pass unchecked; a 2.2 field without it is read with
none, and its flag's reason then gives the confidence alone). This version reads 1.x and 2.x: a 1.x
string becomes a diagnostic of code ``text`` whose message is that string.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.diagnostics import CATALOGUE, Code, Diagnostic, Severity, as_diagnostic, diag, is_page_lost

SCHEMA_VERSION = "2.3"
#: Major schema versions this build reads (1.x: messages as strings; see the module docstring).
READABLE_MAJOR_VERSIONS = ("1", "2")

Box = tuple[float, float, float, float]
"""(x0, y0, x1, y1) in page pixels, x0 <= x1, y0 <= y1."""

Point = tuple[float, float]


def _box(value: Any) -> Box | None:
    if value is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in value)
    return (x0, y0, x1, y1)


def _required_box(value: Any) -> Box:
    box = _box(value)
    if box is None:
        raise ValueError("a box is required here")
    return box


def union_box(boxes: list[Box]) -> Box | None:
    """Smallest box holding every box in ``boxes``; ``None`` for an empty list."""
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def box_from_polygon(polygon: list[Point]) -> Box:
    """Axis-aligned bounding box of a polygon."""
    xs = [p[0] for p in polygon]
    ys = [p[1] for p in polygon]
    return (min(xs), min(ys), max(xs), max(ys))


@dataclass
class Word:
    """One word of a line (given by text-layer PDFs; engines may leave lines without words)."""

    text: str
    box: Box
    confidence: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "box": list(self.box), "confidence": round(self.confidence, 4)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Word:
        return cls(text=d["text"], box=_required_box(d["box"]), confidence=float(d.get("confidence", 1.0)))


@dataclass
class Line:
    """One line of text as an engine recognised it.

    Attributes:
        text: the recognised text.
        box: bounding box in page pixels (see module docstring).
        confidence: recognition confidence in [0, 1] (1.0 for PDF text layers).
        polygon: the engine's quadrilateral in page pixels, when it gives one.
        words: the words of the line, when known.
        char_confidences: the recogniser's probability of each character of ``text`` (same length as
            ``text``, each in [0, 1]), when the engine gives them (PP-OCR's CTC decoder: the probability
            at each kept step, as hOCR's ``x_confs``); ``None`` when unknown (text layers, VLM engines,
            or text edited after recognition). ``confidence`` is their mean for PP-OCR.
    """

    text: str
    box: Box
    confidence: float = 1.0
    polygon: list[Point] | None = None
    words: list[Word] = field(default_factory=list)
    char_confidences: list[float] | None = None

    def __post_init__(self) -> None:
        if self.char_confidences is not None and len(self.char_confidences) != len(self.text):
            self.char_confidences = None  # not aligned with the text: unknown rather than wrong

    def span_confidence(self, start: int, end: int) -> float:
        """The lowest character confidence of ``text[start:end]`` (the line's ``confidence`` when the
        characters' are unknown or the span holds none)."""
        chars = self.char_confidences
        if not chars:
            return float(self.confidence)
        part = [c for c, ch in zip(chars[start:end], self.text[start:end]) if not ch.isspace()]
        return float(min(part)) if part else float(self.confidence)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "box": [round(v, 2) for v in self.box],
            "confidence": round(float(self.confidence), 4),
            "polygon": [[round(x, 2), round(y, 2)] for x, y in self.polygon] if self.polygon else None,
            "words": [w.to_dict() for w in self.words],
            **({"char_confidences": [round(float(c), 4) for c in self.char_confidences]}
               if self.char_confidences is not None else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Line:
        poly = d.get("polygon")
        chars = d.get("char_confidences")
        return cls(
            text=d["text"],
            box=_required_box(d["box"]),
            confidence=float(d.get("confidence", 1.0)),
            polygon=[(float(x), float(y)) for x, y in poly] if poly else None,
            words=[Word.from_dict(w) for w in d.get("words", [])],
            char_confidences=[float(c) for c in chars] if isinstance(chars, list) else None,
        )


@dataclass
class PageResult:
    """What was read on one page.

    Attributes:
        number: 1-based page number within the source file (frame number for multi-frame TIFF).
        width, height: page size in page pixels.
        lines: recognised lines, in reading order (top to bottom, then left to right).
        dpi: for PDF pages, the resolution page pixels correspond to; ``None`` for images.
        rotation: clockwise degrees (0/90/180/270) the page pixels were turned to read them upright.
        origin: ``image`` (an image file), ``pdf_text`` (PDF text layer), ``pdf_image`` (a rasterised
            image-only PDF page), ``pdf_mixed`` (text layer plus OCR of the page's images), ``ofd``
            (an OFD page, text from its page XML) or ``xml_view`` (a generated view of an XML invoice).
        warnings: diagnostics about the page (downscaled, rotated, no text, ...).
    """

    number: int
    width: int
    height: int
    lines: list[Line] = field(default_factory=list)
    dpi: float | None = None
    rotation: int = 0
    origin: str = "image"
    warnings: list[Diagnostic] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.warnings = [as_diagnostic(w) for w in self.warnings]

    @property
    def text(self) -> str:
        """The page's text, one recognised line per text line."""
        return "\n".join(line.text for line in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "width": self.width,
            "height": self.height,
            "dpi": self.dpi,
            "rotation": self.rotation,
            "origin": self.origin,
            "warnings": [w.to_dict() for w in self.warnings],
            "lines": [line.to_dict() for line in self.lines],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PageResult:
        return cls(
            number=int(d["number"]),
            width=int(d["width"]),
            height=int(d["height"]),
            lines=[Line.from_dict(x) for x in d.get("lines", [])],
            dpi=d.get("dpi"),
            rotation=int(d.get("rotation", 0)),
            origin=d.get("origin", "image"),
            warnings=[Diagnostic.from_dict(w) for w in d.get("warnings", [])],
        )


def _legacy_needs_review(d: dict[str, Any]) -> bool:
    """``needs_review`` of a field saved before the flag existed (schema 1.0 sessions): the old rule,
    a value under 0.6 confidence that the clerk did not enter or edit."""
    return (d.get("value") is not None and not d.get("edited") and d.get("source") != "user"
            and float(d.get("confidence", 0.0)) < 0.6)


@dataclass
class Field:
    """One extracted field.

    Attributes:
        name: canonical field name (``total``, ``invoice_code``, ...; see ``resources/doctypes``).
        value: normalised value, or ``None`` when not found.
        raw: the text as printed, or ``None``.
        confidence: in [0, 1]; 0 when not found.
        page: 1-based page number the value was read on, or ``None``.
        box: union of ``boxes`` in page pixels, or ``None``.
        boxes: the boxes of every piece of text the value came from.
        source: ``xml``, ``ofd_text``, ``qr``, ``text_layer``, ``ocr``, ``model``, ``memory``, ``inferred`` or ``user``
            (the clerk typed it); see the module docstring.
        problems: validation diagnostics shown beside the field (empty when it checks out).
        edited: the clerk changed the value.
        needs_review: the clerk should check this field: its calibrated confidence is below the document
            type's review threshold, a check failed, or an expected field is empty. The form's tint, the
            queue badge, the summary counts and the xlsx Problems sheet all use exactly this flag.
        review_threshold: the confidence, in [0, 1] (above 1: always checked), the value needed to pass
            unchecked when extraction judged it: the learned field model's review threshold for the
            document type and field (``threshold`` in ``resources/models``, chosen by
            ``benchmarks/train_fields.py``), else the rules' ``HEURISTIC_REVIEW_THRESHOLD`` (0.6,
            :mod:`desktop.core.extraction`); ``None`` when no confidence was compared (a QR code's value,
            the clerk's, a file written before it was recorded). The reason a flag gives compares the
            confidence with it (:func:`desktop.core.flags.flag_diagnostics`).
        """

    name: str
    value: str | None = None
    raw: str | None = None
    confidence: float = 0.0
    page: int | None = None
    box: Box | None = None
    boxes: list[Box] = field(default_factory=list)
    source: str = "ocr"
    problems: list[Diagnostic] = field(default_factory=list)
    edited: bool = False
    needs_review: bool = False
    review_threshold: float | None = None

    def __post_init__(self) -> None:
        self.problems = [as_diagnostic(p) for p in self.problems]
        if self.box is None and self.boxes:
            self.box = union_box(self.boxes)
        elif self.box is not None and not self.boxes:
            self.boxes = [self.box]

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "raw": self.raw,
            "confidence": round(float(self.confidence), 4),
            "page": self.page,
            "box": [round(v, 2) for v in self.box] if self.box else None,
            "boxes": [[round(v, 2) for v in b] for b in self.boxes],
            "source": self.source,
            "problems": [p.to_dict() for p in self.problems],
            "edited": self.edited,
            "needs_review": self.needs_review,
            **({"review_threshold": round(float(self.review_threshold), 4)} if self.review_threshold is not None else {}),
        }

    @classmethod
    def from_dict(cls, name: str, d: dict[str, Any]) -> Field:
        return cls(
            name=name,
            value=d.get("value"),
            raw=d.get("raw"),
            confidence=float(d.get("confidence", 0.0)),
            page=d.get("page"),
            box=_box(d.get("box")),
            boxes=[_required_box(b) for b in d.get("boxes", [])],
            source=d.get("source", "ocr"),
            problems=[Diagnostic.from_dict(p) for p in d.get("problems", [])],
            edited=bool(d.get("edited", False)),
            needs_review=bool(d["needs_review"]) if "needs_review" in d else _legacy_needs_review(d),
            review_threshold=float(d["review_threshold"]) if d.get("review_threshold") is not None else None,
        )


@dataclass
class Document:
    """One business document (a receipt, an invoice) read from one source file.

    A source file usually yields one document; a PDF whose pages are separate invoices yields one
    document per invoice, each covering ``pages`` (first, last; 1-based, inclusive).
    A file that could not be read yields one document with ``error`` set and no fields; ``notes`` are
    diagnostics about the document as a whole (the engine gave no fields, ...).
    ``duplicate_of`` is ``None`` or ``{"source", "pages", "reason"}``: the earlier document this one may
    duplicate (see :mod:`desktop.core.duplicates`).
    """

    source: str
    pages: tuple[int, int] = (1, 1)
    document_type: str | None = None
    error: Diagnostic | None = None
    engine: str | None = None
    #: the engine's :attr:`~desktop.core.engines.base.Engine.version` (engine and model versions).
    engine_version: str | None = None
    fields: dict[str, Field] = field(default_factory=dict)
    page_results: list[PageResult] = field(default_factory=list)
    line_items: list[dict[str, Any]] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    reviewed: bool = False
    extras: dict[str, Any] = field(default_factory=dict)
    notes: list[Diagnostic] = field(default_factory=list)
    duplicate_of: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        # plain strings (older callers) become diagnostics of code ``text``
        if self.error is not None:
            self.error = as_diagnostic(self.error)
            if self.error.severity is not Severity.ERROR:
                self.error = dataclasses.replace(self.error, severity=Severity.ERROR)
        self.notes = [as_diagnostic(n) for n in self.notes]

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.page_results)

    def problems(self) -> list[tuple[str, Diagnostic]]:
        """Every ``(field name, problem)`` validation problem of the document."""
        return [(name, p) for name, f in self.fields.items() for p in f.problems]

    def lost_pages(self) -> list[Diagnostic]:
        """Every page of the document whose content is lost or may be lost (a page warning of
        :func:`~desktop.core.diagnostics.is_page_lost`: the engine could not read it, or a damaged PDF lost
        part or all of it), each as a diagnostic that names its page (``page`` set): the page's warning when
        its message names the page already (``page_not_read``), else ``page_content_lost`` wrapping it.

        A document that could not be read (``error``) lists only the pages whose loss its error does not
        already say (a one-page image that failed is one problem, not two).
        """
        out: list[Diagnostic] = []
        for page in self.page_results:
            for w in page.warnings:
                if not is_page_lost(w) or (self.error is not None and w.params.get("reason") == self.error):
                    continue
                named = "{page}" in CATALOGUE[w.code].en
                out.append(dataclasses.replace(w, page=page.number) if named else
                           diag(Code.PAGE_CONTENT_LOST, severity=w.severity, page=page.number, warning=w))
        return out

    def to_dict(self) -> dict[str, Any]:
        notes = list(self.notes)
        notes += [n for n in self.lost_pages() if n not in notes]  # schema 2.2: see the module docstring
        return {
            "source": self.source,
            "pages": list(self.pages),
            "document_type": self.document_type,
            "error": self.error.to_dict() if self.error is not None else None,
            "engine": self.engine,
            "engine_version": self.engine_version,
            "reviewed": self.reviewed,
            "notes": [n.to_dict() for n in notes],
            "fields": {name: f.to_dict() for name, f in self.fields.items()},
            "line_items": list(self.line_items),
            "tables": list(self.tables),
            "page_results": [p.to_dict() for p in self.page_results],
            "duplicate_of": dict(self.duplicate_of) if self.duplicate_of else None,
            "extras": dict(self.extras),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Document:
        first, last = d.get("pages") or (1, 1)
        extras = dict(d.get("extras", {}))
        notes = [Diagnostic.from_dict(n) for n in [*extras.pop("notes", []), *d.get("notes", [])]]
        error = d.get("error")
        doc = cls(
            source=d["source"],
            pages=(int(first), int(last)),
            document_type=d.get("document_type"),
            error=Diagnostic.from_dict(error) if error else None,
            engine=d.get("engine"),
            engine_version=d.get("engine_version"),
            fields={k: Field.from_dict(k, v) for k, v in d.get("fields", {}).items()},
            page_results=[PageResult.from_dict(p) for p in d.get("page_results", [])],
            line_items=list(d.get("line_items", [])),
            tables=list(d.get("tables", [])),
            reviewed=bool(d.get("reviewed", False)),
            extras=extras,
            notes=notes,
            duplicate_of=dict(d["duplicate_of"]) if d.get("duplicate_of") else None,
        )
        derived = doc.lost_pages()  # written from page_results by to_dict (schema 2.2), not kept twice
        doc.notes = [n for n in doc.notes if n not in derived]
        return doc


@dataclass
class ScanResult:
    """A batch of documents: what ``shoebox scan`` writes as JSON."""

    documents: list[Document] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        from desktop import __version__

        return {
            "schema_version": SCHEMA_VERSION,
            "generator": f"shoebox {__version__}",
            "documents": [d.to_dict() for d in self.documents],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ScanResult:
        version = str(d.get("schema_version", ""))
        if version.split(".")[0] not in READABLE_MAJOR_VERSIONS:
            raise ValueError(f"unsupported schema_version {version!r} (this build reads 1.x and {SCHEMA_VERSION})")
        return cls(documents=[Document.from_dict(x) for x in d.get("documents", [])])

    @classmethod
    def from_json(cls, text: str) -> ScanResult:
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, path: str | Path) -> ScanResult:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))


def as_plain(obj: Any) -> Any:
    """``dataclasses.asdict`` for any of the classes above (used by tests and debugging)."""
    return asdict(obj)
