"""Entry point of the desktop app: ``shoebox`` (no subcommand) or ``shoebox FILE...``.

Start-up is kept light: nothing here imports torch, onnxruntime, rapidocr or a model. The window is
shown first; the OCR engine is created and warmed up afterwards in the reading thread, with its state
in the status bar.

``SHOEBOX_STARTUP_PROBE=<file>``: when the main window is first shown, write
``<unix time> <heavy modules already imported or ->`` to the file and print ``SHOEBOX_WINDOW_SHOWN``
(used by ``benchmarks/bench_startup.py``). ``SHOEBOX_EXIT_WHEN_SHOWN=1`` quits right after.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys

from desktop import __version__
from desktop.core.offline import enforce_offline_environment


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="shoebox", description="Shoebox desktop app: read, check and export "
                                     "receipts and invoices.")
    parser.add_argument("files", nargs="*", help="files or folders to queue and read")
    parser.add_argument("--version", action="version", version=f"Shoebox {__version__}")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Open the main window, queue ``argv``'s files, run until the window closes; returns the exit code."""
    enforce_offline_environment()
    args = parse_args(sys.argv[1:] if argv is None else list(argv))
    logging.basicConfig(level=os.environ.get("SHOEBOX_LOG", "WARNING"))

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.core.settings import Settings
    from desktop.gui.resources import icon, install_translators, resolve_language

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "shoebox"])
    app.setApplicationName("Shoebox")
    app.setApplicationDisplayName("Shoebox")
    app.setApplicationVersion(__version__)
    app.setOrganizationName("Shoebox")
    app.setDesktopFileName("shoebox")
    app.setWindowIcon(icon("shoebox"))
    settings = Settings.load()
    language = resolve_language(settings.ui_language)
    translators = install_translators(app, language)  # noqa: F841 - kept alive until exit

    from desktop.gui.mainwindow import MainWindow

    window = MainWindow(settings=settings, language=language)
    window.show()
    if args.files:
        window.add_paths(args.files)
    if os.environ.get("SHOEBOX_EXIT_WHEN_SHOWN"):
        window.shown_first.connect(lambda: QTimer.singleShot(0, window.close))
    return int(app.exec())


if __name__ == "__main__":
    raise SystemExit(main())
