"""EN 16931 e-invoice XML: UN/CEFACT CII (D16B: Factur-X, ZUGFeRD 2.x, XRechnung CII; and ZUGFeRD 1.0)
and OASIS UBL 2.1 (Invoice, CreditNote: XRechnung UBL, PEPPOL BIS Billing 3.0) -> canonical fields.

Field mapping (the business terms are EN 16931-1:2017's; the element paths are the syntax bindings of
CEN/TS 16931-3-2 for UBL and -3-3 for CII, and the ZUGFeRD 1.0 specification of 2014 for its element
names, which differ from D16B only in the containers named in brackets):

============== ======================================================= ===========================================
field          CII                                                     UBL
============== ======================================================= ===========================================
invoice_number ExchangedDocument/ID [HeaderExchangedDocument]          cbc:ID (BT-1)
invoice_type   ExchangedDocument/TypeCode (UNTDID 1001)               InvoiceTypeCode / CreditNoteTypeCode (BT-3)
date           IssueDateTime/DateTimeString (format 102)              IssueDate (BT-2; a time zone suffix dropped)
due_date       SpecifiedTradePaymentTerms/DueDateDateTime (first)     DueDate, else PaymentMeans/PaymentDueDate (BT-9)
vendor_name    SellerTradeParty/Name (BT-27)                          PartyLegalEntity/RegistrationName, else PartyName
vendor_address PostalTradeAddress: LineOne, LineTwo, LineThree,       PostalAddress: StreetName, AdditionalStreetName,
               "PostcodeCode CityName", CountrySubDivisionName,       AddressLine/Line, "PostalZone CityName",
               CountryID (BG-5)                                       CountrySubentity, Country/IdentificationCode
vendor_tax_id  SpecifiedTaxRegistration/ID[@schemeID="VA"] (BT-31)   PartyTaxScheme[TaxScheme/ID="VAT"]/CompanyID
buyer_*        BuyerTradeParty (BT-44, BG-8, BT-48)                   AccountingCustomerParty/Party (same rules)
subtotal       MonetarySummation/TaxBasisTotalAmount (BT-109)         LegalMonetaryTotal/TaxExclusiveAmount
tax            TaxTotalAmount in the invoice currency (BT-110)        TaxTotal/TaxAmount in the document currency
total          GrandTotalAmount (BT-112)                              LegalMonetaryTotal/TaxInclusiveAmount
amount_due     DuePayableAmount (BT-115)                              LegalMonetaryTotal/PayableAmount
currency       InvoiceCurrencyCode (BT-5)                             DocumentCurrencyCode
payment_terms  SpecifiedTradePaymentTerms/Description (BT-20)         PaymentTerms/Note
iban           PayeePartyCreditorFinancialAccount/IBANID (BT-84)      PaymentMeans/PayeeFinancialAccount/ID
tax breakdown  ApplicableTradeTax (BG-23): BasisAmount,               TaxTotal/TaxSubtotal: TaxableAmount, TaxAmount,
               CalculatedAmount, CategoryCode, RateApplicablePercent  TaxCategory/ID, TaxCategory/Percent
lines (BG-25)  IncludedSupplyChainTradeLineItem                       InvoiceLine / CreditNoteLine
============== ======================================================= ===========================================

Elements are matched by local name below a root whose namespace is checked, so the same code reads the
D16B and ZUGFeRD 1.0 namespaces; a root in any other namespace is not taken for an invoice.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from lxml import etree

from desktop.core.einvoice.data import EInvoice, amount, join
from desktop.core.einvoice.xmlsafe import local

__all__ = ["CII_NAMESPACES", "UBL_NAMESPACES", "is_cii", "is_ubl", "read_cii", "read_ubl"]

CII_NAMESPACES = {
    "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100": "CII",
    "urn:ferd:CrossIndustryDocument:invoice:1p0": "CII (ZUGFeRD 1.0)",
}
"""Root namespaces of CII invoices: D16B (EN 16931, Factur-X, ZUGFeRD 2.x, XRechnung) and ZUGFeRD 1.0."""

UBL_NAMESPACES = {
    "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2": "Invoice",
    "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2": "CreditNote",
}
"""Root namespaces of UBL 2.1 invoices and credit notes."""

#: UNTDID 1001 document name codes used for invoices (EN 16931 code list for BT-3).
TYPE_CODES = {
    "380": "commercial invoice", "381": "credit note", "383": "debit note", "384": "corrected invoice",
    "386": "prepayment invoice", "389": "self-billed invoice", "326": "partial invoice",
    "875": "partial construction invoice", "876": "partial final construction invoice",
    "877": "final construction invoice", "751": "invoice information for accounting purposes",
    "261": "self-billed credit note", "396": "factored credit note", "393": "factored invoice",
}


def _ns(el: etree._Element) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag[1:].split("}", 1)[0] if tag.startswith("{") else ""


def is_cii(root: etree._Element) -> bool:
    """Whether ``root`` is a CII invoice root (``CrossIndustryInvoice`` / ZUGFeRD 1.0 ``CrossIndustryDocument``)."""
    return local(root) in ("CrossIndustryInvoice", "CrossIndustryDocument") and _ns(root) in CII_NAMESPACES


def is_ubl(root: etree._Element) -> bool:
    """Whether ``root`` is a UBL 2.1 ``Invoice`` or ``CreditNote``."""
    return local(root) in ("Invoice", "CreditNote") and _ns(root) in UBL_NAMESPACES


# -- navigation by local names ------------------------------------------------------------------------

def _kids(el: etree._Element | None, names: str) -> list[etree._Element]:
    if el is None:
        return []
    wanted = names.split("|")
    return [c for c in el if local(c) in wanted]


def _all(el: etree._Element | None, path: str) -> list[etree._Element]:
    """Every element at ``path`` below ``el``: local names separated by ``/``, alternatives by ``|``."""
    nodes = [el] if el is not None else []
    for step in path.split("/"):
        nodes = [k for n in nodes for k in _kids(n, step)]
    return nodes


def _one(el: etree._Element | None, path: str) -> etree._Element | None:
    found = _all(el, path)
    return found[0] if found else None


def _text(el: etree._Element | None, path: str | None = None) -> str | None:
    node = _one(el, path) if path else el
    if node is None or node.text is None:
        return None
    t = re.sub(r"\s+", " ", node.text).strip()
    return t or None


def quantity(text: str | None) -> str | None:
    """An XML decimal quantity without trailing zeros (``"2.0000"`` -> ``"2"``, ``"1.50"`` -> ``"1.5"``)."""
    if not text:
        return None
    try:
        d = Decimal(text.strip())
    except InvalidOperation:
        return None
    if not d.is_finite():
        return None
    s = f"{d.normalize():f}"
    return "0" if s in ("-0", "0") else s


def cii_date(el: etree._Element | None) -> str | None:
    """A CII date (``udt:DateTimeString`` with ``@format`` 102 = CCYYMMDD, UNTDID 2379) as ISO 8601."""
    if el is None:
        return None
    node = _one(el, "DateTimeString|DateString") if local(el) not in ("DateTimeString", "DateString") else el
    if node is None or not node.text:
        return None
    t = node.text.strip()
    fmt = node.get("format", "102")
    if fmt == "102" and re.fullmatch(r"\d{8}", t):
        return f"{t[:4]}-{t[4:6]}-{t[6:8]}"
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", t)
    if m:
        return "-".join(m.groups())
    return None


def iso_date(text: str | None) -> str | None:
    """An ``xs:date`` (``2016-04-04``, ``2016-04-04+01:00``, ``2016-04-04Z``) as ``YYYY-MM-DD``."""
    if not text:
        return None
    m = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})", text)
    return "-".join(m.groups()) if m else None


def profile_name(urn: str | None) -> str | None:
    """A readable profile name for a guideline URN / UBL CustomizationID (Factur-X 1.0, ZUGFeRD 2.x,
    XRechnung, PEPPOL BIS 3 identifiers as published by FNFE-MPE/FeRD, KoSIT and OpenPEPPOL)."""
    if not urn:
        return None
    u = urn.lower()
    if "xrechnung" in u:
        m = re.search(r"xrechnung_(\d+(?:\.\d+)?)", u)
        return f"XRECHNUNG {m.group(1)}" if m else "XRECHNUNG"
    if "peppol" in u:
        return "PEPPOL BIS 3"
    if u.startswith("urn:ferd:crossindustrydocument:invoice:1p0:"):
        return "ZUGFeRD 1.0 " + u.rsplit(":", 1)[-1].upper()
    for key, name in (("minimum", "MINIMUM"), ("basicwl", "BASIC WL"), ("basic", "BASIC"), ("extended", "EXTENDED")):
        if u.endswith(key) or f":{key}" in u:
            return name
    if u.startswith("urn:cen.eu:en16931:2017"):
        return "EN16931"
    return urn


def _in_currency(nodes: list[etree._Element], currency: str | None) -> str | None:
    """The amount of the node in ``currency`` (BT-110 vs BT-111), else of the one without a currency."""
    for n in nodes:
        if currency and n.get("currencyID") == currency:
            return amount(n.text)
    for n in nodes:
        if not n.get("currencyID"):
            return amount(n.text)
    return amount(nodes[0].text) if len(nodes) == 1 else None


def _put(values: dict[str, str], name: str, value: str | None) -> None:
    if value is not None and str(value).strip():
        values[name] = str(value).strip()


def _rate(text: str | None) -> str | None:
    q = quantity(text)
    return q


def _drop_groups(lines: list[dict]) -> list[dict]:
    """Lines without the group sub-totals of EXTENDED hierarchical lines (a parent of other lines)."""
    parents = {ln.get("parent_line_id") for ln in lines if ln.get("parent_line_id")}
    return [{k: v for k, v in ln.items() if not k.startswith("_")} for ln in lines
            if not ln.get("_group") and ln.get("line_id") not in parents]


# -- CII ---------------------------------------------------------------------------------------------

def _cii_party(party: etree._Element | None, prefix: str, values: dict[str, str]) -> None:
    if party is None:
        return
    _put(values, f"{prefix}_name", _text(party, "Name"))
    addr = _one(party, "PostalTradeAddress")
    if addr is not None:
        city = join([_text(addr, "PostcodeCode"), _text(addr, "CityName")], " ")
        _put(values, f"{prefix}_address", join([_text(addr, "LineOne"), _text(addr, "LineTwo"), _text(addr, "LineThree"),
                                                city, _text(addr, "CountrySubDivisionName"), _text(addr, "CountryID")]))
    for reg in _all(party, "SpecifiedTaxRegistration/ID"):
        if reg.get("schemeID") == "VA" and reg.text and reg.text.strip():
            _put(values, f"{prefix}_tax_id", reg.text.strip())
            break


def read_cii(root: etree._Element) -> EInvoice:
    """Read a CII invoice (D16B or ZUGFeRD 1.0) into an :class:`EInvoice` (see the module docstring).

    Raises:
        ValueError: ``root`` is not a CII invoice root (:func:`is_cii`).
    """
    if not is_cii(root):
        raise ValueError(f"not a CII invoice (root element {local(root)!r} in namespace {_ns(root)!r})")
    syntax = CII_NAMESPACES[_ns(root)]
    values: dict[str, str] = {}
    urn = _text(root, "ExchangedDocumentContext|SpecifiedExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID")
    header = _one(root, "ExchangedDocument|HeaderExchangedDocument")
    _put(values, "invoice_number", _text(header, "ID"))
    code = _text(header, "TypeCode")
    if code:
        _put(values, "invoice_type", TYPE_CODES.get(code, f"document type {code}"))
    _put(values, "date", cii_date(_one(header, "IssueDateTime")))
    trade = _one(root, "SupplyChainTradeTransaction|SpecifiedSupplyChainTradeTransaction")
    agreement = _one(trade, "ApplicableHeaderTradeAgreement|ApplicableSupplyChainTradeAgreement")
    settlement = _one(trade, "ApplicableHeaderTradeSettlement|ApplicableSupplyChainTradeSettlement")
    _cii_party(_one(agreement, "SellerTradeParty"), "vendor", values)
    _cii_party(_one(agreement, "BuyerTradeParty"), "buyer", values)
    currency = _text(settlement, "InvoiceCurrencyCode")
    _put(values, "currency", currency.upper() if currency else None)
    summation = _one(settlement, "SpecifiedTradeSettlementHeaderMonetarySummation|SpecifiedTradeSettlementMonetarySummation")
    if summation is not None:
        _put(values, "subtotal", amount(_text(summation, "TaxBasisTotalAmount")))
        taxes = _all(summation, "TaxTotalAmount")
        if taxes:
            _put(values, "tax", _in_currency(taxes, currency))
        _put(values, "total", amount(_text(summation, "GrandTotalAmount")))
        _put(values, "amount_due", amount(_text(summation, "DuePayableAmount")))
    terms = _all(settlement, "SpecifiedTradePaymentTerms")
    for t in terms:
        due = cii_date(_one(t, "DueDateDateTime"))
        if due:
            _put(values, "due_date", due)
            break
    _put(values, "payment_terms", join([_text(t, "Description") for t in terms], "; "))
    for means in _all(settlement, "SpecifiedTradeSettlementPaymentMeans"):
        iban = _text(means, "PayeePartyCreditorFinancialAccount/IBANID")
        if iban:
            _put(values, "iban", iban.replace(" ", "").upper())
            break
    breakdown = []
    for tax in _all(settlement, "ApplicableTradeTax"):
        breakdown.append({k: v for k, v in {
            "category": _text(tax, "CategoryCode"),
            "rate": _rate(_text(tax, "RateApplicablePercent|ApplicablePercent")),
            "basis": amount(_text(tax, "BasisAmount")),
            "tax": amount(_text(tax, "CalculatedAmount")),
            "exemption": _text(tax, "ExemptionReason"),
        }.items() if v is not None})
    lines = []
    for item in _all(trade, "IncludedSupplyChainTradeLineItem"):
        doc = _one(item, "AssociatedDocumentLineDocument")
        line_agreement = _one(item, "SpecifiedLineTradeAgreement|SpecifiedSupplyChainTradeAgreement")
        delivery = _one(item, "SpecifiedLineTradeDelivery|SpecifiedSupplyChainTradeDelivery")
        line_settlement = _one(item, "SpecifiedLineTradeSettlement|SpecifiedSupplyChainTradeSettlement")
        qty = _one(delivery, "BilledQuantity")
        net = _one(line_agreement, "NetPriceProductTradePrice")
        gross = _one(line_agreement, "GrossPriceProductTradePrice")
        basis = _one(net, "BasisQuantity")
        status = _text(doc, "LineStatusReasonCode")
        line = {
            "line_id": _text(doc, "LineID"),
            "parent_line_id": _text(doc, "ParentLineID"),
            "description": _text(item, "SpecifiedTradeProduct/Name"),
            "quantity": quantity(qty.text if qty is not None else None),
            "unit_code": qty.get("unitCode") if qty is not None else None,
            "unit_price": amount(_text(net, "ChargeAmount")),
            "price_basis_quantity": quantity(basis.text if basis is not None else None),
            "gross_unit_price": amount(_text(gross, "ChargeAmount")),
            "amount": amount(_text(line_settlement, "SpecifiedTradeSettlementLineMonetarySummation|"
                                                    "SpecifiedTradeSettlementMonetarySummation/LineTotalAmount")),
            "tax_rate": _rate(_text(line_settlement, "ApplicableTradeTax/RateApplicablePercent|ApplicablePercent")),
            "_group": status in ("GROUP", "INFORMATION"),
        }
        lines.append({k: v for k, v in line.items() if v is not None})
    return EInvoice(syntax=syntax, profile=profile_name(urn), values=values, line_items=_drop_groups(lines),
                    tax_breakdown=breakdown)


# -- UBL ---------------------------------------------------------------------------------------------

def _ubl_party(party: etree._Element | None, prefix: str, values: dict[str, str]) -> None:
    if party is None:
        return
    _put(values, f"{prefix}_name", _text(party, "PartyLegalEntity/RegistrationName") or _text(party, "PartyName/Name"))
    addr = _one(party, "PostalAddress")
    if addr is not None:
        city = join([_text(addr, "PostalZone"), _text(addr, "CityName")], " ")
        extra = [_text(line, "Line") for line in _all(addr, "AddressLine")]
        _put(values, f"{prefix}_address", join([_text(addr, "StreetName"), _text(addr, "AdditionalStreetName"), *extra,
                                                city, _text(addr, "CountrySubentity"),
                                                _text(addr, "Country/IdentificationCode")]))
    for scheme in _all(party, "PartyTaxScheme"):
        if (_text(scheme, "TaxScheme/ID") or "").upper() == "VAT":
            _put(values, f"{prefix}_tax_id", _text(scheme, "CompanyID"))
            break


def read_ubl(root: etree._Element) -> EInvoice:
    """Read a UBL 2.1 Invoice or CreditNote into an :class:`EInvoice` (see the module docstring).

    Raises:
        ValueError: ``root`` is not a UBL invoice root (:func:`is_ubl`).
    """
    if not is_ubl(root):
        raise ValueError(f"not a UBL invoice (root element {local(root)!r} in namespace {_ns(root)!r})")
    kind = UBL_NAMESPACES[_ns(root)]
    values: dict[str, str] = {}
    _put(values, "invoice_number", _text(root, "ID"))
    code = _text(root, "InvoiceTypeCode|CreditNoteTypeCode")
    if code:
        _put(values, "invoice_type", TYPE_CODES.get(code, f"document type {code}"))
    elif kind == "CreditNote":
        values["invoice_type"] = TYPE_CODES["381"]
    _put(values, "date", iso_date(_text(root, "IssueDate")))
    _put(values, "due_date", iso_date(_text(root, "DueDate")) or iso_date(_text(root, "PaymentMeans/PaymentDueDate")))
    currency = _text(root, "DocumentCurrencyCode")
    _put(values, "currency", currency.upper() if currency else None)
    _ubl_party(_one(root, "AccountingSupplierParty/Party"), "vendor", values)
    _ubl_party(_one(root, "AccountingCustomerParty/Party"), "buyer", values)
    totals = _one(root, "LegalMonetaryTotal")
    _put(values, "subtotal", amount(_text(totals, "TaxExclusiveAmount")))
    _put(values, "total", amount(_text(totals, "TaxInclusiveAmount")))
    _put(values, "amount_due", amount(_text(totals, "PayableAmount")))
    tax_totals = _all(root, "TaxTotal")
    taxes = [t for tt in tax_totals for t in _kids(tt, "TaxAmount")]
    if taxes:
        _put(values, "tax", _in_currency(taxes, currency))
    _put(values, "payment_terms", join([_text(t, "Note") for t in _all(root, "PaymentTerms")], "; "))
    for means in _all(root, "PaymentMeans"):
        iban = _text(means, "PayeeFinancialAccount/ID")
        if iban:
            _put(values, "iban", iban.replace(" ", "").upper())
            break
    breakdown = []
    for tt in tax_totals:
        amt = _one(tt, "TaxAmount")
        if currency and amt is not None and amt.get("currencyID") not in (None, currency):
            continue
        for sub in _kids(tt, "TaxSubtotal"):
            breakdown.append({k: v for k, v in {
                "category": _text(sub, "TaxCategory/ID"),
                "rate": _rate(_text(sub, "TaxCategory/Percent")),
                "basis": amount(_text(sub, "TaxableAmount")),
                "tax": amount(_text(sub, "TaxAmount")),
                "exemption": _text(sub, "TaxCategory/TaxExemptionReason"),
            }.items() if v is not None})
    lines = []
    for item in _all(root, "InvoiceLine|CreditNoteLine"):
        qty = _one(item, "InvoicedQuantity|CreditedQuantity")
        base = _one(item, "Price/BaseQuantity")
        line = {
            "line_id": _text(item, "ID"),
            "description": _text(item, "Item/Name"),
            "quantity": quantity(qty.text if qty is not None else None),
            "unit_code": qty.get("unitCode") if qty is not None else None,
            "unit_price": amount(_text(item, "Price/PriceAmount")),
            "price_basis_quantity": quantity(base.text if base is not None else None),
            "amount": amount(_text(item, "LineExtensionAmount")),
            "tax_rate": _rate(_text(item, "Item/ClassifiedTaxCategory/Percent")),
        }
        lines.append({k: v for k, v in line.items() if v is not None})
    urn = _text(root, "CustomizationID")
    return EInvoice(syntax=f"UBL {kind}", profile=profile_name(urn), values=values, line_items=_drop_groups(lines),
                    tax_breakdown=breakdown)
