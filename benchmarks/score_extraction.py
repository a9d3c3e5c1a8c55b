"""Per-field accuracy of field extraction on the shared samples, from recorded engine output.

Runs :func:`desktop.core.extraction.extract_fields` (after :func:`detect_document_type`) over:

* text-layer PDFs: their text layer (PyMuPDF words grouped into lines), read live (fast);
* images: PP-OCR lines recorded earlier, as JSON (``{"pages": [PageResult dicts]}`` or a single page
  ``{"width", "height", "lines": [{text, box, confidence}]}``), looked up by sample name in
  ``--cache`` (default ``/tmp/ocr_cache``) and ``tests/data/ocr``; ``--ocr`` runs PP-OCR (rapidocr)
  on the images missing there and records them in ``--cache``.

Comparison: :func:`benchmarks.scoring.same` (case-insensitive, whitespace collapsed, punctuation
stripped at the ends for text; canonical amounts and ISO dates).

Usage::

    python -m benchmarks.score_extraction [--cache DIR] [--ocr] [-v]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.scoring import SAMPLES, expected_document_type, load_ground_truth, read_manifest, same
from desktop.core.extraction import decode_qr, detect_document_type, extract_fields
from desktop.core.model import Line, PageResult, Word

REPO = Path(__file__).resolve().parent.parent


def pdf_text_pages(path: Path) -> list[PageResult]:
    """Text-layer pages of a PDF: words grouped into lines by PyMuPDF's block/line numbers, split
    at wide gaps; boxes in PDF points (dpi 72)."""
    import pymupdf

    pages = []
    with pymupdf.open(path) as doc:
        for i, page in enumerate(doc):
            groups: dict[tuple[int, int], list] = defaultdict(list)
            for w in page.get_text("words"):
                groups[(w[5], w[6])].append(w)
            lines = []
            for ws in groups.values():
                ws.sort(key=lambda w: w[0])
                segs = [[ws[0]]]
                for w in ws[1:]:
                    if w[0] - segs[-1][-1][2] > 2.5 * (w[3] - w[1]):
                        segs.append([w])
                    else:
                        segs[-1].append(w)
                for seg in segs:
                    box = (min(w[0] for w in seg), min(w[1] for w in seg), max(w[2] for w in seg), max(w[3] for w in seg))
                    lines.append(Line(text=" ".join(w[4] for w in seg), box=box, confidence=1.0,
                                      words=[Word(w[4], tuple(w[:4])) for w in seg]))
            lines.sort(key=lambda ln: (round(ln.box[1] / 3), ln.box[0]))
            pages.append(PageResult(number=i + 1, width=int(page.rect.width), height=int(page.rect.height),
                                    lines=lines, dpi=72.0, origin="pdf_text"))
    return pages


def load_recorded(path: Path) -> list[PageResult]:
    """Recorded OCR output (see the module docstring) as pages."""
    d = json.loads(path.read_text(encoding="utf-8"))
    if "pages" in d:
        return [PageResult.from_dict(p) for p in d["pages"]]
    return [PageResult(number=1, width=d["width"], height=d["height"],
                       lines=[Line.from_dict(x) for x in d["lines"]])]


def run_ppocr(image_path: Path) -> list[PageResult]:
    """PP-OCR (rapidocr) on one image, downscaled to <= 4 Mpx; boxes mapped back to page pixels."""
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import numpy as np
    from PIL import Image, ImageOps
    from rapidocr import RapidOCR

    im = ImageOps.exif_transpose(Image.open(image_path)).convert("RGB")
    w, h = im.size
    scale = min(1.0, (4_000_000 / (w * h)) ** 0.5)
    if scale < 1:
        im = im.resize((int(w * scale), int(h * scale)), Image.LANCZOS)
    r = RapidOCR()(np.asarray(im))
    lines = []
    for quad, text, score in zip(r.boxes if r.boxes is not None else [], r.txts or [], r.scores or []):
        poly = [(float(x) / scale, float(y) / scale) for x, y in quad]
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        lines.append(Line(text=text, box=(min(xs), min(ys), max(xs), max(ys)), confidence=float(score), polygon=poly))
    return [PageResult(number=1, width=w, height=h, lines=lines)]


def find_recorded(rel: str, caches: list[Path]) -> Path | None:
    src, name = rel.split("/", 1)
    stem = Path(name).stem
    for c in caches:
        for cand in (c / f"{src}__{stem}.json", c / f"{stem}.json"):
            if cand.is_file():
                return cand
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/ocr_cache"))
    ap.add_argument("--ocr", action="store_true", help="run PP-OCR on images without a recording")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    ap.add_argument("--no-qr", action="store_true", help="do not decode QR codes on images")
    args = ap.parse_args(argv)
    caches = [args.cache, REPO / "tests" / "data" / "ocr"]
    stats: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    type_ok = type_n = 0
    for row in read_manifest():
        gt = load_ground_truth(row)
        want_type = expected_document_type(row)
        if not gt or want_type is None:
            continue
        path = SAMPLES / row["path"]
        if path.suffix.lower() == ".pdf":
            pages = pdf_text_pages(path)
        else:
            rec = find_recorded(row["path"], caches)
            if rec is None and args.ocr:
                pages = run_ppocr(path)
                args.cache.mkdir(parents=True, exist_ok=True)
                out = args.cache / f"{row['path'].split('/')[0]}__{path.stem}.json"
                out.write_text(json.dumps({"pages": [p.to_dict() for p in pages]}, ensure_ascii=False), encoding="utf-8")
            elif rec is None:
                print(f"skip {row['path']}: no recorded OCR (use --ocr)")
                continue
            else:
                pages = load_recorded(rec)
        doc_type = detect_document_type(pages)
        type_n += 1
        type_ok += doc_type == want_type
        payloads: list[str] = []
        if not args.no_qr and path.suffix.lower() != ".pdf" and want_type == "cn_vat_invoice":
            import numpy as np
            from PIL import Image, ImageOps

            payloads = decode_qr(np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB")))
        result = extract_fields(pages, want_type, qr_payloads=payloads)
        group = row["path"].split("/")[0]
        for name, expected in gt.items():
            f = result.fields.get(name)
            got = f.value if f else None
            ok = same(name, got, expected)
            stats[(group, name)][0] += ok
            stats[(group, name)][1] += 1
            if not ok and args.verbose:
                print(f"  miss {row['path']} {name}: got {got!r}, expected {expected!r}")
    print(f"document type detection: {type_ok}/{type_n}")
    current = None
    for (group, name), (ok, n) in sorted(stats.items()):
        if group != current:
            print(f"\n{group}")
            current = group
        print(f"  {name:16s} {ok:3d}/{n:<3d} {100 * ok / n:6.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
