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
from decimal import Decimal

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.extraction.amounts import format_amount
from desktop.core.extraction.amounts import to_decimal as _d
from desktop.core.extraction.common import (
    ADDRESS_LABEL,
    CJK_LABEL_ROW,
    CN_REGISTRATION,
    CN_TITLE,
    document_currency,
    infer_date_order,
    looks_like_name,
    tidy_name,
)
from desktop.core.extraction.dates import find_dates, find_times
from desktop.core.extraction.invoice_totals import AMOUNT_DUE_LABEL
from desktop.core.extraction.labels import label_pattern
from desktop.core.extraction.layout import Candidate, Layout, Ln
from desktop.core.extraction.parsers import amount_finder, money_tokens, regex_finder
from desktop.core.extraction.vat_breakdown import apply_breakdown, find_vat_breakdown

__all__ = ["extract_receipt", "pick_vendor", "pick_total", "pick_date", "pick_tax_subtotal"]

_COMPANY = re.compile(
    r"\b(SDN\.?\s*BHD|S/B|BHD|BERHAD|ENTERPRISES?|TRADING|RESTAURANT|RESTORAN|CAFE|KEDAI|MART|STORES?|SHOP|"
    r"HARDWARE|MARKETING|INTERNATIONAL|HOLDINGS|INDUSTRIES|SUPERMARKET|HYPERMARKET|MINI\s*MARKET|BAKERY|BAKERIES|"
    r"PHARMACY|FARMASI|STATIONERY|STATIONERIES|BOOKSTORE|BOOKSHOP|BOOK\s*CO|SYARIKAT|PERNIAGAAN|TRADERS?|"
    r"MACHINERY|ELECTRICAL|FOOD\s*(COURT|INDUSTRIES)|CONFECTIONERY|CATERING|PLT|LLP|"
    r"LTD|LIMITED|LLC|INC|CORP|CORPORATION|COMPANY|CO\.|PTE|PLC|GMBH|AG|B\.?V\.?|N\.?V\.?|SARL|SAS|S\.?A\.?|"
    r"\(M\))(?=\W|$)|"
    # Chinese: a company (有限公司, 公司, GB/T 4754 legal forms end in 公司), shop (商店, 商行), supermarket
    # (超市), restaurant (餐厅, 饭店), hotel (酒店), pharmacy (药房, 药店), bookshop (书店)
    r"有\s*限\s*公\s*司|公\s*司|商\s*店|商\s*行|超\s*市|餐\s*厅|饭\s*店|酒\s*店|药\s*[房店]|书\s*店", re.I)
_HEADER = re.compile(
    r"^\W*(SIMPLIFIED\s+)?(FULL\s+)?(TAX\s*INVOICE|INVOICE|RECEIPT|OFFICIAL RECEIPT|CASH\s*(SALES?|BILL|RECEIPT)|"
    r"DUPLICATE|COPY|CUSTOMER'?S?\s*COPY|WELCOME|THANK YOU|BILL|CHECK|ORDER|TABLE|INVOIC|TAX\s*INVOIC\w*|"
    r"ADJUSTMENT NOTE|SALES?\s*(RECEIPT|INVOICE)?)\W*$|TAX\s*INVOICE|RECEIPT\s*#|INV(OICE)?\s*NO", re.I)
_CONTACT = re.compile(r"\b(TEL|PHONE|FAX|H/?P|MOBILE|E-?MAIL|WEBSITE|WWW\.|GST|SST|CO\.?\s*REG|REG\.?\s*NO|"
                      r"COMPANY\s*NO|CO\.?\s*NO|TAX\s*ID|VAT)\b|@|\.COM\b|电\s*话|手\s*机|传\s*真|邮\s*箱|网\s*址", re.I)
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
    r"TAX\s*ID|VAT\s*(NO|ID|REG)\.?|CO\.?\s*-?\s*REG\.?(\s*NO)?|CO\.?\s*NO\.?|COMPANY\s*(REG\.?\s*)?NO\.?|ROC\s*NO|"
    rf"{CN_REGISTRATION.pattern})"
    r"\s*[:：.]?", re.I)
_CASH = re.compile(r"^\W*(CASH|TENDER(ED)?|PAID|PAYMENT|CASH\s*RECEIVED)\b", re.I)
_CHANGE = re.compile(r"^\W*(CHANGE|BALANCE)\b", re.I)

#: The other languages' labels come from the shared vocabulary (``resources/labels/amounts.json``,
#: :mod:`desktop.core.extraction.labels`); the English patterns above keep their OCR variants.
_OTHER = ("ms", "de", "fr", "nl", "es", "it", "pt", "zh")


def _either(a: re.Pattern[str], *more: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p.pattern})" for p in (a, *more)), re.I)


_TOTAL_STRONG = _either(_TOTAL_STRONG, label_pattern("total", "strong", _OTHER))
_TOTAL_ANY = _either(_TOTAL_ANY, label_pattern("total", None, _OTHER))
_TOTAL_EXCLUDE = _either(_TOTAL_EXCLUDE, label_pattern("not_total", None, _OTHER),
                         label_pattern("subtotal", None, _OTHER), label_pattern("tax", None, ("zh",)))
_SUBTOTAL = _either(_SUBTOTAL, label_pattern("subtotal", None, _OTHER))
_CASH = _either(_CASH, re.compile(r"^\W*(?:" + label_pattern("tendered", None, _OTHER).pattern + ")", re.I))
_CHANGE = _either(_CHANGE, re.compile(r"^\W*(?:" + label_pattern("change", None, _OTHER).pattern + ")", re.I))


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


def _chinese_field_row(text: str) -> bool:
    """Whether a row is a Chinese "label：value" field, a document title (销售小票) or a registration
    number: never a shop's name, nor part of its address."""
    return bool(CJK_LABEL_ROW.match(text) or CN_TITLE.search(text) or CN_REGISTRATION.search(text))


def _is_vendor_like(text: str) -> bool:
    letters = re.sub(r"[^A-Za-z\u4e00-\u9fff]", "", text)
    cjk = len(re.findall(r"[\u4e00-\u9fff]", text))
    if (len(letters) < 3 and cjk < 2) or _HEADER.search(text) or _CONTACT.search(text) or _REGNO_ONLY.match(text):
        return False
    if _chinese_field_row(text) or ADDRESS_LABEL.match(text):
        return False  # a Chinese "label: value" row, a document title, a registration number, an address
    if not looks_like_name(text):  # running text (a letter, a page of prose) is never the shop's name
        return False
    if find_dates(text) or find_times(text):
        return False
    return any(len(w) >= 2 for w in re.findall(r"[A-Za-z]+|[\u4e00-\u9fff]+", text))


_SUFFIX_START = re.compile(r"^\W*(SDN|BHD|S/B|BERHAD|ENTERPRISES?|TRADING|LTD|LIMITED|CO\.|\(M\)|PLT)\b", re.I)
_SUFFIX_ANY = re.compile(r"\b(SDN|BHD|S/B|BERHAD|LTD|LIMITED|\(M\))", re.I)


def _continues_name(used: list[_Row], nxt: _Row) -> bool:
    """Whether the next top row continues a company name broken over rows: the name so far has an
    unclosed parenthesis (``ENTERPRISE (SETIA`` / ``ALAM) SDN BHD``), or it lacks a legal suffix and
    the next row brings one; never a registration number, contact or address row."""
    t = nxt.text
    if _REGNO_ONLY.match(t) or _CONTACT.search(t) or not _is_vendor_like(t):
        return False
    so_far = " ".join(r.text for r in used)
    if so_far.count("(") > so_far.count(")") and ")" in t and not re.search(r"\b\d{5}\b", t):
        return True
    return not _SUFFIX_ANY.search(so_far) and bool(_SUFFIX_ANY.search(t)) and not _ADDRESS_HINT.search(t)


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
    while j < len(top) and top[j].y0 - used[-1].y1 < top[j].h and _continues_name(used, top[j]):
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
    labelled = next((r for r in rows[:8] if ADDRESS_LABEL.match(r.text) and ADDRESS_LABEL.sub("", r.text).strip()), None)
    if labelled is not None:
        # "地址：上海市浦东新区张江路88号", "Address: 12 Main St": the row's label says what it is
        value = ADDRESS_LABEL.sub("", labelled.text).strip()
        return Candidate(value, labelled.raw, list(labelled.lines), [], 0.85)
    out: list[_Row] = []
    for r in rows[:8]:
        t = r.text
        if _REGNO_ONLY.match(t) or (re.fullmatch(r"\W*[A-Z0-9-]{6,}\W*", t) and not out):
            continue
        if not out and (find_dates(t) or find_times(t)) and not _ADDRESS_HINT.search(t):
            continue
        if _CONTACT.search(t) or _HEADER.search(t) or find_dates(t) or re.search(r"\b\d{2,4}[- ]?\d{6,8}\b", t) \
                or _chinese_field_row(t):
            break
        if out and r.y0 - out[-1].y1 > 1.5 * r.h:
            break
        out.append(r)
    if not out:
        return None
    raw = " ".join(r.text for r in out)
    value = re.sub(r"\s+", " ", raw).strip()
    # a five-digit postcode glued to the town by OCR ("43800DENGKIL"): Malaysian postcodes are five
    # digits printed before the town (Pos Malaysia addressing guidelines), as are German, French,
    # Spanish and Italian ones
    value = re.sub(r"(?<![\w-])(\d{5})(?=[A-Za-z]{3,})", r"\1 ", value)
    return Candidate(value, raw, [ln for r in out for ln in r.lines], [], 0.6)


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


#: Time labels: English, Malay (masa), German (Zeit/Uhrzeit), French (heure), Spanish (hora), Chinese
#: (时间); ``TINE``/``TIHE``/``T1ME`` are the usual OCR misreads of ``TIME`` on till receipts.
_TIME_LABEL = re.compile(r"(?i)\b(?:t[i1l!][mnh]e|masa|zeit|uhrzeit|heure|hora)\b|时\s*间")
#: A labelled ``HH:MM`` followed by a misread second colon (``15:46100`` for ``15:46:00``).
_TIME_MISREAD = re.compile(r"(?<!\d)([01]?\d|2[0-3])\s?[:：]\s?([0-5]\d)[1lI|!;.]([0-5]\d)(?!\d)")


def pick_time(layout: Layout, date: Candidate | None) -> Candidate | None:
    """The time of the transaction (``HH:MM[:SS]``, 24-hour; AM/PM converted).

    Candidates are the times printed anywhere (:func:`~desktop.core.extraction.dates.find_times`); a
    date glued to its time (``20-06-201821:36:11``) is split at the end of the date. Ranking: on the
    date's row, or with a time label (TIME, Masa, Zeit, 时间, ...) on its line or to its left on the
    row, beats the rest; the row just below the date comes next; then document order. A receipt
    prints the transaction time beside the date, while later times (``Closed:``, ``Printed:``) are
    other events. After a label, a misread second colon is accepted (``TINE: 15:46100`` ->
    ``15:46:00``).
    """
    date_rows: list[Ln] = []
    below: list[Ln] = []
    if date and date.lines:
        date_rows = layout.row(date.lines[0])
        below = [o for d in date_rows for o in layout.below(d, 2)]
    date_raw = date.raw if date and date.raw else None
    best: Candidate | None = None
    for i, ln in enumerate(layout.lines):
        text = ln.text
        if date_raw and date_raw in text:
            text = text.replace(date_raw, " ", 1)
        left = [o for o in layout.row(ln) if o.x1 <= ln.x0 + 0.5 * ln.h] if ln in date_rows or _TIME_LABEL.search(
            " ".join(o.text for o in layout.row(ln))) else []
        labelled = bool(_TIME_LABEL.search(ln.text)) or any(_TIME_LABEL.search(o.text) for o in left)
        found = find_times(text)
        if not found and labelled:
            label = _TIME_LABEL.search(text)
            m = _TIME_MISREAD.search(text[label.end():] if label else text)
            if m:
                found = [(f"{int(m.group(1)):02d}:{m.group(2)}:{m.group(3)}", m.group(0), m.start())]
        if not found:
            continue
        iso, raw, _ = found[0]
        score = -0.01 * i + (3 if ln in date_rows else 0) + (3 if labelled else 0) + (1 if ln in below else 0)
        if best is None or score > best.score:
            best = Candidate(iso, raw, [ln], [], 0.85 if score > 0 else 0.7, score)
    return best


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
    # the amount payable is no subtotal, though its label may hold a net word ("Netto a pagare")
    subs = _money_cands(layout, _SUBTOTAL, re.compile(f"QTY|QUANTITY|{AMOUNT_DUE_LABEL.pattern}", re.I))
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
        # never silently: the clerk sees that the amount is a subtotal standing in for the total
        total = Candidate(subtotal.value, subtotal.raw, subtotal.lines,
                          [*subtotal.problems, diag(Code.SUBTOTAL_AS_TOTAL, field="total", raw=subtotal.raw)], 0.6)
        subtotal = None
    if total is not None and subtotal is not None and subtotal.value == total.value and subtotal.lines == total.lines:
        subtotal = None
    return total, subtotal


_TAX_ROW = re.compile(r"\b(GST|SST|TAX|SERVICE\s*TAX|VAT)\b", re.I)
#: every language's tax names, English too: the vocabulary's sales taxes (HST, PST, QST, TPS, TVQ, ...)
_TAX_ROW = _either(_TAX_ROW, label_pattern("tax", None, ("en", *_OTHER)))
_TAX_ROW_EXCLUDE = re.compile(
    r"\b(ID|REG|NO|SUMMARY|SUM\w*RY|CODE|INVOICE|INVOIC\w*|EXCL\w*|RATE)\b|INCL(?!UDED\s+IN)\w*|INCLUSIVE|"
    r"TOTAL\s*\(|SUPPLIES|AMOUNT\s*\(|AMT\s*\(|TAXABLE|\bTA\s*AMT\b|\bREG\s*#|#\s*\d", re.I)
#: A row that states the tax contained in a tax-inclusive total ("Incl. VAT 20%  4.22", "inkl. MwSt.
#: 19%", "dont TVA 20 %", "incl. BTW 21%"): a tax row although it says "incl." (a "TOTAL INCL. GST"
#: row, which names the total, is not one).
_TAX_INCLUDED_ROW = re.compile(r"^\W*(INCL(?:UDING|UDES|\.)?|INKL\.?|INKLUSIVE|DONT|INCLUS[AO]?|INCLUSO)\s*(?:OF\s*)?"
                               r"(VAT|GST|SST|TAX|MWST\.?|UST\.?|TVA|BTW|IVA)\b(?!.*\bTOTAL)", re.I)
_TAXABLE_ROW = re.compile(r"TAXABLE|\bTA\s*AMT\b|\b(GST|SST|TAX)\s*(AMT|AMOUNT)\s*(EXCL|BEFORE)", re.I)
_SUMMARY_HEAD = re.compile(r"(GST|SST|TAX|[A-Z]ST)\s*SUM+\w*|\bSUMMARY\b|\b(TAX\s*)?CODE\b.*\b(AMOUNT|AMT)\b", re.I)
_RATE = re.compile(r"(\d{1,2}(?:[.,]\d{1,2})?)\s*%")
#: Highest standard VAT/GST/sales-tax rate in use is 27% (Hungary; OECD "Consumption Tax Trends 2022",
#: table 2.A2.1); a tax-inclusive total therefore holds at most 27/127 = 21% tax. 0.3 leaves margin.
_MAX_TAX_SHARE = 0.3


def _row_amounts(row: list[Ln], after: int = 0) -> list[tuple[str, str, bool, Ln]]:
    """Money amounts on a row, left to right: ``(value, raw, has_decimals, line)``; ``after`` skips
    the first characters of the row's first line (the label)."""
    out = []
    for k, ln in enumerate(row):
        text = ln.text[after:] if k == 0 else ln.text
        for value, raw, dec, _start in money_tokens(text):
            out.append((value, raw, dec, ln))
    return out


def _summary_rows(layout: Layout, rows: list[list[Ln]]) -> tuple[Candidate, Candidate] | None:
    """``(taxable amount, tax)`` summed over the rows of a GST/SST summary table.

    Malaysian GST/SST tax invoices print a summary by tax code (SR standard rated, ZR zero rated, ...;
    Royal Malaysian Customs, *GST Guide on Tax Invoice and Records Keeping*, 2017, s. 16):
    ``GST Summary | Amount(RM) | Tax(RM)`` then rows ``SR @6% 35.66 2.14``. Per row the amount is the
    second-to-last and the tax the last money value. A row whose printed rate disagrees with its
    amounts (tax != amount x rate, e.g. an OCR misread digit) is not used.
    """
    for i, row in enumerate(rows):
        head = " ".join(ln.text for ln in row)
        if not _SUMMARY_HEAD.search(head):
            continue
        amounts: list[Decimal] = []
        taxes: list[Decimal] = []
        lines: list[Ln] = []
        for data in rows[i + 1:i + 6]:
            text = " ".join(ln.text for ln in data)
            toks = [t for t in _row_amounts(data) if t[2]]
            if re.search(r"T[O0]TAL", text, re.I) or len(toks) < 2:
                if amounts:
                    break
                continue
            amount, tax = _d(toks[-2][0]), _d(toks[-1][0])
            if amount is None or tax is None or tax < 0 or amount < 0 or tax > amount * Decimal(_MAX_TAX_SHARE):
                return None
            rate = _RATE.search(text)
            if rate:
                r = Decimal(rate.group(1).replace(",", "."))
                if abs(amount * r / 100 - tax) > Decimal("0.02"):
                    return None
            amounts.append(amount)
            taxes.append(tax)
            lines.extend([toks[-2][3], toks[-1][3]])
        if amounts:
            sub, tax = sum(amounts, Decimal(0)), sum(taxes, Decimal(0))
            raw_lines = list({id(ln): ln for ln in lines}.values())
            return (Candidate(format_amount(sub), str(sub), raw_lines, [], 0.8, 1.8),
                    Candidate(format_amount(tax), str(tax), raw_lines, [], 0.8, 1.8))
    return None


def _summed_taxes(tax_rows: list[tuple[int, str, Candidate]], subs: list[Candidate],
                  t_val: Decimal | None) -> list[Candidate]:
    """The sums of two or more adjacent tax rows with different labels, each its rightmost amount, where
    a subtotal plus the sum is the total (within 0.01): the sales taxes a receipt prints one under the
    other between subtotal and total, each on its own line, and the total includes them all. Canada's
    GST + PST (BC, SK, MB) and GST/TPS + QST/TVQ (Québec) (Canada Revenue Agency, RC4022 "General
    Information for GST/HST Registrants"; Revenu Québec IN-203), a US state + county / city sales tax,
    two VAT rates on one receipt (MwSt 7 % + 19 %: UStG s. 12). One tax row is left alone (the caller
    reads it); a sum that does not add up with a subtotal to the total is no candidate."""
    if t_val is None or len(tax_rows) < 2:
        return []
    out: list[Candidate] = []
    cent = Decimal("0.01")
    for a in range(len(tax_rows)):
        for b in range(a + 1, len(tax_rows)):
            if tax_rows[b][0] != tax_rows[b - 1][0] + 1:
                break  # the rows must follow each other
            run = tax_rows[a:b + 1]
            labels = {re.sub(r"\W+", " ", lab).casefold() for _i, lab, _c in run}
            if len(labels) != len(run):
                continue  # the same tax printed twice ("GST 6% 1.98", "GST 6% 1.98") is no second tax
            values = [v for _i, _lab, c in run if (v := _d(c.value)) is not None and v > 0]
            if len(values) != len(run):
                continue
            tv = sum(values, Decimal(0))
            if not any((sv := _d(sb.value)) is not None and abs(sv + tv - t_val) <= cent for sb in subs):
                continue
            lines = [ln for _i, _lab, c in run for ln in c.lines]
            out.append(Candidate(format_amount(tv), " + ".join(c.raw for _i, _lab, c in run), lines, [], 0.8, 2.0))
    return out


def pick_tax_subtotal(layout: Layout, total: Candidate | None,
                      subtotal: Candidate | None) -> tuple[Candidate | None, Candidate | None]:
    """``(tax, subtotal)``: the tax amount and the amount before tax, checked against the total.

    Candidates:

    * tax: amounts on rows labelled GST / SST / TAX / VAT / SERVICE TAX that are not registration
      numbers, summaries, taxable-amount or tax-inclusive-total rows (``GST 6% RM5.45``,
      ``GST payable (6%): 0.26``, ``GST @6% included in total RM 3.01``); every amount on the row is
      tried, rightmost first;
    * subtotal: the labelled subtotal (``Total Excl GST``, ``Total (Excluding GST)``, ``SUB TOTAL``),
      taxable-amount rows (``GST TA AMT RM90.75``) and the taxable amount of the GST summary table;
    * both: the GST summary table (:func:`_summary_rows`).

    A tax is never more than 30% of the total (:data:`_MAX_TAX_SHARE`), a subtotal never more than the
    total, and a subtotal equal to a total that carries a non-zero tax is the tax-inclusive
    "subtotal" of receipts printed before rounding, not the amount before tax. Among the remaining
    combinations, the one where subtotal + tax = total (within 0.01, the rounding of one sen/cent) wins;
    a printed rate that agrees with the tax (``tax = total x r / (100 + r)``, tax-inclusive prices,
    or ``subtotal x r / 100``) adds weight. Several sales taxes printed one under the other (GST + PST)
    are also tried as their sum (:func:`_summed_taxes`).
    """
    t_val = _d(total.value) if total else None
    rows = layout.rows()
    taxes: list[Candidate] = []
    subs: list[Candidate] = []
    if subtotal is not None:
        subtotal.score = 2.0
        subs.append(subtotal)
    tax_rows: list[tuple[int, str, Candidate]] = []  # (row index, label, rightmost amount) of each tax row
    for i, row in enumerate(rows):
        first = row[0]
        text = " ".join(ln.text for ln in row)
        m = _TAX_ROW.search(first.text)
        if m and _TAXABLE_ROW.search(text):
            toks = [t for t in _row_amounts(row, m.end()) if t[2]]
            if toks:
                v, raw, _dec, ln = toks[-1]
                subs.append(Candidate(v, raw, [ln], [], 0.7, 1.0))
            continue
        if not m or (_TAX_ROW_EXCLUDE.search(text) and not _TAX_INCLUDED_ROW.match(text)):
            continue
        # receipts print money with its decimals; a bare integer on a tax row is a rate or a misread "@"
        toks = [t for t in _row_amounts(row, m.end()) if t[2]]
        rate = _RATE.search(text)
        for k, (v, raw, _dec, ln) in enumerate(reversed(toks)):
            c = Candidate(v, raw, [ln], [], 0.8, 2.0 - 0.3 * k)
            if rate and t_val is not None and _d(v) is not None:
                r = Decimal(rate.group(1).replace(",", "."))
                if abs(t_val * r / (100 + r) - _d(v)) <= Decimal("0.02"):  # type: ignore[operator]
                    c.score += 0.5
            taxes.append(c)
            if k == 0 and not _TAX_INCLUDED_ROW.match(text):
                # the tax's name as printed and its rate: "GST 5%" / "PST 7%", "State Tax" / "County Tax"
                tax_rows.append((i, f"{first.text[:m.end()]} {rate.group(1) if rate else ''}", c))
    summary = _summary_rows(layout, rows)
    if summary:
        subs.append(summary[0])
        taxes.append(summary[1])

    def ok_tax(c: Candidate) -> bool:
        v = _d(c.value)
        if v is None or v < 0:
            return False
        return t_val is None or t_val == 0 or v <= t_val * Decimal(_MAX_TAX_SHARE)

    taxes = [c for c in taxes if ok_tax(c)]
    taxes += [c for c in _summed_taxes(tax_rows, subs, t_val) if ok_tax(c)]
    # an amount read off a taxable-amount row or the summary table that exceeds the total is no subtotal;
    # the labelled subtotal is kept whatever its size: above the total it is a discount or a misread
    # total, and subtotal + tax = total (validate) then says so, where dropping it hid both
    subs = [c for c in subs if _d(c.value) is not None
            and (t_val is None or c is subtotal or _d(c.value) <= t_val)]  # type: ignore[operator]
    best: tuple[float, Candidate | None, Candidate | None] = (0.0, None, None)
    for tax in [None, *taxes]:
        for sub in [None, *subs]:
            tv, sv = (_d(tax.value) if tax else None), (_d(sub.value) if sub else None)
            if sv is not None and t_val is not None and sv == t_val and (tv or 0) > 0:
                continue
            score = (tax.score if tax else 0) + (sub.score if sub else 0)
            if tv is not None and sv is not None and t_val is not None:
                if abs(sv + tv - t_val) <= Decimal("0.01"):
                    score += 3
                else:
                    score -= 1.5
            if score > best[0]:
                best = (score, tax, sub)
    _score, tax, sub = best
    if tax is not None:
        tax.factor = 0.9 if sub is not None else 0.75
    return tax, sub


def pick_tax_id(layout: Layout) -> Candidate | None:
    """The shop's tax ID: a well-formed VAT number after its label (``VAT Reg No GB 284 6193 51``,
    ``USt-IdNr. DE318274655``, ``BTW NL810433941B01``: the VIES formats of
    :mod:`desktop.core.extraction.taxids`, spaces and dots dropped), else the GST / SST / VAT
    registration number, else the company registration number, as printed."""
    from desktop.core.extraction.taxids import BUYER_MARK, TAX_ID_LABEL, match_vat

    def vat(text: str) -> tuple[str | None, str, list[Diagnostic]] | None:
        v = match_vat(text)
        return (v, text.strip(), []) if v else None

    vats = [c for c in layout.labelled(TAX_ID_LABEL, vat, below=False, factor=0.9)
            if not BUYER_MARK.search(" ".join(ln.text for ln in layout.row(c.lines[0])))]
    if vats:
        return vats[0]
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
            date.problems.append(diag(Code.AMBIGUOUS_DATE_ORDER, raw=date.raw, order=order))
    total, subtotal = pick_total(layout)
    tax, subtotal = pick_tax_subtotal(layout, total, subtotal)
    # a VAT breakdown of several rates ("A 7% 5,23 0,37 5,60 / B 19% 2,39 0,46 2,85"): the tax and the
    # amount before tax are the sums of its rows, never one rate's (desktop.core.extraction.vat_breakdown)
    subtotal, tax = apply_breakdown(find_vat_breakdown(layout), subtotal, tax, total,
                                    [subtotal] if subtotal else [], [tax] if tax else [], layout)
    return {
        "vendor_name": vendor,
        "vendor_address": pick_address(layout, vendor_row),
        "vendor_tax_id": pick_tax_id(layout),
        "date": date,
        "time": pick_time(layout, date),
        "subtotal": subtotal,
        "tax": tax,
        "total": total,
        "currency": currency,
    }
