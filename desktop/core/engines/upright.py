"""Orientation rules shared by :mod:`desktop.core.orientation` and engines that decide a page's
orientation themselves (:meth:`desktop.core.engines.ppocr.PPOCREngine.read_upright`).

They live among the engines because engines may not import :mod:`desktop.core.orientation` (the
layers contract in ``pyproject.toml``); that module re-exports them. Rotations are clockwise degrees
that make the page upright.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop.core.engines.base import MalformedOutput, PageReading, ReadingNote, check_page_reading, warnings_out
from desktop.core.model import Line

__all__ = ["ELONGATED", "MARGIN", "MIN_CONFIDENCE", "SAMPLE_LINES", "TALL_RATIO", "TALL_SHARE", "VOTE_CLEAR",
           "Reading", "check_reading", "flip_vote"]

#: Below this length-weighted mean confidence a read is suspected upside down (upright pages measured
#: 0.95-0.99, upside-down ones 0.64-0.71; poor phone photos 0.85-0.93).
MIN_CONFIDENCE = 0.85
#: A line is "tall" when its box is this much taller than wide (rapidocr itself turns crops with
#: height / width >= 1.5 before recognising them).
TALL_RATIO = 1.5
#: Share of tall lines (of those with 3+ characters) above which a page is taken to be lying on its side.
TALL_SHARE = 0.5
#: When rotation 0 is a candidate, another rotation must score this many times its probe score to win.
MARGIN = 1.15
#: A detected text-line box whose long side is at least this many times its short side holds a line of
#: several characters, so its direction (along the long side) can be told from its shape; squarer boxes
#: (one or two characters, a logo) are left out of the geometry and the sample.
ELONGATED = 2.0
#: Lines (the longest elongated ones) on which the angle classifier votes, and which are recognised both
#: ways when the vote is not clear.
SAMPLE_LINES = 12
#: A vote (:func:`flip_vote`) at or below minus this is taken as clear: the page is not upside down;
#: at or above it, as clear the other way: it is (neither then needs the sample recognised both ways).
#: Measured on the samples: upright receipts and pages vote -0.8 to -1.0; the upside-down and turned
#: pages of ``ocrmypdf/cardinal.pdf`` +0.8 to +1.0 (see BENCHMARKS.md, issue 11 sixth round, for the
#: 218 receipts of ``sroie`` + ``sroie_dev`` upright and turned 180).
VOTE_CLEAR = 0.5


@dataclass
class Reading:
    """A page read upright.

    Attributes:
        rotation: clockwise degrees (0/90/180/270) the page was turned to be read upright.
        lines: the lines read, in pixels of the image *turned by* ``rotation``
            (``rotate_image(image, rotation)``), in reading order.
        reason: why it was turned (empty for 0), for the page's warnings.
        scores: text scores of the rotations compared by recognition (empty when none was needed).
        check_failed: why the orientation check failed, when it did (the page is then kept as
            scanned: ``rotation`` 0 and the first read's lines).
        seconds: wall time the engine spent reading.
        warnings, suspect: the engine's notes on this reading and its "check this page" mark, as in
            :class:`~desktop.core.engines.base.PageReading` (they reach the page's warnings).
    """

    rotation: int
    lines: list[Line]
    reason: str = ""
    scores: dict[int, float] = field(default_factory=dict)
    check_failed: str = ""
    seconds: float = 0.0
    warnings: list[ReadingNote] = field(default_factory=list)
    suspect: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a process boundary (:meth:`Engine.read_upright <desktop.core.engines.base.Engine.read_upright>`
        in the worker)."""
        return {"rotation": int(self.rotation), "lines": [ln.to_dict() for ln in self.lines], "reason": str(self.reason),
                "scores": {str(k): float(v) for k, v in self.scores.items()}, "check_failed": str(self.check_failed),
                "seconds": float(self.seconds), "warnings": warnings_out(self.warnings), "suspect": bool(self.suspect)}

    @classmethod
    def from_dict(cls, d: Any) -> Reading:
        """The reverse of :meth:`to_dict`.

        Raises:
            MalformedOutput: not such a reading (missing or mistyped entries, a rotation that is not a
                quarter turn).
        """
        if not isinstance(d, dict) or not isinstance(d.get("scores", {}), dict):
            raise MalformedOutput(f"the engine returned {type(d).__name__} instead of an upright reading")
        page = PageReading.from_dict({"lines": d.get("lines"), "seconds": d.get("seconds"),
                                      "warnings": d.get("warnings"), "suspect": d.get("suspect", False)})
        try:
            scores = {int(k): float(v) for k, v in d.get("scores", {}).items()}
            rotation = int(d.get("rotation", -1))
        except (TypeError, ValueError):
            raise MalformedOutput("the engine's upright reading has a rotation or scores that are not numbers") from None
        if rotation not in (0, 90, 180, 270):
            raise MalformedOutput(f"the engine's upright reading turns the page by {d.get('rotation')!r}, not a quarter turn")
        return cls(rotation, page.lines, str(d.get("reason", "")), scores, str(d.get("check_failed", "")), page.seconds,
                   page.warnings, page.suspect)

    def page_reading(self) -> PageReading:
        """The reading as a :class:`~desktop.core.engines.base.PageReading` of the turned image (lines,
        warnings, suspect mark, seconds)."""
        return PageReading(lines=list(self.lines), warnings=list(self.warnings), suspect=bool(self.suspect),
                           seconds=float(self.seconds))


def check_reading(reading: Any, width: int, height: int) -> Reading:
    """Check an :meth:`~desktop.core.engines.base.Engine.read_upright` answer against the contract.

    Args:
        reading: what the engine returned.
        width, height: size of the image it was given (before turning), in pixels.

    Returns:
        ``reading`` itself when it is sound: a :class:`Reading` with a quarter-turn rotation whose lines
        pass :func:`~desktop.core.engines.base.check_page_reading` on the image turned by it.

    Raises:
        MalformedOutput: anything else (the message names the line).
    """
    if not isinstance(reading, Reading):
        raise MalformedOutput(f"the engine returned {type(reading).__name__} instead of an upright reading")
    if reading.rotation not in (0, 90, 180, 270):
        raise MalformedOutput(f"the engine's upright reading turns the page by {reading.rotation!r}, not a quarter turn")
    turned_w, turned_h = (height, width) if reading.rotation % 180 else (width, height)
    check_page_reading(reading.page_reading(), turned_w, turned_h)
    return reading


def flip_vote(labels: Sequence[tuple[str, float]]) -> float:
    """The angle classifier's vote that a sample of line crops is upside down, in [-1, 1].

    Args:
        labels: ``(label, score)`` per crop as rapidocr's classifier gives them (label ``"0"`` or
            ``"180"``, score its probability in [0.5, 1]).

    Returns:
        Mean over the crops of ``+score`` for ``"180"`` and ``-score`` for ``"0"``: -1 when every crop
        is surely upright, +1 when every crop is surely upside down, 0 for no crops or an even split.
    """
    if not labels:
        return 0.0
    return float(sum(score if "180" in str(label) else -score for label, score in labels) / len(labels))
