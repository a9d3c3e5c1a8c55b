"""Prove that a speed change leaves the OCR readings of the benchmark receipts byte for byte as they were.

The receipt field model (issue 7) is trained on recordings of what the CPU engine reads on ``sroie`` and
``sroie_dev`` (:mod:`benchmarks.ocr_cache`): a change that moves one word, box or line confidence there
invalidates those recordings. This records the readings through the whole ``shoebox scan`` path of a
checkout (its engine worker, with whatever it runs in parallel, and the JSON export), and compares two
recordings.

What is compared: for every file, each page's ``page_results`` entry of the exported JSON (size,
rotation, origin, warnings, and every line's text, box, polygon, confidence and words) -- the very
values the pipeline hands to field extraction. (The engine worker already sends its readings to the
main process rounded as :meth:`desktop.core.model.Line.to_dict` rounds them: 2 decimals for pixels, 4
for confidences; so these are all the digits anything downstream ever sees.) Fields are recorded too
but not compared: they also depend on the extraction code and the field model, which others change.

Usage::

    python -m benchmarks.check_readings record OUT.json [--repo CHECKOUT] [--corpus sroie ...] [--limit N]
    python -m benchmarks.check_readings compare BEFORE.json AFTER.json

``record`` runs ``python -m desktop.cli scan FILES -o tmp.json -q --no-memory`` in ``--repo`` (default:
this checkout). ``compare`` prints every file whose pages differ, with the first differing line, and
exits 1 when any does.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("SHOEBOX_SAMPLES", REPO.parent / "shared" / "samples"))
#: The corpora the receipt field model is trained on (:mod:`benchmarks.ocr_cache`).
CORPORA = ("sroie", "sroie_dev")


def corpus_files(corpora: tuple[str, ...] | list[str]) -> list[Path]:
    """Every ``.jpg`` of the named corpus folders, sorted by corpus then name."""
    return [p for c in corpora for p in sorted((SAMPLES / c).glob("*.jpg"))]


def record(repo: Path, files: list[Path], chunk: int = 60) -> dict[str, Any]:
    """``{"corpus/name": {"pages": [page_results entries], "fields": {...}}}`` read by ``repo``'s
    ``shoebox scan``, ``chunk`` files per process.

    Raises:
        RuntimeError: a scan process failed (exit status other than 0 or 1).
    """
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "scan.json"
        for start in range(0, len(files), chunk):
            part = files[start:start + chunk]
            cmd = [sys.executable, "-m", "desktop.cli", "scan", *map(str, part), "-o", str(target), "-q",
                   "--no-memory"]
            proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, timeout=7200)
            if proc.returncode not in (0, 1):
                raise RuntimeError(f"shoebox scan failed ({proc.returncode}): {proc.stderr[-2000:]}")
            data = json.loads(target.read_text(encoding="utf-8"))
            for doc in data["documents"]:
                source = Path(doc["source"])
                key = f"{source.parent.name}/{source.name}"
                out[key] = {"pages": doc.get("page_results", []), "error": doc.get("error"),
                            "fields": {k: (v or {}).get("value") for k, v in (doc.get("fields") or {}).items()}}
            print(f"  {min(start + chunk, len(files))}/{len(files)}", file=sys.stderr, flush=True)
    return out


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """One message per file whose pages (or error) differ, or that only one recording has."""
    problems = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            problems.append(f"{key}: only in the {'second' if a is None else 'first'} recording")
            continue
        if a.get("error") != b.get("error"):
            problems.append(f"{key}: error {a.get('error')!r} -> {b.get('error')!r}")
            continue
        pa, pb = a["pages"], b["pages"]
        if json.dumps(pa, sort_keys=True) == json.dumps(pb, sort_keys=True):
            continue
        if len(pa) != len(pb):
            problems.append(f"{key}: {len(pa)} pages -> {len(pb)}")
            continue
        for page_a, page_b in zip(pa, pb):
            la, lb = page_a.get("lines", []), page_b.get("lines", [])
            head_a = {k: v for k, v in page_a.items() if k != "lines"}
            head_b = {k: v for k, v in page_b.items() if k != "lines"}
            if head_a != head_b:
                problems.append(f"{key} page {page_a.get('number')}: {head_a} -> {head_b}")
                break
            first = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
            problems.append(f"{key} page {page_a.get('number')}: {len(la)} lines -> {len(lb)}; first difference at "
                            f"line {first}: {la[first] if first < len(la) else None} -> "
                            f"{lb[first] if first < len(lb) else None}")
            break
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record the readings of a checkout")
    rec.add_argument("out", type=Path)
    rec.add_argument("--repo", type=Path, default=REPO, help="the checkout whose `shoebox scan` reads (default: this one)")
    rec.add_argument("--corpus", action="append", choices=CORPORA, help="corpus to read (repeatable; default both)")
    rec.add_argument("--limit", type=int, default=0, help="only the first N files (0: all)")
    rec.add_argument("--chunk", type=int, default=60, help="files per scan process (default 60)")
    cmp_ = sub.add_parser("compare", help="compare two recordings")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.command == "record":
        files = corpus_files(args.corpus or CORPORA)
        if args.limit:
            files = files[:args.limit]
        t0 = time.perf_counter()
        readings = record(args.repo.resolve(), files, args.chunk)
        args.out.write_text(json.dumps(readings, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        print(f"recorded {len(readings)} files from {args.repo} in {time.perf_counter() - t0:.0f} s -> {args.out}")
        return 0
    before = json.loads(args.before.read_text(encoding="utf-8"))
    after = json.loads(args.after.read_text(encoding="utf-8"))
    problems = differences(before, after)
    for line in problems:
        print(line)
    common = len(set(before) & set(after))
    print(f"{common} files in both; {len(problems)} differ" + ("" if problems else ": the readings are identical"))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
