"""Undoable edits. Each command stores the whole document before and after (as ``to_dict`` JSON-ready
dicts), so undo restores exactly what was there, cross-field validation problems included.

With a vendor memory (:class:`~desktop.core.memory.VendorMemory`), a command also teaches it: a document
that is reviewed after the change is learned (again, if an edit changed it), one that stops being
reviewed is forgotten; undo takes exactly that back (:meth:`VendorMemory.forget`, or learning the
reviewed document again)."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QUndoCommand

from desktop.core.model import Document
from desktop.gui.queue import QueueModel

log = logging.getLogger(__name__)


class DocumentCommand(QUndoCommand):
    """Replace one entry's document by ``after`` (redo) or ``before`` (undo).

    Args:
        model: the queue model (saves to the session store and tells the views).
        entry_id: the queue entry.
        before, after: the document before and after the change.
        text: the Edit menu's "Undo <text>".
        on_apply: called with the entry id after every redo/undo (the window selects that entry).
        apply_first: whether ``on_apply`` runs on the first redo too (``False`` for results arriving
            in the background, so the clerk is not taken away from the document being looked at).
        memory: the vendor memory to teach (see the module docstring), or ``None``.
    """

    def __init__(
        self, model: QueueModel, entry_id: int, before: Document, after: Document, text: str,
        on_apply: Callable[[int], None] | None = None, apply_first: bool = True, memory: Any = None,
    ) -> None:
        super().__init__(text)
        self.model = model
        self.entry_id = entry_id
        self._before = before.to_dict()
        self._after = after.to_dict()
        self._on_apply = on_apply
        self._skip_apply = not apply_first
        self._memory = memory
        self._lesson: Any = None

    def _apply(self, data: dict) -> None:
        self.model.set_document(self.entry_id, Document.from_dict(data))
        if self._skip_apply:
            self._skip_apply = False
        elif self._on_apply is not None:
            self._on_apply(self.entry_id)

    def _teach(self, undo: bool) -> None:
        """Teach / untaught the memory (:meth:`VendorMemory.teach_change`); a memory failure never
        blocks the edit."""
        if self._memory is None:
            return
        try:
            if undo:
                if self._lesson is not None:
                    self._memory.untaught(self._lesson)
                    self._lesson = None
            else:
                self._lesson = self._memory.teach_change(self._before, self._after)
        except Exception:
            log.exception("the vendor memory could not learn from %s", self._after.get("source"))

    def redo(self) -> None:
        self._apply(self._after)
        self._teach(undo=False)

    def undo(self) -> None:
        self._apply(self._before)
        self._teach(undo=True)


class SplitCommand(QUndoCommand):
    """Split one entry's document in two (:func:`desktop.core.boundaries.split_document`): the entry
    keeps the first part, a new entry right after it holds the second. Undo removes the new entry and
    puts the whole document back; both are saved in the session at once.

    Args:
        model: the queue model.
        entry_id: the entry whose document is split.
        before: its document before the split.
        first, second: the two parts.
        text: the Edit menu's "Undo <text>".
        on_apply: called with the entry id to select after every redo/undo.
    """

    def __init__(self, model: QueueModel, entry_id: int, before: Document, first: Document, second: Document,
                 text: str, on_apply: Callable[[int], None] | None = None) -> None:
        super().__init__(text)
        self.model = model
        self.entry_id = entry_id
        self._before = before.to_dict()
        self._parts = (first.to_dict(), second.to_dict())
        self._on_apply = on_apply
        self.new_id: int | None = None

    def redo(self) -> None:
        ids = self.model.set_documents(self.entry_id, [Document.from_dict(d) for d in self._parts])
        self.new_id = ids[1] if len(ids) > 1 else None
        if self._on_apply is not None:
            self._on_apply(self.entry_id)

    def undo(self) -> None:
        if self.new_id is not None:
            self.model.remove([self.new_id])
            self.new_id = None
        self.model.set_document(self.entry_id, Document.from_dict(self._before))
        if self._on_apply is not None:
            self._on_apply(self.entry_id)


class MergeCommand(QUndoCommand):
    """Merge an entry's document with the next entry's (:func:`desktop.core.boundaries.merge_documents`):
    the first entry holds the merged document and the second entry goes. Undo brings the second entry
    back right after the first, with its document as it was.

    Args:
        model: the queue model.
        entry_id, other_id: the earlier and the later entry.
        before, other: their documents before the merge.
        merged: the merged document.
        text: the Edit menu's "Undo <text>".
        on_apply: called with the entry id to select after every redo/undo.
    """

    def __init__(self, model: QueueModel, entry_id: int, other_id: int, before: Document, other: Document,
                 merged: Document, text: str, on_apply: Callable[[int], None] | None = None) -> None:
        super().__init__(text)
        self.model = model
        self.entry_id = entry_id
        self.other_id: int | None = other_id
        self._before = before.to_dict()
        self._other = other.to_dict()
        self._merged = merged.to_dict()
        self._on_apply = on_apply

    def redo(self) -> None:
        if self.other_id is not None:
            self.model.remove([self.other_id])
            self.other_id = None
        self.model.set_document(self.entry_id, Document.from_dict(self._merged))
        if self._on_apply is not None:
            self._on_apply(self.entry_id)

    def undo(self) -> None:
        ids = self.model.set_documents(self.entry_id, [Document.from_dict(self._before), Document.from_dict(self._other)])
        self.other_id = ids[1] if len(ids) > 1 else None
        if self._on_apply is not None:
            self._on_apply(self.entry_id)
