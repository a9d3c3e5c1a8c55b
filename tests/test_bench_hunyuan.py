"""benchmarks/bench_hunyuan.py --tiny runs end to end on the CPU (code path only; figures meaningless)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.gpu_stack
def test_bench_tiny_on_cpu(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from PIL import Image

    samples = tmp_path / "samples"
    (samples / "sroie").mkdir(parents=True)
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 256, (500, 300, 3), dtype=np.uint8)).save(samples / "sroie" / "r1.png")
    (samples / "sroie" / "r1.key.json").write_text(json.dumps(
        {"company": "SHOP SDN BHD", "date": "25/12/2018", "address": "1 JALAN", "total": "9.00"}), encoding="utf-8")
    (samples / "MANIFEST.tsv").write_text(
        "path\tkind\tlanguage\tground_truth\tfields\tnotes\n"
        "sroie/r1.png\treceipt\ten\tsroie/r1.key.json\tcompany,date,address,total\tsynthetic\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(REPO))
    import torch

    from benchmarks import bench_hunyuan

    threads = torch.get_num_threads()
    try:
        rc = bench_hunyuan.main(["--tiny", "--device", "cpu", "--samples", str(samples), "--no-ppocr", "--no-append"])
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert rc == 0
    assert "| HunyuanOCR |" in out and "(batch 4)" in out
    assert "OOM retry at half resolution: ok" in out
    assert "dtype on cpu: float32" in out
