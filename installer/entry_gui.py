"""Frozen entry point of the windowed executable ``Shoebox`` (mirrors ``shoebox-gui = "desktop.gui.app:main"``).

Files passed on the command line (file manager "Open with Shoebox", ``shoebox-gui %F``) are queued
by the app. The offline switches are set before any engine library is imported.
"""
from __future__ import annotations

import sys

from desktop.core.offline import enforce_offline_environment

enforce_offline_environment()

from desktop.gui.app import main  # noqa: E402  (after the offline switches)

sys.exit(main())
