"""An e-invoice's structured data applied to a document read from its pages, cross-checked.

:mod:`desktop.core.einvoice` reads the data (Factur-X / ZUGFeRD / XRechnung XML in a PDF, XML invoices,
Chinese OFD packages and e-invoice XML); this package, above field extraction, puts it into the
document's fields and checks the printed page against it (:mod:`desktop.core.structured.crosscheck`).
The pipeline calls :func:`apply_to_document` once per document that carries such data.
"""
from __future__ import annotations

from desktop.core.diagnostics import Code, diag
from desktop.core.einvoice import EInvoice
from desktop.core.model import Field

__all__ = ["GENERATED_ORIGINS", "apply_to_document", "cn_qr_check", "document_type_for"]


#: Pages that are a generated view of the data itself (nothing to cross-check against).
GENERATED_ORIGINS = ("xml_view",)


def document_type_for(inv: EInvoice) -> str:
    """The Shoebox document type of an e-invoice: ``cn_vat_invoice`` for Chinese data, else ``invoice``."""
    return "cn_vat_invoice" if inv.syntax.startswith("CN") else "invoice"


def apply_to_document(doc, inv: EInvoice, *, forced_type: str | None = None) -> list[str]:
    """Give a document read from its pages the e-invoice's values, cross-checked (the pipeline's hook).

    Sets the document type (unless ``forced_type`` names one), lets the structured values override the
    page's (:func:`desktop.core.structured.crosscheck.apply`, sources per value), revalidates the fields
    (``desktop.core.extraction.validate``) and marks every field with a problem ``needs_review``.

    Returns:
        The names of the fields whose printed value disagrees with the data.
    """
    from desktop.core import extraction
    from desktop.core.structured import crosscheck

    doc_type = forced_type or document_type_for(inv)
    if doc.document_type != doc_type:
        result = extraction.extract_fields(doc.page_results, doc_type, qr_payloads=tuple(doc.extras.get("qr_payloads", [])))
        doc.fields, doc.line_items = dict(result.fields), list(result.line_items)
        doc.document_type = doc_type
    pages = [p for p in doc.page_results if p.origin not in GENERATED_ORIGINS]
    if doc.page_results and not pages:
        # The only page is the view generated from the data: what the data lacks stays empty rather
        # than being guessed from the view's labels.
        doc.fields = {name: Field(name=name, source="xml") for name in doc.fields}
        doc.line_items = []
    flagged = crosscheck.apply(doc, inv, source="xml", crosscheck=bool(pages), sources=inv.sources, pages=pages)
    if inv.syntax.startswith("CN"):
        flagged += cn_qr_check(doc, inv)
    extraction.validate(doc.fields, doc_type, doc.page_results)
    for f in doc.fields.values():
        if f.source == "xml" and not f.edited:
            # A corrective invoice or credit note states negative amounts on purpose (EN 16931 allows
            # negative BT-109..BT-115); validate's "is negative" is meant for misread printed amounts.
            f.problems = [p for p in f.problems if p.code is not Code.NEGATIVE_AMOUNT]
        if f.problems:
            f.needs_review = True
    doc.extras["einvoice"]["data"] = inv.to_dict()
    return flagged


def cn_qr_check(doc, inv: EInvoice) -> list[str]:
    """Cross-check a Chinese invoice's data against its QR code (``doc.extras["qr_payloads"]``).

    The QR gives code, number, date, check code and one amount: the amount before tax on older VAT
    invoices, the tax-inclusive total on 数电票 (:func:`desktop.core.einvoice.vatqr.parse_vat_qr`).
    A value the data lacks is filled from the QR (source ``qr``); one that differs is a problem on the
    field (``needs_review``). The invoice type is taken from the QR's type code when the data has none.

    Returns:
        The names of the fields where the QR and the data disagree.
    """
    from desktop.core.einvoice import cn
    from desktop.core.einvoice.vatqr import parse_vat_qr

    qr = next((d for d in (parse_vat_qr(p) for p in doc.extras.get("qr_payloads", [])) if d), None)
    if qr is None:
        return []
    flagged = []
    for name in ("invoice_code", "invoice_number", "date", "check_code", "subtotal", "total"):
        q = qr.get(name)
        if not q:
            continue
        f = doc.fields.get(name)
        if f is None or f.value is None:
            doc.fields[name] = Field(name=name, value=q, raw=q, confidence=1.0, source="qr")
        elif f.edited:
            continue
        elif f.value != q:
            f.problems.append(diag(Code.EINVOICE_QR_MISMATCH, field=name, label=name.replace("_", " "), value=f.value, qr=q))
            f.needs_review = True
            flagged.append(name)
    kind = cn.invoice_type_from_qr(qr.get("type"))
    f = doc.fields.get("invoice_type")
    if kind and (f is None or f.value is None):
        doc.fields["invoice_type"] = Field(name="invoice_type", value=kind, raw=qr.get("type"), confidence=1.0, source="qr")
    if flagged:
        doc.extras.setdefault("einvoice", {}).setdefault("mismatches", []).extend(flagged)
    return flagged
