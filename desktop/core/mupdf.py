"""The one lock around PyMuPDF.

PyMuPDF is not thread-safe ("PyMuPDF does not support running on multiple threads", PyMuPDF docs,
*Multiprocessing*), and the GUI may render a page for the viewer while a worker thread scans, so every
PyMuPDF call in Shoebox (page intake, e-invoice attachments, OFD and XML invoice views) is made under
:data:`MUPDF_LOCK`. It lives at the bottom of the layers so that every module reading PDFs can take it.
"""
from __future__ import annotations

import threading

__all__ = ["MUPDF_LOCK"]

MUPDF_LOCK = threading.RLock()
"""Serialises every PyMuPDF call; reentrant (a caller holding it may call a helper that takes it)."""
