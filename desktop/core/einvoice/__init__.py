"""E-invoices: the invoice's own structured data, read as the authoritative source of its fields.

What is read
------------
- PDFs with an embedded invoice XML (Factur-X / ZUGFeRD 1.0 and 2.x / XRechnung in a PDF):
  :mod:`desktop.core.einvoice.facturx` finds the attachment, :mod:`desktop.core.einvoice.en16931` maps it.
- Plain XML invoices (XRechnung UBL or CII, PEPPOL BIS Billing 3.0, Factur-X XML): recognised by their
  root element and namespace (:func:`xml_kind`).
- Chinese e-invoices: OFD packages (GB/T 33190-2016) with their embedded invoice XML, metadata and QR
  code, and the Chinese e-invoice XML itself (:mod:`desktop.core.einvoice.cn`, :mod:`desktop.core.einvoice.ofd`).

All XML goes through :func:`desktop.core.einvoice.xmlsafe.parse_xml` (no DTDs, entities or network).

How it is used
--------------
:func:`read_structured` returns an :class:`~desktop.core.einvoice.data.EInvoice` for a file (or ``None``),
and :func:`desktop.core.structured.apply_to_document` (a layer above field extraction) lets its values
override the fields read from the page, then checks the printed page against them: a value printed
differently is a problem on that field (``needs_review``), so a tampered or mismatched PDF never passes
silently.

This package reads file formats only (it sits below page intake and field extraction, which both use
it): XML through :mod:`desktop.core.einvoice.xmlsafe`, PDF attachments and the pages drawn for OFD and
XML invoices through PyMuPDF under :data:`desktop.core.mupdf.MUPDF_LOCK`.
"""
from __future__ import annotations

import logging
from pathlib import Path

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.einvoice.data import EInvoice

__all__ = ["EInvoice", "EInvoiceError", "XmlError", "read_structured", "read_xml", "xml_kind"]

log = logging.getLogger(__name__)


def __getattr__(name: str) -> object:
    # xmlsafe (lxml) is imported when XML is read: :func:`structured_for` of an image, which the engine
    # worker runs for every file, needs neither (lxml.etree: about 10 ms of CPU after the page)
    if name == "XmlError":
        from desktop.core.einvoice.xmlsafe import XmlError

        return XmlError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class EInvoiceError(ValueError):
    """An e-invoice's data could not be read (hostile, malformed or not an invoice).

    Attributes:
        reason: why, in plain words (also ``str(error)``).
        not_an_invoice: the XML is well-formed but its root element is not an invoice Shoebox reads.
    """

    def __init__(self, reason: str, *, not_an_invoice: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.not_an_invoice = not_an_invoice


def xml_kind(root) -> str | None:
    """``"cii"``, ``"ubl"``, ``"cn"`` (Chinese e-invoice XML) or ``None`` for any other root element."""
    from desktop.core.einvoice import cn
    from desktop.core.einvoice.en16931 import is_cii, is_ubl

    if is_cii(root):
        return "cii"
    if is_ubl(root):
        return "ubl"
    if cn.is_cn_invoice(root):
        return "cn"
    return None


def read_xml(data: bytes, origin: str = "") -> EInvoice:
    """Read invoice XML bytes (CII, UBL or Chinese e-invoice XML).

    Args:
        data: the XML document.
        origin: where it came from, for :attr:`EInvoice.origin` (``"factur-x.xml embedded in the PDF"``).

    Raises:
        EInvoiceError: hostile or malformed XML (:class:`XmlError`'s reason), or a root element that is
            not an invoice of a supported syntax (named in the message).
    """
    from desktop.core.einvoice import cn
    from desktop.core.einvoice.en16931 import read_cii, read_ubl
    from desktop.core.einvoice.xmlsafe import XmlError, local, parse_xml

    try:
        root = parse_xml(data)
    except XmlError as exc:
        raise EInvoiceError(str(exc)) from None
    kind = xml_kind(root)
    if kind == "cii":
        inv = read_cii(root)
    elif kind == "ubl":
        inv = read_ubl(root)
    elif kind == "cn":
        inv = cn.read_cn_xml(root)
    else:
        ns = root.tag[1:].split("}", 1)[0] if isinstance(root.tag, str) and root.tag.startswith("{") else ""
        where = f" in namespace {ns}" if ns else " without a namespace"
        raise EInvoiceError(f"root element <{local(root)}>{where}; expected a CII CrossIndustryInvoice, a UBL "
                            "Invoice/CreditNote or a Chinese e-invoice", not_an_invoice=True)
    inv.origin = origin
    return inv


def read_structured(path: str | Path) -> EInvoice | None:
    """The structured invoice data a file carries, or ``None`` when it carries none.

    Args:
        path: a PDF (embedded XML), an XML invoice or an OFD package (sniffed by content).

    Returns:
        The data, or ``None`` (a PDF without invoice XML, an image, an OFD without invoice data).

    Raises:
        EInvoiceError: the file carries invoice data that cannot be read (malformed or hostile XML); the
            message names the attachment.
    """
    p = Path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    # The readers are imported by kind of file (ofd: about 40 ms of CPU): an image, the usual file,
    # needs neither, and this runs at the start of every document.
    if b"%PDF-" in head[:1024]:
        from desktop.core.einvoice import facturx

        try:
            found = facturx.embedded_xml(p)
        except Exception as exc:  # an unreadable PDF is intake's to report
            log.debug("no embedded XML in %s: %s", p.name, exc)
            return None
        if found is None:
            return None
        name, data = found
        try:
            return read_xml(data, origin=f"{name} embedded in the PDF")
        except EInvoiceError as exc:
            raise EInvoiceError(f"the invoice XML embedded in the PDF ({name}) cannot be read: {exc}") from None
    if head.startswith(b"PK\x03\x04"):
        from desktop.core.einvoice import ofd

        if not ofd.is_ofd(p):
            return None
        return ofd.read_invoice_data(p)
    if looks_like_xml(head):
        return read_xml(p.read_bytes(), origin="the XML file")
    return None


def looks_like_xml(head: bytes) -> bool:
    """Whether a file's first bytes look like an XML document (declaration or a root start tag)."""
    h = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if h.startswith((b"\xff\xfe", b"\xfe\xff")):
        return b"<\x00" in h[:8] or b"\x00<" in h[:8]
    return h.startswith(b"<?xml") or (h.startswith(b"<") and not h.startswith((b"<!", b"<html", b"<HTML")))


def structured_for(path: str | Path) -> tuple[EInvoice | None, Diagnostic | None]:
    """:func:`read_structured` that never raises: ``(data or None, problem or None)``.

    The problem is a diagnostic for the document's notes (code ``einvoice_unreadable``: "the invoice XML
    embedded in the PDF (factur-x.xml) cannot be read: the XML is not well-formed (...)"); the pages are
    then read as any other file.
    """
    try:
        return read_structured(path), None
    except EInvoiceError as exc:
        return None, diag(Code.EINVOICE_UNREADABLE, detail=str(exc))
    except Exception as exc:
        log.exception("reading the e-invoice data of %s failed", Path(path).name)
        return None, diag(Code.EINVOICE_UNREADABLE, detail=f"{type(exc).__name__}: {exc}")
