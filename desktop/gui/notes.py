"""The core's notes about a document, in a clerk's words.

The core (``desktop.core.pipeline``, ``intake``, the engines) writes its page warnings and document
notes in plain English for logs and the CLI ("turned 270 degrees clockwise to read it upright (100% of
the text lines run vertically)", "read at 2339x1653 px (downscaled from 3508x2479)"). The form header
shows them as short sentences composed here, translated (context ``Notes``): a known note becomes a
sentence of ours; an unknown one keeps the core's text under a translated "Page N:" label. The raw
texts stay available (the caller puts them in a tooltip).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from desktop.core.model import Document


_DOWNSCALED = re.compile(r"^read at \d+x\d+ px \(downscaled from \d+x\d+\)$")
_TURNED = re.compile(r"^turned (\d+) degrees clockwise to read it upright\b")
_ORIENTATION_FAILED = re.compile(r"^orientation check failed\b")
_NO_FIELDS = re.compile(r"^the \S+ engine returned no fields; fields were read from the text instead$")
_NO_TEXT = re.compile(r"^no text was found on this page\b")
_NOT_READ = re.compile(r"^page (\d+) could not be read: (.*)$", re.S)
_FIELDS_FAILED = re.compile(r"^the \S+ engine could not extract fields on page (\d+): (.*)$", re.S)


@dataclass(frozen=True)
class Note:
    """One note: ``text`` for the clerk (empty: shown only in the tooltip) and the core's ``raw`` text."""

    text: str
    raw: str


def page_note(number: int, raw: str) -> Note:
    """A page warning of page ``number`` (1-based) as a clerk's sentence."""
    page = str(number)
    if _DOWNSCALED.match(raw):
        return Note("", raw)  # how many pixels the engine saw is a detail for the tooltip
    if m := _TURNED.match(raw):
        text = QCoreApplication.translate("Notes", "Page %1 was turned %2° to read it upright")
        return Note(text.replace("%1", page).replace("%2", m.group(1)), raw)
    if _ORIENTATION_FAILED.match(raw):
        text = QCoreApplication.translate("Notes", "Page %1: could not tell which way up it is; read as scanned")
        return Note(text.replace("%1", page), raw)
    if _NO_TEXT.match(raw):
        text = QCoreApplication.translate("Notes", "Page %1: no text found (blank, or the print is too faint)")
        return Note(text.replace("%1", page), raw)
    if m := _NOT_READ.match(raw):
        text = QCoreApplication.translate("Notes", "Page %1 could not be read: %2")
        return Note(text.replace("%1", m.group(1)).replace("%2", m.group(2)), raw)
    # a note we have no sentence for: the core's English text under a translated label
    return Note(QCoreApplication.translate("Notes", "Page %1: %2").replace("%1", page).replace("%2", raw), raw)


def document_note(raw: str) -> Note:
    """A document note (``Document.extras["notes"]``) as a clerk's sentence."""
    if _NO_FIELDS.match(raw):
        text = QCoreApplication.translate("Notes", "The AI model gave no fields; they were read from the page text instead")
        return Note(text, raw)
    if m := _FIELDS_FAILED.match(raw):
        text = QCoreApplication.translate("Notes", "The AI model could not read the fields of page %1 (%2); "
                                          "they were read from the page text instead")
        return Note(text.replace("%1", m.group(1)).replace("%2", m.group(2)), raw)
    return Note(raw[:1].upper() + raw[1:], raw)


def document_notes(document: Document) -> list[Note]:
    """Every page warning and document note of ``document``, in page order, duplicates dropped."""
    out: list[Note] = []
    seen: set[str] = set()
    items = [page_note(p.number, w) for p in document.page_results for w in p.warnings]
    items += [document_note(str(n)) for n in document.extras.get("notes", [])]
    for note in items:
        key = note.text or note.raw
        if key not in seen:
            seen.add(key)
            out.append(note)
    return out
