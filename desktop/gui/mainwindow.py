"""The main window: queue | page viewer | field form, with menus, toolbar, status bar and export.

The window lays out the widgets and shows the current document; the work is done by its controllers:

- :class:`~desktop.gui.reading.ReadingController`: the reader thread, the batch, what comes back;
- :class:`~desktop.gui.pages.PageController`: the page shown, page pictures and thumbnails, click-to-fill;
- :class:`~desktop.gui.reviewing.ReviewController`: the clerk's changes, each a review-core command
  (:mod:`desktop.core.review`) on one ``QUndoStack``, saved through the queue the moment it is applied;
- :class:`~desktop.gui.adding.AddController`: files in (Open, recent files, paste, drag and drop);
- :class:`~desktop.gui.exporting.ExportController`: the exports;
- :class:`~desktop.gui.actions.WindowActions`: the actions, menus and toolbars;
- :class:`~desktop.gui.docpanel.DocumentPanel` (a widget): the document's header, summary and tabs.

Data flow: files go into the :class:`~desktop.gui.queue.QueueModel` (saved to the session at once) and
are sent to the reader thread; results come back as signals and replace the queue rows.
"""
from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QItemSelectionModel, QModelIndex, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLabel,
    QListView,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.diagnostics import Code, diag
from desktop.core.doctypes import document_types
from desktop.core.model import Document
from desktop.core.session import open_session
from desktop.core.settings import Settings, user_config_dir
from desktop.gui.actions import WindowActions, unique_shortcuts
from desktop.gui.adding import AddController, supported_suffixes
from desktop.gui.dialogs import SettingsDialog
from desktop.gui.docpanel import DocumentPanel
from desktop.gui.engine_label import EngineLabel
from desktop.gui.exporting import ExportController
from desktop.gui.pages import THUMB_MAX_PIXELS, VIEW_MAX_PIXELS, PageController
from desktop.gui.queue import QueueDelegate, QueueEntry, QueueModel, QueueView
from desktop.gui.reading import ReadingController
from desktop.gui.resources import icon
from desktop.gui.reviewing import ReviewController
from desktop.gui.vendors import VendorsDialog
from desktop.gui.viewer import PageViewer
from desktop.gui.worker import EngineFactory, default_engine_factory

__all__ = ["THREAD_STOP_TIMEOUT_MS", "THUMB_MAX_PIXELS", "VIEW_MAX_PIXELS", "MainWindow", "supported_suffixes",
           "unique_shortcuts"]

log = logging.getLogger(__name__)

THREAD_STOP_TIMEOUT_MS = 60_000
"""Longest wait for a worker thread at exit: the page being read is finished first (PP-OCR: seconds;
HunyuanOCR on a slow machine: up to about a minute), then the thread is left behind."""

ENGINE_SETTINGS = ("engine", "model_dir", "server_url", "server_api_key", "server_max_in_flight",
                   "server_cpu_fallback", "server_allow_public")
"""Settings whose change needs a new OCR engine."""


class MainWindow(QMainWindow):
    """The Shoebox main window.

    Args:
        engine_factory: creates the OCR engine in the worker thread (tests pass fakes); default:
            ``create_engine`` with the user's settings.
        settings: the user settings (default: loaded from disk).
        language: the UI language in use (``en`` / ``zh_CN``), for field and type labels.

    Signals (for tests and tools):
        batch_finished(): every queued file has been read (or cancelled).
        task_finished(entry_id, task): a document task finished (done or failed).
        shown_first(): the window was shown for the first time.
        page_shown(entry_id, page): a page of the current document is shown.
    """

    batch_finished = Signal()
    task_finished = Signal(int, str)
    shown_first = Signal()
    page_shown = Signal(int, int)

    def __init__(
        self,
        engine_factory: EngineFactory | None = None,
        settings: Settings | None = None,
        language: str = "en",
    ) -> None:
        super().__init__()
        self.setObjectName("MainWindow")
        self.setWindowTitle("Shoebox")
        self.setWindowIcon(icon("shoebox"))
        self.setAcceptDrops(True)
        self.settings = settings or Settings.load()
        self.language = language
        opened = open_session()  # a corrupt, unreadable or read-only session never stops the app
        self.store = opened.store
        self.session_problem: str | None = opened.problem.message(language) if opened.problem else None
        if opened.problem:
            log.warning("%s", opened.problem.message())
        self.memory = self._open_memory()  # in the same database (in memory too when the session is)
        self.model = QueueModel(self.store, self)
        self.model.placeholder = icon("document")
        self.model.failed_icon = icon("broken")
        self.model.type_labels = {n: t.label_for(language) for n, t in document_types().items()}
        self.model.language = language
        self.current_id: int | None = None
        self._first_show = True
        self._closing = False
        self._shut_down = False

        self._build_ui()
        self.reading = ReadingController(
            self, engine_factory or default_engine_factory(self.settings.engine, self.settings.model_dir))
        self.pages = PageController(self)
        self.reviewing = ReviewController(self, self.memory)
        self.adding = AddController(self)
        self.exporting = ExportController(self)
        self.window_actions = WindowActions(self)
        self._connect()
        self._restore_geometry()
        self.show_document(None)
        for entry in self.model.entries():
            self.pages.thumbnail_from_preview(entry.id, entry.source, entry.document)
        if self.model.rowCount():
            self.select_entry(self.model.entry_at(0).id)  # type: ignore[union-attr]

    # ---------------------------------------------------------------------------------- layout
    def _build_ui(self) -> None:
        self._build_queue()
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.queue_view)
        self.splitter.addWidget(self._build_centre())
        self.panel = DocumentPanel(self.language, self.date_order(), self)
        panel = self.panel  # its widgets are the window's, by the names the controllers and tests use
        self.title_label, self.type_combo, self.reviewed_button = panel.title_label, panel.type_combo, panel.reviewed_button
        self.summary_label, self.duplicate_banner, self.tabs = panel.summary_label, panel.duplicate_banner, panel.tabs
        self.form, self.text_view, self.task_panel = panel.form, panel.text_view, panel.task_panel
        self.splitter.addWidget(self.panel)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 5)
        self.splitter.setStretchFactor(2, 3)
        self.splitter.setSizes([300, 720, 460])
        self.setCentralWidget(self.splitter)
        self._build_status_bar()

    def _build_queue(self) -> None:
        self.queue_view = QueueView(self)
        self.queue_view.setObjectName("queue")
        self.queue_view.setModel(self.model)
        self.queue_view.setItemDelegate(QueueDelegate(self.queue_view))
        self.queue_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.queue_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.queue_view.setResizeMode(QListView.ResizeMode.Adjust)  # rows re-wrap their text to the width
        self.queue_view.setAlternatingRowColors(True)
        self.queue_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.queue_view.setAcceptDrops(False)
        self.queue_view.setMinimumWidth(240)

    def _build_centre(self) -> QWidget:
        """The viewer with its own toolbar."""
        self.viewer = PageViewer(self)
        self.viewer.setObjectName("viewer")
        self.viewer.setAcceptDrops(False)
        self.viewer_bar = QToolBar(self.tr("Page"), self)
        self.viewer_bar.setIconSize(QSize(20, 20))
        self.page_label = QLabel(self)
        self.page_label.setMinimumWidth(90)
        self.page_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_label = QLabel(self)
        self.zoom_label.setMinimumWidth(48)
        centre = QWidget(self)
        cl = QVBoxLayout(centre)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.viewer_bar)
        cl.addWidget(self.viewer, 1)
        return centre

    def _build_status_bar(self) -> None:
        self.engine_label = EngineLabel(self)
        self.progress = QProgressBar(self)
        self.progress.setFormat(self.tr("%v of %m files"))
        # the text inside the bar (centred), with room for it in every language ("9999 / 9999 个文件")
        self.progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        sample = self.progress.format().replace("%v", "9999").replace("%m", "9999").replace("%p", "100")
        text_w = self.progress.fontMetrics().horizontalAdvance(sample)
        self.progress.setMinimumWidth(text_w + 48)
        self.progress.setMaximumWidth(max(220, text_w + 96))
        self.progress.hide()
        self.cancel_button = QToolButton(self)
        self.cancel_button.setObjectName("cancel_button")
        self.cancel_button.setToolTip(self.tr("Stop reading after the current page"))
        self.cancel_button.hide()
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)
        self.statusBar().addPermanentWidget(self.engine_label)

    def _connect(self) -> None:
        """The widgets' signals to the controllers, and the controllers' signals out of the window."""
        self.queue_view.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.viewer.line_clicked.connect(self.pages.on_line_clicked)
        self.viewer.zoom_changed.connect(self._show_zoom)
        self.type_combo.activated.connect(lambda i: self.change_document_type(self.type_combo.itemData(i)))
        self.reviewed_button.clicked.connect(self.reviewing.toggle_reviewed)
        self.duplicate_banner.open_earlier.connect(self._open_earlier)
        self.duplicate_banner.keep_both.connect(self.reviewing.keep_duplicate)
        self.duplicate_banner.drop_this.connect(self.reviewing.drop_duplicate)
        self.form.field_committed.connect(self.commit_field)
        self.form.field_focused.connect(lambda _name: self.pages.refresh_highlight(scroll=True))
        self.task_panel.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.model.document_changed.connect(self._on_document_changed)
        self.reading.batch_finished.connect(self.batch_finished)
        self.reading.task_finished.connect(self.task_finished)
        self.pages.page_shown.connect(self.page_shown)

    # ---------------------------------------------------------------------------------- geometry
    def _qsettings(self) -> QSettings:
        return QSettings(str(user_config_dir() / "window.ini"), QSettings.Format.IniFormat)

    #: The window's size on a first start, in device-independent pixels, when the screen has room.
    DEFAULT_SIZE = QSize(1440, 900)

    def _restore_geometry(self) -> None:
        """The last session's geometry, when it was saved at the same scale (a geometry saved at 200 %
        comes back half as large at 100 %); else :attr:`DEFAULT_SIZE`. Either way the window is then
        fitted into the screen's available area (:meth:`fit_to_screen`)."""
        qs = self._qsettings()
        geometry = qs.value("geometry")
        same_scale = str(qs.value("scale", "")) == self._scale_key()
        if isinstance(geometry, QByteArray) and not geometry.isEmpty() and same_scale:
            self.restoreGeometry(geometry)
        else:
            self.resize(self.DEFAULT_SIZE)
        for key, target in (("state", self.restoreState), ("splitter", self.splitter.restoreState)):
            value = qs.value(key)
            if isinstance(value, QByteArray) and not value.isEmpty():
                target(value)
        self.fit_to_screen()

    def _scale_key(self) -> str:
        screen = self.screen()
        return f"{screen.devicePixelRatio():g}" if screen is not None else ""

    def fit_to_screen(self) -> None:
        """Shrink the window to the available area of its screen (without the task bar) and move it
        fully into view; a screen smaller than the window's minimum size gets it maximised."""
        screen = self.screen()
        if screen is None:
            return
        area = screen.availableGeometry()
        frame = self.frameGeometry()
        extra = QSize(max(0, frame.width() - self.width()), max(0, frame.height() - self.height()))
        room = QSize(max(1, area.width() - extra.width()), max(1, area.height() - extra.height()))
        if self.minimumSizeHint().width() > room.width() or self.minimumSizeHint().height() > room.height():
            self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)
            return
        if self.width() > room.width() or self.height() > room.height():
            self.resize(min(self.width(), room.width()), min(self.height(), room.height()))
        frame = self.frameGeometry()
        x = min(max(frame.x(), area.x()), area.x() + area.width() - frame.width())
        y = min(max(frame.y(), area.y()), area.y() + area.height() - frame.height())
        if (x, y) != (frame.x(), frame.y()):
            self.move(x, y)

    def _save_geometry(self) -> None:
        qs = self._qsettings()
        qs.setValue("geometry", self.saveGeometry())
        qs.setValue("scale", self._scale_key())
        qs.setValue("state", self.saveState())
        qs.setValue("splitter", self.splitter.saveState())
        qs.sync()

    # ---------------------------------------------------------------------------------- startup
    def showEvent(self, event) -> None:  # Qt API
        super().showEvent(event)
        if self._first_show:
            self._first_show = False
            QTimer.singleShot(0, self._after_first_show)

    def _after_first_show(self) -> None:
        probe = os.environ.get("SHOEBOX_STARTUP_PROBE")
        if probe:
            heavy = [m for m in ("torch", "onnxruntime", "transformers", "rapidocr") if m in sys.modules]
            Path(probe).write_text(f"{time.time():.6f} {','.join(heavy) or '-'}\n", encoding="utf-8")
            print("SHOEBOX_WINDOW_SHOWN", flush=True)
        self.shown_first.emit()
        self.reading.warm_requested.emit()
        self.reading.resume_queued()
        if self.session_problem:
            self._tell_session_problem()

    def _tell_session_problem(self) -> None:
        """Say in plain words what happened to the saved session (non-modal: the app is usable)."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Session"), self.session_problem or "",
                          QMessageBox.StandardButton.Ok, self)
        box.setObjectName("session_problem")
        box.setModal(False)
        box.show()
        self.statusBar().showMessage(self.session_problem or "", 30000)

    def _open_memory(self) -> Any:
        """The vendor memory in the session database, or ``None`` when it cannot open (a note says so)."""
        try:
            from desktop.core.memory import VendorMemory

            return VendorMemory(self.store.path)
        except Exception as exc:
            log.exception("the vendor memory cannot open")
            # in the UI's words; the library's own (sqlite's) stay in the log above
            self.statusBar().showMessage(diag(Code.MEMORY_UNAVAILABLE, detail=str(exc)).message(self.language, plain=True),
                                         10000)
            return None

    # ---------------------------------------------------------------------------------- showing
    def select_entry(self, entry_id: int) -> None:
        """Make ``entry_id`` the current row (and show it)."""
        row = self.model.row_of(entry_id)
        if row < 0:
            return
        index = self.model.index(row, 0)
        if self.queue_view.currentIndex().row() != row:
            self.queue_view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
        elif self.current_id != entry_id:
            self.show_document(entry_id)
        self.queue_view.scrollTo(index)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        entry = self.model.entry_at(current.row()) if current.isValid() else None
        self.show_document(entry.id if entry else None)

    def _on_document_changed(self, entry_id: int) -> None:
        if entry_id == self.current_id:
            self.show_document(entry_id)

    def current_document(self) -> Document | None:
        entry = self.model.entry(self.current_id) if self.current_id is not None else None
        return entry.document if entry else None

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.queue_view.selectionModel().selectedRows()})
        return [e.id for r in rows if (e := self.model.entry_at(r))]

    def show_document(self, entry_id: int | None) -> None:
        """Show the entry ``entry_id`` (``None``: no entry) in the viewer and the document panel."""
        changed = entry_id != self.current_id
        self.current_id = entry_id
        entry = self.model.entry(entry_id) if entry_id is not None else None
        doc = entry.document if entry else None
        ok = doc is not None and not doc.error
        self.reviewed_action.setEnabled(ok)
        for a in (self.rotate_left_action, self.rotate_right_action):
            a.setEnabled(ok and bool(doc and doc.page_results))
        self.update_task_actions()
        if entry is None:
            self.panel.show_nothing()
            self.viewer.clear(self.tr("Drop files here"))
            self.pages.update_page_label()
            return
        earlier = self.earlier_entry(doc.duplicate_of, entry.id) if doc is not None else None
        self.panel.show_entry(entry.name, entry.source, entry.status, doc,
                              earlier_row=self.model.row_of(earlier.id) + 1 if earlier is not None else None)
        if doc is None:
            if changed:
                self.pages.current_page = 1
                self.pages.show_preview_of_queued(entry.source)
                self.pages.load_page_image(entry.source, 1, 0)
            self.pages.update_page_label()
        elif doc.error:
            # the core's message (file name and reason) stays as written; the label around it is ours
            self.pages.forget_pending_picture()
            self.viewer.clear(self.tr("Reading failed: %1").replace("%1", doc.error.message(self.language)))
            self.pages.current_page = None
            self.pages.update_page_label()
        else:
            self.pages.show_document_pages(changed)

    def update_task_actions(self) -> None:
        """Enable each Document-menu task when it can run on the current document; otherwise disable it
        with a tooltip saying why."""
        for task, action in self.task_actions.items():
            why = self.reading.task_unavailable(task)
            action.setEnabled(not why)
            tip = why or self.task_tips[task]
            action.setToolTip(tip)
            action.setStatusTip(tip)
        button = getattr(self, "translate_button", None)
        if button is not None:  # enabled when either translation can run; disabled, it says why
            translations = [self.task_actions[t] for t in ("translate_en", "translate_zh")]
            button.setEnabled(any(a.isEnabled() for a in translations))
            button.setToolTip(self.tr("Translate the text of the document into English or Chinese")
                              if button.isEnabled() else translations[0].toolTip())

    def _show_zoom(self, shown: float) -> None:
        """The zoom box: a percentage, and in its tooltip what 100 % means for this page."""
        self.zoom_label.setText(f"{shown:.0%}")
        tip = (self.tr("Zoom: 100% is the size of the paper") if self.viewer.is_paper() else
               self.tr("Zoom: 100% shows one pixel of the image per pixel of the screen"))
        self.zoom_label.setToolTip(tip)
        self.zoom_100_action.setToolTip(tip)

    def earlier_entry(self, mark: dict[str, Any] | None, here: int | None = None) -> QueueEntry | None:
        """The queue entry a duplicate mark (``Document.duplicate_of``) names: the entry of its source
        file and first page, never ``here`` (the marked entry itself: the same file dropped twice has one
        source for both), the first one before ``here`` in the queue if there is one; ``None`` when it is
        no longer in the queue (it was confirmed and cleared, and the memory remembered it)."""
        if not mark:
            return None
        source, first_page = str(mark.get("source", "")), int((mark.get("pages") or [1])[0])
        found = [e for e in self.model.entries() if e.id != here and e.source == source
                 and (e.document is None or e.document.pages[0] == first_page)]
        if not found:
            return None
        row_here = self.model.row_of(here) if here is not None else -1
        before = [e for e in found if row_here < 0 or self.model.row_of(e.id) < row_here]
        return (before or found)[0]

    def _open_earlier(self, source: str, first_page: int) -> None:
        earlier = self.earlier_entry({"source": source, "pages": [first_page, first_page]}, self.current_id)
        if earlier is not None:
            self.select_entry(earlier.id)
            return
        self.statusBar().showMessage(self.tr("%1 is no longer in the queue (it was confirmed earlier)")
                                     .replace("%1", source), 8000)

    # ---------------------------------------------------------------------------------- the window's API
    # The operations live in the controllers; these names are the window's public surface (tools, tests).
    @property
    def undo_stack(self) -> QUndoStack:
        return self.reviewing.undo_stack

    @property
    def worker(self) -> Any:
        return self.reading.worker

    @property
    def current_page(self) -> int | None:
        return self.pages.current_page

    def add_paths(self, paths: list[str | Path], remember: bool = True, show: bool = False) -> list[int]:
        """:meth:`AddController.add_paths`: queue files and folders and start reading them."""
        return self.adding.add_paths(paths, remember, show)

    def paste(self) -> None:
        self.adding.paste()

    def resume_queued(self) -> None:
        self.reading.resume_queued()

    def cancel_reading(self) -> None:
        self.reading.cancel_reading()

    def is_busy(self) -> bool:
        return self.reading.is_busy()

    def run_document_task(self, task: str) -> bool:
        return self.reading.run_document_task(task)

    def show_page(self, number: int) -> None:
        self.pages.show_page(number)

    def commit_field(self, name: str, text: str) -> None:
        """The clerk typed ``text`` into field ``name``: one undoable edit."""
        self.reviewing.edit_field(name, text)

    def change_document_type(self, new_type: str) -> None:
        self.reviewing.change_document_type(new_type)

    def set_reviewed(self, reviewed: bool, confirmed: Sequence[str] = ()) -> None:
        self.reviewing.set_reviewed(reviewed, confirmed)

    def mark_reviewed_and_next(self) -> None:
        self.reviewing.mark_reviewed_and_next()

    def keep_duplicate(self) -> None:
        self.reviewing.keep_duplicate()

    def drop_duplicate(self) -> None:
        self.reviewing.drop_duplicate()

    def documents_for(self, scope: str) -> list[Document]:
        return self.exporting.documents_for(scope)

    def export_documents(self, documents: list[Document], path: Path) -> bool:
        return self.exporting.export_documents(documents, path)

    def vendors_dialog(self) -> VendorsDialog | None:
        """Open the Vendors dialog (modeless; returns it)."""
        if self.memory is None:
            return None
        dialog = VendorsDialog(self.memory, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dialog.show()
        return dialog

    # ---------------------------------------------------------------------------------- drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.adding.accepts(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        if self.adding.drop(event.mimeData()):
            event.acceptProposedAction()

    # ---------------------------------------------------------------------------------- settings
    def date_order(self) -> str | None:
        """``DMY``/``MDY`` for ambiguous dates, from the settings (``None``: decided per document)."""
        return None if self.settings.date_locale in ("", "auto") else self.settings.date_locale

    def save_settings(self) -> None:
        try:
            self.settings.save()
        except OSError as exc:
            from desktop.core.export import write_failure

            log.warning("the settings could not be saved: %s", exc)  # the system's own words, for support
            reason = write_failure(exc, exc.filename or "settings").message(self.language, plain=True)
            self.statusBar().showMessage(self.tr("Settings could not be saved: %1").replace("%1", reason), 8000)

    def settings_dialog(self) -> None:
        dialog = SettingsDialog(self.settings, self.language, self)
        if dialog.exec() != SettingsDialog.DialogCode.Accepted:
            return
        new = dialog.result_settings()
        engine_changed = any(getattr(new, k) != getattr(self.settings, k) for k in ENGINE_SETTINGS)
        language_changed = new.ui_language != self.settings.ui_language
        self.settings = new
        self.save_settings()
        self.form.date_order = self.date_order()
        if engine_changed:
            self.reading.restart_engine(default_engine_factory(new.engine, new.model_dir))
        if language_changed:
            self._language_note()

    def on_language_chosen(self, action: QAction) -> None:
        code = action.data()
        if code != self.settings.ui_language:
            self.settings.ui_language = code
            self.save_settings()
            self._language_note()

    def _language_note(self) -> None:
        QMessageBox.information(self, self.tr("Language"),
                                self.tr("The new language is used the next time Shoebox starts."))

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.fullscreen_action.setChecked(self.isFullScreen())

    # ---------------------------------------------------------------------------------- closing
    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closing:
            event.accept()
            return
        self._closing = True
        self._save_geometry()
        self.hide()  # the window goes at once; the engine may need a moment to finish its page or load
        QApplication.processEvents()
        self.shutdown()
        event.accept()

    def threads_running(self) -> bool:
        """Whether a worker thread is still running (after :meth:`shutdown`: it did not stop in time)."""
        return self.reading.thread.isRunning() or self.pages.thread.isRunning()

    def shutdown(self) -> None:
        """Stop the worker threads and close the session database.

        A page being read is abandoned at once (the engine's worker process is stopped); its file keeps
        its queued status in the session, so it is read again at the next start.

        Idempotent: the window's close and the application's ``aboutToQuit`` both call it. Each
        thread is waited for at most :data:`THREAD_STOP_TIMEOUT_MS`.
        """
        if self._shut_down:
            return
        self._shut_down = True
        self.reading.stop()
        self.pages.stop()
        for thread in (self.reading.thread, self.pages.thread):
            if not thread.wait(THREAD_STOP_TIMEOUT_MS):
                log.error("%s did not stop", thread.objectName())
        try:
            if self.memory is not None:
                self.memory.close()
            self.store.close()
        except Exception:
            log.exception("closing the session failed")
