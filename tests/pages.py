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


#: The head of a made-up invoice (issuer, heading, number, date, buyer, one item line) by language,
#: for tests that vary only its totals block.
INVOICE_HEADS: dict[str, list[list[tuple[str, float]]]] = {
    "en": [[("Pennine Office Supplies Ltd", 40), ("INVOICE", 700)], [("Invoice No. POS-4411", 600)],
           [("Invoice date 03/03/2026", 600)], [("Bill to", 40)], [("Greenway Dental Practice", 40)],
           [("Paper  6  24.99  20%  149.94", 40)]],
    "de": [[("Rheinwerk Elektro GmbH", 40), ("RECHNUNG", 700)], [("Rechnungs-Nr. RE-26-117", 600)],
           [("Rechnungsdatum 27.02.2026", 600)], [("Rechnung an", 40)], [("Praxis Dr. Lehmann", 40)],
           [("Kabel  8  42,50  19%  340,00", 40)]],
    "fr": [[("Atelier Vernier SARL", 40), ("FACTURE", 700)], [("N° facture FA-2026-0173", 600)],
           [("Date 15/01/2026", 600)], [("Facturé à", 40)], [("Boulangerie Duval", 40)],
           [("Chaise  4  180,00  20%  720,00", 40)]],
    "nl": [[("Van Dijk Installatietechniek B.V.", 40), ("FACTUUR", 700)], [("Factuurnummer 2026-0042", 600)],
           [("Factuurdatum 02-02-2026", 600)], [("Factuuradres", 40)], [("Bakkerij De Molen", 40)],
           [("Onderhoud  1  145,00  21%  145,00", 40)]],
    "it": [[("Ferramenta Bassi S.r.l.", 40), ("FATTURA", 700)], [("Fattura n. 2026/31", 600)],
           [("Data 11/03/2026", 600)], [("Cliente: Studio Verdi", 40)],
           [("Viti  100  0,10  22%  10,00", 40)]],
    "es": [[("Talleres Ruiz S.L.", 40), ("FACTURA", 700)], [("Factura nº 2026-044", 600)],
           [("Fecha 11/03/2026", 600)], [("Cliente: Estudio Gómez", 40)],
           [("Servicios  1  1.000,00  21%  1.000,00", 40)]],
}
