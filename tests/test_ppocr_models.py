"""Our PP-OCR model runners against rapidocr 3.10's own classes: the same boxes, texts and scores, bit for bit.

The field model is trained on recordings of this engine's readings; the runners of
:mod:`desktop.core.engines.ppocr_models` replace rapidocr's (to skip its configuration layer at start-up)
and must not move one of them. rapidocr's classes are built here through ``RapidOCR`` with the same
settings as ours; both sides get sessions of their own on the same model files.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from desktop.core.engines import ppocr_models as models
from desktop.core.engines.ppocr import MODEL_FILES, model_dir
from desktop.core.engines.ppocr_stages import Stages, _session, crop_line

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent


def _bgr(path: Path) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))[:, :, ::-1])


@pytest.fixture(scope="module")
def theirs():
    from rapidocr import RapidOCR

    folder = model_dir()
    params = {f"{k}.model_path": str(folder / v) for k, v in MODEL_FILES.items()}
    params.update({"Global.log_level": "error", "Det.limit_type": "min", "Det.limit_side_len": 448,
                   "Rec.rec_batch_num": 1, "Rec.rec_img_shape": [3, 48, 48]})
    ocr = RapidOCR(params=params)
    return ocr


@pytest.fixture(scope="module")
def pages(samples):
    """Two receipts and a printed page, as rapidocr's detector receives them (resized and padded)."""
    stages = Stages(model_dir(), MODEL_FILES, workers=1, text_score=0.5)
    out = []
    for path in (samples / "sroie" / "sroie_007.jpg", samples / "sroie" / "sroie_265.jpg",
                 samples / "tesseract" / "phototest.tif"):
        bgr = _bgr(path)
        from rapidocr.utils.process_img import apply_vertical_padding, resize_image_within_bounds

        img, rh, rw = resize_image_within_bounds(bgr, models.MIN_SIDE_LEN, stages.max_side_len)
        img, _ = apply_vertical_padding(img, {"preprocess": {"ratio_h": rh, "ratio_w": rw}},
                                        models.WIDTH_HEIGHT_RATIO, models.MIN_HEIGHT)
        out.append(img)
    return out


def test_detector_boxes_are_rapidocrs(theirs, pages):
    ours = models.Detector(_session(str(model_dir() / MODEL_FILES["Det"]), None), limit_side_len=448)
    reference = theirs._load_det_model()
    for img in pages:
        expected = reference(img).boxes
        got = ours(img)
        assert got.dtype == np.float32 and len(got) > 5
        assert np.array_equal(got, np.asarray(expected, dtype=np.float32))


def test_recogniser_and_classifier_results_are_rapidocrs(theirs, pages):
    from rapidocr.ch_ppocr_rec import TextRecInput

    det = models.Detector(_session(str(model_dir() / MODEL_FILES["Det"]), None), limit_side_len=448)
    crops = [crop_line(img, quad) for img in pages[:2] for quad in det(img)[:25]]
    rec_path = str(model_dir() / MODEL_FILES["Rec"])
    rec = theirs._load_rec_model()
    for width, batch in ((48, 1), (320, 6)):  # ours, and rapidocr's defaults (padding and batches)
        rec.rec_batch_num, rec.rec_image_shape = batch, [3, 48, width]
        out = rec(TextRecInput(img=crops))
        expected = list(zip(out.txts, out.scores))
        got = models.Recogniser(_session(rec_path, 1), min_width=width, batch=batch)(crops)
        assert [(one.text, one.confidence) for one in got] == expected
        assert all(isinstance(one.confidence, float) for one in got) and any(one.text for one in got)
        for one in got:  # one probability per character, their mean the line's confidence
            assert one.chars is not None and len(one.chars) == len(one.text)
            if one.text:
                assert abs(sum(one.chars) / len(one.chars) - one.confidence) < 1e-4
    cls = theirs._load_cls_model()
    got_cls = models.Classifier(_session(str(model_dir() / MODEL_FILES["Cls"]), 1))(crops)
    assert got_cls == list(cls(crops).cls_res)
    assert {label for label, _ in got_cls} <= set(models.CLS_LABELS)
    assert (cls.cls_thresh, tuple(cls.cls_image_shape), cls.cls_batch_num) == (models.CLS_THRESH, models.CLS_SHAPE,
                                                                            models.CLS_BATCH)


def test_the_settings_are_rapidocrs_config(theirs):
    cfg = theirs.cfg
    assert (cfg.Global.min_side_len, cfg.Global.min_height, cfg.Global.width_height_ratio) == (
        models.MIN_SIDE_LEN, models.MIN_HEIGHT, models.WIDTH_HEIGHT_RATIO)
    assert cfg.Global.use_vertical_padding and cfg.Global.use_preprocess_img
    det = cfg.Det
    assert (det.thresh, det.box_thresh, det.max_candidates, det.unclip_ratio, det.use_dilation, det.score_mode) == (
        models.DET_THRESH, models.DET_BOX_THRESH, models.DET_MAX_CANDIDATES, models.DET_UNCLIP_RATIO, True, "fast")
    assert tuple(det.mean) == models.DET_MEAN and tuple(det.std) == models.DET_STD
    assert list(cfg.Cls.label_list) == list(models.CLS_LABELS)


def test_detector_input_is_rapidocrs_bit_for_bit():
    from rapidocr.ch_ppocr_det.utils import DetPreProcess

    image = np.random.default_rng(7).integers(0, 256, (97, 61, 3), dtype=np.uint8)
    for mean, std in (([0.5] * 3, [0.5] * 3), ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])):
        reference = DetPreProcess(448, "min", mean, std)
        resized = reference.resize(image)
        assert np.array_equal(models.normalised(resized, reference.mean, reference.std, reference.scale), reference(image))
    ours = models.Detector.__new__(models.Detector)
    ours.limit_side_len = 448
    assert np.array_equal(ours.resize(image), DetPreProcess(448, "min").resize(image))


def test_loading_the_engine_imports_no_rapidocr_model_class_nor_omegaconf():
    code = (
        "import sys; from desktop.core.engines.ppocr import PPOCREngine; e = PPOCREngine(); e.warm_up(); "
        "import numpy as np; e.read_page(np.full((64, 256, 3), 255, np.uint8)); "
        "print(sorted(m for m in sys.modules if m.startswith(('omegaconf', 'rapidocr.ch_ppocr', 'rapidocr.main', "
        "'rapidocr.inference_engine', 'requests'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_ctc_decoding_is_rapidocrs_bit_for_bit_ties_included():
    # decode() takes each step's probability at its arg-max instead of a second max() pass: the same
    # values, the first of tied maxima included (rapidocr's CTCLabelDecode is the reference).
    from rapidocr.ch_ppocr_rec.utils import CTCLabelDecode

    alphabet = [chr(ord("a") + i) for i in range(26)] + list("0123456789")
    reference = CTCLabelDecode(character=list(alphabet))
    ours = models.Recogniser.__new__(models.Recogniser)
    ours.characters = ["blank", *alphabet, " "]
    rng = np.random.default_rng(11)
    preds = rng.random((5, 40, len(ours.characters)), dtype=np.float32)
    preds[1, :, :] = preds[1, :, :1]  # every class tied at every step: the first (blank) wins
    preds[2, ::3, 5] = preds[2, ::3, 9] = 2.0  # ties between two letters
    preds[3] = 0.0
    preds[3, :, 0] = 1.0  # all blank: no text, confidence 0
    theirs = reference(preds)[0]
    assert [(one.text, one.confidence) for one in ours.decode(preds)] == [(text, score) for text, score in theirs]
    assert ours.decode(preds)[2][0] and ours.decode(preds)[3][:2] == ("", 0.0)
    for one in ours.decode(preds):
        assert one.chars is not None and len(one.chars) == len(one.text)
