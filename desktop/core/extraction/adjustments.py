"""Adjustments printed in the totals block between the subtotal and the total: charges, allowances and
rounding, which ``subtotal + tax = total`` must count (:func:`desktop.core.extraction.validators.check_sum`).

EN 16931-1:2017 ties a document's totals together with its document-level allowances (BG-20: BT-92
amount, BT-97/BT-98 reason) and charges (BG-21: BT-99 amount, BT-104/BT-105 reason), their sums BT-107
and BT-108, and the rounding amount BT-114:

* BR-CO-13: total without VAT (BT-109) = sum of the lines (BT-106) - allowances (BT-107) + charges (BT-108);
* BR-CO-15: total with VAT (BT-112) = BT-109 + VAT (BT-110);
* BR-CO-16: amount due (BT-115) = BT-112 - paid amount (BT-113) + rounding (BT-114).

So where a document prints the sum of its lines as its "subtotal" and the allowances and charges
after it ("Subtotal 600.00 / Discount 10% -60.00 / GST 54.00 / Total 594.00", "Subtotal 32.40 /
Service Charge 10% 3.24 / SST 6% 2.14 / Rounding -0.03 / TOTAL 37.75", "Subtotal $1,280.00 / Sales Tax
$89.60 / Shipping $25.00 / Total $1,394.60"), ``subtotal + tax + charges - allowances (+ rounding) =
total`` is the check. Till receipts print the same rows (a restaurant's service charge, a loyalty
discount, the cash rounding of Bank Negara Malaysia's rounding mechanism).

Rule, of the kind and never of one document: an adjustment is a row of the totals block that

* lies between the subtotal's row and the total's row (on the page, or across pages in reading order;
  rows of skewed photos compared on their deskewed boxes);
* is labelled as a charge, an allowance or a rounding in the shared vocabulary
  (``resources/labels/amounts.json`` roles ``charge``, ``allowance``, ``rounding``, whose wording follows
  the reason codes of UNTDID 5189 (allowances: 95 discount, 100 special rebate) and UNTDID 7161 (charges:
  FC freight, SAA shipping and handling, ABL packaging)), and is not a subtotal, tax, total, amount-due,
  paid or withholding row, nor a "before/after" total ("Total after discount");
* prints exactly one amount with decimals (a rate in the label, ``10%``, is no amount).

A charge adds its amount, an allowance subtracts it (printed ``-60.00`` or ``60.00`` alike), a rounding
adds it as printed (signed) and is less than one unit (BT-114 is a rounding, not a payment). A withholding
(``withholding`` role: ritenuta d'acconto, retención IRPF, Einbehalt) is withheld from the payment, not
from the total: it is no adjustment of the total (:func:`desktop.core.extraction.invoice_totals.check_amount_due`
explains an amount due with it).

Nothing is computed into a field here: the adjustments only let the check hold where the document's
printed arithmetic does; where none is printed the check stays strict.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from desktop.core.extraction.invoice_totals import AMOUNT_DUE_LABEL, PAID_LABEL, WITHHOLDING_LABEL
from desktop.core.extraction.labels import label_pattern
from desktop.core.extraction.layout import Layout, Ln
from desktop.core.extraction.parsers import money_tokens
from desktop.core.model import Field, PageResult

__all__ = ["Adjustment", "BEFORE_AFTER", "adjustment_label", "adjustments_between", "as_layout", "printed_adjustments",
           "total_adjustment"]

_CHARGE = label_pattern("charge")
_ALLOWANCE = label_pattern("allowance")
_ROUNDING = label_pattern("rounding")
#: Rows that are not adjustments although they may carry an adjustment word: totals, subtotals, taxes.
_NOT_ADJUSTMENT = [label_pattern("subtotal"), label_pattern("total", "strong"), label_pattern("tax"),
                   label_pattern("tendered"), label_pattern("change"), label_pattern("cash_back")]
#: A total stated before or after an adjustment ("Total after discount", "Summe nach Rabatt", "Total avant
#: remise"): a subtotal, not the adjustment.
BEFORE_AFTER = re.compile(r"(?<![^\W\d_])(before|after|excl\w*|incl\w*|vor|nach|avant|apr[èe]s|dopo|prima|antes|"
                          r"despu[ée]s|voor)(?![^\W\d_])", re.I)
#: A row about a date or an address ("Delivery date", "Lieferadresse: ..."), not an amount.
_NOT_AMOUNT = re.compile(r"(?<![^\W\d_])(date|datum|data|fecha|address|adresse|anschrift|indirizzo|direcci[óo]n|"
                         r"morada|adres)(?![^\W\d_])", re.I)
#: A rate printed in a label ("Service Charge 10%", "Discount 12,5 %"): no amount.
_RATE = re.compile(r"\d{1,3}(?:[.,]\d{1,3})?\s*%")
_ONE = Decimal(1)


@dataclass(frozen=True)
class Adjustment:
    """One printed adjustment: ``kind`` (``charge``, ``allowance``, ``rounding``), its signed ``amount``
    as it enters the total (an allowance negative), the amount as printed and the line it is on."""

    kind: str
    amount: Decimal
    raw: str
    line: Ln


def adjustment_label(label: str) -> str | None:
    """The kind of adjustment a printed label names (``allowance``, ``charge``, ``rounding``), or
    ``None``: not an adjustment, or a withholding, subtotal, tax or total label."""
    if not label.strip() or WITHHOLDING_LABEL.search(label) or BEFORE_AFTER.search(label) or _NOT_AMOUNT.search(label):
        return None
    if any(p.search(label) for p in _NOT_ADJUSTMENT):
        return None
    if AMOUNT_DUE_LABEL.search(label) or PAID_LABEL.search(label):
        return None
    for kind, pattern in (("allowance", _ALLOWANCE), ("rounding", _ROUNDING), ("charge", _CHARGE)):
        if pattern.search(label):
            return kind
    return None


def _row_adjustment(row: list[Ln]) -> Adjustment | None:
    """The adjustment a row states: its first line's label (before its first figure, rates dropped)
    names one, and the row prints exactly one amount with decimals."""
    label = re.split(r"[-−(]?\s*[$€£¥]?\s*\d", _RATE.sub(" ", row[0].text), maxsplit=1)[0]
    kind = adjustment_label(label)
    if kind is None:
        return None
    found = [(v, raw, ln) for ln in row for v, raw, dec, _s in money_tokens(_RATE.sub(" ", ln.text)) if dec]
    if len(found) != 1:
        return None
    value, raw, ln = found[0]
    v = Decimal(value)
    if kind == "allowance":
        v = -abs(v)
    elif kind == "charge":
        v = abs(v)
    elif abs(v) >= _ONE:
        return None  # a rounding is less than one unit
    return Adjustment(kind, v, raw, ln)


def as_layout(pages: Layout | Sequence[PageResult]) -> Layout:
    """``pages`` as a :class:`~desktop.core.extraction.layout.Layout` (built once when given pages)."""
    return pages if isinstance(pages, Layout) else Layout(pages)


def _field_line(layout: Layout, f: Field | None) -> Ln | None:
    """The line a field's value was read on: the line whose page-pixel box holds the centre of the
    field's last box, on the field's page; ``None`` when the field has no place on the page."""
    if f is None or f.page is None or not f.boxes:
        return None
    b = f.boxes[-1]
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    for ln in layout.lines:
        if ln.page == f.page and ln.box[0] - 1 <= cx <= ln.box[2] + 1 and ln.box[1] - 1 <= cy <= ln.box[3] + 1:
            return ln
    return None


def printed_adjustments(layout: Layout, subtotal: Field | None, total: Field | None) -> list[Adjustment]:
    """The adjustments printed on the rows between the subtotal's row and the total's row (see the module
    docstring); empty when either field has no place on the page or nothing is printed between them."""
    a, b = _field_line(layout, subtotal), _field_line(layout, total)
    if a is None or b is None:
        return []
    return adjustments_between(layout, a, b)


def adjustments_between(layout: Layout, a: Ln, b: Ln) -> list[Adjustment]:
    """The adjustments printed on the rows strictly between the rows of lines ``a`` and ``b`` (in either
    order; see the module docstring)."""
    own_a, own_b = layout.row(a), layout.row(b)
    own = {id(o) for o in (*own_a, *own_b)}
    lo, hi = sorted([(a.page, a.cy), (b.page, b.cy)])
    out: list[Adjustment] = []
    for row in layout.rows(by_position=True):
        if any(id(o) in own for o in row):
            continue
        at = (row[0].page, sum(o.cy for o in row) / len(row))
        if not lo < at < hi:
            continue
        got = _row_adjustment(row)
        if got is not None:
            out.append(got)
    return out


def total_adjustment(pages: Layout | Sequence[PageResult] | None, fields: dict[str, Field]) -> Decimal | None:
    """The signed sum of the adjustments printed between the subtotal and the total
    (:func:`printed_adjustments`), or ``None`` when there are none (or no pages to read them from)."""
    if pages is None:
        return None
    found = printed_adjustments(as_layout(pages), fields.get("subtotal"), fields.get("total"))
    if not found:
        return None
    return sum((x.amount for x in found), Decimal(0))
