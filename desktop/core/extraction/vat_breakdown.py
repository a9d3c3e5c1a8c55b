"""VAT breakdown tables of invoices: one row per VAT rate, with its taxable amount and its tax.

EN 16931-1:2017 BG-23 "VAT breakdown" gives, per VAT category and rate, the taxable amount (BT-116),
the tax amount (BT-117) and the rate (BT-119), and ties them to the document totals:

* BR-CO-17: BT-117 = BT-116 x BT-119 / 100, rounded to two decimals;
* BR-CO-14: the invoice total VAT amount (BT-110) = the sum of the BT-117;
* BR-S-08 and the other category rules: each rate's BT-116 is the sum of its line net amounts (less
  document allowances, plus charges), so without such allowances and charges the sum of the BT-116 is
  the invoice total without VAT (BT-109);
* BR-CO-15: the total with VAT (BT-112) = BT-109 + BT-110.

A printed invoice shows the breakdown as a table (``Steuersatz | Netto | MwSt.``, ``Taux TVA | Base HT |
Montant TVA``, ``VAT rate | Net | VAT``, ``BTW % | Grondslag | BTW-bedrag``) or as one row per rate with
its base in the label (``MwSt. 19 % auf 100,00   19,00``, ``TVA 20 % sur 100,00``, ``BTW 21% over
€ 100,00``). Rows are recognised by BR-CO-17 rather than by their wording, so that every language
and column order reads alike: a row that prints one VAT rate of :data:`VAT_RATES` and two amounts
of which the second is the first times the rate is a breakdown row. Rows next to each other with
distinct rates form a table (item rows repeat their rates). A table of two rows or more is a
multi-rate breakdown; with one row the invoice is single-rate and the rules read it as before. A
row of the table whose rate OCR misread (``%6`` for ``9 %``) joins it when its two amounts stand in
the table's base and tax columns and their ratio is another rate of the set.

Coordinates: the :class:`~desktop.core.extraction.layout.Ln` boxes are in page pixels.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from weakref import WeakKeyDictionary

from desktop.core.extraction.amounts import to_decimal
from desktop.core.extraction.layout import Candidate, Layout, Ln
from desktop.core.extraction.parsers import money_tokens

__all__ = ["VAT_RATES", "BreakdownRow", "VatBreakdown", "apply_breakdown", "breakdown_row", "find_vat_breakdown"]

#: VAT rates in force in the EU member states (standard, reduced, super-reduced and parking rates;
#: European Commission, "VAT rates applied in the Member States of the European Union", situation at
#: 1 January 2025), the United Kingdom (20 %, 5 %), Switzerland (8.1 %, 2.6 %, 3.8 %; 7.7 %, 2.5 %,
#: 3.7 % until 2023) and Norway (25 %, 15 %, 12 %), in percent. A rate outside this set (a 2 %
#: discount, a 3 % cash discount on a row with two amounts) makes no breakdown row; 0 % is a rate too.
VAT_RATES = frozenset(Decimal(r) for r in (
    "0", "2.1", "2.5", "2.6", "3", "3.7", "3.8", "4", "5", "5.5", "6", "7", "7.7", "8", "8.1", "9", "9.5", "10",
    "11", "12", "13", "13.5", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25", "25.5", "27"))

#: A rate as printed: a number of at most two integer digits and two decimals, then a percent sign; not
#: the tail of a longer number ("1.5 %" is no 5 %), but glued to its label ("MwSt.7 %", as OCR reads it).
_RATE = re.compile(r"(?<!\d)(?<!\d[.,])(\d{1,2}(?:[.,]\d{1,2})?)\s*%")
#: Wording of a row that states a percentage which is no VAT rate (a discount, a cash discount, a
#: surcharge, a deposit, a commission) in en/de/fr/nl.
_NOT_VAT = re.compile(r"skonto|rabatt|nachlass|discount|remise|escompte|korting|surcharge|zuschlag|toeslag|"
                      r"acompte|anzahlung|deposit|commission|provision|interest|zinsen|int[ée]r[êe]ts|rente", re.I)
_CENT = Decimal("0.01")


@dataclass
class BreakdownRow:
    """One rate of a VAT breakdown.

    Attributes:
        rate: the VAT rate in percent (BT-119).
        base: the taxable amount (BT-116), canonical (``"100.00"``).
        tax: the tax amount (BT-117), canonical.
        base_raw, tax_raw: the two amounts as printed.
        base_line, tax_line: the lines they were read from.
        row: the row's lines, left to right.
    """

    rate: Decimal
    base: str
    tax: str
    base_raw: str
    tax_raw: str
    base_line: Ln
    tax_line: Ln
    row: list[Ln]


@dataclass
class VatBreakdown:
    """A VAT breakdown table (BG-23): its rows top to bottom and their sums.

    Attributes:
        rows: one :class:`BreakdownRow` per rate, top to bottom.
    """

    rows: list[BreakdownRow]

    @property
    def base_sum(self) -> str:
        """The sum of the taxable amounts (BT-109 when no document allowance or charge applies)."""
        return str(sum((Decimal(r.base) for r in self.rows), Decimal(0)).quantize(_CENT))

    @property
    def tax_sum(self) -> str:
        """The sum of the tax amounts (BT-110, BR-CO-14)."""
        return str(sum((Decimal(r.tax) for r in self.rows), Decimal(0)).quantize(_CENT))

    def agrees_with(self, total: str | None) -> bool:
        """Whether the sum of the bases plus the sum of the taxes is ``total`` (BR-CO-15), to the cent."""
        try:
            return total is not None and abs(Decimal(self.base_sum) + Decimal(self.tax_sum) - Decimal(total)) < _CENT
        except InvalidOperation:
            return False


def _tolerance(base: Decimal) -> Decimal:
    """How far a printed tax may lie from base x rate: two cents, or 0.02 % of the base when the tax is
    the sum of the lines' own rounded taxes (half a cent a line, up to a hundred lines a thousand)."""
    return max(Decimal("0.02"), abs(base) * Decimal("0.0002"))


def breakdown_row(row: list[Ln]) -> BreakdownRow | None:
    """The breakdown row a text row is, or ``None``: exactly one rate of :data:`VAT_RATES`, no
    discount wording, and two amounts with decimals after the rate's start of which the second is the
    first times the rate (BR-CO-17, within :func:`_tolerance`); a 0 % row needs a tax of 0.00."""
    text = " ".join(o.text for o in row)
    rates = _RATE.findall(text)
    if len(rates) != 1 or _NOT_VAT.search(text):
        return None
    try:
        rate = Decimal(rates[0].replace(",", "."))
    except InvalidOperation:
        return None
    if rate not in VAT_RATES:
        return None
    amounts: list[tuple[Decimal, str, Ln]] = []
    for o in row:
        for value, raw, has_dec, _start in money_tokens(o.text):
            if has_dec:
                amounts.append((Decimal(value), raw, o))
    for i, (b, b_raw, b_ln) in enumerate(amounts):
        if b <= 0:
            continue
        for t, t_raw, t_ln in amounts[i + 1:]:
            if rate == 0 and t != 0 or rate > 0 and (t <= 0 or t >= b):
                continue
            if abs(b * rate / 100 - t) <= _tolerance(b):
                return BreakdownRow(rate, str(b.quantize(_CENT)), str(t.quantize(_CENT)), b_raw, t_raw, b_ln, t_ln, row)
    return None


def find_vat_breakdown(layout: Layout) -> VatBreakdown | None:
    """The document's VAT breakdown: the last block of adjacent breakdown rows (:func:`breakdown_row`)
    with distinct rates, not all 0 %, or ``None`` when there is none.

    Adjacent: consecutive text rows of one page, or with one row between them that holds no amount (a
    rule, a heading repeated). A rate met again starts a new block (item rows that print their own
    tax repeat their rates; a breakdown names each rate once), and the breakdown comes after the
    items, so the last block is the document's.
    """
    if layout in _FOUND:
        return _FOUND[layout]
    rows = layout.rows(by_position=True)
    blocks: list[list[BreakdownRow]] = []
    current: list[BreakdownRow] = []
    gap = 0
    for row in rows:
        got = breakdown_row(row)
        if got is not None and current and current[-1].row[0].page == got.row[0].page and gap <= 1 \
                and got.rate not in {r.rate for r in current}:
            current.append(got)
            gap = 0
            continue
        if got is not None:
            if current:
                blocks.append(current)
            current, gap = [got], 0
            continue
        if current:  # only the gap after a block matters
            gap += 2 if any(money_tokens(o.text) for o in row) else 1
    if current:
        blocks.append(current)
    found = next((VatBreakdown(_with_misread_rates(rows, b)) for b in reversed(blocks) if any(r.rate > 0 for r in b)),
                 None)
    _FOUND[layout] = found
    return found


#: :func:`find_vat_breakdown`'s answer per layout (the rules and the invoice features both ask; a layout
#: does not change after construction).
_FOUND: WeakKeyDictionary[Layout, VatBreakdown | None] = WeakKeyDictionary()


def _in_column(a: Ln, b: Ln) -> bool:
    """Whether two boxes share a table column (they overlap horizontally)."""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > 0


def _misread_rate_row(row: list[Ln], like: BreakdownRow, rates: set[Decimal]) -> BreakdownRow | None:
    """A row of a breakdown whose rate OCR misread (``%6`` for ``9 %``): no rate of its own, at most
    three letters, exactly two amounts with decimals in the base and tax columns of ``like`` (a
    recognised row of the same table), whose ratio is a rate of :data:`VAT_RATES` not yet in the
    table (BR-CO-17 read backwards)."""
    text = " ".join(o.text for o in row)
    if _RATE.search(text) or sum(c.isalpha() for c in text) > 3:
        return None
    amounts = [(Decimal(v), raw, o) for o in row for v, raw, dec, _s in money_tokens(o.text) if dec]
    if len(amounts) != 2:
        return None
    (b, b_raw, b_ln), (t, t_raw, t_ln) = amounts
    if b <= 0 or not (0 < t < b) or not (_in_column(b_ln, like.base_line) and _in_column(t_ln, like.tax_line)):
        return None
    for rate in sorted(VAT_RATES - rates - {Decimal(0)}):
        if abs(b * rate / 100 - t) <= _tolerance(b):
            return BreakdownRow(rate, str(b.quantize(_CENT)), str(t.quantize(_CENT)), b_raw, t_raw, b_ln, t_ln, row)
    return None


def _with_misread_rates(rows: list[list[Ln]], block: list[BreakdownRow]) -> list[BreakdownRow]:
    """``block`` with the rows directly above and below it that are rows of the same table whose rate
    was misread (:func:`_misread_rate_row`)."""
    index = {id(r[0]): i for i, r in enumerate(rows)}
    out = list(block)
    rates = {r.rate for r in out}
    for step in (-1, 1):
        edge = out[0] if step < 0 else out[-1]
        i = index[id(edge.row[0])] + step
        while 0 <= i < len(rows) and rows[i][0].page == edge.row[0].page:
            got = _misread_rate_row(rows[i], edge, rates)
            if got is None or (Decimal(got.base), Decimal(got.tax)) == (
                    sum(Decimal(r.base) for r in out), sum(Decimal(r.tax) for r in out)):
                break  # the table's sum row printed without a label is no rate of its own
            out.insert(0, got) if step < 0 else out.append(got)
            rates.add(got.rate)
            i += step
    return out


#: Confidence factors of the subtotal and tax read from a multi-rate breakdown: the sums when the
#: totals arithmetic confirms them, and any value when it does not (under the review threshold of
#: :data:`desktop.core.extraction.HEURISTIC_REVIEW_THRESHOLD`, so such a field is always flagged).
AGREED_FACTOR = 0.9
UNCONFIRMED_FACTOR = 0.5


def _sum_candidate(value: str, raws: list[str], lines: list[Ln], factor: float) -> Candidate:
    return Candidate(value, " + ".join(raws), lines, [], factor)


def _value(c: Candidate | None) -> Decimal | None:
    return to_decimal(c.value) if c is not None else None


def apply_breakdown(breakdown: VatBreakdown | None, subtotal: Candidate | None, tax: Candidate | None,
                    total: Candidate | None, subs: list[Candidate], taxes: list[Candidate],
                    layout: Layout | None = None) -> tuple[Candidate | None, Candidate | None]:
    """The subtotal and tax of an invoice with a multi-rate VAT breakdown.

    With fewer than two breakdown rows, ``(subtotal, tax)`` come back unchanged (a single-rate invoice
    reads as before). Otherwise the options are, for the subtotal, the printed subtotals that are no
    single row's base (``subs``) and the sum of the bases; for the tax, the printed taxes that are no
    single row's tax (``taxes``) and the sum of the taxes (BR-CO-14). The first pair whose sum is the
    total (BR-CO-15) wins, printed values before the sums, with confidence factor
    :data:`AGREED_FACTOR`; failing that, with ``layout``, the first pair whose sum and the charges,
    allowances and rounding printed between the subtotal and the total
    (:func:`desktop.core.extraction.adjustments.adjustments_between`) make the total. When no pair adds
    up, a printed total row is kept and the sums stand in for what is missing or was a single row's
    amount, all at :data:`UNCONFIRMED_FACTOR`: one rate's base is never shown as a confident subtotal
    beside other rates.

    Args:
        breakdown: :func:`find_vat_breakdown`'s table, or ``None``.
        subtotal, tax, total: the rules' choices.
        subs, taxes: every subtotal and tax candidate the rules found.
        layout: the document's lines, to read the printed adjustments from (none read without it).

    Returns:
        ``(subtotal, tax)``.
    """
    if breakdown is None or len(breakdown.rows) < 2:
        return subtotal, tax
    row_lines = {id(o) for r in breakdown.rows for o in r.row}
    bases = {Decimal(r.base) for r in breakdown.rows}
    row_taxes = {Decimal(r.tax) for r in breakdown.rows}
    base_sum, tax_sum = Decimal(breakdown.base_sum), Decimal(breakdown.tax_sum)

    def printed(cands: list[Candidate], parts: set[Decimal], whole: Decimal) -> list[Candidate]:
        out: list[Candidate] = []
        for c in cands:
            v = _value(c)
            if v is None or any(id(o) in row_lines for o in c.lines) or (v in parts and v != whole):
                continue  # a row's own amount (read under a "Netto" / "MwSt." column header) is one rate's
            if all(_value(o) != v for o in out):
                out.append(c)
        return out

    sum_sub = _sum_candidate(breakdown.base_sum, [r.base_raw for r in breakdown.rows],
                             [r.base_line for r in breakdown.rows], AGREED_FACTOR)
    sum_tax = _sum_candidate(breakdown.tax_sum, [r.tax_raw for r in breakdown.rows],
                             [r.tax_line for r in breakdown.rows], AGREED_FACTOR)
    sub_options = [*printed(subs, bases, base_sum), sum_sub]
    tax_options = [*printed(taxes, row_taxes, tax_sum), sum_tax]
    g = _value(total)
    if g is not None:
        for s in sub_options:
            for t in tax_options:
                sv, tv = _value(s), _value(t)
                if sv is not None and tv is not None and abs(sv + tv - g) < _CENT:
                    return _confirmed(s, sum_sub), _confirmed(t, sum_tax)
        if layout is not None and total is not None and total.lines:
            from desktop.core.extraction.adjustments import adjustments_between

            for s in sub_options:
                sv = _value(s)
                if sv is None or not s.lines:
                    continue
                found = adjustments_between(layout, s.lines[-1], total.lines[-1])
                if not found:
                    continue
                adj = sum((x.amount for x in found), Decimal(0))
                for t in tax_options:
                    tv = _value(t)
                    if tv is not None and abs(sv + tv + adj - g) < _CENT:
                        return _confirmed(s, sum_sub), _confirmed(t, sum_tax)
    sub = sub_options[0] if len(sub_options) > 1 else sum_sub
    tx = tax_options[0] if len(tax_options) > 1 else sum_tax
    return _unconfirmed(sub), _unconfirmed(tx)


def _confirmed(c: Candidate, computed: Candidate) -> Candidate:
    if c is computed:
        return c
    return Candidate(c.value, c.raw, list(c.lines), list(c.problems), max(c.factor, AGREED_FACTOR), c.score, c.source, c.boxes)


def _unconfirmed(c: Candidate) -> Candidate:
    return Candidate(c.value, c.raw, list(c.lines), list(c.problems), min(c.factor, UNCONFIRMED_FACTOR), c.score,
                     c.source, c.boxes)
