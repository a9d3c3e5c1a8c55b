"""Intake's limits, resolutions and errors (shared by the format readers)."""
from __future__ import annotations

import math
import os
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from desktop.core.diagnostics import Diagnostic, Severity
from desktop.core.diagnostics import text as text_diagnostic

if TYPE_CHECKING:  # pragma: no cover
    pass


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


MAX_IMAGE_PIXELS: int = 200_000_000
MIN_IMAGE_SIDE: int = 32
"""The fewest pixels an image (a TIFF frame) may have on each side; a smaller one is an error
(:class:`ImageTooSmallError`, code ``image_too_small``), not a blank page that was read.

Why 32: a line of text needs about 10 pixels of height to be read (PP-OCR's recogniser works on
lines scaled to 48 px high; below ~10 px the strokes merge), and a receipt or invoice shows at least
a name, a date and a total: three lines, about 30 px. 32 px is also the stride of PP-OCR's text
detector (it resizes its input to a multiple of 32, ``rapidocr/ch_ppocr_det/utils.py``), so a
smaller image is only upscaled blur to it. A 1 x 1 px image was reported as a blank receipt."""
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
        self.diagnostic = reason if isinstance(reason, Diagnostic) else text_diagnostic(reason, severity=Severity.ERROR)
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


class ImageTooSmallError(IntakeError):
    """The image is less than :data:`MIN_IMAGE_SIDE` pixels wide or high: it cannot hold readable text."""


def _strip_path(message: str, path: Path) -> str:
    for s in (str(path), repr(str(path)), path.name):
        message = message.replace(s, "").replace("''", "")
    return re.sub(r"\s+", " ", message).strip(" :'\"") or "no details"


def _fit_scale(width: float, height: float, budget: int) -> float:
    """Largest scale <= 1 with ``floor(width*s) * floor(height*s) <= budget``."""
    if width * height <= budget:
        return 1.0
    return math.sqrt(budget / (width * height))


CHILD_RENDER_PIXELS: int = 16_000_000
"""A PDF page holding an embedded image larger than this (pixels) is rendered in a child process.

MuPDF decodes such an image in full (a 9000x9000 RGB scan is 243 MB) and PyMuPDF holds the GIL for
the whole call (seconds), which would freeze every other thread of the caller -- the desktop app's
window above all. In a child process the decoding neither blocks the caller's threads nor leaves
its memory behind. Falls back to rendering in this process when no child can be started."""
