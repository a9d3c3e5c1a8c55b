"""Two documents side by side on one page (two receipts in one photo): their fields are not mixed
silently; every value read from that page is flagged with the reason, and ordinary pages are not."""
from __future__ import annotations

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import extract_fields
from desktop.core.extraction.side_by_side import side_by_side_gutter
from desktop.core.model import Line, PageResult

Rows = list[list[tuple[str, float]]]


def page(rows: Rows, width: int = 1600) -> PageResult:
    lines = []
    for i, row in enumerate(rows):
        y = 40 + 34 * i
        for text, x0 in row:
            lines.append(Line(text=text, box=(x0, y, x0 + 14 * len(text), y + 26), confidence=0.99))
    return PageResult(number=1, width=width, height=1200, lines=lines, origin="image")


def receipt(shop: str, date: str, items: list[tuple[str, str]], total_label: str, total: str, x: float) -> Rows:
    """One receipt's rows, its left edge at ``x`` (labels) and its amounts at ``x + 560``."""
    return [[(shop, x + 80)], [("12 Main Street", x + 120)], [(f"{date} 15:42", x)],
            *[[(item, x), (amount, x + 560)] for item, amount in items], [(total_label, x), (total, x + 560)]]


def beside(a: Rows, b: Rows) -> Rows:
    return [(a[i] if i < len(a) else []) + (b[i] if i < len(b) else []) for i in range(max(len(a), len(b)))]


PAIRS = {  # two receipts side by side: English/French, German, Spanish, Chinese, Malay
    "en-fr": (receipt("KITSILANO HARDWARE", "2025-02-14", [("Screws", "12.99"), ("Roller", "31.81")], "TOTAL", "44.80", 40),
              receipt("DÉPANNEUR CHEZ MARCEL", "2025-03-05", [("Journal", "3.00"), ("Chips", "20.00")], "TOTAL", "23.00",
                      820)),
    "de": (receipt("Bäckerei Müller", "05.03.2025", [("Brezel", "0,90"), ("Kaffee", "2,50")], "Summe", "3,40", 40),
           receipt("Apotheke am Markt", "06.03.2025", [("Tee", "4,50"), ("Salbe", "6,00")], "Summe", "10,50", 820)),
    "es": (receipt("Ferretería López", "05/03/2025", [("Tornillos", "3,20"), ("Cola", "2,00")], "Total", "5,20", 40),
           receipt("Panadería Santa Ana", "06/03/2025", [("Pan", "1,10"), ("Leche", "0,90")], "Total", "2,00", 820)),
    "zh": (receipt("好又多超级市场", "2025-03-05", [("苹果", "12.00"), ("香蕉", "6.00")], "合计", "18.00", 40),
           receipt("老王面馆", "2025-03-06", [("牛肉面", "18.00"), ("可乐", "3.00")], "合计", "21.00", 820)),
    "ms": (receipt("KEDAI RUNCIT AMAN", "01/02/2024", [("GULA", "3.00"), ("TEH", "4.60")], "JUMLAH", "7.60", 40),
           receipt("RESTORAN SELERA", "02/02/2024", [("NASI", "6.00"), ("AIR", "1.50")], "JUMLAH", "7.50", 820)),
}


@pytest.mark.parametrize("pair", PAIRS.values(), ids=PAIRS.keys())
def test_two_receipts_side_by_side_flag_every_value_read(pair: tuple[Rows, Rows]) -> None:
    p = page(beside(*pair))
    assert side_by_side_gutter(p) is not None
    fields = extract_fields([p], "receipt").fields
    for name in ("date", "total"):
        f = fields[name]
        assert f.value is not None and f.needs_review, name
        assert any(d.code is Code.PAGE_HOLDS_TWO_DOCUMENTS for d in f.problems), name
    reason = next(d for d in fields["total"].problems if d.code is Code.PAGE_HOLDS_TWO_DOCUMENTS)
    assert "page 1 seems to hold two documents side by side" in reason.message("en")
    assert "第 1 页似乎并排放着两张单据" in reason.message("zh")


ONE_PAGE = {  # ordinary pages: one document, whatever their columns
    "one-receipt": lambda: PAIRS["en-fr"][0],
    "one-receipt-right": lambda: PAIRS["de"][1],
    # an invoice: sender and buyer blocks side by side, one total row (label left, amount right)
    "invoice-two-blocks": lambda: [
        [("Northwind Ltd", 40), ("INVOICE", 1000)], [("1 High St", 40), ("Invoice no: 4711", 1000)],
        [("London", 40), ("Date: 2024-02-07", 1000)], [("Bill to: Contoso", 40), ("Due: 2024-03-07", 1000)],
        [("Widget", 40), ("40.00", 1300)], [("Gadget", 40), ("59.00", 1300)], [("Total", 40), ("99.00", 1300)]],
    # two totals side by side, no gutter: a summary row spans it
    "two-columns-spanned": lambda: [
        *beside(PAIRS["es"][0], PAIRS["es"][1]), [("Gracias por su visita, vuelva pronto, le esperamos", 300)]],
    # two columns, only one with a total and a date (a menu or a notice beside a receipt)
    "receipt-beside-text": lambda: beside(PAIRS["en-fr"][0], [[("Opening hours", 880)], [("Mon Fri", 880)],
                                                              [("Sat", 880)], [("Sun closed", 880)], [("Welcome", 880)],
                                                              [("See you", 880)]]),
    # one receipt above the other: not side by side (the boundary rules' business, not this one)
    "above-each-other": lambda: PAIRS["de"][0] + PAIRS["de"][1],
}


@pytest.mark.parametrize("rows", ONE_PAGE.values(), ids=ONE_PAGE.keys())
def test_a_page_of_one_document_is_not_flagged(rows) -> None:
    p = page(rows())
    assert side_by_side_gutter(p) is None
    fields = extract_fields([p], "receipt").fields
    assert not any(d.code is Code.PAGE_HOLDS_TWO_DOCUMENTS for f in fields.values() for d in f.problems)


def test_the_scan_notes_the_page_once(tmp_path) -> None:
    from PIL import Image

    from desktop.core.pipeline import scan_file
    from tests.fake_engines import FakeEngine

    p = page(beside(*PAIRS["en-fr"]))
    Image.new("RGB", (1600, 1200), "white").save(tmp_path / "two.png")
    recording = {"width": 1600, "height": 1200, "lines": [ln.to_dict() for ln in p.lines]}
    (doc,) = scan_file(tmp_path / "two.png", FakeEngine([recording]))
    assert [n.code for n in doc.notes if n.code is Code.PAGE_HOLDS_TWO_DOCUMENTS] == [Code.PAGE_HOLDS_TWO_DOCUMENTS]
    assert doc.fields["vendor_name"].needs_review and doc.fields["date"].needs_review
