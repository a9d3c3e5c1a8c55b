"""The main window: queue | page viewer | field form, with menus, toolbar, status bar and export.

Data flow: files go into the :class:`~desktop.gui.queue.QueueModel` (saved to the session at once) and
are sent to the :class:`~desktop.gui.worker.ReadWorker` thread; results come back as signals and
replace the queue rows. Every change the clerk makes is a :class:`~desktop.gui.commands.DocumentCommand`
on one ``QUndoStack``, which saves the document through the model the moment it is applied.
"""
from __future__ import annotations

import html
import logging
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QItemSelectionModel,
    QMetaObject,
    QModelIndex,
    QPoint,
    QSettings,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QImage,
    QKeySequence,
    QPixmap,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListView,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.diagnostics import Code, Diagnostic
from desktop.core.doctypes import document_types
from desktop.core.model import Document, Field, PageResult
from desktop.core.progress import Throughput
from desktop.core.review import edited_document, retyped_document, reviewed_document, with_task_output
from desktop.core.session import open_session
from desktop.core.settings import Settings, user_config_dir, user_data_dir
from desktop.gui.commands import DocumentCommand, MergeCommand, SplitCommand
from desktop.gui.dialogs import SettingsDialog, show_about
from desktop.gui.engine_label import EngineLabel
from desktop.gui.form import FieldForm
from desktop.gui.notes import document_notes
from desktop.gui.previews import PreviewCache
from desktop.gui.queue import QueueDelegate, QueueEntry, QueueModel, attention_count
from desktop.gui.resources import LANGUAGES, icon
from desktop.gui.taskview import TASK_ORDER, TaskOutputPanel, task_family
from desktop.gui.vendors import DuplicateBanner, VendorsDialog
from desktop.gui.viewer import PageViewer
from desktop.gui.worker import (
    EngineFactory,
    ImageLoader,
    ReadWorker,
    WorkerThread,
    default_engine_factory,
)

log = logging.getLogger(__name__)

VIEW_MAX_PIXELS = 8_000_000
"""Largest page picture kept for the viewer (bigger scans are downscaled; boxes stay in page pixels).
8 Mpx is a full-screen page on a 4K monitor; as a 32-bit pixmap it is 32 MB."""
THUMB_MAX_PIXELS = 96 * 128
FALLBACK_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp", ".heic", ".heif", ".pdf")
MAX_RECENT = 10
THREAD_STOP_TIMEOUT_MS = 60_000
"""Longest wait for a worker thread at exit: the page being read is finished first (PP-OCR: seconds;
HunyuanOCR on a slow machine: up to about a minute), then the thread is left behind."""


def supported_suffixes() -> tuple[str, ...]:
    """``intake.SUPPORTED_SUFFIXES`` (a built-in list when the intake module is not importable)."""
    try:
        from desktop.core.intake import SUPPORTED_SUFFIXES
    except ImportError:
        return FALLBACK_SUFFIXES
    return tuple(SUPPORTED_SUFFIXES)


def unique_shortcuts(*keys: str | QKeySequence | QKeySequence.StandardKey) -> list[QKeySequence]:
    """The key sequences of ``keys`` in order, each once, standard keys expanded to every platform binding.

    Qt treats a sequence bound twice (even to the same action) as an ambiguous shortcut and then fires
    nothing ("QAction::event: Ambiguous shortcut overload"); on X11 ``StandardKey.Redo`` is only
    Ctrl+Shift+Z, so a hand-written Ctrl+Shift+Z plus ``StandardKey.Redo`` would kill Redo.
    """
    out: list[QKeySequence] = []
    for key in keys:
        if isinstance(key, QKeySequence.StandardKey):
            expanded = QKeySequence.keyBindings(key)
        else:
            expanded = [QKeySequence(key)]
        for seq in expanded:
            if not seq.isEmpty() and seq not in out:
                out.append(seq)
    return out


class MainWindow(QMainWindow):
    """The Shoebox main window.

    Args:
        engine_factory: creates the OCR engine in the worker thread (tests pass fakes); default:
            ``create_engine`` with the user's settings.
        settings: the user settings (default: loaded from disk).
        language: the UI language in use (``en`` / ``zh_CN``), for field and type labels.

    Signals (to the worker threads; queued connections):
        scan_requested(entry_id, path, options, generation), reread_requested(...),
        run_task_requested(entry_id, document, task, generation),
        load_requested(request_id, channel, path, page, rotation, max_pixels), warm_requested().
    Signals (for tests and tools):
        batch_finished(): every queued file has been read (or cancelled).
        shown_first(): the window was shown for the first time.
    """

    scan_requested = Signal(int, str, object, int)
    reread_requested = Signal(int, object, int, int, object)
    run_task_requested = Signal(int, object, str, int)
    task_finished = Signal(int, str)
    load_requested = Signal(int, str, str, int, int, int)
    warm_requested = Signal()
    batch_finished = Signal()
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
        self.engine_description = self.tr("not started")
        opened = open_session()  # a corrupt, unreadable or read-only session never stops the app
        self.store = opened.store
        self.session_problem: str | None = opened.problem.message(language) if opened.problem else None
        if opened.problem:
            log.warning("%s", opened.problem.message())
        self.memory = self._open_memory()  # in the same database (in memory too when the session is)
        self.previews = PreviewCache(self.store)  # page pictures shown at once after a restart
        self._viewer_key: tuple[str, int, int] | None = None  # (source, page, rotation) being loaded
        self._facts: dict[int, tuple[Document, dict]] = {}  # entry id -> (document, duplicate facts)
        self.model = QueueModel(self.store, self)
        self.model.placeholder = icon("document")
        self.model.failed_icon = icon("broken")
        self.model.type_labels = {n: t.label_for(language) for n, t in document_types().items()}
        self.model.language = language
        self.undo_stack = QUndoStack(self)
        self.current_id: int | None = None
        self.current_page: int | None = None
        self._pending: set[int] = set()
        self._batch_total = 0
        self._throughput: Throughput | None = None  # pages done, pages/min, time left of the batch
        self._batch_done = 0
        self._request_seq = 0
        self._viewer_request = 0
        self._thumb_requests: dict[int, int] = {}
        self._first_show = True
        self._fill_menu: QMenu | None = None
        self._closing = False
        self._shut_down = False
        self.engine_capabilities: frozenset[str] = frozenset()
        self._engine_state = "loading"

        self._build_workers(engine_factory or default_engine_factory(self.settings.engine, self.settings.model_dir))
        self._build_ui()
        self._build_actions()
        self._restore_geometry()
        self._show_document(None)
        self.model.document_changed.connect(self._on_document_changed)
        for entry in self.model.entries():
            preview = self.previews.get(entry.source, entry.document.pages[0] if entry.document else 1)
            if preview is not None:
                self.model.set_thumbnail(entry.id, self._thumbnail_of(preview))
            else:
                self._request_thumbnail(entry.id, entry.source)
        if self.model.rowCount():
            self.select_entry(self.model.entry_at(0).id)  # type: ignore[union-attr]

    # ---------------------------------------------------------------------------------- workers
    def _build_workers(self, factory: EngineFactory) -> None:
        self.worker = ReadWorker(factory)
        self.worker.language = self.language
        self.worker_thread = WorkerThread("shoebox-reader", self)
        self.worker.moveToThread(self.worker_thread)
        self.scan_requested.connect(self.worker.scan)
        self.reread_requested.connect(self.worker.reread)
        self.run_task_requested.connect(self.worker.run_task)
        self.worker.engine_capabilities.connect(self._on_capabilities)
        self.worker.task_ready.connect(self._on_task_ready)
        self.worker.task_failed.connect(self._on_task_failed)
        self.warm_requested.connect(self.worker.warm_up)
        self.worker.engine_state.connect(self._on_engine_state)
        self.worker.started.connect(self._on_started)
        self.worker.progress.connect(self._on_progress)
        self.worker.document_ready.connect(self._on_documents)
        self.worker.reread_ready.connect(self._on_reread)
        self.worker.error.connect(self._on_error)
        self.worker.cancelled.connect(self._on_cancelled)
        self.worker.finished.connect(self._on_finished)
        self.worker_thread.start()

        self.loader = ImageLoader()
        self.loader.language = self.language
        self.loader_thread = WorkerThread("shoebox-images", self)
        self.loader.moveToThread(self.loader_thread)
        self.load_requested.connect(self.loader.load)
        self.loader.loaded.connect(self._on_image_loaded)
        self.loader.failed.connect(self._on_image_failed)
        self.loader_thread.start()

    # ---------------------------------------------------------------------------------- layout
    def _build_ui(self) -> None:
        self.queue_view = QListView(self)
        self.queue_view.setObjectName("queue")
        self.queue_view.setModel(self.model)
        self.queue_view.setItemDelegate(QueueDelegate(self.queue_view))
        self.queue_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.queue_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.queue_view.setResizeMode(QListView.ResizeMode.Adjust)  # rows re-wrap their text to the width
        self.queue_view.setAlternatingRowColors(True)
        self.queue_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.queue_view.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.queue_view.setAcceptDrops(False)
        self.queue_view.setMinimumWidth(240)

        # centre: viewer with its own toolbar
        self.viewer = PageViewer(self)
        self.viewer.setObjectName("viewer")
        self.viewer.setAcceptDrops(False)
        self.viewer.line_clicked.connect(self._on_line_clicked)
        self.viewer_bar = QToolBar(self.tr("Page"), self)
        self.viewer_bar.setIconSize(QSize(20, 20))
        self.page_label = QLabel(self)
        self.page_label.setMinimumWidth(90)
        self.page_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_label = QLabel(self)
        self.zoom_label.setMinimumWidth(48)
        self.viewer.zoom_changed.connect(self._show_zoom)
        centre = QWidget(self)
        cl = QVBoxLayout(centre)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.viewer_bar)
        cl.addWidget(self.viewer, 1)

        # right: document header, form and text tabs
        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(6, 6, 6, 6)
        self.title_label = QLabel(self)
        self.title_label.setObjectName("title")
        self.title_label.setStyleSheet("font-weight: bold; font-size: 11pt;")
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rl.addWidget(self.title_label)
        row = QHBoxLayout()
        self.type_combo = QComboBox(self)
        self.type_combo.setObjectName("document_type")
        for name, dt in document_types().items():
            self.type_combo.addItem(dt.label_for(self.language), name)
        self.type_combo.setPlaceholderText("—")
        self.type_combo.setCurrentIndex(-1)
        self.type_combo.activated.connect(self._on_type_chosen)
        type_label = QLabel(self.tr("&Type:"), self)
        type_label.setBuddy(self.type_combo)
        row.addWidget(type_label)
        row.addWidget(self.type_combo, 1)
        self.reviewed_button = QPushButton(icon("reviewed"), self.tr("Mark reviewed"), self)
        self.reviewed_button.setObjectName("reviewed_button")
        self.reviewed_button.setToolTip(self.tr("Mark this document reviewed and go to the next one (Ctrl+Enter)"))
        self.reviewed_button.clicked.connect(self.toggle_reviewed)
        row.addWidget(self.reviewed_button)
        rl.addLayout(row)
        self.summary_label = QLabel(self)
        self.summary_label.setWordWrap(True)
        rl.addWidget(self.summary_label)
        self.duplicate_banner = DuplicateBanner(self)
        self.duplicate_banner.open_earlier.connect(self._open_earlier)
        self.duplicate_banner.keep_both.connect(self.keep_duplicate)
        self.duplicate_banner.drop_this.connect(self.drop_duplicate)
        rl.addWidget(self.duplicate_banner)
        self.tabs = QTabWidget(self)
        self.form = FieldForm(self)
        self.form.locale = self.language
        self.form.date_order = self._date_order()
        self.form.field_committed.connect(self.commit_field)
        self.form.field_focused.connect(self._on_field_focused)
        self.text_view = QPlainTextEdit(self)
        self.text_view.setObjectName("page_text")
        self.text_view.setReadOnly(True)
        self.text_view.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.tabs.addTab(self.form, self.tr("Fields"))
        self.tabs.addTab(self.text_view, self.tr("Page text"))
        self.task_panel = TaskOutputPanel(self)
        self.task_panel.language = self.language
        self.task_panel.setObjectName("task_panel")
        self.task_panel.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.tabs.addTab(self.task_panel, self.tr("Task output"))
        rl.addWidget(self.tabs, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.queue_view)
        self.splitter.addWidget(centre)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 5)
        self.splitter.setStretchFactor(2, 3)
        self.splitter.setSizes([300, 720, 460])
        self.setCentralWidget(self.splitter)

        # status bar
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

    def _build_actions(self) -> None:
        def act(text: str, slot: Any, shortcut: Any = None, icon_name: str | None = None, tip: str = "") -> QAction:
            a = QAction(text, self)
            if icon_name:
                a.setIcon(icon(icon_name))
            if shortcut is not None:
                a.setShortcuts(unique_shortcuts(*(shortcut if isinstance(shortcut, list) else [shortcut])))
            if tip:
                a.setToolTip(tip)
                a.setStatusTip(tip)
            a.triggered.connect(slot)
            self.addAction(a)
            return a

        self.open_action = act(self.tr("&Open…"), self.open_dialog, QKeySequence.StandardKey.Open, "open",
                               self.tr("Add receipts and invoices to the queue"))
        self.paste_action = act(self.tr("&Paste image"), self.paste, QKeySequence.StandardKey.Paste, "paste",
                                self.tr("Add the image on the clipboard to the queue"))
        self.export_action = act(self.tr("&Export reviewed…"), lambda: self.export_dialog("reviewed"), "Ctrl+E",
                                 "export", self.tr("Save the reviewed documents as Excel, JSON or CSV"))
        self.export_all_action = act(self.tr("Export &all…"), lambda: self.export_dialog("all"), "Ctrl+Shift+E")
        self.export_selected_action = act(self.tr("Export &selected…"), lambda: self.export_dialog("selected"))
        self.remove_action = act(self.tr("&Remove from queue"), self.remove_selected, QKeySequence.StandardKey.Delete,
                                 "remove")
        self.remove_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.queue_view.addAction(self.remove_action)
        self.resume_action = act(self.tr("Read &queued files"), self.resume_queued, None, None,
                                 self.tr("Read every file still waiting in the queue"))
        self.quit_action = act(self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit, "quit")
        self.undo_action = self.undo_stack.createUndoAction(self, self.tr("&Undo"))
        self.undo_action.setShortcuts(unique_shortcuts(QKeySequence.StandardKey.Undo))
        self.redo_action = self.undo_stack.createRedoAction(self, self.tr("&Redo"))
        # on X11 the platform's Redo *is* Ctrl+Shift+Z: binding it twice makes the key ambiguous (dead)
        self.redo_action.setShortcuts(unique_shortcuts("Ctrl+Shift+Z", "Ctrl+Y", QKeySequence.StandardKey.Redo))
        for a in (self.undo_action, self.redo_action):
            a.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
            self.addAction(a)
        self.reviewed_action = act(self.tr("Mark &reviewed"), self.mark_reviewed_and_next,
                                   [QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")], "reviewed",
                                   self.tr("Mark this document reviewed and go to the next one that needs review"))
        self.next_action = act(self.tr("&Next needing review"), self.next_needing_review, "Ctrl+.", "next-review")
        self.cancel_action = act(self.tr("&Cancel reading"), self.cancel_reading, "Esc", "cancel",
                                 self.tr("Stop reading after the current page"))
        self.cancel_action.setEnabled(False)
        self.cancel_button.setDefaultAction(self.cancel_action)
        self.settings_action = act(self.tr("&Settings…"), self.settings_dialog, QKeySequence.StandardKey.Preferences,
                                   "settings")
        self.vendors_action = act(self.tr("&Vendors…"), self.vendors_dialog, None, None,
                                  self.tr("What Shoebox learned about your vendors: rename, merge, edit, share"))
        self.vendors_action.setEnabled(self.memory is not None)
        self.about_action = act(self.tr("&About Shoebox"), lambda: show_about(self, self.engine_description), None,
                                "about")
        self.fullscreen_action = act(self.tr("&Full screen"), self.toggle_full_screen, "F11", "fullscreen")
        self.fullscreen_action.setCheckable(True)
        # viewer
        self.prev_page_action = act(self.tr("Previous page"), lambda: self.step_page(-1), "Ctrl+PgUp", "previous")
        self.next_page_action = act(self.tr("Next page"), lambda: self.step_page(1), "Ctrl+PgDown", "next")
        self.zoom_in_action = act(self.tr("Zoom &in"), self.viewer.zoom_in, QKeySequence.StandardKey.ZoomIn, "zoom-in")
        self.zoom_out_action = act(self.tr("Zoom &out"), self.viewer.zoom_out, QKeySequence.StandardKey.ZoomOut,
                                   "zoom-out")
        self.zoom_100_action = act(self.tr("&Actual size (100%)"), self.viewer.zoom_actual, "Ctrl+0", "zoom-100")
        self.fit_width_action = act(self.tr("Fit &width"), self.viewer.fit_width, "Ctrl+8", "fit-width")
        self.fit_page_action = act(self.tr("Fit &page"), self.viewer.fit_page, "Ctrl+9", "fit-page")
        self.outlines_action = act(self.tr("Show recognised &lines"), self.viewer.set_outlines_visible, "Ctrl+L",
                                   "outlines", self.tr("Outline the recognised lines on the page"))
        self.outlines_action.setCheckable(True)
        self.outlines_action.setChecked(True)
        self.rotate_left_action = act(self.tr("Rotate left and read again"), lambda: self.rotate_and_reread(-90), None,
                                      "rotate-left", self.tr("Turn this page 90° anticlockwise and read it again"))
        self.rotate_right_action = act(self.tr("Rotate right and read again"), lambda: self.rotate_and_reread(90),
                                       None, "rotate-right", self.tr("Turn this page 90° clockwise and read it again"))

        self.split_action = act(self.tr("&Split document at this page"), self.split_at_current_page, None, None,
                                self.tr("Make the page shown the first page of a new document"))
        self.merge_action = act(self.tr("&Merge with next document"), self.merge_with_next, None, None,
                                self.tr("Join the next document of the same file to this one"))

        # extra engine tasks (HunyuanOCR): enabled by _update_task_actions
        self.task_actions: dict[str, QAction] = {}
        self._task_tips = {
            "markdown": self.tr("Convert the whole document to Markdown (tables as HTML)"),
            "table": self.tr("Extract the tables as HTML (exported as an extra Excel sheet)"),
            "translate_en": self.tr("Translate the text of the document into English"),
            "translate_zh": self.tr("Translate the text of the document into Chinese"),
        }
        for task, text, icon_name in (
            ("markdown", self.tr("Convert to &Markdown"), "markdown"),
            ("table", self.tr("Extract &tables (HTML)"), "table"),
            ("translate_en", self.tr("Translate to &English"), "translate"),
            ("translate_zh", self.tr("Translate to &Chinese"), "translate"),
        ):
            a = act(text, lambda _=False, t=task: self.run_document_task(t), None, icon_name, self._task_tips[task])
            a.setObjectName(f"task_{task}")
            self.task_actions[task] = a

        mb = self.menuBar()
        m = mb.addMenu(self.tr("&File"))
        m.addActions([self.open_action, self.paste_action])
        self.recent_menu = m.addMenu(self.tr("Open &recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        m.addSeparator()
        m.addActions([self.export_action, self.export_all_action, self.export_selected_action])
        m.addSeparator()
        m.addActions([self.resume_action, self.remove_action])
        m.addSeparator()
        m.addAction(self.quit_action)
        m = mb.addMenu(self.tr("&Edit"))
        m.addActions([self.undo_action, self.redo_action])
        m.addSeparator()
        m.addActions([self.reviewed_action, self.next_action])
        m.addSeparator()
        m.addAction(self.vendors_action)
        m.addSeparator()
        m.addAction(self.cancel_action)
        m = mb.addMenu(self.tr("&View"))
        m.addActions([self.zoom_in_action, self.zoom_out_action, self.zoom_100_action, self.fit_width_action,
                      self.fit_page_action])
        m.addSeparator()
        m.addActions([self.prev_page_action, self.next_page_action, self.outlines_action])
        m.addSeparator()
        m.addActions([self.rotate_left_action, self.rotate_right_action])
        m.addSeparator()
        m.addAction(self.fullscreen_action)
        self.document_menu = m = mb.addMenu(self.tr("&Document"))
        m.setToolTipsVisible(True)  # the disabled actions say why
        m.addActions([self.split_action, self.merge_action])
        m.addSeparator()
        m.addActions([self.task_actions[t] for t in TASK_ORDER])
        m = mb.addMenu(self.tr("&Settings"))
        m.addAction(self.settings_action)
        lang = m.addMenu(self.tr("&Language"))
        group = QActionGroup(self)
        for code, name in [("system", self.tr("System language")), *LANGUAGES.items()]:
            a = lang.addAction(name)
            a.setCheckable(True)
            a.setChecked(self.settings.ui_language == code)
            a.setData(code)
            group.addAction(a)
        group.triggered.connect(self._on_language_chosen)
        m = mb.addMenu(self.tr("&Help"))
        m.addAction(self.about_action)

        tb = self.addToolBar(self.tr("Main"))
        tb.setObjectName("main_toolbar")
        tb.setIconSize(QSize(22, 22))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.addActions([self.open_action, self.paste_action, self.export_action])
        tb.addSeparator()
        tb.addActions([self.reviewed_action, self.next_action])
        tb.addSeparator()
        tb.addActions([self.cancel_action, self.settings_action])
        for a, short in ((self.open_action, self.tr("Open")), (self.paste_action, self.tr("Paste")),
                         (self.export_action, self.tr("Export")), (self.reviewed_action, self.tr("Reviewed")),
                         (self.next_action, self.tr("Next")), (self.cancel_action, self.tr("Cancel")),
                         (self.settings_action, self.tr("Settings"))):
            a.setIconText(short)

        self.task_bar = self.addToolBar(self.tr("Document tasks"))
        self.task_bar.setObjectName("task_toolbar")
        self.task_bar.setIconSize(QSize(22, 22))
        self.task_bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.task_bar.addActions([self.task_actions["markdown"], self.task_actions["table"]])
        for task, short in (("markdown", self.tr("Markdown")), ("table", self.tr("Tables"))):
            self.task_actions[task].setIconText(short)
        # one "Translate" button whose menu says into which language: a translation of the document,
        # never to be taken for the language of the window (that is Settings ▸ Language)
        self.translate_button = QToolButton(self)
        self.translate_button.setObjectName("translate_button")
        self.translate_button.setIcon(icon("translate"))
        self.translate_button.setText(self.tr("Translate document"))
        self.translate_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.translate_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        translate_menu = QMenu(self.translate_button)
        translate_menu.setToolTipsVisible(True)
        translate_menu.addActions([self.task_actions["translate_en"], self.task_actions["translate_zh"]])
        self.translate_button.setMenu(translate_menu)
        self.task_bar.addWidget(self.translate_button)
        self._update_task_actions()

        vb = self.viewer_bar
        vb.addAction(self.prev_page_action)
        vb.addWidget(self.page_label)
        vb.addAction(self.next_page_action)
        vb.addSeparator()
        vb.addActions([self.zoom_out_action])
        vb.addWidget(self.zoom_label)
        vb.addActions([self.zoom_in_action, self.zoom_100_action, self.fit_width_action, self.fit_page_action])
        vb.addSeparator()
        vb.addAction(self.outlines_action)
        vb.addSeparator()
        vb.addActions([self.rotate_left_action, self.rotate_right_action])

    # ---------------------------------------------------------------------------------- geometry
    def _qsettings(self) -> QSettings:
        return QSettings(str(user_config_dir() / "window.ini"), QSettings.Format.IniFormat)

    def _restore_geometry(self) -> None:
        qs = self._qsettings()
        geometry = qs.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1440, 900)
        for key, target in (("state", self.restoreState), ("splitter", self.splitter.restoreState)):
            value = qs.value(key)
            if isinstance(value, QByteArray) and not value.isEmpty():
                target(value)

    def _save_geometry(self) -> None:
        qs = self._qsettings()
        qs.setValue("geometry", self.saveGeometry())
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
        self.warm_requested.emit()
        self.resume_queued()
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

    # ---------------------------------------------------------------------------------- adding files
    def add_paths(self, paths: list[str | Path], remember: bool = True) -> list[int]:
        """Queue files and folders (folders are walked for supported files) and start reading them.

        Files named explicitly are queued whatever their type, so an unsupported one shows up as
        failed with its reason. Returns the new entry ids.
        """
        from desktop.core.inputs import walk_inputs  # links, loops, FIFOs, unreadable folders: named

        items: list[Path | Document] = []  # in the order given
        for raw in paths:
            p = Path(raw)
            found, errs = walk_inputs([p], supported_suffixes())
            if not p.is_dir() and errs and errs[0].error is not None and errs[0].error.code is Code.NO_SUCH_PATH:
                items.append(p)  # queued like any file: reading it says it is missing
                continue
            items.extend(Path(f) for f in found)
            items.extend(errs)
            if p.is_dir() and not found and not errs:
                self.statusBar().showMessage(self.tr("No documents found in %1").replace("%1", str(p)), 8000)
        ids = []
        for item in items:
            if isinstance(item, Document):
                ids.append(self.model.add_document(item))
                continue
            f = item
            try:
                source = str(f.resolve()) if f.exists() else str(f)
            except (OSError, RuntimeError):  # a link loop resolves to nothing
                source = os.path.abspath(f)
            entry_id = self.model.add_file(source)
            ids.append(entry_id)
            self._request_thumbnail(entry_id, source)
            self._queue_scan(entry_id)
        if remember:
            self._remember_recent([str(p) for p in paths])
        if ids and self.current_id is None:
            self.select_entry(ids[0])
        return ids

    def _remember_recent(self, paths: list[str]) -> None:
        recent = list(self.settings.recent_files or [])
        for p in paths:
            p = str(Path(p).resolve()) if Path(p).exists() else str(p)
            if p in recent:
                recent.remove(p)
            recent.insert(0, p)
        self.settings.recent_files = recent[:MAX_RECENT]
        self._save_settings()

    def _save_settings(self) -> None:
        try:
            self.settings.save()
        except OSError as exc:
            self.statusBar().showMessage(self.tr("Settings could not be saved: %1").replace("%1", str(exc)), 8000)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = [p for p in (self.settings.recent_files or []) if Path(p).exists()]
        for p in recent:
            a = self.recent_menu.addAction(Path(p).name)
            a.setToolTip(p)
            a.triggered.connect(lambda _=False, p=p: self.add_paths([p]))
        if not recent:
            a = self.recent_menu.addAction(self.tr("No recent files"))
            a.setEnabled(False)

    def open_dialog(self) -> None:
        patterns = " ".join(f"*{s}" for s in supported_suffixes())
        start = str(Path((self.settings.recent_files or [""])[0]).parent) if self.settings.recent_files else ""
        files, _ = QFileDialog.getOpenFileNames(
            self, self.tr("Open documents"), start,
            self.tr("Documents (%1)").replace("%1", patterns) + ";;" + self.tr("All files (*)"),
        )
        if files:
            self.add_paths(files)

    def paste(self) -> None:
        """Queue the files or the image on the clipboard (an image is saved under the user data folder)."""
        focus = QApplication.focusWidget()
        if isinstance(focus, QPlainTextEdit | QComboBox) or getattr(focus, "is_field_input", False):
            if hasattr(focus, "paste"):
                focus.paste()  # type: ignore[union-attr]
                return
        mime = QGuiApplication.clipboard().mimeData()
        if mime is not None and mime.hasUrls() and any(u.isLocalFile() for u in mime.urls()):
            self.add_paths([u.toLocalFile() for u in mime.urls() if u.isLocalFile()])
            return
        image = QGuiApplication.clipboard().image()
        if image.isNull():
            self.statusBar().showMessage(self.tr("The clipboard holds no image or file."), 6000)
            return
        self.add_image(image)

    def add_image(self, image: QImage) -> int | None:
        """Save a pasted image as PNG under ``user_data_dir()/pasted`` and queue it."""
        folder = user_data_dir() / "pasted"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass  # a read-only data folder: the save below fails and says where
        path = folder / f"pasted-{datetime.now():%Y%m%d-%H%M%S-%f}.png"
        if not image.save(str(path), "PNG"):
            QMessageBox.warning(self, self.tr("Paste"), self.tr("The image could not be saved to %1.").replace("%1", str(path)))
            return None
        return self.add_paths([path], remember=False)[0]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()
        elif event.mimeData().hasImage():
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        if mime.hasUrls():
            paths = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]
            if paths:
                self.add_paths(paths)
                event.acceptProposedAction()
                return
        if mime.hasImage():
            image = mime.imageData()
            if isinstance(image, QImage):
                self.add_image(image)
                event.acceptProposedAction()

    # ---------------------------------------------------------------------------------- reading
    def _date_order(self) -> str | None:
        return None if self.settings.date_locale in ("", "auto") else self.settings.date_locale

    def _options(self, document_type: str | None = None) -> Any:
        from desktop.core.pipeline import ScanOptions

        return ScanOptions(document_type=document_type or self.settings.default_document_type or "auto",
                           date_order=self._date_order(), memory=self.memory)

    def _queue_scan(self, entry_id: int) -> None:
        entry = self.model.entry(entry_id)
        if entry is None or entry_id in self._pending:
            return
        try:
            options = self._options()
        except ImportError as exc:
            self.model.fail(entry_id, self.tr("Reading is not available in this installation (%1)").replace("%1", str(exc)))
            return
        self.model.set_status(entry_id, "queued")
        if not self._pending or self._throughput is None:
            self._throughput = Throughput(0)  # a new batch: pages per minute measured afresh
        self._throughput.add_files(1)
        self._pending.add(entry_id)
        self._batch_total += 1
        self._update_progress()
        self.scan_requested.emit(entry_id, entry.source, options, self.worker.generation)

    def resume_queued(self) -> None:
        """Read every entry still waiting (after a restart or a cancel)."""
        for entry in self.model.entries():
            if entry.status in ("queued", "reading") and entry.document is None:
                self._queue_scan(entry.id)

    def cancel_reading(self) -> None:
        """Stop reading: the file being read stops after its current page; the rest stay queued."""
        if not self._pending:
            return
        self.worker.cancel()
        self.statusBar().showMessage(self.tr("Cancelling after the current page…"), 5000)

    def _update_progress(self) -> None:
        busy = bool(self._pending)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.cancel_action.setEnabled(busy)
        if busy:
            self.progress.setRange(0, max(1, self._batch_total))
            self.progress.setValue(self._batch_done)
        else:
            self._batch_total = self._batch_done = 0

    def _on_capabilities(self, names: list[str]) -> None:
        self.engine_capabilities = frozenset(names)
        self._update_task_actions()

    def _update_task_actions(self) -> None:
        """Enable each Document-menu task when the engine can do it and a read document is current;
        otherwise disable it with a tooltip saying why."""
        doc = self.current_document()
        readable = doc is not None and not doc.error and bool(doc.page_results)
        for task, action in self.task_actions.items():
            if task_family(task) not in self.engine_capabilities:
                why = (self.tr("Waiting for the OCR engine to start…") if self._engine_state == "loading" else
                       self.tr("Needs the HunyuanOCR engine on a GPU; see Settings."))
            elif not readable:
                why = self.tr("Select a document that has been read first.")
            elif self.current_id in self._pending:
                why = self.tr("This document is being read; wait until it is done.")
            else:
                why = ""
            action.setEnabled(not why)
            tip = why or self._task_tips[task]
            action.setToolTip(tip)
            action.setStatusTip(tip)
        button = getattr(self, "translate_button", None)
        if button is not None:  # enabled when either translation can run; disabled, it says why
            translations = [self.task_actions[t] for t in ("translate_en", "translate_zh")]
            button.setEnabled(any(a.isEnabled() for a in translations))
            button.setToolTip(self.tr("Translate the text of the document into English or Chinese")
                              if button.isEnabled() else translations[0].toolTip())

    def task_label(self, task: str) -> str:
        return {
            "markdown": self.tr("Convert to Markdown"),
            "table": self.tr("Extract tables"),
            "translate_en": self.tr("Translate to English"),
            "translate_zh": self.tr("Translate to Chinese"),
        }[task]

    def run_document_task(self, task: str) -> bool:
        """Run ``task`` (``markdown``, ``table``, ``translate_en``, ``translate_zh``) on every page of the
        current document in the worker thread; the output lands in the Task output tab and the session.

        Returns whether the job was queued.
        """
        entry_id, doc = self.current_id, self.current_document()
        if task not in self.task_actions or entry_id is None or doc is None or doc.error:
            return False
        if task_family(task) not in self.engine_capabilities:
            self.statusBar().showMessage(self.tr("Needs the HunyuanOCR engine on a GPU; see Settings."), 8000)
            return False
        if entry_id in self._pending:
            return False
        self.model.set_message(entry_id, self.task_label(task) + "…")
        self.task_panel.show_error("")
        self._pending.add(entry_id)
        self._batch_total += 1
        self._update_progress()
        self._update_task_actions()
        self.run_task_requested.emit(entry_id, Document.from_dict(doc.to_dict()), task, self.worker.generation)
        return True

    def _on_task_ready(self, entry_id: int, task: str, result: Document) -> None:
        """Put a task's output on the entry's document *as it is now* (the clerk may have edited it
        meanwhile): one undoable change, saved to the session at once."""
        entry = self.model.entry(entry_id)
        if entry is None or entry.document is None or entry.document.error:
            return
        before = entry.document
        after = with_task_output(before, task, result)
        self.undo_stack.push(DocumentCommand(self.model, entry_id, before, after, self.task_label(task),
                                             self.select_entry, apply_first=False))
        if self.current_id == entry_id:
            self.task_panel.set_document(after, task)
            self.tabs.setCurrentWidget(self.task_panel)
        self.statusBar().showMessage(
            self.tr("%1 done: %2").replace("%1", self.task_label(task)).replace("%2", entry.name), 8000)
        self.task_finished.emit(entry_id, task)

    def _on_task_failed(self, entry_id: int, task: str, message: str) -> None:
        entry = self.model.entry(entry_id)
        if entry is None:
            return
        text = self.tr("%1 failed: %2").replace("%1", self.task_label(task)).replace("%2", message)
        self.model.set_message(entry_id, text)
        self.statusBar().showMessage(text, 10000)
        if self.current_id == entry_id:
            self.task_panel.show_error(text)
            self.tabs.setCurrentWidget(self.task_panel)
        self.task_finished.emit(entry_id, task)

    def _on_engine_state(self, state: str, text: str) -> None:
        self._engine_state = state
        if state == "failed":
            self.statusBar().showMessage(text, 15000)
        slow = self.worker.slow_warning if state == "ready" else ""
        notes = [n.message(self.language) for n in self.worker.notes] if state == "ready" else []
        self.engine_label.show_state(state, text, self.worker.engine_name, self.worker.engine_device, slow, notes)
        if state == "ready":
            self.engine_description = text
            for note in notes:
                self.statusBar().showMessage(note, 10000)
            if slow:
                self.statusBar().showMessage(slow, 30000)

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
        if self._throughput is not None:
            self._throughput.page(page, pages, message == "done")
        if entry is not None:
            rate = f" · {self._throughput.text(self.language)}" if self._throughput is not None else ""
            self.statusBar().showMessage(f"{Path(entry.source).name}: {text}{rate}", 4000)

    def _on_documents(self, entry_id: int, documents: list[Document]) -> None:
        if self.model.entry(entry_id) is None:
            return
        if not documents:
            self.model.fail(entry_id, self.tr("Nothing was read from this file."))
            return
        self._mark_duplicates(entry_id, documents)
        self.model.set_documents(entry_id, documents)
        if self.current_id == entry_id:
            self._show_document(entry_id)

    def _on_reread(self, entry_id: int, document: Document) -> None:
        entry = self.model.entry(entry_id)
        if entry is None or entry.document is None:
            return
        self.undo_stack.push(DocumentCommand(self.model, entry_id, entry.document, document,
                                             self.tr("Rotate and read again"), self.select_entry))

    def _on_error(self, entry_id: int, problem: Diagnostic) -> None:
        entry = self.model.entry(entry_id)
        if entry is not None and entry.document is not None and not entry.document.error:
            # reading a page again failed: the document stays as it was
            message = problem.message(self.language)
            self.statusBar().showMessage(self.tr("Reading again failed: %1").replace("%1", message), 10000)
        self.model.fail(entry_id, problem)
        if self.current_id == entry_id:
            self._show_document(entry_id)

    def _on_cancelled(self, entry_id: int) -> None:
        entry = self.model.entry(entry_id)
        if entry is not None and entry.document is None:
            self.model.set_status(entry_id, "queued", self.tr("cancelled"))
        elif entry is not None:
            self.model.set_message(entry_id, self.tr("cancelled"))

    def _on_finished(self, entry_id: int) -> None:
        if entry_id in self._pending:
            self._pending.discard(entry_id)
            self._batch_done += 1
            if self._throughput is not None:
                self._throughput.file_done()
        entry = self.model.entry(entry_id)
        if entry is not None and entry.status == "reading":
            self.model.set_status(entry_id, "queued")
        self._update_progress()
        self._update_task_actions()
        if not self._pending:
            self.statusBar().showMessage(self.tr("Reading finished."), 5000)
            self.batch_finished.emit()

    def is_busy(self) -> bool:
        return bool(self._pending)

    # ---------------------------------------------------------------------------------- images
    def _next_request(self) -> int:
        self._request_seq += 1
        return self._request_seq

    def _request_thumbnail(self, entry_id: int, source: str, page: int = 1) -> None:
        req = self._next_request()
        self._thumb_requests[req] = entry_id
        self.load_requested.emit(req, "thumb", source, page, 0, THUMB_MAX_PIXELS)

    @staticmethod
    def _thumbnail_of(image: QImage) -> QPixmap:
        """A queue thumbnail (at most :data:`THUMB_MAX_PIXELS`) of a page picture."""
        scale = min(1.0, (THUMB_MAX_PIXELS / max(1, image.width() * image.height())) ** 0.5)
        small = image.scaled(max(1, int(image.width() * scale)), max(1, int(image.height() * scale)),
                             Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
        return QPixmap.fromImage(small)

    def _on_image_loaded(self, request_id: int, channel: str, image: QImage, page_w: int, page_h: int) -> None:
        if channel == "thumb":
            entry_id = self._thumb_requests.pop(request_id, None)
            if entry_id is not None:
                pixmap = QPixmap.fromImage(image)
                self.model.set_thumbnail(entry_id, pixmap)
            return
        if request_id != self._viewer_request:
            return
        if self._viewer_key is not None:
            self.previews.put(*self._viewer_key, image)
        page = self._current_page_result()
        if page is None or (page.width, page.height) != (page_w, page_h) and not page.lines:
            page = PageResult(self.current_page or 1, page_w, page_h)
        self.viewer.set_page(image, page)
        self._refresh_highlight(scroll=False)

    def _on_image_failed(self, request_id: int, channel: str, message: str) -> None:
        if channel == "thumb":
            self._thumb_requests.pop(request_id, None)
        elif request_id == self._viewer_request and self.viewer.page is None:
            self.viewer.clear(self.tr("The page could not be shown: %1").replace("%1", message))

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
            self._show_document(entry_id)
        self.queue_view.scrollTo(index)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        entry = self.model.entry_at(current.row()) if current.isValid() else None
        self._show_document(entry.id if entry else None)

    def current_document(self) -> Document | None:
        entry = self.model.entry(self.current_id) if self.current_id is not None else None
        return entry.document if entry else None

    def _current_page_result(self) -> PageResult | None:
        doc = self.current_document()
        if doc is None:
            return None
        for p in doc.page_results:
            if p.number == self.current_page:
                return p
        return None

    def _show_document(self, entry_id: int | None) -> None:
        changed = entry_id != self.current_id
        self.current_id = entry_id
        entry = self.model.entry(entry_id) if entry_id is not None else None
        doc = entry.document if entry else None
        ok = doc is not None and not doc.error
        self.type_combo.setEnabled(ok)
        if not ok:
            self.type_combo.setCurrentIndex(-1)  # shows the "—" placeholder, not some type
        self.reviewed_button.setEnabled(ok)
        self.reviewed_action.setEnabled(ok)
        for a in (self.rotate_left_action, self.rotate_right_action):
            a.setEnabled(ok and bool(doc and doc.page_results))
        self._update_task_actions()
        self.task_panel.set_document(doc if ok else None)
        if not ok:
            self.duplicate_banner.show_mark(None)
        if entry is None:
            self.title_label.setText(self.tr("No document"))
            self.summary_label.clear()
            self.summary_label.setToolTip("")
            self.form.show_message(self.tr("Drop receipts, invoices or whole folders here, or use File ▸ Open (Ctrl+O)."))
            self.viewer.clear(self.tr("Drop files here"))
            self.text_view.clear()
            self._set_page_label()
            return
        self.title_label.setText(entry.name)
        self.title_label.setToolTip(entry.source)
        if doc is None:
            self.form.show_message(self.tr("Waiting to be read…") if entry.status == "queued" else self.tr("Reading…"))
            self.summary_label.clear()
            self.summary_label.setToolTip("")
            self.text_view.clear()
            if changed:
                self.current_page = 1
                preview = self.previews.get(entry.source, 1)  # queued again after a restart
                if preview is not None:
                    self.viewer.set_page(preview, PageResult(1, preview.width(), preview.height()))
                else:
                    self.viewer.clear()
                self._load_page_image(entry.source, 1, 0)
            self._set_page_label()
            return
        if doc.error:
            self.form.show_message(self.tr("This file could not be read:\n%1").replace("%1", doc.error.message(self.language)))
            self.summary_label.clear()
            self.summary_label.setToolTip("")
            # the core's message (file name and reason) stays as written; the label around it is ours
            self._viewer_request = self._next_request()  # a page picture still loading is not wanted now
            self.viewer.clear(self.tr("Reading failed: %1").replace("%1", doc.error.message(self.language)))
            self.text_view.clear()
            self.current_page = None
            self._set_page_label()
            return
        i = self.type_combo.findData(doc.document_type)
        self.type_combo.setCurrentIndex(i)
        self.reviewed_button.setText(self.tr("Reviewed ✓") if doc.reviewed else self.tr("Mark reviewed"))
        self.reviewed_button.setCheckable(True)
        self.reviewed_button.setChecked(doc.reviewed)
        self._update_summary(doc)
        self.duplicate_banner.show_mark(doc.duplicate_of)
        self.form.set_document(doc)
        numbers = [p.number for p in doc.page_results]
        if changed or self.current_page not in numbers:
            self.current_page = numbers[0] if numbers else doc.pages[0]
            self.show_page(self.current_page)
        else:
            page = self._current_page_result()
            if page is not None and self.viewer.page is None:
                self.show_page(self.current_page)  # type: ignore[arg-type]
            elif page is not None and self.viewer.page is not None and page is not self.viewer.page:
                if page.rotation != self.viewer.page.rotation or (page.width, page.height) != (
                        self.viewer.page.width, self.viewer.page.height):
                    self.show_page(self.current_page)
                else:
                    self.viewer.set_page(self._viewer_image(), page)
                    self._refresh_highlight(scroll=False)
            if page is not None:
                self._update_text(page)
            self._set_page_label()

    def _show_zoom(self, shown: float) -> None:
        """The zoom box: a percentage, and in its tooltip what 100 % means for this page."""
        self.zoom_label.setText(f"{shown:.0%}")
        tip = (self.tr("Zoom: 100% is the size of the paper") if self.viewer.is_paper() else
               self.tr("Zoom: 100% shows one pixel of the image per pixel of the screen"))
        self.zoom_label.setToolTip(tip)
        self.zoom_100_action.setToolTip(tip)

    def _viewer_image(self) -> QImage | None:
        item = self.viewer._pixmap_item
        return item.pixmap().toImage() if item is not None else None

    def _update_summary(self, doc: Document) -> None:
        to_check = attention_count(doc)  # the same count as the queue's badge
        notes = document_notes(doc, self.language)
        shown = [n.text for n in notes if n.text]
        parts = []
        if to_check:
            parts.append("<span style='color:#e65100'>" + self.tr("%n field(s) to check", "", to_check) + "</span>")
        elif not doc.reviewed:
            parts.append("<span style='color:#2e7d32'>" + self.tr("Every field checks out") + "</span>")
        if doc.reviewed:
            parts.append("<span style='color:#2e7d32'>" + self.tr("Reviewed") + "</span>")
        if shown:
            text = "; ".join(shown[:3])
            if len(shown) > 3:
                text += " " + self.tr("(+%n more)", "", len(shown) - 3)
            parts.append("<span style='color:#616161'>" + html.escape(text) + "</span>")
        self.summary_label.setText(" · ".join(parts))
        # the core's own words (and details such as the reading resolution) stay a hover away
        self.summary_label.setToolTip("\n".join(n.raw for n in notes))

    def _set_page_label(self) -> None:
        doc = self.current_document()
        numbers = [p.number for p in doc.page_results] if doc and not doc.error else []
        self.split_action.setEnabled(bool(numbers) and self.current_page in numbers[1:])
        self.merge_action.setEnabled(self._next_to_merge() is not None)
        if self.current_page is None or not numbers:
            self.page_label.setText("")
            self.prev_page_action.setEnabled(False)
            self.next_page_action.setEnabled(False)
            return
        i = numbers.index(self.current_page) if self.current_page in numbers else 0
        self.page_label.setText(self.tr("Page %1 of %2").replace("%1", str(i + 1)).replace("%2", str(len(numbers))))
        self.prev_page_action.setEnabled(i > 0)
        self.next_page_action.setEnabled(i < len(numbers) - 1)

    def show_page(self, number: int) -> None:
        """Show page ``number`` (1-based, within the source file) of the current document."""
        doc = self.current_document()
        if doc is None:
            return
        self.current_page = number
        page = self._current_page_result()
        if page is None:
            return
        # the preview stored with the session (if any) at once; the full picture replaces it when loaded
        self.viewer.set_page(self.previews.get(doc.source, number, page.rotation), page)
        self._load_page_image(doc.source, number, page.rotation)
        self._set_page_label()
        self._update_text(page)
        self._refresh_highlight(scroll=True)
        self.page_shown.emit(self.current_id or -1, number)

    def _update_text(self, page: PageResult) -> None:
        self.text_view.setPlainText(page.text)

    def _load_page_image(self, source: str, number: int, rotation: int) -> None:
        req = self._next_request()
        self._viewer_request = req
        self._viewer_key = (source, number, rotation)
        self.loader.latest["viewer"] = req
        self.load_requested.emit(req, "viewer", source, number, rotation, VIEW_MAX_PIXELS)

    def step_page(self, step: int) -> None:
        doc = self.current_document()
        if doc is None or self.current_page is None:
            return
        numbers = [p.number for p in doc.page_results]
        if self.current_page not in numbers:
            return
        i = numbers.index(self.current_page) + step
        if 0 <= i < len(numbers):
            self.show_page(numbers[i])

    def _on_document_changed(self, entry_id: int) -> None:
        if entry_id == self.current_id:
            self._show_document(entry_id)

    # ---------------------------------------------------------------------------------- linking
    def _on_field_focused(self, name: str) -> None:
        self._refresh_highlight(scroll=True)

    def _refresh_highlight(self, scroll: bool) -> None:
        doc = self.current_document()
        name = self.form.current_field
        field = doc.fields.get(name) if doc is not None and name else None
        if field is None or not field.boxes or field.page is None:
            self.viewer.highlight([])
            return
        if field.page != self.current_page and scroll:
            self.show_page(field.page)
            return
        self.viewer.highlight(field.boxes if field.page == self.current_page else [], scroll=scroll)

    def _on_line_clicked(self, index: int, text: str, global_pos: QPoint) -> None:
        name = self.form.current_field
        if name is None or name not in self.form.rows:
            self.statusBar().showMessage(
                self.tr("Click a field in the form first, then a line on the page to copy its text into it."), 6000)
            return
        menu = QMenu(self)
        label = self.form.label_of(name)
        short = text if len(text) <= 40 else text[:39] + "…"
        fill = menu.addAction(self.tr("Put “%1” into %2").replace("%1", short).replace("%2", label))
        fill.setObjectName("fill_action")
        fill.triggered.connect(lambda: self.fill_from_line(index))
        copy = menu.addAction(self.tr("Copy text"))
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(text))
        self._fill_menu = menu
        menu.popup(global_pos)

    def fill_from_line(self, index: int, name: str | None = None) -> None:
        """Click-to-fill: put the text of line ``index`` of the current page into field ``name``
        (default: the field that last had the focus), remembering where it came from."""
        name = name or self.form.current_field
        page = self._current_page_result()
        if name is None or page is None or not 0 <= index < len(page.lines):
            return
        line = page.lines[index]
        self._edit_field(name, line.text, page=page.number, boxes=[line.box])
        self.form.focus_field(name)

    def commit_field(self, name: str, text: str) -> None:
        """The clerk typed ``text`` into field ``name``: one undoable edit."""
        self._edit_field(name, text)

    def _edit_field(self, name: str, text: str, page: int | None = None, boxes: list | None = None) -> None:
        entry_id = self.current_id
        doc = self.current_document()
        if entry_id is None or doc is None or doc.error:
            return
        try:
            after = edited_document(doc, name, text, page=page, boxes=boxes, date_order=self._date_order())
        except ImportError:  # an installation without the extraction package: keep the text as typed
            after = Document.from_dict(doc.to_dict())
            after.fields[name] = Field(name, text.strip() or None, text.strip() or None, 1.0, source="user", edited=True)
        label = self.form.label_of(name)
        self.undo_stack.push(DocumentCommand(self.model, entry_id, doc, after,
                                             self.tr("Edit %1").replace("%1", label), self.select_entry,
                                             memory=self.memory))

    def _on_type_chosen(self, index: int) -> None:
        new_type = self.type_combo.itemData(index)
        self.change_document_type(new_type)

    def change_document_type(self, new_type: str) -> None:
        """Read the current document's fields again as ``new_type`` (undoable)."""
        entry_id, doc = self.current_id, self.current_document()
        if entry_id is None or doc is None or doc.error or doc.document_type == new_type:
            return
        try:
            after = retyped_document(doc, new_type, date_order=self._date_order())
        except Exception as exc:  # shown to the clerk
            QMessageBox.warning(self, self.tr("Change type"), self.tr("The fields could not be read again: %1")
                                .replace("%1", str(exc)))
            self._show_document(entry_id)
            return
        self.undo_stack.push(DocumentCommand(self.model, entry_id, doc, after, self.tr("Change document type"),
                                             self.select_entry))

    def rotate_and_reread(self, degrees: int) -> None:
        """Turn the current page by ``degrees`` (clockwise, from how it is shown now) and read it again."""
        entry_id, doc, page = self.current_id, self.current_document(), self._current_page_result()
        if entry_id is None or doc is None or page is None:
            return
        try:
            options = self._options(doc.document_type)
        except ImportError as exc:
            QMessageBox.warning(self, self.tr("Read again"),
                                self.tr("Reading is not available in this installation (%1)").replace("%1", str(exc)))
            return
        rotation = (page.rotation + degrees) % 360
        self.model.set_message(entry_id, self.tr("reading page %1 again…").replace("%1", str(page.number)))
        self._pending.add(entry_id)
        self._batch_total += 1
        self._update_progress()
        self.reread_requested.emit(entry_id, Document.from_dict(doc.to_dict()), page.number, rotation, options)

    # ---------------------------------------------------------------------------------- page boundaries
    def split_at_current_page(self) -> None:
        """Split the current document so that the page shown starts a new document (undoable)."""
        from desktop.core.boundaries import split_document

        entry_id, doc = self.current_id, self.current_document()
        if entry_id is None or doc is None or doc.error or self.current_page is None:
            return
        try:
            first, second = split_document(doc, self.current_page)
        except ValueError as exc:
            self.statusBar().showMessage(str(exc), 5000)
            return
        self.undo_stack.push(SplitCommand(self.model, entry_id, doc, first, second, self.tr("Split document"),
                                          self.select_entry))

    def _next_to_merge(self) -> QueueEntry | None:
        """The entry after the current one when it holds the next pages of the same file."""
        doc = self.current_document()
        if self.current_id is None or doc is None or doc.error:
            return None
        nxt = self.model.entry_at(self.model.row_of(self.current_id) + 1)
        if nxt is None or nxt.document is None or nxt.document.error or nxt.source != self.model.entry(self.current_id).source:
            return None
        return nxt if nxt.document.pages[0] == doc.pages[1] + 1 else None

    def merge_with_next(self) -> None:
        """Join the next document of the same file (the following pages) to the current one (undoable)."""
        from desktop.core.boundaries import merge_documents

        entry_id, doc, nxt = self.current_id, self.current_document(), self._next_to_merge()
        if entry_id is None or doc is None or nxt is None or nxt.document is None:
            return
        try:
            merged = merge_documents(doc, nxt.document)
        except ValueError as exc:
            self.statusBar().showMessage(str(exc), 5000)
            return
        self.undo_stack.push(MergeCommand(self.model, entry_id, nxt.id, doc, nxt.document, merged,
                                          self.tr("Merge documents"), self.select_entry))

    # ---------------------------------------------------------------------------------- review
    def toggle_reviewed(self) -> None:
        doc = self.current_document()
        if doc is None or doc.error:
            return
        if doc.reviewed:
            self.set_reviewed(False)
        else:
            self.mark_reviewed_and_next()

    def set_reviewed(self, reviewed: bool) -> None:
        entry_id, doc = self.current_id, self.current_document()
        if entry_id is None or doc is None or doc.error or doc.reviewed == reviewed:
            return
        after = reviewed_document(doc, reviewed)
        text = self.tr("Mark reviewed") if reviewed else self.tr("Mark as needing review")
        self.undo_stack.push(DocumentCommand(self.model, entry_id, doc, after, text, self.select_entry,
                                             memory=self.memory))

    def mark_reviewed_and_next(self) -> None:
        """Ctrl+Enter: commit the field being typed, mark the document reviewed, go to the next one."""
        focus = QApplication.focusWidget()
        if focus is not None and getattr(focus, "is_field_input", False):
            focus._finish()  # type: ignore[attr-defined]
        self.set_reviewed(True)
        self.next_needing_review()

    def next_needing_review(self) -> None:
        entries = self.model.entries()
        if not entries:
            return
        start = self.model.row_of(self.current_id) if self.current_id is not None else -1
        for k in range(1, len(entries) + 1):
            e = entries[(start + k) % len(entries)]
            if e.status == "needs_review":
                self.select_entry(e.id)
                return
        self.statusBar().showMessage(self.tr("No document needs review."), 5000)

    def remove_selected(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        worked = [i for i in ids if (e := self.model.entry(i)) and e.document and
                  (e.document.reviewed or any(f.edited for f in e.document.fields.values()))]
        if worked:
            answer = QMessageBox.question(
                self, self.tr("Remove from queue"),
                self.tr("%n of the documents have your edits or are reviewed. Remove them anyway? "
                        "(The files themselves are not touched.)", "", len(worked)))
            if answer != QMessageBox.StandardButton.Yes:
                return
        if self.current_id in ids:
            self.current_id = None
        self.undo_stack.clear()
        self.model.remove(ids)
        self._show_document(self.model.entry_at(max(0, self.queue_view.currentIndex().row())).id
                            if self.model.rowCount() else None)

    # ---------------------------------------------------------------------------------- memory, duplicates
    def _open_memory(self) -> Any:
        """The vendor memory in the session database, or ``None`` when it cannot open (a note says so)."""
        try:
            from desktop.core.memory import VendorMemory

            return VendorMemory(self.store.path)
        except Exception as exc:
            log.exception("the vendor memory cannot open")
            self.statusBar().showMessage(self.tr("The vendor memory cannot be used: %1").replace("%1", str(exc)), 10000)
            return None

    def _mark_duplicates(self, entry_id: int, documents: list[Document]) -> None:
        """Mark documents just read that duplicate one in the queue or one the memory learned."""
        from desktop.core.duplicates import DuplicateChecker, facts_of

        known = []
        for e in self.model.entries():
            if e.id == entry_id or e.document is None or e.document.error:
                continue
            cached = self._facts.get(e.id)
            if cached is None or cached[0] is not e.document:  # documents are replaced, never changed
                cached = self._facts[e.id] = (e.document, facts_of(e.document))
            known.append(cached[1])
        if self.memory is not None:
            try:
                known += self.memory.known_documents()
            except Exception:
                log.exception("the vendor memory's documents cannot be read")
        checker = DuplicateChecker(known)
        for doc in documents:
            checker.check(doc)

    def _open_earlier(self, source: str, first_page: int) -> None:
        for e in self.model.entries():
            if e.source == source and (e.document is None or e.document.pages[0] == first_page):
                self.select_entry(e.id)
                return
        self.statusBar().showMessage(self.tr("%1 is no longer in the queue (it was confirmed earlier)")
                                     .replace("%1", source), 8000)

    def keep_duplicate(self) -> None:
        """The clerk says the current document is not a duplicate (undoable)."""
        entry_id, doc = self.current_id, self.current_document()
        if entry_id is None or doc is None or not doc.duplicate_of:
            return
        after = Document.from_dict(doc.to_dict())
        after.extras["duplicate_kept"] = dict(doc.duplicate_of)
        after.duplicate_of = None
        self.undo_stack.push(DocumentCommand(self.model, entry_id, doc, after, self.tr("Keep both"),
                                             self.select_entry, memory=self.memory))

    def drop_duplicate(self) -> None:
        """The clerk says the current document is a duplicate: it leaves the queue (the file stays)."""
        entry_id = self.current_id
        if entry_id is None:
            return
        self.current_id = None
        self.undo_stack.clear()
        self.model.remove([entry_id])
        self._show_document(self.model.entry_at(max(0, self.queue_view.currentIndex().row())).id
                            if self.model.rowCount() else None)

    def vendors_dialog(self) -> VendorsDialog | None:
        """Open the Vendors dialog (modeless; returns it)."""
        if self.memory is None:
            return None
        dialog = VendorsDialog(self.memory, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dialog.show()
        return dialog

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.queue_view.selectionModel().selectedRows()})
        return [e.id for r in rows if (e := self.model.entry_at(r))]

    # ---------------------------------------------------------------------------------- export
    def documents_for(self, scope: str) -> list[Document]:
        """``reviewed``, ``all`` (every read document) or ``selected`` documents, in queue order."""
        entries = self.model.entries()
        if scope == "selected":
            chosen = set(self.selected_ids())
            entries = [e for e in entries if e.id in chosen]
        docs = [e.document for e in entries if e.document is not None]
        if scope == "reviewed":
            docs = [d for d in docs if d.reviewed and not d.error]
        return docs

    def export_dialog(self, scope: str = "reviewed") -> None:
        documents = self.documents_for(scope)
        if not documents:
            QMessageBox.information(self, self.tr("Export"), {
                "reviewed": self.tr("No document is marked reviewed yet (Ctrl+Enter marks one)."),
                "selected": self.tr("Select documents in the queue first."),
            }.get(scope, self.tr("Nothing has been read yet.")))
            return
        folder = self.settings.last_export_dir or str(Path.home())
        suggested = str(Path(folder) / f"shoebox-{datetime.now():%Y-%m-%d}.xlsx")
        path, chosen = QFileDialog.getSaveFileName(
            self, self.tr("Export %n document(s)", "", len(documents)), suggested,
            self.tr("Excel workbook (*.xlsx)") + ";;" + self.tr("JSON (*.json)") + ";;" + self.tr("CSV (*.csv)"),
        )
        if not path:
            return
        p = Path(path)
        if p.suffix.lower() not in (".xlsx", ".json", ".csv"):
            p = p.with_suffix("." + chosen.split("*.")[-1].rstrip(")") if "*." in chosen else ".xlsx")
        self.export_documents(documents, p)

    def export_documents(self, documents: list[Document], path: Path) -> bool:
        """Write ``documents`` to ``path`` (format by suffix) all or nothing; tells the clerk either way.

        The file is first written next to the target under a temporary name and then renamed over
        it, so a failure never leaves a half-written file.
        """
        path = Path(path)
        tmp = path.with_name(f".{path.stem}.partial-{os.getpid()}{path.suffix}")
        try:
            from desktop.core.export import export

            export(documents, tmp)
            os.replace(tmp, path)
        except Exception as exc:  # ExportError, OSError: shown to the clerk
            tmp.unlink(missing_ok=True)
            QMessageBox.warning(self, self.tr("Export failed"),
                                self.tr("%1 could not be written:\n%2").replace("%1", str(path)).replace("%2", str(exc)))
            return False
        self.settings.last_export_dir = str(path.parent)
        self._save_settings()
        self.statusBar().showMessage(
            self.tr("Exported %n document(s) to %1", "", len(documents)).replace("%1", str(path)), 10000)
        return True

    # ---------------------------------------------------------------------------------- settings
    def settings_dialog(self) -> None:
        dialog = SettingsDialog(self.settings, self.language, self)
        if dialog.exec() != SettingsDialog.DialogCode.Accepted:
            return
        new = dialog.result_settings()
        engine_keys = ("engine", "model_dir", "server_url", "server_api_key", "server_max_in_flight",
                       "server_cpu_fallback", "server_allow_public")
        engine_changed = any(getattr(new, k) != getattr(self.settings, k) for k in engine_keys)
        language_changed = new.ui_language != self.settings.ui_language
        self.settings = new
        self._save_settings()
        self.form.date_order = self._date_order()
        if engine_changed:
            self.worker.set_engine_factory(default_engine_factory(new.engine, new.model_dir))
            self._engine_state = "loading"
            self._on_capabilities([])
            self.engine_label.setText(self.tr("Restarting the OCR engine…"))
            self.warm_requested.emit()
        if language_changed:
            self._language_note()

    def _on_language_chosen(self, action: QAction) -> None:
        code = action.data()
        if code != self.settings.ui_language:
            self.settings.ui_language = code
            self._save_settings()
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
        return self.worker_thread.isRunning() or self.loader_thread.isRunning()

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
        self.worker.stop_now()
        # queued behind the job in progress (later jobs are skipped); it quits the thread's loop
        QMetaObject.invokeMethod(self.worker, "shutdown", Qt.ConnectionType.QueuedConnection)
        self.loader.stop_now()
        QMetaObject.invokeMethod(self.loader, "shutdown", Qt.ConnectionType.QueuedConnection)
        for thread in (self.worker_thread, self.loader_thread):
            if not thread.wait(THREAD_STOP_TIMEOUT_MS):
                log.error("%s did not stop", thread.objectName())
        try:
            if self.memory is not None:
                self.memory.close()
            self.store.close()
        except Exception:
            log.exception("closing the session failed")
