"""Commercial invoices in English, French, German and Dutch (text-layer PDFs or OCR).

Labels per language (the usual printed wording; invoice2data's templates use the same):

* invoice number: Invoice No / Number / # / ID, Facture n°, Numéro de facture, Rechnungsnummer /
  Rechnungsnr. / Rechnung Nr., Factuurnummer / Factuurnr., Factuur (header cell with the number below).
* date: Invoice Date, Date, Date de facture, Rechnungsdatum, Datum, Factuurdatum, Factuur datum
  (not Due / Order / Delivery dates).
* total: Grand Total, Total, Amount Due, Total TTC, Net à payer, Gesamtbetrag, Rechnungsbetrag,
  Total EUR, Totaal, Te betalen, Factuur totaal.
* subtotal: Untaxed Amount, Subtotal, Total HT, Netto, Zwischensumme, Exclusief BTW, Grondslag.
* tax: Tax, VAT, TVA, MwSt./USt., BTW (amounts, not VAT numbers).

Values are taken from the same line, the rightmost box of the label's row, or the line just below
(table headers).
"""
from __future__ import annotations

import re

from desktop.core.extraction.common import document_currency, infer_date_order, tidy_name
from desktop.core.extraction.dates import find_dates
from desktop.core.extraction.layout import Candidate, Layout
from desktop.core.extraction.parsers import amount_finder, date_finder

__all__ = ["extract_invoice", "INVOICE_NUMBER_LABEL", "invoice_number_candidates"]

INVOICE_NUMBER_LABEL = re.compile(
    r"(invoice|inv|bill)\s*(no\.?|number|nr\.?|num\.?|#|id)\s*[:.#]?|"
    r"factur[ae]\s*(n[°ºo]\.?|nr\.?|num[ée]ro|number|#)\s*[:.]?|num[ée]ro\s*de\s*facture\s*[:.]?|"
    r"rechnungs?\s*-?\s*(nummer|nr\.?|no\.?)\s*[:.]?|rechnung\s*(nr\.?|nummer|no\.?)\s*[:.]?|"
    r"factuur\s*-?\s*(nummer|nr\.?|no\.?)\s*[:.]?|notanummer\s*[:.]?", re.I)
_INVOICE_WEAK = re.compile(r"^\W*(invoice|facture|factuur|rechnung|tax invoice)\b\s*[:.]?", re.I)
_ORDER_LABEL = re.compile(r"order\s*(id|no\.?|number|#)\s*[:.]?|bestellnummer\s*[:.]?|ordernummer\s*[:.]?", re.I)
_NOT_NUMBER = re.compile(r"date|datum|dossier|klant|kunde|customer|client|order|due|verval|tax|btw|vat|tva", re.I)


def _invoice_no(text: str) -> tuple[str | None, str, list[str]] | None:
    t = text.strip(" :.#\t")
    m = re.match(r"#?\s*([A-Z0-9][A-Z0-9/_.\-]*\d[A-Z0-9/_.\-]*)", t, re.I)
    if not m or len(m.group(1)) < 3 or find_dates(m.group(1)):
        return None
    return m.group(1).rstrip(".-/"), m.group(0), []


def invoice_number_candidates(layout: Layout) -> list[Candidate]:
    """Invoice number candidates, best first (explicit number labels > "Invoice X" > order IDs)."""
    out = []
    for c in layout.labelled(INVOICE_NUMBER_LABEL, _invoice_no, exclude=re.compile(r"dossier|kunden|klant", re.I)):
        c.score = 3
        out.append(c)
    for c in layout.labelled(_INVOICE_WEAK, _invoice_no, exclude=_NOT_NUMBER, factor=0.8):
        c.score = 2
        out.append(c)
    for c in layout.labelled(_ORDER_LABEL, _invoice_no, factor=0.5):
        c.score = 1
        out.append(c)
    out.sort(key=lambda c: -c.score)
    return out


_DATE_LABEL = re.compile(r"(invoice|bill|issue|rechnungs|factuur|facture)?\s*-?\s*(date|datum)\b|date\s*de\s*facture|"
                         r"datum\s*factuur|\bdate\b|\bdatum\b|\bdated\b", re.I)
_DATE_EXCLUDE = re.compile(r"due|verval|order|bestel|liefer|lever|delivery|f[äa]llig|échéance|echeance|expir|print", re.I)
_TOTAL_STRONG = re.compile(r"grand\s*total|amount\s*due|balance\s*due|total\s*due|total\s*ttc|net\s*[àa]\s*payer|"
                           r"gesamtbetrag|rechnungsbetrag|endbetrag|te\s*betalen|factuur\s*totaal|total\s*amount|"
                           r"total\s*(incl|inkl)|totaal\s*incl|montant\s*ttc|invoice\s*total", re.I)
_TOTAL_ANY = re.compile(r"total|totaal|gesamt|summe|betrag|te\s*betalen|amount\s*due|net\s*[àa]\s*payer", re.I)
_TOTAL_EXCLUDE = re.compile(r"sub\s*-?\s*tota|total\s*ht|\bht\b|excl|exkl|netto|untaxed|before|zwischen|qty|quantity|"
                            r"ohne|tax\b|vat\b|btw\s*bedrag|items?\b|discount|korting|rabatt|remise|hoeveelheid|"
                            r"zeilenbetrag", re.I)
_SUB_STRONG = re.compile(r"untaxed|total\s*ht|montant\s*ht|exclusief\s*btw|excl\.?\s*(btw|vat|tax|mwst)|"
                         r"net(to)?\s*(amount|betrag|bedrag)?\b|grondslag|ohne\s*mwst|before\s*tax|zwischensumme", re.I)
_SUB_ANY = re.compile(r"sub\s*-?\s*tota\w*|untaxed|total\s*ht|exclusief|excl|netto|grondslag|zwischensumme|"
                      r"before\s*tax", re.I)
_TAX_LABEL = re.compile(r"\b(tax|vat|tva|mwst|ust|btw|gst|sales\s*tax|iva)\b", re.I)
_TAX_EXCLUDE = re.compile(r"incl|inkl|excl|exkl|ohne|nummer|number|n[°º]|\bnr\b|\bno\b|\bid\b|\bregistr|tax\s*invoice|"
                          r"%\s*$|service\s*tax\s*#|grondslag|prijzen|prices|tin\b|siret|intracom", re.I)
_COMPANY = re.compile(r"\b(B\.?V\.?|N\.?V\.?|GmbH|AG|Ltd\.?|Limited|Inc\.?|LLC|SARL|SAS|S\.A\.|SA|SRL|BVBA|"
                      r"Pvt\.?|PLC|Corp\.?|Co\.|KG|e\.K\.|UG)(?=\W|$)")
_BUYER_LABEL = re.compile(r"(bill\s*to|billed\s*to|sold\s*to|ship\s*to|customer|client|kunden?|klant|"
                          r"factuuradres|billing\s*address|destinataire|rechnungsempf\w*)(?!\s*-?\s*(nr|nummer|number|no|id|ref))", re.I)


def _rank(cands: list[Candidate], strong: re.Pattern[str], layout: Layout) -> Candidate | None:
    if not cands:
        return None
    for i, c in enumerate(cands):
        label_line = c.lines[0]
        row = layout.row(label_line)
        row_text = " ".join(ln.text for ln in row)
        c.score = (2 if strong.search(row_text) else 1) + 0.001 * i
        try:
            if float(c.value or 0) == 0:
                c.score -= 1.5
        except ValueError:
            pass
    return max(cands, key=lambda c: c.score)


def pick_vendor(layout: Layout) -> Candidate | None:
    """The issuer: a company name (legal-form suffix) near the top of page 1, else the first
    left-aligned text line at the top that is not a document title."""
    if not layout.lines:
        return None
    first_page = layout.lines[0].page
    lines = [ln for ln in layout.lines if ln.page == first_page]
    buyer_zone: set[int] = set()
    for ln in lines:
        if _BUYER_LABEL.search(ln.text):
            for o in layout.below(ln, 2):
                buyer_zone.add(id(o))
    for ln in lines:
        if ln.rel_y > 0.4 or id(ln) in buyer_zone:
            continue
        m = _COMPANY.search(ln.text)
        if m:
            name = re.split(r"\s+[-–|]\s+|,\s", ln.text)[0]
            name = re.sub(r"^(sold\s*by|from|von|de)\s*:?\s*", "", name, flags=re.I)
            return Candidate(tidy_name(name), ln.text, [ln], [], 0.75)
    for ln in lines[:3]:
        if ln.rel_y > 0.25:
            break
        t = ln.text
        if ln.x0 > 0.4 * ln.page_width or _INVOICE_WEAK.search(t) or re.search(r"\d", t) or len(t) < 3:
            continue
        if id(ln) in buyer_zone or _BUYER_LABEL.search(t):
            continue
        return Candidate(tidy_name(t), t, [ln], [], 0.45)
    return None


def pick_buyer(layout: Layout) -> Candidate | None:
    """The first line after a Bill to / Customer / Factuuradres label."""
    for ln in layout.lines:
        m = _BUYER_LABEL.search(ln.text)
        if not m:
            continue
        rest = ln.text[m.end():].strip(" :")
        if len(rest) >= 3 and re.search(r"[A-Za-z]{2,}", rest) and not re.search(r"\d{4,}", rest):
            return Candidate(rest, rest, [ln], [], 0.6)
        below = layout.below(ln, 1)
        if below and re.search(r"[A-Za-z]{2,}", below[0].text):
            return Candidate(below[0].text, below[0].text, below, [], 0.55)
    return None


def extract_invoice(layout: Layout, date_order: str | None = None) -> dict[str, Candidate | None]:
    """Every invoice field as a candidate (``None`` when not found)."""
    currency = document_currency(layout)
    order, hinted = (date_order.upper(), True) if date_order else infer_date_order(
        layout, currency.value if currency else None, "DMY")
    numbers = invoice_number_candidates(layout)
    dates = layout.labelled(_DATE_LABEL, date_finder(order), exclude=_DATE_EXCLUDE)
    dates.sort(key=lambda c: 0 if re.search(r"invoice|rechnung|factu", c.lines[0].text, re.I) else 1)
    date = dates[0] if dates else None
    if date is None:
        for ln in layout.lines:
            found = [d for d in find_dates(ln.text, order) if d.value]
            if found and not _DATE_EXCLUDE.search(ln.text):
                date = Candidate(found[0].value, found[0].raw, [ln], list(found[0].problems), 0.5)
                break
    if date and date.value and not hinted:
        d = find_dates(date.raw, order)
        if d and d[0].ambiguous:
            date.problems.append(f"day/month order of {date.raw!r} is ambiguous; read as {order}")
    money = amount_finder(need_decimals=True)
    totals = layout.labelled(_TOTAL_ANY, money, exclude=_TOTAL_EXCLUDE, prefer_rightmost=True)
    subs = layout.labelled(_SUB_ANY, money, prefer_rightmost=True, factor=0.9)
    taxes = layout.labelled(_TAX_LABEL, money, exclude=_TAX_EXCLUDE, prefer_rightmost=True, factor=0.85)
    total = _rank(totals, _TOTAL_STRONG, layout)
    subtotal = _rank(subs, _SUB_STRONG, layout)
    if subtotal is not None and total is not None and subtotal.value == total.value and len(subs) > 1:
        others = [c for c in subs if c.value != total.value]
        subtotal = _rank(others, _SUB_STRONG, layout) or subtotal
    tax = taxes[-1] if taxes else None
    return {
        "vendor_name": pick_vendor(layout),
        "vendor_address": None,
        "vendor_tax_id": None,
        "buyer_name": pick_buyer(layout),
        "buyer_tax_id": None,
        "invoice_number": numbers[0] if numbers else None,
        "date": date,
        "subtotal": subtotal,
        "tax": tax,
        "total": total,
        "currency": currency,
    }
