"""HunyuanOCR on the GPU, side by side with PP-OCR, on the shared samples.

Prints, and appends to ``BENCHMARKS.md``:

- per-page latency of text spotting (one page per ``generate`` call): p50 and p95, seconds;
- pages per second with batching (``--batch N`` pages per ``generate`` call);
- peak GPU memory (``torch.cuda.max_memory_allocated``) over the whole run;
- field accuracy against the ground truth of ``MANIFEST.tsv`` (fields the sample's ground truth holds,
  compared with ``benchmarks.scoring.same`` when present, else a minimal comparison below): HunyuanOCR's
  own field extraction (``extract_fields``), and, where ``desktop.core.pipeline`` exists, the full
  ``scan_file`` pipeline with each engine;
- the same latency and accuracy for PP-OCR on the same pages (where ``desktop.core.engines.ppocr`` exists).

``--tiny`` builds a tiny random model of the same architecture (``tests/hunyuan_tiny.py``) instead of
using real weights: it proves the GPU path (dtype, batching, out-of-memory retry) where no weights are
at hand; its accuracy figures are meaningless.

Usage::

    python benchmarks/bench_hunyuan.py --model-dir DIR [--samples DIR] [--batch N] [--limit N]
    python benchmarks/bench_hunyuan.py --tiny [--device cpu] [--limit 4]
"""
from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import os
import platform
import re
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from desktop.core.offline import enforce_offline_environment  # noqa: E402

enforce_offline_environment()

DEFAULT_SAMPLES = Path(os.environ.get("SHOEBOX_SAMPLES", REPO.parent / "shared" / "samples"))
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp"}
SOURCE_TYPES = {"sroie": "receipt", "wildreceipt": "receipt", "cn_invoice": "cn_vat_invoice", "invoice2data": "invoice"}


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


# ------------------------------------------------------------------------------------------ scoring

if _has("benchmarks.scoring"):
    from benchmarks.scoring import load_ground_truth, read_manifest, same  # type: ignore[import-not-found]

    SCORING = "benchmarks.scoring"
else:  # minimal stand-in until the extraction helper's scorer is merged
    SCORING = "minimal fallback (benchmarks.scoring absent)"
    import json

    def read_manifest(root: Path) -> list[dict[str, str]]:
        lines = (root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
        head = lines[0].split("\t")
        return [dict(zip(head, ln.split("\t"))) for ln in lines[1:] if ln.strip()]

    def _norm(name: str, value: Any) -> str | None:
        if value is None or not str(value).strip():
            return None
        text = unicodedata.normalize("NFKC", str(value)).casefold().strip()
        if name in ("total", "subtotal", "tax"):
            m = re.search(r"-?\d[\d,]*\.?\d*", text.replace(" ", ""))
            if m:
                try:
                    return str(Decimal(m.group(0).replace(",", "")).quantize(Decimal("0.01")))
                except InvalidOperation:
                    pass
        if name == "date":
            digits = re.findall(r"\d+", text)
            return "-".join(d.zfill(2) for d in digits) if digits else None
        return re.sub(r"\s+", " ", re.sub(r"^[\W_]+|[\W_]+$", "", text))

    def same(name: str, got: Any, expected: Any) -> bool:
        return _norm(name, got) == _norm(name, expected)

    def load_ground_truth(row: dict[str, str], root: Path) -> dict[str, Any]:
        src = row["path"].split("/")[0]
        gts = [root / p for p in row.get("ground_truth", "").split(";") if p]
        if src == "sroie":
            key = next((p for p in gts if p.name.endswith(".key.json")), None)
            d = json.loads(key.read_text(encoding="utf-8")) if key else {}
            return {"vendor_name": d.get("company"), "vendor_address": d.get("address"), "total": d.get("total")}
        if src == "cn_invoice":
            d = json.loads(gts[0].read_text(encoding="utf-8"))
            return {"invoice_code": d.get("invoice_code"), "invoice_number": d.get("invoice_number"),
                    "vendor_name": d.get("seller_name"), "buyer_name": d.get("buyer_name"),
                    "total": d.get("total_incl_tax"), "tax": d.get("tax_amount")}
        return {}


# ------------------------------------------------------------------------------------------ samples


@dataclass
class Sample:
    path: Path
    document_type: str
    ground_truth: dict[str, Any]
    pages: list[Any] = field(default_factory=list)  # (H, W, 3) uint8 arrays within the pixel budget


def load_samples(root: Path, limit: int | None, max_pixels: int) -> list[Sample]:
    """Samples of MANIFEST.tsv that have a document type, rendered to arrays within ``max_pixels``.

    Pages come from ``desktop.core.intake`` where present (PDFs included), else from Pillow (images only).
    """
    import numpy as np
    from PIL import Image, ImageOps

    intake = None
    if _has("desktop.core.intake"):
        from desktop.core import intake  # type: ignore[no-redef]
    out: list[Sample] = []
    for row in read_manifest(root):
        doctype = SOURCE_TYPES.get(row["path"].split("/")[0])
        path = root / row["path"]
        if doctype is None or not path.is_file():
            continue
        if intake is None and path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        try:
            gt = load_ground_truth(row, root)
        except TypeError:
            gt = load_ground_truth(row)  # type: ignore[call-arg]
        sample = Sample(path, doctype, {k: v for k, v in gt.items() if v not in (None, "")})
        if intake is not None:
            for page in intake.open_pages(path):
                if page.needs_ocr:
                    sample.pages.append(page.render(max_pixels)[0])
        else:
            with Image.open(path) as im:
                sample.pages.append(np.asarray(ImageOps.exif_transpose(im).convert("RGB")))
        if sample.pages:
            out.append(sample)
        if limit and len(out) >= limit:
            break
    return out


# ------------------------------------------------------------------------------------------ measuring


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _sync() -> None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.synchronize()


@dataclass
class EngineFigures:
    name: str
    latencies: list[float] = field(default_factory=list)
    pages_per_s: float | None = None
    batch: int | None = None
    peak_gpu_mb: float | None = None
    load_s: float | None = None
    fields_right: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    fields_total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def score(self, values: dict[str, Any], truth: dict[str, Any]) -> None:
        for name, expected in truth.items():
            self.fields_total[name] += 1
            self.fields_right[name] += int(same(name, values.get(name), expected))

    @property
    def accuracy(self) -> tuple[int, int]:
        return sum(self.fields_right.values()), sum(self.fields_total.values())


def time_recognise(engine: Any, pages: list[Any], figures: EngineFigures) -> list[list[Any]]:
    """Recognise page by page, timing each; returns each page's lines (``[]`` for a failed page)."""
    out: list[list[Any]] = []
    for n, image in enumerate(pages):
        _sync()
        t0 = time.perf_counter()
        try:
            lines = engine.read_page(image).lines
        except Exception as exc:  # a failed page is reported, the run goes on
            figures.failures.append(f"page {n + 1}: {exc}")
            out.append([])
            continue
        _sync()
        figures.latencies.append(time.perf_counter() - t0)
        out.append(lines)
    return out


def score_with_rules(samples: list[Sample], page_lines: list[list[Any]], figures: EngineFigures) -> None:
    """Field accuracy of ``extraction.extract_fields`` (the rule-based extractor) on an engine's lines.

    Used while ``desktop.core.pipeline`` is absent; ``scan_file`` supersedes it once merged.
    """
    if not _has("desktop.core.extraction") or _has("desktop.core.pipeline"):
        return
    from desktop.core.extraction import extract_fields  # type: ignore[import-not-found]
    from desktop.core.model import PageResult

    it = iter(page_lines)
    for s in samples:
        pages = [PageResult(number=i + 1, width=int(im.shape[1]), height=int(im.shape[0]), lines=next(it))
                 for i, im in enumerate(s.pages)]
        if s.ground_truth:
            result = extract_fields(pages, s.document_type)
            figures.score({k: f.value for k, f in result.fields.items()}, s.ground_truth)
    figures.notes.append(f"{figures.name} fields: its lines through extraction.extract_fields (rules)")


def bench_hunyuan(engine: Any, samples: list[Sample], batch: int) -> EngineFigures:
    import torch

    from desktop.core.doctypes import get_document_type

    figures = EngineFigures("HunyuanOCR")
    cuda = engine.device.startswith("cuda")
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    engine.warm_up()
    figures.load_s = time.perf_counter() - t0
    figures.notes.append(engine.describe())
    pages = [p for s in samples for p in s.pages]
    time_recognise(engine, pages, figures)                      # latency: one page per generate call
    engine.batch_size = batch
    _sync()
    t0 = time.perf_counter()
    results = engine.read_pages(pages)                          # throughput: batch pages per call
    _sync()
    figures.pages_per_s = len(pages) / (time.perf_counter() - t0)
    figures.batch = engine.batch_size
    figures.failures += [f"batched page {i + 1}: {r}" for i, r in enumerate(results) if isinstance(r, Exception)]
    by_type: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        if s.ground_truth:
            by_type[s.document_type].append(s)
    for doctype, group in by_type.items():                      # the model's own field extraction, page 1
        dt_ = get_document_type(doctype)
        answers = engine.read_fields_pages([s.pages[0] for s in group], dt_.field_specs(), dt_.language)
        for s, answer in zip(group, answers):
            if isinstance(answer, Exception):
                figures.failures.append(f"{s.path.name} fields: {answer}")
                values = {}
            else:
                values = answer.values
            figures.score(values, s.ground_truth)
    if cuda:
        figures.peak_gpu_mb = torch.cuda.max_memory_allocated() / 2**20
    return figures


def bench_pipeline(engine: Any, name: str, samples: list[Sample]) -> EngineFigures | None:
    """Field accuracy and time per file through ``pipeline.scan_file`` (None until the pipeline is merged)."""
    if not _has("desktop.core.pipeline"):
        return None
    from desktop.core.pipeline import scan_file  # type: ignore[import-not-found]

    figures = EngineFigures(f"{name} via scan_file")
    for s in samples:
        _sync()
        t0 = time.perf_counter()
        documents = scan_file(s.path, engine)
        _sync()
        figures.latencies.append((time.perf_counter() - t0) / max(1, len(s.pages)))
        doc = documents[0] if documents else None
        if doc is None or doc.error:
            figures.failures.append(f"{s.path.name}: {doc.error if doc else 'no document'}")
            values = {}
        else:
            values = {k: f.value for k, f in doc.fields.items()}
        if s.ground_truth:
            figures.score(values, s.ground_truth)
    return figures


def bench_ppocr_engine(samples: list[Sample]) -> tuple[Any, EngineFigures] | None:
    if not _has("desktop.core.engines.ppocr"):
        return None
    from desktop.core.engines.ppocr import PPOCREngine  # type: ignore[import-not-found]

    engine = PPOCREngine()
    figures = EngineFigures("PP-OCR")
    t0 = time.perf_counter()
    engine.warm_up()
    figures.load_s = time.perf_counter() - t0
    figures.notes.append(engine.describe())
    lines = time_recognise(engine, [p for s in samples for p in s.pages], figures)
    score_with_rules(samples, lines, figures)
    return engine, figures


def check_oom_path(engine: Any, image: Any) -> str:
    """Simulate one CUDA out-of-memory error in ``generate``: the page must be read again at half the pixels."""
    import torch

    real = engine._model.generate
    calls = {"n": 0}

    def failing_once(**kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise torch.OutOfMemoryError("simulated CUDA out of memory")
        return real(**kwargs)

    engine._model.generate = failing_once
    try:
        notes = engine.read_page(image).warnings
        ok = calls["n"] == 2 and any("reduced resolution" in str(w) for w in notes)
        return f"OOM retry at half resolution: {'ok' if ok else 'FAILED'} ({calls['n']} generate calls; {notes})"
    finally:
        engine._model.generate = real


# ------------------------------------------------------------------------------------------ report


def report(figures: list[EngineFigures], args: argparse.Namespace, extra: list[str], n_pages: int, n_files: int) -> str:
    def num(v: float | None, fmt: str = ".2f") -> str:
        return "-" if v is None or v != v else format(v, fmt)

    lines = [
        f"## HunyuanOCR vs PP-OCR ({dt.date.today().isoformat()}{', tiny random model' if args.tiny else ''})",
        "",
        f"`python benchmarks/bench_hunyuan.py {' '.join(sys.argv[1:])}` on {platform.node()} "
        f"({platform.processor() or platform.machine()}); {n_files} files, {n_pages} pages; "
        f"pixel budget {args.max_pixels:,}; scoring: {SCORING}.",
        "",
        "| engine | p50 s/page | p95 s/page | pages/s batched | peak GPU MiB | load s | fields right | failures |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        right, total = f.accuracy
        acc = f"{right}/{total} ({100 * right / total:.0f}%)" if total else "-"
        batched = f"{num(f.pages_per_s)} (batch {f.batch})" if f.pages_per_s else "-"
        lines.append(f"| {f.name} | {num(percentile(f.latencies, .5))} | {num(percentile(f.latencies, .95))} | "
                     f"{batched} | {num(f.peak_gpu_mb, '.0f')} | {num(f.load_s, '.1f')} | {acc} | {len(f.failures)} |")
    names = sorted({n for f in figures for n in f.fields_total})
    if names:
        lines += ["", "Field accuracy per field (right/total):", "",
                  "| field | " + " | ".join(f.name for f in figures) + " |",
                  "|---|" + "---|" * len(figures)]
        for n in names:
            cells = [f"{f.fields_right[n]}/{f.fields_total[n]}" if f.fields_total.get(n) else "-" for f in figures]
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    notes = [n for f in figures for n in f.notes] + extra + [x for f in figures for x in f.failures[:5]]
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    if args.tiny:
        lines += ["- tiny random model: latency shows the code path, not the real model; accuracy is meaningless"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", help="HunyuanOCR folder (default: the usual places, see engines/hunyuan.py)")
    parser.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES, help="folder with MANIFEST.tsv")
    parser.add_argument("--batch", type=int, default=4, help="pages per generate call for the throughput run")
    parser.add_argument("--limit", type=int, default=None, help="at most this many files")
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    parser.add_argument("--max-pixels", type=int, default=None, help="pixel budget per page")
    parser.add_argument("--tiny", action="store_true", help="build and use a tiny random model (code path check)")
    parser.add_argument("--no-ppocr", action="store_true", help="skip PP-OCR")
    parser.add_argument("--no-append", action="store_true", help="print only; do not append to BENCHMARKS.md")
    args = parser.parse_args(argv)

    from desktop.core.engines.hunyuan import DEFAULT_MAX_PIXELS, HunyuanEngine, find_model_dir

    extra: list[str] = []
    tmp = None
    overrides: dict[str, int] = {}
    if args.tiny:
        from tests.hunyuan_tiny import build_tiny_model

        if args.device == "cpu":
            import torch

            torch.set_num_threads(1)  # a 64-wide model: thread hand-offs cost more than they give

        tmp = tempfile.TemporaryDirectory(prefix="tiny-hunyuan-")
        model_dir = build_tiny_model(Path(tmp.name) / "HunyuanOCR")
        overrides = {task: 48 for task in ("spotting", "fields", "text", "markdown", "table")}
        args.max_pixels = args.max_pixels or 400_000
        args.limit = args.limit or 4
    else:
        model_dir = find_model_dir(args.model_dir)
    args.max_pixels = args.max_pixels or DEFAULT_MAX_PIXELS

    samples = load_samples(args.samples, args.limit, args.max_pixels)
    if not samples:
        print(f"no samples found in {args.samples}", file=sys.stderr)
        return 2
    n_pages = sum(len(s.pages) for s in samples)
    print(f"{len(samples)} files, {n_pages} pages from {args.samples}", file=sys.stderr)

    engine = HunyuanEngine(model_dir, device=args.device, max_pixels=args.max_pixels, max_new_tokens=overrides)
    figures = [bench_hunyuan(engine, samples, args.batch)]
    if args.tiny:
        extra.append(f"dtype on {engine.device}: {engine.dtype_name}")
        extra.append(check_oom_path(engine, samples[0].pages[0]))
    piped = bench_pipeline(engine, "HunyuanOCR", samples)
    if piped:
        figures.append(piped)
    else:
        extra.append("desktop.core.pipeline not present: scan_file comparison skipped")
    if not args.no_ppocr:
        pp = bench_ppocr_engine(samples)
        if pp is None:
            extra.append("desktop.core.engines.ppocr not present: PP-OCR skipped")
        else:
            pp_engine, pp_figures = pp
            figures.append(pp_figures)
            pp_piped = bench_pipeline(pp_engine, "PP-OCR", samples)
            if pp_piped:
                figures.append(pp_piped)
    engine.close()

    text = report(figures, args, extra, n_pages, len(samples))
    print(text)
    if not args.no_append:
        out = REPO / "BENCHMARKS.md"
        head = "" if out.exists() else "# Benchmarks\n\nFigures measured by the scripts in `benchmarks/`.\n"
        with out.open("a", encoding="utf-8") as fh:
            fh.write(head + "\n" + text)
        print(f"appended to {out}", file=sys.stderr)
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
