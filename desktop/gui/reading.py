"""Reading in the background: the queue controller between the window and the reader thread.

:class:`ReadingController` owns the :class:`~desktop.gui.worker.ReadWorker` and its thread. It sends
files, page re-reads and document tasks to the worker (queued connections), follows the batch (files
pending, pages per minute, time left), and turns the worker's results into queue changes: documents
read go into the queue (marked when they repeat one already known), a page read again and a task's
output become review commands (:class:`~desktop.gui.reviewing.ReviewController`).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QMetaObject, QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox

from desktop.core.diagnostics import Diagnostic
from desktop.core.model import Document
from desktop.core.progress import Throughput
from desktop.gui.taskview import task_family
from desktop.gui.worker import EngineFactory, ReadWorker, WorkerThread

if TYPE_CHECKING:
    from desktop.gui.mainwindow import MainWindow

__all__ = ["ReadingController"]


class ReadingController(QObject):
    """The window's reader: what is pending, what the engine can do, and what comes back.

    Args:
        window: the main window (queue model, status bar, progress widgets, task actions).
        factory: creates the OCR engine in the worker thread.

    Signals (to the worker thread; queued connections):
        scan_requested(entry_id, path, options, generation), reread_requested(entry_id, document, page,
        rotation, options), run_task_requested(entry_id, document, task, generation), warm_requested().
    Signals (for the window, tests and tools):
        batch_finished(): every queued file has been read (or cancelled).
        task_finished(entry_id, task): a document task finished (done or failed).
    """

    scan_requested = Signal(int, str, object, int)
    reread_requested = Signal(int, object, int, int, object)
    run_task_requested = Signal(int, object, str, int)
    warm_requested = Signal()
    batch_finished = Signal()
    task_finished = Signal(int, str)

    def __init__(self, window: MainWindow, factory: EngineFactory) -> None:
        super().__init__(window)
        self.window = window
        self.model = window.model
        self.pending: set[int] = set()
        self.batch_total = 0
        self.batch_done = 0
        self.batch_duplicates: list[str] = []  # file names marked as possible duplicates in this batch
        self.throughput: Throughput | None = None  # pages done, pages/min, time left of the batch
        self.engine_capabilities: frozenset[str] = frozenset()
        self.engine_state = "loading"
        self.engine_description = self.tr("not started")
        from desktop.core.duplicates import ReadingCache

        # a file whose bytes were read before in this window is not read again (its reading is reused)
        self.readings = ReadingCache()

        self.worker = ReadWorker(factory)
        self.worker.language = window.language
        self.thread = WorkerThread("shoebox-reader", window)
        self.worker.moveToThread(self.thread)
        self.scan_requested.connect(self.worker.scan)
        self.reread_requested.connect(self.worker.reread)
        self.run_task_requested.connect(self.worker.run_task)
        self.warm_requested.connect(self.worker.warm_up)
        w = self.worker
        w.engine_capabilities.connect(self._on_capabilities)
        w.task_ready.connect(self._on_task_ready)
        w.task_failed.connect(self._on_task_failed)
        w.engine_state.connect(self._on_engine_state)
        w.started.connect(self._on_started)
        w.progress.connect(self._on_progress)
        w.document_ready.connect(self._on_documents)
        w.reread_ready.connect(self._on_reread)
        w.error.connect(self._on_error)
        w.cancelled.connect(self._on_cancelled)
        w.finished.connect(self._on_finished)
        self.thread.start()

    def _status(self, text: str, ms: int) -> None:
        self.window.statusBar().showMessage(text, ms)

    def options(self, document_type: str | None = None) -> Any:
        """The :class:`~desktop.core.pipeline.ScanOptions` of the user's settings."""
        from desktop.core.pipeline import ScanOptions

        settings = self.window.settings
        return ScanOptions(document_type=document_type or settings.default_document_type or "auto",
                           date_order=self.window.date_order(), memory=self.window.memory, readings=self.readings)

    def is_busy(self) -> bool:
        return bool(self.pending)

    # -- sending work ----------------------------------------------------------------------------------
    def _start(self, entry_id: int) -> None:
        self.pending.add(entry_id)
        self.batch_total += 1
        self.update_progress()

    def queue_scan(self, entry_id: int) -> None:
        """Send the entry's file to the reader (once; a file already pending is not sent again)."""
        entry = self.model.entry(entry_id)
        if entry is None or entry_id in self.pending:
            return
        try:
            options = self.options()
        except ImportError as exc:
            self.model.fail(entry_id, self.tr("Reading is not available in this installation (%1)").replace("%1", str(exc)))
            return
        self.model.set_status(entry_id, "queued")
        if not self.pending or self.throughput is None:
            self.throughput = Throughput(0)  # a new batch: pages per minute measured afresh
        self.throughput.add_files(1)
        self._start(entry_id)
        self.scan_requested.emit(entry_id, entry.source, options, self.worker.generation)

    def resume_queued(self) -> None:
        """Read every entry still waiting (after a restart or a cancel)."""
        for entry in self.model.entries():
            if entry.status in ("queued", "reading") and entry.document is None:
                self.queue_scan(entry.id)

    def cancel_reading(self) -> None:
        """Stop reading: the file being read stops after its current page; the rest stay queued."""
        if not self.pending:
            return
        self.worker.cancel()
        self._status(self.tr("Cancelling after the current page…"), 5000)

    def rotate_and_reread(self, degrees: int) -> None:
        """Turn the page shown by ``degrees`` (clockwise, from how it is shown now) and read it again."""
        window = self.window
        entry_id, doc, page = window.current_id, window.current_document(), window.pages.page_result()
        if entry_id is not None and doc is not None and page is not None:
            self.reread_page(entry_id, doc, page.number, (page.rotation + degrees) % 360)

    def reread_page(self, entry_id: int, document: Document, page: int, rotation: int) -> None:
        """Read page ``page`` of the entry's document again, turned to ``rotation`` degrees."""
        try:
            options = self.options(document.document_type)
        except ImportError as exc:
            QMessageBox.warning(self.window, self.tr("Read again"),
                                self.tr("Reading is not available in this installation (%1)").replace("%1", str(exc)))
            return
        self.model.set_message(entry_id, self.tr("reading page %1 again…").replace("%1", str(page)))
        self._start(entry_id)
        self.reread_requested.emit(entry_id, Document.from_dict(document.to_dict()), page, rotation, options)

    def task_label(self, task: str) -> str:
        return {
            "markdown": self.tr("Convert to Markdown"),
            "table": self.tr("Extract tables"),
            "translate_en": self.tr("Translate to English"),
            "translate_zh": self.tr("Translate to Chinese"),
        }[task]

    def task_unavailable(self, task: str) -> str:
        """Why ``task`` cannot run on the current document now, in the clerk's words ("": it can)."""
        if task_family(task) not in self.engine_capabilities:
            return (self.tr("Waiting for the OCR engine to start…") if self.engine_state == "loading" else
                    self.tr("Needs the HunyuanOCR engine on a GPU; see Settings."))
        doc = self.window.current_document()
        if doc is None or doc.error or not doc.page_results:
            return self.tr("Select a document that has been read first.")
        if self.window.current_id in self.pending:
            return self.tr("This document is being read; wait until it is done.")
        return ""

    def run_document_task(self, task: str) -> bool:
        """Run ``task`` (``markdown``, ``table``, ``translate_en``, ``translate_zh``) on every page of the
        current document in the worker thread; the output lands in the Task output tab and the session.

        Returns whether the job was queued.
        """
        window = self.window
        entry_id, doc = window.current_id, window.current_document()
        if task not in window.task_actions or entry_id is None or doc is None or doc.error:
            return False
        if task_family(task) not in self.engine_capabilities:
            self._status(self.tr("Needs the HunyuanOCR engine on a GPU; see Settings."), 8000)
            return False
        if entry_id in self.pending:
            return False
        self.model.set_message(entry_id, self.task_label(task) + "…")
        window.task_panel.show_error("")
        self._start(entry_id)
        window.update_task_actions()
        self.run_task_requested.emit(entry_id, Document.from_dict(doc.to_dict()), task, self.worker.generation)
        return True

    def update_progress(self) -> None:
        window = self.window
        busy = bool(self.pending)
        window.progress.setVisible(busy)
        window.cancel_button.setVisible(busy)
        window.cancel_action.setEnabled(busy)
        if busy:
            window.progress.setRange(0, max(1, self.batch_total))
            window.progress.setValue(self.batch_done)
        else:
            self.batch_total = self.batch_done = 0

    def restart_engine(self, factory: EngineFactory) -> None:
        """Use a new engine from the next job on (the settings changed) and start loading it."""
        self.worker.set_engine_factory(factory)
        self.engine_state = "loading"
        self._on_capabilities([])
        self.window.engine_label.setText(self.tr("Restarting the OCR engine…"))
        self.warm_requested.emit()

    # -- what comes back ---------------------------------------------------------------------------------
    def _on_capabilities(self, names: list[str]) -> None:
        self.engine_capabilities = frozenset(names)
        self.window.update_task_actions()

    def _on_task_ready(self, entry_id: int, task: str, result: Document) -> None:
        window = self.window
        after = window.reviewing.attach_task(entry_id, task, result, self.task_label(task))
        if after is None:
            return
        if window.current_id == entry_id:
            window.task_panel.set_document(after, task)
            window.tabs.setCurrentWidget(window.task_panel)
        entry = self.model.entry(entry_id)
        name = entry.name if entry is not None else ""
        self._status(self.tr("%1 done: %2").replace("%1", self.task_label(task)).replace("%2", name), 8000)
        self.task_finished.emit(entry_id, task)

    def _on_task_failed(self, entry_id: int, task: str, message: str) -> None:
        if self.model.entry(entry_id) is None:
            return
        text = self.tr("%1 failed: %2").replace("%1", self.task_label(task)).replace("%2", message)
        self.model.set_message(entry_id, text)
        self._status(text, 10000)
        window = self.window
        if window.current_id == entry_id:
            window.task_panel.show_error(text)
            window.tabs.setCurrentWidget(window.task_panel)
        self.task_finished.emit(entry_id, task)

    def _on_engine_state(self, state: str, text: str) -> None:
        self.engine_state = state
        if state == "failed":
            self._status(text, 15000)
        slow = self.worker.slow_warning if state == "ready" else ""
        notes = [n.message(self.window.language) for n in self.worker.notes] if state == "ready" else []
        self.window.engine_label.show_state(state, text, self.worker.engine_name, self.worker.engine_device,
                                            slow, notes)
        if state == "ready":
            self.engine_description = text
            for note in self.worker.notes:  # in plain words: the engine label's tooltip has the rest
                self._status(note.message(self.window.language, plain=True), 10000)
            if slow:
                self._status(slow, 30000)

    def _on_started(self, entry_id: int) -> None:
        entry = self.model.entry(entry_id)
        if entry is None:
            return
        if entry.document is None:
            self.model.set_status(entry_id, "reading")
        else:
            self.model.set_message(entry_id, self.tr("reading…"))

    def _on_progress(self, entry_id: int, page: int, pages: int, message: str) -> None:
        text = self.tr("page %1 of %2").replace("%1", str(page)).replace("%2", str(pages))
        self.model.set_message(entry_id, text)
        entry = self.model.entry(entry_id)
        if self.throughput is not None:
            self.throughput.page(page, pages, message == "done")
        if entry is not None:
            rate = f" · {self.throughput.text(self.window.language)}" if self.throughput is not None else ""
            self._status(f"{Path(entry.source).name}: {text}{rate}", 4000)

    def _on_documents(self, entry_id: int, documents: list[Document]) -> None:
        if self.model.entry(entry_id) is None:
            return
        if not documents:
            self.model.fail(entry_id, self.tr("Nothing was read from this file."))
            return
        self.window.reviewing.mark_duplicates(entry_id, documents)
        entry = self.model.entry(entry_id)
        if entry is not None and any(d.duplicate_of for d in documents):
            self.batch_duplicates.append(entry.name)
        self.model.set_documents(entry_id, documents)
        if self.window.current_id == entry_id:
            self.window.show_document(entry_id)

    def _on_reread(self, entry_id: int, document: Document) -> None:
        self.window.reviewing.reread(entry_id, document)

    def _on_error(self, entry_id: int, problem: Diagnostic) -> None:
        entry = self.model.entry(entry_id)
        if entry is not None and entry.document is not None and not entry.document.error:
            # reading a page again failed: the document stays as it was (the queue row's tooltip has
            # the library's words)
            message = problem.message(self.window.language, plain=True)
            self._status(self.tr("Reading again failed: %1").replace("%1", message), 10000)
        self.model.fail(entry_id, problem)
        if self.window.current_id == entry_id:
            self.window.show_document(entry_id)

    def _on_cancelled(self, entry_id: int) -> None:
        entry = self.model.entry(entry_id)
        if entry is not None and entry.document is None:
            self.model.set_status(entry_id, "queued", self.tr("cancelled"))
        elif entry is not None:
            self.model.set_message(entry_id, self.tr("cancelled"))

    def _on_finished(self, entry_id: int) -> None:
        if entry_id in self.pending:
            self.pending.discard(entry_id)
            self.batch_done += 1
            if self.throughput is not None:
                self.throughput.file_done()
        entry = self.model.entry(entry_id)
        if entry is not None and entry.status == "reading":
            self.model.set_status(entry_id, "queued")
        self.update_progress()
        self.window.update_task_actions()
        if not self.pending:
            if self.batch_duplicates:
                # said where the clerk looks when the batch ends, not only on each queue row: the same
                # file dropped twice is marked, and the status bar names it
                shown = list(dict.fromkeys(self.batch_duplicates))  # one file dropped three times: one name
                names = ", ".join(shown[:3]) + (", …" if len(shown) > 3 else "")
                self._status(self.tr("Reading finished. %n possible duplicate(s) marked: %1", "",
                                     len(self.batch_duplicates)).replace("%1", names), 15000)
            else:
                self._status(self.tr("Reading finished."), 5000)
            self.batch_duplicates = []
            self.batch_finished.emit()

    # -- closing -----------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Abandon the page being read (the engine's worker process is stopped) and end the thread's loop
        after it (later jobs are skipped). The caller waits for :attr:`thread`."""
        self.worker.stop_now()
        QMetaObject.invokeMethod(self.worker, "shutdown", Qt.ConnectionType.QueuedConnection)
