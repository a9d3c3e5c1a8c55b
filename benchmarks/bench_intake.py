"""Peak memory and time of intake on the largest real samples.

Each case runs in a fresh child process so ``ru_maxrss`` (peak resident set size, KiB on Linux)
belongs to that case alone. Prints one line per case; asserts nothing.

    python benchmarks/bench_intake.py [--budget 4000000] [--samples ../shared/samples]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CASES = [
    ("sroie/sroie_527.jpg", 1),  # 4961 x 7016 JPEG scan
    ("ocrmypdf/multipage.pdf", 2),  # a 2160 pt page holding a 9000 x 9000 image
    ("cn_invoice/vat_special_sichuan_photo.png", 1),  # 12 Mpx phone photo (a JPEG named .png)
    ("ocrmypdf/linn.png", 1),  # 2550 x 3300 palette PNG
]

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import numpy as np
from desktop.core.intake import load_page
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t1 = time.perf_counter()
page = load_page(sys.argv[1], int(sys.argv[2]))
array, scale = page.render(int(sys.argv[3]))
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"page_px": [page.width, page.height], "rendered": list(array.shape), "scale": scale,
                  "origin": page.origin, "rss_after_import_mb": base / 1024, "peak_rss_mb": peak / 1024,
                  "seconds": t2 - t1}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--budget", type=int, default=4_000_000)
    ap.add_argument("--samples", type=Path, default=Path(os.environ.get("SHOEBOX_SAMPLES", REPO.parent / "shared" / "samples")))
    args = ap.parse_args()
    for rel, number in CASES:
        path = args.samples / rel
        if not path.is_file():
            print(f"{rel}: missing, skipped")
            continue
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), str(number), str(args.budget)],
            cwd=REPO, capture_output=True, text=True, check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{rel} p{number}: page {r['page_px'][0]}x{r['page_px'][1]} px ({r['origin']}) -> "
            f"{r['rendered'][1]}x{r['rendered'][0]} (scale {r['scale']:.3f}) in {r['seconds']:.2f} s; "
            f"peak RSS {r['peak_rss_mb']:.0f} MB (after imports {r['rss_after_import_mb']:.0f} MB)"
        )


if __name__ == "__main__":
    main()
