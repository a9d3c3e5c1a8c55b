"""Invoice-specific candidate features: the EN 16931 business terms a label names, column headers,
and the arithmetic that ties an invoice's totals together.

:mod:`.candidates` proposes every amount, date and name of a document with features that carry over
between receipts and invoices. A commercial invoice says more: its totals block names the business
terms of EN 16931-1:2017 (the European e-invoice semantic model, clause 6.4 and BG-22 "Document
totals"), often as the headers of a table whose values sit in the rows below, and its amounts obey
the standard's business rules:

* BR-CO-13: invoice total without VAT (BT-109) = sum of line net amounts (BT-106) - allowances
  (BT-107) + charges (BT-108);
* BR-CO-15: invoice total with VAT (BT-112) = BT-109 + invoice total VAT amount (BT-110);
* BR-CO-16: amount due for payment (BT-115) = BT-112 - paid amount (BT-113) + rounding amount (BT-114).

The ``total`` field is BT-112 (the amount ``subtotal + tax = total`` checks, see
:func:`desktop.core.extraction.validators.check_sum`), so an amount labelled as due for payment after a
prepayment ("Net à payer" under "Acompte") is not it. :func:`add_invoice_features` adds, for invoices
only, the label kind of each amount's own label and of its column header per business term, the
arithmetic agreements above, and for dates and vendor names the label kinds of the invoice header
(EN 16931 BT-2 issue date against BT-9 due date, BT-72 delivery date and BT-73/74 invoicing period;
BT-27 seller name against the seller contact point BG-6). Receipts are not touched (their model
never sees these features).

Label vocabularies: the printed wording of these business terms in English, German, French, Dutch,
Italian and Spanish, as in the EN 16931 term names and the national visualisations (XRechnung /
ZUGFeRD "Lesbarmachung" stylesheets, Factur-X FNFE-MPE examples), matched case-insensitively on the
text with accents removed (OCR often drops them).
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from desktop.core.extraction.layout import Layout, Ln
from desktop.core.extraction.legal_forms import ends_with_legal_form

__all__ = ["AMOUNT_TERMS", "DATE_TERMS", "PARTY_HEADINGS", "add_invoice_features", "amount_terms", "column_header",
           "party_heading"]

_I = re.I

#: Label wording per EN 16931 business term of the document totals (BG-22), and of allowances and
#: charges (BG-20/BG-21), in en/de/fr/nl/it/es (accents removed, lower case).
AMOUNT_TERMS: dict[str, re.Pattern[str]] = {
    # BT-106 sum of invoice line net amounts
    "line_net": re.compile(
        r"sum(me)?\s*(of\s*)?(all\s*)?(invoice\s*)?(line|position)|lines?\s*(net\s*)?(total|amount)|"
        r"summe\s*(aller\s*)?positionen|positionssumme|warenwert|total\s*(des\s*)?lignes|somme\s*des\s*lignes|"
        r"montant\s*net\s*des\s*lignes|totaal\s*(van\s*de\s*)?regels|regeltotaal|totale\s*(delle\s*)?righe|"
        r"somma\s*(delle\s*)?righe|total\s*(de\s*)?(las\s*)?lineas|suma\s*de\s*(las\s*)?lineas", _I),
    # BT-109 invoice total amount without VAT
    "net_total": re.compile(
        r"(total|amount|sum)\s*(amount\s*)?(excl\.?|excluding|without|before|net\s*of)\s*(vat|tax|gst)|"
        r"net\s*(total|amount)|total\s*net\b|sub[\s-]*total|\bnetto\b|nettobetrag|nettosumme|"
        r"(gesamt|rechnungs)(summe|betrag)\s*(netto|ohne\s*(ust|mwst|umsatzsteuer))|summe\s*netto|zwischensumme|"
        r"steuer(basis|bemessungs)?(betrag|grundlage)|basisbetrag|total\s*h\.?\s*t\b|montant\s*h\.?\s*t\b|"
        r"hors\s*taxes?|base\s*(tva|imposable|ht)\b|totaal\s*excl(usief)?\.?\s*btw|excl(usief)?\.?\s*btw|"
        r"\bnetto\s*bedrag|imponibile|base\s*imponible|total\s*sin\s*iva|subtotale|importe\s*neto", _I),
    # BT-110 invoice total VAT amount
    "vat_total": re.compile(
        r"(total|sum|summe)\s*(of\s*)?(the\s*)?(vat|tax|gst|taxes|umsatzsteuer|mwst|tva|btw|iva)\b|"
        r"(vat|tax|gst)\s*(total|amount)|\b(vat|gst)\b|umsatzsteuer|mehrwertsteuer|\bmwst|\bust\b|"
        r"steuerbetrag|\btva\b|total\s*taxes|\bbtw\b|btw[\s-]*bedrag|\biva\b|imposta|cuota", _I),
    # BT-112 invoice total amount with VAT
    "grand_total": re.compile(
        r"(total|amount|sum)\s*(amount\s*)?(incl\.?|including|inclusive\s*of|with)\s*(vat|tax|gst)|"
        r"invoice\s*(total|amount)|grand\s*total|total\s*invoice|gross\s*(total|amount)|total\s*gross|"
        r"\bbrutto\b|bruttobetrag|bruttosumme|(gesamt|rechnungs)(summe|betrag)\s*(brutto|inkl)|gesamtbetrag|"
        r"rechnungsbetrag|rechnungssumme(?!\s*ohne)|endbetrag|total\s*t\.?\s*t\.?\s*c\b|montant\s*t\.?\s*t\.?\s*c\b|"
        r"toutes\s*taxes|total\s*(de\s*la\s*)?facture|montant\s*total|totaal\s*incl(usief)?\.?\s*btw|"
        r"incl(usief)?\.?\s*btw|factuurbedrag|factuur\s*totaal|factuurtotaal|totaalbedrag|"
        r"totale\s*(fattura|documento|complessivo)|importo\s*totale|\blordo\b|total\s*(de\s*la\s*)?factura|"
        r"importe\s*total|total\s*con\s*iva|\bbruto\b", _I),
    # BT-113 paid amount (prepayments)
    "paid": re.compile(
        r"paid\s*amount|amount\s*paid|already\s*paid|prepaid|prepayment|advance\s*payment|anzahlung|"
        r"bereits\s*(gezahlt|bezahlt|geleistet)|gezahlte[rn]?\s*betrag|vorauszahlung|abschlagszahlung|"
        r"acompte|deja\s*(paye|regle)|montant\s*(paye|regle)|vooruitbetaald|reeds\s*betaald|aanbetaling|"
        r"acconto|anticipo|gia\s*pagato|importe\s*pagado", _I),
    # BT-114 rounding amount
    "rounding": re.compile(r"round|rundung|arrondi|afronding|arrotondamento|redondeo", _I),
    # BT-115 amount due for payment
    "due": re.compile(
        r"amount\s*due|balance\s*due|total\s*due|due\s*for\s*payment|to\s*pay\b|payable|zahlbetrag|"
        r"f[a]lliger\s*betrag|zu\s*zahlen|offener\s*betrag|restbetrag|net\s*a\s*payer|reste\s*a\s*payer|"
        r"montant\s*a\s*payer|montant\s*du\b|\ba\s*payer|te\s*betalen|openstaand\s*bedrag|netto\s*a\s*pagare|"
        r"(importo|totale)?\s*da\s*pagare|(total|importe)?\s*a\s*pagar\b", _I),
    # BT-107 / BT-108 sums of allowances and charges (and the allowances, charges and discounts themselves)
    "allowance_charge": re.compile(
        r"zuschl[a]g|abschl[a]g|rabatt|nachl[a]ss|skonto|allowance|charges?\b|discount|remise|frais|"
        r"korting|toeslag|sconto|maggiorazion|descuento|recargo", _I),
}


def _fold(text: str) -> str:
    """``text`` in NFKC, without accents, lower case (the form :data:`AMOUNT_TERMS` is written for)."""
    d = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    return "".join(c for c in d if not unicodedata.combining(c)).casefold()


@lru_cache(maxsize=8192)
def amount_terms(label: str) -> frozenset[str]:
    """The EN 16931 business terms (keys of :data:`AMOUNT_TERMS`) a printed label names.

    ``"Gesamtsumme brutto"`` -> ``{"grand_total"}``; ``"NET A PAYER"`` -> ``{"due"}``; a label may name
    several (``"Total HT"`` with a VAT word beside it) or none.
    """
    t = _fold(label)
    return frozenset(k for k, p in AMOUNT_TERMS.items() if p.search(t))


# --------------------------------------------------------------------------------------------------
# geometry: where a token of a line sits, and the column header above it


def _tokens_and_boxes(layout: Layout, ln: Ln) -> tuple[list[re.Match[str]], list | None]:
    """The words (runs of non-blanks) of ``ln.text``, and the engine's word boxes of the line where it
    gave them (PDF text layers) and they tile the text, one per word (else ``None``)."""
    toks = list(re.finditer(r"\S+", ln.text))
    words = layout.source_line(ln).words if ln.index >= 0 else []
    return toks, (words if words and len(words) == len(toks) else None)


def _proportional_span(ln: Ln, start: int, end: int) -> tuple[float, float]:
    """Characters ``start:end`` of ``ln.text`` placed in proportion to their offsets within the line's box."""
    n = max(1, len(ln.text))
    w = ln.x1 - ln.x0
    return ln.x0 + w * start / n, ln.x0 + w * end / n


def _token_span(layout: Layout, ln: Ln, start: int, end: int) -> tuple[float, float]:
    """Horizontal extent (page pixels) of characters ``start:end`` of ``ln.text``: from the line's word
    boxes where the engine gave them (PDF text layers) and they tile the text, else in proportion to
    the characters' offsets within the line's box."""
    toks, words = _tokens_and_boxes(layout, ln)
    if words:
        hit = [w for w, t in zip(words, toks) if t.end() > start and t.start() < end]
        if hit:
            return min(w.box[0] for w in hit), max(w.box[2] for w in hit)
    return _proportional_span(ln, start, end)


def _token_spans(layout: Layout, ln: Ln) -> list[tuple[tuple[float, float], str]]:
    """Each word (run of non-blanks) of ``ln.text`` with its extent as :func:`_token_span` gives it, the
    line's word boxes read once."""
    toks, words = _tokens_and_boxes(layout, ln)
    if words:
        return [((w.box[0], w.box[2]), t.group(0)) for w, t in zip(words, toks)]
    return [(_proportional_span(ln, t.start(), t.end()), t.group(0)) for t in toks]


def _words_in(layout: Layout, ln: Ln, x0: float, x1: float) -> str:
    """The words of ``ln`` whose extent overlaps ``[x0, x1]`` (the nearest word when none does)."""
    spans = _token_spans(layout, ln)
    if not spans:
        return ""
    inside = [w for (a, b), w in spans if min(b, x1) - max(a, x0) > 0]
    if inside:
        return " ".join(inside)
    mid = (x0 + x1) / 2
    return min(spans, key=lambda s: min(abs(s[0][0] - mid), abs(s[0][1] - mid)))[1]


def _running_text(text: str) -> bool:
    """A sentence rather than a table cell or a row of column headings: five words or more of which
    at least two in five start lower case (function words, verbs), or twelve words or more."""
    words = text.split()
    lower = sum(1 for w in words if w[:1].isalpha() and w[:1].islower() and len(w) > 1)
    return len(words) >= 12 or (len(words) >= 5 and lower >= 0.4 * len(words))


@lru_cache(maxsize=4096)
def _header_like(text: str) -> bool:
    """Words, not a value or a sentence: two letters in a row, fewer digits than a third of the text.
    Memoised: :func:`column_header` asks it of the same cells above every value of a column."""
    digits = sum(c.isdigit() for c in text)
    return bool(re.search(r"[^\W\d_]{2,}", text)) and digits < len(text) / 3 and not _running_text(text)


def _best_cell(cells: list[Ln], x0: float, x1: float, pad: float) -> Ln | None:
    """Of the boxes of one row, the one over ``[x0, x1]``: the largest horizontal overlap with the span
    itself, else (a left-aligned header over a right-aligned value) with the span widened by ``pad`` to
    the left (a header that starts right of where the value ends is another column's)."""
    for a, b in ((x0, x1), (x0 - pad, x1)):
        scored = [(min(o.x1, b) - max(o.x0, a), o) for o in cells]
        # a sliver of overlap (a neighbouring column's heading reaching over by a few pixels) is none
        scored = [(v, o) for v, o in scored if v > 0.2 * min(b - a, o.x1 - o.x0)]
        if scored:
            return max(scored, key=lambda t: t[0])[1]
    return None


def column_header(layout: Layout, rows: list[list[Ln]], row_index: int, ln: Ln, start: int, end: int,
                  median_h: float, max_rows: int = 24, max_header_rows: int = 4) -> str:
    """The header text of the table column a value sits in: the nearest cell above it that holds
    words (not numbers, not a sentence) and overlaps it horizontally, with the header rows stacked
    directly above that cell (a header printed over two to four rows, "Gesamtwert / brutto").

    Args:
        layout: the document's lines (for word boxes).
        rows: the document's rows, top to bottom (:class:`~desktop.core.extraction.candidates.Rows`).
        row_index: the value's row.
        ln, start, end: the value's line and its character span in ``ln.text``.
        median_h: the page's median line height (page pixels); the header is looked for within
            ``max_rows`` rows and 30 line heights above the value.

    Returns:
        The header's words over the value, top row first; ``""`` when no header is found.
    """
    x0, x1 = _token_span(layout, ln, start, end)
    pad = max(x1 - x0, 2.0 * median_h)
    found: list[str] = []
    top: Ln | None = None
    for ri in range(row_index - 1, max(-1, row_index - 1 - max_rows), -1):
        row = rows[ri]
        if row[0].page != ln.page or ln.y0 - max(o.y1 for o in row) > 30 * median_h:
            break
        if top is None:
            cell = _best_cell(row, x0, x1, pad)
            if cell is None:
                continue
            if not _header_like(cell.text):
                continue  # a value row of the same table, or a sentence across the page: look further up
            # a cell of its own holds one heading; a line of several headings (a text layer's whole
            # header row) gives the words over the value
            several = len(cell.text.split()) > 1 and cell.x1 - cell.x0 > 3 * max(1.0, x1 - x0)
            words = _words_in(layout, cell, x0 - pad, x1) if several else cell.text
            found.insert(0, words)
            top = cell
            continue
        # the header rows stacked over the cell found (its own extent, not the value's)
        cell = _best_cell(row, top.x0, top.x1, 0.0)
        if cell is None or top.y0 - cell.y1 > 1.5 * median_h or not _header_like(cell.text):
            break
        several = len(cell.text.split()) > 1 and cell.x1 - cell.x0 > 3 * max(1.0, top.x1 - top.x0)
        found.insert(0, _words_in(layout, cell, top.x0, top.x1) if several else cell.text)
        top = cell
        if len(found) >= max_header_rows:
            break
    return " ".join(found)


# --------------------------------------------------------------------------------------------------
# features


def _dec(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except (InvalidOperation, TypeError):
        return None


def _total_features(layout: Layout, rows, cands: list) -> list:
    """EN 16931 term and arithmetic features of the ``total`` candidates, and the candidates left.

    The sums of a multi-rate VAT breakdown (:mod:`.vat_breakdown`) count as a net and a VAT total
    (``eq_net_vat``), and ``eq_breakdown`` says that a candidate is their sum.

    Drops an amount due after a prepayment (BT-115 with a BT-113 printed) when another amount agrees
    with the totals arithmetic; keeps only the amounts named BT-112 (by their label or column header)
    that BR-CO-15 / BR-CO-16 or their row confirm, when there are any; of those, the sum row of a
    per-rate table (BG-23) when it is there."""
    from desktop.core.extraction.parsers import money_tokens

    cent = Decimal("0.01")
    info = []
    spans: dict[int, tuple[float, float]] = {}
    for c in cands:
        ln = c.lines[0]
        ri = rows.row_of.get(id(ln), -1)
        pos = ln.text.find(c.raw)
        start, end = (pos, pos + len(c.raw)) if pos >= 0 else (0, len(ln.text))
        header = column_header(layout, rows.rows, ri, ln, start, end, rows.median_h.get(ln.page, 1.0)) \
            if ri >= 0 else ""
        label = _own_label(rows, ri, ln, start)
        own = amount_terms(label)
        # a column header names the values of its column that have no label of their own (a currency
        # beside the value is none); a value with its own label is that label's, whatever heads the block
        bare = len(re.findall(r"[^\W\d_]", _CURRENCY_WORD.sub("", label))) < 2
        col = amount_terms(header) if bare else frozenset()
        info.append((c, ri, own, col, _dec(c.value)))
        c.features["col_found"] = 1.0 if header else 0.0
        spans[id(c)] = _token_span(layout, ln, start, end)
    terms = {k: [v for _c, _r, own, col, v in info if v is not None and k in (own | col)] for k in AMOUNT_TERMS}
    nets = set(terms["net_total"] + terms["line_net"])
    vats = set(terms["vat_total"])
    # a VAT breakdown of several rates (BG-23) that prints no net or VAT total: the sums of its bases and
    # taxes are BT-109 and BT-110 (BR-CO-14), which the total must add up to (BR-CO-15)
    from desktop.core.extraction.vat_breakdown import find_vat_breakdown

    breakdown = find_vat_breakdown(layout)
    if breakdown is not None and len(breakdown.rows) < 2:
        breakdown = None
    if breakdown is not None:
        nets.add(Decimal(breakdown.base_sum))
        vats.add(Decimal(breakdown.tax_sum))
    paid = {v for v in terms["paid"] if v != 0}
    rounding = set(terms["rounding"]) | {Decimal(0)}
    due = set(terms["due"])
    for c, ri, own, col, v in info:
        f = c.features
        for k in AMOUNT_TERMS:
            f[f"bt_{k}"] = 1.0 if k in own else 0.0
            f[f"col_{k}"] = 1.0 if k in col else 0.0
        if v is None:
            continue
        row_vals = []
        if ri >= 0:
            for o in rows.rows[ri]:
                if o.x1 > c.lines[0].x1 + 1:
                    continue
                for value, _raw, _has_dec, s in money_tokens(o.text):
                    if o is c.lines[0] and s >= c.lines[0].text.find(c.raw):
                        continue
                    d = _dec(value)
                    if d is not None and d != 0:
                        row_vals.append(d)
        f["eq_row_sum"] = 1.0 if any(abs(a + b - v) < cent for i, a in enumerate(row_vals)
                                     for b in row_vals[i + 1:]) else 0.0
        above = _column_above(rows, info, spans, c, ri)
        f["eq_col_sum"] = 1.0 if len(above) >= 2 and abs(sum(above) - v) < cent else 0.0
        f["n_col_above"] = float(min(len(above), 10))
        f["eq_net_vat"] = 1.0 if any(abs(n + t - v) < cent for n in nets for t in vats if n != v and t != v) else 0.0
        f["eq_breakdown"] = 1.0 if breakdown is not None and breakdown.agrees_with(c.value) else 0.0
        f["eq_due_paid"] = 1.0 if any(abs(d + p - r - v) < cent for d in due for p in paid for r in rounding
                                      if d != v) else 0.0
        f["due_after_paid"] = 1.0 if ("due" in own or "due" in col) and paid else 0.0
    # BR-CO-16: the amount due after a prepayment is BT-115, not the invoice total BT-112
    if any(c.features.get("eq_due_paid") or c.features.get("eq_net_vat") for c in cands if
           not c.features.get("due_after_paid")):
        cands = [c for c in cands if not c.features.get("due_after_paid")]
    # an amount whose label or column header names BT-112 and that BR-CO-15 / BR-CO-16 confirm (the net
    # total plus the VAT total, the amount due plus the prepayment, or the two amounts before it on its
    # row) is the invoice total, when there is one: two independent pieces of evidence
    # (a label that names another term too -- "Rundungsbetrag brutto", "Gezahlter Betrag brutto" -- is that
    # term's: BT-114 rounding, BT-113 paid, an allowance or charge)
    agreed = [c for c in cands if (c.features.get("bt_grand_total") or c.features.get("col_grand_total"))
              and not any(c.features.get(f"{w}_{k}") for w in ("bt", "col") for k in ("allowance_charge", "rounding", "paid"))
              and (c.features.get("eq_net_vat") or c.features.get("eq_due_paid") or c.features.get("eq_row_sum"))]
    if agreed:
        for c in agreed:
            c.features["bt112_agreed"] = 1.0
        # of a per-rate table's rows (EN 16931 BG-23, VAT breakdown) and its sum row, the sum row is
        # the document's: it adds up the values above it in its column
        cands = [c for c in agreed if c.features.get("eq_col_sum")] or agreed
    return cands


def _column_above(rows, info: list, spans: dict[int, tuple[float, float]], c, ri: int,
                  max_rows: int = 10) -> list[Decimal]:
    """The amounts printed directly above a candidate in its table column: on each row above (same
    page, at most ``max_rows``), the candidate amount overlapping it horizontally, up to the first row
    that has none."""
    if ri < 0:
        return []
    x0, x1 = spans[id(c)]
    by_row: dict[int, list] = {}
    for o, r, _own, _col, v in info:
        if o is not c and v is not None:
            by_row.setdefault(r, []).append((o, v))
    out: list[Decimal] = []
    page = c.lines[0].page
    for r in range(ri - 1, max(-1, ri - 1 - max_rows), -1):
        if rows.rows[r][0].page != page:
            break
        hits = [v for o, v in by_row.get(r, []) if min(spans[id(o)][1], x1) - max(spans[id(o)][0], x0) > 0]
        if not hits:
            break
        out.append(hits[0])
    return out


#: A currency printed beside an amount (ISO 4217 code or symbol), which is no label.
_CURRENCY_WORD = re.compile(r"\b[A-Z]{3}\b|[€$£¥₹]|\bEuro?\b")


def _own_label(rows, ri: int, ln: Ln, start: int) -> str:
    """The label printed just left of a value on its own row: its last four words after the value
    before it (:func:`desktop.core.extraction.candidates.near_label`)."""
    from desktop.core.extraction.candidates import near_label

    if ri < 0:
        return near_label(ln.text[:start])
    near = [o for o in rows.rows[ri] if o.x1 <= ln.x0 + 1 and abs(o.cy - ln.cy) <= 0.5 * max(o.h, ln.h)]
    return near_label(" ".join(o.text for o in near) + " " + ln.text[:start])


def whole_amount_ok(layout: Layout, rows, row_index: int, ln: Ln, raw: str) -> bool:
    """Whether a number printed without decimals and without a label (``87.859``) is an amount of an
    invoice: the column header above it names a document total (:data:`AMOUNT_TERMS`) -- invoices in
    currencies printed in whole units (HUF, JPY, ...) print their totals so."""
    pos = ln.text.find(raw)
    if pos < 0:
        return False
    header = column_header(layout, rows.rows, row_index, ln, pos, pos + len(raw), rows.median_h.get(ln.page, 1.0))
    terms = amount_terms(header) - {"allowance_charge"}
    return bool(terms)


#: Label wording of the invoice's dates per EN 16931 business term, in en/de/fr/nl/it/es (and hu for the
#: CEN bilingual example's "kibocsátás kelte"), accents removed, lower case.
DATE_TERMS: dict[str, re.Pattern[str]] = {
    # BT-2 invoice issue date
    "issue": re.compile(
        r"(invoice|bill|issue|document)\s*date|date\s*of\s*(issue|invoice)|issued\s*(on)?\b|"
        r"rechnungs(datum|erstellungsdatum)|ausstellungsdatum|erstellungsdatum|belegdatum|datum\s*der\s*rechnung|"
        r"date\s*(de\s*(la\s*)?)?facture|date\s*d'?\s*emission|factuurdatum|datum\s*factuur|"
        r"data\s*(della\s*)?fattura|data\s*(di\s*)?emissione|fecha\s*(de\s*)?(la\s*)?factura|"
        r"fecha\s*(de\s*)?(emision|expedicion)|kibocsatas|kelte", _I),
    # BT-9 payment due date
    "due": re.compile(
        r"due\s*(date|on|by)?|payable\s*(by|until|on)|f[a]llig|zahlbar\s*(bis|am)|zahlungsziel|"
        r"echeance|a\s*payer\s*avant|vervaldatum|vervalt|te\s*betalen\s*voor|scadenza|vencimiento|"
        r"fecha\s*de\s*pago|esedekesseg|fizetesi\s*hatarido", _I),
    # BT-72 actual delivery date
    "delivery": re.compile(
        r"deliver|ship|liefer|leistungs|date\s*de\s*livraison|livraison|leverdatum|levering|"
        r"consegna|entrega|teljesites|service\s*date|supply\s*date|tax\s*point", _I),
    # BT-73 / BT-74 invoicing period
    "period": re.compile(r"period|zeitraum|periode|periodo|billing\s*cycle|abrechnung\s*(von|vom)|"
                         r"date\s*de\s*(debut|fin)|debut|\bfin\b|beginn|ende\b|start|end\b|from\b|until\b|"
                         r"\bvon\b|\bbis\b|\bdu\b|\bau\b|\bvan\b|\btot\b|\bdal\b|\bal\b|\bdesde\b|\bhasta\b", _I),
    # dates of other documents: the order (BT-13), the contract (BT-12), a preceding invoice (BT-26),
    # a delivery note, a letter
    "other_document": re.compile(
        r"order|bestell|auftrag|commande|bestelling|ordine|pedido|contra[ck]t|vertrag|contrat|"
        r"preceding|associee|liee|vorhergehend|ursprung|lieferschein|bon\s*de|schreiben|brief|lettre|"
        r"telefonat|gesprek|reklamation", _I),
    # the date of a program or form version, a copyright line
    "version": re.compile(r"version|\bstand\b|copyright|\(c\)|©|gedruckt|printed|imprime", _I),
}

#: "<document title> Nr. <number> vom <date>": a date attached to the document's own title and number
#: (German "Rechnung Nr. 4711 vom 01.10.2018", French "Facture n° F-12 du", English "Invoice No. 12 of",
#: Dutch "Factuur nr. 12 van", Italian "Fattura n. 12 del", Spanish "Factura n.º 12 de") is its issue
#: date (BT-2).
_TITLE_NUMBER_OF = re.compile(
    r"(rechnung|gutschrift|invoice|credit\s*note|facture|avoir|factuur|creditnota|fattura|factura|nota)\w*"
    r"\s*(\(\d+\)\s*)?(nr|no|n°|nº|n\.\s*[°ºo]?|num(ber|mer|ero)?|#)\.?\s*:?\s*\S+\s*"
    r"(vom|du|of|dated|van|del|de|d\.d\.)\s*:?\s*$", _I)


def _label_before(left: str, words: int = 4) -> str:
    """The words printed just before a value: after the last digit (the value of the field before it,
    even glued to it as in "Date:20260815·Échéance:"), at most ``words`` words."""
    seg = re.split(r"\d", left)[-1]
    return " ".join(seg.split()[-words:])


def _date_features(rows, cands: list) -> list:
    """EN 16931 date-term features of the ``date`` candidates (see :data:`DATE_TERMS`)."""
    for c in cands:
        ln = c.lines[0]
        ri = rows.row_of.get(id(ln), -1)
        pos = ln.text.find(c.raw)
        own = ln.text[: max(0, pos)]
        before = " ".join(o.text for o in rows.rows[ri] if o.x1 <= ln.x0 + 1) if ri >= 0 else ""
        left = (before + " " + own).strip()
        label = _fold(_label_before(own) if _letters(_label_before(own)) >= 2 else _label_before(left))
        row_left = _fold(left)
        f = c.features
        for k, p in DATE_TERMS.items():
            f[f"dt_{k}"] = 1.0 if p.search(label) else 0.0
        f["dt_row_version"] = 1.0 if DATE_TERMS["version"].search(row_left) else 0.0
        f["dt_title_number"] = 1.0 if _TITLE_NUMBER_OF.search(_fold(own)) or _TITLE_NUMBER_OF.search(row_left) else 0.0
    # the date of a program's or form's version ("Stylesheet-Version: 2.0 vom 18.10.2018", "(c) 2020") is
    # the rendering's, never the invoice's, when another date is there
    def version(c) -> bool:
        return bool((c.features["dt_version"] or c.features["dt_row_version"]) and not c.features["dt_title_number"])

    if any(not version(c) for c in cands):
        cands = [c for c in cands if not version(c)]
    return cands


def _letters(text: str) -> int:
    return sum(1 for ch in text if ch.isalpha())


#: Headings of the party blocks of an invoice (EN 16931 BG-4 Seller, BG-7 Buyer, and the other parties:
#: BG-13 deliver-to, BG-10 payee, BG-11 the seller's tax representative), as printed at the head of
#: a block in en/de/fr/nl/it/es: a row that starts with one of these words.
PARTY_HEADINGS: dict[str, re.Pattern[str]] = {
    "seller": re.compile(
        r"^\W*(informationen\s*zum\s*|angaben\s*zum\s*)?(verkaufer|lieferant|rechnungssteller|absender|"
        r"leistungserbringer|seller|supplier|vendor|issuer|from\b|vendeur|fournisseur|emetteur|prestataire|"
        r"leverancier|verkoper|afzender|fornitore|cedente|venditore|emittente|proveedor|emisor|vendedor|"
        r"szallito|elado)(?![^\W_])", _I),
    "buyer": re.compile(
        r"^\W*(informationen\s*zum\s*|angaben\s*zum\s*)?(kaufer|kunde|rechnungsempfanger|auftraggeber|"
        r"leistungsempfanger|buyer|customer|client|bill(ed)?\s*to|sold\s*to|invoice\s*to|acheteur|"
        r"destinataire|adresse\s*du\s*client|factur[ée]\s*a|koper|klant|afnemer|cliente|cessionario|"
        r"committente|acquirente|comprador|destinatario|vevo|ugyfel)(?![^\W_])", _I),
    "other": re.compile(
        r"^\W*(abweichende[rn]?\s*)?(warenempfanger|lieferanschrift|lieferadresse|zahlungsempfanger|"
        r"steuervertreter|ship\s*to|deliver(y)?\s*(to|address)|payee|tax\s*representative|livraison|"
        r"adresse\s*de\s*livraison|beneficiaire|representant\s*fiscal|afleveradres|leveradres|begunstigde|"
        r"destinazione|beneficiario|rappresentante\s*fiscale|direccion\s*de\s*entrega|representante\s*fiscal)"
        r"(?![^\W_])", _I),
}
#: Labels of the fields of a party block: the seller's name (BT-27 "Name:", "Firmenname:", "Raison
#: sociale:"), its contact point (BG-6 "Ansprechpartner:", "Contact:"), and the other fields, whose
#: label alone is no name.
_NAME_FIELD = re.compile(r"^\W*(name|firmenname|firma|company(\s*name)?|raison\s*sociale|denomination|nom|naam|"
                         r"bedrijfsnaam|ragione\s*sociale|denominazione|nome|razon\s*social|nombre|empresa)\W*$", _I)
_CONTACT_FIELD = re.compile(r"(ansprechpartner|kontaktperson|kontakt|contact(\s*person|\s*name)?|attn|attention|"
                            r"z\.?\s*hd|interlocuteur|contactpersoon|referente|persona\s*de\s*contacto|"
                            r"sachbearbeiter|bearbeiter)\W*$", _I)
_FIELD_WORD = re.compile(r"^\W*(nummer|number|no|nr|name|anschrift|adresse|address|telefon|telephone|phone|e-?mail|"
                         r"fax|ansprechpartner|kontakt|contact|numero|nom|naam|adres|telefoon|nome|indirizzo|"
                         r"telefono|nombre|direccion|ort|plz|land|country|city|stadt|strasse|street|kennung|"
                         r"identifier|id)\W*$", _I)


#: Words that may follow a party word in a block's heading ("Informationen zum Verkäufer",
#: "SELLER TRADE NAME", "Käufer/Leistungsempfänger", "Adresse du Client :").
_HEADING_REST = frozenset({"name", "trade", "trading", "information", "informationen", "details", "address",
                           "adresse", "anschrift", "data", "daten", "angaben", "leistungsempfanger", "du", "de",
                           "des", "zum", "zur", "la", "le", "the", "of", "party", "partei", "naam", "gegevens",
                           "dati", "datos", "coordonnees", "adres", "indirizzo", "direccion"})


def party_heading(text: str) -> str:
    """The party (``seller``, ``buyer``, ``other``) whose block a heading opens, or ``""`` when the text
    is no such heading: it starts with a word of :data:`PARTY_HEADINGS` and holds nothing but heading
    words after it ("Verkäufer", "Informationen zum Verkäufer", "SELLER TRADE NAME"; not "Seller
    Company" or "Lieferanten-Str. 12")."""
    t = _fold(text).strip()
    if len(t.split()) > 6:
        return ""
    for party, p in PARTY_HEADINGS.items():
        m = p.search(t)
        if m:
            rest = re.findall(r"[^\W\d_]+|\d", t[m.end():])
            if all(w in _HEADING_REST or any(q.fullmatch(w) for q in PARTY_HEADINGS.values()) for w in rest):
                return party
    return ""


def _party_of(rows, a: int, x0: float, x1: float, max_rows: int = 12) -> tuple[str, int]:
    """The party block a row belongs to: the nearest party heading (:data:`PARTY_HEADINGS`) at most
    ``max_rows`` rows above on the same page whose box overlaps ``[x0, x1]`` horizontally (a block of
    its own column), and how many rows above it is; ``("", 0)`` when none is."""
    page = rows.rows[a][0].page
    for ri in range(a - 1, max(-1, a - max_rows - 1), -1):
        row = rows.rows[ri]
        if row[0].page != page:
            break
        for o in row:
            if min(o.x1, x1) - max(o.x0, x0) <= 0:
                continue
            party = party_heading(o.text)
            if party:
                return party, a - ri
    return "", 0


#: The parts of a sender line (DIN 5008 "Rücksendeangabe", printed small atop an envelope window's
#: address field: "Muster GmbH · Hauptstr. 1 · 10115 Berlin"): separated by middle dots, bullets or bars.
_SENDER_PARTS = re.compile(r"\s*[·•|]\s*")


def _sender_lines(rows) -> list[int]:
    """Rows of the first page's top half that are sender lines: three parts or more (a name, a street,
    a postcode and town) separated by :data:`_SENDER_PARTS`, one of them with a number."""
    out = []
    first = rows.rows[0][0].page if rows.rows else 0
    for i, row in enumerate(rows.rows):
        if row[0].page != first or row[0].rel_y > 0.5 or len(row) > 1:
            continue
        parts = [p for p in _SENDER_PARTS.split(rows.texts[i]) if p.strip()]
        if len(parts) >= 3 and any(re.search(r"\d", p) for p in parts[1:]) and not re.search(r"\d", parts[0]):
            out.append(i)
    return out


def _vendor_features(rows, cands: list) -> list:
    """Party-block features of the ``vendor_name`` candidates: the block a candidate sits in (seller,
    buyer or another party), and the field label printed before it (the seller's name, its contact
    person). A candidate in a buyer's or another party's block, a contact person, or a block's field
    label alone ("Nummer", "Anschrift") is not the seller (EN 16931 BT-27), when a candidate in the
    seller's block is there."""
    for c in cands:
        ln = c.lines[0]
        a = rows.row_of.get(id(ln), -1)
        f = c.features
        if a < 0:
            continue
        x0, x1 = min(o.x0 for o in c.lines), max(o.x1 for o in c.lines)
        before = [o for o in rows.rows[a] if o.x1 <= x0 + 1]
        if before and before[-1].text.rstrip().endswith((":", "：")):
            x0 = before[-1].x0  # "Name: | Muster GmbH": the block's heading stands over the label column
        party, dist = _party_of(rows, a, x0, x1)
        for k in PARTY_HEADINGS:
            f[f"party_{k}"] = 1.0 if party == k else 0.0
        f["party_rows"] = dist / 12
        row_text = rows.texts[a]
        i = row_text.find(c.raw)
        left = row_text[:i] if i > 0 else " ".join(o.text for o in rows.rows[a] if o.x1 <= ln.x0 + 1)
        left = _fold(left).strip()
        f["name_field"] = 1.0 if left and _NAME_FIELD.search(left.rstrip(" :")) else 0.0
        f["contact_field"] = 1.0 if left and _CONTACT_FIELD.search(left.rstrip(" :")) else 0.0
        f["field_word"] = 1.0 if _FIELD_WORD.search(_fold(c.value)) else 0.0
        f["party_heading"] = 1.0 if party_heading(c.value) else 0.0
        if ends_with_legal_form(c.value):
            # the legal forms of the EU, EEA, CH and UK (ISO 20275, :mod:`.legal_forms`), beyond the
            # receipts' vocabulary of the company and legal-suffix features (EURL, V.O.F., S.à r.l., Oy, ...)
            f["legal_end"] = f["t_legal"] = f["t_company"] = 1.0

    # the address field under a sender line is the recipient's (DIN 5008): the sender is the line's first part
    senders = _sender_lines(rows)
    for c in cands:
        a = rows.row_of.get(id(c.lines[0]), -1)
        x0, x1 = min(o.x0 for o in c.lines), max(o.x1 for o in c.lines)
        c.features["sender_line"] = 1.0 if a in senders and rows.texts[a].startswith(c.raw.strip()) else 0.0
        c.features["under_sender_line"] = 1.0 if any(0 < a - s <= 4 and min(rows.rows[s][0].x1, x1) -
                                                     max(rows.rows[s][0].x0, x0) > 0 for s in senders) else 0.0
    has_sender = any(c.features["sender_line"] for c in cands)

    def not_seller(c) -> bool:
        g = c.features
        return bool(g.get("party_buyer") or g.get("party_other") or g.get("contact_field") or g.get("field_word")
                    or g.get("party_heading") or (has_sender and g.get("under_sender_line")))

    # the seller's block opens with the seller's name (BT-27, or its trading name BT-28): the nearest
    # candidate under the heading that holds no digit (the block's numbered fields and address lines do)
    from desktop.core.extraction.candidates import ADDRESS

    in_block = [c for c in cands if c.features.get("party_seller") and not not_seller(c)]

    def opens_block(c) -> bool:
        """No digit, no street word, and every row between the heading and it a numbered or labelled field."""
        if re.search(r"\d", c.raw) or ADDRESS.search(c.raw):
            return False
        a = rows.row_of[id(c.lines[0])]
        dist = round(c.features["party_rows"] * 12)
        return all(re.search(r"\d", rows.texts[i]) or re.match(r"^[^:：]{1,30}[:：]", rows.texts[i])
                   for i in range(a - dist + 1, a))

    for c in cands:
        c.features["block_first"] = 1.0 if c in in_block and opens_block(c) else 0.0
    named = [c for c in in_block if c.features.get("name_field")] or [c for c in in_block if c.features["block_first"]]
    if named:
        # printed as the seller's name ("Name: ...") or first in the seller's block: heading and place agree
        cands = named
    elif any(c.features.get("party_seller") and not not_seller(c) for c in cands):
        cands = [c for c in cands if not not_seller(c)]
    else:
        def label(c) -> bool:
            return bool(c.features.get("field_word") or c.features.get("contact_field") or c.features.get("party_heading"))

        if any(not label(c) for c in cands):
            cands = [c for c in cands if not label(c)]
    return cands


def add_invoice_features(layout: Layout, rows, out: dict[str, list]) -> dict[str, list]:
    """Add the invoice features to the candidates of an invoice, in place (and drop the candidates
    the business rules of EN 16931 rule out, see :func:`_total_features`).

    Args:
        layout: the document's lines.
        rows: its :class:`~desktop.core.extraction.candidates.Rows`.
        out: ``{field: [FieldCandidate, ...]}`` as :func:`desktop.core.extraction.candidates.generate`
            built it.

    Returns:
        ``out`` (the same dict).
    """
    if out.get("total"):
        out["total"] = _total_features(layout, rows, out["total"])
    if out.get("date"):
        out["date"] = _date_features(rows, out["date"])
    if out.get("vendor_name"):
        out["vendor_name"] = _vendor_features(rows, out["vendor_name"])
    return out
