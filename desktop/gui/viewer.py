"""The page viewer: the page image with the recognised lines outlined over it.

Scene coordinates are **page pixels** (see :mod:`desktop.core.model`): the pixmap item is scaled by
``page width / image width``, so boxes from the result model are drawn as they are, whatever
downscaling the loaded image had. Outlines use cosmetic pens (their width is in device-independent
pixels at any zoom), and Qt maps the view to device pixels itself, so drawing stays sharp on HiDPI
screens.

What "100 %" means depends on the page, as in a PDF reader or an image viewer (:meth:`PageViewer.shown_zoom`):

* a PDF page (``PageResult.dpi`` set): the paper's own size, taking the screen at
  :data:`SCREEN_DPI` logical pixels per inch (the CSS pixel, which browsers' PDF viewers use for
  100 %); the zoom no longer depends on the resolution Shoebox rendered the page at;
* an image: one image pixel per *physical* screen pixel (it divides by the window's
  ``devicePixelRatioF``).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QPolygonF,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsTextItem,
    QGraphicsView,
    QWidget,
)

from desktop.core.model import Box, Line, PageResult

ZOOM_STEP = 1.25
SCREEN_DPI = 96.0
"""Logical pixels per inch of the screen for "100 % = the paper's size" (CSS reference pixel; Qt's
logical DPI on Windows, X11 and Wayland at 100 % scale)."""
MIN_ZOOM, MAX_ZOOM = 0.02, 16.0
MESSAGE_MARGIN = 24
SLANT_DEGREES = 2.0
"""A line whose top edge slants more than this is outlined by its quadrilateral, not its box."""

LINE_PEN = QColor(30, 136, 229, 200)
LINE_FILL = QColor(30, 136, 229, 28)
LOW_PEN = QColor(229, 115, 0, 230)
HIGHLIGHT_PEN = QColor(216, 27, 96)
HIGHLIGHT_FILL = QColor(255, 235, 59, 90)


def slanted_quad(line: Line, margin: float = 0.0) -> QPolygonF | None:
    """The engine's quadrilateral of ``line`` (page pixels), each corner moved ``margin`` pixels away
    from its centre, when the line's top edge slants by more than :data:`SLANT_DEGREES` (a photo taken
    askew); ``None`` for an upright line or one without a quadrilateral."""
    poly = line.polygon
    if not poly or len(poly) != 4:
        return None
    (ax, ay), (bx, by) = poly[0], poly[1]
    if bx - ax <= 0 or abs(math.degrees(math.atan2(by - ay, bx - ax))) < SLANT_DEGREES:
        return None
    cx, cy = sum(x for x, _ in poly) / 4, sum(y for _, y in poly) / 4
    points = []
    for x, y in poly:
        d = math.hypot(x - cx, y - cy) or 1.0
        points.append(QPointF(x + (x - cx) / d * margin, y + (y - cy) / d * margin))
    return QPolygonF(points)


class LineItem(QGraphicsRectItem):
    """The outline of one recognised line; ``index`` is its position in ``PageResult.lines``. A line
    read askew is drawn, and answers clicks, as its quadrilateral (``quad``); its rectangle stays the
    item's bounding box."""

    def __init__(self, index: int, box: Box, text: str, confidence: float, quad: QPolygonF | None = None) -> None:
        x0, y0, x1, y1 = box
        super().__init__(QRectF(x0, y0, max(1.0, x1 - x0), max(1.0, y1 - y0)))
        self.quad = quad
        self.index = index
        self.text = text
        colour = LOW_PEN if confidence < 0.6 else LINE_PEN
        pen = QPen(colour, 1.2)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setBrush(QBrush(LINE_FILL))
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(f"{text}\n{confidence:.0%}")
        self.setZValue(1)

    def shape(self) -> QPainterPath:  # Qt API: what hovering and clicking hit
        if self.quad is None:
            return super().shape()
        path = QPainterPath()
        path.addPolygon(self.quad)
        path.closeSubpath()
        return path

    def paint(self, painter: QPainter, option, widget=None) -> None:  # Qt API
        if self.quad is None:
            super().paint(painter, option, widget)
            return
        painter.setPen(self.pen())
        painter.setBrush(self.brush())
        painter.drawPolygon(self.quad)

    def hoverEnterEvent(self, event) -> None:  # Qt API
        self.setBrush(QBrush(QColor(30, 136, 229, 70)))
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        self.setBrush(QBrush(LINE_FILL))
        super().hoverLeaveEvent(event)


class PageViewer(QGraphicsView):
    """Shows one page; zoom (wheel, fit width, fit page, 100 %), pan (drag), line outlines.

    Signals:
        line_clicked(index, text, global_pos): the clerk clicked a recognised line (without dragging).
        zoom_changed(shown): the view scale changed; ``shown`` is the zoom as the clerk reads it
            (:meth:`shown_zoom`: 1.0 = the paper's size for a PDF page, one image pixel per screen
            pixel for an image).
    """

    line_clicked = Signal(int, str, QPoint)
    zoom_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setBackgroundBrush(QBrush(QColor("#5f6368")))
        self.setMinimumSize(240, 240)
        self._pixmap_item: QGraphicsPixmapItem | None = None
        self._line_items: list[LineItem] = []
        self._highlight: list[QGraphicsItem] = []
        self._page: PageResult | None = None
        self._outlines = True
        self._fit_mode: str | None = "width"
        self._press_pos: QPoint | None = None
        self._message: QGraphicsTextItem | None = None

    # -- content -----------------------------------------------------------------------------------
    @property
    def page(self) -> PageResult | None:
        return self._page

    def clear(self, message: str = "") -> None:
        """Show nothing (or a message centred in the view)."""
        self.scene().clear()
        self._pixmap_item = None
        self._line_items = []
        self._highlight = []
        self._page = None
        self._message = None
        if message:
            self._message = QGraphicsTextItem()
            self._message.setPlainText(message)
            self._message.setDefaultTextColor(QColor("white"))
            font = self._message.font()
            font.setPointSize(12)
            self._message.setFont(font)
            option = self._message.document().defaultTextOption()
            option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
            option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)  # long paths too
            self._message.document().setDefaultTextOption(option)
            self.scene().addItem(self._message)
            self.resetTransform()
            self._wrap_message()

    def _wrap_message(self) -> None:
        """Wrap the message to the view's width (no horizontal scrolling) and centre it."""
        if self._message is None:
            return
        width = max(120.0, self.viewport().width() - 2 * MESSAGE_MARGIN)
        self._message.setTextWidth(width)
        rect = self._message.boundingRect()
        self.scene().setSceneRect(rect.adjusted(-MESSAGE_MARGIN + 4, -MESSAGE_MARGIN, MESSAGE_MARGIN - 4, MESSAGE_MARGIN))

    @property
    def message(self) -> str:
        """The message shown instead of a page ("" when none)."""
        return self._message.toPlainText() if self._message is not None else ""

    def set_page(self, image: QImage | None, page: PageResult, page_size: tuple[int, int] | None = None) -> None:
        """Show a page.

        Args:
            image: the page picture (any size; it is stretched over the page's pixel size), or
                ``None`` while it loads (a white sheet is shown with the outlines).
            page: the page result whose ``lines`` are outlined; its ``width``/``height`` define the
                scene (page pixels).
            page_size: the loaded image's page size in page pixels, when it differs from the
                result's (defensive: boxes are then mapped by the ratio).
        """
        keep_fit = self._fit_mode
        same_page = self._page is not None and (self._page.number, self._page.width, self._page.height) == (
            page.number, page.width, page.height)
        old_transform = self.transform()
        self.clear()
        self._page = page
        width, height = max(1, page.width), max(1, page.height)
        sheet = self.scene().addRect(QRectF(0, 0, width, height), QPen(Qt.PenStyle.NoPen), QBrush(QColor("white")))
        sheet.setZValue(-2)
        if image is not None and not image.isNull():
            pixmap = QPixmap.fromImage(image)
            item = QGraphicsPixmapItem(pixmap)
            item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
            item.setScale(width / max(1, pixmap.width()))
            item.setZValue(-1)
            self.scene().addItem(item)
            self._pixmap_item = item
        for i, line in enumerate(page.lines):
            li = LineItem(i, line.box, line.text, line.confidence, slanted_quad(line))
            li.setVisible(self._outlines)
            self.scene().addItem(li)
            self._line_items.append(li)
        self.scene().setSceneRect(QRectF(0, 0, width, height))
        if keep_fit and not same_page:
            self._apply_fit(keep_fit)
        elif same_page:
            self.setTransform(old_transform)
        else:
            self._apply_fit("width")

    def set_outlines_visible(self, visible: bool) -> None:
        self._outlines = visible
        for item in self._line_items:
            item.setVisible(visible)

    def line_items(self) -> list[LineItem]:
        return list(self._line_items)

    def highlight(self, boxes: list[Box], scroll: bool = True) -> None:
        """Outline the text a field came from and scroll it into view (``boxes`` in page pixels)."""
        for item in self._highlight:
            self.scene().removeItem(item)
        self._highlight = []
        for x0, y0, x1, y1 in boxes:
            pen = QPen(HIGHLIGHT_PEN, 2.5)
            pen.setCosmetic(True)
            quad = self._slanted_quad((x0, y0, x1, y1))
            if quad is not None:  # a line read askew: outline the text itself, not its upright box
                item = self.scene().addPolygon(quad, pen, QBrush(HIGHLIGHT_FILL))
            else:
                item = self.scene().addRect(QRectF(x0, y0, x1 - x0, y1 - y0).adjusted(-4, -4, 4, 4), pen,
                                            QBrush(HIGHLIGHT_FILL))
            item.setZValue(2)
            self._highlight.append(item)
        if boxes and scroll:
            rect = self._highlight[0].sceneBoundingRect()
            for item in self._highlight[1:]:
                rect = rect.united(item.sceneBoundingRect())
            self.ensureVisible(rect, 60, 60)

    def _slanted_quad(self, box: Box) -> QPolygonF | None:
        """The grown quadrilateral (:func:`slanted_quad`) of the shown page's line whose bounding box
        is ``box``; ``None`` for an upright line, a box of several lines or one not on this page."""
        if self._page is None:
            return None
        line = next((ln for ln in self._page.lines if all(abs(a - b) < 0.5 for a, b in zip(ln.box, box))), None)
        return slanted_quad(line, margin=6.0) if line is not None else None

    def highlighted_boxes(self) -> list[QRectF]:
        return [item.sceneBoundingRect() for item in self._highlight]

    # -- zoom --------------------------------------------------------------------------------------
    def zoom_factor(self) -> float:
        """The view scale: logical screen pixels per page pixel."""
        return self.transform().m11()

    def is_paper(self) -> bool:
        """Whether the page shown has a paper size (a PDF page, ``PageResult.dpi``)."""
        return self._page is not None and bool(self._page.dpi)

    def _unit(self) -> float:
        """The :meth:`zoom_factor` that reads as 100 %."""
        if self._page is not None and self._page.dpi:
            return SCREEN_DPI / float(self._page.dpi)
        return 1.0 / max(1.0, self.devicePixelRatioF())

    def shown_zoom(self) -> float:
        """The zoom as the clerk reads it (1.0 = 100 %; see the module docstring)."""
        return self.zoom_factor() / self._unit()

    def set_zoom(self, factor: float) -> None:
        factor = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        self._fit_mode = None
        t = self.transform()
        self.setTransform(t.fromScale(factor, factor))
        self.zoom_changed.emit(self.shown_zoom())

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom_factor() * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom_factor() / ZOOM_STEP)

    def zoom_actual(self) -> None:
        """100 %: a PDF page at the paper's size, an image at one pixel per physical screen pixel."""
        self.set_zoom(self._unit())

    def fit_width(self) -> None:
        self._apply_fit("width")

    def fit_page(self) -> None:
        self._apply_fit("page")

    def _apply_fit(self, mode: str) -> None:
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        view = self.viewport().rect().adjusted(8, 8, -8, -8)
        sx = view.width() / rect.width()
        sy = view.height() / rect.height()
        factor = sx if mode == "width" else min(sx, sy)
        factor = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        self.setTransform(self.transform().fromScale(factor, factor))
        self._fit_mode = mode
        if mode == "width":
            self.centerOn(rect.center().x(), rect.top())
            self.verticalScrollBar().setValue(self.verticalScrollBar().minimum())
        else:
            self.centerOn(rect.center())
        self.zoom_changed.emit(self.shown_zoom())

    def resizeEvent(self, event) -> None:  # Qt API
        super().resizeEvent(event)
        if self._fit_mode and self._page is not None:
            self._apply_fit(self._fit_mode)
        elif self._message is not None:
            self._wrap_message()

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Wheel zooms (with or without Ctrl) about the mouse; Shift+wheel scrolls."""
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().wheelEvent(event)
            return
        delta = event.angleDelta().y()
        if delta == 0:
            return
        self.set_zoom(self.zoom_factor() * (ZOOM_STEP ** (delta / 120)))
        event.accept()

    # -- click on a line ---------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        self._press_pos = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        pos = event.position().toPoint()
        if self._press_pos is None or event.button() != Qt.MouseButton.LeftButton:
            return
        if (pos - self._press_pos).manhattanLength() > 4:
            return
        self._press_pos = None
        item = self.line_at(pos)
        if item is not None:
            self.line_clicked.emit(item.index, item.text, self.viewport().mapToGlobal(pos))

    def line_at(self, view_pos: QPoint) -> LineItem | None:
        for item in self.items(view_pos):
            if isinstance(item, LineItem) and item.isVisible():
                return item
        return None

    def view_pos_of_line(self, index: int) -> QPoint:
        """Where line ``index`` is in viewport coordinates (for tests and click-to-fill)."""
        item = self._line_items[index]
        return self.mapFromScene(item.sceneBoundingRect().center())
