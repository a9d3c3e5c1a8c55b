"""Receipts photographed askew: field accuracy on real receipts turned a few degrees, with and without
reading the layout on the lines turned back by the skew (:func:`desktop.core.layout.deskewed_boxes`).

Each chosen receipt of ``sroie`` + ``sroie_dev`` (evenly spaced over the file names) is turned by each
angle with Pillow (bicubic, the canvas expanded, white fill: a photo taken askew), read by the real
pipeline with the CPU engine (recordings kept in ``CACHE/<corpus>__<stem>__<angle>.json``, so a rerun
only extracts), and its fields extracted with the shipped field model three ways: the upright
recording of ``.cache/ocr``, the turned reading, and the turned reading with the deskewed layout
switched off (the layout as it was before). Fields are compared with :func:`benchmarks.scoring.same`.

The shipped model was trained on these receipts, so the absolute accuracies are in-sample (see the
cross-validated figures of ``train_fields`` for what to expect on unseen receipts); the comparison of
the two turned arms, same model and same OCR, is the figure this benchmark is for.

Usage::

    python -m benchmarks.bench_skew [--receipts 16] [--angles -6 -3 3 6] [--upright .cache/ocr]
                                     [--cache .cache/ocr_skew] [--no-write]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.scoring import SAMPLES, same

REPO = Path(__file__).resolve().parent.parent
FIELDS = ("total", "date", "vendor_name", "vendor_address")


def _choose(n: int, upright: Path) -> list[Any]:
    from benchmarks.train_fields import load_receipts

    docs = load_receipts(upright)
    if n >= len(docs):
        return docs
    step = len(docs) / n
    return [docs[int(i * step)] for i in range(n)]


def _read_turned(image: Path, angle: float, cache: Path, engine: Any) -> list[Any]:
    from PIL import Image

    from desktop.core import intake
    from desktop.core.model import PageResult
    from desktop.core.pipeline import ScanOptions, _read_page

    out = cache / f"{image.parent.name}__{image.stem}__{angle:+g}.json"
    if out.is_file():
        return [PageResult.from_dict(p) for p in json.loads(out.read_text(encoding="utf-8"))["pages"]]
    with tempfile.TemporaryDirectory() as tmp:
        turned = Path(tmp) / f"{image.stem}.png"
        with Image.open(image) as im:
            im.convert("RGB").rotate(angle, resample=Image.Resampling.BICUBIC, expand=True,
                                     fillcolor=(255, 255, 255)).save(turned)
        pages = [_read_page(page, engine, ScanOptions()).result for page in intake.open_pages(turned)]
    cache.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"source": f"{image.parent.name}/{image.name}", "angle": angle,
                               "pages": [p.to_dict() for p in pages]}, ensure_ascii=False), encoding="utf-8")
    return pages


@contextmanager
def _without_deskew():
    from desktop.core.extraction import layout as extraction_layout

    saved = extraction_layout.deskewed_boxes
    extraction_layout.deskewed_boxes = lambda lines: None  # type: ignore[assignment]
    try:
        yield
    finally:
        extraction_layout.deskewed_boxes = saved


def _score(pages: list[Any], truth: dict[str, Any]) -> dict[str, tuple[bool, bool]]:
    """``{field: (right, flagged)}`` of the shipped model's extraction."""
    from desktop.core.extraction import extract_fields

    fields = extract_fields(pages, "receipt").fields
    out = {}
    for name in FIELDS:
        f = fields.get(name)
        value = f.value if f is not None else None
        out[name] = (same(name, value, truth.get(name)), bool(f is not None and f.needs_review))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--receipts", type=int, default=16)
    ap.add_argument("--angles", type=float, nargs="+", default=[-6.0, -3.0, 3.0, 6.0])
    ap.add_argument("--cache", type=Path, default=REPO / ".cache" / "ocr_skew")
    ap.add_argument("--upright", type=Path, default=REPO / ".cache" / "ocr",
                    help="the recordings of the receipts as scanned (python -m benchmarks.ocr_cache)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    from desktop.core import offline  # noqa: F401  (before any engine library)
    from desktop.core.engines.ppocr import PPOCREngine
    from desktop.core.layout import skew_angle

    t0 = time.perf_counter()
    docs = _choose(args.receipts, args.upright)
    if not docs:
        print(f"no recorded receipts in {args.upright}: run python -m benchmarks.ocr_cache first", file=sys.stderr)
        return 2
    engine = PPOCREngine()
    arms: dict[str, list[dict[str, tuple[bool, bool]]]] = {"upright": [], "turned, layout as scanned": [],
                                                           "turned, layout deskewed": []}
    per_angle: dict[float, list[tuple[int, int]]] = {a: [] for a in args.angles}
    found_skew: list[float] = []
    for d in docs:
        image = SAMPLES / f"{d.name}.jpg"
        arms["upright"].append(_score(d.pages, d.truth))
        for angle in args.angles:
            pages = _read_turned(image, angle, args.cache, engine)
            a = skew_angle(pages[0].lines) if pages else None
            if a is not None:
                import math

                found_skew.append(abs(math.degrees(a)))
            with _without_deskew():
                before = _score(pages, d.truth)
            after = _score(pages, d.truth)
            arms["turned, layout as scanned"].append(before)
            arms["turned, layout deskewed"].append(after)
            per_angle[angle].append((sum(r for r, _f in before.values()), sum(r for r, _f in after.values())))
        print(f"{d.name} {time.perf_counter() - t0:6.1f}s", flush=True)

    def pct(rows: list[dict[str, tuple[bool, bool]]], name: str) -> str:
        return f"{100 * sum(r[name][0] for r in rows) / max(1, len(rows)):.1f}%"

    def silent(rows: list[dict[str, tuple[bool, bool]]]) -> str:
        n = sum(len(r) for r in rows)
        return f"{100 * sum(1 for r in rows for ok, fl in r.values() if not ok and not fl) / max(1, n):.1f}%"

    lines = ["## Receipts photographed askew (`python -m benchmarks.bench_skew`)", "",
             f"Generated on {time.strftime('%Y-%m-%d %H:%M')}: {len(docs)} receipts of `sroie` + `sroie_dev` (evenly "
             f"spaced), each turned by {', '.join(f'{a:+g}' for a in args.angles)} degrees (Pillow, bicubic, canvas "
             "expanded, white fill) and read by the pipeline with the CPU engine; fields extracted by the shipped "
             "field model. The model was trained on these receipts, so the accuracies are in-sample: the figure to "
             "read is the turned arms side by side (same OCR, same model), the layout found on the lines as scanned "
             "against the layout on the lines turned back by the skew (`desktop.core.layout.deskewed_boxes`).", "",
             "| reading | n | " + " | ".join(FIELDS) + " | wrong and not flagged |",
             "|---|---|" + "---|" * len(FIELDS) + "---|"]
    for arm, rows in arms.items():
        lines.append(f"| {arm} | {len(rows)} | " + " | ".join(pct(rows, f) for f in FIELDS) + f" | {silent(rows)} |")
    lines.append("")
    lines.append("Fields right of the four, per angle (turned as scanned -> deskewed): " + "; ".join(
        f"{a:+g} degrees {sum(b for b, _ in v)} -> {sum(c for _, c in v)} of {4 * len(v)}" for a, v in per_angle.items()) + ".")
    if found_skew:
        found_skew.sort()
        lines.append(f"Skew found on the turned pages: median {found_skew[len(found_skew) // 2]:.1f} degrees "
                     f"(of {len(found_skew)} pages; {len(docs) * len(args.angles) - len(found_skew)} found unskewed).")
    lines.append(f"Took {time.perf_counter() - t0:.0f} s (recordings in the cache are reused).")
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        from benchmarks.sections import write_section

        write_section(REPO / "BENCHMARKS.md", "<!-- bench_skew:start -->", "<!-- bench_skew:end -->", body)
        print("written to BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
