"""Engines in a worker process: a crash, a hang or an out-of-memory kill costs one page, never the app.

:class:`WorkerEngine` implements the :class:`~desktop.core.engines.base.Engine` contract by sending each
call to a child process (``multiprocessing``, spawn start method) that creates the real engine once
(:class:`EngineSpec`), warms it up and keeps it warm. The same child opens and renders the input files
and runs the other readers of untrusted files, such as the e-invoice data embedded in a PDF
(:class:`~desktop.core.isolation.pages.PageHost`: PyMuPDF, Pillow and lxml are native code fed untrusted bytes).

Protocol (one call at a time, over a ``multiprocessing`` pipe): the parent sends ``(op, args)`` and, for
calls on a page image, the pixels as raw bytes (``send_bytes``, no pickling of the array); the child
answers ``{"status": "ok" | "error", ...}`` with the result as plain data (readings as ``to_dict()``,
intake pages as their dataclass), its resident memory, and a rendered image's bytes after it.

Failure handling (each one is a named error for that page; the worker is started again for the next):

- the child ends while a call is in flight, or while it starts (any signal, ``abort()``, the kernel's
  out-of-memory killer, a native library's ``exit(-1)``): :class:`~desktop.core.engines.base.EngineCrashed`
  with how it ended and, when it wrote any, its last lines on stderr (the child's file descriptor 2 goes to
  a file of its own, :func:`_capture_stderr`; the parent reads its tail, :func:`_stderr_tail`, and logs the
  rest when the worker ends; output before the worker's function runs, such as a failed import while the
  interpreter starts, still goes to the parent's stderr);
- a call runs past the watchdog (:class:`Watchdog`: its limit scales with the page's pixels and the
  engine's typical speed): the child is killed, :class:`~desktop.core.engines.base.EngineTimedOut`;
- the engine raises ``MemoryError``: the child reports it and exits (its heap cannot be trusted);
- :meth:`WorkerEngine.interrupt` (Cancel past its grace period, Quit): the child is killed at once,
  :class:`~desktop.core.engines.base.EngineInterrupted` (the pipeline turns it into ``Cancelled``).

Memory stays bounded: after every call the child reports its resident set size; when it passes
:attr:`WorkerEngine.rss_limit_bytes` the worker is stopped before the next call and started afresh.

Replacement: when a worker dies or is stopped by the watchdog, its replacement is started at once, in
the background, while the caller deals with the failed page; the next call waits only for what is
left of its start. With ``spare=True`` (the window's engine) a second worker is kept started and warm
beside the one in use, for an engine small enough (:data:`SPARE_MAX_MB`): after a crash, a timeout or
recycling the next call goes to it at once, and a new spare starts after that call.

Threading: calls come from one thread (the pipeline's); :meth:`WorkerEngine.interrupt` may be called
from any thread.
"""
from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.engines.base import (
    Capability,
    Engine,
    EngineCrashed,
    EngineError,
    EngineInfo,
    EngineInterrupted,
    EngineTimedOut,
    EngineUnavailable,
    FieldReading,
    MalformedOutput,
    PageReading,
    TaskReading,
    check_page_reading,
)
from desktop.core.engines.upright import Reading, check_reading
from desktop.core.isolation.pages import LOCAL_PAGES, PageHost

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    import numpy as np

    from desktop.core.doctypes import FieldSpec
    from desktop.core.intake import PageImage

__all__ = ["DEFAULT_RSS_LIMIT_MB", "SPARE_MAX_MB", "EngineSpec", "PagesInWorker", "Watchdog", "WorkerEngine", "describe_exit",
           "page_host"]

log = logging.getLogger(__name__)

#: The worker is recycled between pages when its resident memory passes this. Measured (BENCHMARKS.md,
#: "Engine worker process"): a PP-OCR worker holds 270-370 MiB after warm-up and at most 460-600 MiB
#: after reading receipts, an A4 invoice scan and the 9000 x 9000 px ``ocrmypdf/multipage.pdf`` page
#: (two runs, 10:52 and 12:32 UTC, the second with the recognition workers of issue 11); 2 GiB is over
#: three times the highest healthy figure, so only a leak or a runaway page reaches it. An engine whose
#: model alone is larger (HunyuanOCR on the CPU, about 4 GiB in float32) gets twice its resident memory
#: after warm-up instead (PP-OCR's highest was 1.6-1.7 times its warm-up).
DEFAULT_RSS_LIMIT_MB = 2048

#: A spare worker is kept only for an engine at most this large after warm-up (resident MiB) that runs
#: on the CPU: a second PP-OCR worker costs about 270-370 MiB (measured, BENCHMARKS.md "Engine worker
#: process"); a second HunyuanOCR (4 GiB on the CPU, or its GPU memory) is not worth holding for a rare
#: crash.
SPARE_MAX_MB = 768


@dataclass(frozen=True)
class EngineSpec:
    """How the worker creates its engine: ``factory`` (``"module:function"``) called with ``kwargs``.

    The factory runs in the worker; it may take a ``notes`` keyword (a list it appends notes to, as
    :func:`desktop.core.engines.create_engine` does), which become the engine's load notes.

    Attributes:
        factory: import path of a callable returning an :class:`Engine`.
        kwargs: keyword arguments (plain, picklable data).
        label: what to call the engine before it has started ("PP-OCR", "OCR engine").
    """

    factory: str
    kwargs: dict[str, Any] = field(default_factory=dict, hash=False)
    label: str = "OCR engine"

    def create(self, notes: list[str]) -> Engine:
        """Import the factory and call it (in the worker).

        Raises:
            EngineUnavailable: the factory cannot be imported or does not return an engine.
        """
        module_name, _, attr = self.factory.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise EngineUnavailable(f"the engine factory {self.factory} cannot be loaded: {exc}") from exc
        kwargs = dict(self.kwargs)
        if _takes_notes(factory):
            kwargs["notes"] = notes
        engine = factory(**kwargs)
        if not isinstance(engine, Engine):
            raise EngineUnavailable(f"the engine factory {self.factory} returned {type(engine).__name__}, not an engine")
        return engine


def _takes_notes(factory: Any) -> bool:
    import inspect

    try:
        return "notes" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True)
class Watchdog:
    """How long a worker call may take before the worker is stopped.

    A page's limit is ``max(min_s, factor * engine.seconds_per_megapixel * megapixels)``: it scales with
    the page and with the engine's own typical speed (PP-OCR about 3 s/MP on a loaded 2-core PC;
    HunyuanOCR on the CPU about 120 s/MP), with a factor of headroom for a slow, busy machine.

    Attributes:
        min_s: no page call is stopped sooner (seconds).
        factor: headroom over the engine's typical time.
        start_s: loading and warming up the engine (HunyuanOCR loads in up to a minute or two).
        file_s: opening a file, counting its pages or loading one page's description.
        render_s_per_megapixel: rendering, on top of ``file_s`` (MuPDF renders a few MP per second).
    """

    min_s: float = 120.0
    factor: float = 20.0
    start_s: float = 600.0
    file_s: float = 120.0
    render_s_per_megapixel: float = 10.0

    def page_limit(self, pixels: int, seconds_per_megapixel: float) -> float:
        """Seconds allowed for one engine call on an image of ``pixels`` pixels."""
        return max(self.min_s, self.factor * float(seconds_per_megapixel) * pixels / 1e6)

    def render_limit(self, pixels: int) -> float:
        """Seconds allowed to render a page to at most ``pixels`` pixels."""
        return self.file_s + self.render_s_per_megapixel * pixels / 1e6


def describe_exit(exitcode: int | None) -> Diagnostic:
    """How a worker process ended (``exitcode`` as ``multiprocessing`` reports it), as a diagnostic
    rendered in the reader's language: :attr:`~desktop.core.diagnostics.Code.WORKER_KILLED` (SIGKILL,
    the kernel's out-of-memory killer), ``WORKER_ABORTED`` (SIGABRT), ``WORKER_SEGFAULT`` (SIGSEGV),
    ``WORKER_SIGNAL`` (any other signal, by name), ``WORKER_EXIT_CODE`` (``exitcode`` >= 0) or
    ``WORKER_UNRESPONSIVE`` (``None``: it has not ended)."""
    if exitcode is None:
        return diag(Code.WORKER_UNRESPONSIVE)
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        special = {"SIGKILL": Code.WORKER_KILLED, "SIGABRT": Code.WORKER_ABORTED, "SIGSEGV": Code.WORKER_SEGFAULT}
        return diag(special[name]) if name in special else diag(Code.WORKER_SIGNAL, signal=name)
    return diag(Code.WORKER_EXIT_CODE, exitcode=int(exitcode))


# ------------------------------------------------------------------------------------------------
# The child process
# ------------------------------------------------------------------------------------------------

def _rss_bytes() -> int:
    """This process' resident set size in bytes (0 when it cannot be read).

    On Linux from ``/proc/self/statm`` (its second field, in pages; proc(5)); elsewhere through psutil,
    whose import costs the worker's start 15-70 ms, so it is not imported where the kernel tells directly.
    """
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except Exception:
        return 0


def _recv_image(conn: Connection, meta: dict[str, Any]) -> np.ndarray:
    """Receive an image's bytes straight into a new (writable) array of the announced shape and dtype."""
    import numpy as np

    image = np.empty(tuple(meta["shape"]), dtype=np.dtype(meta["dtype"]))
    n = conn.recv_bytes_into(memoryview(image).cast("B"))  # type: ignore[arg-type]  # an ndarray is a buffer
    if n != image.nbytes:
        raise MalformedOutput(f"image of {n} bytes received, {image.nbytes} announced")
    return image


def _send_image(conn: Connection, image: np.ndarray) -> None:
    import numpy as np

    conn.send_bytes(memoryview(np.ascontiguousarray(image)).cast("B"))  # type: ignore[arg-type]


def _image_meta(image: np.ndarray) -> dict[str, Any]:
    return {"shape": tuple(int(n) for n in image.shape), "dtype": str(image.dtype)}


def _error_reply(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, MemoryError):  # first, and without importing anything: memory is short
        return {"status": "error", "kind": "memory", "message": "out of memory (the page is too large for this computer)"}
    from desktop.core import intake

    if isinstance(exc, intake.IntakeError):
        return {"status": "error", "kind": "intake", "cls": type(exc).__name__, "path": str(exc.path),
                "reason": exc.diagnostic}
    kind = ("ahead_missing" if isinstance(exc, _AheadMissing) else
            "unavailable" if isinstance(exc, EngineUnavailable) else
            "malformed" if isinstance(exc, MalformedOutput) else
            "engine" if isinstance(exc, EngineError) else "other")
    message = str(exc).strip() or type(exc).__name__
    if kind == "other":
        message = f"{type(exc).__name__}: {message}"
    reply: dict[str, Any] = {"status": "error", "kind": kind, "message": message}
    own = getattr(exc, "diagnostic", None)  # why, in the clerk's language (EngineError.diagnostic)
    if isinstance(own, Diagnostic):
        reply["diagnostic"] = own.to_dict()
    return reply


PARENT_POLL_S = 1.0
"""How often a worker checks that the app that started it is still there (seconds)."""


def _die_with_parent() -> None:
    """End this worker when the app that started it is gone (killed with SIGKILL, crashed, logged
    out), even while the engine is busy with a page: a daemon thread compares the parent's pid every
    :data:`PARENT_POLL_S` and exits the process when it changes (the orphan was re-parented). A worker
    whose engine holds the GIL in native code for long is only ended when it lets go; Linux's
    ``PR_SET_PDEATHSIG`` is not used because it fires when the *thread* that started the worker ends,
    and the app starts workers from short-lived threads (the spare worker)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(PARENT_POLL_S)

    threading.Thread(target=watch, name="shoebox-parent-watch", daemon=True).start()


def _worker_main(conn: Connection, spec: EngineSpec | None) -> None:
    """The worker's loop: create the engine, then answer calls until ``close`` or the pipe closes."""
    # Ctrl+C in a terminal reaches the whole process group; the parent decides when the worker stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by the parent while starting: see _launch
    _die_with_parent()
    from desktop.core import offline

    offline.enforce_offline_environment()

    # This process is the isolation intake would otherwise spawn for a page with an enormous image
    # (and a daemonic worker may not have children): render such pages here.
    from desktop.core.intake import pdf as intake_pdf

    intake_pdf._IN_RENDER_CHILD = True  # the flag lives where PDF pages are rendered

    engine: Engine | None = None
    ahead = _ReadAhead()
    try:
        notes: list[Any] = []
        if spec is not None:
            engine = spec.create(notes)
            engine.warm_up()
            info = engine.info()
            info.notes = list(dict.fromkeys([*notes, *info.notes]))
            conn.send({"status": "ok", "result": info.to_dict(), "rss": _rss_bytes()})
        else:
            conn.send({"status": "ok", "result": None, "rss": _rss_bytes()})
    except BaseException as exc:
        conn.send(_error_reply(exc))
        return
    while True:
        try:
            op, args = conn.recv()
        except (EOFError, OSError):
            break
        if op == "close":
            break
        image_out: np.ndarray | None = None
        try:
            if op in ("read_page", "read_upright", "read_fields", "run_task"):
                image = _recv_image(conn, args)
                if engine is None:
                    raise EngineError("this worker has no engine")
                if op == "read_page":
                    result: Any = engine.read_page(image)
                elif op == "read_upright":
                    result = engine.read_upright(image)
                elif op == "read_fields":
                    result = engine.read_fields(image, args["fields"], args["language"])
                else:
                    result = engine.run_task(image, args["task"], args["language"])
                del image
                result = result.to_dict() if hasattr(result, "to_dict") else result
            elif op == "count_pages":
                result = LOCAL_PAGES.count_pages(Path(args["path"]))
            elif op == "load_page":
                result = LOCAL_PAGES.load_page(Path(args["path"]), int(args["number"]), int(args["rotation"]))
            elif op == "render":
                image_out, scale = LOCAL_PAGES.render(args["page"], args["max_pixels"])
                result = {"scale": float(scale), **_image_meta(image_out)}
            elif op == "render_region":
                image_out = LOCAL_PAGES.render_region(args["page"], tuple(args["box"]), float(args["scale"]))
                result = {"scale": float(args["scale"]), **_image_meta(image_out)}
            elif op == "call":
                result = LOCAL_PAGES.call(str(args["function"]), *args["args"])
            elif op == "read_ahead":
                result = ahead.start(engine, Path(args["path"])) if engine is not None else None
            elif op == "collect":
                result = ahead.collect(str(args["key"])).to_dict()
            else:
                raise EngineError(f"unknown worker call {op!r}")
            reply = {"status": "ok", "result": result, "rss": _rss_bytes(), "image": image_out is not None}
        except BaseException as exc:  # reported to the parent as this call's error
            import traceback

            traceback.clear_frames(exc.__traceback__)  # free what the failed call held (a memory hog's blocks)
            reply = {**_error_reply(exc), "image": False}
            del exc
            reply["rss"] = _rss_bytes()
            image_out = None
        try:
            conn.send(reply)
            if image_out is not None:
                _send_image(conn, image_out)
        except (OSError, ValueError):
            break
        if reply.get("kind") == "memory":
            break  # after a MemoryError the heap cannot be trusted: end, the parent starts a fresh worker
    ahead.close()
    if engine is not None:
        try:
            engine.close()
        except Exception:
            pass


#: Pages read ahead at most at once in a worker (:meth:`WorkerEngine.read_ahead`): the page being read
#: and the next file's; the engine's detections take turns, so memory holds one detection's buffers.
READ_AHEAD_MAX = 2
#: Only pages rendered to at most this many pixels are read ahead. The detector's buffers take about
#: 175 MB per megapixel of its input (:data:`desktop.core.engines.ppocr_stages.STRIP_PIXELS`); with a
#: second page in flight (its images, crops and recogniser runs) a larger page would lift the worker's
#: peak over the 800 MB that a receipt batch must stay under (issue 11). Measured 2026-12-01 on 40
#: distinct receipt documents (loaded machine): worker peak 815 MiB read one at a time, 891-915 MiB
#: with every page read ahead; larger pages are read alone, as before.
READ_AHEAD_MAX_PIXELS = 2_000_000


def image_key(image: np.ndarray) -> str:
    """A digest of an image's pixels, shape and type: what names a page read ahead (BLAKE2b, 128 bits).

    The parent and the worker compute it on the same bytes (the worker renders, the parent receives the
    render), so a page the pipeline renders as the read-ahead did is recognised, and any other is not.
    """
    import hashlib

    import numpy as np

    digest = hashlib.blake2b(memoryview(np.ascontiguousarray(image)).cast("B"), digest_size=16)  # type: ignore[arg-type]
    return f"{digest.hexdigest()}:{'x'.join(map(str, image.shape))}:{image.dtype}"


class _AheadMissing(EngineError):
    """``collect`` of a page the worker does not hold (dropped, or never started): read it the usual way."""


class _ReadAhead:
    """The worker's pages read ahead (:meth:`WorkerEngine.read_ahead`): ``read_upright`` in background threads.

    Threading: :meth:`start` and :meth:`collect` are called from the worker's loop only; the reads run
    on up to :data:`READ_AHEAD_MAX` threads, beside whatever the loop does meanwhile (opening and
    rendering the current file's pages).
    """

    def __init__(self) -> None:
        from collections import OrderedDict

        self._pool: Any = None
        self._pending: OrderedDict[str, Any] = OrderedDict()

    def start(self, engine: Engine, path: Path) -> str | None:
        """Render the first page of ``path`` as the pipeline would (``load_page`` then ``render`` at the
        engine's pixel budget) and start reading it upright; its :func:`image_key`, or ``None`` when
        there is nothing to read ahead (an engine without :attr:`Capability.UPRIGHT`, a page with a text
        layer, a page over :data:`READ_AHEAD_MAX_PIXELS`, a file that cannot be opened: the pipeline meets
        and reports that itself)."""
        if Capability.UPRIGHT not in engine.capabilities:
            return None
        try:
            page = LOCAL_PAGES.load_page(path, 1)  # as the pipeline loads it through the worker
            if not page.needs_ocr or page.origin == "pdf_mixed":
                return None
            if page.width * page.height > READ_AHEAD_MAX_PIXELS:  # rendered at most as large: a large page
                return None
            image, _ = LOCAL_PAGES.render(page, engine.max_pixels)
        except Exception as exc:  # an unreadable file: its own scan says why
            log.debug("no read-ahead of %s: %s", path.name, exc)
            return None
        if image.shape[0] * image.shape[1] > READ_AHEAD_MAX_PIXELS:
            return None
        key = image_key(image)
        if key in self._pending:
            return key
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(READ_AHEAD_MAX, thread_name_prefix="read-ahead")
        while len(self._pending) >= READ_AHEAD_MAX:  # the oldest was never asked for: drop it
            _, stale = self._pending.popitem(last=False)
            stale.cancel()
        self._pending[key] = self._pool.submit(engine.read_upright, image)
        return key

    def collect(self, key: str) -> Any:
        """The reading started as ``key`` (waits for it; raises what the read raised).

        Raises:
            _AheadMissing: no such reading here.
        """
        future = self._pending.pop(key, None)
        if future is None:
            raise _AheadMissing("no page read ahead under this name")
        return future.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


#: How many of a dead worker's last non-empty stderr lines its error names, and how many characters of them.
STDERR_TAIL_LINES = 3
STDERR_TAIL_CHARS = 400


def _capture_stderr(path: str | None) -> None:
    """Send this worker's file descriptor 2 (Python's tracebacks, and what native libraries write before they
    call ``exit()`` or abort) to ``path``, a file the parent created (:meth:`WorkerEngine._launch`). Written
    straight to the file, nothing is lost when the process ends abruptly. A file that cannot be opened (the
    parent already gave up on this worker) leaves stderr as it is."""
    if not path:
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError:
        return
    try:
        os.dup2(fd, 2)
    finally:
        os.close(fd)


def _stderr_tail(proc: BaseProcess) -> str:
    """The last :data:`STDERR_TAIL_LINES` non-empty lines a worker wrote on stderr, joined with `` / ``
    and cut to :data:`STDERR_TAIL_CHARS` characters from the end (``""`` when it wrote nothing)."""
    text = _stderr_text(proc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()][-STDERR_TAIL_LINES:]
    tail = " / ".join(lines)
    return tail if len(tail) <= STDERR_TAIL_CHARS else "…" + tail[-STDERR_TAIL_CHARS:]


def _stderr_text(proc: BaseProcess, limit: int = 16_384) -> str:
    """At most the last ``limit`` bytes a worker wrote on stderr, decoded (``""`` when none or unreadable)."""
    path = getattr(proc, "stderr_path", None)
    if not path:
        return ""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _discard_stderr(proc: BaseProcess, *, crashed: bool = False) -> None:
    """Log what an ended worker wrote on stderr (as a warning when it ``crashed``) and remove the file."""
    path = getattr(proc, "stderr_path", None)
    if not path:
        return
    text = _stderr_text(proc).strip()
    if text:
        log.log(logging.WARNING if crashed else logging.INFO, "engine worker %s wrote on stderr:\n%s", proc.pid, text)
    proc.stderr_path = None  # type: ignore[attr-defined]
    try:
        os.unlink(path)
    except OSError:
        pass


def _worker_process(conn: Connection, spec: EngineSpec | None, stderr_path: str | None = None) -> None:
    """The worker process: :func:`_worker_main`, then an immediate exit (stderr to ``stderr_path``:
    :func:`_capture_stderr`).

    The worker holds nothing to save when its loop ends (the engine is closed, the pipe done with), and
    the interpreter's own shutdown -- tearing down onnxruntime, numpy, PyMuPDF and every other module --
    took 0.25-0.3 s that the parent waited for at every ``close`` (measured: ``WorkerEngine.close`` of a
    warm PP-OCR worker 0.25-0.31 s, with the exit 0.02-0.05 s).
    """
    import sys

    _capture_stderr(stderr_path)
    try:
        _worker_main(conn, spec)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
    os._exit(0)


# ------------------------------------------------------------------------------------------------
# The parent side
# ------------------------------------------------------------------------------------------------

#: How often the parent looks at the worker, the interrupt flag and the clock while waiting (seconds).
POLL_S = 0.05


@contextmanager
def _reader_failure() -> Iterator[None]:
    """Name a page host's worker dying or overrunning in the reader's language (the error's
    ``diagnostic``: :attr:`~desktop.core.diagnostics.Code.READER_STOPPED` with how it ended,
    ``READER_OVERRAN``), for callers that show it as the file's error (the viewer, a file that cannot
    be opened)."""
    try:
        yield
    except EngineCrashed as exc:
        exc.diagnostic = diag(Code.READER_STOPPED, detail=exc.detail or "?")
        raise
    except EngineTimedOut as exc:
        exc.diagnostic = diag(Code.READER_OVERRAN, seconds=round(exc.limit_s))
        raise


class _RemotePages(PageHost):
    """Pages opened and rendered in the worker (see :class:`PageHost`)."""

    def __init__(self, worker: WorkerEngine) -> None:
        self._worker = worker

    def count_pages(self, path: Path) -> int:
        with _reader_failure():
            return int(self._worker._call("count_pages", {"path": str(path)}, limit_s=self._worker.watchdog.file_s,
                                          doing="opening the file"))

    def open_pages(self, path: Path) -> Iterator[PageImage]:
        count = self.count_pages(path)  # raises for a file that cannot be opened, as intake.open_pages does
        return (self.load_page(path, n) for n in range(1, count + 1))

    def load_page(self, path: Path, number: int, rotation: int = 0) -> PageImage:
        with _reader_failure():
            return self._worker._call("load_page", {"path": str(path), "number": int(number), "rotation": int(rotation)},
                                      limit_s=self._worker.watchdog.file_s, doing=f"opening page {number}")

    def render(self, page: PageImage, max_pixels: int | None) -> tuple[np.ndarray, float]:
        from desktop.core import intake

        budget = intake.MAX_IMAGE_PIXELS if max_pixels is None else int(max_pixels)
        with _reader_failure():
            result, image = self._worker._call_image_out(
                "render", {"page": page, "max_pixels": max_pixels},
                limit_s=self._worker.watchdog.render_limit(budget), doing=f"rendering page {page.number}")
        return image, float(result["scale"])

    def render_region(self, page: PageImage, box: tuple[float, float, float, float], scale: float) -> np.ndarray:
        x0, y0, x1, y1 = box
        pixels = int((x1 - x0) * (y1 - y0) * scale * scale) + 1
        with _reader_failure():
            _result, image = self._worker._call_image_out(
                "render_region", {"page": page, "box": [float(v) for v in box], "scale": float(scale)},
                limit_s=self._worker.watchdog.render_limit(pixels), doing=f"rendering part of page {page.number}")
        return image

    def call(self, function: str, *args: Any, doing: str = "reading the file") -> Any:
        with _reader_failure():
            return self._worker._call("call", {"function": str(function), "args": list(args)},
                                      limit_s=self._worker.watchdog.file_s, doing=doing)


class WorkerEngine(Engine):
    """An engine running in a worker process (see the module docstring).

    Creating it is free: the worker starts on the first call (or :meth:`warm_up`) and stays warm.

    Args:
        spec: how the worker creates the engine; ``None`` for a worker that only opens and renders
            pages (the engine calls then fail with :class:`EngineError`).
        watchdog: time limits (see :class:`Watchdog`).
        rss_limit_mb: the worker is recycled between calls when its resident memory passes this many
            MiB; ``None``: :data:`DEFAULT_RSS_LIMIT_MB`, or twice the worker's memory after warm-up
            when that is more.
        spare: keep a second worker started and warm (see the module docstring), when the engine runs
            on the CPU in at most :data:`SPARE_MAX_MB`; it costs that much memory more, and is started
            after :meth:`warm_up` or after a call, never while one is in flight.

    Attributes:
        restarts: how many times a worker was started after the first (crashes, timeouts, recycling).
        replacements: how many of those were started ahead (a spare, or at once when a worker died).
        last_rss: the worker's resident memory after its last call, in bytes.
        warm_rss: the worker's resident memory once its engine was loaded and warmed up, in bytes.
        last_call_s: wall time of the last call as the parent saw it (the engine's own time is in the
            reading's ``seconds``; the difference is the cost of the process boundary).
    """

    def __init__(self, spec: EngineSpec | None, *, watchdog: Watchdog | None = None,
                 rss_limit_mb: float | None = None, spare: bool = False) -> None:
        self.spec = spec
        self.spare = bool(spare)
        self.replacements = 0
        self.warm_rss = 0
        self._next: tuple[BaseProcess, Connection] | None = None  # started ahead: a spare or a replacement
        self.watchdog = watchdog or Watchdog()
        self._rss_fixed = rss_limit_mb is not None
        self.rss_limit_bytes = int((DEFAULT_RSS_LIMIT_MB if rss_limit_mb is None else rss_limit_mb) * 2**20)
        self.restarts = 0
        self.last_rss = 0
        self.last_call_s = 0.0
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._info: EngineInfo | None = None
        self._started_once = False
        self._recycle = False
        self._lock = threading.RLock()
        self._interrupt_at: float | None = None
        self._start_error: EngineUnavailable | None = None
        self._pages = _RemotePages(self)
        self._ahead: dict[str, None] = {}  # image keys of the pages the worker is reading ahead (in order)
        self.read_ahead_hits = 0

    # -- what the engine is (known once the worker has started) -----------------------------------
    def _described(self) -> EngineInfo:
        if self._info is None:
            self._start()
        assert self._info is not None
        return self._info

    @property
    def name(self) -> str:  # type: ignore[override]
        return self._info.name if self._info is not None else "worker"

    @property
    def version(self) -> str:  # type: ignore[override]
        return self._described().version

    @property
    def device(self) -> str:  # type: ignore[override]
        return self._described().device

    @property
    def languages(self) -> tuple[str, ...]:  # type: ignore[override]
        return self._described().languages

    @property
    def max_pixels(self) -> int:  # type: ignore[override]
        return self._described().max_pixels

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        return self._described().capabilities

    @property
    def turns_tall_lines_ccw(self) -> bool:  # type: ignore[override]
        return self._described().turns_tall_lines_ccw

    @property
    def seconds_per_megapixel(self) -> float:  # type: ignore[override]
        return self._described().seconds_per_megapixel

    @property
    def load_notes(self) -> list[Diagnostic]:  # type: ignore[override]
        return list(self._info.notes) if self._info is not None else []

    def describe(self) -> str:
        if self._info is None:
            return f"{self.spec.label if self.spec else 'page worker'} (not started)"
        return self._info.description

    def info(self) -> EngineInfo:
        return self._described()

    def page_host(self) -> PageHost:
        return self._pages

    @property
    def pid(self) -> int | None:
        """The worker's process id (``None`` when no worker runs)."""
        return self._proc.pid if self._proc is not None and self._proc.is_alive() else None

    @property
    def next_ready(self) -> bool:
        """Whether the worker started ahead has loaded its engine (its start reply is waiting)."""
        ahead = self._next
        try:
            return ahead is not None and ahead[0].is_alive() and ahead[1].poll()
        except (OSError, ValueError):
            return False

    @property
    def next_pid(self) -> int | None:
        """The process id of the worker started ahead (a spare, or the replacement of a dead one), if any."""
        ahead = self._next
        return ahead[0].pid if ahead is not None and ahead[0].is_alive() else None

    # -- lifecycle -------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Start the worker and load the engine in it (raises what loading raised: EngineUnavailable, ...)."""
        with self._lock:
            if self._proc is None:
                self._start()
            self._keep_spare()

    def close(self) -> None:
        """Stop the worker (politely, then by force after a second) and the one started ahead."""
        with self._lock:
            self._stop(graceful=True)
            self._drop_next()

    def interrupt(self, grace_s: float = 0.0) -> None:
        """Stop the call in flight (thread-safe): at once, or after ``grace_s`` seconds if it is still running.

        The interrupt stays in force (every call raises :class:`EngineInterrupted`) until
        :meth:`clear_interrupt`, so that the rest of a cancelled page does not start the worker again.
        """
        self._interrupt_at = time.monotonic() + max(0.0, float(grace_s))

    def clear_interrupt(self) -> None:
        """Allow calls again after :meth:`interrupt` (the next job starts)."""
        self._interrupt_at = None

    @property
    def interrupted(self) -> bool:
        at = self._interrupt_at
        return at is not None and time.monotonic() >= at

    def _start(self) -> None:
        with self._lock:
            if self.interrupted:
                raise EngineInterrupted("stopped on request")
            if self._start_error is not None:  # the engine cannot load here: say so again, start nothing
                raise self._start_error
            self._stop(graceful=False)
            t0 = time.perf_counter()
            ahead, self._next = self._next, None
            if ahead is not None and not ahead[0].is_alive():  # it died waiting: start afresh
                self._kill(*ahead)
                ahead = None
            proc, parent = ahead or self._launch()
            self._proc, self._conn = proc, parent
            if self._started_once:
                self.restarts += 1
            self._started_once = True
            try:
                reply = self._wait(self.watchdog.start_s, "starting the engine")
            except EngineError:
                self._stop(graceful=False)
                raise
            if reply["status"] != "ok":
                self._stop(graceful=False)
                error = self._as_exception(reply, "starting the engine")
                if isinstance(error, EngineUnavailable):
                    self._start_error = error
                raise error
            self.last_rss = self.warm_rss = int(reply.get("rss", 0))
            if not self._rss_fixed:
                self.rss_limit_bytes = max(DEFAULT_RSS_LIMIT_MB * 2**20, 2 * self.last_rss)
            if reply["result"] is not None:
                self._info = EngineInfo.from_dict(reply["result"])
            elif self._info is None:
                self._info = EngineInfo(name="pages", version="0", description="page worker")
            log.info("engine worker %s %s in %.2f s (%s)", proc.pid, "taken over" if ahead else "started",
                     time.perf_counter() - t0, self._info.description)

    def _launch(self) -> tuple[BaseProcess, Connection]:
        """Start a worker process (it loads the engine and then sends its start reply)."""
        parent, child = self._ctx.Pipe(duplex=True)
        fd, stderr_path = tempfile.mkstemp(prefix="shoebox-worker-", suffix=".stderr")  # its last words
        os.close(fd)
        proc = self._ctx.Process(target=_worker_process, args=(child, self.spec, stderr_path), name="shoebox-engine",
                                 daemon=True)
        proc.stderr_path = stderr_path  # type: ignore[attr-defined]
        # Ctrl+C in a terminal reaches the whole process group, a worker still starting included: blocked
        # here, the signal stays blocked in the new process (fork and exec keep the mask) until the worker
        # ignores it (_worker_main), instead of interrupting its interpreter's start ("Fatal Python error:
        # init_sys_streams"). This thread's mask only: the signal still reaches this process's main thread.
        blocked = hasattr(signal, "pthread_sigmask")
        if blocked:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            proc.start()
        except BaseException:
            _discard_stderr(proc)
            raise
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        child.close()
        return proc, parent

    def _start_ahead(self) -> None:
        """Start the next worker now, in the background (its reply is read when it takes over)."""
        if self._next is None and not self.interrupted and self._start_error is None and self._info is not None:
            self._next = self._launch()
            self.replacements += 1

    def _keep_spare(self) -> None:
        """Start a spare when asked for one and the engine is small (between calls, never during one)."""
        info = self._info
        if (self.spare and self._proc is not None and info is not None and info.device == "cpu"
                and 0 < self.warm_rss <= SPARE_MAX_MB * 2**20):
            self._start_ahead()

    def _drop_next(self) -> None:
        ahead, self._next = self._next, None
        if ahead is not None:
            self._kill(*ahead)

    @staticmethod
    def _kill(proc: BaseProcess, conn: Connection) -> None:
        if proc.is_alive():
            proc.kill()
            proc.join(2.0)
        conn.close()
        _discard_stderr(proc)

    def _stop(self, *, graceful: bool) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        self._ahead.clear()  # what it was reading ahead goes with it
        self._recycle = False
        if proc is None:
            return
        if graceful and conn is not None and proc.is_alive():
            try:
                conn.send(("close", {}))
            except (OSError, ValueError):
                pass
            proc.join(1.0)
        if proc.is_alive():
            proc.kill()
            proc.join(2.0)
        if conn is not None:
            conn.close()
        _discard_stderr(proc)

    # -- calls -----------------------------------------------------------------------------------
    def _wait(self, limit_s: float, doing: str) -> dict[str, Any]:
        """The worker's reply, or the named error of a dead, overrunning or interrupted worker."""
        proc, conn = self._proc, self._conn
        assert proc is not None and conn is not None
        deadline = time.monotonic() + limit_s
        while True:
            if self.interrupted:
                self._stop(graceful=False)
                raise EngineInterrupted(f"stopped on request while {doing}")
            now = time.monotonic()
            if now >= deadline:
                self._stop(graceful=False)
                raise EngineTimedOut(f"{doing} took longer than {limit_s:.0f} s and was stopped", limit_s=limit_s)
            ready = wait([conn, proc.sentinel], timeout=min(POLL_S, deadline - now))
            if conn in ready:
                try:
                    return conn.recv()
                except (EOFError, OSError):
                    pass  # the worker died mid-answer: fall through to the crash
            elif not ready:
                continue
            proc.join(1.0)
            code = proc.exitcode
            detail = describe_exit(code)
            tail = _stderr_tail(proc)  # the cause, for IT: a library's last words before it exited
            if tail:
                detail = diag(Code.WORKER_LAST_WORDS, how=detail, problem=tail)
                _discard_stderr(proc, crashed=True)
            self._stop(graceful=False)
            raise EngineCrashed(f"the worker process stopped unexpectedly while {doing} ({detail})", exitcode=code,
                                detail=detail)

    def _as_exception(self, reply: dict[str, Any], doing: str) -> BaseException:
        kind = reply.get("kind")
        if kind == "intake":
            from desktop.core import intake

            cls = getattr(intake, str(reply.get("cls")), intake.IntakeError)
            if not (isinstance(cls, type) and issubclass(cls, intake.IntakeError)):
                cls = intake.IntakeError
            return cls(reply["path"], reply["reason"])
        message = str(reply.get("message", "unknown error"))
        if kind == "memory":
            return MemoryError(message)
        error = (_AheadMissing(message) if kind == "ahead_missing" else
                 EngineUnavailable(message) if kind == "unavailable" else
                 MalformedOutput(message) if kind == "malformed" else EngineError(message))
        if isinstance(reply.get("diagnostic"), dict):  # the worker's diagnostic, rendered here in the UI's language
            error.diagnostic = Diagnostic.from_dict(reply["diagnostic"])
        return error

    def _send(self, op: str, args: dict[str, Any], image: np.ndarray | None, limit_s: float, doing: str, *,
              retry: bool = True) -> dict[str, Any]:
        """Send one call and return the worker's reply.

        When the worker dies or overruns during a call while it was also reading pages ahead
        (:meth:`read_ahead`), the failure may be theirs: the call is made once more, alone, on the fresh
        worker (every call is a read, so doing it twice changes nothing), and only a second failure is
        its own.
        """
        with self._lock:
            if self.interrupted:
                raise EngineInterrupted(f"stopped on request before {doing}")
            if self._recycle and self._proc is not None:
                log.info("engine worker uses %.0f MiB, over the %.0f MiB limit: starting a fresh one",
                         self.last_rss / 2**20, self.rss_limit_bytes / 2**20)
                self._stop(graceful=True)
            if self._proc is None or not self._proc.is_alive():
                self._start()
            assert self._conn is not None
            t0 = time.perf_counter()
            background = bool(self._ahead) and op != "collect"  # pages read ahead share the worker meanwhile
            try:
                self._conn.send((op, args))
                if image is not None:
                    _send_image(self._conn, image)
            except (OSError, ValueError):
                pass  # the worker is gone: _wait names how it ended
            try:
                reply = self._wait(limit_s, doing)
            except (EngineCrashed, EngineTimedOut) as exc:
                self._start_ahead()  # the replacement loads while the caller handles the failed page
                if background and retry:
                    log.info("the engine worker stopped while %s with pages read ahead (%s): once more, alone", doing, exc)
                    return self._send(op, args, image, limit_s, doing, retry=False)
                raise
            self.last_call_s = time.perf_counter() - t0
            self.last_rss = int(reply.get("rss", 0) or 0)
            if self.rss_limit_bytes and self.last_rss > self.rss_limit_bytes:
                self._recycle = True
            if reply["status"] != "ok":
                if reply.get("kind") == "memory":
                    self._stop(graceful=False)  # it is ending itself; start a fresh one next time
                    self._start_ahead()
                else:
                    self._keep_spare()
                raise self._as_exception(reply, doing)
            self._keep_spare()
            return reply

    def _call(self, op: str, args: dict[str, Any], *, image: np.ndarray | None = None, limit_s: float,
              doing: str) -> Any:
        return self._send(op, args, image, limit_s, doing)["result"]

    def _call_image_out(self, op: str, args: dict[str, Any], *, limit_s: float, doing: str) -> tuple[Any, np.ndarray]:
        with self._lock:
            reply = self._send(op, args, None, limit_s, doing)
            assert self._conn is not None
            try:
                image = _recv_image(self._conn, reply["result"])
            except (EOFError, OSError, MalformedOutput) as exc:
                self._stop(graceful=False)
                self._start_ahead()
                raise EngineCrashed(f"the worker process stopped unexpectedly while {doing}",
                                    detail=diag(Code.WORKER_ANSWER_LOST, detail=str(exc) or type(exc).__name__)) from exc
            return reply["result"], image

    def _page_limit(self, image: np.ndarray) -> float:
        pixels = int(image.shape[0]) * int(image.shape[1])
        return self.watchdog.page_limit(pixels, self.seconds_per_megapixel)

    # -- the Engine contract ----------------------------------------------------------------------
    def read_page(self, image: np.ndarray) -> PageReading:
        import numpy as np

        image = np.ascontiguousarray(image)
        result = self._call("read_page", _image_meta(image), image=image, limit_s=self._page_limit(image),
                            doing="reading the page")
        return check_page_reading(PageReading.from_dict(result), int(image.shape[1]), int(image.shape[0]))

    def read_upright(self, image: np.ndarray) -> Reading:
        """The worker engine's :meth:`~desktop.core.engines.base.Engine.read_upright` (one call, one read).

        A page the worker is reading ahead (:meth:`read_ahead`: the same pixels) is collected instead of
        being sent again. If the worker dies or overruns while it had that page and another in flight,
        which of the two broke it is not known: this page is then read again, alone, on the fresh worker,
        so that a failure is charged to the page that causes it.

        Raises:
            EngineError: the engine has no :attr:`Capability.UPRIGHT` (refused here, nothing is sent),
                or failed; EngineCrashed, EngineTimedOut, MalformedOutput as :meth:`read_page`.
        """
        if Capability.UPRIGHT not in self.capabilities:
            raise EngineError(f"engine {self.name} cannot turn pages upright itself")
        import numpy as np

        image = np.ascontiguousarray(image)
        with self._lock:
            key = image_key(image) if self._ahead else None
            if key is not None and key in self._ahead:
                others = len(self._ahead) > 1
                del self._ahead[key]
                try:
                    # Two pages share the worker meanwhile: twice one page's time.
                    result = self._call("collect", {"key": key}, limit_s=READ_AHEAD_MAX * self._page_limit(image),
                                        doing="reading the page")
                    self.read_ahead_hits += 1
                    return check_reading(Reading.from_dict(result), int(image.shape[1]), int(image.shape[0]))
                except _AheadMissing:
                    pass
                except (EngineCrashed, EngineTimedOut) as exc:
                    if not others:
                        raise
                    log.info("the engine worker stopped with two pages in flight (%s): reading this one again alone", exc)
            result = self._call("read_upright", _image_meta(image), image=image, limit_s=self._page_limit(image),
                                doing="reading the page")
        return check_reading(Reading.from_dict(result), int(image.shape[1]), int(image.shape[0]))

    def read_ahead(self, path: str | Path) -> bool:
        """Start reading the first page of ``path`` in the worker now, beside the page being read.

        The worker renders that page as the pipeline will (:meth:`page_host`'s ``render`` at
        :attr:`max_pixels`) and reads it upright on its own threads, while the calls for the current file
        go on (for PP-OCR: its detection while the current page is recognised, so that both cores work
        all the time; detections take turns, so memory holds one page's detector buffers). When the
        pipeline then calls :meth:`read_upright` on the same pixels, the reading is collected instead of
        made again; a page the pipeline reads otherwise (another budget, no upright read) is never
        collected and is dropped. At most :data:`READ_AHEAD_MAX` pages are in flight.

        Returns:
            Whether the page is being read ahead (``False``: an engine without
            :attr:`Capability.UPRIGHT`, a page with a text layer, a file that cannot be opened, or the
            worker failing on it: the file's own scan then meets the problem and reports it).

        Raises:
            EngineInterrupted: stopped on request.
        """
        with self._lock:
            if self.interrupted or self._start_error is not None or len(self._ahead) >= READ_AHEAD_MAX:
                return False
            try:
                if Capability.UPRIGHT not in self.capabilities:
                    return False
                key = self._call("read_ahead", {"path": str(path)}, limit_s=self.watchdog.file_s,
                                 doing="opening the next file")
            except EngineInterrupted:
                raise
            except (EngineError, MemoryError) as exc:  # the worker stopped on the next file: its scan will say so
                log.debug("no read-ahead of %s: %s", Path(path).name, exc)
                return False
            if not key:
                return False
            self._ahead[str(key)] = None
            return True

    def read_fields(self, image: np.ndarray, fields: Sequence[FieldSpec], language: str = "en") -> FieldReading:
        import numpy as np

        image = np.ascontiguousarray(image)
        specs = list(fields)
        result = self._call("read_fields", {**_image_meta(image), "fields": specs, "language": language}, image=image,
                            limit_s=self._page_limit(image), doing="reading the fields")
        return FieldReading.from_dict(result, requested=[s.name for s in specs])

    def run_task(self, image: np.ndarray, task: str, language: str = "en") -> TaskReading:
        import numpy as np

        image = np.ascontiguousarray(image)
        result = self._call("run_task", {**_image_meta(image), "task": task, "language": language}, image=image,
                            limit_s=self._page_limit(image), doing=f"running {task}")
        return TaskReading.from_dict(result)

    def __del__(self) -> None:
        try:
            self._stop(graceful=False)
            self._drop_next()
        except Exception:
            pass


def worker_pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (for tests and diagnostics)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PagesInWorker(Engine):
    """An engine that runs in this process, with its files opened and rendered in a page-only worker.

    For the office-server engine (:class:`~desktop.core.engines.server.ServerEngine`: it only talks HTTP,
    reports its connection state to the status bar and reads from several threads, so it stays here),
    and for whatever engine it falls back to: the PDFs, images and e-invoice data of its pages are still
    untrusted input for MuPDF, Pillow and lxml, so they go to a worker (:meth:`page_host`) and a native
    crash there costs one document. Everything else is the wrapped engine's: the contract's calls and
    attributes, and any other attribute (``concurrency``, ``connection_problem``, ...) read through.

    Args:
        engine: the engine to run here.
        pages: the page worker (default: a page-only :class:`WorkerEngine`, started with the first file);
            closed with this engine.
    """

    def __init__(self, engine: Engine, *, pages: WorkerEngine | None = None) -> None:
        self.engine = engine
        self.pages = pages if pages is not None else WorkerEngine(None)

    def __getattr__(self, name: str) -> Any:  # only for attributes this class does not have
        if name in ("engine", "pages"):
            raise AttributeError(name)
        return getattr(self.engine, name)

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.engine.name

    @property
    def version(self) -> str:  # type: ignore[override]
        return self.engine.version

    @property
    def device(self) -> str:  # type: ignore[override]
        return self.engine.device

    @property
    def languages(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.engine.languages

    @property
    def max_pixels(self) -> int:  # type: ignore[override]
        return self.engine.max_pixels

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        return self.engine.capabilities

    @property
    def turns_tall_lines_ccw(self) -> bool:  # type: ignore[override]
        return self.engine.turns_tall_lines_ccw

    @property
    def seconds_per_megapixel(self) -> float:  # type: ignore[override]
        return self.engine.seconds_per_megapixel

    @property
    def load_notes(self) -> Sequence[Diagnostic | str]:  # type: ignore[override]
        return self.engine.load_notes

    def read_page(self, image: np.ndarray) -> PageReading:
        return self.engine.read_page(image)

    def read_upright(self, image: np.ndarray) -> Reading:
        return self.engine.read_upright(image)

    def read_fields(self, image: np.ndarray, fields: Sequence[FieldSpec], language: str = "en") -> FieldReading:
        return self.engine.read_fields(image, fields, language)

    def run_task(self, image: np.ndarray, task: str, language: str = "en") -> TaskReading:
        return self.engine.run_task(image, task, language)

    def warm_up(self) -> None:
        self.engine.warm_up()  # the page worker starts with the first file

    def close(self) -> None:
        try:
            self.engine.close()
        finally:
            self.pages.close()

    def interrupt(self, grace_s: float = 0.0) -> None:
        self.engine.interrupt(grace_s)
        self.pages.interrupt(grace_s)

    def clear_interrupt(self) -> None:
        self.engine.clear_interrupt()
        self.pages.clear_interrupt()

    def describe(self) -> str:
        return self.engine.describe()

    def info(self) -> EngineInfo:
        return self.engine.info()

    def page_host(self) -> PageHost:
        return self.pages.page_host()


def page_host(engine: Engine) -> PageHost:
    """Where the pages ``engine`` reads are opened and rendered (see :class:`~desktop.core.isolation.pages.PageHost`).

    Returns:
        The worker's host for an engine in a worker process (:class:`WorkerEngine`) or beside a page
        worker (:class:`PagesInWorker`); :data:`~desktop.core.isolation.pages.LOCAL_PAGES` (this
        process) for any other engine.
    """
    if isinstance(engine, (WorkerEngine, PagesInWorker)):
        return engine.page_host()
    return LOCAL_PAGES
