"""The Qt-free review core: what needs checking and why, and the clerk's operations as undoable data."""
from __future__ import annotations

import json

import pytest

from desktop.core.diagnostics import Code, diag
from desktop.core.model import Document, Field, Line, PageResult
from desktop.core.review import (
    Action,
    Command,
    Reason,
    ReviewSession,
    attention_count,
    document_checks,
    field_checks,
)
from desktop.core.session import SessionStore


def _receipt(**fields: Field) -> Document:
    base = {
        "vendor_name": Field("vendor_name", "ACME", confidence=0.95),
        "date": Field("date", "2024-03-05", confidence=0.95),
        "total": Field("total", "12.50", confidence=0.95),
        "subtotal": Field("subtotal", "10.00", confidence=0.95),
        "tax": Field("tax", "2.50", confidence=0.95),
    }
    base.update(fields)
    page = PageResult(1, 400, 600, lines=[Line("ACME", (10, 10, 100, 30)), Line("TOTAL 12.50", (10, 100, 200, 120))])
    return Document(source="/scans/a.jpg", document_type="receipt", fields=base, page_results=[page])


@pytest.fixture
def session(tmp_path) -> ReviewSession:
    return ReviewSession(SessionStore(tmp_path / "session.db"))


def test_checks_follow_needs_review_problems_and_empty_keys() -> None:
    doc = _receipt(date=Field("date", None), total=Field("total", "12.50", confidence=0.2, needs_review=True))
    doc.fields["tax"].problems.append(diag(Code.NOT_AN_AMOUNT, name="tax", value="x"))
    checks = {c.field: c.reasons for c in document_checks(doc)}
    assert checks == {"date": (Reason.EMPTY_KEY,), "total": (Reason.FLAGGED,), "tax": (Reason.PROBLEM,)}
    assert attention_count(doc) == 3
    # a low confidence alone is not a reason: extraction decides through needs_review
    assert field_checks(Field("total", "1.00", confidence=0.1)) == ()
    # an unread document has nothing to check
    assert attention_count(Document(source="x", error="broken")) == 0


def test_review_and_flags_share_one_rule() -> None:
    """The review core asks desktop.core.flags: a value the clerk typed (source "user") is flagged only by
    a failed check, even when it is not marked edited (they used to disagree on exactly this field)."""
    from desktop.core import flags

    typed = Field("total", "1.00", needs_review=True, source="user")
    assert field_checks(typed) == () and not flags.is_flagged(typed)
    typed.problems.append(diag(Code.NOT_AN_AMOUNT, name="total", value="x"))
    assert field_checks(typed) == (Reason.PROBLEM,) and flags.is_flagged(typed)
    cleared = Field("total", None, source="user")  # emptied on purpose by the clerk
    assert field_checks(cleared, key=True) == () and not flags.is_flagged(cleared, key=True)
    doc = _receipt(total=Field("total", "12.50", needs_review=True, source="user"),
                   tax=Field("tax", "2.50", needs_review=True), date=Field("date", None))
    assert [c.field for c in document_checks(doc)] == flags.flagged_fields(doc) == ["date", "tax"]


def test_edit_normalises_revalidates_and_clears_the_flag(session: ReviewSession) -> None:
    entry = session.store.add("/scans/a.jpg", _receipt(total=Field("total", "12.50", needs_review=True)))
    command = session.edit_field(entry, "total", "RM13.00")
    assert session.document(entry).fields["total"].value == "12.50"  # building changes nothing
    session.do(command)
    total = session.document(entry).fields["total"]
    assert (total.value, total.raw, total.source, total.edited, total.needs_review) == ("13.00", "RM13.00", "user", True, False)
    assert [p.code for p in total.problems] == [Code.SUM_MISMATCH]  # 10.00 + 2.50 is not 13.00
    assert Reason.FLAGGED not in dict((c.field, c.reasons) for c in session.checks(entry)).get("total", ())
    session.undo()
    assert session.document(entry).fields["total"].needs_review and session.document(entry).fields["total"].value == "12.50"
    session.redo()
    assert session.document(entry).fields["total"].value == "13.00"


def test_edit_keeps_the_normalisation_problem(session: ReviewSession) -> None:
    entry = session.store.add("/scans/a.jpg", _receipt())
    session.do(session.edit_field(entry, "date", "31/02/2024"))
    date = session.document(entry).fields["date"]
    assert date.value is None and date.raw == "31/02/2024"
    assert any(p.code == Code.IMPOSSIBLE_DAY for p in date.problems)


def test_commands_are_plain_data(session: ReviewSession) -> None:
    entry = session.store.add("/scans/a.jpg", _receipt())
    command = session.edit_field(entry, "vendor_name", "ACME Trading", page=1, boxes=[(10, 10, 100, 30)])
    again = Command.from_dict(json.loads(json.dumps(command.to_dict())))
    assert again == command and again.action is Action.EDIT_FIELD and again.params["field"] == "vendor_name"
    session.apply(again)
    assert session.document(entry).fields["vendor_name"].boxes == [(10, 10, 100, 30)]
    session.revert(again)
    assert session.document(entry).fields["vendor_name"].value == "ACME"


def test_change_type_keeps_edits_and_reviewed(session: ReviewSession) -> None:
    doc = _receipt()
    doc.reviewed = True
    entry = session.store.add(doc.source, doc)
    session.do(session.edit_field(entry, "total", "12.50"))
    session.do(session.change_type(entry, "invoice"))
    after = session.document(entry)
    assert after.document_type == "invoice" and after.reviewed and after.fields["total"].edited
    session.undo()
    assert session.document(entry).document_type == "receipt"


def test_mark_reviewed_several_and_skip_unread(session: ReviewSession) -> None:
    a = session.store.add("/a.jpg", _receipt())
    b = session.store.add("/b.jpg", Document(source="/b.jpg", error="broken"))
    c = session.store.add("/c.jpg", _receipt())
    command = session.mark_reviewed([a, b, c])
    assert command.entry_ids == [a, c]
    session.do(command)
    assert [e.status for e in session.store.entries()] == ["reviewed", "failed", "reviewed"]
    session.undo()
    assert [e.status for e in session.store.entries()] == ["needs_review", "failed", "needs_review"]


def test_attach_task_output_to_the_document_as_it_is_now(session: ReviewSession) -> None:
    entry = session.store.add("/scans/a.jpg", _receipt())
    old = session.document(entry)
    session.do(session.edit_field(entry, "vendor_name", "ACME Trading"))  # edited while the task ran
    result = Document.from_dict(old.to_dict())
    result.extras["table"] = [{"page": 1, "text": "<table/>"}]
    result.tables = [{"page": 1, "html": "<table/>"}]
    result.extras["task_problems"] = {"table": [{"code": "task_page_failed", "params": {"page": 2}}]}
    session.do(session.attach_task(entry, "table", result))
    now = session.document(entry)
    assert now.fields["vendor_name"].value == "ACME Trading" and now.tables == [{"page": 1, "html": "<table/>"}]
    assert now.extras["task_problems"]["table"][0]["code"] == "task_page_failed"


def test_unread_entry_refuses_edits(session: ReviewSession) -> None:
    entry = session.store.add("/a.jpg", Document(source="/a.jpg", error="broken"))
    with pytest.raises(ValueError, match="was not read"):
        session.edit_field(entry, "total", "1")
    waiting = session.store.add("/b.jpg")
    with pytest.raises(ValueError, match="not been read"):
        session.edit_field(waiting, "total", "1")
    with pytest.raises(KeyError):
        session.edit_field(9999, "total", "1")


def test_undo_with_nothing_done(session: ReviewSession) -> None:
    assert session.undo() is None and session.redo() is None


def _two_page_doc() -> Document:
    pages = [PageResult(n, 400, 600, lines=[Line(f"INVOICE {n}", (10, 10, 200, 30)), Line(f"TOTAL {n}0.00", (10, 100, 200, 120))])
             for n in (1, 2)]
    return Document(source="/scans/two.pdf", pages=(1, 2), document_type="receipt", page_results=pages)


def test_split_and_merge_are_undoable(session: ReviewSession) -> None:
    pytest.importorskip("desktop.core.boundaries", reason="split_document/merge_documents (issue 8) not on this branch")
    first = session.store.add("/scans/two.pdf", _two_page_doc())
    after_it = session.store.add("/scans/other.jpg", _receipt())
    split = session.split(first, 2)
    session.do(split)
    entries = session.store.entries()
    assert [e.document.pages for e in entries if e.source == "/scans/two.pdf"] == [(1, 1), (2, 2)]
    assert [e.source for e in entries] == ["/scans/two.pdf", "/scans/two.pdf", "/scans/other.jpg"]
    second = split.changes[1].entry_id
    session.do(session.merge(first, second))
    assert [e.id for e in session.store.entries()] == [first, after_it]
    assert session.document(first).pages == (1, 2)
    session.undo()
    session.undo()
    assert [e.id for e in session.store.entries()] == [first, after_it] and session.document(first).pages == (1, 2)
    session.redo()
    assert [e.id for e in session.store.entries()] == [first, second, after_it]
