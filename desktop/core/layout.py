"""Geometry helpers shared by engines and the pipeline: reading order, scaling and overlap of lines.

Every box is ``(x0, y0, x1, y1)`` in the pixel system of whatever image the lines belong to (an engine's
input image, or page pixels; see :mod:`desktop.core.model`).
"""
from __future__ import annotations

from collections.abc import Iterable

from desktop.core.model import Box, Line, Word

__all__ = ["box_overlap", "group_rows", "reading_order", "scale_line", "scale_lines"]


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
    """Lines in reading order: rows top to bottom (grouped by :func:`group_rows`), then left to right."""
    return [line for row in group_rows(lines, min_overlap) for line in row]


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
