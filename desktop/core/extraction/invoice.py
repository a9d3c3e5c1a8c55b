"""Commercial invoices in English, French, German and Dutch (text-layer PDFs or OCR).

Labels per language (the usual printed wording; invoice2data's templates use the same):

* invoice number: Invoice No / Number / # / ID, Facture n°, Numéro de facture, Rechnungsnummer /
  Rechnungsnr. / Rechnung Nr., Factuurnummer / Factuurnr., Factuur (header cell with the number below).
* date: Invoice Date, Date, Date de facture, Rechnungsdatum, Datum, Factuurdatum, Factuur datum
  (not Due / Order / Delivery dates).
* total: Grand Total, Total, Amount Due, Total TTC, Net à payer, Gesamtbetrag, Rechnungsbetrag,
  Total EUR, Totaal, Te betalen, Factuur totaal.
* subtotal: Untaxed Amount, Subtotal, Total HT, Netto, Zwischensumme, Exclusief BTW, Grondslag, Imponibile, and
  "Net" alone (EN 16931 BT-109, the total without VAT); never an amount-due label ("Netto a pagare").
* tax: Tax, VAT, TVA, MwSt./USt., BTW (amounts, not VAT numbers).

On an invoice with a VAT breakdown of several rates (:mod:`.vat_breakdown`), the tax is the sum of the
rates' taxes and the subtotal that of their bases, unless printed totals add up to the total.

Values are taken from the same line, the rightmost box of the label's row, or the line just below
(table headers).
"""
from __future__ import annotations

import re
from collections.abc import Callable

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.extraction.banking import BANK_DETAILS_LABEL, find_ibans, labelled_iban_like
from desktop.core.extraction.common import (
    document_currency,
    infer_date_order,
    looks_like_name,
    tidy_name,
)
from desktop.core.extraction.dates import find_dates
from desktop.core.extraction.invoice_totals import (
    AMOUNT_DUE_LABEL,
    NET_TOTAL_LABEL,
    amount_due_candidate,
    per_rate_tax,
    prefer_total,
    strip_rate_base,
    tax_money,
)
from desktop.core.extraction.labels import label_pattern
from desktop.core.extraction.layout import Candidate, Layout, Ln
from desktop.core.extraction.legal_forms import LEGAL_FORM, LEGAL_FORM_END
from desktop.core.extraction.parsers import amount_finder, date_finder
from desktop.core.extraction.taxids import BARE_TAX_ID, REGISTRATION_LABEL, REGISTRATION_NUMBER, TAX_ID_LABEL
from desktop.core.extraction.vat_breakdown import apply_breakdown, find_vat_breakdown

__all__ = ["extract_invoice", "INVOICE_NUMBER_LABEL", "invoice_number_candidates"]

INVOICE_NUMBER_LABEL = re.compile(
    r"(invoice|inv|bill)\s*(no\.?|number|nr\.?|num\.?|#|id)\s*[:.#]?|"
    r"factur[ae]\s*(n[°ºo]\.?|nr\.?|num[ée]ro|number|#)\s*[:.]?|num[ée]ro\s*de\s*facture\s*[:.]?|"
    # Italian, Spanish, Portuguese, Polish/Czech/Nordic: "Fattura n. 45/2026", "Factura nº", "Fatura n.º",
    # "Faktura nr", "Numero fattura", "Número de factura", "N. fattura"
    r"(fattura|factura|fatura|faktura)\s*(n\.?\s*[°ºo]?\.?(?![^\W\d_])|nr\.?|num\.?|numero|número|no\.?|#)\s*[:.]?|"
    r"(numero|número|n\.?\s*[°º]?)\s*(di\s*|de\s*|da\s*)?(fattura|factura|fatura)\s*[:.]?|"
    r"rechnungs?\s*-?\s*(nummer|nr\.?|no\.?)\s*[:.]?|rechnung\s*(nr\.?|nummer|no\.?)\s*[:.]?|"
    r"factuur\s*-?\s*(nummer|nr\.?|no\.?)\s*[:.]?|notanummer\s*[:.]?|"
    # a credit note's own number (EN 16931 BT-1 of a credit note, type code 381): "Credit note no. 12",
    # "CREDIT NOTE CN-00342", "Gutschrift Nr. 7", "Avoir n° A-12", "Creditnota 2026-4", "Nota di credito n. 3"
    r"(credit\s*note|credit\s*memo|gutschrift|avoir|creditnota|nota\s*de\s*cr[ée]dito|nota\s*di\s*credito|"
    r"nota\s*kredit)\s*(n[°ºo]\.?|nr\.?|no\.?|number|nummer|num[ée]ro|#|(?=[:#]?\s*[A-Z]{0,4}[-/]?\d))\s*[:.]?", re.I)
_INVOICE_WEAK = re.compile(r"^\W*(invoice|facture|factuur|rechnung|fattura|factura|fatura|faktura|tax invoice)\b\s*[:.]?",
                           re.I)
_ORDER_LABEL = re.compile(r"order\s*(id|no\.?|number|#)\s*[:.]?|bestellnummer\s*[:.]?|ordernummer\s*[:.]?", re.I)
_NOT_NUMBER = re.compile(r"date|datum|dossier|klant|kunde|customer|client|order|due|verval|tax|btw|vat|tva|"
                         r"\biva\b|partita|fiscal|\bnif\b|\bcif\b", re.I)


def _invoice_no(text: str) -> tuple[str | None, str, list[Diagnostic]] | None:
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
#: A tax label line that ends with its rate ("MwSt. 19 %", "BTW 21%"): excluded above, since a tax summary
#: table's rows and column headings end so too ("TVA 5,5%  543,00 €  29,87 €", "MwSt-Betrag MwSt-%"); it
#: is the tax when exactly one amount stands to its right on the row (:func:`_tax_after_its_rate`).
_RATE_END = re.compile(r"%\s*$")
#: Labels of the due date (EN 16931 BT-9, "Payment due date", and its wording in each language's
#: national CIUS: Fälligkeitsdatum, Date d'échéance, Vervaldatum, Fecha de vencimiento, Data di scadenza,
#: Data de vencimento): due date, payment due, pay(able) by, fällig (am), zahlbar bis, échéance, date
#: limite de paiement, vervaldatum / vervaldag, te betalen voor, scadenza, vencimiento, vencimento; and
#: "Due" alone when it opens the line as a label ("Due: March 17, 2025", "Due on 17/03/2025", "Due by
#: ..."): US invoices print it so beside "Terms: Net 15"; and "Due" alone as the line's whole label, its
#: date in the box to the right or after it ("Due | April 4, 2025", "Due  2 May 2025": the invoice head's
#: Date / Due pair). Not "Balance due" / "Amount due" / "Total due" (amounts: "due" does not open them).
#: The payment's deadline worded as a phrase: pay before / payable before, zahlbar am / zahlbar bis zum
#: (also "zahlbar ohne Abzug bis zum", "zahlbar netto bis", the usual sentence of German invoices),
#: Zahlungstermin, à régler / à payer / payable avant le, (te) betalen vóór, uiterste betaaldatum, da
#: pagare entro / pagamento entro il, pagar antes de / fecha límite de pago, pagar até. The German
#: "Zahlungsziel" is a terms label ("Zahlungsziel: 14 Tage"), so it labels the due date only when a date
#: is all that follows it (:data:`_TERMS_DATE_LABEL`).
#: what opens a date: 10.04.2025, 2025-04-10, 2 May 2025, April 4, 2025
_DATE_AHEAD = r"(?=\s*$|\s*(\d{1,4}[./-]\d{1,2}[./-]\d{2,4}|\d{1,2}\.?\s+[^\W\d_]{3,}\.?\s+\d{4}|[^\W\d_]{3,9}\.?\s+\d{1,2}\b))"
_TERMS_DATE_LABEL = re.compile(r"^\W*zahlungsziel\s*[:：]?" + _DATE_AHEAD, re.I)
_DUE_LABEL = re.compile(r"due\s*date|payment\s*due|date\s*due|pay(able)?\s*by|f[äa]llig(keit|keitsdatum)?(\s*am)?|"
                        r"zahlbar\s*((ohne|mit)\s*abzug\s*|netto\s*)?(bis|am)|zahlungstermin|[ée]ch[ée]ance|date\s*d'[ée]ch[ée]ance|"
                        r"date\s*limite\s*de\s*(paiement|r[èe]glement)|"
                        r"(r[ée]gler|payer|payable)\s*avant\s*le|"
                        r"vervaldatum|vervaldag|betalen\s*v[oó]{2}r|uiterste\s*betaaldatum|scadenza|"
                        r"(pagare|pagamento)\s*entro|vencimiento|vencimento|pagar\s*(antes\s*de|at[ée])|"
                        r"fecha\s*l[íi]mite\s*de\s*pago|pay(able)?\s*before|"
                        r"^\W*due(\s*(on|by))?\s*[:：]|^\W*due\s+(on|by)(?![^\W\d_])|"
                        r"^\W*due" + _DATE_AHEAD + "|" + _TERMS_DATE_LABEL.pattern, re.I)
#: Payment terms (EN 16931 BT-20): a line that states them, labelled or not: "Payment terms: 30 days",
#: "Zahlbar innerhalb 30 Tagen ohne Abzug", "Zahlungsziel", "Conditions de paiement", "Betalingstermijn",
#: "Net 30", "payable within 14 days".
_TERMS = re.compile(r"payment\s*terms|terms\s*of\s*payment|zahlungs(bedingungen|ziel|frist)|zahlbar\s*(innerhalb|sofort|"
                    r"binnen|ohne)|conditions?\s*de\s*(paiement|r[èe]glement)|betalings(termijn|voorwaarden)|"
                    r"\bnet\s*\d{1,3}\b|payable\s*(within|in)\s*\d|te\s*betalen\s*binnen|betaling\s*binnen|[àa]\s*\d{1,3}\s*jours", re.I)
#: The label before the terms, dropped from the value ("Terms: Net 15" -> "Net 15", "Payment terms: 30 days
#: net" -> "30 days net"): EN 16931 BT-20 "Payment terms" as printed in each language's national CIUS
#: and on invoices (Terms, Payment terms, Terms of payment, Zahlungsbedingungen, Zahlungsziel,
#: Zahlungskonditionen, Conditions de paiement / de règlement, Modalités de paiement,
#: Betalingsvoorwaarden, Betalingstermijn, Betalingscondities, Condiciones / Términos de pago, Condizioni /
#: Termini di pagamento, Condições / Termos de pagamento), only with its colon: a label, not a sentence.
_TERMS_LABEL = re.compile(
    r"^\W*((payment\s*)?terms(\s*of\s*payment)?|zahlungs(bedingungen|ziel|frist|konditionen)|"
    r"(conditions?|modalit[ée]s)\s*de\s*(paiement|r[èe]glement)|betalings(voorwaarden|termijn|condities)|"
    r"(condiciones|t[ée]rminos)\s*de\s*pago|(condizioni|termini)\s*di\s*pagamento|"
    r"(condi[çc][õo]es|termos)\s*de\s*pagamento)\s*[:：]\s*", re.I)
#: Spanish, Italian and Portuguese labels from the shared vocabulary (``resources/labels/amounts.json``,
#: :mod:`desktop.core.extraction.labels`); the patterns above keep their OCR variants.
_MORE = ("es", "it", "pt")


def _either(a: re.Pattern[str], *more: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p.pattern})" for p in (a, *more)), re.I)


_TOTAL_STRONG = _either(_TOTAL_STRONG, label_pattern("total", "strong", _MORE))
_TOTAL_ANY = _either(_TOTAL_ANY, label_pattern("total", None, _MORE))
_TOTAL_EXCLUDE = _either(_TOTAL_EXCLUDE, label_pattern("not_total", None, _MORE), label_pattern("subtotal", None, _MORE))
_SUB_STRONG = _either(_SUB_STRONG, label_pattern("subtotal", None, _MORE))
#: the total without VAT (BT-109) also under the one word "Net" (:data:`~.invoice_totals.NET_TOTAL_LABEL`)
_SUB_ANY = _either(_SUB_ANY, label_pattern("subtotal", None, _MORE), NET_TOTAL_LABEL)
#: the vocabulary's tax names in the Latin-script languages (Canada's HST, PST, QST, TPS, TVQ, ...)
_TAX_LABEL = _either(_TAX_LABEL, label_pattern("tax", None, ("en", "de", "fr", "nl", *_MORE)))
#: A line opening with a terms label states the terms too ("Condiciones de pago: 30 días").
_TERMS = _either(_TERMS, _TERMS_LABEL)
_COMPANY = re.compile(r"\b(B\.?V\.?|N\.?V\.?|GmbH|AG|Ltd\.?|Limited|Inc\.?|LLC|SARL|SAS|S\.A\.|SA|SRL|BVBA|"
                      r"Pvt\.?|PLC|Corp\.?|Co\.|KG|e\.K\.|UG)(?=\W|$)")
#: Customer labels, matched as whole words only: never a fragment of a longer word ("Kundennr." is the
#: customer *number* label, "Stammkunde" a word in a sentence), and not followed by a number label; a
#: letter's recipient heading ("To:") only where it opens its line with a colon.
_BUYER_LABEL = re.compile(r"(?<![^\W\d_])(bill\s*to|billed\s*to|sold\s*to|ship\s*to|invoice\s*to|customer|client|kunde|klant|"
                          r"factuuradres|billing\s*address|destinataire|rechnungsempf\w*|factur[ée]e?s?\s*[àa]|adresse\s*de\s*facturation|"
                          r"rechnung\s*an|rechnungsadresse|gefactureerd\s*aan|invoiced\s*to|"
                          # Italian, Spanish, Portuguese (EN 16931 BG-7 "Buyer": cliente, committente, comprador)
                          r"cliente|committente|destinatario|spett\.?\s*le|comprador|adquirente)(?![^\W\d_])"
                          r"(?!\s*-?\s*(nr|nummer|number|no|id|ref|#))|"
                          # the recipient heading of a letter, opening its line with a colon, as "From:" heads the
                          # sender (pick_vendor): To:, An: (de), À : / A : (fr), Aan: (nl), Para: (es, pt)
                          r"^\W*(to|an|[àa]|aan|para)(?=\s*[:：])", re.I)


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
    """The issuer: a company name (a legal form of :mod:`.legal_forms`) near the top of page 1, else
    the first left-aligned text line at the top that is not a document title."""
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
        m = _COMPANY.search(ln.text) or LEGAL_FORM.search(ln.text) or LEGAL_FORM_END.search(ln.text)
        if m:
            name = re.split(r"\s+[-–|]\s+|,\s", ln.text)[0]
            # a sender label ("Sold by", "Von:", "De :"), never the start of the name ("Delta", "De Vries", "Vondel")
            name = re.sub(r"^(sold\s*by\b\s*:?|(from|von|de)\s*:)\s*", "", name, flags=re.I)
            return Candidate(tidy_name(name), ln.text, [ln], [], 0.75)
    for ln in lines[:3]:
        if ln.rel_y > 0.25:
            break
        t = ln.text
        if ln.x0 > 0.4 * ln.page_width or _INVOICE_WEAK.search(t) or re.search(r"\d", t) or len(t) < 3:
            continue
        if id(ln) in buyer_zone or _BUYER_LABEL.search(t) or not looks_like_name(t):
            continue
        return Candidate(tidy_name(t), t, [ln], [], 0.45)
    return None


_LEGAL_FOOTER = re.compile(
    r"capital|\bRCS\b|\bRSC\b|siret|siren|si[èe]ge\s*social|\bKvK\b|handelsregister|registergericht|\bHRB\b|"
    r"company\s*(reg\w*|no|number)|registered\s*(office|in)|vorstand|gesch[äa]ftsf[üu]hrer|\bCIN\b", re.I)
_ACCOUNT_HOLDER = re.compile(r"(titulaire\s*du\s*compte|account\s*holder|kontoinhaber|rekeninghouder|"
                             r"beneficiary|t\.?\s*n\.?\s*v\.?)\s*[:：]\s*", re.I)
_CONTACT = re.compile(r"\b(tel|phone|fax|e-?mail|www\.|http|iban|bic|swift|kvk|btw|vat|tva|ust|mwst|gst|"
                      r"siret|bank|konto|telefon|t[ée]l[ée]phone)\b|@", re.I)
_POSTCODE_LINE = re.compile(r"\b(\d{4}\s?[A-Z]{2}|[A-Z]-?\d{4,5}|\d{5}(-\d{4})?|\d{6}|[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}|"
                            # an Australian state and postcode ("Melbourne VIC 3000", Australia Post)
                            r"[A-Z]{2}\s+\d{5}|(NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\s+\d{4})\b")


def pick_vendor_footer(layout: Layout) -> Candidate | None:
    """The issuer from the legal footer or the bank details, for invoices whose letterhead is a logo.

    Company law makes the issuer print its registered name with its legal details (EU Directive
    2017/1132 art. 26 -- name, legal form, register and number on letters and order forms; French
    Code de commerce R123-237; German HGB s. 37a / AktG s. 80): a short name line directly above
    such a footer line (``NETPRESSE`` / ``Siège social ... Sarl au capital ... RCS``) or the bank
    account holder (``Titulaire du compte : NETPRESSE``).
    """
    for ln in layout.lines:
        m = _ACCOUNT_HOLDER.search(ln.text)
        if m:
            name = re.split(r"\s[-–|]\s|,", ln.text[m.end():])[0].strip()
            if len(re.findall(r"[^\W\d_]", name)) >= 3 and not re.search(r"\d{3}", name):
                return Candidate(tidy_name(name), ln.text, [ln], [], 0.6)
    for ln in layout.lines:
        if ln.rel_y < 0.75 or not _LEGAL_FOOTER.search(ln.text):
            continue
        above = [o for o in layout.lines if o.page == ln.page and o.y1 <= ln.y0 + 0.2 * ln.h
                 and ln.y0 - o.y1 < 1.5 * ln.h and o.rel_y >= 0.7]
        above.sort(key=lambda o: -o.y1)
        for o in above[:1]:
            t = o.text.strip()
            if 3 <= len(t) <= 60 and not re.search(r"\d", t) and not _CONTACT.search(t) and len(t.split()) <= 6:
                return Candidate(tidy_name(t), t, [o], [], 0.55)
    return None


#: A line that is only a tax or registration number printed under the issuer's address: a VAT number
#: (EU VAT Directive 2006/112/EC art. 226(3)), a German Steuernummer ("201/113/40209", UStG s. 14(4)
#: Nr. 2), an Australian ABN ("51 824 753 556", A New Tax System (Australian Business Number) Act 1999)
#: -- digits and separators with at most a two-letter country prefix. No postal line is only that.
_BARE_NUMBER = re.compile(r"^\W*([A-Z]{2})?\s?\d[\d\s./-]{6,}\d\W*$", re.I)
#: Registration, tax and contact words that end the issuer's address block, beyond :data:`_CONTACT`:
#: Australian Business / Company Number (ABN, ACN), the US Employer Identification Number (EIN), the
#: Indian GSTIN, the Malaysian SST registration, the Spanish CIF / NIF / NIE (Agencia Tributaria), the Austrian
#: and Swiss UID, the Canadian HST / QST (TPS / TVQ) registration labels (CRA, Revenu Québec), a company or
#: register number ("Company No.", "Reg. No.",
#: "Registernummer", "N° TVA") and a contact person ("Ansprechpartner", "Contact").
#: The acronyms only in capitals: "ein" is a German word ("ein Unternehmen der ...").
_REGISTRATION_LINE = re.compile(r"(?-i:\b(ABN|ACN|EIN|FEIN|CIF|NIF|NIE|UID|HST|QST|TPS|TVQ)\b)|"
                                r"\b(gstin|sst|company\s*(reg\w*\s*)?no|reg(istration)?\.?\s*(no|nr|number)|"
                                r"register\w*|steuer\w*|st\.?-?nr|hra|ansprechpartner\w*|contact)\b|§", re.I)
#: The label of a person or a note in a label/value layout (the XRechnung / ZUGFeRD visualisations print the
#: seller's BT-41 contact point and BT-33 legal information between its name and its address): its value is
#: stepped over, not read as part of the address.
_NOT_ADDRESS_LABEL = re.compile(r"^\W*(ansprechpartner|kontakt\w*|contact(\s*(person|point))?|attn\.?|z\.\s*hd\.?|"
                                r"weitere\s*informationen|additional\s*(legal\s*)?information|nummer|number|name)\W*$", re.I)


#: Street, building and delivery words of the invoice languages (UPU S42 delivery-point lines): a line
#: holding one is part of the address even without a number ("Cour du fournisseur", "Postfach").
_STREET_WORD = re.compile(r"(stra(ss|ß)e|str\.?|weg|platz|gasse|allee|damm)\b|"  # German compounds: Industriestraße
                          r"\b(postfach|street|st\.|road|rd\.?|avenue|ave\.?|lane|drive|way|suite|floor|level|building|"
                          r"house|rue|chemin|boulevard|place|cour|quai|all[ée]e|impasse|route|straat|laan|plein|gracht|"
                          r"via|viale|piazza|corso|calle|jalan|lot|unit|block)\b", re.I)


#: A line that is only a web address or an e-mail address ("pinecrest.example", "https://acme.de/kontakt",
#: "info@acme.de"): a contact line, never part of a postal address (UPU S42 address lines hold no URL).
_WEB_LINE = re.compile(r"^\W*((https?://)?([a-z0-9-]+\.)+[a-z]{2,}(/\S*)?|[\w.+-]+@[\w-]+(\.[\w-]+)+)\W*$", re.I)


def _tax_id_start(text: str) -> int | None:
    """Where a tax or registration number starts in ``text``: a label with its number
    (:data:`~desktop.core.extraction.taxids.REGISTRATION_NUMBER`: ``EIN 12-3456789``, ``CIF B-84512376``,
    ``UID ATU87654321``, ``HST/GST No. 81234 5678 RT0001``) or a bare tax ID
    (:data:`~desktop.core.extraction.taxids.BARE_TAX_ID`: ``ATU87654321``, ``CHE-123.456.789 MWST``,
    ``123456789 RT0001``); ``None`` when the text holds none."""
    starts = [m.start() for m in (REGISTRATION_NUMBER.search(text), BARE_TAX_ID.search(text)) if m is not None]
    return min(starts) if starts else None


def _ends_issuer_block(text: str) -> bool:
    """Whether ``text`` cannot be part of the issuer's postal address: a contact, bank, tax or register
    line (:data:`_CONTACT`, :data:`_REGISTRATION_LINE`, :data:`_LEGAL_FOOTER`, a bare number
    :data:`_BARE_NUMBER`, a web or e-mail address :data:`_WEB_LINE`, a line that opens with a tax ID:
    :func:`_tax_id_start`), the document's heading or number, a party heading ("Bill To", "Kunde"), or a
    line the receipts' address spans never hold (a date, a till field row, a total:
    :func:`desktop.core.extraction.candidates.ends_address`)."""
    from desktop.core.extraction.candidates import ends_address

    return bool(_CONTACT.search(text) or _REGISTRATION_LINE.search(text) or _LEGAL_FOOTER.search(text)
                or _WEB_LINE.match(text) or _tax_id_start(text) == 0
                or _BARE_NUMBER.match(text) or INVOICE_NUMBER_LABEL.search(text) or _INVOICE_WEAK.search(text)
                or _BUYER_LABEL.search(text) or ends_address(text))


def pick_vendor_address(layout: Layout, vendor: Candidate | None) -> Candidate | None:
    """The issuer's postal address: the lines right under its name (street, postcode and town,
    country), up to the first contact / bank / tax-number / party line or gap; for a one-line sender
    line (``QualityHosting AG - Uferweg 40-42 - D-63571 Gelnhausen``, the return address printed above
    the window of DIN 5008 letters) the parts after the name. Parts are joined with ``", "``.

    The block starts on the line just under the name that sits in the name's column (same left edge)
    or under the name itself (overlapping it: a letterhead whose name is centred over a left-aligned or
    centred address); a registration number printed alone under the name ("(Company No. 201901012345)",
    Malaysian Companies Act 2016 s. 27) is stepped over. The next lines follow that first line's left
    edge. A tax or registration number printed at the end of an address line (``CA 95110, EIN
    12-3456789``: :data:`~desktop.core.extraction.taxids.REGISTRATION_NUMBER`) ends the address there:
    it is never part of it. Every invoice must carry the supplier's address (EU VAT Directive 2006/112/EC art. 226(5),
    UK VAT Regulations 1995 reg. 14(1)(c), UStG s. 14(4) Nr. 1; EN 16931 BG-5 is mandatory), so a
    block with a postcode line ends most letterheads.

    Confidence (these values are not scored by the learned model): 0.7 for a block that holds a
    postcode with its town (:data:`_POSTCODE_LINE`) and a line with a street number, ends where
    something else begins (a stop line, a gap, the page's end) and is at most four lines long; else
    0.5, under the review threshold: the clerk checks a block that may have run on or stopped short.
    """
    if vendor is None or not vendor.lines:
        return None
    head = vendor.lines[0]
    parts = [p.strip() for p in re.split(r"\s+[-–|•·]\s+", head.text) if p.strip()]
    if len(parts) >= 2 and _POSTCODE_LINE.search(" ".join(parts[1:])):
        rest = parts[1:]
        # "... - D-63571 Gelnhausen - USt-IdNr. DE..." ends at the number, "... · TX 78701 · billing@..." at the
        # contact: the address is the parts before the first that is no part of one
        regs = [i for i, part in enumerate(rest) if _tax_id_start(part) is not None or _ends_issuer_block(part)]
        rest = rest[:regs[0]] if regs else rest
        if rest:
            return Candidate(", ".join(rest), head.text, [head], [], 0.6)
    below = sorted((ln for ln in layout.lines if ln.page == head.page and ln.y0 > head.y0 + 0.5 * head.h
                    and ln not in vendor.lines), key=lambda o: (o.y0, o.x0))
    tail = vendor.lines[-1]
    out: list[tuple[str, Ln]] = []
    prev, left, ended = tail, head.x0, False

    def near(ln: Ln, prev: Ln) -> bool:
        return ln.y0 - prev.y1 <= 1.2 * max(ln.h, prev.h)

    for ln in below:
        if ln.y0 <= prev.y0 + 0.5 * prev.h:
            continue  # beside the last line taken (another column of the same row)
        if not out:
            in_column = abs(ln.x0 - head.x0) <= 1.5 * head.h
            under_name = ln.x0 < head.x1 and ln.x1 > head.x0
            if not (in_column or under_name):
                continue
        elif abs(ln.x0 - left) > 1.5 * head.h:
            continue
        if not near(ln, prev):
            ended = True
            break
        t = re.sub(r"^(registered\s*|warehouse\s*|office\s*|business\s*)?address\s*[:：]\s*", "", ln.text, flags=re.I)
        label = " ".join(o.text for o in layout.lines if o.page == ln.page and o.x1 <= ln.x0
                         and abs((o.y0 + o.y1) - (ln.y0 + ln.y1)) < ln.h)
        if label and _NOT_ADDRESS_LABEL.match(label):
            prev = ln  # "Ansprechpartner:  Hans Test": a contact person between the name and the address
            continue
        if label and _ends_issuer_block(label):
            ended = True
            break
        if not out and prev is tail and _REGISTRATION_LINE.search(t) and not _POSTCODE_LINE.search(t) \
                or not out and re.fullmatch(r"\W*\(.*\)\W*", t) and re.search(r"\d{5}", t):
            prev = ln  # "(Company No. 201901012345 / 1321456-X)" under the name, before the address
            continue
        reg = _tax_id_start(t)  # "..., CA 95110, EIN 12-3456789": the number ends the address
        cut = t[:reg].rstrip(" ,;-–|/") if reg is not None else ""
        if reg is not None and re.search(r"\w", cut) and not _ends_issuer_block(cut):
            left = ln.x0 if not out else left
            out.append((cut, ln))
            ended = True
            break
        if _ends_issuer_block(t):
            ended = True
            break
        if not out:
            left = ln.x0
        out.append((t, ln))
        prev = ln
        if len(out) >= 5:
            break
    else:
        ended = True
    while len(out) > 1 and not re.search(r"\d", out[0][0]) and not _STREET_WORD.search(out[0][0]):
        out.pop(0)  # a contact person or department over the street line ("Max Verkäufer", "Accounts Dept.")
    if not out or not any(_POSTCODE_LINE.search(t) or re.search(r"\d", t) for t, _ in out):
        return None
    sure = ended and len(out) <= 4 and any(_POSTCODE_LINE.search(t) for t, _ in out) \
        and any(re.search(r"(?<![\w-])\d{1,5}[a-z]?(?![\w-])", _POSTCODE_LINE.sub(" ", t), re.I) for t, _ in out)
    return Candidate(", ".join(t.strip(" ,") for t, _ in out), " / ".join(t for t, _ in out), [ln for _, ln in out], [],
                     0.7 if sure else 0.5)


#: Confidence factor of a buyer tax ID whose only evidence is that it sits in the block of a buyer found
#: without a label (the recipient address block of a window-envelope letter, :func:`pick_buyer`'s fallback):
#: under the review threshold, since that block may be a letterhead's.
BUYER_TAX_ID_UNSURE = 0.5


def _letterhead_block(layout: Layout, vendor: Candidate | None) -> set[int]:
    """The ids of the lines of the issuer's letterhead block: the vendor name's lines and the lines stacked
    right under them in their column (left edges within 1.5 line heights, each gap at most 1.2 line
    heights), on the name's page. EU VAT Directive 2006/112/EC art. 226(3)/(5) and its national forms
    (UStG s. 14(4), Wet OB art. 35a, UK VAT Regulations reg. 14) make the supplier print its VAT number
    with its name and address: a tax ID in this block, with no buyer wording beside it, is the issuer's."""
    if vendor is None or not vendor.lines:
        return set()
    head = vendor.lines[0]
    block = {id(ln) for ln in vendor.lines}
    prev = vendor.lines[-1]
    for ln in sorted((o for o in layout.lines if o.page == head.page and o.y0 > prev.y0 + 0.5 * prev.h
                      and id(o) not in block), key=lambda o: (o.y0, o.x0)):
        if abs(ln.x0 - head.x0) > 1.5 * head.h or ln.y0 <= prev.y0 + 0.5 * prev.h:
            continue
        if ln.y0 - prev.y1 > 1.2 * max(ln.h, prev.h) or _BUYER_LABEL.search(ln.text):
            break
        block.add(id(ln))
        prev = ln
    return block


def pick_tax_ids(layout: Layout, buyer: Candidate | None,
                 vendor_name: Candidate | None = None) -> tuple[Candidate | None, Candidate | None]:
    """``(vendor_tax_id, buyer_tax_id)``: VAT numbers / GSTINs (:mod:`desktop.core.extraction.taxids`).

    A labelled number (``BTW NL810433941B01``, ``UStId DE 232 446 240``, ``VAT/TIN: 29670869006``)
    belongs to the party its label says (``Uw BTW nummer``, ``N° TVA client``, ``Customer VAT``: the
    customer's; ``Notre n° TVA``: the issuer's), else to the party whose block it sits in: the nearest
    party heading above it in its column (:func:`_party_above`: "Verkäufer", "Adresse du Client", "Vos
    identifiants"; a tax representative's or a delivery address's number is neither party's), else the
    rules' buyer block; the rest are the issuer's, a number under the seller's heading first. A number in the
    issuer's letterhead block (:func:`_letterhead_block`: under ``vendor_name`` in its column) with no buyer
    wording is the issuer's, whatever block the rules' buyer has; a number whose only buyer evidence is the
    block of a buyer found without a label gets :data:`BUYER_TAX_ID_UNSURE`, under the review threshold. Only the
    label's own words count, not its whole row: in a two-column header the row holds the other party's
    block too. Well-formed VAT numbers without a label, other than the customer's, are a weaker
    fallback. A labelled value that matches no known format is kept as printed, with a problem saying
    so; a date is never a tax ID. Check digits are verified by :func:`desktop.core.extraction.validate`.
    """
    from desktop.core.extraction.taxids import (
        BUYER_MARK,
        CA_GST_HST,
        SELLER_MARK,
        TAX_ID_LABEL,
        find_vat_numbers,
        match_es_nif,
        match_vat,
    )

    letterhead = _letterhead_block(layout, vendor_name)
    buyer_labelled = buyer is not None and buyer.label_line is not None
    buyer_lines = {id(ln) for ln in (buyer.lines if buyer else [])}
    if buyer and buyer.lines:
        b = buyer.lines[0]
        buyer_lines.update(id(o) for o in layout.lines if o.page == b.page and abs(o.x0 - b.x0) < b.h
                           and 0 <= o.y0 - b.y0 < 6 * b.h)
    vendor: list[Candidate] = []
    buyer_ids: list[Candidate] = []
    others: list[Candidate] = []

    def value_of(text: str) -> tuple[str | None, str, list[Diagnostic]] | None:
        v = match_vat(text) or match_es_nif(text)  # "CIF B-84512376": the letter is part of the number
        if v:
            return v, text.strip(), []
        bn = CA_GST_HST.search(re.sub(r"[\s.\-]", "", text.upper()))  # "81234 5678 RT0001"
        if bn:
            return bn.group(0), text.strip(), []
        m = re.search(r"[A-Z]{0,3}\s?\d[\d A-Z.\-]{6,20}[\dA-Z]", text.upper())
        if not m or re.fullmatch(r"[\d\s.\-]+", m.group(0)) and len(re.sub(r"\D", "", m.group(0))) < 8:
            return None
        raw = m.group(0).strip()
        if find_dates(raw):
            return None  # a date beside an empty label ("USt-IdNr :  Bestell-Datum : 01.08.2013")
        return re.sub(r"[\s.\-]", "", raw), raw, [diag(Code.TAX_ID_UNKNOWN_FORMAT, raw=raw)]

    for c in layout.labelled(TAX_ID_LABEL, value_of, below=True, factor=0.85):
        label_ln = c.label_line or c.lines[0]
        # the label with the words just before it on its row ("Uw | BTW nummer"), and the value's box: not
        # the whole row, which in a two-column header holds the other party's block too
        near = [o for o in layout.row(label_ln) if o is not label_ln and o.x1 <= label_ln.x0 + 0.5 * label_ln.h
                and label_ln.x0 - o.x1 < 3 * label_ln.h]
        context = " ".join([o.text for o in near] + [label_ln.text] + [o.text for o in c.lines if o is not label_ln])
        if c.problems and re.search(r"%|\d+[.,]\d{2}\s*([A-Z]{3}|[€$£¥₹])?$|^([A-Z]{3}|[€$£¥₹])\s?\d", c.raw):
            continue  # an amount ("1,123.80 GBP" under "VAT 20%"), never a tax ID
        if BUYER_MARK.search(context):
            party = "buyer"
        elif SELLER_MARK.search(context):
            party = "seller"
        else:
            party = _party_above(layout, label_ln)
        if not party and (id(label_ln) in letterhead or id(c.lines[0]) in letterhead):
            party = "seller"  # the issuer's letterhead, beside or under its name
        if not party and (id(label_ln) in buyer_lines or id(c.lines[0]) in buyer_lines):
            party = "buyer"
            if not buyer_labelled:
                c.factor = min(c.factor, BUYER_TAX_ID_UNSURE)  # a block found without a buyer label
        c.score = (2 if not c.problems else 1) + (1 if party == "seller" else 0)
        if party == "buyer":
            buyer_ids.append(c)
        elif party == "other":  # a tax representative's or a delivery address's number is neither party's
            others.append(c)
        else:
            vendor.append(c)
    if not vendor:
        for ln in layout.lines:
            if id(ln) in buyer_lines or BUYER_MARK.search(ln.text) or re.search(r"IBAN|BIC|SWIFT", ln.text, re.I):
                continue
            for vat in find_vat_numbers(ln.text):
                if any(c.value == vat for c in buyer_ids + others):
                    continue  # the customer's (or a representative's) number, printed again without its label
                vendor.append(Candidate(vat, vat, [ln], [], 0.6, 0.5))
    vendor.sort(key=lambda c: -c.score)
    buyer_ids.sort(key=lambda c: -c.score)
    best = vendor[0] if vendor else None
    buyer = next((c for c in buyer_ids if not best or c.value != best.value), None)
    return best, buyer


def _party_above(layout: Layout, ln: Ln, max_rows: float = 12.0) -> str:
    """Whose block a line sits in: the party (``seller``, ``buyer``, ``other``) of the nearest heading
    above it in its column on its page, at most ``max_rows`` line heights up: a party heading
    (:func:`~desktop.core.extraction.invoice_features.party_heading`: "Verkäufer", "SELLER TRADE NAME",
    "Adresse du Client") or a short heading that says whose ("Vos identifiants", "Nos références":
    :data:`~desktop.core.extraction.taxids.BUYER_MARK`, :data:`~desktop.core.extraction.taxids.SELLER_MARK`);
    ``""`` when none is."""
    from desktop.core.extraction.invoice_features import party_heading
    from desktop.core.extraction.taxids import BUYER_MARK, SELLER_MARK

    above = [o for o in layout.lines if o.page == ln.page and o is not ln and o.y1 <= ln.y0 + 0.3 * ln.h
             and ln.y0 - o.y1 <= max_rows * ln.h and min(o.x1, ln.x1) - max(o.x0, ln.x0) > 0]
    for o in sorted(above, key=lambda o: -o.y1):
        party = party_heading(o.text)
        if party:
            return party
        if len(o.text.split()) <= 4 and not re.search(r"\d", o.text):
            if BUYER_MARK.search(o.text):
                return "buyer"
            if SELLER_MARK.search(o.text):
                return "seller"
    return ""


def _address_blocks(layout: Layout) -> list[list]:
    """Blocks of 2-6 left-aligned, tightly spaced lines in the top half of page 1 that end in a
    postcode / town line: the postal addresses of a letter (DIN 5008 / NEN 1026 window layouts)."""
    if not layout.lines:
        return []
    page = layout.lines[0].page
    lines = [ln for ln in layout.lines if ln.page == page and ln.rel_y < 0.5]
    used: set[int] = set()
    blocks = []
    for ln in lines:
        if id(ln) in used:
            continue
        block = [ln]
        for o in lines:
            last = block[-1]
            if o.y0 > last.y0 + 0.5 * last.h and abs(o.x0 - ln.x0) < 1.0 * ln.h \
                    and -0.5 * last.h <= o.y0 - last.y1 < 0.9 * min(o.h, last.h) and max(o.h, last.h) < 1.3 * min(o.h, last.h):
                block.append(o)
        if 2 <= len(block) <= 6 and any(_POSTCODE_LINE.search(o.text) for o in block[1:]):
            used.update(id(o) for o in block)
            blocks.append(block)
    return blocks


#: A house number closing a line ("Prinsengracht 263", "Kellergasse 3", "Via Roma 12/b", "Hauptstr. 5-7"):
#: the street line of the UPU S42 address of most of Europe, street name then number.
_HOUSE_NUMBER_END = re.compile(r"[^\W\d_]{3,}\.?\s+\d{1,5}\s?[a-z]?(\s*[-/]\s*\d{1,5}\s?[a-z]?)?\W*$", re.I)


def _address_line(text: str) -> bool:
    """Whether ``text`` is a line of a postal address, never a name: a street line (a street word with a
    number, :data:`_STREET_WORD`; a street name closed by its house number, :data:`_HOUSE_NUMBER_END`) or
    a postcode line (:data:`_POSTCODE_LINE`)."""
    return bool(_POSTCODE_LINE.search(text) or _HOUSE_NUMBER_END.search(text)
                or (_STREET_WORD.search(text) and re.search(r"\d", text)))


def pick_buyer(layout: Layout, vendor: Candidate | None = None) -> Candidate | None:
    """The customer: the first line after a Bill to / Customer / Factuuradres label, else the first
    line of a postal address block on page 1 that is not the issuer's (the recipient address of a
    window-envelope letter), when that line is no address line itself (:func:`_address_line`: a block
    that opens with its street is the rest of a letterhead, not a recipient)."""
    cand = _pick_buyer_labelled(layout)
    if cand is not None:
        return cand
    vendor_ids = {id(ln) for ln in (vendor.lines if vendor else [])}
    for block in _address_blocks(layout):
        if any(id(o) in vendor_ids for o in block):
            continue
        first = block[0]
        t = first.text
        if vendor and vendor.value and vendor.value.lower() in t.lower():
            continue
        if _CONTACT.search(t) or _INVOICE_WEAK.search(t) or re.match(r"^\d", t) \
                or _address_line(t) or not _buyer_name_like(t) or _BUYER_LABEL.fullmatch(t.strip(" :：")):
            continue  # ... nor a heading or label left alone on its line ("Aan:", "Bill To")
        return Candidate(t.strip(" ,"), t, [first], [], 0.45)
    return None


#: Confidence of a buyer name found after a buyer label: under :data:`HEURISTIC_REVIEW_THRESHOLD`
#: (0.6), so always flagged. Measured on the e-invoices' pages (32 invoices, text layer and rendering,
#: against the XML's buyer name BT-44): the rules' buyer is right on 10 of 64, a name on the label's own
#: line on 0 of 12; no kind of evidence is right often enough to be shown unchecked.
BUYER_LABELLED_CONFIDENCE = 0.55


def _buyer_name_like(text: str) -> bool:
    """Whether the text after a buyer label can be the buyer's name: a name-like line
    (:func:`~desktop.core.extraction.common.looks_like_name`, so no sentence such as "régler par virement
    sur le compte suivant"), not another field's label or value (a tax or registration number's label,
    "VAT ID", bank details, an IBAN) and not a currency code alone ("EUR")."""
    t = text.strip(" :")
    return bool(looks_like_name(t) and re.search(r"[^\W\d_]{2,}", t) and not re.fullmatch(r"[A-Z]{3}", t)
                and not (TAX_ID_LABEL.search(t) or REGISTRATION_LABEL.search(t) or BANK_DETAILS_LABEL.search(t)
                         or find_ibans(t)))


def _pick_buyer_labelled(layout: Layout) -> Candidate | None:
    for ln in layout.lines:
        m = _BUYER_LABEL.search(ln.text)
        if not m or re.search(r"[^\W\d_]", ln.text[:m.start()]) or ln.text[m.end():].lstrip().startswith("-"):
            continue  # a label opens its line ("Bill to:", "Kunde:"), it is not a word inside a sentence
        rest = ln.text[m.end():].strip(" :")
        # "Kunde: Schmidt Bau AG, Ringstr. 3, 10115 Berlin": the name, then its address after a comma
        name, _sep, after = rest.partition(",")
        name = name.strip()
        if after and re.search(r"\d", after) and len(name) >= 3 and _buyer_name_like(name) \
                and not re.search(r"\d", name):
            return Candidate(name, rest, [ln], [], BUYER_LABELLED_CONFIDENCE, label_line=ln)
        if len(rest) >= 3 and _buyer_name_like(rest) and not re.search(r"\d{4,}", rest):
            return Candidate(rest, rest, [ln], [], BUYER_LABELLED_CONFIDENCE, label_line=ln)
        below = layout.below(ln, 1)
        # the line below, unless it opens a table (a row of column headings: "Pos  Beschreibung  Menge");
        # cells with a digit are values beside it ("Factuurdatum 05-03-2025"), not headings
        headings = [o for o in layout.row(below[0]) if not re.search(r"\d", o.text)] if below else []
        if below and _buyer_name_like(below[0].text) and len(headings) < 3:
            return Candidate(below[0].text, below[0].text, below, [], BUYER_LABELLED_CONFIDENCE, label_line=ln)
    return None


def _under_excluded_header(layout: Layout, c: Candidate) -> bool:
    """Whether a value found below a table header cell belongs to a two-line header whose upper line
    rules it out (``Ohne`` / ``MwSt.`` = "without VAT": a line-amount column, not the tax)."""
    # the cheap label test first: ``below`` scans the page for every line it is asked about
    label = next((o for o in layout.lines if _TAX_LABEL.search(o.text) and c.lines[0] in layout.below(o, 1)), None)
    if label is None:
        return False
    upper = [o for o in layout.lines if o.page == label.page and o.y1 <= label.y0 + 0.3 * label.h
             and label.y0 - o.y1 < label.h and min(o.x1, label.x1) - max(o.x0, label.x0) > 0]
    return any(_TAX_EXCLUDE.search(o.text) for o in upper)


def _tax_after_its_rate(layout: Layout, money: Callable[[str], tuple[str | None, str, list[Diagnostic]] | None]) \
        -> list[Candidate]:
    """Tax amounts printed to the right of a label that ends with the rate ("MwSt. 19 %   256,50 EUR"):
    the row's only amount (a tax summary row has two: the base and the tax)."""
    out = []
    for ln in layout.lines:
        text = strip_rate_base(ln.text)  # "BTW 9% over 39,95" ends with its rate once its base is set aside
        if not (_TAX_LABEL.search(text) and _RATE_END.search(text)) or _TAX_EXCLUDE.search(_RATE_END.sub("", text)):
            continue
        found = [(o, got) for o in layout.right_of(ln) if (got := money(o.text)) and got[0] is not None]
        if len(found) == 1:
            o, got = found[0]
            out.append(Candidate(got[0], got[1], [o], got[2], 0.85))
    return out


def pick_iban(layout: Layout) -> Candidate | None:
    """The first valid IBAN printed (:func:`desktop.core.extraction.banking.find_ibans`), compact; else an
    IBAN-shaped value after an IBAN label whose check fails, kept and flagged (``iban_invalid``)."""
    for ln in layout.lines:
        found = find_ibans(ln.text)
        if found:
            return Candidate(found[0], ln.text, [ln], [], 0.95)
    for ln in layout.lines:
        bad = labelled_iban_like(ln.text)
        if bad:
            return Candidate(bad[0], bad[1], [ln], [diag(Code.IBAN_INVALID, value=bad[1])], 0.5)
    return None


#: What starts another field on the terms' line, so ends the terms ("Payment terms: 30 days. Bank:
#: Barclays IBAN GB33..." -> "30 days"): bank details (:data:`~desktop.core.extraction.banking.
#: BANK_DETAILS_LABEL`), a tax or registration number (:data:`~desktop.core.extraction.taxids.
#: REGISTRATION_NUMBER`), or a due-date label with its colon (:data:`_DUE_LABEL`'s words).
_NEXT_FIELD = _either(BANK_DETAILS_LABEL, REGISTRATION_NUMBER, re.compile(
    r"(?<![^\W\d_])(due\s*date|f[äa]llig(keitsdatum|\s*am)?|zahlbar\s*bis|date\s*d'[ée]ch[ée]ance|[ée]ch[ée]ance|"
    r"vervaldatum|vervaldag|data\s*di\s*scadenza|scadenza|fecha\s*de\s*vencimiento|vencimento)\s*[:：]", re.I))


def pick_payment_terms(layout: Layout) -> Candidate | None:
    """The line that states the payment terms (:data:`_TERMS`), after its label when it has one, up to
    where another labelled field starts on it (:data:`_NEXT_FIELD`). An unlabelled terms phrase after
    such a field ("IBAN DE89 ... Zahlbar innerhalb 14 Tagen") starts the value."""
    for ln in layout.lines:
        text = ln.text.strip()
        m = _TERMS.search(text)
        if not m:
            continue
        label = _TERMS_LABEL.match(text)
        if label:
            start = label.end()
        else:
            start = m.start() if any(n.start() < m.start() for n in _NEXT_FIELD.finditer(text)) else 0
        value = text[start:]
        end = next((n.start() for n in _NEXT_FIELD.finditer(value) if n.start() > 0), None)
        if end is not None:
            value = value[:end].rstrip(" .,;:-–|/")
        value = value.strip()
        if value and not _no_terms(value):
            return Candidate(value, ln.text, [ln], [], 0.8)
    return None


#: A terms label as the whole printed value, its colon optional ("Zahlungsziel", "Payment terms:").
_TERMS_LABEL_ONLY = re.compile(_TERMS_LABEL.pattern.replace(r"\s*[:：]\s*", r"\s*[:：]?\s*"), re.I)


def _no_terms(value: str) -> bool:
    """Whether ``value`` states no terms: a terms label alone, or a date alone after it ("Zahlungsziel",
    "Zahlungsziel 10.04.2025": that date is the due date, BT-9). The terms (BT-20) are a period ("14 Tage",
    "30 days net", "Net 15") or a phrase ("zahlbar sofort ohne Abzug")."""
    label = _TERMS_LABEL_ONLY.match(value)
    rest = value[label.end():] if label else value
    if not re.search(r"[^\W_]", rest):
        return True
    dates = find_dates(rest, None)
    if not dates:
        return False
    return not re.search(r"[^\W_]", rest.replace(dates[0].raw, "", 1))


def _buyer_address(layout: Layout, buyer: Candidate | None) -> Candidate | None:
    """The address printed after the buyer's name on its labelled row ("Kunde: Schmidt Bau AG,
    Ringstr. 3, 10115 Berlin" -> "Ringstr. 3, 10115 Berlin"), when it has one."""
    if buyer is None or not buyer.value or not buyer.raw or buyer.raw == buyer.value:
        return None
    rest = buyer.raw[len(buyer.value):].strip(" ,") if buyer.raw.startswith(buyer.value) else ""
    if rest and re.search(r"\d", rest) and re.search(r"[A-Za-z]{2,}", rest):
        return Candidate(rest, rest, list(buyer.lines), [], 0.6)
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
            date.problems.append(diag(Code.AMBIGUOUS_DATE_ORDER, raw=date.raw, order=order))
    money = amount_finder(need_decimals=True)
    totals = layout.labelled(_TOTAL_ANY, money, exclude=_TOTAL_EXCLUDE, prefer_rightmost=True)
    # the amount payable is no subtotal, though its label may hold a net word ("Netto a pagare", "Net à payer")
    subs = layout.labelled(_SUB_ANY, money, exclude=AMOUNT_DUE_LABEL, prefer_rightmost=True, factor=0.9)
    # a rate's base printed in the tax label ("BTW 9% over 39,95") is never the tax (invoice_totals)
    taxes = layout.labelled(_TAX_LABEL, tax_money(money), exclude=_TAX_EXCLUDE, prefer_rightmost=True, factor=0.85)
    taxes = sorted([*taxes, *_tax_after_its_rate(layout, money)], key=lambda c: layout.lines.index(c.lines[0]))
    total = prefer_total(_rank(totals, _TOTAL_STRONG, layout), totals, layout)
    subtotal = _rank(subs, _SUB_STRONG, layout)
    if subtotal is not None and total is not None and subtotal.value == total.value and len(subs) > 1:
        others = [c for c in subs if c.value != total.value]
        subtotal = _rank(others, _SUB_STRONG, layout) or subtotal
    taxes = [c for c in taxes if not _under_excluded_header(layout, c)]
    tax = taxes[-1] if taxes else None
    per_rate = per_rate_tax(layout)  # one tax row per rate, each with its one amount: their sum (BR-CO-14)
    if per_rate is not None:
        tax = per_rate
    # a multi-rate VAT breakdown (EN 16931 BG-23): the tax is the sum of its rows, the subtotal that of
    # their bases, unless printed totals add up (desktop.core.extraction.vat_breakdown)
    subtotal, tax = apply_breakdown(find_vat_breakdown(layout), subtotal, tax, total, subs, taxes, layout)
    vendor = pick_vendor(layout) or pick_vendor_footer(layout)
    buyer = pick_buyer(layout, vendor)
    if vendor is not None and buyer is not None and vendor.value and buyer.value \
            and vendor.value.casefold() == buyer.value.casefold():
        vendor = None  # the only company name found is the customer's: no issuer rather than a wrong one
    vendor_tax_id, buyer_tax_id = pick_tax_ids(layout, buyer, vendor)
    dues = layout.labelled(_DUE_LABEL, date_finder(order), factor=0.85)
    return {
        "due_date": dues[0] if dues else None,
        "iban": pick_iban(layout),
        "payment_terms": pick_payment_terms(layout),
        "buyer_address": _buyer_address(layout, buyer),
        "vendor_name": vendor,
        "vendor_address": pick_vendor_address(layout, vendor),
        "vendor_tax_id": vendor_tax_id,
        "buyer_name": buyer,
        "buyer_tax_id": buyer_tax_id,
        "invoice_number": numbers[0] if numbers else None,
        "date": date,
        "subtotal": subtotal,
        "tax": tax,
        "total": total,
        "amount_due": amount_due_candidate(layout, money),
        "currency": currency,
    }
