"""Page builders shared by the extraction tests: recorded engine output and synthetic rows of boxes."""
from __future__ import annotations

import json
from pathlib import Path

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
