"""Render the app icon ``resources/icons/shoebox.svg`` to the bitmaps installers need.

    python installer/make_icons.py [OUT_DIR]        (default: build/icons)

Writes ``OUT_DIR/hicolor/<n>x<n>/apps/shoebox.png`` for the freedesktop icon theme (Linux .deb) and
``OUT_DIR/shoebox.ico`` (16-256 px; Windows executables, shortcuts and the setup program). Uses Qt's SVG
renderer (PySide6, already a dependency) and Pillow's ICO writer; runs without a display
(``QT_QPA_PLATFORM=offscreen``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256)
REPO = Path(__file__).resolve().parent.parent
SVG = REPO / "resources" / "icons" / "shoebox.svg"


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else REPO / "build" / "icons"
    if not SVG.is_file():
        print(f"make_icons: {SVG} is missing", file=sys.stderr)
        return 1
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PIL import Image
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841  (QPainter needs one)
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"make_icons: {SVG} is not a valid SVG", file=sys.stderr)
        return 1
    images: list[Image.Image] = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        png = out / "hicolor" / f"{size}x{size}" / "apps" / "shoebox.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(png)):
            print(f"make_icons: could not write {png}", file=sys.stderr)
            return 1
        images.append(Image.open(png).convert("RGBA"))
    ico = out / "shoebox.ico"
    images[-1].save(ico, format="ICO", sizes=[(s, s) for s in SIZES])
    print(f"make_icons: wrote {ico} and {len(SIZES)} PNG sizes under {out / 'hicolor'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
