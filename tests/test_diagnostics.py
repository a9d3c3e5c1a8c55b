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
    again = ScanResult.from_json(result.to_json())  # written as 2.1, read back the same
    assert again.to_dict()["documents"] == result.to_dict()["documents"]
    assert result.to_dict()["schema_version"] == "2.3"


def test_a_schema_2_0_duplicate_mark_without_a_reason_code_still_reads() -> None:
    from desktop.core.duplicates import reason_of

    old = {"schema_version": "2.0", "documents": [{"source": "b.jpg", "pages": [1, 1], "duplicate_of":
                                                   {"source": "a.jpg", "pages": [1, 1], "reason": "same file"}}]}
    (doc,) = ScanResult.from_dict(old).documents
    assert doc.duplicate_of == {"source": "a.jpg", "pages": [1, 1], "reason": "same file"}
    assert reason_of(doc.duplicate_of).code is Code.DUPLICATE_SAME_FILE


def test_a_schema_2_2_field_without_a_review_threshold_still_reads_and_says_why_it_is_flagged() -> None:
    from desktop.core.flags import flag_diagnostics

    old = {"schema_version": "2.2", "documents": [{"source": "r.jpg", "pages": [1, 1], "fields": {"total": {
        "value": "8.80", "raw": "8.80", "confidence": 0.45, "source": "ocr", "needs_review": True}}}]}
    (doc,) = ScanResult.from_dict(old).documents
    total = doc.fields["total"]
    assert total.review_threshold is None and total.needs_review
    assert [d.code for d in flag_diagnostics(total)] == [Code.FIELD_NOT_SURE] and "45%" in flag_diagnostics(total)[0].message()
    assert "review_threshold" not in total.to_dict()  # written back as it was read


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


# -- the Chinese messages carry no English ------------------------------------------------------------

LIBRARY_WORDS = "image file is truncated (17 bytes not processed)"

#: Latin words a Chinese message may show: names of products, formats, standards, files and keys.
_NAMES = {"Shoebox", "JPEG", "PNG", "TIFF", "BMP", "WebP", "HEIC", "HEIF", "PDF", "OFD", "XML", "AVIF", "MuPDF",
          "HunyuanOCR", "PP-OCR", "OCR", "CPU", "GPU", "CUDA", "AI", "JSON", "QR", "HTTP", "API", "ISO", "IBAN", "GB", "T", "tencent",
          "YYYY-MM-DD", "GSTIN", "SIGKILL", "SIGABRT", "SIGSEGV", "pip", "install", "shoebox", "gpu", "torch",
          "transformers", "pillow-heif", "tencent/HunyuanOCR", "config.json", "preprocessor_config.json",
          "safetensors", "tokenizer_config.json", "tokenizer.json", "model.safetensors",
          "model.safetensors.index.json", "SHOEBOX_SERVER_URL", "server-url", "allow-public-server", "model-dir",
          "PostScript", "DjVu", "RTF", "RAR", "ZIP", "Office", "gzip", "FIFO", "PP", "URL", "xlsx", "csv", "json", "KiB"}


def _sample(code: Code, key: str) -> object:
    """A parameter value for ``key``: a library's English words where a library's words may go."""
    from desktop.core.diagnostics import LIBRARY_TEXT_PARAMS

    if key in LIBRARY_TEXT_PARAMS:
        return LIBRARY_WORDS
    return {"page": 2, "url": "http://192.168.1.20:8000", "host": "192.168.1.20", "path": "/data/x", "raw": "12/03/26",
            "order": "DMY", "kind": "TextObject", "where": "user data folder"}.get(key, 7)


@pytest.mark.parametrize("code", [c for c in Code if c is not Code.TEXT])
def test_a_chinese_message_shows_no_library_english(code: Code) -> None:
    """Whatever English words a library's exception carries (Pillow's "image file is truncated ..."),
    the Chinese message leaves them out; the English message and :func:`library_text` keep them."""
    from desktop.core.diagnostics import LIBRARY_TEXT_PARAMS, ZH_WITHOUT_LIBRARY_TEXT, library_text

    entry = CATALOGUE[code]
    params = {k: _sample(code, k) for k in _fields(entry.en) | _fields(entry.zh) if k not in ("page", "field")}
    d = diag(code, page=2, **params)
    zh = d.message("zh")
    assert "truncated" not in zh and "?" not in zh, zh
    words = re.findall(r"[A-Za-z][A-Za-z0-9_.-]*", re.sub(r"\d+x\d+|http://\S+", "", zh))
    assert set(words) <= _NAMES | {"x", "data"}, f"{code}: {zh}"
    if _fields(entry.zh) & LIBRARY_TEXT_PARAMS:
        assert code in ZH_WITHOUT_LIBRARY_TEXT, code
        assert not _fields(ZH_WITHOUT_LIBRARY_TEXT[code]) & LIBRARY_TEXT_PARAMS
        assert _fields(ZH_WITHOUT_LIBRARY_TEXT[code]) <= _fields(entry.zh)
        assert LIBRARY_WORDS in d.message("en") and library_text(d) == [LIBRARY_WORDS]


def test_a_nested_diagnostic_in_a_library_place_is_rendered_in_chinese() -> None:
    from desktop.core.diagnostics import library_text

    crashed = diag(Code.ENGINE_CRASHED, page=2, detail=diag(Code.WORKER_KILLED))
    assert crashed.message("zh") == "读取第 2 页时识别引擎意外停止（进程被 SIGKILL 强行终止，通常是因为电脑内存不足）"
    lost = diag(Code.PAGE_NOT_READ, page=3, reason=diag(Code.IMAGE_DAMAGED, detail=LIBRARY_WORDS))
    assert lost.message("zh") == "第 3 页无法读取：文件已损坏或不是完整的图像"
    assert LIBRARY_WORDS in lost.message("en") and library_text(lost) == [LIBRARY_WORDS]
    assert diag(Code.IMAGE_DAMAGED, detail=LIBRARY_WORDS).to_dict()["params"]["detail"] == LIBRARY_WORDS  # JSON keeps it


@pytest.mark.parametrize("order, words", [("DMY", "日/月/年"), ("MDY", "月/日/年"), ("YMD", "年/月/日")])
def test_the_date_order_is_chinese_words(order: str, words: str) -> None:
    d = diag(Code.AMBIGUOUS_DATE_ORDER, raw="03/04/2026", order=order)
    assert d.message("zh") == f"“03/04/2026”的日、月顺序不明确；按{words}的顺序读取"
    assert d.message("en") == f"day/month order of '03/04/2026' is ambiguous; read as {order}"


def test_what_a_model_folder_lacks_is_worded_in_chinese(tmp_path) -> None:
    """The engine fallback note names the missing model files in Chinese words (file names as they are)."""
    import json

    from desktop.core.engines import hunyuan_models

    folder = tmp_path / "HunyuanOCR"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        f"w{i}": f"model-0000{i}-of-00005.safetensors" for i in range(1, 6)}}), encoding="utf-8")
    _ok, reason = hunyuan_models.availability(str(folder), require_gpu=False)
    zh, en = diag(Code.ENGINE_FALLBACK, reason=reason).message("zh"), diag(Code.ENGINE_FALLBACK, reason=reason).message("en")
    assert "分词器文件（tokenizer_config.json 和 tokenizer.json）" in zh and "权重文件（model-00001-of-00005.safetensors" in zh
    assert "另有 2 个" in zh and not re.search(r"\b(tokenizer files|weights|missing|and|more|not set|does not exist)\b", zh)
    assert "tokenizer files (tokenizer_config.json and tokenizer.json)" in en and "and 2 more" in en
    assert "model-00001-of-00005.safetensors, model-00002-of-00005.safetensors" in en


def test_an_engines_own_english_note_stays_out_of_the_chinese_text() -> None:
    from desktop.core.diagnostics import library_text, text

    note = diag(Code.ENGINE_NOTE, page=1, engine="ppocr", detail=text("low contrast on the left half"))
    assert note.message("zh") == "识别引擎对此页有一条提示：请检查此页"
    assert note.message("en") == "low contrast on the left half" and library_text(note) == ["low contrast on the left half"]
    assert diag(Code.ENGINE_NOTE, detail=diag(Code.HUNYUAN_CUT)).message("zh").startswith("识别引擎提示：HunyuanOCR 的回答")


def test_every_lost_page_is_named_with_its_page_at_document_level() -> None:
    """Document.lost_pages: each page whose content is lost or may be lost, as a diagnostic naming its page
    (the page's own warning when its message names the page); the pages merely blank or repaired are not."""
    from desktop.core.diagnostics import is_page_lost

    failed = diag(Code.PAGE_NOT_READ, page=1, reason=diag(Code.OUT_OF_MEMORY))
    doc = Document(source="x.pdf", pages=(1, 4), page_results=[
        PageResult(1, 5, 5, warnings=[failed]),
        PageResult(2, 5, 5, warnings=[diag(Code.PDF_REPAIRED), diag(Code.NO_TEXT)]),
        PageResult(3, 5, 5, warnings=[diag(Code.PDF_PAGE_CONTENT_GONE)]),
        PageResult(4, 5, 5, warnings=[diag(Code.OFD_PAGES_CUT, shown=4, pages=9)])])
    lost = doc.lost_pages()
    assert [(d.code, d.page) for d in lost] == [(Code.PAGE_NOT_READ, 1), (Code.PAGE_CONTENT_LOST, 3),
                                                (Code.PAGE_CONTENT_LOST, 4)]
    assert lost[1].message().startswith("page 3: the PDF was damaged and its repair lost this page's content")
    assert lost[1].message("zh").startswith("第 3 页：PDF 已损坏，修复时丢失了此页的内容")
    assert lost[2].message() == "page 4: only the first 4 of 9 pages are shown"
    assert not is_page_lost(diag(Code.PDF_REPAIRED)) and not is_page_lost(diag(Code.NO_TEXT))


def test_a_reading_cut_at_the_length_limit_is_a_page_that_may_have_lost_content() -> None:
    from desktop.core.diagnostics import is_page_lost

    cut = diag(Code.ENGINE_NOTE, page=2, engine="hunyuan", detail=diag(Code.HUNYUAN_CUT_AT_LIMIT, tokens=4096))
    assert is_page_lost(cut)
    assert not is_page_lost(diag(Code.ENGINE_NOTE, page=2, engine="hunyuan", detail=diag(Code.HUNYUAN_REPEATED)))
    assert not is_page_lost(diag(Code.ENGINE_NOTE, page=2, engine="hunyuan", detail="own words"))
    doc = Document(source="x.png", page_results=[PageResult(1, 5, 5, warnings=[cut])])
    assert [d.message() for d in doc.lost_pages()] == [
        "page 1: HunyuanOCR answer cut at the length limit (4096 tokens): the end of the page may be missing"]
