"""Chinese e-invoice data: the invoice XML inside OFD packages, OFD metadata and custom tags, and the
QR code of fully digital invoices (数电票).

Formats read (by the local names of their elements, namespaces checked at the root):

- the 2019 e-invoice XML of the tax authority's e-invoice platform (``<eInvoice>`` with children in
  ``http://www.edrm.org.cn/schema/e-invoice/2019``: ``fp:InvoiceCode``, ``fp:InvoiceNo``, ``fp:IssueDate``,
  ``fp:Buyer/fp:BuyerName``, ``fp:TaxInclusiveTotalAmount``, ``fp:GoodsInfos/fp:GoodsInfo``, ...), the
  XML attached to electronic VAT invoices in OFD;
- the XBRL invoice of the Ministry of Finance e-voucher taxonomy (``<xbrl>`` with ``inv:`` facts from
  ``http://xbrl.mof.gov.cn/taxonomy/.../inv``: ``inv:CodeOfInvoice``, ``inv:NumberOfInvoice``,
  ``inv:TaxIncludedAmountInFigures``, ``inv:InformationOfTaxableGoodsOrServicesDetailItemsTuple``, ...);
- the 数电票 XML issued by the national unified e-invoice service platform (``<EInvoice>`` with
  ``Header/EIid``, ``EInvoiceData/SellerInformation``, ``BuyerInformation``, ``BasicInformation``
  (``TotalAmWithoutTax``, ``TotalTaxAm``, ``TotalTax-includedAmount``), ``IssuItemInformation``, and
  ``TaxSupervisionInfo/InvoiceNumber``, ``IssueTime``);
- ``OFD.xml`` ``CustomData`` entries named 发票代码, 发票号码, 开票日期, 校验码, 合计金额, 合计税额,
  价税合计, 购买方/销售方名称 and 纳税人识别号, 模板编号;
- custom tags (``CustomTag.xml``): invoice element names whose ``ObjectRef`` point at page text objects.

Fully digital invoices have a 20-digit 发票号码 and neither 发票代码 nor 校验码; that is valid
(:func:`desktop.core.extraction.validators.check_invoice_number`). A tax cell printed ``***`` (tax-exempt
lines, 免税) is tax ``0.00`` with rate ``免税``.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation

from lxml import etree

from desktop.core.einvoice.data import EInvoice, amount
from desktop.core.einvoice.xmlsafe import local

__all__ = ["INVOICE_TYPES", "combine", "from_custom_data", "from_custom_tags", "invoice_type_from_text",
           "is_cn_invoice", "read_cn_xml"]

FP_NS = "http://www.edrm.org.cn/schema/e-invoice/2019"
XBRL_NS = "http://www.xbrl.org/2003/instance"

#: Official names of the invoice types (titles as printed; QR type codes of the State Taxation
#: Administration as in :data:`desktop.core.einvoice.vatqr.QR_INVOICE_TYPES`).
INVOICE_TYPES = {
    "01": "增值税专用发票", "04": "增值税普通发票", "08": "增值税电子专用发票", "10": "增值税电子普通发票",
    "11": "增值税普通发票（卷票）", "14": "增值税电子普通发票（通行费）",
    "31": "电子发票（增值税专用发票）", "32": "电子发票（普通发票）",
}

# canonical field -> local element names, in the order tried (fp: 2019 XML, XBRL inv:, 数电票 XML)
_HEADER = {
    "invoice_type": ("TypeOfInvoice",),
    "invoice_code": ("InvoiceCode", "CodeOfInvoice"),
    "invoice_number": ("InvoiceNo", "NumberOfInvoice", "InvoiceNumber", "EIid"),
    "date": ("IssueDate", "DateOfIssue", "IssueTime", "RequestTime"),
    "check_code": ("InvoiceCheckCode", "IdentifyingCode"),
    "buyer_name": ("BuyerName", "NameOfPurchaser"),
    "buyer_tax_id": ("BuyerTaxID", "TaxpayerIdentificationNumberUnifiedSocialCreditCodeOfPurchaser", "BuyerIdNum"),
    "buyer_address": ("BuyerAddrTel", "AddressPhoneNumberOfPurchaser", "BuyerAddr"),
    "vendor_name": ("SellerName", "NameOfSeller"),
    "vendor_tax_id": ("SellerTaxID", "TaxpayerIdentificationNumberUnifiedSocialCreditCodeOfSeller", "SellerIdNum"),
    "vendor_address": ("SellerAddrTel", "AddressPhoneNumberOfSeller", "SellerAddr"),
    "subtotal": ("TaxExclusiveTotalAmount", "TotalAmountExcludingTax", "TotalAmWithoutTax"),
    "tax": ("TaxTotalAmount", "TotalTaxAmount", "TotalTaxAm"),
    "total": ("TaxInclusiveTotalAmount", "TaxIncludedAmountInFigures", "TotalTax-includedAmount"),
}
_LINE_CONTAINERS = ("GoodsInfo", "InformationOfTaxableGoodsOrServicesDetailItemsTuple", "IssuItemInformation")
_LINE = {
    "description": ("Item", "NameOfTaxableGoodsOrServices", "ItemName"),
    "specification": ("Specification", "SpecMod"),
    "unit": ("MeasurementDimension", "UnitOfGoodsOrServices", "MeaUnits"),
    "quantity": ("Quantity", "QuantityOfGoodsOrServices"),
    "unit_price": ("Price", "UnitPriceOfGoodsOrServices", "UnPrice"),
    "amount": ("Amount", "AmountExcludingTax"),
    "tax_rate": ("TaxScheme", "TaxRate"),
    "tax": ("TaxAmount", "ComTaxAm"),
}
_CUSTOM = {
    "发票代码": "invoice_code", "发票号码": "invoice_number", "开票日期": "date", "校验码": "check_code",
    "合计金额": "subtotal", "合计税额": "tax", "价税合计": "total", "购买方名称": "buyer_name",
    "购买方纳税人识别号": "buyer_tax_id", "销售方名称": "vendor_name", "销售方纳税人识别号": "vendor_tax_id",
    "模板编号": "invoice_type",
}
_TAGS = {
    "InvoiceCode": "invoice_code", "InvoiceNo": "invoice_number", "IssueDate": "date",
    "InvoiceCheckCode": "check_code", "BuyerName": "buyer_name", "BuyerTaxID": "buyer_tax_id",
    "SellerName": "vendor_name", "SellerTaxID": "vendor_tax_id", "TaxExclusiveTotalAmount": "subtotal",
    "TaxTotalAmount": "tax", "TaxInclusiveTotalAmount": "total",
}

_TITLE = re.compile(r"电子发票[（(](?:增值税专用发票|普通发票)[)）]|增值税电子(?:专用|普通)发票(?:[（(]通行费[)）])?|"
                    r"增值税(?:专用|普通)发票(?:[（(]卷票[)）])?")


def _ns(el: etree._Element) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag[1:].split("}", 1)[0] if tag.startswith("{") else ""


def is_cn_invoice(root: etree._Element) -> bool:
    """Whether ``root`` is Chinese e-invoice XML: the 2019 ``eInvoice``, an MOF XBRL invoice, or the 数电票
    ``EInvoice``."""
    name = local(root)
    if name == "eInvoice":
        return any(_ns(c) == FP_NS for c in root)
    if name == "xbrl" and _ns(root) == XBRL_NS:
        return any(_ns(c).startswith("http://xbrl.mof.gov.cn/taxonomy/") and _ns(c).endswith("/inv") for c in root)
    if name == "EInvoice":
        return any(local(c) == "EInvoiceData" for c in root)
    return False


def _clean(text: str | None) -> str | None:
    if text is None:
        return None
    t = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text) if any(0x2E80 <= ord(c) <= 0x2FDF for c in text) else text).strip()
    return t or None


def cn_date(text: str | None) -> str | None:
    """``2020年07月23日``, ``2022-09-01``, ``2023-07-07 10:20:30`` or ``20230707`` as ISO 8601."""
    if not text:
        return None
    m = re.search(r"(\d{4})\s*[年\-/.]\s*(\d{1,2})\s*[月\-/.]\s*(\d{1,2})", text) or re.fullmatch(r"\s*(\d{4})(\d{2})(\d{2})\s*", text)
    if not m:
        return None
    y, mo, d = (int(g) for g in m.groups())
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return f"{y:04d}-{mo:02d}-{d:02d}"


def _rate(text: str | None) -> str | None:
    t = _clean(text)
    if not t:
        return None
    if "免" in t or "不征" in t:
        return t
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*%?", t)
    if not m:
        return t
    try:
        d = Decimal(m.group(1))
    except InvalidOperation:
        return t
    if d < 1 and "%" not in t and d != 0:  # 0.13 -> 13%
        d *= 100
    return f"{d.normalize():f}%"


def _tax(text: str | None) -> tuple[str | None, str | None]:
    """``(tax, raw)``: ``***`` (tax-exempt) is ``0.00``."""
    t = _clean(text)
    if t and set(t) <= {"*"}:
        return "0.00", t
    return amount(t), t


def _value(name: str, text: str | None) -> str | None:
    t = _clean(text)
    if t is None:
        return None
    if name in ("subtotal", "tax", "total"):
        return amount(t.replace("¥", "").replace("￥", "").replace(",", ""))
    if name == "date":
        return cn_date(t)
    if name in ("invoice_code", "invoice_number", "check_code"):
        digits = re.sub(r"\s+", "", t)
        return digits or None
    if name in ("buyer_tax_id", "vendor_tax_id"):
        return re.sub(r"\s+", "", t).upper() or None
    if name == "invoice_type":
        return invoice_type_from_text(t) or t
    return t.replace("(", "（").replace(")", "）") if name.endswith("_name") else t


def invoice_type_from_text(text: str) -> str | None:
    """The invoice type named in a title (``浙江增值税电子普通发票`` -> ``增值税电子普通发票``), in full-width
    brackets; ``None`` when the text names none."""
    t = unicodedata.normalize("NFKC", text).replace(" ", "")
    m = _TITLE.search(t)
    if not m:
        return None
    return m.group(0).replace("(", "（").replace(")", "）")


def invoice_type_from_qr(kind: str | None) -> str | None:
    """The invoice type of a VAT-invoice QR type code (``31`` -> ``电子发票（增值税专用发票）``)."""
    return INVOICE_TYPES.get(kind or "")


def read_cn_xml(root: etree._Element) -> EInvoice:
    """Read Chinese e-invoice XML (see the module docstring) into an :class:`EInvoice`.

    Raises:
        ValueError: ``root`` is not Chinese e-invoice XML (:func:`is_cn_invoice`).
    """
    if not is_cn_invoice(root):
        raise ValueError(f"not a Chinese e-invoice XML (root element {local(root)!r})")
    # (by local names of the ancestors: lxml element proxies are created afresh on each access, so
    # their id() cannot mark elements across two walks of the tree)
    header: dict[str, etree._Element] = {}
    for el in root.iter():
        if not isinstance(el.tag, str) or local(el) in _LINE_CONTAINERS:
            continue
        if any(local(a) in _LINE_CONTAINERS for a in el.iterancestors()):
            continue
        header.setdefault(local(el), el)
    values: dict[str, str] = {}
    for name, tags in _HEADER.items():
        for tag in tags:
            el = header.get(tag)
            if el is not None and len(el) == 0:
                v = _value(name, "".join(el.itertext()))
                if v:
                    values[name] = v
                    break
    graph = header.get("GraphCode")
    if graph is not None and graph.text and graph.text.startswith("01,"):
        from desktop.core.einvoice.vatqr import parse_vat_qr

        qr = parse_vat_qr(graph.text.strip())
        if qr:
            values.setdefault("invoice_type", invoice_type_from_qr(qr["type"]) or "")
            if not values.get("invoice_type"):
                values.pop("invoice_type", None)
    values.setdefault("currency", "CNY")
    items = []
    for el in root.iter():
        if local(el) not in _LINE_CONTAINERS:
            continue
        kids = {local(c): "".join(c.itertext()) for c in el}
        item: dict[str, str] = {}
        for key, tags in _LINE.items():
            raw = next((kids[t] for t in tags if t in kids and _clean(kids[t])), None)
            if raw is None:
                continue
            if key in ("amount",):
                v = amount(_clean(raw))
            elif key == "unit_price":
                v = _clean(raw)
            elif key == "tax":
                v, printed = _tax(raw)
                if printed and v == "0.00" and printed.startswith("*"):
                    item["tax_printed"] = printed
            elif key == "tax_rate":
                v = _rate(raw)
            else:
                v = _clean(raw)
            if v:
                item[key] = v
        if item:
            items.append(item)
    syntax = {"eInvoice": "CN e-invoice XML", "xbrl": "CN XBRL e-invoice", "EInvoice": "CN 数电票 XML"}[local(root)]
    breakdown = _breakdown(items)
    return EInvoice(syntax=syntax, values=values, line_items=items, tax_breakdown=breakdown)


def _breakdown(items: list[dict[str, str]]) -> list[dict[str, str]]:
    """Tax per rate summed from the lines (Chinese invoices print no separate breakdown)."""
    sums: dict[str, list[Decimal]] = {}
    for it in items:
        rate = it.get("tax_rate")
        if not rate:
            continue
        try:
            basis = Decimal(it.get("amount") or "0")
            tax = Decimal(it.get("tax") or "0")
        except InvalidOperation:
            continue
        acc = sums.setdefault(rate, [Decimal(0), Decimal(0)])
        acc[0] += basis
        acc[1] += tax
    return [{"rate": r.rstrip("%"), "basis": f"{b:.2f}", "tax": f"{t:.2f}"} for r, (b, t) in sums.items()]


def from_custom_data(custom: dict[str, str]) -> dict[str, str]:
    """Canonical values from ``OFD.xml`` ``CustomData`` (see the module docstring)."""
    out: dict[str, str] = {}
    for key, raw in custom.items():
        name = _CUSTOM.get(re.sub(r"\s+", "", key))
        if name:
            v = _value(name, raw)
            if v:
                out[name] = v
    return out


def from_custom_tags(root: etree._Element, texts: dict[str, str]) -> dict[str, str]:
    """Canonical values from a custom-tag file: each tagged element's ``ObjectRef`` IDs resolved to the
    page text objects' text (``texts``: object ID -> text) and joined."""
    out: dict[str, str] = {}
    for el in root.iter():
        name = _TAGS.get(local(el))
        if not name:
            continue
        refs = [(r.text or "").strip() for r in el if local(r) == "ObjectRef"]
        raw = "".join(texts.get(r, "") for r in refs if r)
        v = _value(name, raw)
        if v and name not in out:
            out[name] = v
    return out


def combine(inv: EInvoice | None, meta: dict[str, str], tagged: dict[str, str], *, origin: str) -> EInvoice | None:
    """The package's invoice data: the attached XML first, then the metadata, then the tagged page text.

    Values from the tags are marked ``ofd_text`` (they are the page's own text objects); the XML's and
    the metadata's are ``xml``. ``None`` when nothing was found.
    """
    if inv is None and not meta and not tagged:
        return None
    if inv is None:
        inv = EInvoice(syntax="CN OFD metadata", origin=origin, values={"currency": "CNY"})
    for name, v in meta.items():
        inv.values.setdefault(name, v)
    for name, v in tagged.items():
        if name not in inv.values:
            inv.values[name] = v
            inv.sources[name] = "ofd_text"
    return inv
