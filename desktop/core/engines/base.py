"""The engine interface every OCR engine implements.

An engine is deliberately narrow and speaks plain data (a numpy image in, :class:`~desktop.core.model.Line`
objects out) so that it can later run in a child process, where a native crash or a hang becomes one
document's error instead of the application's end.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from desktop.core.model import Line


class EngineError(RuntimeError):
    """An engine could not be loaded or failed on a page; the message is shown to the user."""


class EngineUnavailable(EngineError):
    """The engine cannot run on this machine (missing weights, missing extra, no GPU)."""


class Engine(ABC):
    """An OCR engine.

    Attributes:
        name: short identifier used on the command line and in results (``ppocr``, ``hunyuan``, ``fake``).
        version: engine and model version, for the About box and result files.
        languages: BCP-47-ish language codes the engine reads (``en``, ``zh``, ...).
        device: ``cpu`` or ``cuda`` (shown in the status bar).
        max_pixels: pixel budget: intake downscales larger pages to at most this many pixels before
            :meth:`recognise`, and maps the boxes back to page pixels.
        capabilities: tasks beyond plain line recognition: ``fields`` (:meth:`extract_fields`),
            ``markdown``, ``table``, ``translate`` (:meth:`run_task`).
    """

    name: ClassVar[str] = "engine"
    version: str = "0"
    languages: tuple[str, ...] = ()
    device: str = "cpu"
    max_pixels: int = 4_000_000
    capabilities: frozenset[str] = frozenset()

    @abstractmethod
    def recognise(self, image: np.ndarray) -> list[Line]:
        """Read every line of text on one page image.

        Args:
            image: ``(height, width, 3)`` uint8 RGB array, upright, at most :attr:`max_pixels` pixels.

        Returns:
            Lines with boxes (and polygons where known) in the pixel coordinates of ``image``,
            confidence in [0, 1], in reading order.

        Raises:
            EngineError: the engine failed on this page.
        """

    def extract_fields(self, image: np.ndarray, field_names: list[str], language: str = "en") -> dict[str, str | None]:
        """Ask the engine itself for named fields (only engines with the ``fields`` capability).

        Returns:
            field name -> the value as printed (``None`` when the engine did not find it).
        """
        raise EngineError(f"engine {self.name} cannot extract fields directly")

    def run_task(self, image: np.ndarray, task: str, language: str = "en") -> str:
        """Run a document task (``markdown``, ``table``, ``translate_en``, ``translate_zh``) on one page."""
        raise EngineError(f"engine {self.name} does not support the task {task!r}")

    def warm_up(self) -> None:
        """Load models now instead of on the first page (called from a worker thread)."""

    def close(self) -> None:
        """Release models and memory."""

    def describe(self) -> str:
        """One line for the status bar and the About box, e.g. ``PP-OCR 3.10.0 (CPU)``."""
        return f"{self.name} {self.version} ({self.device.upper()})"
