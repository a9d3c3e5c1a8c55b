"""Time from launching the desktop app to its main window being shown.

Runs ``python -m desktop.gui.app`` in a fresh process (offscreen Qt unless ``QT_QPA_PLATFORM`` is
set, a throwaway ``SHOEBOX_HOME``) several times with ``SHOEBOX_STARTUP_PROBE`` set: the app writes
the wall-clock time at which the window was first shown, and the list of heavy modules (torch,
onnxruntime, transformers, rapidocr) already imported by then, which must be none. The median is
printed and written to ``BENCHMARKS.md`` under its own heading (replacing an earlier run's section).

Usage::

    python benchmarks/bench_startup.py [--runs 5] [--no-write]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SECTION = "## Desktop app start-up (time to window shown)"


def one_run() -> tuple[float, str]:
    """Launch once; return (seconds from spawn to window shown, heavy modules imported by then)."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.txt"
        env = dict(os.environ)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        env.update(SHOEBOX_HOME=str(Path(tmp) / "home"), SHOEBOX_STARTUP_PROBE=str(probe), SHOEBOX_EXIT_WHEN_SHOWN="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")])))
        start = time.time()
        proc = subprocess.run([sys.executable, "-m", "desktop.gui.app"], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=120)
        if not probe.is_file():
            raise RuntimeError(f"the window never showed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
        shown, heavy = probe.read_text().split()
        return float(shown) - start, heavy


def write_section(text: str) -> None:
    path = REPO / "BENCHMARKS.md"
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    if SECTION in old:
        head, _, rest = old.partition(SECTION)
        nxt = rest.find("\n## ")
        old = head.rstrip() + "\n" + (rest[nxt:] if nxt >= 0 else "")
    path.write_text(old.rstrip() + "\n\n" + text.rstrip() + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md alone")
    args = parser.parse_args()
    one_run()  # warm the OS file cache: we measure the app, not the disk
    times, heavies = [], set()
    for _ in range(args.runs):
        seconds, heavy = one_run()
        times.append(seconds)
        heavies.add(heavy)
    median = statistics.median(times)
    heavy_text = ", ".join(sorted(h for h in heavies if h != "-")) or "none"
    print(f"time to window shown: median {median:.2f} s, min {min(times):.2f} s, max {max(times):.2f} s "
          f"({args.runs} runs); heavy modules imported before the window: {heavy_text}")
    if not args.no_write:
        write_section(
            f"{SECTION}\n\n"
            f"`python benchmarks/bench_startup.py` launches `python -m desktop.gui.app` with "
            f"`QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', 'offscreen')}` and a fresh `SHOEBOX_HOME` "
            f"{args.runs} times (after one warm-up launch) and measures from process spawn to the main window's "
            f"first show (the app writes the time when `SHOEBOX_STARTUP_PROBE` is set).\n\n"
            f"| median | min | max | heavy modules loaded before the window |\n|---|---|---|---|\n"
            f"| {median:.2f} s | {min(times):.2f} s | {max(times):.2f} s | {heavy_text} |\n\n"
            f"Machine: {platform.machine()}, {os.cpu_count()} CPU cores, Python {platform.python_version()}. "
            f"The OCR engine is created and warmed up after the window shows, in the reading thread.\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
