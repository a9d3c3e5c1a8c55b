"""Screenshots of the desktop app reading real samples with the real PP-OCR engine.

Opens the main window on a SROIE receipt, a Chinese VAT e-invoice and a text-layer invoice PDF
(from the shared samples folder), waits until they are read, and saves one PNG of the main window per
document (queue, page with the recognised lines outlined, filled form) plus one of the page text tab.

Usage (from the repository root)::

    xvfb-run -s "-screen 0 1600x1000x24" python scripts/screenshots.py [--out screenshots] [--language zh_CN]
    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py      # without an X server

Uses a throwaway ``SHOEBOX_HOME`` so the user's own session is untouched.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DEFAULT_SAMPLES = [
    "sroie/sroie_007.jpg",
    "cn_invoice/vat_einvoice_tianjin.png",
    "invoice2data/AzureInterior.pdf",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    parser.add_argument("--samples", type=Path, default=Path(os.environ.get("SHOEBOX_SAMPLES", REPO.parent / "shared" / "samples")))
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    parser.add_argument("--engine", default="ppocr")
    parser.add_argument("--size", default="1600x1000")
    parser.add_argument("files", nargs="*", help="files to read instead of the default samples")
    args = parser.parse_args()
    files = [Path(f) for f in args.files] or [args.samples / s for s in DEFAULT_SAMPLES]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        parser.error(f"not found: {', '.join(missing)}")
    os.environ.setdefault("SHOEBOX_HOME", tempfile.mkdtemp(prefix="shoebox-shots-"))
    from desktop.core.offline import enforce_offline_environment

    enforce_offline_environment()

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.core.settings import Settings
    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.resources import install_translators
    from desktop.gui.worker import default_engine_factory

    app = QApplication([sys.argv[0]])
    translators = install_translators(app, args.language)  # noqa: F841 - kept alive
    settings = Settings(engine=args.engine)
    window = MainWindow(engine_factory=default_engine_factory(args.engine, ""), settings=settings, language=args.language)
    width, height = (int(v) for v in args.size.split("x"))
    window.resize(width, height)
    window.show()
    args.out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []

    def grab(name: str) -> None:
        app.processEvents()
        path = args.out / f"{name}.png"
        window.grab().save(str(path))
        saved.append(path)

    def shoot() -> None:
        focus = {"receipt": "total", "invoice": "total", "cn_vat_invoice": "invoice_number"}
        for i, entry in enumerate(window.model.entries()):
            window.select_entry(entry.id)
            doc = entry.document
            if doc is not None and not doc.error and doc.document_type in focus:
                window.form.focus_field(focus[doc.document_type])
            for _ in range(30):  # let the page image arrive from the loader thread
                app.processEvents()
                QTimer.singleShot(50, lambda: None)
                app.processEvents()
                if window.viewer._pixmap_item is not None:
                    break
                import time

                time.sleep(0.05)
            grab(f"{i + 1:02d}-{Path(entry.source).stem}")
        window.tabs.setCurrentIndex(1)
        grab("99-page-text")
        window.close()
        app.quit()

    window.batch_finished.connect(lambda: QTimer.singleShot(300, shoot))
    window.add_paths(files, remember=False)
    QTimer.singleShot(600_000, app.quit)  # never hang a CI job
    app.exec()
    for p in saved:
        print(p)
    return 0 if saved else 1


if __name__ == "__main__":
    raise SystemExit(main())
