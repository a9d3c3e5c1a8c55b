"""PP-OCR's orientation decision when the angle classifier's vote is clear (``PPOCREngine._decide``).

Stages are faked here (no model runs): six text lines, each half ink and half paper, so that a crop
cut the right way up and one turned 180 degrees can be told apart by the recogniser stand-in.
"""
from __future__ import annotations

import numpy as np
import pytest

from desktop.core.engines import upright
from desktop.core.engines.ppocr import PPOCREngine
from desktop.core.engines.ppocr_models import Recognised
from desktop.core.engines.ppocr_stages import Detection, Stages


def _detection() -> Detection:
    image = np.full((400, 300, 3), 255, dtype=np.uint8)
    boxes = []
    for k in range(6):
        top = 20 + 60 * k
        image[top:top + 30, 20:140] = 0  # ink on the left half of every line as it reads upright
        boxes.append([[20, top], [260, top], [260, top + 30], [20, top + 30]])
    record = {"preprocess": {"ratio_h": 1.0, "ratio_w": 1.0}}
    return Detection(image, record, np.array(boxes, dtype=np.float32), 300, 400)


class _Stages:
    """Detection, classifier and recogniser stand-ins; ``readable``: the turn of the detected image
    whose crops read well (the recogniser reads a crop well when its ink is on its left)."""

    def __init__(self, vote_label: str, readable: int) -> None:
        self.det = _detection()
        self.vote_label = vote_label
        self.readable = readable
        self.recognised = 0

    def detect(self, bgr: np.ndarray) -> Detection:
        return self.det

    def classify(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        return [(self.vote_label, 0.99)] * len(crops)

    def recognise(self, crops: list[np.ndarray]) -> list[Recognised]:
        self.recognised += len(crops)
        out = []
        for crop in crops:
            w = crop.shape[1]
            ink_left = crop[:, : w // 2].mean() < crop[:, w // 2:].mean()
            good = ink_left == (self.readable == 0)
            out.append(Recognised("TOTAL 12.50", 0.98) if good else Recognised("os'zl", 0.55))
        return out

    def upright_boxes(self, detection: Detection, rotation: int) -> np.ndarray:
        return Stages.upright_boxes(self, detection, rotation)  # type: ignore[arg-type]


def _engine(stages: _Stages) -> PPOCREngine:
    engine = PPOCREngine()
    engine._stages = stages
    return engine


def test_a_clear_upside_down_vote_turns_the_page_reading_each_line_once():
    stages = _Stages("180", readable=180)
    reading = _engine(stages)._decide(np.zeros((400, 300, 3), np.uint8), keep=0)
    assert reading.rotation == 180
    assert reading.scores == {}  # the sample was not read both ways
    assert stages.recognised == len(stages.det)
    assert "upside down" in reading.reason and "+0.99" in reading.reason
    assert [ln.text for ln in reading.lines] == ["TOTAL 12.50"] * 6


def test_a_clear_upside_down_vote_with_a_poor_read_is_checked_the_other_way():
    stages = _Stages("180", readable=0)  # the classifier is wrong: the page is upright
    reading = _engine(stages)._decide(np.zeros((400, 300, 3), np.uint8), keep=0)
    assert reading.rotation == 0 and reading.reason == ""
    assert set(reading.scores) == {0, 180} and reading.scores[0] > reading.scores[180]
    assert [ln.text for ln in reading.lines] == ["TOTAL 12.50"] * 6


@pytest.mark.parametrize("label, readable", [("0", 0), ("180", 180)])
def test_either_clear_vote_costs_one_recognition_a_line(label, readable):
    stages = _Stages(label, readable=readable)
    reading = _engine(stages)._decide(np.zeros((400, 300, 3), np.uint8), keep=0)
    assert reading.rotation == readable and stages.recognised == len(stages.det)


def test_an_unclear_vote_still_reads_the_sample_both_ways(monkeypatch):
    stages = _Stages("180", readable=180)
    # a vote of +0.49 (below VOTE_CLEAR) is not clear: both turns of the sample are read and compared
    monkeypatch.setattr(upright, "flip_vote", lambda labels: upright.VOTE_CLEAR - 0.01)
    reading = _engine(stages)._decide(np.zeros((400, 300, 3), np.uint8), keep=0)
    assert reading.rotation == 180 and set(reading.scores) == {0, 180}
    assert stages.recognised == len(stages.det) + min(len(stages.det), upright.SAMPLE_LINES)
