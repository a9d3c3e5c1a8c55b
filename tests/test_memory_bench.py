"""The vendor-memory replay's own bookkeeping (``benchmarks.bench_memory``): how a repeat receipt's key
is classed for the floor analysis, and the report's breakdown beside the headline figures."""
from __future__ import annotations

import json
from pathlib import Path

from benchmarks.bench_memory import KEY_CLASSES, key_class, report


def _receipt(folder: Path, stem: str, address: str, printed: str | None) -> Path:
    image = folder / f"{stem}.jpg"
    image.write_bytes(b"")
    (folder / f"{stem}.key.json").write_text(json.dumps({"company": "KEDAI MAJU", "address": address,
                                                          "date": "11/01/2019", "total": "12.50"}))
    if printed is not None:  # SROIE's transcript: x1,y1,...,x4,y4,text per line
        (folder / f"{stem}.box.txt").write_text("".join(f"1,2,3,4,5,6,7,8,{line}\n" for line in printed.split("|")))
    return image


def test_a_repeat_key_is_confirmed_new_or_inconsistent(tmp_path: Path) -> None:
    earlier = {"no 8,jalan kenanga 3,68000 ampang"}
    same = _receipt(tmp_path, "a", "NO 8, JALAN KENANGA 3, 68000 AMPANG", "KEDAI MAJU|NO 8, JALAN KENANGA 3, 68000 AMPANG")
    assert key_class("vendor_address", same, "NO 8, JALAN KENANGA 3, 68000 AMPANG", earlier) == "confirmed"
    # a branch of its own, as its transcript reads it
    branch = _receipt(tmp_path, "b", "NO 2, JALAN MAWAR, 68000 AMPANG", "KEDAI MAJU|NO 2, JALAN MAWAR,|68000 AMPANG")
    assert key_class("vendor_address", branch, "NO 2, JALAN MAWAR, 68000 AMPANG", earlier) == "new"
    # a key that its own transcript does not read and no earlier receipt had: the annotator's slip
    slip = _receipt(tmp_path, "c", "NO 8, JALAN KENANGA 3, 68000 AMPNG", "KEDAI MAJU|NO 8, JALAN KENANGA 3, 68000 AMPANG")
    assert key_class("vendor_address", slip, "NO 8, JALAN KENANGA 3, 68000 AMPNG", earlier) == "inconsistent"
    # the same slip typed on an earlier receipt too is the vendor's key, not this receipt's slip
    assert key_class("vendor_address", slip, "NO 8, JALAN KENANGA 3, 68000 AMPNG",
                     earlier | {"no 8,jalan kenanga 3,68000 ampng"}) == "confirmed"
    # without a transcript nothing says it is a slip
    bare = _receipt(tmp_path, "d", "NO 9, JALAN KENANGA 3, 68000 AMPANG", None)
    assert key_class("vendor_address", bare, "NO 9, JALAN KENANGA 3, 68000 AMPANG", earlier) == "new"


def _run(consistency: dict[str, dict[str, list[int]]], misses: list[dict]) -> dict:
    return {"documents": 100, "count": {"first": 40, "repeat": 60}, "profiles": 40,
            "miss": {("repeat", "vendor_address", "with"): len(misses)}, "broke": {}, "fixed": {},
            "learnable": {}, "suggestions": 0, "wrong_suggestions": 0, "consistency": consistency,
            "repeat_misses": misses, "broken": []}


def test_the_report_gives_the_floor_beside_the_headline() -> None:
    def miss(receipt: str, cause: str) -> dict:
        return {"receipt": receipt, "field": "vendor_address", "got": "x", "truth": "y", "cause": cause,
                "action": None, "teacher": None}

    main = _run({"vendor_address": {"confirmed": [50, 0], "new": [6, 2], "inconsistent": [4, 3]},
                 "vendor_name": {"confirmed": [60, 0]}},
                [miss("r1", "key"), miss("r2", "key"), miss("r3", "key"), miss("r4", "print"), miss("r5", "kept")])
    shuffled = _run({"vendor_address": {"confirmed": [52, 0], "new": [5, 1], "inconsistent": [3, 1]}},
                    [miss("r1", "key"), miss("r5", "kept")])
    main["orders"] = [(1, shuffled)]
    text = report(main, None, "python -m benchmarks.bench_memory")
    rows = [line for line in text.splitlines() if line.startswith("| file names | vendor_address |")
            or line.startswith("| seed 1 | vendor_address |")]
    # the headline stays: 5 of 60 repeat receipts missed; the floor: 2 misses over 56 consistent keys
    assert "| vendor_address | " in text and "5 (8.3%)" in text
    assert rows == ["| file names | vendor_address | 50 (0) | 6 (2) | 4 (3) | 2 (3.6%) | 1 / 1 / 0 |",
                    "| seed 1 | vendor_address | 52 (0) | 5 (1) | 3 (1) | 1 (1.8%) | 0 / 1 / 0 |"]
    assert "r5 vendor_address (`kept`, 2 of 2 orders)" in text and "r4 vendor_address (`print`, 1 of 2 orders)" in text
    assert all(f"`{c}`" in text for c in KEY_CLASSES)
