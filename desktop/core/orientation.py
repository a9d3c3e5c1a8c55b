"""Finding which way up a page is, from what an engine reads on it.

Scans and phone photos often arrive turned by 90, 180 or 270 degrees with no EXIF tag to say so.
PP-OCR's own per-line angle classifier only knows 0/180 degrees and, measured on the samples, does more
harm than good (it flips upright lines), so Shoebox decides per page instead:

1. Read the page as it is (rotation 0) at the full pixel budget: the usual, upright case costs nothing
   more.
2. Judge that read (:func:`assess`). On a page turned by 90 or 270 degrees the detector finds tall,
   narrow text lines; on a page turned by 180 degrees it finds normal-looking lines whose recognition
   confidence is low (the recogniser reads upside-down glyphs as junk: mean confidence 0.64-0.71
   against 0.95-0.99 upright, measured on ``ocrmypdf/cardinal.pdf`` and SROIE receipts).
3. Only when the read looks wrong, probe the candidate rotations on a small window (a quarter
   megapixel, :data:`PROBE_PIXELS`) cut from the rendered page around the text found (the median
   centre of the lines), at the render's resolution so small print stays legible, and score each by
   the sum over lines of confidence x text length (:func:`text_score`) -- which rewards both reading
   much text and reading it confidently.
   Shortcut: an engine that turns tall line crops a quarter turn anticlockwise before reading them
   (PP-OCR does: ``turns_tall_lines_ccw``) and still reads them confidently has shown that the text
   runs top to bottom, so the page needs 270 degrees and no probe is run.
4. The best-scoring rotation wins if it beats rotation 0 by a margin (:data:`MARGIN`); the caller then
   reads the page again, turned, at the full budget.

Engines that can decide before recognising (:attr:`~desktop.core.engines.base.Capability.UPRIGHT`, PP-OCR's
``read_upright``, see
:mod:`desktop.core.engines.ppocr_stages`) do better: the detector finds the text-line boxes once, their
geometry tells upright/upside-down pages (wide lines) from pages on their side (tall lines), rapidocr's
text-line angle classifier votes on a sample of :data:`SAMPLE_LINES` line crops between the two
candidates of that pair (:func:`flip_vote`), and only when the vote is not clear are the sample's crops
recognised both ways and compared by :func:`text_score`. Every line is then recognised once, upright:
a turned page costs about what an upright one does. :func:`read_upright` is the one entry point; it
uses the engine's own ``read_upright`` when there is one, else the read-probe-reread steps above.

Rotations are clockwise degrees, as in :attr:`desktop.core.model.PageResult.rotation`: the rotation that
*makes the page upright* (a page whose content was turned 90 degrees clockwise needs 270).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from desktop.core.engines.base import Capability, Engine, EngineError, check_page_reading

# The rules shared with engines that decide the orientation themselves live beside them (engines may
# not import this module): re-exported here.
from desktop.core.engines.upright import (
    ELONGATED,
    MARGIN,
    MIN_CONFIDENCE,
    SAMPLE_LINES,
    TALL_RATIO,
    TALL_SHARE,
    VOTE_CLEAR,
    Reading,
    check_reading,
    flip_vote,
)
from desktop.core.model import Line

__all__ = [
    "ELONGATED",
    "MARGIN",
    "MIN_CONFIDENCE",
    "PROBE_PIXELS",
    "SAMPLE_LINES",
    "VOTE_CLEAR",
    "Assessment",
    "Reading",
    "assess",
    "choose_rotation",
    "downscale",
    "flip_vote",
    "probe_window",
    "read_upright",
    "rotate_image",
    "text_score",
]

#: Pixel budget of a probe window (about 500 x 500 px of the rendered page, at its resolution): a few
#: lines of text are enough, the scores of right and wrong rotations differ 2.5-5x on the samples.
PROBE_PIXELS = 250_000


@dataclass
class Assessment:
    """What a read at rotation 0 suggests.

    Attributes:
        candidates: rotations worth probing (empty: the read looks upright, keep it).
        reason: why, for the page's warnings and the log.
        confidence: length-weighted mean confidence of the read.
        tall_share: share of lines (3+ characters) that are tall and narrow.
    """

    candidates: tuple[int, ...] = ()
    reason: str = ""
    confidence: float = 0.0
    tall_share: float = 0.0
    scores: dict[int, float] = field(default_factory=dict)


def read_upright(image: np.ndarray, engine: Engine) -> Reading:
    """Read a page, turned upright when it lies on its side or upside down.

    Args:
        image: the page as rendered, ``(H, W, 3)`` uint8 RGB.
        engine: the engine; its :meth:`~desktop.core.engines.base.Engine.read_upright` is used when it has
            :attr:`~desktop.core.engines.base.Capability.UPRIGHT` (one read, orientation decided before
            recognition), otherwise :meth:`~Engine.read_page` at rotation 0,
            :func:`choose_rotation`, and a second read of the turned image when it needs turning.

    Returns:
        A :class:`Reading`; its lines are in pixels of ``rotate_image(image, reading.rotation)``.

    Raises:
        EngineError: the page could not be read. On the fallback path a failed probe or second read
            does not raise: the first read is kept, with ``check_failed`` saying why.
    """
    if Capability.UPRIGHT in engine.capabilities:
        return check_reading(engine.read_upright(image), int(image.shape[1]), int(image.shape[0]))
    lines = check_page_reading(engine.read_page(image), int(image.shape[1]), int(image.shape[0])).lines
    try:
        rotation, verdict = choose_rotation(image, lines, engine)
        if not rotation:
            return Reading(0, lines)
        upright = rotate_image(image, rotation)
        turned = check_page_reading(engine.read_page(upright), int(upright.shape[1]), int(upright.shape[0])).lines
    except (EngineError, RuntimeError) as exc:
        return Reading(0, lines, check_failed=str(exc).strip() or type(exc).__name__)
    return Reading(rotation, list(turned), verdict.reason, dict(verdict.scores))


def _long(lines: Iterable[Line]) -> list[Line]:
    return [ln for ln in lines if len(ln.text.strip()) >= 3]


def text_score(lines: Iterable[Line]) -> float:
    """Sum over lines of ``confidence x number of non-space characters``: how much text was read, and how surely."""
    return float(sum(ln.confidence * len("".join(ln.text.split())) for ln in lines))


def mean_confidence(lines: Iterable[Line]) -> float:
    """Mean confidence weighted by each line's number of non-space characters (0 for no text)."""
    lines = list(lines)
    chars = sum(len("".join(ln.text.split())) for ln in lines)
    return text_score(lines) / chars if chars else 0.0


def assess(lines: Sequence[Line]) -> Assessment:
    """Judge a read made at rotation 0 and list the rotations to probe.

    - Mostly tall, narrow lines (over :data:`TALL_SHARE`): the page lies on its side -> probe 90 and
      270 only. Rotation 0 is not a candidate even though its read may be fine: rapidocr turns tall
      crops before recognising them, so a sideways page can *read* well at 0 while its layout (rows,
      reading order, boxes) is sideways.
    - Low confidence (under :data:`MIN_CONFIDENCE`) or almost no text: maybe upside down -> probe 0,
      180 (and 90/270 as well when only fragments were read). Nothing detected at all: no probe.
    - Otherwise: upright, nothing to probe.
    """
    long_lines = _long(lines)
    tall = [ln for ln in long_lines if (ln.box[3] - ln.box[1]) > TALL_RATIO * (ln.box[2] - ln.box[0])]
    share = len(tall) / len(long_lines) if long_lines else 0.0
    conf = mean_confidence(lines)
    if len(long_lines) >= 2 and share > TALL_SHARE:
        return Assessment((90, 270), f"{share:.0%} of the text lines run vertically", conf, share)
    if not lines:
        # Nothing detected at all: a blank page, or print too faint to find. Text detection does not
        # depend on the page's orientation, so turning it cannot help; probing would only cost 4 reads.
        return Assessment((), "no text found", conf, share)
    if not long_lines:
        return Assessment((0, 90, 180, 270), "almost no text found", conf, share)
    if conf < MIN_CONFIDENCE:
        return Assessment((0, 180), f"low recognition confidence ({conf:.2f})", conf, share)
    return Assessment((), "", conf, share)


def rotate_image(image: np.ndarray, degrees_cw: int) -> np.ndarray:
    """``image`` turned clockwise by 0/90/180/270 degrees (a contiguous copy unless 0)."""
    k = (degrees_cw // 90) % 4
    if k == 0:
        return image
    return np.ascontiguousarray(np.rot90(image, -k))


def downscale(image: np.ndarray, max_pixels: int) -> np.ndarray:
    """``image`` shrunk (area interpolation) to at most ``max_pixels`` pixels; unchanged when smaller."""
    h, w = image.shape[:2]
    if h * w <= max_pixels:
        return image
    import cv2

    f = (max_pixels / float(h * w)) ** 0.5
    size = (max(1, int(w * f)), max(1, int(h * f)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def probe_window(image: np.ndarray, lines: Sequence[Line], max_pixels: int = PROBE_PIXELS) -> np.ndarray:
    """A window of at most ``max_pixels`` pixels of ``image`` centred on the text found on it.

    Cut at the image's own resolution (so small print stays legible), centred on the median centre of
    ``lines``; a page with no lines is downscaled whole instead (:func:`downscale`).
    """
    h, w = image.shape[:2]
    if h * w <= max_pixels:
        return image
    if not lines:
        return downscale(image, max_pixels)
    cx = float(np.median([(ln.box[0] + ln.box[2]) / 2 for ln in lines]))
    cy = float(np.median([(ln.box[1] + ln.box[3]) / 2 for ln in lines]))
    side = int(max_pixels ** 0.5)
    win_w = min(w, side)
    win_h = min(h, max_pixels // win_w)
    if win_h == h:  # a short, wide image: use the spare budget for width
        win_w = min(w, max_pixels // win_h)
    x0 = int(min(max(cx - win_w / 2, 0), w - win_w))
    y0 = int(min(max(cy - win_h / 2, 0), h - win_h))
    return np.ascontiguousarray(image[y0:y0 + win_h, x0:x0 + win_w])


def choose_rotation(
    image: np.ndarray,
    lines: Sequence[Line],
    engine: Engine,
    *,
    probe_pixels: int = PROBE_PIXELS,
) -> tuple[int, Assessment]:
    """Decide which clockwise rotation makes the page upright.

    Args:
        image: the page as read at rotation 0, ``(H, W, 3)`` uint8 RGB (any scale).
        lines: what ``engine`` read on ``image`` (used to decide whether to probe at all).
        engine: the engine to probe with (its :meth:`~Engine.read_page` is called on small images).
        probe_pixels: pixel budget of each probe.

    Returns:
        ``(rotation, assessment)``: ``rotation`` in (0, 90, 180, 270); ``assessment.scores`` holds the
        probe score of every rotation tried (empty when the read looked upright).

    Raises:
        EngineError: a probe failed (the caller keeps the rotation-0 read).
    """
    verdict = assess(lines)
    if not verdict.candidates:
        return 0, verdict
    if verdict.candidates == (90, 270) and verdict.confidence >= MIN_CONFIDENCE and engine.turns_tall_lines_ccw:
        # The engine turned each tall line a quarter turn anticlockwise before reading it and read it
        # confidently: the text runs top to bottom, i.e. the content is turned 90 degrees clockwise.
        verdict.reason += ", read confidently when turned anticlockwise"
        return 270, verdict
    probe = probe_window(image, lines, probe_pixels)
    for rotation in verdict.candidates:
        turned = rotate_image(probe, rotation)
        reading = check_page_reading(engine.read_page(turned), int(turned.shape[1]), int(turned.shape[0]))
        verdict.scores[rotation] = text_score(reading.lines)
    best = max(verdict.scores, key=lambda r: verdict.scores[r])
    if 0 not in verdict.scores:  # lying on its side: one of 90/270 is right
        return best, verdict
    if best != 0 and verdict.scores[best] > MARGIN * verdict.scores[0]:
        return best, verdict
    return 0, verdict
