"""Update the translation catalogues after UI strings changed or moved between classes.

Runs ``pyside6-lupdate -no-obsolete`` over ``desktop/gui/*.py`` for ``shoebox_zh_CN.ts`` and (plural forms
only) ``shoebox_en.ts``, then fills every message lupdate left unfinished with the translation the same
source text (and disambiguation) had before in any context -- a string moved from ``MainWindow`` into a
controller class keeps its translation -- and compiles both with ``pyside6-lrelease``. Messages that are
new for real stay unfinished (``tests/test_gui_i18n.py`` fails until they are translated).

Usage: ``python scripts/update_translations.py`` (from the repository root).
"""
from __future__ import annotations

import copy
import glob
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "resources" / "translations"
CATALOGUES = {"shoebox_zh_CN.ts": [], "shoebox_en.ts": ["-pluralonly", "-source-language", "en", "-target-language", "en"]}


def _key(message: ET.Element) -> tuple[str, str, bool]:
    return (message.findtext("source") or "", message.findtext("comment") or "", message.get("numerus") == "yes")


def _known(path: Path) -> dict[tuple[str, str, bool], ET.Element]:
    """Finished translations by (source, disambiguation, numerus)."""
    out: dict[tuple[str, str, bool], ET.Element] = {}
    for message in ET.parse(path).iter("message"):
        translation = message.find("translation")
        if translation is not None and translation.get("type") not in ("unfinished", "vanished", "obsolete"):
            out.setdefault(_key(message), translation)
    return out


def _tool(name: str) -> str:
    found = shutil.which(name) or str(Path(sys.executable).with_name(name))
    if not Path(found).exists():
        raise SystemExit(f"{name} not found (it ships with PySide6-Essentials)")
    return found


def main() -> int:
    sources = sorted(glob.glob(str(ROOT / "desktop" / "gui" / "*.py")))
    for name, extra in CATALOGUES.items():
        ts = FOLDER / name
        known = _known(ts)
        lupdate = [_tool("pyside6-lupdate"), "-no-obsolete", *extra, *sources, "-ts", str(ts)]
        subprocess.run(lupdate, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        tree = ET.parse(ts)
        filled = left = 0
        for message in tree.iter("message"):
            translation = message.find("translation")
            if translation is None or translation.get("type") != "unfinished":
                continue
            before = known.get(_key(message))
            if before is None:
                left += 1
                continue
            message.remove(translation)
            message.append(copy.deepcopy(before))
            filled += 1
        ET.indent(tree, space="    ")
        body = ET.tostring(tree.getroot(), encoding="unicode")
        ts.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")
        # once more, so the file is laid out as lupdate writes it (small diffs)
        subprocess.run(lupdate, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        subprocess.run([_tool("pyside6-lrelease"), str(ts), "-qm", str(ts.with_suffix(".qm"))], check=True,
                       stdout=subprocess.DEVNULL)
        print(f"{name}: {filled} translations carried over, {left} left to translate")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
