"""The clerk's review of a session, without Qt: what needs checking and why, and every change as an
undoable command.

:class:`ReviewSession` works on a :class:`~desktop.core.session.SessionStore`. Each operation a clerk
performs -- edit a field, change the document type, split or merge documents, attach a document
task's output, mark documents reviewed -- is built as a :class:`Command`: plain data holding every
touched entry's document before and after (as ``Document.to_dict`` dicts), so applying it, reverting
it, saving it or sending it elsewhere needs nothing but the data. Building a command changes nothing;
:meth:`ReviewSession.apply` and :meth:`ReviewSession.revert` write it to the store, and
:meth:`ReviewSession.do` / :meth:`undo` / :meth:`redo` keep an undo history. The GUI wraps the same
commands in ``QUndoCommand`` objects; a command-line tool or a server can use this class as it is.

What needs checking is :func:`desktop.core.flags.field_reasons`, the one rule the form's tint, the queue
badge, the summary, the CLI and the Problems sheet share: a field the extraction flagged
(``Field.needs_review``: low calibrated confidence, a failed cross-check) that the clerk has not typed
or edited, a field with a validation problem, or an empty key field of the document type (``key_fields``
in its ``resources/doctypes`` JSON). An edit by the clerk clears ``needs_review`` (the clerk has looked at
it); problems are recomputed (:func:`desktop.core.extraction.validate`).
"""
from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from desktop.core.flags import Reason, key_fields
from desktop.core.flags import field_reasons as field_checks
from desktop.core.model import Box, Document, Field
from desktop.core.session import SessionStore, status_of

__all__ = [
    "Action",
    "Change",
    "Check",
    "Command",
    "Reason",
    "ReviewSession",
    "attention_count",
    "document_checks",
    "edited_document",
    "retyped_document",
    "reviewed_document",
    "with_task_output",
    "field_checks",
    "key_fields",
]


# --------------------------------------------------------------------------------------------------
# what needs checking


@dataclass(frozen=True)
class Check:
    """One field to check: its name and every reason (in :class:`Reason` order)."""

    field: str
    reasons: tuple[Reason, ...]


def document_checks(document: Document | None) -> list[Check]:
    """Every field of ``document`` to check, in field order, then missing key fields; none for an
    unread (error) document."""
    if document is None or document.error is not None:
        return []
    keys = key_fields(document.document_type)
    out = [Check(name, r) for name, f in document.fields.items() if (r := field_checks(f, name in keys))]
    out += [Check(name, (Reason.EMPTY_KEY,)) for name in sorted(keys) if name not in document.fields]
    return out


def attention_count(document: Document | None) -> int:
    """How many fields of ``document`` need checking (the queue badge, the summary, the Problems sheet)."""
    return len(document_checks(document))


# --------------------------------------------------------------------------------------------------
# commands


class Action(StrEnum):
    """The clerk's operations."""

    EDIT_FIELD = "edit_field"
    CHANGE_TYPE = "change_type"
    MARK_REVIEWED = "mark_reviewed"
    ATTACH_TASK = "attach_task"
    SPLIT = "split"
    MERGE = "merge"


@dataclass(frozen=True)
class Change:
    """One session entry before and after a command.

    Attributes:
        entry_id: the entry's id in the store.
        source: its file.
        position: its place in the queue.
        before: ``Document.to_dict()`` before; ``None``: the entry did not exist (a split's new part).
        after: ``Document.to_dict()`` after; ``None``: the entry is removed (a merge's second part).
    """

    entry_id: int
    source: str
    position: float
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    def document_before(self) -> Document | None:
        return Document.from_dict(self.before) if self.before is not None else None

    def document_after(self) -> Document | None:
        return Document.from_dict(self.after) if self.after is not None else None


@dataclass(frozen=True)
class Command:
    """An undoable change to the session, as plain data.

    Attributes:
        action: what the clerk did.
        params: what it was done with (``field``, ``text``, ``document_type``, ``task``, ``page``,
            ``reviewed``), for the Undo menu's wording and for logs.
        changes: every touched entry, in queue order.
    """

    action: Action
    params: dict[str, Any] = field(default_factory=dict)
    changes: tuple[Change, ...] = ()

    @property
    def entry_ids(self) -> list[int]:
        return [c.entry_id for c in self.changes]

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action.value, "params": dict(self.params),
                "changes": [dataclasses.asdict(c) for c in self.changes]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Command:
        return cls(Action(d["action"]), dict(d.get("params") or {}),
                   tuple(Change(**c) for c in d.get("changes", [])))


def _copy(document: Document) -> Document:
    return Document.from_dict(copy.deepcopy(document.to_dict()))


def _normalise(name: str, text: str, date_order: str | None) -> tuple[str | None, list[Any]]:
    from desktop.core.extraction import normalise_field

    return normalise_field(name, text, date_order=date_order)


def _validate(document: Document) -> None:
    from desktop.core.extraction import validate

    validate(document.fields, document.document_type or "")


def edited_document(document: Document, name: str, text: str, *, page: int | None = None,
                    boxes: Sequence[Box] | None = None, date_order: str | None = None) -> Document:
    """``document`` with field ``name`` set to what the clerk typed (or clicked on the page).

    The text is normalised as its field type (:func:`desktop.core.extraction.normalise_field`), the
    field marked ``edited`` with source ``user`` and confidence 1 (0 when cleared), ``needs_review``
    cleared, and every field validated again (a new total may break ``subtotal + tax = total``); the
    normalisation's own problems (an unreadable date) are kept on the field. ``page``/``boxes`` (page
    pixels) link the value to where the clerk took it from. ``document`` is not changed.
    """
    after = _copy(document)
    f = after.fields.get(name) or Field(name)
    text = text.strip()
    value, problems = _normalise(name, text, date_order) if text else (None, [])
    f.raw = text or None
    f.value = value
    f.source = "user"
    f.edited = True
    f.needs_review = False
    f.confidence = 1.0 if text else 0.0
    if boxes is not None:
        f.page, f.boxes, f.box = page, list(boxes), None
        f.__post_init__()
    after.fields[name] = f
    _validate(after)
    for p in problems:
        if p not in f.problems:
            f.problems.append(p)
    return after


def retyped_document(document: Document, document_type: str, *, date_order: str | None = None) -> Document:
    """``document`` read again as ``document_type`` (:func:`desktop.core.pipeline.reextract`: the clerk's
    edits kept where the new type has the field), ``reviewed`` kept. ``document`` is not changed.

    Raises:
        KeyError: unknown document type.
    """
    from desktop.core.pipeline import reextract

    after = reextract(document, document_type, date_order)
    after.reviewed = document.reviewed
    return after


def reviewed_document(document: Document, reviewed: bool = True) -> Document:
    """A copy of ``document`` marked reviewed (or as needing review again)."""
    after = _copy(document)
    after.reviewed = reviewed
    return after


def with_task_output(document: Document, task: str, result: Document) -> Document:
    """``document`` *as it is now* with the output of ``task`` from ``result`` (a document task run on an
    earlier copy: the clerk may have edited meanwhile). Replaces an earlier output of the task (and for
    ``table`` the tables) and the task's problems (``extras["task_problems"]``)."""
    after = _copy(document)
    after.extras[task] = copy.deepcopy(list(result.extras.get(task) or []))
    if task == "table":
        after.tables = copy.deepcopy(list(result.tables))
    problems = result.extras.get("task_problems")
    if problems:
        after.extras["task_problems"] = copy.deepcopy(dict(problems))
    else:
        after.extras.pop("task_problems", None)
    return after


class ReviewSession:
    """The clerk's operations over a session store (see the module docstring).

    Args:
        store: the session.
        date_order: ``DMY``/``MDY`` for ambiguous dates typed by the clerk (``None``: per document).
    """

    def __init__(self, store: SessionStore, *, date_order: str | None = None) -> None:
        self.store = store
        self.date_order = date_order
        self._done: list[Command] = []
        self._undone: list[Command] = []

    # -- reading -----------------------------------------------------------------------------------
    def _entry(self, entry_id: int) -> tuple[str, float, Document]:
        for e in self.store.entries():
            if e.id == entry_id:
                if e.document is None:
                    raise ValueError(f"entry {entry_id} ({e.source}) has not been read yet")
                return e.source, e.position, e.document
        raise KeyError(entry_id)

    def document(self, entry_id: int) -> Document:
        """The entry's document (a copy).

        Raises:
            KeyError: no such entry. ValueError: it has not been read yet.
        """
        return self._entry(entry_id)[2]

    def checks(self, entry_id: int) -> list[Check]:
        """What needs checking in the entry's document, and why."""
        return document_checks(self.document(entry_id))

    # -- building commands ---------------------------------------------------------------------------
    def _one(self, action: Action, entry_id: int, after: Document, **params: Any) -> Command:
        source, position, before = self._entry(entry_id)
        return Command(action, params, (Change(entry_id, source, position, before.to_dict(), after.to_dict()),))

    def _readable(self, entry_id: int) -> Document:
        doc = self.document(entry_id)
        if doc.error is not None:
            raise ValueError(f"{doc.source} was not read: {doc.error.message()}")
        return doc

    def edit_field(self, entry_id: int, name: str, text: str, *, page: int | None = None,
                   boxes: Sequence[Box] | None = None) -> Command:
        """The clerk typed ``text`` into field ``name`` (see :func:`edited_document`).

        Raises:
            KeyError: no such entry. ValueError: the entry was not read.
        """
        after = edited_document(self._readable(entry_id), name, text, page=page, boxes=boxes,
                                date_order=self.date_order)
        return self._one(Action.EDIT_FIELD, entry_id, after, field=name, text=text)

    def change_type(self, entry_id: int, document_type: str) -> Command:
        """Read the fields again as ``document_type`` (:func:`desktop.core.pipeline.reextract`: the
        clerk's edits are kept where the new type has the field); ``reviewed`` is kept.

        Raises:
            KeyError: no such entry or unknown type. ValueError: the entry was not read.
        """
        after = retyped_document(self._readable(entry_id), document_type, date_order=self.date_order)
        return self._one(Action.CHANGE_TYPE, entry_id, after, document_type=document_type)

    def mark_reviewed(self, entry_ids: Iterable[int], reviewed: bool = True) -> Command:
        """Mark documents reviewed (or as needing review again); unread and unchanged ones are skipped."""
        changes = []
        for entry_id in entry_ids:
            source, position, doc = self._entry(entry_id)
            if doc.error is not None or doc.reviewed == reviewed:
                continue
            changes.append(Change(entry_id, source, position, doc.to_dict(), reviewed_document(doc, reviewed).to_dict()))
        return Command(Action.MARK_REVIEWED, {"reviewed": reviewed}, tuple(changes))

    def attach_task(self, entry_id: int, task: str, result: Document) -> Command:
        """Put a document task's output on the entry's document as it is now (see :func:`with_task_output`)."""
        after = with_task_output(self._readable(entry_id), task, result)
        return self._one(Action.ATTACH_TASK, entry_id, after, task=task)

    def split(self, entry_id: int, at_page: int) -> Command:
        """Split the entry's document before page ``at_page`` into two entries (the second placed right
        after the first): :func:`desktop.core.boundaries.split_document`.

        Raises:
            KeyError: no such entry. ValueError: ``at_page`` is not inside the document.
        """
        from desktop.core.boundaries import split_document

        source, position, doc = self._entry(entry_id)
        first, second = split_document(doc, at_page)
        new_id, new_position = self.store.next_id(), self._position_after(position)
        return Command(Action.SPLIT, {"page": at_page}, (
            Change(entry_id, source, position, doc.to_dict(), first.to_dict()),
            Change(new_id, source, new_position, None, second.to_dict()),
        ))

    def merge(self, entry_id: int, next_id: int) -> Command:
        """Merge the entry's document with ``next_id``'s (adjacent pages of one file) into the first
        entry: :func:`desktop.core.boundaries.merge_documents`.

        Raises:
            KeyError: no such entry. ValueError: different files or pages not adjacent.
        """
        from desktop.core.boundaries import merge_documents

        source, position, a = self._entry(entry_id)
        source_b, position_b, b = self._entry(next_id)
        merged = merge_documents(a, b)
        return Command(Action.MERGE, {"with": next_id}, (
            Change(entry_id, source, position, a.to_dict(), merged.to_dict()),
            Change(next_id, source_b, position_b, b.to_dict(), None),
        ))

    def _position_after(self, position: float) -> float:
        later = [e.position for e in self.store.entries() if e.position > position]
        return (position + min(later)) / 2 if later else position + 1.0

    # -- applying ------------------------------------------------------------------------------------
    def _write(self, changes: Iterable[Change], side: str) -> None:
        for c in changes:
            data = c.after if side == "after" else c.before
            if data is None:
                self.store.remove([c.entry_id])
                continue
            doc = Document.from_dict(data)
            self.store.put(c.entry_id, c.source, c.position, doc, status_of(doc))

    def apply(self, command: Command) -> None:
        """Write the command's "after" side to the store."""
        self._write(command.changes, "after")

    def revert(self, command: Command) -> None:
        """Write the command's "before" side to the store (its undo)."""
        self._write(reversed(command.changes), "before")

    def do(self, command: Command) -> None:
        """:meth:`apply` and remember it for :meth:`undo` (clears the redo history)."""
        self.apply(command)
        self._done.append(command)
        self._undone.clear()

    def undo(self) -> Command | None:
        """Revert the last command done; returns it (``None``: nothing to undo)."""
        if not self._done:
            return None
        command = self._done.pop()
        self.revert(command)
        self._undone.append(command)
        return command

    def redo(self) -> Command | None:
        """Apply the last command undone again; returns it (``None``: nothing to redo)."""
        if not self._undone:
            return None
        command = self._undone.pop()
        self.apply(command)
        self._done.append(command)
        return command
