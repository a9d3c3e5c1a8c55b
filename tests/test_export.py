"""Exporters: JSON round trip, typed and injection-safe Excel, CSV with BOM, atomic writes."""
from __future__ import annotations

import csv
import datetime as dt
import errno
import io
import os
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from desktop.core import export as export_mod
from desktop.core.diagnostics import Code
from desktop.core.doctypes import canonical_fields
from desktop.core.export import (
    EXCEL_CELL_LIMIT,
    LEADING_COLUMNS,
    ExportError,
    export,
    export_csv,
    export_json,
    export_xlsx,
    parse_html_tables,
)
from desktop.core.model import Document, Field, Line, PageResult, ScanResult


def _field(name: str, value: str | None, raw: str | None = None, **kw) -> Field:
    return Field(name=name, value=value, raw=raw if raw is not None else value, confidence=0.9, page=1,
                 box=(10.0, 20.0, 110.0, 40.0), **kw)


def _vat_invoice() -> Document:
    fields = {
        "invoice_code": _field("invoice_code", "012001800311"),
        "invoice_number": _field("invoice_number", "00123456"),
        "check_code": _field("check_code", "12345678901234567890"),
        "date": _field("date", "2024-03-05", "2024年03月05日"),
        "buyer_name": _field("buyer_name", "天津某某科技有限公司"),
        "buyer_tax_id": _field("buyer_tax_id", "91120116MA05XXXX0X"),
        "vendor_name": _field("vendor_name", "=HYPERLINK(\"http://evil\",\"x\")"),
        "vendor_tax_id": _field("vendor_tax_id", "0912000071"),
        "vendor_address": _field("vendor_address", "+86 22 1234\x07 5678\x00"),
        "subtotal": _field("subtotal", "1000.00"),
        "tax": _field("tax", "130.00"),
        "total": _field("total", "1130.00", "¥1130.00", problems=["total is not subtotal + tax"]),
        "currency": _field("currency", "CNY"),
    }
    return Document(
        source="/scans/vat_einvoice.png",
        pages=(1, 1),
        document_type="cn_vat_invoice",
        engine="ppocr",
        fields=fields,
        page_results=[PageResult(number=1, width=1400, height=900,
                                 lines=[Line(text="发票代码 012001800311", box=(1.0, 2.0, 300.0, 30.0),
                                             confidence=0.99)])],
        line_items=[
            {"description": "办公用品", "quantity": "2", "unit_price": "500.00", "amount": "1000.00"},
            {"description": "-rebate", "quantity": "1", "amount": "-0.50", "note": "@note"},
        ],
        tables=[{"page": 1, "html": "<table><tr><th colspan='2'>货物</th><th>金额</th></tr>"
                                    "<tr><td rowspan=2>A</td><td>x &amp; y</td><td>1.00</td></tr>"
                                    "<tr><td>z</td><td>=2+2</td></tr></table>"}],
    )


def _receipt() -> Document:
    return Document(
        source="/scans/receipt.jpg",
        document_type="receipt",
        reviewed=True,
        fields={
            "vendor_name": _field("vendor_name", "SOON HUAT MACHINERY"),
            "date": _field("date", "2019-01-11", "11/01/2019"),
            "time": _field("time", "14:05:09"),
            "total": _field("total", "327.5"),
            "tax": _field("tax", "-3"),
            "subtotal": _field("subtotal", None, "3O0.OO", problems=["not an amount"]),
            "currency": _field("currency", "MYR"),
        },
    )


def _broken() -> Document:
    return Document(source="/scans/bad.jpg", error="the file is damaged (truncated JPEG)")


DOCS = [_vat_invoice(), _receipt(), _broken()]


def _rows(ws) -> list[list[object]]:
    return [[c.value for c in row] for row in ws.iter_rows()]


def _header(ws) -> list[str]:
    return [c.value for c in ws[1]]


@pytest.fixture
def workbook(tmp_path: Path):
    path = tmp_path / "out.xlsx"
    export_xlsx(DOCS, path)
    return path, openpyxl.load_workbook(path)


# ----------------------------------------------------------------------------------------------- xlsx


def test_xlsx_sheets_and_columns(workbook) -> None:
    _, wb = workbook
    assert wb.sheetnames == ["Documents", "Line items", "Tables", "Problems"]
    ws = wb["Documents"]
    labels = [spec.label_for("en") for spec in canonical_fields().values()]
    assert _header(ws) == [*LEADING_COLUMNS, *labels]
    assert ws.max_row == 1 + len(DOCS)
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == f"A1:{openpyxl.utils.get_column_letter(ws.max_column)}{ws.max_row}"
    assert all(c.font.bold for c in ws[1])
    assert ws.column_dimensions["A"].width > 8


def _cell(wb, row: int, label: str):
    ws = wb["Documents"]
    return ws.cell(row=row, column=_header(ws).index(label) + 1)


def test_xlsx_leading_columns(workbook) -> None:
    _, wb = workbook
    assert _cell(wb, 2, "Source file").value == "/scans/vat_einvoice.png"
    assert _cell(wb, 2, "Pages").value == 1  # a number (a range stays text: "2-3")
    assert _cell(wb, 2, "Document type").value == "Chinese VAT invoice"
    assert _cell(wb, 2, "Status").value == "Not reviewed"
    assert _cell(wb, 2, "Fields to check").value == 1
    assert _cell(wb, 3, "Status").value == "Reviewed"
    assert _cell(wb, 4, "Status").value == "Error: the file is damaged (truncated JPEG)"
    assert _cell(wb, 4, "Total").value is None


def test_xlsx_dates_times_amounts_are_typed(workbook) -> None:
    _, wb = workbook
    date = _cell(wb, 2, "Date")
    assert date.value == dt.datetime(2024, 3, 5) and date.is_date and date.number_format == "yyyy-mm-dd"
    time = _cell(wb, 3, "Time")
    assert time.value == dt.time(14, 5, 9) and time.number_format == "hh:mm:ss"
    total = _cell(wb, 2, "Total")
    # a number cell (openpyxl writes 1130.0 as "1130" and reads it back as an int)
    assert isinstance(total.value, (int, float)) and total.value == 1130.0 and total.number_format == "0.00"
    assert _cell(wb, 3, "Total").value == 327.5
    assert _cell(wb, 3, "Tax").value == -3.0 and _cell(wb, 3, "Tax").number_format == "0.00"


def test_xlsx_codes_stay_text_with_leading_zeros(workbook) -> None:
    _, wb = workbook
    for label, expected in [("Invoice code", "012001800311"), ("Invoice number", "00123456"),
                            ("Check code", "12345678901234567890"), ("Vendor tax ID", "0912000071"),
                            ("Buyer tax ID", "91120116MA05XXXX0X")]:
        cell = _cell(wb, 2, label)
        assert cell.value == expected and isinstance(cell.value, str), label
        assert cell.data_type == "s" and cell.number_format == "@", label


def test_xlsx_unparsed_value_shows_raw_text(workbook) -> None:
    _, wb = workbook
    assert _cell(wb, 3, "Subtotal").value == "3O0.OO"


def test_xlsx_formula_looking_text_is_text(workbook) -> None:
    path, wb = workbook
    vendor = _cell(wb, 2, "Vendor")
    assert vendor.value == '=HYPERLINK("http://evil","x")'
    assert vendor.data_type == "s" and vendor.quotePrefix
    assert _cell(wb, 2, "Vendor address").quotePrefix
    with zipfile.ZipFile(path) as zf:
        sheets = [n for n in zf.namelist() if n.startswith("xl/worksheets/sheet")]
        assert len(sheets) == 4
        for name in sheets:
            xml = zf.read(name).decode("utf-8")
            assert "<f>" not in xml and "<f " not in xml, name
    # "=2+2" inside an HTML table and "@note" in a line item are text too
    tables = wb["Tables"]
    assert "=2+2" in [c for row in _rows(tables) for c in row]


def test_xlsx_illegal_characters_removed(workbook) -> None:
    _, wb = workbook
    assert _cell(wb, 2, "Vendor address").value == "+86 22 1234 5678"


def test_xlsx_error_literal_is_text(tmp_path: Path) -> None:
    doc = Document(source="/a.jpg", fields={"vendor_name": _field("vendor_name", "#N/A")})
    export_xlsx([doc], tmp_path / "e.xlsx")
    cell = _cell(openpyxl.load_workbook(tmp_path / "e.xlsx"), 2, "Vendor")
    assert cell.value == "#N/A" and cell.data_type == "s"


@pytest.mark.parametrize(
    ("field", "value", "expected", "fmt"),
    [
        ("total", "0.125", 0.125, "0.000"),
        ("total", "-12.50", -12.5, "0.00"),
        ("total", "7", 7.0, "0.00"),
        ("total", "12345678901234567.89", "12345678901234567.89", None),  # > 15 digits: kept as text
        ("total", "NaN", "NaN", None),
        ("total", "1,234.50", "1,234.50", None),
        ("date", "1899-12-31", "1899-12-31", None),  # outside Excel's date system
        ("date", "2024-02-30", "2024-02-30", None),
        ("time", "25:00", "25:00", None),
        ("time", "07:45", dt.time(7, 45), "hh:mm"),
    ],
)
def test_xlsx_value_conversion(tmp_path: Path, field: str, value: str, expected: object, fmt: str | None) -> None:
    doc = Document(source="/a.jpg", fields={field: _field(field, value)})
    export_xlsx([doc], tmp_path / "v.xlsx")
    label = canonical_fields()[field].label_for("en")
    cell = _cell(openpyxl.load_workbook(tmp_path / "v.xlsx"), 2, label)
    assert cell.value == expected
    if isinstance(expected, float):
        assert isinstance(cell.value, (int, float)) and cell.data_type == "n"
    else:
        assert type(cell.value) is type(expected)
    if fmt:
        assert cell.number_format == fmt


def test_xlsx_long_text_cut_with_note(tmp_path: Path) -> None:
    long = "长" * 10 + "x" * 39_990
    doc = Document(source="/long.pdf", fields={"vendor_address": _field("vendor_address", long)})
    export_xlsx([doc], tmp_path / "l.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "l.xlsx")
    cell = _cell(wb, 2, "Vendor address")
    assert len(cell.value) == EXCEL_CELL_LIMIT and long.startswith(cell.value)
    assert cell.comment is not None and "40,000" in cell.comment.text
    problems = _rows(wb["Problems"])
    assert ["/long.pdf", 1, "Vendor address"] == problems[1][:3]
    assert "cut from 40,000 to 32,767" in problems[1][3]


def test_xlsx_cut_never_splits_surrogate_pair() -> None:
    text = "a" + "😀" * 20_000  # 40,001 UTF-16 code units
    cut = export_mod._cut_to_limit(text)
    assert export_mod._utf16_len(cut) <= EXCEL_CELL_LIMIT
    assert cut.encode("utf-16-le").decode("utf-16-le") == cut
    assert cut == "a" + "😀" * 16_383


def test_xlsx_line_items(workbook) -> None:
    _, wb = workbook
    rows = _rows(wb["Line items"])
    assert rows[0] == ["Source file", "Pages", "Invoice number", "Description", "Quantity", "Unit price",
                       "Amount", "Note"]
    assert rows[1] == ["/scans/vat_einvoice.png", 1, "00123456", "办公用品", 2, 500.0, 1000.0, None]
    assert rows[2] == ["/scans/vat_einvoice.png", 1, "00123456", "-rebate", 1, None, -0.5, "@note"]
    ws = wb["Line items"]
    assert ws["F2"].number_format == "0.00" and ws["G3"].number_format == "0.00"
    assert ws["D3"].quotePrefix and ws["H3"].quotePrefix


def test_xlsx_problems_sheet(workbook) -> None:
    _, wb = workbook
    rows = _rows(wb["Problems"])
    assert rows[0] == ["Source file", "Pages", "Field", "Message"]
    assert ["/scans/vat_einvoice.png", 1, "Total", "total is not subtotal + tax"] in rows
    # the receipt is marked reviewed: its failed check is listed as checked by the clerk
    assert ["/scans/receipt.jpg", 1, "Subtotal", "checked by the clerk (the document is marked reviewed); "
            "as read, it was flagged: not an amount"] in rows
    assert ["/scans/bad.jpg", 1, None, "could not be read: the file is damaged (truncated JPEG)"] in rows


def test_a_file_that_failed_on_its_only_page_is_one_problem(tmp_path: Path) -> None:
    """A truncated JPEG: the file's error and its page's "could not be read" say the same thing once;
    a multi-page file whose pages failed for different reasons keeps a row for each page."""
    from desktop.core.diagnostics import diag

    damaged = diag(Code.IMAGE_DAMAGED, detail="image file is truncated")
    single = Document(source="/t.jpg", error=damaged, page_results=[
        PageResult(1, 10, 10, warnings=[diag(Code.PAGE_NOT_READ, page=1, reason=damaged)])])
    other = diag(Code.OUT_OF_MEMORY)
    several = Document(source="/m.tif", pages=(1, 2), error=diag(Code.ALL_PAGES_FAILED, reason=damaged, more=1),
                       page_results=[PageResult(1, 10, 10, warnings=[diag(Code.PAGE_NOT_READ, page=1, reason=damaged)]),
                                     PageResult(2, 10, 10, warnings=[diag(Code.PAGE_NOT_READ, page=2, reason=other)])])
    export_xlsx([single, several], tmp_path / "p.xlsx")
    rows = _rows(openpyxl.load_workbook(tmp_path / "p.xlsx")["Problems"])[1:]
    assert [r[:3] for r in rows if r[0] == "/t.jpg"] == [["/t.jpg", 1, None]]
    assert [r[2] for r in rows if r[0] == "/m.tif"] == [None, "page 1", "page 2"]


def test_xlsx_tables_sheet(workbook) -> None:
    _, wb = workbook
    rows = [r[:3] for r in _rows(wb["Tables"])]
    assert rows == [
        ["/scans/vat_einvoice.png", "Page 1", "Table 1"],
        ["货物", None, "金额"],
        ["A", "x & y", "1.00"],
        [None, "z", "=2+2"],
    ]


def test_xlsx_without_tables_has_no_tables_sheet(tmp_path: Path) -> None:
    export_xlsx([_receipt()], tmp_path / "r.xlsx")
    assert "Tables" not in openpyxl.load_workbook(tmp_path / "r.xlsx").sheetnames


def test_xlsx_empty_batch(tmp_path: Path) -> None:
    export_xlsx([], tmp_path / "empty.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "empty.xlsx")
    assert wb["Documents"].max_row == 1


def test_xlsx_unknown_field_gets_its_own_column(tmp_path: Path) -> None:
    doc = Document(source="/a.jpg", fields={"order_ref": _field("order_ref", "0042")})
    export_xlsx([doc], tmp_path / "u.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "u.xlsx")["Documents"]
    assert _header(ws)[-1] == "order_ref" and ws.cell(row=2, column=ws.max_column).value == "0042"


# ------------------------------------------------------------------------------------------ HTML tables


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("no table here", []),
        ("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", [[["a", "b"], ["c", ""]]]),
        ("<table><tr><td rowspan='2'>a</td><td>b</td></tr><tr><td>c</td></tr></table>",
         [[["a", "b"], ["", "c"]]]),
        ("<table><tr><td colspan=3>t</td></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>",
         [[["t", "", ""], ["1", "2", "3"]]]),
        ("# md\n<table><tr><td>1</td></tr></table>\ntext\n<table><tr><th>h</th></tr></table>",
         [[["1"]], [["h"]]]),
        ("<table><tr><td>a<br>b &lt;c&gt;</td><td><table><tr><td>in</td><td>ner</td></tr></table></td></tr></table>",
         [[["a\nb <c>", "in ner"]]]),
        ("<table><tr><td colspan='x'>a</td><td colspan=99999>b</td></tr></table>",
         [[["a", "b"] + [""] * 999]]),
        ("<table><tr><td>unclosed", [[["unclosed"]]]),
    ],
)
def test_parse_html_tables(html: str, expected: list) -> None:
    assert parse_html_tables(html) == expected


# ------------------------------------------------------------------------------------------------ CSV


def test_csv_bom_columns_and_injection_guard(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    export_csv(DOCS, path)
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\r\n" in data
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    labels = [spec.label_for("en") for spec in canonical_fields().values()]
    assert rows[0] == [*LEADING_COLUMNS, *labels]
    assert len(rows) == 1 + len(DOCS)
    vat = dict(zip(rows[0], rows[1]))
    assert vat["Invoice code"] == "012001800311"
    assert vat["Check code"] == "12345678901234567890"
    assert vat["Buyer"] == "天津某某科技有限公司"
    assert vat["Date"] == "2024-03-05" and vat["Total"] == "1130.00"
    assert vat["Vendor"] == "'=HYPERLINK(\"http://evil\",\"x\")"
    assert vat["Vendor address"].startswith("'+86")
    assert vat["Fields to check"] == "1"
    receipt = dict(zip(rows[0], rows[2]))
    assert receipt["Tax"] == "-3"  # a plain number is no formula: left alone
    assert receipt["Time"] == "14:05:09"
    assert dict(zip(rows[0], rows[3]))["Status"] == "Error: the file is damaged (truncated JPEG)"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("=1+1", "'=1+1"), ("+1", "+1"), ("+1 555", "'+1 555"), ("-", "'-"), ("-2.5", "-2.5"),
     ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"), ("a=b", "a=b"), ("", ""), (None, ""),
     (3, "3")],
)
def test_csv_safe(value: object, expected: str) -> None:
    assert export_mod._csv_safe(value) == expected  # type: ignore[arg-type]


def test_csv_quotes_commas_quotes_and_newlines(tmp_path: Path) -> None:
    name = 'ACME, "Ltd"\nBranch 2'
    doc = Document(source="/a,b.jpg", fields={"vendor_name": _field("vendor_name", name)})
    export_csv([doc], tmp_path / "q.csv")
    rows = list(csv.reader(io.StringIO((tmp_path / "q.csv").read_text(encoding="utf-8-sig"), newline="")))
    assert rows[1][0] == "/a,b.jpg" and rows[1][rows[0].index("Vendor")] == name


# ----------------------------------------------------------------------------------------------- JSON


def test_json_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    export_json(DOCS, path)
    loaded = ScanResult.load(path)
    assert [d.to_dict() for d in loaded.documents] == [d.to_dict() for d in DOCS]
    assert loaded.documents[0].fields["invoice_code"].value == "012001800311"
    assert loaded.documents[0].fields["total"].raw == "¥1130.00"
    assert loaded.documents[0].fields["total"].box == (10.0, 20.0, 110.0, 40.0)
    assert loaded.documents[0].page_results[0].lines[0].text == "发票代码 012001800311"
    assert "天津某某科技有限公司" in path.read_text(encoding="utf-8")  # not \\u-escaped


def test_json_keeps_broken_text_valid(tmp_path: Path) -> None:
    doc = Document(source="/a.jpg", fields={"vendor_name": _field("vendor_name", "bad \udcff text")})
    export_json([doc], tmp_path / "s.json")
    assert ScanResult.load(tmp_path / "s.json").documents[0].fields["vendor_name"].value == "bad \udcff text"


def test_csv_removes_characters_a_sheet_cannot_hold(tmp_path: Path) -> None:
    doc = Document(source="/a.jpg", fields={"vendor_name": _field("vendor_name", "A\x00B\x1bC\udcffD\tE")})
    export_csv([doc], tmp_path / "c.csv")
    rows = list(csv.reader(io.StringIO((tmp_path / "c.csv").read_text(encoding="utf-8-sig"), newline="")))
    assert rows[1][rows[0].index("Vendor")] == "ABCD\tE"


def test_cleaning_covers_openpyxl_illegal_characters() -> None:
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    for code in range(0x10000):
        ch = chr(code)
        if ILLEGAL_CHARACTERS_RE.match(ch):
            assert export_mod._clean(ch) == "", hex(code)
    assert export_mod._clean("a\tb\nc\rd") == "a\tb\nc\rd"


@pytest.mark.parametrize("suffix", [".json", ".xlsx", ".csv", ".XLSX"])
def test_export_dispatches_by_suffix(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"out{suffix}"
    export(DOCS, path)
    data = path.read_bytes()
    expected = {".json": b"{", ".xlsx": b"PK\x03\x04", ".csv": b"\xef\xbb\xbfSource file"}[suffix.lower()]
    assert data.startswith(expected)


@pytest.mark.parametrize("name", ["out.txt", "out"])
def test_export_unknown_suffix(tmp_path: Path, name: str) -> None:
    with pytest.raises(ExportError, match="unknown file type"):
        export(DOCS, tmp_path / name)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------------------ atomicity


def test_failed_write_leaves_destination_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "report.xlsx"
    dest.write_bytes(b"OLD CONTENT")

    def failing_save(self, fh) -> None:
        fh.write(b"PK\x03\x04 half a workbook")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(openpyxl.Workbook, "save", failing_save)
    with pytest.raises(ExportError) as info:
        export(DOCS, dest)
    assert str(info.value) == f"Could not write {dest}: the disk is full"
    assert info.value.diagnostic.code is Code.EXPORT_DISK_FULL and info.value.diagnostic.message("zh") == "磁盘已满"
    assert dest.read_bytes() == b"OLD CONTENT"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xlsx"]


def test_writer_bug_is_reported_and_cleaned_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "out.xlsx"

    def broken(self, fh) -> None:
        fh.write(b"x")
        raise ValueError("boom")

    monkeypatch.setattr(openpyxl.Workbook, "save", broken)
    with pytest.raises(ExportError, match=re.escape(f"Could not write {dest}: ValueError: boom")):
        export_xlsx(DOCS, dest)
    assert list(tmp_path.iterdir()) == []


def test_file_open_in_another_program_on_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "out.json"
    dest.write_text("old", encoding="utf-8")

    def refuse(src, dst) -> None:
        raise PermissionError(errno.EACCES, "Access is denied")

    monkeypatch.setattr(export_mod, "_on_windows", lambda: True)
    monkeypatch.setattr(export_mod.os, "replace", refuse)
    with pytest.raises(ExportError, match="the file is open in another program"):
        export_json(DOCS, dest)
    assert dest.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_missing_folder(tmp_path: Path) -> None:
    dest = tmp_path / "nope" / "out.csv"
    with pytest.raises(ExportError) as info:
        export(DOCS, dest)
    assert str(dest) in str(info.value) and "does not exist" in str(info.value)


@pytest.mark.parametrize("below", ["out.xlsx", "sub/out.json"])
def test_a_file_where_the_folder_should_be(tmp_path: Path, below: str) -> None:
    """``…/receipt.jpg/out.xlsx``: the file is named, not a folder said missing that is there."""
    from desktop.core.diagnostics import Code
    from desktop.core.export import check_writable

    scan = tmp_path / "receipt.jpg"
    scan.write_bytes(b"x")
    dest = scan / below
    for attempt in (lambda: export(DOCS, dest), lambda: check_writable(dest)):
        with pytest.raises(ExportError) as info:
            attempt()
        assert info.value.diagnostic.code is Code.EXPORT_NOT_A_FOLDER
        assert f"{scan} is a file, not a folder" in str(info.value) and "does not exist" not in str(info.value)
        assert "是文件，不是文件夹" in info.value.diagnostic.message("zh_CN")


def test_destination_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "x.json").mkdir()
    with pytest.raises(ExportError, match="it is a folder"):
        export(DOCS, tmp_path / "x.json")


def test_permission_denied_when_temp_cannot_be_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def deny(**kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(export_mod.tempfile, "mkstemp", deny)
    dest = tmp_path / "out.xlsx"
    with pytest.raises(ExportError) as info:
        export(DOCS, dest)
    assert str(info.value) == f"Could not write {dest}: permission denied"


@pytest.mark.skipif(os.name == "nt" or (hasattr(os, "geteuid") and os.geteuid() == 0),
                    reason="needs POSIX permissions that apply to this user (root ignores them)")
def test_unwritable_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ExportError, match=re.escape(f"Could not write {folder / 'o.xlsx'}: permission denied")):
            export(DOCS, folder / "o.xlsx")
    finally:
        folder.chmod(0o700)


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_permissions_new_and_existing(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        export(DOCS, tmp_path / "new.json")
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
        existing = tmp_path / "old.json"
        existing.write_text("x", encoding="utf-8")
        existing.chmod(0o640)
        export(DOCS, existing)
        assert existing.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


def test_folder_that_refuses_new_files_is_not_called_missing() -> None:
    """/proc exists but no file can be created in it: the message must not claim the folder is missing."""
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("needs Linux /proc")
    from desktop.core.export import ExportError, export_json

    with pytest.raises(ExportError) as info:
        export_json([], "/proc/shoebox-test.json")
    assert "does not exist" not in str(info.value)
    assert "/proc" in str(info.value)


# ------------------------------------------------------------------------------------------ languages


def _zh_batch() -> list[Document]:
    """A VAT invoice whose sum fails, its duplicate, a reviewed receipt with a field it had flagged, a
    receipt with a low-confidence total, a damaged file and a PDF whose page 2 could not be read: what a
    clerk's batch carries, with the diagnostics the pipeline gives."""
    from desktop.core.diagnostics import diag

    vat = _vat_invoice()
    vat.fields["total"].problems = [diag(Code.SUM_MISMATCH, subtotal="1000.00", tax="130.00", sum="1130.00", total="1131.00")]
    vat.extras["tax_breakdown"] = [{"rate": "13", "tax": "130.00", "basis": "1000.00"}]
    copy = Document.from_dict({**vat.to_dict(), "source": "/scans/vat_copy.png"})
    copy.duplicate_of = {"source": "/scans/vat_einvoice.png", "pages": [1, 1], "reason": "same vendor and invoice number",
                         "reason_code": "duplicate_same_number"}
    reviewed = _receipt()
    reviewed.fields["subtotal"].problems = [diag(Code.NOT_AN_AMOUNT, name="subtotal", value="3O0.OO")]
    unsure = Document(source="/scans/unsure.jpg", document_type="receipt", fields={
        "vendor_name": _field("vendor_name", "KEDAI"), "date": _field("date", "2024-01-02"),
        "total": Field(name="total", value="8.80", raw="8.80", confidence=0.45, needs_review=True,
                       review_threshold=0.8887)})
    broken = Document(source="/scans/bad.jpg", error=diag(Code.PDF_ENCRYPTED))
    lost = Document(source="/scans/two.pdf", pages=(1, 2), document_type="invoice",
                    fields={"total": _field("total", "5.00")},
                    page_results=[PageResult(1, 10, 10), PageResult(2, 10, 10, warnings=[
                        diag(Code.PAGE_NOT_READ, page=2, reason=diag(Code.OUT_OF_MEMORY))])])
    return [vat, copy, reviewed, unsure, broken, lost]


@pytest.fixture
def both_languages(tmp_path: Path):
    docs = _zh_batch()
    export_xlsx(docs, tmp_path / "en.xlsx")
    export_xlsx(docs, tmp_path / "zh.xlsx", language="zh")
    return docs, openpyxl.load_workbook(tmp_path / "en.xlsx"), openpyxl.load_workbook(tmp_path / "zh.xlsx")


def test_xlsx_in_chinese_names_sheets_columns_types_and_status_in_chinese(both_languages) -> None:
    import json as json_mod

    from desktop.core.diagnostics import diag
    from desktop.resources import resources_dir

    _, en, zh = both_languages
    assert zh.sheetnames == ["单据", "明细", "分税率汇总", "表格", "问题"]
    assert en.sheetnames == ["Documents", "Line items", "Tax by rate", "Tables", "Problems"]
    ws = zh["单据"]
    header = _header(ws)
    # the field labels are fields.json's own Chinese labels (the ones the GUI shows), in the same order
    fields_json = json_mod.loads((resources_dir() / "doctypes" / "fields.json").read_text(encoding="utf-8"))
    assert header[:6] == ["源文件", "页码", "单据类型", "状态", "待核对字段数", "可能重复于"]
    assert header[6:-1] == [f["label"]["zh_CN"] for f in fields_json["fields"]]
    assert header[-1] == "分税率汇总"
    assert {"发票代码", "发票号码", "校验码", "开票日期", "价税合计"} <= set(header)
    col = {h: i + 1 for i, h in enumerate(header)}
    rows = {ws.cell(r, 1).value: r for r in range(2, ws.max_row + 1)}
    value = lambda source, h: ws.cell(rows[source], col[h]).value  # noqa: E731
    assert value("/scans/vat_einvoice.png", "单据类型") == "增值税发票"
    assert value("/scans/receipt.jpg", "单据类型") == "收据"
    assert value("/scans/vat_einvoice.png", "状态") == "未审核"
    assert value("/scans/receipt.jpg", "状态") == "已审核"
    assert value("/scans/bad.jpg", "状态") == "错误：PDF 受密码保护"
    lost = diag(Code.PAGE_NOT_READ, page=2, reason=diag(Code.OUT_OF_MEMORY)).message("zh")
    assert lost.startswith("第 2 页无法读取：内存不足") and value("/scans/two.pdf", "状态") == f"错误：{lost}"
    assert value("/scans/vat_copy.png", "可能重复于") == "/scans/vat_einvoice.png 第 1 页（同一商家、同一发票号码）"
    assert value("/scans/vat_einvoice.png", "分税率汇总") == "13%：税额 130.00，计税金额 1000.00"
    assert all(c.font.bold for c in ws[1]) and ws.freeze_panes == "A2"


def test_xlsx_in_chinese_keeps_every_value_and_its_format(both_languages) -> None:
    """Amounts stay numbers with their formats, dates real dates, codes text: cell for cell what the
    English workbook has, outside the worded columns."""
    _, en, zh = both_languages
    worded = {3, 4, 6}  # document type, status, duplicate of
    en_ws, zh_ws = en["Documents"], zh["单据"]
    assert (en_ws.max_row, en_ws.max_column) == (zh_ws.max_row, zh_ws.max_column)
    for r in range(2, en_ws.max_row + 1):
        for c in range(1, en_ws.max_column):  # the last column is Tax by rate, worded too
            if c in worded:
                continue
            a, b = en_ws.cell(r, c), zh_ws.cell(r, c)
            assert (a.value, a.number_format, a.data_type) == (b.value, b.number_format, b.data_type), (r, c)
    header = _header(zh_ws)
    total = zh_ws.cell(2, header.index("价税合计") + 1)
    assert isinstance(total.value, (int, float)) and total.value == 1130.0 and total.number_format == "0.00"
    date = zh_ws.cell(2, header.index("开票日期") + 1)
    assert date.is_date and date.number_format == "yyyy-mm-dd"
    code = zh_ws.cell(2, header.index("发票代码") + 1)
    assert code.value == "012001800311" and code.number_format == "@"
    assert zh_ws.cell(2, header.index("待核对字段数") + 1).value == 1
    for en_name, zh_name in (("Line items", "明细"), ("Tax by rate", "分税率汇总"), ("Tables", "表格")):
        en_rows, zh_rows = _rows(en[en_name]), _rows(zh[zh_name])
        first = 1 if en_name != "Tables" else 0
        assert len(en_rows) == len(zh_rows)
        for a, b in zip(en_rows[first:], zh_rows[first:], strict=True):
            if en_name == "Tables" and a and str(a[1] or "").startswith("Page "):
                continue  # a block's title row
            assert a == b
    items = zh["明细"]
    assert _header(items) == ["源文件", "页码", "发票号码", "项目名称", "数量", "单价", "金额", "备注"]
    assert items["F2"].value == 500.0 and items["F2"].number_format == "0.00"
    assert _header(zh["分税率汇总"]) == ["源文件", "页码", "发票号码", "税种类别", "税率", "计税金额", "税额", "免税原因"]
    assert _rows(zh["表格"])[0][:3] == ["/scans/vat_einvoice.png", "第 1 页", "表格 1"]


def test_xlsx_problems_in_chinese(both_languages) -> None:
    from desktop.core.diagnostics import diag
    from desktop.core.doctypes import get_document_type

    docs, en, zh = both_languages
    rows = _rows(zh["问题"])
    assert rows[0] == ["源文件", "页码", "字段", "说明"]
    sum_zh = docs[0].fields["total"].problems[0].message("zh")
    assert sum_zh.startswith("金额 + 税额 ≠ 合计")
    assert ["/scans/vat_einvoice.png", 1, "价税合计", sum_zh] in rows
    # a receipt's field is named as the receipt's form names it
    receipt_labels = {s.name: s.label_for("zh_CN") for s in get_document_type("receipt").field_specs()}
    flagged = diag(Code.NOT_AN_AMOUNT, name="subtotal", value="3O0.OO").message("zh")
    assert ["/scans/receipt.jpg", 1, receipt_labels["subtotal"],
            f"已由人工核对（单据已标记为已审核）；识别时的标记：{flagged}"] in rows
    assert ["/scans/unsure.jpg", 1, receipt_labels["total"], "置信度 45%，低于免核对所需的 89%"] in rows
    assert ["/scans/bad.jpg", 1, None, "无法读取：PDF 受密码保护"] in rows
    lost = diag(Code.PAGE_NOT_READ, page=2, reason=diag(Code.OUT_OF_MEMORY)).message("zh")
    assert ["/scans/two.pdf", "1-2", "第 2 页", lost] in rows
    # an invoice's empty key fields, named as the invoice's form names them
    invoice_labels = {s.name: s.label_for("zh_CN") for s in get_document_type("invoice").field_specs()}
    assert ["/scans/two.pdf", "1-2", invoice_labels["vendor_name"], "空：页面上没有找到"] in rows
    assert ["/scans/vat_copy.png", 1, None, "可能与 /scans/vat_einvoice.png 第 1 页 重复（同一商家、同一发票号码）"] in rows
    # the same rows as in English, in the same order, each worded in Chinese
    en_rows = _rows(en["Problems"])
    assert [r[:2] for r in en_rows[1:]] == [r[:2] for r in rows[1:]]
    for row in rows[1:]:
        assert re.search(r"[\u4e00-\u9fff]", row[3]), row
        assert not re.search(r"\b(page|could|flagged|duplicate|confidence|checked)\b", row[3]), row


def test_xlsx_long_text_cut_note_in_chinese(tmp_path: Path) -> None:
    doc = Document(source="/long.pdf", fields={"vendor_address": _field("vendor_address", "x" * 40_000)})
    export_xlsx([doc], tmp_path / "l.xlsx", language="zh")
    wb = openpyxl.load_workbook(tmp_path / "l.xlsx")
    cell = wb["单据"].cell(2, _header(wb["单据"]).index("销售方地址") + 1)
    assert len(cell.value) == EXCEL_CELL_LIMIT and "40,000" in cell.comment.text and "截断" in cell.comment.text
    assert _rows(wb["问题"])[1][:3] == ["/long.pdf", 1, "销售方地址"]


def test_csv_in_chinese_has_chinese_headers_bom_and_the_same_values(tmp_path: Path) -> None:
    docs = _zh_batch()
    export_csv(docs, tmp_path / "en.csv")
    export(docs, tmp_path / "zh.csv", language="zh_CN")  # the GUI's locale name works too
    raw = (tmp_path / "zh.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with a BOM: Excel opens the Chinese correctly
    zh_rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    en_rows = list(csv.reader(io.StringIO((tmp_path / "en.csv").read_text(encoding="utf-8-sig"), newline="")))
    assert zh_rows[0][:6] == ["源文件", "页码", "单据类型", "状态", "待核对字段数", "可能重复于"]
    assert zh_rows[0][6:-1] == [spec.label_for("zh_CN") for spec in canonical_fields().values()]
    vat = dict(zip(zh_rows[0], zh_rows[1], strict=True))
    assert (vat["单据类型"], vat["状态"], vat["开票日期"], vat["价税合计"], vat["发票代码"]) == \
        ("增值税发票", "未审核", "2024-03-05", "1130.00", "012001800311")
    for en_row, zh_row in zip(en_rows[1:], zh_rows[1:], strict=True):
        assert [v for i, v in enumerate(en_row) if i not in (2, 3, 5, len(en_row) - 1)] == \
               [v for i, v in enumerate(zh_row) if i not in (2, 3, 5, len(zh_row) - 1)]


def test_json_is_the_same_in_every_language(tmp_path: Path) -> None:
    docs = _zh_batch()
    export(docs, tmp_path / "en.json")
    export(docs, tmp_path / "zh.json", language="zh")
    assert (tmp_path / "en.json").read_bytes() == (tmp_path / "zh.json").read_bytes()


def test_an_unknown_export_language_is_refused_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown export language 'fr'"):
        export(DOCS, tmp_path / "x.xlsx", language="fr")
    assert not (tmp_path / "x.xlsx").exists()


def test_flag_reasons_in_both_languages() -> None:
    from desktop.core import flags

    low = Field(name="total", value="8.80", raw="8.80", confidence=0.45, needs_review=True, review_threshold=0.6)
    high = Field(name="total", value="8.80", raw="8.80", confidence=0.86, needs_review=True, review_threshold=0.9272)
    unsure = Field(name="total", value="8.80", raw="8.80", confidence=0.95, needs_review=True)
    empty = Field(name="date", value=None, raw="", confidence=0.0)
    # a 45 % value and an 86 % one flagged by their thresholds read alike: the confidence and the threshold
    assert flags.flag_reason(low) == "confidence 45%, below the 60% needed to pass unchecked"
    assert flags.flag_reason(low, language="zh") == "置信度 45%，低于免核对所需的 60%"
    assert flags.flag_reason(high) == "confidence 86%, below the 93% needed to pass unchecked"
    assert flags.flag_reason(high, language="zh") == "置信度 86%，低于免核对所需的 93%"
    # no threshold recorded (an older file): flagged as read, with its confidence
    assert flags.flag_reason(unsure) == "confidence 95%, but flagged when it was read: not sure enough to pass unchecked"
    assert flags.flag_reason(unsure, language="zh") == "置信度 95%，但读取时已被标记：不够确定，不能不经核对"
    assert flags.flag_reason(empty, key=True) == "empty: not found on the page"
    assert flags.flag_reason(empty, key=True, language="zh") == "空：页面上没有找到"
    assert flags.flag_reason(_field("total", "1.00")) is None


@pytest.mark.parametrize("language, fields_label", [("en", "Subtotal, Tax, Total"), ("zh", None)])
def test_a_problem_several_fields_share_is_one_problems_row(tmp_path: Path, language: str, fields_label) -> None:
    """A failed subtotal + tax = total flags the three amounts (QA2 found it written three times, once per
    field): one row names them all; a field's own further reason keeps its own row; other fields are
    unchanged (one row each)."""
    from desktop.core.diagnostics import diag

    mismatch = diag(Code.SUM_MISMATCH, subtotal="18.50", tax="1.89", sum="20.39", total="23.39")
    fields = {"subtotal": _field("subtotal", "18.50", problems=[mismatch], needs_review=True),
              "tax": _field("tax", "1.89", problems=[mismatch], needs_review=True),
              "total": _field("total", "23.39", problems=[mismatch, diag(Code.SUBTOTAL_AS_TOTAL, field="total",
                                                                           raw="23.39")], needs_review=True),
              "date": _field("date", None, needs_review=True), "vendor_name": _field("vendor_name", None,
                                                                                     needs_review=True)}
    doc = Document(source="/r.jpg", document_type="receipt", fields=fields)
    export_xlsx([doc], tmp_path / "p.xlsx", language=language)
    rows = _rows(openpyxl.load_workbook(tmp_path / "p.xlsx").worksheets[-1])[1:]
    message = mismatch.message(language)
    shared = [r for r in rows if r[3] == message]
    assert len(shared) == 1
    if fields_label:
        assert shared[0][2] == fields_label
    assert sum(message in (r[3] or "") for r in rows) == 1  # not repeated in the total's own row
    assert len([r for r in rows if r[2] == shared[0][2].split("、")[-1].split(", ")[-1]]) == 1  # the total's own reason
    # the shared mismatch, the total's own reason, and the empty date and vendor: two problems, a row each
    assert len(rows) == 4
