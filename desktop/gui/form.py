"""The field form: one labelled, typed input per field of the document's type.

Each row shows the value (normalised: ISO dates, dot-decimal amounts), how sure the engine was
(fields :func:`desktop.core.flags.is_flagged` flags are tinted), and under the input why the clerk must
check it: every failed check in red, or the reason a value is flagged without one (its confidence and the
threshold it is below, worded as the xlsx Problems sheet words it) in quiet brown, so "unsure" and
"contradicts the page" look different. A field that is not flagged has no line under it. Typing
re-checks the value live with ``extraction.normalise_field``; the value is committed
(one undoable edit) when the input loses focus or Enter is pressed.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QDate, QEvent, QMimeData, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QTextLayout, QTextOption
from PySide6.QtWidgets import (
    QCalendarWidget,
    QFrame,
    QGridLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from desktop.core.diagnostics import Code, Diagnostic, diag, library_text
from desktop.core.doctypes import FieldSpec, get_document_type
from desktop.core.flags import document_key_fields, flag_diagnostics, percent
from desktop.core.model import Document, Field
from desktop.core.review import Reason, field_checks

SOURCE_STYLE = {
    "ocr": "QLabel { color: #455a64; background: #eceff1; border-radius: 6px; padding: 1px 6px; }",
    "text_layer": "QLabel { color: #1565c0; background: #e3f2fd; border-radius: 6px; padding: 1px 6px; }",
    "qr": "QLabel { color: #6a1b9a; background: #f3e5f5; border-radius: 6px; padding: 1px 6px; }",
    "model": "QLabel { color: #00695c; background: #e0f2f1; border-radius: 6px; padding: 1px 6px; }",
    "memory": "QLabel { color: #ad1457; background: #fce4ec; border-radius: 6px; padding: 1px 6px; }",
    "user": "QLabel { color: #2e7d32; background: #e8f5e9; border-radius: 6px; padding: 1px 6px; }",
    "xml": "QLabel { color: #4e342e; background: #efebe9; border-radius: 6px; padding: 1px 6px; }",
    "ofd_text": "QLabel { color: #ad1457; background: #fce4ec; border-radius: 6px; padding: 1px 6px; }",
    "inferred": "QLabel { color: #e65100; background: #fff3e0; border-radius: 6px; padding: 1px 6px; }",
}
"""Colours of the source chip beside each field (one hue per source)."""


PLACEHOLDERS = {"date": QT_TRANSLATE_NOOP("FieldEdit", "YYYY-MM-DD"), "time": QT_TRANSLATE_NOOP("FieldEdit", "HH:MM"),
                "amount": QT_TRANSLATE_NOOP("FieldEdit", "amount, e.g. 12.50"), "currency": "EUR, USD, CNY…"}
"""The grey hint of an empty input, by field type (translated where shown, context ``FieldEdit``). An
empty amount's hint is words, not "0.00": an empty Tax field must not look like a tax of zero."""

WRAPPED_TYPES = frozenset({"text"})
"""Field types edited in a box that wraps and grows (names, addresses): no length of value is cut off.
The other types (codes, tax IDs, dates, amounts) stay on one line, which widens to fit its value."""

EDIT_STYLE = {
    "problem": "border: 1px solid #e53935; border-radius: 3px; padding: 2px; background: #fff5f5;",
    "low": "border: 1px solid #ffb74d; border-radius: 3px; padding: 2px; background: #fff8e1;",
}
"""Borders of a field with a failed check (red) or one to check (amber)."""

PROBLEM_STYLE = "color: #c62828;"
"""The lines under a field with a failed check: red, the value contradicts the page or another field."""

REASON_STYLE = "color: #6d4c41;"
"""The line under a field flagged without a failed check (low confidence, empty): a quiet brown, the
engine is unsure, nothing contradicts the page."""

BADGE_STYLE = {"flagged": "color: #e65100; font-weight: bold;", "plain": "color: #607d8b;", "absent": "color: #9e9e9e;"}
"""The confidence column: orange for a field flagged without a failed check, grey-blue otherwise."""


def _is_undo_key(event: QKeyEvent) -> bool:
    key = QKeySequence(event.keyCombination())
    return key in (QKeySequence(QKeySequence.StandardKey.Undo), QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")) \
        or event.matches(QKeySequence.StandardKey.Redo)


def _undo_reaches_window(edit: FieldEdit | WrapEdit, event: QEvent) -> bool:
    """Whether ``event`` is an undo/redo shortcut that the window's undo stack must get rather than
    ``edit`` (its text is the committed one: no typing of its own to undo); the event is then ignored."""
    if event.type() == QEvent.Type.ShortcutOverride and edit.text() == edit._shown and isinstance(event, QKeyEvent) \
            and _is_undo_key(event):
        event.ignore()
        return True
    return False


def normalise(name: str, text: str, date_order: str | None) -> tuple[str | None, list[Diagnostic]]:
    """``extraction.normalise_field`` when the extraction package is present (else the text as is)."""
    try:
        from desktop.core.extraction import normalise_field
    except ImportError:
        return (text.strip() or None), []
    return normalise_field(name, text, date_order=date_order)


class FieldEdit(QLineEdit):
    """The input of one field; dates get a calendar button, amounts are right-aligned.

    Signals:
        focused(name): the input got the keyboard focus.
        committed(name, text): the clerk finished editing (Enter or focus out) and the text changed.
    """

    focused = Signal(str)
    committed = Signal(str, str)
    is_field_input = True

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.setObjectName(f"field_{spec.name}")
        self.setClearButtonEnabled(True)
        self.textChanged.connect(self._fit_width)
        self.setPlaceholderText(QCoreApplication.translate("FieldEdit", PLACEHOLDERS.get(spec.type, "")))
        self._shown = ""
        if spec.type == "amount":
            self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if spec.type == "date":
            from desktop.gui.resources import icon

            self.calendar_action = QAction(icon("calendar"), self.tr("Pick a date"), self)
            self.calendar_action.triggered.connect(self._pick_date)
            self.addAction(self.calendar_action, QLineEdit.ActionPosition.TrailingPosition)
        self.editingFinished.connect(self._finish)

    def _fit_width(self, text: str = "") -> None:
        """Ask for room for the whole value: its advance, the frame, Qt's 2 px text margins, and the
        clear button and calendar button beside it (each an icon plus its padding)."""
        fm = self.fontMetrics()
        icons = len(self.actions()) + 1  # the clear button and any trailing action
        side = icons * (fm.height() + 8)
        self.setMinimumWidth(max(80, fm.horizontalAdvance(text or self.text()) + 2 * 2 + 2 * 6 + side))

    def show_value(self, text: str) -> None:
        """Set the text without counting it as an edit."""
        self._shown = text
        if self.text() != text:
            self.setText(text)
            self.setCursorPosition(0)
        self._fit_width(text)

    def _finish(self) -> None:
        if self.text() != self._shown:
            self._shown = self.text()
            self.committed.emit(self.spec.name, self.text())

    def event(self, event: QEvent) -> bool:
        """Let Ctrl+Z / Ctrl+Shift+Z reach the window's undo stack unless there is uncommitted typing.

        A ``QLineEdit`` claims the undo keys for its own text; once the text is committed, undo must
        step through the document's edits across fields instead.
        """
        if _undo_reaches_window(self, event):
            return False
        return super().event(event)

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.focused.emit(self.spec.name)

    def _pick_date(self) -> None:
        menu = QMenu(self)
        calendar = QCalendarWidget(menu)
        calendar.setGridVisible(True)
        current = QDate.fromString(self.text().strip(), "yyyy-MM-dd")
        if current.isValid():
            calendar.setSelectedDate(current)
        action = QWidgetAction(menu)
        action.setDefaultWidget(calendar)
        menu.addAction(action)

        def chosen(date: QDate) -> None:
            self.setText(date.toString("yyyy-MM-dd"))
            menu.close()
            self._finish()

        calendar.clicked.connect(chosen)
        calendar.activated.connect(chosen)
        menu.exec(self.mapToGlobal(self.rect().bottomLeft()))


class WrapEdit(QPlainTextEdit):
    """The input of a free-text field (a name, an address): one paragraph that wraps at the form's
    width and grows to show every line, so a long value is never cut off.

    It behaves like :class:`FieldEdit` (same signals, ``text``/``setText``/``show_value``): Enter
    commits instead of starting a new line, Tab moves to the next field, pasted line breaks become
    spaces (a field value is one line of text).

    Signals:
        focused(name), committed(name, text): as :class:`FieldEdit`.
        textEdited(text): the clerk changed the text (not emitted for :meth:`show_value`).
        editingFinished(): Enter was pressed or the input lost the focus.
    """

    focused = Signal(str)
    committed = Signal(str, str)
    textEdited = Signal(str)
    editingFinished = Signal()
    is_field_input = True

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.setObjectName(f"field_{spec.name}")
        self._shown = ""
        self._quiet = False
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self._fit_height())
        self.textChanged.connect(self._on_text_changed)
        self.editingFinished.connect(self._finish)
        self._fit_height()

    # -- the QLineEdit-like surface the form and the window use ---------------------------------------
    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:
        self.setPlainText(text)

    def setCursorPosition(self, position: int) -> None:
        cursor = self.textCursor()
        cursor.setPosition(max(0, min(position, len(self.toPlainText()))))
        self.setTextCursor(cursor)

    def setClearButtonEnabled(self, _enabled: bool) -> None:  # a wrapped box has no clear button
        pass

    def show_value(self, text: str) -> None:
        """Set the text without counting it as an edit."""
        self._shown = text
        if self.text() != text:
            self._quiet = True
            try:
                self.setPlainText(text)
            finally:
                self._quiet = False
            self.setCursorPosition(0)
        self._fit_height()

    # -- behaviour -----------------------------------------------------------------------------------
    def _on_text_changed(self) -> None:
        if not self._quiet:
            self.textEdited.emit(self.text())

    def _finish(self) -> None:
        if self.text() != self._shown:
            self._shown = self.text()
            self.committed.emit(self.spec.name, self.text())

    def _text_height(self) -> float:
        """Height of the text wrapped at the present width, in pixels (at least one line).

        Laid out here with ``QTextLayout`` as the editor's own layout does (same font, wrap mode and
        width less the document margins and the cursor), because the editor lays out lazily and its
        line counts lag behind a resize. Line heights come from the layout, so glyphs from a fallback
        font (Chinese in a Latin UI font) count at their own, taller height.
        """
        width = self.viewport().width() - 2 * self.document().documentMargin() - self.cursorWidth()
        option = QTextOption()
        option.setWrapMode(self.wordWrapMode())
        height = 0.0
        for paragraph in self.toPlainText().split("\n"):
            layout = QTextLayout(paragraph, self.document().defaultFont())
            layout.setTextOption(option)
            layout.beginLayout()
            while True:
                line = layout.createLine()
                if not line.isValid():
                    break
                line.setLineWidth(max(1.0, width))
                height += line.height()
            layout.endLayout()
        return max(height, float(self.fontMetrics().height()))

    def _fit_height(self) -> None:
        """As tall as its wrapped text plus what surrounds the viewport now (frame, and the border and
        padding a style sheet adds): measured, not assumed, so a tint's style sheet counts too."""
        chrome = self.height() - self.viewport().height()
        height = math.ceil(self._text_height() + 2 * self.document().documentMargin() + max(0, chrome)) + 2
        if self.height() != height:
            self.setFixedHeight(height)

    def changeEvent(self, event: QEvent) -> None:  # a style sheet changed the frame: fit again
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit_height()

    def resizeEvent(self, event) -> None:  # Qt API: a new width wraps differently
        super().resizeEvent(event)
        self._fit_height()

    def sizeHint(self) -> QSize:
        return QSize(200, self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(120, self.height())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                event.ignore()  # Ctrl+Enter: the window's "mark reviewed"
                return
            self.editingFinished.emit()
            return
        super().keyPressEvent(event)

    def insertFromMimeData(self, source: QMimeData) -> None:
        text = " ".join(source.text().split())  # one line of text, as a QLineEdit would keep it
        if text:
            self.insertPlainText(text)

    def event(self, event: QEvent) -> bool:
        """As :meth:`FieldEdit.event`: undo keys reach the window once the text is committed."""
        if _undo_reaches_window(self, event):
            return False
        return super().event(event)

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.focused.emit(self.spec.name)

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        if event.reason() != Qt.FocusReason.PopupFocusReason:  # the context menu keeps the edit going
            self.editingFinished.emit()


class FieldRow(QObject):
    """The widgets of one field in the form's grid."""

    def __init__(self, spec: FieldSpec, label: str, parent: QWidget, key: bool = False, language: str = "en") -> None:
        super().__init__(parent)
        self.spec = spec
        self.language = language  # the UI language problems are worded in (en / zh_CN)
        self.key = key  # a key field of the document type: left empty, it counts as one to check
        self.reviewed = False  # its document is marked reviewed: a person checked it, nothing is left to check
        self.label = QLabel(label, parent)
        self.edit: FieldEdit | WrapEdit = WrapEdit(spec, parent) if spec.type in WRAPPED_TYPES else FieldEdit(spec, parent)
        self.label.setBuddy(self.edit)
        self.badge = QLabel(parent)
        self.badge.setObjectName("badge")
        self.badge.setMinimumWidth(40)
        self.badge.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.source = QLabel(parent)
        self.source.setObjectName("source")
        self.source.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.source.hide()
        self.problems = QLabel(parent)
        self.problems.setObjectName("problems")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(PROBLEM_STYLE)
        self.problems.hide()
        self.reason = QLabel(parent)  # why a field with no failed check is flagged (quiet, not red)
        self.reason.setObjectName("reason")
        self.reason.setWordWrap(True)
        self.reason.setStyleSheet(REASON_STYLE)
        self.reason.hide()
        self._why = ""  # the reason line's text for the value shown (empty: not flagged, or a failed check)

    def show_field(self, field: Field | None, memory: dict | None = None) -> None:
        """Show a field; ``memory`` is the document's ``extras["memory"]`` (what the vendor memory did)."""
        field = field or Field(self.spec.name)
        text = field.value if field.value is not None else (field.raw or "")
        self.edit.show_value(text)
        by_user = field.edited or field.source == "user"
        found = field.value is not None or bool(field.raw)
        chip, where = self.source_label(field, memory) if found else ("", "")
        tips = [where] if where else []
        if field.raw and field.raw != text and not by_user:
            tips.append(self.tr("As printed: %1").replace("%1", field.raw))
        # the review core's one rule (the queue badge counts the same); the reason is the Problems sheet's
        reasons = field_checks(field, self.key, reviewed=self.reviewed)
        low = bool(reasons) and not field.problems
        why = self._why_flagged(field) if reasons else ""
        if found and not by_user:
            # the same rounding as the reason's ("confidence 92%, below the 93% needed"): never "93%" beside it
            tips.append(self.tr("Confidence: %1").replace("%1", percent(field.confidence)))
        tip = "\n".join(tips)
        flagged_tip = "\n".join(t for t in (why, tip) if t)
        self.edit.setToolTip(flagged_tip)
        self.source.setText(chip)
        self.source.setToolTip(tip)
        self.source.setStyleSheet(SOURCE_STYLE.get("user" if by_user else field.source, SOURCE_STYLE["ocr"]))
        self.source.setVisible(bool(chip))
        # one rule for the confidence column: a value read from the page shows its confidence (rounded
        # down, as the reason gives it), orange when that is why it is flagged; words only where there
        # is no confidence to show (typed by the clerk: nothing; not found: "—"; a key field: "empty")
        if by_user:
            self.badge.setText("")
            self.badge.setToolTip(tip)
            style = ""
        elif Reason.EMPTY_KEY in reasons:
            self.badge.setText(self.tr("empty"))
            self.badge.setToolTip(self.tr("Not found on the page, and this document needs it: type it in"))
            style = BADGE_STYLE["flagged"]
        elif not found:
            self.badge.setText("—")
            self.badge.setToolTip(self.tr("Not found on the page"))
            style = BADGE_STYLE["absent"]
        else:
            self.badge.setText(percent(field.confidence))
            self.badge.setToolTip(flagged_tip)
            style = BADGE_STYLE["flagged" if low else "plain"]
        self.badge.setStyleSheet(style)
        self.edit.setProperty("low", low)
        self._why = why if low else ""  # a failed check's own words are the red lines
        self.reason.setText(self._why)
        self.reason.setVisible(bool(self._why))
        self.set_problems(field.problems)

    def source_label(self, field: Field, memory: dict | None = None) -> tuple[str, str]:
        """``(chip text, sentence)`` saying where ``field``'s value came from (``Field.source``); for the
        vendor memory, which earlier document taught it and how sure the vendor match is."""
        if field.edited or field.source == "user":
            return self.tr("you"), self.tr("Entered by you")
        memory = memory or {}
        taught = str((memory.get("taught_by") or {}).get(field.name) or "")
        action = (memory.get("fields") or {}).get(field.name)
        if field.source == "memory":
            if action == "confirmed":
                # the page's own reading, which the memory vouched for (it raised the confidence or
                # cleared the flag): the chip says memory, never a bare "OCR 100%"
                sentence = self.tr("Read on the page and confirmed by the vendor memory: %1 taught it "
                                   "(vendor %2 recognised, %3 sure)")
            else:
                sentence = self.tr("From the vendor memory: %1 taught it (vendor %2 recognised, %3 sure)")
            sentence = sentence.replace("%1", taught or self.tr("an earlier document")) \
                .replace("%2", str(memory.get("vendor", ""))).replace("%3", f"{float(memory.get('score', 0)):.0%}")
            read = str((memory.get("page_read") or {}).get(field.name) or "")
            if read and read != field.value:
                # the page's own reading stays in sight where the memory's spelling replaced it
                sentence += "\n" + diag(Code.MEMORY_PAGE_READS, read=read).message(self.language)
            return self.tr("memory"), sentence
        if action == "located" and taught:
            chip, sentence = self._plain_source(field)
            return chip, sentence + "\n" + self.tr("Found where %1 had it (vendor memory)").replace("%1", taught)
        if action == "confirmed" and taught:
            # the memory agrees but changed nothing (an e-invoice's data, a value already as sure)
            chip, sentence = self._plain_source(field)
            return chip, sentence + "\n" + self.tr("The vendor memory agrees: %1 taught it").replace("%1", taught)
        return self._plain_source(field)

    def _plain_source(self, field: Field) -> tuple[str, str]:
        if field.source == "qr":
            if field.boxes:
                return self.tr("QR"), self.tr("From the invoice's QR code (it matches the printed value)")
            return self.tr("QR"), self.tr("From the invoice's QR code")
        if field.source == "xml":
            if field.boxes:
                return self.tr("e-invoice XML"), self.tr("From the e-invoice's own data (XML); the page shows the same value")
            return self.tr("e-invoice XML"), self.tr("From the e-invoice's own data (XML)")
        if field.source == "ofd_text":
            return self.tr("OFD text"), self.tr("From the text of the OFD file's page (no OCR needed)")
        if field.source == "text_layer":
            return self.tr("PDF text"), self.tr("From the PDF's text layer (no OCR needed)")
        if field.source == "model":
            return self.tr("AI"), self.tr("Read by the HunyuanOCR model")
        if field.source == "inferred":
            return self.tr("inferred"), self.tr("Not printed on the page: inferred from what the page shows "
                                                "(the country of its address, tax ID or phone number)")
        return self.tr("OCR"), self.tr("Read by OCR from the page image")

    def _why_flagged(self, field: Field) -> str:
        """Why ``field`` is flagged, worded as the xlsx Problems sheet words it in the UI language
        (:func:`desktop.core.flags.flag_diagnostics`: its failed checks, else e.g. its confidence and
        the threshold it is below, or "empty: not found on the page"); one reason a line."""
        return "\n".join(d.message(self.language) for d in flag_diagnostics(field, self.key))

    def show_reason(self, shown: bool = True) -> None:
        """Show the reason line of the value as read (hidden while the clerk types another value: it
        speaks of the value as read, not of the one being typed)."""
        self.reason.setVisible(shown and bool(self._why))

    def set_problems(self, problems: list[Diagnostic]) -> None:
        """Show ``problems`` under the value in plain words (a library's own words in the tooltip)."""
        self.problems.setText("\n".join(f"⚠ {p.message(self.language, plain=True)}" for p in problems))
        self.problems.setToolTip("\n".join(dict.fromkeys(w for p in problems for w in library_text(p))))
        self.problems.setVisible(bool(problems))
        self.edit.setProperty("problem", bool(problems))
        self._restyle()

    def _restyle(self) -> None:
        kind = "problem" if self.edit.property("problem") else "low" if self.edit.property("low") else ""
        css = f"{type(self.edit).__mro__[1].__name__} {{ {EDIT_STYLE[kind]} }}" if kind else ""
        if self.edit.styleSheet() != css:
            self.edit.setStyleSheet(css)
            if isinstance(self.edit, WrapEdit):
                self.edit._fit_height()


class FieldForm(QScrollArea):
    """The form of one document.

    Signals:
        field_committed(name, text): the clerk changed a field (the window turns it into an undoable edit).
        field_focused(name): an input got the focus (the window outlines where the value came from).
    """

    field_committed = Signal(str, str)
    field_focused = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        # never a sideways scroll: the form asks the window for the width its widest value needs
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._body = QWidget()
        self._body.installEventFilter(self)
        self._outer = QVBoxLayout(self._body)
        self._grid_host = QWidget(self._body)
        self._grid = QGridLayout(self._grid_host)
        self._grid.setColumnStretch(1, 1)
        self._grid.setHorizontalSpacing(8)
        self._grid.setVerticalSpacing(4)
        self._outer.addWidget(self._grid_host)
        self._empty = QLabel(self._body)
        self._empty.setWordWrap(True)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setStyleSheet("color: #757575; padding: 24px;")
        self._outer.addWidget(self._empty)
        self._outer.addStretch(1)
        self.setWidget(self._body)
        self.rows: dict[str, FieldRow] = {}
        self._type: str | None = None
        self.locale = "en"
        self.date_order: str | None = None
        self.current_field: str | None = None
        self.show_message(self.tr("Drop receipts and invoices here, or use File ▸ Open."))

    def show_message(self, text: str, tooltip: str = "") -> None:
        """Show ``text`` instead of the fields (``tooltip``: e.g. a failure's English words, for support)."""
        self._clear_rows()
        self._type = None
        self._grid_host.hide()
        self._empty.setText(text)
        self._empty.setToolTip(tooltip)
        self._empty.show()

    def _clear_rows(self) -> None:
        for row in self.rows.values():
            for w in (row.label, row.edit, row.source, row.badge, row.problems, row.reason):
                self._grid.removeWidget(w)
                w.hide()  # deleteLater runs only when the event loop comes back round
                w.deleteLater()
            row.deleteLater()
        self.rows = {}

    def set_document(self, document: Document) -> None:
        """Show ``document``'s fields (rebuilding the rows only when the document type changes)."""
        if document.error:
            self.show_message(self.tr("This file could not be read:\n%1").replace("%1", document.error.message(self.locale)),
                              document.error.message("en"))
            return
        blank = next((n for n in document.notes if n.code is Code.NO_TEXT_IN_DOCUMENT), None)
        if not document.document_type and blank is not None:  # nothing was read on its pages: no type guessed
            self.show_message(blank.message(self.locale), blank.message("en"))
            return
        try:
            doctype = get_document_type(document.document_type or "")
        except KeyError:
            self.show_message(self.tr("Unknown document type %1").replace("%1", str(document.document_type)))
            return
        if doctype.name != self._type:
            self._build(doctype.field_specs())
            self._type = doctype.name
        memory = document.extras.get("memory") if isinstance(document.extras.get("memory"), dict) else None
        keys = document_key_fields(document)  # a 数电票 has no invoice code to miss
        for name, row in self.rows.items():
            row.key = name in keys
            row.reviewed = document.reviewed
            row.show_field(document.fields.get(name), memory)

    def _build(self, specs: list[FieldSpec]) -> None:
        self._clear_rows()
        self._empty.hide()
        self._grid_host.show()
        previous: QWidget | None = None
        for i, spec in enumerate(specs):
            row = FieldRow(spec, spec.label_for(self.locale), self._grid_host,
                           language=self.locale)
            self._grid.addWidget(row.label, 3 * i, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._grid.addWidget(row.edit, 3 * i, 1)
            # aligned, so that beside a value of several lines they keep their own height
            self._grid.addWidget(row.source, 3 * i, 2, Qt.AlignmentFlag.AlignVCenter)
            self._grid.addWidget(row.badge, 3 * i, 3, Qt.AlignmentFlag.AlignVCenter)
            self._grid.addWidget(row.problems, 3 * i + 1, 1, 1, 3)
            self._grid.addWidget(row.reason, 3 * i + 2, 1, 1, 3)
            row.edit.committed.connect(self.field_committed)
            row.edit.focused.connect(self._on_focus)
            row.edit.textEdited.connect(lambda text, r=row: self._preview(r, text))
            if previous is not None:
                QWidget.setTabOrder(previous, row.edit)
            previous = row.edit
            self.rows[spec.name] = row

    def _on_focus(self, name: str) -> None:
        self.current_field = name
        self.ensureWidgetVisible(self.rows[name].edit)
        self.field_focused.emit(name)

    def _preview(self, row: FieldRow, text: str) -> None:
        """Live check while typing (the committed value is re-validated across fields on commit)."""
        row.show_reason(text == row.edit._shown)
        if not text.strip():
            row.set_problems([])
            return
        _value, problems = normalise(row.spec.name, text, self.date_order)
        row.set_problems(problems)

    def focus_field(self, name: str) -> None:
        """Put the keyboard focus on a field (and link it to the page even while the window is inactive)."""
        if name in self.rows:
            self.rows[name].edit.setFocus(Qt.FocusReason.OtherFocusReason)
            if not self.rows[name].edit.hasFocus():
                self._on_focus(name)

    def label_of(self, name: str) -> str:
        row = self.rows.get(name)
        return row.label.text() if row else name

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._body and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # a value widened its input: the splitter must make room
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QSize:
        """As wide as the rows need (labels, the widest one-line value, chips), so that the splitter
        and the window never squeeze a value out of sight; a scroll bar takes care of the height."""
        body = self._body.minimumSizeHint()
        scroll = self.verticalScrollBar().sizeHint().width()
        return QSize(body.width() + scroll + 2 * self.frameWidth(), min(body.height(), 160))

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        hint.setWidth(max(hint.width(), 360, self.minimumSizeHint().width()))
        return hint
