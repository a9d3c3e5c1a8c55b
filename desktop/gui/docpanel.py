"""The right side of the window: the document's header (name, type, reviewed), its summary, the
duplicate banner, and the tabs (fields, page text, task output).

:class:`DocumentPanel` only shows what it is given; the window decides which document that is, and the
review controller what a click on the type or the reviewed button does.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.doctypes import document_types
from desktop.core.model import Document
from desktop.core.review import Standing, attention_count, standing
from desktop.gui.form import FieldForm
from desktop.gui.notes import document_notes
from desktop.gui.resources import icon
from desktop.gui.taskview import TaskOutputPanel
from desktop.gui.vendors import DuplicateBanner

__all__ = ["DocumentPanel"]


class DocumentPanel(QWidget):
    """The document shown, on the right of the window.

    Args:
        language: the UI language (``en`` / ``zh_CN``), for type labels, the form and the notes.
        date_order: ``DMY``/``MDY`` for the form's date hints (``None``: per document).
        parent: the window.
    """

    def __init__(self, language: str, date_order: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.language = language
        rl = QVBoxLayout(self)
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
            self.type_combo.addItem(dt.label_for(language), name)
        self.type_combo.setPlaceholderText("—")
        self.type_combo.setCurrentIndex(-1)
        type_label = QLabel(self.tr("&Type:"), self)
        type_label.setBuddy(self.type_combo)
        row.addWidget(type_label)
        row.addWidget(self.type_combo, 1)
        self.reviewed_button = QPushButton(icon("reviewed"), self.tr("Mark reviewed"), self)
        self.reviewed_button.setObjectName("reviewed_button")
        self.reviewed_button.setToolTip(self.tr("Mark this document reviewed and go to the next one (Ctrl+Enter)"))
        row.addWidget(self.reviewed_button)
        rl.addLayout(row)
        self.summary_label = QLabel(self)
        self.summary_label.setWordWrap(True)
        rl.addWidget(self.summary_label)
        self.duplicate_banner = DuplicateBanner(self)
        rl.addWidget(self.duplicate_banner)
        self.tabs = QTabWidget(self)
        self.form = FieldForm(self)
        self.form.locale = language
        self.form.date_order = date_order
        self.text_view = QPlainTextEdit(self)
        self.text_view.setObjectName("page_text")
        self.text_view.setReadOnly(True)
        self.text_view.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.tabs.addTab(self.form, self.tr("Fields"))
        self.tabs.addTab(self.text_view, self.tr("Page text"))
        self.task_panel = TaskOutputPanel(self)
        self.task_panel.language = language
        self.task_panel.setObjectName("task_panel")
        self.tabs.addTab(self.task_panel, self.tr("Task output"))
        rl.addWidget(self.tabs, 1)

    def _set_readable(self, ok: bool, doc: Document | None) -> None:
        self.type_combo.setEnabled(ok)
        self.reviewed_button.setEnabled(ok)
        self.task_panel.set_document(doc if ok else None)
        if not ok:
            self.type_combo.setCurrentIndex(-1)  # shows the "—" placeholder, not some type
            self.duplicate_banner.show_mark(None)
            self.summary_label.clear()
            self.summary_label.setToolTip("")
            self.text_view.clear()

    def show_nothing(self) -> None:
        """No entry is selected (an empty queue)."""
        self._set_readable(False, None)
        self.title_label.setText(self.tr("No document"))
        self.title_label.setToolTip("")
        self.form.show_message(self.tr("Drop receipts, invoices or whole folders here, or use File ▸ Open (Ctrl+O)."))

    def show_entry(self, name: str, source: str, status: str, doc: Document | None,
                   earlier_row: int | None = None) -> None:
        """Show a queue entry: its file ``name`` (``source`` in the tooltip), and its document once read
        (``doc``: ``None`` while the file waits, ``status`` ``queued`` or ``reading``); ``earlier_row``:
        the queue row (from 1) of the document a duplicate mark names, ``None`` when it is not in the
        queue."""
        self._set_readable(doc is not None and not doc.error, doc)
        self.title_label.setText(name)
        self.title_label.setToolTip(source)
        if doc is None:
            self.form.show_message(self.tr("Waiting to be read…") if status == "queued" else self.tr("Reading…"))
            return
        if doc.error:
            self.form.show_message(self.tr("This file could not be read:\n%1").replace("%1", doc.error.message(self.language)),
                                   doc.error.message("en"))  # the library's own words too, for support
            return
        self.type_combo.setCurrentIndex(self.type_combo.findData(doc.document_type))
        self.reviewed_button.setText(self.tr("Reviewed ✓") if doc.reviewed else self.tr("Mark reviewed"))
        self.reviewed_button.setCheckable(True)
        self.reviewed_button.setChecked(doc.reviewed)
        self.update_summary(doc)
        self.duplicate_banner.show_mark(doc.duplicate_of, earlier_row)
        self.form.set_document(doc)

    def update_summary(self, doc: Document) -> None:
        """The line under the header: how many fields to check (the queue badge's count), reviewed, notes."""
        to_check = attention_count(doc)  # the review core's count, as the queue's badge
        notes = document_notes(doc, self.language)
        shown = [n.text for n in notes if n.text]
        parts = []
        if to_check:
            parts.append("<span style='color:#e65100'>" + self.tr("%n field(s) to check", "", to_check) + "</span>")
        elif standing(doc) is Standing.CHECKS_OUT:  # the queue says "Checks out, not yet reviewed" then
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
