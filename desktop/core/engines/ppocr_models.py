"""The three PP-OCR models on onnxruntime, with rapidocr 3.10's pre- and post-processing, and no configuration layer.

rapidocr stays the provider of the model files (:func:`desktop.core.engines.ppocr.model_dir`) and of its
image helpers (``rapidocr.utils.process_img``: light, numpy and OpenCV only). Its model classes
(``TextDetector``, ``TextRecognizer``, ``TextClassifier``) are not used: importing any of them imports
``rapidocr.inference_engine.base``, which parses the wheel's 85 KB ``default_models.yaml`` twice with
OmegaConf (0.4-0.5 s of CPU, measured with ``python -X importtime``), and building ``RapidOCR`` parses
``config.yaml`` again; all of that only to read the dozen settings below, which are fixed for the
shipped models.

The arithmetic is rapidocr 3.10.0's (Apache-2.0; ``ch_ppocr_det/utils.py``, ``ch_ppocr_det/main.py``,
``ch_ppocr_rec/main.py``, ``ch_ppocr_rec/utils.py``, ``ch_ppocr_cls/main.py``, ``ch_ppocr_cls/utils.py``,
themselves PaddleOCR's), operation for operation, so that every box, text and confidence is the same bit for
bit (``tests/test_ppocr_models.py`` compares them with rapidocr's own classes; the readings of all
benchmark receipts were compared with ``benchmarks/check_readings.py``). The settings are those of
rapidocr's ``config.yaml`` for these models unless the engine overrides them (:class:`~desktop.core.engines.ppocr.PPOCREngine`).

Coordinates: the detector's boxes are ``(N, 4, 2)`` float32 quadrilaterals in pixels of the image given to
:meth:`Detector.__call__`, corners clockwise from the top-left, in rapidocr's reading order
(:func:`sorted_boxes`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = ["CLS_LABELS", "CLS_THRESH", "Classifier", "Detector", "Recogniser", "sorted_boxes"]

# -- rapidocr 3.10.0 config.yaml, for the shipped models ------------------------------------------------
#: ``Global``: images with a shorter side below this are upscaled before detection (``min_side_len``);
#: images lower than ``min_height`` or wider than ``width_height_ratio`` times their height get black
#: bands above and below (``use_vertical_padding``).
MIN_SIDE_LEN, MIN_HEIGHT, WIDTH_HEIGHT_RATIO = 30, 30, 8
#: ``Det``: binarisation threshold of the probability map, minimum mean probability of a box, at most
#: this many contours, the box's growth (DB's unclip ratio), dilation of the binary map, score mode.
DET_THRESH, DET_BOX_THRESH, DET_MAX_CANDIDATES, DET_UNCLIP_RATIO = 0.3, 0.5, 1000, 1.6
#: ``Det.mean`` / ``Det.std`` of the detector's input normalisation (``(x / 255 - mean) / std``).
DET_MEAN, DET_STD = (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)
#: DB's smallest box side (pixels of the probability map; ``DBPostProcess.min_size``).
DET_MIN_SIZE = 3
#: rapidocr's ``sorted_boxes``: boxes whose top-left corners are less than this far apart vertically
#: are on one row (``_BOX_SORT_Y_THRESHOLD``).
BOX_SORT_Y_THRESHOLD = 10
#: ``Cls``: input ``(C, H, W)`` of the PP-OCR mobile v2.0 angle classifier (rapidocr's shape for
#: ``ocr_version`` PP-OCRv4), lines per call, labels, and the score above which "180" flips a line.
CLS_SHAPE = (3, 48, 192)
CLS_BATCH = 6
CLS_LABELS = ("0", "180")
CLS_THRESH = 0.9
#: ``Rec.rec_img_shape``'s channels and height (the width is the engine's ``rec_min_width``).
REC_CHANNELS, REC_HEIGHT = 3, 48


def _input_names(session: Any) -> list[str]:
    return [v.name for v in session.get_inputs()]


def _output_names(session: Any) -> list[str]:
    return [v.name for v in session.get_outputs()]


class _Model:
    """One onnxruntime session called as rapidocr's ``OrtInferSession`` calls it (first output)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._inputs = _input_names(session)
        self._outputs = _output_names(session)

    def run(self, tensor: np.ndarray) -> np.ndarray:
        """The model's first output for ``tensor`` (float32, the model's input layout)."""
        return self.session.run(self._outputs, dict(zip(self._inputs, [tensor])))[0]


class Detector(_Model):
    """PP-OCRv6 small text detector (DB) with rapidocr's ``TextDetector`` pre- and post-processing.

    Args:
        session: its onnxruntime ``InferenceSession`` (or a wrapper with the same ``run``).
        limit_side_len: images whose shorter side is below this are upscaled to it (rapidocr
            ``Det.limit_side_len`` with ``limit_type: min``); both sides are then rounded to multiples of
            32 (DB's stride).
    """

    def __init__(self, session: Any, *, limit_side_len: int) -> None:
        super().__init__(session)
        self.limit_side_len = int(limit_side_len)
        self.mean = np.array(DET_MEAN)
        self.std = np.array(DET_STD)
        self.scale = 1 / 255.0
        self.dilation_kernel = np.array([[1, 1], [1, 1]])

    def __call__(self, image: np.ndarray) -> np.ndarray:
        """Text-line quadrilaterals of a BGR ``(H, W, 3)`` uint8 image: ``(N, 4, 2)`` float32, in its pixels."""
        if image is None:
            raise ValueError("img is None")
        shape = image.shape[0], image.shape[1]
        resized = self.resize(image)
        if resized is None:
            return np.zeros((0, 4, 2), dtype=np.float32)
        pred = self.run(normalised(resized, self.mean, self.std, self.scale))
        boxes, _ = self.postprocess(pred, shape)
        if len(boxes) < 1:
            return np.zeros((0, 4, 2), dtype=np.float32)
        return np.array(sorted_boxes(boxes), dtype=np.float32)

    def resize(self, image: np.ndarray) -> np.ndarray | None:
        """rapidocr ``DetPreProcess.resize`` with ``limit_type: min``: sides to multiples of 32."""
        import cv2

        h, w = image.shape[:2]
        if min(h, w) < self.limit_side_len:
            ratio = float(self.limit_side_len) / h if h < w else float(self.limit_side_len) / w
        else:
            ratio = 1.0
        resize_h = int(round(int(h * ratio) / 32) * 32)
        resize_w = int(round(int(w * ratio) / 32) * 32)
        if resize_w <= 0 or resize_h <= 0:
            return None
        return cv2.resize(image, (resize_w, resize_h))

    # -- DB post-processing (rapidocr ``DBPostProcess``) ---------------------------------------------
    def postprocess(self, pred: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, list[float]]:
        """Boxes and scores from the ``(1, 1, h, w)`` probability map, in pixels of an image of ``shape``."""
        import cv2

        src_h, src_w = shape
        pred = pred[:, 0, :, :]
        segmentation = pred > DET_THRESH
        mask = cv2.dilate(np.array(segmentation[0]).astype(np.uint8), self.dilation_kernel)
        boxes, scores = self._boxes_from_bitmap(pred[0], mask, src_w, src_h)
        return _filter_det_res(boxes, scores, src_h, src_w)

    def _boxes_from_bitmap(self, pred: np.ndarray, bitmap: np.ndarray, dest_width: int,
                           dest_height: int) -> tuple[np.ndarray, list[float]]:
        import cv2

        height, width = bitmap.shape
        outs = cv2.findContours((bitmap * 255).astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        contours = outs[1] if len(outs) == 3 else outs[0]
        boxes, scores = [], []
        for index in range(min(len(contours), DET_MAX_CANDIDATES)):
            contour = contours[index]
            points, sside = _mini_box(contour)
            if sside < DET_MIN_SIZE:
                continue
            score = _box_score_fast(pred, points.reshape(-1, 2))
            if DET_BOX_THRESH > score:
                continue
            box, sside = _mini_box(_unclip(points, DET_UNCLIP_RATIO))
            if sside < DET_MIN_SIZE + 2:
                continue
            box[:, 0] = np.clip(np.round(box[:, 0] / width * dest_width), 0, dest_width)
            box[:, 1] = np.clip(np.round(box[:, 1] / height * dest_height), 0, dest_height)
            boxes.append(box.astype(np.int32))
            scores.append(score)
        return np.array(boxes, dtype=np.int32), scores


def normalised(image: np.ndarray, mean: np.ndarray, std: np.ndarray, scale: float) -> np.ndarray:
    """``(1, 3, H, W)`` float32 detector input of a ``(H, W, 3)`` uint8 image, equal bit for bit to rapidocr's.

    rapidocr computes ``(img * scale - mean) / std`` in float64 (its mean and std are float64 arrays)
    over the whole image, then transposes and casts to float32: for a 2000 x 2000 px page three
    float64 temporaries of 96 MB each (0.16 CPU s for a 1408 x 1984 px receipt). A pixel has only 256
    values, so the same arithmetic is done once per value and channel, and each channel is looked up in
    its table (``cv2.LUT``) straight into the network's layout (0.008 CPU s).
    """
    import cv2

    values = np.arange(256, dtype=np.float32)
    out = np.empty((1, 3, image.shape[0], image.shape[1]), dtype=np.float32)
    for c, plane in enumerate(cv2.split(np.ascontiguousarray(image))):
        table = ((values * scale - np.asarray(mean)[c]) / np.asarray(std)[c]).astype(np.float32)
        cv2.LUT(plane, table, dst=out[0, c])
    return out


def _mini_box(contour: np.ndarray) -> tuple[np.ndarray, float]:
    """rapidocr ``DBPostProcess.get_mini_boxes``: the minimum-area rectangle, corners from the top-left."""
    import cv2

    bounding_box = cv2.minAreaRect(contour)
    points = sorted(list(cv2.boxPoints(bounding_box)), key=lambda x: x[0])
    if points[1][1] > points[0][1]:
        index_1, index_4 = 0, 1
    else:
        index_1, index_4 = 1, 0
    if points[3][1] > points[2][1]:
        index_2, index_3 = 2, 3
    else:
        index_2, index_3 = 3, 2
    box = np.array([points[index_1], points[index_2], points[index_3], points[index_4]])
    return box, min(bounding_box[1])


def _box_score_fast(bitmap: np.ndarray, _box: np.ndarray) -> float:
    """rapidocr ``DBPostProcess.box_score_fast``: mean probability inside the box."""
    import cv2

    h, w = bitmap.shape[:2]
    box = _box.copy()
    xmin = np.clip(np.floor(box[:, 0].min()).astype(np.int32), 0, w - 1)
    xmax = np.clip(np.ceil(box[:, 0].max()).astype(np.int32), 0, w - 1)
    ymin = np.clip(np.floor(box[:, 1].min()).astype(np.int32), 0, h - 1)
    ymax = np.clip(np.ceil(box[:, 1].max()).astype(np.int32), 0, h - 1)
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), dtype=np.uint8)
    box[:, 0] = box[:, 0] - xmin
    box[:, 1] = box[:, 1] - ymin
    cv2.fillPoly(mask, box.reshape(1, -1, 2).astype(np.int32), 1)  # type: ignore[call-overload]  # an (1, N, 2) array is rapidocr's call
    return cv2.mean(bitmap[ymin: ymax + 1, xmin: xmax + 1], mask)[0]


def _unclip(box: np.ndarray, unclip_ratio: float) -> np.ndarray:
    """rapidocr ``DBPostProcess.unclip``: the box grown by ``area * ratio / perimeter`` (Vatti offset)."""
    import pyclipper
    from shapely.geometry import Polygon

    poly = Polygon(box)
    distance = poly.area * unclip_ratio / poly.length
    offset = pyclipper.PyclipperOffset()
    offset.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    return np.array(offset.Execute(distance)).reshape((-1, 1, 2))


def _filter_det_res(dt_boxes: np.ndarray, scores: list[float], img_height: int,
                    img_width: int) -> tuple[np.ndarray, list[float]]:
    """rapidocr ``DBPostProcess.filter_det_res``: corners clockwise, clipped, boxes of 3 px or less dropped."""
    dt_boxes_new, new_scores = [], []
    for box, score in zip(dt_boxes, scores):
        box = _order_points_clockwise(box)
        for pno in range(box.shape[0]):
            box[pno, 0] = int(min(max(box[pno, 0], 0), img_width - 1))
            box[pno, 1] = int(min(max(box[pno, 1], 0), img_height - 1))
        rect_width = int(np.linalg.norm(box[0] - box[1]))
        rect_height = int(np.linalg.norm(box[0] - box[3]))
        if rect_width <= 3 or rect_height <= 3:
            continue
        dt_boxes_new.append(box)
        new_scores.append(score)
    return np.array(dt_boxes_new), new_scores


def _order_points_clockwise(pts: np.ndarray) -> np.ndarray:
    x_sorted = pts[np.argsort(pts[:, 0]), :]
    left, right = x_sorted[:2, :], x_sorted[2:, :]
    tl, bl = left[np.argsort(left[:, 1]), :]
    tr, br = right[np.argsort(right[:, 1]), :]
    return np.array([tl, tr, br, bl], dtype="float32")


def sorted_boxes(dt_boxes: np.ndarray) -> np.ndarray:
    """rapidocr ``TextDetector.sorted_boxes``: top to bottom, rows (:data:`BOX_SORT_Y_THRESHOLD`) left to right."""
    if len(dt_boxes) == 0:
        return dt_boxes
    y_coords = dt_boxes[:, 0, 1]
    y_order = np.argsort(y_coords, kind="stable")
    boxes_y_sorted = dt_boxes[y_order]
    y_sorted = y_coords[y_order]
    line_increments = (np.diff(y_sorted) >= BOX_SORT_Y_THRESHOLD).astype(np.int32)
    line_ids = np.concatenate([[0], np.cumsum(line_increments)])
    return boxes_y_sorted[np.lexsort((boxes_y_sorted[:, 0, 0], line_ids))]


class Recognised(NamedTuple):
    """One recognised line crop: its text, confidence (mean character probability, rapidocr's score) and
    each character's probability (aligned with ``text``; ``None`` when they cannot be aligned)."""

    text: str
    confidence: float
    chars: tuple[float, ...] | None = None


class Recogniser(_Model):
    """PP-OCRv6 small text recogniser (CTC) with rapidocr's ``TextRecognizer`` pre- and post-processing.

    Args:
        session: its onnxruntime ``InferenceSession``; its ``character`` metadata is the alphabet.
        min_width: the narrowest input width (pixels at height 48; rapidocr ``Rec.rec_img_shape[2]``).
        batch: crops per call (rapidocr ``Rec.rec_batch_num``); a batch is padded to its widest crop.

    Raises:
        ValueError: the model carries no ``character`` metadata (not a PP-OCR ONNX recogniser).
    """

    def __init__(self, session: Any, *, min_width: int, batch: int = 1) -> None:
        super().__init__(session)
        meta = session.get_modelmeta().custom_metadata_map
        if "character" not in meta:
            raise ValueError("the recogniser model has no 'character' metadata")
        characters = meta["character"].splitlines()
        self.characters = ["blank", *characters, " "]  # CTC blank first, space last (CTCLabelDecode)
        self.shape = (REC_CHANNELS, REC_HEIGHT, int(min_width))
        self.batch = max(1, int(batch))

    def __call__(self, crops: Sequence[np.ndarray]) -> list[Recognised]:
        """:class:`Recognised` per BGR crop, in order; confidence: mean character probability (5 decimals)."""
        images = list(crops)
        if not images:
            return []
        width_list = [img.shape[1] / float(img.shape[0]) for img in images]
        indices = np.argsort(np.array(width_list))
        results: list[Recognised] = [Recognised("", 0.0)] * len(images)
        channels, height, width = self.shape
        for begin in range(0, len(images), self.batch):
            end = min(len(images), begin + self.batch)
            max_wh_ratio = width / height
            for ino in range(begin, end):
                h, w = images[indices[ino]].shape[0:2]
                max_wh_ratio = max(max_wh_ratio, w * 1.0 / h)
            batch = np.concatenate([self.resize_norm(images[indices[ino]], max_wh_ratio)[np.newaxis, :]
                                    for ino in range(begin, end)]).astype(np.float32)
            for rno, one in enumerate(self.decode(self.run(batch))):
                results[indices[begin + rno]] = one
        return results

    def resize_norm(self, image: np.ndarray, max_wh_ratio: float) -> np.ndarray:
        """rapidocr ``TextRecognizer.resize_norm_img``: height 48, width by aspect, padded to the batch's."""
        import cv2

        channels, height, _ = self.shape
        assert channels == image.shape[2]
        width = int(height * max_wh_ratio)
        h, w = image.shape[:2]
        ratio = w / float(h)
        resized_w = width if math.ceil(height * ratio) > width else int(math.ceil(height * ratio))
        resized = cv2.resize(image, (resized_w, height)).astype("float32")
        resized = resized.transpose((2, 0, 1)) / 255
        resized -= 0.5
        resized /= 0.5
        padded = np.zeros((channels, height, width), dtype=np.float32)
        padded[:, :, 0:resized_w] = resized
        return padded

    def decode(self, preds: np.ndarray) -> list[Recognised]:
        """rapidocr ``CTCLabelDecode``: greedy CTC (repeats merged, blanks dropped), mean of the kept
        characters' probabilities each rounded to 5 decimals, the mean rounded to 5 (0 for no character).
        Each kept step's probability is also returned, one per character of the text."""
        preds_idx = preds.argmax(axis=2)
        # the probability at the arg-max is the max (rapidocr's ``preds.max(axis=2)``), the same values
        # bit for bit, without a second pass over the ~18,000 classes of every step
        preds_prob = np.take_along_axis(preds, preds_idx[..., np.newaxis], axis=2)[..., 0]
        out: list[Recognised] = []
        for b in range(len(preds_idx)):
            tokens = preds_idx[b]
            selection = np.ones(len(tokens), dtype=bool)
            selection[1:] = tokens[1:] != tokens[:-1]
            selection &= tokens != 0
            kept = [round(conf, 5) for conf in np.array(preds_prob[b][selection]).tolist()]
            conf_list = kept or [0]
            pieces = [self.characters[t] for t in tokens[selection]]
            text = "".join(pieces)
            # one probability per character (a label of several characters would break the alignment)
            chars = tuple(kept) if len(text) == len(kept) else None
            out.append(Recognised(text, np.mean(conf_list).round(5).tolist(), chars))
        return out


class Classifier(_Model):
    """PP-OCR mobile v2.0 text-line angle classifier (0 or 180 degrees), rapidocr's ``TextClassifier``."""

    def __call__(self, crops: Sequence[np.ndarray]) -> list[tuple[str, Any]]:
        """``(label, score)`` per BGR crop, in order; label ``"0"`` or ``"180"``, score the softmax (float32)."""
        images = list(crops)
        if not images:
            return []
        indices = np.argsort(np.array([img.shape[1] / float(img.shape[0]) for img in images]))
        results: list[tuple[str, Any]] = [("", 0.0)] * len(images)
        for begin in range(0, len(images), CLS_BATCH):
            end = min(len(images), begin + CLS_BATCH)
            batch = np.concatenate([self.resize_norm(images[indices[ino]])[np.newaxis, :]
                                    for ino in range(begin, end)]).astype(np.float32)
            prob = self.run(batch)
            for rno, idx in enumerate(prob.argmax(axis=1)):
                results[indices[begin + rno]] = (CLS_LABELS[int(idx)], prob[rno, int(idx)])
        return results

    @staticmethod
    def resize_norm(image: np.ndarray) -> np.ndarray:
        """rapidocr ``TextClassifier.resize_norm_img``: 48 px high, at most 192 wide, padded to 192."""
        import cv2

        channels, height, width = CLS_SHAPE
        h, w = image.shape[:2]
        ratio = w / float(h)
        resized_w = width if math.ceil(height * ratio) > width else int(math.ceil(height * ratio))
        resized = cv2.resize(image, (resized_w, height), interpolation=cv2.INTER_LINEAR).astype("float32")
        resized = resized.transpose((2, 0, 1)) / 255
        resized -= 0.5
        resized /= 0.5
        padded = np.zeros((channels, height, width), dtype=np.float32)
        padded[:, :, :resized_w] = resized
        return padded
