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
        except Exception:  # noqa: BLE001 - the clerk's edit matters more than the memory
            log.exception("the vendor memory could not learn from %s", self._after.get("source"))

    def redo(self) -> None:
        self._apply(self._after)
        self._teach(undo=False)

    def undo(self) -> None:
        self._apply(self._before)
        self._teach(undo=True)
