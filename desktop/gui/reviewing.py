"""The clerk's changes to documents: the window's controller over the review core.

Every operation is built by :class:`desktop.core.review.ReviewSession` (normalising an edit, validating
again, reading again as another type, splitting, merging, attaching a task's output, a page read again,
the reviewed mark, "keep both" on a duplicate) and pushed onto the window's ``QUndoStack`` as a
:class:`~desktop.gui.commands.ReviewUndoCommand`. This module decides nothing about documents itself:
it picks the entry, asks the core, and says in the clerk's words when the core refuses.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication, QCheckBox, QMessageBox

from desktop.core.diagnostics import error_text
from desktop.core.memory import unchecked_fields
from desktop.core.model import Box, Document
from desktop.core.review import (
    Command,
    DuplicateMarker,
    ReviewSession,
    can_split_at,
    document_checks,
    has_clerk_work,
    mergeable,
    next_needing_review,
)
from desktop.gui.commands import ReviewUndoCommand
from desktop.gui.queue import QueueEntry, QueueStore

if TYPE_CHECKING:
    from desktop.gui.mainwindow import MainWindow

log = logging.getLogger(__name__)

__all__ = ["ReviewController"]


class ReviewController(QObject):
    """The review operations of one window.

    Args:
        window: the main window (its queue model, form, selection and status bar).
        memory: the vendor memory commands teach, or ``None``.

    Attributes:
        review: the :class:`~desktop.core.review.ReviewSession` over the window's queue.
        undo_stack: the Edit menu's undo history (one entry per command).
    """

    def __init__(self, window: MainWindow, memory: Any) -> None:
        super().__init__(window)
        self.window = window
        self.model = window.model
        self.review = ReviewSession(QueueStore(window.model), memory=memory)
        self.undo_stack = QUndoStack(self)
        self.duplicates = DuplicateMarker()

    # -- helpers -------------------------------------------------------------------------------------
    def _current(self) -> tuple[int, Document] | None:
        """The current entry and its document when it has been read (not failed)."""
        entry_id, doc = self.window.current_id, self.window.current_document()
        if entry_id is None or doc is None or doc.error:
            return None
        return entry_id, doc

    def push(self, command: Command, text: str, apply_first: bool = True) -> None:
        """Apply ``command`` as one undoable step named ``text`` (the window shows the entry)."""
        if not command.changes:
            return
        self.undo_stack.push(ReviewUndoCommand(self.review, command, text, self.window.select_entry, apply_first))

    def _status(self, text: str, ms: int = 5000) -> None:
        self.window.statusBar().showMessage(text, ms)

    # -- editing ---------------------------------------------------------------------------------------
    def edit_field(self, name: str, text: str, page: int | None = None, boxes: list[Box] | None = None) -> None:
        """The clerk typed (or clicked) ``text`` into field ``name`` of the current document: one undoable edit."""
        current = self._current()
        if current is None:
            return
        self.review.date_order = self.window.date_order()
        command = self.review.edit_field(current[0], name, text, page=page, boxes=boxes)
        self.push(command, self.tr("Edit %1").replace("%1", self.window.form.label_of(name)))

    def change_document_type(self, new_type: str) -> None:
        """Read the current document's fields again as ``new_type`` (undoable)."""
        current = self._current()
        if current is None or current[1].document_type == new_type:
            return
        self.review.date_order = self.window.date_order()
        try:
            command = self.review.change_type(current[0], new_type)
        except Exception as exc:  # shown to the clerk
            QMessageBox.warning(self.window, self.tr("Change type"),
                                self.tr("The fields could not be read again: %1").replace("%1", str(exc)))
            self.window.show_document(current[0])
            return
        self.push(command, self.tr("Change document type"))

    def attach_task(self, entry_id: int, task: str, result: Document, text: str) -> Document | None:
        """Put a task's output on the entry's document *as it is now* (the clerk may have edited it
        meanwhile): one undoable change that does not move the clerk. Returns the document after it."""
        entry = self.model.entry(entry_id)
        if entry is None or entry.document is None or entry.document.error:
            return None
        command = self.review.attach_task(entry_id, task, result)
        self.push(command, text, apply_first=False)
        after = command.changes[0].document_after()
        return after

    def reread(self, entry_id: int, document: Document) -> None:
        """A page of the entry was read again (turned): the new reading replaces the document (undoable)."""
        entry = self.model.entry(entry_id)
        if entry is None or entry.document is None:
            return
        self.push(self.review.reread(entry_id, document), self.tr("Rotate and read again"))

    # -- page boundaries ---------------------------------------------------------------------------------
    def can_split(self) -> bool:
        return can_split_at(self.window.current_document(), self.window.current_page)

    def split_at_current_page(self) -> None:
        """Split the current document so that the page shown starts a new document (undoable)."""
        current = self._current()
        if current is None or self.window.current_page is None:
            return
        try:
            command = self.review.split(current[0], self.window.current_page)
        except ValueError as exc:
            self._status(error_text(exc, self.window.language))
            return
        self.push(command, self.tr("Split document"))

    def next_to_merge(self) -> QueueEntry | None:
        """The entry after the current one when it holds the next pages of the same file."""
        current = self._current()
        if current is None:
            return None
        entry = self.model.entry(current[0])
        nxt = self.model.entry_at(self.model.row_of(current[0]) + 1)
        if entry is None or nxt is None or not mergeable((entry.source, entry.document), (nxt.source, nxt.document)):
            return None
        return nxt

    def merge_with_next(self) -> None:
        """Join the next document of the same file (the following pages) to the current one (undoable)."""
        current, nxt = self._current(), self.next_to_merge()
        if current is None or nxt is None:
            return
        try:
            command = self.review.merge(current[0], nxt.id)
        except ValueError as exc:
            self._status(error_text(exc, self.window.language))
            return
        self.push(command, self.tr("Merge documents"))

    # -- the reviewed mark -------------------------------------------------------------------------------
    def toggle_reviewed(self) -> None:
        current = self._current()
        if current is None:
            return
        if current[1].reviewed:
            self.set_reviewed(False)
        else:
            self.mark_reviewed_and_next()

    def set_reviewed(self, reviewed: bool, confirmed: Sequence[str] = ()) -> None:
        """Mark the current document reviewed (or as needing review again), one undoable step, asking
        nothing; ``confirmed``: the flagged fields the clerk said are right (:meth:`ask_flagged`). The
        clerk's Mark reviewed is :meth:`mark_reviewed_and_next`, which asks first."""
        current = self._current()
        if current is None or current[1].reviewed == reviewed:
            return
        text = self.tr("Mark reviewed") if reviewed else self.tr("Mark as needing review")
        self.push(self.review.mark_reviewed([current[0]], reviewed, confirmed=confirmed), text)

    def ask_flagged(self, document: Document) -> list[str] | None:
        """Before marking ``document`` reviewed: when fields are still to check (the form's tint, the
        header's count: :func:`desktop.core.review.document_checks`), ask once, naming them in the
        form's order, with a button that goes to the first one. With the vendor memory on and some of
        them values it would learn, a box (unticked each time) lets the clerk say they checked them:
        only then does the memory learn them (:func:`desktop.core.memory.unchecked_fields`; QA finding F1:
        one click taught a wrong vendor that the memory then confirmed at 100 %).

        Returns:
            The flagged fields the clerk said are right (empty: none, or nothing to ask), or ``None``
            when the document is not to be marked (Cancel; "Go to": the first field has the focus).
        """
        checks = document_checks(document)
        if not checks:
            return []
        form = self.window.form
        order = list(form.rows)
        names = sorted((c.field for c in checks), key=lambda n: order.index(n) if n in order else len(order))
        labels = [form.label_of(n) for n in names]
        sep = "、" if str(getattr(self.window, "language", "en")).startswith("zh") else ", "
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Mark reviewed"),
                          self.tr("%n field(s) are still marked to check: %1. Mark reviewed anyway?", "",
                                  len(names)).replace("%1", sep.join(labels)), parent=self.window)
        box.setObjectName("flagged_question")
        go = box.addButton(self.tr("Go to %1").replace("%1", labels[0]), QMessageBox.ButtonRole.ActionRole)
        mark = box.addButton(self.tr("Mark reviewed"), QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(go)  # Enter, the careless reflex, takes the clerk to the field
        box.setEscapeButton(cancel)
        learnable = [n for n in names if n in unchecked_fields(document)] if self.review.memory is not None else []
        check: QCheckBox | None = None
        if learnable:
            box.setInformativeText(self.tr("The vendor memory learns %1 from this document only if you tick the box.")
                                   .replace("%1", sep.join(form.label_of(n) for n in learnable)))
            check = QCheckBox(self.tr("I checked them: they are right"), box)
            box.setCheckBox(check)
        box.exec()
        clicked = box.clickedButton()
        if clicked is go:
            form.focus_field(names[0])
            return None
        if clicked is not mark:
            return None
        if check is None or not check.isChecked():
            return []
        return [n for n in names if (f := document.fields.get(n)) is not None and f.value is not None]

    def mark_reviewed_and_next(self) -> None:
        """Ctrl+Enter, the Mark reviewed button and menu item: commit the field being typed, ask about
        fields still to check (:meth:`ask_flagged`), mark the document reviewed, go to the next one. On
        Cancel or Go to, the document stays as it was and the window stays on it."""
        focus = QApplication.focusWidget()
        if focus is not None and getattr(focus, "is_field_input", False):
            focus._finish()  # type: ignore[attr-defined]
        current = self._current()
        if current is not None and not current[1].reviewed:
            answer = self.ask_flagged(current[1])
            if answer is None:
                self.window.reviewed_button.setChecked(False)  # the checkable button was toggled by the click
                return
            self.set_reviewed(True, answer)
        self.next_needing_review()

    def next_needing_review(self) -> None:
        entries = self.model.entries()
        if not entries:
            return
        start = self.model.row_of(self.window.current_id) if self.window.current_id is not None else -1
        row = next_needing_review([e.status for e in entries], start)
        if row is None:
            self._status(self.tr("Every document is reviewed."))  # the queue says "not yet reviewed" of the others
            return
        self.window.select_entry(entries[row].id)

    # -- duplicates and removal ----------------------------------------------------------------------------
    def mark_duplicates(self, entry_id: int, documents: list[Document]) -> None:
        """Mark documents just read from ``entry_id`` that repeat one in the queue or one the memory learned."""
        queued = [(e.id, e.document) for e in self.model.entries() if e.id != entry_id]
        self.duplicates.mark(documents, queued, self.review.memory)

    def keep_duplicate(self) -> None:
        """The clerk says the current document is not a duplicate (undoable)."""
        current = self._current()
        if current is None or not current[1].duplicate_of:
            return
        self.push(self.review.keep_duplicate(current[0]), self.tr("Keep both"))

    def drop_duplicate(self) -> None:
        """The clerk says the current document is a duplicate: it leaves the queue (the file stays)."""
        if self.window.current_id is not None:
            self._remove([self.window.current_id])

    def remove_selected(self) -> None:
        ids = self.window.selected_ids()
        if not ids:
            return
        worked = [i for i in ids if (e := self.model.entry(i)) is not None and has_clerk_work(e.document)]
        if worked:
            answer = QMessageBox.question(
                self.window, self.tr("Remove from queue"),
                self.tr("%n of the documents have your edits or are reviewed. Remove them anyway? "
                        "(The files themselves are not touched.)", "", len(worked)))
            if answer != QMessageBox.StandardButton.Yes:
                return
        self._remove(ids)

    def _remove(self, ids: list[int]) -> None:
        window = self.window
        if window.current_id in ids:
            window.current_id = None
        self.undo_stack.clear()  # the commands refer to entries that go
        self.model.remove(ids)
        row = max(0, window.queue_view.currentIndex().row())
        window.show_document(self.model.entry_at(row).id if self.model.rowCount() else None)  # type: ignore[union-attr]
