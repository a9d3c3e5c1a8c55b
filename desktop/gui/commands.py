"""Undoable edits. Each command stores the whole document before and after (as ``to_dict`` JSON-ready
dicts), so undo restores exactly what was there, cross-field validation problems included."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from desktop.core.model import Document
from desktop.gui.queue import QueueModel


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
    """

    def __init__(
        self, model: QueueModel, entry_id: int, before: Document, after: Document, text: str,
        on_apply: Callable[[int], None] | None = None, apply_first: bool = True,
    ) -> None:
        super().__init__(text)
        self.model = model
        self.entry_id = entry_id
        self._before = before.to_dict()
        self._after = after.to_dict()
        self._on_apply = on_apply
        self._skip_apply = not apply_first

    def _apply(self, data: dict) -> None:
        self.model.set_document(self.entry_id, Document.from_dict(data))
        if self._skip_apply:
            self._skip_apply = False
        elif self._on_apply is not None:
            self._on_apply(self.entry_id)

    def redo(self) -> None:
        self._apply(self._after)

    def undo(self) -> None:
        self._apply(self._before)
