"""Page previews kept with the session, so that a page appears at once after a restart.

Opening and decoding a page again (a 12-megapixel photo, a PDF rendered in its worker process) takes
seconds on a slow computer; until then the viewer could only show the outlines of the recognised lines
on a white sheet. The first time a page is shown, its picture is reduced to at most
:data:`PREVIEW_MAX_SIDE` pixels on its longer side, encoded as JPEG (quality
:data:`PREVIEW_QUALITY`) and stored in the session database
(:meth:`desktop.core.session.SessionStore.put_preview`). After a restart the viewer shows the preview
straight away, under the outlines, and swaps in the full picture when it has loaded; the queue's
thumbnails come from the previews too.
"""
from __future__ import annotations

import logging
import sqlite3

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QImage

from desktop.core.session import SessionStore

log = logging.getLogger(__name__)

PREVIEW_MAX_SIDE = 1200
"""Longest side of a stored preview, in pixels: sharp enough to recognise the page and read its large
print at the viewer's fit-to-width zoom on a laptop screen, about 60-150 kB as JPEG."""
PREVIEW_QUALITY = 80
"""JPEG quality of a preview (Qt's scale, 0-100)."""


def encode_preview(image: QImage) -> bytes:
    """``image`` reduced to :data:`PREVIEW_MAX_SIDE` and encoded as JPEG (empty when it cannot be)."""
    if image.isNull():
        return b""
    if max(image.width(), image.height()) > PREVIEW_MAX_SIDE:
        image = image.scaled(PREVIEW_MAX_SIDE, PREVIEW_MAX_SIDE, Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    ok = image.convertToFormat(QImage.Format.Format_RGB32).save(buffer, "JPEG", PREVIEW_QUALITY)
    buffer.close()
    return bytes(data.data()) if ok else b""


class PreviewCache:
    """The previews of one session store (see the module docstring).

    Args:
        store: the session; a store that cannot be written (read-only disk) just keeps no previews.
    """

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def get(self, source: str, page: int, rotation: int = 0) -> QImage | None:
        """The stored preview of that page, decoded, or ``None``."""
        try:
            data = self.store.preview(source, page, rotation)
        except sqlite3.Error:
            return None
        if not data:
            return None
        image = QImage.fromData(data)
        return None if image.isNull() else image

    def put(self, source: str, page: int, rotation: int, image: QImage) -> None:
        """Store a preview of ``image`` unless one is stored already."""
        try:
            if self.store.has_preview(source, page, rotation):
                return
            data = encode_preview(image)
            if data:
                self.store.put_preview(source, page, rotation, data)
        except sqlite3.Error as exc:  # a full or read-only disk: the app works without previews
            log.warning("page preview not stored: %s", exc)
