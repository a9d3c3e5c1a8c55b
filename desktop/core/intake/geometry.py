"""Page geometry: boxes, points and lines turned with their page (quarter turns, page pixels)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.model import Box, Line, Point, Word

if TYPE_CHECKING:  # pragma: no cover
    pass


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
        char_confidences=line.char_confidences,
    )


def _copy_lines(lines: list[Line] | None) -> list[Line] | None:
    if lines is None:
        return None
    return [_rotate_line(line, 0, 0, 0) for line in lines]
