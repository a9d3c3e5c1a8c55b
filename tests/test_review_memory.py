"""Learning through the Qt-free review core: confirming or correcting a document and marking it reviewed
in :class:`desktop.core.review.ReviewSession` teaches the vendor memory, undo takes exactly that back."""
from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.memory import VendorMemory
from desktop.core.review import ReviewSession
from desktop.core.session import SessionStore
from tests.test_memory import BAKERY, _doc

NAME = "GARDENIA BAKERIES (KL) SDN BHD"


@pytest.fixture
def review(tmp_path: Path):
    store = SessionStore(tmp_path / "session.db")
    memory = VendorMemory(tmp_path / "session.db")
    yield ReviewSession(store, memory=memory)
    memory.close()
    store.close()


def _names(memory: VendorMemory) -> list[str]:
    return [p.name for p in memory.profiles()]


def test_marking_reviewed_teaches_and_undo_takes_it_back(review: ReviewSession) -> None:
    memory = review.memory
    entry = review.store.add("a.jpg", _doc(BAKERY, "a.jpg"))
    review.do(review.edit_field(entry, "vendor_name", NAME))
    assert memory.profiles() == []  # an edit of a document not yet reviewed teaches nothing
    review.do(review.mark_reviewed([entry]))
    (p,) = memory.profiles()
    assert p.name == NAME and p.documents == 1 and p.taught_by["vendor_name"] == "a.jpg"
    review.undo()  # mark reviewed undone: the lesson goes, and the profile it made
    assert memory.profiles() == []
    review.redo()
    assert _names(memory) == [NAME]
    review.do(review.mark_reviewed([entry], reviewed=False))  # needs review again: forgotten
    assert memory.profiles() == []
    review.undo()
    assert _names(memory) == [NAME]


def test_correcting_a_reviewed_document_teaches_again_and_undo_restores(review: ReviewSession) -> None:
    memory = review.memory
    first = review.store.add("a.jpg", _doc(BAKERY, "a.jpg", edit={"vendor_name": NAME}))
    second = review.store.add("b.jpg", _doc(BAKERY, "b.jpg", edit={"vendor_name": NAME}))
    review.do(review.mark_reviewed([first, second]))
    (p,) = memory.profiles()
    assert p.documents == 2
    review.do(review.edit_field(first, "currency", "SGD"))  # the clerk corrects a reviewed document
    assert memory.profiles()[0].values["currency"] == "SGD"
    review.do(review.edit_field(second, "currency", "MYR"))  # the newest lesson wins ...
    assert memory.profiles()[0].values["currency"] == "MYR"
    review.undo()  # ... and undo restores exactly the profile there was before
    assert memory.profiles()[0].values["currency"] == "SGD"
    review.undo()
    assert memory.profiles()[0].values.get("currency") != "SGD" and memory.profiles()[0].documents == 2


def test_the_type_the_clerk_chose_is_learned_when_the_document_is_reviewed(review: ReviewSession) -> None:
    entry = review.store.add("a.jpg", _doc(BAKERY, "a.jpg", edit={"vendor_name": NAME}))
    review.do(review.change_type(entry, "invoice"))  # reading again as another type confirms nothing yet
    assert review.memory.profiles() == []
    review.do(review.mark_reviewed([entry]))
    assert review.memory.profiles()[0].values["document_type"] == "invoice"
    later = _doc(BAKERY, "b.jpg")
    review.memory.apply(later)
    assert later.extras["memory"]["document_type"] == "invoice"  # suggested to the pipeline for the next one


def test_a_later_document_gets_what_the_review_taught(review: ReviewSession) -> None:
    entry = review.store.add("a.jpg", _doc(BAKERY, "a.jpg"))
    review.do(review.edit_field(entry, "vendor_name", NAME))
    review.do(review.mark_reviewed([entry]))
    later = _doc(BAKERY, "b.jpg")
    later.fields["vendor_name"].value = "CASH BILL"
    assert review.memory.apply(later) is not None
    assert later.fields["vendor_name"].value == NAME and later.fields["vendor_name"].source == "memory"


def test_removing_a_document_keeps_its_lesson(review: ReviewSession) -> None:
    entry = review.store.add("a.jpg", _doc(BAKERY, "a.jpg", edit={"vendor_name": NAME}))
    review.do(review.mark_reviewed([entry]))
    review.store.remove([entry])
    assert _names(review.memory) == [NAME]


def test_without_a_memory_nothing_is_taught(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.db")
    review = ReviewSession(store)
    entry = store.add("a.jpg", _doc(BAKERY, "a.jpg", edit={"vendor_name": NAME}))
    review.do(review.mark_reviewed([entry]))
    review.undo()
    with VendorMemory(tmp_path / "session.db") as memory:
        assert memory.profiles() == []
    store.close()
