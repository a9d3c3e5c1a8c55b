"""QR codes on Chinese VAT invoices: decoding (zxing-cpp); the payload is parsed by
:func:`desktop.core.einvoice.vatqr.parse_vat_qr` (re-exported here).

Payload format (State Taxation Administration, VAT invoice QR code as printed on 增值税专用发票,
增值税普通发票 and 增值税电子普通发票; also what the national invoice verification platform
https://inv-veri.chinatax.gov.cn reads)::

    01,<type>,<invoice code>,<invoice number>,<amount before tax>,<YYYYMMDD>,<check code>,<crc>,

``type``: ``01`` special VAT invoice (增值税专用发票), ``04`` ordinary (普通发票), ``10`` electronic
ordinary (电子普通发票), ``11`` roll (卷票), ``14`` toll e-invoice (通行费), ``08`` electronic special,
``31``/``32`` fully digital (全电) special/ordinary. The check code is empty on special invoices.
Fully digital invoices leave the code empty and carry a 20-digit number.
"""
from __future__ import annotations

import numpy as np

from desktop.core.einvoice.vatqr import DIGITAL_TYPES, QR_INVOICE_TYPES, parse_vat_qr

__all__ = ["DIGITAL_TYPES", "QR_INVOICE_TYPES", "decode_qr", "parse_vat_qr"]


def _read(image: np.ndarray) -> list[str]:
    import zxingcpp

    try:
        results = zxingcpp.read_barcodes(np.ascontiguousarray(image), formats=zxingcpp.BarcodeFormat.QRCode)  # type: ignore[arg-type]  # one format is accepted
    except TypeError:  # older zxing-cpp without the keyword
        results = zxingcpp.read_barcodes(np.ascontiguousarray(image))
    return [r.text for r in results if r.text and r.valid]


def decode_qr(image: np.ndarray) -> list[str]:
    """Payload texts of every QR code on a page image.

    The whole page is tried first; if nothing is found, the top-left quarter (where Chinese VAT
    invoices print their small QR code) is upscaled 2x and tried again.

    Args:
        image: ``(H, W, 3)`` uint8 RGB or ``(H, W)`` grey page image.

    Returns:
        Distinct payloads in the order found (empty list when none, or when zxing-cpp is missing).
    """
    try:
        import zxingcpp  # noqa: F401
    except ImportError:  # pragma: no cover - zxing-cpp is a declared dependency
        return []
    if image is None or image.size == 0:
        return []
    found = _read(image)
    if not found:
        h, w = image.shape[:2]
        quarter = image[: max(1, h // 2), : max(1, w // 2)]
        up = np.repeat(np.repeat(quarter, 2, axis=0), 2, axis=1)
        found = _read(up)
    out: list[str] = []
    for t in found:
        if t not in out:
            out.append(t)
    return out
