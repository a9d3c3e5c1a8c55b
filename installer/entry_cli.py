"""Frozen entry point of the console executable ``shoebox`` (``shoebox scan ...``; no subcommand opens the window).

PyInstaller needs a script, not a ``[project.scripts]`` entry point, so this file mirrors
``shoebox = "desktop.cli:run"``. The offline switches are set before anything else is imported
(see desktop/core/offline.py: onnxruntime reads ``ORT_DISABLE_TELEMETRY`` at import time).
"""
from __future__ import annotations

from desktop.core.offline import enforce_offline_environment

enforce_offline_environment()

from desktop.cli import run  # noqa: E402  (after the offline switches)

run()
