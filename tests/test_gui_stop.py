"""Stopping the desktop app from a terminal: SIGINT / SIGTERM close it cleanly.

The app runs in a subprocess (offscreen) on a generated page, exactly as ``shoebox FILE`` would; the
signal arrives once the window is shown, while the OCR engine is still loading or reading.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

REPO = Path(__file__).resolve().parent.parent


def make_page(path: Path) -> Path:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (600, 400), "white")
    ImageDraw.Draw(image).text((40, 40), "TOTAL 12.50", fill="black")
    image.save(path)
    return path


def wait_for_line(proc: subprocess.Popen, text: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                return False
            buffer += chunk
            if text.encode() in buffer:
                return True
    return False


@pytest.mark.parametrize(
    ("signum", "group", "code"),
    [(signal.SIGINT, False, 130), (signal.SIGINT, True, 130), (signal.SIGTERM, False, 128 + signal.SIGTERM)],
    ids=["sigint", "ctrl-c-to-group", "sigterm"],
)
def test_signal_closes_the_app_cleanly(tmp_path, signum, group, code) -> None:
    page = make_page(tmp_path / "page.png")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SHOEBOX_STARTUP_PROBE=str(tmp_path / "probe.txt"))
    proc = subprocess.Popen([sys.executable, "-m", "desktop.gui", str(page)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        assert wait_for_line(proc, "SHOEBOX_WINDOW_SHOWN", 60), "the window did not show"
        if group:
            os.killpg(proc.pid, signum)  # what Ctrl+C in a terminal does
        else:
            proc.send_signal(signum)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    stderr = err.decode(errors="replace")
    assert proc.returncode == code, stderr
    for bad in ("Traceback", "KeyboardInterrupt", "Aborted", "QThread: Destroyed"):
        assert bad not in stderr, stderr

    # the session was saved: the file is in the queue at the next start
    from desktop.core.session import SessionStore

    store = SessionStore()
    try:
        assert [Path(e.source).name for e in store.entries()] == ["page.png"]
    finally:
        store.close()
