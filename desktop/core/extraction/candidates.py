"""Candidate values with features, for the fields a learned model chooses (:mod:`.field_model`).

Rules no longer decide these fields on their own. For each learned field, the generators below
propose every plausible value on the document -- every amount for ``total``, every date for ``date``,
every row (and pair of rows) of the top block and of the footer for ``vendor_name``, spans of rows
for ``vendor_address``, every code-like token for ``invoice_number`` -- and describe each with
features that carry over between shops and languages: the kind and strength of the label beside or
above it, the position on the page and within the totals block, text height relative to the page's
median line, the engine's line confidence, arithmetic agreement (subtotal + tax (+ rounding) = total,
cash - change = total), company-suffix words, contact and address vocabulary, and whether the
hand-written rules of :mod:`.receipt` / :mod:`.invoice` picked the same value (the rules become one
feature among many). The model scores candidates; the best one is the value.

Coordinates: every :class:`~desktop.core.extraction.layout.Ln` box is in page pixels; relative
positions are fractions of the page's width or height (0 = left/top).

Label vocabularies (English, Malay, German, French, Dutch, Chinese): the usual printed wording of
till receipts and commercial invoices, as in :mod:`.receipt` and :mod:`.invoice`; the company
suffixes are the legal-form words of those countries (Companies Act 2016 (Malaysia) s. 27 for
"Sdn. Bhd.", HGB/GmbHG for GmbH/AG/KG, Code de commerce for SARL/SAS/SA, BW 2 for B.V./N.V.).
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from decimal import Decimal
from functools import lru_cache
from statistics import median

from desktop.core.diagnostics import Diagnostic
from desktop.core.extraction.amounts import to_decimal as _d
from desktop.core.extraction.common import (
    ADDRESS_LABEL,
    CJK_LABEL_ROW,
    CN_REGISTRATION,
    CN_TITLE,
    looks_like_name,
    tidy_name,
)
from desktop.core.extraction.dates import DateMatch, find_dates, find_times
from desktop.core.extraction.layout import Layout, Ln
from desktop.core.extraction.legal_forms import restore_legal_form
from desktop.core.extraction.parsers import money_tokens

__all__ = ["FieldCandidate", "LEARNED_FIELDS", "Rows", "ends_address", "generate", "lexicon_fix", "value_char_confidences",
           "value_confidence"]

#: The fields chosen by the learned model, per document type.
LEARNED_FIELDS: dict[str, tuple[str, ...]] = {
    "receipt": ("total", "date", "vendor_name", "vendor_address"),
    "invoice": ("total", "date", "vendor_name", "invoice_number"),
}


@dataclass
class FieldCandidate:
    """One possible value of a field, with what the model sees of it.

    Attributes:
        field: canonical field name.
        value: the normalised value (as :func:`desktop.core.extraction.normalise_field` would give).
        raw: the text as printed.
        lines: the lines the value was read from (their boxes are the source outline).
        features: ``{feature name: number}``; names missing at scoring time count as 0.
        problems: parse problems of the value (impossible date, ...).
    """

    field: str
    value: str
    raw: str
    lines: list[Ln]
    features: dict[str, float] = dc_field(default_factory=dict)
    problems: list[Diagnostic] = dc_field(default_factory=list)


def value_char_confidences(value: str, lines: list[Ln]) -> list[float | None] | None:
    """The recogniser's confidence of each character of ``value`` read from ``lines`` (the value
    cleaned from their text: a registration number dropped, a misread word restored, ...).

    ``value`` is aligned with the lines' text joined by spaces (Levenshtein opcodes, case-insensitive):
    a character kept or replaced one for one takes the confidence of the character it was read from;
    one the cleaning inserted has none (a block replaced by one of another length: the block's lowest).

    Returns:
        One entry per character of ``value`` (``None`` where no printed character stands behind it),
        or ``None`` when a line has no character confidences (:attr:`Ln.chars`).
    """
    if not lines or any(ln.chars is None for ln in lines):
        return None
    text = " ".join(ln.text for ln in lines)
    confs: list[float | None] = []
    for k, ln in enumerate(lines):
        if k:
            confs.append(None)  # the space joining two lines
        confs.extend(ln.chars or ())
    from rapidfuzz.distance import Levenshtein

    out: list[float | None] = [None] * len(value)
    low = text.lower() if len(text.lower()) == len(text) else text  # indices must stay those of ``text``
    target = value.lower() if len(value.lower()) == len(value) else value
    for op in Levenshtein.opcodes(target, low):
        if op.tag == "equal" or (op.tag == "replace" and op.src_end - op.src_start == op.dest_end - op.dest_start):
            for i, j in zip(range(op.src_start, op.src_end), range(op.dest_start, op.dest_end)):
                out[i] = confs[j]
        elif op.tag == "replace":
            block = [c for c in confs[op.dest_start: op.dest_end] if c is not None]
            for i in range(op.src_start, op.src_end):
                out[i] = min(block) if block else None
    return out


def _read_text(candidate: FieldCandidate) -> str:
    """The text a candidate's value was read as: the token as printed (``raw``) for amounts and dates,
    the cleaned value for names and addresses."""
    return candidate.raw if candidate.field in ("total", "date") else candidate.value


def value_confidence(candidate: FieldCandidate) -> float:
    """The lowest recogniser confidence among the characters ``candidate``'s value was read from.

    For names and addresses the value is the cleaned text (:func:`value_char_confidences`: characters
    the cleaning dropped, a registration number before an address or a label, do not count); for
    amounts and dates, the token as printed (``raw``) where it stands in its line. Spaces do not count.
    A single misread character of a long address lowers this where the line's mean confidence hardly
    moves.

    Returns:
        A probability in [0, 1]; the lowest line confidence of the candidate's lines when a line has
        no character confidences (:attr:`Ln.chars` is ``None``), 1.0 when it has no lines.
    """
    lines = candidate.lines
    if not lines:
        return 1.0
    if any(ln.chars is None for ln in lines):
        return min(ln.confidence for ln in lines)
    target = _read_text(candidate)
    if len(lines) == 1:
        at = lines[0].text.find(target) if target else -1
        if at >= 0:
            return lines[0].span_confidence(at, at + len(target))
    per_char = value_char_confidences(target, lines) or []
    vals = [c for c, ch in zip(per_char, target) if c is not None and not ch.isspace()]
    return min(vals) if vals else min(ln.confidence for ln in lines)


#: A word's weakest character below this recogniser confidence may be a misread one
#: (:func:`lexicon_fix`, :func:`suspect_char_count`).
SUSPECT_CHAR = 0.97


def suspect_char_count(candidate: FieldCandidate) -> int:
    """How many characters of ``candidate``'s value the recogniser read at a confidence under
    :data:`SUSPECT_CHAR`: each is one a misreading may stand behind, so an exact match grows less likely
    with their number where :func:`value_confidence` (the weakest one) sees only one of them.

    The value is the cleaned text for names and addresses, the token as printed (``raw``) for amounts and
    dates, aligned with its lines by :func:`value_char_confidences`; spaces and characters the cleaning
    inserted do not count.

    Returns:
        A count >= 0; 0 when a line has no character confidences (text layers, VLM engines).
    """
    target = _read_text(candidate)
    per_char = value_char_confidences(target, candidate.lines) if candidate.lines and target else None
    return sum(1 for c, ch in zip(per_char or [], target) if c is not None and not ch.isspace() and c < SUSPECT_CHAR)


_LEXICON_WORD = re.compile(r"[A-Za-z]{4,}")


def lexicon_fix(candidate: FieldCandidate, lexicon: Mapping[str, int]) -> str:
    """``candidate``'s value with words misread in one character restored from ``lexicon``.

    A word of four letters or more that is not in ``lexicon`` (upper-case words seen in the labelled
    names and addresses of several vendors, ``benchmarks/train_fields.py``), whose weakest character
    the recogniser read below :data:`SUSPECT_CHAR`, becomes the one lexicon word that replacing or
    dropping that character gives ("SETIA ALAN" -> "SETIA ALAM", "Subang Jaga" -> "Subang Jaya"). The
    character confidences say which character is suspect, the lexicon says what it should be; a word
    two lexicon words fit, or with no character confidences, stays as read.

    Returns:
        The corrected value (the value itself when nothing was corrected).
    """
    value = candidate.value
    if not lexicon or not value:
        return value
    confs = value_char_confidences(value, candidate.lines)
    if confs is None:
        return value
    out: list[str] = []
    last = 0
    for m in _LEXICON_WORD.finditer(value):
        tok = m.group(0)
        word = tok.upper()
        known = confs[m.start(): m.end()]
        if word in lexicon or any(c is None for c in known):
            continue
        cs = [c if c is not None else 1.0 for c in known]
        k = min(range(len(word)), key=cs.__getitem__)
        if cs[k] >= SUSPECT_CHAR:
            continue
        fits = {word[:k] + ch + word[k + 1:] for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if ch != word[k]}
        fits.add(word[:k] + word[k + 1:])
        hits = [w for w in fits if w in lexicon]
        if len(hits) != 1:
            continue
        fixed = hits[0] if tok.isupper() else (hits[0].capitalize() if tok[:1].isupper() else hits[0].lower())
        out.append(value[last: m.start()] + fixed)
        last = m.end()
    return "".join(out) + value[last:] if out else value


# --------------------------------------------------------------------------------------------------
# vocabularies (regular expressions over NFKC text, case-insensitive)

_I = re.I
LABELS: dict[str, re.Pattern[str]] = {
    # a total of some kind
    "total": re.compile(r"t[o0]ta[l1]|jumlah|totaal|gesamt|summe|montant|betrag|合\s*计|总\s*计|價稅合計|价税合计", _I),
    "grand": re.compile(r"grand|net+\b|nett|payable|to\s*pay|amount\s*due|balance\s*due|total\s*due|"
                        r"te\s*betalen|[àa]\s*payer|endbetrag|rechnungsbetrag|zu\s*zahlen|应\s*付|实\s*付|实\s*收|"
                        r"amount\s*collected|total\s*amount|invoice\s*total|factuur\s*totaal", _I),
    "incl_tax": re.compile(r"incl|inkl|inclusive|ttc|含\s*税|with\s*(gst|tax|vat)", _I),
    "excl_tax": re.compile(r"sub[\s-]*t[o0]tal|excl|exkl|before\s*(gst|tax)|untaxed|\bht\b|netto|zwischensumme|"
                           r"grondslag|ohne|小\s*计|不\s*含\s*税|金\s*额\s*合\s*计", _I),
    "tax": re.compile(r"\b(gst|sst|tax|vat|tva|mwst|ust|btw|iva)\b|税\s*额", _I),
    "rounding": re.compile(r"round|adj|rnd|pembundaran|arrondi|rundung|afronding", _I),
    "cash": re.compile(r"cash|tender|paid|payment|received|tunai|bayar|visa|master|card|credit|debit|"
                       r"bezahlt|gegeben|espèces|contant|pin\b|e-?wallet|boost|grab", _I),
    "change": re.compile(r"change|balance(?!\s*due)|kembali|baki|rückgeld|rendu|wisselgeld|找\s*零", _I),
    "discount": re.compile(r"disc|saving|voucher|coupon|rebate|korting|rabatt|remise|less\b|promo|优\s*惠|折\s*扣|"
                           r"减\s*免", _I),
    "count": re.compile(r"qty|quantity|item|pcs|units?\b|no\.\s*of|count|anzahl|menge|aantal|hoeveelheid|"
                        r"quantit[ée]|数\s*量", _I),
    "service": re.compile(r"service|svc|tip|gratuity|deposit|delivery|shipping|porto|versand", _I),
    "per_rate": re.compile(r"\d\s*%|@|rate|summary|supplies|code\b", _I),
    "date": re.compile(r"d[a-z]?te\b|tarikh|datum|fecha|日\s*期|开\s*票", _I),
    "issue_date": re.compile(r"(invoice|bill|issue|rechnungs|factuur|facture|belegs?|document|doc)\s*-?\s*(date|datum)|"
                             r"date\s*of\s*(issue|invoice)|datum\s*der\s*rechnung|facture\s*du|factuurdatum|"
                             r"date\s*(de\s*)?(facture|d'émission)|datum\s*factuur|ausstellungsdatum|开\s*票\s*日\s*期", _I),
    "other_date": re.compile(r"due|verval|f[äa]llig|échéance|echeance|expir|valid|order|bestel|liefer|lever|"
                             r"deliver|ship|period|p[ée]riode|zeitraum|leistungs|service|print|from|until|bis\b|"
                             r"to\b|au\b|closed|check[\s-]*(in|out)|arriv|depart|birth|d[ée]but|\bfin\b|"
                             r"prestation|livraison|commande|associ|li[ée]e|origin|contrat|vertrag|auftrag|start|end\b", _I),
    "number": re.compile(r"(invoice|inv|bill|receipt|rcpt|doc(ument)?)\s*(no\.?|number|nr\.?|num\.?|#|id)|"
                         r"factur[ae]\s*(n[°ºo]|nr|num|#)|num[ée]ro|rechnungs?\s*-?\s*(nummer|nr|no)|"
                         r"rechnung\s*(nr|nummer|no)|factuur\s*-?\s*(nummer|nr|no)|发\s*票\s*号\s*码|\bno\b\.?|#|"
                         r"\bnr\b\.?|beleg\s*-?\s*(nr|nummer)|gutschrift|avoir|credit\s*note|creditnota", _I),
    "invoice_word": re.compile(r"invoice|rechnung|factuur|facture|bill\b", _I),
    "other_number": re.compile(r"order|bestell|auftrag|commande|klant|kunde|customer|client|account|konto|"
                               r"tax|vat|btw|tva|ust|steuer|siret|siren|iban|bic|swift|tel|phone|fax|reg|"
                               r"ref|member|table|cashier|terminal|pos\b|counter|trans|approval|batch|card|"
                               r"\bgln\b|\biln\b|\bean\b|lief|vertrag|contrat|contract|bon\s*de|li[ée]e|associ|origin|"
                               r"bezug|storn|\biva\b|partita|fiscal|\bnif\b|\bnip\b|\bcif\b", _I),
}



def _with_shared_vocabulary() -> None:
    """Widen the amount label kinds with the shared label vocabulary (``resources/labels/amounts.json``,
    :mod:`desktop.core.extraction.labels`), which the rule extractors read too."""
    from desktop.core.extraction.labels import label_pattern

    for kind, (role, strength) in {"total": ("total", None), "grand": ("total", "strong"),
                                   "excl_tax": ("subtotal", None), "tax": ("tax", None),
                                   "cash": ("tendered", None), "change": ("change", None),
                                   "cashback": ("cash_back", None),
                                   "not_total": ("not_total", None), "credit_note": ("credit_note", None)}.items():
        shared = label_pattern(role, strength)
        mine = LABELS.get(kind)
        LABELS[kind] = re.compile(f"(?:{mine.pattern})|(?:{shared.pattern})" if mine else shared.pattern, _I)


_with_shared_vocabulary()

COMPANY = re.compile(
    r"\b(SDN\.?\s*BHD|S/B|BHD|BERHAD|ENTERPRISES?|TRADING|RESTAURANT|RESTORAN|CAFE|KEDAI|MART|STORES?|SHOP|"
    r"HARDWARE|MARKETING|INTERNATIONAL|HOLDINGS|INDUSTRIES|SUPERMARKET|HYPERMARKET|MINI\s*MARKET|BAKERY|"
    r"BAKERIES|PHARMACY|FARMASI|STATIONERY|BOOKSTORE|SYARIKAT|PERNIAGAAN|TRADERS?|MACHINERY|ELECTRICAL|"
    r"CATERING|PLT|LLP|LTD|LIMITED|LLC|INC|CORP|CORPORATION|COMPANY|CO\.|PTE|PLC|GMBH|AG|KG|UG|E\.K\.|"
    r"B\.?V\.?|N\.?V\.?|SARL|SAS|S\.?A\.?|SRL|BVBA|PVT|\(M\)|有\s*限\s*公\s*司|公\s*司)(?=\W|$)", _I)
LEGAL_SUFFIX = re.compile(r"\b(SDN\.?\s*BHD|S/B|BHD|BERHAD|LTD|LIMITED|LLC|INC|PLT|LLP|PTE|PLC|GMBH|AG|KG|"
                          r"B\.?V\.?|N\.?V\.?|SARL|SAS|SRL|\(M\))\.?(?=\W|$)|有\s*限\s*公\s*司", _I)
HEADER = re.compile(
    r"^\W*((KOPIE|COPY|COPIE|DUPLICATE|DUPLIKAT|DUPLICAAT)\s+)?(SIMPLIFIED\s+)?(FULL\s+)?"
    r"(TAX\s*INVOICE|INVOICE|RECEIPT|OFFICIAL RECEIPT|CASH\s*(SALES?|BILL|RECEIPT)|"
    r"DUPLICATE|COPY|CUSTOMER'?S?\s*COPY|WELCOME|THANK YOU|BILL|CHECK|ORDER|TABLE|RECHNUNG|FACTURE|FACTUUR|"
    r"GUTSCHRIFT|CREDIT\s*NOTE|QUOTATION|DELIVERY\s*ORDER|SALES?\s*(RECEIPT|INVOICE)?)\W*$|"
    # a row of column headings: "Factuuradres Afleveradres", "Billing address  Shipping address"
    r"^\W*((factuur|aflever|rechnungs|liefer|billing|shipping|delivery|invoice|postal)\s*-?\s*"
    r"(adres|adresse|address|anschrift)|adresse\s*de\s*(facturation|livraison)|bill\s*to|ship\s*to|"
    r"sold\s*to|lieferant|k[äa]ufer|verk[äa]ufer|seller|buyer|customer|vendeur|acheteur)"
    r"(\W+((factuur|aflever|rechnungs|liefer|billing|shipping|delivery|invoice|postal)\s*-?\s*"
    r"(adres|adresse|address|anschrift)|adresse\s*de\s*(facturation|livraison)|bill\s*to|ship\s*to|"
    r"sold\s*to|lieferant|k[äa]ufer|verk[äa]ufer|seller|buyer|customer|vendeur|acheteur))*\W*$", _I)
#: A telephone number printed without its label: a Malaysian national number, trunk prefix 0, area or
#: mobile code, a hyphen, then the subscriber number ("03-8051 9514", "019-7521215"), or a toll-free
#: 1-300/1-800 number ("1800 88 1231") (MCMC National Numbering Plan); E.164 international form
#: ("+49 30 1234567", "+60 3-8051 9514"); a North American number, area code and exchange starting 2-9
#: ("(217) 555-0100", "217-555-0100", "1-800-555-0199": North American Numbering Plan).
PHONE = re.compile(r"(?<![\w/-])(0\d{1,2}-\s?\d{3,4}\s?\d{3,4}|1[-\s]?[38]00[-\s]?\d{2}[-\s]?\d{4}|"
                   r"\+\d{1,3}[\s-]?\(?\d{1,4}\)?[\s-]?\d{3,4}[\s-]?\d{3,4}|"
                   r"(?:1[\s.-])?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[\s.-])[2-9]\d{2}[.-]\d{4})(?![\w-])")
CONTACT = re.compile(r"\b(TEL|PHONE|FAX|H/?P|MOBILE|E-?MAIL|WEBSITE|WWW\.|TELEFON|TÉL|HOTLINE)\b|@|\.COM\b|"
                     rf"\bHTTPS?:|{PHONE.pattern}", _I)
REGISTRATION = re.compile(r"\b(GST|SST|CO\.?\s*REG|REG\.?\s*NO|COMPANY\s*(REG\.?\s*)?NO|CO\.?\s*NO|TAX\s*ID|VAT|"
                          r"ROC|BUSINESS\s*REG|BRN|UST[\s.-]*ID(?:\s*NR)?|STEUER\w*|SIRET|SIREN|KVK|BTW|TVA|HRB|AMTSGERICHT|"
                          r"ST\.?\s*-?\s*NR|\w{2,}-NR)\b|"
                          # the US EIN (IRS), Australian ABN / ACN (ATO, ASIC), Singapore UEN (ACRA), in capitals
                          # ("ein" is a German word) and with their number
                          r"(?-i:\b(?:F?EIN|ABN|ACN|UEN)\b)(?=\W{0,3}\d)", _I)
REGNO_ONLY = re.compile(r"^\W*(CO[.\s-]*(REG|NO)\W*)?[A-Z]{0,3}\d[\d\s-]{4,}[A-Z]?\W*$", _I)
ADDRESS = re.compile(r"\b(NO\.?|LOT|JALAN|JLN|TAMAN|TMN|ROAD|RD|STREET|ST|AVENUE|AVE|LEBUH|LORONG|KAWASAN|"
                     r"BANDAR|SEKSYEN|PERSIARAN|LEVEL|FLOOR|UNIT|BLOCK|BLK|KAMPUNG|KG|BATU|PLAZA|MALL|CENTRE|"
                     r"CENTER|COMPLEX|INDUSTRIAL|STRASSE|STR\.|STRAßE|WEG|PLATZ|GASSE|RUE|AVENUE|BOULEVARD|"
                     r"STRAAT|LAAN|PLEIN|POSTFACH|BP|CEDEX|SUITE|BUILDING|WISMA|MENARA|PUSAT)\b|\b\d{4,6}\b|"
                     r"[省市区县路街号]", _I)
POSTCODE = re.compile(r"(?<!\d)\d{5}(?!\d)|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b|(?<!\d)\d{4}\s?[A-Z]{2}\b")
#: Country names as printed on the last line of an address (UPU S42).
_COUNTRIES = (r"MALAYSIA|SINGAPORE|DEUTSCHLAND|GERMANY|FRANCE|NEDERLAND|NETHERLANDS|BELGIUM|BELGIQUE|AUSTRIA|"
              r"ÖSTERREICH|SCHWEIZ|SWITZERLAND|UNITED\s*KINGDOM|USA|INDIA|CHINA")
PLACE = re.compile(r"\b(SELANGOR|JOHOR|KUALA\s*LUMPUR|PULAU\s*PINANG|PENANG|PERAK|KEDAH|MELAKA|"
                   r"NEGERI\s*SEMBILAN|PAHANG|SABAH|SARAWAK|KELANTAN|TERENGGANU|PUTRAJAYA|UK|"
                   rf"{_COUNTRIES})\b", _I)
OWNER = re.compile(r"\b(OWNED\s*BY|OPERATED\s*BY|A\s*DIVISION\s*OF|A\s*MEMBER\s*OF|MANAGED\s*BY|LICENSEE\s*OF|"
                   r"FRANCHISEE?\s*OF|SUBSIDIARY\s*OF|POWERED\s*BY)\b", _I)
_AMOUNT_LIKE = re.compile(r"\d+[.,]\d{2}\b")
_LETTER = re.compile(r"[^\W\d_]")


# --------------------------------------------------------------------------------------------------
# rows


def _strip_accents(text: str) -> str:
    """``text`` without combining marks on Latin letters (NFD, marks removed, NFC again)."""
    if text.isascii():
        return text
    d = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(c for c in d if not unicodedata.combining(c)))


class Rows:
    """The document's text rows: lines on one row joined left to right, top to bottom per page.

    Attributes:
        rows: ``list[list[Ln]]`` in reading order.
        texts: each row's text (its lines joined with one space).
        median_h: median line height per page (page pixels).
    """

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.rows: list[list[Ln]] = []
        for page in sorted({ln.page for ln in layout.lines}):
            lines = sorted((ln for ln in layout.lines if ln.page == page), key=lambda ln: (ln.cy, ln.x0))
            page_rows: list[list[Ln]] = []
            for ln in lines:
                for r in page_rows[-3:]:
                    if any(layout.same_row(ln, o) and max(ln.h, o.h) < 2.0 * min(ln.h, o.h) for o in r):
                        r.append(ln)
                        break
                else:
                    page_rows.append([ln])
            for r in page_rows:
                r.sort(key=lambda o: o.x0)
            page_rows.sort(key=lambda r: min(o.cy for o in r))
            self.rows.extend(page_rows)
        self.texts = [" ".join(o.text for o in r) for r in self.rows]
        self.row_of: dict[int, int] = {id(o): i for i, r in enumerate(self.rows) for o in r}
        self.median_h: dict[int, float] = {}
        for page in {ln.page for ln in layout.lines}:
            hs = [ln.h for ln in layout.lines if ln.page == page]
            self.median_h[page] = median(hs) if hs else 1.0
        self.pages = sorted({ln.page for ln in layout.lines})
        words = " ".join(self.texts).split()
        accented = sum(1 for w in words if _strip_accents(w) != w)
        #: the document's accented letters are OCR noise (a thermal print misread "ÁLAM", "JÁLAN"), not
        #: its language: a few accented words among many (written French, German or Dutch has them
        #: in every few lines); name and address candidates are then read without accents
        self.spurious_accents = len(words) >= 40 and 0 < accented <= 2 and \
            not all(p.origin in ("pdf_text", "xml_view", "ofd") for p in layout.pages)  # a text layer's are printed

    def plain(self, text: str) -> str:
        """``text`` as name and address candidates read it: without accents when they are OCR noise
        (:attr:`spurious_accents`)."""
        return _strip_accents(text) if self.spurious_accents else text

    def page_rows(self, page: int) -> list[int]:
        """Indices of the rows of ``page``, top to bottom."""
        return [i for i, r in enumerate(self.rows) if r[0].page == page]


@lru_cache(maxsize=8192)
def _label_kinds(text: str, kinds: tuple[str, ...]) -> frozenset[str]:
    """The label kinds of ``kinds`` (:data:`LABELS`) found in ``text``. Memoised: the same label, the
    same table header above a column of amounts, the same row are looked up once per candidate."""
    return frozenset(k for k in kinds if LABELS[k].search(text))


def _flags(prefix: str, text: str, kinds: tuple[str, ...]) -> dict[str, float]:
    found = _label_kinds(text, kinds)
    return {f"{prefix}{k}": 1.0 if k in found else 0.0 for k in kinds}


def _letters(text: str) -> int:
    return len(_LETTER.findall(text))


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


# --------------------------------------------------------------------------------------------------
# amounts (total)

_AMOUNT_KINDS = ("total", "grand", "incl_tax", "excl_tax", "tax", "rounding", "cash", "change", "discount",
                 "count", "service", "per_rate", "not_total", "credit_note", "cashback")


@dataclass
class _Amount:
    value: Decimal
    text: str
    raw: str
    line: Ln
    row: int
    label: str
    above: str
    has_dec: bool
    kinds: set[str]


def _amounts(rows: Rows) -> list[_Amount]:
    out: list[_Amount] = []
    for ri, row in enumerate(rows.rows):
        for k, ln in enumerate(row):
            # the label of a value is the text to its left on its own visual row: a row grouped from
            # boxes of slightly different heights can hold several stacked label/value pairs
            near = [o for o in row[:k] if abs(o.cy - ln.cy) <= 0.5 * max(o.h, ln.h)]
            for value, raw, dec, start in money_tokens(ln.text):
                v = _d(value)
                if v is None:
                    continue
                left = " ".join(o.text for o in near) + " " + ln.text[:start]
                above = ""
                if _letters(left) < 2 and ri > 0 and rows.rows[ri - 1][0].page == ln.page:
                    # a value under its label (a table header): the row above, where it overlaps horizontally
                    above = " ".join(o.text for o in rows.rows[ri - 1]
                                     if min(o.x1, ln.x1) - max(o.x0, ln.x0) > -0.5 * ln.h)
                kinds = set(_label_kinds(left, _AMOUNT_KINDS))
                out.append(_Amount(v, value, raw, ln, ri, left.strip(), above, dec, kinds))
    return out


def _total_candidates(layout: Layout, rows: Rows, rule_value: str | None, fname: str = "total",
                      whole_ok: Callable[[Layout, Rows, int, Ln, str], bool] | None = None) -> list[FieldCandidate]:
    """Every amount of the document as a candidate of ``fname``, with its features.

    ``whole_ok(layout, rows, row, line, raw)`` says whether an amount printed without decimals and
    without a label of its own is still one (an invoice in a currency printed in whole units, under a
    "Gesamtwert brutto" column header); by default such a bare whole number is no amount."""
    amounts = _amounts(rows)
    if not amounts:
        return []
    decs = [a for a in amounts if a.has_dec]
    values = sorted({a.value for a in decs}, reverse=True)
    n_rows = max(1, len(rows.rows))

    def labelled(kind: str) -> list[_Amount]:
        return [a for a in decs if kind in a.kinds]

    subs = [a.value for a in labelled("excl_tax")]
    taxes = [a.value for a in labelled("tax") if not ({"total", "incl_tax", "excl_tax"} & a.kinds)]
    cash = [a.value for a in labelled("cash") if "cashback" not in a.kinds]  # "CASH BACK" is no tender
    cash_backs = [a.value for a in labelled("cashback") if a.value > 0]
    # what a card was charged for: a total, an amount due or a card/cash payment line (not the cash back)
    charged = [a for a in decs if {"total", "grand", "cash"} & a.kinds and "cashback" not in a.kinds]
    change = [a.value for a in labelled("change")]
    rounding_rows = labelled("rounding")
    rounding = [a.value for a in rounding_rows]
    parts = [a for a in decs if {"total", "excl_tax"} & a.kinds and "count" not in a.kinds]
    # a tax amount, "Total GST (RM) : 6.37" included; not a total with or without tax ("TOTAL INCL GST")
    tax_rows = [a for a in labelled("tax") if not ({"incl_tax", "excl_tax"} & a.kinds) and a.value > 0]
    discounts = [a.value for a in labelled("discount") if a.value != 0]
    totals = [a for a in decs if "total" in a.kinds and not ({"excl_tax", "count"} & a.kinds)
              and ("tax" not in a.kinds or "incl_tax" in a.kinds)]
    total_rows = [a.row for a in totals]
    cent = Decimal("0.01")
    out: list[FieldCandidate] = []
    seen: set[tuple[str, int]] = set()
    for a in amounts:
        key = (a.text, id(a.line))
        if key in seen or a.value == 0:
            continue
        if not a.has_dec and not a.kinds and not any(LABELS[k].search(a.above) for k in ("total", "grand")) and \
                not (whole_ok is not None and whole_ok(layout, rows, a.row, a.line, a.raw)):
            continue  # a bare whole number with no label ("12 point text") is not an amount of money
        if not _namey(a.line.text) and len(a.line.text.split()) >= 6:
            continue  # a number inside running text ("loops back around to bar 1,") is no amount due
        seen.add(key)
        ln = a.line
        f: dict[str, float] = {}
        f.update({f"lab_{k}": 1.0 if k in a.kinds else 0.0 for k in _AMOUNT_KINDS})
        f.update(_flags("above_", a.above, ("total", "grand", "incl_tax", "excl_tax", "tax", "cash", "change")))
        f["lab_empty"] = 1.0 if _letters(a.label) < 2 else 0.0
        f["lab_len"] = min(40, _letters(a.label)) / 40
        f["lab_total_first"] = 1.0 if re.match(r"^\W*t[o0]ta[l1]\b", a.label, _I) else 0.0
        f["has_dec"] = 1.0 if a.has_dec else 0.0
        f["has_cur"] = 1.0 if re.search(r"[^\d\s.,-]", a.raw) else 0.0
        f["log_value"] = math.log10(abs(float(a.value)) + 1)
        f["negative"] = 1.0 if a.value < 0 else 0.0
        f["rank_desc"] = (values.index(a.value) / max(1, len(values) - 1)) if a.value in values else 1.0
        f["is_max"] = 1.0 if values and a.value == values[0] else 0.0
        f["n_same"] = float(sum(1 for b in decs if b.value == a.value))
        f["n_same_total"] = float(sum(1 for b in totals if b.value == a.value))
        f["n_same_cash"] = float(sum(1 for b in labelled("cash") if b.value == a.value))
        f["rel_y"] = ln.rel_y
        f["row_from_end"] = (n_rows - 1 - a.row) / n_rows
        f["rel_x1"] = ln.x1 / max(1.0, ln.page_width)
        f["rightmost"] = 1.0 if ln is rows.rows[a.row][-1] else 0.0
        f["last_page"] = 1.0 if ln.page == rows.pages[-1] else 0.0
        f["height"] = ln.h / max(1.0, rows.median_h.get(ln.page, 1.0))
        f["ocr_conf"] = ln.confidence
        f["n_tokens_line"] = float(len(money_tokens(ln.text)))
        f["eq_sub_tax"] = 1.0 if any(abs(s + t - a.value) < cent for s in subs for t in taxes if t < s) else 0.0
        f["eq_sub_only"] = 1.0 if a.value in subs else 0.0
        # the change is what was handed back whatever its printed sign ("Change Returned 20.00-")
        f["eq_cash_change"] = 1.0 if any(abs(c - abs(g) - a.value) < cent for c in cash for g in change if g != 0) \
            else 0.0
        # the rows above add up to it: a subtotal (or a total before tax) on an earlier row, the tax printed
        # between them and, where one is printed between them, the rounding adjustment (Bank Negara
        # Malaysia's 5-sen rounding, 2008): "Total Sales 33.00, GST 6% 1.98, Rounding 0.02, TOTAL 35.00"
        f["eq_parts_above"] = 1.0 if any(
            abs(b.value + t.value + r - a.value) < cent
            for b in parts if b.row < a.row and b.value != a.value
            for t in tax_rows if b.row < t.row < a.row
            for r in [Decimal(0)] + [x.value for x in rounding_rows if b.row < x.row < a.row]) else 0.0
        f["le_cash"] = 1.0 if cash and a.value <= max(cash) else 0.0
        f["eq_total_round"] = 1.0 if any(abs(t.value + r - a.value) < cent and t.value != a.value
                                         for t in totals for r in rounding) or \
            any(abs(t.value - r - a.value) < cent and t.value != a.value for t in totals for r in rounding) else 0.0
        f["is_5sen"] = 1.0 if (a.value * 100) % 5 == 0 else 0.0
        f["eq_total_less_discount"] = 1.0 if any(abs(t.value - abs(x) - a.value) < cent and t.value != a.value
                                                 for t in totals for x in discounts) else 0.0
        # the card charged with the purchase plus cash handed out ("DEBIT 34.47, CASH BACK 20.00, TOTAL DEBIT
        # 54.47"): the sum is what left the account, not the purchase total
        f["eq_total_plus_cashback"] = 1.0 if any(abs(p.value + x - a.value) < cent and p.line is not ln
                                                 for p in charged for x in cash_backs) else 0.0
        others = [t.value for t in totals if t.line is not ln]
        # a total block that adds up its parts (the per-rate "supplies" totals, say)
        f["eq_sum_totals"] = 1.0 if any(abs(x + y - a.value) < cent for i, x in enumerate(others)
                                        for y in others[i + 1:] if x > 0 and y > 0) else 0.0
        # cash rounding (Malaysia's 5-sen rounding, Bank Negara 2008; Swiss 5 Rappen): the amount paid is
        # another total rounded to 0.05
        f["rounded_other"] = 1.0 if f["is_5sen"] and any(0 < abs(x - a.value) < Decimal("0.05") and (x * 100) % 5
                                                         for x in others) else 0.0
        f["unrounded_other"] = 1.0 if not f["is_5sen"] and any(0 < abs(x - a.value) < Decimal("0.05") and
                                                               (x * 100) % 5 == 0 for x in others + cash) else 0.0
        # a rounding line between two totals: the one after it is the amount paid, the one before it
        # is the amount before rounding (Bank Negara Malaysia's 5-sen rounding mechanism, 2008)
        f["round_row_above"] = 1.0 if any(r.row < a.row and any(t < r.row for t in total_rows)
                                          for r in rounding_rows) else 0.0
        f["round_row_below"] = 1.0 if any(r.row > a.row and any(t > r.row for t in total_rows)
                                          for r in rounding_rows) else 0.0
        below_total = [r for r in total_rows if r > a.row]
        f["totals_below"] = float(len(below_total))
        f["is_last_total"] = 1.0 if totals and "total" in a.kinds and a.row == max(total_rows) else 0.0
        f["is_first_total"] = 1.0 if totals and "total" in a.kinds and a.row == min(total_rows) else 0.0
        f["rule_pick"] = 1.0 if rule_value is not None and a.text == rule_value else 0.0
        f["paren"] = 1.0 if re.search(r"\(\s*$", a.label) else 0.0
        out.append(FieldCandidate(fname, a.text, a.raw, [ln], f))
    # a total per tax rate ("Total 0% supplies", "Total 6% supplies (Inc. GST)": the tax summary) is
    # never the amount of the document when a strongly labelled total ("Total Payable") comes last
    if any(c.features["lab_grand"] and c.features["is_last_total"] and not c.features["lab_per_rate"] for c in out):
        out = [c for c in out if not c.features["lab_per_rate"] or c.features["lab_grand"]]
    return out


# --------------------------------------------------------------------------------------------------
# dates


def near_label(left: str, words: int = 4) -> str:
    """The label printed just before a value: the text after the last token holding a digit (the
    value of the field before it, on a row of several), at most its last ``words`` words
    (``"MUSTER-KUNDE GMBH Beleg-Nr :"`` -> ``"GMBH Beleg-Nr :"``)."""
    seg = re.split(r"\S*\d\S*", left)[-1]
    toks = seg.split()
    out: list[str] = []
    for t in reversed(toks):
        out.insert(0, t)
        if sum(1 for o in out if _LETTER.search(o)) >= words:
            break
    return " ".join(out)


def _date_candidates(layout: Layout, rows: Rows, order: str, rule_value: str | None) -> list[FieldCandidate]:
    found: list[tuple[str, DateMatch, Ln, int, str]] = []
    for ri, row in enumerate(rows.rows):
        for k, ln in enumerate(row):
            for d in find_dates(ln.text, order):
                if d.value is None:
                    continue
                left = " ".join(o.text for o in row[:k]) + " " + ln.text[: d.start]
                found.append((d.value, d, ln, ri, left))
    if not found:
        return []
    values = [v for v, *_ in found]
    ordered = sorted(set(values))
    out: list[FieldCandidate] = []
    for idx, (value, d, ln, ri, left) in enumerate(found):
        after = ln.text[d.end:]
        row_text = rows.texts[ri]
        above = rows.texts[ri - 1] if ri > 0 else ""
        f: dict[str, float] = {}
        f.update(_flags("lab_", left, ("date", "issue_date", "other_date")))
        f.update(_flags("row_", row_text, ("date", "issue_date", "other_date", "total", "cash")))
        f.update(_flags("above_", above, ("date", "issue_date", "other_date")))
        # a range goes on to its other end ("01.11.2025 bis 30.11.2025", "1 Jan - 31 Dec"); a dash before a
        # word ("vom 01.12.2025 - RECHNUNG") only separates
        f["range"] = 1.0 if re.match(r"^\s*(-|–|to\b|bis\b|au\b|tot\b|~)[^\d\n]{0,10}\d", after, _I) or \
            re.search(r"(-|–|from|von|du|van)\s*$", left, _I) else 0.0
        f["n_dates_row"] = float(sum(1 for _v, _d, _l, r2, _x in found if r2 == ri))
        f["textual"] = 1.0 if d.order == "text" else 0.0
        f["ambiguous"] = 1.0 if d.ambiguous else 0.0
        f["time_row"] = 1.0 if find_times(row_text) else 0.0
        f["rel_y"] = ln.rel_y
        f["row_idx"] = ri / max(1, len(rows.rows))
        f["first"] = 1.0 if idx == 0 else 0.0
        f["n_same"] = float(values.count(value))
        f["is_earliest"] = 1.0 if value == ordered[0] else 0.0
        f["is_latest"] = 1.0 if value == ordered[-1] else 0.0
        f["n_distinct"] = float(len(ordered))
        year = int(value[:4])
        f["year_ok"] = 1.0 if 2000 <= year <= 2040 else 0.0
        f["ocr_conf"] = ln.confidence
        f["rule_pick"] = 1.0 if rule_value is not None and value == rule_value else 0.0
        own = ln.text[: d.start]
        near = near_label(own if _letters(own) >= 2 else left, 3)
        f["near_other"] = 1.0 if LABELS["other_date"].search(near) else 0.0
        f["near_issue"] = 1.0 if LABELS["issue_date"].search(near) else 0.0
        out.append(FieldCandidate("date", value, d.raw, [ln], f, list(d.problems)))
    # a date printed after the label of another date (due, delivery, order, the start or end of a
    # billing period, the date of a related invoice) or as an end of a range ("01.09.13 - 30.09.13")
    # is not the document's date, when another is there
    def other(c: FieldCandidate) -> bool:
        return bool(c.features["near_other"] or c.features["range"])

    if any(not other(c) for c in out):
        out = [c for c in out if not other(c)]
    return out


# --------------------------------------------------------------------------------------------------
# vendor name


@lru_cache(maxsize=4096)
def _namey(text: str) -> bool:
    return looks_like_name(text)


def _printed_time(raw: str) -> bool:
    """Whether a time of day found in a row (:func:`find_times`) reads as one: written without spaces
    ("8:13", "20:05:33"), or with seconds or an AM/PM marker. "5: 55" alone is not one: an address's
    "NO.5: 55,57 & 59" holds it, and a till prints its times without a space after the colon."""
    return not re.search(r"\s", raw.strip()) or raw.count(":") + raw.count("：") >= 2 or \
        bool(re.search(r"[AaPp]\.?\s*[Mm]|[AaPp][HhNn]", raw))


def _text_features(prefix: str, text: str) -> dict[str, float]:
    return {prefix + k: v for k, v in _text_features_of(text).items()}


@lru_cache(maxsize=4096)
def _text_features_of(text: str) -> dict[str, float]:
    prefix = ""
    letters = _LETTER.findall(text)
    upper = [c for c in letters if c.isupper()]
    return {
        f"{prefix}company": 1.0 if COMPANY.search(text) else 0.0,
        f"{prefix}legal": 1.0 if LEGAL_SUFFIX.search(text) else 0.0,
        f"{prefix}header": 1.0 if HEADER.search(text) else 0.0,
        f"{prefix}contact": 1.0 if CONTACT.search(text) else 0.0,
        f"{prefix}reg": 1.0 if REGISTRATION.search(text) else 0.0,
        f"{prefix}regno": 1.0 if REGNO_ONLY.match(text) else 0.0,
        f"{prefix}address": 1.0 if ADDRESS.search(text) else 0.0,
        f"{prefix}postcode": 1.0 if POSTCODE.search(text) else 0.0,
        f"{prefix}place": 1.0 if PLACE.search(text) else 0.0,
        f"{prefix}date": 1.0 if find_dates(text) or any(_printed_time(raw) for _iso, raw, _at in find_times(text)) else 0.0,
        f"{prefix}amount": 1.0 if _AMOUNT_LIKE.search(text) else 0.0,
        f"{prefix}upper": (len(upper) / len(letters)) if letters else 0.0,
        f"{prefix}letters": (len(letters) / max(1, len(text))),
        f"{prefix}digits": (sum(c.isdigit() for c in text) / max(1, len(text))),
        f"{prefix}len": min(80, len(text)) / 80,
        f"{prefix}words": min(12, len(text.split())) / 12,
        f"{prefix}namey": 1.0 if _namey(text) else 0.0,
        f"{prefix}cjk": 1.0 if re.search(r"[\u4e00-\u9fff]", text) else 0.0,
    }


def _vendor_candidates(layout: Layout, rows: Rows, rule_value: str | None, top_n: int = 16) -> list[FieldCandidate]:
    if not rows.rows:
        return []
    first = rows.page_rows(rows.pages[0])
    top = first[:top_n]
    last = rows.page_rows(rows.pages[-1])
    foot = [i for i in last if rows.rows[i][0].rel_y > 0.82][-8:]
    spans: list[tuple[int, int]] = [(i, i) for i in top] + [(i, i + 1) for i in top[:-1]] + \
        [(i, i + 2) for i in top[:-2]]
    spans += [(i, i) for i in foot if i not in top]
    # anywhere on the first page: a row naming a company (an invoice's sender line, a seller block)
    spans += [(i, i) for i in first if i not in top and i not in foot and _text_features_of(rows.texts[i])["company"]]
    page_w = rows.rows[0][0].page_width
    heights = [max(o.h for o in rows.rows[i]) for i in top]
    max_h = max(heights) if heights else 1.0
    rule_key = _squash(rule_value or "")
    squashed = [_squash(t) for t in rows.texts]
    # the position of the first row that can be a name (not a header, not running text)
    first_name_pos = next((k for k, i in enumerate(first) if _text_features_of(rows.texts[i])["namey"]
                           and not _text_features_of(rows.texts[i])["header"]), len(first))
    out: list[FieldCandidate] = []
    seen: set[tuple[str, int]] = set()
    variants: list[tuple[int, int, str, str, Ln | None]] = []
    for a, b in spans:
        raw = " ".join(rows.texts[a: b + 1])
        variants.append((a, b, raw, "", None))
        if a == b and len(rows.rows[a]) > 1:
            # a row of several columns (an invoice's "Seller | Buyer | Invoice no." header): each box alone
            variants += [(a, b, o.text, "column", o) for o in rows.rows[a]]
        if a == b:
            # a sender line "Muster GmbH · Hauptstr. 1 · 10115 Berlin", a labelled "Verkäufer: Muster GmbH"
            stripped = _NAME_LABEL.sub("", raw)
            if stripped != raw:
                variants.append((a, b, stripped, "label", None))
            parts = [p.strip() for p in _SEPARATOR.split(stripped) if p.strip()]
            if len(parts) > 1:
                variants += [(a, b, p, "segment", None) for p in parts
                             if _text_features_of(p)["company"] or p is parts[0]]
            named = _NAME_THEN_COMMA.match(stripped)
            if named and named.group(1) not in parts:
                # "DKV EURO SERVICE GmbH + Co.KG, Balcke-Dürr-Allee 3, D-40882 Ratingen, Tel.: ...": a
                # registered name ends with its legal form (GmbHG s. 4, HGB s. 19), the address follows it
                variants.append((a, b, named.group(1), "segment", None))
    for a, b, raw, kind, only in variants:
        if a == b and kind in ("", "column") and _NAME_LABEL.match(raw):
            continue  # "Name: Muster AG", "Nummer: 22 00": the label is not part of the name (see "label")
        lines = [only] if only is not None else [o for r in rows.rows[a: b + 1] for o in r]
        value = clean_name(rows.plain(raw))
        if _letters(value) < 2 or not _namey(value) or HEADER.search(value):
            continue  # running text or a heading (TAX INVOICE, "Billing address") is never the vendor's name
        if value.islower() and len(value.split()) == 1 and not _text_features_of(value)["company"]:
            continue  # one lower-case word ("bosd", a handwritten note) is not a printed business name
        if _is_fragment(value, raw, a, b, rows, only):
            continue
        if PLACE.fullmatch(value.strip(" .,")) or _is_label(value):
            continue  # a country or state alone ("Nederland") is where, not who; a label ("Bedrag") is no name
        if b > a and any(HEADER.search(rows.texts[i]) for i in range(a, b + 1)):
            continue  # a span across a heading ("rapidKL / TAX INVOICE / RAPID RAIL SDN BHD")
        pos = first.index(a) if a in first else len(first)
        if a > 0 and OWNER.search(rows.texts[a - 1] + " " + rows.texts[a]) and \
                any(c.features["pos"] < pos / 20 for c in out):
            continue  # "Owned by: X SDN BHD" below the shop's own header: the owner, not the vendor
        key = _squash(value)
        if (key, a) in seen:
            continue
        seen.add((key, a))
        ln0 = rows.rows[a][0]
        h = max(o.h for o in lines)
        f: dict[str, float] = {}
        f.update(_text_features("t_", raw))
        nxt = rows.texts[b + 1] if b + 1 < len(rows.rows) else ""
        prv = rows.texts[a - 1] if a > 0 and rows.rows[a - 1][0].page == ln0.page else ""
        f.update({k: v for k, v in _text_features("n_", nxt).items() if k[2:] in (
            "company", "legal", "contact", "reg", "regno", "address", "postcode", "date", "header")})
        f.update({k: v for k, v in _text_features("p_", prv).items() if k[2:] in (
            "company", "legal", "contact", "reg", "regno", "address", "header", "namey")})
        f["pair"] = 1.0 if b > a else 0.0
        f["segment"] = 1.0 if kind == "segment" else 0.0
        f["column"] = 1.0 if kind == "column" else 0.0
        f["col_x"] = (lines[0].x0 / max(1.0, page_w)) if kind == "column" else 0.0
        f["n_cols"] = float(len(rows.rows[a]))
        above = [o for i in range(max(0, a - 3), a) for o in rows.rows[i]
                 if rows.rows[i][0].page == ln0.page and min(o.x1, lines[-1].x1) - max(o.x0, lines[0].x0) > 0]
        f["above_seller"] = 1.0 if any(_SELLER_LABEL.search(o.text) for o in above) else 0.0
        f["above_buyer"] = 1.0 if any(_BUYER_LABEL.search(o.text) for o in above) else 0.0
        f["label_stripped"] = 1.0 if kind == "label" else 0.0
        f["seller_label"] = 1.0 if _SELLER_LABEL.search(rows.texts[a]) or _SELLER_LABEL.search(prv) else 0.0
        f["buyer_label"] = 1.0 if _BUYER_LABEL.search(rows.texts[a]) or _BUYER_LABEL.search(prv) else 0.0
        f["anywhere"] = 1.0 if a not in top and a not in foot else 0.0
        f["n_rows"] = float(b - a + 1)
        f["starts_suffix"] = 1.0 if _SUFFIX_START.match(raw) else 0.0
        f["next_starts_suffix"] = 1.0 if _SUFFIX_START.match(nxt) else 0.0
        f["inner_suffix_start"] = 1.0 if any(_SUFFIX_START.match(rows.texts[i]) for i in range(a + 1, b + 1)) else 0.0
        f["open_paren"] = 1.0 if raw.count("(") > raw.count(")") else 0.0
        f["amp_end"] = 1.0 if re.search(r"[&,-]\s*$", raw) else 0.0
        f["amp_start"] = 1.0 if re.match(r"^\s*[&,-]", raw) else 0.0
        f["next_amp_start"] = 1.0 if re.match(r"^\s*[&(]", nxt) else 0.0
        f["legal_end"] = 1.0 if re.search(LEGAL_SUFFIX.pattern + r"\W*$", value, _I) else 0.0
        f["inner_legal"] = 1.0 if any(LEGAL_SUFFIX.search(rows.texts[i]) for i in range(a, b)) else 0.0
        f["pos"] = min(pos, 20) / 20
        f["first_namey"] = 1.0 if pos <= first_name_pos else 0.0
        f["footer"] = 1.0 if a in foot and a not in top else 0.0
        f["rel_y"] = ln0.rel_y
        f["height"] = h / max(1.0, rows.median_h.get(ln0.page, 1.0))
        f["height_top"] = h / max_h
        f["tallest"] = 1.0 if h >= max_h * 0.95 else 0.0
        f["centred"] = 1.0 - min(1.0, abs(((min(o.x0 for o in lines) + max(o.x1 for o in lines)) / 2)
                                          - page_w / 2) / (page_w / 2))
        f["width"] = (max(o.x1 for o in lines) - min(o.x0 for o in lines)) / max(1.0, page_w)
        f["owner"] = 1.0 if OWNER.search(prv) or OWNER.search(raw) else 0.0
        f["ocr_conf"] = min(o.confidence for o in lines)
        f["n_seen"] = float(sum(1 for t in squashed if key and key in t))
        reg_near = [i for i in range(b + 1, min(len(rows.rows), b + 4)) if REGISTRATION.search(rows.texts[i])]
        f["reg_below"] = 1.0 if reg_near else 0.0
        f["rule_pick"] = 1.0 if rule_key and key == rule_key else 0.0
        f["rule_part"] = 1.0 if rule_key and key and key in rule_key and key != rule_key else 0.0
        out.append(FieldCandidate("vendor_name", value, raw, lines, f))
    # the vendor is never the buyer: a name under (or labelled with) "Käufer", "Bill to", "Client", ...
    # and not under a seller label is the buyer's, when another candidate is there
    def buyer(c: FieldCandidate) -> bool:
        g = c.features
        if g["above_buyer"] or g["above_seller"]:  # a label over this column says whose it is
            return bool(g["above_buyer"] and not g["above_seller"])
        return bool(g["buyer_label"] and not g["seller_label"])

    if any(not buyer(c) for c in out):
        out = [c for c in out if not buyer(c)]
    return out


@lru_cache(maxsize=4096)
def _is_label(text: str) -> bool:
    """Whether a text is nothing but a field label of :data:`LABELS` ("Bedrag", "Total", "Datum")."""
    words = re.sub(r"[^\w\s]|\d", " ", text).split()
    if not words or len(words) > 3:
        return False
    return any(p.fullmatch(" ".join(words)) for p in LABELS.values()) or \
        all(any(p.fullmatch(w) for p in LABELS.values()) for w in words)


def _continues(rows: Rows, i: int, page: int) -> bool:
    """Whether row ``i`` (on ``page``) can hold part of a business name: it exists on that page and
    is a name-like line, not a heading, a registration number or a contact line."""
    if not 0 <= i < len(rows.rows) or rows.rows[i][0].page != page:
        return False
    f = _text_features_of(rows.texts[i])
    return bool(f["namey"] and not f["header"] and not f["regno"] and not f["contact"] and not f["date"])


def _is_fragment(value: str, raw: str, a: int, b: int, rows: Rows, only: Ln | None = None) -> bool:
    """Whether a vendor candidate is only part of a name printed over several rows, or a label.

    A registered name ends with its legal form and never starts with it ("CO. (M) SDN BHD" below
    "POPULAR BOOK"; Companies Act 2016 (Malaysia) s. 27, GmbHG s. 4, Code de commerce L210-2), a row
    of only trade words and legal forms is the tail of the row above, and a row ending in "&", "-" or
    an open parenthesis goes on in the next row. Such a candidate is dropped when the neighbouring
    row it belongs with is there (the span of both rows is a candidate of its own). A value printed
    as "Label:" (``Stylesheet-Version: 2.6``, ``Ansprechpartner: ...``) is a label, not a name.
    """
    page = rows.rows[a][0].page
    stripped = raw.strip()  # "value:" (a literal prefix, then a colon): no pattern compiled per value
    if stripped.startswith(value) and _COLON_NEXT.match(stripped, len(value)):
        return True
    if only is not None:  # one box of a row of several: its neighbours in the row are the context
        row = rows.rows[a]
        k = next(i for i, o in enumerate(row) if o is only)
        if (k > 0 and _is_tail(value)) or (k + 1 < len(row) and _is_tail(row[k + 1].text)):
            return True
    if _continues(rows, a - 1, page) and (_is_tail(value) or value.count(")") > value.count("(")):
        return True
    if not _continues(rows, b + 1, page):
        return False
    return bool(re.search(r"[&-]\s*$", raw) or value.count("(") > value.count(")") or _is_tail(rows.texts[b + 1]))


#: A colon after optional spaces (where a value printed as "Label:" ends; :func:`_is_fragment`).
_COLON_NEXT = re.compile(r"\s*[:：]")


def _is_tail(text: str) -> bool:
    """Whether a row can only end a name begun above it: it starts with a legal form or "&", or
    holds nothing but trade words and legal forms ("RESTAURANT SDN BHD")."""
    words = re.findall(r"[^\W\d_]+(?:/[^\W\d_]+)?|&", text.upper())
    return bool(_SUFFIX_START.match(text) or text.lstrip().startswith("&") or
                (words and all(w in _GENERIC_NAME_WORDS for w in words)))


_SELLER_PREFIX = re.compile(r"^\s*(seller|supplier|vendor|from|verk[äa]ufer|lieferant|absender|vendeur|fournisseur|"
                            r"leverancier|verkoper|销\s*售\s*方(名\s*称)?)\s*[:：]\s*", _I)
_NAME_LABEL = re.compile(r"^\s*[^\W\d_][^:：\d]{0,24}[:：]\s*(?=\S)")
_NAME_THEN_COMMA = re.compile(r"^(.{2,60}?" + LEGAL_SUFFIX.pattern + r"\.?)\s*,\s+\S", _I)
_SEPARATOR = re.compile(r"\s+[·•|–—-]\s+|\s{3,}|\s*[·•|]\s*")
_SELLER_LABEL = re.compile(r"\b(seller|supplier|vendor|from|verk[äa]ufer|lieferant|absender|vendeur|fournisseur|"
                           r"leverancier|verkoper|销\s*售\s*方)\b", _I)
_BUYER_LABEL = re.compile(r"\b(buyer|customer|client|bill\s*to|sold\s*to|ship\s*to|deliver\s*to|k[äa]ufer|kunde|"
                          r"empf[äa]nger|acheteur|destinataire|klant|koper|购\s*买\s*方|"
                          # the buyer's address blocks: invoice / delivery address in en, de, fr, nl
                          r"(billing|invoice|shipping|delivery)\s*address|rechnungs(adresse|anschrift)|"
                          r"liefer(adresse|anschrift)|adresse\s*de\s*(facturation|livraison)|factuuradres|"
                          r"afleveradres|t\.\s*a\.\s*v\.?)", _I)
_SUFFIX_START = re.compile(r"^\W*(SDN|BHD|S/B|BERHAD|ENTERPRISES?|TRADING|LTD|LIMITED|CO\.|\(M\)|PLT|GMBH|"
                           r"AG|B\.?V\.?|INC|LLC|HOLDINGS|RESOURCES|INDUSTRIES)(?=\W|$)", _I)
_TRAILING_REG = re.compile(r"\s*[(（]?\s*(?:CO\.?\s*(?:REG|NO)\.?\s*:?\s*)?[A-Z]{0,3}\d{5,}[\s-]*[A-Z]?\s*[)）]?\s*$", _I)
_LEADING_CODE = re.compile(r"^\s*#?\d{3,}\s+(?=[^\W\d_])")
#: OCR digit-for-letter confusions inside words (1/I, 0/O, 5/S, 8/B): a token of letters holding one
#: such digit is a word, not a number ("1DEA" -> "IDEA", "D.1.Y." -> "D.I.Y.").
_DIGIT_LETTER = {"1": "I", "0": "O", "5": "S", "8": "B"}


def _fix_token(tok: str) -> str:
    letters = _LETTER.findall(tok)
    digits = [c for c in tok if c.isdigit()]
    if len(letters) >= 2 and 1 <= len(digits) <= 1 and all(c in _DIGIT_LETTER for c in digits):
        return "".join(_DIGIT_LETTER.get(c, c) if c.isdigit() else c for c in tok)
    return tok


#: Words printed in addresses and shop names whose OCR misreads can be undone (a token of five or more
#: letters one edit away from exactly one of them): Malaysian street and place words (Jalan, Taman,
#: Lorong, ...; the states of Malaysia), English, German, French and Dutch street words, and the
#: trade words of company names.
ADDRESS_WORDS = (
    "JALAN", "TAMAN", "LORONG", "BANDAR", "KAWASAN", "PERINDUSTRIAN", "SEKSYEN", "PERSIARAN", "KAMPUNG",
    "LEBUHRAYA", "BANGUNAN", "WISMA", "MENARA", "PUSAT", "PERDANA", "SELANGOR", "JOHOR", "BAHRU", "KUALA",
    "LUMPUR", "PERAK", "PAHANG", "KEDAH", "MELAKA", "NEGERI", "SEMBILAN", "PULAU", "PINANG", "SABAH",
    "SARAWAK", "KELANTAN", "TERENGGANU", "PUTRAJAYA", "MALAYSIA", "DARUL", "EHSAN", "TAKZIM", "CHERAS",
    "PETALING", "KLANG", "SUBANG", "PUCHONG", "KAJANG", "STREET", "AVENUE", "BUILDING", "FLOOR", "LEVEL",
    "STRASSE", "PLATZ", "BOULEVARD", "STRAAT",
)
#: Street, building and place words a postal address may hold without any number (besides
#: :data:`ADDRESS_WORDS`): "DAISO JAPAN, IOI MALL".
_PLACE_WORDS = frozenset(ADDRESS_WORDS) | {
    "MALL", "PLAZA", "ROAD", "JLN", "JL", "TMN", "LOT", "CENTRE", "CENTER", "COMPLEX", "KOMPLEKS", "SQUARE",
    "RUE", "WEG", "GASSE", "AVE", "STR", "ARCADE", "TOWER",
}  # not "SHOPPING" alone: "Shopping Centre" holds a place word, "Thank you for shopping with us!" none
#: A receipt's courtesy lines (greetings and thanks, printed above the items or under the total, in the
#: corpora's languages: English, Malay, German, French, Dutch, Chinese): a value holding one is a
#: slogan, never a postal address, whatever digit it holds ("Thank you, come again 24/7").
_COURTESY = re.compile(r"(?i)\bthank\s*you\b|\bthanks\b|\bwelcome\b|\bplease\s+come\s+again\b|\bsee\s+you\b|"
                       r"\bhave\s+a\s+nice\b|\bterima\s+kasih\b|\bselamat\s+datang\b|\bvielen\s+dank\b|\bdanke\b|"
                       r"\bmerci\b|\bbedankt\b|\bdank\s+u\b|谢谢|欢迎")
#: A Malaysian company registration number (SSM's format before 2019: digits and a check letter,
#: "256864-P"): digits that are no part of an address.
_COMPANY_REG_NO = re.compile(r"\(?\b\d{4,12}\s*-\s*[A-Z]\b\)?")


def looks_like_address(value: str) -> bool:
    """Whether ``value`` can be a postal address: it holds a digit (a street number or a postcode, which
    a postal address carries, UPU S42) other than a company registration number, or a street, building
    or place word (:data:`_PLACE_WORDS`). Of the 217 annotated receipt addresses of the samples, 216 hold
    a digit and the other names a mall; a document heading ("Tax Receipt") holds neither. A courtesy
    line (:data:`_COURTESY`: "Thank you for shopping with us!", "Terima kasih") is never an address;
    none of the 217 holds one."""
    if _COURTESY.search(value or ""):
        return False
    text = _COMPANY_REG_NO.sub(" ", value or "")
    if re.search(r"\d", text):
        return True
    return any(w in _PLACE_WORDS for w in re.findall(r"[A-Z]+", text.upper()))


NAME_WORDS = (
    "ENTERPRISE", "ENTERPRISES", "TRADING", "RESTAURANT", "RESTORAN", "HARDWARE", "MARKETING",
    "INTERNATIONAL", "HOLDINGS", "INDUSTRIES", "SUPERMARKET", "HYPERMARKET", "BAKERY", "BAKERIES",
    "PHARMACY", "STATIONERY", "STATIONER", "BOOKSTORE", "SYARIKAT", "PERNIAGAAN", "TRADERS", "MACHINERY", "ELECTRICAL",
    "CATERING", "KITCHEN", "SEAFOOD", "CORPORATION", "COMPANY", "LIMITED", "SERVICES", "SERVICE", "STATION",
    "RESOURCES", "GALLERY", "FURNITURE", "ELECTRONICS", "AUTOMOBILE", "MOTOR",
)


#: Words that alone never make a business name: the legal forms and the trade words of
#: :data:`NAME_WORDS` ("RESTAURANT SDN BHD" is the tail of a name printed over two rows).
_SHOP_WORDS = ("SHOP", "MART", "CAFE", "STORE", "STORES")
_GENERIC_NAME_WORDS = frozenset({*NAME_WORDS, *_SHOP_WORDS, "SDN", "BHD", "S/B", "BERHAD", "CO", "M", "LTD", "PLT",
                                 "LLP", "GMBH", "AG", "KG", "SARL", "SAS", "INC", "LLC", "PTE", "&", "AND", "THE"})


#: Character pairs PP-OCR confuses on thermal prints (seen in its misreads of the SROIE receipts).
_CONFUSABLE = {frozenset(p) for p in ("IL", "I1", "L1", "O0", "D0", "DO", "NM", "EC", "UV", "HN", "RK", "S5", "B8",
                                      "G6", "Z2", "IT", "FE", "QO")}


@lru_cache(maxsize=8)
def _within_one_letter(vocab: tuple[str, ...]) -> dict[int, tuple[str, ...]]:
    """``{length: the words of vocab one letter longer or shorter or as long}``, in vocabulary order:
    the only words one edit away from a token of that length."""
    return {n: tuple(w for w in vocab if abs(len(w) - n) <= 1) for n in range(1, max(map(len, vocab)) + 2)}


def _vocab_fix(text: str, vocab: tuple[str, ...]) -> str:
    from rapidfuzz.distance import Levenshtein

    def fix(m: re.Match[str]) -> str:
        tok = m.group(0)
        up = tok.upper()
        if len(tok) < 5 or up in vocab or (up.endswith("S") and up[:-1] in vocab):
            return tok  # a plural ("RESTAURANTS") is a word of its own
        near = [w for w in _within_one_letter(vocab).get(len(up), ())
                if Levenshtein.distance(up, w, score_cutoff=1) <= 1]
        if len(near) != 1:
            return tok
        w = near[0]
        if len(up) < 7:
            # short words: only a substitution of characters OCR confuses ("Jaian" -> "Jalan"), never a
            # different real word ("LAMAN", "JAPAN")
            diff = [(a, b) for a, b in zip(up, w) if a != b]
            if len(up) != len(w) or len(diff) != 1 or frozenset(diff[0]) not in _CONFUSABLE:
                return tok
        return w if tok.isupper() else (w.capitalize() if tok[:1].isupper() else w.lower())

    return re.sub(r"[A-Za-z]{5,}", fix, text)


#: Trade words that OCR glues to their neighbours when a thermal print's letter spacing is tight
#: ("SANYUSTATIONERYSHOP"): :data:`NAME_WORDS`. The short shop words (MART, SHOP, STORES, ...) are no
#: evidence of a lost space: brands print them glued ("FAMILYMART", "TIMES BOOKSTORES", "KMART"), and a
#: split there was a silent error; they still stand apart where a trade word's split leaves them.
_GLUE_WORDS = tuple(sorted(NAME_WORDS, key=len, reverse=True))
_GLUED = re.compile(r"\b[A-Z]{9,}\b")


def _unglue(m: re.Match[str]) -> str:
    """Spaces restored around a trade word inside one long upper-case token, when every piece left
    is two letters or more (``SANYUSTATIONERYSHOP`` -> ``SANYU STATIONERY SHOP``); a token that is a
    word of its own (``SUPERMARKET``) stays."""
    tok = m.group(0)
    if tok in _GLUE_WORDS or (tok.endswith("S") and tok[:-1] in _GLUE_WORDS):
        return tok
    for w in _GLUE_WORDS:
        i = tok.find(w)
        if i < 0:
            continue
        left, right = tok[:i], tok[i + len(w):]
        if (left and len(left) < 2) or (right and len(right) < 2) or not (left or right):
            continue
        return " ".join(p for p in (_GLUED.sub(_unglue, left), w, _GLUED.sub(_unglue, right)) if p)
    return tok


@lru_cache(maxsize=2048)
def clean_name(text: str) -> str:
    """A company name as printed, cleaned: :func:`~desktop.core.extraction.common.tidy_name`, then a
    trailing registration number with or without parentheses (``519537-X)``), a leading till code
    (``#000002``) and digit-for-letter OCR confusions inside words removed, and misread trade words
    restored from :data:`NAME_WORDS` (``HARDWAKE`` -> ``HARDWARE``), and a trailing legal form misread
    in a letter restored (:func:`~desktop.core.extraction.legal_forms.restore_legal_form`)."""
    t = _NAME_TRAILING_HEADING.sub("", _SELLER_PREFIX.sub("", tidy_name(text)))
    # the legal suffix is a closed vocabulary, so its OCR confusions can be undone where it stands last:
    # SUN/S0N BHD -> SDN BHD, 5/B -> S/B, a hyphen or bracket glued before it
    t = re.sub(r"\bS[UO0]N(\.?\s*BHD\.?)\s*$", r"SDN\1", t, flags=_I)
    t = re.sub(r"\b5/B\s*$", "S/B", t)
    t = re.sub(r"(?<=[A-Za-z])[-_\[\]|]+(?=(SDN|S/B|BHD|LTD|GMBH)\b)", " ", t, flags=_I)
    t = re.sub(r"(?<=[A-Za-z])[\[\]|](?=\s)", "I", t)
    t = _TRAILING_REG.sub("", t)
    t = _LEADING_CODE.sub("", t)
    t = " ".join(_fix_token(w) for w in t.split())
    t = _vocab_fix(t, NAME_WORDS)
    t = _GLUED.sub(_unglue, t)
    t = restore_legal_form(t)  # "S.à r.I." -> "S.à r.l." (.legal_forms)
    return t.strip(" ,;:")


# --------------------------------------------------------------------------------------------------
# vendor address

_LEADING_REG = re.compile(r"^\s*(?:[(（]?\s*[A-Z]{0,3}\d{5,}[\s-]*[A-Z]\s*[)）]?(?=\s)|[(（]?\s*"
                          r"(?:CO\.?\s*-?\s*REG|REG\.?\s*NO|COMPANY\s*NO|CO\.?\s*NO|GST\s*(?:REG|ID)?\s*(?:NO)?)"
                          r"\s*[.:]?\s*[.:]?\s*[A-Z]{0,3}\d[\w-]*\s*[)）]?)\s*", _I)


_COUNTRY_END = re.compile(rf"\b({_COUNTRIES})\W*$", _I)
_TRAILING_HEADING = re.compile(r"\s+(SIMPLIFIED\s+|FULL\s+)?TAX\s*INVOICE\W*$", _I)
#: A document heading printed on the name's row, far to its right, and read as one line with it ("Harborline
#: Marine Supply, Inc.      INVOICE"): no business name ends with the document's title.
_NAME_TRAILING_HEADING = re.compile(r"(?<=\S)\s+((SIMPLIFIED|FULL)\s+)?(TAX\s+)?(INVOICE|RECEIPT|RECHNUNG|FACTURE|"
                                    r"FACTUUR|FATTURA|FACTURA|QUITTUNG|GUTSCHRIFT|CREDIT\s+NOTE)\W*$")
_PERIOD_AFTER_WORD = re.compile(r"(?:(?<=[A-Za-z]{3})\.(?=\s*[A-Za-z0-9])|(?<=\d)\.(?=\s+[A-Za-z0-9]|[A-Za-z]))(?!\S*$)")
#: A number misread with one letter in it ("29O", "4115O", "1I"): O/o -> 0, I/l -> 1, S -> 5, B -> 8.
#: The number starts with a digit: a letter before the digits is a shop lot's block or floor ("Lot S25",
#: "Lot S319", "B12": a mall's lot numbers carry the letter of their block), printed, not misread.
_NUMBER_MISREAD = re.compile(r"(?<![\w/-])(?=\d)(?=[\dOoIlSB]*\d[\dOoIlSB]*\d)([\dOoIlSB]{3,})(?![\w/-])")
_DIGIT_FOR = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1", "S": "5", "B": "8"})
#: Street abbreviations of Malaysian addresses (Jln = Jalan, Tmn = Taman, Blk = Block, Kg = Kampung) with
#: an I/1/i read for their L.
_ABBREV_MISREAD = re.compile(r"\b(J)[I1i](n)\b|\b(B)[I1i](k)\b", re.I)


#: A street word glued to the capitalised name after it ("JalanPelabur" -> "Jalan Pelabur").
_GLUED_STREET_WORD = re.compile(r"\b(Jalan|Jln|Taman|Tmn|Lorong|Bandar|Persiaran|Lebuh|Kampung|Lot|No\.)(?=[A-Z][a-z])")
#: A word of :data:`ADDRESS_WORDS` with one letter read as punctuation ("JA:AN", "SE_ANGOR").
_PUNCT_IN_WORD = re.compile(r"\b[A-Za-z]{2,}[:_|!][A-Za-z]{2,}\b")
#: The first word of a Malaysian street address, "LOT" or "NO" before the lot or house number, misread
#: in one letter ("Loi 3", "Eot 3", "N0 12"); Pos Malaysia's address format puts it first.
_FIRST_WORD_MISREAD = re.compile(r"^(\W*)([A-Za-z][A-Za-z0]{1,2})([.:]?\s+\d|[.:]\s*\d)")
#: Punctuation OCR doubles or adds on thermal prints, never printed in an address: a full stop before a
#: comma ("SELATAN.,"), a mark after "&" ("2110&:2111"), a full stop between a five-digit postcode
#: and its town ("81750.JOHOR"; the town follows the postcode after a space, Pos Malaysia).
_DOUBLED_PUNCT = ((re.compile(r"\.\s*,"), ","), (re.compile(r"&\s*[:;.,]"), "&"),
                  (re.compile(r"(?<![\w-])(\d{5})\.(?=[A-Za-z])"), r"\1 "))


def _punct_in_word(m: re.Match[str]) -> str:
    tok = m.group(0)
    i = next(k for k, c in enumerate(tok) if c in ":_|!")
    up = tok.upper()
    hits = [w for w in ADDRESS_WORDS if len(w) == len(up) and w[:i] == up[:i] and w[i + 1:] == up[i + 1:]]
    if len(hits) != 1:
        return tok
    return hits[0] if tok.replace(tok[i], "").isupper() else hits[0].capitalize()


def _first_word(tok: str) -> str:
    from rapidfuzz.distance import Levenshtein

    up = tok.upper().replace("0", "O")
    for w in ("LOT", "NO"):
        if up != w and len(up) == len(w) and Levenshtein.distance(up, w) == 1:
            return w if tok.isupper() else w.capitalize()
    return "NO" if up == "NO" and tok != up and tok.isupper() else tok


@lru_cache(maxsize=4096)
def clean_address(text: str) -> str:
    """An address as printed, cleaned: whitespace collapsed, a leading registration number
    (``(1120908-M)``, ``CO-REG:750441-W``) removed, a postcode glued to its town split
    (``43800DENGKIL``, ``53300KL``: postcodes of five digits are printed before the town in Malaysia,
    Germany, France, Spain and Italy), and misread street and place words restored from
    :data:`ADDRESS_WORDS` (``Jaian`` -> ``Jalan``)."""
    t = re.sub(r"\s+", " ", text).strip()
    t = ADDRESS_LABEL.sub("", t)
    t = _LEADING_REG.sub("", t)
    t = _TRAILING_HEADING.sub("", t)
    t = re.sub(r"(?<![\w-])(\d{5})(?=[A-Za-z]{2,})", r"\1 ", t)
    for pattern, repl in _DOUBLED_PUNCT:
        t = pattern.sub(repl, t)
    t = _GLUED_STREET_WORD.sub(r"\1 ", t)
    t = _PUNCT_IN_WORD.sub(_punct_in_word, t)
    t = _vocab_fix(t, ADDRESS_WORDS)
    t = _FIRST_WORD_MISREAD.sub(lambda m: m.group(1) + _first_word(m.group(2)) + m.group(3), t)
    t = _NUMBER_MISREAD.sub(lambda m: m.group(1).translate(_DIGIT_FOR)
                            if sum(c.isdigit() for c in m.group(1)) >= len(m.group(1)) - 1 else m.group(1), t)
    t = _ABBREV_MISREAD.sub(lambda m: "".join((a, "L" if b.isupper() else "l", b)) if (a := m.group(1) or m.group(3))
                            and (b := m.group(2) or m.group(4)) else m.group(0), t)
    return t.strip()


#: Abbreviations written with a full stop in street addresses (Malay: Jln. Jalan, Tmn. Taman, Bkt. Bukit,
#: Kpg. Kampung, Sg. Sungai, Bdr. Bandar; German Str. Straße; English St., Ave., Blvd., Bldg.; legal
#: forms Bhd., Ltd.): their full stop is no misread comma.
_ADDRESS_ABBREVIATIONS = frozenset({
    "jln", "tmn", "bkt", "kpg", "bdr", "lrg", "jin", "str", "ave", "blvd", "bldg", "apt", "ste", "rd", "st",
    "bhd", "ltd", "sdn", "inc", "corp", "dept", "nr", "no", "fl", "ind", "inds", "sek", "sg", "pt", "kg",
})


def _commas_for_full_stops(value: str) -> str:
    """``value`` with each full stop after a word or number inside the address read as a comma (see
    :data:`_PERIOD_AFTER_WORD`), except after an abbreviation of :data:`_ADDRESS_ABBREVIATIONS` or a
    German street name shortened to ``-str.``."""
    def repl(m: re.Match[str]) -> str:
        word = re.search(r"([A-Za-z]+)$", value[: m.start()])
        w = word.group(1).lower() if word else ""
        return "." if w in _ADDRESS_ABBREVIATIONS or w.endswith("str") else ","  # Hauptstr., Bahnhofstr.

    return _PERIOD_AFTER_WORD.sub(repl, value)


def ends_address(row: str) -> bool:
    """Whether a row cannot be part of a postal address, so that no address span holds it: a heading
    (TAX INVOICE), an owner's line ("Licensee of ...", "Owned by ..."), a registration or tax number,
    a contact line (phone, fax, e-mail), a date or time, or an amount labelled as a total, cash or
    change (the totals block). None of the 218 annotated receipt addresses
    of the samples holds one; the country, the last line of a postal address (UPU S42), ends a span
    too (checked by the caller)."""
    f = _text_features_of(row)
    if _FIELD_ROW.match(row) and not _STREET_START.match(row):
        return True
    if (CJK_LABEL_ROW.match(row) and not ADDRESS_LABEL.match(row)) or CN_TITLE.search(row) or CN_REGISTRATION.search(row):
        return True  # a Chinese field row ("日期：...", "单号：..."), document title or registration number
    return bool(HEADER.search(row) or OWNER.search(row) or f["reg"] or f["contact"] or f["date"] or
                (f["amount"] and any(LABELS[k].search(row) for k in ("total", "cash", "change"))))


#: A till's field row, a label and one code ("Site: 1046", "TABLE:T10", "Cashier : KELLY", "Rcpt#:A1800"):
#: it belongs to no postal address (in the top 20 rows of the 218 annotated receipts it stands 326
#: times, never inside the annotated address), unless its label starts a street address ("NO: 28").
_FIELD_ROW = re.compile(r"^\s*[A-Za-z][A-Za-z .#/]{0,24}?\s*[:#]\s*[A-Za-z0-9][A-Za-z0-9\-/]*\s*$")

_STREET_START = re.compile(r"^\W*(\d|(NO|LOT|UNIT|BLOCK|BLK|LEVEL|TINGKAT)\b\.?\s*\d?)", _I)


#: A price as a till or an invoice prints it in its own column: an amount with two decimals, a currency
#: sign or code and a one-letter tax code around it at most ("8,95", "€ 14.50", "RM 3.20 SR", "11.50 A").
_PRICE_CELL = re.compile(r"^\W*(?:[A-Z]{1,3}\s?|[€$£¥]\s?)?-?\d{1,6}[.,]\d{2}(?:\s?[€$£]|\s?[A-Z]{1,3})?\W*$")


def _item_row(row: list[Ln]) -> bool:
    """Whether a text row is an item line: words, then a price in a box of its own at the row's right end
    (:data:`_PRICE_CELL`). No postal address holds one: item lines under a header swept into the address
    were a silent error (a reviewer's receipt: three item lines returned as the address at 0.95)."""
    return len(row) >= 2 and bool(_PRICE_CELL.match(row[-1].text)) and \
        any(len(re.findall(r"[^\W\d_]", o.text)) >= 3 for o in row[:-1])


def _names_the_place(first: str, second: str) -> bool:
    """Whether ``first`` names a shop, branch or building above the address proper: it holds no digit,
    no street word and the row below starts the street address with a number ("4-20, Jalan Ria",
    "NO.37-1, PLAZA ...", "Lot 3, ...")."""
    return not re.search(r"\d", first) and not re.search(r"\b(JALAN|JLN|LORONG|STREET|ROAD|JL)\b", first, _I) \
        and bool(_STREET_START.match(second))


def _address_candidates(layout: Layout, rows: Rows, rule_value: str | None, vendor_rule_rows: set[int],
                        top_n: int = 20, max_len: int = 6) -> list[FieldCandidate]:
    if not rows.rows:
        return []
    first = rows.page_rows(rows.pages[0])[:top_n]
    vend_end = max(vendor_rule_rows) if vendor_rule_rows else -1
    rule_key = _squash(rule_value or "")
    out: list[FieldCandidate] = []
    for si, s in enumerate(first):
        if _letters(rows.texts[s]) < 3 and PHONE.search(rows.texts[s]):
            continue  # a bare telephone number starts no address (and is too short to be checked alone)
        for length in range(1, max_len + 1):
            if si + length > len(first):
                break
            idx = first[si: si + length]
            texts = [rows.texts[i] for i in idx]
            raw = " ".join(texts)
            if _letters(raw) < 3:
                continue
            value = clean_address(rows.plain(raw))
            if not _text_features_of(texts[-1])["namey"]:
                break  # a line of running text ends any address (and a longer span holds it too)
            if ends_address(texts[-1] if length > 1 else _LEADING_REG.sub("", texts[0])) or \
                    (length > 1 and _COUNTRY_END.search(texts[-2])) or _item_row(rows.rows[idx[-1]]):
                break
            if length > 1 and _names_the_place(*(clean_address(rows.plain(t)) for t in texts[:2])):
                break  # "MYDIN MART SRI MUDA" over "4-20, Jalan Ria": a shop or branch name, then the address
            if _letters(value) < 3:
                continue
            nxt = rows.texts[first[si + length]] if si + length < len(first) else ""
            prv = rows.texts[first[si - 1]] if si > 0 else ""
            f: dict[str, float] = {}
            f["start"] = si / top_n
            f["len"] = float(length)
            f["after_vendor"] = float(s - vend_end) if vend_end >= 0 else -1.0
            f["overlap_vendor"] = 1.0 if set(idx) & vendor_rule_rows else 0.0
            for name in ("address", "postcode", "place", "contact", "reg", "company", "header"):
                hits = [_text_features_of(t)[name] > 0 for t in texts]
                f[f"share_{name}"] = sum(hits) / length
                f[f"last_{name}"] = 1.0 if hits[-1] else 0.0
                f[f"first_{name}"] = 1.0 if hits[0] else 0.0
            f["any_regno"] = 1.0 if any(_text_features_of(t)["regno"] for t in texts) else 0.0
            f["any_date"] = 1.0 if any(_text_features_of(t)["date"] for t in texts) else 0.0
            f["any_amount"] = 1.0 if any(_text_features_of(t)["amount"] for t in texts) else 0.0
            f["ends_comma"] = 1.0 if texts[-1].rstrip().endswith(",") else 0.0
            f["ends_dot"] = 1.0 if texts[-1].rstrip().endswith(".") else 0.0
            f.update({k: v for k, v in _text_features("n_", nxt).items() if k[2:] in (
                "contact", "reg", "regno", "address", "postcode", "place", "date", "header", "amount", "company")})
            f.update({k: v for k, v in _text_features("p_", prv).items() if k[2:] in (
                "company", "legal", "contact", "reg", "regno", "address", "postcode", "header")})
            f["n_ends_comma"] = 1.0 if nxt.rstrip().endswith(",") else 0.0
            f["p_ends_comma"] = 1.0 if prv.rstrip().endswith(",") else 0.0
            f["gap_next"] = 0.0
            if si + length < len(first):
                a, b = rows.rows[first[si + length - 1]], rows.rows[first[si + length]]
                f["gap_next"] = (min(o.y0 for o in b) - max(o.y1 for o in a)) / max(1.0, rows.median_h.get(a[0].page, 1))
            heights = [max(o.h for o in rows.rows[i]) for i in idx]
            f["height"] = (sum(heights) / length) / max(1.0, rows.median_h.get(rows.rows[s][0].page, 1.0))
            f["height_var"] = (max(heights) - min(heights)) / max(1.0, max(heights))
            f["letters"] = _letters(raw) / max(1, len(raw))
            f["ocr_conf"] = min(o.confidence for i in idx for o in rows.rows[i])
            key = _squash(value)
            f["rule_pick"] = 1.0 if rule_key and key == rule_key else 0.0
            f["rule_sub"] = 1.0 if rule_key and key and key != rule_key and key in rule_key else 0.0
            f["rule_super"] = 1.0 if rule_key and key and key != rule_key and rule_key in key else 0.0
            lines = [o for i in idx for o in rows.rows[i]]
            # OCR reads a comma on a thermal print as a full stop: a full stop after a word or a number
            # inside the address (never after abbreviations of one or two letters, "NO.", "D.E.", nor a
            # decimal point) is read as a comma. On the 218 annotated receipts, where the two readings
            # differ and one is the annotation, the comma was right 10 times and the full stop 4 times.
            value = _commas_for_full_stops(value)
            out.append(FieldCandidate("vendor_address", value, raw, lines, f))
    return out


# --------------------------------------------------------------------------------------------------
# invoice number

_CODE_TOKEN = re.compile(r"(?<![\w/.-])#?([A-Z0-9][A-Z0-9/_.\-]*\d[A-Z0-9/_.\-]*)(?![\w/-])", _I)


def _number_candidates(layout: Layout, rows: Rows, rule_value: str | None) -> list[FieldCandidate]:
    out: list[FieldCandidate] = []
    n_rows = max(1, len(rows.rows))
    for ri, row in enumerate(rows.rows):
        above = rows.texts[ri - 1] if ri > 0 else ""
        for k, ln in enumerate(row):
            for m in _CODE_TOKEN.finditer(ln.text):
                tok = m.group(1).rstrip(".-/")
                if len(tok) < 3 or find_dates(tok) or re.fullmatch(r"\d{1,3}([.,]\d{3})*[.,]\d{2}", tok):
                    continue
                left = " ".join(o.text for o in row[:k]) + " " + ln.text[: m.start()]
                if re.fullmatch(r"\d{3}", tok) and ln.text[m.start() - 1: m.start()] == "(" and \
                        ln.text[m.end(): m.end() + 1] == ")":
                    continue  # "Handelsrechnung (380)": a document type code (UNTDID 1001), not a number
                near_left = left[-40:]
                own = ln.text[: m.start()]
                near = near_label(own if _letters(own) >= 2 else left, 2)
                f: dict[str, float] = {}
                f["near_number"] = 1.0 if LABELS["number"].search(near) else 0.0
                f["near_other"] = 1.0 if LABELS["other_number"].search(near) else 0.0
                f.update(_flags("lab_", near_left, ("number", "invoice_word", "other_number", "date", "total")))
                f.update(_flags("above_", above, ("number", "invoice_word", "other_number", "date")))
                f["lab_empty"] = 1.0 if _letters(near_left) < 2 else 0.0
                f["len"] = min(24, len(tok)) / 24
                f["digits"] = sum(c.isdigit() for c in tok) / len(tok)
                f["has_alpha"] = 1.0 if re.search(r"[A-Za-z]", tok) else 0.0
                f["has_sep"] = 1.0 if re.search(r"[/_.\-]", tok) else 0.0
                f["rel_y"] = ln.rel_y
                f["rel_x"] = ln.x0 / max(1.0, ln.page_width)
                f["row_idx"] = ri / n_rows
                f["first_page"] = 1.0 if ln.page == rows.pages[0] else 0.0
                f["n_same"] = float(sum(1 for t in rows.texts if tok in t))
                f["ocr_conf"] = ln.confidence
                f["rule_pick"] = 1.0 if rule_value is not None and tok.lstrip("#") == rule_value.lstrip("#") else 0.0
                out.append(FieldCandidate("invoice_number", tok, m.group(0), [ln], f))
    # a number printed after another number's label (customer, order, delivery note, GLN, VAT ID, the
    # invoice a credit note refers to) is not the document's number, when a labelled one is there
    if any(c.features["near_number"] and not c.features["near_other"] for c in out):
        out = [c for c in out if not c.features["near_other"]]
    return out


# --------------------------------------------------------------------------------------------------


def generate(layout: Layout, document_type: str, *, date_order: str, rule_values: dict[str, str | None],
             vendor_rule_lines: list[Ln] | None = None) -> dict[str, list[FieldCandidate]]:
    """Every candidate of every learned field of ``document_type``.

    Args:
        layout: the document's lines.
        document_type: ``receipt`` or ``invoice`` (other types have no learned fields: ``{}``).
        date_order: ``DMY``/``MDY``/``YMD`` for numeric dates.
        rule_values: the value the hand-written rules chose per field (a feature, ``rule_pick``).
        vendor_rule_lines: the lines the rules' vendor name was read from (address spans are
            described relative to them).

    Returns:
        ``{field: [FieldCandidate, ...]}`` for the fields of :data:`LEARNED_FIELDS`; a field with no
        candidate maps to an empty list.
    """
    fields = LEARNED_FIELDS.get(document_type, ())
    if not fields:
        return {}
    rows = Rows(layout)
    out: dict[str, list[FieldCandidate]] = {}
    for name in fields:
        if name == "total":
            whole_ok: Callable[[Layout, Rows, int, Ln, str], bool] | None = None
            if document_type == "invoice":
                from desktop.core.extraction.invoice_features import whole_amount_ok

                whole_ok = whole_amount_ok
            out[name] = _total_candidates(layout, rows, rule_values.get("total"), whole_ok=whole_ok)
        elif name == "date":
            out[name] = _date_candidates(layout, rows, date_order, rule_values.get("date"))
        elif name == "vendor_name":
            out[name] = _vendor_candidates(layout, rows, rule_values.get("vendor_name"))
        elif name == "vendor_address":
            vrows = {rows.row_of[id(ln)] for ln in vendor_rule_lines or () if id(ln) in rows.row_of}
            out[name] = _address_candidates(layout, rows, rule_values.get("vendor_address"), vrows)
        elif name == "invoice_number":
            out[name] = _number_candidates(layout, rows, rule_values.get("invoice_number"))
    if document_type == "invoice":
        # EN 16931 business terms, column headers and totals arithmetic (receipts never see these)
        from desktop.core.extraction.invoice_features import add_invoice_features

        add_invoice_features(layout, rows, out)
    # the total and date models of invoices also learn from receipts (pooled training): say which it is
    for c in out.get("total", []) + out.get("date", []):
        c.features["doc_invoice"] = 1.0 if document_type == "invoice" else 0.0
    if document_type == "invoice":
        # so does the invoice vendor name model (the receipts' own vendor model is trained on receipts
        # alone, whose candidates carry no such feature: a receipt reads as 0)
        for c in out.get("vendor_name", []):
            c.features["doc_invoice"] = 1.0
    return out
