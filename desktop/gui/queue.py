"""The document queue: one row per file waiting to be read, or per document read from a file.

:class:`QueueModel` is the single owner of the session's documents while the app runs. Every change
goes through it and is written to the :class:`~desktop.core.session.SessionStore` before the model
tells the views (so what the clerk sees is what is saved). :class:`QueueStore` lets the review core
(:class:`desktop.core.review.ReviewSession`) apply the clerk's commands through it. What needs checking
is the review core's rule (:func:`desktop.core.review.attention_count`); the model has no rule of its own.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QIcon,
    QPainter,
    QPalette,
    QPen,
    QPixmap,
    QResizeEvent,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from desktop.core import flags
from desktop.core.diagnostics import Diagnostic, library_text
from desktop.core.model import Document, Field
from desktop.core.review import Standing, attention_count, field_checks, standing
from desktop.core.session import SessionEntry, SessionStore, status_of

LOW_CONFIDENCE = 0.6
"""Outline colour threshold for recognised lines in the viewer (the engine's line confidence). Fields
are flagged by :mod:`desktop.core.flags`, not by this number."""

COL_FILE, COL_TYPE, COL_STATUS, COL_ATTENTION = range(4)

ModelIndex = QModelIndex | QPersistentModelIndex


__all__ = ["ATTENTION_ROLE", "QueueDelegate", "QueueEntry", "QueueModel", "QueueStore", "QueueView", "attention_count",
           "is_empty_key", "key_fields", "needs_check"]

# The review core's rule under the names the widgets used before it existed (no rule of their own).
key_fields = flags.key_fields
is_empty_key = flags.is_empty_key


def needs_check(field: Field, key: bool = False) -> bool:
    """Whether the form tints ``field`` and the badge counts it: :func:`desktop.core.review.field_checks`
    gives a reason."""
    return bool(field_checks(field, key))


@dataclass
class QueueEntry:
    """One queue row.

    Attributes:
        id: the session row id.
        source: the source file path.
        status: ``queued``, ``reading``, ``needs_review``, ``reviewed`` or ``failed``.
        document: the document, once read.
        message: a transient note (``page 2 of 3``, ``cancelled``).
        thumbnail: small picture of the first page, once loaded.
        position: its sort key in the session (:attr:`desktop.core.session.SessionEntry.position`).
        problem: the diagnostic ``message`` says in plain words (reading again failed), whose library
            words the row's tooltip gives; ``None`` when the message says none.
    """

    id: int
    source: str
    status: str
    document: Document | None = None
    message: str = ""
    thumbnail: QPixmap | None = None
    position: float = 0.0
    problem: Diagnostic | None = None

    @property
    def name(self) -> str:
        name = Path(self.source).name
        doc = self.document
        if doc is not None and doc.page_results and doc.pages[0] != doc.pages[1]:
            return QCoreApplication.translate("QueueEntry", "%1 (p. %2–%3)").replace("%1", name).replace(
                "%2", str(doc.pages[0])).replace("%3", str(doc.pages[1]))
        if doc is not None and doc.pages != (1, 1) and doc.pages[0] == doc.pages[1]:
            return QCoreApplication.translate("QueueEntry", "%1 (p. %2)").replace("%1", name).replace(
                "%2", str(doc.pages[0]))
        return name


class QueueModel(QAbstractTableModel):
    """Table model of the queue, backed by the session store.

    Signals:
        document_changed(entry_id): an entry's document changed (edit, undo, re-read).
    """

    document_changed = Signal(int)

    def __init__(self, store: SessionStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._entries: list[QueueEntry] = []
        self._row_of: dict[int, int] = {}
        self.placeholder = QIcon()
        self.failed_icon = QIcon()
        self.type_labels: dict[str, str] = {}
        self.language = "en"  # the UI language errors are worded in (the window sets it)
        for e in store.entries():
            status = "queued" if e.status == "reading" else e.status
            self._entries.append(QueueEntry(e.id, e.source, status, e.document, position=e.position))
        self._reindex()

    # -- access ------------------------------------------------------------------------------------
    def _reindex(self) -> None:
        self._row_of = {e.id: i for i, e in enumerate(self._entries)}

    def entries(self) -> list[QueueEntry]:
        return list(self._entries)

    def entry(self, entry_id: int) -> QueueEntry | None:
        row = self._row_of.get(entry_id)
        return None if row is None else self._entries[row]

    def entry_at(self, row: int) -> QueueEntry | None:
        return self._entries[row] if 0 <= row < len(self._entries) else None

    def row_of(self, entry_id: int) -> int:
        return self._row_of.get(entry_id, -1)

    # -- Qt model ----------------------------------------------------------------------------------
    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 4

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return [self.tr("Document"), self.tr("Type"), self.tr("Status"), self.tr("Check")][section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and section == COL_ATTENTION:
            return self.tr("Fields to check (a failed check, an uncertain value or an empty key field)")
        return None

    def status_text(self, entry: QueueEntry) -> str:
        doc = entry.document
        if entry.status == "queued":
            return self.tr("Queued") + (f" ({entry.message})" if entry.message else "")
        if entry.status == "reading":
            return self.tr("Reading") + (f" – {entry.message}" if entry.message else "…")
        if entry.status == "failed":  # in plain words: a library's own words are in the tooltip (tooltip())
            message = (doc.error.message(self.language, plain=True) if doc and doc.error else entry.message) or ""
            return self.tr("Failed: %1").replace("%1", message)
        note = f" – {entry.message}" if entry.message else ""  # e.g. a document task running or failed
        if doc is not None:  # a page the engine could not read, or whose content may be lost: said here too
            note += "".join(f" – {lost.message(self.language, plain=True)}" for lost in doc.lost_pages())
        if doc is not None and doc.duplicate_of:
            note += " – " + self.tr("possible duplicate")
        if entry.status == "reviewed":
            return self.tr("Reviewed") + note
        if doc is not None and standing(doc) is Standing.CHECKS_OUT:  # as the header's "Every field checks out"
            return self.tr("Checks out, not yet reviewed") + note
        return self.tr("Needs review") + note

    def tooltip(self, entry: QueueEntry) -> str:
        """The row's tooltip: the file's path, the row's status in full (the card shows at most two lines
        of it), and the library's own words that its plain messages leave out (for support)."""
        doc = entry.document
        problems = [doc.error] if doc is not None and doc.error else []
        problems += doc.lost_pages() if doc is not None else []
        problems += [entry.problem] if entry.problem is not None else []
        words: list[str] = []
        for problem in problems:
            words += [w for w in library_text(problem) if w not in words]
        return "\n".join([entry.source, self.status_text(entry), *words])

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry = self._entries[index.row()]
        col = index.column()
        doc = entry.document
        if role == Qt.ItemDataRole.UserRole:
            return entry.id
        if role == STATUS_ROLE:
            return entry.status
        if role == STATUS_TEXT_ROLE:
            return self.status_text(entry)
        if role == STANDING_ROLE:
            return standing(doc).value if doc is not None else ""
        if role == TYPE_ROLE:
            return self.type_labels.get(doc.document_type, doc.document_type) if doc and doc.document_type else ""
        if role == ATTENTION_ROLE:
            return attention_count(doc)
        if col == COL_FILE:
            if role == Qt.ItemDataRole.DisplayRole:
                return entry.name
            if role == Qt.ItemDataRole.DecorationRole:
                if entry.thumbnail is not None:
                    return entry.thumbnail
                return self.failed_icon if entry.status == "failed" else self.placeholder
            if role == Qt.ItemDataRole.ToolTipRole:
                return self.tooltip(entry)
        elif col == COL_TYPE:
            if role == Qt.ItemDataRole.DisplayRole and doc is not None and doc.document_type:
                return self.type_labels.get(doc.document_type, doc.document_type)
        elif col == COL_STATUS:
            if role == Qt.ItemDataRole.ToolTipRole and doc is not None and doc.error:
                return f"{Path(entry.source).name}: {doc.error.message(self.language)}"
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                return self.status_text(entry)
            if role == Qt.ItemDataRole.ForegroundRole:
                checks_out = doc is not None and entry.status == "needs_review" and standing(doc) is Standing.CHECKS_OUT
                colour = {"failed": "#c62828", "reviewed": "#2e7d32", "needs_review": "#e65100",
                          "checks_out": "#558b2f"}.get("checks_out" if checks_out else entry.status)
                return QBrush(QColor(colour)) if colour else None
        elif col == COL_ATTENTION:
            n = attention_count(doc)
            if role == Qt.ItemDataRole.DisplayRole:
                return str(n) if entry.status in ("needs_review", "reviewed") else ""
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return Qt.AlignmentFlag.AlignCenter
            if role == Qt.ItemDataRole.ForegroundRole and n:
                return QBrush(QColor("#e65100"))
            if role == Qt.ItemDataRole.ToolTipRole and doc is not None:
                return self.tr("%n field(s) to check", "", n)  # the header's words
        if role == Qt.ItemDataRole.SizeHintRole and col == COL_FILE:
            return QSize(200, 56)
        return None

    # -- changes -----------------------------------------------------------------------------------
    def _emit_row(self, entry_id: int) -> None:
        row = self.row_of(entry_id)
        if row >= 0:
            self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))

    def _position(self, entry_id: int) -> float:
        saved = self.store.entry(entry_id)
        return saved.position if saved is not None else float(entry_id)

    def add_file(self, source: str | Path) -> int:
        """Append a file waiting to be read; returns its entry id."""
        entry_id = self.store.add(str(source))
        self._append(QueueEntry(entry_id, str(source), "queued", position=self._position(entry_id)))
        return entry_id

    def add_document(self, document: Document) -> int:
        """Append an already-known document (a missing file's error document)."""
        entry_id = self.store.add(document.source, document)
        self._append(QueueEntry(entry_id, document.source, status_of(document), document,
                                position=self._position(entry_id)))
        return entry_id

    def _append(self, entry: QueueEntry) -> None:
        row = len(self._entries)
        self.beginInsertRows(QModelIndex(), row, row)
        self._entries.append(entry)
        self._row_of[entry.id] = row
        self.endInsertRows()

    def set_status(self, entry_id: int, status: str, message: str = "") -> None:
        entry = self.entry(entry_id)
        if entry is None:
            return
        transient = {status, entry.status} <= {"queued", "reading"}
        if status != entry.status and not transient:
            # queued <-> reading is not saved: a file being read when the app stops is queued
            # again at the next start anyway, and each write costs an fsync on the GUI thread.
            self.store.set_status(entry_id, status)
        entry.status, entry.message, entry.problem = status, message, None
        self._emit_row(entry_id)

    def set_message(self, entry_id: int, message: str) -> None:
        entry = self.entry(entry_id)
        if entry is not None:
            entry.message, entry.problem = message, None
            self._emit_row(entry_id)

    def set_thumbnail(self, entry_id: int, pixmap: QPixmap) -> None:
        entry = self.entry(entry_id)
        if entry is None:
            return
        for other in self._entries:  # every document of the same file shares the picture
            if other.source == entry.source and other.thumbnail is None or other is entry:
                other.thumbnail = pixmap
                self._emit_row(other.id)

    def set_documents(self, entry_id: int, documents: list[Document]) -> list[int]:
        """The file of ``entry_id`` was read: it becomes one row per document (in its place)."""
        row = self.row_of(entry_id)
        if row < 0:
            return []
        ids = self.store.replace(entry_id, documents)
        first = self._entries[row]
        first.document, first.status, first.message, first.problem = documents[0], status_of(documents[0]), "", None
        self._emit_row(entry_id)
        if len(documents) > 1:
            self.beginInsertRows(QModelIndex(), row + 1, row + len(documents) - 1)
            for offset, (new_id, doc) in enumerate(zip(ids[1:], documents[1:], strict=True), start=1):
                self._entries.insert(
                    row + offset, QueueEntry(new_id, first.source, status_of(doc), doc, thumbnail=first.thumbnail,
                                             position=self._position(new_id))
                )
            self._reindex()
            self.endInsertRows()
        self.document_changed.emit(entry_id)
        return ids

    def set_document(self, entry_id: int, document: Document) -> None:
        """Replace an entry's document (edits, undo/redo, re-read) and save it."""
        entry = self.entry(entry_id)
        if entry is None:
            return
        status = status_of(document)
        self.store.update(entry_id, document, status)
        entry.document, entry.status, entry.message, entry.problem = document, status, "", None
        self._emit_row(entry_id)
        self.document_changed.emit(entry_id)

    def put_entry(self, entry_id: int, source: str, position: float, document: Document | None,
                  status: str | None = None) -> None:
        """Write an entry with a given id and position (a review command applied or reverted): its row
        is updated, or inserted in queue order when absent; saved first, then the views are told."""
        status = status or status_of(document)
        self.store.put(entry_id, source, position, document, status)
        entry = self.entry(entry_id)
        if entry is None:
            row = next((i for i, e in enumerate(self._entries) if e.position > position), len(self._entries))
            thumb = next((e.thumbnail for e in self._entries if e.source == source and e.thumbnail), None)
            self.beginInsertRows(QModelIndex(), row, row)
            self._entries.insert(row, QueueEntry(entry_id, source, status, document, thumbnail=thumb,
                                                 position=position))
            self._reindex()
            self.endInsertRows()
        else:
            entry.document, entry.status, entry.message, entry.problem = document, status, "", None
            self._emit_row(entry_id)
        self.document_changed.emit(entry_id)

    def fail(self, entry_id: int, problem: Diagnostic) -> None:
        """The entry could not be read: it becomes a failed document carrying ``problem``."""
        entry = self.entry(entry_id)
        if entry is None:
            return
        if entry.document is not None and not entry.document.error:
            # a re-read failed: keep the document, show the message (in plain words; the tooltip has the rest)
            message = problem.message(self.language, plain=True)
            self.set_message(entry_id, message)
            self.set_status(entry_id, status_of(entry.document), message)
            entry.problem = problem
            return
        self.set_document(entry_id, Document(source=entry.source, error=problem))

    def remove(self, entry_ids: list[int]) -> None:
        """Drop entries from the queue and the session (source files are untouched)."""
        self.store.remove(entry_ids)
        for entry_id in entry_ids:
            row = self.row_of(entry_id)
            if row < 0:
                continue
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._entries[row]
            self._reindex()
            self.endRemoveRows()

    def refresh(self) -> None:
        """Repaint every row (after a language or label change)."""
        if self._entries:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._entries) - 1, self.columnCount() - 1))


STATUS_ROLE = Qt.ItemDataRole.UserRole + 1
STATUS_TEXT_ROLE = Qt.ItemDataRole.UserRole + 2
TYPE_ROLE = Qt.ItemDataRole.UserRole + 3
ATTENTION_ROLE = Qt.ItemDataRole.UserRole + 4
STANDING_ROLE = Qt.ItemDataRole.UserRole + 5

STATUS_COLOURS = {"failed": "#c62828", "reviewed": "#2e7d32", "needs_review": "#e65100", "reading": "#1565c0",
                  "queued": "#757575", "checks_out": "#558b2f"}


_BREAK_AFTER = frozenset(" _-.")
_OPENING = frozenset("(（[［【「『")


def _ideograph(c: str) -> bool:
    """CJK Unified Ideographs (U+4E00-U+9FFF) and Extension A (U+3400-U+4DBF)."""
    return "\u3400" <= c <= "\u4dbf" or "\u4e00" <= c <= "\u9fff"


_SUFFIX = re.compile(r"\.[0-9A-Za-z]{1,5}(?= |$)")
"""A file name's suffix (``.pdf``, ``.jpeg``), at the end of the name or before the `` (p. 2–3)`` after it."""


def _name_pieces(name: str) -> list[str]:
    """``name`` cut where a file name may wrap: after a space, ``_``, ``-`` or ``.`` (not the dot of
    the suffix: ``scan.pdf`` stays whole), before an opening bracket, and between two Chinese
    characters (as Chinese text wraps; UAX #14 class ID). Joined again, the pieces are ``name``."""
    suffix_dots = {m.start() for m in _SUFFIX.finditer(name)}
    pieces: list[str] = []
    start = 0
    for i in range(1, len(name)):
        prev, c = name[i - 1], name[i]
        after = prev in _BREAK_AFTER and c not in _BREAK_AFTER and i - 1 not in suffix_dots
        if after or c in _OPENING or _ideograph(prev) and _ideograph(c):
            pieces.append(name[start:i])
            start = i
    if name:
        pieces.append(name[start:])
    return pieces


def wrap_file_name(name: str, fits: Callable[[str], bool]) -> list[str]:
    """The lines a file name wraps onto: filled greedily with :func:`_name_pieces` (a name wraps after
    ``_``, ``-``, ``.`` or a space, ``nl_vandijk_factuur_scan.pdf`` as ``nl_vandijk_factuur_`` /
    ``scan.pdf``, never ``…scan.pd`` / ``f`` nor ``…scan.`` / ``pdf``); a piece too wide for a line of its own wraps between
    characters, as it must. ``fits(text)`` says whether ``text`` fits one line. Joined, the lines are
    ``name``."""
    lines: list[str] = []
    line = ""
    for piece in _name_pieces(name):
        if fits(line + piece):
            line += piece
            continue
        if line and fits(piece):
            lines.append(line)
            line = piece
            continue
        for c in piece:  # wider than a line: wrapped anywhere, filling the line it starts on
            if line and not fits(line + c):
                lines.append(line)
                line = ""
            line += c
    if line or not lines:
        lines.append(line)
    return lines


class QueueView(QListView):
    """The queue's list: its rows are laid out again whenever its viewport changes width.

    ``QListView`` lays its rows out again when the view itself changes size along its flow (the
    height, top to bottom), not when only the viewport's width changes: a vertical scroll bar that
    appears once the rows overflow, or a narrower splitter pane. The rows would keep the width and
    height they were measured at, reaching under the scroll bar (the attention badge cut off) or
    too short for text that now wraps once more.
    """

    def viewportEvent(self, event: QEvent) -> bool:
        if isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()
        return super().viewportEvent(event)


class QueueDelegate(QStyledItemDelegate):
    """Paints a queue row as a card: thumbnail, file name, type and status, attention badge.

    The file name wraps onto as many lines as the queue's width needs (the row grows); it wraps after
    ``_``, ``-``, ``.`` or a space where it can (:func:`wrap_file_name`), not in the middle of a word.
    The type and status take at most two lines (:meth:`second_text`): a longer one is cut short with
    "…", and the row's tooltip has it in full. :meth:`sizeHint` and :meth:`paint` share
    one layout, :meth:`text_layout`,
    and the text is drawn into rectangles exactly as wide as the width it was measured at: drawn
    into its tight bounding rectangle instead (a pixel or so narrower), a line can wrap once more
    (Qt's line breaking around CJK brackets and punctuation) and lose its last line or character to
    the rectangle's clip. A row is as wide as the view's viewport, never wider (no part of it hidden
    behind the frame or a scroll bar).
    """

    ROW_HEIGHT = 64
    THUMB_WIDTH = 42
    BADGE_WIDTH = 34
    PADDING = 6
    MIN_TEXT_WIDTH = 40
    SECOND_LINES = 2  # the most lines the type and status take

    def _text_width(self, total_width: int, status: str) -> int:
        """The text column's width in a row ``total_width`` px wide (logical pixels)."""
        badge = self.BADGE_WIDTH if status in ("needs_review", "reviewed") else 0
        return max(self.MIN_TEXT_WIDTH, total_width - 2 * self.PADDING - self.THUMB_WIDTH - 10 - badge - 4)

    def _row_width(self, option: QStyleOptionViewItem) -> int:
        view = option.widget
        if view is not None and hasattr(view, "viewport"):
            return int(view.viewport().width())
        return max(option.rect.width(), 240)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name_lines: dict[tuple[str, int, str], str] = {}  # name_lines' answers
        self._second_texts: dict[tuple[str, int, str], str] = {}  # second_text's answers
        view = parent if isinstance(parent, QAbstractItemView) else None
        if view is not None and view.model() is not None:
            # a status that now needs two lines makes its row taller (Qt asks sizeHint again)
            view.model().dataChanged.connect(lambda top_left, *_: self.sizeHintChanged.emit(top_left))

    @staticmethod
    def _flags(anywhere: bool = False) -> int:
        """Sentences wrap at word boundaries; a file name's lines are broken by :meth:`name_lines`
        (wrapping anywhere is left only as the guard against a line Qt finds a pixel wider)."""
        wrap = Qt.TextFlag.TextWrapAnywhere if anywhere else Qt.TextFlag.TextWordWrap
        return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop) | int(wrap)

    def _second_flags(self, font: QFont, width: int, text: str) -> int:
        """Word wrap, or wrapping anywhere when a word is wider than the column (a server's URL)."""
        words = QFontMetrics(font).boundingRect(QRect(0, 0, width, 10_000), self._flags(), text)
        return self._flags(anywhere=words.width() > width)

    def name_lines(self, font: QFont, width: int, name: str) -> str:
        """``name`` broken into lines for a column ``width`` px wide in ``font`` (:func:`wrap_file_name`;
        a line fits when Qt lays it out, unwrapped, no wider than ``width``), joined by newlines."""
        key = (font.key(), width, name)
        lines = self._name_lines.get(key)
        if lines is None:  # sizeHint and every paint ask again: measured once per font, width and name
            metrics = QFontMetrics(font)
            one_line = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

            def fits(text: str) -> bool:
                return metrics.boundingRect(QRect(0, 0, 100_000, 10_000), one_line, text).width() <= width

            if len(self._name_lines) >= 4096:
                self._name_lines.clear()
            lines = self._name_lines[key] = "\n".join(wrap_file_name(name, fits))
        return lines

    def second_text(self, font: QFont, width: int, text: str) -> str:
        """``text`` (the type and status) as the card shows it in a column ``width`` px wide in ``font``:
        as it is when it wraps onto at most :attr:`SECOND_LINES` lines, else its first lines as Qt wraps
        them and the rest cut short with "…" on the last line (the row's tooltip has it in full)."""
        key = (font.key(), width, text)
        shown = self._second_texts.get(key)
        if shown is not None:
            return shown
        anywhere = self._second_flags(font, width, text) & int(Qt.TextFlag.TextWrapAnywhere)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAnywhere if anywhere else QTextOption.WrapMode.WordWrap)
        layout = QTextLayout(text.replace("\n", "\u2028"), font)  # drawText's line breaking (qt_format_text)
        layout.setTextOption(option)
        layout.beginLayout()
        starts: list[int] = []  # where each line starts, in UTF-16 code units
        while len(starts) <= self.SECOND_LINES:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            starts.append(line.textStart())
        layout.endLayout()
        shown = text
        if len(starts) > self.SECOND_LINES:
            units = text.encode("utf-16-le")

            def at(unit: int) -> int:  # a UTF-16 offset as a str index
                return len(units[:2 * unit].decode("utf-16-le"))

            cut = at(starts[self.SECOND_LINES - 1])  # the last line shown starts here
            lines = [text[at(a):at(b)].rstrip() for a, b in zip(starts, starts[1:self.SECOND_LINES], strict=False)]
            rest = QFontMetrics(font).elidedText(text[cut:].replace("\n", " "), Qt.TextElideMode.ElideRight, width)
            shown = "\n".join([*lines, rest])
        if len(self._second_texts) >= 4096:
            self._second_texts.clear()
        self._second_texts[key] = shown
        return shown

    def text_layout(self, font: QFont, width: int, index: ModelIndex) -> tuple[QRect, QRect, str, str]:
        """``(name rect, second-line rect, name, second text)`` relative to the text's top left, for a
        text column ``width`` pixels wide: each rect is ``width`` wide (the width its text was wrapped
        at, so that drawing into it wraps the same way) and as tall as its wrapped text."""
        name_font = QFont(font)
        name_font.setBold(True)
        name = self.name_lines(name_font, width, index.data(Qt.ItemDataRole.DisplayRole) or "")
        doc_type = index.data(TYPE_ROLE) or ""
        status_text = index.data(STATUS_TEXT_ROLE) or ""
        second = self.second_text(font, width, f"{doc_type} · {status_text}" if doc_type else status_text)
        name_h = QFontMetrics(name_font).boundingRect(QRect(0, 0, width, 10_000), self._flags(True), name).height()
        flags = self._second_flags(font, width, second)
        second_h = QFontMetrics(font).boundingRect(QRect(0, 0, width, 10_000), flags, second).height()
        name_rect = QRect(0, 0, width, name_h)
        return name_rect, QRect(0, name_rect.bottom() + 3, width, second_h), name, second

    def row_height(self, font: QFont, row_width: int, index: ModelIndex) -> int:
        """The height of ``index``'s row when it is ``row_width`` px wide (logical pixels)."""
        _, second_rect, _, _ = self.text_layout(font, self._text_width(row_width, index.data(STATUS_ROLE) or ""), index)
        return max(self.ROW_HEIGHT, second_rect.bottom() + 2 * 4 + 4)

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        width = self._row_width(option)
        # as wide as the viewport: a wider hint makes the row reach under the frame or scroll bar
        return QSize(min(width, 240), self.row_height(option.font, width, index))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        style = opt.widget.style() if opt.widget else QApplication.style()
        opt.text = ""
        opt.icon = QIcon()
        style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        rect = opt.rect.adjusted(self.PADDING, 4, -self.PADDING, -4)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        # thumbnail, fitted into a 42 x 56 box
        thumb_box = QRect(rect.left(), rect.top(), self.THUMB_WIDTH, min(rect.height(), self.ROW_HEIGHT - 8))
        deco = index.data(Qt.ItemDataRole.DecorationRole)
        if isinstance(deco, QPixmap) and not deco.isNull():
            pm = deco.scaled(thumb_box.size() * painter.device().devicePixelRatioF(), Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
            pm.setDevicePixelRatio(painter.device().devicePixelRatioF())
            w, h = pm.width() / pm.devicePixelRatio(), pm.height() / pm.devicePixelRatio()
            target = QRect(int(thumb_box.center().x() - w / 2), int(thumb_box.center().y() - h / 2), int(w), int(h))
            painter.drawPixmap(target, pm)
            painter.setPen(QPen(QColor(0, 0, 0, 60)))
            painter.drawRect(target)
        elif isinstance(deco, QIcon):
            deco.paint(painter, thumb_box.adjusted(6, 10, -6, -10))
        text_left = thumb_box.right() + 10
        status = index.data(STATUS_ROLE) or ""
        attention = index.data(ATTENTION_ROLE) or 0
        if status in ("needs_review", "reviewed"):
            badge = QRect(rect.right() - self.BADGE_WIDTH + 4, thumb_box.center().y() - 10, self.BADGE_WIDTH - 4, 20)
            if status == "reviewed":
                from desktop.gui.resources import icon

                icon("reviewed").paint(painter, badge.adjusted(6, 0, -4, 0))
            elif attention:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor("#ffe0b2"))
                painter.drawRoundedRect(badge, 9, 9)
                painter.setPen(QColor("#e65100"))
                f = QFont(opt.font)
                f.setBold(True)
                painter.setFont(f)
                painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, str(attention))
        width = self._text_width(opt.rect.width(), status)
        name_rect, second_rect, name, second = self.text_layout(opt.font, width, index)
        # a single line of each sits beside the thumbnail's middle, as before; more lines start higher
        top = rect.top() + max(2, (min(rect.height(), self.ROW_HEIGHT - 8) - second_rect.bottom()) // 2)
        name_font = QFont(opt.font)
        name_font.setBold(True)
        colour = opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        painter.setFont(name_font)
        painter.setPen(colour)
        painter.drawText(name_rect.translated(text_left, top).adjusted(0, 0, 0, 1), self._flags(True), name)
        painter.setFont(opt.font)
        shade = "checks_out" if status == "needs_review" and index.data(STANDING_ROLE) == Standing.CHECKS_OUT else status
        painter.setPen(colour if selected else QColor(STATUS_COLOURS.get(shade, "#616161")))
        painter.drawText(second_rect.translated(text_left, top).adjusted(0, 0, 0, 1),
                         self._second_flags(opt.font, width, second), second)
        painter.restore()


class QueueStore:
    """The queue as the review core's :class:`~desktop.core.review.EntryStore`: commands read the
    documents the clerk sees and write through the model (saved to the session, then shown)."""

    def __init__(self, model: QueueModel) -> None:
        self.model = model

    def entry(self, entry_id: int) -> SessionEntry | None:
        e = self.model.entry(entry_id)
        return SessionEntry(e.id, e.source, e.status, e.document, e.position) if e is not None else None

    def put(self, entry_id: int, source: str, position: float, document: Document | None,
            status: str | None = None) -> None:
        self.model.put_entry(entry_id, source, position, document, status)

    def remove(self, entry_ids: Iterable[int]) -> None:
        self.model.remove(list(entry_ids))

    def next_id(self) -> int:
        return self.model.store.next_id()

    def position_after(self, position: float) -> float:
        return self.model.store.position_after(position)
