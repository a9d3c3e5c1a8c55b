"""The core's notes about a document, in the clerk's language.

Page warnings (``PageResult.warnings``) and document notes (``Document.notes``) are diagnostics
(:mod:`desktop.core.diagnostics`): each is worded from its code in the UI language by the core's
catalogue, never parsed, in plain words (a library's own words, MuPDF's "cannot load content
stream", left out: ``message(language, plain=True)``). Page warnings are labelled with their page
("Page %1: %2", context ``Notes``). Diagnostics of severity ``detail`` (the resolution a page was
read at) are shown only in the tooltip, which lists every note in English too, with the library's
words (the words a log or a support question uses).
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from desktop.core.diagnostics import Diagnostic, Severity, is_page_lost
from desktop.core.model import Document


@dataclass(frozen=True)
class Note:
    """One note: ``text`` for the clerk, in plain words (empty: shown only in the tooltip), and its English
    ``raw`` text with the library's own words."""

    text: str
    raw: str


def page_note(number: int, warning: Diagnostic, language: str = "en") -> Note:
    """A page warning of page ``number`` (1-based) in ``language`` (``en`` / ``zh_CN``)."""
    raw = warning.message("en")
    if warning.severity is Severity.DETAIL:
        return Note("", raw)  # how many pixels the engine saw is a detail for the tooltip
    label = QCoreApplication.translate("Notes", "Page %1: %2")
    return Note(label.replace("%1", str(number)).replace("%2", warning.message(language, plain=True)), raw)


def document_note(note: Diagnostic, language: str = "en") -> Note:
    """A document note (``Document.notes``) in ``language``."""
    text = note.message(language, plain=True)
    return Note("" if note.severity is Severity.DETAIL else text[:1].upper() + text[1:], note.message("en"))


def document_notes(document: Document, language: str = "en") -> list[Note]:
    """Every page warning and document note of ``document``, in page order, duplicates dropped; the
    warnings of pages whose content is lost or may be lost (:func:`desktop.core.diagnostics.is_page_lost`)
    come first, so that a summary showing the first few never hides them behind "repaired" or "blank"."""
    out: list[Note] = []
    seen: set[str] = set()
    warnings = [(p.number, w) for p in document.page_results for w in p.warnings]
    warnings.sort(key=lambda item: not is_page_lost(item[1]))  # stable: page order within each group
    items = [page_note(number, w, language) for number, w in warnings]
    items += [document_note(n, language) for n in document.notes]
    for note in items:
        key = note.text or note.raw
        if key not in seen:
            seen.add(key)
            out.append(note)
    return out
