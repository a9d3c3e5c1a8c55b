"""Locate the data files in ``resources/`` both in a source checkout and in an installed wheel."""
from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def resources_dir() -> Path:
    """Return the folder holding ``doctypes/``, ``icons/`` and ``translations/``.

    A source checkout (or editable install) uses ``<repo>/resources``; a wheel installs the same
    files as the package ``desktop._resources``.

    Raises:
        FileNotFoundError: neither location exists (a broken installation).
    """
    checkout = Path(__file__).resolve().parent.parent / "resources"
    if (checkout / "doctypes").is_dir():
        return checkout
    try:
        import desktop._resources as pkg

        installed = Path(pkg.__file__).resolve().parent
        if (installed / "doctypes").is_dir():
            return installed
    except ImportError:
        pass
    raise FileNotFoundError(f"Shoebox resources not found (looked in {checkout} and desktop._resources)")
