"""The Qt-free core: intake, engines, field extraction, export.

Importing this package switches off every known phone-home path of the libraries we use
(see :mod:`desktop.core.offline`) before any of them is imported.
"""
from __future__ import annotations

from desktop.core import offline as _offline

_offline.enforce_offline_environment()
