"""PP-OCR run stage by stage: detect once, decide the page's orientation, recognise every line once.

rapidocr's one call (``RapidOCR.__call__``) detects, crops and recognises in a row, with every
onnxruntime session using all cores. Calling its stages ourselves buys three things:

- **Orientation without re-reading.** The text detector (DB) finds the same text-line boxes whichever
  way the page is turned, so the page's orientation can be decided *after* detection and *before*
  recognition, from the boxes' geometry (lines lying on their side are tall) and from rapidocr's own
  text-line angle classifier (PP-OCR mobile v2.0 cls, 0/180 degrees) on a sample of line crops. Every
  line is then cropped in the upright orientation and recognised once. The old way read the whole page,
  probed turned windows, and read the page again turned (four rotated pages of ``ocrmypdf/cardinal.pdf``
  took 36 s). See :mod:`desktop.core.orientation` for the decision rules.
- **Both cores on recognition.** Recognition is 60-65% of a receipt's CPU time and runs one small
  tensor per line (batch 1 pads nothing); a 2-thread onnxruntime session parallelises such small calls
  poorly and spin-waits between them. Here the recogniser session has one intra-op thread and the lines
  are shared out over one worker per core (onnxruntime sessions may be run from several threads at once
  and release the GIL while running). The detector, one large convolution graph, keeps the multi-thread
  session.
- The same crops serve the orientation sample and the final read.
- **Sessions of our own** (:func:`session_options`: memory arena given back after every detector run,
  no spin-waiting), the detector's input normalised through a lookup table (:func:`~desktop.core.engines.ppocr_models.normalised`), and
  detector inputs over :data:`STRIP_PIXELS` detected in strips to bound memory.

Coordinates: boxes are rapidocr's quadrilaterals (four corners clockwise from the top-left), mapped
back from the detector's resized, padded image to the pixels of the image given, then turned with the
page into the pixels of the upright image (:func:`turn_points`).
"""
from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from desktop.core.engines.ppocr_models import Recognised

__all__ = ["Detection", "Stages", "crop_line", "flushes_denormals", "looks_sideways", "session_options", "turn_points"]

#: rapidocr turns a crop this much taller than wide by a quarter turn anticlockwise before recognising
#: it (``get_rotate_crop_image``: vertical text); kept here for crops of the upright page.
VERTICAL_RATIO = 1.5


#: A detector input of more pixels than this is detected in horizontal strips (:meth:`Stages.detect`).
#: The detector's buffers grow with its input, about 175 MB per megapixel (measured 2026-12-01: peak
#: resident memory 1083-1119 MiB reading the 2000 x 2000 px render of ``ocrmypdf/multipage.pdf``'s
#: 9000 x 9000 px page, 700 MB over the engine's own). Receipts (at most about 1400 x 2000 px) and A4
#: or Letter pages upright (at most 1414 x 2000 px after rapidocr's 2000 px cap) stay whole; square and
#: landscape pages above 3 MP are cut in two.
STRIP_PIXELS = 3_000_000
#: Rows each strip reaches into its neighbours (detector pixels). A text line is kept from the strip
#: whose own rows hold its centre; it lies wholly inside that strip when it is less than twice this
#: tall (body text at 2000 px a page: 20-60 px).
STRIP_OVERLAP = 128


@dataclass
class Detection:
    """Text lines found on one image, before recognition.

    Attributes:
        image: the BGR image the detector saw (rapidocr's resized and padded copy); crops come from it.
        op_record: rapidocr's record of that resizing and padding (to map boxes back).
        boxes: ``(N, 4, 2)`` float32 quadrilaterals in ``image`` pixels, corners clockwise from the
            top-left, in rapidocr's top-to-bottom order.
        width, height: size of the image given to :meth:`Stages.detect` (pixels).
    """

    image: np.ndarray
    op_record: dict[str, Any]
    boxes: np.ndarray
    width: int
    height: int
    _crops: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return int(self.boxes.shape[0])

    def crop(self, index: int, rotation: int) -> np.ndarray:
        """Line ``index`` cropped as it reads on the page turned ``rotation`` degrees clockwise (cached)."""
        key = (index, rotation % 360)
        crop = self._crops.get(key)
        if crop is None:
            crop = crop_line(self.image, self.boxes[index], rotation)
            self._crops[key] = crop
        return crop

    def sides(self, index: int) -> tuple[float, float]:
        """``(width, height)`` of line ``index``'s box in detector pixels (width along its first edge)."""
        q = self.boxes[index]
        w = max(float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[3] - q[2])))
        h = max(float(np.linalg.norm(q[0] - q[3])), float(np.linalg.norm(q[1] - q[2])))
        return w, h


def crop_line(image: np.ndarray, quad: np.ndarray, rotation: int = 0) -> np.ndarray:
    """The text line inside ``quad``, straightened, as it reads with the page turned ``rotation`` cw.

    The perspective warp is rapidocr's (``get_rotate_crop_image``: cubic interpolation, replicated
    border); the crop is then turned with the page, and a crop still :data:`VERTICAL_RATIO` times taller
    than wide is turned a quarter anticlockwise as rapidocr does for vertical text.

    Args:
        image: ``(H, W, 3)`` uint8 image.
        quad: ``(4, 2)`` corners clockwise from the top-left, in ``image`` pixels.
        rotation: clockwise degrees (multiple of 90) that make the page upright.
    """
    import cv2

    points = np.asarray(quad, dtype=np.float32)
    width = int(max(np.linalg.norm(points[0] - points[1]), np.linalg.norm(points[2] - points[3])))
    height = int(max(np.linalg.norm(points[0] - points[3]), np.linalg.norm(points[1] - points[2])))
    width, height = max(width, 1), max(height, 1)
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(points, target)
    crop = cv2.warpPerspective(image, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE,
                               flags=cv2.INTER_CUBIC)
    k = (rotation // 90) % 4
    if k:
        crop = np.rot90(crop, -k)
    if crop.shape[0] >= VERTICAL_RATIO * crop.shape[1]:
        crop = np.rot90(crop)
    return np.ascontiguousarray(crop)


def turn_points(points: np.ndarray, rotation: int, width: float, height: float) -> np.ndarray:
    """Points ``(..., 2)`` of a ``width`` x ``height`` image, in the image turned ``rotation`` cw.

    Continuous pixel coordinates: a quarter turn clockwise maps ``(x, y)`` to ``(height - y, x)``, a half
    turn to ``(width - x, height - y)``, three quarters to ``(y, width - x)`` (as ``np.rot90(image, -k)``).
    """
    p = np.asarray(points, dtype=np.float64)
    x, y = p[..., 0], p[..., 1]
    k = (rotation // 90) % 4
    if k == 0:
        return p.copy()
    if k == 1:
        out = np.stack([height - y, x], axis=-1)
    elif k == 2:
        out = np.stack([width - x, height - y], axis=-1)
    else:
        out = np.stack([y, width - x], axis=-1)
    return out


def _clockwise_from_top_left(quad: np.ndarray) -> np.ndarray:
    """The same four corners, re-started at the top-left one (smallest x + y), order kept."""
    start = int(np.argmin(quad[:, 0] + quad[:, 1]))
    return np.roll(quad, -start, axis=0)


def session_options(threads: int | None) -> Any:
    """onnxruntime session options for the PP-OCR models (rapidocr's, plus two of ours).

    rapidocr sets full graph optimisation, no memory arena and the thread counts. Here:

    - **Memory arena on, given back after every run** (``memory.enable_memory_arena_shrinkage``, see
      :class:`_ShrinkingSession`): the detector's buffers (hundreds of MB for a 2 MP receipt) come from
      the arena within a run instead of fresh ``malloc`` calls whose pages the kernel must zero, and go
      back to the system after it, so a large page does not leave them held.
    - **No spin-waiting** (``session.intra_op.allow_spinning`` 0): onnxruntime's idle intra-op threads
      otherwise spin for a while after each operator, CPU time taken from the other core.
    - **Denormal floats read and written as zero** (``session.set_denormal_as_zero``: the x86 FTZ and
      DAZ flags in onnxruntime's intra-op threads, and in the thread that creates the process's first
      session; see :func:`flushes_denormals`). The PP-OCRv6 detector's backbone feeds GELU outputs of
      large negative inputs (about -1e-39, subnormal float32) into two 1 x 1 convolutions of 768 x 384
      channels at a 32nd of the image's resolution; every multiplication by a subnormal takes the CPU's
      slow microcode path, so those two convolutions, 2% of the detector's arithmetic, took 62% of its
      time (onnxruntime's profiler on ``sroie_086``: 1.21 of 1.97 s). Flushed, the detector's output is
      the same bit for bit (a subnormal is below half a unit in the last place of every sum it enters):
      measured 2026-12-01 on 10 receipts (near-quiet machine), detection 13.8 -> 6.0 CPU s, every box,
      text and confidence identical; ``benchmarks/check_readings.py`` on all 218 receipts, see
      BENCHMARKS.md. The recogniser and the classifier run no faster or slower with it.

    Measured 2026-12-01 on the shared 2-core machine (load average 11; six receipts twice, the
    variants interleaved image by image in one process, identical boxes): the detector took 20.5 CPU s
    with rapidocr's options, 17.4 without spinning, 16.4 with the arena as here (15.9 if it were kept
    between pages); wall 47.7 s -> 37.7 s. The recogniser (one thread, many small runs): -3%.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_cpu_mem_arena = True
    options.inter_op_num_threads = 1
    if threads:
        options.intra_op_num_threads = int(threads)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.set_denormal_as_zero", "1")
    return options


def flushes_denormals() -> bool:
    """Whether the calling thread's float arithmetic flushes subnormal numbers to zero (x86 FTZ/DAZ).

    onnxruntime sets the flags in its own intra-op threads for every session created with
    ``session.set_denormal_as_zero`` (:func:`session_options`), but in a calling thread only once per
    process: in the thread that creates the process's first session (and threads started from it
    afterwards inherit them). The engine worker creates its sessions first thing, in its main thread;
    a thread without the flags runs the detector through onnxruntime's own threads instead
    (:class:`_ShrinkingSession`). Tested by arithmetic: the smallest subnormal float32 times one is zero
    only when the flags are set.
    """
    tiny = np.finfo(np.float32).smallest_subnormal
    return bool(np.multiply(tiny, np.float32(1.0)) == 0)


def _session(model_path: str, threads: int | None) -> Any:
    """A session of ``model_path`` with :func:`session_options`, its optimised graph cached between
    processes (:mod:`desktop.core.engines.ort_cache`)."""
    from desktop.core.engines.ort_cache import create_session

    return create_session(model_path, session_options(threads), ["CPUExecutionProvider"])


def release_free_memory() -> None:
    """Give the C heap's free memory back to the system (glibc ``malloc_trim``; elsewhere nothing).

    A page's buffers (the image copies, the crops, numpy and OpenCV temporaries) are freed after it, but
    glibc keeps the freed heap for later, and the next page's detector buffers come on top of it.
    Measured 2026-12-01 (12 receipts, then the 9000 x 9000 px page at 2000 x 2000 px, in one process):
    resident memory after the receipts 384 -> 297 MiB, peak over the receipts 800 -> 760 MiB, over the
    large page 1103 -> 1083 MiB; the CPU time did not change measurably (a few ms a page).
    """
    libc = _libc()
    if libc:
        libc.malloc_trim(0)


def _libc() -> Any:
    """glibc through ctypes, or ``False`` (another C library, or none to be found)."""
    import ctypes
    import ctypes.util

    global _LIBC
    if _LIBC is None:
        name = ctypes.util.find_library("c")
        try:
            libc = ctypes.CDLL(name) if name else None
            _LIBC = libc if libc is not None and hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else False
        except OSError:
            _LIBC = False
    return _LIBC


_LIBC: Any = None
#: :func:`bound_heap` was called in this process (by the first :meth:`Stages.load`).
_HEAP_BOUND = False

#: glibc ``mallopt`` parameters (``<malloc.h>``): ``M_MMAP_THRESHOLD`` and ``M_ARENA_MAX``.
_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8
#: :func:`bound_heap`: C allocations from this size up (bytes) are mapped on their own ...
MMAP_THRESHOLD = 4 * 2**20
#: ... and the threads share at most this many heaps.
ARENA_MAX = 2


def bound_heap() -> bool:
    """Keep freed page-sized buffers from piling up in the C heap (glibc ``mallopt``; elsewhere nothing).

    Two settings of the process's allocator, which change no value computed:

    - ``M_MMAP_THRESHOLD`` fixed at :data:`MMAP_THRESHOLD`: glibc maps a large block on its own and
      unmaps it when freed, but after each such free it raises the threshold to that block's size (up
      to 32 MB), so a page's images, detector input and OpenCV temporaries (2-35 MB each) soon come
      from the heap instead, where the next page's fit around what is still held and the heap only
      grows. Fixed, they go back to the system when freed.
    - ``M_ARENA_MAX`` :data:`ARENA_MAX`: every thread that allocates (two recognition workers, two
      read-ahead threads, onnxruntime's) otherwise gets a heap of its own, up to 8 per core, each
      holding its own free memory.

    Measured 2026-12-01 (loaded 2-core machine, load 8-10): ``shoebox scan`` of 20 receipts in two
    processes, twice, the variants interleaved: see BENCHMARKS.md (issue 11, fourth round).

    Returns:
        Whether the settings were made (glibc only).
    """
    libc = _libc()
    if not libc:
        return False
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) & bool(libc.mallopt(_M_ARENA_MAX, ARENA_MAX))


class _ShrinkingSession:
    """An ``InferenceSession`` whose memory arena is shrunk to nothing after every ``run``.

    Called from a thread that does not flush subnormal floats (:func:`flushes_denormals`), ``run`` hands
    the work to the session's own intra-op threads (``run_async``), which do: the detector would
    otherwise take about 2.3 times its CPU time (see :func:`session_options`). That needs a session of
    at least two intra-op threads; with one the run stays in the calling thread (slower, same output).
    """

    def __init__(self, session: Any) -> None:
        import onnxruntime as ort

        self._session = session
        self._run_options = ort.RunOptions()
        self._run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        threads = session.get_session_options().intra_op_num_threads
        self._has_pool = (threads or os.cpu_count() or 1) >= 2  # 0: onnxruntime's default, one per core

    def run(self, output_names: Any, input_feed: Any, run_options: Any = None) -> Any:
        options = run_options or self._run_options
        if self._has_pool and not flushes_denormals():
            return self._run_in_pool(output_names, input_feed, options)
        return self._session.run(output_names, input_feed, options)

    def _run_in_pool(self, output_names: Any, input_feed: Any, options: Any) -> Any:
        done = threading.Event()
        answer: dict[str, Any] = {}

        def finished(results: Any, _data: Any, error: str) -> None:
            answer["results"], answer["error"] = results, error
            done.set()

        try:
            self._session.run_async(output_names, input_feed, finished, None, options)
        except Exception:  # no intra-op pool after all (onnxruntime: "at least one thread for RunAsync")
            self._has_pool = False
            return self._session.run(output_names, input_feed, options)
        done.wait()
        if answer["error"]:
            raise RuntimeError(answer["error"])
        return answer["results"]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class Stages:
    """The detector, angle classifier and recogniser (:mod:`desktop.core.engines.ppocr_models`), called one by one.

    Args:
        folder: the folder of the model files (:data:`desktop.core.engines.ppocr.MODEL_FILES`).
        files: model file name by rapidocr configuration section (``Det``, ``Rec``, ``Cls``).
        workers: recognition workers (one per core); each runs the single-threaded recogniser session.
        text_score: lines recognised with a lower confidence are dropped (rapidocr's ``text_score``).
        max_side_len: images with a longer side are shrunk to it before detection (rapidocr
            ``Global.max_side_len``).
        det_min_side: the detector upscales images whose shorter side is below this (rapidocr
            ``Det.limit_side_len``, ``limit_type: min``).
        rec_min_width: the recogniser's narrowest input (rapidocr ``Rec.rec_img_shape[2]``).
        rec_batch_num: crops per recogniser call (rapidocr ``Rec.rec_batch_num``).
        det_max_side: when set, the detector sees the image shrunk to this longer side.
        det_threads: the detector session's intra-op threads (``None``: onnxruntime's default, one per
            core).

    Thread safety: pages may be read from several threads at once (the engine worker reads the next
    file's page while the current one is recognised: :meth:`desktop.core.isolation.process.WorkerEngine.read_ahead`);
    detections take turns (:attr:`detecting`), since the detector's buffers are the engine's memory peak
    (about 175 MB per megapixel, see :data:`STRIP_PIXELS`), while recognition shares ``workers`` threads.
    """

    def __init__(self, folder: Path, files: dict[str, str], *, workers: int, text_score: float,
                 max_side_len: int = 2000, det_min_side: int = 448, rec_min_width: int = 48,
                 rec_batch_num: int = 1, det_max_side: int | None = None, det_threads: int | None = None) -> None:
        self.folder = Path(folder)
        self.files = dict(files)
        self.workers = max(1, int(workers))
        self.det_threads = int(det_threads) if det_threads else None
        self.det_max_side = int(det_max_side) if det_max_side else None
        self.text_score = float(text_score)
        self.max_side_len = int(max_side_len)
        self.det_min_side = int(det_min_side)
        self.rec_min_width = int(rec_min_width)
        self.rec_batch_num = max(1, int(rec_batch_num))
        self._pool: ThreadPoolExecutor | None = None
        #: Held while the detector runs: one detection at a time, whatever the number of pages in flight.
        self.detecting = threading.Lock()
        self._det: Any = None
        self._rec: Any = None
        self._cls: Any = None

    # -- models ------------------------------------------------------------------------------------
    def _path(self, section: str) -> str:
        return str(self.folder / self.files[section])

    def load(self) -> None:
        """Create the three onnxruntime sessions (detector: ``det_threads``; the others: one thread),
        after bounding the C heap (:func:`bound_heap`, before any thread of ours allocates)."""
        from desktop.core.engines import ppocr_models as models

        global _HEAP_BOUND
        if not _HEAP_BOUND:
            _HEAP_BOUND = True
            bound_heap()
        if self._det is None:
            # Give the arena's blocks back after every page (see session_options).
            session = _ShrinkingSession(_session(self._path("Det"), self.det_threads))
            self._det = models.Detector(session, limit_side_len=self.det_min_side)
        if self._rec is None:
            self._rec = models.Recogniser(_session(self._path("Rec"), 1), min_width=self.rec_min_width,
                                          batch=self.rec_batch_num)
        if self._cls is None:
            self._cls = models.Classifier(_session(self._path("Cls"), 1))
        if self._pool is None and self.workers > 1:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="ppocr-rec")

    def warm_up(self) -> None:
        """Run each onnxruntime session once on the smallest input it takes (loads them all).

        Detector ``(1, 3, 32, 32)`` (DB needs sides that are multiples of 32), recogniser
        ``(1, 3, 48, 48)``, angle classifier ``(1, 3, 48, 192)`` (its fixed input), all zeros. Going
        through the stages instead would cost about 1.3 CPU s on this machine: the detector upscales any
        image to a shorter side of ``det_min_side``, so even a 64 x 256 px blank becomes 448 x 1792 px,
        and that is a whole receipt's detection spent before the first page.

        Raises:
            Exception: whatever onnxruntime raises when a model does not run.
        """
        self.load()
        self._det.run(np.zeros((1, 3, 32, 32), dtype=np.float32))
        self._rec.run(np.zeros((1, 3, 48, 48), dtype=np.float32))
        self._cls.run(np.zeros((1, 3, 48, 192), dtype=np.float32))

    def close(self) -> None:
        """Stop the recognition workers and drop the sessions."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._det = self._rec = self._cls = None

    # -- stages ------------------------------------------------------------------------------------
    def detect(self, bgr: np.ndarray) -> Detection:
        """Find the text lines of a BGR image (rapidocr's resizing, vertical padding and detector)."""
        from rapidocr.utils.process_img import apply_vertical_padding, resize_image_within_bounds

        from desktop.core.engines import ppocr_models as models

        self.load()
        height, width = bgr.shape[:2]
        img, ratio_h, ratio_w = resize_image_within_bounds(bgr, models.MIN_SIDE_LEN, self.max_side_len)
        op_record: dict[str, Any] = {"preprocess": {"ratio_h": ratio_h, "ratio_w": ratio_w}}
        img, op_record = apply_vertical_padding(img, op_record, models.WIDTH_HEIGHT_RATIO, models.MIN_HEIGHT)
        factor = 1.0
        seen = img
        if self.det_max_side and max(img.shape[:2]) > self.det_max_side:
            import cv2

            factor = self.det_max_side / float(max(img.shape[:2]))
            size = (max(1, round(img.shape[1] * factor)), max(1, round(img.shape[0] * factor)))
            seen = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
        with self.detecting:
            if seen.shape[0] * seen.shape[1] > STRIP_PIXELS:
                boxes = self._detect_in_strips(seen)
            else:
                boxes = self._det(seen)
        if factor != 1.0:
            # Back to the pixels of `img`: the lines are cropped from it at its full resolution.
            boxes[..., 0] *= img.shape[1] / float(seen.shape[1])
            boxes[..., 1] *= img.shape[0] / float(seen.shape[0])
        return Detection(img, op_record, boxes, width, height)

    def _detect_in_strips(self, image: np.ndarray) -> np.ndarray:
        """The detector's boxes on ``image``, run on horizontal strips of at most about
        :data:`STRIP_PIXELS` overlapping by :data:`STRIP_OVERLAP` rows (see there); each box is kept
        from the strip whose own rows hold its centre, then all are put in rapidocr's order."""
        height = image.shape[0]
        count = math.ceil(image.shape[0] * image.shape[1] / STRIP_PIXELS)
        step = math.ceil(height / count)
        found: list[np.ndarray] = []
        for top in range(0, height, step):
            bottom = min(height, top + step)
            first, last = max(0, top - STRIP_OVERLAP), min(height, bottom + STRIP_OVERLAP)
            boxes = self._det(np.ascontiguousarray(image[first:last]))
            boxes[..., 1] += first
            centre = boxes[..., 1].mean(axis=1)
            found.append(boxes[(centre >= top) & (centre < bottom)])
            release_free_memory()
        boxes = np.concatenate(found) if found else np.zeros((0, 4, 2), dtype=np.float32)
        if not len(boxes):
            return boxes
        from desktop.core.engines.ppocr_models import sorted_boxes

        return np.asarray(sorted_boxes(boxes), dtype=np.float32)

    def classify(self, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        """rapidocr's text-line angle classifier: ``(label, score)`` per crop, label ``"0"`` or ``"180"``."""
        if not crops:
            return []
        self.load()
        return self._cls(list(crops))

    def recognise(self, crops: Sequence[np.ndarray]) -> list[Recognised]:
        """:class:`~desktop.core.engines.ppocr_models.Recognised` (text, confidence, per-character
        probabilities) per crop, in order; the crops are shared out over the workers.

        Crops are sorted by aspect ratio and dealt out in turn, so each worker gets a similar mix of
        short and long lines (recognition time grows with the line's width).
        """
        if not crops:
            return []
        self.load()
        from desktop.core.engines.ppocr_models import Recognised

        order = np.argsort([c.shape[1] / max(c.shape[0], 1) for c in crops], kind="stable")
        n = min(self.workers, len(crops)) if len(crops) >= 4 else 1
        groups = [[int(i) for i in order[k::n]] for k in range(n)]

        def run(indices: list[int]) -> list[Recognised]:
            return list(self._rec([crops[i] for i in indices]))

        if n == 1 or self._pool is None:
            results = [run(groups[0])]
        else:
            results = list(self._pool.map(run, groups))
        texts: list[Recognised] = [Recognised("", 0.0)] * len(crops)
        for indices, result in zip(groups, results):
            for i, one in zip(indices, result):
                texts[i] = Recognised(str(one.text), float(one.confidence), one.chars)
        return texts

    def upright_boxes(self, detection: Detection, rotation: int) -> np.ndarray:
        """The detection's boxes in pixels of the given image turned ``rotation`` cw, top-left first."""
        from rapidocr.utils.process_img import map_boxes_to_original

        if not len(detection):
            return np.zeros((0, 4, 2))
        boxes = map_boxes_to_original(detection.boxes.copy(), detection.op_record, detection.height, detection.width)
        turned = turn_points(boxes, rotation, detection.width, detection.height)
        return np.stack([_clockwise_from_top_left(q) for q in turned])


def sample_indices(detection: Detection, indices: Sequence[int], size: int) -> list[int]:
    """Up to ``size`` of ``indices``: the longest lines (most characters to judge by), in page order."""
    ranked = sorted(indices, key=lambda i: -max(detection.sides(i)))
    return sorted(ranked[:size])


def box_aspect(detection: Detection, index: int) -> float:
    """Long side over short side of a line's box (1 for a square; ``inf`` for a degenerate box)."""
    w, h = detection.sides(index)
    short = min(w, h)
    return math.inf if short <= 0 else max(w, h) / short


#: :func:`looks_sideways` judges the page on a grey copy whose longer side is this many pixels.
PRIOR_SIDE = 500
#: ... and calls it sideways when the ink merged across the page's height is this many times more
#: elongated than merged along its width.
PRIOR_RATIO = 1.5


def looks_sideways(bgr: np.ndarray) -> bool:
    """A quick guess from the pixels alone that the page's text lines run vertically (page on its side).

    Only a guess about where to run the detector first (:meth:`PPOCREngine.read_upright` detects on the
    page turned a quarter when it says yes, and the boxes found decide the orientation as always): a
    wrong guess costs one more detection, never a wrong orientation.

    Method (run-length smearing, as in classic page-layout analysis): the page is shrunk to
    :data:`PRIOR_SIDE` px, binarised (Otsu), and its ink closed along the rows, then along the columns,
    with a gap of twice the median ink blob (about a character); text lines merge into long blobs along
    their own direction only. The page is sideways when the blobs closed along the columns are
    :data:`PRIOR_RATIO` times more elongated (median length over thickness) than those along the rows.

    Measured 2026-12-01 (``sroie`` + ``sroie_dev``, 60 upright receipts, 3 upright pages, the 4 pages of
    ``ocrmypdf/cardinal.pdf``, ``phototest-rotated-R.png``, 12 receipts turned 90): 1 upright receipt
    (of 63 upright pages) guessed sideways, 9 of the 12 turned receipts and every turned page found;
    about 6 ms of CPU a page (a receipt's detection: about 1 s).

    Args:
        bgr: ``(H, W, 3)`` uint8 image.
    """
    import cv2

    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    scale = PRIOR_SIDE / float(max(grey.shape))
    if scale < 1.0:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    _, ink = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    blobs = stats[1:][stats[1:, cv2.CC_STAT_AREA] >= 4]
    if len(blobs) < 5:
        return False
    size = max(2, round(max(_median(blobs[:, cv2.CC_STAT_HEIGHT]), _median(blobs[:, cv2.CC_STAT_WIDTH]))))

    def elongation(along_rows: bool) -> float:
        shape = (2 * size + 1, 1) if along_rows else (1, 2 * size + 1)
        closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, shape))
        _, _, st, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
        big = st[1:][st[1:, cv2.CC_STAT_AREA] >= 4 * size]
        if not len(big):
            return 0.0
        w, h = big[:, cv2.CC_STAT_WIDTH], big[:, cv2.CC_STAT_HEIGHT]
        along, across = (w, h) if along_rows else (h, w)
        return _median(along / np.maximum(across, 1))

    return elongation(False) > PRIOR_RATIO * elongation(True)


def _median(values: np.ndarray) -> float:
    """``float(np.median(values))`` of a non-empty 1-D array, the same value, without ``np.median``'s
    import of ``numpy.ma`` (about 20 ms of CPU at a worker's first page): the middle element of the
    sorted values, or the mean of the two middle ones computed as numpy computes it (float64 sum / 2)."""
    a = np.asarray(values, dtype=np.float64).ravel()
    k = a.size // 2
    if a.size % 2:
        return float(np.partition(a, k)[k])
    part = np.partition(a, [k - 1, k])
    return float((part[k - 1] + part[k]) / 2)
