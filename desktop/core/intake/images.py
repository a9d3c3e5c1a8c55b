"""Image files (JPEG, PNG, TIFF, BMP, WebP, HEIC): headers probed, pixels decoded only to render."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from desktop.core.diagnostics import Code, Diagnostic, diag

if TYPE_CHECKING:  # pragma: no cover
    pass
from desktop.core.intake.common import (
    _EXIF_TRANSPOSE,
    _PIL_FORMATS,
    _SWAPPING_ORIENTATIONS,
    MAX_IMAGE_PIXELS,
    MIN_IMAGE_SIDE,
    CorruptFileError,
    ImageTooLargeError,
    ImageTooSmallError,
    IntakeError,
    UnsupportedFormatError,
    _fit_scale,
    _strip_path,
)
from desktop.core.intake.page import PageImage

_heif_lock = threading.Lock()
_heif_registered = False

#: Pillow's plugin module for each format Shoebox opens itself (``PIL.<name>``). Pillow registers only
#: BMP, GIF, JPEG, PPM and PNG up front (``Image.preinit``); for any other format ``Image.open`` imports
#: all of its 40-odd plugins (``Image.init``: about 30 ms of CPU at a worker's start). Importing the one
#: plugin named registers just that format. (HEIF registers itself: :func:`_register_heif`.)
_PIL_PLUGINS = {"JPEG": "JpegImagePlugin", "PNG": "PngImagePlugin", "TIFF": "TiffImagePlugin",
                "BMP": "BmpImagePlugin", "WEBP": "WebPImagePlugin"}


def _load_plugins(formats: list[str]) -> None:
    """Register Pillow's openers of ``formats`` without importing every other plugin (see :data:`_PIL_PLUGINS`)."""
    import importlib

    Image.preinit()
    for fmt in formats:
        if fmt not in Image.OPEN and fmt in _PIL_PLUGINS:
            importlib.import_module(f"PIL.{_PIL_PLUGINS[fmt]}")


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


class _open_image:  # used as a context manager like open()
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
            self.file = open(self.path, "rb")
        except FileNotFoundError:
            raise IntakeError(self.path, diag(Code.FILE_NOT_FOUND)) from None
        except OSError as exc:
            raise IntakeError(self.path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None
        try:
            _load_plugins(_PIL_FORMATS[self.fmt])
            self.image = Image.open(self.file, formats=_PIL_FORMATS[self.fmt])
        except Image.DecompressionBombError as exc:
            # Pillow refuses at open an image of more than twice its limit, before intake can say how
            # large it is: its header says, and the message names the size
            size = _header_size(self.file, _PIL_FORMATS[self.fmt])
            self.file.close()
            if size is None:
                raise _image_error(self.path, exc) from exc
            raise _too_large(self.path, *size) from exc
        except Exception as exc:
            self.file.close()
            raise _image_error(self.path, exc) from exc
        return self.image, self.file

    def __exit__(self, *exc: object) -> None:
        if self.image is not None:
            self.image.close()
        if self.file is not None:
            self.file.close()


def _header_size(file: Any, formats: list[str]) -> tuple[int, int] | None:
    """The upright size of the image in ``file`` (an open binary file) as its header states it, read by
    the first of Pillow's ``formats`` openers that accepts it, without Pillow's decompression-bomb
    check (``Image.open`` applies it after the opener; the opener itself decodes no pixels). ``None``
    when no opener reads the header."""
    for name in formats:
        opener = Image.OPEN.get(name.upper())
        if opener is None:
            continue
        factory, accept = opener
        try:
            file.seek(0)
            prefix = file.read(16)
            if accept is not None and not accept(prefix):
                continue
            file.seek(0)
            im = factory(file, "")
        except Exception:
            continue
        try:
            return _upright_size(im)
        except Exception:
            return None
        finally:
            im.close()
    return None


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
    if "truncated" in low or "premature end" in low:  # Pillow's "image file is truncated (N bytes not processed)"
        return CorruptFileError(path, diag(Code.IMAGE_TRUNCATED))
    if "broken data stream" in low:
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
    except Exception:  # a broken EXIF block must not stop the page
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
                if min(w, h) < MIN_IMAGE_SIDE:
                    raise ImageTooSmallError(path, diag(Code.IMAGE_TOO_SMALL, width=w, height=h,
                                                        minimum=MIN_IMAGE_SIDE))
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
        except Exception as exc:
            raise _image_error(path, exc) from exc
    return pages


def _too_large(path: Path, w: int, h: int) -> ImageTooLargeError:
    return ImageTooLargeError(path, diag(Code.IMAGE_TOO_LARGE_SIZE, width=w, height=h, megapixels=f"{w * h / 1e6:.0f}",
                                         limit=MAX_IMAGE_PIXELS // 1_000_000))


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
        except Exception as exc:
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
