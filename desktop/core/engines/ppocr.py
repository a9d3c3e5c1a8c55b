"""PP-OCR on the CPU through ``rapidocr`` 3.10 and onnxruntime: the built-in default engine.

Models: the three ONNX files that ship *inside* the ``rapidocr`` wheel (PP-OCRv6 small text detector,
PP-OCRv6 small recogniser for Chinese + English + Latin scripts, PP-OCR mobile v2.0 text-line angle
classifier; Apache-2.0, PaddlePaddle). They are passed to rapidocr by explicit ``model_path`` so that
rapidocr never enters its download code path (``DownloadFile``) and never creates folders: any other
model version, size or language would make rapidocr fetch weights from a model hub, which an offline
application must not do. When a model file is missing the engine refuses to start
(:class:`~desktop.core.engines.base.EngineUnavailable`) instead of downloading.

onnxruntime writes a device id and a telemetry queue under ``~/.cache/Microsoft`` when imported without
``ORT_DISABLE_TELEMETRY=1`` (see :mod:`desktop.core.offline`). This module lives in ``desktop.core``, whose
``__init__`` sets the variable before any submodule runs, and it imports rapidocr (which imports
onnxruntime) only when the model is loaded.
"""
from __future__ import annotations

import logging
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from desktop.core import offline
from desktop.core.engines.base import Capability, Engine, EngineError, EngineUnavailable, PageReading, Stopwatch
from desktop.core.layout import reading_order
from desktop.core.model import Line, box_from_polygon

__all__ = ["MODEL_FILES", "PPOCREngine", "model_dir"]

log = logging.getLogger(__name__)

#: The model files inside the rapidocr 3.10.0 wheel (``rapidocr/models``), by rapidocr config section.
MODEL_FILES: dict[str, str] = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


def model_dir() -> Path:
    """The ``models`` folder of the installed rapidocr package (found without importing onnxruntime)."""
    import importlib.util

    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise EngineUnavailable("PP-OCR is not installed (the Python package rapidocr is missing)")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def _rapidocr_version() -> str:
    try:
        return metadata.version("rapidocr")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


class PPOCREngine(Engine):
    """PP-OCR (rapidocr + onnxruntime) on the CPU.

    The rapidocr object (three onnxruntime sessions, about 150 MB resident) is created on the first
    :meth:`recognise` or in :meth:`warm_up`, never in ``__init__``, so creating the engine is free and
    the window can show before onnxruntime loads.

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
        mem_arena: onnxruntime's CPU memory arena (rapidocr turns it off by default). On, the
            detector needs about 28% less CPU time and the recogniser 10% less (every call reuses
            its buffers instead of allocating afresh), but the arena keeps the detector's peak
            buffers: peak RSS reading ``ocrmypdf/multipage.pdf`` (a 9000 x 9000 px page) rose from
            1054 to 1359 MiB and a whole benchmark run to 1610 MiB, over the 1.5 GB target. So off.

    Attributes:
        max_pixels: the pixel budget the pipeline renders pages to (about 2000 x 2000). rapidocr
            shrinks anything with a side over ``max_side_len`` anyway, so a larger budget only costs
            rendering time and memory.
    """

    name = "ppocr"
    languages = ("zh", "en")
    device = "cpu"
    max_pixels = 4_000_000
    capabilities: frozenset[Capability] = frozenset()
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
        mem_arena: bool = False,
    ) -> None:
        self.max_side_len = int(max_side_len)
        self.use_cls = bool(use_cls)
        self.threads = threads
        self.text_score = float(text_score)
        self.det_min_side = int(det_min_side)
        self.rec_batch_num = max(1, int(rec_batch_num))
        self.mem_arena = bool(mem_arena)
        self._ocr: Any = None
        self._lock = threading.Lock()
        models = " + ".join(Path(MODEL_FILES[k]).stem for k in ("Det", "Rec", "Cls"))
        self.version = f"rapidocr {_rapidocr_version()} ({models})"

    # -- loading -------------------------------------------------------------------------------
    def _params(self) -> dict[str, Any]:
        folder = model_dir()
        missing = [name for name in MODEL_FILES.values() if not (folder / name).is_file()]
        if missing:
            raise EngineUnavailable(
                f"PP-OCR model files missing from {folder}: {', '.join(missing)}. "
                "Reinstall rapidocr==3.10.0 (Shoebox never downloads models)."
            )
        params: dict[str, Any] = {
            # rapidocr's own coloured stderr logger (propagate=False, level set from this): its
            # warnings are not for the user ("The text detection result is empty" on every blank
            # page, the warm-up's included; we return no lines for it). SHOEBOX_LOG=DEBUG keeps them.
            "Global.log_level": "debug" if log.isEnabledFor(logging.DEBUG) else "error",
            "Global.model_root_dir": str(folder),
            "Global.max_side_len": self.max_side_len,
            "Global.text_score": self.text_score,
            "Global.use_cls": self.use_cls,
            "Det.limit_type": "min",
            "Det.limit_side_len": self.det_min_side,
            "Rec.rec_batch_num": self.rec_batch_num,
            "EngineConfig.onnxruntime.enable_cpu_mem_arena": self.mem_arena,
        }
        for section, filename in MODEL_FILES.items():
            params[f"{section}.model_path"] = str(folder / filename)
        if self.threads:
            params["EngineConfig.onnxruntime.intra_op_num_threads"] = int(self.threads)
        return params

    def _load(self) -> Any:
        if self._ocr is not None:
            return self._ocr
        with self._lock:
            if self._ocr is None:
                offline.enforce_offline_environment()  # idempotent; must precede the onnxruntime import
                params = self._params()
                try:
                    from rapidocr import RapidOCR
                except ImportError as exc:
                    raise EngineUnavailable(f"PP-OCR cannot load: {exc}. Install rapidocr==3.10.0 and onnxruntime.") from exc
                try:
                    self._ocr = RapidOCR(params=params)
                except Exception as exc:  # rapidocr raises plain exceptions of many kinds
                    raise EngineUnavailable(f"PP-OCR could not load its models: {exc}") from exc
        return self._ocr

    def warm_up(self) -> None:
        """Create the rapidocr object and run it once on a small blank image (loads all three sessions)."""
        ocr = self._load()
        blank = np.full((64, 256, 3), 255, dtype=np.uint8)
        with self._lock:
            try:
                ocr(blank)
            except Exception as exc:
                raise EngineError(f"PP-OCR failed to start: {exc}") from exc

    def close(self) -> None:
        """Drop the onnxruntime sessions (the next :meth:`recognise` loads them again)."""
        with self._lock:
            self._ocr = None

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
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            raise EngineError(f"PP-OCR needs an (H, W, 3) image array, got {getattr(image, 'shape', type(image))}")
        if image.dtype != np.uint8:
            raise EngineError(f"PP-OCR needs uint8 pixels, got {image.dtype}")
        if image.ndim == 3 and image.shape[2] == 3:
            bgr = np.ascontiguousarray(image[:, :, ::-1])  # rapidocr takes arrays as OpenCV BGR
        elif image.ndim == 2 or image.shape[2] == 1:
            bgr = np.ascontiguousarray(np.repeat(image.reshape(image.shape[0], image.shape[1], 1), 3, axis=2))
        else:
            raise EngineError(f"PP-OCR needs 3 colour channels, got {image.shape[2]}")
        ocr = self._load()
        try:
            with self._lock, Stopwatch() as watch:
                result = ocr(bgr)
        except MemoryError as exc:
            raise EngineError(f"PP-OCR ran out of memory on a {image.shape[1]}x{image.shape[0]} image") from exc
        except Exception as exc:
            raise EngineError(f"PP-OCR failed: {type(exc).__name__}: {exc}") from exc
        return PageReading(self._to_lines(result, image.shape[1], image.shape[0]), seconds=watch.seconds)

    @staticmethod
    def _to_lines(result: Any, width: int, height: int) -> list[Line]:
        boxes = getattr(result, "boxes", None)
        txts = getattr(result, "txts", None)
        scores = getattr(result, "scores", None)
        if boxes is None or txts is None or scores is None:
            return []
        lines: list[Line] = []
        for quad, text, score in zip(boxes, txts, scores):
            text = str(text).strip()
            if not text:
                continue
            polygon = [
                (float(min(max(x, 0.0), width)), float(min(max(y, 0.0), height)))
                for x, y in np.asarray(quad, dtype=float).reshape(-1, 2)
            ]
            lines.append(Line(text=text, box=box_from_polygon(polygon), confidence=float(score), polygon=polygon))
        return reading_order(lines)
