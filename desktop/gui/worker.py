"""Background work: reading files with the OCR engine, and loading page images, off the GUI thread.

Both workers are ``QObject``s moved to their own ``QThread``; the window talks to them only through
queued signals and they never touch a widget. Every exception inside a job is caught and sent back
as an ``error`` signal naming the file, so a failure shows up on its document instead of vanishing.

Cancelling uses a generation counter: every job carries the generation it was queued in, and
:meth:`ReadWorker.cancel` bumps the worker's generation from the GUI thread (a plain ``int``
assignment, atomic under the GIL). Jobs of an older generation are skipped, and the one being read
stops after its current page (``scan_file``'s ``cancel`` callback is polled between pages) or, when
the page is still being read :data:`CANCEL_GRACE_S` later, the engine's worker process is stopped
(``Engine.interrupt``). :meth:`ReadWorker.stop_now` (the window closing) stops it at once.
"""
from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot
from PySide6.QtGui import QImage

from desktop.core.diagnostics import Code, Diagnostic, as_diagnostic, diag
from desktop.core.engines.base import EngineInterrupted
from desktop.core.model import Document

log = logging.getLogger(__name__)

#: Cancel lets the page in flight finish for this long before the engine's worker process is stopped
#: (PP-OCR reads a receipt in 1-2 s; a longer page is abandoned rather than making the clerk wait).
CANCEL_GRACE_S = 3.0

EngineFactory = Callable[[list[Diagnostic]], Any]
"""Creates the engine (in the worker thread): ``factory(notes) -> Engine``; may append notes."""


def default_engine_factory(engine: str, model_dir: str) -> EngineFactory:
    """The factory used by the app: :func:`desktop.core.engines.create_engine` with the user's settings."""

    def factory(notes: list[Diagnostic]) -> Any:
        from desktop.core.isolation import create_isolated_engine

        # The office-server engine runs here (HTTP, its connection state on the status bar) with its files
        # opened in a page worker; any other in a worker process, with a spare kept warm so that after a
        # crash the next page is read at once, not after a restart.
        return create_isolated_engine(engine, model_dir or None, notes=notes, spare=True)

    return factory


def qimage_from_array(array: np.ndarray) -> QImage:
    """Copy an ``(H, W, 3)`` uint8 RGB array into a ``QImage`` (safe to send across threads).

    The image is converted here (in the calling worker thread) to ``Format_RGB32``, the raster
    engine's native pixmap format, so that ``QPixmap.fromImage`` in the GUI thread is a cheap copy
    rather than a per-pixel conversion (80 ms for a 12 Mpx page, enough to stutter the window).
    """
    array = np.ascontiguousarray(array[:, :, :3], dtype=np.uint8)
    h, w = array.shape[:2]
    return QImage(array.data, w, h, 3 * w, QImage.Format.Format_RGB888).convertToFormat(QImage.Format.Format_RGB32)


class ReadWorker(QObject):
    """Reads files with one engine, created and warmed up once in the worker thread and reused.

    Signals:
        engine_state(state, text): ``loading`` (text: the engine's short name, or "" before it is
            known), ``ready`` (text: ``engine.describe()``) or ``failed`` (text: the message).
        started(entry_id): reading of an entry began.
        progress(entry_id, page, pages, message): before each page.
        document_ready(entry_id, documents): ``list[Document]`` read from the entry's file.
        reread_ready(entry_id, document): the document after a page was rotated and read again.
        engine_capabilities(names): ``list[str]`` of the engine's ``capabilities`` (``fields``,
            ``markdown``, ``table``, ``translate``): sent when it is ready, ``[]`` while loading or failed.
        task_ready(entry_id, task, document): the document with an extra task's output
            (``pipeline.run_task``).
        task_failed(entry_id, task, message): the task failed; the document stays as it was.
        error(entry_id, problem): the job failed; ``problem`` is a :class:`~desktop.core.diagnostics.Diagnostic`
            (the entry names the file).
        cancelled(entry_id): the job was cancelled before it finished.
        finished(entry_id): the job is over (after exactly one of the four above).
    """

    engine_state = Signal(str, str)
    started = Signal(int)
    progress = Signal(int, int, int, str)
    document_ready = Signal(int, object)
    reread_ready = Signal(int, object)
    engine_capabilities = Signal(object)
    task_ready = Signal(int, str, object)
    task_failed = Signal(int, str, str)
    error = Signal(int, object)
    cancelled = Signal(int)
    finished = Signal(int)

    def __init__(self, engine_factory: EngineFactory) -> None:
        super().__init__()
        self._factory = engine_factory
        self._engine: Any = None
        self._starting: Any = None  # the engine being warmed up (so that stop_now reaches it)
        self._engine_error: Diagnostic | None = None  # why the engine could not start (each job fails with it)
        self.generation = 0
        self.notes: list[Diagnostic] = []
        self.slow_warning = ""  # the ready engine's warning for the status bar (HunyuanOCR on the CPU)
        self.language = "en"  # the UI language the messages it sends are worded in (the window sets it)
        self.engine_name = ""  # the engine's ``name`` and ``device`` once created (the status bar's words)
        self.engine_device = ""

    # -- engine ------------------------------------------------------------------------------------
    def cancel(self, grace_s: float | None = None) -> None:
        """Called from the GUI thread: skip every queued job; the current one stops after its page, or
        its engine's worker is stopped if the page is still being read ``grace_s`` seconds later
        (default :data:`CANCEL_GRACE_S`)."""
        self.generation += 1
        engine = self._engine  # not one still loading: the next job would only have to load it again
        if engine is not None:
            engine.interrupt(CANCEL_GRACE_S if grace_s is None else grace_s)

    def stop_now(self) -> None:
        """Called from the GUI thread when the window closes: stop the page in flight (or the engine
        still loading) at once."""
        self.cancel(0.0)
        starting = self._starting
        if starting is not None:
            starting.interrupt(0.0)

    def set_engine_factory(self, factory: EngineFactory) -> None:
        """Called from the GUI thread (settings changed): the next job creates a new engine."""
        self._factory = factory
        self._engine_error = None
        self._pending_close = self._engine
        self._engine = None

    def _ensure_engine(self) -> Any:
        old = getattr(self, "_pending_close", None)
        if old is not None:
            self._pending_close = None
            try:
                old.close()
            except Exception:
                log.exception("closing the previous engine failed")
        if self._engine is not None:
            return self._engine
        if self._engine_error is not None:
            raise _EngineNotStarted(self._engine_error)
        self.engine_state.emit("loading", "")
        self.engine_capabilities.emit([])
        try:
            notes: list[Diagnostic] = []
            engine = self._factory(notes)
            self.notes = [as_diagnostic(n) for n in notes]
            self.engine_name, self.engine_device = _name_and_device(engine)
            self.engine_state.emit("loading", _short_name(engine))
            self._starting = engine
            engine.clear_interrupt()
            try:
                engine.warm_up()
            finally:
                self._starting = None
        except EngineInterrupted:  # the window is closing: not an engine failure
            self.engine_state.emit("loading", "")
            raise _pipeline().Cancelled() from None
        except Exception as exc:  # reported to the user in the status bar and per document
            self._engine_error = diag(Code.ENGINE_UNAVAILABLE, detail=_diagnostic(exc))
            log.exception("engine start failed")
            self.engine_state.emit("failed", self.tr("The OCR engine could not start: %1").replace(
                "%1", _diagnostic(exc).message(self.language)))
            raise _EngineNotStarted(self._engine_error) from exc
        for note in engine.load_notes:  # e.g. HunyuanOCR: "running on the CPU"; why auto chose PP-OCR
            if as_diagnostic(note) not in self.notes:
                self.notes.append(as_diagnostic(note))
        self.slow_warning = slow_engine_warning(engine)
        self.engine_name, self.engine_device = _name_and_device(engine)
        self._engine = engine
        self.engine_state.emit("ready", engine.describe())
        self.engine_capabilities.emit(sorted(str(c) for c in engine.capabilities))
        return engine

    @Slot()
    def warm_up(self) -> None:
        """Create and warm up the engine now (queued right after the window shows)."""
        try:
            self._ensure_engine()
        except Exception:
            pass

    @Slot()
    def shutdown(self) -> None:
        """Release the engine and stop the thread's event loop (queued after the jobs in flight)."""
        for engine in (self._engine, getattr(self, "_pending_close", None)):
            if engine is not None:
                try:
                    engine.close()
                except Exception:
                    log.exception("closing the engine failed")
        self._engine = None
        QThread.currentThread().quit()

    # -- jobs --------------------------------------------------------------------------------------
    def _cancellable_job(self, entry_id: int, generation: int, run: Any, deliver: Any, fail: Any) -> None:
        """The shape every cancellable job shares: skip it if cancelled before it starts, report
        started/finished, let ``run(engine, cancel, progress)`` do the work, then ``deliver(result)``;
        a ``Cancelled`` (raised, or a cancel that arrived during the last page) emits ``cancelled`` and
        any other exception becomes ``fail(exc)``: a message on the document, never a silent stop."""
        if generation < self.generation:
            self.cancelled.emit(entry_id)
            self.finished.emit(entry_id)
            return
        self.started.emit(entry_id)
        try:
            engine = self._ensure_engine()
            engine.clear_interrupt()

            def on_progress(p: Any) -> None:
                self.progress.emit(entry_id, int(p.page), int(p.pages), str(p.message))

            try:
                result = run(engine, lambda: generation < self.generation, on_progress)
            finally:
                self._report_connection(engine)
            if generation < self.generation:
                raise _pipeline().Cancelled()
            deliver(result)
        except Exception as exc:  # every failure becomes a message on this document
            if type(exc).__name__ == "Cancelled":
                self.cancelled.emit(entry_id)
            else:
                fail(exc)
        finally:
            self.finished.emit(entry_id)

    def _report_connection(self, engine: Any) -> None:
        """The office-server engine: say in the engine state (status bar) when the server stops or starts
        answering (``engine.connection_problem``); other engines have no such attribute."""
        problem = getattr(engine, "connection_problem", None)
        if problem == getattr(self, "_connection_problem", None):
            return
        self._connection_problem = problem
        if problem:
            why = problem.message(self.language) if hasattr(problem, "message") else str(problem)
            self.engine_state.emit("failed", self.tr("Office server not reachable: %1").replace("%1", why))
        else:
            self.engine_state.emit("ready", engine.describe())

    @Slot(int, str, object, int)
    def scan(self, entry_id: int, path: str, options: Any, generation: int) -> None:
        """Read one file (``pipeline.scan_file``) and emit its documents."""
        self._cancellable_job(
            entry_id, generation,
            lambda engine, cancel, progress: _pipeline().scan_file(
                Path(path), engine, options, cancel=cancel, progress=progress),
            lambda docs: self.document_ready.emit(entry_id, list(docs)),
            lambda exc: self.error.emit(entry_id, _diagnostic(exc)),
        )

    @Slot(int, object, int, int, object)
    def reread(self, entry_id: int, document: Document, page: int, rotation: int, options: Any) -> None:
        """Turn one page to ``rotation`` (clockwise degrees) and read it again (``pipeline.reread_page``)."""
        self.started.emit(entry_id)
        try:
            engine = self._ensure_engine()
            engine.clear_interrupt()
            self.progress.emit(entry_id, page, 1, self.tr("Reading page %1 again").replace("%1", str(page)))
            doc = _pipeline().reread_page(document, page, rotation, engine, options)
            self.reread_ready.emit(entry_id, doc)
        except Exception as exc:
            self.error.emit(entry_id, _diagnostic(exc))
        finally:
            self.finished.emit(entry_id)

    @Slot(int, object, str, int)
    def run_task(self, entry_id: int, document: Document, task: str, generation: int) -> None:
        """Run an extra task (``markdown``, ``table``, ``translate_en``, ``translate_zh``) on every page
        of ``document`` (``pipeline.run_task``) and emit the document with its output."""
        self._cancellable_job(
            entry_id, generation,
            lambda engine, cancel, progress: _pipeline().run_task(
                document, task, engine, cancel=cancel, progress=progress),
            lambda doc: self.task_ready.emit(entry_id, task, doc),
            lambda exc: self.task_failed.emit(entry_id, task, _diagnostic(exc).message(self.language)),
        )

def slow_engine_warning(engine: Any) -> str:
    """The clerk's warning when ``engine`` is HunyuanOCR running on the CPU (minutes per page), else "".

    ``engine.device`` is read only for HunyuanOCR (after ``warm_up``, so torch is already loaded).
    """
    if getattr(engine, "name", "") != "hunyuan":
        return ""
    try:
        device = str(engine.device)
    except Exception:  # a device that cannot be told is not worth a warning
        return ""
    if not device.startswith("cpu"):
        return ""
    return QCoreApplication.translate("ReadWorker", "HunyuanOCR is running on the CPU: expect minutes per page. "
                                      "Choose PP-OCR in Settings for fast reading on this computer.")


class _EngineNotStarted(RuntimeError):
    """The engine could not start; ``diagnostic`` says why (a document's error, in any language)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message())
        self.diagnostic = diagnostic


def _name_and_device(engine: Any) -> tuple[str, str]:
    """``(engine.name, engine.device)`` as strings; ``("", "")`` parts that cannot be told yet."""
    name = str(getattr(engine, "name", "") or "")
    if name == "hunyuan" and "torch" not in sys.modules:
        return name, ""  # its device is decided by torch, which loads during warm_up
    try:
        device = str(getattr(engine, "device", "") or "")
    except Exception:  # a worker engine not started yet
        device = ""
    return name, device


def _short_name(engine: Any) -> str:
    text = engine.describe()
    return text.split(" (")[0] if text else engine.name


def _pipeline() -> Any:
    """``desktop.core.pipeline``, imported on first use (inside a job, so a failure is a message)."""
    from desktop.core import pipeline

    return pipeline


def _diagnostic(exc: BaseException) -> Diagnostic:
    """Why a job failed: the exception's own diagnostic (intake errors carry one), else its text."""
    log.debug("job failed: %s", "".join(traceback.format_exception(exc)))
    own = getattr(exc, "diagnostic", None)
    if isinstance(own, Diagnostic):
        return own
    return diag(Code.EXCEPTION, detail=str(exc) or type(exc).__name__)


#: Formats the viewer decodes in the window's process (Pillow); every other file goes to the page worker.
IMAGE_FORMATS = frozenset({"jpeg", "png", "tiff", "bmp", "webp", "heif"})


class ImageLoader(QObject):
    """Loads page images (``load_page(...)`` then ``render(max_pixels)``) in its own thread.

    PDF pages, OFD packages and XML invoices (anything not an image by its first bytes,
    :func:`desktop.core.intake.magic_format`) are opened and rendered in a worker process of their own
    (a page-only :class:`~desktop.core.isolation.process.WorkerEngine`, started on the first such file):
    MuPDF and lxml are native code fed untrusted files, and a crash there must cost the viewer one
    page, not the window. Image files are decoded here (Pillow).

    Requests on a channel (``viewer``, ``thumb``) older than the latest request on the same channel
    are skipped, so paging quickly through documents does not queue up stale decodes.

    Signals:
        loaded(request_id, channel, image, page_width, page_height): ``page_width``/``page_height``
            in page pixels of the rotated page; the image may be smaller (downscaled).
        failed(request_id, channel, message)
    """

    loaded = Signal(int, str, QImage, int, int)
    failed = Signal(int, str, str)

    def __init__(self) -> None:
        super().__init__()
        self.latest: dict[str, int] = {}
        self._pdf_worker: Any = None
        self.language = "en"  # the UI language of its failure messages (the window sets it)

    def _host(self, path: str) -> Any:
        from desktop.core import intake
        from desktop.core.isolation import LOCAL_PAGES

        if intake.magic_format(path) in IMAGE_FORMATS:
            return LOCAL_PAGES
        if self._pdf_worker is None:
            from desktop.core.isolation import WorkerEngine

            self._pdf_worker = WorkerEngine(None)
        return self._pdf_worker.page_host()

    @Slot(int, str, str, int, int, int)
    def load(self, request_id: int, channel: str, path: str, page: int, rotation: int, max_pixels: int) -> None:
        if channel == "viewer" and request_id < self.latest.get(channel, 0):
            return
        try:
            host = self._host(path)
            page_image = host.load_page(Path(path), page, rotation)
            array, _scale = host.render(page_image, max_pixels)
            self.loaded.emit(request_id, channel, qimage_from_array(array), int(page_image.width), int(page_image.height))
        except Exception as exc:  # shown in the viewer instead of the page
            self.failed.emit(request_id, channel, _diagnostic(exc).message(self.language))

    def stop_now(self) -> None:
        """Called from the GUI thread when the window closes: abandon a PDF page being rendered."""
        worker = self._pdf_worker
        if worker is not None:
            worker.interrupt()

    @Slot()
    def shutdown(self) -> None:
        """Stop the PDF worker (if one was started) and this thread's event loop."""
        if self._pdf_worker is not None:
            self._pdf_worker.close()
            self._pdf_worker = None
        QThread.currentThread().quit()


class WorkerThread(QThread):
    """A named QThread that runs its object's ``shutdown`` slot (if any) before stopping."""

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
