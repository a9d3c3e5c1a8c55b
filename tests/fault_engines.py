"""Engines that really fail, for running in the engine worker process (after OCRmyPDF's
``tests/plugins``: ``tesseract_crash``, ``tesseract_simulate_oom_killer``, ...).

Each one reads ordinary pages as three receipt lines and fails on a *poison page*: a page whose top-left
corner is pure red (:func:`poison`). The failure is real, in the process that runs the engine:

- ``kill``: ``SIGKILL`` to its own process (what the kernel's out-of-memory killer does);
- ``abort``: ``os.abort()`` (``SIGABRT``, as a failed assertion in native code);
- ``segfault``: ``SIGSEGV`` to itself (a crash in onnxruntime, torch or MuPDF);
- ``hang``: sleeps far past any watchdog;
- ``hog``: allocates and touches memory until the OS refuses more, under an address-space limit
  (``RLIMIT_AS``, :data:`HOG_HEADROOM_MB` above what the process already maps) so the test machine
  is never at risk;
- ``garbage``: answers a malformed reading (a NaN box) instead of failing.

Run one in the worker with ``EngineSpec("tests.fault_engines:make", {"fault": "kill"})``. They must
never run in the test process itself.
"""
from __future__ import annotations

import os
import signal
import time
from typing import Any

import numpy as np

from desktop.core.engines.base import Capability, Engine, PageReading
from desktop.core.model import Line

FAULTS = ("kill", "abort", "segfault", "hang", "hog", "garbage")

#: How far above its current address space the ``hog`` engine may grow before allocations fail (MiB).
HOG_HEADROOM_MB = 128

TEXTS = ("KEDAI RUNCIT MAJU", "DATE: 11/01/2019", "TOTAL RM 12.50")


def mark_poison(image: np.ndarray) -> np.ndarray:
    """Paint the 24 x 24 px top-left corner pure red (in place), making ``image`` a poison page."""
    image[:24, :24] = (255, 0, 0)
    return image


def poison(image: np.ndarray) -> bool:
    """Whether ``image`` (``(H, W, 3)`` uint8 RGB) is a poison page (red top-left corner, any scale)."""
    if image.ndim != 3 or image.shape[0] < 4 or image.shape[1] < 4:
        return False
    corner = image[:4, :4].reshape(-1, image.shape[2]).astype(int).mean(axis=0)
    return bool(corner[0] > 200 and corner[1] < 60 and corner[2] < 60)


def receipt_lines(width: int, height: int) -> list[Line]:
    """The three lines every ordinary page reads as (boxes in the image's pixels)."""
    return [Line(t, (width * 0.1, height * (0.1 + 0.2 * i), width * 0.9, height * (0.2 + 0.2 * i)), 0.95)
            for i, t in enumerate(TEXTS)]


class FaultEngine(Engine):
    """Reads ordinary pages as :data:`TEXTS`; fails with ``fault`` on poison pages.

    Args:
        fault: one of :data:`FAULTS`, or ``None`` for an engine that never fails.
        delay: seconds to sleep on every page (for Cancel and Quit tests).
    """

    name = "fault"
    version = "1"
    languages = ("en",)
    seconds_per_megapixel = 0.01

    def __init__(self, fault: str | None = None, delay: float = 0.0) -> None:
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}")
        self.fault = fault
        self.delay = float(delay)
        self.pages = 0

    def read_page(self, image: np.ndarray) -> PageReading:
        self.pages += 1
        if self.delay:
            time.sleep(self.delay)
        h, w = int(image.shape[0]), int(image.shape[1])
        if self.fault and poison(image):
            return self._fail(w, h)
        return PageReading(receipt_lines(w, h), seconds=self.delay)

    def _fail(self, width: int, height: int) -> PageReading:
        if self.fault == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif self.fault == "abort":
            os.abort()
        elif self.fault == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif self.fault == "hang":
            time.sleep(3600)
        elif self.fault == "hog":
            _hog()
        elif self.fault == "garbage":
            return PageReading([Line("TOTAL", (float("nan"), 0.0, width * 2.0, height * 0.5), 7.0)])
        time.sleep(5)  # a signal is delivered at once; never return a reading from a failed page
        raise AssertionError(f"fault {self.fault} did not happen")


def _hog() -> None:
    """Allocate and touch 32 MiB blocks until the address-space limit stops it (``MemoryError``)."""
    import resource

    with open(f"/proc/{os.getpid()}/statm", encoding="ascii") as f:
        mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = mapped + HOG_HEADROOM_MB * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    blocks = []
    while True:
        block = np.empty(32 * 2**20, dtype=np.uint8)
        block.fill(1)
        blocks.append(block)


def make_start_failure(words: str) -> FaultEngine:
    """A factory that dies while the engine starts, as a native library does that prints why and calls
    ``exit(-1)``: ``words`` on file descriptor 2, then exit status 255 (no Python clean-up, no reply)."""
    os.write(2, b"some harmless warning first\n")
    os.write(2, words.encode() + b"\n")
    os._exit(255)


def make(fault: str | None = None, delay: float = 0.0, **_: Any) -> FaultEngine:
    """The factory named in an ``EngineSpec`` (runs in the worker)."""
    return FaultEngine(fault, delay)


def make_render_killer(victim: str) -> FaultEngine:
    """An ordinary engine whose worker *renders* the file named ``victim`` with a native crash.

    Runs in the worker: PyMuPDF's page rendering there is wrapped so that rendering any page of
    ``victim`` sends ``SIGSEGV`` to the worker, as a MuPDF bug on a hostile PDF would.
    """
    from desktop.core.intake import pdf  # where PDF pages are rendered (PageImage.render looks it up there)

    real = pdf._render_pdf_page

    def render(page: Any, budget: int) -> Any:
        if page.source.name == victim:
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(page, budget)

    pdf._render_pdf_page = render
    return FaultEngine(None)


def make_open_killer(victim: str) -> FaultEngine:
    """An ordinary engine whose worker crashes natively *opening* the file named ``victim``.

    Runs in the worker: counting the pages of ``victim`` (the first thing done with a file,
    :func:`desktop.core.intake.count_pages`) sends ``SIGSEGV`` to the worker, as a MuPDF bug on a
    hostile PDF's structure would.
    """
    from desktop.core import intake

    real = intake.count_pages

    def count_pages(path: Any) -> int:
        if os.path.basename(str(path)) == victim:
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(path)

    intake.count_pages = count_pages
    return FaultEngine(None)


def make_einvoice_killer(victim: str) -> FaultEngine:
    """An ordinary engine whose worker crashes natively *reading the e-invoice data* of ``victim``.

    Runs in the worker: the reading of a PDF's embedded files (:func:`desktop.core.einvoice.facturx.attachments`,
    MuPDF's ``embfile_*`` calls on the opened document) is wrapped so that for ``victim`` it sends
    ``SIGSEGV`` to the worker, as a MuPDF bug on a hostile attachment would. Opening and rendering
    the file's pages are left alone, so only the e-invoice step fails.
    """
    from pathlib import Path

    from desktop.core.einvoice import facturx

    real = facturx.attachments

    def attachments(doc: Any) -> Any:
        if Path(str(doc.name)).name == victim:
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(doc)

    facturx.attachments = attachments
    return FaultEngine(None)


class UprightFaultEngine(FaultEngine):
    """:class:`FaultEngine` that turns pages upright itself (:attr:`Capability.UPRIGHT`, as PP-OCR):
    the pipeline calls :meth:`read_upright`, so the worker can read pages ahead
    (:meth:`~desktop.core.isolation.process.WorkerEngine.read_ahead`).

    Args:
        log: when given, a file that gets one line per page read (its width x height), to count reads.
    """

    name = "fault-upright"

    def __init__(self, fault: str | None = None, delay: float = 0.0, log: str | None = None) -> None:
        super().__init__(fault, delay)
        self.log = log

    capabilities = frozenset({Capability.UPRIGHT})

    def read_upright(self, image: np.ndarray) -> Any:
        from desktop.core.engines.upright import Reading

        if self.log:
            with open(self.log, "a", encoding="ascii") as fh:
                fh.write(f"{image.shape[1]}x{image.shape[0]}\n")
        reading = self.read_page(image)
        return Reading(0, reading.lines, seconds=reading.seconds)


def make_upright(fault: str | None = None, delay: float = 0.0, log: str | None = None, **_: Any) -> UprightFaultEngine:
    """The factory of :class:`UprightFaultEngine` named in an ``EngineSpec`` (runs in the worker)."""
    return UprightFaultEngine(fault, delay, log)
