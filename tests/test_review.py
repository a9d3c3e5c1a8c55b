"""The Qt-free review core: what needs checking and why, and the clerk's operations as undoable data."""
from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

from desktop.core.diagnostics import Code, diag
from desktop.core.model import Document, Field, Line, PageResult
from desktop.core.review import (
    Action,
    Command,
    DuplicateMarker,
    Reason,
    ReviewSession,
    Standing,
    attention_count,
    can_split_at,
    document_checks,
    documents_to_export,
    field_checks,
    has_clerk_work,
    mergeable,
    next_needing_review,
    standing,
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


def test_standing_follows_the_field_rule_and_lost_pages() -> None:
    """What the queue's status and the document header say comes from one place: nothing flagged by
    flags.field_reasons and no lost page is CHECKS_OUT (a flagged field, or a lost page, is TO_CHECK)."""
    clean = _receipt()
    assert attention_count(clean) == 0 and standing(clean) is Standing.CHECKS_OUT
    flagged = _receipt(total=Field("total", "12.50", confidence=0.4, needs_review=True))
    assert standing(flagged) is Standing.TO_CHECK
    flagged.fields["total"].edited = True  # the clerk looked at it: no longer flagged
    assert attention_count(flagged) == 0 and standing(flagged) is Standing.CHECKS_OUT
    lost = _receipt()
    lost.page_results[0].warnings.append(diag(Code.PAGE_NOT_READ, page=2, reason=diag(Code.OUT_OF_MEMORY)))
    assert attention_count(lost) == 0 and standing(lost) is Standing.TO_CHECK
    lost.reviewed = True
    assert standing(lost) is Standing.REVIEWED
    assert standing(Document(source="x", error=diag(Code.EMPTY_FILE))) is Standing.FAILED


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
    importlib.import_module("desktop.core.boundaries")  # part of the product: never a skip
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


# -- what the window used to decide itself ---------------------------------------------------------

def test_reread_replaces_the_document_and_undo_brings_it_back(session: ReviewSession) -> None:
    entry = session.store.add("/scans/a.jpg", _receipt())
    turned = _receipt(total=Field("total", "99.00", confidence=0.9))
    turned.page_results[0].rotation = 90
    command = session.reread(entry, turned, page=1)
    assert command.action is Action.REREAD and command.params == {"page": 1}
    session.do(command)
    assert session.document(entry).fields["total"].value == "99.00"
    assert session.document(entry).page_results[0].rotation == 90
    session.undo()
    assert session.document(entry).fields["total"].value == "12.50"


def test_keep_duplicate_clears_the_mark_and_remembers_it(session: ReviewSession) -> None:
    plain = session.store.add("/scans/b.jpg", _receipt())
    with pytest.raises(ValueError, match="not marked as a duplicate"):
        session.keep_duplicate(plain)
    doc = _receipt()
    doc.duplicate_of = {"source": "/scans/a.jpg", "why": "same_file"}
    entry = session.store.add(doc.source, doc)
    session.do(session.keep_duplicate(entry))
    kept = session.document(entry)
    assert kept.duplicate_of is None and kept.extras["duplicate_kept"] == {"source": "/scans/a.jpg", "why": "same_file"}
    session.undo()
    assert session.document(entry).duplicate_of == {"source": "/scans/a.jpg", "why": "same_file"}


class _Memory:
    """Records what the review core teaches (the VendorMemory hook: teach_change / untaught)."""

    def __init__(self, fail: bool = False) -> None:
        self.log: list[tuple[str, Any]] = []
        self.fail = fail

    def teach_change(self, before: dict[str, Any], after: dict[str, Any]) -> str:
        if self.fail:
            raise RuntimeError("memory is broken")
        lesson = f"lesson-{len(self.log)}"
        self.log.append(("teach", (before["reviewed"], after["reviewed"], lesson)))
        return lesson

    def untaught(self, lesson: str) -> None:
        self.log.append(("untaught", lesson))


def test_confirmations_teach_the_memory_and_undo_takes_it_back(tmp_path) -> None:
    memory = _Memory()
    session = ReviewSession(SessionStore(tmp_path / "s.db"), memory=memory)
    entry = session.store.add("/scans/a.jpg", _receipt())
    session.do(session.mark_reviewed([entry]))
    assert memory.log == [("teach", (False, True, "lesson-0"))]
    session.undo()
    assert memory.log[-1] == ("untaught", "lesson-0")
    session.redo()
    assert memory.log[-1] == ("teach", (False, True, "lesson-2"))
    # reading again as another type is not a confirmation: nothing taught
    n = len(memory.log)
    session.do(session.change_type(entry, "invoice"))
    assert len(memory.log) == n


def test_a_broken_memory_never_blocks_the_change(tmp_path) -> None:
    session = ReviewSession(SessionStore(tmp_path / "s.db"), memory=_Memory(fail=True))
    entry = session.store.add("/scans/a.jpg", _receipt())
    session.do(session.edit_field(entry, "total", "13.00"))
    assert session.document(entry).fields["total"].value == "13.00"
    session.undo()
    assert session.document(entry).fields["total"].value == "12.50"


def test_split_merge_and_removal_rules() -> None:
    two = _two_page_doc()
    assert can_split_at(two, 2) and not can_split_at(two, 1) and not can_split_at(two, None)
    assert not can_split_at(Document(source="x", error="broken"), 2)
    first = Document(source="/f.pdf", pages=(1, 2), page_results=[PageResult(1, 10, 10), PageResult(2, 10, 10)])
    second = Document(source="/f.pdf", pages=(3, 3), page_results=[PageResult(3, 10, 10)])
    assert mergeable(("/f.pdf", first), ("/f.pdf", second))
    assert not mergeable(("/f.pdf", first), ("/g.pdf", second))  # another file
    assert not mergeable(("/f.pdf", second), ("/f.pdf", first))  # not the next pages
    assert not mergeable(("/f.pdf", first), ("/f.pdf", None))  # not read yet
    assert not has_clerk_work(_receipt()) and not has_clerk_work(None)
    edited = _receipt(total=Field("total", "1.00", edited=True, source="user"))
    assert has_clerk_work(edited)


def test_next_needing_review_wraps_around() -> None:
    statuses = ["reviewed", "needs_review", "failed", "needs_review"]
    assert next_needing_review(statuses, -1) == 1
    assert next_needing_review(statuses, 1) == 3
    assert next_needing_review(statuses, 3) == 1
    assert next_needing_review(["reviewed", "failed"], 0) is None


def test_documents_to_export_by_scope() -> None:
    done, todo, failed = _receipt(), _receipt(), Document(source="/x.jpg", error="broken")
    done.reviewed = True
    failed.reviewed = True
    assert documents_to_export([done, todo, failed, None], "reviewed") == [done]
    assert documents_to_export([done, todo, failed, None], "all") == [done, todo, failed]


def test_duplicate_marker_marks_a_repeat_of_a_queued_document() -> None:
    importlib.import_module("desktop.core.duplicates")  # part of the product: never a skip
    marker = DuplicateMarker()
    queued = _receipt()
    again = _receipt()
    again.source = "/scans/b.jpg"
    other = _receipt(total=Field("total", "99.99", confidence=0.95), vendor_name=Field("vendor_name", "Other Shop"))
    other.source = "/scans/c.jpg"
    marker.mark([again, other], [(1, queued), (2, None)])
    assert again.duplicate_of is not None and other.duplicate_of is None


def test_store_reads_one_entry_and_places_one_after_another(tmp_path) -> None:
    store = SessionStore(tmp_path / "s.db")
    a = store.add("/a.jpg", _receipt())
    b = store.add("/b.jpg")
    assert store.entry(a).document.fields["total"].value == "12.50" and store.entry(b).document is None
    assert store.entry(9999) is None
    pa, pb = store.entry(a).position, store.entry(b).position
    assert pa < store.position_after(pa) < pb and store.position_after(pb) > pb


@pytest.mark.parametrize("number, code_missing", [("25512000000014012345", False), ("33207675", True)])
def test_a_fully_digitised_e_invoice_misses_no_invoice_code(number: str, code_missing: bool) -> None:
    """A 数电票 (20-digit 发票号码) carries no 发票代码: its empty code is no missing key field; on an older
    e-invoice (8-digit number) it is. The queue, the form, the Problems sheet and the CLI ask the same rule."""
    from desktop.core import flags

    doc = Document(source="x.ofd", document_type="cn_vat_invoice", fields={
        "invoice_code": Field("invoice_code", None), "invoice_number": Field("invoice_number", number),
        "date": Field("date", "2025-01-02"), "total": Field("total", "10.00"),
        "vendor_name": Field("vendor_name", "某某公司"), "buyer_name": Field("buyer_name", "个人")})
    assert ("invoice_code" in flags.flagged_fields(doc)) is code_missing
    assert any(c.field == "invoice_code" and Reason.EMPTY_KEY in c.reasons for c in document_checks(doc)) is code_missing
    assert attention_count(doc) == (1 if code_missing else 0)


def _missing_tax() -> Document:
    """A receipt read without its tax: the total fails the sum check and is capped and flagged, as
    extraction leaves it (desktop.core.extraction: FAILED_CHECK_CONFIDENCE)."""
    from desktop.core.extraction import validate

    doc = _receipt(total=Field("total", "21.52", confidence=0.5, needs_review=True),
                   subtotal=Field("subtotal", "20.30", confidence=0.85), tax=Field("tax", None))
    validate(doc.fields, "receipt")
    assert [p.code for p in doc.fields["total"].problems] == [Code.SUBTOTAL_TOTAL_NO_TAX]
    return doc


def test_typing_the_missing_tax_that_makes_the_sum_hold_clears_the_totals_flag(session: ReviewSession) -> None:
    """The clerk types the tax the OCR missed, and subtotal + tax = total: the sum check is evaluated
    again and the total is no longer flagged for it (nor shown at the failed check's 50 %)."""
    from desktop.core import flags

    entry = session.store.add("/scans/a.jpg", _missing_tax())
    assert "total" in [c.field for c in session.checks(entry)]
    session.do(session.edit_field(entry, "tax", "1.22"))
    doc = session.document(entry)
    total = doc.fields["total"]
    assert not total.problems and not total.needs_review and total.confidence >= 0.9
    assert session.checks(entry) == [] and flags.flagged_fields(doc) == [] and standing(doc) is Standing.CHECKS_OUT
    session.undo()  # the flag comes back with the missing tax
    assert session.document(entry).fields["total"].needs_review


def test_an_edit_that_breaks_the_sum_flags_the_values_it_involves(session: ReviewSession) -> None:
    """A tax typed so that the sum no longer holds: the subtotal and total read from the page are
    flagged (needs_review, the one flag), the clerk's own tax only by the failed check."""
    from desktop.core import flags

    entry = session.store.add("/scans/a.jpg", _receipt())
    assert session.checks(entry) == []
    session.do(session.edit_field(entry, "tax", "3.00"))
    doc = session.document(entry)
    assert doc.fields["total"].needs_review and doc.fields["subtotal"].needs_review
    assert not doc.fields["tax"].needs_review and [p.code for p in doc.fields["tax"].problems] == [Code.SUM_MISMATCH]
    assert set(flags.flagged_fields(doc)) == {"total", "subtotal", "tax"}


def test_a_typed_value_that_keeps_the_sum_unchecked_leaves_the_flag(session: ReviewSession) -> None:
    """Only a check that holds clears a flag it raised: a subtotal cleared by the clerk makes the sum
    uncheckable, and the total stays flagged."""
    entry = session.store.add("/scans/a.jpg", _missing_tax())
    session.do(session.edit_field(entry, "subtotal", ""))
    assert session.document(entry).fields["total"].needs_review


def test_a_reviewed_document_has_nothing_left_to_check(session: ReviewSession, tmp_path) -> None:
    """Marked reviewed, a document's fields were checked by a person: no count, no tint, no "to check"
    in the CLI or the Problems column; the Problems sheet says the fields extraction flagged were checked
    by the clerk. Marked as needing review again, they count again."""
    import openpyxl

    from desktop.core import flags
    from desktop.core.export import export

    doc = _receipt(vendor_name=Field("vendor_name", "ACME", confidence=0.7, needs_review=True, review_threshold=0.8887),
                   date=Field("date", None))
    entry = session.store.add("/scans/a.jpg", doc)
    assert attention_count(session.document(entry)) == 2
    session.do(session.mark_reviewed([entry]))
    reviewed = session.document(entry)
    assert reviewed.reviewed and attention_count(reviewed) == 0 and session.checks(entry) == []
    assert flags.flagged_fields(reviewed) == [] and flags.flagged_before_review(reviewed) == ["vendor_name", "date"]
    assert field_checks(reviewed.fields["vendor_name"], reviewed=True) == ()
    assert standing(reviewed) is Standing.REVIEWED
    out = tmp_path / "out.xlsx"
    export([reviewed], out)
    wb = openpyxl.load_workbook(out)
    head = [c.value for c in wb["Documents"][1]]
    assert wb["Documents"].cell(2, head.index("Fields to check") + 1).value == 0
    rows = [[c.value for c in r] for r in wb["Problems"].iter_rows(min_row=2)]
    reasons = {r[2]: r[3] for r in rows if r[2]}
    assert set(reasons) == {"Vendor", "Date"}, rows
    assert all(v.startswith("checked by the clerk") for v in reasons.values())
    assert "confidence 70%, below the 89% needed" in reasons["Vendor"]
    session.do(session.mark_reviewed([entry], False))
    assert attention_count(session.document(entry)) == 2


def test_edits_keep_the_vendor_memorys_conflict_on_other_fields(session: ReviewSession) -> None:
    """Typing the total re-validates every field; a vendor-memory conflict found at extraction on the
    vendor name is a cross-source problem and stays (it used to vanish, leaving a bare flag)."""
    conflict = diag(Code.MEMORY_CONFLICT, field="vendor_name", read="ACME", value="ACME LTD", taught="b.jpg")
    entry = session.store.add("/scans/a.jpg", _receipt(
        vendor_name=Field("vendor_name", "ACME", needs_review=True, problems=[conflict])))
    session.do(session.edit_field(entry, "total", "12.50"))
    name = session.document(entry).fields["vendor_name"]
    assert name.problems == [conflict] and name.needs_review
