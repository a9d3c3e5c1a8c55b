"""Cash back is paid with a card purchase but is no part of it (table-driven, made-up receipts):
the total is the purchase, and a total that still includes the cash back is flagged."""
from __future__ import annotations

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import _cash_back_problem, candidate_sets, extract_fields
from desktop.core.model import Field
from tests.pages import synthetic_page


def _rows(items: list[tuple[str, str]], tail: list[tuple[str, str]]) -> list[list[tuple[str, float]]]:
    return [[("CORNER GROCER", 150)], [("12 Main St", 150)]] + [[(a, 10), (b, 480)] for a, b in items + tail]


_ITEMS = [("MILK", "3.20"), ("BREAD", "4.10"), ("COFFEE", "9.95")]  # 17.25

# (id, the payment block, the purchase total)
CASES = [
    ("cash-back-debit", [("BALANCE DUE", "17.25"), ("DEBIT", "17.25"), ("CASH BACK", "20.00"),
                         ("TOTAL DEBIT", "37.25")], "17.25"),
    ("cashback-one-word", [("TOTAL", "17.25"), ("Cashback", "10.00"), ("Card total", "27.25")], "17.25"),
    ("cash-out", [("AMOUNT DUE", "17.25"), ("CASH OUT", "40.00"), ("TOTAL CHARGED", "57.25")], "17.25"),
    ("german-bargeld", [("SUMME", "17.25"), ("Bargeldauszahlung", "50.00"), ("Gesamtbetrag Karte", "67.25")],
     "17.25"),
]


@pytest.mark.parametrize(("tail", "total"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_total_leaves_the_cash_back_out(tail, total) -> None:
    fields = extract_fields(synthetic_page(_rows(_ITEMS, tail)), "receipt").fields
    assert fields["total"].value == total
    assert not any(p.code == Code.TOTAL_INCLUDES_CASH_BACK for p in fields["total"].problems)


@pytest.mark.parametrize(("tail", "total"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_total_that_still_includes_the_cash_back_is_flagged(tail, total) -> None:
    pages = synthetic_page(_rows(_ITEMS, tail))
    cands = candidate_sets(pages, "receipt")["total"]
    with_back = tail[-1][1]
    problem = _cash_back_problem(Field(name="total", value=with_back, confidence=0.95), cands)
    assert problem is not None and problem.code == Code.TOTAL_INCLUDES_CASH_BACK
    assert problem.params["purchase"] == total
    assert _cash_back_problem(Field(name="total", value=total, confidence=0.95), cands) is None


def test_no_cash_back_no_problem() -> None:
    pages = synthetic_page(_rows(_ITEMS, [("TOTAL", "17.25"), ("CASH", "20.00"), ("CHANGE", "2.75")]))
    fields = extract_fields(pages, "receipt").fields
    assert fields["total"].value == "17.25" and not fields["total"].problems
    assert _cash_back_problem(fields["total"], candidate_sets(pages, "receipt")["total"]) is None
