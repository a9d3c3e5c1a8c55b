"""PP-OCR on the CPU: the PP-OCR models of the ``rapidocr`` 3.10 wheel on onnxruntime, the built-in default engine.

Models: the three ONNX files that ship *inside* the ``rapidocr`` wheel (PP-OCRv6 small text detector,
PP-OCRv6 small recogniser for Chinese + English + Latin scripts, PP-OCR mobile v2.0 text-line angle
classifier; Apache-2.0, PaddlePaddle). They are loaded straight into onnxruntime sessions of ours
(:mod:`desktop.core.engines.ppocr_models`, with rapidocr's pre- and post-processing, bit for bit): rapidocr's
own model classes and configuration layer are not used (importing them cost 0.5 s of CPU at every start,
see that module), so its model-download code (``DownloadFile``) cannot run either. rapidocr stays the
provider of the model files and of its image helpers (``rapidocr.utils.process_img``). When a model file
is missing the engine refuses to start (:class:`~desktop.core.engines.base.EngineUnavailable`) instead
of downloading.

onnxruntime writes a device id and a telemetry queue under ``~/.cache/Microsoft`` when imported without
``ORT_DISABLE_TELEMETRY=1`` (see :mod:`desktop.core.offline`). This module lives in ``desktop.core``, whose
``__init__`` sets the variable before any submodule runs, and it imports onnxruntime only when the model
is loaded.
"""
from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop.core import offline
from desktop.core.engines import upright as orientation
from desktop.core.engines.base import Capability, Engine, EngineError, EngineUnavailable, PageReading, Stopwatch
from desktop.core.engines.upright import Reading
from desktop.core.layout import reading_order
from desktop.core.model import Line, box_from_polygon

if TYPE_CHECKING:
    from desktop.core.engines.ppocr_models import Recognised

__all__ = ["MODEL_FILES", "PPOCREngine", "model_dir"]

log = logging.getLogger(__name__)

#: The model files inside the rapidocr 3.10.0 wheel (``rapidocr/models``), by rapidocr config section.
MODEL_FILES: dict[str, str] = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}

#: Input height of the PP-OCRv6 recogniser (rapidocr ``Rec.rec_img_shape`` ``[3, 48, 320]``).
REC_HEIGHT = 48


def model_dir() -> Path:
    """The ``models`` folder of the installed rapidocr package (found without importing onnxruntime)."""
    import importlib.util

    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise EngineUnavailable("PP-OCR is not installed (the Python package rapidocr is missing)")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def _rapidocr_version() -> str:
    """rapidocr's version: its ``_version`` module (written by setuptools-scm when the wheel was built, the
    same text as the distribution's metadata, tested), else the metadata. ``importlib.metadata`` (email,
    zipfile, csv: 15-50 ms of CPU, and a walk of ``sys.path``) stays off the engine worker's start."""
    try:
        from rapidocr._version import version

        return str(version)
    except ImportError:
        pass
    from importlib import metadata

    try:
        return metadata.version("rapidocr")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


class PPOCREngine(Engine):
    """PP-OCR (rapidocr + onnxruntime) on the CPU.

    The three onnxruntime sessions (about 150 MB resident) are created on the first :meth:`read_page` or
    in :meth:`warm_up`, never in ``__init__``, so creating the engine is free and the window can show
    before onnxruntime loads.

    Args:
        max_side_len: rapidocr's own cap on the longer side of the image it detects text on
            (``Global.max_side_len``; larger images are shrunk to it inside rapidocr). rapidocr's
            default is 2000.
        use_cls: run the per-line 0/180 degree angle classifier. Measured on the samples it changed no
            result (upside-down *pages* are handled by :mod:`desktop.core.orientation`), so it is
            off by default to save its time.
        threads: onnxruntime intra-op threads; ``None`` = every core (onnxruntime's default).
        text_score: lines recognised with a lower confidence are dropped (rapidocr ``text_score``).
        det_min_side: the detector upscales images whose shorter side is below this (rapidocr
            ``Det.limit_side_len`` with ``limit_type: min``; rapidocr's default 736 upscaled every
            narrow receipt, e.g. 457 x 1170 px to 736 x 1888 px, 2.6x the detector's work). 448 keeps
            the upscaling for thumbnails only; on the samples it changed no field and no CER (see
            BENCHMARKS.md).
        rec_batch_num: text-line crops per recogniser call (rapidocr ``Rec.rec_batch_num``, default
            6). Crops in a batch are padded to the widest one; 1 pads nothing: measured 7% less
            recogniser CPU time on the SROIE receipts, and one receipt's spacing read better.
        (onnxruntime's session options -- memory arena, spinning -- are set by
        :func:`desktop.core.engines.ppocr_stages.session_options`, which says why and what they saved.)
        det_max_side: when set, the detector sees the image shrunk to this longer side (pixels) while
            the lines are still cropped from it at full resolution (as faster-paddle does); ``None`` =
            the detector sees what ``max_side_len`` leaves. Off: it costs field accuracy. Measured
            2026-12-01 (loaded machine): in-process CPU per receipt on 16 receipts of ``sroie`` +
            ``sroie_dev``, interleaved, with ``rec_min_width`` 48: 1.94 s at 1280 px against about 2.8 s
            without (960 px: 1.53 s, word recall 87.00% against 87.60%); over all 218 receipts of
            ``sroie`` + ``sroie_dev`` (recorded, then ``benchmarks/train_fields.py --only receipt
            --no-write``, cross-validated by vendor) 1280 px raised word recall (87.57% -> 88.27%)
            and total/vendor name accuracy, but vendor address fell from 65.1% to 61.9% (OCR errors 44
            -> 49: digits and spacing in small print read from the coarser boxes) and date from
            97.2% to 96.8%. On 24 of those receipts ``rec_min_width`` 48 alone kept every address
            word the old reading found (97.25%), 1280 px lost three (96.22%).
        rec_min_width: the recogniser's narrowest input (pixels, at its height of 48). rapidocr pads
            every line crop to at least 320 px (``Rec.rec_img_shape`` ``[3, 48, 320]``, PaddleOCR's
            alignment for batches); 77% of receipt lines are narrower (median 134 px), so the padding
            was 40% of the recogniser's input. 48 pads only crops narrower than tall. Measured
            2026-12-01 (loaded machine, in-process CPU, interleaved): 12 receipts, 3.25 -> 2.81 CPU s
            per receipt (-14%) at the same word recall (86.71%); with ``det_max_side`` 1280 on 16
            receipts 2.40 -> 1.94 s, recall 87.54% -> 87.60%; on 24 receipts recorded in full, word
            recall 88.79% -> 89.09% and the same address words found.
        sideways_prior: guess from the pixels whether a page lies on its side before detecting
            (:func:`~desktop.core.engines.ppocr_stages.looks_sideways`, about 6 ms), and detect on it
            turned a quarter when so: a page on its side then needs one detection instead of two.

    Thread safety: :meth:`read_page` and :meth:`read_upright` may run from several threads at once
    (the engine worker's read-ahead); their detections take turns (``Stages.detecting``), to keep one
    page's detector buffers at a time.

    Attributes:
        max_pixels: the pixel budget the pipeline renders pages to (about 2000 x 2000). rapidocr
            shrinks anything with a side over ``max_side_len`` anyway, so a larger budget only costs
            rendering time and memory.
    """

    name = "ppocr"
    languages = ("zh", "en")
    device = "cpu"
    max_pixels = 4_000_000
    #: PP-OCR turns pages upright itself between detection and recognition (:meth:`read_upright`).
    capabilities: frozenset[Capability] = frozenset({Capability.UPRIGHT})
    #: Measured: a 0.5 MP receipt in 1.4 s on a loaded 2-core machine (BENCHMARKS.md), about 3 s/MP.
    seconds_per_megapixel = 3.0
    #: rapidocr turns every crop at least 1.5x taller than wide by ``np.rot90`` (a quarter turn
    #: anticlockwise) before recognising it (``get_rotate_crop_image``); used by
    #: :func:`desktop.core.orientation.choose_rotation`.
    turns_tall_lines_ccw = True

    def __init__(
        self,
        *,
        max_side_len: int = 2000,
        use_cls: bool = False,
        threads: int | None = None,
        text_score: float = 0.5,
        det_min_side: int = 448,
        rec_batch_num: int = 1,
        det_max_side: int | None = None,
        rec_min_width: int = 48,
        sideways_prior: bool = True,
    ) -> None:
        self.max_side_len = int(max_side_len)
        self.use_cls = bool(use_cls)
        self.threads = threads
        self.text_score = float(text_score)
        self.det_min_side = int(det_min_side)
        self.rec_batch_num = max(1, int(rec_batch_num))
        self.det_max_side = int(det_max_side) if det_max_side else None
        self.rec_min_width = max(8, int(rec_min_width))
        self.sideways_prior = bool(sideways_prior)
        self._stages: Any = None
        self._lock = threading.Lock()
        self._version: str | None = None

    @property
    def version(self) -> str:  # type: ignore[override]
        """``"rapidocr 3.10.0 (<the three models>)"``, named when first asked for (rapidocr's ``_version``
        module imports its package: creating the engine stays free)."""
        if self._version is None:
            models = " + ".join(Path(MODEL_FILES[k]).stem for k in ("Det", "Rec", "Cls"))
            self._version = f"rapidocr {_rapidocr_version()} ({models})"
        return self._version

    # -- loading -------------------------------------------------------------------------------
    def _model_folder(self) -> Path:
        """The folder of the three model files, all present.

        Raises:
            EngineUnavailable: rapidocr is not installed or a model file is missing.
        """
        folder = model_dir()
        missing = [name for name in MODEL_FILES.values() if not (folder / name).is_file()]
        if missing:
            raise EngineUnavailable(
                f"PP-OCR model files missing from {folder}: {', '.join(missing)}. "
                "Reinstall rapidocr==3.10.0 (Shoebox never downloads models)."
            )
        return folder

    def _load(self) -> Any:
        if self._stages is not None:
            return self._stages
        with self._lock:
            if self._stages is None:
                offline.enforce_offline_environment()  # idempotent; must precede the onnxruntime import
                folder = self._model_folder()
                try:
                    import onnxruntime  # noqa: F401
                except ImportError as exc:
                    raise EngineUnavailable(f"PP-OCR cannot load: {exc}. Install rapidocr==3.10.0 and onnxruntime.") from exc
                from desktop.core.engines.ppocr_stages import Stages

                try:
                    stages = Stages(folder, MODEL_FILES, workers=self.workers, text_score=self.text_score,
                                    max_side_len=self.max_side_len, det_min_side=self.det_min_side,
                                    rec_min_width=self.rec_min_width, rec_batch_num=self.rec_batch_num,
                                    det_max_side=self.det_max_side, det_threads=self.threads)
                    stages.load()
                except Exception as exc:  # onnxruntime raises plain exceptions of many kinds
                    raise EngineUnavailable(f"PP-OCR could not load its models: {exc}") from exc
                self._stages = stages
        return self._stages

    @property
    def workers(self) -> int:
        """Recognition workers: one per core this process may use (``threads`` caps it)."""
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not on Linux
            cores = os.cpu_count() or 1
        return max(1, min(int(self.threads), cores) if self.threads else cores)

    def warm_up(self) -> None:
        """Load the three onnxruntime sessions and run each once on a tiny input (:meth:`Stages.warm_up`).

        Raises:
            EngineUnavailable: the models could not be loaded.
            EngineError: a model does not run.
        """
        self._load()
        with self._lock:
            try:
                self._stages.warm_up()
            except Exception as exc:
                raise EngineError(f"PP-OCR failed to start: {exc}") from exc

    def close(self) -> None:
        """Drop the onnxruntime sessions (the next :meth:`read_page` loads them again)."""
        with self._lock:
            if self._stages is not None:
                self._stages.close()
            self._stages = None

    # -- recognition ---------------------------------------------------------------------------
    def read_page(self, image: np.ndarray) -> PageReading:
        """Read every text line of ``image`` (:meth:`Engine.read_page`).

        Args:
            image: ``(H, W, 3)`` uint8 RGB (or ``(H, W)`` grey) array, upright.

        Returns:
            A :class:`PageReading` (no warnings; PP-OCR never marks a reading suspect) whose lines are
            in the pixel coordinates of ``image``: ``polygon`` is rapidocr's quadrilateral (four
            corners clockwise from top-left), ``box`` its bounding box, ``confidence`` the recogniser's
            mean character probability in [0, 1]; in reading order (rows by vertical overlap, top to
            bottom, then left to right; :func:`desktop.core.layout.reading_order`).

        Raises:
            EngineError: bad input, or onnxruntime failed (the message says why; out of memory
                included).
            EngineUnavailable: the models could not be loaded.
        """
        bgr = self._bgr(image)
        self._load()
        with Stopwatch() as watch:
            lines = self._guard(image, lambda: self._read(bgr, rotation=0))
        return PageReading(lines, seconds=watch.seconds)

    def read_upright(self, image: np.ndarray) -> Reading:
        """Read a page that may lie on its side or upside down, recognising every line once.

        The detector runs once, on ``image`` as given or -- when its pixels look like a page on its side
        (:func:`~desktop.core.engines.ppocr_stages.looks_sideways`) -- on it turned a quarter; the
        orientation is decided from the boxes and a sample of line crops (:mod:`desktop.core.engines.ppocr_stages`,
        rules in :mod:`desktop.core.orientation`); every line is then cropped upright and recognised once
        (the sample's recognitions are reused). Only when the detected image still lies on its side is
        it detected again, turned upright (the detector finds vertical lines poorly).

        Args:
            image: ``(H, W, 3)`` uint8 RGB (or ``(H, W)`` grey) array, as rendered (any orientation).

        Returns:
            A :class:`~desktop.core.orientation.Reading`: the clockwise rotation that makes the page
            upright and the lines in pixels of ``rotate_image(image, rotation)``, as :meth:`read_page`
            returns them for an upright image.

        Raises:
            EngineError, EngineUnavailable: as :meth:`read_page`.
        """
        bgr = self._bgr(image)
        self._load()
        with Stopwatch() as watch:
            reading = self._guard(image, lambda: self._read_upright(bgr))
        reading.seconds = watch.seconds
        return reading

    # -- internals -----------------------------------------------------------------------------
    @staticmethod
    def _bgr(image: np.ndarray) -> np.ndarray:
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            raise EngineError(f"PP-OCR needs an (H, W, 3) image array, got {getattr(image, 'shape', type(image))}")
        if image.dtype != np.uint8:
            raise EngineError(f"PP-OCR needs uint8 pixels, got {image.dtype}")
        if image.ndim == 3 and image.shape[2] == 3:
            return np.ascontiguousarray(image[:, :, ::-1])  # rapidocr takes arrays as OpenCV BGR
        if image.ndim == 2 or image.shape[2] == 1:
            return np.ascontiguousarray(np.repeat(image.reshape(image.shape[0], image.shape[1], 1), 3, axis=2))
        raise EngineError(f"PP-OCR needs 3 colour channels, got {image.shape[2]}")

    @staticmethod
    def _guard(image: np.ndarray, call: Any) -> Any:
        from desktop.core.engines.ppocr_stages import release_free_memory

        try:
            return call()
        except EngineError:
            raise
        except MemoryError as exc:
            raise EngineError(f"PP-OCR ran out of memory on a {image.shape[1]}x{image.shape[0]} image") from exc
        except Exception as exc:
            raise EngineError(f"PP-OCR failed: {type(exc).__name__}: {exc}") from exc
        finally:
            release_free_memory()

    def _read(self, bgr: np.ndarray, *, rotation: int, detection: Any = None) -> list[Line]:
        """Detect (unless given) and recognise every line as read with the page turned ``rotation``."""
        stages = self._stages
        det = detection if detection is not None else stages.detect(bgr)
        crops = [det.crop(i, rotation) for i in range(len(det))]
        if self.use_cls and crops:
            # rapidocr's per-line 0/180 flip (its Cls.cls_thresh).
            from desktop.core.engines.ppocr_models import CLS_THRESH as thresh

            labels = stages.classify(crops)
            crops = [np.ascontiguousarray(c[::-1, ::-1]) if "180" in lab and score > thresh else c
                     for c, (lab, score) in zip(crops, labels)]
        texts = stages.recognise(crops)
        return self._lines(det, texts, rotation)

    def _lines(self, det: Any, texts: list[Recognised], rotation: int) -> list[Line]:
        boxes = self._stages.upright_boxes(det, rotation)
        width, height = (det.height, det.width) if rotation % 180 else (det.width, det.height)
        lines: list[Line] = []
        for quad, (raw, score, chars) in zip(boxes, texts):
            text = raw.strip()
            if not text or score < self.text_score:
                continue
            start = len(raw) - len(raw.lstrip())
            kept = list(chars[start:start + len(text)]) if chars is not None else None
            polygon = [(float(min(max(x, 0.0), width)), float(min(max(y, 0.0), height))) for x, y in quad]
            lines.append(Line(text=text, box=box_from_polygon(polygon), confidence=float(score), polygon=polygon,
                              char_confidences=kept))
        return reading_order(lines)

    def _read_upright(self, bgr: np.ndarray) -> Reading:
        from desktop.core.engines.ppocr_stages import looks_sideways

        if self.sideways_prior and looks_sideways(bgr):
            # Guessed on its side: detect on the page turned a quarter (lines across), so that a page
            # that is on its side needs one detection. The boxes still decide; `keep` says which turn
            # of the detected image is the page as scanned (it needs a clear win to be left).
            reading = self._decide(np.ascontiguousarray(np.rot90(bgr, -3)), keep=90)
            reading.rotation = (reading.rotation + 270) % 360
            return reading
        return self._decide(bgr, keep=0)

    def _decide(self, bgr: np.ndarray, *, keep: int) -> Reading:
        """:meth:`read_upright` on ``bgr`` as detected; ``keep``: the rotation of it that is the page as scanned."""
        from desktop.core.engines.ppocr_stages import box_aspect, sample_indices

        stages = self._stages
        det = stages.detect(bgr)
        if not len(det):
            return Reading(keep, [])
        elongated = [i for i in range(len(det)) if box_aspect(det, i) >= orientation.ELONGATED]
        tall = [i for i in elongated if det.sides(i)[1] > det.sides(i)[0]]
        scores: dict[int, float] = {}
        known: dict[tuple[int, int], Recognised] = {}  # (line, rotation) -> recognised, reused

        def recognise(indices: list[int], rotation: int) -> list[Recognised]:
            rotation %= 360
            todo = [i for i in indices if (i, rotation) not in known]
            for i, text in zip(todo, stages.recognise([det.crop(i, rotation) for i in todo])):
                known[(i, rotation)] = text
            return [known[(i, rotation)] for i in indices]

        def sample_score(sample: list[int], rotation: int) -> float:
            return _text_score(recognise(sample, rotation))

        if not elongated:
            # Only one- or two-character pieces: their shape says nothing; compare all four turns.
            sample = sample_indices(det, list(range(len(det))), orientation.SAMPLE_LINES)
            scores = {r: sample_score(sample, r) for r in (0, 90, 180, 270)}
            best = max(scores, key=lambda r: scores[r])
            rotation = best if best != keep and scores[best] > orientation.MARGIN * scores[keep] else keep
            reason = "read best turned (few text lines to judge by)" if rotation != keep else ""
            return Reading(rotation, self._lines(det, recognise(list(range(len(det))), rotation), rotation), reason, scores)
        sideways = len(elongated) >= 2 and len(tall) / len(elongated) > orientation.TALL_SHARE
        family = tall if sideways else [i for i in elongated if i not in set(tall)]
        base = 270 if sideways else 0
        sample = sample_indices(det, family, orientation.SAMPLE_LINES)
        vote = orientation.flip_vote(stages.classify([det.crop(i, base) for i in sample]))
        log.debug("orientation: %d lines, %d elongated, %d tall, vote %+.2f", len(det), len(elongated), len(tall), vote)
        rotation = base
        if vote >= orientation.VOTE_CLEAR:
            # Clearly upside down, as clearly as upright pages vote upright: turned without reading the
            # sample both ways (that was about a third more recognition for a page turned 180 or guessed
            # sideways the wrong way round); a poor read is still checked the other way below.
            rotation = (base + 180) % 360
        elif vote > -orientation.VOTE_CLEAR:
            other = (base + 180) % 360
            scores = {base: sample_score(sample, base), other: sample_score(sample, other)}
            if other == keep:  # the page as scanned is kept unless clearly beaten
                if not scores[base] > orientation.MARGIN * scores[other]:
                    rotation = other
            # On its side one of the two quarter turns is right; upright needs a clear win to turn.
            elif scores[other] > (1.0 if sideways else orientation.MARGIN) * scores[base]:
                rotation = other
        final = (rotation - keep) % 360  # the turn of the page as scanned
        if final % 180:
            share = len(tall) / len(elongated) if sideways else 1 - len(tall) / len(elongated)
            why = f"{share:.0%} of the text lines run vertically, line angle vote {vote:+.2f}"
        else:
            why = f"the text is upside down, line angle vote {vote:+.2f}" if final else ""
        if rotation % 180:
            return self._redetect(bgr, rotation, why, scores)
        texts = recognise(list(range(len(det))), rotation)
        if not scores and _mean_confidence(texts) < orientation.MIN_CONFIDENCE:
            # The vote was clear but the read is poor: check the other way on the sample.
            other = (rotation + 180) % 360
            scores = {rotation: _text_score([texts[i] for i in sample]), other: sample_score(sample, other)}
            if scores[other] > orientation.MARGIN * scores[rotation]:
                rotation = other
                texts = recognise(list(range(len(det))), rotation)
                final = (rotation - keep) % 360
                why = f"the text is upside down, line angle vote {vote:+.2f}" if final == 180 else why
        return Reading(rotation, self._lines(det, texts, rotation), why if rotation != keep else "", scores)

    def _redetect(self, bgr: np.ndarray, rotation: int, reason: str, scores: dict[int, float]) -> Reading:
        """Lying on its side: the detector, trained on horizontal text, finds lines less well when they
        run vertically (measured on ocrmypdf/cardinal.pdf at 1 Mpx: CER 0.35 against 0.02 upright;
        sroie_265 turned: 0.14). Detect again on the page turned upright."""
        det = self._stages.detect(np.ascontiguousarray(np.rot90(bgr, -(rotation // 90))))
        return Reading(rotation, self._read(bgr, rotation=0, detection=det), reason, scores)


def _text_score(texts: list[Recognised]) -> float:
    """:func:`desktop.core.orientation.text_score` for recognised crops."""
    return float(sum(one.confidence * len("".join(one.text.split())) for one in texts))


def _mean_confidence(texts: list[Recognised]) -> float:
    chars = sum(len("".join(one.text.split())) for one in texts)
    return _text_score(texts) / chars if chars else 0.0
