"""The review core's commands on the window's undo stack.

A :class:`desktop.core.review.Command` is plain data (every touched entry before and after); this
wraps one in a ``QUndoCommand`` so the Edit menu, Ctrl+Z and Ctrl+Y work on it. Applying and reverting
are the review core's (:meth:`~desktop.core.review.ReviewSession.apply` /
:meth:`~desktop.core.review.ReviewSession.revert`, which also teach the vendor memory and take the lesson
back); the wrapper only remembers what the memory was taught between the two and tells the window which
entry to show.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QUndoCommand

from desktop.core.review import Command, ReviewSession

__all__ = ["ReviewUndoCommand"]


class ReviewUndoCommand(QUndoCommand):
    """One review command on a ``QUndoStack``.

    Args:
        review: the review session the command was built by (its store is the queue).
        command: the command.
        text: the Edit menu's "Undo <text>".
        on_apply: called with the first touched entry's id after every redo/undo (the window selects it).
        apply_first: whether ``on_apply`` runs on the first redo too (``False`` for results arriving in
            the background, so the clerk is not taken away from the document being looked at).
    """

    def __init__(self, review: ReviewSession, command: Command, text: str,
                 on_apply: Callable[[int], None] | None = None, apply_first: bool = True) -> None:
        super().__init__(text)
        self.review = review
        self.command = command
        self._on_apply = on_apply
        self._skip_apply = not apply_first
        self._taught: list[Any] = []

    def _applied(self) -> None:
        if self._skip_apply:
            self._skip_apply = False
        elif self._on_apply is not None and self.command.changes:
            self._on_apply(self.command.changes[0].entry_id)

    def redo(self) -> None:
        self._taught = self.review.apply(self.command)
        self._applied()

    def undo(self) -> None:
        self.review.revert(self.command, self._taught)
        self._taught = []
        self._applied()
