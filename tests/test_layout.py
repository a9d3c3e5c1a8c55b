"""Layout queries (:mod:`desktop.core.extraction.layout`): the indexed ones answer as a scan of every line would."""
from __future__ import annotations

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
