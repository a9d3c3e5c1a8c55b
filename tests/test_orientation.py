"""Pages turned by 90/180/270 degrees without an EXIF tag come out upright."""
from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.textmetrics import cer
from desktop.core.model import Line
from desktop.core.orientation import assess, choose_rotation, probe_window, rotate_image, text_score
from tests.fake_engines import FakeEngine


def wide(text="some words here", conf=0.98, y=0):
    return Line(text, (10, y, 300, y + 20), conf)


def tall(text="some words here", conf=0.98, x=0):
    return Line(text, (x, 10, x + 20, 300), conf)


def test_upright_read_is_left_alone():
    verdict = assess([wide(y=30 * i) for i in range(5)])
    assert verdict.candidates == ()


def test_tall_lines_mean_the_page_lies_on_its_side():
    verdict = assess([tall(x=30 * i) for i in range(5)] + [wide()])
    assert verdict.candidates == (90, 270) and "vertically" in verdict.reason


def test_low_confidence_suggests_upside_down_and_fragments_try_everything():
    assert assess([wide(conf=0.6, y=30 * i) for i in range(5)]).candidates == (0, 180)
    fragment = Line("ab", (0, 0, 20, 10), 0.9)  # only short pieces read: turn and look again
    assert assess([fragment]).candidates == (0, 90, 180, 270)


def test_a_blank_page_is_not_probed():
    """Nothing detected at all: detection does not depend on orientation, so no extra reads."""
    verdict = assess([])
    assert verdict.candidates == () and verdict.reason == "no text found"


def test_text_score_weighs_characters_by_confidence():
    assert text_score([Line("ab c", (0, 0, 1, 1), 0.5), Line("xy", (0, 0, 1, 1), 1.0)]) == pytest.approx(3.5)


def test_rotate_image_turns_clockwise():
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    assert rotate_image(a, 90).tolist() == [[3, 0], [4, 1], [5, 2]]
    assert rotate_image(a, 360) is a


def test_probe_window_is_cut_around_the_text_at_full_resolution():
    image = np.zeros((2000, 1000, 3), np.uint8)
    lines = [Line("text", (100, 1500 + 10 * i, 400, 1510 + 10 * i)) for i in range(5)]
    window = probe_window(image, lines, 200_000)
    assert window.shape[0] * window.shape[1] <= 200_000 and window.shape[1] == 447
    small = probe_window(image, [], 200_000)
    assert small.shape[0] * small.shape[1] <= 200_000 and small.shape[0] > small.shape[1]


def test_choose_rotation_picks_the_best_probe_with_a_fake_engine():
    # The fake reads well only when the probe is wider than tall (i.e. turned upright).
    good = {"width": 100, "height": 50, "lines": [{"text": "a long line of good text", "box": [5, 5, 95, 15], "confidence": 0.99}]}
    bad = {"width": 50, "height": 100, "lines": [{"text": "xx", "box": [5, 5, 15, 95], "confidence": 0.6}]}
    engine = FakeEngine({True: good, False: bad}, key=lambda img: img.shape[1] > img.shape[0] and img[0, 0, 0] == 7)
    image = np.zeros((300, 200, 3), np.uint8)
    image[-1, 0] = 7  # bottom-left pixel: top-left after a 90 degree clockwise turn
    rotation, verdict = choose_rotation(image, [tall(x=20 * i) for i in range(4)], engine)
    assert rotation == 90 and set(verdict.scores) == {90, 270}


@pytest.mark.slow
def test_rotated_photo_test_page_is_read_upright(samples):
    from desktop.core.engines.ppocr import PPOCREngine
    from desktop.core.pipeline import scan_file

    docs = scan_file(samples / "tesseract" / "phototest-rotated-R.png", PPOCREngine())
    page = docs[0].page_results[0]
    assert docs[0].error is None
    assert page.rotation == 270  # content turned 90 degrees clockwise: turn 270 more to right it
    assert (page.width, page.height) == (640, 480)
    reference = (samples / "tesseract" / "phototest.gt.txt").read_text(encoding="utf-8")
    assert cer(docs[0].text, reference) < 0.05
    assert all(ln.box[2] <= page.width + 1 and ln.box[3] <= page.height + 1 for ln in page.lines)


@pytest.mark.slow
def test_cardinal_pages_are_all_read_upright(samples):
    from desktop.core.engines.ppocr import PPOCREngine
    from desktop.core.pipeline import scan_file

    engine = PPOCREngine()
    engine.max_pixels = 1_000_000  # keep the test quick: the text stays legible at ~100 dpi
    truth = json.loads((samples / "ocrmypdf" / "cardinal.gt.json").read_text())
    reference = (samples / "ocrmypdf" / "cardinal.gt.txt").read_text(encoding="utf-8")
    docs = scan_file(samples / "ocrmypdf" / "cardinal.pdf", engine)
    pages = sorted((p for d in docs for p in d.page_results), key=lambda p: p.number)
    assert [p.rotation for p in pages] == [(360 - t["correction_ccw_deg"]) % 360 for t in truth["pages"]]
    for page in pages:
        assert page.height > page.width  # portrait once upright
        assert cer(page.text, reference) < 0.1, page.number


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_turn_points_follows_the_pixels(rotation):
    from desktop.core.engines.ppocr_stages import turn_points

    h, w = 5, 8
    image = np.zeros((h, w), np.uint8)
    image[1, 6] = 1  # pixel (x=6, y=1): its centre is (6.5, 1.5)
    turned = rotate_image(image, rotation)
    y, x = (int(v[0]) for v in np.nonzero(turned))
    assert turn_points(np.array([6.5, 1.5]), rotation, w, h).tolist() == [x + 0.5, y + 0.5]


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_a_line_cropped_for_a_turn_is_the_line_of_the_turned_page(rotation):
    from desktop.core.engines.ppocr_stages import crop_line, turn_points

    rng = np.random.default_rng(1)
    image = rng.integers(0, 255, (60, 90, 3), dtype=np.uint8)
    quad = np.array([[10, 20], [70, 20], [70, 36], [10, 36]], np.float32)  # a wide line
    turned_image = rotate_image(image, rotation)
    turned_quad = turn_points(quad, rotation, 90, 60).astype(np.float32)
    start = int(np.argmin(turned_quad.sum(axis=1)))
    turned_quad = np.roll(turned_quad, -start, axis=0)
    assert np.array_equal(crop_line(image, quad, rotation), crop_line(turned_image, turned_quad, 0))
    assert crop_line(image, quad, rotation).shape[:2] == (16, 60)  # upright and wide either way


def test_flip_vote_weighs_labels_by_score():
    from desktop.core.orientation import flip_vote

    assert flip_vote([]) == 0.0
    assert flip_vote([("0", 1.0), ("0", 0.9)]) == pytest.approx(-0.95)
    assert flip_vote([("180", 0.8), ("0", 0.6)]) == pytest.approx(0.1)


def test_read_upright_without_an_engine_of_its_own_reads_probes_and_rereads():
    from desktop.core.orientation import read_upright

    good = {"width": 100, "height": 50,
            "lines": [{"text": "a long line of good text", "box": [5, 5, 95, 15], "confidence": 0.99}]}
    bad = {"width": 50, "height": 100, "lines": [
        {"text": "some words", "box": [5, 5, 15, 95], "confidence": 0.97},
        {"text": "more words", "box": [25, 5, 35, 95], "confidence": 0.97},
    ]}
    engine = FakeEngine({True: good, False: bad}, key=lambda img: img.shape[1] > img.shape[0] and img[0, 0, 0] == 7)
    image = np.zeros((300, 200, 3), np.uint8)
    image[-1, 0] = 7
    reading = read_upright(image, engine)
    assert reading.rotation == 90 and [ln.text for ln in reading.lines] == ["a long line of good text"]
    assert "vertically" in reading.reason


def test_read_upright_keeps_the_first_read_when_the_probe_fails():
    from desktop.core.engines.base import EngineError
    from desktop.core.orientation import read_upright

    class Flaky(FakeEngine):
        calls = 0

        def read_page(self, image):
            from desktop.core.engines.base import PageReading

            self.calls += 1
            if self.calls > 1:
                raise EngineError("probe broke")
            return PageReading([tall(x=30 * i) for i in range(4)])

    engine = Flaky({})
    reading = read_upright(np.zeros((300, 200, 3), np.uint8), engine)
    assert reading.rotation == 0 and len(reading.lines) == 4 and reading.check_failed == "probe broke"
