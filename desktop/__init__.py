"""Shoebox: an offline desktop document scanner.

Sub-packages:
    desktop.core   intake, engines, field extraction, export (imports no Qt)
    desktop.gui    the PySide6 desktop app
"""
from __future__ import annotations

__version__ = "0.1.0"
