"""Record what the CPU engine reads on the labelled corpora, so field-model training and the
cross-validated benchmarks do not re-run OCR each time.

For every image of ``sroie/``, ``sroie_dev/``, ``wildreceipt/``, ``cn_invoice/``, ``invoice2data/`` (PNG)
and ``einvoice/`` (the image-only ``.scan.png`` renderings) under the samples folder, the real pipeline
(:func:`desktop.core.pipeline._read_page` on each page from intake, with
:class:`~desktop.core.engines.ppocr.PPOCREngine`) reads the file, and
``{"engine": ..., "pages": [PageResult dicts], "qr": [payloads]}`` is written to
``CACHE/<corpus>__<file name>.json``. Existing recordings are kept (``--force`` redoes them).
PDFs of the invoice corpora are recorded too (their text layers, read by the same pipeline code).

Usage::

    python -m benchmarks.ocr_cache [--cache .cache/ocr] [--only sroie_dev] [--force]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.scoring import SAMPLES

REPO = Path(__file__).resolve().parent.parent
CORPORA = ("sroie", "sroie_dev", "wildreceipt", "cn_invoice", "invoice2data", "einvoice")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".tif", ".tiff"}


#: Corpora whose PDFs are recorded too (their text layers are what extraction reads).
PDF_CORPORA = ("einvoice", "invoice2data")


def corpus_images(corpus: str) -> list[Path]:
    """The image files (and, for :data:`PDF_CORPORA`, PDFs) of one corpus folder, sorted by name."""
    folder = SAMPLES / corpus
    suffixes = IMAGE_SUFFIXES | ({".pdf"} if corpus in PDF_CORPORA else set())
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in suffixes)


def cache_path(cache: Path, image: Path) -> Path:
    """Where the recording of ``image`` lives: ``<corpus>__<file name>.json``."""
    return cache / f"{image.parent.name}__{image.name}.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, default=REPO / ".cache" / "ocr")
    ap.add_argument("--only", action="append", choices=CORPORA, help="corpus to record (repeatable)")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--suffix", action="append", help="only files with this suffix (e.g. .pdf; repeatable)")
    args = ap.parse_args(argv)
    from desktop.core import (
        intake,
        offline,  # noqa: F401  (before any engine library)
    )
    from desktop.core.engines.ppocr import PPOCREngine
    from desktop.core.pipeline import ScanOptions, _read_page

    engine = PPOCREngine()
    args.cache.mkdir(parents=True, exist_ok=True)
    todo = [p for c in (args.only or CORPORA) if (SAMPLES / c).is_dir() for p in corpus_images(c)
            if not args.suffix or p.suffix.lower() in args.suffix]
    done = 0
    t0 = time.perf_counter()
    for image in todo:
        out = cache_path(args.cache, image)
        if out.is_file() and not args.force:
            continue
        reads = [_read_page(page, engine, ScanOptions()) for page in intake.open_pages(image)]
        rec = {"engine": getattr(engine, "name", "ppocr"), "source": f"{image.parent.name}/{image.name}",
               "pages": [r.result.to_dict() for r in reads], "qr": [q for r in reads for q in r.qr]}
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
        tmp.replace(out)
        done += 1
        print(f"{done:4d} {image.parent.name}/{image.name} {time.perf_counter() - t0:7.1f}s", flush=True)
    print(f"recorded {done} of {len(todo)} images in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
