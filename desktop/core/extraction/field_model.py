"""The learned field-scoring model: scores candidates, calibrates the winner's score to a probability.

The model ships as plain JSON (``resources/models/field_model.json``): nothing in it can run code
when loaded (no pickle). It is built by ``benchmarks/train_fields.py`` from the labelled corpora
(gradient-boosted trees trained with LightGBM, exported through ``Booster.dump_model``; Platt
calibration with scikit-learn's logistic regression on out-of-fold winners, folds grouped by
vendor), and read here with numpy alone, so neither library is needed at run time.

File format (``"format": "shoebox-field-model/1"``)::

    {"format": ..., "version": "<date>-<content hash>",
     "document_types": {"receipt": {"total": {
         "features": [names...],              # the column order of the trees' split features
         "trees": {"feature": [...], "threshold": [...], "left": [...], "right": [...],
                   "value": [...], "roots": [...]},   # all trees' nodes, flattened; leaf: feature -1
         "calibration": {"coef": [...], "intercept": b},  # Platt scaling with verifier features:
                                               # P(right) = sigmoid(coef . z + b), z = calibration_inputs()
         "score_floor": -2.1,                  # lowest raw score of a right out-of-fold winner (or null):
                                               # a winner below it gets FLOOR_PROBABILITY
         "threshold": 0.83,                    # review threshold on the calibrated probability (one
                                               # per document type, train_fields.choose_thresholds)
         "cv": {...}}}}}                       # cross-validated figures, for the record

A node goes left when ``x[feature] <= threshold`` (LightGBM's numerical split; the model is trained
with missing-value handling off, and every feature is always present). The raw score of a candidate
is the sum over trees of the leaf values it reaches.
"""
from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from desktop.core.extraction.candidates import FieldCandidate, suspect_char_count, value_confidence

__all__ = ["FieldModel", "FieldScorer", "Choice", "load_lexicon", "load_model", "LEXICON_FORMAT", "MODEL_FORMAT"]

MODEL_FORMAT = "shoebox-field-model/1"


@dataclass
class Choice:
    """The model's pick for one field.

    Attributes:
        candidate: the winning candidate, or ``None`` when there was none.
        probability: calibrated probability in [0, 1] that ``candidate.value`` is right (0 when none).
        score: the raw model score of the winner.
        needs_review: ``probability`` is below the field's review threshold (or nothing was found).
        margin: raw-score gap to the best candidate with a different value (``inf`` if none).
    """

    candidate: FieldCandidate | None
    probability: float
    score: float
    needs_review: bool
    margin: float


MARGIN_CAP = 10.0
"""Raw-score margins above this count as this (a lone candidate has an infinite margin)."""


def calibration_inputs(score: float, margin: float, candidate: FieldCandidate) -> list[float]:
    """The inputs of the calibration map, for the winning candidate of one field: its raw score, its
    lead over the best candidate with another value (capped at :data:`MARGIN_CAP`), whether it had
    no rival, the lowest recogniser confidence among the value's own characters
    (:func:`~desktop.core.extraction.candidates.value_confidence`; the lowest line confidence where
    the engine gives no character confidences), the mean engine confidence of its lines (both as
    :func:`_nines`: recogniser confidences crowd near 1, where 0.95 and 0.99 differ most),
    whether the rules picked it too, and how many of the value's characters the recogniser was unsure
    of (:func:`~desktop.core.extraction.candidates.suspect_char_count`: a long address with three
    doubtful letters is less likely exactly right than one with a single doubtful letter).

    Returns:
        :data:`N_CALIBRATION_INPUTS` floats, in the order of the shipped calibration's ``coef``.
    """
    lone = margin == float("inf")
    m = MARGIN_CAP if lone else min(MARGIN_CAP, margin)
    confs = [ln.confidence for ln in candidate.lines] or [1.0]
    return [score, m, 1.0 if lone else 0.0, _nines(value_confidence(candidate)), _nines(sum(confs) / len(confs)),
            float(candidate.features.get("rule_pick", 0.0)), float(suspect_char_count(candidate))]


N_CALIBRATION_INPUTS = 7
"""Length of :func:`calibration_inputs`' list (and of a shipped field's ``calibration.coef``)."""


def _nines(confidence: float) -> float:
    """``-log10(1 - confidence)``: 0.9 -> 1, 0.99 -> 2, capped at 4 (a confidence of 0.9999)."""
    return min(4.0, -math.log10(max(1e-4, 1.0 - confidence)))


FLOOR_PROBABILITY = 0.05
"""Probability given to a winner scored below its field's ``score_floor``: the lowest raw score at
which an out-of-fold winner was right in training (``benchmarks/train_fields.py``); the Platt map has
no evidence below it."""

REVIEW_FLOOR = 0.5
"""The lowest review threshold of any field: a value the model gives at most even odds of being right
is always flagged, whatever the cross-validated curve allows (a field right on every training document
would otherwise get a threshold under :data:`FLOOR_PROBABILITY` and show a 5% value as checked).
``benchmarks/train_fields.py`` chooses thresholds at or above it, so its figures are the form's."""


class FieldScorer:
    """Trees and calibration of one field of one document type (see the module docstring)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.features: list[str] = list(spec["features"])
        self._index = {n: i for i, n in enumerate(self.features)}
        t = spec["trees"]
        self.feature = np.asarray(t["feature"], dtype=np.int32)
        self.threshold_ = np.asarray(t["threshold"], dtype=np.float64)
        self.left = np.asarray(t["left"], dtype=np.int32)
        self.right = np.asarray(t["right"], dtype=np.int32)
        self.value = np.asarray(t["value"], dtype=np.float64)
        self.roots = np.asarray(t["roots"], dtype=np.int32)
        cal = spec["calibration"]
        self.cal_coef = np.asarray(cal["coef"], dtype=np.float64)
        if self.cal_coef.shape != (N_CALIBRATION_INPUTS,):
            raise ValueError(f"field model calibration has {self.cal_coef.size} inputs, this version of Shoebox "
                             f"computes {N_CALIBRATION_INPUTS} (rebuild it with benchmarks/train_fields.py)")
        self.cal_intercept = float(cal["intercept"])
        self.review_threshold = max(REVIEW_FLOOR, float(spec["threshold"]))
        floor = spec.get("score_floor")
        self.score_floor = float(floor) if floor is not None else float("-inf")
        self.cv = spec.get("cv", {})

    def matrix(self, candidates: list[FieldCandidate]) -> np.ndarray:
        """Feature matrix ``(n_candidates, n_features)``, float64; unknown features are 0."""
        x = np.zeros((len(candidates), len(self.features)), dtype=np.float64)
        for i, c in enumerate(candidates):
            for name, v in c.features.items():
                j = self._index.get(name)
                if j is not None:
                    x[i, j] = v
        return x

    def raw_scores(self, x: np.ndarray) -> np.ndarray:
        """Sum of leaf values over all trees for each row of ``x`` (shape ``(n,)``)."""
        n = x.shape[0]
        if n == 0 or self.roots.size == 0:
            return np.zeros(n)
        node = np.broadcast_to(self.roots, (n, self.roots.size)).copy()
        rows = np.arange(n)[:, None]
        for _ in range(64):  # deeper than any tree trained here
            feat = self.feature[node]
            inner = feat >= 0
            if not inner.any():
                break
            fx = x[rows, np.where(inner, feat, 0)]
            go_left = fx <= self.threshold_[node]
            nxt = np.where(go_left, self.left[node], self.right[node])
            node = np.where(inner, nxt, node)
        return self.value[node].sum(axis=1)

    def calibrate(self, inputs: list[float]) -> float:
        """Probability that the value is right, from :func:`calibration_inputs` (Platt scaling)."""
        z = float(np.dot(self.cal_coef, np.asarray(inputs, dtype=np.float64))) + self.cal_intercept
        return float(1.0 / (1.0 + np.exp(-z)))

    def choose(self, candidates: list[FieldCandidate]) -> Choice:
        """The best candidate by raw score, with its calibrated probability."""
        if not candidates:
            return Choice(None, 0.0, float("-inf"), True, float("inf"))
        scores = self.raw_scores(self.matrix(candidates))
        best = int(np.argmax(scores))
        win = candidates[best]
        others = [s for c, s in zip(candidates, scores) if c.value != win.value]
        margin = float(scores[best] - max(others)) if others else float("inf")
        p = self.calibrate(calibration_inputs(float(scores[best]), margin, win))
        if scores[best] < self.score_floor:  # no winner this low was right in cross-validation
            p = min(p, FLOOR_PROBABILITY)
        return Choice(win, p, float(scores[best]), p < self.review_threshold, margin)


class FieldModel:
    """Every field scorer of the shipped model.

    Attributes:
        version: the model's version string (recorded in each document's JSON).
    """

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("format") != MODEL_FORMAT:
            raise ValueError(f"not a Shoebox field model (format {data.get('format')!r}, expected {MODEL_FORMAT})")
        self.version: str = str(data["version"])
        self._scorers: dict[tuple[str, str], FieldScorer] = {}
        for doc_type, fields in data["document_types"].items():
            for name, spec in fields.items():
                self._scorers[(doc_type, name)] = FieldScorer(spec)

    def scorer(self, document_type: str, field: str) -> FieldScorer | None:
        """The scorer of ``field`` on ``document_type``, or ``None`` when that field is not learned."""
        return self._scorers.get((document_type, field))

    def fields(self, document_type: str) -> list[str]:
        """The learned fields of ``document_type``."""
        return [f for (d, f) in self._scorers if d == document_type]


_lock = threading.Lock()


@lru_cache(maxsize=1)
def _load_cached() -> FieldModel | None:
    from desktop.resources import resources_dir

    try:
        path = resources_dir() / "models" / "field_model.json"
    except FileNotFoundError:
        return None
    if not path.is_file():
        return None
    return FieldModel(json.loads(path.read_text(encoding="utf-8")))


LEXICON_FORMAT = "shoebox-field-lexicon/1"


@lru_cache(maxsize=1)
def _load_lexicon_cached() -> dict[str, dict[str, int]]:
    from desktop.resources import resources_dir

    try:
        path = resources_dir() / "models" / "field_lexicon.json"
    except FileNotFoundError:
        return {}
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != LEXICON_FORMAT:
        raise ValueError(f"not a Shoebox field lexicon (format {data.get('format')!r}, expected {LEXICON_FORMAT})")
    return {k: {str(w): int(n) for w, n in v.items()} for k, v in data["document_types"].items()}


def load_lexicon(document_type: str) -> dict[str, int]:
    """The shipped lexicon of ``document_type``'s names and addresses: ``{UPPER-CASE WORD: number of
    vendors whose labelled name or address holds it}`` (``resources/models/field_lexicon.json``, built
    by ``benchmarks/train_fields.py`` from the labelled corpus, words seen at several vendors only);
    empty when the resource is missing. Read by
    :func:`~desktop.core.extraction.candidates.lexicon_fix`.

    Raises:
        ValueError: the file is not a lexicon of this format.
    """
    with _lock:
        return _load_lexicon_cached().get(document_type, {})


def load_model() -> FieldModel | None:
    """The shipped model, loaded once on first use (``None`` when the resource is missing).

    Raises:
        ValueError: the file is not a field model of this format.
    """
    with _lock:
        return _load_cached()
