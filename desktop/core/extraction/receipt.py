"""Till receipts (SROIE-style Malaysian receipts and similar): vendor block at the top, totals below.

Heuristics (general, not per-shop):

* vendor name: the first prominent line at the top that is not a generic header (TAX INVOICE, RECEIPT,
  ...), a code or a person's handwriting; company suffixes (SDN BHD, S/B, ENTERPRISE, TRADING,
  RESTAURANT, LTD, GMBH, B.V., ...) make a line much more likely; a trailing registration number
  in parentheses is dropped.
* vendor address: the lines after the name until the phone / fax / GST / e-mail lines.
* total: the value of the strongest total label (GRAND / NETT / ROUNDED TOTAL, TOTAL PAYABLE,
  AMOUNT DUE, TOTAL INCL. GST > TOTAL > SUBTOTAL as a fallback), the value being on the same line,
  in a box to the right on the same row, or just below; TOTAL QTY, TOTAL TAX, DISCOUNT, EXCL. GST
  and per-tax-rate "supplies" lines are not totals.
"""
from __future__ import annotations

import re

from desktop.core.extraction.common import document_currency, infer_date_order, tidy_name
from desktop.core.extraction.dates import find_dates, find_times
from desktop.core.extraction.layout import Candidate, Layout, Ln
from desktop.core.extraction.parsers import amount_finder, regex_finder

__all__ = ["extract_receipt", "pick_vendor", "pick_total", "pick_date"]

_COMPANY = re.compile(
    r"\b(SDN\.?\s*BHD|S/B|BHD|BERHAD|ENTERPRISES?|TRADING|RESTAURANT|RESTORAN|CAFE|KEDAI|MART|STORES?|SHOP|"
    r"HARDWARE|MARKETING|INTERNATIONAL|HOLDINGS|INDUSTRIES|SUPERMARKET|BAKERY|BAKERIES|PHARMACY|"
    r"LTD|LIMITED|LLC|INC|CORP|CORPORATION|COMPANY|CO\.|PTE|PLC|GMBH|AG|B\.?V\.?|N\.?V\.?|SARL|SAS|S\.?A\.?|"
    r"\(M\))(?=\W|$)", re.I)
_HEADER = re.compile(
    r"^\W*(SIMPLIFIED\s+)?(FULL\s+)?(TAX\s*INVOICE|INVOICE|RECEIPT|OFFICIAL RECEIPT|CASH\s*(SALES?|BILL|RECEIPT)|"
    r"DUPLICATE|COPY|CUSTOMER'?S?\s*COPY|WELCOME|THANK YOU|BILL|CHECK|ORDER|TABLE|INVOIC|TAX\s*INVOIC\w*|"
    r"ADJUSTMENT NOTE|SALES?\s*(RECEIPT|INVOICE)?)\W*$|TAX\s*INVOICE|RECEIPT\s*#|INV(OICE)?\s*NO", re.I)
_CONTACT = re.compile(r"\b(TEL|PHONE|FAX|H/?P|MOBILE|E-?MAIL|WEBSITE|WWW\.|GST|SST|CO\.?\s*REG|REG\.?\s*NO|"
                      r"COMPANY\s*NO|CO\.?\s*NO|TAX\s*ID|VAT)\b|@|\.COM\b", re.I)
_ADDRESS_HINT = re.compile(r"\b(NO\.?|LOT|JALAN|JLN|TAMAN|ROAD|RD|STREET|ST|LEBUH|LORONG|KAWASAN|BANDAR|"
                           r"SEKSYEN|PERSIARAN|LEVEL|FLOOR|UNIT|BLOCK)\b|\b\d{5}\b", re.I)
_REGNO_ONLY = re.compile(r"^\W*(CO[.\s-]*(REG|NO)\W*)?[A-Z]{0,3}\d[\d\s-]{4,}[A-Z]?\W*$", re.I)

_TOTAL_STRONG = re.compile(
    r"GRAND\s*TOTAL|ROUND(ED|ING)?\s*TOTAL|NET+\s*TOTAL|TOTAL\s*PAYABLE|AMOUNT\s*DUE|TOTAL\s*DUE|BALANCE\s*DUE|"
    r"TOTAL\s*AMOUNT|TOTAL\s*SALES|TOTAL\s*\(?\s*RM\s*\)?|TOTAL\s*\(?\s*INCL|TOTAL\s*INC\.?|TOTAL\s*TO\s*PAY|"
    r"AMOUNT\s*PAYABLE|TOTAL\s*\(?\s*INCLUSIVE|JUMLAH", re.I)
_TOTAL_ANY = re.compile(r"T[O0]TAL|JUMLAH|AMOUNT\s*DUE|PAYABLE", re.I)
_TOTAL_EXCLUDE = re.compile(
    r"QTY|QUANTITY|ITEM|DISC|SAVING|SUB[\s-]*TOTAL|EXCL|BEFORE|TOTAL\s*TAX|TAX\s*TOTAL|GST\s*TOTAL|"
    r"SUPPLIES|POINTS?|TOTAL\s*(GST|SST)\b|CHANGE|TENDER|CASH(?!\s*TOTAL)|SUMMARY|PCS|UNITS?\b|TOTAL\s*TAX",
    re.I)
_SUBTOTAL = re.compile(r"SUB[\s-]*TOTAL|TOTAL\s*\(?\s*EXCL\w*(\s*(OF\s*)?(GST|SST|TAX))?|TOTAL\s*BEFORE\s*(GST|TAX)|"
                       r"TOTAL\s*SALES\s*\(?\s*EXCL", re.I)
_TAX = re.compile(r"\b(GST|SST|TAX|SERVICE\s*TAX|SERVICE\s*CHARGE\s*TAX|VAT)\b", re.I)
_TAX_EXCLUDE = re.compile(r"\b(ID|REG|NO|SUMMARY|CODE|INVOICE|INCL\w*|EXCL\w*|RATE)\b|TOTAL\s*\(|SUPPLIES|"
                          r"AMOUNT\s*\(|TAXABLE", re.I)
_TAX_ID = re.compile(
    r"(GST\s*(REG(ISTRATION)?\.?\s*)?(ID|NO)\.?|GST\s*REG\.?|SST\s*(REG(ISTRATION)?\.?\s*)?(ID|NO)\.?|SST\s*REG\.?|"
    r"TAX\s*ID|VAT\s*(NO|ID|REG)\.?|CO\.?\s*-?\s*REG\.?(\s*NO)?|CO\.?\s*NO\.?|COMPANY\s*(REG\.?\s*)?NO\.?|ROC\s*NO)"
    r"\s*[:：.]?", re.I)
_CASH = re.compile(r"^\W*(CASH|TENDER(ED)?|PAID|PAYMENT|CASH\s*RECEIVED)\b", re.I)
_CHANGE = re.compile(r"^\W*(CHANGE|BALANCE)\b", re.I)


class _Row:
    """Lines of one text row at the top of a receipt, joined left to right."""

    def __init__(self, lines: list[Ln]):
        self.lines = lines
        self.text = " ".join(ln.text for ln in lines)
        self.raw = " ".join(ln.raw_text or ln.text for ln in lines)
        self.y0 = min(ln.y0 for ln in lines)
        self.y1 = max(ln.y1 for ln in lines)
        self.h = max(ln.h for ln in lines)
        self.cy = (self.y0 + self.y1) / 2


def _top_rows(layout: Layout, n: int = 14) -> list[_Row]:
    if not layout.lines:
        return []
    page = layout.lines[0].page
    rows: list[list[Ln]] = []
    for ln in (x for x in layout.lines if x.page == page):
        for r in rows:
            if any(layout.same_row(ln, o) and max(ln.h, o.h) < 1.8 * min(ln.h, o.h) for o in r):
                r.append(ln)
                break
        else:
            if len(rows) >= n:
                break
            rows.append([ln])
    return [_Row(sorted(r, key=lambda x: x.x0)) for r in rows]


def _is_vendor_like(text: str) -> bool:
    letters = re.sub(r"[^A-Za-z]", "", text)
    if len(letters) < 3 or _HEADER.search(text) or _CONTACT.search(text) or _REGNO_ONLY.match(text):
        return False
    if find_dates(text) or find_times(text):
        return False
    return any(len(w) >= 2 for w in re.findall(r"[A-Za-z]+", text))


_SUFFIX_START = re.compile(r"^\W*(SDN|BHD|S/B|BERHAD|ENTERPRISES?|TRADING|LTD|LIMITED|CO\.|\(M\))\b", re.I)
_SUFFIX_ANY = re.compile(r"\b(SDN|BHD|S/B|BERHAD|LTD|LIMITED|\(M\))", re.I)


def pick_vendor(layout: Layout) -> tuple[Candidate | None, _Row | None]:
    """The vendor name (and the last row it used) from the top of the first page."""
    top = _top_rows(layout, 12)
    best: tuple[float, int] | None = None
    for rank, row in enumerate(top):
        t = row.text
        if not _is_vendor_like(t):
            continue
        score = -0.35 * rank
        if _COMPANY.search(t):
            score += 3
        letters = re.sub(r"[^A-Za-z]", "", t)
        if letters and letters.upper() == letters:
            score += 0.8
        elif letters and letters.lower() == letters:
            score -= 2.0  # handwriting / stamps in lower case are rarely the printed shop name
        if _ADDRESS_HINT.search(t) and not _COMPANY.search(t):
            score -= 2.0
        if best is None or score > best[0]:
            best = (score, rank)
    if best is None:
        return None, None
    i = best[1]
    used = [top[i]]
    # a name broken over rows: "AIK HUAT HARDWARE" / "ENTERPRISE (SETIA" / "ALAM) SDN BHD"
    if _SUFFIX_START.match(top[i].text) and i > 0 and _is_vendor_like(top[i - 1].text) \
            and top[i].y0 - top[i - 1].y1 < top[i].h:
        used.insert(0, top[i - 1])
    j = i + 1
    while j < len(top) and not _SUFFIX_ANY.search(used[-1].text) and _SUFFIX_ANY.search(top[j].text) \
            and not _ADDRESS_HINT.search(top[j].text) and top[j].y0 - used[-1].y1 < top[j].h:
        used.append(top[j])
        j += 1
    raw = " ".join(r.raw for r in used)
    value = tidy_name(" ".join(r.text for r in used))
    factor = 0.85 if _COMPANY.search(raw) else 0.6
    lines = [ln for r in used for ln in r.lines]
    return Candidate(value, raw, lines, [], factor), used[-1]


def pick_address(layout: Layout, vendor_row: _Row | None) -> Candidate | None:
    """The rows after the vendor name up to the phone / GST / e-mail rows, joined with spaces."""
    if vendor_row is None:
        return None
    rows = [r for r in _top_rows(layout, 20) if r.cy > vendor_row.y1]
    out: list[_Row] = []
    for r in rows[:8]:
        t = r.text
        if _REGNO_ONLY.match(t) or (re.fullmatch(r"\W*[A-Z0-9-]{6,}\W*", t) and not out):
            continue
        if not out and (find_dates(t) or find_times(t)) and not _ADDRESS_HINT.search(t):
            continue
        if _CONTACT.search(t) or _HEADER.search(t) or find_dates(t) or re.search(r"\b\d{2,4}[- ]?\d{6,8}\b", t):
            break
        if out and r.y0 - out[-1].y1 > 1.5 * r.h:
            break
        out.append(r)
    if not out:
        return None
    raw = " ".join(r.text for r in out)
    return Candidate(re.sub(r"\s+", " ", raw).strip(), raw, [ln for r in out for ln in r.lines], [], 0.6)


def pick_date(layout: Layout, order: str) -> Candidate | None:
    """The labelled date (``Date:``) or else the first date on the document."""
    cands: list[Candidate] = []
    for i, ln in enumerate(layout.lines):
        texts = [(ln.text, [ln])]
        right = layout.right_of(ln)
        if right and re.search(r"(?i)\bd[a-z]?te\b|tarikh|datum|fecha", ln.text):
            texts.append((ln.text + " " + " ".join(r.text for r in right), [ln, *right]))
        for text, lines in texts:
            found = find_dates(text, order)
            if not found:
                continue
            d = found[0]
            score = -0.01 * i + (2 if re.search(r"(?i)\bd[a-z]?te\b|tarikh|datum", text) else 0)
            if d.value is None:
                score -= 5
            cands.append(Candidate(d.value, d.raw, lines, list(d.problems), 0.9 if score > 0 else 0.75, score))
            break
    if not cands:
        return None
    return max(cands, key=lambda c: c.score)


def pick_time(layout: Layout, date: Candidate | None) -> Candidate | None:
    """A time of day on the date's row, else the first on the document."""
    lines = list(layout.lines)
    if date and date.lines:
        row = layout.row(date.lines[0])
        lines = row + [ln for ln in lines if ln not in row]
    for ln in lines:
        found = find_times(ln.text)
        if found:
            iso, raw, _ = found[0]
            return Candidate(iso, raw, [ln], [], 0.8)
    return None


def _money_cands(layout: Layout, label: re.Pattern[str], exclude: re.Pattern[str] | None) -> list[Candidate]:
    return layout.labelled(label, amount_finder(), exclude=exclude, prefer_rightmost=True)


def pick_total(layout: Layout) -> tuple[Candidate | None, Candidate | None]:
    """``(total, subtotal)`` from labelled amounts (see the module docstring for the ranking)."""
    cands: list[Candidate] = []
    for c in _money_cands(layout, _TOTAL_ANY, _TOTAL_EXCLUDE):
        label_line = c.lines[0]
        own = next((ln for ln in layout.lines if ln.page == label_line.page and _TOTAL_ANY.search(ln.text)
                    and (ln is label_line or label_line in layout.right_of(ln) or label_line in layout.below(ln, 1))), label_line)
        strong = bool(_TOTAL_STRONG.search(own.text))
        c.score = (3 if strong else 2) + (0.5 if re.search(r"[.,]\d{2}\b", c.raw) else 0)
        c.score += 0.001 * layout.lines.index(own)
        try:
            if float(c.value or 0) == 0:
                c.score -= 2
            if float(c.value or 0) < 0:
                c.score -= 3
        except ValueError:
            pass
        c.factor = 0.95 if strong else 0.85
        cands.append(c)
    subs = _money_cands(layout, _SUBTOTAL, re.compile(r"QTY|QUANTITY", re.I))
    subtotal = subs[-1] if subs else None
    if subtotal:
        subtotal.factor = 0.85
    # cash - change agrees with a candidate: a strong sign that it is the amount paid
    cash = _money_cands(layout, _CASH, None)
    change = _money_cands(layout, _CHANGE, None)
    if cash and change:
        try:
            paid = round(float(cash[-1].value) - float(change[-1].value), 2)  # type: ignore[arg-type]
            for c in cands:
                if abs(float(c.value) - paid) < 0.005:  # type: ignore[arg-type]
                    c.score += 0.7
        except (TypeError, ValueError):
            pass
    total = max(cands, key=lambda c: c.score) if cands else None
    if total is not None and total.score < 1 and subtotal is not None:
        total = None
    if total is None and subtotal is not None:
        total = Candidate(subtotal.value, subtotal.raw, subtotal.lines, list(subtotal.problems), 0.6)
        subtotal = None
    if total is not None and subtotal is not None and subtotal.value == total.value and subtotal.lines == total.lines:
        subtotal = None
    return total, subtotal


def pick_tax(layout: Layout) -> Candidate | None:
    """The tax amount: GST/SST/TAX/VAT labels that are not IDs, summaries or tax-inclusive totals."""
    cands = _money_cands(layout, _TAX, _TAX_EXCLUDE)
    cands = [c for c in cands if c.value and not c.value.startswith("-")]
    for c in cands:
        c.factor = 0.75
    return cands[-1] if cands else None


def pick_tax_id(layout: Layout) -> Candidate | None:
    """GST / SST / VAT registration number, else the company registration number, as printed."""
    finder = regex_finder(r"[A-Z0-9][A-Z0-9-]{5,}[A-Z0-9]", flags=re.I)
    cands = layout.labelled(_TAX_ID, finder, below=False, factor=0.9)
    if not cands:
        return None
    cands.sort(key=lambda c: 0 if re.search(r"GST|SST|VAT|TAX", " ".join(ln.text for ln in c.lines), re.I) else 1)
    return cands[0]


def extract_receipt(layout: Layout, date_order: str | None = None) -> dict[str, Candidate | None]:
    """Every receipt field as a candidate (``None`` when not found)."""
    vendor, vendor_row = pick_vendor(layout)
    currency = document_currency(layout)
    order, hinted = (date_order.upper(), True) if date_order else infer_date_order(
        layout, currency.value if currency else None, "DMY")
    date = pick_date(layout, order)
    if date and date.value and not hinted:
        d = find_dates(date.raw, order)
        if d and d[0].ambiguous:
            date.problems.append(f"day/month order of {date.raw!r} is ambiguous; read as {order}")
    total, subtotal = pick_total(layout)
    return {
        "vendor_name": vendor,
        "vendor_address": pick_address(layout, vendor_row),
        "vendor_tax_id": pick_tax_id(layout),
        "date": date,
        "time": pick_time(layout, date),
        "subtotal": subtotal,
        "tax": pick_tax(layout),
        "total": total,
        "currency": currency,
    }
