"""One page of a file, ready to be rendered within a pixel budget (:class:`PageImage`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from desktop.core.diagnostics import Diagnostic
from desktop.core.model import Line

if TYPE_CHECKING:  # pragma: no cover
    pass
from desktop.core.intake.common import MAX_IMAGE_PIXELS, PDF_LIKE, RASTER_DPI
from desktop.core.intake.geometry import _copy_lines, _rotate_line
from desktop.core.intake.sniffing import sniff_format


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
            from desktop.core.intake.pdf import _render_pdf_page

            array, scale = _render_pdf_page(self, budget)
        else:
            from desktop.core.intake.images import _render_image_page

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
        from PIL import Image

        from desktop.core.intake.images import _render_image_page
        from desktop.core.intake.pdf import _crop_of_whole, _render_pdf_region

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
