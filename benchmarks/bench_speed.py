"""Speed of the CPU path, side by side with rapidocr at its defaults (issue 11).

Usage::

    python benchmarks/bench_speed.py [--receipts N] [--chunk K] [--baseline REPO] [--long N] [--no-write]

Everything is measured in one run, interleaved, so that load from other work on the machine falls on
all arms alike; the figures that matter are the ratios.

- **Receipts.** ``N`` receipts (all of ``sroie`` first, then ``sroie_dev`` evenly spaced), in chunks of
  ``K``. For each chunk: one whole ``shoebox scan`` process (start-up, model load, JSON export
  included; from this checkout), optionally the same from ``--baseline`` (another checkout, e.g. the
  main branch before a change), then rapidocr 3.10 at its default settings (``RapidOCR()`` with the
  wheel's models, per-line angle classifier on, detector limit 736, recogniser batches of 6) called on
  each image path in a loop, its model load excluded. Per receipt: Shoebox's seconds are the process'
  wall time shared out over its receipts in proportion to each document's own ``extras.seconds``
  (so start-up is counted in full); rapidocr's are the call's wall time. Also CPU seconds, word recall
  against the receipts' line transcripts (``*.box.txt``: the share of transcript words, upper-cased,
  found in the OCR text as a multiset) and field accuracy (``benchmarks.scoring``).
- **Rotated pages.** The four pages of ``ocrmypdf/cardinal.pdf``, ``tesseract/phototest-rotated-R.png``
  and three receipts turned 90/180/270: seconds of ``PPOCREngine.read_upright`` on the page as
  scanned against the same page upright, alternated, median of ``--repeats`` (target <= 1.3x), with the rotation
  found and the CER of the turned read against the upright read.
- **Start-up.** ``shoebox scan`` of one small image (``tesseract/phototest.tif``), 3 times: process
  wall time minus the document's own seconds (target <= 0.5 s).
- **Memory.** Peak RSS of the receipt ``shoebox scan`` processes (target <= 800 MB), of one reading
  ``ocrmypdf/multipage.pdf`` (a 9000 x 9000 px page; target <= 1 GB), and RSS after each document of
  a ``--long`` batch of distinct documents derived from the receipts at run time (:func:`distinct_documents`;
  flat = no growth after the first documents).

Both checkouts' bytecode is compiled first (:func:`compile_bytecode`; ``--from-source`` to skip), as an
installed Shoebox has it. Writes its section of ``BENCHMARKS.md`` between the ``bench_speed`` markers.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import desktop.core  # noqa: E402,F401  (sets the offline environment before onnxruntime loads)

#: Alternated timings per turned page (``--repeats``).
REPEATS = 2
#: Whether the checkouts' bytecode was compiled before the runs (``--from-source`` turns it off).
BYTECODE = True
START = "<!-- bench_speed:start -->"
END = "<!-- bench_speed:end -->"
SAMPLES = Path(os.environ.get("SHOEBOX_SAMPLES", REPO.parent / "shared" / "samples"))

# Runs `shoebox scan` in this interpreter and reports the process' peak RSS (VmHWM), its engine worker's,
# and the RSS after every document on stderr (the CLI itself is unchanged: the wrapper only adds a progress hook).
_WRAPPER = r"""
import os, resource, sys, threading, time, json
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
rss_log = []
worker_hwm = {}
def _rss():
    with open('/proc/self/statm') as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
def _hwm(pid='self'):
    # VmHWM: this process' own peak. (ru_maxrss is not: a process started by fork + exec keeps the peak
    # of the process it was forked from, here the benchmark's.)
    with open(f'/proc/{pid}/status') as fh:
        return next(int(ln.split()[1]) / 1024 for ln in fh if ln.startswith('VmHWM'))
def _children():
    for tid in os.listdir('/proc/self/task'):
        try:
            with open(f'/proc/self/task/{tid}/children') as fh:
                yield from fh.read().split()
        except OSError:
            pass
def _watch_workers():
    for pid in list(_children()):
        try:
            worker_hwm[pid] = max(worker_hwm.get(pid, 0.0), _hwm(pid))
        except (OSError, StopIteration):
            pass
def _worker_rss():
    now = []
    for pid in list(_children()):
        try:
            with open(f'/proc/{pid}/status') as fh:
                now.append(next(int(ln.split()[1]) / 1024 for ln in fh if ln.startswith('VmRSS')))
        except (OSError, StopIteration):
            pass
    return max(now or [0.0])
worker_rss_log = []
def _watch():
    while True:
        _watch_workers()
        time.sleep(0.2)
threading.Thread(target=_watch, daemon=True).start()
import desktop.core.pipeline as _p
_scan_file = _p.scan_file
def scan_file(*a, **k):
    docs = _scan_file(*a, **k)
    rss_log.append(round(_rss(), 1))
    worker_rss_log.append(round(_worker_rss(), 1))
    _watch_workers()
    return docs
_p.scan_file = scan_file
from desktop import cli
try:
    code = cli.main(sys.argv[2:])
finally:
    worker = max(worker_hwm.values() or [0.0])  # the engine worker (largest child)
    print("BENCH " + json.dumps({"peak_mb": _hwm(), "worker_peak_mb": worker, "rss": rss_log, "worker_rss": worker_rss_log,
                                 "wall": time.perf_counter() - t0}), file=sys.stderr)
sys.exit(code)
"""


# -- samples -----------------------------------------------------------------------------------------

def receipts(n: int) -> list[Path]:
    """All of ``sroie`` first, then ``sroie_dev`` evenly spaced (ordinary scans only), ``n`` in all."""
    first = sorted((SAMPLES / "sroie").glob("*.jpg"))
    dev = sorted((SAMPLES / "sroie_dev").glob("*.jpg"))
    dev = [p for p in dev if p.stat().st_size < 2_000_000]  # the four 4961 x 7016 A4 scans are not receipts' size
    picked = first[:n]
    need = n - len(picked)
    if need > 0 and dev:
        step = len(dev) / need
        picked += [dev[int(i * step)] for i in range(min(need, len(dev)))]
    return picked


def transcript_words(image: Path) -> list[str]:
    box = image.with_suffix(".box.txt")
    words: list[str] = []
    for line in box.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split(",", 8)
        if len(parts) == 9:
            words += parts[8].upper().split()
    return words


def word_recall(text: str, reference: list[str]) -> tuple[int, int]:
    """``(found, total)``: reference words found in ``text`` (upper-cased, whitespace-split), as a multiset."""
    have = Counter(text.upper().split())
    found = 0
    for word, count in Counter(reference).items():
        found += min(count, have.get(word, 0))
    return found, len(reference)


def truth(image: Path) -> dict[str, Any]:
    from benchmarks import scoring

    key = image.with_suffix(".key.json")
    row = {"path": f"sroie/{image.name}", "ground_truth": str(key)}
    return scoring.load_ground_truth(row, root=Path("/"))


# -- arms --------------------------------------------------------------------------------------------

def shoebox_scan(repo: Path, files: list[Path], out: Path) -> dict[str, Any]:
    """One ``shoebox scan`` process over ``files`` from checkout ``repo``: per-file seconds, text, fields."""
    cmd = [sys.executable, "-c", _WRAPPER, str(repo), "scan", *map(str, files), "-o", str(out), "-q"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    bench = next((json.loads(ln[6:]) for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")), {})
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"shoebox scan failed ({proc.returncode}): {proc.stderr[-2000:]}")
    data = json.loads(out.read_text(encoding="utf-8"))
    docs = {Path(d["source"]).name: d for d in data["documents"]}
    own = {name: float(d.get("extras", {}).get("seconds") or 0.0) for name, d in docs.items()}
    total_own = sum(own.values()) or 1.0
    per_file = {}
    for f in files:
        d = docs.get(f.name, {})
        text = "\n".join(ln["text"] for p in d.get("page_results", []) for ln in p.get("lines", []))
        fields = {k: (v or {}).get("value") for k, v in d.get("fields", {}).items()}
        per_file[f.name] = {"seconds": wall * own.get(f.name, 0.0) / total_own, "own": own.get(f.name, 0.0),
                            "text": text, "fields": fields, "engine": d.get("engine"),
                            "engine_version": d.get("engine_version") or d.get("extras", {}).get("engine_version")}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    hashes = [{"content_hash": (d.get("extras") or {}).get("content_hash")} for d in data["documents"]]
    return {"wall": wall, "cpu": cpu, "files": per_file, "docs": hashes, "peak_mb": bench.get("peak_mb"),
            "worker_peak_mb": bench.get("worker_peak_mb"), "rss": bench.get("rss", []),
            "worker_rss": bench.get("worker_rss", [])}


class Reference:
    """rapidocr 3.10 with its default settings (its own models from the wheel: nothing downloaded)."""

    def __init__(self) -> None:
        from rapidocr import RapidOCR

        from desktop.core.engines.ppocr import MODEL_FILES, model_dir

        folder = model_dir()
        params = {f"{k}.model_path": str(folder / v) for k, v in MODEL_FILES.items()}
        params["Global.log_level"] = "error"
        self.ocr = RapidOCR(params=params)
        self.ocr(str(SAMPLES / "tesseract" / "phototest.tif"))  # load every session (excluded)

    def read(self, path: Path) -> tuple[float, float, str]:
        c0, t0 = time.process_time(), time.perf_counter()
        result = self.ocr(str(path))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        return wall, cpu, "\n".join(result.txts or ())


# -- parts -------------------------------------------------------------------------------------------

def bench_receipts(files: list[Path], chunk: int, baseline: Path | None) -> dict[str, Any]:
    ref = Reference()
    arms: dict[str, dict[str, Any]] = {"shoebox": {}, "rapidocr": {}}
    if baseline:
        arms["baseline"] = {}
    meta: dict[str, Any] = {"shoebox_wall": 0.0, "shoebox_cpu": 0.0, "baseline_wall": 0.0, "baseline_cpu": 0.0,
                            "ref_wall": 0.0, "ref_cpu": 0.0, "peaks": [], "worker_peaks": [], "baseline_peaks": [],
                            "baseline_worker_peaks": [], "engine": None}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(0, len(files), chunk):
            part = files[i:i + chunk]
            run = shoebox_scan(REPO, part, Path(tmp) / "out.json")
            arms["shoebox"].update(run["files"])
            meta["shoebox_wall"] += run["wall"]
            meta["shoebox_cpu"] += run["cpu"]
            meta["peaks"].append(run["peak_mb"])
            meta["worker_peaks"].append(run["worker_peak_mb"])
            first = next(iter(run["files"].values()))
            meta["engine"] = (first["engine"], first["engine_version"])
            if baseline:
                run = shoebox_scan(baseline, part, Path(tmp) / "base.json")
                arms["baseline"].update(run["files"])
                meta["baseline_wall"] += run["wall"]
                meta["baseline_cpu"] += run["cpu"]
                meta["baseline_peaks"].append(run["peak_mb"])
                meta["baseline_worker_peaks"].append(run["worker_peak_mb"])
            for f in part:
                wall, cpu, text = ref.read(f)
                arms["rapidocr"][f.name] = {"seconds": wall, "text": text, "fields": {}}
                meta["ref_wall"] += wall
                meta["ref_cpu"] += cpu
            print(f"  receipts {i + len(part)}/{len(files)}", file=sys.stderr, flush=True)
    from benchmarks import scoring

    summary: dict[str, Any] = {"n": len(files), "meta": meta, "arms": {}}
    for name, per_file in arms.items():
        found = total = 0
        right = fields_total = 0
        for f in files:
            r = per_file.get(f.name)
            if r is None:
                continue
            a, b = word_recall(r["text"], transcript_words(f))
            found, total = found + a, total + b
            if name != "rapidocr":
                for field, expected in truth(f).items():
                    fields_total += 1
                    right += bool(scoring.same(field, r["fields"].get(field), expected))
        secs = [per_file[f.name]["seconds"] for f in files if f.name in per_file]
        summary["arms"][name] = {
            "median": statistics.median(secs), "mean": statistics.fmean(secs),
            "recall": found / total if total else 0.0, "fields": (right, fields_total),
        }
    return summary


def bench_rotation() -> list[dict[str, Any]]:
    from benchmarks.textmetrics import cer
    from desktop.core import intake
    from desktop.core.engines.ppocr import PPOCREngine
    from desktop.core.orientation import rotate_image

    engine = PPOCREngine()
    engine.warm_up()
    cases: list[tuple[str, Any, int]] = []  # (label, image as scanned, rotation that makes it upright)
    truth_pages = json.loads((SAMPLES / "ocrmypdf" / "cardinal.gt.json").read_text())["pages"]
    for page, t in zip(intake.open_pages(SAMPLES / "ocrmypdf" / "cardinal.pdf"), truth_pages):
        image, _ = page.render(engine.max_pixels)
        cases.append((f"ocrmypdf/cardinal.pdf p{page.number}", image, (360 - t["correction_ccw_deg"]) % 360))
    page = next(iter(intake.open_pages(SAMPLES / "tesseract" / "phototest-rotated-R.png")))
    cases.append(("tesseract/phototest-rotated-R.png", page.render(engine.max_pixels)[0], 270))
    for name, turn in (("sroie_007.jpg", 90), ("sroie_265.jpg", 180), ("sroie_388.jpg", 270)):
        page = next(iter(intake.open_pages(SAMPLES / "sroie" / name)))
        cases.append((f"sroie/{name} turned {turn}", rotate_image(page.render(engine.max_pixels)[0], turn), (360 - turn) % 360))
    rows = []
    for label, image, needed in cases:
        upright = rotate_image(image, needed)
        turned_s, upright_s, turned_cpu, upright_cpu = [], [], [], []
        reading = reference = None
        for k in range(REPEATS):
            # Alternate which read goes first, so a change of load falls on both alike.
            for which in ((0, 1) if k % 2 == 0 else (1, 0)):
                c0, t0 = time.process_time(), time.perf_counter()
                if which == 0:
                    reading = engine.read_upright(image)
                    turned_s.append(time.perf_counter() - t0)
                    turned_cpu.append(time.process_time() - c0)
                else:
                    reference = engine.read_upright(upright)
                    upright_s.append(time.perf_counter() - t0)
                    upright_cpu.append(time.process_time() - c0)
        assert reading is not None and reference is not None
        text = "\n".join(ln.text for ln in reading.lines)
        ref_text = "\n".join(ln.text for ln in reference.lines)
        rows.append({"label": label, "needed": needed, "found": reading.rotation, "upright_found": reference.rotation,
                     "turned_s": statistics.median(turned_s), "upright_s": statistics.median(upright_s),
                     "turned_cpu": statistics.median(turned_cpu), "upright_cpu": statistics.median(upright_cpu),
                     "cer": cer(text, ref_text)})
        print(f"  {label}: {rows[-1]['turned_cpu']:.2f} CPU s vs {rows[-1]['upright_cpu']:.2f} upright", file=sys.stderr, flush=True)
    engine.close()
    return rows


def _page_cpu(image: Path, repeats: int = 3) -> float:
    """CPU seconds of reading ``image`` with a warm in-process :class:`PPOCREngine` (median of ``repeats``)."""
    from desktop.core import intake
    from desktop.core.engines.ppocr import PPOCREngine

    engine = PPOCREngine()
    engine.warm_up()
    page = next(iter(intake.open_pages(image)))
    pixels = page.render(engine.max_pixels)[0]
    cpus = []
    for _ in range(repeats):
        c0 = time.process_time()
        engine.read_page(pixels)
        cpus.append(time.process_time() - c0)
    engine.close()
    return statistics.median(cpus)


def bench_startup(repeats: int = 3, baseline: Path | None = None) -> dict[str, Any]:
    """``shoebox scan`` of one small image, ``repeats`` times (alternated with ``baseline`` when given).

    Returns ``{"arms": {name: [(process wall, page seconds, process CPU), ...]}, "page_cpu": s, "load": (before,
    after)}`` (load averages as text): process
    CPU is user + sys of the scan process and its engine worker; ``page_cpu`` is the same page read by a
    warm engine in this process, so CPU minus it is what start-up, model load and export cost.
    """
    image = SAMPLES / "tesseract" / "phototest.tif"
    arms: dict[str, list[tuple[float, float, float]]] = {"shoebox": []}
    if baseline:
        arms["baseline"] = []
    load_before = _load()
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for name, repo in (("shoebox", REPO), ("baseline", baseline)):
                if name not in arms:
                    continue
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                proc = subprocess.run([sys.executable, "-m", "desktop.cli", "scan", str(image), "-o", f"{tmp}/o.json", "-q"],
                                      cwd=repo, capture_output=True, text=True, timeout=600)
                wall = time.perf_counter() - t0
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if proc.returncode:
                    raise RuntimeError(proc.stderr[-2000:])
                doc = json.loads(Path(f"{tmp}/o.json").read_text())["documents"][0]
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                arms[name].append((wall, float(doc["extras"]["seconds"]), cpu))
    load_after = _load()
    return {"arms": arms, "page_cpu": _page_cpu(image), "load": (load_before, load_after)}


def distinct_documents(files: list[Path], count: int, folder: Path) -> list[Path]:
    """``count`` distinct receipt images derived from ``files`` into ``folder`` (a temporary folder: never
    the repository): document ``i`` is receipt ``i % len(files)`` cropped by margins of 0-23 px that depend
    on ``i`` and saved as a JPEG, so that every file has its own content (its own content hash, its own
    OCR reading of the same kind of receipt) and the batch is ``count`` different documents."""
    from PIL import Image

    out = []
    for i in range(count):
        src = files[i % len(files)]
        k = i // len(files)
        with Image.open(src) as im:
            im = im.convert("RGB")
            w, h = im.size
            left, top, right, bottom = (k * 7) % 24, (k * 5 + 3) % 24, (k * 3 + 1) % 24, (k * 11 + 2) % 24
            im = im.crop((left, top, max(left + 1, w - right), max(top + 1, h - bottom)))
            path = folder / f"{i:04d}_{src.stem}.jpg"
            im.save(path, quality=90 - (k % 5))
        out.append(path)
    return out


def bench_memory(long_batch: int, files: list[Path]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        run = shoebox_scan(REPO, [SAMPLES / "ocrmypdf" / "multipage.pdf"], Path(tmp) / "big.json")
        result["big_peak_mb"] = run["peak_mb"]
        result["big_worker_peak_mb"] = run["worker_peak_mb"]
        result["big_wall"] = run["wall"]
        if long_batch:
            tree = Path(tmp) / "long"
            tree.mkdir()
            batch = distinct_documents(files, long_batch, tree)
            run = shoebox_scan(REPO, batch, Path(tmp) / "long.json")
            result["long_distinct"] = len({d["content_hash"] for d in run["docs"]})
            result["long_rss"] = run["rss"]
            result["long_worker_rss"] = run["worker_rss"]
            result["long_peak_mb"] = run["peak_mb"]
            result["long_worker_peak_mb"] = run["worker_peak_mb"]
    return result


# -- report ------------------------------------------------------------------------------------------

def _load() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def report(rec: dict[str, Any] | None, rot: list[dict[str, Any]], start: dict[str, Any] | None,
           mem: dict[str, Any], command: str, load_start: str, load_end: str, baseline: Path | None) -> str:
    out = ["## Speed of the CPU path (issue 11)", ""]
    out.append(f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M')}; {os.cpu_count()} CPUs, "
               f"{platform.system()} {platform.machine()}, Python {platform.python_version()}; load average "
               f"{load_start} at start, {load_end} at end (the benchmark itself keeps both cores busy; a load "
               "well above the CPU count means other work shared the machine, and then absolute seconds are "
               "inflated and the ratios, measured interleaved in one run, are the figures to read). "
               + ("The checkouts' Python files were compiled to bytecode first, as an installed Shoebox has them "
                  "(`compile_bytecode`)." if BYTECODE else
                  "Every module was compiled from source in every process (`--from-source`)."))
    out.append("")
    if rec:
        a = rec["arms"]
        s, r = a["shoebox"], a["rapidocr"]
        m = rec["meta"]
        engine = m.get("engine") or ("?", "?")
        out += [f"### Receipts ({rec['n']}: all of `sroie`, then `sroie_dev` evenly spaced)", "",
                f"Shoebox: `shoebox scan` processes of {rec['n'] // max(1, len(m['peaks']))} receipts each, start-up and model "
                f"load included (engine `{engine[0]}`, {engine[1]}). Reference: rapidocr 3.10 at its defaults in a loop, "
                "model load excluded. Baseline: the same `shoebox scan` from the main branch before this change, when given.", "",
                "| arm | median s/receipt | mean s/receipt | CPU s/receipt | word recall (box.txt) | fields right |",
                "|---|---|---|---|---|---|"]
        n = rec["n"]
        rows = [("Shoebox", s, m["shoebox_cpu"] / n)]
        if "baseline" in a:
            rows.append((f"baseline ({baseline})", a["baseline"], m["baseline_cpu"] / n))
        rows.append(("rapidocr 3.10 defaults", r, m["ref_cpu"] / n))
        for name, x, cpu in rows:
            fields = f"{x['fields'][0]}/{x['fields'][1]} ({x['fields'][0] / x['fields'][1]:.1%})" if x["fields"][1] else "-"
            out.append(f"| {name} | {x['median']:.2f} | {x['mean']:.2f} | {cpu:.2f} | {x['recall']:.1%} | {fields} |")
        out += ["", f"Ratio Shoebox / rapidocr: median **{s['median'] / r['median']:.2f}x**, mean {s['mean'] / r['mean']:.2f}x "
                f"(target <= 0.40x); CPU {m['shoebox_cpu'] / max(m['ref_cpu'], 1e-9):.2f}x."]
        if "baseline" in a:
            b = a["baseline"]
            out.append(f"Baseline / rapidocr: median {b['median'] / r['median']:.2f}x; Shoebox / baseline: median "
                       f"{s['median'] / b['median']:.2f}x.")
        peaks = [p for p in m["peaks"] if p]
        workers = [p for p in m["worker_peaks"] if p]
        if peaks:
            line = (f"Peak RSS of a receipt `shoebox scan`: the main process {max(peaks):.0f} MiB, its engine worker "
                    f"{max(workers or [0]):.0f} MiB (target <= 800 MB; peaks are each process' own VmHWM)")
            bw = [p for p in m["baseline_worker_peaks"] if p]
            if m["baseline_peaks"]:
                line += f"; baseline {max(p for p in m['baseline_peaks'] if p):.0f} MiB and {max(bw or [0]):.0f} MiB"
            out.append(line + ".")
        out.append("")
    if rot:
        out += ["### Turned pages (orientation decided between detection and recognition)", "",
                f"`PPOCREngine.read_upright` in this process on the page as scanned and on the same page upright, "
                f"alternated, median of {REPEATS}; CPU seconds (user + sys of the process: the recogniser's worker "
                "threads included), which the machine's load inflates less than wall time.", "",
                "| page | needs | found | upright read found | CPU s as scanned | CPU s upright | ratio (CPU) | wall ratio | CER vs upright read |",
                "|---|---|---|---|---|---|---|---|---|"]
        for x in rot:
            out.append(f"| {x['label']} | {x['needed']} | {x['found']} | {x['upright_found']} | {x['turned_cpu']:.2f} | "
                       f"{x['upright_cpu']:.2f} | {x['turned_cpu'] / x['upright_cpu']:.2f}x | "
                       f"{x['turned_s'] / x['upright_s']:.2f}x | {x['cer']:.3f} |")
        turned = [x for x in rot if x["needed"]]
        ratios = [x["turned_cpu"] / x["upright_cpu"] for x in turned]
        kinds = (("90/270", [x for x in turned if x["needed"] % 180]), ("180", [x for x in turned if x["needed"] == 180]))
        for kind, sel in kinds:
            if sel:
                rs = [x["turned_cpu"] / x["upright_cpu"] for x in sel]
                out.append(f"- turned {kind}: median {statistics.median(rs):.2f}x the upright CPU cost (max {max(rs):.2f}x)")
        if ratios:
            out.append(f"- all turned pages: median {statistics.median(ratios):.2f}x, max {max(ratios):.2f}x (target <= 1.3x); "
                       f"rotation right on {sum(x['found'] == x['needed'] for x in rot)}/{len(rot)}")
        out.append("")
    if start:
        page_cpu = start["page_cpu"]
        out += ["### Start-up", "",
                "`shoebox scan tesseract/phototest.tif -o out.json` (the engine in its worker process), alternated with the "
                f"baseline when given; medians of {len(start['arms']['shoebox'])}. 'Around the page' = process wall minus the "
                "document's own seconds, and process CPU (the scan process and its worker) minus the CPU of the same page "
                f"read by a warm engine in the benchmark's process ({page_cpu:.2f} CPU s).", "",
                "| arm | process wall s | page s | around the page, wall s | process CPU s | around the page, CPU s |",
                "|---|---|---|---|---|---|"]
        for name, runs in start["arms"].items():
            wall = statistics.median(w for w, _, _ in runs)
            page = statistics.median(p for _, p, _ in runs)
            over = statistics.median(w - p for w, p, _ in runs)
            cpu = statistics.median(c for _, _, c in runs)
            label = "Shoebox" if name == "shoebox" else f"baseline ({baseline})"
            out.append(f"| {label} | {wall:.2f} | {page:.2f} | **{over:.2f}** | {cpu:.2f} | {cpu - page_cpu:.2f} |")
        load = start.get("load") or ("?", "?")
        out += ["", f"Load average {load[0]} before these runs, {load[1]} after. "
                "Target: at most 0.5 s more than the page itself (on a quiet machine).", ""]
    if mem:
        out += ["### Memory", "", f"- `ocrmypdf/multipage.pdf` (6 pages, one of 9000 x 9000 px): peak RSS of the main process "
                f"{mem['big_peak_mb']:.0f} MiB, of its engine worker (which opens, renders and reads the pages) "
                f"{mem.get('big_worker_peak_mb') or 0:.0f} MiB (target <= 1 GB), {mem['big_wall']:.1f} s wall"]
        rss = mem.get("long_rss") or []
        if rss:
            k = max(1, len(rss) // 10)
            early, late = statistics.median(rss[k:2 * k] or rss[:1]), statistics.median(rss[-k:])
            out.append(f"- a batch of {len(rss)} distinct receipt documents ({mem.get('long_distinct', '?')} distinct content hashes; "
                       "derived at run time from the receipts above by crops of 0-23 px and JPEG re-encoding, in a temporary "
                       f"folder) in one process: RSS after documents {k + 1}-{2 * k}: {early:.0f} MiB, "
                       f"after the last {k}: {late:.0f} MiB (growth {late - early:+.0f} MiB); peak {mem['long_peak_mb']:.0f} MiB, "
                       f"engine worker {mem.get('long_worker_peak_mb') or 0:.0f} MiB")
            wrss = mem.get("long_worker_rss") or []
            if len(wrss) == len(rss):
                w_early, w_late = statistics.median(wrss[k:2 * k] or wrss[:1]), statistics.median(wrss[-k:])
                out.append(f"- the engine worker's RSS after the same documents: {w_early:.0f} MiB, then {w_late:.0f} MiB "
                           f"(growth {w_late - w_early:+.0f} MiB)")
        out.append("")
    return "\n".join(out)


def compile_bytecode(repo: Path) -> None:
    """Compile the checkout's Python files to bytecode (``__pycache__``, ignored by git), as an installed
    Shoebox has them (pip and PyInstaller compile them): without it, an environment with
    ``PYTHONDONTWRITEBYTECODE`` set (this machine's) compiles every module of ``desktop`` from source in
    every process, the scan's and its engine worker's (about 0.2 CPU s a ``shoebox scan``, measured
    2026-12-02 on the loaded machine)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "desktop", "benchmarks"], cwd=repo, check=True,
                   capture_output=True, timeout=600)


def write_section(path: Path, body: str) -> None:
    """Replace (or append) the text between the bench_speed markers of ``path``."""
    from benchmarks.sections import write_section as write

    write(path, START, END, body)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--receipts", type=int, default=40, help="receipts to time (default 40)")
    ap.add_argument("--chunk", type=int, default=10, help="receipts per shoebox scan process (default 10)")
    ap.add_argument("--baseline", type=Path, help="another checkout to time alongside (e.g. the main branch)")
    ap.add_argument("--long", type=int, default=0, help="documents in the long memory batch (0: skip)")
    ap.add_argument("--skip", action="append", default=[], choices=["receipts", "rotation", "startup", "memory"])
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--repeats", type=int, default=REPEATS, help="alternated timings per turned page (default 2)")
    ap.add_argument("--from-source", action="store_true",
                    help="do not compile the checkouts' bytecode first (see compile_bytecode)")
    args = ap.parse_args(argv)
    globals()["REPEATS"] = max(1, args.repeats)
    if not args.from_source:
        for repo in (REPO, args.baseline):
            if repo is not None:
                compile_bytecode(repo)
    globals()["BYTECODE"] = not args.from_source
    load_start = _load()
    files = receipts(args.receipts)
    rec = None if "receipts" in args.skip else bench_receipts(files, args.chunk, args.baseline)
    rot = [] if "rotation" in args.skip else bench_rotation()
    start = None if "startup" in args.skip else bench_startup(baseline=args.baseline)
    mem = {} if "memory" in args.skip else bench_memory(args.long, files)
    command = "python benchmarks/bench_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    body = report(rec, rot, start, mem, command.strip(), load_start, _load(), args.baseline)
    print(body)
    if not args.no_write:
        write_section(REPO / "BENCHMARKS.md", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
