"""The pipeline with fake engines on generated files: failure isolation, pages, cancel, progress,
text-layer pages, box mapping, engine fields and tasks, re-extraction and re-reading."""
from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from desktop.core.diagnostics import Code
from desktop.core.layout import reading_order
from desktop.core.model import Field, Line, Word
from desktop.core.pipeline import (
    Cancelled,
    Progress,
    ScanOptions,
    _merge_mixed,
    collect_inputs,
    reextract,
    reread_page,
    scan_file,
    scan_paths,
)
from tests.fake_engines import CrashingEngine, FailingEngine, FakeEngine, MemoryHogEngine, SlowEngine

W, H = 600, 900
RECEIPT = {
    "width": W,
    "height": H,
    "lines": [
        {"text": "CORNER SHOP", "box": [200, 40, 400, 80], "confidence": 0.99},
        {"text": "12 High Street", "box": [180, 90, 420, 120], "confidence": 0.98},
        {"text": "Date: 03/02/2024", "box": [40, 200, 300, 230], "confidence": 0.98},
        {"text": "TOTAL", "box": [40, 700, 160, 740], "confidence": 0.99},
        {"text": "12.50", "box": [450, 702, 560, 738], "confidence": 0.99},
    ],
}


def png(path: Path, size: tuple[int, int] = (W, H)) -> Path:
    Image.new("RGB", size, "white").save(path)
    return path


def tiff(path: Path, pages: int) -> Path:
    frames = [Image.new("RGB", (W, H), (255, 255, 255 - i)) for i in range(pages)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def text_pdf(path: Path, text: str = "Invoice 42 TOTAL 99.00") -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 100), text, fontsize=14)
    doc.save(path)
    return path


def errors(docs):
    return [d.error for d in docs if d.error]


# -- failure isolation -----------------------------------------------------------------------------

def test_corrupt_file_among_good_ones_gives_one_error_document(tmp_path):
    good1 = png(tmp_path / "a.png")
    bad = tmp_path / "b.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 50)
    good2 = png(tmp_path / "c.png")
    engine = FakeEngine([RECEIPT])
    docs = scan_paths([tmp_path], engine)
    assert [Path(d.source).name for d in docs] == ["a.png", "b.png", "c.png"]
    assert errors(docs) == [docs[1].error]
    assert "b.png" not in docs[1].error.message()  # the document names the file; the message says why
    for d in (docs[0], docs[2]):
        assert d.error is None and d.engine == "fake"
        assert "TOTAL" in d.text and d.document_type
    assert engine.calls == 2
    assert {good1, good2} == {Path(d.source) for d in docs if not d.error}


@pytest.mark.parametrize(
    ("engine", "expected"),
    [
        (FailingEngine("the model refused"), "the model refused"),
        (CrashingEngine("native crash"), "native crash"),
        (MemoryHogEngine(), "out of memory"),
    ],
)
def test_engine_failure_becomes_an_error_document(tmp_path, engine, expected):
    f = png(tmp_path / "r.png")
    docs = scan_file(f, engine)
    assert len(docs) == 1
    assert expected in docs[0].error.message()
    assert docs[0].fields == {}


def test_a_failing_page_is_noted_and_the_others_are_read(tmp_path):
    f = tiff(tmp_path / "three.tif", 3)
    engine = FailingEngine("page exploded", fail_on={2}, pages=[RECEIPT])
    docs = scan_file(f, engine)
    assert errors(docs) == []
    pages = [p for d in docs for p in d.page_results]
    assert [p.number for p in pages] == [1, 2, 3]
    assert pages[1].lines == [] and any(w.code == Code.PAGE_NOT_READ and "page exploded" in w.message() for w in pages[1].warnings)
    assert pages[0].lines and pages[2].lines


def test_missing_and_empty_inputs(tmp_path):
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    docs = scan_file(empty, FakeEngine())
    assert len(docs) == 1 and docs[0].error.code == Code.EMPTY_FILE
    files, errs = collect_inputs([tmp_path / "nope.png"])
    assert files == [] and len(errs) == 1 and errs[0].error.code == Code.NO_SUCH_PATH and errs[0].source.endswith("nope.png")


# -- pages, progress, cancel -----------------------------------------------------------------------

def test_multi_page_file_is_read_page_by_page_with_progress(tmp_path):
    f = tiff(tmp_path / "multi.tif", 3)
    engine = FakeEngine([RECEIPT])
    seen: list[Progress] = []
    docs = scan_file(f, engine, progress=seen.append)
    assert engine.calls == 3
    assert sorted(p.number for d in docs for p in d.page_results) == [1, 2, 3]
    assert [(p.page, p.pages) for p in seen] == [(1, 3), (2, 3), (3, 3), (3, 3)]
    assert seen[-1].message == "done" and all(p.source == f for p in seen)
    for d in docs:
        assert d.pages[0] <= d.pages[1]
        assert all(d.pages[0] <= p.number <= d.pages[1] for p in d.page_results)


def test_cancel_between_pages_raises_with_what_was_read(tmp_path):
    f = tiff(tmp_path / "multi.tif", 4)
    engine = FakeEngine([RECEIPT])
    with pytest.raises(Cancelled) as info:
        scan_file(f, engine, cancel=lambda: engine.calls >= 2)
    assert engine.calls == 2
    read = [p.number for d in info.value.documents for p in d.page_results]
    assert read == [1, 2]
    assert all(d.extras.get("cancelled") for d in info.value.documents)


def test_cancel_before_anything_and_in_a_batch(tmp_path):
    png(tmp_path / "a.png")
    png(tmp_path / "b.png")
    with pytest.raises(Cancelled) as info:
        scan_file(tmp_path / "a.png", FakeEngine(), cancel=lambda: True)
    assert info.value.documents == []
    engine = SlowEngine(20, pages=[RECEIPT])
    with pytest.raises(Cancelled) as info:
        scan_paths([tmp_path], engine, cancel=lambda: engine.calls >= 1)
    assert [Path(d.source).name for d in info.value.documents] == ["a.png"]


# -- text layer, box mapping ------------------------------------------------------------------------

def test_text_layer_pdf_page_is_not_ocrd(tmp_path):
    f = text_pdf(tmp_path / "digital.pdf")
    engine = FakeEngine([RECEIPT])
    docs = scan_file(f, engine)
    assert errors(docs) == []
    assert engine.calls == 0
    page = docs[0].page_results[0]
    assert page.origin == "pdf_text"
    assert "Invoice 42" in page.text
    assert all(0 <= ln.box[0] <= ln.box[2] <= page.width and 0 <= ln.box[1] <= ln.box[3] <= page.height for ln in page.lines)


def test_boxes_are_mapped_from_the_render_back_to_page_pixels(tmp_path):
    f = png(tmp_path / "big.png", (W * 2, H * 2))
    recorded = {"width": W, "height": H, "lines": RECEIPT["lines"]}
    engine = FakeEngine([recorded], max_pixels=W * H // 4)  # render at ~1/4 of the page's linear size
    docs = scan_file(f, engine)
    (h, w) = engine.shapes[0]
    assert w * h <= W * H // 4 + 2 * (W + H)
    page = docs[0].page_results[0]
    assert (page.width, page.height) == (W * 2, H * 2)
    total = next(ln for ln in page.lines if ln.text == "12.50")
    assert total.box == pytest.approx((900, 1404, 1120, 1476), abs=6)
    assert any(w.code == Code.DOWNSCALED for w in page.warnings)


# -- engine fields and tasks ------------------------------------------------------------------------

def test_fields_capable_engine_is_asked_and_own_extraction_fills_gaps(tmp_path):
    f = png(tmp_path / "r.png")
    engine = FakeEngine([RECEIPT], capabilities={"fields"}, field_values={"total": "12.50", "vendor_name": "CORNER SHOP"})
    docs = scan_file(f, engine, ScanOptions(document_type="receipt"))
    doc = docs[0]
    assert engine.field_calls and "total" in engine.field_calls[0] and "vendor_name" in engine.field_calls[0]
    assert doc.fields["vendor_name"].value == "CORNER SHOP" and doc.fields["vendor_name"].source == "model"
    assert doc.document_type == "receipt"
    assert doc.fields["total"].value == "12.50" and doc.fields["total"].source == "model"
    assert set(doc.fields) >= {"vendor_name", "date", "total"}


def test_fields_capable_engine_failing_falls_back_to_own_extraction(tmp_path):
    class Broken(FakeEngine):
        def read_fields(self, image, fields, language="en"):
            raise RuntimeError("model output unparsable")

    f = png(tmp_path / "r.png")
    doc = scan_file(f, Broken([RECEIPT], capabilities={"fields"}), ScanOptions(document_type="receipt"))[0]
    assert doc.error is None
    assert set(doc.fields) >= {"vendor_name", "total"}
    assert all(fl.source != "model" for fl in doc.fields.values())
    assert any(n.code == Code.MODEL_FIELDS_FAILED for n in doc.notes)


def test_task_output_is_stored_per_page(tmp_path):
    f = tiff(tmp_path / "two.tif", 2)
    engine = FakeEngine([RECEIPT], capabilities={"markdown", "table"}, task_output="| {task} |")
    docs = scan_file(f, engine, ScanOptions(task="table"))
    outputs = [o for d in docs for o in d.extras.get("table", [])]
    tables = [t for d in docs for t in d.tables]
    assert [o["page"] for o in outputs] == [1, 2] and outputs[0]["text"] == "| table |"
    assert [t["page"] for t in tables] == [1, 2]
    plain = scan_file(f, FakeEngine([RECEIPT]), ScanOptions(task="markdown"))
    assert any(w.code == Code.TASK_UNSUPPORTED for d in plain for p in d.page_results for w in p.warnings)


# -- inputs ------------------------------------------------------------------------------------------

def test_collect_inputs_walks_folders_sorted_and_keeps_supported_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    for name in ("b.JPG", "a.png", "sub/c.pdf", "notes.txt", ".hidden/d.png", ".e.png"):
        (tmp_path / name).write_bytes(b"x")
    explicit = tmp_path / "notes.txt"
    files, errs = collect_inputs([tmp_path, explicit, tmp_path / "a.png", tmp_path / "missing"])
    assert [f.relative_to(tmp_path).as_posix() for f in files] == ["a.png", "b.JPG", "sub/c.pdf", "notes.txt"]
    assert len(errs) == 1 and errs[0].error.code == Code.NO_SUCH_PATH and "missing" in errs[0].source


# -- re-extraction, re-reading ----------------------------------------------------------------------

def test_reextract_changes_type_and_keeps_edits(tmp_path):
    doc = scan_file(png(tmp_path / "r.png"), FakeEngine([RECEIPT]), ScanOptions(document_type="receipt"))[0]
    doc.fields["total"] = Field("total", value="99.99", raw="99.99", confidence=1.0, source="user", edited=True)
    again = reextract(doc, "invoice")
    assert again.document_type == "invoice"
    assert "invoice_number" in again.fields
    assert again.fields["total"].value == "99.99" and again.fields["total"].edited
    assert doc.document_type == "receipt"  # the original is not changed
    with pytest.raises(KeyError):
        reextract(doc, "no_such_type")


def test_reread_page_turns_the_page_and_swaps_its_size(tmp_path):
    f = png(tmp_path / "r.png")
    doc = scan_file(f, FakeEngine([RECEIPT]), ScanOptions(document_type="receipt"))[0]
    engine = FakeEngine([RECEIPT])
    again = reread_page(doc, 1, 90, engine, ScanOptions())
    page = again.page_results[0]
    assert page.rotation == 90 and (page.width, page.height) == (H, W)
    assert engine.calls == 1  # chosen by the clerk: no orientation probing
    assert again.document_type == "receipt"
    failed = reread_page(doc, 1, 180, FailingEngine("gpu fell over"), ScanOptions())
    assert any(w.code == Code.REREAD_FAILED and "gpu fell over" in w.message() for w in failed.page_results[0].warnings)
    assert failed.page_results[0].lines == doc.page_results[0].lines
    with pytest.raises(ValueError):
        reread_page(doc, 5, 0, engine, ScanOptions())


# -- helpers ---------------------------------------------------------------------------------------

def test_mixed_pages_keep_the_text_layer_and_add_only_new_ocr_lines():
    layer = [Line("Invoice 42", (10, 10, 200, 30), 1.0, words=[Word("Invoice", (10, 10, 100, 30)), Word("42", (110, 10, 200, 30))])]
    ocr = [Line("Invoice 42", (12, 11, 198, 29), 0.9), Line("STAMP PAID", (300, 500, 450, 540), 0.9)]
    merged = _merge_mixed(layer, ocr)
    assert [ln.text for ln in merged] == ["Invoice 42", "STAMP PAID"]
    assert merged[0].confidence == 1.0


def test_reading_order_groups_rows_by_vertical_overlap():
    lines = [
        Line("12.50", (400, 102, 480, 120)),
        Line("TOTAL", (10, 100, 80, 118)),
        Line("header", (10, 10, 300, 40)),
        Line("next", (10, 140, 80, 160)),
    ]
    assert [ln.text for ln in reading_order(lines)] == ["header", "TOTAL", "12.50", "next"]


def test_pipeline_imports_no_qt():
    import subprocess
    import sys

    code = "import sys, desktop.core.pipeline, tests.fake_engines; print(any(m.startswith('PySide6') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    assert out.stdout.strip() == "False", out.stderr


def test_reading_order_reads_columns_of_running_text_one_after_the_other():
    text = "words of running text in a column"  # 27 non-space characters
    left = [Line(f"L{i} {text}", (10, 100 + 30 * i, 290, 120 + 30 * i)) for i in range(4)]
    right = [Line(f"R{i} {text}", (310, 102 + 30 * i, 590, 122 + 30 * i)) for i in range(4)]
    header = Line(f"a heading that runs across both columns {text}", (10, 40, 590, 62))
    order = [ln.text.split()[0] for ln in reading_order([*right, header, *left])]
    assert order == ["a", "L0", "L1", "L2", "L3", "R0", "R1", "R2", "R3"]
    # label ... value rows (short text on one side) stay rows
    rows = [ln for i in range(4) for ln in (Line(f"item number {i} description", (10, 30 * i, 290, 20 + 30 * i)),
                                            Line(f"{i}.00", (400, 30 * i, 450, 20 + 30 * i)))]
    assert [ln.text for ln in reading_order(list(reversed(rows)))] == [ln.text for ln in rows]


def test_a_failing_orientation_probe_keeps_the_first_read(tmp_path):
    sideways = {"width": W, "height": H, "lines": [
        {"text": f"vertical text {i}", "box": [40 * i, 10, 40 * i + 20, 400], "confidence": 0.9} for i in range(1, 6)]}
    engine = FailingEngine("probe broke", fail_from=2, pages=[sideways])
    doc = scan_file(png(tmp_path / "side.png"), engine)[0]
    page = doc.page_results[0]
    assert doc.error is None and page.rotation == 0 and len(page.lines) == 5
    assert any(w.code == Code.ORIENTATION_CHECK_FAILED for w in page.warnings)


def test_a_sideways_page_is_turned_and_read_again(tmp_path):
    # first read: tall lines; a probe at 90 degrees reads well, at 270 badly; then the upright read
    sideways = {"width": W, "height": H, "lines": [
        {"text": f"vertical text {i}", "box": [40 * i, 10, 40 * i + 20, 400], "confidence": 0.6} for i in range(1, 6)]}
    good = {"width": H, "height": W, "lines": [
        {"text": f"upright line of text {i}", "box": [10, 40 * i, 400, 40 * i + 20], "confidence": 0.99} for i in range(1, 6)]}
    bad = {"width": H, "height": W, "lines": [{"text": "x", "box": [10, 10, 20, 20], "confidence": 0.5}]}
    engine = FakeEngine([sideways, good, bad, good])
    doc = scan_file(png(tmp_path / "side.png"), engine)[0]
    page = doc.page_results[0]
    assert engine.calls == 4
    assert page.rotation == 90 and (page.width, page.height) == (H, W)
    assert [ln.text for ln in page.lines][0] == "upright line of text 1"
    assert any(w.code == Code.TURNED and w.params["degrees"] == 90 for w in page.warnings)


def test_reading_order_of_a_skewed_page_follows_the_tilted_lines():
    import math

    tilt = math.radians(3)

    def tilted(text, x, y, w=800, h=18):
        pts = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        c, s = math.cos(tilt), math.sin(tilt)
        poly = [(px * c - py * s, px * s + py * c) for px, py in pts]
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        return Line(text, (min(xs), min(ys), max(xs), max(ys)), 0.9, polygon=poly)

    lines = [tilted(f"line {i}", 100 if i % 2 else 40, 100 + 24 * i) for i in range(6)]
    # axis-aligned boxes of 3-degree lines 800 px long are ~60 px tall: neighbours overlap > 50%
    assert [ln.text for ln in reading_order(list(reversed(lines)))] == [f"line {i}" for i in range(6)]


def test_truncated_image_is_one_clean_error_without_a_traceback(tmp_path, caplog):
    """Damage found while decoding pixels (after the header opened fine) names the file once, logs no traceback."""
    good = tmp_path / "whole.jpg"
    Image.new("RGB", (W, H), "white").save(good, quality=95)
    data = good.read_bytes()
    broken = tmp_path / "cut.jpg"
    broken.write_bytes(data[: len(data) // 3])
    with caplog.at_level("DEBUG"):
        docs = scan_file(broken, FakeEngine([RECEIPT]))
    assert len(docs) == 1
    assert "cut.jpg" not in docs[0].error.message() and docs[0].error.code == Code.IMAGE_TRUNCATED
    # said as what happened to the file, not in the decoder's words (QA: "41 bytes not processed")
    assert "cut short" in docs[0].error.message() and "bytes not processed" not in docs[0].error.message()
    assert not [r for r in caplog.records if r.exc_info], "an expected intake error was logged as a crash"


def test_blank_page_is_read_once_and_says_no_text_was_found(tmp_path):
    blank = png(tmp_path / "blank.png")
    engine = FakeEngine([{"width": W, "height": H, "lines": []}])
    docs = scan_file(blank, engine)
    assert docs[0].error is None
    assert engine.calls == 1  # no orientation probes on a page with nothing on it
    assert [w.code for w in docs[0].page_results[0].warnings] == [Code.NO_TEXT]


def test_engine_warnings_and_suspect_mark_reach_the_page(tmp_path):
    f = png(tmp_path / "r.png")
    loud = FakeEngine([RECEIPT], warnings=["HunyuanOCR answer cut at the length limit: the end of the page may be missing"])
    page = scan_file(f, loud, ScanOptions(document_type="receipt", auto_rotate=False))[0].page_results[0]
    (note,) = [w for w in page.warnings if w.code == Code.ENGINE_NOTE]
    assert note.message() == "HunyuanOCR answer cut at the length limit: the end of the page may be missing"
    # an engine's note as a diagnostic (HunyuanOCR's) is said in the clerk's language, through the worker's JSON too
    from desktop.core.diagnostics import diag
    from desktop.core.engines.base import PageReading

    said = FakeEngine([RECEIPT], warnings=[diag(Code.HUNYUAN_REPEATED)])
    page = scan_file(f, said, ScanOptions(document_type="receipt", auto_rotate=False))[0].page_results[0]
    (note,) = [w for w in page.warnings if w.code == Code.ENGINE_NOTE]
    assert note.message() == "HunyuanOCR repeated itself; the repeated text was cut off: check this page"
    assert note.message("zh") == "识别引擎提示：HunyuanOCR 的输出出现了重复，重复的文字已截去：请检查此页"
    crossed = PageReading.from_dict(PageReading(warnings=[diag(Code.HUNYUAN_CUT_AT_LIMIT, tokens=120), "own words"]).to_dict())
    assert crossed.warnings == [diag(Code.HUNYUAN_CUT_AT_LIMIT, tokens=120), "own words"]
    assert "120" in crossed.warnings[0].message("zh") and "词元" in crossed.warnings[0].message("zh")
    quiet = FakeEngine([RECEIPT], suspect=True)
    page = scan_file(f, quiet, ScanOptions(document_type="receipt", auto_rotate=False))[0].page_results[0]
    (note,) = [w for w in page.warnings if w.code == Code.READING_SUSPECT]
    assert "doubtful" in note.message() and "可疑" in note.message("zh")


def test_malformed_engine_output_is_one_named_page_error(tmp_path):
    class Garbage(FakeEngine):
        def read_page(self, image):
            reading = super().read_page(image)
            reading.lines[0].box = (0.0, 0.0, float("nan"), 5.0)
            return reading

    f = png(tmp_path / "r.png")
    doc = scan_file(f, Garbage([RECEIPT]), ScanOptions(document_type="receipt"))[0]
    assert doc.error is not None and "not finite" in doc.error.message()


# -- QR codes decoded beside the engine's reading ----------------------------------------------------

def _qr_png(path: Path, payload: str, size: tuple[int, int] = (W, H)) -> Path:
    import zxingcpp

    code = Image.fromarray(zxingcpp.create_barcode(payload, zxingcpp.BarcodeFormat.QRCode).to_image(scale=4))
    page = Image.new("RGB", size, "white")
    page.paste(code.convert("RGB"), (40, 300))
    page.save(path)
    return path


def test_qr_codes_are_decoded_while_the_engine_reads_the_page(tmp_path):
    import threading

    import desktop.core.pipeline as pipeline

    decoding = threading.Event()
    real = pipeline._decode_qr

    def spy(image):
        decoding.set()
        return real(image)

    class Waiting(FakeEngine):
        def read_page(self, image):
            self.overlapped = decoding.wait(5)  # the decoding starts before this reading ends
            return super().read_page(image)

    engine = Waiting([RECEIPT])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "_decode_qr", spy)
        doc = scan_file(_qr_png(tmp_path / "qr.png", "https://example.com/receipt/42"), engine,
                        ScanOptions(document_type="receipt", auto_rotate=False))[0]
    assert engine.overlapped
    assert doc.extras["qr_payloads"] == ["https://example.com/receipt/42"]
    assert doc.page_results[0].lines  # the reading itself is unchanged


def test_a_turned_page_has_its_qr_codes_decoded_on_the_turned_image(tmp_path):
    import desktop.core.pipeline as pipeline

    seen: list[tuple[int, int]] = []

    def by_shape(image):  # the payload names the image it was decoded on
        seen.append(image.shape[:2])
        return [f"{image.shape[0]}x{image.shape[1]}"]

    sideways = {"width": W, "height": H, "lines": [
        {"text": f"vertical text {i}", "box": [40 * i, 10, 40 * i + 20, 400], "confidence": 0.6} for i in range(1, 6)]}
    good = {"width": H, "height": W, "lines": [
        {"text": f"upright line of text {i}", "box": [10, 40 * i, 400, 40 * i + 20], "confidence": 0.99} for i in range(1, 6)]}
    bad = {"width": H, "height": W, "lines": [{"text": "x", "box": [10, 10, 20, 20], "confidence": 0.5}]}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "_decode_qr", by_shape)
        doc = scan_file(png(tmp_path / "side.png"), FakeEngine([sideways, good, bad, good]))[0]
    assert doc.page_results[0].rotation == 90
    assert doc.extras["qr_payloads"] == [f"{W}x{H}"]  # the turned page's render, not the first one's
    assert (H, W) in seen and (W, H) in seen
