"""Page builders shared by the extraction tests: recorded engine output and synthetic rows of boxes."""
from __future__ import annotations

import json
from pathlib import Path

from desktop.core.diagnostics import Diagnostic
from desktop.core.model import Line, PageResult

OCR_DATA = Path(__file__).parent / "data" / "ocr"


def pages_of(name: str) -> list[PageResult]:
    """The pages recorded in ``tests/data/ocr/<name>.json`` (PP-OCR output or a PDF text layer)."""
    d = json.loads((OCR_DATA / f"{name}.json").read_text(encoding="utf-8"))
    return [PageResult.from_dict(p) for p in d["pages"]]


def synthetic_page(rows: list[list[tuple[str, float]]], width: int = 600) -> list[PageResult]:
    """One synthetic page: each row a list of ``(text, x0)`` boxes, rows 30 px apart, 9 px per character."""
    lines = []
    for i, row in enumerate(rows):
        y = 40 + 30 * i
        for text, x0 in row:
            lines.append(Line(text=text, box=(x0, y, x0 + 9 * len(text), y + 22), confidence=0.99))
    return [PageResult(number=1, width=width, height=40 + 30 * len(rows) + 40, lines=lines)]


def numbered_page(number: int, rows: list[list[tuple[str, float]]], warnings: list[Diagnostic] | None = None,
                  width: int = 1200, height: int = 1700) -> PageResult:
    """Page ``number`` of a synthetic document (an A4-like 1200 x 1700 px page), rows as in
    :func:`synthetic_page`, with the page's warnings (a page that lost content, a file cut short)."""
    lines = [Line(text=text, box=(x0, 40 + 30 * i, x0 + 9 * len(text), 62 + 30 * i), confidence=0.99)
             for i, row in enumerate(rows) for text, x0 in row]
    return PageResult(number=number, width=width, height=height, lines=lines, warnings=list(warnings or []))


#: A two-page German invoice as rows of ``(text, x0)``: page 1 its header and items, page 2 its totals.
INVOICE_FIRST_PAGE = [[("Physio Praxis Muster", 10)], [("Hauptstr. 1, 10115 Berlin", 10)],
                      [("Rechnung Nr. R18-31", 10)], [("Datum: 03.10.2018", 10)],
                      [("Beschreibung", 10), ("Menge", 600), ("Nettobetrag", 900)],
                      [("Physiotherapie", 10), ("10", 600), ("260,00", 900)],
                      [("Hausbesuch", 10), ("10", 600), ("120,00", 900)]]
INVOICE_LAST_PAGE = [[("Positionssumme", 10), ("380,00", 900)], [("Steuerbetrag", 10), ("0,00", 900)],
                     [("Zahlbetrag", 10), ("380,00", 900)]]
