"""Entry point of the desktop app: ``shoebox`` (no subcommand) or ``shoebox FILE...``.

Start-up is kept light: nothing here imports torch, onnxruntime, rapidocr or a model. The window is
shown first; the OCR engine is created and warmed up afterwards in the reading thread, with its state
in the status bar.

``SHOEBOX_STARTUP_PROBE=<file>``: when the main window is first shown, write
``<unix time> <heavy modules already imported or ->`` to the file and print ``SHOEBOX_WINDOW_SHOWN``
(used by ``benchmarks/bench_startup.py``). ``SHOEBOX_EXIT_WHEN_SHOWN=1`` quits right after.

Stopping from a terminal: SIGINT (Ctrl+C) and SIGTERM close the window the normal way (geometry and
session saved, the reading thread asked to stop and waited for) and the process exits with
``128 + signal number`` (130 for Ctrl+C, the shell convention), without a traceback. A second signal
while closing takes the default action (immediate termination).

Single instance: one app per user data folder (``SHOEBOX_HOME``); a second ``shoebox FILE...`` hands
its files to the running window over a local socket and exits 0 (:mod:`desktop.gui.single`).
``SHOEBOX_MULTI_INSTANCE=1`` turns the guard off (benchmarks that start many windows).
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from desktop import __version__
from desktop.core.offline import enforce_offline_environment

log = logging.getLogger(__name__)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="shoebox", description="Shoebox desktop app: read, check and export "
                                     "receipts and invoices.")
    parser.add_argument("files", nargs="*", help="files or folders to queue and read")
    parser.add_argument("--version", action="version", version=f"Shoebox {__version__}")
    return parser.parse_args(argv)


SIGNAL_POLL_MS = 200
"""How often the Qt event loop hands control back to Python so that its signal handlers can run
(CPython only runs them between bytecodes, never while the loop sits in C++ waiting for events)."""


def install_stop_signals(app: Any, close: Any) -> Any:
    """Make SIGINT/SIGTERM call ``close()`` from the Qt event loop; returns the poll timer (keep it).

    Args:
        app: the ``QApplication``; ``app.property("shoebox_exit_code")`` receives ``128 + signum``.
        close: what a signal does (closes the window, which quits the app); run from a queued call,
            so it never runs inside whatever Qt code the handler interrupted.
    """
    from PySide6.QtCore import QTimer

    def handler(signum: int, _frame: Any) -> None:
        # the second Ctrl+C while the engine finishes its page ends the process the hard way
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_DFL)
        app.setProperty("shoebox_exit_code", 128 + signum)
        log.info("signal %d: closing", signum)
        QTimer.singleShot(0, close)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    timer = QTimer(app)
    timer.setObjectName("signal_poll")
    timer.timeout.connect(lambda: None)
    timer.start(SIGNAL_POLL_MS)
    return timer


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
    from desktop.gui.single import InstanceServer, send_to_running

    # one app per user data folder: a second start hands its files to the running window and leaves
    if os.environ.get("SHOEBOX_MULTI_INSTANCE") != "1" and send_to_running(list(args.files)):
        log.info("handed %d file(s) to the running Shoebox", len(args.files))
        return 0
    instance = InstanceServer(parent=app)
    instance.listen()

    settings = Settings.load()
    language = resolve_language(settings.ui_language)
    translators = install_translators(app, language)  # noqa: F841 - kept alive until exit

    from desktop.gui.mainwindow import MainWindow

    window = MainWindow(settings=settings, language=language)

    def close() -> None:
        window.close()
        app.quit()

    poll = install_stop_signals(app, close)  # noqa: F841 - kept alive until exit
    # however the loop ends (last window closed, app.quit(), a signal), the threads stop first
    app.aboutToQuit.connect(window.shutdown)
    window.show()
    if args.files:  # the files it was started with are what the clerk wants to see, not the restored selection
        window.add_paths(args.files, show=True)

    def from_another_start(files: list[str]) -> None:
        if files:
            window.add_paths(files, show=True)
        if window.isMinimized():
            window.showNormal()
        window.raise_()
        window.activateWindow()

    instance.files_received.connect(from_another_start)
    if os.environ.get("SHOEBOX_EXIT_WHEN_SHOWN"):
        window.shown_first.connect(lambda: QTimer.singleShot(0, window.close))
    code = int(app.exec())
    instance.close()  # a start from now on becomes the app itself
    window.shutdown()  # no-op when done already
    code = code or int(app.property("shoebox_exit_code") or 0)
    if window.threads_running():
        # a thread that would not stop in time: leaving through Python would destroy the running
        # QThread and abort; the session is already saved, so end the process directly.
        log.error("a worker thread did not stop; exiting without waiting for it")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
