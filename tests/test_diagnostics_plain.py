"""The plain English message (``message("en", plain=True)``): the sentence the GUI's compact places
show (queue card, page notes, a field's problems, the status bar), without a library's own words,
which :func:`~desktop.core.diagnostics.library_text` gives for the tooltip. The Chinese message
leaves them out the same way (:data:`~desktop.core.diagnostics.ZH_WITHOUT_LIBRARY_TEXT`); the English
message, the JSON, the CLI and the exports keep them."""
from __future__ import annotations

import string

import pytest

from desktop.core.diagnostics import (
    CATALOGUE,
    EN_WITHOUT_LIBRARY_TEXT,
    LIBRARY_TEXT_PARAMS,
    ZH_WITHOUT_LIBRARY_TEXT,
    Code,
    diag,
    library_text,
    text,
)

LIBRARY_WORDS = "cannot load content stream part 45/58"


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _sample(key: str) -> object:
    """A parameter value for ``key``: a library's English words where a library's words may go."""
    if key in LIBRARY_TEXT_PARAMS:
        return LIBRARY_WORDS
    return {"url": "http://192.168.1.20:8000", "host": "192.168.1.20", "path": "/data/x", "kind": "TextObject"}.get(key, 7)


def test_the_english_and_chinese_tables_cover_the_same_codes() -> None:
    assert set(EN_WITHOUT_LIBRARY_TEXT) == set(ZH_WITHOUT_LIBRARY_TEXT)


@pytest.mark.parametrize("code", [c for c in Code if c is not Code.TEXT])
def test_a_code_showing_library_words_has_a_plain_english_message(code: Code) -> None:
    entry = CATALOGUE[code]
    if _fields(entry.en) & LIBRARY_TEXT_PARAMS:
        assert code in EN_WITHOUT_LIBRARY_TEXT, code
    else:
        assert code not in EN_WITHOUT_LIBRARY_TEXT, code


@pytest.mark.parametrize("code", sorted(EN_WITHOUT_LIBRARY_TEXT))
def test_no_plain_english_message_shows_the_library_words(code: Code) -> None:
    plain_template, entry = EN_WITHOUT_LIBRARY_TEXT[code], CATALOGUE[code]
    assert not _fields(plain_template) & LIBRARY_TEXT_PARAMS, plain_template
    assert _fields(plain_template) <= _fields(entry.en)  # the same sentence, less the library's words
    params = {k: _sample(k) for k in _fields(entry.en) if k not in ("page", "field")}
    d = diag(code, page=2, **params)
    plain = d.message("en", plain=True)
    assert LIBRARY_WORDS not in plain and "?" not in plain, plain  # every parameter it shows is given
    # the library's words are still there for support: the full message, the JSON, the tooltip's words
    assert LIBRARY_WORDS in d.message("en") and LIBRARY_WORDS in d.to_dict()["message"]
    assert library_text(d) == [LIBRARY_WORDS]
    assert d.message("zh", plain=True) == d.message("zh")  # the Chinese message is always plain


@pytest.mark.parametrize(("problem", "plain", "full"), [
    (diag(Code.PDF_CONTENT_LOST, page=1, detail=LIBRARY_WORDS),
     "the PDF is damaged and part of this page could not be loaded; text may be missing",
     f"the PDF is damaged and part of this page could not be loaded (MuPDF: {LIBRARY_WORDS}); text may be missing"),
    (diag(Code.PAGE_CONTENT_LOST, page=3, warning=diag(Code.PDF_CONTENT_LOST, detail="zlib error: incorrect header check")),
     "page 3: the PDF is damaged and part of this page could not be loaded; text may be missing",
     "page 3: the PDF is damaged and part of this page could not be loaded (MuPDF: zlib error: incorrect header "
     "check); text may be missing"),
    (diag(Code.IMAGE_DAMAGED, detail="image file is truncated (17 bytes not processed)"),
     "the file is damaged or not a complete image",
     "the file is damaged or not a complete image (image file is truncated (17 bytes not processed))"),
    (diag(Code.PAGE_NOT_READ, page=2, reason=diag(Code.IMAGE_DAMAGED, detail="broken data stream")),
     "page 2 could not be read: the file is damaged or not a complete image",
     "page 2 could not be read: the file is damaged or not a complete image (broken data stream)"),
    (diag(Code.SERVER_UNREACHABLE, url="http://192.168.1.20:8000", detail="[Errno 111] Connection refused"),
     "the office server at http://192.168.1.20:8000 could not be reached",
     "the office server at http://192.168.1.20:8000 could not be reached: [Errno 111] Connection refused"),
    (diag(Code.ENGINE_FAILED, detail="simulated engine failure"), "the engine failed", "simulated engine failure"),
    (diag(Code.ENGINE_NOTE, page=1, detail=text("low contrast on the left half")),
     "the engine left a note on this page: check this page", "low contrast on the left half"),
    (diag(Code.COLOUR_MODE_UNSUPPORTED, mode="LAB", detail="conversion not supported"),
     "the image uses a colour mode Shoebox cannot convert (LAB)",
     "the image uses a colour mode Shoebox cannot convert (LAB: conversion not supported)"),
])
def test_plain_english_messages(problem, plain: str, full: str) -> None:
    assert problem.message("en", plain=True) == plain
    assert problem.message("en") == full == str(problem)  # the CLI's, the JSON's and the exports' words
    assert problem.to_dict()["message"] == full
    words = library_text(problem)
    assert words and all(w in full and w not in plain for w in words)
    assert "MuPDF" not in plain


def test_a_nested_diagnostic_in_a_library_place_stays_in_the_plain_message() -> None:
    """Only a library's plain text is left out: our own diagnostic in its place is our words."""
    crashed = diag(Code.ENGINE_CRASHED, page=2, detail=diag(Code.WORKER_KILLED))
    assert crashed.message("en", plain=True) == crashed.message("en")
    assert "stopped unexpectedly while reading page 2" in crashed.message("en", plain=True)
    assert library_text(crashed) == []


def test_a_message_without_library_words_is_the_same_plain() -> None:
    for d in (diag(Code.PDF_PAGE_CONTENT_GONE, page=2), diag(Code.EMPTY_FILE, size=0),
              diag(Code.SUM_MISMATCH, field="total", subtotal="96.72", tax="5.80", total="102.00", difference="0.52")):
        assert d.message("en", plain=True) == d.message("en")
