"""A page that holds two documents side by side: two receipts photographed or scanned together.

Splitting one image into two documents is the clerk's work (crop and scan again); what Shoebox must
not do is mix them silently: the vendor from one, the date from the other, the total from the first,
each at a high confidence. So a page is recognised as holding two documents side by side when its
text falls into two columns that are each a document of their own, and then every value read from
that page is flagged with the reason (:attr:`Code.PAGE_HOLDS_TWO_DOCUMENTS`), the fields at the head
(vendor, address, tax ID, number, date) and the totals above all.

Two columns, each a document (all of it, to stay clear of ordinary pages):

* a vertical gutter in the middle half of the text's width that no line of text crosses (a letterhead,
  a heading, an address block or a line item of one page spans it, or its label and amount straddle
  it), at least 2 % of the text's width wide;
* at least :data:`MIN_LINES` lines on each side, the two sides side by side (their heights overlap by
  half the shorter one at least), not one above the other;
* each side has its own total (a total label and its amount, both on that side: a total whose label
  is on the left and amount on the right is one page's total row) and its own date.

Measured on the recordings of the labelled corpora (.cache/ocr, 296 files: receipts, invoices, Chinese
VAT invoices): no page is recognised (a VAT invoice's two-column buyer/seller blocks carry no total
each; see ``tests/test_side_by_side.py``). The QA's photo of two receipts side by side is.
"""
from __future__ import annotations

import dataclasses

from desktop.core.model import Line, PageResult

__all__ = ["MIN_LINES", "side_by_side_gutter"]

#: The fewest lines each column must hold to be a document (a header, a date, an item, a total ...).
MIN_LINES = 5
#: The gutter is looked for in this share of the text's width, centred (two documents of similar size).
_MIDDLE = (0.25, 0.75)
#: The narrowest gutter (share of the text's width): two documents lie apart, not touching.
_MIN_GUTTER = 0.02


def _has_total_and_date(page: PageResult, lines: list[Line]) -> bool:
    from desktop.core.extraction.dates import find_dates
    from desktop.core.extraction.labels import any_label, label_pattern
    from desktop.core.extraction.layout import Layout
    from desktop.core.extraction.parsers import amount_finder

    if not any(d.value for ln in lines for d in find_dates(ln.text)):
        return False
    half = dataclasses.replace(page, lines=lines)
    totals = Layout([half]).labelled(label_pattern("total"), amount_finder(need_decimals=True),
                                     exclude=any_label("subtotal", "not_total", "tax"),
                                     prefer_rightmost=True)
    return bool(totals)


def side_by_side_gutter(page: PageResult) -> float | None:
    """The x of the gutter between two documents printed side by side on ``page`` (see the module
    docstring), or ``None`` for a page of one document."""
    lines = [ln for ln in page.lines if ln.text.strip()]
    if len(lines) < 2 * MIN_LINES:
        return None
    left, right = min(ln.box[0] for ln in lines), max(ln.box[2] for ln in lines)
    width = right - left
    if width <= 0:
        return None
    lo, hi = left + _MIDDLE[0] * width, left + _MIDDLE[1] * width
    covered = sorted((ln.box[0], ln.box[2]) for ln in lines)
    gaps: list[tuple[float, float]] = []
    reach = covered[0][1]
    for x0, x1 in covered[1:]:
        if x0 > reach:
            gaps.append((reach, x0))
        reach = max(reach, x1)
    for a, b in gaps:
        if b - a < _MIN_GUTTER * width or b <= lo or a >= hi:
            continue
        x = (max(a, lo) + min(b, hi)) / 2
        sides = [[ln for ln in lines if ln.box[2] <= x], [ln for ln in lines if ln.box[0] >= x]]
        if min(len(s) for s in sides) < MIN_LINES:
            continue
        (t1, b1), (t2, b2) = ((min(ln.box[1] for ln in s), max(ln.box[3] for ln in s)) for s in sides)
        if min(b1, b2) - max(t1, t2) < 0.5 * min(b1 - t1, b2 - t2):
            continue  # one above the other: not side by side
        if all(_has_total_and_date(page, s) for s in sides):
            return x
    return None
