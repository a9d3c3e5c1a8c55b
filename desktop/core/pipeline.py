"""From files to documents: intake -> OCR (or the PDF text layer) -> documents -> fields.

One call of :func:`scan_file` reads one file page by page:

- ``pdf_text`` pages (a digital PDF) take their lines from the text layer; nothing is OCR'd.
- ``image`` and ``pdf_image`` pages are rendered within the engine's pixel budget and OCR'd; a page
  that reads as if lying on its side or upside down is turned and read again
  (:mod:`desktop.core.orientation`).
- ``pdf_mixed`` pages keep their text layer and add the OCR lines that do not overlap it (text in
  scanned images pasted into a digital PDF).
- QR codes are decoded on every rendered page (Chinese VAT invoices carry their code, number, amount,
  date and check code in one; :func:`desktop.core.extraction.qr.decode_qr`).

Then the pages are split into documents (:func:`desktop.core.extraction.split_documents`), each gets a
document type (given, or detected) and its fields: from the engine itself when it has the ``fields``
capability (HunyuanOCR), completed by -- or falling back to -- Shoebox's own extraction from the lines.

Boxes: engines return boxes in the pixels of the rendered image; they are divided by the render scale
(rendered px per page px) so that every stored box is in page pixels (:mod:`desktop.core.model`).

Failure policy: :func:`scan_file` never raises for bad input or an engine failure. A file that cannot be
opened, or whose every page failed, becomes one :class:`~desktop.core.model.Document` with ``error`` set
to a :class:`~desktop.core.diagnostics.Diagnostic` saying why (the document's ``source`` names the file);
a single page that fails is noted in that page's ``warnings`` and the rest of the file is still read. The one
exception it raises is :class:`Cancelled`.

Cancellation: ``cancel()`` is checked before every page. When it returns true, :func:`scan_file` raises
:class:`Cancelled`, whose ``documents`` hold what was read so far (complete documents built from the
pages already read, each with ``extras["cancelled"] = True``), so a batch loop stops at once and a GUI can
still show the partial result. Raising, rather than returning the partial result, keeps a caller that
loops over many files from silently going on to the next file.
"""
from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop.core.diagnostics import Code, Diagnostic, diag, is_page_lost
from desktop.core.doctypes import get_document_type
from desktop.core.engines.base import (
    Capability,
    Engine,
    EngineCrashed,
    EngineError,
    EngineInterrupted,
    EngineTimedOut,
    EngineUnavailable,
    PageReading,
    check_page_reading,
)
from desktop.core.isolation import page_host
from desktop.core.layout import box_overlap, reading_order, scale_lines
from desktop.core.model import Document, Field, Line, PageResult

if TYPE_CHECKING:
    from desktop.core.inputs import Repeat

__all__ = [
    "TASKS",
    "Cancelled",
    "apply_memory",
    "Progress",
    "ScanOptions",
    "collect_inputs",
    "reextract",
    "reread_page",
    "run_task",
    "scan_file",
    "scan_paths",
]

log = logging.getLogger(__name__)

#: Extra document tasks an engine may offer (``Engine.capabilities`` names the family before ``_``).
TASKS = ("markdown", "table", "translate_en", "translate_zh")

#: An OCR line is dropped on a ``pdf_mixed`` page when this share of its box (or of a text-layer
#: line's box, whichever is smaller) is covered by a text-layer line.
MIXED_OVERLAP = 0.3


@dataclass
class ScanOptions:
    """How to read files.

    Attributes:
        document_type: ``auto`` (detect per document) or a document type name (``receipt``,
            ``invoice``, ``cn_vat_invoice``).
        date_order: how to read ambiguous dates (``DMY``/``MDY``; ``None`` = decide per document).
        task: an extra engine task run on every OCR'd page (``markdown``, ``table``, ``translate_en``,
            ``translate_zh``); results go to ``Document.extras[task]`` (and ``Document.tables`` for
            ``table``).
        auto_rotate: detect pages lying on their side or upside down and read them upright.
        decode_qr: look for QR codes on rendered pages.
        memory: a :class:`~desktop.core.memory.VendorMemory` applied to every document after its
            fields are extracted (``None``: no vendor memory).
        readings: a :class:`~desktop.core.duplicates.ReadingCache` shared by the files of a batch or
            session: a file whose content was read before with the same options is not read again, its
            documents are that reading's (``extras["reading_reused_from"]`` names the file read), the
            memory applied afresh (``None``: every file is read).
    """

    document_type: str = "auto"
    date_order: str | None = None
    task: str | None = None
    auto_rotate: bool = True
    decode_qr: bool = True
    memory: Any = None
    readings: Any = None


@dataclass
class Progress:
    """A progress report: about to read ``page`` (1-based) of ``pages`` of ``source``.

    After the last page one more report comes with ``page == pages`` and ``message == "done"``.
    """

    source: Path
    page: int
    pages: int
    message: str


class Cancelled(Exception):
    """The scan was cancelled; ``documents`` holds what had been read (possibly empty)."""

    def __init__(self, documents: list[Document] | None = None, source: str | Path | None = None) -> None:
        self.documents = list(documents or [])
        self.source = source
        super().__init__(f"cancelled{f' while reading {Path(source).name}' if source else ''}")


def _intake() -> ModuleType:
    from desktop.core import intake

    return intake


def _extraction() -> ModuleType:
    from desktop.core import extraction

    return extraction


# -- inputs ------------------------------------------------------------------------------------------

def collect_inputs(paths: Iterable[str | Path], skipped: list[Path] | None = None,
                   repeated: list[Repeat] | None = None) -> tuple[list[Path], list[Document]]:
    """Turn command-line / drag-and-drop paths into the files to read.

    Folders are walked recursively in sorted order and contribute every regular file whose suffix is
    in ``intake.SUPPORTED_SUFFIXES`` (case-insensitive; hidden files and folders are skipped), and every
    other file whose first bytes are a supported image or PDF; the files a folder walk skipped are
    appended to ``skipped`` (when given; :func:`desktop.core.inputs.skipped_note` names them). A file
    named explicitly is kept whatever its suffix (intake recognises formats by content and says
    clearly when it cannot). A file given more than once is read once, at its first occurrence, and
    appended to ``repeated`` (when given; :func:`desktop.core.inputs.repeat_note` says it). Symbolic-link loops,
    broken links, unreadable sub-folders, FIFOs and device files are named, never read and never a
    traceback (:func:`desktop.core.inputs.walk_inputs`).

    Returns:
        ``(files, errors)``: the files in order, and one error :class:`Document` per path that cannot be
        used (``error`` of code ``no_such_path``, ``symlink_loop``, ``broken_link``, ``special_file``,
        ``folder_unreadable``, ...).
    """
    from desktop.core.inputs import walk_inputs

    return walk_inputs(paths, _intake().SUPPORTED_SUFFIXES, skipped, repeated)


# -- reading one page ------------------------------------------------------------------------------

@dataclass
class _PageRead:
    result: PageResult
    qr: list[str] = field(default_factory=list)
    page: Any = None  # the (possibly rotated) intake PageImage, for later model calls
    failed: Diagnostic | None = None
    task_output: str | None = None


def _merge_mixed(text_lines: list[Line], ocr_lines: list[Line]) -> list[Line]:
    """Text-layer lines plus the OCR lines that do not overlap any text-layer line or word."""
    boxes = [box for ln in text_lines for box in ([w.box for w in ln.words] or [ln.box])]
    extra = [ln for ln in ocr_lines if not any(box_overlap(ln.box, b) >= MIXED_OVERLAP for b in boxes)]
    return reading_order([*text_lines, *extra])


def _decode_qr(image: np.ndarray) -> list[str]:
    try:
        from desktop.core.extraction import qr
    except ImportError:  # pragma: no cover - extraction not installed
        return []
    try:
        return list(qr.decode_qr(image))
    except Exception as exc:  # a QR decoder problem must not lose the page
        log.warning("QR decoding failed: %s", exc)
        return []


class _QrBeside:
    """The QR codes of a page's first render, decoded in a background thread while the engine reads
    the page (the engine works in its own process or threads: decoding after it left a core idle for
    10-40 ms a receipt page, measured 2026-12-01). :meth:`payloads` is what :func:`_decode_qr` gives on
    the image the page was finally read on: the background result when that is still the first render,
    a decoding of the turned image otherwise."""

    _pool: Any = None  # one thread for the process, started on first use
    _lock = threading.Lock()

    def __init__(self, image: np.ndarray) -> None:
        with _QrBeside._lock:
            if _QrBeside._pool is None:
                from concurrent.futures import ThreadPoolExecutor

                _QrBeside._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qr")
        self._first = _QrBeside._pool.submit(_decode_qr, image)
        self.replaced = False  # set when the page is read on another image (turned, rendered again)

    def payloads(self, image: np.ndarray) -> list[str]:
        return _decode_qr(image) if self.replaced else self._first.result()


def read_image(engine: Engine, image: np.ndarray) -> PageReading:
    """``engine.read_page(image)``, checked against the contract (:func:`check_page_reading`).

    Raises:
        MalformedOutput: the engine's answer breaks the contract.
        EngineError: the engine failed.
    """
    return check_page_reading(engine.read_page(image), int(image.shape[1]), int(image.shape[0]))


def _reading_notes(reading: Any, engine: Engine, page: int | None = None) -> list[Diagnostic]:
    """What an engine reading reports, as diagnostics: each of its warnings (the engine's own words,
    :attr:`Code.ENGINE_NOTE`), and :attr:`Code.READING_SUSPECT` for a suspect reading."""
    notes = [diag(Code.ENGINE_NOTE, page=page, engine=engine.name, detail=w) for w in reading.warnings]
    if reading.suspect:
        notes.append(diag(Code.READING_SUSPECT, page=page, engine=engine.name))
    return notes


def _worker_failure(exc: EngineCrashed | EngineTimedOut, page: int) -> Diagnostic:
    """The named error of a page whose engine worker died or overran the watchdog (the worker restarts)."""
    if isinstance(exc, EngineTimedOut):
        return diag(Code.ENGINE_TIMED_OUT, page=page, seconds=round(exc.limit_s))
    return diag(Code.ENGINE_CRASHED, page=page, detail=exc.detail or "?")


def _ocr(page: Any, engine: Engine, options: ScanOptions, *, auto_rotate: bool,
         qr: bool = False) -> tuple[Any, list[Line], np.ndarray, list[Diagnostic], list[str]]:
    """OCR one page, turning it upright when needed; with ``qr``, decode its QR codes too (beside the
    engine's reading: :class:`_QrBeside`).

    Returns:
        ``(page, lines, image, notes, qr_payloads)``: the page as finally read (rotated when it was
        turned), its lines in *page pixels*, the rendered image they were read on, notes for the
        warnings (what the engine reported about its reading included), and the QR payloads decoded
        on that image (``[]`` without ``qr``).
    """
    host = page_host(engine)
    image, scale = host.render(page, engine.max_pixels)
    beside = _QrBeside(image) if qr else None
    notes: list[Diagnostic] = []
    if scale < 1.0:
        notes.append(diag(Code.DOWNSCALED, width=int(image.shape[1]), height=int(image.shape[0]),
                          page_width=int(page.width), page_height=int(page.height)))
    own_upright = auto_rotate and Capability.UPRIGHT in engine.capabilities
    if own_upright:
        # The engine decides the orientation between detection and recognition and reads every line
        # once (PP-OCR: desktop.core.engines.ppocr_stages): no second read of a turned page.
        from desktop.core import orientation
        from desktop.core.engines.upright import check_reading

        turned = check_reading(engine.read_upright(image), int(image.shape[1]), int(image.shape[0]))
        if turned.rotation:
            # The render of the turned page is the render turned (same budget, same scale).
            page = page.rotated(turned.rotation)
            image = orientation.rotate_image(image, turned.rotation)
            if beside is not None:
                beside.replaced = True
            notes.append(diag(Code.TURNED, degrees=turned.rotation, reason=turned.reason))
        reading = turned.page_reading()  # its lines, warnings and suspect mark, in the turned image's pixels
        lines = reading.lines
    else:
        reading = read_image(engine, image)
        lines = reading.lines
    if auto_rotate and not own_upright:
        from desktop.core import orientation

        try:
            rotation, verdict = orientation.choose_rotation(image, lines, engine)
        except (EngineInterrupted, EngineCrashed, EngineTimedOut):  # stopped, or the worker is gone: not a probe failure
            raise
        except (EngineError, RuntimeError) as exc:  # a failed probe: keep the read as it is
            rotation = 0
            notes.append(diag(Code.ORIENTATION_CHECK_FAILED, reason=_reason(exc)))
        if rotation:
            del image
            if beside is not None:
                beside.replaced = True
            page = page.rotated(rotation)
            image, scale = host.render(page, engine.max_pixels)
            reading = read_image(engine, image)
            lines = reading.lines
            notes.append(diag(Code.TURNED, degrees=rotation, reason=verdict.reason))
    notes.extend(_reading_notes(reading, engine))
    page_lines = scale_lines(lines, 1.0 / scale) if scale > 0 else lines
    zoomed = _read_zoomed(page, engine, image, scale)
    if zoomed is not None and (zoomed[0] or not page_lines):
        page_lines = zoomed[0]
        notes.append(zoomed[1])
    return page, page_lines, image, notes, (beside.payloads(image) if beside is not None else [])


def _read_zoomed(page: Any, engine: Engine, image: np.ndarray, scale: float) -> tuple[list[Line], Diagnostic] | None:
    """Read a page again on its content region, in tiles when long (:mod:`desktop.core.tiling`), when
    the whole-page render left its text too small; ``None`` when it did not."""
    from desktop.core import tiling

    plan = tiling.plan_zoom(page.width, page.height, image, scale, engine.max_pixels, region_render=True)
    if plan is None:
        return None
    host = page_host(engine)
    return tiling.read_zoomed(lambda budget: host.render(page, budget), lambda tile: read_image(engine, tile).lines,
                              plan, page.width, page.height, engine.max_pixels,
                              render_region=lambda box, scale: host.render_region(page, box, scale))


def _read_page(page: Any, engine: Engine, options: ScanOptions, *, auto_rotate: bool = True) -> _PageRead:
    """Read one intake page (never raises for an engine or render failure: see ``failed``)."""
    origin = getattr(page, "origin", "image")
    warnings = list(getattr(page, "warnings", []) or [])
    text_lines = list(getattr(page, "text_lines", None) or [])
    qr: list[str] = []
    task_output: str | None = None
    failed: Diagnostic | None = None
    lines: list[Line] = []
    try:
        if not getattr(page, "needs_ocr", True):
            lines = reading_order(text_lines)
            if options.decode_qr and "发票" in "".join(ln.text for ln in text_lines):
                # Digital Chinese invoices draw their QR code as vector graphics: render to find it.
                image, _ = page_host(engine).render(page, engine.max_pixels)
                qr = _decode_qr(image)
        else:
            turn = auto_rotate and options.auto_rotate and origin != "pdf_mixed"
            page, ocr_lines, image, notes, qr = _ocr(page, engine, options, auto_rotate=turn, qr=options.decode_qr)
            warnings.extend(notes)
            lines = _merge_mixed(text_lines, ocr_lines) if (origin == "pdf_mixed" and text_lines) else ocr_lines
            if not lines:
                warnings.append(diag(Code.NO_TEXT))
            if options.task:
                family = options.task.split("_")[0]
                if family in engine.capabilities:
                    answer = engine.run_task(image, options.task, _task_language(options.task))
                    task_output = answer.text
                    warnings.extend(_reading_notes(answer, engine))
                else:
                    warnings.append(diag(Code.TASK_UNSUPPORTED, engine=engine.name, task=options.task))
            del image
    except (EngineUnavailable, EngineInterrupted):
        raise
    except (EngineCrashed, EngineTimedOut) as exc:
        failed = _worker_failure(exc, int(page.number))
        warnings.append(failed)
    except (EngineError, _intake().IntakeError, MemoryError, RuntimeError, ValueError, OSError) as exc:
        failed = _reason(exc)
        warnings.append(diag(Code.PAGE_NOT_READ, page=int(page.number), reason=failed))
    except Exception as exc:  # a bug or an unexpected library error: still only this page
        log.exception("page %s of %s failed", page.number, page.source)
        failed = _reason(exc)
        warnings.append(diag(Code.PAGE_NOT_READ, page=int(page.number), reason=failed))
    result = PageResult(
        number=int(page.number),
        width=int(page.width),
        height=int(page.height),
        lines=lines,
        dpi=getattr(page, "dpi", None),
        rotation=int(getattr(page, "rotation", 0)) % 360,
        origin=origin,
        warnings=warnings,
    )
    return _PageRead(result, qr, page, failed, task_output)


def _task_language(task: str) -> str:
    return "zh" if task.endswith("_zh") else "en"


def _reason(exc: BaseException) -> Diagnostic:
    """The reason for an exception, as a diagnostic (``MemoryError`` has no message of its own).

    An intake error carries its own diagnostic (without the file name: the document names the file).
    """
    if isinstance(exc, MemoryError):
        return diag(Code.OUT_OF_MEMORY)
    own = getattr(exc, "diagnostic", None)
    if isinstance(own, Diagnostic):
        return own
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, EngineUnavailable):
        return diag(Code.ENGINE_UNAVAILABLE, detail=text)
    if isinstance(exc, EngineError):
        return diag(Code.ENGINE_FAILED, detail=text)
    return diag(Code.EXCEPTION, detail=text)


# -- fields ------------------------------------------------------------------------------------------

def _own_fields(pages: list[PageResult], document_type: str, date_order: str | None, qr: list[str],
                doc: Document | None = None) -> tuple[dict[str, Field], list[dict[str, Any]]]:
    """Shoebox's own extraction; records the field model's version on ``doc`` (``extras["field_model"]``)."""
    result = _extraction().extract_fields(pages, document_type, date_order=date_order, qr_payloads=tuple(qr))
    if doc is not None:
        if result.model_version:
            doc.extras["field_model"] = result.model_version
        else:
            doc.extras.pop("field_model", None)
    return dict(result.fields), list(result.line_items)


def _model_fields(reads: list[_PageRead], engine: Engine, document_type: str, date_order: str | None,
                  qr: list[str], notes: list[Diagnostic]) -> tuple[dict[str, Field], list[dict[str, Any]]] | None:
    """Ask a ``fields``-capable engine for the fields, page by page until all are found."""
    doctype = get_document_type(document_type)
    language = "zh" if doctype.language.startswith("zh") else "en"
    specs = {spec.name: spec for spec in doctype.field_specs()}
    values: dict[str, str | None] = {name: None for name in specs}
    for read in reads:
        if read.failed or read.page is None or all(values.values()):
            continue
        missing = [name for name, v in values.items() if not v]
        number = read.result.number
        try:
            image, _ = page_host(engine).render(read.page, engine.max_pixels)
            answer = engine.read_fields(image, [specs[n] for n in missing], language)
        except EngineInterrupted:
            raise
        except (EngineCrashed, EngineTimedOut) as exc:
            notes.append(diag(Code.MODEL_FIELDS_FAILED, engine=engine.name, page=number,
                              reason=_worker_failure(exc, number)))
            continue
        except Exception as exc:
            notes.append(diag(Code.MODEL_FIELDS_FAILED, engine=engine.name, page=number, reason=_reason(exc)))
            continue
        read.result.warnings.extend(_reading_notes(answer, engine))
        for name in missing:
            value = answer.values.get(name)  # canonical names, whatever keys the model answered with
            if value is not None and str(value).strip():
                values[name] = str(value).strip()
    if not any(values.values()):
        return None
    pages = [r.result for r in reads]
    result = _extraction().fields_from_values(values, pages, document_type, source="model",
                                              date_order=date_order, qr_payloads=tuple(qr))
    return dict(result.fields), list(result.line_items)


def _extract(doc: Document, reads: list[_PageRead], engine: Engine | None, options: ScanOptions,
             qr: list[str], notes: list[Diagnostic]) -> None:
    """Fill ``doc.document_type``, ``doc.fields`` and ``doc.line_items`` in place.

    A document on whose pages nothing at all was read (no line, no QR code: blank sheets, a stack
    scanned face down) gets no document type when the type is detected (``auto``): nothing says
    what it is (the rules' fallback, ``receipt``, would be a guess), so it has no fields either, and
    a warning note (``no_text_in_document``) tells the clerk to check the scan. ``document_type`` is
    then ``null`` in the JSON, as for a document that could not be read (schema unchanged).
    """
    extraction = _extraction()
    pages = doc.page_results
    if options.document_type and options.document_type != "auto":
        doc.document_type = get_document_type(options.document_type).name
    elif not qr and not any(p.lines for p in pages):
        doc.document_type, doc.fields, doc.line_items = None, {}, []
        notes.append(diag(Code.NO_TEXT_IN_DOCUMENT, pages=len(pages)))
        return
    else:
        doc.document_type = extraction.detect_document_type(pages, qr_payloads=qr)
    for number in extraction.pages_holding_two_documents(pages):  # its fields say it too, and are flagged
        notes.append(diag(Code.PAGE_HOLDS_TWO_DOCUMENTS, page=number))
    own: tuple[dict[str, Field], list[dict[str, Any]]] | None = None
    if engine is not None and Capability.FIELDS in engine.capabilities:
        model = _model_fields(reads, engine, doc.document_type, options.date_order, qr, notes)
        if model is None:
            notes.append(diag(Code.MODEL_NO_FIELDS, engine=engine.name))
        else:
            fields, items = model
            own = _own_fields(pages, doc.document_type, options.date_order, qr, doc)
            for name, f in own[0].items():  # complete what the model missed from our own reading
                if name not in fields or fields[name].value is None:
                    fields[name] = f
            doc.fields, doc.line_items = fields, items or own[1]
            return
    doc.fields, doc.line_items = _own_fields(pages, doc.document_type, options.date_order, qr, doc)


def _einvoice_data(source: Path, engine: Engine, *, ask_engine: bool) -> tuple[Any, Diagnostic | None, Diagnostic | None]:
    """The file's e-invoice data (:func:`desktop.core.einvoice.structured_for`), read on the engine's page
    host: in the worker process for a worker engine, so that MuPDF or lxml crashing on a hostile file
    costs this document, not the application.

    Returns:
        ``(data or None, note or None, error or None)``: the note when the data cannot be read (the
        pages stand), the error (code ``einvoice_stopped``) when the reader's process died or overran
        its time on this file.

    Raises:
        EngineInterrupted: stopped on request (only with ``ask_engine``; a cancelled scan's partial
            documents go without the data).
    """
    try:
        structured, problem = page_host(engine).call("desktop.core.einvoice:structured_for", str(source),
                                                      doing="reading the e-invoice data")
    except EngineInterrupted:
        if ask_engine:
            raise
        return None, None, None
    except EngineCrashed as exc:
        return None, None, diag(Code.EINVOICE_STOPPED, detail=exc.detail or "?")
    except EngineTimedOut as exc:
        return None, None, diag(Code.EINVOICE_STOPPED, detail=diag(Code.WORKER_OVERRAN, seconds=round(exc.limit_s)))
    except Exception as exc:  # structured_for itself never raises: a broken host, or out of memory
        return None, diag(Code.EINVOICE_UNREADABLE, detail=str(exc).strip() or type(exc).__name__), None
    return structured, problem, None


def _build_documents(source: Path, reads: list[_PageRead], engine: Engine, options: ScanOptions,
                     *, ask_engine: bool = True, unmemorised: list[Document] | None = None) -> list[Document]:
    """Split the pages read into documents and extract each one's fields (``ask_engine=False``: only
    Shoebox's own extraction, as for a cancelled scan, whose engine must not be asked again).
    ``unmemorised`` receives each document as it was before the vendor memory was applied.

    A file carrying e-invoice data (:mod:`desktop.core.einvoice`: embedded XML, an XML invoice, an OFD
    invoice) is one invoice: it is not split, and its data overrides and cross-checks the fields read
    from the pages.
    """
    from desktop.core.structured import apply_to_document

    name = source.name
    results = [r.result for r in reads]
    failures = [r.failed for r in reads if r.failed]
    if reads and len(failures) == len(reads):
        reason = failures[0] if len(set(failures)) == 1 else diag(Code.ALL_PAGES_FAILED, reason=failures[0],
                                                                     more=len(failures) - 1)
        return [Document(source=str(source), pages=(results[0].number, results[-1].number), error=reason,
                         engine=engine.name, engine_version=engine.version, page_results=results)]
    from desktop.core.boundaries import PageRange, document_ranges

    structured, structured_problem, stopped = _einvoice_data(source, engine, ask_engine=ask_engine)
    if stopped is not None:  # the reader died on this file: it is this document's error, nothing else's
        return [Document(source=str(source), pages=(results[0].number, results[-1].number), error=stopped,
                         engine=engine.name, engine_version=engine.version, page_results=results)]
    if structured is not None:  # one e-invoice: its pages are one document, nothing to decide
        ranges = [PageRange(results[0].number, results[-1].number,
                            [diag(Code.PAGES_JOINED_EINVOICE)] if len(results) > 1 else [])]
    else:
        try:
            ranges = document_ranges(results) or [PageRange(results[0].number, results[-1].number)]
        except Exception as exc:
            log.warning("splitting %s failed: %s", name, exc)
            ranges = [PageRange(results[0].number, results[-1].number,
                                [diag(Code.PAGE_BOUNDARIES_FAILED, reason=_reason(exc))])]
    documents: list[Document] = []
    for rng in ranges:
        first, last = rng.first, rng.last
        part = [r for r in reads if first <= r.result.number <= last]
        if not part:
            continue
        doc = Document(source=str(source), pages=(first, last), engine=engine.name, engine_version=engine.version,
                       page_results=[r.result for r in part])
        model = getattr(engine, "model_name", None)
        if isinstance(model, str) and model:
            doc.extras["engine_model"] = model  # e.g. the office server's model and HunyuanOCR version
        qr = list(dict.fromkeys(p for r in part for p in r.qr))
        notes: list[Diagnostic] = list(rng.notes)
        if qr:
            doc.extras["qr_payloads"] = qr
        _attach_tasks(doc, part, options)
        try:
            _extract(doc, part, engine if ask_engine else None, options, qr, notes)
        except Exception as exc:  # keep the text even if field extraction breaks
            log.exception("field extraction failed for %s", name)
            doc.error = diag(Code.FIELDS_FAILED, reason=_reason(exc))
        if structured is not None and doc.error is None:
            forced = options.document_type if options.document_type not in (None, "", "auto") else None
            apply_to_document(doc, structured, forced_type=forced)
        elif structured_problem:
            notes.append(structured_problem)
        if unmemorised is not None:
            snapshot = Document.from_dict(doc.to_dict())  # its own fields: the memory changes them in place
            snapshot.notes = list(notes)
            unmemorised.append(snapshot)
        notes.extend(apply_memory(doc, options))
        doc.notes = notes
        documents.append(doc)
    return documents


def _reading_key(digest: str, engine: Engine, options: ScanOptions) -> tuple[Any, ...]:
    """What decides a file's reading besides its bytes (:class:`~desktop.core.duplicates.ReadingCache`)."""
    model = getattr(engine, "model_name", None)
    return (digest, engine.name, engine.version, model if isinstance(model, str) else None, options.document_type,
            options.date_order, options.task, options.auto_rotate, options.decode_qr)


def _reused(path: Path, digest: str, engine: Engine, options: ScanOptions) -> list[Document] | None:
    """The documents of a file with the same content read before (``options.readings``), as this file's
    own, the vendor memory applied to them now; ``None`` when there is none."""
    found = options.readings.get(_reading_key(digest, engine, options)) if options.readings is not None else None
    if found is None:
        return None
    source, documents = found
    for doc in documents:
        doc.source = str(path)
        doc.extras["reading_reused_from"] = source
        doc.extras["content_hash"] = digest
        doc.extras["seconds"] = 0.0
        doc.notes = list(doc.notes) + apply_memory(doc, options)
    return documents


def _reusable(documents: list[Document], unmemorised: list[Document]) -> bool:
    """Whether a file's reading may stand for another file with the same bytes: every document read,
    none cancelled, no page lost (a page the engine failed on may read the next time)."""
    return bool(unmemorised) and len(unmemorised) == len(documents) and not any(
        d.error or d.extras.get("cancelled") or any(is_page_lost(w) for p in d.page_results for w in p.warnings)
        for d in documents)


def apply_memory(doc: Document, options: ScanOptions) -> list[Diagnostic]:
    """The vendor memory step, after field extraction (:meth:`VendorMemory.apply`, in place).

    When a strongly matched profile has another document type and the type was detected (``auto``),
    the fields are read again as that type first. A memory failure is a note; the document stays.

    Returns:
        Notes for ``extras["notes"]`` (empty when all went well or there is no memory).
    """
    memory = options.memory
    if memory is None or doc.error:
        return []
    try:
        from desktop.core.memory import STRONG_MATCH

        match = memory.apply(doc)
        suggested = (doc.extras.get("memory") or {}).get("document_type")
        if match is not None and suggested and options.document_type == "auto" and match.score >= STRONG_MATCH:
            again = reextract(doc, suggested, options.date_order)
            doc.document_type, doc.fields, doc.line_items = again.document_type, again.fields, again.line_items
            memory.apply(doc, match)
            doc.extras["memory"]["document_type_from_memory"] = True
    except Exception as exc:
        log.exception("the vendor memory failed on %s", doc.source)
        return [diag(Code.MEMORY_UNAVAILABLE, detail=str(exc) or type(exc).__name__)]
    return []


def _attach_tasks(doc: Document, reads: list[_PageRead], options: ScanOptions) -> None:
    outputs = [{"page": r.result.number, "text": r.task_output} for r in reads if r.task_output is not None]
    if not outputs or not options.task:
        return
    doc.extras[options.task] = outputs
    if options.task == "table":
        doc.tables.extend({"page": o["page"], "html": o["text"]} for o in outputs)


# -- public entry points ---------------------------------------------------------------------------

def _error_document(path: Path, reason: Diagnostic, engine: Engine | None = None) -> Document:
    return Document(source=str(path), error=reason, engine=engine.name if engine else None)


def scan_file(
    path: str | Path,
    engine: Engine,
    options: ScanOptions | None = None,
    *,
    cancel: Callable[[], bool] | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> list[Document]:
    """Read one file into one or more documents.

    Args:
        path: an image (JPEG, PNG, TIFF, BMP, WebP, HEIF) or PDF.
        engine: the OCR engine (used for every page that needs OCR).
        options: see :class:`ScanOptions`.
        cancel: called before every page; returning true stops the scan (see :class:`Cancelled`).
        progress: called before every page with a :class:`Progress`, and once more when done.

    Returns:
        The documents found, in page order; or one document with ``error`` set when the file cannot
        be read at all (its ``error`` a diagnostic saying why). A file whose content was read before
        (``options.readings``) is not read again: its documents are that reading's, under this file's
        name, the vendor memory applied to them now.

    Raises:
        Cancelled: ``cancel()`` returned true; ``.documents`` holds the pages read so far.
    """
    options = options or ScanOptions()
    path = Path(path)
    from desktop.core.duplicates import content_hash

    digest = content_hash(path)
    if digest and options.readings is not None and not (cancel is not None and cancel()):
        reused = _reused(path, digest, engine, options)
        if reused is not None:
            if progress is not None:
                last = max((d.pages[1] for d in reused), default=1)
                progress(Progress(path, last, last, "done"))
            return reused
    host = page_host(engine)
    try:
        total = int(host.count_pages(path))
        pages = iter(host.open_pages(path))
    except EngineInterrupted:
        raise Cancelled([], path) from None
    except Exception as exc:  # IntakeError, MemoryError, a crashed reader, a broken library: one error document
        return [_error_document(path, _reason(exc), engine)]

    reads: list[_PageRead] = []
    started = time.perf_counter()
    number = 0
    while True:
        if cancel is not None and cancel():
            documents = _build_documents(path, reads, engine, options, ask_engine=False) if reads else []
            for d in documents:
                d.extras["cancelled"] = True
            raise Cancelled(documents, path)
        try:
            page = next(pages)
        except StopIteration:
            break
        except EngineInterrupted:
            raise Cancelled(_build_documents(path, reads, engine, options, ask_engine=False) if reads else [],
                            path) from None
        except Exception as exc:  # the file broke part-way: keep what was read
            reason = _reason(exc)
            if not reads:
                return [_error_document(path, reason, engine)]
            reads[-1].result.warnings.append(diag(Code.PAGES_AFTER_NOT_READ, page=reads[-1].result.number,
                                                  reason=reason))
            break
        number = int(page.number)
        if progress is not None:
            progress(Progress(path, number, max(total, number), f"reading page {number} of {max(total, number)}"))
        try:
            read = _read_page(page, engine, options)
        except EngineUnavailable as exc:
            return [_error_document(path, _reason(exc), engine)]
        except EngineInterrupted:
            documents = _build_documents(path, reads, engine, options, ask_engine=False) if reads else []
            for d in documents:
                d.extras["cancelled"] = True
            raise Cancelled(documents, path) from None
        reads.append(read)
        del page
    if not reads:
        return [_error_document(path, diag(Code.NO_PAGES), engine)]
    unmemorised: list[Document] | None = [] if options.readings is not None and digest else None
    try:
        documents = _build_documents(path, reads, engine, options, unmemorised=unmemorised)
    except EngineInterrupted:  # stopped while the engine read the fields
        raise Cancelled([], path) from None
    seconds = time.perf_counter() - started
    for d in [*documents, *(unmemorised or [])]:
        d.extras.setdefault("seconds", round(seconds, 3))
        if digest:
            d.extras["content_hash"] = digest
    if digest and unmemorised is not None and _reusable(documents, unmemorised):
        options.readings.put(_reading_key(digest, engine, options), str(path), unmemorised)
    if progress is not None:
        progress(Progress(path, number, max(total, number), "done"))
    return documents


def scan_paths(
    paths: Iterable[str | Path],
    engine: Engine,
    options: ScanOptions | None = None,
    *,
    cancel: Callable[[], bool] | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> list[Document]:
    """:func:`collect_inputs` then :func:`scan_file` on every file; missing paths give error documents.

    Raises:
        Cancelled: with ``.documents`` = every document read so far in the batch.
    """
    files, documents = collect_inputs(paths)
    for f in files:
        try:
            documents.extend(scan_file(f, engine, options, cancel=cancel, progress=progress))
        except Cancelled as exc:
            raise Cancelled(documents + exc.documents, f) from None
    return documents


def reextract(document: Document, document_type: str, date_order: str | None = None) -> Document:
    """Extract the fields again with another document type (the clerk changed the type).

    Fields the clerk edited are kept when the new type has them. QR payloads found while scanning
    (``extras["qr_payloads"]``) are used again. Returns a new :class:`Document`; ``document`` is not
    changed.

    Raises:
        KeyError: unknown document type.
    """
    get_document_type(document_type)
    doc = dataclasses.replace(document, document_type=document_type, fields={}, line_items=[],
                              extras=dict(document.extras))
    qr = list(document.extras.get("qr_payloads", []))
    result = _extraction().extract_fields(doc.page_results, document_type, date_order=date_order, qr_payloads=tuple(qr))
    doc.fields = dict(result.fields)
    doc.line_items = list(result.line_items)
    doc.extras.pop("field_model", None)
    if result.model_version:
        doc.extras["field_model"] = result.model_version
    data = (document.extras.get("einvoice") or {}).get("data")
    if data:  # the e-invoice's own data wins again over the new reading of the page
        from desktop.core import einvoice
        from desktop.core.structured import apply_to_document

        apply_to_document(doc, einvoice.EInvoice.from_dict(data), forced_type=document_type)
    for name, f in document.fields.items():
        if f.edited and name in doc.fields:
            doc.fields[name] = dataclasses.replace(f)
    if any(f.edited for f in doc.fields.values()):
        _extraction().validate(doc.fields, document_type, doc.page_results)
    return doc


def reread_page(document: Document, page_number: int, rotation: int, engine: Engine,
                options: ScanOptions | None = None) -> Document:
    """Read one page of a document again, turned by ``rotation`` (the clerk rotated it in the viewer).

    ``rotation`` is clockwise degrees (0/90/180/270) from the page as stored in the file; no automatic
    orientation is applied (the clerk chose it). The fields are extracted again with the document's
    type; fields the clerk edited are kept.

    Returns:
        A new :class:`Document`. When the page cannot be read again, the old page result is kept and
        the reason is appended to its ``warnings`` (the call does not raise for engine or file errors).

    Raises:
        ValueError: ``page_number`` is not within ``document.pages`` or ``rotation`` is not a multiple
            of 90.
    """
    options = options or ScanOptions()
    if rotation % 90:
        raise ValueError(f"rotation must be a multiple of 90 degrees, got {rotation}")
    first, last = document.pages
    if not first <= page_number <= last:
        raise ValueError(f"page {page_number} is not in this document (pages {first}-{last})")
    doc = dataclasses.replace(document, page_results=list(document.page_results), extras=dict(document.extras))
    index = next((i for i, p in enumerate(doc.page_results) if p.number == page_number), None)
    try:
        page = page_host(engine).load_page(Path(document.source), page_number, rotation % 360)
        read = _read_page(page, engine, options, auto_rotate=False)
    except EngineInterrupted:
        raise
    except Exception as exc:
        reason = _reason(exc)
        if index is not None:
            old = doc.page_results[index]
            doc.page_results[index] = dataclasses.replace(
                old, warnings=[*old.warnings, diag(Code.REREAD_FAILED, page=page_number, reason=reason)])
        return doc
    if read.failed and index is not None:
        old = doc.page_results[index]
        doc.page_results[index] = dataclasses.replace(
            old, warnings=[*old.warnings, diag(Code.REREAD_FAILED, page=page_number, reason=read.failed)])
        return doc
    if index is None:
        doc.page_results.append(read.result)
        doc.page_results.sort(key=lambda p: p.number)
    else:
        doc.page_results[index] = read.result
    qr = list(dict.fromkeys([*document.extras.get("qr_payloads", []), *read.qr]))
    if qr:
        doc.extras["qr_payloads"] = qr
    doc.engine, doc.engine_version = engine.name, engine.version
    refreshed = reextract(doc, document.document_type or _default_type(options), options.date_order)
    refreshed.error = None
    return refreshed


def run_task(document: Document, task: str, engine: Engine, *,
             cancel: Callable[[], bool] | None = None,
             progress: Callable[[Progress], None] | None = None) -> Document:
    """Run an extra engine task (the GUI's Document menu) on every page of a document read before.

    Each page is loaded from ``document.source`` as it was read (the page's stored rotation, so it is
    upright), rendered within ``engine.max_pixels`` and given to ``engine.run_task``. The answers go
    where :func:`scan_file` with ``ScanOptions(task=...)`` puts them (``Document.extras[task]`` = a list
    of ``{"page", "text"}``; for ``table`` also ``Document.tables``, replacing the tables of an earlier
    run). Pages that fail are skipped and named in ``Document.extras["task_problems"][task]`` (a list of
    :meth:`Diagnostic.to_dict <desktop.core.diagnostics.Diagnostic.to_dict>` objects, code ``task_page_failed``).

    Args:
        document: a document read before (not an error document); it is not changed.
        task: one of :data:`TASKS`.
        engine: an engine whose ``capabilities`` hold the task's family (``markdown``, ``table``,
            ``translate``).
        cancel: called before every page; returning true raises :class:`Cancelled`.
        progress: called before every page with a :class:`Progress`, and once more when done.

    Returns:
        A new :class:`Document` with the task's output.

    Raises:
        ValueError: unknown task, or a document without pages / with an error.
        EngineError: the engine cannot do the task, or it failed on every page (the message names the
            file, the page and the reason).
        Cancelled: ``cancel()`` returned true (nothing is kept).
    """
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose one of {', '.join(TASKS)}")
    source = Path(document.source)
    if document.error or not document.page_results:
        raise ValueError(f"{source.name}: the document was not read, so there is nothing to run {task} on")
    if task.split("_")[0] not in engine.capabilities:
        raise EngineError(f"the {engine.name} engine cannot do the task {task!r}")
    options = ScanOptions(task=task)
    reads: list[_PageRead] = []
    problems: list[Diagnostic] = []
    pages = sorted(document.page_results, key=lambda p: p.number)
    for i, result in enumerate(pages):
        if cancel is not None and cancel():
            raise Cancelled(source=source)
        if progress is not None:
            progress(Progress(source, result.number, len(pages), f"{task}: page {i + 1} of {len(pages)}"))
        try:
            host = page_host(engine)
            page = host.load_page(source, result.number, result.rotation % 360)
            image, _scale = host.render(page, engine.max_pixels)
            del page
            answer = engine.run_task(image, task, _task_language(task))
            output = answer.text
            problems.extend(_reading_notes(answer, engine, result.number))
            del image
        except EngineInterrupted:
            raise Cancelled(source=source) from None
        except (EngineCrashed, EngineTimedOut) as exc:
            problems.append(diag(Code.TASK_PAGE_FAILED, page=result.number, reason=_worker_failure(exc, result.number)))
            continue
        except EngineUnavailable:
            raise
        except Exception as exc:  # IntakeError, EngineError, MemoryError, a library bug: this page only
            if not isinstance(exc, (EngineError, MemoryError, RuntimeError, ValueError, OSError)):
                log.exception("%s failed on page %s of %s", task, result.number, source)
            problems.append(diag(Code.TASK_PAGE_FAILED, page=result.number, reason=_reason(exc)))
            continue
        reads.append(_PageRead(result, task_output=str(output)))
    if not reads:
        detail = problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more pages)"
        raise EngineError(f"{source.name}: {task} failed on {detail}")
    doc = dataclasses.replace(document, extras=dict(document.extras),
                              tables=[] if task == "table" else list(document.tables))
    doc.extras.pop(task, None)
    _attach_tasks(doc, reads, options)
    task_problems = {k: list(v) for k, v in dict(doc.extras.get("task_problems") or {}).items() if k != task}
    if problems:
        task_problems[task] = [p.to_dict() for p in problems]
    if task_problems:
        doc.extras["task_problems"] = task_problems
    else:
        doc.extras.pop("task_problems", None)
    if progress is not None:
        progress(Progress(source, pages[-1].number, len(pages), "done"))
    return doc


def _default_type(options: ScanOptions) -> str:
    """The document type to use when a document has none yet (``receipt`` for ``auto``)."""
    return options.document_type if options.document_type and options.document_type != "auto" else "receipt"
