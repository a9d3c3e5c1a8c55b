"""Spending the pixel budget where the text is: the content region of a big page, and overlapping
tiles for very long pages.

An engine reads an image of at most ``engine.max_pixels`` pixels. A whole page downscaled to that
budget is fine for an A4 scan, but not when

* the page is very large and its content small (a 200-inch PDF page holding one receipt, a receipt
  in one corner of an A4 scan): downscaling the whole page makes the text a few pixels high; or
* the page is a long strip (a till roll, 1:20 to 1:40): fitting it into the budget leaves it a few
  hundred pixels wide.

:func:`read_zoomed` then finds the content region on the first (whole-page) render
(:func:`content_box`: the box of the pixels that differ from the page's background), renders the page
again at the scale where that region is legible, and reads the region -- in one piece when it fits
the budget, else in overlapping tiles along its long side (:func:`plan_tiles`). Lines read twice in a
tile overlap are kept once (:func:`merge_tile_lines`), lines cut by an inner tile edge are taken from
the neighbouring tile that holds them whole, and every box is mapped back to page pixels.

Coordinates: page pixels as in :mod:`desktop.core.model`; a render at scale ``s`` has pixel ``(x, y)``
at page pixel ``(x / s, y / s)``.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.layout import box_overlap, reading_order
from desktop.core.model import Line, Word

__all__ = ["ZoomPlan", "content_box", "merge_tile_lines", "plan_tiles", "plan_zoom", "read_zoomed"]

#: Width (pixels, across the text) a long strip is read at: a till roll of 40-48 characters a line
#: then gets 20+ px per character, what PP-OCR's recogniser (48 px high line crops) reads well.
STRIP_WIDTH = 960
#: A page is a long strip when its long side is at least this many times its short side.
STRIP_RATIO = 4.0
#: The content region is worth zooming into when it covers at most this share of the page.
SMALL_CONTENT = 0.3
#: The most pixels a zoomed re-render of a whole page may take (24 Mpx: 72 MB as RGB, about a second
#: of MuPDF or Pillow time; a 9000 x 9000 px page is then re-read at 0.54x instead of 0.22x).
MAX_ZOOM_PIXELS = 24_000_000
#: Tile overlap along the long side, as a share of a tile (and at least ``MIN_OVERLAP_PX``): more than
#: the height of two text lines, so that every line lies whole in at least one tile.
TILE_OVERLAP = 0.12
MIN_OVERLAP_PX = 96
#: Grey-level distance from the background that counts as content; margin added around the content box
#: (a share of the content's long side).
INK_THRESHOLD = 40
CONTENT_MARGIN = 0.02


def content_box(image: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box ``(x0, y0, x1, y1)`` (pixels of ``image``) holding everything that is not background.

    The background is the median grey level of the image's border; content is any pixel more than
    :data:`INK_THRESHOLD` grey levels from it (isolated specks -- rows or columns with fewer than two
    such pixels -- are ignored). Large images are sampled (every n-th pixel, at most ~250k), so the
    box is exact to n pixels. ``None`` for a blank image.
    """
    h, w = image.shape[:2]
    if h < 2 or w < 2:
        return None
    # look at every step-th pixel (at most ~250k of them): a box for planning, accurate to a few pixels
    step = max(1, int(math.sqrt(h * w / 250_000)))
    small = image[::step, ::step]
    grey = small.astype(np.int16).sum(axis=2) // 3 if small.ndim == 3 else small.astype(np.int16)
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    ink = np.abs(grey - int(np.median(border))) > INK_THRESHOLD
    rows = np.flatnonzero(np.count_nonzero(ink, axis=1) >= 2)
    cols = np.flatnonzero(np.count_nonzero(ink, axis=0) >= 2)
    if not len(rows) or not len(cols):
        return None
    return (int(cols[0]) * step, int(rows[0]) * step, min(w, (int(cols[-1]) + 1) * step),
            min(h, (int(rows[-1]) + 1) * step))


@dataclass(frozen=True)
class ZoomPlan:
    """How to read a page again: render it at ``scale`` and read ``region`` (pixels of that render).

    ``strip`` is ``True`` for a long strip (``ratio`` long side : short side), else the content covers
    ``share`` of the page.
    """

    scale: float
    region: tuple[int, int, int, int]
    strip: bool
    ratio: float
    share: float


def plan_zoom(page_w: int, page_h: int, image: np.ndarray, first_scale: float, budget: int, *,
              region_render: bool = False) -> ZoomPlan | None:
    """Whether a page read at ``first_scale`` (``image`` is that render) should be read again zoomed.

    Args:
        page_w, page_h: the page size in page pixels.
        image: the first render (the whole page at ``first_scale``).
        first_scale: its scale (render pixels per page pixel, <= 1).
        budget: the engine's pixel budget.
        region_render: the page can be rendered region by region (then the region, not the whole
            page, is what :data:`MAX_ZOOM_PIXELS` bounds).

    Returns:
        A :class:`ZoomPlan`, or ``None`` when the first render already spends the budget well (it was
        not downscaled, or the content fills the page and is not a long strip).
    """
    if first_scale >= 0.999:
        return None
    box = content_box(image)
    if box is None:
        return None
    x0, y0, x1, y1 = (v / first_scale for v in box)  # page pixels
    # a margin around the content: a share of its size, plus two render pixels of blur and sampling
    margin = CONTENT_MARGIN * max(x1 - x0, y1 - y0) + 2 / first_scale
    x0, y0 = max(0.0, x0 - margin), max(0.0, y0 - margin)
    x1, y1 = min(float(page_w), x1 + margin), min(float(page_h), y1 + margin)
    cw, ch = max(1.0, x1 - x0), max(1.0, y1 - y0)
    long_side, short_side = max(cw, ch), min(cw, ch)
    small = cw * ch <= SMALL_CONTENT * page_w * page_h
    strip = long_side >= STRIP_RATIO * short_side
    if not (small or strip):
        return None
    if strip:
        scale = min(1.0, STRIP_WIDTH / short_side)
    else:
        scale = min(1.0, math.sqrt(budget / (cw * ch)))
    scale = min(scale, math.sqrt(MAX_ZOOM_PIXELS / ((cw * ch) if region_render else (page_w * page_h))))
    if scale <= first_scale * 1.25:  # not worth a second reading
        return None
    region = (int(x0 * scale), int(y0 * scale), math.ceil(x1 * scale), math.ceil(y1 * scale))
    return ZoomPlan(scale, region, strip, long_side / short_side, cw * ch / (page_w * page_h))


def plan_tiles(width: int, height: int, budget: int) -> list[tuple[int, int, int, int]]:
    """Overlapping tiles ``(x0, y0, x1, y1)`` covering a ``width`` x ``height`` region, each at most
    ``budget`` pixels, cut along the long side (overlap :data:`TILE_OVERLAP`, at least
    :data:`MIN_OVERLAP_PX`). One tile when the region fits."""
    if width * height <= budget:
        return [(0, 0, width, height)]
    vertical = height >= width
    across, along = (width, height) if vertical else (height, width)
    length = max(2 * MIN_OVERLAP_PX, budget // max(1, across))
    overlap = max(MIN_OVERLAP_PX, int(TILE_OVERLAP * length))
    step = max(1, length - overlap)
    starts = list(range(0, max(1, along - length) + 1, step))
    if starts[-1] + length < along:
        starts.append(along - length)
    tiles = []
    for s in starts:
        e = min(along, s + length)
        tiles.append((0, s, across, e) if vertical else (s, 0, e, across))
    return tiles


def _shift(line: Line, dx: float, dy: float, factor: float) -> Line:
    def box(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        return ((b[0] + dx) * factor, (b[1] + dy) * factor, (b[2] + dx) * factor, (b[3] + dy) * factor)

    return Line(text=line.text, box=box(line.box), confidence=line.confidence,
                polygon=[((x + dx) * factor, (y + dy) * factor) for x, y in line.polygon] if line.polygon else None,
                words=[Word(w.text, box(w.box), w.confidence) for w in line.words],
                char_confidences=line.char_confidences)


def merge_tile_lines(tiles: list[tuple[tuple[int, int, int, int], list[Line]]], region: tuple[int, int, int, int],
                     ) -> list[Line]:
    """Lines of overlapping tiles, in region pixels, each line once.

    Args:
        tiles: ``(tile box in region pixels, lines in tile pixels)`` per tile.
        region: the region's box (its size tells which tile edges are inner edges).

    Rules: a line touching an inner tile edge (within 2 px) is cut by the tile and dropped when
    another tile overlaps that edge (that tile holds it whole); of two lines from different tiles
    whose boxes overlap by more than half of the smaller one, the one with the higher confidence is
    kept.
    """
    rw, rh = region[2] - region[0], region[3] - region[1]
    kept: list[tuple[Line, int]] = []
    for k, ((tx0, ty0, tx1, ty1), lines) in enumerate(tiles):
        inner = (tx0 > 0, ty0 > 0, tx1 < rw, ty1 < rh)  # left, top, right, bottom are inner edges
        tw, th = tx1 - tx0, ty1 - ty0
        for ln in lines:
            b = ln.box
            cut = (inner[0] and b[0] <= 2) or (inner[1] and b[1] <= 2) or \
                  (inner[2] and b[2] >= tw - 2) or (inner[3] and b[3] >= th - 2)
            if cut:
                continue
            moved = _shift(ln, tx0, ty0, 1.0)
            twin = next((i for i, (o, tile) in enumerate(kept)
                         if tile != k and box_overlap(o.box, moved.box) > 0.5), None)
            if twin is None:
                kept.append((moved, k))
            elif moved.confidence > kept[twin][0].confidence:
                kept[twin] = (moved, k)
    return [ln for ln, _ in kept]


def read_zoomed(render: Callable[[int], tuple[np.ndarray, float]], recognise: Callable[[np.ndarray], list[Line]],
                plan: ZoomPlan, page_w: int, page_h: int, budget: int,
                render_region: Callable[[tuple[float, float, float, float], float], np.ndarray] | None = None,
                ) -> tuple[list[Line], Diagnostic]:
    """Read a page again as ``plan`` says; returns its lines in page pixels and a page note
    (``read_in_tiles`` or ``read_zoomed``).

    Args:
        render: ``max_pixels -> (image, scale)`` (:meth:`desktop.core.intake.PageImage.render`).
        recognise: the engine's ``recognise``.
        plan: from :func:`plan_zoom`.
        page_w, page_h: the page size in page pixels.
        budget: the engine's pixel budget (each tile is at most this).
        render_region: ``(box in page pixels, scale) -> image`` (:meth:`~desktop.core.intake.PageImage.render_region`):
            renders only the region; without it (or when it refuses the page) the whole page is
            rendered at the plan's scale and cropped.
    """
    crop = None
    if render_region is not None:
        box = tuple(v / plan.scale for v in plan.region)
        try:
            crop = render_region(box, plan.scale)  # type: ignore[arg-type]
        except (ValueError, NotImplementedError):  # an empty region: the whole-page way below
            crop = None
        scale = plan.scale
        x0, y0 = plan.region[0], plan.region[1]
    if crop is None:
        want = int(page_w * page_h * plan.scale * plan.scale) + 1
        image, scale = render(min(want, MAX_ZOOM_PIXELS))
        f = scale / plan.scale  # the render may come out a little smaller than planned
        x0, y0, x1, y1 = (int(round(v * f)) for v in plan.region)
        x1, y1 = min(x1, image.shape[1]), min(y1, image.shape[0])
        crop = image[y0:y1, x0:x1]
    region = (x0, y0, x0 + crop.shape[1], y0 + crop.shape[0])
    tiles = plan_tiles(crop.shape[1], crop.shape[0], budget)
    read = []
    for tx0, ty0, tx1, ty1 in tiles:
        tile = np.ascontiguousarray(crop[ty0:ty1, tx0:tx1])
        read.append(((tx0, ty0, tx1, ty1), recognise(tile)))
    lines = merge_tile_lines(read, region)
    back = [_shift(ln, x0, y0, 1.0 / scale) for ln in lines]
    if plan.strip:
        note = diag(Code.READ_IN_TILES, ratio=f"{plan.ratio:.0f}", scale=f"{scale:.3g}", tiles=len(tiles))
    else:
        note = diag(Code.READ_ZOOMED, share=f"{plan.share:.0%}", width=int(crop.shape[1]), height=int(crop.shape[0]),
                    scale=f"{scale:.3g}", tiles=len(tiles))
    return reading_order(back), note
