"""Tests for desktop.core.intake: formats, colour modes, orientation, PDFs, pixel budget, errors.

Inputs are generated in fixtures (Pillow, PyMuPDF); a few checks run on the real samples.
"""
from __future__ import annotations

import io
import resource
import struct
import zlib
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from desktop.core import intake
from desktop.core.diagnostics import Code
from desktop.core.intake import (
    PDF_DPI,
    SUPPORTED_SUFFIXES,
    CorruptFileError,
    EmptyFileError,
    EncryptedPdfError,
    ImageTooLargeError,
    IntakeError,
    PageImage,
    UnsupportedFormatError,
    count_pages,
    load_page,
    open_pages,
    sniff_format,
)

PX = PDF_DPI / 72.0  # page px per PDF point

# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------


def marked(width: int = 200, height: int = 100) -> Image.Image:
    """White RGB image with a red block at the top-left and a blue block at the bottom-right."""
    im = Image.new("RGB", (width, height), "white")
    im.paste((255, 0, 0), (0, 0, width // 4, height // 4))
    im.paste((0, 0, 255), (width - width // 4, height - height // 4, width, height))
    return im


def exif_bytes(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[274] = orientation
    return exif.tobytes()


def only_page(path: Path) -> PageImage:
    pages = list(open_pages(path))
    assert len(pages) == 1
    return pages[0]


def ink_box(array: np.ndarray, threshold: int = 128) -> tuple[int, int, int, int]:
    """Bounding box (x0, y0, x1, y1) of the dark pixels of an RGB array."""
    ys, xs = np.nonzero(array.min(axis=2) < threshold)
    assert len(xs), "no ink on the page"
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def assert_box_holds_ink(box, ink, scale: float, slack: float = 3.0) -> None:
    """The text box (page px), scaled to the rendering, contains the ink and is centred on it."""
    x0, y0, x1, y1 = (v * scale for v in box)
    ix0, iy0, ix1, iy1 = ink
    assert x0 - slack <= ix0 and y0 - slack <= iy0 and ix1 <= x1 + slack and iy1 <= y1 + slack, (box, ink)
    # and the box is not wildly bigger than the ink along the text
    assert (ix1 - ix0) * (iy1 - iy0) > 0.3 * (x1 - x0) * (y1 - y0), (box, ink)


def png_bytes(im: Image.Image) -> bytes:
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def text_pdf(path: Path, *, rotate: int = 0, text: str = "Total 12.50", at=(100, 200), size=20) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=800)
    page.insert_text(at, text, fontsize=size)
    if rotate:
        page.set_rotation(rotate)
    doc.save(path)
    doc.close()
    return path


# --------------------------------------------------------------------------------------------------
# sniffing, suffixes, errors for bad files
# --------------------------------------------------------------------------------------------------


def test_supported_suffixes_are_lower_case_and_complete():
    assert set(SUPPORTED_SUFFIXES) == {
        ".jpg", ".jpeg", ".jpe", ".png", ".tif", ".tiff", ".bmp", ".webp", ".heic", ".heif", ".pdf", ".ofd", ".xml",
    }


@pytest.mark.parametrize(
    ("save_format", "kwargs", "expected"),
    [
        ("JPEG", {}, "jpeg"),
        ("PNG", {}, "png"),
        ("TIFF", {}, "tiff"),
        ("BMP", {}, "bmp"),
        ("WEBP", {}, "webp"),
    ],
)
def test_sniff_format_by_content_not_name(tmp_path, save_format, kwargs, expected):
    path = tmp_path / "scan.dat"  # the name says nothing
    marked().save(path, format=save_format, **kwargs)
    assert sniff_format(path) == expected


@pytest.mark.parametrize(
    ("head", "fragment"),
    [
        (b"GIF89a" + b"\0" * 20, "GIF image"),
        (b"PK\x03\x04" + b"\0" * 20, "ZIP archive or an Office document"),
        (b"Date,Total\n2024-01-01,12.50\n", "text file"),
        (bytes(range(256)) * 4, "not a recognised image or PDF"),
    ],
)
def test_unsupported_content_is_named(tmp_path, head, fragment):
    path = tmp_path / "receipt.jpg"
    path.write_bytes(head)
    with pytest.raises(UnsupportedFormatError) as err:
        open_pages(path)
    assert str(err.value).startswith("receipt.jpg: ")
    assert fragment in str(err.value)
    assert err.value.path == path


def test_random_bytes_raise_clear_error(tmp_path):
    path = tmp_path / "receipt.jpg"
    path.write_bytes(np.random.default_rng(1).integers(0, 256, 5000, dtype=np.uint8).tobytes())
    with pytest.raises(IntakeError) as err:
        list(open_pages(path))
    assert str(err.value).startswith("receipt.jpg: ")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(EmptyFileError, match=r"^empty\.pdf: the file is empty"):
        open_pages(path)
    with pytest.raises(EmptyFileError):
        count_pages(path)


def test_missing_file(tmp_path):
    with pytest.raises(IntakeError, match=r"^nope\.jpg: file not found$"):
        open_pages(tmp_path / "nope.jpg")
    with pytest.raises(IntakeError, match="file not found"):
        load_page(tmp_path / "nope.jpg", 1)


def test_folder_is_not_a_file(tmp_path):
    with pytest.raises(IntakeError, match="folder"):
        open_pages(tmp_path)


def test_damaged_jpeg_header(tmp_path):
    path = tmp_path / "receipt.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 200)
    with pytest.raises(CorruptFileError) as err:
        open_pages(path)
    assert str(err.value) == "receipt.jpg: the file is damaged or not a complete image (cannot identify image data)"


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_truncated_image_raises_when_rendered(tmp_path, fmt):
    path = tmp_path / f"half.{fmt.lower()}"
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 256, (300, 300, 3), dtype=np.uint8)).save(path, format=fmt)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFileError) as err:
        for page in open_pages(path):
            page.render()
    # Pillow says a file cut short as "image file is truncated" (JPEG) or a broken stream (PNG's zlib)
    assert str(err.value).startswith((f"half.{fmt.lower()}: the image file is cut short (",
                                      f"half.{fmt.lower()}: the file is damaged or not a complete image ("))
    assert str(tmp_path) not in str(err.value) and "bytes not processed" not in str(err.value)


def test_decompression_bomb_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "big.png"
    Image.new("L", (300, 300), 255).save(path)
    monkeypatch.setattr(intake.images, "MAX_IMAGE_PIXELS", 50_000)  # where the limit is applied
    with pytest.raises(ImageTooLargeError, match=r"^big\.png: the image is larger than Shoebox opens \(300 x 300 = 0 "
                                                 r"megapixels; the limit is 0\): scan it at a lower resolution"):
        open_pages(path)


def _png_claiming(path, width, height):
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (a 900-megapixel blank scan's shape)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize("language", ["en", "zh"])
def test_image_past_pillows_own_guard_names_its_size(tmp_path, language):
    # over twice Pillow's limit, Image.open itself refuses it: the message still says how large it is
    path = _png_claiming(tmp_path / "huge.png", 30_000, 30_000)
    with pytest.raises(ImageTooLargeError) as err:
        open_pages(path)
    reason = err.value.diagnostic
    assert reason.code is Code.IMAGE_TOO_LARGE_SIZE
    assert reason.params["width"] == 30_000 and reason.params["height"] == 30_000
    text = reason.message(language)
    if language == "en":
        assert text == ("the image is larger than Shoebox opens (30000 x 30000 = 900 megapixels; the limit is 200): "
                        "scan it at a lower resolution (300 dpi is plenty for reading)")
    else:
        assert "30000 x 30000 = 900 百万像素" in text and "上限为 200 百万像素" in text and "较低的分辨率" in text
        assert not any("a" <= c <= "z" for c in text.replace("Shoebox", "").replace("x", ""))


def test_pillow_bomb_guard_raised_but_kept():
    assert Image.MAX_IMAGE_PIXELS is None or Image.MAX_IMAGE_PIXELS >= intake.MAX_IMAGE_PIXELS


def test_error_hierarchy():
    for cls in (UnsupportedFormatError, CorruptFileError, EncryptedPdfError, EmptyFileError, ImageTooLargeError):
        err = cls("/some/where/x.pdf", "the reason")
        assert isinstance(err, IntakeError)
        assert str(err) == "x.pdf: the reason"
        assert err.reason == "the reason" and err.path == Path("/some/where/x.pdf")


# --------------------------------------------------------------------------------------------------
# image formats and colour modes
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt", "kwargs"),
    [
        ("a.jpg", "JPEG", {"quality": 95}),
        ("a.png", "PNG", {}),
        ("a.bmp", "BMP", {}),
        ("a.webp", "WEBP", {"lossless": True}),
        ("a.tif", "TIFF", {"compression": "tiff_lzw"}),
        ("png-named.jpg", "PNG", {}),  # wrong extension: detected by content
    ],
)
def test_formats_open_upright_rgb(tmp_path, name, fmt, kwargs):
    src = marked()
    path = tmp_path / name
    src.save(path, format=fmt, **kwargs)
    page = only_page(path)
    assert (page.width, page.height, page.origin, page.needs_ocr, page.dpi) == (200, 100, "image", True, None)
    assert page.text_lines is None and page.number == 1 and page.rotation == 0
    array, scale = page.render()
    assert scale == 1.0
    assert array.shape == (100, 200, 3) and array.dtype == np.uint8 and array.flags.c_contiguous
    assert np.abs(array.astype(int) - np.asarray(src, dtype=int)).mean() < 3


def test_heic(tmp_path):
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    path = tmp_path / "photo.heic"
    try:
        marked(256, 128).save(path, format="HEIF", quality=95)
    except Exception as exc:  # an encoder may be missing from the wheel
        pytest.skip(f"pillow-heif cannot write HEIF here: {exc}")
    assert sniff_format(path) == "heif"
    page = only_page(path)
    assert (page.width, page.height) == (256, 128)
    array, _ = page.render()
    assert array.shape == (128, 256, 3)
    assert array[10, 10, 0] > 200 and array[10, 10, 2] < 80  # red corner survived


def _expected_upright(raw: np.ndarray, orientation: int) -> np.ndarray:
    # EXIF 2.32 (CIPA DC-008) tag 0x0112: 3 = rotate 180, 6 = rotate 90 clockwise to view,
    # 8 = rotate 90 counter-clockwise to view.
    return {1: raw, 3: np.rot90(raw, 2), 6: np.rot90(raw, -1), 8: np.rot90(raw, 1)}[orientation]


@pytest.mark.parametrize(
    ("fmt", "orientation", "kwargs"),
    [
        ("JPEG", 6, {"quality": 95}),
        ("JPEG", 3, {"quality": 95}),
        ("JPEG", 8, {"quality": 95}),
        ("PNG", 6, {}),
        ("WEBP", 6, {"lossless": True}),
        ("TIFF", 6, {"compression": "tiff_lzw"}),
        ("TIFF", 6, {}),  # uncompressed: Pillow's memory-mapped path
    ],
)
def test_exif_orientation_applied(tmp_path, fmt, orientation, kwargs):
    src = marked(200, 100)
    path = tmp_path / f"o{orientation}.{fmt.lower()}"
    if fmt == "TIFF":
        src.save(path, format=fmt, tiffinfo={274: orientation}, **kwargs)
    else:
        src.save(path, format=fmt, exif=exif_bytes(orientation), **kwargs)
    expected = _expected_upright(np.asarray(src), orientation)
    page = only_page(path)
    assert (page.height, page.width) == expected.shape[:2]
    array, scale = page.render()
    assert scale == 1.0 and array.shape == expected.shape
    assert np.abs(array.astype(int) - expected.astype(int)).mean() < 4

    # within a budget (JPEG: DCT-scaled decode) the orientation still holds
    small, s = page.render(5000)
    assert small.shape[0] * small.shape[1] <= 5000
    h, w = small.shape[:2]
    assert abs(w / s - page.width) < 1 / s + 1 and abs(h / s - page.height) < 1 / s + 1
    ref = np.asarray(Image.fromarray(expected).resize((w, h), Image.Resampling.BOX), dtype=int)
    assert np.abs(small.astype(int) - ref).mean() < 12


def _modes():
    """(name, PIL image to save, format, expected RGB at (5, 5), expected RGB at (30, 30))."""
    grey16 = np.full((40, 40), 65535, dtype=np.uint16)
    grey16[20:, 20:] = 32896  # 32896 / 257 = 128
    rgba = Image.new("RGBA", (40, 40), (0, 0, 0, 0))  # fully transparent black -> white
    rgba.paste((200, 0, 0, 255), (20, 20, 40, 40))
    la = Image.new("LA", (40, 40), (0, 0))
    la.paste((50, 255), (20, 20, 40, 40))
    pal = Image.new("P", (40, 40), 0)
    pal.putpalette([255, 255, 255, 0, 128, 0] + [0] * 762)
    pal.paste(1, (20, 20, 40, 40))
    pal_t = pal.copy()
    pal_t.info["transparency"] = 0  # index 0 transparent; its colour (white) must not matter
    pal_t.putpalette([0, 0, 0, 0, 128, 0] + [0] * 762)
    pa = pal_t.convert("PA")
    bilevel = Image.new("1", (40, 40), 1)
    bilevel.paste(0, (20, 20, 40, 40))
    cmyk = Image.new("CMYK", (40, 40), (0, 0, 0, 0))
    cmyk.paste((0, 255, 255, 0), (20, 20, 40, 40))
    i32 = Image.fromarray(np.where(np.indices((40, 40)).min(axis=0) >= 20, 0, 65535).astype(np.int32), "I")
    flt = Image.fromarray(np.where(np.indices((40, 40)).min(axis=0) >= 20, 0.0, 1.0).astype(np.float32), "F")
    white, black = (255, 255, 255), (0, 0, 0)
    return [
        ("16-bit grey PNG", Image.fromarray(grey16), "PNG", white, (128, 128, 128)),
        ("RGBA transparent -> white", rgba, "PNG", white, (200, 0, 0)),
        ("LA transparent -> white", la, "PNG", white, (50, 50, 50)),
        ("palette PNG", pal, "PNG", white, (0, 128, 0)),
        ("palette + transparency", pal_t, "PNG", white, (0, 128, 0)),
        ("PA", pa, "TIFF", white, (0, 128, 0)),
        ("1-bit TIFF G4", bilevel, "TIFF", white, black),
        ("CMYK JPEG", cmyk, "JPEG", white, (255, 0, 0)),
        ("CMYK TIFF", cmyk, "TIFF", white, (255, 0, 0)),
        ("32-bit int TIFF", i32, "TIFF", white, black),
        ("float TIFF", flt, "TIFF", white, black),
    ]


@pytest.mark.parametrize(("name", "image", "fmt", "at5", "at30"), _modes(), ids=[m[0] for m in _modes()])
def test_colour_modes_become_rgb8(tmp_path, name, image, fmt, at5, at30):
    path = tmp_path / f"mode.{fmt.lower()}"
    kwargs = {"compression": "group4"} if image.mode == "1" else {}
    if fmt == "JPEG":
        kwargs = {"quality": 98}
    image.save(path, format=fmt, **kwargs)
    array, _ = only_page(path).render()
    assert array.dtype == np.uint8 and array.shape == (40, 40, 3)
    tol = 12 if fmt == "JPEG" else 1
    assert np.abs(array[5, 5].astype(int) - at5).max() <= tol, array[5, 5]
    assert np.abs(array[30, 30].astype(int) - at30).max() <= tol, array[30, 30]


def test_multipage_tiff_every_frame_is_a_page(tmp_path):
    path = tmp_path / "three.tif"
    frames = [Image.new("L", (100 + 10 * i, 60), 40 * i) for i in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:], compression="tiff_lzw")
    assert count_pages(path) == 3
    pages = list(open_pages(path))
    assert [p.number for p in pages] == [1, 2, 3]
    assert [(p.width, p.height) for p in pages] == [(100, 60), (110, 60), (120, 60)]
    for i, page in enumerate(pages):
        array, _ = page.render()
        assert array.shape == (60, 100 + 10 * i, 3) and int(array[0, 0, 0]) == 40 * i
    again = load_page(path, 3)
    assert (again.width, again.height) == (120, 60)
    with pytest.raises(IntakeError, match="no page 4: the file has only 3 pages"):
        load_page(path, 4)


def test_count_pages_single_image(tmp_path):
    path = tmp_path / "a.png"
    marked().save(path)
    assert count_pages(path) == 1


# --------------------------------------------------------------------------------------------------
# pixel budget
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_jpeg(tmp_path_factory) -> Path:
    """A 6000 x 8000 JPEG (48 Mpx) with a black block at a known place."""
    path = tmp_path_factory.mktemp("big") / "big.jpg"
    im = Image.new("L", (6000, 8000), 255)
    im.paste(0, (3000, 4000, 3600, 4400))
    im.save(path, quality=80)
    return path


def test_budget_big_jpeg(big_jpeg):
    page = only_page(big_jpeg)
    assert (page.width, page.height) == (6000, 8000)
    array, scale = page.render(4_000_000)
    h, w = array.shape[:2]
    assert w * h <= 4_000_000 and w * h > 3_900_000
    assert scale == pytest.approx((4_000_000 / 48_000_000) ** 0.5, rel=1e-3)
    assert w == int(6000 * scale) and h == int(8000 * scale)
    x0, y0, x1, y1 = (v / scale for v in ink_box(array))  # back to page px
    assert (x0, y0, x1, y1) == pytest.approx((3000, 4000, 3600, 4400), abs=6)


def test_budget_png_no_draft(tmp_path):
    path = tmp_path / "big.png"
    im = Image.new("L", (3000, 2000), 255)
    im.paste(0, (1500, 1000, 1800, 1200))
    im.save(path)
    page = only_page(path)
    array, scale = page.render(600_000)
    assert array.shape[0] * array.shape[1] <= 600_000
    assert tuple(v / scale for v in ink_box(array)) == pytest.approx((1500, 1000, 1800, 1200), abs=5)


def test_render_rejects_bad_budget(tmp_path):
    path = tmp_path / "a.png"
    marked().save(path)
    with pytest.raises(ValueError):
        only_page(path).render(0)


# --------------------------------------------------------------------------------------------------
# rotation
# --------------------------------------------------------------------------------------------------


def test_rotated_image_pixels_and_round_trip(tmp_path):
    path = tmp_path / "a.png"
    src = marked(200, 100)
    src.save(path)
    page = only_page(path)
    base, _ = page.render()
    for deg in (90, 180, 270):
        turned = page.rotated(deg)
        assert turned.rotation == deg and page.rotation == 0
        assert (turned.width, turned.height) == ((100, 200) if deg % 180 else (200, 100))
        array, scale = turned.render()
        assert scale == 1.0
        np.testing.assert_array_equal(array, np.rot90(base, -deg // 90))
    back = page.rotated(90).rotated(270)
    assert (back.width, back.height, back.rotation) == (200, 100, 0)
    np.testing.assert_array_equal(back.render()[0], base)
    assert load_page(path, 1, rotation=90).rotation == 90
    with pytest.raises(ValueError):
        page.rotated(45)


def test_rotated_budget_keeps_scale(tmp_path):
    path = tmp_path / "a.png"
    marked(400, 200).save(path)
    turned = only_page(path).rotated(90)
    array, scale = turned.render(20_000)
    assert array.shape[0] * array.shape[1] <= 20_000
    assert array.shape[1] / scale == pytest.approx(turned.width, abs=1 / scale + 0.5)
    assert array.shape[0] / scale == pytest.approx(turned.height, abs=1 / scale + 0.5)


def test_rotated_text_lines_follow_pixels(tmp_path):
    page = only_page(text_pdf(tmp_path / "t.pdf"))
    for deg in (0, 90, 180, 270):
        turned = page.rotated(deg)
        array, scale = turned.render(1_500_000)
        (line,) = turned.text_lines
        assert_box_holds_ink(line.box, ink_box(array), scale)
        for word in line.words:
            x0, y0, x1, y1 = word.box
            assert line.box[0] <= x0 <= x1 <= line.box[2] and line.box[1] <= y0 <= y1 <= line.box[3]
    round_trip = page.rotated(90).rotated(90).rotated(180)
    assert round_trip.text_lines[0].box == pytest.approx(page.text_lines[0].box)


def test_rotated_polygon_stays_clockwise_from_top_left():
    from desktop.core.model import Line

    page = PageImage(Path("x.png"), 1, 100, 50, None, "image",
                     [Line("a", (10, 5, 30, 15), polygon=[(10, 5), (30, 5), (30, 15), (10, 15)])], True)
    turned = page.rotated(90)
    (line,) = turned.text_lines
    assert line.box == (35, 10, 45, 30)
    assert line.polygon == [(35, 10), (45, 10), (45, 30), (35, 30)]


# --------------------------------------------------------------------------------------------------
# PDFs
# --------------------------------------------------------------------------------------------------


def test_text_pdf_words_land_where_inserted(tmp_path):
    path = text_pdf(tmp_path / "invoice.pdf", text="Total 12.50", at=(100, 200), size=20)
    page = only_page(path)
    assert page.origin == "pdf_text" and page.needs_ocr is False and page.dpi == PDF_DPI
    assert (page.width, page.height) == (round(600 * PX), round(800 * PX))
    (line,) = page.text_lines
    assert line.text == "Total 12.50" and line.confidence == 1.0
    assert [w.text for w in line.words] == ["Total", "12.50"]
    x0, y0, x1, y1 = line.words[0].box
    assert x0 == pytest.approx(100 * PX, abs=2)  # insert_text starts the word at x = 100 pt
    assert y0 < 200 * PX < y1  # ... on the baseline y = 200 pt
    assert y1 - y0 == pytest.approx(20 * PX, rel=0.5)
    assert line.box[2] >= line.words[1].box[2]
    array, scale = page.render(2_000_000)
    assert_box_holds_ink(line.box, ink_box(array), scale)


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_rotated_pdf_page(tmp_path, rotate):
    page = only_page(text_pdf(tmp_path / f"r{rotate}.pdf", rotate=rotate))
    expected = (round(800 * PX), round(600 * PX)) if rotate % 180 else (round(600 * PX), round(800 * PX))
    assert (page.width, page.height) == expected
    assert page.rotation == 0  # /Rotate is how the page is meant to be seen
    array, scale = page.render(2_000_000)
    assert array.shape[1] / scale == pytest.approx(page.width, abs=2)
    assert_box_holds_ink(page.text_lines[0].box, ink_box(array), scale)


def test_pdf_reading_order(tmp_path):
    path = tmp_path / "order.pdf"
    doc = pymupdf.open()
    pg = doc.new_page(width=600, height=800)
    pg.insert_text((300, 100), "right", fontsize=12)  # written first, but right of "left"
    pg.insert_text((50, 101), "left", fontsize=12)
    pg.insert_text((50, 300), "below", fontsize=12)
    doc.save(path)
    page = only_page(path)
    assert [line.text for line in page.text_lines] == ["left", "right", "below"]


def _image_pdf(path: Path, *, text: str | None, image_rect, page_size=(600, 800), image_px=(300, 400)) -> Path:
    doc = pymupdf.open()
    pg = doc.new_page(width=page_size[0], height=page_size[1])
    scan = Image.new("L", image_px, 255)
    scan.paste(0, (image_px[0] // 4, image_px[1] // 2, image_px[0] // 2, image_px[1] // 2 + 20))
    pg.insert_image(pymupdf.Rect(*image_rect), stream=png_bytes(scan))
    if text:
        pg.insert_text((50, 40), text, fontsize=14)
    doc.save(path)
    doc.close()
    return path


def test_image_only_pdf(tmp_path):
    page = only_page(_image_pdf(tmp_path / "scan.pdf", text=None, image_rect=(0, 0, 600, 800)))
    assert page.origin == "pdf_image" and page.needs_ocr and page.text_lines is None
    array, scale = page.render(4_000_000)
    assert array.shape[0] * array.shape[1] <= 4_000_000
    assert scale == pytest.approx(intake.RASTER_DPI / PDF_DPI, rel=0.01)  # 200 dpi fits the budget


def test_mixed_pdf(tmp_path):
    path = _image_pdf(tmp_path / "mixed.pdf", text="INVOICE 2024-001", image_rect=(0, 100, 600, 800))
    page = only_page(path)
    assert page.origin == "pdf_mixed" and page.needs_ocr is True
    assert [line.text for line in page.text_lines] == ["INVOICE 2024-001"]


def test_small_logo_stays_text(tmp_path):
    page = only_page(_image_pdf(tmp_path / "logo.pdf", text="INVOICE", image_rect=(400, 20, 560, 80)))
    assert page.origin == "pdf_text" and page.needs_ocr is False


def test_fine_scan_rendered_up_to_300_dpi_within_budget(tmp_path):
    # 600 x 600 px image on a 2 x 2 inch page = a 300 dpi scan
    path = _image_pdf(tmp_path / "fine.pdf", text=None, image_rect=(0, 0, 144, 144), page_size=(144, 144),
                      image_px=(600, 600))
    page = only_page(path)
    array, scale = page.render()
    assert array.shape[:2] == (600, 600) and scale == pytest.approx(300 / PDF_DPI)
    small, s = page.render(10_000)
    assert small.shape[0] * small.shape[1] <= 10_000 and small.shape[1] / s == pytest.approx(page.width, abs=1 / s + 1)


def test_encrypted_pdf_with_user_password(tmp_path):
    path = text_pdf(tmp_path / "plain.pdf")
    locked = tmp_path / "locked.pdf"
    doc = pymupdf.open(path)
    doc.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    doc.close()
    for call in (open_pages, count_pages, lambda p: load_page(p, 1)):
        with pytest.raises(EncryptedPdfError, match=r"^locked\.pdf: the PDF is password-protected$"):
            call(locked)


def test_encrypted_pdf_with_owner_password_only_opens(tmp_path):
    path = text_pdf(tmp_path / "plain.pdf")
    restricted = tmp_path / "restricted.pdf"
    doc = pymupdf.open(path)
    doc.save(restricted, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="",
             permissions=pymupdf.PDF_PERM_PRINT)
    doc.close()
    opened = pymupdf.open(restricted)  # encrypted (AES-256), yet no password is needed to open it
    assert "AES" in (opened.metadata or {}).get("encryption", "") and not opened.needs_pass
    page = only_page(restricted)
    assert page.origin == "pdf_text" and page.text_lines[0].text == "Total 12.50"
    array, _ = page.render(500_000)
    assert array.shape[0] * array.shape[1] <= 500_000


def test_pdf_named_png_detected(tmp_path):
    path = text_pdf(tmp_path / "scan.png")
    assert sniff_format(path) == "pdf"
    assert only_page(path).origin == "pdf_text"


def _zero_page_pdf() -> bytes:
    objects = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[]/Count 0>>"]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<</Size 3/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % xref
    return out


@pytest.mark.parametrize(
    ("content", "error", "message"),
    [
        (_zero_page_pdf(), EmptyFileError, "the PDF has no pages"),
        (b"%PDF-1.4\nthis is not really a pdf\n", CorruptFileError, "the PDF is damaged"),
    ],
)
def test_bad_pdfs(tmp_path, content, error, message):
    path = tmp_path / "bad.pdf"
    path.write_bytes(content)
    with pytest.raises(error, match=rf"^bad\.pdf: {message}"):
        open_pages(path)


def test_multi_page_pdf_load_and_count(tmp_path):
    path = tmp_path / "two.pdf"
    doc = pymupdf.open()
    for i in range(2):
        doc.new_page(width=300, height=400).insert_text((50, 50), f"page {i + 1}")
    doc.save(path)
    assert count_pages(path) == 2
    page = load_page(path, 2, rotation=180)
    assert page.number == 2 and page.rotation == 180 and page.text_lines[0].text == "page 2"
    with pytest.raises(IntakeError, match="no page 3"):
        load_page(path, 3)


# --------------------------------------------------------------------------------------------------
# real samples
# --------------------------------------------------------------------------------------------------


@pytest.mark.samples
def test_sample_sroie_large_scan(samples):
    path = samples / "sroie" / "sroie_527.jpg"
    page = only_page(path)
    assert (page.width, page.height) == (4961, 7016)
    array, scale = page.render(4_000_000)
    assert array.shape[0] * array.shape[1] <= 4_000_000
    assert array.shape[1] / scale == pytest.approx(4961, abs=3)
    # memory stayed bounded (the whole test process; decoding at full size alone would be ~100 MB more
    # than a draft decode, the limit is generous so that other tests' allocations do not trip it)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 1_500_000


@pytest.mark.samples
def test_sample_multipage_pdf(samples):
    path = samples / "ocrmypdf" / "multipage.pdf"
    assert count_pages(path) == 6
    pages = list(open_pages(path))
    assert len(pages) == 6
    for page in pages:
        array, scale = page.render(4_000_000)
        assert array.shape[0] * array.shape[1] <= 4_000_000
        assert 0 < scale <= 1 and array.shape[1] / scale == pytest.approx(page.width, abs=1 / scale + 1)
        assert page.needs_ocr  # every page is a scan (one has an OCR text layer on top)
    assert (pages[1].width, pages[1].height) == (round(2160 * PX), round(2160 * PX))  # the 9000 px image page


@pytest.mark.samples
def test_sample_azure_invoice_text_layer(samples):
    page = only_page(samples / "invoice2data" / "AzureInterior.pdf")
    assert page.origin == "pdf_text" and not page.needs_ocr
    words = [w.text for line in page.text_lines for w in line.words]
    assert any("Azure" in w for w in words)
    for line in page.text_lines:
        x0, y0, x1, y1 = line.box
        assert 0 <= x0 <= x1 <= page.width + 1 and 0 <= y0 <= y1 <= page.height + 1


@pytest.mark.samples
def test_sample_phototest_bilevel_tiff(samples):
    path = samples / "tesseract" / "phototest.tif"
    with Image.open(path) as im:
        mode, size = im.mode, im.size
    assert mode == "1"
    page = only_page(path)
    assert (page.width, page.height) == size
    array, _ = page.render()
    assert array.shape == (size[1], size[0], 3) and set(np.unique(array)) <= {0, 255}


@pytest.mark.samples
def test_sample_linn_palette_png(samples):
    path = samples / "ocrmypdf" / "linn.png"
    with Image.open(path) as im:
        assert im.mode == "P"
    page = only_page(path)
    array, scale = page.render(2_000_000)
    assert array.shape[0] * array.shape[1] <= 2_000_000 and array.mean() > 128  # mostly white paper


# -- images too small to hold text: an error naming the size, not a blank page read --------------

@pytest.mark.parametrize(("size", "fmt", "frames"), [
    ((1, 1), "PNG", 1), ((31, 400), "JPEG", 1), ((400, 20), "PNG", 1), ((16, 16), "BMP", 1),
    ((400, 10), "TIFF", 1),
])
def test_an_image_too_small_to_hold_text_is_an_error_naming_its_size(tmp_path, size, fmt, frames):
    path = tmp_path / f"tiny.{fmt.lower()}"
    Image.new("RGB", size, "white").save(path, fmt)
    with pytest.raises(intake.ImageTooSmallError) as err:
        open_pages(path)
    reason = err.value.diagnostic
    assert reason.code is Code.IMAGE_TOO_SMALL and (reason.params["width"], reason.params["height"]) == size
    assert str(err.value) == (f"tiny.{fmt.lower()}: the image is {size[0]} x {size[1]} pixels: too small to hold "
                              "readable text (Shoebox reads images of at least 32 pixels on each side); scan or "
                              "photograph the document again")
    assert f"{size[0]} x {size[1]} 像素" in reason.message("zh") and isinstance(err.value, IntakeError)


def test_a_small_frame_of_a_multi_page_tiff_is_an_error_too(tmp_path):
    path = tmp_path / "stack.tif"
    Image.new("RGB", (300, 400), "white").save(path, save_all=True, append_images=[Image.new("RGB", (8, 8))])
    with pytest.raises(intake.ImageTooSmallError, match="8 x 8 pixels"):
        open_pages(path)


@pytest.mark.parametrize("size", [(32, 32), (32, 900), (1200, 40)])
def test_an_image_of_the_smallest_size_read_is_read(tmp_path, size):
    path = tmp_path / "small.png"
    Image.new("RGB", size, "white").save(path)
    (page,) = open_pages(path)
    assert (page.width, page.height) == size
