"""PDF files (PyMuPDF): text layers, scanned pages, mixed pages, rendering within a pixel budget."""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.model import Box, Line, Word, union_box
from desktop.core.mupdf import MUPDF_LOCK

if TYPE_CHECKING:  # pragma: no cover
    import pymupdf
from desktop.core.intake.common import (
    _UNREADABLE_TEXT_RATIO,
    CHILD_RENDER_PIXELS,
    IMAGE_TEXT_COVER,
    MAX_IMAGE_PIXELS,
    MAX_RASTER_DPI,
    MIN_UNREAD_IMAGE_AREA,
    MIXED_IMAGE_COVERAGE,
    PDF_DPI,
    RASTER_DPI,
    CorruptFileError,
    EmptyFileError,
    EncryptedPdfError,
    IntakeError,
    _strip_path,
)
from desktop.core.intake.images import _too_large
from desktop.core.intake.page import PageImage
from desktop.core.intake.sniffing import _check_file, _read_head, _sniff_bytes


def _text_cover(raw_words: list[tuple], box: Any, pymupdf: Any) -> float:
    """Share of ``box`` (unrotated page space) covered by text-layer word boxes."""
    area = abs(box.width * box.height)
    if area <= 0:
        return 1.0
    inside = 0.0
    for w in raw_words:
        r = pymupdf.Rect(w[:4]) & box
        if not r.is_empty:
            inside += abs(r.width * r.height)
    return min(1.0, inside / area)






def _pymupdf() -> Any:
    import pymupdf

    return pymupdf


def _virtual_pdf(path: Path) -> tuple[str, bytes, dict[int, list[Diagnostic]], dict[int, list[Any]] | None] | None:
    """For an OFD package or an XML invoice: ``(format, PDF bytes drawn from it, page warnings, page
    lines)``; the lines (OFD only, :class:`desktop.core.einvoice.ofd.OfdLine` in page mm) come from the
    page XML, so an OFD page's text is its own, not a re-reading of the drawing.

    Raises:
        CorruptFileError: the OFD package or XML cannot be drawn (the reason from :mod:`desktop.core.einvoice`).
    """
    head = _read_head(path, 4096)
    if _sniff_bytes(head) is not None:
        return None
    from desktop.core import einvoice
    from desktop.core.einvoice import ofd, render

    try:
        if head.startswith(b"PK\x03\x04"):
            if not ofd.is_ofd(path):
                return None
            drawn = ofd.to_pdf(path)
            return "ofd", drawn.pdf, drawn.warnings, drawn.lines
        if einvoice.looks_like_xml(head):
            return "xml", render.to_pdf(path), {}, None
    except ofd.OfdError as exc:
        raise CorruptFileError(path, diag(Code.OFD_UNREADABLE, detail=str(exc))) from None
    except einvoice.EInvoiceError as exc:
        raise CorruptFileError(path, diag(Code.XML_INVOICE_UNREADABLE, detail=exc.reason)) from None
    except OSError as exc:
        raise IntakeError(path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None
    return None




def _open_pdf(path: Path) -> pymupdf.Document:
    """Open a PDF, unlocking it with the empty password where that suffices.

    Raises:
        CorruptFileError: MuPDF cannot open it (or repaired it into nothing).
        EncryptedPdfError: it needs a user password.
        EmptyFileError: it has no pages.
    """
    pymupdf = _pymupdf()
    virtual = _virtual_pdf(path) if path.exists() else None
    try:
        if virtual is not None:
            doc = pymupdf.open(stream=virtual[1], filetype="pdf")
            doc._shoebox_origin = virtual[0]  # read back by _pdf_page_image
            doc._shoebox_warnings = virtual[2]
            doc._shoebox_lines = virtual[3]
        else:
            doc = pymupdf.open(str(path), filetype="pdf")
    except FileNotFoundError:
        raise IntakeError(path, diag(Code.FILE_NOT_FOUND)) from None
    except Exception as exc:  # FileDataError, RuntimeError, ValueError
        detail = _strip_path(str(exc), path)
        reason = (diag(Code.PDF_DAMAGED_UNOPENABLE) if detail.lower().startswith("failed to open file")
                  else diag(Code.PDF_UNOPENABLE_DETAIL, detail=detail))
        raise CorruptFileError(path, reason) from exc
    # A PDF may be encrypted with only an owner password (restricting printing or copying): it
    # opens with the empty user password (ISO 32000-1, 7.6.3.3) and is read normally.
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise EncryptedPdfError(path, diag(Code.PDF_ENCRYPTED))
    try:
        count = doc.page_count
    except Exception as exc:
        doc.close()
        raise CorruptFileError(path, diag(Code.PDF_DAMAGED, detail=_strip_path(str(exc), path))) from exc
    if getattr(doc, "is_repaired", False) and virtual is None:
        doc._shoebox_truncated = _cut_short(path)
    if count == 0:
        repaired = bool(getattr(doc, "is_repaired", False))
        doc.close()
        if repaired:
            raise CorruptFileError(path, diag(Code.PDF_NOTHING_RECOVERED))
        raise EmptyFileError(path, diag(Code.PDF_NO_PAGES))
    return doc


def _cut_short(path: Path) -> bool:
    """Whether a PDF file stops before its end: no ``%%EOF`` marker in its last 1 KiB (ISO 32000-1,
    7.5.5: a file's last line is ``%%EOF``; readers tolerate a little trailing junk after it, which the
    1 KiB allows). ``False`` when the file cannot be read back."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 1024))
            return b"%%EOF" not in f.read()
    except OSError:
        return False


def _iter_pdf_pages(path: Path, doc: pymupdf.Document) -> Iterator[PageImage]:
    try:
        for index in range(doc.page_count):
            with MUPDF_LOCK:
                page = _pdf_page_image(path, doc, index)
            yield page
    finally:
        with MUPDF_LOCK:
            doc.close()


#: MuPDF messages that say part of a page's content could not be loaded (its content stream is
#: damaged or missing), as opposed to repairs that lose nothing (a rebuilt cross-reference table).
_LOST_CONTENT = re.compile(r"content stream|cannot load|zlib|flate|syntax error|unknown keyword|premature end|"
                           r"cannot read|unexpected|corrupt", re.I)


#: MuPDF messages about colour management only (ISO 32000-1, 8.6.5.5 ICCBased colour spaces; 14.11.5
#: output intents), which never lose a page's text or images.
_COLOUR_ONLY = re.compile(r"\bICC\b|output intent|colou?r\s*space", re.I)


def _content_lost(doc: Any, page: Any, mupdf_messages: str, has_text: bool, has_images: bool) -> Diagnostic | None:
    """A page warning when repairing a damaged PDF lost (part of) this page's content, else ``None``.

    Rules: MuPDF reported, while loading the page, a content stream it could not load or decode
    (:data:`_LOST_CONTENT`); or the file was repaired and the page has no content stream left and
    nothing on it (a page of a damaged file that reads as blank lost its content in the repair).
    """
    lines = [ln.strip() for ln in (mupdf_messages or "").splitlines() if ln.strip()]
    # a broken ICC profile (a colour space, an output intent) costs colour accuracy, not content: MuPDF
    # draws with a default colour space instead
    bad = [ln for ln in lines if _LOST_CONTENT.search(ln) and not _COLOUR_ONLY.search(ln)]
    if bad:
        return diag(Code.PDF_CONTENT_LOST, detail=bad[0])
    try:
        streams = page.get_contents()
    except Exception:
        streams = []
    if getattr(doc, "is_repaired", False) and not streams and not has_text and not has_images:
        return diag(Code.PDF_PAGE_CONTENT_GONE)
    return None


def _pdf_page_image(path: Path, doc: pymupdf.Document, index: int) -> PageImage:
    """Analyse one PDF page: size, text layer, images -> :class:`PageImage` (no rendering)."""
    pymupdf = _pymupdf()
    pymupdf.TOOLS.mupdf_warnings(reset=True)  # what MuPDF says while loading this page, only
    try:
        page = doc[index]
        rect = page.rect  # displayed page (CropBox, after /Rotate), in points
        zoom = PDF_DPI / 72.0
        width = max(1, round(rect.width * zoom))
        height = max(1, round(rect.height * zoom))
        warnings: list[Diagnostic] = []
        if getattr(doc, "is_repaired", False):
            warnings.append(diag(Code.PDF_TRUNCATED if getattr(doc, "_shoebox_truncated", False) else Code.PDF_REPAIRED))

        # Text layer: word boxes come in unrotated page space; rotation_matrix maps them to the
        # displayed (rendered) orientation.
        raw_words = [w for w in page.get_text("words") if w[4].strip()]
        lines = _words_to_lines(raw_words, page.rotation_matrix, zoom, pymupdf)
        if lines:
            chars = "".join(line.text for line in lines)
            bad = chars.count("\ufffd") + chars.count("\x00")
            if chars and bad / len(chars) > _UNREADABLE_TEXT_RATIO:
                warnings.append(
                    diag(Code.TEXT_LAYER_UNDECODABLE)
                )
                lines = []

        # Images: how much of the page they cover, and how fine the finest large one is.
        unrotated = page.rect * page.derotation_matrix
        page_area = max(abs(unrotated.width * unrotated.height), 1e-6)
        covered = 0.0
        image_dpi = 0.0
        biggest = 0.0
        unread_image = False
        for info in page.get_image_info():
            box = pymupdf.Rect(info["bbox"]) & unrotated
            if box.is_empty:
                continue
            area = abs(box.width * box.height)
            covered += area
            if lines and not unread_image and area >= MIN_UNREAD_IMAGE_AREA:
                unread_image = _text_cover(raw_words, box, pymupdf) < IMAGE_TEXT_COVER
            full = pymupdf.Rect(info["bbox"])
            full_area = abs(full.width * full.height)
            if area > biggest and full_area > 0 and info.get("width") and info.get("height"):
                biggest = area
                image_dpi = 72.0 * math.sqrt(info["width"] * info["height"] / full_area)
        coverage = min(1.0, covered / page_area)
        lost = _content_lost(doc, page, pymupdf.TOOLS.mupdf_warnings(reset=True), bool(lines), covered > 0)
        if lost:
            warnings.append(lost)
    except IntakeError:
        raise
    except Exception as exc:  # MuPDF errors on a broken page
        raise CorruptFileError(path, diag(Code.PDF_PAGE_DAMAGED, page=index + 1, detail=_strip_path(str(exc), path))) from exc

    virtual = getattr(doc, "_shoebox_origin", None)
    if virtual is not None:  # an OFD page or an XML invoice's view: its drawing's text is all there is
        origin = "ofd" if virtual == "ofd" else "xml_view"
        warnings.extend(getattr(doc, "_shoebox_warnings", {}).get(index + 1, []))
        own = (getattr(doc, "_shoebox_lines", None) or {}).get(index + 1)
        if own is not None:
            lines = _ofd_lines(own, page.rotation_matrix, zoom, pymupdf)
        return PageImage(source=path, number=index + 1, width=width, height=height, dpi=PDF_DPI, origin=origin,
                         text_lines=lines or None, needs_ocr=not lines, warnings=warnings, _format="pdf",
                         _raster_dpi=RASTER_DPI)
    if lines and (coverage >= MIXED_IMAGE_COVERAGE or unread_image):
        origin, needs_ocr = "pdf_mixed", True
    elif lines:
        origin, needs_ocr = "pdf_text", False
    else:
        origin, needs_ocr = "pdf_image", True
    raster_dpi = RASTER_DPI
    if origin != "pdf_text" and image_dpi > RASTER_DPI:
        raster_dpi = min(image_dpi, MAX_RASTER_DPI, PDF_DPI)
    return PageImage(
        source=path,
        number=index + 1,
        width=width,
        height=height,
        dpi=PDF_DPI,
        origin=origin,
        text_lines=lines or None,
        needs_ocr=needs_ocr,
        warnings=warnings,
        _format="pdf",
        _raster_dpi=raster_dpi,
    )


def _ofd_lines(own: list[Any], matrix: Any, zoom: float, pymupdf: Any) -> list[Line]:
    """OFD text lines (page mm, :class:`desktop.core.einvoice.ofd.OfdLine`) as lines in page pixels."""
    from desktop.core.einvoice.ofd import MM_TO_PT

    def px(b: tuple[float, float, float, float]) -> Box:
        r = pymupdf.Rect(b[0] * MM_TO_PT, b[1] * MM_TO_PT, b[2] * MM_TO_PT, b[3] * MM_TO_PT) * matrix
        return (min(r.x0, r.x1) * zoom, min(r.y0, r.y1) * zoom, max(r.x0, r.x1) * zoom, max(r.y0, r.y1) * zoom)

    out = [Line(text=ln.text, box=px(ln.box), confidence=1.0, words=[Word(t, px(b), 1.0) for t, b in ln.words])
           for ln in own if ln.text.strip()]
    return _reading_order(out)


def _words_to_lines(raw_words: list[tuple], matrix: Any, zoom: float, pymupdf: Any) -> list[Line]:
    """Group PyMuPDF words ``(x0, y0, x1, y1, text, block, line, word)`` into lines in page pixels.

    MuPDF's (block, line) numbering gives the lines; boxes are mapped through ``matrix`` (the page's
    rotation matrix) and scaled by ``zoom`` (page px per point). Lines are returned in reading order:
    rows top to bottom (lines overlapping vertically by more than half the smaller height share a
    row), left to right within a row.
    """
    groups: dict[tuple[int, int], list[Word]] = {}
    for x0, y0, x1, y1, text, block, line_no, _word_no in raw_words:
        r = pymupdf.Rect(x0, y0, x1, y1) * matrix
        box = (r.x0 * zoom, r.y0 * zoom, r.x1 * zoom, r.y1 * zoom)
        box = (min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3]))
        groups.setdefault((block, line_no), []).append(Word(text=text, box=box, confidence=1.0))
    lines = []
    for words in groups.values():
        line_box = union_box([w.box for w in words])
        assert line_box is not None
        lines.append(Line(text=" ".join(w.text for w in words), box=line_box, confidence=1.0, words=words))
    return _reading_order(lines)


def _reading_order(lines: list[Line]) -> list[Line]:
    """Sort lines top to bottom, then left to right within a row of vertically overlapping lines."""
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.box[1], ln.box[0])):
        if rows:
            row = rows[-1]
            ref = row[0].box
            overlap = min(ref[3], line.box[3]) - max(ref[1], line.box[1])
            smaller = min(ref[3] - ref[1], line.box[3] - line.box[1])
            if smaller > 0 and overlap > 0.5 * smaller:
                row.append(line)
                continue
        rows.append([line])
    return [line for row in rows for line in sorted(row, key=lambda ln: ln.box[0])]

_IN_RENDER_CHILD = False


def _pixmap_array(pdf_page: Any, zoom: float) -> np.ndarray:
    """Rasterise an open PyMuPDF page at ``zoom`` (pixels per point) as an ``(H, W, 3)`` uint8 RGB array."""
    pymupdf = _pymupdf()
    pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csRGB, alpha=False)
    array = np.frombuffer(pix.samples_mv, dtype=np.uint8)
    array = array.reshape(pix.height, pix.stride)[:, : pix.width * 3].reshape(pix.height, pix.width, 3).copy()
    del pix
    return array


def _child_render(path: str, number: int, zoom: float) -> np.ndarray:
    """Runs in the child process of :func:`_render_in_child`."""
    global _IN_RENDER_CHILD
    _IN_RENDER_CHILD = True
    pymupdf = _pymupdf()
    doc = pymupdf.open(path, filetype="pdf")
    try:
        return _pixmap_array(doc[number - 1], zoom)
    finally:
        doc.close()


def _render_in_child(path: Path, number: int, zoom: float) -> np.ndarray | None:
    """Render page ``number`` at ``zoom`` in a fresh (spawned) process; ``None`` when no child could run.

    """
    import logging
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    except (OSError, ValueError, RuntimeError) as exc:
        logging.getLogger(__name__).warning("no child process for rendering %s page %d: %s", path.name, number, exc)
        return None
    try:
        return executor.submit(_child_render, str(path), int(number), float(zoom)).result()
    except (BrokenProcessPool, OSError, RuntimeError, Exception) as exc:
        # The child could not start (a main script without the ``if __name__ == "__main__"`` guard,
        # no resources) or the page failed there: render here, which raises the page's own error.
        logging.getLogger(__name__).warning("rendering %s page %d in a child process failed (%s); rendering here", path.name, number, exc)
        return None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def _render_pdf_page(page: PageImage, budget: int) -> tuple[np.ndarray, float]:
    """Rasterise a PDF page straight at the resolution that fits ``budget``. Returns ``(array, scale)``."""
    pymupdf = _pymupdf()
    path = page.source
    try:
        _check_file(path)
    except EmptyFileError:
        raise CorruptFileError(path, diag(Code.FILE_EMPTIED)) from None
    with MUPDF_LOCK:
        doc = _open_pdf(path)
        try:
            if page.number > doc.page_count:
                raise IntakeError(path, diag(Code.PAGE_GONE, page=page.number))
            pdf_page = doc[page.number - 1]
            rect = pdf_page.rect
            w_pt, h_pt = max(rect.width, 1e-3), max(rect.height, 1e-3)
            dpi = min(page._raster_dpi, 72.0 * math.sqrt(budget / (w_pt * h_pt)))
            zoom = dpi / 72.0
            # MuPDF rounds the pixmap size outwards; shrink the zoom a hair until it fits the budget.
            for _ in range(50):
                ir = (rect * pymupdf.Matrix(zoom, zoom)).irect
                if ir.width * ir.height <= budget:
                    break
                zoom *= 0.998
            largest = 0
            for info in pdf_page.get_image_info():
                if info.get("width", 0) * info.get("height", 0) > MAX_IMAGE_PIXELS:
                    raise _too_large(path, int(info["width"]), int(info["height"]))
                largest = max(largest, int(info.get("width", 0)) * int(info.get("height", 0)))
            array = None
            if largest > CHILD_RENDER_PIXELS and not _IN_RENDER_CHILD:
                array = _render_in_child(path, page.number, zoom)
            if array is None:
                array = _pixmap_array(pdf_page, zoom)
        except IntakeError:
            raise
        except MemoryError:
            raise IntakeError(path, diag(Code.RENDER_OUT_OF_MEMORY, page=page.number)) from None
        except Exception as exc:
            raise CorruptFileError(path, diag(Code.PDF_PAGE_UNRENDERABLE, page=page.number,
                                        detail=_strip_path(str(exc), path))) from exc
        finally:
            doc.close()
            try:
                pymupdf.TOOLS.store_shrink(100)  # drop MuPDF's cache of decoded images
            except Exception:
                pass
    return array, zoom / (PDF_DPI / 72.0)


def _crop_of_whole(page: PageImage, box: tuple[float, float, float, float], scale: float) -> np.ndarray:
    """``box`` (page pixels) of the whole page rendered at ``scale`` (the way for turned pages)."""
    full, got = page.render(int(page.width * page.height * scale * scale) + 1)
    x0, y0, x1, y1 = (int(round(v * got)) for v in box)
    return np.ascontiguousarray(full[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)])



def _render_pdf_region(page: PageImage, box: tuple[float, float, float, float], scale: float) -> np.ndarray:
    """Rasterise ``box`` (page pixels) of a PDF page at ``scale`` (see :meth:`PageImage.render_region`)."""
    pymupdf = _pymupdf()
    path = page.source
    pt = 72.0 / PDF_DPI  # points per page pixel
    with MUPDF_LOCK:
        doc = _open_pdf(path)
        try:
            if page.number > doc.page_count:
                raise IntakeError(path, diag(Code.PAGE_GONE, page=page.number))
            pdf_page = doc[page.number - 1]
            if pdf_page.rotation % 360:  # /Rotate: page pixels are the turned page; render it whole
                return _crop_of_whole(page, box, scale)
            origin = pdf_page.rect.tl
            clip = pymupdf.Rect(origin.x + box[0] * pt, origin.y + box[1] * pt, origin.x + box[2] * pt,
                                origin.y + box[3] * pt)
            zoom = scale / pt
            pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, colorspace=pymupdf.csRGB,
                                      alpha=False)
            array = np.frombuffer(pix.samples_mv, dtype=np.uint8)
            array = array.reshape(pix.height, pix.stride)[:, : pix.width * 3].reshape(pix.height, pix.width, 3).copy()
            del pix
        except IntakeError:
            raise
        except MemoryError:
            raise IntakeError(path, diag(Code.RENDER_OUT_OF_MEMORY, page=page.number)) from None
        except Exception as exc:
            raise CorruptFileError(path, diag(Code.PDF_PAGE_UNRENDERABLE, page=page.number,
                                              detail=_strip_path(str(exc), path))) from exc
        finally:
            doc.close()
    return array

