"""Load benchmark of the office-server engine: many desktops against one OpenAI-compatible server.

The server is ``tests/openai_server.py`` in its own process on 127.0.0.1 (so the memory measured here is
the clients'), answering every page with a recorded HunyuanOCR 1.5 spotting answer after a fixed
per-page latency, with a bounded number of pages handled at once (the rest queue, as vLLM's scheduler
queues requests beyond its batch). Each simulated desktop is one :class:`ServerEngine` (its own
connection pool, ``max_in_flight`` pages at once) reading its pages with ``read_pages`` in its own
thread; all desktops run in this one process.

Scenarios:
1. ``load``: D desktops x P pages: pages/s, per-page latency p50/p95 (request sent to answer parsed),
   fairness between desktops (Jain's index over per-desktop throughput, 1.0 = equal; slowest/fastest
   desktop finish time), client memory (RSS growth of this process).
2. ``stop``: the server process is killed when a third of the pages are answered: every page must end
   read or failed with a message (none lost), counted; then again with the CPU fallback allowed
   (a fake CPU engine), where every page must end read.

Usage::

    python benchmarks/bench_server.py [--desktops 20] [--pages 50] [--latency 0.25] [--capacity 32] [--no-write]
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from desktop.core.engines.base import EngineError, PageReading  # noqa: E402
from desktop.core.engines.server import ServerConfig, ServerEngine  # noqa: E402
from tests.fake_engines import FakeEngine, RecordedPage  # noqa: E402

SECTION = "## Office server engine under load (bench_server.py)"
ANSWER = REPO / "tests" / "data" / "hunyuan" / "spotting_json.txt"


class ServerProcess:
    def __init__(self, latency: float, capacity: int) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.openai_server", "--answer-file", str(ANSWER), "--latency", str(latency),
             "--capacity", str(capacity)], cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError("the test server did not start")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/v1"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def page_image(i: int) -> np.ndarray:
    """A 500 x 700 px page: white with 30 dark bars where text lines would be (JPEG about 20 KB, like a
    clean receipt scan; random noise would make every JPEG ten times larger than a real page's)."""
    rng = np.random.default_rng(i)
    image = np.full((700, 500, 3), 250, dtype=np.uint8)
    for row in range(30):
        y = 20 + row * 22
        x0, x1 = sorted(rng.integers(20, 480, 2))
        image[y:y + 10, x0:x1] = rng.integers(0, 80)
    return image


class Desktop(threading.Thread):
    def __init__(self, n: int, url: str, pages: list[np.ndarray], *, in_flight: int, fallback: bool = False) -> None:
        super().__init__(name=f"desktop-{n}", daemon=True)
        cpu = RecordedPage(500, 700, [{"text": "CPU", "box": [1, 1, 50, 20], "confidence": 0.8}])
        self.engine = ServerEngine(ServerConfig(url, max_in_flight=in_flight, retries=2, backoff_s=0.05,
                                                backoff_max_s=0.5, connect_timeout_s=2, read_timeout_s=30,
                                                down_retry_s=60, cpu_fallback=fallback),
                                   fallback=lambda: FakeEngine([cpu]))
        self.pages = pages
        self.latencies: list[float] = []
        self.results: list[object] = []
        self.started_at = self.finished_at = 0.0
        self.on_page = None
        original = self.engine._read

        def timed(image):  # per-page latency: request sent to answer parsed
            t = time.perf_counter()
            try:
                return original(image)
            finally:
                self.latencies.append(time.perf_counter() - t)
                if self.on_page is not None:
                    self.on_page()

        self.engine._read = timed  # type: ignore[method-assign]

    def run(self) -> None:
        self.started_at = time.perf_counter()
        self.results = self.engine.read_pages(self.pages)
        self.finished_at = time.perf_counter()
        self.engine.close()


def jain(values: list[float]) -> float:
    """Jain's fairness index (Jain, Chiu, Hawe 1984): (sum x)^2 / (n * sum x^2); 1.0 when all equal."""
    return sum(values) ** 2 / (len(values) * sum(v * v for v in values)) if values else 0.0


def load(desktops: int, pages: int, latency: float, capacity: int, in_flight: int) -> dict[str, float]:
    server = ServerProcess(latency, capacity)
    try:
        images = [page_image(i) for i in range(pages)]
        before = rss_mb()
        fleet = [Desktop(n, server.url, images, in_flight=in_flight) for n in range(desktops)]
        for d in fleet:
            d.engine.connect()
        t0 = time.perf_counter()
        for d in fleet:
            d.start()
        peak = before
        while any(d.is_alive() for d in fleet):
            peak = max(peak, rss_mb())
            time.sleep(0.05)
        wall = time.perf_counter() - t0
    finally:
        server.kill()
    lat = sorted(x for d in fleet for x in d.latencies)
    ok = sum(1 for d in fleet for r in d.results if isinstance(r, PageReading))
    rates = [pages / (d.finished_at - d.started_at) for d in fleet]
    finish = [d.finished_at - t0 for d in fleet]
    return {
        "pages": desktops * pages, "read": ok, "wall": wall, "pps": ok / wall,
        "p50": lat[len(lat) // 2], "p95": lat[int(len(lat) * 0.95)], "jain": jain(rates),
        "first_done": min(finish), "last_done": max(finish), "rss_growth": peak - before,
        "ideal_pps": capacity / latency,
    }


def stop(desktops: int, pages: int, latency: float, capacity: int, in_flight: int, fallback: bool) -> dict[str, float]:
    server = ServerProcess(latency, capacity)
    images = [page_image(i) for i in range(pages)]
    fleet = [Desktop(n, server.url, images, in_flight=in_flight, fallback=fallback) for n in range(desktops)]
    done = [0]
    lock = threading.Lock()
    kill_at = desktops * pages // 3

    def on_page() -> None:
        with lock:
            done[0] += 1
            if done[0] == kill_at:
                threading.Thread(target=server.kill, daemon=True).start()

    for d in fleet:
        d.on_page = on_page
        d.engine.connect()
    t0 = time.perf_counter()
    for d in fleet:
        d.start()
    for d in fleet:
        d.join(120)
    wall = time.perf_counter() - t0
    server.kill()
    results = [r for d in fleet for r in d.results]
    read = sum(1 for r in results if isinstance(r, PageReading))
    failed = [r for r in results if isinstance(r, EngineError)]
    named = sum(1 for r in failed if "could not be reached" in str(r) or "dropped" in str(r))
    fallback_pages = sum(d.engine.pages_fallback for d in fleet)
    return {"pages": desktops * pages, "accounted": len(results), "read": read, "failed": len(failed),
            "failed_with_reason": named, "fallback": fallback_pages, "server_read": read - fallback_pages,
            "wall": wall, "hung": sum(1 for d in fleet if d.is_alive())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--desktops", type=int, default=20)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.25, help="server seconds per page")
    parser.add_argument("--capacity", type=int, default=32, help="pages the server handles at once")
    parser.add_argument("--in-flight", type=int, default=4, help="pages each desktop sends at once")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    r = load(args.desktops, args.pages, args.latency, args.capacity, args.in_flight)
    s = stop(args.desktops // 4 or 1, args.pages, args.latency, args.capacity, args.in_flight, fallback=False)
    f = stop(args.desktops // 4 or 1, args.pages, args.latency, args.capacity, args.in_flight, fallback=True)
    text = f"""{SECTION}

{time.strftime('%Y-%m-%d')}, {platform.machine()} with {os.cpu_count()} cores, **shared and loaded by other
jobs** (absolute figures are this machine's, not a GPU server's). Test server (tests/openai_server.py) in its
own process on 127.0.0.1: {args.latency:.2f} s per page, {args.capacity} pages at once (ideal
{r['ideal_pps']:.0f} pages/s); the recorded HunyuanOCR 1.5 spotting answer, streamed. Each desktop = one
ServerEngine, {args.in_flight} pages in flight, {args.pages} pages of 500x700 px (JPEG-encoded per request).

| {args.desktops} desktops x {args.pages} pages | figure |
|---|---|
| pages read | {r['read']} of {r['pages']} |
| wall time | {r['wall']:.1f} s |
| throughput | {r['pps']:.1f} pages/s ({100 * r['pps'] / r['ideal_pps']:.0f}% of the server's ideal) |
| latency per page, p50 / p95 | {r['p50']:.2f} s / {r['p95']:.2f} s (server alone {args.latency:.2f} s; {args.desktops * args.in_flight} pages in flight for {args.capacity} slots make each take about {args.desktops * args.in_flight / args.capacity * args.latency:.2f} s) |
| fairness (Jain's index over desktops' pages/s) | {r['jain']:.3f} |
| first / last desktop done | {r['first_done']:.1f} s / {r['last_done']:.1f} s |
| client memory (peak RSS growth, all {args.desktops} desktops and their {args.desktops * args.in_flight} sender threads in one process) | {r['rss_growth']:.0f} MB ({r['rss_growth'] / args.desktops:.1f} MB per desktop) |

Server killed when a third of the pages were answered ({s['pages']} pages, {args.desktops // 4 or 1} desktops):

| | no CPU fallback (default) | CPU fallback allowed |
|---|---|---|
| pages accounted for | {s['accounted']} of {s['pages']} | {f['accounted']} of {f['pages']} |
| read by the server | {s['server_read']} | {f['server_read']} |
| read on the CPU (fake CPU engine), each with a warning | {s['fallback']} | {f['fallback']} |
| failed with "could not be reached" | {s['failed_with_reason']} of {s['failed']} failed | {f['failed_with_reason']} of {f['failed']} failed |
| desktops still hanging | {s['hung']} | {f['hung']} |
| wall time | {s['wall']:.1f} s | {f['wall']:.1f} s |
"""
    print(text)
    if not args.no_write:
        path = REPO / "BENCHMARKS.md"
        old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
        if SECTION in old:
            head, _, rest = old.partition(SECTION)
            ends = [i for i in (rest.find("\n## "), rest.find("\n<!--")) if i >= 0]  # next section or marker
            nxt = min(ends) if ends else -1
            old = head.rstrip() + "\n" + (rest[nxt:] if nxt >= 0 else "")
        path.write_text(old.rstrip() + "\n\n" + text.rstrip() + "\n", encoding="utf-8")
    lost = s["pages"] - s["accounted"] + f["pages"] - f["accounted"]
    return 1 if lost or s["hung"] or f["hung"] or r["read"] != r["pages"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
