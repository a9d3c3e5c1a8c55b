"""Field extraction: recognised lines -> checked, normalised fields of a receipt, invoice or Chinese VAT invoice.

Public API (the module contract shared with the pipeline, the GUI and the exports):

* :func:`detect_document_type` -- ``receipt`` / ``invoice`` / ``cn_vat_invoice`` from the text.
* :func:`extract_fields` -- every field of the document type, normalised and validated.
* :func:`fields_from_values` -- the same for engines that return values as printed (HunyuanOCR).
* :func:`split_documents` -- page ranges that are separate documents within one file.
* :func:`normalise_field` -- one printed value -> canonical value (used when the clerk edits a field).
* :func:`validate` -- refill every field's ``problems``.

Canonical values: amounts ``"1234.56"`` (dot, no thousands separator, two decimals), dates ISO 8601
``YYYY-MM-DD``, times ``HH:MM[:SS]``, currencies ISO 4217. Each :class:`~desktop.core.model.Field`
says where its value came from (``source``: ``ocr``, ``text_layer``, ``qr``, ``model``, ``user``),
and a failed check is listed in ``problems``, never hidden.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.doctypes import canonical_fields, get_document_type
from desktop.core.extraction.amounts import (
    ISO_4217_COMMON,
    bare_dollar,
    currency_from_text,
    format_amount,
    normalise_currency,
    parse_amount,
)
from desktop.core.extraction.banking import find_ibans
from desktop.core.extraction.dates import parse_date, parse_time
from desktop.core.extraction.layout import Candidate, Layout, candidate_to_field
from desktop.core.extraction.qr import decode_qr, parse_vat_qr
from desktop.core.extraction.taxids import check_digits_fail, match_es_nif, match_vat
from desktop.core.extraction.validators import (
    USCC_SHAPE,
    check_check_code,
    check_invoice_code,
    check_invoice_number,
    check_sum,
    check_sum_without_tax,
    check_tax_id_cn,
)
from desktop.core.flags import expected_key_fields
from desktop.core.model import Field, PageResult

__all__ = [
    "ExtractionResult",
    "candidate_sets",
    "decode_qr",
    "detect_document_type",
    "is_credit_note",
    "extract_fields",
    "fields_from_values",
    "apply_amount_sign",
    "normalise_field",
    "parse_vat_qr",
    "split_documents",
    "sum_problems",
    "validate",
]

DOCUMENT_TYPES = ("receipt", "invoice", "cn_vat_invoice", "credit_note")

# Problems that come from comparing sources at extraction time (QR vs OCR, amount in words, date
# order). validate() cannot recompute them from the fields alone, so it keeps them unless the clerk
# edited the field (the clerk's value then stands on its own).
#: Problems found at extraction by comparing sources (QR code vs print, amount in words vs figures, an
#: ambiguous date order, e-invoice data vs print, the vendor memory vs print) or by how a value was chosen
#: (a subtotal standing in for a missing total); :func:`validate` keeps them unless the clerk edited the field.
CROSS_CHECK_CODES = frozenset({Code.QR_MISMATCH, Code.AMOUNT_IN_WORDS_MISMATCH, Code.AMBIGUOUS_DATE_ORDER,
                               Code.EINVOICE_MISMATCH, Code.EINVOICE_NOT_PRINTED, Code.EINVOICE_QR_MISMATCH,
                               Code.SUBTOTAL_AS_TOTAL, Code.MEMORY_CONFLICT, Code.MEMORY_REPLACED,
                               Code.MEMORY_REPAIRED, Code.NET_NOT_PRINTED, Code.AMOUNT_DUE_UNEXPLAINED,
                               Code.CURRENCY_INFERRED, Code.CURRENCY_SIGN_CONFLICT, Code.CURRENCY_AMBIGUOUS_SIGN,
                               Code.TOTAL_INCLUDES_CASH_BACK,
                               Code.NOT_AN_ADDRESS, Code.PAGES_NOT_READ_AFTER, Code.PAGES_NOT_READ_BEFORE,
                               Code.READ_FROM_LOST_PAGE, Code.LAST_PAGE_LOST, Code.FIRST_PAGE_LOST,
                               Code.PAGES_CUT_OFF_AFTER, Code.NOT_FOUND_PART_LOST})


@dataclass
class ExtractionResult:
    """What extraction found for one document.

    Attributes:
        fields: every canonical field of the document type, by name (value ``None`` when not found).
        line_items: item rows (``description``, ``quantity``, ``unit_price``, ``amount``, ``tax_rate``,
            ``tax`` where known), best effort.
        model_version: version of the field-scoring model that chose the learned fields
            (:mod:`.field_model`), or ``None`` when no learned field applied.
    """

    fields: dict[str, Field]
    line_items: list[dict[str, Any]] = field(default_factory=list)
    model_version: str | None = None


# --------------------------------------------------------------------------------------------------
# document type

_CN_KEYS = ("发票代码", "发票号码", "增值税", "价税合计", "开票日期", "校验码", "纳税人识别号", "购买方", "销售方")
#: The word "invoice" as a document heading in the EU's Latin-script languages (the names of EN 16931
#: BT-3 code 380, "commercial invoice", in each language: Rechnung, factuur, facture, fattura, factura,
#: fatura, faktura, lasku, számla, factură, račun) and "nota" (Dutch/Portuguese).
_INVOICE_HEAD = re.compile(r"\b(invoice|rechnung|factuur|facture|fattura|factura|fatura|faktura|lasku|sz[áa]mla|"
                           r"factur[ăa]|ra[čc]un|tax\s*invoice|nota)\b", re.I)
#: German forms a document's kind is compounded with (DIN 5008 headings and EN 16931 BT-3 names as
#: German invoices print them): Handelsrechnung (380), Mietrechnung, Abschlagsrechnung, Kostenrechnung,
#: "eRechnung"; and the invoice's own labels, Rechnungsnummer / Rechnungsdatum. A compound of
#: "-rechnung" that is not an invoice (Berechnung "calculation", Verrechnung "offsetting",
#: Hochrechnung "projection", Umrechnung "conversion", Gegen-/Nachrechnung) does not count.
_INVOICE_HEAD_DE = re.compile(r"\b[a-zäöüß]*(?<!be)(?<!ver)(?<!hoch)(?<!um)(?<!gegen)(?<!nach)rechnung(?:en)?\b|"
                              r"\brechnungs(?:nummer|datum|betrag|summe)\b", re.I)
#: A German invoice's number after its heading: "Handelsrechnung (380) Nr. 123", "Mietrechnung Nr. 9314".
_INVOICE_NUMBER_DE = re.compile(r"rechnung\s*(?:\(\d{3}\)\s*)?(?:nr\.?|nummer)\s*[:.]?\s*[A-Z0-9]", re.I)
#: A heading set in spaced capitals ("K O S T E N R E C H N U N G"), read as one word.
_LETTER_SPACED = re.compile(r"\b(?:[A-ZÄÖÜ] ){3,}[A-ZÄÖÜ]\b")
_RECEIPT_WORDS = re.compile(r"\b(cash|change|cashier|thank\s*you|rounding|tender(ed)?|receipt|gst\s*summary|"
                            r"table|pax|qty|counter|member|kembali|tunai|visa|mastercard)\b", re.I)


#: Words that turn a credit-note word into a policy line ("No refund", "Refunds within 30 days").
#: ("Credit note no. 12" is a heading: "no." before a number is the number's label.)
_NOT_HEADING = re.compile(r"\b(no(?!\.?\s*[:#]?\s*[A-Z]{0,4}[-/]?\d)|not|non|policy|within|days?|exchange|allowed|accepted|only|will|after|"
                          r"goods|sold|kein\w*|aucun\w*|sans|geen|sin|nessun\w*)\b|不|恕", re.I)


def is_credit_note(pages: list[PageResult]) -> bool:
    """Whether the first page carries a credit-note or refund heading.

    A heading is a short line (at most eight words) in the top 40% of the first page that starts with
    a ``credit_note`` label of the shared vocabulary (Credit note, Refund, Gutschrift, Avoir,
    Creditnota, Nota de crédito, 红字发票, 退款; :mod:`desktop.core.extraction.labels`) and says no
    "no", "within", "policy" (a returns policy is no refund: "No refund after 7 days").
    """
    from desktop.core.extraction.labels import label_pattern

    if not pages:
        return False
    heading = label_pattern("credit_note")
    first = min(pages, key=lambda p: p.number)
    for ln in first.lines:
        text = unicodedata.normalize("NFKC", ln.text).strip()
        if first.height and ln.box[1] > 0.4 * first.height:
            continue
        m = heading.search(text)
        if not m or re.search(r"[^\W\d_]", text[: m.start()]):
            continue  # the heading starts the line (marks and numbering before it are fine)
        if len(text.split()) > 8 or _NOT_HEADING.search(text):
            continue
        return True
    return False


def detect_document_type(pages: list[PageResult], qr_payloads: Sequence[str] = ()) -> str:
    """Guess the document type from the recognised text (and the page's QR codes).

    A QR code in the tax authority's VAT-invoice format (:func:`desktop.core.extraction.qr.parse_vat_qr`)
    makes it a ``cn_vat_invoice`` whatever the text says (the engine may have read little or nothing).
    Chinese VAT keywords (发票代码, 发票号码, 增值税, 价税合计, ...) -> ``cn_vat_invoice``; a credit-note
    or refund heading (:func:`is_credit_note`) -> ``credit_note``; an
    invoice header (Invoice / Rechnung / Factuur / Facture / Tax invoice, German compounds such as
    Handelsrechnung or Rechnungsnummer, a heading set in spaced capitals) with an invoice-number
    label and few till-receipt words (cash, change, cashier, rounding, ...) on a page that is not
    a narrow till roll -> ``invoice``; otherwise ``receipt``.
    """
    from desktop.core.extraction.invoice import INVOICE_NUMBER_LABEL
    from desktop.core.extraction.qr import parse_vat_qr

    if any(parse_vat_qr(payload) for payload in qr_payloads):
        return "cn_vat_invoice"
    text = "\n".join(p.text for p in pages)
    t = unicodedata.normalize("NFKC", text)
    if sum(1 for k in _CN_KEYS if k in t) >= 2 or ("发票" in t and re.search(r"\d{10,12}", t)):
        return "cn_vat_invoice"
    if is_credit_note(pages):
        return "credit_note"
    receipt_score = len(set(m.group(0).lower() for m in _RECEIPT_WORDS.finditer(t)))
    narrow = any(p.width and p.height / p.width > 1.6 for p in pages) and not any(p.origin == "pdf_text" for p in pages)
    if narrow:
        receipt_score += 2
    t = _LETTER_SPACED.sub(lambda m: m.group(0).replace(" ", ""), t)
    has_head = bool(_INVOICE_HEAD.search(t) or _INVOICE_HEAD_DE.search(t))
    has_number = bool(INVOICE_NUMBER_LABEL.search(t)) or bool(_INVOICE_NUMBER_DE.search(t)) or bool(
        re.search(r"(?im)^\W*(invoice|facture|factuur|rechnung|fattura|factura|fatura|faktura)\s*[:#]?\s*[A-Z0-9/_-]*\d",
                  t))
    if has_head and has_number and receipt_score < 3:
        return "invoice"
    if has_head and not narrow and receipt_score < 2:
        return "invoice"
    return "receipt"


# --------------------------------------------------------------------------------------------------
# normalisation and validation


def _field_type(name: str) -> str:
    spec = canonical_fields().get(name)
    return spec.type if spec else "text"


def normalise_field(name: str, raw: str | None, *,
                    date_order: str | None = None) -> tuple[str | None, list[Diagnostic]]:
    """Normalise one printed value of a canonical field.

    Args:
        name: canonical field name (its type comes from ``resources/doctypes/fields.json``).
        raw: the value as printed or typed (``"￥77.10元"``, ``"11 JUN 2018"``, ``"76939 05688 ..."``).
        date_order: ``DMY``/``MDY``/``YMD`` for numeric dates.

    Returns:
        ``(value, problems)``; ``value`` is ``None`` when nothing usable is in ``raw``.
    """
    if raw is None or not str(raw).strip():
        return None, []
    raw = str(raw).strip()
    kind = _field_type(name)
    if kind == "amount":
        value, _cur, problems = parse_amount(raw)
        return value, problems
    if kind == "date":
        return parse_date(raw, date_order)
    if kind == "time":
        return parse_time(raw)
    if kind == "currency":
        code = normalise_currency(raw, chinese_document=bool(re.search(r"[\u4e00-\u9fff]", raw))) or currency_from_text(raw)
        if code is None and re.fullmatch(r"[A-Za-z]{3}", raw):
            return raw.upper(), [diag(Code.CURRENCY_UNCOMMON, value=raw.upper())]
        return code, ([] if code else [diag(Code.CURRENCY_UNKNOWN, raw=raw)])
    t = unicodedata.normalize("NFKC", raw)
    if kind == "code":
        if name in ("invoice_code", "check_code") or re.fullmatch(r"[\d\s]+", t):
            t = re.sub(r"\s+", "", t)
        t = t.strip().lstrip("#").strip() if name == "invoice_number" else t.strip()
        return (t or None), []
    if kind == "tax_id":
        t = re.sub(r"\s+", "", t).upper()
        return (t or None), []
    t = re.sub(r"\s+", " ", raw).strip()
    if re.search(r"[\u4e00-\u9fff]", t):
        t = t.replace("(", "（").replace(")", "）")
    return (t or None), []


#: The amount fields whose sign the document type decides (``DocumentType.amount_sign``).
SIGNED_AMOUNTS = ("subtotal", "tax", "total")


def apply_amount_sign(fields: dict[str, Field], document_type: str) -> None:
    """Give the amounts of a negative-amount type (a credit note or refund) their sign, in place.

    A credit note reverses a sale, so its total, subtotal and tax are booked negative
    (``DocumentType.amount_sign == -1``), whether they are printed with a sign (``-12.50``,
    ``(12.50)``, ``12.50 CR``) or, under a "Credit note" heading, without one. Fields the clerk
    edited are left as typed; other types are untouched.
    """
    try:
        sign = get_document_type(document_type).amount_sign
    except KeyError:
        return
    if sign >= 0:
        return
    for name in SIGNED_AMOUNTS:
        f = fields.get(name)
        if f is None or f.value is None or f.edited:
            continue
        try:
            d = Decimal(f.value)
        except InvalidOperation:
            continue
        if d > 0:
            f.value = format_amount(-d)


def validate(fields: dict[str, Field], document_type: str,
             pages: Layout | Sequence[PageResult] | None = None) -> None:
    """Recompute every field's ``problems`` in place.

    Checks (with their rule sources in :mod:`desktop.core.extraction.validators`): values parse as
    their type (ISO 8601 dates, ISO 4217 currencies, two-decimal amounts); totals and taxes are not
    negative (on a credit note: not positive, see :func:`apply_amount_sign`); ``subtotal + tax = total``
    within 0.01, counting the charges, allowances and rounding printed between the subtotal and the
    total on ``pages`` (the document's pages or their layout; :func:`sum_problems`); an EU VAT number or
    GSTIN read from the page passes its check digits
    (:func:`~desktop.core.extraction.taxids.check_digits_fail`); on Chinese VAT invoices, the invoice code,
    number and check code formats of the State Taxation Administration and the GB 32100-2015 check
    character of 18-character tax IDs. Cross-source problems found at extraction (QR code vs print,
    amount in words, ambiguous date order) are kept unless the clerk edited the field.
    """
    try:
        sign = get_document_type(document_type).amount_sign
    except KeyError:
        sign = 1
    for name, f in fields.items():
        kept = [p for p in f.problems if p.code in CROSS_CHECK_CODES] if not f.edited else []
        sub = fields.get("subtotal")
        if sub is not None and sub.value is not None:
            kept = [p for p in kept if p.code != Code.NET_NOT_PRINTED]  # a subtotal is there to check now
        problems: list[Diagnostic] = []
        kind = _field_type(name)
        if f.value is None:
            if f.raw:
                _v, probs = normalise_field(name, f.raw)
                problems.extend(probs)
        elif kind == "amount":
            try:
                d = Decimal(f.value)
                if d < 0 and name in SIGNED_AMOUNTS and sign > 0:
                    problems.append(diag(Code.NEGATIVE_AMOUNT, name=name, value=f.value))
                elif d > 0 and name in SIGNED_AMOUNTS and sign < 0:
                    problems.append(diag(Code.POSITIVE_ON_CREDIT_NOTE, name=name, value=f.value))
            except InvalidOperation:
                problems.append(diag(Code.NOT_AN_AMOUNT, name=name, value=f.value))
        elif kind == "date":
            _v, probs = parse_date(f.value, "YMD")
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", f.value) or _v != f.value:
                problems.append(diag(Code.DATE_NOT_ISO, value=f.value))
        elif kind == "currency":
            if f.value not in ISO_4217_COMMON and not re.fullmatch(r"[A-Z]{3}", f.value):
                problems.append(diag(Code.CURRENCY_NOT_ISO, value=f.value))
        if name == "iban" and f.value and not find_ibans(f.value):
            problems.append(diag(Code.IBAN_INVALID, value=f.value))  # ISO 13616 check digits or length
        if name in ("vendor_tax_id", "buyer_tax_id") and f.value and document_type != "cn_vat_invoice" \
                and USCC_SHAPE.fullmatch(f.value):
            problems.extend(check_tax_id_cn(f.value))  # a unified social credit code on any document
        elif name in ("vendor_tax_id", "buyer_tax_id") and f.value and document_type != "cn_vat_invoice" \
                and f.source not in ("xml", "qr") and f.value in (match_vat(f.value), match_es_nif(f.value)) \
                and check_digits_fail(f.value):
            # an EU VAT number, a Spanish NIF or a GSTIN read from the page (a misread digit); e-invoice data is
            # what was sent
            problems.append(diag(Code.TAX_ID_CHECK_DIGITS, value=f.value))
        if document_type == "cn_vat_invoice" and f.value:
            if name == "invoice_code":
                problems.extend(check_invoice_code(f.value))
            elif name == "invoice_number":
                has_code = bool(fields.get("invoice_code") and fields["invoice_code"].value)
                problems.extend(check_invoice_number(f.value, has_code=has_code))
            elif name == "check_code":
                problems.extend(check_check_code(f.value))
            elif name in ("buyer_tax_id", "vendor_tax_id"):
                problems.extend(check_tax_id_cn(f.value))
        f.problems = problems + [p for p in kept if p not in problems]
    total = fields.get("total")
    if total is not None and total.value is not None:
        sub, tax = fields.get("subtotal"), fields.get("tax")
        failed, without_tax = sum_problems(fields, pages)
        total.problems.extend(failed)
        # the check cannot say which of the three values is wrong: the subtotal and the tax it involved
        # are flagged with it, so a wrong subtotal is never shown untinted beside a right total; a value
        # read exactly from the e-invoice data or a QR code is not suspect
        for part in (sub, tax):
            if failed and part is not None and part.value is not None and part.source not in ("xml", "qr"):
                part.problems.extend(p for p in failed if p not in part.problems)
        total.problems.extend(without_tax)


def sum_problems(fields: dict[str, Field], pages: Layout | Sequence[PageResult] | None = None
                 ) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """``(check_sum, check_sum_without_tax)`` problems of the fields' subtotal, tax and total
    (:mod:`.validators`). Where the strict sum fails and ``pages`` are given, the adjustments printed
    between the subtotal and the total (charges, allowances, rounding: EN 16931 BG-20/BG-21, BT-114;
    :func:`desktop.core.extraction.adjustments.total_adjustment`) are counted; none printed, none counted."""
    sub, tax, total = (fields.get(n) for n in ("subtotal", "tax", "total"))
    values = [f.value if f is not None else None for f in (sub, tax, total)]
    failed = check_sum(*values)
    without_tax = check_sum_without_tax(*values)
    if (failed or without_tax) and pages is not None:
        from desktop.core.extraction.adjustments import total_adjustment

        adjustment = total_adjustment(pages, fields)
        if adjustment is not None:
            failed = check_sum(*values, adjustment=adjustment)
            without_tax = check_sum_without_tax(*values, adjustment=adjustment)
    return failed, without_tax


# --------------------------------------------------------------------------------------------------
# tax-inclusive totals

#: Wording that states the total already includes the tax: "GST @ 6% INCLUDED IN TOTAL", "incl. GST",
#: "Total Incl GST", "inclusive of VAT", "prices include tax", "inkl. MwSt.", "TTC" (toutes taxes
#: comprises), "BTW inbegrepen", 含税 (not 不含税, "tax excluded").
TAX_INCLUSIVE = re.compile(
    r"\bINCLUDED\s+IN\s+(?:THE\s+)?TOTAL\b|\bINCL(?:\.|UDED|USIVE|UDING|USIVE\s+OF)?\s*(?:OF\s*)?"
    r"(?:GST|SST|VAT|TAX(?:ES)?|MWST|UST|BTW)\b|\b(?:GST|SST|VAT|TAX)\s+(?:IS\s+)?INCLU(?:DED|SIVE)\b|"
    r"\bINCLUDES?\s+(?:GST|SST|VAT|TAX)\b|\bINKL\.?\s*(?:MWST|UST)|\bTTC\b|BTW\s+INBEGREPEN|(?<!不)含税",
    re.I)


def _read_included_tax(fields: dict[str, Field], layout: Layout, source: str) -> None:
    """Fill an empty tax (and an empty subtotal) from the rows of a tax-inclusive receipt that state the
    tax the total includes and the amount before tax ("VAT @ 20% incl. £2.27", "Net £11.33"), when they
    add up with the total (:func:`desktop.core.extraction.invoice_totals.included_tax`)."""
    from desktop.core.extraction.amounts import to_decimal
    from desktop.core.extraction.invoice_totals import included_tax

    total, tax, sub = fields.get("total"), fields.get("tax"), fields.get("subtotal")
    if total is None or total.value is None or tax is None or tax.value is not None:
        return
    found_tax, net = included_tax(layout, to_decimal(total.value))
    if found_tax is None:
        return
    fields["tax"] = candidate_to_field("tax", found_tax, source=source)
    if net is not None and sub is not None and sub.value is None:
        fields["subtotal"] = candidate_to_field("subtotal", net, source=source)


def _drop_tax_inclusive_subtotal(fields: dict[str, Field], layout: Layout) -> None:
    """On a document that says its total includes the tax, keep a subtotal only if it is the amount
    before tax.

    Rule: when :data:`TAX_INCLUSIVE` wording is printed, a subtotal that is not the amount before tax
    -- it does not add up with the tax to the total, or it equals the total while the tax is non-zero
    or unknown -- is the tax-inclusive sub-total of the items (or a sum before discount/rounding),
    so the subtotal field is left empty rather than filled with it (a subtotal that adds up with the tax
    and the adjustments printed between it and the total, :func:`sum_problems`, is the amount before
    tax: "Total Excl GST 28.87 / GST 1.36 / Rounding Adj -0.03 / Total Payable 30.20"); nothing is computed in its place
    (a subtotal is never invented). ``subtotal + tax = total`` then has nothing to contradict, so a
    tax-inclusive receipt raises no sum problem. Clerk edits are not touched (this runs only at
    extraction, before :func:`validate`).
    """
    sub, tax, total = fields.get("subtotal"), fields.get("tax"), fields.get("total")
    if sub is None or sub.value is None or total is None or total.value is None or not TAX_INCLUSIVE.search(layout.text):
        return
    try:
        s, g = Decimal(sub.value), Decimal(total.value)
        t = Decimal(tax.value) if tax is not None and tax.value is not None else None
    except InvalidOperation:
        return
    if t is None:
        before_tax = s != g
    else:
        before_tax = (s != g or t == 0) and not sum_problems(fields, layout)[0]
    if not before_tax:
        fields["subtotal"] = Field(name="subtotal", source=sub.source)


# --------------------------------------------------------------------------------------------------
# QR merge


def _qr_data(qr_payloads: tuple[str, ...] | list[str]) -> dict | None:
    for payload in qr_payloads or ():
        data = parse_vat_qr(payload)
        if data:
            return data
    return None


def _merge_qr(fields: dict[str, Field], qr: dict) -> None:
    """Fill and cross-check invoice code, number, date, subtotal (the total on a 数电票) and check code
    from the QR code."""
    for name in ("invoice_code", "invoice_number", "date", "subtotal", "total", "check_code"):
        q = qr.get(name)
        f = fields.get(name)
        if f is None or not q:
            continue
        if f.value is None:
            fields[name] = Field(name=name, value=q, raw=q, confidence=1.0, source="qr")
        elif f.value == q:
            f.source, f.confidence = "qr", 1.0
        else:
            printed = f.value
            f.problems.append(diag(Code.QR_MISMATCH, qr=q, printed=printed))
            f.value, f.source, f.confidence = q, "qr", 1.0


# --------------------------------------------------------------------------------------------------
# extraction


def laid_out_as(layout: Layout, document_type: str) -> str:
    """The document type whose layout (rules and learned model) reads ``document_type``: a credit note
    is laid out as the document it reverses, an invoice (it has an invoice-number label) or a till
    receipt; every other type is itself."""
    if document_type != "credit_note":
        return document_type
    from desktop.core.extraction.invoice import INVOICE_NUMBER_LABEL

    return "invoice" if INVOICE_NUMBER_LABEL.search(layout.text) else "receipt"


def _candidates(layout: Layout, document_type: str, date_order: str | None) -> tuple[dict[str, Candidate | None], list[dict]]:
    """The rules' candidates and line items for a document laid out as ``document_type`` (``receipt``,
    ``invoice`` or ``cn_vat_invoice``: a credit note is read as :func:`laid_out_as` says)."""
    if document_type == "cn_vat_invoice":
        from desktop.core.extraction.cn_vat import extract_cn_vat

        return extract_cn_vat(layout)
    if document_type == "invoice":
        from desktop.core.extraction.invoice import extract_invoice

        return extract_invoice(layout, date_order), []
    from desktop.core.extraction.receipt import extract_receipt

    return extract_receipt(layout, date_order), []


def preload() -> None:
    """Import what :func:`extract_fields` would otherwise import on its first document: the receipt and
    invoice rules (whose modules compile some 80 regular expressions when imported), the learned
    fields' candidates and model code (the model itself is loaded by ``field_model.load_model``) and
    rapidfuzz; and the month names of dateparser's languages (:func:`.dates.warm_up`, about 0.26 CPU s
    that the first document printing a month name in each language would otherwise pay).

    For a caller with an idle moment before its first document (``shoebox scan``, while the engine's
    worker starts on the other core): about 0.1 CPU s that the first document no longer waits for
    (measured 2026-12-01 on a loaded machine: first receipt 0.12 CPU s, the next ones 0.035-0.057).
    Raises ImportError as an import would.
    """
    import importlib

    for name in ("desktop.core.extraction.receipt", "desktop.core.extraction.invoice",
                 "desktop.core.extraction.invoice_features", "desktop.core.extraction.taxids",
                 "desktop.core.extraction.candidates", "desktop.core.extraction.field_model",
                 "desktop.core.extraction.side_by_side", "desktop.core.extraction.adjustments", "rapidfuzz.distance"):
        importlib.import_module(name)
    from desktop.core.extraction.dates import warm_up

    warm_up()


def _source_of(pages: list[PageResult]) -> str:
    if pages and all(p.origin == "ofd" for p in pages):
        return "ofd_text"  # an OFD page's own text objects (desktop.core.einvoice.ofd)
    return "text_layer" if pages and all(p.origin in ("pdf_text", "xml_view") for p in pages) else "ocr"


#: Review threshold for fields the learned model does not choose: their confidence is the rules'
#: heuristic factor times the OCR confidence, not a calibrated probability.
HEURISTIC_REVIEW_THRESHOLD = 0.6


#: The highest confidence shown for a value whose check failed (subtotal + tax != total, a code whose
#: check character is wrong, ...): at least one value the check involves is wrong.
FAILED_CHECK_CONFIDENCE = 0.5

#: Learned text fields left empty (and flagged) when the model's best value is this unlikely to be right.
ABSTAIN_FIELDS = frozenset({"vendor_name", "vendor_address"})
#: Learned fields whose chosen value has its misread words restored from the shipped lexicon
#: (:func:`desktop.core.extraction.candidates.lexicon_fix`).
LEXICON_FIELDS = frozenset({"vendor_name", "vendor_address"})
ABSTAIN_BELOW = 0.2


def _date_order_for(layout: Layout, date_order: str | None) -> str:
    from desktop.core.extraction.common import document_currency, infer_date_order

    if date_order:
        return date_order.upper()
    currency = document_currency(layout)
    return infer_date_order(layout, currency.value if currency else None, "DMY")[0]


def candidate_sets(pages: list[PageResult], document_type: str, *, date_order: str | None = None,
                   layout: Layout | None = None, rule_candidates: dict[str, Candidate | None] | None = None,
                   ) -> dict[str, list]:
    """The candidates of every learned field (:mod:`.candidates`), exactly as extraction scores them.

    Args:
        pages: the document's pages.
        document_type: ``receipt`` or ``invoice`` (others have no learned fields: ``{}``).
        date_order: forced numeric date order, or ``None`` to infer it from the document.
        layout, rule_candidates: reuse what :func:`extract_fields` already computed.

    Returns:
        ``{field: [FieldCandidate, ...]}``. Used by :func:`extract_fields` and by the training script
        (``benchmarks/train_fields.py``), so that the model is trained on what it later sees.
    """
    from desktop.core.extraction.candidates import LEARNED_FIELDS, generate

    if document_type not in LEARNED_FIELDS:
        return {}
    layout = layout or Layout(pages)
    if rule_candidates is None:
        rule_candidates, _items = _candidates(layout, document_type, date_order)
    rule_values = {name: (c.value if c is not None else None) for name, c in rule_candidates.items()}
    vendor = rule_candidates.get("vendor_name")
    return generate(layout, document_type, date_order=_date_order_for(layout, date_order),
                    rule_values=rule_values, vendor_rule_lines=list(vendor.lines) if vendor else [])


def _apply_model(fields: dict[str, Field], sets: dict[str, list], document_type: str,
                 rule_candidates: dict[str, Candidate | None], source: str,
                 chosen: dict[str, Any] | None = None) -> str | None:
    """Replace the learned fields' values with the model's choice; returns the model version used.
    ``chosen`` (when given) receives each field's chosen candidate."""
    from desktop.core.extraction.field_model import FLOOR_PROBABILITY, load_model

    model = load_model()
    if model is None:
        return None
    used = False
    for name, cands in sets.items():
        scorer = model.scorer(document_type, name)
        if scorer is None or name not in fields:
            continue
        used = True
        buyer = fields.get("buyer_name")
        if name == "vendor_name" and buyer is not None and buyer.value:
            # the vendor is never the customer: an invoice whose only company name is the buyer's has no
            # issuer on the page, rather than a wrong one
            cands = [c for c in cands if buyer.value.casefold() not in c.value.casefold()]
        if name == "total":
            # an amount labelled as the one to pay that equals another total less a discount is the total
            # (合计 46.00, 优惠 2.00, 应付 44.00); the model has seen few discounts, so this is a constraint
            after = [c for c in cands if c.features.get("eq_total_less_discount") and c.features.get("lab_grand")]
            cands = after or cands
            cands = _not_a_smaller_subtotal(cands)
            cands = _not_with_cash_back(cands)
        choice = scorer.choose(cands)
        if name in ABSTAIN_FIELDS and (choice.candidate is None or choice.probability < ABSTAIN_BELOW):
            # a name or address this unlikely is noise (a stamp, a table heading): an empty, flagged field
            # says "not found" more honestly than a value one in five times right
            fields[name] = Field(name=name, source=source, needs_review=True)
            continue
        c = choice.candidate
        if c is None:
            # nothing the model can score (an impossible date, say): keep what the rules read, flagged
            fields[name].needs_review = True
            continue
        if chosen is not None:
            chosen[name] = c
        value = c.value
        if name in LEXICON_FIELDS:
            from desktop.core.extraction.candidates import lexicon_fix
            from desktop.core.extraction.field_model import load_lexicon

            value = lexicon_fix(c, load_lexicon(document_type))  # a word misread in its weakest character
        rule = rule_candidates.get(name)
        problems = list(c.problems)
        if rule is not None and rule.value == c.value:
            problems += [p for p in rule.problems if p not in problems]
        probability, needs_review = choice.probability, choice.needs_review
        if fails_value_check(name, value):
            # a heading or a name line chosen on a receipt that prints no address: no number, no street
            problems.append(diag(Code.NOT_AN_ADDRESS, name=name, value=value))
            probability, needs_review = min(probability, FLOOR_PROBABILITY), True
        boxes = [ln.box for ln in c.lines]
        fields[name] = Field(name=name, value=value, raw=c.raw, confidence=round(probability, 4),
                             page=c.lines[0].page if c.lines else None, boxes=boxes, source=source,
                             problems=problems, needs_review=needs_review,
                             review_threshold=scorer.review_threshold)
    return model.version if used else None


#: Fields every invoice prints, so that an empty one is flagged "not found" (not a key field: the
#: document is usable without it). The supplier's address: EU VAT Directive 2006/112/EC art. 226(5),
#: UK VAT Regulations 1995 reg. 14(1)(c), German UStG s. 14(4) Nr. 1, French CGI art. 242 nonies A;
#: EN 16931 makes the seller's postal address (BG-5) mandatory (BR-8). Every page of the e-invoice
#: corpus prints it, and so do the QA's seven invoices. Receipts flag an empty address the same way,
#: through the learned model's abstention. The customer's name: the same article 226(5) ("the full name
#: and address of the taxable person and of the customer"), EN 16931 BT-44 (Buyer name, 1..1); every
#: page of the e-invoice corpus prints it (a simplified invoice, art. 226b, is read as a receipt).
_EXPECTED_ON_INVOICES = frozenset({"vendor_address", "buyer_name"})


def _address_under_chosen_vendor(fields: dict[str, Field], layout: Layout, vendor: Any,
                                 rule_candidates: dict[str, Candidate | None], source: str) -> None:
    """An invoice's ``vendor_address`` (read by the rules, :func:`.invoice.pick_vendor_address`, not by
    the model) under the vendor name the model chose, when that is another line than the rules' vendor:
    the issuer's address is the block under its own name, not under a line the model rejected."""
    from desktop.core.extraction.invoice import pick_vendor_address

    rule = rule_candidates.get("vendor_name")
    if vendor is None or not vendor.lines or (rule is not None and list(rule.lines) == list(vendor.lines)):
        return
    found = pick_vendor_address(layout, Candidate(vendor.value, vendor.raw, list(vendor.lines), [], 1.0))
    if found is not None:
        fields["vendor_address"] = candidate_to_field("vendor_address", found, source=source)
    elif fields["vendor_address"].value is not None:
        # the block under a line the model did not take for the vendor: maybe the buyer's, for the clerk to check
        fields["vendor_address"].confidence = min(fields["vendor_address"].confidence, 0.5)


def fails_value_check(name: str, value: str | None) -> bool:
    """Whether a learned field's chosen value fails the check that flags it whatever its probability:
    today a ``vendor_address`` that :func:`~desktop.core.extraction.candidates.looks_like_address`
    rejects (:data:`Code.NOT_AN_ADDRESS`). Extraction and the cross-validation of
    ``benchmarks/train_fields.py`` both call it, so that the benchmark's figures are the form's."""
    from desktop.core.extraction.candidates import looks_like_address

    return name == "vendor_address" and value is not None and not looks_like_address(value)


def _not_a_smaller_subtotal(cands: list) -> list:
    """Total candidates less those labelled as a subtotal (``lab_excl_tax``: Subtotal, Total HT,
    Subtotaal, Zwischensumme) when a larger amount with a total label that is no subtotal label is
    printed: the amount before tax is never the total beside it (EN 16931 BR-CO-15)."""
    def value(c: Any) -> Decimal | None:
        try:
            return Decimal(c.value)
        except (InvalidOperation, TypeError):
            return None

    totals = [v for c in cands if (c.features.get("lab_total") or c.features.get("lab_grand"))
              and not c.features.get("lab_excl_tax") and (v := value(c)) is not None]
    if not totals:
        return cands
    top = max(totals)
    kept = [c for c in cands if not (c.features.get("lab_excl_tax") and (v := value(c)) is not None and v < top)]
    return kept or cands


def _not_with_cash_back(cands: list) -> list:
    """Total candidates less the cash handed out at the till (``lab_cashback``: CASH BACK, Cashback, Cash
    out) and the amounts that are another charged amount plus it (``eq_total_plus_cashback``: "TOTAL DEBIT
    54.47" = "DEBIT 34.47" + "CASH BACK 20.00"): cash back is paid with the purchase but is no part of it,
    so it is never in the purchase total (unless nothing else is left). The model has seen few such
    receipts, so this is a constraint."""
    kept = [c for c in cands if not (c.features.get("lab_cashback") or c.features.get("eq_total_plus_cashback"))]
    return kept or cands


def _cash_back_problem(total: Field | None, cands: list) -> Diagnostic | None:
    """``TOTAL_INCLUDES_CASH_BACK`` when the chosen ``total`` equals another charged amount on the page plus
    its cash back (the ``total`` candidates ``cands`` of :mod:`.candidates` say which amounts are which),
    ``None`` otherwise: a total that still includes the cash back is flagged."""
    if total is None or total.value is None or total.edited or total.source == "user":
        return None
    try:
        value = Decimal(total.value)
    except InvalidOperation:
        return None

    def dec(c: Any) -> Decimal | None:
        try:
            return Decimal(c.value)
        except (InvalidOperation, TypeError):
            return None

    backs = [v for c in cands if c.features.get("lab_cashback") and (v := dec(c)) is not None and v > 0]
    charged = [v for c in cands if not c.features.get("lab_cashback") and (v := dec(c)) is not None
               and (c.features.get("lab_total") or c.features.get("lab_grand") or c.features.get("lab_cash"))]
    for back in backs:
        for v in charged:
            if v != value and abs(v + back - value) < Decimal("0.01"):
                return diag(Code.TOTAL_INCLUDES_CASH_BACK, value=total.value, purchase=format_amount(v),
                            cash_back=format_amount(back))
    return None


#: Fields printed at a document's end (its totals block) and at its start (the issuer's header, the
#: number, the date, the buyer): a value read for them when those pages were not read may be a running
#: sum carried to the next page ("Übertrag"), a line item's amount, or another party's name.
_END_FIELDS = ("total", "subtotal", "tax", "rounding", "tip", "amount_due")
#: Fields an invoice prints with or after its totals (EN 16931's payment instructions, BG-16, and
#: payment terms, BT-20, close the document): empty, they are in doubt when its end was lost.
_TAIL_FIELDS = ("currency", "due_date", "payment_terms", "iban")
_START_FIELDS = ("vendor_name", "vendor_address", "vendor_tax_id", "invoice_number", "invoice_code", "date",
                 "buyer_name", "buyer_address", "buyer_tax_id")


def _pages_in_doubt(fields: dict[str, Field], pages: list[PageResult], document_type: str) -> None:
    """Add to each field a problem naming the part of the document it may have come from or been
    printed on when that part was not read or was lost, so that :func:`_flag_for_review` flags it and
    caps its confidence like any failed check (one mechanism for every way a part goes missing):

    * pages the document's printed numbers ("Seite 1 von 3", :func:`~.common.page_marker`) say exist
      after the last page read: :attr:`Code.PAGES_NOT_READ_AFTER` on the totals fields
      (:data:`_END_FIELDS`); before the first: :attr:`Code.PAGES_NOT_READ_BEFORE` on the header fields
      (:data:`_START_FIELDS`);
    * a page that lost content (a warning of :func:`~desktop.core.diagnostics.is_page_lost`: a damaged
      PDF's content stream that could not be loaded or is gone, a page not read, an engine's reading
      cut short): :attr:`Code.READ_FROM_LOST_PAGE` on every value read from it (``Field.page``);
      when it is the last page read, :attr:`Code.LAST_PAGE_LOST` on the totals fields read elsewhere,
      when the first, :attr:`Code.FIRST_PAGE_LOST` on the header fields read elsewhere;
    * a PDF cut short (:attr:`Code.PDF_TRUNCATED`, a file without its end, ISO 32000-1 7.5.5): the
      pages after the cut are lost with it, so :attr:`Code.PAGES_CUT_OFF_AFTER` on the totals fields,
      unless the printed page numbers say the last page read is the document's last (or already name
      the pages missing);
    * any of these: :attr:`Code.NOT_FOUND_PART_LOST` on each field left empty with no reason above
      that the lost part could hold: a key field of the document type
      (:func:`~desktop.core.flags.expected_key_fields`); when the end is in doubt, the totals and
      what an invoice prints with them (:data:`_TAIL_FIELDS`: currency, due date, payment terms, IBAN);
      when the start is, the header fields; when a middle page lost content, every field.

    A field gets one reason per end of the document (the pages missing, else the cut, else the lost
    page); an empty field elsewhere gets none (a tip or the buyer's tax ID need not be printed, and a
    lost last page did not hold the header).

    Values the page did not give keep no such problem: a QR code's (exact), the clerk's, an edited one.
    """
    from desktop.core.diagnostics import is_page_lost
    from desktop.core.extraction.common import missing_pages, page_marker

    if not pages:
        return
    markers = [page_marker([ln.text for ln in p.lines]) for p in pages]
    before, after = missing_pages(markers)
    count = max((m[1] for m in markers if m is not None), default=0)
    lost = {p.number: w for p in pages for w in reversed(p.warnings) if is_page_lost(w)}  # a page's first
    first, last = pages[0].number, pages[-1].number
    truncated = any(w.code is Code.PDF_TRUNCATED for p in pages for w in p.warnings)
    last_is_last = markers[-1] is not None and markers[-1][0] == markers[-1][1]

    def add(f: Field, problem: Diagnostic) -> None:
        if problem not in f.problems:
            f.problems.append(problem)

    keys = expected_key_fields(document_type, fields)
    end_in_doubt = bool(after or (truncated and not last_is_last) or last in lost)
    start_in_doubt = bool(before or first in lost)
    in_doubt = bool(end_in_doubt or start_in_doubt or lost)
    middle_lost = any(n not in (first, last) for n in lost)  # what a middle page held is anyone's guess

    def may_have_held(name: str) -> bool:
        """Whether the part lost could hold field ``name`` (its value is empty)."""
        return (name in keys or middle_lost or (end_in_doubt and name in _END_FIELDS + _TAIL_FIELDS)
                or (start_in_doubt and name in _START_FIELDS))

    for name, f in fields.items():
        if f.source in ("qr", "user", "xml") or f.edited:
            continue
        if f.value is None and not may_have_held(name):
            continue  # a field the document need not print, and not where the loss is: no sign of a loss
        known = len(f.problems)
        if f.value is not None and f.page in lost:
            add(f, diag(Code.READ_FROM_LOST_PAGE, page=f.page, warning=lost[f.page]))
        if name in _END_FIELDS:
            if after:
                add(f, diag(Code.PAGES_NOT_READ_AFTER, count=count, pages=after, last=after[0] - 1))
            elif truncated and not last_is_last:
                add(f, diag(Code.PAGES_CUT_OFF_AFTER, last=last))
            elif last in lost and f.page != last:
                add(f, diag(Code.LAST_PAGE_LOST, page=last, warning=lost[last]))
        if name in _START_FIELDS:
            if before:
                add(f, diag(Code.PAGES_NOT_READ_BEFORE, count=count, pages=before, first=before[-1] + 1))
            elif first in lost and f.page != first:
                add(f, diag(Code.FIRST_PAGE_LOST, page=first, warning=lost[first]))
        if in_doubt and f.value is None and len(f.problems) == known:
            add(f, diag(Code.NOT_FOUND_PART_LOST, pages=sorted(lost)))


def pages_holding_two_documents(pages: list[PageResult]) -> list[int]:
    """The numbers of the pages that hold two documents side by side
    (:func:`desktop.core.extraction.side_by_side.side_by_side_gutter`)."""
    from desktop.core.extraction.side_by_side import side_by_side_gutter

    return [p.number for p in pages if side_by_side_gutter(p) is not None]


def _two_documents_on_a_page(fields: dict[str, Field], pages: list[PageResult]) -> None:
    """Add :attr:`Code.PAGE_HOLDS_TWO_DOCUMENTS` to every value read from a page that holds two documents
    side by side (and to a value placed on no page, such as an inferred currency, when the document
    has no other page), so that :func:`_flag_for_review` flags it: the head fields and the totals may
    each come from either document. Values the page did not give (a QR code's, the clerk's, the
    e-invoice's XML) keep none."""
    double = pages_holding_two_documents(pages)
    if not double:
        return
    for f in fields.values():
        if f.value is None or f.source in ("qr", "user", "xml") or f.edited:
            continue
        page = f.page if f.page is not None else (pages[0].number if len(pages) == 1 else None)
        if page in double:
            problem = diag(Code.PAGE_HOLDS_TWO_DOCUMENTS, page=page)
            if problem not in f.problems:
                f.problems.append(problem)


def _flag_for_review(fields: dict[str, Field], document_type: str, learned: set[str]) -> None:
    """Set every field's ``needs_review``: a failed check, an empty key field of the document type, or
    (fields the model did not choose) a heuristic confidence under :data:`HEURISTIC_REVIEW_THRESHOLD`.
    Learned fields keep the model's verdict (calibrated probability under the field's threshold, or a
    value left empty because it was too unlikely) and add the first two reasons. Values from a QR code
    are exact and only flagged by a failed check."""
    keys = expected_key_fields(document_type, fields)  # a 数电票 has no invoice code to miss
    for name, f in fields.items():
        if f.value is None:
            f.confidence = 0.0  # nothing was read: no confidence in anything
        elif f.problems and not (f.source == "user" or f.edited):
            # a failed check means a value it involves is wrong: never shown as likely right
            f.confidence = min(f.confidence, FAILED_CHECK_CONFIDENCE)
        if f.source == "user" or f.edited:
            f.needs_review = bool(f.problems)
            continue
        flag = bool(f.problems) or (f.value is None and name in keys)
        if name in learned:
            # the model's verdict, also on a field it left empty because its best value was too unlikely
            # (the benchmark counts such a field as flagged, so the form must too)
            flag = flag or f.needs_review
        elif f.value is not None and f.source != "qr":
            flag = flag or f.confidence < HEURISTIC_REVIEW_THRESHOLD
            f.review_threshold = HEURISTIC_REVIEW_THRESHOLD
        f.needs_review = flag


def extract_fields(pages: list[PageResult], document_type: str, *, date_order: str | None = None,
                   qr_payloads: tuple[str, ...] | list[str] = ()) -> ExtractionResult:
    """Extract every field of ``document_type`` from recognised pages.

    Args:
        pages: the document's pages (boxes in page pixels).
        document_type: ``receipt``, ``invoice`` or ``cn_vat_invoice`` (see :func:`detect_document_type`).
        date_order: force ``DMY``/``MDY``/``YMD`` for numeric dates (``None``: from the document).
        qr_payloads: QR code texts decoded from the pages (:func:`decode_qr`); a Chinese VAT invoice
            payload fills and cross-checks the code, number, date, subtotal and check code.

    Returns:
        An :class:`ExtractionResult` whose ``fields`` holds every field of the type, validated.

    Raises:
        KeyError: unknown document type.
    """
    doc_type = get_document_type(document_type)
    layout = Layout(pages)
    # a credit note is read (rules and learned model) as the document it is laid out as
    laid_out = laid_out_as(layout, document_type)
    cands, items = _candidates(layout, laid_out, date_order)
    source = _source_of(pages)
    fields: dict[str, Field] = {}
    for name in doc_type.fields:
        fields[name] = candidate_to_field(name, cands.get(name), source=source)
    sets = candidate_sets(pages, laid_out, date_order=date_order, layout=layout, rule_candidates=cands)
    if laid_out == "invoice" and "total" in sets:
        from desktop.core.extraction.invoice_totals import without_amount_due

        sets["total"] = without_amount_due(sets["total"], cands, layout)  # the total less a deposit is no total
    chosen: dict[str, Any] = {}
    model_version = _apply_model(fields, sets, laid_out, cands, source, chosen) if sets else None
    if laid_out == "invoice" and "vendor_address" in fields and "vendor_address" not in sets:
        _address_under_chosen_vendor(fields, layout, chosen.get("vendor_name"), cands, source)
    if "total" in sets and (problem := _cash_back_problem(fields.get("total"), sets["total"])) is not None:
        fields["total"].problems.append(problem)
    learned = set(sets) if model_version else set()
    if document_type == "cn_vat_invoice":
        cur = fields.get("currency")
        if cur is not None and cur.value is None:
            fields["currency"] = Field(name="currency", value="CNY", raw=None, confidence=0.9, source=source)
        words = cands.get("_words")
        total = fields.get("total")
        if words is not None and total is not None and total.value and words.value != total.value:
            total.problems.append(diag(Code.AMOUNT_IN_WORDS_MISMATCH, words=words.raw.strip(), words_value=words.value,
                                       total=total.value))
        qr = _qr_data(qr_payloads)
        if qr:
            _merge_qr(fields, qr)
        kind = fields.get("invoice_type")
        if kind is not None and kind.value is None:
            # The title as printed (it names 通行费 and 卷票 variants the QR type code shares), else the
            # QR code's type code (desktop.core.einvoice.cn.INVOICE_TYPES).
            from desktop.core.einvoice.cn import invoice_type_from_qr, invoice_type_from_text

            for ln in layout.lines[:15]:
                title = invoice_type_from_text(ln.text)
                if title:
                    fields["invoice_type"] = Field(name="invoice_type", value=title, raw=ln.text, confidence=0.95,
                                                   source=source, page=ln.page, box=ln.box)
                    break
            else:
                named = invoice_type_from_qr(qr.get("type")) if qr else None
                if named:
                    fields["invoice_type"] = Field(name="invoice_type", value=named, raw=qr.get("type") if qr else None,
                                                   confidence=1.0, source="qr")
    missing: set[str] = set()
    if laid_out == "invoice":
        # the totals block tied together once the model chose the total (desktop.core.extraction.invoice_totals)
        from desktop.core.extraction.invoice_totals import review_totals

        missing = review_totals(fields, layout, source)
        missing |= _EXPECTED_ON_INVOICES
    _read_included_tax(fields, layout, source)
    _drop_tax_inclusive_subtotal(fields, layout)
    apply_amount_sign(fields, document_type)
    validate(fields, document_type, layout)
    _pages_in_doubt(fields, pages, document_type)
    _two_documents_on_a_page(fields, pages)
    _flag_for_review(fields, document_type, learned)
    for name in missing:
        if name in fields and fields[name].value is None:
            fields[name].needs_review = True  # the document prints it, nothing read it
    return ExtractionResult(fields=fields, line_items=items, model_version=model_version)


def _squash(text: str) -> str:
    t = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\s\W_]+", "", t)


def _locate(raw: str, value: str | None, layout: Layout) -> list:
    """Lines whose text holds ``raw`` (whitespace/punctuation-insensitive), else ``value``'s digits."""
    key = _squash(raw)
    if key:
        hits = [ln for ln in layout.lines if key in _squash(ln.text)]
        if hits:
            return hits[:1]
        # a value split over neighbouring boxes of one row
        for ln in layout.lines:
            row = [ln] + layout.right_of(ln)[:3]
            joined = ""
            for k, o in enumerate(row):
                joined += _squash(o.text)
                if key in joined:
                    return row[: k + 1]
    if value:
        vkey = _squash(value)
        if len(vkey) >= 3:
            hits = [ln for ln in layout.lines if vkey in _squash(ln.text)]
            if hits:
                return hits[:1]
    return []


def fields_from_values(values: dict[str, str | None], pages: list[PageResult], document_type: str, *,
                       source: str = "model", date_order: str | None = None,
                       qr_payloads: tuple[str, ...] | list[str] = ()) -> ExtractionResult:
    """Build validated fields from values an engine returned as printed (e.g. HunyuanOCR).

    Each value is normalised with :func:`normalise_field`, located in the pages' lines (fuzzy:
    whitespace and punctuation ignored) to fill ``page``/``boxes``, and validated. Keys that are not
    fields of the type are dropped; fields the engine did not return are present with value
    ``None``. The currency, when not given, comes from a currency sign printed with an amount
    (``￥77.10元`` -> CNY) or the type's default (CNY on Chinese VAT invoices), never invented.
    """
    doc_type = get_document_type(document_type)
    layout = Layout(pages)
    fields: dict[str, Field] = {}
    evidence_currency = None
    dollar_raw = False
    for name in doc_type.fields:
        raw = values.get(name)
        if raw is None or not str(raw).strip():
            fields[name] = Field(name=name, source=source)
            continue
        raw = str(raw).strip()
        value, problems = normalise_field(name, raw, date_order=date_order)
        if _field_type(name) == "amount" and evidence_currency is None:
            evidence_currency = currency_from_text(raw, chinese_document=document_type == "cn_vat_invoice")
            dollar_raw = bare_dollar(raw)
        hits = _locate(raw, value, layout)
        conf = 0.9 if hits else 0.6
        if hits:
            conf *= min(h.confidence for h in hits)
        fields[name] = Field(name=name, value=value, raw=raw, confidence=round(conf, 4),
                             page=hits[0].page if hits else None, boxes=[h.box for h in hits],
                             source=source, problems=problems)
    cur = fields.get("currency")
    if cur is not None and cur.value is None:
        code = evidence_currency or ("CNY" if document_type == "cn_vat_invoice" else None)
        if code:
            fields["currency"] = Field(name="currency", value=code, raw=None, confidence=0.8, source=source)
    cur = fields.get("currency")
    if cur is not None and cur.value == "USD" and (cur.raw is None and dollar_raw or (cur.raw or "").strip() == "$"):
        # a bare "$" is the sign of several dollars: the page says which (or that it does not)
        from desktop.core.extraction.common import document_currency

        on_page = document_currency(layout)
        if on_page is not None and (on_page.value != "USD" or on_page.problems):
            cur.value = on_page.value
            cur.confidence = min(cur.confidence, on_page.factor)
            cur.problems.extend(on_page.problems)
    if document_type == "cn_vat_invoice":
        qr = _qr_data(qr_payloads)
        if qr:
            _merge_qr(fields, qr)
        kind = fields.get("invoice_type")
        if kind is not None and kind.value is None:
            from desktop.core.einvoice.cn import invoice_type_from_qr, invoice_type_from_text

            named = invoice_type_from_qr(qr.get("type")) if qr else None
            fields["invoice_type"] = Field(name="invoice_type", value=named, raw=qr.get("type") if qr else None,
                                           confidence=1.0, source="qr") if named else Field(name="invoice_type")
            if not named:
                for ln in layout.lines[:12]:
                    title = invoice_type_from_text(ln.text)
                    if title:
                        fields["invoice_type"] = Field(name="invoice_type", value=title, raw=ln.text, confidence=0.9,
                                                       source=source, page=ln.page, box=ln.box)
                        break
    _drop_tax_inclusive_subtotal(fields, layout)
    apply_amount_sign(fields, document_type)
    validate(fields, document_type, layout)
    _pages_in_doubt(fields, pages, document_type)
    _two_documents_on_a_page(fields, pages)
    _flag_for_review(fields, document_type, set())
    return ExtractionResult(fields=fields, line_items=[])


# --------------------------------------------------------------------------------------------------
# splitting


def _page_key(page: PageResult) -> str | None:
    """The invoice number (with code) printed on one page, if it carries its own."""
    layout = Layout([page])
    if detect_document_type([page]) == "cn_vat_invoice":
        from desktop.core.extraction.cn_vat import pick_code_number

        code, number = pick_code_number(layout)
        if number and number.value:
            return f"{code.value if code else ''}/{number.value}"
        return None
    from desktop.core.extraction.invoice import invoice_number_candidates

    cands = [c for c in invoice_number_candidates(layout) if c.score >= 2]
    return cands[0].value if cands else None


def split_documents(pages: list[PageResult]) -> list[tuple[int, int]]:
    """Page ranges (1-based, inclusive, in the file's numbering) that are separate documents.

    The rules (own invoice number, own header/date after a document that has its total, change of
    page kind; continuation pages join) and the notes saying why are in
    :func:`desktop.core.boundaries.document_ranges`; this returns its ranges only.
    """
    from desktop.core.boundaries import document_ranges

    return [(r.first, r.last) for r in document_ranges(pages)]
