"""In-process engines for tests: a fast engine driven by recorded output, and engines that raise the
errors a real engine raises (an :class:`EngineError`, a bare ``RuntimeError`` from a library that knows
none of ours, ``MemoryError``) or are slow. Engines that *really* fail (kill their own worker process,
abort, hang, exhaust memory, answer garbage) are in ``tests/fault_engines.py``.

None of them loads a model, so pipeline and GUI tests run in milliseconds and deterministically.

Recorded pages are what :meth:`desktop.core.model.PageResult.to_dict` writes (or just the part that
matters)::

    {"width": 800, "height": 1200, "lines": [{"text": "TOTAL 12.50", "box": [x0, y0, x1, y1],
                                             "confidence": 0.98, "polygon": [[x, y], ...] | null}]}

``width``/``height`` are the size of the image the lines were recorded on; :class:`FakeEngine` scales the
boxes to the size of the image it is given, so the same recording serves any render size.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from desktop.core.doctypes import FieldSpec
from desktop.core.engines.base import (
    Engine,
    EngineError,
    FieldReading,
    PageReading,
    TaskReading,
    as_capabilities,
)
from desktop.core.layout import reading_order
from desktop.core.model import Line, Word

__all__ = [
    "CrashingEngine",
    "FailingEngine",
    "FakeEngine",
    "MemoryHogEngine",
    "RecordedPage",
    "SlowEngine",
]


class RecordedPage:
    """One recorded page: its size and its lines (in that size's pixels).

    Args:
        width, height: size of the image the lines were recorded on, in pixels.
        lines: :class:`Line` objects or dicts as written by :meth:`Line.to_dict` (``box`` required;
            ``confidence``, ``polygon`` and ``words`` optional).
    """

    def __init__(self, width: int, height: int, lines: Iterable[Line | Mapping[str, Any]]) -> None:
        if width <= 0 or height <= 0:
            raise ValueError(f"recorded page size must be positive, got {width}x{height}")
        self.width = int(width)
        self.height = int(height)
        self.lines = [ln if isinstance(ln, Line) else Line.from_dict(dict(ln)) for ln in lines]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RecordedPage:
        return cls(int(d["width"]), int(d["height"]), d.get("lines", []))

    def scaled_to(self, width: int, height: int) -> list[Line]:
        """The lines with every coordinate scaled from the recorded size to ``width`` x ``height``."""
        sx = width / self.width
        sy = height / self.height

        def box(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
            return (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy)

        return [
            Line(
                text=ln.text,
                box=box(ln.box),
                confidence=ln.confidence,
                polygon=[(x * sx, y * sy) for x, y in ln.polygon] if ln.polygon else None,
                words=[Word(w.text, box(w.box), w.confidence) for w in ln.words],
            )
            for ln in self.lines
        ]


def _as_page(page: RecordedPage | Mapping[str, Any]) -> RecordedPage:
    return page if isinstance(page, RecordedPage) else RecordedPage.from_dict(page)


class FakeEngine(Engine):
    """An engine that "reads" pages by replaying recorded output.

    Args:
        pages: the recordings. A sequence is replayed in order, one per call (the last one repeats
            once the sequence is exhausted, so a single recording serves every page). A mapping picks
            the recording by ``key(image)``; an unknown key reads as a blank page.
        key: for a mapping of recordings, the function ``image -> key`` that chooses one (the image
            size changes with the render budget, so tests key on something drawn in the image, e.g.
            the colour of a marker pixel).
        delay: seconds to sleep per call (for GUI responsiveness and cancel tests).
        max_pixels: pixel budget advertised to the pipeline.
        capabilities: advertised capabilities; ``fields`` makes :meth:`read_fields` answer from
            ``field_values``, other capabilities make :meth:`run_task` answer ``task_output``.
        field_values: what :meth:`read_fields` answers (canonical field name -> value as printed).
        warnings: warnings every page reading carries (as a VLM's "answer cut short").
        suspect: mark every page reading suspect.
        task_output: what :meth:`run_task` returns (``{task}`` is replaced by the task name).
        task_outputs: per-task answers (task name -> text; ``{task}`` replaced too), taking precedence
            over ``task_output`` for the tasks they name.
        task_error: when set, :meth:`run_task` raises :class:`EngineError` with this message.
        task_delay: seconds to sleep per :meth:`run_task` call (in small steps).

    Attributes:
        calls: number of :meth:`recognise` calls so far.
        shapes: ``(height, width)`` of every image :meth:`recognise` was given.
        task_calls, task_shapes: the task and the ``(height, width)`` of every :meth:`run_task` call.
    """

    name = "fake"
    version = "1.0"
    languages = ("en", "zh")
    device = "cpu"

    def __init__(
        self,
        pages: Sequence[RecordedPage | Mapping[str, Any]] | Mapping[Any, RecordedPage | Mapping[str, Any]] = (),
        *,
        key: Callable[[np.ndarray], Any] | None = None,
        delay: float = 0.0,
        max_pixels: int = 4_000_000,
        capabilities: Iterable[str] = (),
        field_values: Mapping[str, str | None] | None = None,
        task_output: str = "<{task} output>",
        task_outputs: Mapping[str, str] | None = None,
        task_error: str | None = None,
        task_delay: float = 0.0,
        warnings: Iterable[str] = (),
        suspect: bool = False,
    ) -> None:
        if isinstance(pages, Mapping):
            self._by_key: dict[Any, RecordedPage] | None = {k: _as_page(v) for k, v in pages.items()}
            self._seq: list[RecordedPage] = []
        else:
            self._by_key = None
            self._seq = [_as_page(p) for p in pages]
        self._key = key
        self.delay = float(delay)
        self.max_pixels = int(max_pixels)
        self.capabilities = as_capabilities(capabilities)
        self.reading_warnings = list(warnings)
        self.suspect = bool(suspect)
        self.field_values = dict(field_values or {})
        self.task_output = task_output
        self.task_outputs = dict(task_outputs or {})
        self.task_error = task_error
        self.task_delay = float(task_delay)
        self.calls = 0
        self.shapes: list[tuple[int, int]] = []
        self.field_calls: list[list[str]] = []
        self.task_calls: list[str] = []
        self.task_shapes: list[tuple[int, int]] = []
        self._lock = threading.Lock()

    def _pick(self, image: np.ndarray) -> RecordedPage | None:
        if self._by_key is not None:
            if self._key is None:
                raise EngineError("FakeEngine with a mapping of recordings needs a key function")
            return self._by_key.get(self._key(image))
        if not self._seq:
            return None
        with self._lock:
            index = min(self.calls - 1, len(self._seq) - 1)
        return self._seq[index]

    def read_page(self, image: np.ndarray) -> PageReading:
        """Replay the next recording scaled to ``image`` (``(H, W, 3)`` uint8), after ``delay`` seconds."""
        t0 = time.perf_counter()
        lines = self._replay(image)
        return PageReading(lines, warnings=list(self.reading_warnings), suspect=self.suspect,
                           seconds=time.perf_counter() - t0)

    def _replay(self, image: np.ndarray) -> list[Line]:
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3):
            raise EngineError(f"fake engine needs an image array, got {type(image)}")
        with self._lock:
            self.calls += 1
            self.shapes.append((int(image.shape[0]), int(image.shape[1])))
        if self.delay:
            time.sleep(self.delay)
        page = self._pick(image)
        if page is None:
            return []
        return reading_order(page.scaled_to(image.shape[1], image.shape[0]))

    def read_fields(self, image: np.ndarray, fields: Sequence[FieldSpec], language: str = "en") -> FieldReading:
        if "fields" not in self.capabilities:
            return super().read_fields(image, fields, language)
        names = [f.name for f in fields]
        self.field_calls.append(names)
        return FieldReading({name: self.field_values.get(name) for name in names})

    def run_task(self, image: np.ndarray, task: str, language: str = "en") -> TaskReading:
        family = task.split("_")[0]
        if family not in self.capabilities:
            return super().run_task(image, task, language)
        with self._lock:
            self.task_calls.append(task)
            self.task_shapes.append((int(image.shape[0]), int(image.shape[1])))
        deadline = time.monotonic() + self.task_delay
        while time.monotonic() < deadline:
            time.sleep(min(0.01, max(0.0, deadline - time.monotonic())))
        if self.task_error:
            raise EngineError(self.task_error)
        return TaskReading(self.task_outputs.get(task, self.task_output).replace("{task}", task))


class FailingEngine(FakeEngine):
    """Raises :class:`EngineError` on every :meth:`recognise` (or from call ``fail_from`` on).

    Args:
        message: the error message.
        fail_from: 1-based call number of the first failing call (earlier calls replay ``pages``).
        fail_on: fail only on these 1-based call numbers (overrides ``fail_from``).
    """

    name = "failing"

    def __init__(self, message: str = "simulated engine failure", *, fail_from: int = 1,
                 fail_on: Iterable[int] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message
        self.fail_from = int(fail_from)
        self.fail_on = set(fail_on) if fail_on is not None else None

    def _should_fail(self) -> bool:
        n = self.calls
        return n in self.fail_on if self.fail_on is not None else n >= self.fail_from

    def _raise(self) -> None:
        raise EngineError(self.message)

    def _replay(self, image: np.ndarray) -> list[Line]:
        lines = super()._replay(image)
        if self._should_fail():
            self._raise()
        return lines


class CrashingEngine(FailingEngine):
    """Fails with a bare :class:`RuntimeError`, as a native library that does not know our error types."""

    name = "crashing"

    def __init__(self, message: str = "simulated native crash (onnxruntime: Segmentation fault)", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)

    def _raise(self) -> None:
        raise RuntimeError(self.message)


class MemoryHogEngine(FailingEngine):
    """Fails with :class:`MemoryError`, as an engine given a page too large for memory."""

    name = "memoryhog"

    def _raise(self) -> None:
        raise MemoryError()


class SlowEngine(FakeEngine):
    """Takes ``ms_per_page`` milliseconds per page, sleeping in small steps.

    Sleeping in steps of ``step_ms`` lets a test's ``cancel`` flag (checked by the pipeline between
    pages) and the GUI stay responsive; ``interrupt`` (a callable) stops the wait early when it returns
    true, for cooperative cancellation inside a page.
    """

    name = "slow"

    def __init__(self, ms_per_page: float = 200.0, *, step_ms: float = 10.0,
                 interrupt: Callable[[], bool] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ms_per_page = float(ms_per_page)
        self.step_ms = max(1.0, float(step_ms))
        self.interrupt = interrupt

    def _replay(self, image: np.ndarray) -> list[Line]:
        deadline = time.monotonic() + self.ms_per_page / 1000.0
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or (self.interrupt is not None and self.interrupt()):
                break
            time.sleep(min(left, self.step_ms / 1000.0))
        return super()._replay(image)
