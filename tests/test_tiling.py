"""Long strips read in overlapping tiles and small content on big pages read zoomed: every text line
once, at a legible height, with its box mapped back to page pixels."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from desktop.core.diagnostics import Code
from desktop.core.engines.base import Engine, PageReading
from desktop.core.model import Line
from desktop.core.pipeline import ScanOptions, scan_file
from desktop.core.tiling import content_box, merge_tile_lines, plan_tiles


class BarEngine(Engine):
    """'Reads' every dark horizontal bar of the image as one line (its box in image pixels) and
    records the bar heights it saw and the image sizes it was given."""

    name = "bars"
    version = "1"

    def __init__(self, max_pixels: int) -> None:
        self.max_pixels = max_pixels
        self.heights: list[list[int]] = []  # bar heights seen, per call
        self.shapes: list[tuple[int, int]] = []

    def read_page(self, image: np.ndarray) -> PageReading:
        assert image.shape[0] * image.shape[1] <= self.max_pixels
        self.shapes.append(image.shape[:2])
        dark = image.mean(axis=2) < 128
        rows = dark.any(axis=1)
        lines, y = [], 0
        h = len(rows)
        self.heights.append([])
        while y < h:
            if not rows[y]:
                y += 1
                continue
            start = y
            while y < h and rows[y]:
                y += 1
            cols = np.flatnonzero(dark[start:y].any(axis=0))
            self.heights[-1].append(y - start)
            lines.append(Line("bar", (float(cols[0]), float(start), float(cols[-1] + 1), float(y)), 0.9))
        return PageReading(lines)


def _bars(path: Path, size: tuple[int, int], origin: tuple[int, int], area: tuple[int, int],
          pitch: int, height: int) -> list[float]:
    """An image with bars ``height`` px high every ``pitch`` px inside ``area`` at ``origin``; returns
    the bars' centres (page pixels)."""
    a = np.full((size[1], size[0], 3), 255, np.uint8)
    centres = []
    ox, oy = origin
    for y in range(oy + pitch // 2, oy + area[1] - height, pitch):
        a[y:y + height, ox + 10:ox + area[0] - 10] = 0
        centres.append(y + height / 2)
    Image.fromarray(a).save(path)
    return centres


def _centres(doc) -> list[float]:
    return sorted((ln.box[1] + ln.box[3]) / 2 for p in doc.page_results for ln in p.lines)


def test_a_till_roll_is_read_in_overlapping_tiles(tmp_path: Path) -> None:
    f = tmp_path / "roll.png"
    truth = _bars(f, (400, 12000), (0, 0), (400, 12000), pitch=60, height=12)  # 1:30
    engine = BarEngine(max_pixels=1_000_000)  # the whole roll would be 5.5 px bars at 0.46x
    (doc,) = scan_file(f, engine, ScanOptions(document_type="receipt"))
    got = _centres(doc)
    assert len(got) == len(truth)  # every line once: none lost at a seam, none doubled
    assert max(abs(a - b) for a, b in zip(got, truth, strict=True)) < 1.5  # mapped back to page pixels
    first, *tiles = engine.heights
    assert max(first) <= 6 and len(tiles) > 3  # the whole roll at once: illegible; so in tiles
    assert all(sorted(t)[len(t) // 2] == 12 for t in tiles)  # at full height
    assert any(w.code is Code.READ_IN_TILES for w in doc.page_results[0].warnings)


def test_a_small_receipt_in_a_corner_of_a_big_scan_is_read_zoomed(tmp_path: Path) -> None:
    f = tmp_path / "a4.png"
    truth = _bars(f, (2480, 3508), (1700, 2400), (600, 900), pitch=30, height=6)
    engine = BarEngine(max_pixels=1_000_000)  # the whole scan: 0.34x, bars of 2 px
    (doc,) = scan_file(f, engine, ScanOptions(document_type="receipt"))
    got = _centres(doc)
    assert len(got) == len(truth)
    assert max(abs(a - b) for a, b in zip(got, truth, strict=True)) < 1.5
    xs = [ln.box[0] for p in doc.page_results for ln in p.lines]
    assert min(xs) == pytest.approx(1710, abs=3)
    assert max(engine.heights[0]) <= 2 and min(engine.heights[-1]) >= 5
    assert any(w.code is Code.READ_ZOOMED for w in doc.page_results[0].warnings)


def test_an_ordinary_page_is_read_once() -> None:
    from desktop.core.tiling import plan_zoom

    image = np.full((1000, 700, 3), 255, np.uint8)
    image[50:950, 40:660] = 0  # content fills the page
    assert plan_zoom(1400, 2000, image, 0.5, 1_000_000) is None
    assert plan_zoom(700, 1000, image, 1.0, 1_000_000) is None  # not downscaled: nothing to gain


def test_tiles_cover_the_region_within_budget() -> None:
    tiles = plan_tiles(400, 12000, 1_000_000)
    assert tiles[0][1] == 0 and tiles[-1][3] == 12000
    assert all((x1 - x0) * (y1 - y0) <= 1_000_000 for x0, y0, x1, y1 in tiles)
    assert all(a[3] - b[1] >= 96 for a, b in zip(tiles, tiles[1:], strict=False))  # overlaps
    assert plan_tiles(500, 500, 1_000_000) == [(0, 0, 500, 500)]


def test_seam_lines_are_kept_once_and_cut_lines_dropped() -> None:
    region = (0, 0, 100, 300)
    top = ((0, 0, 100, 200), [Line("a", (5, 150, 90, 170), 0.9), Line("cut", (5, 190, 90, 200), 0.9)])
    bottom = ((0, 100, 100, 300), [Line("a", (5, 50, 90, 70), 0.8), Line("cut", (5, 90, 90, 110), 0.9)])
    merged = merge_tile_lines([top, bottom], region)
    assert sorted((ln.text, ln.box[1]) for ln in merged) == [("a", 150.0), ("cut", 190.0)]


def test_content_box() -> None:
    image = np.full((100, 200, 3), 250, np.uint8)
    assert content_box(image) is None
    image[20:30, 50:80] = 0
    assert content_box(image) == (50, 20, 80, 30)


def test_a_receipt_on_a_200_inch_pdf_page_is_rendered_region_only(tmp_path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=14400, height=14400)  # 200 x 200 inches, the largest PDF page
    page.draw_rect(pymupdf.Rect(100, 100, 316, 460), color=None, fill=(0.8, 0.8, 0.8))  # the receipt
    truth = []
    for i in range(12):
        y = 120 + 24 * i
        page.draw_rect(pymupdf.Rect(110, y, 300, y + 6), color=None, fill=(0, 0, 0))
        truth.append((y + 3) * 300 / 72)  # page pixels (300 per inch)
    f = tmp_path / "huge.pdf"
    doc.save(f)
    engine = BarEngine(max_pixels=1_000_000)  # the whole page: 0.017x, bars under a pixel
    (doc_read,) = scan_file(f, engine, ScanOptions(document_type="receipt"))
    got = _centres(doc_read)
    assert len(got) == len(truth)
    assert max(abs(a - b) for a, b in zip(got, truth, strict=True)) < 8  # page pixels (~2 render px)
    assert min(engine.heights[-1]) >= 5  # legible: the region was read at ~0.3x
    assert any(w.code is Code.READ_ZOOMED for w in doc_read.page_results[0].warnings)


def test_a_region_renders_the_same_in_the_engine_worker(tmp_path: Path) -> None:
    import pymupdf

    from desktop.core.isolation import LOCAL_PAGES
    from desktop.core.isolation.process import WorkerEngine

    doc = pymupdf.open()
    doc.new_page(width=1440, height=1440).draw_rect(pymupdf.Rect(100, 100, 300, 200), color=None, fill=(0, 0, 0))
    f = tmp_path / "p.pdf"
    doc.save(f)
    box = (367.0, 367.0, 1300.0, 883.0)  # page pixels around the black box (300 per inch)
    (page,) = list(LOCAL_PAGES.open_pages(f))
    local = LOCAL_PAGES.render_region(page, box, 0.5)
    worker = WorkerEngine(None)  # a worker that only opens and renders pages
    try:
        remote = worker.page_host().render_region(page, box, 0.5)
    finally:
        worker.close()
    assert remote.shape == local.shape and abs(local.shape[0] - 258) <= 1 and abs(local.shape[1] - 466) <= 1
    assert np.array_equal(remote, local)
    assert local[40:60, 40:60].max() < 10 and local[0:10, 0:10].min() > 245  # black box inside, white margin
