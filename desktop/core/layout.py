"""Geometry helpers shared by engines and the pipeline: reading order, scaling and overlap of lines.

Every box is ``(x0, y0, x1, y1)`` in the pixel system of whatever image the lines belong to (an engine's
input image, or page pixels; see :mod:`desktop.core.model`).
"""
from __future__ import annotations

import math
from collections.abc import Iterable

from desktop.core.model import Box, Line, Word

__all__ = ["box_overlap", "deskewed_boxes", "group_rows", "reading_order", "scale_line", "scale_lines", "skew_angle"]


def _height(box: Box) -> float:
    return max(0.0, box[3] - box[1])


def _vertical_overlap(a: Box, b: Box) -> float:
    return max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def group_rows(lines: Iterable[Line], min_overlap: float = 0.5) -> list[list[Line]]:
    """Group lines into visual rows by vertical overlap.

    A line joins a row when its vertical overlap with the row's last-added line is at least
    ``min_overlap`` times the smaller of the two heights (the usual rule for OCR line grouping, as in
    PaddleOCR's ``sorted_boxes``, but by overlap instead of a fixed 10-pixel threshold so that it works
    at any resolution).

    Args:
        lines: lines with boxes in one pixel system.
        min_overlap: fraction of the smaller height two lines must share to be on one row.

    Returns:
        Rows from top to bottom; each row's lines left to right.
    """
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: ((ln.box[1] + ln.box[3]) / 2, ln.box[0])):
        placed = False
        # Compare with the most recent rows only: rows are built top-down.
        for row in reversed(rows[-3:]):
            ref = row[-1]
            smaller = min(_height(ref.box), _height(line.box)) or 1.0
            if _vertical_overlap(ref.box, line.box) >= min_overlap * smaller:
                row.append(line)
                placed = True
                break
        if not placed:
            rows.append([line])
    for row in rows:
        row.sort(key=lambda ln: ln.box[0])
    rows.sort(key=lambda r: min(ln.box[1] for ln in r))
    return rows


def reading_order(lines: Iterable[Line], min_overlap: float = 0.5) -> list[Line]:
    """Lines in reading order: rows top to bottom, left to right -- column by column where the page
    has columns of running text.

    A variant of the recursive XY-cut (Nagy & Seth, "Hierarchical representation of optically scanned
    documents", ICPR 1984): the lines are cut into horizontal slices wherever no line spans a vertical
    gap; consecutive slices that share a vertical gutter (an x-range no line crosses, at least
    :data:`GUTTER` line heights wide) form one region; a region is split into columns at its gutter
    *only* when both sides hold running text (:func:`_is_prose_column`), so that the label ... value
    rows of receipts and invoice tables stay together as rows. Inside a region or column the lines are
    grouped into rows by vertical overlap (:func:`group_rows`).

    On a skewed page (lines with polygons tilted by more than :data:`MIN_SKEW_DEGREES`, the median
    over lines) the order is decided on the lines' polygons turned back by the skew angle, since
    tilted axis-aligned boxes overlap their neighbours; the lines returned are the originals.
    """
    lines = list(lines)
    if len(lines) < 2:
        return lines
    proxies = _deskewed(lines)
    if proxies is not None:
        back = {id(proxy): line for proxy, line in zip(proxies, lines)}
        return [back[id(proxy)] for proxy in reading_order(proxies, min_overlap)]
    heights = sorted(_height(ln.box) for ln in lines)
    line_height = max(1.0, heights[len(heights) // 2])
    return _xy_order(lines, line_height, min_overlap, 0)


#: Skew (median tilt of the lines' top edges, in degrees) above which lines are ordered deskewed.
MIN_SKEW_DEGREES = 0.5


def skew_angle(lines: Iterable[Line]) -> float | None:
    """The page's skew: the median tilt of the lines' top edges, in radians (positive: the lines fall
    to the right, in page pixels with y down), or ``None`` when it is under :data:`MIN_SKEW_DEGREES`
    or too few lines tell (at least 3, and half of the lines, need a polygon with a left-to-right top
    edge at least twice as long as it rises)."""
    lines = list(lines)
    angles = []
    for ln in lines:
        poly = ln.polygon
        if not poly or len(poly) < 2:
            continue
        (x0, y0), (x1, y1) = poly[0], poly[1]
        if x1 - x0 > 2 * abs(y1 - y0) and x1 - x0 > 0:  # a left-to-right top edge
            angles.append(math.atan2(y1 - y0, x1 - x0))
    if len(angles) < max(3, len(lines) // 2):
        return None
    angles.sort()
    angle = angles[len(angles) // 2]
    return None if abs(math.degrees(angle)) < MIN_SKEW_DEGREES else angle


def deskewed_boxes(lines: Iterable[Line]) -> list[Box] | None:
    """The lines' boxes on the page turned back by its skew (:func:`skew_angle`), or ``None`` when the
    page is not skewed.

    Each box bounds the line's polygon (its box's corners when it has none) turned by minus the skew
    about the centre of all the lines' boxes, so that the lines of one text row share a row again and
    stacked lines no longer overlap: ``(x0, y0, x1, y1)`` in that turned frame, in page pixels (the
    same scale; positions near the page's own). A tilted line's axis-aligned box is taller than the
    line by its width times the sine of the skew: at 7 degrees a 400 px line's box is 49 px taller,
    enough to overlap the rows above and below it.
    """
    lines = list(lines)
    angle = skew_angle(lines)
    if angle is None:
        return None
    cx = (min(ln.box[0] for ln in lines) + max(ln.box[2] for ln in lines)) / 2
    cy = (min(ln.box[1] for ln in lines) + max(ln.box[3] for ln in lines)) / 2
    c, s = math.cos(-angle), math.sin(-angle)
    out: list[Box] = []
    for ln in lines:
        pts = ln.polygon or [(ln.box[0], ln.box[1]), (ln.box[2], ln.box[1]), (ln.box[2], ln.box[3]), (ln.box[0], ln.box[3])]
        turned = [(cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c) for x, y in pts]
        xs = [p[0] for p in turned]
        ys = [p[1] for p in turned]
        out.append((min(xs), min(ys), max(xs), max(ys)))
    return out


def _deskewed(lines: list[Line]) -> list[Line] | None:
    """Stand-ins for ``lines`` with their :func:`deskewed_boxes`, or ``None`` when the page is not skewed."""
    boxes = deskewed_boxes(lines)
    if boxes is None:
        return None
    return [Line(ln.text, box, ln.confidence, char_confidences=ln.char_confidences) for ln, box in zip(lines, boxes)]


#: Narrowest column gutter, in median line heights.
GUTTER = 0.5
#: A column of running text: at least this many lines ...
MIN_COLUMN_LINES = 3
#: ... of at least this many non-space characters on average ...
MIN_COLUMN_CHARS = 15
#: ... and at least this share of the region's width.
MIN_COLUMN_WIDTH = 0.25


def _rows(lines: list[Line], min_overlap: float) -> list[Line]:
    return [ln for row in group_rows(lines, min_overlap) for ln in row]


def _xy_order(lines: list[Line], line_height: float, min_overlap: float, depth: int) -> list[Line]:
    if len(lines) < 2 * MIN_COLUMN_LINES or depth > 8:
        return _rows(lines, min_overlap)
    out: list[Line] = []
    for region in _regions(lines, GUTTER * line_height):
        cut = _column_cut(region, GUTTER * line_height)
        if cut is None:
            out.extend(_rows(region, min_overlap))
            continue
        left = [ln for ln in region if ln.box[2] <= cut]
        right = [ln for ln in region if ln.box[2] > cut]
        out.extend(_xy_order(left, line_height, min_overlap, depth + 1))
        out.extend(_xy_order(right, line_height, min_overlap, depth + 1))
    return out


def _slices(lines: list[Line]) -> list[list[Line]]:
    """Cut lines wherever a vertical gap is spanned by no line; top to bottom."""
    ordered = sorted(lines, key=lambda ln: ln.box[1])
    slices: list[list[Line]] = [[ordered[0]]]
    bottom = ordered[0].box[3]
    for ln in ordered[1:]:
        if ln.box[1] > bottom:
            slices.append([ln])
        else:
            slices[-1].append(ln)
        bottom = max(bottom, ln.box[3])
    return slices


def _gutters(lines: list[Line], min_width: float) -> list[tuple[float, float]]:
    """Internal x-ranges (between lines) that no line of ``lines`` covers, at least ``min_width`` wide."""
    spans = sorted((ln.box[0], ln.box[2]) for ln in lines)
    gaps: list[tuple[float, float]] = []
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - reach >= min_width:
            gaps.append((reach, x0))
        reach = max(reach, x1)
    return gaps


def _intersect(a: list[tuple[float, float]], b: list[tuple[float, float]], min_width: float) -> list[tuple[float, float]]:
    out = []
    for a0, a1 in a:
        for b0, b1 in b:
            lo, hi = max(a0, b0), min(a1, b1)
            if hi - lo >= min_width:
                out.append((lo, hi))
    return out


def _regions(lines: list[Line], min_width: float) -> list[list[Line]]:
    """Group consecutive slices that share a gutter (a slice without one is a region of its own)."""
    regions: list[list[Line]] = []
    shared: list[tuple[float, float]] = []
    for sl in _slices(lines):
        gutters = _gutters(sl, min_width)
        common = _intersect(shared, gutters, min_width) if regions else []
        if common:
            regions[-1].extend(sl)
            shared = common
        else:
            regions.append(list(sl))
            shared = gutters
    return regions


def _chars(line: Line) -> int:
    return len("".join(line.text.split()))


def _is_prose_column(lines: list[Line], region_width: float) -> bool:
    if len(lines) < MIN_COLUMN_LINES:
        return False
    width = max(ln.box[2] for ln in lines) - min(ln.box[0] for ln in lines)
    mean_chars = sum(_chars(ln) for ln in lines) / len(lines)
    return mean_chars >= MIN_COLUMN_CHARS and width >= MIN_COLUMN_WIDTH * region_width


def _column_cut(lines: list[Line], min_width: float) -> float | None:
    """x of the widest gutter of ``lines`` with running text on both sides; ``None`` when there is none."""
    if len(lines) < 2 * MIN_COLUMN_LINES:
        return None
    x_min = min(ln.box[0] for ln in lines)
    region_width = max(ln.box[2] for ln in lines) - x_min
    for start, end in sorted(_gutters(lines, min_width), key=lambda g: g[0] - g[1]):  # widest first
        left = [ln for ln in lines if ln.box[2] <= start]
        right = [ln for ln in lines if ln.box[0] >= end]
        if _is_prose_column(left, region_width) and _is_prose_column(right, region_width):
            return (start + end) / 2
    return None


def _scale_box(box: Box, factor: float) -> Box:
    return (box[0] * factor, box[1] * factor, box[2] * factor, box[3] * factor)


def scale_line(line: Line, factor: float) -> Line:
    """A copy of ``line`` with box, polygon and word boxes multiplied by ``factor``.

    Used to map boxes found on a downscaled render back to page pixels (``factor = 1 / scale``).
    """
    return Line(
        text=line.text,
        box=_scale_box(line.box, factor),
        confidence=line.confidence,
        polygon=[(x * factor, y * factor) for x, y in line.polygon] if line.polygon else None,
        words=[Word(w.text, _scale_box(w.box, factor), w.confidence) for w in line.words],
        char_confidences=line.char_confidences,
    )


def scale_lines(lines: Iterable[Line], factor: float) -> list[Line]:
    """:func:`scale_line` over a list (returns the same objects when ``factor == 1``)."""
    lines = list(lines)
    if factor == 1.0:
        return lines
    return [scale_line(line, factor) for line in lines]


def box_overlap(a: Box, b: Box) -> float:
    """Area of the intersection of ``a`` and ``b`` divided by the area of the smaller box (0..1)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    area_a = max(1e-9, (a[2] - a[0]) * (a[3] - a[1]))
    area_b = max(1e-9, (b[2] - b[0]) * (b[3] - b[1]))
    return (w * h) / min(area_a, area_b)
