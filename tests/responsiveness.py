"""Measuring GUI responsiveness while a slow engine runs: ticks of a 10 ms timer on the event loop.

A call that blocks the GUI thread for ``t`` seconds leaves no tick during those ``t`` seconds. The
slow fake engines here block for :data:`ENGINE_DELAY_S` per call and record when each call ran
(:class:`Timed`); :meth:`GapMeter.stalled` lists the calls during which the event loop never ticked.
Run in the worker thread, every call sees ticks; run on the GUI thread (a freeze), none does. The
test therefore does not depend on how loaded the machine is: scheduling noise on a busy two-core
machine makes gaps of a few hundred milliseconds (728 ms measured on the shared development machine
under a full parallel run), never one covering a whole one-second call. The longest gap is printed
(``-s``) for the record; nothing is skipped.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import QTimer

#: Seconds the slow fake engines block per call in the responsiveness tests.
ENGINE_DELAY_S = 1.0


class Timed:
    """Wraps a callable and records the ``(start, end)`` ``perf_counter`` times of every call."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.calls: list[tuple[float, float]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.calls.append((start, time.perf_counter()))


class GapMeter:
    """Context manager: a 10 ms timer on the GUI event loop, its tick times in ``ticks``."""

    def __init__(self, label: str = "") -> None:
        self.label = label
        self.ticks: list[float] = []
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def __enter__(self) -> GapMeter:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.stop()
        print(f"\n{self.label}: {len(self.ticks)} ticks, longest event-loop gap {self.longest * 1000:.0f} ms")

    @property
    def longest(self) -> float:
        """The longest gap between two ticks, in seconds."""
        return float(np.diff(self.ticks).max()) if len(self.ticks) > 1 else 0.0

    def stalled(self, calls: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """The calls (``(start, end)``) during which the event loop did not tick once."""
        ticks = np.asarray(self.ticks)
        return [(a, b) for a, b in calls if not np.any((ticks > a) & (ticks < b))]
