"""What an e-invoice's own data says: canonical values, lines and tax breakdown, and where they came from."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["EInvoice", "amount", "join"]

#: Canonical field names an e-invoice can fill (``resources/doctypes/fields.json``).
FIELDS = (
    "invoice_type", "invoice_code", "invoice_number", "check_code", "date", "due_date",
    "vendor_name", "vendor_address", "vendor_tax_id", "buyer_name", "buyer_address", "buyer_tax_id",
    "subtotal", "tax", "total", "amount_due", "currency", "payment_terms", "iban",
)


@dataclass
class EInvoice:
    """The structured data of one invoice.

    Attributes:
        syntax: ``CII``, ``CII (ZUGFeRD 1.0)``, ``UBL Invoice``, ``UBL CreditNote``, ``CN e-invoice XML``,
            ``CN OFD metadata`` or ``CN QR``.
        profile: the profile as named by its guideline URN (``EN16931``, ``EXTENDED``, ``XRECHNUNG 2.0``,
            ``ZUGFeRD 1.0 BASIC``, ...), ``None`` when not stated.
        values: canonical field name -> normalised value (amounts ``"1234.56"`` with the XML's own
            decimals, at least two; dates ISO 8601; currency ISO 4217); only the fields the data carries.
        line_items: invoice lines: ``description``, ``quantity``, ``unit_code``, ``unit_price``,
            ``amount`` (line net total), ``tax_rate``, ``tax``, ``line_id``, ``parent_line_id`` (keys only
            where known; Chinese lines also ``specification``, ``unit`` and ``tax_printed`` = ``"***"``
            for a tax-exempt line whose tax is then ``"0.00"``). Group sub-total lines of EXTENDED (``LineStatusReasonCode`` ``GROUP``, or lines
            other lines name as parent) are not lines and are left out.
        tax_breakdown: one entry per VAT rate: ``category`` (UNCL 5305 code), ``rate`` (percent,
            e.g. ``"19"``, or ``"免税"``), ``basis`` and ``tax`` amounts.
        origin: where the data was found, e.g. ``"factur-x.xml embedded in the PDF"``.
        notes: remarks for the clerk found while reading (an unreadable amount, a second currency).
        sources: ``Field.source`` per value where it is not ``xml`` (``qr`` for a value only a QR
            code gave, ``ofd_text`` for one read from an OFD page's text objects).
    """

    syntax: str
    profile: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    line_items: list[dict[str, Any]] = field(default_factory=list)
    tax_breakdown: list[dict[str, Any]] = field(default_factory=list)
    origin: str = ""
    notes: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"syntax": self.syntax, "profile": self.profile, "values": dict(self.values),
                "line_items": [dict(x) for x in self.line_items],
                "tax_breakdown": [dict(x) for x in self.tax_breakdown],
                "origin": self.origin, "notes": list(self.notes), "sources": dict(self.sources)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EInvoice:
        return cls(syntax=str(d.get("syntax", "")), profile=d.get("profile"), values=dict(d.get("values") or {}),
                   line_items=[dict(x) for x in d.get("line_items") or []],
                   tax_breakdown=[dict(x) for x in d.get("tax_breakdown") or []],
                   origin=str(d.get("origin", "")), notes=list(d.get("notes") or []),
                   sources=dict(d.get("sources") or {}))


def amount(text: str | None) -> str | None:
    """An XML decimal (``xs:decimal``: ``-1234.5``, ``+7``, ``.50``) as a canonical amount string.

    Two decimals at least, more only where the XML has significant ones (``"12.3450"`` -> ``"12.345"``).
    Returns ``None`` for a missing or unreadable value.
    """
    if text is None:
        return None
    t = str(text).strip().replace(" ", "")
    if not t:
        return None
    try:
        d = Decimal(t)
    except InvalidOperation:
        return None
    if not d.is_finite():
        return None
    d = d.normalize() if d != 0 else Decimal(0)
    exp = d.as_tuple().exponent
    places = max(2, -exp if isinstance(exp, int) and exp < 0 else 0)
    return f"{d:.{places}f}"


def join(parts: list[str | None], sep: str = ", ") -> str | None:
    """Join the non-empty parts (stripped); ``None`` when nothing is left."""
    kept = [p.strip() for p in parts if p and p.strip()]
    return sep.join(kept) if kept else None
