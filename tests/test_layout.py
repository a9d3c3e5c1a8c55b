"""Layout queries (:mod:`desktop.core.extraction.layout`): the indexed ones answer as a scan of every line would."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.extraction.layout import Layout
from desktop.core.model import Line, PageResult

_box = st.tuples(st.integers(0, 500), st.integers(0, 800), st.integers(5, 300), st.integers(8, 40))


def _naive_below(layout: Layout, ln, max_lines: int = 2, max_dy: float | None = None):
    limit = max_dy if max_dy is not None else 2.6 * ln.h
    out = [o for o in layout.lines
           if o.page == ln.page and o is not ln and o.cy > ln.y1 - 0.2 * ln.h and o.y0 - ln.y1 <= limit
           and min(o.x1, ln.x1) - max(o.x0, ln.x0) > -0.2 * ln.h and not layout.same_row(ln, o)]
    out.sort(key=lambda o: (o.y0, abs(o.x0 - ln.x0)))
    return out[:max_lines]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2), _box), min_size=1, max_size=25), st.sampled_from([None, 10.0, 80.0]))
def test_below_answers_as_a_scan_of_every_line(boxes, max_dy):
    pages = []
    for number in (1, 2):
        lines = [Line(f"w{i}", (x, y, x + w, y + h), 0.9) for i, (p, (x, y, w, h)) in enumerate(boxes) if p == number]
        pages.append(PageResult(number=number, width=900, height=900, lines=lines))
    layout = Layout(pages)
    for ln in layout.lines:
        for n in (1, 3):
            assert layout.below(ln, n, max_dy) == _naive_below(layout, ln, n, max_dy)


@pytest.mark.parametrize("rows, sub", [
    # a label with its own amount and another label's pair to its right on the row (a French till's footer)
    ([[("SOUS-TOTAL", 10), ("29,30", 400)], [("REMISE FIDÉLITÉ", 10), ("-2,00", 400)], [("TOTAL TTC", 10), ("27,30 €", 400)],
      [("Total HT 24,33", 10), ("TVA 2,97", 300)]], "24.33"),
    ([[("SUBTOTAL", 10), ("29.30", 400)], [("TOTAL", 10), ("27.30", 400)],
      [("Total Excl GST 24.33", 10), ("GST 2.97", 300)]], "24.33"),
])
def test_a_label_with_its_own_amount_keeps_it_beside_the_next_labels_pair(rows, sub):
    """:meth:`Layout.labelled` with ``prefer_rightmost``: the value column is not read past a box that opens
    with a word of its own when the label's line holds its amount (QA: r05 "Total HT 24,33   TVA 2,97")."""
    from desktop.core.extraction import extract_fields
    from tests.pages import synthetic_page

    head = [[("OCEAN VIEW CAFE SDN BHD", 10)], [("2 Beach Rd, 10050 Penang", 10)], [("Date 30/06/2024", 10)]]
    assert extract_fields(synthetic_page(head + rows), "receipt").fields["subtotal"].value == sub


def test_a_currency_code_before_the_amount_is_still_the_value_column():
    from desktop.core.extraction.parsers import amount_finder

    pages = [PageResult(number=1, width=600, height=200, lines=[
        Line("Subtotal 1.00", (10, 40, 130, 62), 0.99), Line("EUR 12.50", (400, 40, 490, 62), 0.99)])]
    got = Layout(pages).labelled(re.compile("Subtotal"), amount_finder(), prefer_rightmost=True)
    assert [c.value for c in got] == ["12.50"]
