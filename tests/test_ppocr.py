"""The PP-OCR engine on real samples (rapidocr + onnxruntime on the CPU)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from desktop.core.engines.base import EngineError
from desktop.core.engines.ppocr import MODEL_FILES, PPOCREngine, model_dir

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def engine():
    e = PPOCREngine()
    yield e
    e.close()


def load_rgb(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


def test_models_come_from_the_wheel_and_the_version_names_them():
    folder = model_dir()
    assert all((folder / name).is_file() for name in MODEL_FILES.values())
    e = PPOCREngine()
    assert e.version.startswith("rapidocr 3.10.0")
    assert "PP-OCRv6_det_small" in e.version and "PP-OCRv6_rec_small" in e.version
    assert e.name == "ppocr" and e.languages == ("zh", "en") and e.capabilities == frozenset({"upright"})
    assert e.describe().startswith("ppocr rapidocr 3.10.0")


def test_speed_settings_reach_the_sessions(engine):
    # Measured in BENCHMARKS.md: no detector upscaling of narrow receipts, unpadded recogniser calls,
    # onnxruntime sessions of ours (arena given back after every detector run, no spinning). They must
    # reach the loaded models, not only the engine's attributes.
    engine.warm_up()
    stages = engine._stages
    assert stages._det.limit_side_len == 448 and stages.max_side_len == 2000
    assert stages._rec.batch == 1 and stages._rec.shape == (3, 48, 48)
    det = stages._det.session
    options = det.get_session_options()
    assert options.enable_cpu_mem_arena and options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert det._run_options.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
    rec = stages._rec.session.get_session_options()
    assert rec.intra_op_num_threads == 1 and rec.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    # subnormal floats flushed to zero (the detector took 2.3x its CPU time on them)
    assert options.get_session_config_entry("session.set_denormal_as_zero") == "1"
    assert rec.get_session_config_entry("session.set_denormal_as_zero") == "1"
    assert engine.use_cls is False
    # The recogniser pads no line crop to rapidocr's 320 px minimum; the detector sees the full image.
    assert engine._stages.det_max_side is None
    custom = PPOCREngine(det_min_side=736, rec_batch_num=6, rec_min_width=320, det_max_side=1280)
    custom.warm_up()
    try:
        assert custom._stages._det.limit_side_len == 736 and custom._stages._rec.batch == 6
        assert custom._stages._rec.shape == (3, 48, 320) and custom._stages.det_max_side == 1280
    finally:
        custom.close()


def test_detector_sees_a_shrunk_copy_and_boxes_come_back_in_full_pixels(samples):
    # sroie_086 is 932 x 2067 px: rapidocr caps it at 2000, the detector sees 1280; the boxes must still
    # span the receipt in the pixels of the image given, and the crops come from the full resolution.
    image = load_rgb(samples / "sroie" / "sroie_086.jpg")
    engine = PPOCREngine(det_max_side=1280)
    engine.warm_up()
    try:
        det = engine._stages.detect(np.ascontiguousarray(image[:, :, ::-1]))
        boxes = engine._stages.upright_boxes(det, 0)
    finally:
        engine.close()
    assert max(det.image.shape[:2]) > 1280 and len(det) > 20
    assert boxes[..., 0].max() > 0.6 * image.shape[1] and boxes[..., 1].max() > 0.8 * image.shape[0]
    assert boxes[..., 0].max() <= image.shape[1] + 2 and boxes[..., 1].max() <= image.shape[0] + 2


def test_warm_up_loads_every_session_without_reading_a_page():
    engine = PPOCREngine()
    try:
        engine.warm_up()
        stages = engine._stages
        assert stages._rec is not None and stages._cls is not None and stages._det is not None
    finally:
        engine.close()


def test_creating_the_engine_loads_nothing():
    code = (
        "import sys; from desktop.core.engines.ppocr import PPOCREngine; e = PPOCREngine(); "
        "print(e._stages is None, 'onnxruntime' in sys.modules, 'rapidocr' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.stdout.split() == ["True", "False", "False"], out.stderr


def test_reads_a_receipt(engine, samples):
    path = samples / "sroie" / "sroie_007.jpg"
    truth = json.loads((samples / "sroie" / "sroie_007.key.json").read_text())
    image = load_rgb(path)
    lines = engine.read_page(image).lines
    assert len(lines) > 10
    h, w = image.shape[:2]
    for ln in lines:
        x0, y0, x1, y1 = ln.box
        assert 0 <= x0 <= x1 <= w and 0 <= y0 <= y1 <= h
        assert ln.polygon is not None and len(ln.polygon) == 4
        assert 0.0 <= ln.confidence <= 1.0 and ln.text.strip()
    text = "\n".join(ln.text for ln in lines)
    assert truth["total"] in text
    assert "MOTOR" in text
    # reading order: line tops never go back up by more than a line height
    tops = [ln.box[1] for ln in lines]
    height = float(np.median([ln.box[3] - ln.box[1] for ln in lines]))
    assert all(b >= a - height for a, b in zip(tops, tops[1:]))


def test_reads_chinese(engine, samples):
    lines = engine.read_page(load_rgb(samples / "cn_invoice" / "vat_einvoice_tianjin.png")).lines
    text = "".join(ln.text for ln in lines)
    assert "发票" in text and "012001800311" in text


def test_blank_and_grey_images(engine):
    assert engine.read_page(np.full((200, 300, 3), 255, np.uint8)).lines == []
    assert engine.read_page(np.full((50, 60), 255, np.uint8)).lines == []


@pytest.mark.parametrize(
    "bad",
    [np.zeros((0, 0, 3), np.uint8), np.zeros((10, 10, 3), np.float32), np.zeros((10, 10, 5), np.uint8), "not an image"],
)
def test_bad_input_is_an_engine_error(engine, bad):
    with pytest.raises(EngineError):
        engine.read_page(bad)


@pytest.mark.parametrize("turned", [90, 180, 270])
def test_a_turned_receipt_is_read_upright_in_one_pass(engine, samples, turned):
    """Orientation is decided between detection and recognition: same lines as the upright read."""
    from benchmarks.textmetrics import cer
    from desktop.core.orientation import rotate_image

    upright = load_rgb(samples / "sroie" / "sroie_007.jpg")
    reference = engine.read_upright(upright)
    assert reference.rotation == 0 and reference.reason == ""
    image = rotate_image(upright, turned)  # content turned `turned` cw: it needs (360 - turned) more
    reading = engine.read_upright(image)
    assert reading.rotation == (360 - turned) % 360
    assert "vote" in reading.reason
    text = "\n".join(ln.text for ln in reading.lines)
    assert cer(text, "\n".join(ln.text for ln in reference.lines)) < 0.03
    h, w = rotate_image(image, reading.rotation).shape[:2]
    assert (h, w) == upright.shape[:2]
    assert all(0 <= ln.box[0] <= ln.box[2] <= w and 0 <= ln.box[1] <= ln.box[3] <= h for ln in reading.lines)
    # the boxes land where the upright read put them (same detector boxes, turned back)
    first = next(ln for ln in reference.lines if len(ln.text) > 8)
    twin = next(ln for ln in reading.lines if ln.text == first.text)
    assert max(abs(a - b) for a, b in zip(first.box, twin.box)) < 12


def test_recognition_runs_one_thread_per_worker(engine):
    engine.warm_up()
    stages = engine._stages
    assert stages.workers == engine.workers >= 1
    options = stages._rec.session.get_session_options()
    assert options.intra_op_num_threads == 1
    assert PPOCREngine(threads=1).workers == 1


def test_the_sideways_guess_and_one_detection_for_a_page_on_its_side(engine, samples):
    from desktop.core.engines.ppocr_stages import looks_sideways
    from desktop.core.orientation import rotate_image

    upright = load_rgb(samples / "tesseract" / "phototest.tif")
    assert not looks_sideways(upright[:, :, ::-1]) and looks_sideways(rotate_image(upright, 90)[:, :, ::-1])
    engine.warm_up()
    stages = engine._stages
    calls: list[tuple[int, ...]] = []
    detect = stages.detect

    def counting(bgr):
        calls.append(bgr.shape)
        return detect(bgr)

    stages.detect = counting
    try:
        reference = engine.read_upright(upright)
        calls.clear()
        reading = engine.read_upright(rotate_image(upright, 90))
        assert len(calls) == 1 and calls[0] == upright.shape  # detected once, already turned upright
        assert reading.rotation == 270 and "vertically" in reading.reason
        assert [ln.text for ln in reading.lines] == [ln.text for ln in reference.lines]
        # A wrong guess costs a detection, never the orientation: an upright page taken for one on its side.
        engine.sideways_prior = False
        calls.clear()
        assert engine._decide(np.ascontiguousarray(np.rot90(upright[:, :, ::-1], -3)), keep=90).rotation == 90
        assert len(calls) == 2
    finally:
        engine.sideways_prior = True
        del stages.detect


def test_a_large_detector_input_is_detected_in_strips_with_the_same_lines(engine, samples, monkeypatch):
    from desktop.core.engines import ppocr_stages

    image = load_rgb(samples / "tesseract" / "phototest.tif")  # 640 x 480 px, 8 lines
    whole = engine.read_page(image).lines
    calls: list[tuple[int, ...]] = []
    engine.warm_up()
    detector = engine._stages._det
    run = detector.__class__.__call__
    monkeypatch.setattr(detector.__class__, "__call__", lambda self, img: calls.append(img.shape) or run(self, img))
    monkeypatch.setattr(ppocr_stages, "STRIP_PIXELS", 120_000)  # 640 x 480 px -> 3 strips
    monkeypatch.setattr(ppocr_stages, "STRIP_OVERLAP", 48)
    strips = engine.read_page(image).lines
    assert len(calls) == 3 and all(shape[0] < image.shape[0] for shape in calls)
    assert [ln.text for ln in strips] == [ln.text for ln in whole]
    diffs = [max(abs(a - b) for a, b in zip(s.box, w.box)) for s, w in zip(strips, whole)]
    assert max(diffs) <= 4, diffs  # a few px: strips this small are upscaled by the detector (shorter side < 448)
