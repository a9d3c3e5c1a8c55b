"""Throughput of a batch: pages done, pages per minute and the time left (for progress lines).

Shared by ``shoebox scan``'s progress bar and the window's status bar. The time left is the pages
still to read -- the rest of the current file plus, for every file not started, the mean page count
of the files read so far (or the current file's page count before any file is finished) -- at the
rate measured so far. Rendered through :mod:`desktop.core.diagnostics` (code ``throughput``) so it
reads in English or Chinese.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from desktop.core.diagnostics import Code, diag

__all__ = ["Throughput"]


class Throughput:
    """Counts pages and files of a batch as they are read.

    Args:
        files: how many files the batch has (may grow: :meth:`add_files`).
        clock: seconds, monotonic (tests pass a fake one).
    """

    def __init__(self, files: int, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or time.monotonic
        self.start = self._clock()
        self.files = files
        self.files_done = 0
        self.pages_before = 0  # pages of the files finished
        self.pages_now = 0  # pages finished in the current file
        self.pages_in_file = 0

    def add_files(self, n: int) -> None:
        """More files were queued while the batch runs."""
        self.files += n

    def page(self, page: int, pages: int, finished: bool) -> None:
        """The current file is at ``page`` of ``pages`` (``finished``: that page is read)."""
        self.pages_in_file = pages
        self.pages_now = page if finished else max(0, page - 1)

    def file_done(self) -> None:
        """The current file is read (or failed)."""
        self.files_done += 1
        self.pages_before += max(self.pages_now, self.pages_in_file)
        self.pages_now = self.pages_in_file = 0

    @property
    def pages_done(self) -> int:
        return self.pages_before + self.pages_now

    def rate(self) -> float:
        """Pages per minute so far (0 before the first page)."""
        return self.pages_done / max(1e-6, self._clock() - self.start) * 60

    def seconds_left(self) -> int | None:
        """Estimated seconds to the end of the batch, ``None`` before the first page."""
        rate = self.rate()
        if not self.pages_done or rate <= 0:
            return None
        per_file = self.pages_before / self.files_done if self.files_done else max(1, self.pages_in_file)
        left_files = max(0, self.files - self.files_done - (1 if self.pages_in_file else 0))
        remaining = max(0, self.pages_in_file - self.pages_now) + left_files * per_file
        return int(round(remaining / rate * 60))

    def text(self, language: str = "en") -> str:
        """``"12 pages, 8.0 pages/min, 3:05 left"`` (``"0 pages"`` before the first page)."""
        seconds = self.seconds_left()
        if seconds is None:
            return diag(Code.THROUGHPUT_START).message(language)
        left = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
            else f"{seconds // 60}:{seconds % 60:02d}"
        if self.pages_done == 1:
            return diag(Code.THROUGHPUT_ONE, rate=f"{self.rate():.1f}", left=left).message(language)
        return diag(Code.THROUGHPUT, pages=self.pages_done, rate=f"{self.rate():.1f}", left=left).message(language)
