"""HunyuanOCR (Tencent's 1B OCR vision-language model) through transformers' own ``hunyuan_vl`` code.

Importing this module is cheap: torch and transformers (the optional ``[gpu]`` extra) are imported only
when the model is loaded (first page or :meth:`HunyuanEngine.warm_up`, from a worker thread) or when
:func:`availability` has to ask whether a GPU is present.

Model folder
------------
The weights are never downloaded (offline product; licence territory limits, see
``shared/notes/hunyuan_vl.md``): IT puts the folder of ``tencent/HunyuanOCR`` on the machine. It is
looked for, in order (:func:`candidate_dirs`):

1. the folder chosen in the settings dialog / ``--model-dir``;
2. the environment variable ``SHOEBOX_HUNYUAN_DIR``;
3. ``<user data dir>/models/HunyuanOCR`` (platformdirs; ``$SHOEBOX_HOME/data/models/HunyuanOCR`` in tests);
4. ``models/HunyuanOCR`` beside the installed app: the folder of ``sys.executable`` for a frozen
   (PyInstaller) build, else the folder holding the ``desktop`` package (the repository root in a checkout).

The first *complete* folder wins (:func:`check_model_dir`: ``config.json``, an image-processor config,
tokenizer files, and every safetensors shard the index names).

Loading and running
-------------------
``AutoProcessor`` + ``AutoModelForImageTextToText`` with ``local_files_only=True``,
``trust_remote_code=False`` and the offline environment of :mod:`desktop.core.offline`. CUDA in bfloat16
(float16 where the card has no bf16), else the CPU in float32 (slow: a warning says so). Greedy decoding
with ``repetition_penalty=1.08`` and an empty system message, as Tencent's README does.

Pages are batched into one ``generate`` call (left padding), up to :attr:`HunyuanEngine.batch_size`.
Each page is first shrunk to the pixel budget (:data:`DEFAULT_MAX_PIXELS`), which bounds the vision
tokens; the processor gets the same limit. On CUDA out-of-memory a batch is split into single pages,
and a single page is retried once at half the pixel budget before it fails with :class:`EngineError`.
"""
from __future__ import annotations

import logging
import math
import sys
import threading
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop.core.diagnostics import Code, diag
from desktop.core.engines.base import (
    Capability,
    Engine,
    EngineError,
    EngineUnavailable,
    FieldReading,
    PageReading,
    TaskReading,
)
from desktop.core.engines.hunyuan_models import (  # the model folder (re-exported)
    ENV_VAR,
    _gpu_stack_problem,
    availability,
    candidate_dirs,
    check_model_dir,
    find_model_dir,
)
from desktop.core.engines.hunyuan_output import (
    MODEL_LINE_CONFIDENCE,
    SUSPECT_LINE_CONFIDENCE,
    Generation,
    as_field_specs,
    fields_prompt_keys,
    finish_generation,
    parse_fields,
    parse_spotting,
    repeating_period,
    strip_fences,
)

if TYPE_CHECKING:
    from PIL import Image

    from desktop.core.doctypes import FieldSpec

__all__ = [
    "DEFAULT_MAX_PIXELS", "ENV_VAR", "MAX_NEW_TOKENS", "PROMPTS", "TASKS", "HunyuanEngine", "availability",
    "candidate_dirs", "check_model_dir", "find_model_dir",
]

log = logging.getLogger(__name__)


DEFAULT_MAX_PIXELS = 1600 * 1600
"""Pixel budget per page (2.56 MP).

- Vision tokens grow with pixels: one token per 32x32 pixels (16 px patches merged 2x2), so 2.56 MP is
  about 2,500 tokens and about 10,000 ViT patches per page; the processor's own ceiling
  (2048 x 2048 = 4.19 MP) is 4,096 tokens, and unresized 300 dpi pages ran a 48 GB card and an H200
  out of memory (Tencent-Hunyuan/HunyuanOCR issue #114).
- An A4 page at 150 dpi (1240 x 1754 = 2.17 MP) fits whole, so 9-10 pt print keeps 20+ px of x-height;
  receipts (narrow, long) keep their full width.
"""

MIN_PIXELS_FLOOR = 64 * 64
"""Smallest pixel budget a retry will use."""

DEFAULT_BATCH_SIZE = {"cuda": 4, "cpu": 2}
"""Pages per ``generate`` call; halved for the rest of the session after an out-of-memory error."""

REPETITION_PENALTY = 1.08
"""Tencent's README and vLLM example use 1.08 with greedy decoding."""

MAX_NEW_TOKENS: dict[str, int] = {
    "spotting": 4096,   # a dense A4 page: ~100 lines x ~25 tokens (text + two coordinate pairs)
    "fields": 1024,     # a dozen short values in JSON
    "text": 4096,
    "markdown": 8192,   # Tencent's recommendation for long pages
    "table": 8192,      # HTML tags cost many tokens
    "translate_en": 8192,
    "translate_zh": 8192,
}
"""Upper bound on generated tokens per task."""

# Prompts: Tencent's README, "application-oriented prompts" (see shared/notes/hunyuan_vl.md). The README
# gives translation into English only; translate_zh is the same instruction with the target language
# changed (our wording).
PROMPTS: dict[str, dict[str, str]] = {
    "spotting": {
        "en": "Detect and recognize text in the image, and output the text coordinates in a formatted manner.",
        "zh": "检测并识别图片中的文字，将文本坐标格式化输出。",
    },
    "text": {"en": "Extract the text in the image.", "zh": "提取图中的文字。"},
    "markdown": {
        "en": "Extract all information from the main body of the document image and represent it in markdown "
              "format, ignoring headers and footers. Tables should be expressed in HTML format, formulas in the "
              "document should be represented using LaTeX format, and the parsing should be organized according "
              "to the reading order.",
        "zh": "提取文档图片中正文的所有信息用 markdown 格式表示，其中页眉、页脚部分忽略，表格用 html 格式表达，"
              "文档中公式用 latex 格式表示，按照阅读顺序组织进行解析。",
    },
    "table": {"en": "Parse the table in the image into HTML.", "zh": "把图中的表格解析为 HTML。"},
    "fields": {
        "en": "Extract the content of the fields: {keys} from the image and return it in JSON format.",
        "zh": "提取图片中的: {keys} 的字段内容，并按照 JSON 格式返回。",
    },
    "translate_en": {
        "en": "First extract the text, then translate the text content into English. If it is a document, ignore "
              "the header and footer. Formulas should be represented in LaTeX format, and tables should be "
              "represented in HTML format.",
        "zh": "先提取文字，再将文字内容翻译为英文。若是文档，则其中页眉、页脚忽略。公式用latex格式表示，表格用html格式表示。",
    },
    "translate_zh": {
        "en": "First extract the text, then translate the text content into Chinese. If it is a document, ignore "
              "the header and footer. Formulas should be represented in LaTeX format, and tables should be "
              "represented in HTML format.",
        "zh": "先提取文字，再将文字内容翻译为中文。若是文档，则其中页眉、页脚忽略。公式用latex格式表示，表格用html格式表示。",
    },
}

TASKS = ("markdown", "table", "translate_en", "translate_zh", "text", "spotting")
"""Tasks :meth:`HunyuanEngine.run_task` accepts."""

SPOTTING_PROMPT_LANGUAGE = "zh"
"""Spotting is asked in Chinese: the form used in Tencent's examples and in the upstream issues
(#20, #40, #68, #76) whose answers show the ``text(x1,y1),(x2,y2)`` format we parse."""


# --------------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------------


def _to_pil(image: Any) -> Image.Image:
    from PIL import Image

    if isinstance(image, Image.Image):
        return image.convert("RGB")
    array = np.asarray(image)
    if array.ndim == 2:
        array = np.stack([array] * 3, axis=-1)
    if array.ndim != 3 or array.shape[2] not in (3, 4):
        raise EngineError(f"expected an (H, W, 3) RGB image, got an array of shape {array.shape}")
    return Image.fromarray(np.ascontiguousarray(array[:, :, :3]).astype(np.uint8, copy=False), "RGB")


def fit_pixels(image: Image.Image, max_pixels: int) -> Image.Image:
    """Shrink ``image`` (keeping its aspect ratio) so that width * height <= ``max_pixels``."""
    from PIL import Image

    w, h = image.size
    if w * h <= max_pixels:
        return image
    scale = math.sqrt(max_pixels / (w * h))
    size = (max(1, int(w * scale)), max(1, int(h * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


class HunyuanEngine(Engine):
    """HunyuanOCR behind the :class:`Engine` interface.

    Args:
        model_dir: a complete model folder (see :func:`find_model_dir`).
        device: ``cuda``, ``cuda:N`` or ``cpu``; ``None`` = CUDA when available, else CPU.
        max_pixels: pixel budget per page (see :data:`DEFAULT_MAX_PIXELS`).
        batch_size: pages per ``generate`` call (``None``: :data:`DEFAULT_BATCH_SIZE` for the device).
        max_new_tokens: per-task overrides of :data:`MAX_NEW_TOKENS`.
        repetition_guard: stop generation when the tail of the answer loops (see
            :func:`~desktop.core.engines.hunyuan_output.repeating_period`).
        dtype: ``bfloat16``, ``float16`` or ``float32``; ``None`` = bf16 on CUDA (fp16 without bf16 support),
            float32 on the CPU.

    Every reading carries its page's notes (the answer looped or was cut, fields were dropped, the page
    was shrunk after an out-of-memory error) in ``warnings`` and marks a looping or cut answer
    ``suspect``; the pipeline copies them into ``PageResult.warnings``.

    Attributes:
        load_notes: notes from loading (e.g. "running on the CPU: slow").

    Raises:
        EngineUnavailable: ``model_dir`` is not a complete model folder.
    """

    name = "hunyuan"
    languages = ("zh", "en")
    capabilities = frozenset({Capability.FIELDS, Capability.MARKDOWN, Capability.TABLE, Capability.TRANSLATE})

    def __init__(
        self,
        model_dir: str | Path,
        *,
        device: str | None = None,
        max_pixels: int = DEFAULT_MAX_PIXELS,
        batch_size: int | None = None,
        max_new_tokens: dict[str, int] | None = None,
        repetition_guard: bool = True,
        dtype: str | None = None,
    ) -> None:
        self.model_dir = Path(model_dir)
        missing = check_model_dir(self.model_dir)
        if missing:
            raise EngineUnavailable(f"HunyuanOCR model folder {self.model_dir} is incomplete: missing "
                                    f"{', '.join(str(m) for m in missing)}")
        self._requested_device = device
        self._device: str | None = None
        self.max_pixels = int(max_pixels)
        self._batch_size = batch_size
        self.max_new_tokens = {**MAX_NEW_TOKENS, **(max_new_tokens or {})}
        self.repetition_guard = repetition_guard
        self._dtype_name = dtype
        try:
            self.version = f"HunyuanOCR ({self.model_dir.name}), transformers {metadata.version('transformers')}"
        except metadata.PackageNotFoundError:
            self.version = f"HunyuanOCR ({self.model_dir.name})"
        self.load_notes: list[str] = []
        self._model: Any = None
        self._processor: Any = None
        self._load_error: EngineError | None = None
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ device and loading

    @property
    def device(self) -> str:  # type: ignore[override]  # Engine.device is a plain attribute
        """``cuda``/``cuda:N`` or ``cpu`` (resolving it imports torch)."""
        if self._device is None:
            if self._requested_device:
                self._device = self._requested_device
            else:
                import torch

                self._device = "cuda" if torch.cuda.is_available() else "cpu"
        return self._device

    @property
    def batch_size(self) -> int:
        if self._batch_size is None:
            self._batch_size = DEFAULT_BATCH_SIZE["cuda" if self.device.startswith("cuda") else "cpu"]
        return self._batch_size

    @batch_size.setter
    def batch_size(self, value: int) -> None:
        self._batch_size = max(1, int(value))

    @property
    def seconds_per_megapixel(self) -> float:  # type: ignore[override]
        """Typical reading time per megapixel (the watchdog's unit): a CUDA GPU reads a page in seconds,
        the CPU in float32 takes minutes (shared/notes/hunyuan_vl.md)."""
        return 4.0 if self.device.startswith("cuda") else 120.0

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def dtype_name(self) -> str:
        return str(self._model.dtype).removeprefix("torch.") if self._model is not None else (self._dtype_name or "?")

    def describe(self) -> str:
        """``HunyuanOCR (CUDA, bfloat16)``; before loading, without importing torch just to say so."""
        device = self._device or self._requested_device
        if device is None and "torch" in sys.modules:
            device = self.device
        dtype = f", {self.dtype_name}" if self.loaded else ""
        return f"HunyuanOCR ({device.upper()}{dtype})" if device else "HunyuanOCR (not loaded yet)"

    def warm_up(self) -> None:
        """Load the processor and the model now (call from a worker thread: seconds to a minute)."""
        self._load()

    def _load(self) -> None:
        """Load once; a failure is remembered and raised again on every later page instead of retried."""
        with self._lock:
            if self._model is not None:
                return
            if self._load_error is not None:
                raise self._load_error
            try:
                self._load_now()
            except EngineError as exc:
                self._load_error = exc
                raise

    def _load_now(self) -> None:
        with self._lock:
            from desktop.core.offline import enforce_offline_environment

            enforce_offline_environment()
            problem = _gpu_stack_problem()
            if problem:
                raise EngineUnavailable(f"HunyuanOCR cannot run: {problem}")
            import torch
            from transformers import (
                AutoConfig,
                AutoModelForImageTextToText,
                AutoProcessor,
            )

            device = self.device
            if device.startswith("cuda"):
                if not torch.cuda.is_available():
                    raise EngineUnavailable("HunyuanOCR was asked to run on CUDA but torch sees no CUDA GPU")
                default = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
            else:
                default = "float32"
                note = ("HunyuanOCR is running on the CPU in float32: expect minutes per page "
                        "(a CUDA GPU reads a page in seconds)")
                log.warning(note)
                self.load_notes.append(note)
            dtype = getattr(torch, self._dtype_name or default)
            local = {"local_files_only": True, "trust_remote_code": False}
            try:
                config = AutoConfig.from_pretrained(self.model_dir, **local)
                if getattr(config, "model_type", None) != "hunyuan_vl":
                    raise EngineUnavailable(
                        f"{self.model_dir} holds a {getattr(config, 'model_type', 'unknown')!r} model, not HunyuanOCR (hunyuan_vl)")
                processor = AutoProcessor.from_pretrained(self.model_dir, **local)
                # device_map (accelerate) loads the shards straight onto the GPU; on the CPU it is not needed
                placement = {"device_map": device} if device.startswith("cuda") else {}
                model = AutoModelForImageTextToText.from_pretrained(
                    self.model_dir, dtype=dtype, **placement, **local).eval()
            except EngineError:
                raise
            except torch.OutOfMemoryError as exc:
                self._empty_cache()
                raise EngineUnavailable(f"HunyuanOCR does not fit in GPU memory: {exc}") from exc
            except Exception as exc:
                raise EngineUnavailable(f"could not load HunyuanOCR from {self.model_dir}: {type(exc).__name__}: {exc}") from exc
            processor.tokenizer.padding_side = "left"  # batched generation continues every row at the right end
            self._processor = processor
            self._model = model
            log.info("HunyuanOCR loaded from %s on %s (%s)", self.model_dir, device, dtype)

    def close(self) -> None:
        with self._lock:
            self._model = None
            self._processor = None
            self._empty_cache()

    @staticmethod
    def _empty_cache() -> None:
        """Return cached CUDA memory to the driver (after an out-of-memory error or :meth:`close`)."""
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_available():
            import gc

            gc.collect()
            torch.cuda.empty_cache()

    # ------------------------------------------------------------------ generation

    def _size_limits(self, budget: int) -> dict[str, int]:
        """``size`` for the image processor: ``longest_edge`` = the budget; ``shortest_edge`` = its own minimum
        (512*512 for HunyuanOCR), lowered to half the budget for small budgets."""
        ip = self._processor.image_processor
        size = getattr(ip, "size", None) or {}
        lower = (size.get("shortest_edge") if isinstance(size, dict) else getattr(size, "shortest_edge", None)) \
            or getattr(ip, "min_pixels", None) or 512 * 512
        # the lower bound must stay clear of the budget: smart_resize rounds to 32 px and would scale back up
        return {"shortest_edge": int(min(lower, budget // 2)), "longest_edge": int(budget)}

    def _run_batch(self, images: Sequence[Image.Image], prompts: Sequence[str], max_new_tokens: int,
                   budget: int) -> list[Generation]:
        """One ``generate`` call for a batch of pages (no out-of-memory handling here)."""
        import torch

        fitted = [fit_pixels(im, budget) for im in images]
        messages = [
            [{"role": "system", "content": ""},
             {"role": "user", "content": [{"type": "image", "image": im}, {"type": "text", "text": prompt}]}]
            for im, prompt in zip(fitted, prompts)
        ]
        inputs = self._processor.apply_chat_template(
            messages, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            processor_kwargs={"padding": True, "size": self._size_limits(budget)},
        ).to(self._model.device)
        prompt_len = int(inputs["input_ids"].shape[1])
        gen_config = self._model.generation_config
        end_ids = _as_list(gen_config.eos_token_id)
        pad_id = gen_config.pad_token_id if gen_config.pad_token_id is not None else self._processor.tokenizer.pad_token_id
        criteria = []
        guard = None
        if self.repetition_guard:
            guard = _make_repetition_guard(len(fitted), prompt_len, end_ids + _as_list(pad_id))
            criteria.append(guard)
        from transformers import StoppingCriteriaList

        with torch.inference_mode():
            out = self._model.generate(
                **inputs, max_new_tokens=max_new_tokens, do_sample=False, repetition_penalty=REPETITION_PENALTY,
                stopping_criteria=StoppingCriteriaList(criteria), pad_token_id=pad_id,
            )
        new = out[:, prompt_len:].cpu()
        texts = self._processor.batch_decode(new, skip_special_tokens=True)
        results = []
        end_set, pad_set = set(end_ids), set(_as_list(pad_id))
        for row, text in enumerate(texts):
            ids = new[row].tolist()
            ended = next((i for i, t in enumerate(ids) if t in end_set), None)
            if ended is None:
                # pad tokens after a row the guard stopped (while other rows went on) are not its answer
                while ids and ids[-1] in pad_set:
                    ids.pop()
            n_new = ended if ended is not None else len(ids)
            results.append(finish_generation(
                text, new_tokens=n_new, stopped_by_guard=bool(guard is not None and guard.fired[row]),
                hit_token_limit=ended is None and n_new >= max_new_tokens,
                pixels=fitted[row].width * fitted[row].height, max_new_tokens=max_new_tokens,
            ))
        return results

    def _generate(self, images: Sequence[Any], prompts: Sequence[str], max_new_tokens: int) -> list[Generation | EngineError]:
        """Answer ``prompts[i]`` about ``images[i]``, batching pages into as few ``generate`` calls as memory allows.

        Args:
            images: ``(H, W, 3)`` uint8 RGB arrays or PIL images.
            prompts: one user prompt per image.
            max_new_tokens: bound on each answer.

        Returns:
            One :class:`Generation` per image, or an :class:`EngineError` in the slot of a page that
            could not be read (GPU memory exhausted even at half resolution); the other pages are still read.

        Raises:
            EngineUnavailable: the model could not be loaded.
            EngineError: generation failed for another reason.
        """
        if len(images) != len(prompts):
            raise ValueError("one prompt per image")
        self._load()
        pil = [_to_pil(im) for im in images]
        results: list[Generation | EngineError] = [EngineError("not run")] * len(pil)
        with self._lock:
            start = 0
            while start < len(pil):
                size = self.batch_size
                chunk = list(range(start, min(start + size, len(pil))))
                try:
                    outs = self._run_batch([pil[i] for i in chunk], [prompts[i] for i in chunk], max_new_tokens,
                                           self.max_pixels)
                except Exception as exc:
                    if not _is_oom(exc):
                        raise EngineError(f"HunyuanOCR failed: {type(exc).__name__}: {exc}") from exc
                    outs = None  # handled below, outside the except clause, so the traceback's tensors are freed
                if outs is not None:
                    for i, gen in zip(chunk, outs):
                        results[i] = gen
                else:
                    self._empty_cache()
                    if len(chunk) > 1:
                        self.batch_size = max(1, len(chunk) // 2)
                        log.warning("GPU out of memory with %d pages per batch; now %d", len(chunk), self.batch_size)
                    for i in chunk:
                        results[i] = self._run_single_with_retry(pil[i], prompts[i], max_new_tokens,
                                                                 first_try=len(chunk) > 1)
                start = chunk[-1] + 1
        return results

    def _run_single_with_retry(self, image: Image.Image, prompt: str, max_new_tokens: int, *,
                               first_try: bool) -> Generation | EngineError:
        """One page; on out-of-memory, once more at half the pixel budget, then an :class:`EngineError`."""
        budgets = ([self.max_pixels] if first_try else []) + [max(MIN_PIXELS_FLOOR, self.max_pixels // 2)]
        last = ""
        for budget in budgets:
            try:
                gen = self._run_batch([image], [prompt], max_new_tokens, budget)[0]
            except Exception as exc:
                if not _is_oom(exc):
                    return EngineError(f"HunyuanOCR failed: {type(exc).__name__}: {exc}")
                last = f"{type(exc).__name__}: {exc}"
                gen = None
            if gen is None:
                self._empty_cache()
                continue
            if budget < self.max_pixels:
                gen.warnings.append(diag(Code.HUNYUAN_REDUCED_RESOLUTION, pixels=f"{gen.pixels:,}"))
            return gen
        w, h = image.size
        return EngineError(f"page too large for GPU memory: {w}x{h} px failed even at {budgets[-1]:,} pixels ({last})")

    def _answers(self, images: Sequence[Any], prompts: Sequence[str], task: str) -> list[Generation | EngineError]:
        return self._generate(images, prompts, self.max_new_tokens[task])

    # ------------------------------------------------------------------ the Engine interface

    def read_page(self, image: np.ndarray) -> PageReading:
        """Text spotting: every line with its box, in the pixels of ``image``.

        Lines carry :data:`~desktop.core.engines.hunyuan_output.MODEL_LINE_CONFIDENCE` (the model gives no
        scores), or ``SUSPECT_LINE_CONFIDENCE`` when the answer looped or was cut short; such a reading is
        ``suspect`` and its warnings say why.

        Raises:
            EngineError: the page could not be read (e.g. too large for GPU memory).
        """
        result = self.read_pages([image])[0]
        if isinstance(result, EngineError):
            raise result
        return result

    def read_pages(self, images: Sequence[np.ndarray]) -> list[PageReading | EngineError]:
        """:meth:`read_page` for several pages, batched into as few ``generate`` calls as memory allows.

        Returns:
            One entry per image: its reading, or the :class:`EngineError` that page failed with.
        """
        t0 = time.perf_counter()
        prompt = PROMPTS["spotting"][SPOTTING_PROMPT_LANGUAGE]
        results = self._answers(images, [prompt] * len(images), "spotting")
        each = (time.perf_counter() - t0) / max(1, len(images))
        out: list[PageReading | EngineError] = []
        for image, gen in zip(images, results):
            if isinstance(gen, EngineError):
                out.append(gen)
                continue
            width, height = _image_size(image)
            conf = SUSPECT_LINE_CONFIDENCE if gen.suspect else MODEL_LINE_CONFIDENCE
            out.append(PageReading(parse_spotting(gen.text, width, height, confidence=conf),
                                   warnings=list(gen.warnings), suspect=gen.suspect, seconds=each))
        return out

    def read_fields(self, image: np.ndarray, fields: Sequence[FieldSpec | str], language: str = "en") -> FieldReading:
        """Ask the model for named fields on one page (:meth:`Engine.read_fields`).

        Args:
            image: ``(H, W, 3)`` uint8 RGB page.
            fields: field specifications (canonical name + prompt wording per language; a canonical
                name is looked up in ``resources/doctypes/fields.json``). They are asked for by their
                prompt wording in ``language`` (``en`` or ``zh``).

        Returns:
            Every requested canonical name -> the value as printed, or ``None`` (never invented),
            whether the model keyed its answer by the prompt wording, the canonical name or a label;
            normalising is left to ``extraction.fields_from_values``.

        Raises:
            EngineError: the page could not be read.
        """
        result = self.read_fields_pages([image], fields, language)[0]
        if isinstance(result, EngineError):
            raise result
        return result

    def fields_prompt(self, fields: Sequence[FieldSpec | str], language: str = "en") -> str:
        """The extraction prompt for these fields (Tencent's wording; keys as a Python-style list)."""
        lang = "zh" if language.lower().startswith("zh") else "en"
        keys = fields_prompt_keys(fields, lang)
        listed = "[" + ", ".join(f"'{k}'" for k in keys.values()) + "]"
        return PROMPTS["fields"][lang].format(keys=listed)

    def read_fields_pages(self, images: Sequence[np.ndarray], fields: Sequence[FieldSpec | str],
                          language: str = "en") -> list[FieldReading | EngineError]:
        """:meth:`read_fields` for several pages in batched ``generate`` calls."""
        t0 = time.perf_counter()
        specs = as_field_specs(fields)
        prompt = self.fields_prompt(specs, language)
        results = self._answers(images, [prompt] * len(images), "fields")
        each = (time.perf_counter() - t0) / max(1, len(images))
        out: list[FieldReading | EngineError] = []
        for gen in results:
            if isinstance(gen, EngineError):
                out.append(gen)
                continue
            values, notes = parse_fields(gen.text, specs, language)
            if gen.suspect and not gen.text.rstrip().endswith(("}", "]", "```")):
                notes.append(diag(Code.FIELD_VALUES_INCOMPLETE))
            out.append(FieldReading(values, warnings=[*gen.warnings, *notes], suspect=gen.suspect, seconds=each))
        return out

    def run_task(self, image: np.ndarray, task: str, language: str = "en") -> TaskReading:
        """Run a document task on one page.

        Args:
            task: ``markdown`` (document to Markdown, tables as HTML), ``table`` (table to HTML),
                ``translate_en`` / ``translate_zh`` (extract, then translate), ``text`` (plain text) or
                ``spotting`` (raw spotting answer).
            language: language of the prompt (``en`` or ``zh``); the answer's language follows the page
                except for translations.

        Returns:
            The answer (code fences around tables removed; a looping suffix trimmed and said so in the
            reading's warnings).

        Raises:
            EngineError: unknown task, or the page could not be read.
        """
        if task not in TASKS:
            raise EngineError(f"HunyuanOCR has no task {task!r}; choose one of {', '.join(TASKS)}")
        t0 = time.perf_counter()
        lang = "zh" if language.lower().startswith("zh") else "en"
        gen = self._answers([image], [PROMPTS[task][lang]], task)[0]
        if isinstance(gen, EngineError):
            raise gen
        text = strip_fences(gen.text) if task == "table" else gen.text
        return TaskReading(text, warnings=list(gen.warnings), suspect=gen.suspect, seconds=time.perf_counter() - t0)


def _as_list(value: Any) -> list[int]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return [int(value)]


def _image_size(image: Any) -> tuple[int, int]:
    """``(width, height)`` of an array ``(H, W, C)`` or a PIL image."""
    if isinstance(image, np.ndarray):
        return int(image.shape[1]), int(image.shape[0])
    return tuple(image.size)


def _is_oom(exc: BaseException) -> bool:
    """True for CUDA out-of-memory (``torch.OutOfMemoryError`` = ``torch.cuda.OutOfMemoryError``)."""
    torch = sys.modules.get("torch")
    oom = getattr(torch, "OutOfMemoryError", None) if torch is not None else None
    return bool(oom is not None and isinstance(exc, oom))


def _make_repetition_guard(batch_size: int, prompt_len: int, ignore_ids: Sequence[int]) -> Any:
    """A transformers ``StoppingCriteria`` that ends a row whose generated tail loops.

    Every step it runs :func:`~desktop.core.engines.hunyuan_output.repeating_period` on the last
    ``GUARD_MAX_PERIOD * GUARD_MIN_REPEATS`` generated tokens of each row not yet finished (rows that
    produced an end token are left alone); ``fired[row]`` records which rows it stopped.
    """
    import torch
    from transformers import StoppingCriteria

    from desktop.core.engines.hunyuan_output import (
        GUARD_MAX_PERIOD,
        GUARD_MIN_REPEATS,
        GUARD_MIN_SPAN,
    )

    window = max(GUARD_MAX_PERIOD * GUARD_MIN_REPEATS, GUARD_MIN_SPAN)
    ignore = set(int(i) for i in ignore_ids)

    class RepetitionGuard(StoppingCriteria):
        def __init__(self) -> None:
            self.fired: list[bool] = [False] * batch_size

        def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
            batch = input_ids.shape[0]
            if len(self.fired) != batch:
                self.fired = [False] * batch
            done = torch.zeros(batch, dtype=torch.bool, device=input_ids.device)
            generated = input_ids.shape[1] - prompt_len
            if generated < GUARD_MIN_SPAN:
                return done
            tails = input_ids[:, -min(window, generated):].tolist()
            for row, tail in enumerate(tails):
                if self.fired[row] or any(t in ignore for t in tail):
                    done[row] = self.fired[row]
                    continue
                if repeating_period(tail) is not None:
                    self.fired[row] = True
                    done[row] = True
            return done

    return RepetitionGuard()
