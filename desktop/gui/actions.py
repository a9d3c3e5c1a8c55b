"""The window's actions, menus and toolbars.

:class:`WindowActions` creates every ``QAction`` of the main window (shortcuts, icons, tips), connects it
to the controller that does the work, and lays them out in the menus and toolbars. The actions are
attributes of the window (``window.open_action``, ``window.task_actions["table"]``) so the window, its
controllers and tests reach them by name.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QToolButton

from desktop.gui.dialogs import show_about
from desktop.gui.resources import LANGUAGES, icon
from desktop.gui.taskview import TASK_ORDER

if TYPE_CHECKING:
    from desktop.gui.mainwindow import MainWindow

__all__ = ["WindowActions", "unique_shortcuts"]


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


class WindowActions(QObject):
    """Builds the actions, menus and toolbars of ``window`` (in this order: the menus and toolbars use
    the actions).

    Args:
        window: the main window, with its widgets and controllers built.
    """

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.build_actions()
        self.build_menus()
        self.build_toolbars()

    def _maker(self) -> Callable[..., QAction]:
        w = self.window

        def act(text: str, slot: Any, shortcut: Any = None, icon_name: str | None = None, tip: str = "") -> QAction:
            a = QAction(text, w)
            if icon_name:
                a.setIcon(icon(icon_name))
            if shortcut is not None:
                a.setShortcuts(unique_shortcuts(*(shortcut if isinstance(shortcut, list) else [shortcut])))
            if tip:
                a.setToolTip(tip)
                a.setStatusTip(tip)
            a.triggered.connect(slot)
            w.addAction(a)
            return a

        return act

    def build_actions(self) -> None:
        """Create the window's actions (see the module docstring)."""
        w = self.window
        act = self._maker()
        adding, reading, reviewing, pages, viewer = w.adding, w.reading, w.reviewing, w.pages, w.viewer
        w.open_action = act(self.tr("&Open…"), adding.open_dialog, QKeySequence.StandardKey.Open, "open",
                            self.tr("Add receipts and invoices to the queue"))
        w.paste_action = act(self.tr("&Paste image"), adding.paste, QKeySequence.StandardKey.Paste, "paste",
                             self.tr("Add the image on the clipboard to the queue"))
        w.export_action = act(self.tr("&Export reviewed…"), lambda: w.exporting.export_dialog("reviewed"), "Ctrl+E",
                              "export", self.tr("Save the reviewed documents as Excel, JSON or CSV"))
        w.export_all_action = act(self.tr("Export &all…"), lambda: w.exporting.export_dialog("all"), "Ctrl+Shift+E")
        w.export_selected_action = act(self.tr("Export &selected…"), lambda: w.exporting.export_dialog("selected"))
        w.remove_action = act(self.tr("&Remove from queue"), reviewing.remove_selected, QKeySequence.StandardKey.Delete,
                              "remove")
        w.remove_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        w.queue_view.addAction(w.remove_action)
        w.resume_action = act(self.tr("Read &queued files"), reading.resume_queued, None, None,
                              self.tr("Read every file still waiting in the queue"))
        w.quit_action = act(self.tr("&Quit"), w.close, QKeySequence.StandardKey.Quit, "quit")
        w.undo_action = w.undo_stack.createUndoAction(w, self.tr("&Undo"))
        w.undo_action.setShortcuts(unique_shortcuts(QKeySequence.StandardKey.Undo))
        w.redo_action = w.undo_stack.createRedoAction(w, self.tr("&Redo"))
        # on X11 the platform's Redo *is* Ctrl+Shift+Z: binding it twice makes the key ambiguous (dead)
        w.redo_action.setShortcuts(unique_shortcuts("Ctrl+Shift+Z", "Ctrl+Y", QKeySequence.StandardKey.Redo))
        for a in (w.undo_action, w.redo_action):
            a.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
            w.addAction(a)
        w.reviewed_action = act(self.tr("Mark &reviewed"), reviewing.mark_reviewed_and_next,
                                [QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")], "reviewed",
                                self.tr("Mark this document reviewed and go to the next one not yet reviewed"))
        w.next_action = act(self.tr("&Next not yet reviewed"), reviewing.next_needing_review, "Ctrl+.", "next-review")
        w.cancel_action = act(self.tr("&Cancel reading"), reading.cancel_reading, "Esc", "cancel",
                              self.tr("Stop reading after the current page"))
        w.cancel_action.setEnabled(False)
        w.cancel_button.setDefaultAction(w.cancel_action)
        w.settings_action = act(self.tr("&Settings…"), w.settings_dialog, QKeySequence.StandardKey.Preferences, "settings")
        w.vendors_action = act(self.tr("&Vendors…"), w.vendors_dialog, None, None,
                               self.tr("What Shoebox learned about your vendors: rename, merge, edit, share"))
        w.vendors_action.setEnabled(w.memory is not None)
        w.about_action = act(self.tr("&About Shoebox"), lambda: show_about(w, reading.engine_description), None, "about")
        w.fullscreen_action = act(self.tr("&Full screen"), w.toggle_full_screen, "F11", "fullscreen")
        w.fullscreen_action.setCheckable(True)
        # viewer
        w.prev_page_action = act(self.tr("Previous page"), lambda: pages.step_page(-1), "Ctrl+PgUp", "previous")
        w.next_page_action = act(self.tr("Next page"), lambda: pages.step_page(1), "Ctrl+PgDown", "next")
        w.zoom_in_action = act(self.tr("Zoom &in"), viewer.zoom_in, QKeySequence.StandardKey.ZoomIn, "zoom-in")
        w.zoom_out_action = act(self.tr("Zoom &out"), viewer.zoom_out, QKeySequence.StandardKey.ZoomOut, "zoom-out")
        w.zoom_100_action = act(self.tr("&Actual size (100%)"), viewer.zoom_actual, "Ctrl+0", "zoom-100")
        w.fit_width_action = act(self.tr("Fit &width"), viewer.fit_width, "Ctrl+8", "fit-width")
        w.fit_page_action = act(self.tr("Fit &page"), viewer.fit_page, "Ctrl+9", "fit-page")
        w.outlines_action = act(self.tr("Show recognised &lines"), viewer.set_outlines_visible, "Ctrl+L",
                                "outlines", self.tr("Outline the recognised lines on the page"))
        w.outlines_action.setCheckable(True)
        w.outlines_action.setChecked(True)
        w.rotate_left_action = act(self.tr("Rotate left and read again"), lambda: reading.rotate_and_reread(-90), None,
                                   "rotate-left", self.tr("Turn this page 90° anticlockwise and read it again"))
        w.rotate_right_action = act(self.tr("Rotate right and read again"), lambda: reading.rotate_and_reread(90),
                                    None, "rotate-right", self.tr("Turn this page 90° clockwise and read it again"))
        w.split_action = act(self.tr("&Split document at this page"), reviewing.split_at_current_page, None, None,
                             self.tr("Make the page shown the first page of a new document"))
        w.merge_action = act(self.tr("&Merge with next document"), reviewing.merge_with_next, None, None,
                             self.tr("Join the next document of the same file to this one"))
        self._build_task_actions(act)

    def _build_task_actions(self, act: Callable[..., QAction]) -> None:
        """The extra engine tasks (HunyuanOCR), enabled by :meth:`MainWindow.update_task_actions`."""
        w = self.window
        w.task_actions = {}
        w.task_tips = {
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
            a = act(text, lambda _=False, t=task: w.reading.run_document_task(t), None, icon_name, w.task_tips[task])
            a.setObjectName(f"task_{task}")
            w.task_actions[task] = a

    def build_menus(self) -> None:
        """The menu bar: File, Edit, View, Document, Settings, Help."""
        w = self.window
        mb = w.menuBar()
        m = mb.addMenu(self.tr("&File"))
        m.addActions([w.open_action, w.paste_action])
        w.recent_menu = m.addMenu(self.tr("Open &recent"))
        w.recent_menu.aboutToShow.connect(lambda: w.adding.fill_recent_menu(w.recent_menu))
        m.addSeparator()
        m.addActions([w.export_action, w.export_all_action, w.export_selected_action])
        m.addSeparator()
        m.addActions([w.resume_action, w.remove_action])
        m.addSeparator()
        m.addAction(w.quit_action)
        m = mb.addMenu(self.tr("&Edit"))
        m.addActions([w.undo_action, w.redo_action])
        m.addSeparator()
        m.addActions([w.reviewed_action, w.next_action])
        m.addSeparator()
        m.addAction(w.vendors_action)
        m.addSeparator()
        m.addAction(w.cancel_action)
        m = mb.addMenu(self.tr("&View"))
        m.addActions([w.zoom_in_action, w.zoom_out_action, w.zoom_100_action, w.fit_width_action, w.fit_page_action])
        m.addSeparator()
        m.addActions([w.prev_page_action, w.next_page_action, w.outlines_action])
        m.addSeparator()
        m.addActions([w.rotate_left_action, w.rotate_right_action])
        m.addSeparator()
        m.addAction(w.fullscreen_action)
        w.document_menu = m = mb.addMenu(self.tr("&Document"))
        m.setToolTipsVisible(True)  # the disabled actions say why
        m.addActions([w.split_action, w.merge_action])
        m.addSeparator()
        m.addActions([w.task_actions[t] for t in TASK_ORDER])
        m = mb.addMenu(self.tr("&Settings"))
        m.addAction(w.settings_action)
        lang = m.addMenu(self.tr("&Language"))
        group = QActionGroup(w)
        for code, name in [("system", self.tr("System language")), *LANGUAGES.items()]:
            a = lang.addAction(name)
            a.setCheckable(True)
            a.setChecked(w.settings.ui_language == code)
            a.setData(code)
            group.addAction(a)
        group.triggered.connect(w.on_language_chosen)
        m = mb.addMenu(self.tr("&Help"))
        m.addAction(w.about_action)

    def build_toolbars(self) -> None:
        """The main toolbar, the document-task toolbar and the viewer's page toolbar."""
        w = self.window
        tb = w.addToolBar(self.tr("Main"))
        tb.setObjectName("main_toolbar")
        tb.setIconSize(QSize(22, 22))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.addActions([w.open_action, w.paste_action, w.export_action])
        tb.addSeparator()
        tb.addActions([w.reviewed_action, w.next_action])
        tb.addSeparator()
        tb.addActions([w.cancel_action, w.settings_action])
        for a, short in ((w.open_action, self.tr("Open")), (w.paste_action, self.tr("Paste")),
                         (w.export_action, self.tr("Export")), (w.reviewed_action, self.tr("Reviewed")),
                         (w.next_action, self.tr("Next")), (w.cancel_action, self.tr("Cancel")),
                         (w.settings_action, self.tr("Settings"))):
            a.setIconText(short)

        w.task_bar = w.addToolBar(self.tr("Document tasks"))
        w.task_bar.setObjectName("task_toolbar")
        w.task_bar.setIconSize(QSize(22, 22))
        w.task_bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        w.task_bar.addActions([w.task_actions["markdown"], w.task_actions["table"]])
        for task, short in (("markdown", self.tr("Markdown")), ("table", self.tr("Tables"))):
            w.task_actions[task].setIconText(short)
        # one "Translate document" button whose menu says into which language: a translation of the
        # document, never to be taken for the language of the window (that is Settings ▸ Language)
        button = w.translate_button = QToolButton(w)
        button.setObjectName("translate_button")
        button.setIcon(icon("translate"))
        button.setText(self.tr("Translate document"))
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        translate_menu = QMenu(button)
        translate_menu.setToolTipsVisible(True)
        translate_menu.addActions([w.task_actions["translate_en"], w.task_actions["translate_zh"]])
        button.setMenu(translate_menu)
        w.task_bar.addWidget(button)

        vb = w.viewer_bar
        vb.addAction(w.prev_page_action)
        vb.addWidget(w.page_label)
        vb.addAction(w.next_page_action)
        vb.addSeparator()
        vb.addActions([w.zoom_out_action])
        vb.addWidget(w.zoom_label)
        vb.addActions([w.zoom_in_action, w.zoom_100_action, w.fit_width_action, w.fit_page_action])
        vb.addSeparator()
        vb.addAction(w.outlines_action)
        vb.addSeparator()
        vb.addActions([w.rotate_left_action, w.rotate_right_action])
