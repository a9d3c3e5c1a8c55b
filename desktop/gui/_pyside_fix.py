"""Work around a reference-counting bug of PySide6 6.12.0 on Python < 3.12.

Every delivery of a *queued* signal (across threads, or ``Qt.QueuedConnection``) drops one reference to
``True`` that it never took (measured: 100 queued emissions of ``Signal(int)`` lower
``sys.getrefcount(True)`` by exactly 100; ``False``, ``None`` and small ints are unaffected). The
reading thread talks to the window only through queued signals, so after a few thousand of them --
one batch of files -- the count reaches zero and the interpreter aborts with ``Fatal Python error:
bool_dealloc: deallocating True or False`` (at the latest when the app exits, giving exit code 134).

Python 3.12 made ``True`` immortal (PEP 683), which makes the bug harmless. On older Pythons we do
what PEP 683 does by hand: give ``True`` a reference count so large that it can never reach zero.
pyproject.toml excludes PySide6-Essentials 6.12.0 (6.11.3 is unaffected: measured delta 0); this guard stays
for any other affected build a user's environment may hold. Extra references to ``True`` cost nothing (it is never
freed anyway), so this stays correct once
PySide6 is fixed. Verified by ``tests/test_gui_window.py::test_queued_signals_do_not_exhaust_true``.
"""
from __future__ import annotations

import ctypes
import sys

_HEADROOM = 1 << 40
"""References added to ``True``: a million queued signals a second would need 35 years to use them."""


def make_true_immortal() -> None:
    """Give ``True`` :data:`_HEADROOM` extra references (CPython < 3.12 only; once per process)."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    if getattr(sys, "_shoebox_true_pinned", False):
        return
    refcnt = ctypes.c_ssize_t.from_address(id(True))  # ob_refcnt is the first field of PyObject
    refcnt.value += _HEADROOM
    sys._shoebox_true_pinned = True  # type: ignore[attr-defined]
