"""Parsing untrusted XML: no entities, no DTDs, no network, bounded size.

E-invoice XML comes from outside (a supplier, a portal, an attachment inside a PDF or OFD package), so
it is parsed as hostile input:

- a document with a ``<!DOCTYPE`` is refused before parsing: EN 16931 syntaxes (CII D16B, UBL 2.1),
  ZUGFeRD 1.0 and the Chinese e-invoice schemas are defined by XML Schema and never need a DTD, while a
  DTD is what carries the "billion laughs" entity expansion and external entities (XXE, OWASP XML
  External Entity Prevention Cheat Sheet);
- the lxml parser is configured anyway with ``resolve_entities=False``, ``no_network=True``,
  ``load_dtd=False``, ``dtd_validation=False`` and ``huge_tree=False`` (libxml2's own limits on depth
  and text node size stay on), so nothing is fetched or expanded even if the check above were bypassed;
- files over :data:`MAX_XML_BYTES` are refused unread.
"""
from __future__ import annotations

import re

from lxml import etree

__all__ = ["MAX_XML_BYTES", "XmlError", "local", "parse_xml"]

MAX_XML_BYTES: int = 20 * 1024 * 1024
"""Largest XML invoice read (20 MiB). The largest invoice in the EN 16931 and XRechnung test suites is
well under 1 MiB; a 20 MiB bound leaves room for thousands of lines while a huge file cannot exhaust
memory (lxml holds a tree of several times the file size)."""

_DOCTYPE = re.compile(rb"<!DOCTYPE|<!ENTITY", re.I)


class XmlError(ValueError):
    """The bytes are not a safe, well-formed XML document (the message says why, in plain words)."""


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                           huge_tree=False, remove_comments=True, remove_pis=True)


def parse_xml(data: bytes) -> etree._Element:
    """Parse untrusted XML bytes into an element tree.

    Args:
        data: the document's bytes (any encoding its XML declaration names).

    Returns:
        The root element.

    Raises:
        XmlError: empty, larger than :data:`MAX_XML_BYTES`, carrying a DTD or entity declaration, or
            not well-formed XML (the reason is the parser's first error, line and column included).
    """
    if not data or not data.strip():
        raise XmlError("the XML is empty")
    if len(data) > MAX_XML_BYTES:
        raise XmlError(f"the XML is too large ({len(data) / 1048576:.1f} MiB; at most {MAX_XML_BYTES // 1048576} MiB are read)")
    if _DOCTYPE.search(data[:65536]) or (len(data) > 65536 and _DOCTYPE.search(data)):
        raise XmlError("the XML declares a DOCTYPE or entities, which e-invoices never need; it was not read "
                       "(it could expand to gigabytes or read other files)")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise XmlError(f"the XML is not well-formed ({exc.msg or exc})") from None
    if root is None:
        raise XmlError("the XML has no root element")
    return root


def local(el: etree._Element) -> str:
    """Local name of an element (``Invoice`` for ``{urn:...:Invoice-2}Invoice``); ``""`` for comments."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]
