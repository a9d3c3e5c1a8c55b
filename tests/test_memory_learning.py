"""What a reviewed document teaches the vendor memory (QA finding F1, session 12): values still flagged
and not edited are left out unless the clerk confirmed them (``extras["confirmed_flagged"]``) or the
caller includes them; a page value the memory vouches for says "memory"."""
from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.memory import CONFIRMED_FLAGGED, VendorMemory, unchecked_fields
from desktop.core.review import ReviewSession
from desktop.core.session import SessionStore
from tests.test_memory import BAKERY, _doc

WRONG = "HOTEL SEEBLICK KG"  # the buyer, read as the vendor (flagged)


@pytest.fixture
def memory(tmp_path: Path):
    with VendorMemory(tmp_path / "session.db") as m:
        yield m


def _flagged_vendor(source: str):
    """A reviewed bakery receipt whose vendor name is wrong and still flagged, the rest unflagged."""
    doc = _doc(BAKERY, source)
    for f in doc.fields.values():
        f.needs_review = False
    name = doc.fields["vendor_name"]
    name.value, name.needs_review, name.confidence = WRONG, True, 0.85
    doc.reviewed = True
    return doc


def test_unchecked_fields_are_the_flagged_unedited_memory_fields() -> None:
    doc = _flagged_vendor("a.jpg")
    assert unchecked_fields(doc) == ["vendor_name"]
    doc.fields["vendor_name"].edited, doc.fields["vendor_name"].source = True, "user"
    assert unchecked_fields(doc) == []  # the clerk typed it: vouched for
    doc = _flagged_vendor("a.jpg")
    doc.extras[CONFIRMED_FLAGGED] = ["vendor_name"]
    assert unchecked_fields(doc) == []  # the clerk ticked "I checked them"
    doc = _flagged_vendor("a.jpg")
    doc.fields["total"].needs_review = True
    doc.fields["buyer_name" if "buyer_name" in doc.fields else "date"].needs_review = True
    assert unchecked_fields(doc)[:1] == ["vendor_name"] and "total" in unchecked_fields(doc)
    doc.fields["vendor_name"].value = None
    assert "vendor_name" not in unchecked_fields(doc)  # nothing to learn there anyway


def test_a_flagged_unchecked_vendor_is_not_learned_and_does_not_vouch_for_the_next_copy(memory) -> None:
    lesson = memory.learn(_flagged_vendor("invoice.png"))
    assert lesson is not None and lesson.left_out == ("vendor_name",)
    (profile,) = memory.profiles()
    assert "vendor_name" not in profile.values and profile.values["vendor_tax_id"]  # the tax ID was not flagged
    # the photo of the same invoice reads the same wrong vendor: it stays as read, flagged, not "memory"
    copy = _flagged_vendor("photo.jpg")
    copy.reviewed = False
    memory.apply(copy)
    f = copy.fields["vendor_name"]
    assert f.value == WRONG and f.needs_review and f.source == "ocr" and f.confidence == 0.85
    # the clerk corrects the name on the copy: the nameless profile learns it (one vendor, not two)
    copy.fields["vendor_name"].value, copy.fields["vendor_name"].edited = "GARDENIA BAKERIES (KL) SDN BHD", True
    copy.reviewed = True
    assert memory.learn(copy).profile_id == profile.id
    (profile,) = memory.profiles()
    assert profile.values["vendor_name"] == "GARDENIA BAKERIES (KL) SDN BHD" and profile.documents == 2


def test_confirmed_or_included_flagged_values_are_learned(memory, tmp_path: Path) -> None:
    doc = _flagged_vendor("a.jpg")
    doc.extras[CONFIRMED_FLAGGED] = ["vendor_name"]
    assert memory.learn(doc).left_out == ()
    assert memory.profiles()[0].values["vendor_name"] == WRONG  # the clerk said so: the clerk's word
    with VendorMemory(tmp_path / "other.db") as other:
        assert other.learn(_flagged_vendor("a.jpg"), include_flagged=True).left_out == ()
        assert other.profiles()[0].values["vendor_name"] == WRONG


def test_nothing_left_to_learn_is_no_lesson(memory) -> None:
    doc = _flagged_vendor("a.jpg")
    doc.fields["vendor_tax_id"].needs_review = True
    assert memory.learn(doc) is None and memory.profiles() == []


def test_a_flagged_total_teaches_no_position(memory) -> None:
    doc = _flagged_vendor("a.jpg")
    doc.fields["vendor_name"].needs_review = False
    doc.fields["total"].needs_review = True
    memory.learn(doc)
    assert "total" not in memory.profiles()[0].layout and "date" in memory.profiles()[0].layout


def test_a_page_value_the_memory_vouches_for_says_memory(memory) -> None:
    right = _flagged_vendor("a.jpg")
    right.fields["vendor_name"].value, right.fields["vendor_name"].edited = "GARDENIA BAKERIES (KL) SDN BHD", True
    memory.learn(right)
    doc = _doc(BAKERY, "b.jpg")
    f = doc.fields["vendor_name"]
    f.value, f.confidence, f.needs_review = "GARDENIA BAKERIES (KL) SDN BHD", 0.86, True
    memory.apply(doc)
    assert doc.extras["memory"]["fields"]["vendor_name"] == "confirmed"
    assert f.value == "GARDENIA BAKERIES (KL) SDN BHD" and f.confidence > 0.99 and not f.needs_review
    assert f.source == "memory" and f.box is not None  # the page's reading, vouched for by the memory
    # an e-invoice's own data the memory agrees with keeps its source
    doc = _doc(BAKERY, "c.jpg")
    f = doc.fields["vendor_name"]
    f.value, f.confidence, f.source = "GARDENIA BAKERIES (KL) SDN BHD", 0.5, "xml"
    memory.apply(doc)
    assert f.source == "xml"


def test_the_review_core_records_the_confirmation_and_undo_takes_it_back(memory, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "queue.db")
    doc = _flagged_vendor("a.jpg")
    doc.reviewed = False
    entry = store.add("a.jpg", doc)
    review = ReviewSession(store, memory=memory)
    review.do(review.mark_reviewed([entry]))
    assert "vendor_name" not in memory.profiles()[0].values
    review.undo()
    assert memory.profiles() == []
    command = review.mark_reviewed([entry], confirmed=["vendor_name"])
    assert command.params == {"reviewed": True, "confirmed": ["vendor_name"]}
    review.do(command)
    assert review.document(entry).extras[CONFIRMED_FLAGGED] == ["vendor_name"]
    assert memory.profiles()[0].values["vendor_name"] == WRONG
    review.do(review.mark_reviewed([entry], reviewed=False))  # needing review again: the confirmation goes
    assert CONFIRMED_FLAGGED not in review.document(entry).extras and memory.profiles() == []
    review.undo()
    assert review.document(entry).extras[CONFIRMED_FLAGGED] == ["vendor_name"] and len(memory.profiles()) == 1
