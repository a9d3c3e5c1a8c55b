"""Possible duplicates: same file, re-scan (same vendor, date and total), invoice number; near misses."""
from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from PIL import Image

from desktop.core.duplicates import (
    REASON_CODES,
    SAME_DATE_TOTAL,
    SAME_FIGURES,
    SAME_FILE,
    SAME_NUMBER,
    SAME_NUMBER_DATE_TOTAL,
    DuplicateChecker,
    content_hash,
    facts_of,
    find_duplicate,
)
from desktop.core.export import export
from desktop.core.model import Document, Field, ScanResult
from desktop.core.pipeline import ScanOptions, scan_file
from tests.fake_engines import FakeEngine, RecordedPage


def _receipt(source: str, vendor: str | None = "KEDAI RUNCIT MAJU", date: str | None = "2019-01-11",
             total: str | None = "12.50", number: str | None = None, digest: str | None = None,
             pages: tuple[int, int] = (1, 1)) -> Document:
    fields = {"vendor_name": Field("vendor_name", value=vendor), "date": Field("date", value=date),
              "total": Field("total", value=total)}
    if number is not None:
        fields["invoice_number"] = Field("invoice_number", value=number)
    doc = Document(source=source, pages=pages, document_type="receipt", fields=fields)
    if digest:
        doc.extras["content_hash"] = digest
    return doc


def test_same_file_is_a_duplicate() -> None:
    a, b = _receipt("a.jpg", digest="abc"), _receipt("copy.jpg", vendor=None, date=None, total=None, digest="abc")
    checker = DuplicateChecker()
    assert checker.check(a) is None
    assert checker.check(b) == {"source": "a.jpg", "pages": [1, 1], "reason": SAME_FILE,
                                "reason_code": "duplicate_same_file"}
    assert b.duplicate_of["reason"] == SAME_FILE


def test_one_file_holding_two_documents_is_not_a_duplicate_of_itself() -> None:
    first = _receipt("two.pdf", digest="abc", total="1.00")
    second = _receipt("two.pdf", digest="abc", total="2.00", pages=(2, 2))
    checker = DuplicateChecker()
    assert checker.check(first) is None and checker.check(second) is None


def test_rescan_with_misread_vendor_name_is_a_duplicate() -> None:
    scan = _receipt("scan.jpg", digest="111")
    rescan = _receipt("rescan.jpg", vendor="KEDAI RUNC1T MAJU", digest="222")  # OCR misread one letter
    assert find_duplicate(rescan, [facts_of(scan)]) == {"source": "scan.jpg", "pages": [1, 1], "reason": SAME_DATE_TOTAL,
                                                        "reason_code": "duplicate_same_date_total"}


def test_same_vendor_same_day_other_total_is_not_a_duplicate() -> None:
    morning = _receipt("morning.jpg", total="12.50", digest="1")
    evening = _receipt("evening.jpg", total="21.20", digest="2")
    assert find_duplicate(evening, [facts_of(morning)]) is None


def test_other_vendor_same_day_same_total_is_not_a_duplicate() -> None:
    a = _receipt("a.jpg", vendor="KEDAI RUNCIT MAJU")
    b = _receipt("b.jpg", vendor="SANYU STATIONERY SHOP")
    assert find_duplicate(b, [facts_of(a)]) is None


def _with_figures(doc: Document, numbers: list[str]) -> Document:
    from desktop.core.model import Line, PageResult

    doc.page_results = [PageResult(1, 600, 900, [Line(f"ITEM {n}", (10, 20 + 30 * i, 300, 40 + 30 * i))
                                                 for i, n in enumerate(numbers)])]
    return doc


FIGURES = ["40170", "603-3362", "001531760640", "2.9000", "8.70", "10.00", "1.30", "0118810", "20/10/2017"]


def test_rescan_that_lost_its_date_is_a_duplicate_by_its_figures() -> None:
    scan = _with_figures(_receipt("scan.jpg"), FIGURES)
    rescan = _with_figures(_receipt("rescan.jpg", date=None), FIGURES[:-1] + ["20/1O/2017"])  # date misread
    assert find_duplicate(rescan, [facts_of(scan)])["reason"] == SAME_FIGURES


def test_same_items_other_receipt_number_is_not_a_duplicate() -> None:
    """Two receipts of one shop, same items and total, another receipt number (and the date not read)."""
    monday = _with_figures(_receipt("monday.jpg"), FIGURES)
    other = FIGURES[:7] + ["0120436", "27/10/2017"]
    assert find_duplicate(_with_figures(_receipt("other.jpg", date=None), other), [facts_of(monday)]) is None
    # the same figures but a date that disagrees: not a duplicate either
    assert find_duplicate(_with_figures(_receipt("x.jpg", date="2017-10-27"), FIGURES), [facts_of(monday)]) is None


def test_same_vendor_and_invoice_number() -> None:
    a = _receipt("a.pdf", number="INV-0042", date="2019-01-11")
    b = _receipt("b.pdf", number="inv 0042", date="2019-02-01", total="99.00")
    assert find_duplicate(b, [facts_of(a)])["reason"] == SAME_NUMBER
    c = _receipt("c.pdf", number="INV-0043", date="2019-02-01", total="99.00")
    assert find_duplicate(c, [facts_of(a)]) is None


def test_same_vendor_by_tax_id_or_memory_profile() -> None:
    a, b = _receipt("a.jpg", vendor="ACME"), _receipt("b.jpg", vendor="TOTALLY OTHER NAME")
    a.fields["vendor_tax_id"] = Field("vendor_tax_id", value="000381399040")
    b.fields["vendor_tax_id"] = Field("vendor_tax_id", value="0003 8139 9040")
    assert find_duplicate(b, [facts_of(a)])["reason"] == SAME_DATE_TOTAL
    c, d = _receipt("c.jpg", vendor="X"), _receipt("d.jpg", vendor="Y")
    c.extras["memory"] = {"profile_id": 7}
    d.extras["memory"] = {"profile_id": 7}
    assert find_duplicate(d, [facts_of(c)]) is not None


def test_without_a_vendor_name_the_number_date_and_total_decide() -> None:
    """The extraction missed the vendor (on one or both): the same document number, date and total are
    a duplicate; another number, date or total, or another time of day, is not; a tax ID or IBAN both
    carry still names the vendor."""
    scan = _receipt("scan.pdf", vendor=None, number="VF1005193039", date="2022-09-08", total="49.99")
    rescan = _receipt("rescan.pdf", vendor=None, number="VF1005193039", date="2022-09-08", total="49.99")
    mark = find_duplicate(rescan, [facts_of(scan)])
    assert mark is not None and mark["reason"] == SAME_NUMBER_DATE_TOTAL
    assert mark["reason_code"] == "duplicate_same_number_date_total"
    named = _receipt("named.pdf", vendor="SAECO", number="VF1005193039", date="2022-09-08", total="49.99")
    assert find_duplicate(rescan, [facts_of(named)])["reason"] == SAME_NUMBER_DATE_TOTAL  # one side unnamed
    for other in (_receipt("o1.pdf", vendor=None, number="VF1005193040", date="2022-09-08", total="49.99"),
                  _receipt("o2.pdf", vendor=None, number="VF1005193039", date="2022-09-09", total="49.99"),
                  _receipt("o3.pdf", vendor=None, number="VF1005193039", date="2022-09-08", total="59.99"),
                  _receipt("o4.pdf", vendor=None, number=None, date="2022-09-08", total="49.99")):
        assert find_duplicate(other, [facts_of(scan)]) is None, other.source
    late = _receipt("late.pdf", vendor=None, number="VF1005193039", date="2022-09-08", total="49.99")
    late.fields["time"], scan.fields["time"] = Field("time", value="14:05"), Field("time", value="09:30")
    assert find_duplicate(late, [facts_of(scan)]) is None
    # an IBAN on both names the vendor: the usual rules apply, and another IBAN is another vendor
    a, b = _receipt("a.pdf", vendor=None), _receipt("b.pdf", vendor=None)
    a.fields["iban"] = Field("iban", value="NL50INGB0683251309")
    b.fields["iban"] = Field("iban", value="NL50 INGB 0683 2513 09")
    assert find_duplicate(b, [facts_of(a)])["reason"] == SAME_DATE_TOTAL
    b.fields["iban"] = Field("iban", value="NL91ABNA0417164300")
    b.fields["invoice_number"] = a.fields["invoice_number"] = Field("invoice_number", value="993548900")
    assert find_duplicate(b, [facts_of(a)]) is None


def test_an_invoice_whose_vendor_was_not_read_is_caught_when_scanned_again(samples: Path, tmp_path: Path) -> None:
    """saeco.pdf (invoice2data): the extraction reads no vendor name, tax ID or IBAN on it; the same
    invoice saved again (other bytes) is still marked by its number, date and total."""
    import pymupdf

    src = samples / "invoice2data" / "saeco.pdf"
    again = tmp_path / "saeco_again.pdf"
    with pymupdf.open(src) as pdf:
        pdf.set_metadata({"title": "scanned again"})
        pdf.save(again, garbage=4, deflate=True)
    assert content_hash(again) != content_hash(src)
    checker = DuplicateChecker()
    (first,) = scan_file(src, FakeEngine())
    (second,) = scan_file(again, FakeEngine())
    assert first.fields["vendor_name"].value is None  # what this test is about
    assert checker.check(first) is None
    mark = checker.check(second)
    assert mark is not None and mark["reason"] == SAME_NUMBER_DATE_TOTAL and mark["source"] == str(src)


def test_kept_and_failed_documents_are_not_marked() -> None:
    a = _receipt("a.jpg", digest="abc")
    kept = _receipt("b.jpg", digest="abc")
    kept.extras["duplicate_kept"] = {"source": "a.jpg"}
    assert find_duplicate(kept, [facts_of(a)]) is None
    assert find_duplicate(Document(source="c.jpg", error="c.jpg: damaged"), [facts_of(a)]) is None


def test_duplicate_of_in_json_and_xlsx(tmp_path: Path) -> None:
    a, b = _receipt("a.jpg", digest="x"), _receipt("b.jpg", digest="x")
    DuplicateChecker().check(a)
    checker = DuplicateChecker([facts_of(a)])
    checker.check(b)
    back = ScanResult.from_json(ScanResult([a, b]).to_json()).documents
    assert back[0].duplicate_of is None and back[1].duplicate_of == {"source": "a.jpg", "pages": [1, 1], "reason": SAME_FILE,
                                                              "reason_code": "duplicate_same_file"}
    out = tmp_path / "out.xlsx"
    export([a, b], out)
    ws = openpyxl.load_workbook(out)["Documents"]
    col = [c.value for c in ws[1]].index("Duplicate of") + 1
    assert ws.cell(row=2, column=col).value is None
    assert ws.cell(row=3, column=col).value == "a.jpg p. 1 (same file)"
    problems = [[c.value for c in r] for r in openpyxl.load_workbook(out)["Problems"].iter_rows(min_row=2)]
    assert any("possible duplicate of a.jpg" in str(r) for r in problems)


def test_content_hash(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"same")
    (tmp_path / "b").write_bytes(b"same")
    (tmp_path / "c").write_bytes(b"other")
    assert content_hash(tmp_path / "a") == content_hash(tmp_path / "b") != content_hash(tmp_path / "c")
    assert content_hash(tmp_path / "missing") is None


LINES = [
    {"text": "KEDAI RUNCIT MAJU SDN BHD", "box": [40, 40, 560, 80]},
    {"text": "NO 8, JALAN KENANGA 3, 68000 AMPANG", "box": [40, 90, 560, 120]},
    {"text": "DATE: 11/01/2019", "box": [40, 200, 400, 230]},
    {"text": "TOTAL", "box": [40, 400, 200, 430]},
    {"text": "RM 12.50", "box": [420, 400, 560, 430]},
]


@pytest.mark.parametrize("kind", ["copy", "rescan"])
def test_pipeline_marks_a_file_added_again_and_a_rescan(tmp_path: Path, kind: str) -> None:
    """Through the real pipeline: the content hash is recorded, the checker marks the second read."""
    first = tmp_path / "scan.png"
    Image.new("RGB", (600, 800), "white").save(first)
    second = tmp_path / ("copy.png" if kind == "copy" else "rescan.jpg")
    if kind == "copy":
        second.write_bytes(first.read_bytes())
    else:
        Image.new("RGB", (600, 800), "white").resize((420, 560)).save(second, quality=80)
    engine = FakeEngine([RecordedPage(600, 800, LINES)])
    options = ScanOptions(document_type="receipt", auto_rotate=False, decode_qr=False)
    docs = [*scan_file(first, engine, options), *scan_file(second, engine, options)]
    assert all(d.extras.get("content_hash") for d in docs)
    checker = DuplicateChecker()
    marks = [checker.check(d) for d in docs]
    assert marks[0] is None
    reason = SAME_FILE if kind == "copy" else SAME_DATE_TOTAL
    assert marks[1] == {"source": str(first), "pages": [1, 1], "reason": reason, "reason_code": REASON_CODES[reason].value}
    assert json.loads(ScanResult(docs).to_json())["documents"][1]["duplicate_of"]["source"] == str(first)


def test_a_reason_is_worded_from_its_code_in_either_language() -> None:
    """The interfaces word a duplicate's reason from its code (no matching of English text); a mark
    saved before codes were stored is read by its rule key; an unknown reason stays as written."""
    from desktop.core.diagnostics import Code
    from desktop.core.duplicates import reason_of

    mark = {"source": "a.jpg", "pages": [1, 1], "reason": SAME_NUMBER, "reason_code": "duplicate_same_number"}
    assert reason_of(mark).code is Code.DUPLICATE_SAME_NUMBER
    assert reason_of(mark).message("zh_CN") == "同一商家、同一发票号码"
    assert reason_of({"reason": SAME_FILE}).code is Code.DUPLICATE_SAME_FILE  # an older session's mark
    assert reason_of({"reason": "something else"}).message() == "something else"


def _with_lines(doc: Document, *texts: str) -> Document:
    from desktop.core.model import Line, PageResult

    doc.page_results = [PageResult(1, 600, 900, [Line(t, (10, 20 + 30 * i, 500, 40 + 30 * i))
                                                 for i, t in enumerate(texts)])]
    return doc


def _timed(doc: Document, time: str | None) -> Document:
    if time is not None:
        doc.fields["time"] = Field("time", value=time)
    return doc


@pytest.mark.parametrize(("label", "first", "second"), [
    ("Receipt No: {}", "BH-20931", "BH-20958"),
    ("BILL NO : {}", "0118810", "0118811"),
    ("Trans # {}", "40170", "40175"),
    ("Beleg-Nr. {}", "4711", "4712"),
    ("单号：{}", "SH20240520001", "SH20240520002"),
])
def test_same_vendor_day_and_total_but_another_number_is_not_a_duplicate(label: str, first: str,
                                                                          second: str) -> None:
    """The same coffee bought twice in one day: one shop, one date, one total, two receipt numbers."""
    a = _with_lines(_receipt("a.jpg", digest="1"), "KEDAI RUNCIT MAJU", label.format(first), "TOTAL 12.50")
    b = _with_lines(_receipt("b.jpg", digest="2"), "KEDAI RUNCIT MAJU", label.format(second), "TOTAL 12.50")
    assert find_duplicate(b, [facts_of(a)]) is None
    # the same receipt read again (another resolution): the same number, a duplicate
    again = _with_lines(_receipt("again.jpg", digest="3"), "KEDAI RUNCIT MAJU", label.format(first), "TOTAL 12.50")
    assert find_duplicate(again, [facts_of(a)])["reason"] == SAME_DATE_TOTAL


def test_same_vendor_day_and_total_at_another_time_is_not_a_duplicate() -> None:
    noon = _timed(_receipt("noon.jpg", digest="1"), "12:41")
    afternoon = _timed(_receipt("afternoon.jpg", digest="2"), "16:05")
    assert find_duplicate(afternoon, [facts_of(noon)]) is None
    # read again: the same time (seconds printed on one of them only), a duplicate
    assert find_duplicate(_timed(_receipt("rescan.jpg", digest="3"), "12:41:00"), [facts_of(noon)])["reason"] \
        == SAME_DATE_TOTAL
    # a time read on one of them only is no evidence either way
    assert find_duplicate(_receipt("untimed.jpg", digest="4"), [facts_of(noon)])["reason"] == SAME_DATE_TOTAL


def test_the_same_figures_at_another_time_are_not_a_duplicate() -> None:
    monday = _timed(_with_figures(_receipt("monday.jpg"), FIGURES), "09:12")
    assert find_duplicate(_timed(_with_figures(_receipt("x.jpg", date=None), FIGURES), "18:40"),
                          [facts_of(monday)]) is None
    assert find_duplicate(_timed(_with_figures(_receipt("y.jpg", date=None), FIGURES), "09:12"),
                          [facts_of(monday)])["reason"] == SAME_FIGURES


def test_a_rescan_misreading_its_number_is_still_a_duplicate() -> None:
    """OCR's letter/digit confusions and a number cut short at the edge are no conflict; a page with no
    number read is no evidence."""
    scan = _with_lines(_receipt("scan.jpg", digest="1"), "Receipt No: BH-20931")
    for text in ("Receipt No: 8H-2O93l", "Receipt No: BH-2093", "Thank you"):
        rescan = _with_lines(_receipt("rescan.jpg", digest="2"), text)
        assert find_duplicate(rescan, [facts_of(scan)])["reason"] == SAME_DATE_TOTAL, text


def test_document_numbers_are_the_labelled_ones() -> None:
    """Till, table, cashier, member and tax numbers repeat on every receipt of a shop: not document numbers."""
    from desktop.core.duplicates import document_numbers

    doc = _with_lines(_receipt("a.jpg", number="INV-7"), "GST ID: 001234567890", "Table No: 12", "Cashier: 03",
                      "Receipt No: BH-20931", "Date: 14/03/2024", "Invoice No. 2024/0815", "Order #: A-1002")
    assert document_numbers(doc) == ["INV-7", "BH-20931", "2024/0815", "A-1002"]


# -- a file read before is not read again ---------------------------------------------------------------


def _copies(tmp_path: Path, n: int) -> list[Path]:
    first = tmp_path / "scan.png"
    Image.new("RGB", (600, 800), "white").save(first)
    out = [first]
    for i in range(1, n):
        out.append(tmp_path / f"copy {i}.png")
        out[-1].write_bytes(first.read_bytes())
    return out


def test_copies_of_one_file_are_read_once_and_each_stays_a_document(tmp_path: Path) -> None:
    """The second and later copies reuse the first one's reading: the engine reads one page, each copy
    is its own document (its own source, marked a duplicate of the first), with the same fields."""
    from desktop.core.duplicates import ReadingCache

    files = _copies(tmp_path, 4)
    engine = FakeEngine([RecordedPage(600, 800, LINES)])
    options = ScanOptions(document_type="receipt", auto_rotate=False, decode_qr=False, readings=ReadingCache())
    docs = [d for f in files for d in scan_file(f, engine, options)]
    assert engine.calls == 1 and options.readings.hits == 3
    assert [d.source for d in docs] == [str(f) for f in files]
    assert [d.extras.get("reading_reused_from") for d in docs] == [None] + [str(files[0])] * 3
    first = docs[0].to_dict()
    for d in docs[1:]:
        again = d.to_dict()
        assert again["fields"] == first["fields"] and again["page_results"] == first["page_results"]
    checker = DuplicateChecker()
    marks = [checker.check(d) for d in docs]
    assert marks[0] is None and all(m and m["reason"] == SAME_FILE and m["source"] == str(files[0]) for m in marks[1:])
    docs[1].fields["total"].value = "99.00"  # each copy is a document of its own
    assert docs[2].fields["total"].value == "12.50"


def test_a_reading_is_reused_only_for_the_same_bytes_and_options(tmp_path: Path) -> None:
    from desktop.core.duplicates import ReadingCache

    first, other = tmp_path / "a.png", tmp_path / "b.png"
    Image.new("RGB", (600, 800), "white").save(first)
    Image.new("RGB", (600, 800), "white").resize((300, 400)).save(other)
    engine = FakeEngine([RecordedPage(600, 800, LINES)])
    cache = ReadingCache()
    options = ScanOptions(document_type="receipt", auto_rotate=False, decode_qr=False, readings=cache)
    scan_file(first, engine, options)
    scan_file(other, engine, options)  # other bytes: read
    assert engine.calls == 2
    scan_file(first, engine, ScanOptions(document_type="invoice", auto_rotate=False, decode_qr=False, readings=cache))
    assert engine.calls == 3  # read as another type: read again
    scan_file(first, engine, ScanOptions(document_type="receipt", auto_rotate=False, decode_qr=False))
    assert engine.calls == 4  # no cache: every file is read


def test_a_reading_with_a_lost_page_is_not_reused(tmp_path: Path) -> None:
    """A page the engine failed on may read the next time: the next copy is read again, and its good
    reading is then the one reused."""
    from desktop.core.duplicates import ReadingCache
    from desktop.core.engines.base import EngineError

    class FailsOnce(FakeEngine):
        def read_page(self, image):  # type: ignore[no-untyped-def]
            if self.calls == 0:
                self.calls += 1
                raise EngineError("the engine stumbled")
            return super().read_page(image)

    files = _copies(tmp_path, 3)
    engine = FailsOnce([RecordedPage(600, 800, LINES)])
    options = ScanOptions(document_type="receipt", auto_rotate=False, decode_qr=False, readings=ReadingCache())
    docs = [d for f in files for d in scan_file(f, engine, options)]
    assert docs[0].error is not None and docs[1].error is None and docs[2].error is None
    assert engine.calls == 2 and docs[2].extras["reading_reused_from"] == str(files[1])


def test_a_reused_reading_gets_the_vendor_memory_as_it_is_now(tmp_path: Path) -> None:
    """The memory is applied to a reused reading afresh: what the clerk taught after the first copy was
    read counts on the second."""
    from desktop.core.duplicates import ReadingCache
    from desktop.core.memory import VendorMemory

    files = _copies(tmp_path, 2)
    engine = FakeEngine([RecordedPage(600, 800, LINES)])
    with VendorMemory(tmp_path / "session.db") as memory:
        options = ScanOptions(document_type="receipt", auto_rotate=False, decode_qr=False, readings=ReadingCache(),
                              memory=memory)
        first = scan_file(files[0], engine, options)[0]
        assert "memory" not in first.extras
        first.fields["vendor_name"].value, first.fields["vendor_name"].edited = "KEDAI RUNCIT MAJU SDN BHD", True
        first.reviewed = True
        memory.learn(first)
        second = scan_file(files[1], engine, options)[0]
    assert engine.calls == 1 and second.extras["memory"]["vendor"] == "KEDAI RUNCIT MAJU SDN BHD"


def test_shoebox_scan_reads_copies_once_and_reads_none_of_them_ahead(tmp_path: Path) -> None:
    """``shoebox scan``'s batch (desktop.cli._scan_files over the real pipeline): one reading for every
    copy, and a copy of a file already read or being read is not read ahead in the worker either."""
    from desktop import cli
    from desktop.core import pipeline
    from desktop.core.duplicates import ReadingCache

    class ReadsAhead(FakeEngine):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            self.ahead: list[str] = []

        def read_ahead(self, path: Path) -> bool:
            self.ahead.append(Path(path).name)
            return False

    files = _copies(tmp_path, 5)
    other = tmp_path / "other.png"
    Image.new("RGB", (600, 800), "white").resize((300, 400)).save(other)
    files.insert(2, other)
    engine = ReadsAhead([RecordedPage(600, 800, LINES)])
    options = ScanOptions(document_type="receipt", auto_rotate=False, decode_qr=False, readings=ReadingCache())
    docs = cli._scan_files(pipeline, files, engine, options, cli._Console(True), Document, [])
    assert [d.source for d in docs] == [str(f) for f in files] and not any(d.error for d in docs)
    assert engine.calls == 2  # scan.png and other.png
    assert engine.ahead == ["scan.png", "other.png"]
