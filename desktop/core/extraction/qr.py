"""QR codes on Chinese VAT invoices: decoding (zxing-cpp); the payload and its format (State
Taxation Administration) are :mod:`desktop.core.einvoice.vatqr`, whose
:func:`~desktop.core.einvoice.vatqr.parse_vat_qr` is re-exported here.
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
