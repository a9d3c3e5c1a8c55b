"""Files into the queue: the Open dialog, recent files, paste, drag and drop.

:class:`AddController` walks what the clerk gives (folders for supported files; links, loops and
unreadable folders named by :func:`desktop.core.inputs.walk_inputs`), queues each file and sends it
to the reader, and remembers the recent files in the user settings.
"""
from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData, QObject
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QComboBox, QFileDialog, QMenu, QMessageBox, QPlainTextEdit

from desktop.core.diagnostics import Code
from desktop.core.model import Document
from desktop.core.settings import user_data_dir

if TYPE_CHECKING:
    from desktop.gui.mainwindow import MainWindow

__all__ = ["FALLBACK_SUFFIXES", "MAX_RECENT", "AddController", "supported_suffixes"]

FALLBACK_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp", ".heic", ".heif", ".pdf")
MAX_RECENT = 10


def supported_suffixes() -> tuple[str, ...]:
    """``intake.SUPPORTED_SUFFIXES`` (a built-in list when the intake module is not importable)."""
    try:
        from desktop.core.intake import SUPPORTED_SUFFIXES
    except ImportError:
        return FALLBACK_SUFFIXES
    return tuple(SUPPORTED_SUFFIXES)


def _local_paths(mime: QMimeData | None) -> list[str]:
    if mime is None or not mime.hasUrls():
        return []
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]


class AddController(QObject):
    """Adds files to the window's queue.

    Args:
        window: the main window (queue model, reader, page controller, settings, status bar).
    """

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    def add_paths(self, paths: list[str | Path], remember: bool = True, show: bool = False) -> list[int]:
        """Queue files and folders (folders are walked for supported files) and start reading them.

        Files named explicitly are queued whatever their type, so an unsupported one shows up as
        failed with its reason. The first new entry is selected when nothing is, or with ``show``
        (files the clerk opened by starting Shoebox with them, over a restored session's selection);
        files dropped while a document is open leave it open. Returns the new entry ids.
        """
        from desktop.core.inputs import skipped_note, walk_inputs  # links, loops, FIFOs, unreadable folders: named

        window, model = self.window, self.window.model
        items: list[Path | Document] = []  # in the order given
        skipped: list[Path] = []  # files in the folders that are no document by name or content
        for raw in paths:
            p = Path(raw)
            found, errs = walk_inputs([p], supported_suffixes(), skipped)
            if not p.is_dir() and errs and errs[0].error is not None and errs[0].error.code is Code.NO_SUCH_PATH:
                items.append(p)  # queued like any file: reading it says it is missing
                continue
            items.extend(Path(f) for f in found)
            items.extend(errs)
            if p.is_dir() and not found and not errs:
                window.statusBar().showMessage(self.tr("No documents found in %1").replace("%1", str(p)), 8000)
        note = skipped_note(skipped)
        if note is not None:  # said, not passed over: after "No documents found", which it explains
            current = window.statusBar().currentMessage()
            text = note.message(window.language)
            window.statusBar().showMessage(f"{current} – {text}" if current else text, 15000)
        ids = []
        for item in items:
            if isinstance(item, Document):
                ids.append(model.add_document(item))
                continue
            try:
                source = str(item.resolve()) if item.exists() else str(item)
            except (OSError, RuntimeError):  # a link loop resolves to nothing
                source = os.path.abspath(item)
            entry_id = model.add_file(source)
            ids.append(entry_id)
            window.pages.request_thumbnail(entry_id, source)
            window.reading.queue_scan(entry_id)
        if remember:
            self.remember_recent([str(p) for p in paths])
        if ids and (show or window.current_id is None):
            window.select_entry(ids[0])
        return ids

    def remember_recent(self, paths: list[str]) -> None:
        settings = self.window.settings
        recent = list(settings.recent_files or [])
        for p in paths:
            p = str(Path(p).resolve()) if Path(p).exists() else str(p)
            if p in recent:
                recent.remove(p)
            recent.insert(0, p)
        settings.recent_files = recent[:MAX_RECENT]
        self.window.save_settings()

    def fill_recent_menu(self, menu: QMenu) -> None:
        menu.clear()
        recent = [p for p in (self.window.settings.recent_files or []) if Path(p).exists()]
        for p in recent:
            a = menu.addAction(Path(p).name)
            a.setToolTip(p)
            a.triggered.connect(lambda _=False, p=p: self.add_paths([p]))
        if not recent:
            a = menu.addAction(self.tr("No recent files"))
            a.setEnabled(False)

    def open_dialog(self) -> None:
        settings = self.window.settings
        patterns = " ".join(f"*{s}" for s in supported_suffixes())
        start = str(Path((settings.recent_files or [""])[0]).parent) if settings.recent_files else ""
        files, _ = QFileDialog.getOpenFileNames(
            self.window, self.tr("Open documents"), start,
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
        paths = _local_paths(QGuiApplication.clipboard().mimeData())
        if paths:
            self.add_paths(paths)
            return
        image = QGuiApplication.clipboard().image()
        if image.isNull():
            self.window.statusBar().showMessage(self.tr("The clipboard holds no image or file."), 6000)
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
            QMessageBox.warning(self.window, self.tr("Paste"),
                                self.tr("The image could not be saved to %1.").replace("%1", str(path)))
            return None
        return self.add_paths([path], remember=False)[0]

    @staticmethod
    def accepts(mime: QMimeData) -> bool:
        """Whether a drag carries local files or an image."""
        return bool(_local_paths(mime)) or mime.hasImage()

    def drop(self, mime: QMimeData) -> bool:
        """Queue what was dropped (local files, else an image); returns whether anything was taken."""
        paths = _local_paths(mime)
        if paths:
            self.add_paths(paths)
            return True
        if mime.hasImage():
            image = mime.imageData()
            if isinstance(image, QImage):
                self.add_image(image)
                return True
        return False
