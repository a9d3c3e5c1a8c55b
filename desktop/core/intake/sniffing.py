"""Format sniffing: what a file is, from its first bytes (the suffix is ignored)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.diagnostics import Code, diag

if TYPE_CHECKING:  # pragma: no cover
    pass
from desktop.core.intake.common import CorruptFileError, EmptyFileError, IntakeError, UnsupportedFormatError

_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs"}
_AVIF_BRANDS = {b"avif", b"avis"}
_GENERIC_HEIF_BRANDS = {b"mif1", b"msf1", b"mif2"}

# Recognised but unsupported signatures -> a helpful description.
_OTHER_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive or an Office document"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old-style Office document"),
    (b"\x00\x00\x00\x0cjP  \r\n\x87\n", "a JPEG 2000 image"),
    (b"\xff\x4f\xff\x51", "a JPEG 2000 image"),
    (b"%!PS", "a PostScript file"),
    (b"AT&TFORM", "a DjVu document"),
    (b"{\\rtf", "an RTF document"),
    (b"Rar!", "a RAR archive"),
    (b"\x1f\x8b", "a gzip archive"),
)


def _check_file(path: Path) -> int:
    """Check that ``path`` is a readable, non-empty file; returns its size in bytes.

    Raises:
        IntakeError: missing, a folder, or unreadable.
        EmptyFileError: 0 bytes.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise IntakeError(path, diag(Code.FILE_NOT_FOUND)) from None
    except PermissionError:
        raise IntakeError(path, diag(Code.PERMISSION_DENIED)) from None
    except OSError as exc:
        raise IntakeError(path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None
    if path.is_dir():
        raise IntakeError(path, diag(Code.IS_A_FOLDER))
    if st.st_size == 0:
        raise EmptyFileError(path, diag(Code.EMPTY_FILE))
    return st.st_size


def _read_head(path: Path, n: int = 1024) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except PermissionError:
        raise IntakeError(path, diag(Code.PERMISSION_DENIED)) from None
    except OSError as exc:
        raise IntakeError(path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None


def _sniff_bytes(head: bytes) -> str | None:
    """Format name for the first bytes of a file, or ``None``."""
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):  # classic TIFF and BigTIFF
        return "tiff"
    if head.startswith(b"BM") and len(head) >= 14:
        return "bmp"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[4:8] == b"ftyp":
        major = head[8:12]
        box_len = int.from_bytes(head[0:4], "big")
        compatible = {head[i:i + 4] for i in range(16, min(box_len, len(head)) - 3, 4)}
        brands = {major} | compatible
        if major in _HEIF_BRANDS or (major in _GENERIC_HEIF_BRANDS and brands & _HEIF_BRANDS):
            return "heif"
        if brands & _AVIF_BRANDS:
            return "avif"
        if major in _GENERIC_HEIF_BRANDS:
            return "heif"
        return None
    # PDF: "%PDF-" may follow some junk; readers accept it within the first 1024 bytes
    # (PDF 1.7, ISO 32000-1, Annex H.3 note 13 on the file header).
    if b"%PDF-" in head[:1024]:
        return "pdf"
    return None


#: The formats :func:`magic_format` names that intake reads (AVIF is recognised, and refused).
READABLE_MAGIC_FORMATS = frozenset({"jpeg", "png", "tiff", "bmp", "webp", "heif", "pdf"})


def magic_format(path: str | os.PathLike[str]) -> str | None:
    """The format named by a file's first bytes alone (:func:`sniff_format` without looking inside ZIP
    or XML files): ``"jpeg"``, ``"png"``, ``"tiff"``, ``"bmp"``, ``"webp"``, ``"heif"``, ``"avif"``,
    ``"pdf"``, or ``None`` for anything else (an OFD package, an XML invoice, an unreadable file).

    Nothing is parsed, so it is safe to call in the application's process on any file.
    """
    try:
        return _sniff_bytes(_read_head(Path(path)))
    except IntakeError:
        return None


def sniff_format(path: str | os.PathLike[str]) -> str:
    """Tell a file's format from its first bytes (magic numbers), ignoring its name.

    Args:
        path: the file.

    Returns:
        ``"jpeg"``, ``"png"``, ``"tiff"``, ``"bmp"``, ``"webp"``, ``"heif"`` or ``"pdf"``.

    Raises:
        IntakeError: the file is missing or cannot be read.
        EmptyFileError: the file is empty.
        UnsupportedFormatError: any other content (the message says what it looks like when known).
    """
    p = Path(path)
    _check_file(p)
    head = _read_head(p)
    if not head:
        raise EmptyFileError(p, diag(Code.EMPTY_FILE))
    fmt = _sniff_bytes(head)
    if fmt is None:
        fmt = _sniff_einvoice(p, head)
    if fmt == "avif":
        raise UnsupportedFormatError(p, diag(Code.UNSUPPORTED_AVIF))
    if fmt is not None:
        return fmt
    for magic, what in _OTHER_SIGNATURES:
        if head.startswith(magic):
            raise UnsupportedFormatError(p, diag(Code.UNSUPPORTED_KIND, kind=what))
    if _looks_like_text(head):
        raise UnsupportedFormatError(p, diag(Code.UNSUPPORTED_TEXT_FILE))
    raise UnsupportedFormatError(p, diag(Code.UNRECOGNISED_CONTENT))


def _sniff_einvoice(path: Path, head: bytes) -> str | None:
    """``"ofd"`` for an OFD package (a ZIP with ``OFD.xml``), ``"xml"`` for an XML e-invoice (CII, UBL or
    Chinese e-invoice XML, by its root element), else ``None``.

    Raises:
        CorruptFileError: an XML file that is hostile or malformed, or an XML file that is not an invoice
            (the message says what its root element is).
    """
    from desktop.core import einvoice
    from desktop.core.einvoice import ofd

    if head.startswith(b"PK\x03\x04"):
        return "ofd" if ofd.is_ofd(path) else None
    if not einvoice.looks_like_xml(head):
        return None
    try:
        einvoice.read_xml(path.read_bytes())
    except einvoice.EInvoiceError as exc:
        if exc.not_an_invoice:
            raise UnsupportedFormatError(path, diag(Code.XML_NOT_AN_INVOICE, detail=exc.reason)) from None
        raise CorruptFileError(path, diag(Code.XML_INVOICE_UNREADABLE, detail=exc.reason)) from None
    except OSError as exc:
        raise IntakeError(path, diag(Code.FILE_UNREADABLE, detail=str(exc.strerror or exc))) from None
    return "xml"


def _looks_like_text(head: bytes) -> bool:
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a multi-byte character cut at the end of the sample is still text
        if exc.start < len(head) - 4:
            return False
    return True
