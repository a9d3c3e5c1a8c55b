"""Screenshots of the desktop app reading real samples with the real PP-OCR engine.

Opens the main window on a SROIE receipt with a long vendor name and address, a Chinese VAT
e-invoice and a text-layer invoice PDF (from the shared samples folder), waits until they are read,
and saves one PNG of the main window per document (queue, page with the recognised lines outlined,
filled form), named ``<nn>-<file stem>-<language>-<scale>x.png``. ``--restart`` then closes the
window, opens a new one on the same session and grabs it 0.3 s later (``...-restart.png``): what the
clerk sees right after a restart (the page preview stored with the session, not empty outlines).

Usage (from the repository root)::

    xvfb-run -a -s "-screen 0 1600x1000x24" python scripts/screenshots.py [--out docs/screenshots] [--language zh_CN]
    QT_SCALE_FACTOR=2 xvfb-run -a -s "-screen 0 3200x2000x24" python scripts/screenshots.py   # 200 % scale
    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py      # without an X server

Uses a throwaway ``SHOEBOX_HOME`` so the user's own session is untouched. The PNGs are reduced to a
64-colour palette without dithering (Pillow; ``--colours``, ``--full-colour``) so that they stay small
enough to keep in the repository.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DEFAULT_SAMPLES = [
    "sroie/sroie_514.jpg",
    "cn_invoice/vat_einvoice_tianjin.png",
    "invoice2data/AzureInterior.pdf",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    parser.add_argument("--samples", type=Path, default=Path(os.environ.get("SHOEBOX_SAMPLES", REPO.parent / "shared" / "samples")))
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    parser.add_argument("--engine", default="ppocr")
    parser.add_argument("--size", default="1440x900", help="window size in logical pixels")
    parser.add_argument("--restart", action="store_true", help="also grab a window reopened on the same session")
    parser.add_argument("--full-colour", action="store_true", help="keep the PNGs in full colour")
    parser.add_argument("--colours", type=int, default=64, help="palette size of the PNGs (default 64)")
    parser.add_argument("files", nargs="*", help="files to read instead of the default samples")
    args = parser.parse_args()
    files = [Path(f) for f in args.files] or [args.samples / s for s in DEFAULT_SAMPLES]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        parser.error(f"not found: {', '.join(missing)} (the samples folder is {args.samples}: give another with "
                     "--samples DIR or SHOEBOX_SAMPLES=DIR, or name the files to read)")
    os.environ.setdefault("SHOEBOX_HOME", tempfile.mkdtemp(prefix="shoebox-shots-"))
    os.environ.setdefault("SHOEBOX_MULTI_INSTANCE", "1")
    from desktop.core.offline import enforce_offline_environment

    enforce_offline_environment()

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.core.settings import Settings
    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.resources import install_translators
    from desktop.gui.worker import default_engine_factory

    app = QApplication([sys.argv[0]])
    translators = install_translators(app, args.language)  # noqa: F841 - kept alive
    settings = Settings(engine=args.engine, ui_language=args.language)
    width, height = (int(v) for v in args.size.split("x"))
    scale = os.environ.get("QT_SCALE_FACTOR", "1")
    args.out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def open_window() -> MainWindow:
        w = MainWindow(engine_factory=default_engine_factory(args.engine, ""), settings=settings,
                       language=args.language)
        w.resize(width, height)
        w.show()
        return w

    def grab(w: MainWindow, name: str) -> None:
        app.processEvents()
        path = args.out / f"{name}.png"
        pixmap = w.grab()
        if args.full_colour:
            pixmap.save(str(path))
        else:
            from PIL import Image

            tmp = path.with_suffix(".tmp.png")
            pixmap.save(str(tmp))
            with Image.open(tmp) as im:
                im.convert("RGB").quantize(args.colours, method=Image.Quantize.MEDIANCUT,
                                           dither=Image.Dither.NONE).save(path, optimize=True)
            tmp.unlink()
        saved.append(path)

    def wait_for_page(w: MainWindow) -> None:
        deadline = time.monotonic() + 5
        while w.viewer._pixmap_item is None and time.monotonic() < deadline:
            wait(50)

    window = open_window()
    done = QEventLoop()
    window.batch_finished.connect(lambda: QTimer.singleShot(300, done.quit))
    QTimer.singleShot(600_000, done.quit)  # never hang a CI job
    window.add_paths(files, remember=False)
    done.exec()
    focus = {"receipt": "vendor_address", "invoice": "total", "cn_vat_invoice": "check_code"}
    names: list[tuple[int, str]] = []
    for i, entry in enumerate(window.model.entries()):
        window.select_entry(entry.id)
        doc = entry.document
        if doc is not None and not doc.error and doc.document_type in focus:
            window.form.focus_field(focus[doc.document_type])
        wait_for_page(window)
        wait(200)
        name = f"{i + 1:02d}-{Path(entry.source).stem}-{args.language}-{scale}x"
        names.append((entry.id, name))
        grab(window, name)
    if args.restart and names:
        window.close()
        window.shutdown()
        again = open_window()
        entry_id, name = names[0]
        again.select_entry(entry_id)
        wait(300)  # far sooner than the page could be decoded from its file again
        grab(again, f"{name}-restart")
        again.close()
        again.shutdown()
    else:
        window.close()
        window.shutdown()
    for p in saved:
        print(p)
    return 0 if saved else 1


if __name__ == "__main__":
    raise SystemExit(main())
