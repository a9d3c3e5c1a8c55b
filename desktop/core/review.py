"""The clerk's review of a session, without Qt: what needs checking and why, and every change as an
undoable command.

:class:`ReviewSession` works on a :class:`~desktop.core.session.SessionStore`. Each operation a clerk
performs -- edit a field, change the document type, split or merge documents, attach a document
task's output, mark documents reviewed -- is built as a :class:`Command`: plain data holding every
touched entry's document before and after (as ``Document.to_dict`` dicts), so applying it, reverting
it, saving it or sending it elsewhere needs nothing but the data. Building a command changes nothing;
:meth:`ReviewSession.apply` and :meth:`ReviewSession.revert` write it to the store, and
:meth:`ReviewSession.do` / :meth:`undo` / :meth:`redo` keep an undo history. The GUI wraps the same
commands in ``QUndoCommand`` objects over its queue (an :class:`EntryStore` that also tells the views);
a command-line tool or a server can use this class over the session store as it is.

With a vendor memory (:class:`~desktop.core.memory.VendorMemory`), applying an edit, a change of the
reviewed mark or "keep both" on a suspected duplicate also teaches it
(:meth:`~desktop.core.memory.VendorMemory.teach_change`: a document reviewed after the change is learned,
one that stops being reviewed is forgotten) and reverting takes exactly that back. A memory failure is
logged and never blocks the change.

What needs checking is :func:`desktop.core.flags.field_reasons`, the one rule the form's tint, the queue
badge, the summary, the CLI and the Problems sheet share: a field the extraction flagged
(``Field.needs_review``: low calibrated confidence, a failed cross-check) that the clerk has not typed
or edited, a field with a validation problem, or an empty key field of the document type (``key_fields``
in its ``resources/doctypes`` JSON). An edit by the clerk clears ``needs_review`` (the clerk has looked at
it; the field is the clerk's value from then on, flagged only by a failed check); problems are recomputed
(:func:`desktop.core.extraction.validate`) and the other fields' flags follow them
(:func:`edited_document`: a value a check now fails on is flagged, and a value whose failed sum check the
edit made hold is no longer flagged for it). A document marked reviewed has nothing left to check (a person
checked every field): its count is 0 and its fields are not tinted; the Problems sheet lists what
extraction had flagged on it as reviewed.
"""
from __future__ import annotations

import copy
import dataclasses
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from desktop.core.diagnostics import Code, DiagnosticError, diag, is_page_lost
from desktop.core.flags import Reason, document_key_fields, key_fields
from desktop.core.flags import field_reasons as field_checks
from desktop.core.model import Box, Document, Field
from desktop.core.session import SessionEntry, status_of

__all__ = [
    "TEACHING_ACTIONS",
    "Action",
    "Change",
    "Check",
    "Command",
    "DuplicateMarker",
    "EntryStore",
    "Reason",
    "ReviewSession",
    "Standing",
    "attention_count",
    "can_split_at",
    "document_checks",
    "documents_to_export",
    "edited_document",
    "field_checks",
    "has_clerk_work",
    "kept_duplicate",
    "key_fields",
    "mergeable",
    "next_needing_review",
    "retyped_document",
    "reviewed_document",
    "standing",
    "with_task_output",
]

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------------
# what needs checking


@dataclass(frozen=True)
class Check:
    """One field to check: its name and every reason (in :class:`Reason` order)."""

    field: str
    reasons: tuple[Reason, ...]


def document_checks(document: Document | None) -> list[Check]:
    """Every field of ``document`` to check, in field order, then missing key fields; none for an
    unread (error) document, nor for a reviewed one (a person checked its fields)."""
    if document is None or document.error is not None or document.reviewed:
        return []
    keys = document_key_fields(document)
    out = [Check(name, r) for name, f in document.fields.items() if (r := field_checks(f, name in keys))]
    out += [Check(name, (Reason.EMPTY_KEY,)) for name in sorted(keys) if name not in document.fields]
    return out


def attention_count(document: Document | None) -> int:
    """How many fields of ``document`` need checking (the queue badge, the summary, the Problems sheet)."""
    return len(document_checks(document))


class Standing(StrEnum):
    """Where a document stands in the clerk's review: what the queue's status and the document's header
    both say, so that they never disagree (one said "Needs review" while the other said "Every field
    checks out")."""

    FAILED = "failed"  # not read (``Document.error``)
    TO_CHECK = "to_check"  # not reviewed: a field to check (attention_count), a page that could not be read,
    # or no text on any page (no type guessed: ``no_text_in_document``)
    CHECKS_OUT = "checks_out"  # not reviewed, nothing to check: the clerk only confirms it (Mark reviewed)
    REVIEWED = "reviewed"  # marked reviewed by the clerk: a person checked every field, none is left to check


def standing(document: Document) -> Standing:
    """Where ``document`` stands (see :class:`Standing`): its fields by :func:`desktop.core.flags.field_reasons`
    (through :func:`attention_count`), its pages by :func:`desktop.core.diagnostics.is_page_lost`."""
    if document.error is not None:
        return Standing.FAILED
    if document.reviewed:
        return Standing.REVIEWED
    if attention_count(document) or any(is_page_lost(w) for page in document.page_results for w in page.warnings) \
            or any(n.code is Code.NO_TEXT_IN_DOCUMENT for n in document.notes):  # nothing read: no field to flag
        return Standing.TO_CHECK
    return Standing.CHECKS_OUT


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
    REREAD = "reread"  # a page read again (turned): the engine's new reading of the document
    KEEP_DUPLICATE = "keep_duplicate"  # the clerk says a suspected duplicate is not one


TEACHING_ACTIONS = frozenset({Action.EDIT_FIELD, Action.MARK_REVIEWED, Action.KEEP_DUPLICATE})
"""The actions that teach the vendor memory when applied (the clerk's own confirmations)."""


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

    validate(document.fields, document.document_type or "", document.page_results)


#: The cross-field sum checks (``subtotal + tax = total``, :func:`desktop.core.extraction.validate`).
SUM_CHECKS = frozenset({Code.SUM_MISMATCH, Code.SUBTOTAL_TOTAL_NO_TAX, Code.NET_NOT_PRINTED})
#: The parts of the sum check.
SUM_PARTS = ("subtotal", "tax", "total")
#: The confidence of a value whose sum check holds with a value the clerk typed. Measured: on the 218
#: labelled receipts (``../shared/samples/sroie`` and ``sroie_dev``, recorded PP-OCR output), the total
#: was right on 108 of the 108 receipts whose extracted subtotal + tax = total held (the rule of
#: succession, 109/110, gives 0.99); the field model flagged 1 of those 108 totals.
SUM_HOLDS_CONFIDENCE = 0.99


def _sum_holds(document: Document) -> bool:
    """``subtotal + tax = total`` holds on ``document``, all three known (the adjustments printed between
    the subtotal and the total counted: :func:`desktop.core.extraction.sum_problems`)."""
    from desktop.core.extraction import sum_problems

    values = [document.fields[n].value if n in document.fields else None for n in SUM_PARTS]
    return all(v is not None for v in values) and not sum_problems(document.fields, document.page_results)[0]


def _reflag(before: Document, after: Document) -> None:
    """The flags of ``after``'s fields not typed by the clerk, after a re-validation (in place): a value
    a check now fails on is flagged; one that was flagged by a failed sum check that now holds with a
    value the clerk typed (``subtotal + tax = total``, all three known) is confirmed by it
    (:data:`SUM_HOLDS_CONFIDENCE`) and flagged only by what else is wrong with it."""
    def _by_clerk(f: Field) -> bool:
        return f.edited or f.source == "user"

    holds = _sum_holds(after) and any(_by_clerk(after.fields[n]) for n in SUM_PARTS)
    for name, f in after.fields.items():
        if _by_clerk(f):
            continue
        if f.problems:
            f.needs_review = True
            continue
        old = before.fields.get(name)
        failed_sum = old is not None and any(p.code in SUM_CHECKS for p in old.problems)
        if failed_sum and holds and name in SUM_PARTS:
            f.needs_review = False
            f.confidence = max(f.confidence, SUM_HOLDS_CONFIDENCE)


def edited_document(document: Document, name: str, text: str, *, page: int | None = None,
                    boxes: Sequence[Box] | None = None, date_order: str | None = None) -> Document:
    """``document`` with field ``name`` set to what the clerk typed (or clicked on the page).

    The text is normalised as its field type (:func:`desktop.core.extraction.normalise_field`), the
    field marked ``edited`` with source ``user`` and confidence 1 (0 when cleared), ``needs_review``
    cleared, and every field validated again (a new total may break ``subtotal + tax = total``), the
    other fields' flags following (:func:`_reflag`: a typed tax that makes the sum hold clears the
    total's flag for the failed sum); the normalisation's own problems (an unreadable date) are kept on
    the field. ``page``/``boxes`` (page
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
    _reflag(document, after)
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


def reviewed_document(document: Document, reviewed: bool = True, confirmed: Iterable[str] = ()) -> Document:
    """A copy of ``document`` marked reviewed (or as needing review again).

    ``confirmed``: fields still flagged that the clerk said are right when marking it reviewed (the
    window's question); recorded in ``extras["confirmed_flagged"]``
    (:data:`desktop.core.memory.CONFIRMED_FLAGGED`), the only flagged, unedited values the vendor memory
    learns (:func:`desktop.core.memory.unchecked_fields`). Marking it as needing review again drops them.
    """
    from desktop.core.memory import CONFIRMED_FLAGGED

    after = _copy(document)
    after.reviewed = reviewed
    names = sorted(set(confirmed)) if reviewed else []
    if names:
        after.extras[CONFIRMED_FLAGGED] = names
    else:
        after.extras.pop(CONFIRMED_FLAGGED, None)
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


def kept_duplicate(document: Document) -> Document:
    """A copy of ``document`` the clerk says is not a duplicate: ``duplicate_of`` cleared, what it was
    suspected of kept in ``extras["duplicate_kept"]`` (so it is not suspected again)."""
    after = _copy(document)
    if document.duplicate_of:
        after.extras["duplicate_kept"] = dict(document.duplicate_of)
    after.duplicate_of = None
    return after


def has_clerk_work(document: Document | None) -> bool:
    """Whether removing ``document`` would lose the clerk's work: it is reviewed or has an edited field."""
    return document is not None and (document.reviewed or any(f.edited for f in document.fields.values()))


def can_split_at(document: Document | None, page: int | None) -> bool:
    """Whether ``document`` can be split so that ``page`` starts the second part (a read page that is
    not its first)."""
    if document is None or document.error or page is None:
        return False
    numbers = [p.number for p in document.page_results]
    return page in numbers[1:]


def mergeable(first: tuple[str, Document | None], second: tuple[str, Document | None]) -> bool:
    """Whether two queue entries ``(source, document)`` can be merged: both read, of the same file, the
    second starting on the page after the first ends (:func:`desktop.core.boundaries.merge_documents`)."""
    (source_a, a), (source_b, b) = first, second
    if a is None or b is None or a.error or b.error or source_a != source_b:
        return False
    return b.pages[0] == a.pages[1] + 1


def next_needing_review(statuses: Sequence[str], start: int) -> int | None:
    """The index of the next entry whose status is ``needs_review`` after index ``start`` (``-1``: from
    the top), wrapping around; ``None`` when none needs review."""
    n = len(statuses)
    for k in range(1, n + 1):
        i = (start + k) % n
        if statuses[i] == "needs_review":
            return i
    return None


def documents_to_export(documents: Iterable[Document | None], scope: str) -> list[Document]:
    """The documents an export of ``scope`` writes, in the order given.

    Args:
        documents: the queue's documents (``None``: not read yet; skipped).
        scope: ``reviewed`` (reviewed, read documents), ``all`` or ``selected`` (every read or failed
            document given: a failed one is exported as a row naming its error).
    """
    docs = [d for d in documents if d is not None]
    if scope == "reviewed":
        docs = [d for d in docs if d.reviewed and not d.error]
    return docs


class DuplicateMarker:
    """Marks documents just read that duplicate one already in the queue or one the memory learned
    (:class:`desktop.core.duplicates.DuplicateChecker`), keeping each queued document's facts until the
    document is replaced (documents are replaced, never changed in place)."""

    def __init__(self) -> None:
        self._facts: dict[int, tuple[Document, Any]] = {}

    def mark(self, documents: Sequence[Document], queued: Iterable[tuple[int, Document | None]],
             memory: Any = None) -> None:
        """Set ``duplicate_of`` on each of ``documents`` that repeats a queued document or one the
        memory knows.

        Args:
            documents: the documents just read.
            queued: the other queue entries, ``(entry id, document)`` (unread and failed ones are skipped).
            memory: a :class:`~desktop.core.memory.VendorMemory`, or ``None``; a memory that cannot be read
                is logged and skipped.
        """
        from desktop.core.duplicates import DuplicateChecker, facts_of

        known = []
        for entry_id, doc in queued:
            if doc is None or doc.error:
                continue
            cached = self._facts.get(entry_id)
            if cached is None or cached[0] is not doc:
                cached = self._facts[entry_id] = (doc, facts_of(doc))
            known.append(cached[1])
        if memory is not None:
            try:
                known += memory.known_documents()
            except Exception:
                log.exception("the vendor memory's documents cannot be read")
        checker = DuplicateChecker(known)
        for doc in documents:
            checker.check(doc)


class EntryStore(Protocol):
    """Where a :class:`ReviewSession` reads and writes entries: the
    :class:`~desktop.core.session.SessionStore` itself, or the GUI's queue (which saves to it and tells
    the views)."""

    def entry(self, entry_id: int) -> SessionEntry | None: ...

    def put(self, entry_id: int, source: str, position: float, document: Document | None,
            status: str | None = None) -> None: ...

    def remove(self, entry_ids: Iterable[int]) -> None: ...

    def next_id(self) -> int: ...

    def position_after(self, position: float) -> float: ...


class ReviewSession:
    """The clerk's operations over a session store (see the module docstring).

    Args:
        store: the session (:class:`~desktop.core.session.SessionStore`, or any :class:`EntryStore`).
        date_order: ``DMY``/``MDY`` for ambiguous dates typed by the clerk (``None``: per document).
        memory: the vendor memory that applied commands teach (see the module docstring), or ``None``.
    """

    def __init__(self, store: EntryStore, *, date_order: str | None = None, memory: Any = None) -> None:
        self.store = store
        self.date_order = date_order
        self.memory = memory
        self._done: list[tuple[Command, list[Any]]] = []
        self._undone: list[Command] = []

    # -- reading -----------------------------------------------------------------------------------
    def _entry(self, entry_id: int) -> tuple[str, float, Document]:
        e = self.store.entry(entry_id)
        if e is None:
            raise KeyError(entry_id)
        if e.document is None:
            raise DiagnosticError(diag(Code.REVIEW_NOT_READ_YET, source=e.source))
        return e.source, e.position, e.document

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
            raise DiagnosticError(diag(Code.REVIEW_NOT_READ, source=doc.source, reason=doc.error))
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

    def mark_reviewed(self, entry_ids: Iterable[int], reviewed: bool = True, *, confirmed: Iterable[str] = ()) -> Command:
        """Mark documents reviewed (or as needing review again); unread and unchanged ones are skipped.
        ``confirmed``: the flagged fields the clerk said are right (see :func:`reviewed_document`)."""
        changes = []
        names = sorted(set(confirmed))
        for entry_id in entry_ids:
            source, position, doc = self._entry(entry_id)
            if doc.error is not None or doc.reviewed == reviewed:
                continue
            after = reviewed_document(doc, reviewed, names)
            changes.append(Change(entry_id, source, position, doc.to_dict(), after.to_dict()))
        params: dict[str, Any] = {"reviewed": reviewed}
        if names and reviewed:
            params["confirmed"] = names
        return Command(Action.MARK_REVIEWED, params, tuple(changes))

    def attach_task(self, entry_id: int, task: str, result: Document) -> Command:
        """Put a document task's output on the entry's document as it is now (see :func:`with_task_output`)."""
        after = with_task_output(self._readable(entry_id), task, result)
        return self._one(Action.ATTACH_TASK, entry_id, after, task=task)

    def reread(self, entry_id: int, document: Document, *, page: int | None = None) -> Command:
        """Replace the entry's document by the engine's new reading of it (a page turned and read again).

        Raises:
            KeyError: no such entry. ValueError: the entry was not read.
        """
        self._entry(entry_id)
        return self._one(Action.REREAD, entry_id, _copy(document), page=page)

    def keep_duplicate(self, entry_id: int) -> Command:
        """The clerk says the entry's document is not the duplicate it was suspected of
        (:func:`kept_duplicate`).

        Raises:
            KeyError: no such entry. ValueError: the entry was not read, or is not a suspected duplicate.
        """
        doc = self._readable(entry_id)
        if not doc.duplicate_of:
            raise DiagnosticError(diag(Code.REVIEW_NOT_DUPLICATE, source=doc.source))
        return self._one(Action.KEEP_DUPLICATE, entry_id, kept_duplicate(doc))

    def split(self, entry_id: int, at_page: int) -> Command:
        """Split the entry's document before page ``at_page`` into two entries (the second placed right
        after the first): :func:`desktop.core.boundaries.split_document`.

        Raises:
            KeyError: no such entry. ValueError: ``at_page`` is not inside the document.
        """
        from desktop.core.boundaries import split_document

        source, position, doc = self._entry(entry_id)
        first, second = split_document(doc, at_page)
        new_id, new_position = self.store.next_id(), self.store.position_after(position)
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

    # -- applying ------------------------------------------------------------------------------------
    def _write(self, changes: Iterable[Change], side: str) -> None:
        for c in changes:
            data = c.after if side == "after" else c.before
            if data is None:
                self.store.remove([c.entry_id])
                continue
            doc = Document.from_dict(data)
            self.store.put(c.entry_id, c.source, c.position, doc, status_of(doc))

    def _teach(self, command: Command) -> list[Any]:
        if self.memory is None or command.action not in TEACHING_ACTIONS:
            return []
        taught = []
        for c in command.changes:
            if c.before is None or c.after is None:
                continue
            try:
                taught.append(self.memory.teach_change(c.before, c.after))
            except Exception:
                log.exception("the vendor memory could not learn from %s", c.source)
        return taught

    def _untaught(self, taught: Sequence[Any]) -> None:
        if self.memory is None:
            return
        for teaching in reversed(taught):
            try:
                self.memory.untaught(teaching)
            except Exception:
                log.exception("the vendor memory could not take a lesson back")

    def apply(self, command: Command) -> list[Any]:
        """Write the command's "after" side to the store and teach the memory (see the module docstring).

        Returns:
            What the memory was taught (:class:`~desktop.core.memory.Teaching` objects): give it to
            :meth:`revert` to take it back.
        """
        self._write(command.changes, "after")
        return self._teach(command)

    def revert(self, command: Command, taught: Sequence[Any] = ()) -> None:
        """Write the command's "before" side to the store (its undo) and take back what applying it
        taught the memory (``taught``: what :meth:`apply` returned)."""
        self._write(reversed(command.changes), "before")
        self._untaught(taught)

    def do(self, command: Command) -> None:
        """:meth:`apply` and remember it for :meth:`undo` (clears the redo history)."""
        taught = self.apply(command)
        self._done.append((command, taught))
        self._undone.clear()

    def undo(self) -> Command | None:
        """Revert the last command done; returns it (``None``: nothing to undo)."""
        if not self._done:
            return None
        command, taught = self._done.pop()
        self.revert(command, taught)
        self._undone.append(command)
        return command

    def redo(self) -> Command | None:
        """Apply the last command undone again; returns it (``None``: nothing to redo)."""
        if not self._undone:
            return None
        command = self._undone.pop()
        self._done.append((command, self.apply(command)))
        return command
