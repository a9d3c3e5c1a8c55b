"""Per-character recogniser confidences on lines: kept aligned with the text through the page's
transformations and JSON, dropped (unknown) rather than misaligned."""
from __future__ import annotations

from desktop.core.intake.geometry import _rotate_line as rotate_line
from desktop.core.layout import scale_line
from desktop.core.model import Line, PageResult


def _line() -> Line:
    return Line(text="TOTAL 12.50", box=(10, 10, 200, 30), confidence=0.9,
                char_confidences=[0.99, 0.98, 0.99, 0.97, 0.99, 0.5, 0.99, 0.4, 0.99, 0.95, 0.99])


def test_round_trip_through_the_page_json():
    page = PageResult(number=1, width=400, height=300, lines=[_line(), Line(text="no chars", box=(0, 0, 5, 5))])
    back = PageResult.from_dict(page.to_dict())
    assert back.lines[0].char_confidences == _line().char_confidences
    assert back.lines[1].char_confidences is None and "char_confidences" not in page.to_dict()["lines"][1]


def test_misaligned_confidences_are_dropped_not_kept():
    assert Line(text="ABC", box=(0, 0, 1, 1), char_confidences=[0.9, 0.8]).char_confidences is None


def test_span_confidence_is_the_lowest_character_of_the_span():
    line = _line()
    assert line.span_confidence(6, 11) == 0.4  # "12.50": the misread-looking "2"
    assert line.span_confidence(0, 5) == 0.97  # "TOTAL"
    assert line.span_confidence(5, 6) == 0.9  # only a space: the line's confidence
    assert Line(text="x", box=(0, 0, 1, 1), confidence=0.7).span_confidence(0, 1) == 0.7


def test_scaling_and_turning_keep_the_characters():
    assert scale_line(_line(), 2.0).char_confidences == _line().char_confidences
    assert rotate_line(_line(), 1, 400, 300).char_confidences == _line().char_confidences
