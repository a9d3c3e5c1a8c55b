"""The invoice XML embedded in a PDF (Factur-X, ZUGFeRD 1.0/2.x, XRechnung in a PDF/A-3 container).

Factur-X 1.0 (FNFE-MPE / FeRD, identical to ZUGFeRD 2.x) puts the invoice as an embedded file named
``factur-x.xml`` (ZUGFeRD 2.0: ``zugferd-invoice.xml``; ZUGFeRD 1.0: ``ZUGFeRD-invoice.xml``;
XRechnung in a PDF: ``xrechnung.xml``), referenced from the catalog's ``/AF`` array (PDF/A-3,
ISO 19005-3, 6.8) and usually also listed in the ``/EmbeddedFiles`` name tree. Files are looked for in
that order: the name tree (PyMuPDF's embedded-file API), then the ``/AF`` file specifications (some
writers put the name tree in ``/Kids`` nodes MuPDF does not list). Other attachments (a delivery note
PDF, an image) are ignored; an XML attachment with another name is taken only if its root element is an
invoice.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["INVOICE_NAMES", "embedded_xml"]

INVOICE_NAMES = ("factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml", "order-x.xml")
"""Attachment names of the invoice XML (compared case-insensitively)."""

MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024


def _filespecs(doc: Any) -> list[int]:
    """xrefs of the file specifications in the catalog's ``/AF`` array."""
    out: list[int] = []
    try:
        kind, value = doc.xref_get_key(doc.pdf_catalog(), "AF")
    except Exception:  # a damaged catalog
        return out
    if kind == "array":
        out.extend(int(x) for x in re.findall(r"(\d+) 0 R", value))
    elif kind == "xref":
        try:
            out.extend(int(x) for x in re.findall(r"(\d+) 0 R", doc.xref_object(int(value.split()[0]))))
        except Exception:
            pass
    return out


def _filespec_stream(doc: Any, xref: int) -> tuple[str, bytes] | None:
    try:
        name = ""
        for key in ("UF", "F"):
            kind, value = doc.xref_get_key(xref, key)
            if kind == "string" and value:
                name = value
                break
        kind, ef = doc.xref_get_key(xref, "EF/F")
        if kind != "xref":
            kind, ef = doc.xref_get_key(xref, "EF/UF")
        if kind != "xref":
            return None
        stream = doc.xref_stream(int(ef.split()[0]))
        return (name, stream) if stream is not None else None
    except Exception:  # a damaged attachment: as if absent
        return None


def attachments(doc: Any) -> list[tuple[str, bytes]]:
    """Every embedded file of an open PyMuPDF document as ``(file name, bytes)`` (name tree, then /AF).

    Files larger than 20 MiB are skipped. Never raises for a damaged attachment (it is left out).
    """
    found: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    try:
        names = list(doc.embfile_names())
    except Exception:
        names = []
    for n in names:
        try:
            info = doc.embfile_info(n)
            if int(info.get("size") or 0) > MAX_ATTACHMENT_BYTES:
                continue
            data = doc.embfile_get(n)
        except Exception:
            continue
        fname = str(info.get("filename") or n)
        found.append((fname, data))
        seen.add(fname.lower())
    for xref in _filespecs(doc):
        got = _filespec_stream(doc, xref)
        if got and got[0].lower() not in seen and len(got[1]) <= MAX_ATTACHMENT_BYTES:
            found.append(got)
            seen.add(got[0].lower())
    return found


def embedded_xml(pdf: str | Path | Any) -> tuple[str, bytes] | None:
    """The invoice XML attached to a PDF, as ``(attachment name, bytes)``, or ``None``.

    Args:
        pdf: a path, or an open PyMuPDF document (left open).

    Raises:
        OSError / RuntimeError: the PDF cannot be opened (only when a path is given).
    """
    import pymupdf

    from desktop.core.mupdf import MUPDF_LOCK

    with MUPDF_LOCK:
        own = not hasattr(pdf, "embfile_names")
        doc: Any = pymupdf.open(str(pdf), filetype="pdf") if own else pdf
        try:
            files = attachments(doc)
        finally:
            if own:
                doc.close()
    named = [f for f in files if Path(f[0]).name.lower() in INVOICE_NAMES]
    if named:
        return named[0]
    xmls = [f for f in files if f[0].lower().endswith(".xml") or f[1].lstrip()[:5] == b"<?xml"]
    from desktop.core.einvoice.en16931 import is_cii, is_ubl
    from desktop.core.einvoice.xmlsafe import XmlError, parse_xml

    for name, data in xmls:
        try:
            root = parse_xml(data)
        except XmlError:
            continue
        if is_cii(root) or is_ubl(root):
            return name, data
    return None
