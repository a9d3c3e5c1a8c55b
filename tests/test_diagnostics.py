"""Diagnostics: codes, the catalogue in both languages, JSON, older files, exit codes."""
from __future__ import annotations

import re
import string

import pytest

from desktop.core.diagnostics import (
    CATALOGUE,
    EXIT_CODES,
    Code,
    Diagnostic,
    ExitCode,
    Severity,
    diag,
    exit_code_for,
    render,
)
from desktop.core.model import Document, Field, PageResult, ScanResult

_PASSTHROUGH = {Code.TEXT, Code.ENGINE_FAILED, Code.EXCEPTION, Code.USAGE, Code.OUTPUT_FAILED}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("code", list(Code))
def test_every_code_has_both_languages(code: Code) -> None:
    entry = CATALOGUE[code]
    assert entry.en.strip() and entry.zh.strip()
    assert _fields(entry.zh) <= _fields(entry.en) | {"page", "field"}
    if code not in _PASSTHROUGH:
        assert re.search(r"[\u4e00-\u9fff]", entry.zh), f"{code}: the Chinese message is not Chinese"
        assert entry.zh != entry.en


def test_render_in_each_language_with_nested_reason() -> None:
    reason = diag(Code.PDF_ENCRYPTED)
    d = diag(Code.PAGE_NOT_READ, page=3, reason=reason)
    assert d.message() == "page 3 could not be read: the PDF is password-protected"
    assert render(d, "zh_CN") == "第 3 页无法读取：PDF 受密码保护"
    assert str(d) == d.message("en")
    assert d.severity is Severity.WARNING  # the catalogue's default


def test_a_missing_parameter_shows_a_question_mark_not_an_exception() -> None:
    assert diag(Code.NO_AMOUNT).message() == "no amount in '?'"


def test_json_round_trip_keeps_code_params_and_nesting() -> None:
    d = diag(Code.REREAD_FAILED, page=2, reason=diag(Code.IMAGE_DAMAGED, detail="truncated"))
    data = d.to_dict()
    assert data["code"] == "reread_failed" and data["message"] == "reading again failed: the file is damaged or " \
        "not a complete image (truncated)"
    assert data["params"]["reason"]["code"] == "image_damaged"
    assert Diagnostic.from_dict(data) == d


def test_older_strings_and_unknown_codes_read_as_text() -> None:
    old = Diagnostic.from_dict("QR code says 1, printed 2")
    assert old.code is Code.TEXT and old.message() == "QR code says 1, printed 2" and old.message("zh") == old.message()
    newer = Diagnostic.from_dict({"code": "from_the_future", "message": "something new", "page": 4})
    assert newer.code is Code.TEXT and newer.message() == "something new" and newer.page == 4


def test_schema_1_json_reads_with_strings_as_diagnostics() -> None:
    v1 = {"schema_version": "1.0", "documents": [
        {"source": "/s/a.jpg", "error": "a.jpg: the file is empty (0 bytes)"},
        {"source": "/s/b.jpg", "document_type": "receipt", "extras": {"notes": ["an old note"], "seconds": 1.0},
         "fields": {"total": {"value": "1.00", "problems": ["subtotal + tax ≠ total (1 + 0 = 1, total 2)"]}},
         "page_results": [{"number": 1, "width": 10, "height": 10, "warnings": ["no text was found on this page"]}]},
    ]}
    result = ScanResult.from_dict(v1)
    bad, good = result.documents
    assert bad.error is not None and bad.error.code is Code.TEXT and bad.error.severity is Severity.ERROR
    assert [n.message() for n in good.notes] == ["an old note"] and "notes" not in good.extras
    assert good.fields["total"].problems[0].code is Code.TEXT
    assert good.page_results[0].warnings[0].message() == "no text was found on this page"
    again = ScanResult.from_json(result.to_json())  # written as 2.0, read back the same
    assert again.to_dict()["documents"] == result.to_dict()["documents"]
    assert result.to_dict()["schema_version"] == "2.0"


def test_schema_3_is_refused() -> None:
    with pytest.raises(ValueError, match="schema_version"):
        ScanResult.from_dict({"schema_version": "3.0", "documents": []})


def test_model_objects_carry_diagnostics_in_json() -> None:
    doc = Document(source="x.png", fields={"total": Field("total", "-1.00", problems=[
        diag(Code.NEGATIVE_AMOUNT, name="total", value="-1.00")])},
        page_results=[PageResult(1, 5, 5, warnings=[diag(Code.NO_TEXT)])], notes=[diag(Code.MODEL_NO_FIELDS, engine="e")])
    data = doc.to_dict()
    assert data["fields"]["total"]["problems"][0] == {
        "code": "negative_amount", "severity": "warning", "message": "total -1.00 is negative", "page": None,
        "field": None, "params": {"name": "total", "value": "-1.00"}}
    assert data["page_results"][0]["warnings"][0]["code"] == "no_text"
    assert data["notes"][0]["code"] == "model_no_fields"
    assert Document.from_dict(data) == doc


def test_every_error_code_has_an_exit_code() -> None:
    for code, entry in CATALOGUE.items():
        if entry.severity is Severity.ERROR:
            assert code in EXIT_CODES, code


@pytest.mark.parametrize(
    ("errors", "any_read", "expected"),
    [
        ([], True, ExitCode.OK),
        ([], False, ExitCode.NOTHING_DONE),
        ([diag(Code.PDF_ENCRYPTED)], True, ExitCode.SOME_FAILED),
        ([diag(Code.PDF_ENCRYPTED)], False, ExitCode.NOTHING_DONE),
        ([diag(Code.PDF_ENCRYPTED), diag(Code.ENGINE_UNAVAILABLE, detail="x")], False, ExitCode.ENGINE_UNAVAILABLE),
    ],
)
def test_exit_code_from_the_table(errors: list[Diagnostic], any_read: bool, expected: ExitCode) -> None:
    assert exit_code_for(errors, any_read=any_read) is expected
