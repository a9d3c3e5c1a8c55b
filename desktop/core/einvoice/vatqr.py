"""The QR code payload of Chinese VAT invoices (a file format: what the code says, not how it is found).

Payload format (State Taxation Administration, VAT invoice QR code as printed on 增值税专用发票,
增值税普通发票 and 增值税电子普通发票; also what the national invoice verification platform
https://inv-veri.chinatax.gov.cn reads)::

    01,<type>,<invoice code>,<invoice number>,<amount before tax>,<YYYYMMDD>,<check code>,<crc>,

``type``: ``01`` special VAT invoice (增值税专用发票), ``04`` ordinary (普通发票), ``10`` electronic
ordinary (电子普通发票), ``11`` roll (卷票), ``14`` toll e-invoice (通行费), ``08`` electronic special,
``31``/``32`` fully digital (全电) special/ordinary. The check code is empty on special invoices.
Fully digital invoices leave the code empty and carry a 20-digit number.

The e-invoice readers use it for the QR text an XML invoice or an OFD package carries; field extraction
(:mod:`desktop.core.extraction.qr`) for the codes it decodes from the page image.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

__all__ = ["DIGITAL_TYPES", "QR_INVOICE_TYPES", "parse_vat_qr"]

DIGITAL_TYPES = ("31", "32")
"""QR type codes of fully digital e-invoices (数电票): 31 电子发票（增值税专用发票）, 32 电子发票（普通发票）."""

QR_INVOICE_TYPES = {
    "01": "增值税专用发票",
    "04": "增值税普通发票",
    "08": "增值税电子专用发票",
    "10": "增值税电子普通发票",
    "11": "增值税普通发票(卷票)",
    "14": "增值税电子普通发票(通行费)",
    "31": "电子发票(增值税专用发票)",
    "32": "电子发票(普通发票)",
}


def parse_vat_qr(payload: str) -> dict | None:
    """Parse a Chinese VAT invoice QR payload.

    Args:
        payload: e.g. ``"01,10,012001800311,33207675,46.62,20190508,76939056883466677916,E1BD,"``.

    Returns:
        ``{"type": "10", "type_name": ..., "invoice_code": "012001800311", "invoice_number": "33207675",
        "subtotal": "46.62", "total": None, "date": "2019-05-08", "check_code": "76939056883466677916"
        or None, "crc": "E1BD"}``, or ``None`` when the text is not a VAT invoice payload. On a 数电票
        (type 31/32, ``01,32,,<20-digit number>,<amount>,<date>,,<CRC>``) the amount is the
        tax-inclusive total, so it is given as ``total`` and ``subtotal`` is ``None``.
    """
    if not payload:
        return None
    parts = [p.strip() for p in payload.strip().split(",")]
    if len(parts) < 7 or parts[0] != "01":
        return None
    kind, code, number, amount, date, check = parts[1:7]
    crc = parts[7] if len(parts) > 7 and parts[7] else None
    if not re.fullmatch(r"\d{2}", kind) or not re.fullmatch(r"\d{8}|\d{20}", number):
        return None
    if code and not re.fullmatch(r"\d{10}|\d{12}", code):
        return None
    if not re.fullmatch(r"\d{8}", date):
        return None
    iso = f"{date[:4]}-{date[4:6]}-{date[6:]}"
    value = None
    if amount:
        try:
            value = str(Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))  # two decimals, half up
        except InvalidOperation:
            return None
    # 数电票 (fully digital e-invoices, types 31/32, 20-digit number, no code): the amount is the
    # tax-inclusive total (价税合计); on the older invoices it is the amount before tax (合计金额).
    digital = kind in DIGITAL_TYPES or (len(number) == 20 and not code)
    return {
        "type": kind,
        "type_name": QR_INVOICE_TYPES.get(kind),
        "invoice_code": code or None,
        "invoice_number": number,
        "subtotal": None if digital else value,
        "total": value if digital else None,
        "date": iso,
        "check_code": check or None,
        "crc": crc,
    }
