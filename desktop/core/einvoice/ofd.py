"""OFD packages (GB/T 33190-2016, "Electronic files storage and exchange formats -- Fixed layout
documents"): pages drawn for the viewer, their text with positions, and the invoice data inside.

An OFD file is a ZIP package: ``OFD.xml`` (the entry point: ``DocBody/DocRoot`` names the document,
``DocInfo/CustomDatas`` may carry invoice metadata such as 发票号码), the document's ``Document.xml``
(``CommonData/PageArea/PhysicalBox`` in millimetres, template pages, resources, the page list,
attachments and custom tags), one ``Content.xml`` per page and per template page, and resources (fonts,
images). Page content is layers of text objects (``TextObject/TextCode`` with ``X``, ``Y``, ``DeltaX``,
``DeltaY`` glyph positions), path objects (``AbbreviatedData``: ``M``/``S`` move, ``L`` line, ``B`` cubic
and ``Q`` quadratic Bézier, ``A`` arc, ``C`` close) and image objects, each placed by its ``Boundary``
(x y w h, mm) and optional ``CTM`` (a b c d e f), as in GB/T 33190-2016 sections 7.4 (pages), 8.2
(graphic units), 9 (paths), 10 (images) and 11 (text).

Rendering (:func:`to_pdf`): each page is redrawn with PyMuPDF into a PDF page of the same size (1 mm =
72/25.4 pt): text in the built-in CJK font (Droid Sans Fallback, which covers Latin, digits and CJK), so no
text is dropped whatever fonts the computer or the package has; paths stroked and filled (a QR code
drawn as vectors renders and decodes); PNG/JPEG/BMP/TIFF images placed. The PDF's text layer then
holds every character at its position, which is what Shoebox reads ("OFD text"), never OCR. JBIG2
images (``.jb2``) cannot be placed by PyMuPDF: they are left out with a page warning. Kangxi radical
code points used by some converters for ordinary characters (U+2F26 "⼦" for 子) are mapped to the
unified ideographs (Unicode compatibility decomposition, NFKC) so the text matches the printed words.

Invoice data (:func:`read_invoice_data`): an attachment that is invoice XML (``Attachs``: the 2019
``eInvoice`` XML of the tax authority's e-invoice platform, an XBRL invoice, or an EN 16931 XML), then
``OFD.xml``'s ``CustomData`` (发票代码, 发票号码, 开票日期, 校验码, 合计金额, 合计税额, tax IDs), then the
custom tags (``Tags/CustomTag.xml``: invoice element -> page text object IDs) resolved to the page text.

Safety: the package is read member by member with size limits (:data:`MAX_MEMBER_BYTES`, a ZIP bomb
cannot exhaust memory), all XML through :func:`desktop.core.einvoice.xmlsafe.parse_xml`, and member
paths are only ever looked up inside the archive.
"""
from __future__ import annotations

import io
import logging
import math
import os
import re
import threading
import unicodedata
import zipfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lxml import etree

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.einvoice.data import EInvoice
from desktop.core.einvoice.xmlsafe import XmlError, local, parse_xml

__all__ = ["MAX_MEMBER_BYTES", "MM_TO_PT", "OfdError", "OfdLine", "OfdRendering", "is_ofd", "page_count", "read_invoice_data", "to_pdf"]

log = logging.getLogger(__name__)

MM_TO_PT = 72.0 / 25.4
"""PDF points per millimetre (OFD's unit, GB/T 33190-2016 5.2)."""

MAX_MEMBER_BYTES = 50 * 1024 * 1024
"""Largest package member read (50 MiB uncompressed): an invoice's page XML is tens of kilobytes and its
images hundreds; a member claiming more is not decompressed."""

MAX_PAGES = 500
"""Most pages drawn from one package (a 100-line goods list runs to about 5 pages)."""

CJK_FONT = "china-s"
"""PyMuPDF's built-in CJK font (Droid Sans Fallback): Latin, digits, fullwidth forms and CJK ideographs."""

DEFAULT_LINE_WIDTH_MM = 0.353
"""Line width when neither the object nor its draw parameter gives one (GB/T 33190-2016 9.1: 0.353 mm)."""

_IMAGE_FORMATS = (b"\x89PNG", b"\xff\xd8\xff", b"BM", b"II*\x00", b"MM\x00*", b"GIF8")


class OfdError(ValueError):
    """The OFD package cannot be read (the message says what is wrong, in plain words)."""


def is_ofd(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an OFD package: a ZIP archive with an ``OFD.xml`` entry point (by content)."""
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.lstrip("/").lower() == "ofd.xml" for n in z.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


# -- the package ------------------------------------------------------------------------------------

class _Package:
    """Members of an OFD ZIP, looked up case-insensitively, read within size limits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise OfdError(f"the OFD file is damaged and cannot be opened ({exc})") from None
        self.names = {n.lstrip("/").lower(): n for n in self.zip.namelist() if not n.endswith("/")}

    def close(self) -> None:
        self.zip.close()

    def has(self, name: str) -> bool:
        return _norm(name).lower() in self.names

    def read(self, name: str) -> bytes:
        key = _norm(name).lower()
        real = self.names.get(key)
        if real is None:
            raise OfdError(f"the OFD package lacks {_norm(name)}")
        info = self.zip.getinfo(real)
        if info.file_size > MAX_MEMBER_BYTES:
            raise OfdError(f"{real} in the OFD package is too large ({info.file_size // 1048576} MiB)")
        try:
            with self.zip.open(real) as f:
                data = f.read(MAX_MEMBER_BYTES + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise OfdError(f"{real} in the OFD package is damaged ({exc})") from None
        if len(data) > MAX_MEMBER_BYTES:
            raise OfdError(f"{real} in the OFD package is too large")
        return data

    def xml(self, name: str) -> etree._Element:
        try:
            return parse_xml(self.read(name))
        except XmlError as exc:
            raise OfdError(f"{_norm(name)} in the OFD package cannot be read: {exc}") from None


def _norm(name: str) -> str:
    parts: list[str] = []
    for part in PurePosixPath(name.replace("\\", "/")).parts:
        if part in ("/", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)


def _join(base: str, loc: str) -> str:
    """A location relative to the folder of ``base`` (absolute when it starts with ``/``)."""
    loc = (loc or "").strip()
    if loc.startswith("/"):
        return _norm(loc)
    folder = str(PurePosixPath(base).parent)
    return _norm(f"{folder}/{loc}" if folder not in ("", ".") else loc)


def _kids(el: etree._Element | None, name: str) -> list[etree._Element]:
    return [c for c in el if local(c) == name] if el is not None else []


def _kid(el: etree._Element | None, name: str) -> etree._Element | None:
    found = _kids(el, name)
    return found[0] if found else None


def _text(el: etree._Element | None) -> str:
    return (el.text or "").strip() if el is not None else ""


def _floats(text: str | None) -> list[float]:
    out = []
    for tok in (text or "").split():
        try:
            out.append(float(tok))
        except ValueError:
            pass
    return out


@dataclass
class _Resources:
    fonts: dict[str, str] = field(default_factory=dict)
    images: dict[str, str] = field(default_factory=dict)  # resource ID -> member name
    draw_params: dict[str, etree._Element] = field(default_factory=dict)


@dataclass
class _Doc:
    root_name: str
    box: tuple[float, float, float, float]
    pages: list[tuple[str, str]]  # (page ID, member name)
    templates: dict[str, str]
    resources: _Resources
    attachments: list[tuple[str, str]]  # (name, member)
    custom_tags: list[str]
    custom_data: dict[str, str]


def _load_resources(pkg: _Package, res_name: str, res: _Resources) -> None:
    if not res_name or not pkg.has(res_name):
        return
    root = pkg.xml(res_name)
    base = root.get("BaseLoc", "")
    folder = _join(res_name, base) if base else str(PurePosixPath(res_name).parent)
    for el in root.iter():
        name = local(el)
        if name == "Font" and el.get("ID"):
            res.fonts[el.get("ID")] = el.get("FontName") or el.get("FamilyName") or ""
        elif name == "MultiMedia" and el.get("ID"):
            media = _text(_kid(el, "MediaFile"))
            if media:
                res.images[el.get("ID")] = _join(folder + "/x", media) if not media.startswith("/") else _norm(media)
        elif name == "DrawParam" and el.get("ID"):
            res.draw_params[el.get("ID")] = el


def _open_doc(pkg: _Package) -> _Doc:
    ofd = pkg.xml("OFD.xml")
    if local(ofd) != "OFD":
        raise OfdError(f"OFD.xml is not an OFD entry point (root element <{local(ofd)}>)")
    body = _kid(ofd, "DocBody")
    root_name = _norm(_text(_kid(body, "DocRoot")))
    if not root_name:
        raise OfdError("OFD.xml names no document (DocBody/DocRoot is missing)")
    custom: dict[str, str] = {}
    datas = _kid(_kid(body, "DocInfo"), "CustomDatas")
    for cd in (list(datas) if datas is not None else []):
        if local(cd) == "CustomData" and cd.get("Name"):
            custom[cd.get("Name").strip()] = _text(cd)
    doc = pkg.xml(root_name)
    common = _kid(doc, "CommonData")
    box = _floats(_text(_kid(_kid(common, "PageArea"), "PhysicalBox"))) or [0, 0, 210, 297]
    templates = {t.get("ID"): _join(root_name, t.get("BaseLoc", "")) for t in _kids(common, "TemplatePage") if t.get("ID")}
    res = _Resources()
    for tag in ("PublicRes", "DocumentRes"):
        for r in _kids(common, tag):
            _load_resources(pkg, _join(root_name, _text(r)), res)
    pages = [(p.get("ID", ""), _join(root_name, p.get("BaseLoc", ""))) for p in _kids(_kid(doc, "Pages"), "Page")]
    attachments: list[tuple[str, str]] = []
    att_loc = _text(_kid(doc, "Attachments"))
    if att_loc and pkg.has(_join(root_name, att_loc)):
        att_name = _join(root_name, att_loc)
        for a in pkg.xml(att_name).iter():
            if local(a) == "Attachment":
                loc = _text(_kid(a, "FileLoc"))
                if loc:
                    attachments.append((a.get("Name") or loc, _join(att_name, loc)))
    tags: list[str] = []
    tags_loc = _text(_kid(doc, "CustomTags"))
    if tags_loc and pkg.has(_join(root_name, tags_loc)):
        tags_name = _join(root_name, tags_loc)
        for t in pkg.xml(tags_name).iter():
            if local(t) == "CustomTag":
                loc = _text(_kid(t, "FileLoc"))
                if loc:
                    tags.append(_join(tags_name, loc))
    return _Doc(root_name, (box + [0, 0, 210, 297])[:4] if len(box) < 4 else tuple(box[:4]), pages, templates, res,  # type: ignore[arg-type]
                attachments, tags, custom)


# -- geometry ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Affine:
    """x' = a x + c y + e, y' = b x + d y + f (GB/T 33190-2016 8.2: CTM a b c d e f)."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    e: float = 0.0
    f: float = 0.0

    def apply(self, x: float, y: float) -> tuple[float, float]:
        return (self.a * x + self.c * y + self.e, self.b * x + self.d * y + self.f)

    def then(self, o: _Affine) -> _Affine:
        """This transform followed by ``o``."""
        return _Affine(o.a * self.a + o.c * self.b, o.b * self.a + o.d * self.b,
                       o.a * self.c + o.c * self.d, o.b * self.c + o.d * self.d,
                       o.a * self.e + o.c * self.f + o.e, o.b * self.e + o.d * self.f + o.f)

    @property
    def scale(self) -> float:
        return math.sqrt(abs(self.a * self.d - self.b * self.c)) or 1.0

    @property
    def angle(self) -> float:
        return math.degrees(math.atan2(self.b, self.a))


def _placement(el: etree._Element, outer: _Affine) -> _Affine:
    """Object space -> page millimetres: the CTM, then the Boundary's origin, then the enclosing block."""
    bx = _floats(el.get("Boundary"))
    ox, oy = (bx[0], bx[1]) if len(bx) >= 2 else (0.0, 0.0)
    ctm = _floats(el.get("CTM"))
    own = _Affine(*ctm) if len(ctm) == 6 else _Affine()
    return own.then(_Affine(e=ox, f=oy)).then(outer)


def _deltas(spec: str | None, count: int) -> list[float | None]:
    """Glyph advances from ``DeltaX``/``DeltaY`` (``g n d`` repeats ``d`` ``n`` times, GB/T 33190 11.3)."""
    out: list[float | None] = []
    toks = (spec or "").split()
    i = 0
    while i < len(toks) and len(out) < count:
        if toks[i] == "g" and i + 2 < len(toks):
            try:
                n, d = int(float(toks[i + 1])), float(toks[i + 2])
            except ValueError:
                break
            out.extend([d] * n)
            i += 3
        else:
            try:
                out.append(float(toks[i]))
            except ValueError:
                pass
            i += 1
    out = out[:count]
    return out + [None] * (count - len(out))


def _rgb(el: etree._Element | None) -> tuple[float, float, float] | None:
    if el is None:
        return None
    vals = _floats(el.get("Value"))
    if len(vals) >= 3:
        return (vals[0] / 255.0, vals[1] / 255.0, vals[2] / 255.0)
    if len(vals) == 1:  # grey
        return (vals[0] / 255.0,) * 3
    return None


JBIG2_MAGIC = b"\x97JB2\r\n\x1a\n"
"""ID string of a JBIG2 file (ITU-T T.88, D.4.1); OFD invoices store their QR code this way."""


def _jbig2_xobject(doc: Any, data: bytes) -> int | None:
    """A PDF image XObject (``/JBIG2Decode``, PDF 1.7 7.4.7) holding a JBIG2 file's page; its xref, or ``None``.

    The file header (ID string, flags, page count: T.88 D.4) is dropped, leaving the segments in the
    embedded organisation the PDF filter reads; width and height come from the first segment, the page
    information segment (type 48, T.88 7.4.8). Only single-page sequential files are taken.
    """
    if len(data) < 30:
        return None
    flags = data[8]
    if not flags & 0x01:  # random-access organisation: segment headers first, not handled
        return None
    body = data[9 + (0 if flags & 0x02 else 4):]
    # segment header (T.88 7.2): number (4), flags (1), referred-to count byte (1), page association
    # (1, or 4 when flag bit 6 is set), data length (4); then the page information data.
    seg_flags = body[4]
    if seg_flags & 0x3F != 48 or (body[5] >> 5) != 0:
        return None
    start = 6 + (4 if seg_flags & 0x40 else 1) + 4
    width = int.from_bytes(body[start:start + 4], "big")
    height = int.from_bytes(body[start + 4:start + 8], "big")
    if not (0 < width <= 20000 and 0 < height <= 20000):
        return None
    xref = doc.get_new_xref()
    doc.update_object(xref, f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} "
                            "/ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode >>")
    doc.update_stream(xref, body, compress=False)
    doc.xref_set_key(xref, "Filter", "/JBIG2Decode")
    return xref


def _unify(text: str) -> str:
    """Kangxi radicals / CJK radicals supplement -> unified ideographs (NFKC), the rest unchanged."""
    return "".join(unicodedata.normalize("NFKC", ch) if 0x2E80 <= ord(ch) <= 0x2FDF else ch for ch in text)


# -- drawing ----------------------------------------------------------------------------------------

@dataclass
class _Glyph:
    text: str
    x: float  # page mm (baseline origin)
    y: float
    size: float  # mm
    angle: float
    color: tuple[float, float, float]


@dataclass
class OfdLine:
    """One text code of an OFD page as a line of text: ``text``, its ``box`` and its ``words`` (text
    and box each, split at spaces); boxes ``(x0, y0, x1, y1)`` in page millimetres, y down."""

    text: str
    box: tuple[float, float, float, float]
    words: list[tuple[str, tuple[float, float, float, float]]]


ASCENT, DESCENT = 0.88, 0.12
"""Share of the font size above and below the baseline used for text boxes (Droid Sans Fallback's
ascender and descender, rounded)."""


def _glyph_box(x: float, y: float, size: float, advance: float, place: _Affine, ox: float, oy: float) -> list[tuple[float, float]]:
    return [place.apply(ox + dx, oy + dy) for dx, dy in ((0, -ASCENT * size), (advance, -ASCENT * size),
                                                           (0, DESCENT * size), (advance, DESCENT * size))]


def _hull(points: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


@dataclass
class _PageDraw:
    glyphs: list[_Glyph] = field(default_factory=list)
    lines: list[OfdLine] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    objects: dict[str, str] = field(default_factory=dict)  # text object ID -> its text


class _Drawer:
    def __init__(self, pkg: _Package, doc: _Doc, page: Any, pymupdf: Any) -> None:
        self.pkg, self.doc, self.page, self.pymupdf = pkg, doc, page, pymupdf
        self.out = _PageDraw()
        self.missing_images: set[str] = set()

    def pt(self, x: float, y: float) -> Any:
        return self.pymupdf.Point(x * MM_TO_PT, y * MM_TO_PT)

    def content(self, root: etree._Element) -> None:
        for layer in _kids(_kid(root, "Content"), "Layer"):
            self.block(layer, _Affine(), layer)

    def block(self, el: etree._Element, outer: _Affine, layer: etree._Element) -> None:
        for obj in el:
            kind = local(obj)
            if obj.get("Visible", "true").lower() == "false":
                continue
            try:
                if kind == "TextObject":
                    self.text(obj, outer, layer)
                elif kind == "PathObject":
                    self.path(obj, outer, layer)
                elif kind == "ImageObject":
                    self.image(obj, outer)
                elif kind == "PageBlock":
                    self.block(obj, outer, layer)
            except (ValueError, RuntimeError, OverflowError) as exc:  # one broken object, not the page
                self.out.warnings.append(diag(Code.OFD_OBJECT_NOT_DRAWN, kind=kind, detail=str(exc)))

    def _param(self, obj: etree._Element, layer: etree._Element, attr: str) -> Any:
        for holder in (obj,):
            if holder.get(attr) is not None:
                return holder.get(attr)
        for ref in (obj.get("DrawParam"), layer.get("DrawParam")):
            p = self.doc.resources.draw_params.get(ref or "")
            if p is not None and p.get(attr) is not None:
                return p.get(attr)
        return None

    def _color(self, obj: etree._Element, layer: etree._Element, name: str) -> tuple[float, float, float] | None:
        c = _rgb(_kid(obj, name))
        if c is not None:
            return c
        for ref in (obj.get("DrawParam"), layer.get("DrawParam")):
            p = self.doc.resources.draw_params.get(ref or "")
            if p is not None and _kid(p, name) is not None:
                return _rgb(_kid(p, name))
        return None

    def text(self, obj: etree._Element, outer: _Affine, layer: etree._Element) -> None:
        place = _placement(obj, outer)
        size = float(obj.get("Size") or 3.5)
        color = self._color(obj, layer, "FillColor") or (0.0, 0.0, 0.0)
        x = y = 0.0
        texts = []
        for code in _kids(obj, "TextCode"):
            # Leading/trailing white space is the XML's indentation (pretty-printed packages), not text:
            # the glyph positions (DeltaX) start at the first printed character.
            raw = _unify("".join(code.itertext()).strip("\r\n\t "))
            texts.append(raw)
            if code.get("X") is not None:
                x = float(code.get("X"))
            if code.get("Y") is not None:
                y = float(code.get("Y"))
            dxs = _deltas(code.get("DeltaX"), max(0, len(raw) - 1))
            dys = _deltas(code.get("DeltaY"), max(0, len(raw) - 1))
            words: list[tuple[str, list[tuple[float, float]]]] = []
            current: tuple[str, list[tuple[float, float]]] | None = None
            for i, ch in enumerate(raw):
                natural = size * (1.0 if ord(ch) > 0x2E80 else 0.55)
                dx = dxs[i] if i < len(raw) - 1 else None
                step: float = dx if dx is not None else natural
                if not ch.isspace():
                    px, py = place.apply(x, y)
                    self.out.glyphs.append(_Glyph(ch, px, py, size * place.scale, place.angle, color))
                    corners = _glyph_box(x, y, size, min(step, natural) if step > 0 else natural, place, x, y)
                    if current is None:
                        current = (ch, corners)
                    else:
                        current = (current[0] + ch, current[1] + corners)
                elif current is not None:
                    words.append(current)
                    current = None
                if i < len(raw) - 1:
                    x += step
                    y += dys[i] or 0.0
            if current is not None:
                words.append(current)
            if words:
                boxes = [(w, _hull(pts)) for w, pts in words]
                self.out.lines.append(OfdLine(" ".join(w for w, _ in boxes), _hull([c for _, pts in words for c in pts]), boxes))
        if obj.get("ID"):
            self.out.objects[obj.get("ID")] = "".join(texts)

    def path(self, obj: etree._Element, outer: _Affine, layer: etree._Element) -> None:
        place = _placement(obj, outer)
        data = _text(_kid(obj, "AbbreviatedData")).split()
        stroke = (obj.get("Stroke") or "true").lower() != "false"
        fill = (obj.get("Fill") or "false").lower() == "true"
        if not (stroke or fill) or not data:
            return
        if fill and _kid(obj, "Clips") is not None:
            # A filled area shaped by its clip path (a seal's ring drawn as a clipped rectangle):
            # clipping is not drawn, and filling the whole rectangle would hide the text under it.
            fill = False
            if not stroke:
                return
        width = float(self._param(obj, layer, "LineWidth") or DEFAULT_LINE_WIDTH_MM) * place.scale
        shape = self.page.new_shape()
        cur = start = None
        i = 0
        drew = False

        def nums(n: int) -> list[float]:
            vals = [float(v) for v in data[i + 1:i + 1 + n]]
            if len(vals) < n:
                raise ValueError("path data ends inside a command")
            return vals

        while i < len(data):
            op = data[i]
            if op in ("M", "S"):
                x, y = nums(2)
                cur = start = place.apply(x, y)
                i += 3
            elif op == "L":
                x, y = nums(2)
                p = place.apply(x, y)
                if cur is not None:
                    shape.draw_line(self.pt(*cur), self.pt(*p))
                    drew = True
                cur = p
                i += 3
            elif op == "B":
                v = nums(6)
                p1, p2, p3 = place.apply(v[0], v[1]), place.apply(v[2], v[3]), place.apply(v[4], v[5])
                if cur is not None:
                    shape.draw_bezier(self.pt(*cur), self.pt(*p1), self.pt(*p2), self.pt(*p3))
                    drew = True
                cur = p3
                i += 7
            elif op == "Q":
                v = nums(4)
                q1, p = place.apply(v[0], v[1]), place.apply(v[2], v[3])
                if cur is not None:  # a quadratic Bézier as the cubic with the same curve
                    c1 = (cur[0] + 2 / 3 * (q1[0] - cur[0]), cur[1] + 2 / 3 * (q1[1] - cur[1]))
                    c2 = (p[0] + 2 / 3 * (q1[0] - p[0]), p[1] + 2 / 3 * (q1[1] - p[1]))
                    shape.draw_bezier(self.pt(*cur), self.pt(*c1), self.pt(*c2), self.pt(*p))
                    drew = True
                cur = p
                i += 5
            elif op == "A":
                v = nums(7)
                p = place.apply(v[5], v[6])
                if cur is not None:  # arcs are rare on invoices (seal outlines): drawn as their chord
                    shape.draw_line(self.pt(*cur), self.pt(*p))
                    drew = True
                cur = p
                i += 8
            elif op == "C":
                if cur is not None and start is not None and cur != start:
                    shape.draw_line(self.pt(*cur), self.pt(*start))
                    drew = True
                cur = start
                i += 1
            else:
                i += 1
        if drew:
            stroke_color = (self._color(obj, layer, "StrokeColor") or (0.0, 0.0, 0.0)) if stroke else None
            fill_color = (self._color(obj, layer, "FillColor") or (0.0, 0.0, 0.0)) if fill else None
            shape.finish(color=stroke_color, fill=fill_color, width=max(width * MM_TO_PT, 0.1), closePath=False)
            shape.commit()

    def image(self, obj: etree._Element, outer: _Affine) -> None:
        member = self.doc.resources.images.get(obj.get("ResourceID") or "")
        if not member or not self.pkg.has(member):
            self.missing_images.add(obj.get("ResourceID") or "?")
            return
        data = self.pkg.read(member)
        place = _placement(obj, outer)
        corners = [place.apply(x, y) for x, y in ((0, 0), (1, 0), (0, 1), (1, 1))]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        rect = self.pymupdf.Rect(min(xs) * MM_TO_PT, min(ys) * MM_TO_PT, max(xs) * MM_TO_PT, max(ys) * MM_TO_PT)
        if data.startswith(JBIG2_MAGIC):
            xref = _jbig2_xobject(self.page.parent, data)
            if xref:
                self.page.insert_image(rect, xref=xref, keep_proportion=False)
                return
        if not data.startswith(_IMAGE_FORMATS):
            kind = PurePosixPath(member).suffix.lstrip(".").upper() or "unknown"
            self.out.warnings.append(diag(Code.OFD_IMAGE_NOT_SHOWN, kind=kind))
            return
        self.page.insert_image(rect, stream=data, keep_proportion=False)

    def finish(self) -> None:
        font = self.pymupdf.Font(CJK_FONT)
        writers: dict[tuple[float, float, float], Any] = {}
        for g in self.out.glyphs:
            size = max(g.size * MM_TO_PT, 0.5)
            turn = round(g.angle / 90.0) % 4
            if turn == 0:
                w = writers.get(g.color)
                if w is None:
                    w = writers[g.color] = self.pymupdf.TextWriter(self.page.rect)
                w.append(self.pt(g.x, g.y), g.text, font=font, fontsize=size)
            else:  # turned text (the vertical 购买方/销售方 labels): one glyph at a time
                self.page.insert_text(self.pt(g.x, g.y), g.text, fontsize=size, fontname=CJK_FONT,
                                      rotate=(-90 * turn) % 360, color=g.color)
        for color, w in writers.items():
            w.write_text(self.page, color=color)


# -- public API -------------------------------------------------------------------------------------

@dataclass
class OfdRendering:
    """An OFD package drawn as a PDF.

    Attributes:
        pdf: the PDF bytes, one page per OFD page, same size (mm -> pt).
        warnings: per 1-based page number, notes for the clerk (an image that could not be shown).
        objects: per page number, text object ID -> its text (for custom tags).
        lines: per page number, the page's text as :class:`OfdLine` (one per text code, page mm),
            taken from the page XML itself (not re-read from the PDF).
        page_ids: the OFD page IDs in order.
    """

    pdf: bytes
    warnings: dict[int, list[Diagnostic]]
    objects: dict[int, dict[str, str]]
    page_ids: list[str]
    lines: dict[int, list[OfdLine]] = field(default_factory=dict)


_CACHE: OrderedDict[tuple[str, int, int], OfdRendering] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 8


def _key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)


def to_pdf(path: str | os.PathLike[str]) -> OfdRendering:
    """Draw every page of an OFD package into a PDF (cached per file path, modification time and size).

    Raises:
        OfdError: not a readable OFD package (damaged ZIP, missing or malformed OFD.xml/Document.xml,
            no pages, a member too large); the message says which.
        OSError: the file cannot be read.
    """
    p = Path(path)
    key = _key(p)
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    rendering = _render(p)
    with _CACHE_LOCK:
        _CACHE[key] = rendering
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return rendering


def page_count(path: str | os.PathLike[str]) -> int:
    """Number of pages of an OFD package (its ``Document.xml`` page list).

    Raises:
        OfdError: as :func:`to_pdf`.
    """
    pkg = _Package(Path(path))
    try:
        return min(len(_open_doc(pkg).pages), MAX_PAGES)
    finally:
        pkg.close()


def _render(path: Path) -> OfdRendering:
    import pymupdf

    from desktop.core.mupdf import MUPDF_LOCK

    pkg = _Package(path)
    try:
        doc = _open_doc(pkg)
        if not doc.pages:
            raise OfdError("the OFD document has no pages")
        warnings: dict[int, list[Diagnostic]] = {}
        objects: dict[int, dict[str, str]] = {}
        lines: dict[int, list[OfdLine]] = {}
        with MUPDF_LOCK:
            out = pymupdf.open()
            try:
                for number, (_pid, member) in enumerate(doc.pages[:MAX_PAGES], start=1):
                    root = pkg.xml(member)
                    box = _floats(_text(_kid(_kid(root, "Area"), "PhysicalBox"))) or list(doc.box)
                    w, h = max(box[2], 1.0), max(box[3], 1.0)
                    page = out.new_page(width=w * MM_TO_PT, height=h * MM_TO_PT)
                    drawer = _Drawer(pkg, doc, page, pymupdf)
                    fore = []
                    for t in _kids(root, "Template"):
                        tpl = doc.templates.get(t.get("TemplateID") or "")
                        if tpl and pkg.has(tpl):
                            if (t.get("ZOrder") or "Background").lower() == "foreground":
                                fore.append(tpl)
                            else:
                                drawer.content(pkg.xml(tpl))
                    drawer.content(root)
                    for tpl in fore:
                        drawer.content(pkg.xml(tpl))
                    drawer.finish()
                    if drawer.missing_images:
                        drawer.out.warnings.append(diag(Code.OFD_IMAGE_MISSING))
                    warnings[number] = [w for i, w in enumerate(drawer.out.warnings) if w not in drawer.out.warnings[:i]]
                    objects[number] = drawer.out.objects
                    lines[number] = drawer.out.lines
                if len(doc.pages) > MAX_PAGES:
                    warnings.setdefault(MAX_PAGES, []).append(diag(Code.OFD_PAGES_CUT, shown=MAX_PAGES, pages=len(doc.pages)))
                out.subset_fonts()  # the CJK font is 3 MB whole; a page needs a few hundred glyphs
                data = out.tobytes(garbage=3, deflate=True)
            finally:
                out.close()
        return OfdRendering(pdf=data, warnings=warnings, objects=objects, page_ids=[pid for pid, _ in doc.pages],
                            lines=lines)
    finally:
        pkg.close()


def read_invoice_data(path: str | os.PathLike[str]) -> EInvoice | None:
    """The invoice data an OFD package carries (see the module docstring), or ``None`` when none.

    Raises:
        EInvoiceError: an attachment that is invoice XML cannot be read (hostile, malformed).
    """
    from desktop.core.einvoice import EInvoiceError, cn, read_xml, xml_kind

    p = Path(path)
    try:
        pkg = _Package(p)
    except OfdError as exc:  # intake reports an unreadable package; here it only carries no data
        log.warning("no invoice data read from %s: %s", p.name, exc)
        return None
    try:
        try:
            doc = _open_doc(pkg)
        except OfdError as exc:
            log.warning("no invoice data read from %s: %s", p.name, exc)
            return None
        inv: EInvoice | None = None
        for name, member in doc.attachments:
            if not member.lower().endswith(".xml") or not pkg.has(member):
                continue
            data = pkg.read(member)
            try:
                root = parse_xml(data)
            except XmlError as exc:
                raise EInvoiceError(f"the invoice XML attached to the OFD file ({name}) cannot be read: {exc}") from None
            if xml_kind(root) is not None:
                inv = read_xml(data, origin=f"{PurePosixPath(member).name} attached to the OFD file")
                break
        meta = cn.from_custom_data(doc.custom_data)
        tagged: dict[str, str] = {}
        if doc.custom_tags:
            try:
                rendering = to_pdf(p)
                texts = {oid: t for objs in rendering.objects.values() for oid, t in objs.items()}
            except (OfdError, OSError):
                texts = {}
            for tag in doc.custom_tags:
                if pkg.has(tag):
                    try:
                        tagged.update(cn.from_custom_tags(pkg.xml(tag), texts))
                    except OfdError:
                        continue
        return cn.combine(inv, meta, tagged, origin="the OFD file's metadata")
    finally:
        pkg.close()


def pdf_stream(rendering: OfdRendering) -> io.BytesIO:
    """The rendering's PDF as a stream (for libraries that want a file object)."""
    return io.BytesIO(rendering.pdf)


_SPACE = re.compile(r"\s+")
