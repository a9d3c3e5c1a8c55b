"""The engine contract every OCR engine implements (after OCRmyPDF's ``pluginspec.OcrEngine``).

An engine reads one page image at a time and answers in plain data:

- :meth:`Engine.read_page` -> :class:`PageReading`: the lines (text, box, confidence, polygon), the
  engine's own warnings about this reading, a ``suspect`` mark (the answer looped or was cut at a
  length limit, so the page needs a person's eye) and the seconds it took;
- :meth:`Engine.read_fields` (engines with :attr:`Capability.FIELDS`) takes field specifications
  (:class:`~desktop.core.doctypes.FieldSpec`: the canonical name and the prompt wording per language)
  and returns a :class:`FieldReading` keyed by the *canonical* names;
- :meth:`Engine.run_task` (markdown, table, translate) -> :class:`TaskReading`;
- :meth:`Engine.read_upright` (engines with :attr:`Capability.UPRIGHT`) -> an
  :class:`~desktop.core.engines.upright.Reading`: the page read once, turned upright by the engine itself.

Everything an engine reports travels inside these readings (never on engine attributes read
afterwards), so an engine can run in a child process (:mod:`desktop.core.isolation.process`): a reading
converts to and from plain dicts (``to_dict`` / ``from_dict``), and ``from_dict`` refuses malformed
data with :class:`MalformedOutput`. The pipeline checks every reading with :func:`check_page_reading`
whichever side of a process boundary it came from.

Threading model: one engine object is used by one thread at a time (the pipeline's reading thread or
the worker process's main thread); engines may hold a lock of their own but need not.

Engines never open files: they are handed page images. Where the (untrusted) files are opened and
rendered, in this process or in an engine's worker process, is :mod:`desktop.core.isolation`'s
business (:func:`desktop.core.isolation.page_host`), above both the engines and
:mod:`desktop.core.intake`, which stay independent of each other.
"""
from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from desktop.core.diagnostics import Diagnostic, as_diagnostic
from desktop.core.model import Line

if TYPE_CHECKING:
    import numpy as np

    from desktop.core.doctypes import FieldSpec
    from desktop.core.engines.upright import Reading

__all__ = [
    "Capability",
    "Engine",
    "EngineCrashed",
    "EngineError",
    "EngineInfo",
    "EngineInterrupted",
    "EngineTimedOut",
    "EngineUnavailable",
    "FieldReading",
    "MalformedOutput",
    "PageReading",
    "ReadingNote",
    "TaskReading",
    "as_capabilities",
    "check_page_reading",
    "warnings_out",
]


# -- errors --------------------------------------------------------------------------------------

class EngineError(RuntimeError):
    """An engine could not be loaded or failed on a page; the message is shown to the user.

    Attributes:
        diagnostic: why, as a diagnostic rendered in the reader's language, where the raiser knows it
            (front ends and the pipeline show it instead of the English message); ``None`` otherwise.
    """

    diagnostic: Diagnostic | None = None


class EngineUnavailable(EngineError):
    """The engine cannot run on this machine (missing weights, missing extra, no GPU)."""


class MalformedOutput(EngineError):
    """The engine answered with data that breaks the contract (no text, a box outside the page, ...)."""


class EngineCrashed(EngineError):
    """The engine's worker process ended while reading (a signal, an abort, an out-of-memory kill).

    Attributes:
        exitcode: the process's exit code (negative: ``-signal`` number, as ``multiprocessing`` reports it).
        detail: how it ended, rendered in the reader's language (a ``WORKER_*`` code of
            :class:`~desktop.core.diagnostics.Code`, e.g. ``worker_killed``); ``None`` when not known.
    """

    def __init__(self, message: str, *, exitcode: int | None = None, detail: Diagnostic | None = None) -> None:
        super().__init__(message)
        self.exitcode = exitcode
        self.detail = detail


class EngineTimedOut(EngineError):
    """A page took longer than the watchdog allows; the worker was stopped.

    Attributes:
        limit_s: the watchdog's limit for that page, in seconds.
    """

    def __init__(self, message: str, *, limit_s: float) -> None:
        super().__init__(message)
        self.limit_s = float(limit_s)


class EngineInterrupted(EngineError):
    """The call was stopped on request (Cancel past its grace period, or Quit): not a page failure."""


# -- capabilities --------------------------------------------------------------------------------

class Capability(StrEnum):
    """What an engine can do beyond :meth:`Engine.read_page`.

    A ``StrEnum``: members compare equal to their values, so ``"fields" in engine.capabilities`` holds.
    Task names map to a capability by the part before ``_`` (``translate_en`` -> ``TRANSLATE``).
    """

    FIELDS = "fields"
    MARKDOWN = "markdown"
    TABLE = "table"
    TRANSLATE = "translate"
    #: :meth:`Engine.read_upright`: the engine decides a page's orientation itself, between detection
    #: and recognition, and recognises every line once (PP-OCR), instead of the pipeline's
    #: read-probe-reread (:mod:`desktop.core.orientation`).
    UPRIGHT = "upright"

    @classmethod
    def for_task(cls, task: str) -> Capability:
        """The capability a task needs (``translate_zh`` -> ``TRANSLATE``).

        Raises:
            ValueError: no capability covers ``task``.
        """
        return cls(task.split("_")[0])


def as_capabilities(names: Iterable[str | Capability]) -> frozenset[Capability]:
    """A typed capability set from names (``{"fields", "table"}``).

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    out = set()
    for name in names:
        try:
            out.add(Capability(name))
        except ValueError:
            raise ValueError(f"unknown engine capability {name!r}; known: {', '.join(c.value for c in Capability)}") from None
    return frozenset(out)


# -- readings ------------------------------------------------------------------------------------

#: An engine's note about one reading: a diagnostic (rendered in the clerk's language), or a plain
#: text (the engine's own words, shown as they are).
ReadingNote = Diagnostic | str


def _warnings(value: Any, what: str) -> list[ReadingNote]:
    """A reading's warnings from plain data: texts, diagnostics, or diagnostics as their JSON objects.

    Raises:
        MalformedOutput: not a list of those.
    """
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise MalformedOutput(f"the engine's {what} warnings are not a list")
    out: list[ReadingNote] = []
    for w in value:
        if isinstance(w, dict) and "code" in w:
            w = Diagnostic.from_dict(w)
        if isinstance(w, Diagnostic):
            out.append(w)
        elif isinstance(w, str):
            if w.strip():
                out.append(w)
        else:
            raise MalformedOutput(f"the engine's {what} warnings are not texts or diagnostics")
    return out


def warnings_out(warnings: Sequence[ReadingNote]) -> list[Any]:
    """A reading's warnings as plain data for a process boundary (a diagnostic as its JSON object)."""
    return [w.to_dict() if isinstance(w, Diagnostic) else str(w) for w in warnings]


def _seconds(value: Any) -> float:
    try:
        seconds = float(value or 0.0)
    except (TypeError, ValueError):
        raise MalformedOutput(f"the engine's timing is not a number: {value!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise MalformedOutput(f"the engine's timing is not a duration: {value!r}")
    return seconds


@dataclass
class PageReading:
    """What an engine read on one page image.

    Attributes:
        lines: the lines in reading order, boxes (and polygons) in the pixels of the image given to
            :meth:`Engine.read_page` (origin top-left, x right, y down), confidence in [0, 1].
        warnings: the engine's notes about this reading, for the clerk: diagnostics, rendered in the
            UI's language ("HunyuanOCR repeated itself; the repeated text was cut off",
            :attr:`~desktop.core.diagnostics.Code.HUNYUAN_REPEATED`), or the engine's own words as
            texts. They end up in the page's warnings.
        suspect: the reading is probably incomplete or wrong as a whole (the answer looped or was cut
            at the length limit); the page is flagged for checking.
        seconds: wall time the engine spent on the page.
    """

    lines: list[Line] = field(default_factory=list)
    warnings: list[ReadingNote] = field(default_factory=list)
    suspect: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-compatible apart from floats) for a process boundary."""
        return {"lines": [ln.to_dict() for ln in self.lines], "warnings": warnings_out(self.warnings),
                "suspect": bool(self.suspect), "seconds": float(self.seconds)}

    @classmethod
    def from_dict(cls, d: Any) -> PageReading:
        """The reverse of :meth:`to_dict`.

        Raises:
            MalformedOutput: ``d`` is not a page reading (missing or mistyped entries).
        """
        if not isinstance(d, dict) or not isinstance(d.get("lines"), list):
            raise MalformedOutput(f"the engine returned {type(d).__name__} instead of a page reading")
        lines = []
        for i, raw in enumerate(d["lines"], 1):
            try:
                lines.append(raw if isinstance(raw, Line) else Line.from_dict(raw))
            except (KeyError, TypeError, ValueError) as exc:
                raise MalformedOutput(f"line {i} of the engine's answer is malformed ({type(exc).__name__}: {exc})") from None
        return cls(lines=lines, warnings=_warnings(d.get("warnings"), "page"),
                   suspect=bool(d.get("suspect", False)), seconds=_seconds(d.get("seconds")))


@dataclass
class FieldReading:
    """Field values an engine read on one page.

    Attributes:
        values: canonical field name (``resources/doctypes/fields.json``) -> the value as printed, or
            ``None`` when the engine did not find it. Every requested name is present; no other.
        warnings, suspect, seconds: as in :class:`PageReading`.
    """

    values: dict[str, str | None] = field(default_factory=dict)
    warnings: list[ReadingNote] = field(default_factory=list)
    suspect: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"values": dict(self.values), "warnings": warnings_out(self.warnings), "suspect": bool(self.suspect),
                "seconds": float(self.seconds)}

    @classmethod
    def from_dict(cls, d: Any, requested: Sequence[str] | None = None) -> FieldReading:
        """The reverse of :meth:`to_dict`; with ``requested``, checks the keys are exactly those names.

        Raises:
            MalformedOutput: not a field reading, a value that is not text, or keys other than ``requested``.
        """
        if not isinstance(d, dict) or not isinstance(d.get("values"), dict):
            raise MalformedOutput(f"the engine returned {type(d).__name__} instead of field values")
        values: dict[str, str | None] = {}
        for key, value in d["values"].items():
            if value is not None and not isinstance(value, str):
                raise MalformedOutput(f"the engine's value for {key!r} is {type(value).__name__}, not text")
            values[str(key)] = value
        if requested is not None:
            unknown = sorted(set(values) - set(requested))
            if unknown:
                raise MalformedOutput(f"the engine answered fields that were not asked for: {', '.join(unknown)}")
            values = {name: values.get(name) for name in requested}
        return cls(values=values, warnings=_warnings(d.get("warnings"), "field"),
                   suspect=bool(d.get("suspect", False)), seconds=_seconds(d.get("seconds")))


@dataclass
class TaskReading:
    """The answer of a document task (:meth:`Engine.run_task`) on one page.

    Attributes:
        text: the answer (Markdown, HTML, or the translated text).
        warnings, suspect, seconds: as in :class:`PageReading`.
    """

    text: str = ""
    warnings: list[ReadingNote] = field(default_factory=list)
    suspect: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "warnings": warnings_out(self.warnings), "suspect": bool(self.suspect),
                "seconds": float(self.seconds)}

    @classmethod
    def from_dict(cls, d: Any) -> TaskReading:
        """Raises: MalformedOutput: not a task reading."""
        if not isinstance(d, dict) or not isinstance(d.get("text"), str):
            raise MalformedOutput(f"the engine returned {type(d).__name__} instead of a task answer")
        return cls(text=d["text"], warnings=_warnings(d.get("warnings"), "task"),
                   suspect=bool(d.get("suspect", False)), seconds=_seconds(d.get("seconds")))


#: How far (in pixels) a box may stick out of the image before the reading counts as malformed:
#: polygons of slanted lines at the edge legitimately overshoot by a pixel or two.
BOX_TOLERANCE_PX = 4.0


def check_page_reading(reading: Any, width: int, height: int) -> PageReading:
    """Check an engine's answer against the contract before anything uses it.

    Args:
        reading: what :meth:`Engine.read_page` returned.
        width, height: size of the image it was given, in pixels.

    Returns:
        ``reading`` itself when it is sound.

    Raises:
        MalformedOutput: not a :class:`PageReading`; a line without text, a box that is not four finite
            numbers with x0 <= x1 and y0 <= y1 inside the image (:data:`BOX_TOLERANCE_PX`), or a
            confidence outside [0, 1]. The message names the line.
    """
    if not isinstance(reading, PageReading):
        raise MalformedOutput(f"the engine returned {type(reading).__name__} instead of a page reading")
    if not isinstance(reading.lines, list):
        raise MalformedOutput("the engine's lines are not a list")
    tol = BOX_TOLERANCE_PX
    for i, ln in enumerate(reading.lines, 1):
        if not isinstance(ln, Line) or not isinstance(ln.text, str):
            raise MalformedOutput(f"line {i} of the engine's answer is not a line of text")
        try:
            x0, y0, x1, y1 = (float(v) for v in ln.box)
            conf = float(ln.confidence)
        except (TypeError, ValueError):
            raise MalformedOutput(f"line {i} ({ln.text[:30]!r}) has a box or confidence that is not numbers") from None
        if not all(math.isfinite(v) for v in (x0, y0, x1, y1, conf)):
            raise MalformedOutput(f"line {i} ({ln.text[:30]!r}) has a box or confidence that is not finite")
        if x0 > x1 or y0 > y1 or x0 < -tol or y0 < -tol or x1 > width + tol or y1 > height + tol:
            raise MalformedOutput(f"line {i} ({ln.text[:30]!r}) has the box {ln.box} outside the {width}x{height} image")
        if not 0.0 <= conf <= 1.0:
            raise MalformedOutput(f"line {i} ({ln.text[:30]!r}) has the confidence {conf}, outside [0, 1]")
    return reading


# -- engine description --------------------------------------------------------------------------

@dataclass
class EngineInfo:
    """What a caller needs to know about an engine, as plain data (crosses the process boundary).

    Attributes:
        name, version, device, languages, max_pixels, capabilities, turns_tall_lines_ccw,
            seconds_per_megapixel: as the :class:`Engine` attributes of the same names.
        description: :meth:`Engine.describe`.
        notes: :attr:`Engine.load_notes` as diagnostics (e.g. "HunyuanOCR is running on the CPU", why
            ``auto`` chose PP-OCR).
    """

    name: str
    version: str
    description: str
    device: str = "cpu"
    languages: tuple[str, ...] = ()
    max_pixels: int = 4_000_000
    capabilities: frozenset[Capability] = frozenset()
    turns_tall_lines_ccw: bool = False
    seconds_per_megapixel: float = 2.0
    notes: list[Diagnostic] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "description": self.description, "device": self.device,
                "languages": list(self.languages), "max_pixels": int(self.max_pixels),
                "capabilities": sorted(c.value for c in self.capabilities),
                "turns_tall_lines_ccw": bool(self.turns_tall_lines_ccw),
                "seconds_per_megapixel": float(self.seconds_per_megapixel),
                "notes": [as_diagnostic(n).to_dict() for n in self.notes]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EngineInfo:
        return cls(name=str(d["name"]), version=str(d["version"]), description=str(d["description"]),
                   device=str(d.get("device", "cpu")), languages=tuple(d.get("languages", ())),
                   max_pixels=int(d.get("max_pixels", 4_000_000)),
                   capabilities=as_capabilities(d.get("capabilities", ())),
                   turns_tall_lines_ccw=bool(d.get("turns_tall_lines_ccw", False)),
                   seconds_per_megapixel=float(d.get("seconds_per_megapixel", 2.0)),
                   notes=[as_diagnostic(n) for n in d.get("notes", [])])


# -- the engine ----------------------------------------------------------------------------------

class Engine(ABC):
    """An OCR engine.

    Attributes:
        name: short identifier used on the command line and in results (``ppocr``, ``hunyuan``).
        version: engine and model version, for the About box and result files.
        languages: BCP-47-ish language codes the engine reads (``en``, ``zh``, ...).
        device: ``cpu`` or ``cuda`` (shown in the status bar).
        max_pixels: pixel budget: intake renders larger pages to at most this many pixels before
            :meth:`read_page`, and the pipeline maps the boxes back to page pixels.
        capabilities: typed set of :class:`Capability`: ``FIELDS`` (:meth:`read_fields`),
            ``MARKDOWN``, ``TABLE``, ``TRANSLATE`` (:meth:`run_task`), ``UPRIGHT`` (:meth:`read_upright`).
        turns_tall_lines_ccw: the engine turns text-line crops at least 1.5x taller than wide a quarter
            turn anticlockwise before recognising them (rapidocr does); used by
            :func:`desktop.core.orientation.choose_rotation`.
        seconds_per_megapixel: typical reading time per megapixel on its device, the unit of the
            worker's watchdog (:class:`desktop.core.isolation.process.Watchdog`).
        load_notes: notes from loading, for the status bar ("running on the CPU: slow"): diagnostics, or
            plain texts (read as :attr:`~desktop.core.diagnostics.Code.TEXT`).
    """

    name: ClassVar[str] = "engine"
    version: str = "0"
    languages: tuple[str, ...] = ()
    device: str = "cpu"
    max_pixels: int = 4_000_000
    capabilities: frozenset[Capability] = frozenset()
    turns_tall_lines_ccw: bool = False
    seconds_per_megapixel: float = 2.0
    load_notes: Sequence[Diagnostic | str] = ()

    @abstractmethod
    def read_page(self, image: np.ndarray) -> PageReading:
        """Read every line of text on one page image.

        Args:
            image: ``(height, width, 3)`` uint8 RGB array, upright, at most :attr:`max_pixels` pixels.

        Returns:
            A :class:`PageReading`: lines with boxes (and polygons where known) in the pixel
            coordinates of ``image``, confidence in [0, 1], in reading order; the engine's warnings,
            its ``suspect`` mark and the time taken.

        Raises:
            EngineError: the engine failed on this page.
        """

    def read_fields(self, image: np.ndarray, fields: Sequence[FieldSpec], language: str = "en") -> FieldReading:
        """Ask the engine itself for named fields (engines with :attr:`Capability.FIELDS`).

        Args:
            image: ``(H, W, 3)`` uint8 RGB page.
            fields: what to ask for: each :class:`~desktop.core.doctypes.FieldSpec` gives the
                canonical name and the prompt wording per language (``spec.prompt["zh"]``).
            language: ``en`` or ``zh``: which prompt wording to use.

        Returns:
            A :class:`FieldReading` whose ``values`` are keyed by the canonical names of ``fields``
            (every one present, ``None`` when not found), whatever keys the model answered with.

        Raises:
            EngineError: the engine cannot extract fields, or failed on this page.
        """
        raise EngineError(f"engine {self.name} cannot extract fields directly")

    def read_upright(self, image: np.ndarray) -> Reading:
        """Read a page that may lie on its side or upside down, upright (engines with :attr:`Capability.UPRIGHT`).

        Args:
            image: ``(H, W, 3)`` uint8 RGB array as rendered, in any orientation.

        Returns:
            A :class:`~desktop.core.engines.upright.Reading`: the clockwise rotation (0/90/180/270) that
            makes the page upright, why, and the lines in the pixels of the image turned by it
            (:func:`desktop.core.orientation.rotate_image`), as :meth:`read_page` returns them for an
            upright image; it passes :func:`~desktop.core.engines.upright.check_reading`.

        Raises:
            EngineError: the engine cannot decide orientation itself, or failed on this page.
        """
        raise EngineError(f"engine {self.name} cannot turn pages upright itself")

    def run_task(self, image: np.ndarray, task: str, language: str = "en") -> TaskReading:
        """Run a document task (``markdown``, ``table``, ``translate_en``, ``translate_zh``) on one page.

        Raises:
            EngineError: the engine does not support the task, or failed on this page.
        """
        raise EngineError(f"engine {self.name} does not support the task {task!r}")

    def warm_up(self) -> None:
        """Load models now instead of on the first page (called from a worker thread or process)."""

    def close(self) -> None:
        """Release models and memory."""

    def interrupt(self, grace_s: float = 0.0) -> None:
        """Ask for the call in flight to be stopped, at once or after ``grace_s`` seconds (thread-safe).

        Until :meth:`clear_interrupt`, calls raise :class:`EngineInterrupted`. An engine in this process
        cannot be stopped from outside, so the default does nothing (the pipeline stops after the page);
        :class:`~desktop.core.isolation.process.WorkerEngine` stops its worker.
        """

    def clear_interrupt(self) -> None:
        """Allow calls again after :meth:`interrupt` (called when the next job starts)."""

    def describe(self) -> str:
        """One line for the status bar and the About box, e.g. ``PP-OCR 3.10.0 (CPU)``."""
        return f"{self.name} {self.version} ({self.device.upper()})"

    def info(self) -> EngineInfo:
        """The engine's description as plain data (after :meth:`warm_up` for the loaded device)."""
        return EngineInfo(
            name=self.name, version=self.version, description=self.describe(), device=str(self.device),
            languages=tuple(self.languages), max_pixels=int(self.max_pixels),
            capabilities=as_capabilities(self.capabilities), turns_tall_lines_ccw=bool(self.turns_tall_lines_ccw),
            seconds_per_megapixel=float(self.seconds_per_megapixel),
            notes=[as_diagnostic(n) for n in self.load_notes],
        )


class Stopwatch:
    """``with Stopwatch() as sw: ...; sw.seconds``: wall time of a block (``time.perf_counter``)."""

    def __enter__(self) -> Stopwatch:
        self._t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._t0
