"""Intake: open image files and PDFs as a sequence of upright RGB pages.

What comes in
-------------
JPEG, PNG, TIFF (every frame of a multi-page TIFF is a page), BMP, WebP, HEIC/HEIF (through
pillow-heif, registered on first use) and PDF (through PyMuPDF). The format is told from the file's
first bytes (:func:`sniff_format`), never from its name, so a PNG called ``scan.jpg`` still opens.
Anything else, or a damaged file, raises a named :class:`IntakeError` subclass whose text names the
file and says what is wrong in plain words, e.g.
``receipt.jpg: the file is damaged or not a complete image (cannot identify image data)``.

Modules
-------
:mod:`~desktop.core.intake.sniffing` (what a file is), :mod:`~desktop.core.intake.images` and
:mod:`~desktop.core.intake.pdf` (the two families of formats), :mod:`~desktop.core.intake.page`
(:class:`PageImage`), :mod:`~desktop.core.intake.geometry` (turning boxes with their page) and
:mod:`~desktop.core.intake.common` (limits, resolutions, errors). This package re-exports the public
names; callers import from ``desktop.core.intake``.

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

import os
from collections.abc import Iterator
from pathlib import Path

from desktop.core.diagnostics import Code, diag
from desktop.core.intake.common import (
    MAX_IMAGE_PIXELS,
    MAX_RASTER_DPI,
    MIN_IMAGE_SIDE,
    MIXED_IMAGE_COVERAGE,
    PDF_DPI,
    PDF_LIKE,
    RASTER_DPI,
    SUPPORTED_SUFFIXES,
    CorruptFileError,
    EmptyFileError,
    EncryptedPdfError,
    ImageTooLargeError,
    ImageTooSmallError,
    IntakeError,
    UnsupportedFormatError,
)
from desktop.core.intake.images import _image_error, _open_image, _probe_image
from desktop.core.intake.page import PageImage
from desktop.core.intake.pdf import MUPDF_LOCK, _iter_pdf_pages, _open_pdf, _pdf_page_image
from desktop.core.intake.sniffing import magic_format, sniff_format

__all__ = [
    "MAX_IMAGE_PIXELS",
    "MAX_RASTER_DPI",
    "MIN_IMAGE_SIDE",
    "MIXED_IMAGE_COVERAGE",
    "MUPDF_LOCK",
    "PDF_DPI",
    "RASTER_DPI",
    "SUPPORTED_SUFFIXES",
    "CorruptFileError",
    "EmptyFileError",
    "EncryptedPdfError",
    "ImageTooLargeError",
    "ImageTooSmallError",
    "IntakeError",
    "PageImage",
    "UnsupportedFormatError",
    "count_pages",
    "load_page",
    "magic_format",
    "open_pages",
    "sniff_format",
]


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
        ImageTooSmallError: an image (a TIFF frame) under :data:`MIN_IMAGE_SIDE` pixels on a side.
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
            except Exception as exc:
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
