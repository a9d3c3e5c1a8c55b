"""Intake: open image files and PDFs as a sequence of upright RGB pages.

What comes in
-------------
JPEG, PNG, TIFF (every frame of a multi-page TIFF is a page), BMP, WebP, HEIC/HEIF (through
pillow-heif, registered on first use) and PDF (through PyMuPDF). The format is told from the file's
first bytes (:func:`sniff_format`), never from its name, so a PNG called ``scan.jpg`` still opens.
Anything else, or a damaged file, raises a named :class:`IntakeError` subclass whose text names the
file and says what is wrong in plain words, e.g.
``receipt.jpg: the file is damaged or not a complete image (cannot identify image data)``.

Coordinate system
-----------------
Every :class:`PageImage` has a size in **page pixels** (see :mod:`desktop.core.model`): x to the
right, y down, origin top-left, upright as the user sees the page.

- Images: page pixels are the pixels of the full-resolution image *after* its EXIF orientation is
  applied (``PIL.ImageOps.exif_transpose``), whatever resolution :meth:`PageImage.render` later
  produces.
- PDF pages: page pixels are PDF points of the page as displayed (CropBox, after its ``/Rotate``)
  times ``PDF_DPI / 72``. ``PDF_DPI`` is a fixed nominal resolution, so boxes do not depend on the
  resolution an engine asked for; :meth:`PageImage.render` renders at whatever resolution suits the
  engine and its pixel budget and returns the ``scale`` that maps back.
- :meth:`PageImage.rotated` turns the page pixels clockwise and carries its text boxes along.

A box on a rendered array maps back to page pixels by dividing by the returned ``scale``.

PDF pages
---------
A page with a real text layer is read from the layer (``origin="pdf_text"``, no OCR needed): PyMuPDF's
words (``page.get_text("words")``) grouped into :class:`~desktop.core.model.Line` objects. A page
without text (a scan, or text drawn as outlines) is rasterised for OCR (``origin="pdf_image"``). A page
with both a text layer and images covering a good part of it (a scanned invoice with a typed header,
or an OCRmyPDF "sandwich") is ``origin="pdf_mixed"``: its text lines are filled *and* it needs OCR, the
pipeline merges the two.

Memory
------
Pages are opened lazily. :meth:`PageImage.render` honours a pixel budget without ever holding a much
larger copy than needed: JPEGs are decoded at a reduced DCT scale (``Image.draft``), PDFs are rendered
directly at the target zoom (MuPDF subsamples embedded images while decoding where it can), and the
MuPDF image cache is emptied after each render.
"""
from __future__ import annotations

import math
import os
import re
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from desktop.core.diagnostics import Code, Diagnostic, Severity, diag, text
from desktop.core.model import Box, Line, Point, Word, union_box

if TYPE_CHECKING:  # pragma: no cover
    import pymupdf

__all__ = [
    "MAX_IMAGE_PIXELS",
    "MAX_RASTER_DPI",
    "MIXED_IMAGE_COVERAGE",
    "MUPDF_LOCK",
    "PDF_DPI",
    "RASTER_DPI",
    "SUPPORTED_SUFFIXES",
    "CorruptFileError",
    "EmptyFileError",
    "EncryptedPdfError",
    "ImageTooLargeError",
    "IntakeError",
    "PageImage",
    "UnsupportedFormatError",
    "count_pages",
    "load_page",
    "open_pages",
    "sniff_format",
]

# --------------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------------

SUPPORTED_SUFFIXES: tuple[str, ...] = (
    ".jpg", ".jpeg", ".jpe", ".png", ".tif", ".tiff", ".bmp", ".webp", ".heic", ".heif", ".pdf", ".ofd", ".xml",
)
"""Lower-case file name suffixes offered in file dialogs and kept when walking folders.

:func:`open_pages` itself ignores the suffix and reads the content."""

PDF_DPI: float = 300.0
"""Nominal resolution of PDF page pixels: page px = PDF points * PDF_DPI / 72 (an A4 page is
2480 x 3508 page px, the size of a 300 dpi scan of it). Fixed, so that boxes are the same whatever
engine read the page, and equal to :data:`MAX_RASTER_DPI`, so that the ``scale`` returned by
:meth:`PageImage.render` is never above 1 for PDF pages either. Page pixels are only a coordinate
system: nothing is ever allocated at this resolution unless the pixel budget allows it."""

RASTER_DPI: float = 200.0
"""Resolution PDF pages are rasterised at for OCR when the pixel budget allows. At 200 dpi 8 pt print
is about 22 px per em (x-height ~11 px): enough for PP-OCR, whose detector resizes pages to ~960 px
on the long side by default and whose recogniser scales line crops to 48 px high; going higher mostly
costs time. Scanned pages finer than this are rendered at their own resolution (see
:data:`MAX_RASTER_DPI`)."""

MAX_RASTER_DPI: float = 300.0
"""Upper bound for rasterising scanned PDF pages: a page whose embedded scan is finer than
``RASTER_DPI`` is rendered at its own resolution up to this (still within the pixel budget)."""

MIXED_IMAGE_COVERAGE: float = 0.2
"""A page with a text layer whose images cover at least this fraction of its area is treated as
``pdf_mixed`` (logos and signatures stay well below it; a scan under a typed header does not)."""

MIN_UNREAD_IMAGE_AREA: float = 4 * 72 * 72
"""Images of at least this area (PDF points squared: 4 square inches, a small till receipt is about
2 x 3 in) on a text-layer page are read by OCR when the text layer does not cover what they show
(:data:`IMAGE_TEXT_COVER`), whatever share of the page they take: a photographed receipt on an
expense-claim page with a typed header. Logos and signatures are smaller."""

IMAGE_TEXT_COVER: float = 0.05
"""Share of an image's area that text-layer words must cover for the text layer to count as saying
what the image shows (a searchable scan's invisible text covers far more; an image with no words
over it is content the text layer does not have)."""


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


MAX_IMAGE_PIXELS: int = 200_000_000
"""Largest image (width * height) Shoebox opens: a 600 dpi A3 scan is 70 Mpx, so 200 Mpx leaves room
for real scans while a decompression bomb (a tiny file claiming gigapixels) is refused with
:class:`ImageTooLargeError` before anything is decoded. Pillow's own guard
(``PIL.Image.MAX_IMAGE_PIXELS``, default 89 Mpx) is raised to the same value."""

_UNREADABLE_TEXT_RATIO = 0.3
"""A PDF text layer where more than this fraction of characters are U+FFFD (fonts without a Unicode
mapping) is ignored and the page is OCRed instead."""

if Image.MAX_IMAGE_PIXELS is not None and Image.MAX_IMAGE_PIXELS < MAX_IMAGE_PIXELS:
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
# Pillow warns on opening an image over its limit; intake refuses such images itself (with a message
# naming the file), so the warning is only noise on stderr. A process-wide filter: catch_warnings is
# not thread-safe and pages are opened in worker threads.
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)

_PIL_FORMATS: dict[str, list[str]] = {
    "jpeg": ["JPEG"],  # the JPEG opener also returns MPO files (phone photos with extra frames)
    "png": ["PNG"],
    "tiff": ["TIFF"],
    "bmp": ["BMP"],
    "webp": ["WEBP"],
    "heif": ["HEIF"],
}

_FORMAT_LABELS = {
    "jpeg": "JPEG", "png": "PNG", "tiff": "TIFF", "bmp": "BMP", "webp": "WebP", "heif": "HEIC/HEIF",
    "pdf": "PDF", "ofd": "OFD", "xml": "XML invoice",
}

PDF_LIKE = ("pdf", "ofd", "xml")
"""Formats read through the PDF code path: PDFs, and OFD packages and XML invoices, which
:mod:`desktop.core.einvoice` draws as PDF pages (an OFD page as printed, an XML invoice as a generated
view); their pages are ``origin="ofd"`` / ``"xml_view"`` with the text of the drawing as their text layer."""

# EXIF orientation (TIFF/EXIF tag 274) -> transposition that makes the image upright, as in
# PIL.ImageOps.exif_transpose (values per the EXIF 2.32 standard, CIPA DC-008, tag 0x0112).
_SWAPPING_ORIENTATIONS = (5, 6, 7, 8)
_EXIF_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}

# --------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------


class IntakeError(Exception):
    """A file could not be opened as pages.

    Attributes:
        path: the file.
        diagnostic: what went wrong (:class:`~desktop.core.diagnostics.Diagnostic`; its message is in
            words a clerk understands, no stack traces, no library jargon beyond a short detail).
        reason: the diagnostic's English message.

    ``str(error)`` is ``"<file name>: <reason>"``.
    """

    def __init__(self, path: str | os.PathLike[str], reason: Diagnostic | str) -> None:
        self.path = Path(path)
        self.diagnostic = reason if isinstance(reason, Diagnostic) else text(reason, severity=Severity.ERROR)
        self.reason = self.diagnostic.message()
        super().__init__(f"{self.path.name}: {self.reason}")


class UnsupportedFormatError(IntakeError):
    """The file is not one of the formats Shoebox reads (or uses a variant it cannot decode)."""


class CorruptFileError(IntakeError):
    """The file claims a supported format but is damaged, truncated or unreadable."""


class EncryptedPdfError(IntakeError):
    """The PDF needs a password to be opened."""


class EmptyFileError(IntakeError):
    """The file is empty (0 bytes) or a PDF without pages."""


class ImageTooLargeError(IntakeError):
    """The image has more than :data:`MAX_IMAGE_PIXELS` pixels (possibly a decompression bomb)."""


# --------------------------------------------------------------------------------------------------
# Format sniffing
# --------------------------------------------------------------------------------------------------

_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs"}
_AVIF_BRANDS = {b"avif", b"avis"}
_GENERIC_HEIF_BRANDS = {b"mif1", b"msf1", b"mif2"}

# Recognised but unsupported signatures -> a helpful description.
_OTHER_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive or an Office document"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old-style Office document"),
    (b"\x00\x00\x00\x0cjP  \r\n\x87\n", "a JPEG 2000 image"),
    (b"\xff\x4f\xff\x51", "a JPEG 2000 image"),
    (b"%!PS", "a PostScript file"),
    (b"AT&TFORM", "a DjVu document"),
    (b"{\\rtf", "an RTF document"),
    (b"Rar!", "a RAR archive"),
    (b"\x1f\x8b", "a gzip archive"),
)


def _check_file(path: Path) -> int:
    """Check that ``path`` is a readable, non-empty file; returns its size in bytes.

    Raises:
        IntakeError: missing, a folder, or unreadable.
        EmptyFileError: 0 bytes.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise IntakeError(path, diag(Code.FILE_NOT_FOUND)) from None
    except PermissionError:
        raise IntakeError(path, diag(Code.PERMISSION_DENIED)) from None
    except OSError as exc:
        raise IntakeError(path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None
    if path.is_dir():
        raise IntakeError(path, diag(Code.IS_A_FOLDER))
    if st.st_size == 0:
        raise EmptyFileError(path, diag(Code.EMPTY_FILE))
    return st.st_size


def _read_head(path: Path, n: int = 1024) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except PermissionError:
        raise IntakeError(path, diag(Code.PERMISSION_DENIED)) from None
    except OSError as exc:
        raise IntakeError(path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None


def _sniff_bytes(head: bytes) -> str | None:
    """Format name for the first bytes of a file, or ``None``."""
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):  # classic TIFF and BigTIFF
        return "tiff"
    if head.startswith(b"BM") and len(head) >= 14:
        return "bmp"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[4:8] == b"ftyp":
        major = head[8:12]
        box_len = int.from_bytes(head[0:4], "big")
        compatible = {head[i:i + 4] for i in range(16, min(box_len, len(head)) - 3, 4)}
        brands = {major} | compatible
        if major in _HEIF_BRANDS or (major in _GENERIC_HEIF_BRANDS and brands & _HEIF_BRANDS):
            return "heif"
        if brands & _AVIF_BRANDS:
            return "avif"
        if major in _GENERIC_HEIF_BRANDS:
            return "heif"
        return None
    # PDF: "%PDF-" may follow some junk; readers accept it within the first 1024 bytes
    # (PDF 1.7, ISO 32000-1, Annex H.3 note 13 on the file header).
    if b"%PDF-" in head[:1024]:
        return "pdf"
    return None


def sniff_format(path: str | os.PathLike[str]) -> str:
    """Tell a file's format from its first bytes (magic numbers), ignoring its name.

    Args:
        path: the file.

    Returns:
        ``"jpeg"``, ``"png"``, ``"tiff"``, ``"bmp"``, ``"webp"``, ``"heif"`` or ``"pdf"``.

    Raises:
        IntakeError: the file is missing or cannot be read.
        EmptyFileError: the file is empty.
        UnsupportedFormatError: any other content (the message says what it looks like when known).
    """
    p = Path(path)
    _check_file(p)
    head = _read_head(p)
    if not head:
        raise EmptyFileError(p, diag(Code.EMPTY_FILE))
    fmt = _sniff_bytes(head)
    if fmt is None:
        fmt = _sniff_einvoice(p, head)
    if fmt == "avif":
        raise UnsupportedFormatError(p, diag(Code.UNSUPPORTED_AVIF))
    if fmt is not None:
        return fmt
    for magic, what in _OTHER_SIGNATURES:
        if head.startswith(magic):
            raise UnsupportedFormatError(p, diag(Code.UNSUPPORTED_KIND, kind=what))
    if _looks_like_text(head):
        raise UnsupportedFormatError(p, diag(Code.UNSUPPORTED_TEXT_FILE))
    raise UnsupportedFormatError(p, diag(Code.UNRECOGNISED_CONTENT))


def _sniff_einvoice(path: Path, head: bytes) -> str | None:
    """``"ofd"`` for an OFD package (a ZIP with ``OFD.xml``), ``"xml"`` for an XML e-invoice (CII, UBL or
    Chinese e-invoice XML, by its root element), else ``None``.

    Raises:
        CorruptFileError: an XML file that is hostile or malformed, or an XML file that is not an invoice
            (the message says what its root element is).
    """
    from desktop.core import einvoice
    from desktop.core.einvoice import ofd

    if head.startswith(b"PK\x03\x04"):
        return "ofd" if ofd.is_ofd(path) else None
    if not einvoice.looks_like_xml(head):
        return None
    try:
        einvoice.read_xml(path.read_bytes())
    except einvoice.EInvoiceError as exc:
        if exc.not_an_invoice:
            raise UnsupportedFormatError(path, diag(Code.XML_NOT_AN_INVOICE, detail=exc.reason)) from None
        raise CorruptFileError(path, diag(Code.XML_INVOICE_UNREADABLE, detail=exc.reason)) from None
    except OSError as exc:
        raise IntakeError(path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None
    return "xml"


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


def _looks_like_text(head: bytes) -> bool:
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a multi-byte character cut at the end of the sample is still text
        if exc.start < len(head) - 4:
            return False
    return True


# --------------------------------------------------------------------------------------------------
# PageImage
# --------------------------------------------------------------------------------------------------


@dataclass
class PageImage:
    """One page of an input file, ready to render for an engine or the viewer.

    Attributes:
        source: the file it came from.
        number: 1-based page number (PDF) or frame number (multi-page TIFF); 1 for other images.
        width, height: size in page pixels (see the module docstring), after :attr:`rotation`.
        dpi: for PDF pages the nominal resolution of page pixels (:data:`PDF_DPI`); ``None`` for
            images (their resolution tag is not trusted).
        origin: ``"image"``, ``"pdf_text"``, ``"pdf_image"`` or ``"pdf_mixed"``.
        text_lines: for ``pdf_text``/``pdf_mixed`` pages the PDF text layer as lines (boxes in page
            pixels, words filled, confidence 1.0), in reading order; ``None`` otherwise.
        needs_ocr: ``False`` only for ``pdf_text`` pages (the text layer is all there is).
        warnings: notes for the user (text layer unusable, only the first frame read, ...).
        rotation: clockwise degrees (0, 90, 180, 270) already applied to the pixels by
            :meth:`rotated` (EXIF orientation and PDF ``/Rotate`` are *not* counted: they are part of
            how the file is meant to be seen).
    """

    source: Path
    number: int
    width: int
    height: int
    dpi: float | None
    origin: str
    text_lines: list[Line] | None
    needs_ocr: bool
    warnings: list[Diagnostic] = field(default_factory=list)
    rotation: int = 0
    # Private: how to get at the pixels again.
    _format: str = field(default="", repr=False, compare=False)
    _raster_dpi: float = field(default=RASTER_DPI, repr=False, compare=False)

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, max_pixels: int | None = None) -> tuple[np.ndarray, float]:
        """Render the page as an upright RGB array, within a pixel budget.

        Args:
            max_pixels: the most pixels (width * height) the array may have; ``None`` for no budget
                (images at full resolution, PDFs at their raster resolution, both capped at
                :data:`MAX_IMAGE_PIXELS`).

        Returns:
            ``(array, scale)``: ``array`` is ``(H, W, 3)`` ``uint8`` RGB, C-contiguous, upright and
            turned by :attr:`rotation`; ``scale`` is rendered pixels per page pixel, so a box on the
            array divided by ``scale`` is in page pixels; ``0 < scale <= 1`` and
            ``H * W <= max_pixels`` always. Images: ``scale`` is 1 when the image fits the budget.
            PDF pages are rendered straight at :data:`RASTER_DPI` (up to :data:`MAX_RASTER_DPI` for
            scans finer than that), or lower where the budget demands; ``scale`` is
            ``render dpi / PDF_DPI`` (2/3 for a page rendered at 200 dpi).

        Raises:
            CorruptFileError: the pixel data is damaged or truncated.
            UnsupportedFormatError: the file uses a variant that cannot be decoded (a TIFF
                compression or colour mode Pillow lacks).
            ImageTooLargeError: the image is larger than :data:`MAX_IMAGE_PIXELS`.
            IntakeError: the file went missing or cannot be read any more.
            ValueError: ``max_pixels`` < 1.
        """
        if max_pixels is not None and max_pixels < 1:
            raise ValueError(f"max_pixels must be positive, got {max_pixels}")
        budget = MAX_IMAGE_PIXELS if max_pixels is None else min(int(max_pixels), MAX_IMAGE_PIXELS)
        fmt = self._format or sniff_format(self.source)  # PageImage built by hand (tests, fakes)
        if fmt in PDF_LIKE:
            array, scale = _render_pdf_page(self, budget)
        else:
            array, scale = _render_image_page(self, budget, fmt)
        k = (self.rotation // 90) % 4
        if k:
            array = np.ascontiguousarray(np.rot90(array, k=-k))  # negative k = clockwise
        return array, scale

    def render_region(self, box: tuple[float, float, float, float], scale: float) -> np.ndarray:
        """Render only ``box`` of the page (page pixels) at ``scale`` rendered pixels per page pixel.

        Used to read a small content region of a very large page at a legible resolution without
        rendering the whole page at that resolution (:mod:`desktop.core.tiling`). PDF pages are
        rasterised clipped to the region (MuPDF renders nothing else); images are decoded and cropped.

        Returns:
            ``(H, W, 3)`` ``uint8`` RGB of the region, ``H ~ (y1 - y0) * scale``.

        A page turned by :attr:`rotation` (and a PDF page with a ``/Rotate``) is rendered whole at
        ``scale`` (within :data:`MAX_IMAGE_PIXELS`) and cropped.

        Raises:
            ValueError: an empty box, or ``scale`` <= 0.
            IntakeError: as :meth:`render`.
        """
        x0, y0, x1, y1 = (float(v) for v in box)
        x0, y0 = max(0.0, x0), max(0.0, y0)
        x1, y1 = min(float(self.width), x1), min(float(self.height), y1)
        if x1 <= x0 or y1 <= y0 or scale <= 0:
            raise ValueError(f"empty region {box} or scale {scale}")
        if self.rotation % 360:
            return _crop_of_whole(self, (x0, y0, x1, y1), scale)
        fmt = self._format or sniff_format(self.source)
        if fmt == "pdf":
            return _render_pdf_region(self, (x0, y0, x1, y1), scale)
        full, full_scale = _render_image_page(self, MAX_IMAGE_PIXELS, fmt)
        f = full_scale
        crop = full[int(y0 * f):int(np.ceil(y1 * f)), int(x0 * f):int(np.ceil(x1 * f))]
        target = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))
        if (crop.shape[1], crop.shape[0]) != target:
            crop = np.asarray(Image.fromarray(crop).resize(target, Image.Resampling.LANCZOS, reducing_gap=3.0))
        return np.ascontiguousarray(crop)

    # -- rotation ----------------------------------------------------------------------------------

    def rotated(self, degrees_cw: int) -> PageImage:
        """The same page with its pixels turned clockwise.

        Args:
            degrees_cw: 0, 90, 180 or 270 (any multiple of 90; taken modulo 360).

        Returns:
            A new :class:`PageImage`: width and height swapped for 90/270, :attr:`rotation`
            accumulated, every text-line, word and polygon point turned with the pixels
            (page pixels of the turned page). ``self`` is not changed.

        Raises:
            ValueError: ``degrees_cw`` is not a multiple of 90.
        """
        if degrees_cw % 90:
            raise ValueError(f"pages can only be turned by multiples of 90 degrees, not {degrees_cw}")
        k = (degrees_cw // 90) % 4
        if k == 0:
            return replace(self, warnings=list(self.warnings), text_lines=_copy_lines(self.text_lines))
        w, h = self.width, self.height
        lines = None
        if self.text_lines is not None:
            lines = [_rotate_line(line, k, w, h) for line in self.text_lines]
        nw, nh = (h, w) if k % 2 else (w, h)
        return replace(
            self,
            width=nw,
            height=nh,
            rotation=(self.rotation + 90 * k) % 360,
            text_lines=lines,
            warnings=list(self.warnings),
        )


def _rotate_point(x: float, y: float, k: int, w: float, h: float) -> Point:
    """Turn a point of a ``w`` x ``h`` page clockwise by ``k`` quarter turns."""
    if k == 1:
        return (h - y, x)
    if k == 2:
        return (w - x, h - y)
    if k == 3:
        return (y, w - x)
    return (x, y)


def _rotate_box(box: Box, k: int, w: float, h: float) -> Box:
    ax, ay = _rotate_point(box[0], box[1], k, w, h)
    bx, by = _rotate_point(box[2], box[3], k, w, h)
    return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))


def _rotate_line(line: Line, k: int, w: float, h: float) -> Line:
    polygon = None
    if line.polygon:
        polygon = [_rotate_point(x, y, k, w, h) for x, y in line.polygon]
        if len(polygon) == 4:
            # keep "clockwise from top-left": after k clockwise quarter turns the old corner
            # 4-k (mod 4) is the new top-left.
            polygon = polygon[-k:] + polygon[:-k]
    return Line(
        text=line.text,
        box=_rotate_box(line.box, k, w, h),
        confidence=line.confidence,
        polygon=polygon,
        words=[Word(wd.text, _rotate_box(wd.box, k, w, h), wd.confidence) for wd in line.words],
    )


def _copy_lines(lines: list[Line] | None) -> list[Line] | None:
    if lines is None:
        return None
    return [_rotate_line(line, 0, 0, 0) for line in lines]


# --------------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------------


def open_pages(path: str | os.PathLike[str]) -> Iterator[PageImage]:
    """Open a file as pages.

    The file is checked and its header read now (so a missing, empty, unsupported, encrypted or
    unidentifiable file raises here, not on the first ``next``); the pages themselves are built
    one by one as the iterator is consumed, and no pixels are decoded until
    :meth:`PageImage.render`.

    Args:
        path: an image or PDF file (the format is sniffed from its content).

    Returns:
        An iterator of :class:`PageImage`, in page order.

    Raises:
        IntakeError: missing file, a folder, unreadable file.
        EmptyFileError: 0 bytes, or a PDF with no pages.
        UnsupportedFormatError: not a supported format.
        CorruptFileError: a supported format whose header is damaged.
        EncryptedPdfError: a PDF that needs a password.
        ImageTooLargeError: an image above :data:`MAX_IMAGE_PIXELS`.
    """
    p = Path(path)
    fmt = sniff_format(p)
    if fmt in PDF_LIKE:
        with MUPDF_LOCK:
            doc = _open_pdf(p)
        return _iter_pdf_pages(p, doc)
    frames = _probe_image(p, fmt)
    return iter(frames)


def count_pages(path: str | os.PathLike[str]) -> int:
    """Number of pages without decoding any pixels: PDF page count, TIFF frame count, else 1.

    Raises:
        The same errors as :func:`open_pages`.
    """
    p = Path(path)
    fmt = sniff_format(p)
    if fmt in PDF_LIKE:
        with MUPDF_LOCK:
            doc = _open_pdf(p)
            try:
                return doc.page_count
            finally:
                doc.close()
    if fmt == "tiff":
        with _open_image(p, fmt) as (im, _f):
            try:
                return max(1, int(getattr(im, "n_frames", 1)))
            except Exception as exc:  # noqa: BLE001 - a broken IFD chain
                raise _image_error(p, exc) from exc
    return 1


def load_page(path: str | os.PathLike[str], number: int, rotation: int = 0) -> PageImage:
    """Open one page again (for the viewer, or to re-read a page turned by the user).

    Args:
        path: the file.
        number: 1-based page (PDF) or frame (TIFF) number.
        rotation: clockwise degrees to turn the page by (multiple of 90), as :meth:`PageImage.rotated`.

    Returns:
        The page, turned by ``rotation``.

    Raises:
        IntakeError: ``number`` is out of range ("the file has only N pages"), or any error of
            :func:`open_pages`.
        ValueError: ``rotation`` is not a multiple of 90.
    """
    if rotation % 90:
        raise ValueError(f"pages can only be turned by multiples of 90 degrees, not {rotation}")
    p = Path(path)
    fmt = sniff_format(p)
    if fmt in PDF_LIKE:
        with MUPDF_LOCK:
            doc = _open_pdf(p)
            try:
                _check_page_number(p, number, doc.page_count)
                page = _pdf_page_image(p, doc, number - 1)
            finally:
                doc.close()
    else:
        frames = _probe_image(p, fmt)
        _check_page_number(p, number, len(frames))
        page = frames[number - 1]
    return page.rotated(rotation) if rotation % 360 else page


def _check_page_number(path: Path, number: int, count: int) -> None:
    if not 1 <= number <= count:
        pages = "1 page" if count == 1 else f"{count} pages"
        raise IntakeError(path, diag(Code.NO_SUCH_PAGE, number=number, pages=pages))


# --------------------------------------------------------------------------------------------------
# Images (Pillow)
# --------------------------------------------------------------------------------------------------

_heif_lock = threading.Lock()
_heif_registered = False


def _register_heif(path: Path) -> None:
    """Register pillow-heif's opener with Pillow on first use (importing it costs ~50 ms)."""
    global _heif_registered
    with _heif_lock:
        if _heif_registered:
            return
        try:
            import pillow_heif
        except ImportError:
            raise UnsupportedFormatError(path, diag(Code.HEIF_UNAVAILABLE)) from None
        pillow_heif.register_heif_opener()
        _heif_registered = True


class _open_image:  # noqa: N801 - used as a context manager like open()
    """``with _open_image(path, fmt) as (im, f)``: Pillow image opened from a file object.

    Opening from a file object rather than a file name keeps Pillow off its memory-mapping path for
    uncompressed TIFF/BMP, which (Pillow 13.0) mis-sizes the buffer of a TIFF with an Orientation tag.
    """

    def __init__(self, path: Path, fmt: str) -> None:
        self.path = path
        self.fmt = fmt
        self.file: Any = None
        self.image: Image.Image | None = None

    def __enter__(self) -> tuple[Image.Image, Any]:
        if self.fmt == "heif":
            _register_heif(self.path)
        try:
            self.file = open(self.path, "rb")  # noqa: SIM115 - closed in __exit__
        except FileNotFoundError:
            raise IntakeError(self.path, diag(Code.FILE_NOT_FOUND)) from None
        except OSError as exc:
            raise IntakeError(self.path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None
        try:
            self.image = Image.open(self.file, formats=_PIL_FORMATS[self.fmt])
        except Exception as exc:  # noqa: BLE001 - every Pillow failure becomes an IntakeError
            self.file.close()
            raise _image_error(self.path, exc) from exc
        return self.image, self.file

    def __exit__(self, *exc: object) -> None:
        if self.image is not None:
            self.image.close()
        if self.file is not None:
            self.file.close()


def _strip_path(message: str, path: Path) -> str:
    for s in (str(path), repr(str(path)), path.name):
        message = message.replace(s, "").replace("''", "")
    return re.sub(r"\s+", " ", message).strip(" :'\"") or "no details"


def _image_error(path: Path, exc: BaseException) -> IntakeError:
    """Translate a Pillow/pillow-heif exception into an :class:`IntakeError` with a clerk-level message."""
    if isinstance(exc, IntakeError):
        return exc
    if isinstance(exc, Image.DecompressionBombError):
        return ImageTooLargeError(path, diag(Code.IMAGE_TOO_LARGE, limit=MAX_IMAGE_PIXELS // 1_000_000))
    if isinstance(exc, MemoryError):
        return IntakeError(path, diag(Code.IMAGE_OUT_OF_MEMORY))
    if isinstance(exc, UnidentifiedImageError):
        return CorruptFileError(path, diag(Code.IMAGE_DAMAGED, detail="cannot identify image data"))
    detail = _strip_path(str(exc), path)
    low = detail.lower()
    if "truncated" in low or "premature end" in low or "broken data stream" in low:
        return CorruptFileError(path, diag(Code.IMAGE_DAMAGED, detail=detail))
    if "decoder" in low and "not available" in low or "unsupported" in low or "not supported" in low:
        return UnsupportedFormatError(path, diag(Code.IMAGE_VARIANT_UNSUPPORTED, detail=detail))
    if isinstance(exc, FileNotFoundError):
        return IntakeError(path, diag(Code.FILE_NOT_FOUND))
    return CorruptFileError(path, diag(Code.IMAGE_DAMAGED, detail=detail))


def _orientation(im: Image.Image) -> int:
    """EXIF orientation (1..8) of the current frame; 1 when absent or invalid.

    Never decodes pixels: for PNG only an ``eXIf`` chunk before the image data counts (Pillow's
    ``PngImageFile.getexif`` would otherwise decode the whole image to look for a late one).
    """
    if im.format == "PNG" and "exif" not in im.info:
        return 1
    try:
        value = int(im.getexif().get(274, 1))
    except Exception:  # noqa: BLE001 - a broken EXIF block must not stop the page
        return 1
    return value if 1 <= value <= 8 else 1


def _upright_size(im: Image.Image) -> tuple[int, int]:
    """Full-resolution size of the current frame after EXIF orientation, without decoding pixels."""
    tag_v2 = getattr(im, "tag_v2", None)
    if tag_v2 is not None and 256 in tag_v2 and 257 in tag_v2:
        # TIFF: recent Pillow already reports the oriented size, older ones the stored size; the
        # stored width/length tags are unambiguous.
        w, h = int(tag_v2[256]), int(tag_v2[257])
        o = int(tag_v2.get(274, 1) or 1)
    else:
        w, h = im.size
        o = _orientation(im)
    return (h, w) if o in _SWAPPING_ORIENTATIONS else (w, h)


def _probe_image(path: Path, fmt: str) -> list[PageImage]:
    """Read the header(s) of an image file: one :class:`PageImage` per TIFF frame, else one."""
    pages: list[PageImage] = []
    with _open_image(path, fmt) as (im, _f):
        try:
            n = int(getattr(im, "n_frames", 1)) if fmt == "tiff" else 1
            for i in range(max(1, n)):
                if i:
                    im.seek(i)
                w, h = _upright_size(im)
                if w < 1 or h < 1:
                    raise CorruptFileError(path, diag(Code.IMAGE_DAMAGED, detail="zero size"))
                if w * h > MAX_IMAGE_PIXELS:
                    raise _too_large(path, w, h)
                warnings: list[Diagnostic] = []
                if fmt == "webp" and getattr(im, "n_frames", 1) > 1:
                    warnings.append(diag(Code.ANIMATED_FIRST_FRAME))
                pages.append(
                    PageImage(
                        source=path, number=i + 1, width=w, height=h, dpi=None, origin="image",
                        text_lines=None, needs_ocr=True, warnings=warnings, _format=fmt,
                    )
                )
        except IntakeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise _image_error(path, exc) from exc
    return pages


def _too_large(path: Path, w: int, h: int) -> ImageTooLargeError:
    return ImageTooLargeError(path, diag(Code.IMAGE_TOO_LARGE_SIZE, width=w, height=h, megapixels=f"{w * h / 1e6:.0f}",
                                         limit=MAX_IMAGE_PIXELS // 1_000_000))


def _fit_scale(width: float, height: float, budget: int) -> float:
    """Largest scale <= 1 with ``floor(width*s) * floor(height*s) <= budget``."""
    if width * height <= budget:
        return 1.0
    return math.sqrt(budget / (width * height))


def _render_image_page(page: PageImage, budget: int, fmt: str) -> tuple[np.ndarray, float]:
    """Decode an image frame, upright and RGB, at most ``budget`` pixels. Returns ``(array, scale)``."""
    path = page.source
    with _open_image(path, fmt) as (im, _f):
        try:
            if page.number > 1:
                im.seek(page.number - 1)
            up_w, up_h = _upright_size(im)
            if up_w * up_h > MAX_IMAGE_PIXELS:
                raise _too_large(path, up_w, up_h)
            scale = _fit_scale(up_w, up_h, budget)
            target = (max(1, int(up_w * scale)), max(1, int(up_h * scale)))
            orientation = _orientation(im)
            if scale < 1 and im.format in ("JPEG", "MPO"):
                # Decode at 1/2, 1/4 or 1/8 DCT scale: never less than the target, far less memory
                # (a 4961 x 7016 scan decodes at 2481 x 3508 for a 4 Mpx budget).
                swap = orientation in _SWAPPING_ORIENTATIONS
                im.draft(None, (target[1], target[0]) if swap else target)
            im.load()
            if im.format == "TIFF":
                # Pillow >= 11 applies a TIFF's Orientation while loading (and drops the tag, making
                # this a no-op); older versions do not.
                ImageOps.exif_transpose(im, in_place=True)
                frame = im
            elif orientation != 1:
                # what ImageOps.exif_transpose does, with the orientation read before decoding so
                # it matches the page size given by _probe_image
                frame = im.transpose(_EXIF_TRANSPOSE[orientation])
            else:
                frame = im
            frame = _to_8bit(frame, path)
            if frame.size != target:
                frame = frame.resize(target, Image.Resampling.LANCZOS, reducing_gap=3.0)
            if frame.mode != "RGB":
                frame = frame.convert("RGB")
            array = np.array(frame, dtype=np.uint8)  # writable, C-contiguous (H, W, 3)
        except IntakeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise _image_error(path, exc) from exc
    return array, array.shape[1] / _base_width(page)


def _base_width(page: PageImage) -> int:
    """Page width in page pixels before :attr:`PageImage.rotation`."""
    return page.height if (page.rotation // 90) % 2 else page.width


#: Grey-level standard deviation below which a composited image counts as blank, and above which an
#: alpha channel counts as structured (text or drawing): a page of text has a standard deviation of
#: 30-90 grey levels, a blank or flat page under 2.
_BLANK_STD = 2.0
_STRUCTURED_STD = 8.0


def _alpha_only_content(composite: Image.Image, alpha: Image.Image) -> Image.Image | None:
    """The image to read when the visible content lives only in the alpha channel, else ``None``.

    White glyphs on a transparent background, or every pixel white with the text drawn in alpha,
    composite to a blank page on white. When the composite is blank (grey-level standard deviation
    under :data:`_BLANK_STD`) but the alpha channel is structured (over :data:`_STRUCTURED_STD`),
    the alpha channel is the content: it is read as dark (opaque) on light (transparent), inverted
    when most of the image is opaque so that text is dark on a light background.
    """
    c = np.asarray(composite.convert("L"), dtype=np.float32)
    a = np.asarray(alpha, dtype=np.uint8)
    if not a.size or float(c.std()) >= _BLANK_STD or float(a.std()) <= _STRUCTURED_STD:
        return None
    shown = 255 - a if float(a.mean()) < 128 else a  # mostly transparent: the opaque strokes are the text
    out = Image.fromarray(np.ascontiguousarray(shown), "L")
    return out.convert(composite.mode) if composite.mode != "L" else out


def _to_8bit(im: Image.Image, path: Path) -> Image.Image:
    """Convert any Pillow mode to 8-bit ``"L"`` or ``"RGB"``; transparency is composited on white
    (an image whose content lives only in its alpha channel is read from the alpha:
    :func:`_alpha_only_content`).

    Modes: ``1`` (bilevel), ``L``, ``P``/``PA`` (palette, with or without transparency), ``LA``/``La``,
    ``RGBA``/``RGBa``, ``I;16*`` and ``I`` (16/32-bit grey, scaled to 8 bits), ``F`` (float grey),
    ``CMYK``, ``YCbCr``, ``LAB``, ``HSV``.
    """
    mode = im.mode
    if mode in ("L", "RGB"):
        return im
    if mode == "1":
        return im.convert("L")
    if mode == "P":
        im = im.convert("RGBA") if im.has_transparency_data else im.convert("RGB")
        mode = im.mode
        if mode == "RGB":
            return im
    if mode == "PA":
        im = im.convert("RGBA")
        mode = "RGBA"
    if mode in ("La", "RGBa"):
        im = im.convert(mode[0] + "A" if mode == "La" else "RGBA")
        mode = im.mode
    if mode in ("LA", "RGBA"):
        base = "L" if mode == "LA" else "RGB"
        background = Image.new(base, im.size, 255 if base == "L" else (255, 255, 255))
        background.paste(im.convert(base), mask=im.getchannel("A"))
        from_alpha = _alpha_only_content(background, im.getchannel("A"))
        return from_alpha if from_alpha is not None else background
    if mode.startswith("I;16") or mode in ("I", "F"):
        a = np.asarray(im)
        if mode == "F":
            a = np.nan_to_num(a.astype(np.float32))
            peak = float(a.max()) if a.size else 0.0
            a = a * 255.0 if peak <= 1.0 else a
            a8 = np.clip(a, 0, 255).round().astype(np.uint8)
        else:
            a = a.astype(np.int64)
            peak = int(a.max()) if a.size else 0
            if mode.startswith("I;16") or 255 < peak <= 65535:
                a8 = ((np.clip(a, 0, 65535) * 255 + 32767) // 65535).astype(np.uint8)
            elif peak > 65535:
                a8 = (np.clip(a, 0, peak) * 255 // peak).astype(np.uint8)
            else:
                a8 = np.clip(a, 0, 255).astype(np.uint8)
        return Image.fromarray(a8, "L")
    try:
        return im.convert("RGB")
    except (ValueError, OSError) as exc:
        raise UnsupportedFormatError(path, diag(Code.COLOUR_MODE_UNSUPPORTED, mode=mode, detail=str(exc))) from exc


# --------------------------------------------------------------------------------------------------
# PDF (PyMuPDF)
# --------------------------------------------------------------------------------------------------


MUPDF_LOCK = threading.RLock()
"""Serialises every PyMuPDF call made here; other modules calling PyMuPDF should take it too.
PyMuPDF is not thread-safe ("PyMuPDF does not support running on multiple threads", PyMuPDF docs,
*Multiprocessing*), and the GUI may render a page for the viewer while a worker thread scans."""


def _pymupdf() -> Any:
    import pymupdf

    return pymupdf


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
            doc._shoebox_origin = virtual[0]  # noqa: SLF001 - read back by _pdf_page_image
            doc._shoebox_warnings = virtual[2]  # noqa: SLF001
            doc._shoebox_lines = virtual[3]  # noqa: SLF001
        else:
            doc = pymupdf.open(str(path), filetype="pdf")
    except FileNotFoundError:
        raise IntakeError(path, diag(Code.FILE_NOT_FOUND)) from None
    except Exception as exc:  # noqa: BLE001 - FileDataError, RuntimeError, ValueError
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
    except Exception as exc:  # noqa: BLE001
        doc.close()
        raise CorruptFileError(path, diag(Code.PDF_DAMAGED, detail=_strip_path(str(exc), path))) from exc
    if count == 0:
        repaired = bool(getattr(doc, "is_repaired", False))
        doc.close()
        if repaired:
            raise CorruptFileError(path, diag(Code.PDF_NOTHING_RECOVERED))
        raise EmptyFileError(path, diag(Code.PDF_NO_PAGES))
    return doc


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


def _content_lost(doc: Any, page: Any, mupdf_messages: str, has_text: bool, has_images: bool) -> Diagnostic | None:
    """A page warning when repairing a damaged PDF lost (part of) this page's content, else ``None``.

    Rules: MuPDF reported, while loading the page, a content stream it could not load or decode
    (:data:`_LOST_CONTENT`); or the file was repaired and the page has no content stream left and
    nothing on it (a page of a damaged file that reads as blank lost its content in the repair).
    """
    lines = [ln.strip() for ln in (mupdf_messages or "").splitlines() if ln.strip()]
    bad = [ln for ln in lines if _LOST_CONTENT.search(ln)]
    if bad:
        return diag(Code.PDF_CONTENT_LOST, detail=bad[0])
    try:
        streams = page.get_contents()
    except Exception:  # noqa: BLE001 - a page MuPDF can barely read
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
            warnings.append(diag(Code.PDF_REPAIRED))

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
    except Exception as exc:  # noqa: BLE001 - MuPDF errors on a broken page
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
        box = union_box([w.box for w in words])
        assert box is not None
        lines.append(Line(text=" ".join(w.text for w in words), box=box, confidence=1.0, words=words))
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


CHILD_RENDER_PIXELS: int = 16_000_000
"""A PDF page holding an embedded image larger than this (pixels) is rendered in a child process.

MuPDF decodes such an image in full (a 9000x9000 RGB scan is 243 MB) and PyMuPDF holds the GIL for
the whole call (seconds), which would freeze every other thread of the caller -- the desktop app's
window above all. In a child process the decoding neither blocks the caller's threads nor leaves
its memory behind. Falls back to rendering in this process when no child can be started."""

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
    except (BrokenProcessPool, OSError, RuntimeError, Exception) as exc:  # noqa: BLE001
        # The child could not start (a main script without the ``if __name__ == "__main__"`` guard,
        # no resources) or the page failed there: render here, which raises the page's own error.
        logging.getLogger(__name__).warning("rendering %s page %d in a child process failed (%s); rendering here", path.name, number, exc)
        return None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


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
        except Exception as exc:  # noqa: BLE001 - MuPDF errors on a broken page
            raise CorruptFileError(path, diag(Code.PDF_PAGE_UNRENDERABLE, page=page.number,
                                              detail=_strip_path(str(exc), path))) from exc
        finally:
            doc.close()
    return array


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
        except Exception as exc:  # noqa: BLE001
            raise CorruptFileError(path, diag(Code.PDF_PAGE_UNRENDERABLE, page=page.number,
                                        detail=_strip_path(str(exc), path))) from exc
        finally:
            doc.close()
            try:
                pymupdf.TOOLS.store_shrink(100)  # drop MuPDF's cache of decoded images
            except Exception:  # noqa: BLE001, S110
                pass
    return array, zoom / (PDF_DPI / 72.0)
