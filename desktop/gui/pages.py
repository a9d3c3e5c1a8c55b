"""The page view controller: which page of the current document is shown, its picture, and the links
between the page and the form.

:class:`PageController` owns the :class:`~desktop.gui.worker.ImageLoader` thread (page pictures for the
viewer, thumbnails for the queue), keeps the page shown, outlines the boxes of the field being edited,
and offers a clicked line's text for the current field (click-to-fill).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QMetaObject, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication, QImage, QPixmap
from PySide6.QtWidgets import QMenu

from desktop.core.model import Document, PageResult
from desktop.gui.previews import PreviewCache
from desktop.gui.worker import ImageLoader, WorkerThread

if TYPE_CHECKING:
    from desktop.gui.mainwindow import MainWindow

__all__ = ["THUMB_MAX_PIXELS", "VIEW_MAX_PIXELS", "PageController"]

VIEW_MAX_PIXELS = 8_000_000
"""Largest page picture kept for the viewer (bigger scans are downscaled; boxes stay in page pixels).
8 Mpx is a full-screen page on a 4K monitor; as a 32-bit pixmap it is 32 MB."""
THUMB_MAX_PIXELS = 96 * 128


class PageController(QObject):
    """The page shown in the window's viewer.

    Args:
        window: the main window (viewer, page text, page label and page actions, form, status bar).

    Attributes:
        current_page: the page shown (1-based, within the source file), ``None`` when none is.
        fill_menu: the last click-to-fill menu (tests close it).

    Signals:
        load_requested(request_id, channel, path, page, rotation, max_pixels): to the loader thread.
        page_shown(entry_id, page): a page of the current document is shown.
    """

    load_requested = Signal(int, str, str, int, int, int)
    page_shown = Signal(int, int)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.viewer = window.viewer
        self.current_page: int | None = None
        self.fill_menu: QMenu | None = None
        self._request_seq = 0
        self._viewer_request = 0
        self._thumb_requests: dict[int, int] = {}
        self.previews = PreviewCache(window.store)  # page pictures shown at once after a restart
        self._viewer_key: tuple[str, int, int] | None = None  # (source, page, rotation) being loaded
        self.loader = ImageLoader()
        self.loader.language = window.language
        self.thread = WorkerThread("shoebox-images", window)
        self.loader.moveToThread(self.thread)
        self.load_requested.connect(self.loader.load)
        self.loader.loaded.connect(self._on_image_loaded)
        self.loader.failed.connect(self._on_image_failed)
        self.thread.start()

    # -- pictures ------------------------------------------------------------------------------------
    def _next_request(self) -> int:
        self._request_seq += 1
        return self._request_seq

    def forget_pending_picture(self) -> None:
        """A page picture still loading is not wanted any more (the document shown changed)."""
        self._viewer_request = self._next_request()

    def request_thumbnail(self, entry_id: int, source: str, page: int = 1) -> None:
        req = self._next_request()
        self._thumb_requests[req] = entry_id
        self.load_requested.emit(req, "thumb", source, page, 0, THUMB_MAX_PIXELS)

    def thumbnail_from_preview(self, entry_id: int, source: str, document: Document | None) -> None:
        """The queue thumbnail of an entry from its stored preview (at start-up), else from its file."""
        preview = self.previews.get(source, document.pages[0] if document else 1)
        if preview is None:
            self.request_thumbnail(entry_id, source)
            return
        scale = min(1.0, (THUMB_MAX_PIXELS / max(1, preview.width() * preview.height())) ** 0.5)
        small = preview.scaled(max(1, int(preview.width() * scale)), max(1, int(preview.height() * scale)),
                               Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
        self.window.model.set_thumbnail(entry_id, QPixmap.fromImage(small))

    def show_preview_of_queued(self, source: str) -> None:
        """A file still to be read (queued again after a restart): its first page's preview, if stored."""
        preview = self.previews.get(source, 1)
        if preview is not None:
            self.viewer.set_page(preview, PageResult(1, preview.width(), preview.height()))
        else:
            self.viewer.clear()

    def load_page_image(self, source: str, number: int, rotation: int) -> None:
        req = self._next_request()
        self._viewer_request = req
        self._viewer_key = (source, number, rotation)
        self.loader.latest["viewer"] = req
        self.load_requested.emit(req, "viewer", source, number, rotation, VIEW_MAX_PIXELS)

    def _on_image_loaded(self, request_id: int, channel: str, image: QImage, page_w: int, page_h: int) -> None:
        if channel == "thumb":
            entry_id = self._thumb_requests.pop(request_id, None)
            if entry_id is not None:
                self.window.model.set_thumbnail(entry_id, QPixmap.fromImage(image))
            return
        if request_id != self._viewer_request:
            return
        if self._viewer_key is not None:
            self.previews.put(*self._viewer_key, image)
        page = self.page_result()
        if page is None or (page.width, page.height) != (page_w, page_h) and not page.lines:
            page = PageResult(self.current_page or 1, page_w, page_h)
        self.viewer.set_page(image, page)
        self.refresh_highlight(scroll=False)

    def _on_image_failed(self, request_id: int, channel: str, message: str) -> None:
        if channel == "thumb":
            self._thumb_requests.pop(request_id, None)
        elif request_id == self._viewer_request and self.viewer.page is None:
            self.viewer.clear(self.tr("The page could not be shown: %1").replace("%1", message))

    def viewer_image(self) -> QImage | None:
        item = self.viewer._pixmap_item
        return item.pixmap().toImage() if item is not None else None

    # -- the page shown ----------------------------------------------------------------------------------
    def page_result(self) -> PageResult | None:
        """The reading of the page shown (``None``: no read document, or the page is not one of its)."""
        doc = self.window.current_document()
        if doc is None:
            return None
        return next((p for p in doc.page_results if p.number == self.current_page), None)

    def numbers(self) -> list[int]:
        doc = self.window.current_document()
        return [p.number for p in doc.page_results] if doc and not doc.error else []

    def show_page(self, number: int) -> None:
        """Show page ``number`` (1-based, within the source file) of the current document."""
        doc = self.window.current_document()
        if doc is None:
            return
        self.current_page = number
        page = self.page_result()
        if page is None:
            return
        # the preview stored with the session (if any) at once; the full picture replaces it when loaded
        self.viewer.set_page(self.previews.get(doc.source, number, page.rotation), page)
        self.load_page_image(doc.source, number, page.rotation)
        self.update_page_label()
        self.window.text_view.setPlainText(page.text)
        self.refresh_highlight(scroll=True)
        self.page_shown.emit(self.window.current_id or -1, number)

    def show_document_pages(self, changed: bool) -> None:
        """The current (read) document was shown or changed: keep the page shown when it is still one of
        its pages, with the new reading drawn over it; else show its first page."""
        doc = self.window.current_document()
        if doc is None:
            return
        numbers = [p.number for p in doc.page_results]
        if changed or self.current_page not in numbers:
            self.current_page = numbers[0] if numbers else doc.pages[0]
            self.show_page(self.current_page)
            return
        page, shown = self.page_result(), self.viewer.page
        if page is not None and shown is None:
            self.show_page(page.number)
        elif page is not None and shown is not None and page is not shown:
            if page.rotation != shown.rotation or (page.width, page.height) != (shown.width, shown.height):
                self.show_page(page.number)
            else:
                self.viewer.set_page(self.viewer_image(), page)
                self.refresh_highlight(scroll=False)
        if page is not None:
            self.window.text_view.setPlainText(page.text)
        self.update_page_label()

    def step_page(self, step: int) -> None:
        numbers, current = self.numbers(), self.current_page
        if current is None or current not in numbers:
            return
        i = numbers.index(current) + step
        if 0 <= i < len(numbers):
            self.show_page(numbers[i])

    def update_page_label(self) -> None:
        """The page label, the page actions, and the split and merge actions for the page shown."""
        window = self.window
        numbers = self.numbers()
        window.split_action.setEnabled(window.reviewing.can_split())
        window.merge_action.setEnabled(window.reviewing.next_to_merge() is not None)
        if self.current_page is None or not numbers:
            window.page_label.setText("")
            window.prev_page_action.setEnabled(False)
            window.next_page_action.setEnabled(False)
            return
        i = numbers.index(self.current_page) if self.current_page in numbers else 0
        window.page_label.setText(self.tr("Page %1 of %2").replace("%1", str(i + 1)).replace("%2", str(len(numbers))))
        window.prev_page_action.setEnabled(i > 0)
        window.next_page_action.setEnabled(i < len(numbers) - 1)

    # -- linking the page and the form ---------------------------------------------------------------------
    def refresh_highlight(self, scroll: bool) -> None:
        """Outline the boxes of the form's current field (turning to its page when ``scroll``)."""
        doc = self.window.current_document()
        name = self.window.form.current_field
        field = doc.fields.get(name) if doc is not None and name else None
        if field is None or not field.boxes or field.page is None:
            self.viewer.highlight([])
            return
        if field.page != self.current_page and scroll:
            self.show_page(field.page)
            return
        self.viewer.highlight(field.boxes if field.page == self.current_page else [], scroll=scroll)

    def on_line_clicked(self, index: int, text: str, global_pos: QPoint) -> None:
        form = self.window.form
        name = form.current_field
        if name is None or name not in form.rows:
            self.window.statusBar().showMessage(
                self.tr("Click a field in the form first, then a line on the page to copy its text into it."), 6000)
            return
        menu = QMenu(self.window)
        label = form.label_of(name)
        short = text if len(text) <= 40 else text[:39] + "…"
        fill = menu.addAction(self.tr("Put “%1” into %2").replace("%1", short).replace("%2", label))
        fill.setObjectName("fill_action")
        fill.triggered.connect(lambda: self.fill_from_line(index))
        copy = menu.addAction(self.tr("Copy text"))
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(text))
        self.fill_menu = menu
        menu.popup(global_pos)

    def fill_from_line(self, index: int, name: str | None = None) -> None:
        """Click-to-fill: put the text of line ``index`` of the page shown into field ``name`` (default:
        the field that last had the focus), remembering where it came from."""
        form = self.window.form
        name = name or form.current_field
        page = self.page_result()
        if name is None or page is None or not 0 <= index < len(page.lines):
            return
        line = page.lines[index]
        self.window.reviewing.edit_field(name, line.text, page=page.number, boxes=[line.box])
        form.focus_field(name)

    # -- closing -------------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop loading pictures; the caller waits for :attr:`thread`."""
        self.loader.stop_now()
        QMetaObject.invokeMethod(self.loader, "shutdown", Qt.ConnectionType.QueuedConnection)
