"""The HunyuanOCR engine: model folder discovery, availability and fallback, and, on a tiny randomly
initialised model of the real architecture (tests/hunyuan_tiny.py), the real loading and generation path
on the CPU: prompts, batching, decoding, the repetition guard, the token bound and out-of-memory handling.

Tests that need torch/transformers (the ``[gpu]`` extra) skip where it is not installed.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from desktop.core.diagnostics import Code, Diagnostic
from desktop.core.engines import EngineError, EngineUnavailable, create_engine, hunyuan, hunyuan_models
from desktop.core.engines.base import PageReading
from desktop.core.engines.hunyuan import (
    ENV_VAR,
    HunyuanEngine,
    availability,
    candidate_dirs,
    check_model_dir,
    find_model_dir,
)
from desktop.core.engines.hunyuan_output import MODEL_LINE_CONFIDENCE, SUSPECT_LINE_CONFIDENCE
from tests.hunyuan_tiny import GenerateSpy

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "hunyuan"
HAS_GPU_STACK = hunyuan._gpu_stack_problem() is None


def make_model_folder(path: Path, *, skip: tuple[str, ...] = (), shards: int = 0) -> Path:
    """A folder with the files of a model (empty placeholders; only names are checked)."""
    path.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "preprocessor_config.json", "tokenizer_config.json", "tokenizer.json"):
        if name not in skip:
            (path / name).write_text("{}", encoding="utf-8")
    if shards:
        names = [f"model-{i:05d}-of-{shards:05d}.safetensors" for i in range(1, shards + 1)]
        index = {"metadata": {}, "weight_map": {f"layer{i}.weight": n for i, n in enumerate(names)}}
        (path / "model.safetensors.index.json").write_text(json.dumps(index), encoding="utf-8")
        for n in names:
            if n not in skip:
                (path / n).write_bytes(b"")
    elif "model.safetensors" not in skip:
        (path / "model.safetensors").write_bytes(b"")
    return path


@pytest.fixture(autouse=True)
def _no_env_folder(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


# ---------------------------------------------------------------------------------------------- import


def test_import_loads_neither_torch_nor_transformers():
    code = ("import sys, desktop.core.engines.hunyuan as h; "
            "h.availability(None, require_gpu=True); "
            "print('torch' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]  # no model folder: torch is never needed to say so


# ---------------------------------------------------------------------------------------------- folder


@pytest.mark.parametrize(
    "skip, shards, missing",
    [
        ((), 0, []),
        ((), 4, []),
        (("config.json",), 0, ["config.json"]),
        (("preprocessor_config.json",), 0, ["preprocessor_config.json"]),
        (("tokenizer.json",), 0, ["tokenizer files (tokenizer_config.json and tokenizer.json)"]),
        (("model.safetensors",), 0, ["weights (model.safetensors or model.safetensors.index.json with its shards)"]),
        (("model-00003-of-00004.safetensors",), 4, ["weights (model-00003-of-00004.safetensors)"]),
    ],
)
def test_check_model_dir(tmp_path, skip, shards, missing):
    assert [str(m) for m in check_model_dir(make_model_folder(tmp_path / "m", skip=skip, shards=shards))] == missing


def test_check_model_dir_missing_folder_and_alternatives(tmp_path):
    assert [str(m) for m in check_model_dir(tmp_path / "nope")] == ["the folder does not exist"]
    folder = make_model_folder(tmp_path / "m", skip=("tokenizer.json", "preprocessor_config.json"))
    (folder / "hy.tiktoken").write_text("", encoding="utf-8")
    (folder / "processor_config.json").write_text("{}", encoding="utf-8")
    assert check_model_dir(folder) == []


def test_find_model_dir_order(tmp_path, monkeypatch, shoebox_home):
    arg = make_model_folder(tmp_path / "arg")
    env = make_model_folder(tmp_path / "env")
    user = make_model_folder(shoebox_home / "data" / "models" / "HunyuanOCR")
    monkeypatch.setenv(ENV_VAR, str(env))
    assert find_model_dir(arg) == arg                       # 1. --model-dir / settings
    assert find_model_dir(None) == env                      # 2. environment variable
    assert find_model_dir(tmp_path / "missing") == env      # an unusable argument falls through
    monkeypatch.delenv(ENV_VAR)
    assert find_model_dir("") == user                       # 3. user data folder ("" = not set in settings)


def test_find_model_dir_beside_frozen_app(tmp_path, monkeypatch):
    exe = tmp_path / "Shoebox" / "Shoebox.exe"
    exe.parent.mkdir()
    exe.write_bytes(b"")
    beside = make_model_folder(exe.parent / "models" / "HunyuanOCR")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    assert find_model_dir(None) == beside


def test_find_model_dir_missing_lists_every_place(tmp_path, monkeypatch, shoebox_home):
    incomplete = make_model_folder(tmp_path / "arg", skip=("model.safetensors", "config.json"))
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env-missing"))
    with pytest.raises(EngineUnavailable) as info:
        find_model_dir(incomplete)
    message = str(info.value)
    assert f"--model-dir / settings {incomplete}: missing config.json, weights" in message
    assert f"${ENV_VAR} {tmp_path / 'env-missing'}: does not exist" in message
    assert str(shoebox_home / "data" / "models" / "HunyuanOCR") in message
    assert str(REPO / "models" / "HunyuanOCR") in message   # beside the package (a checkout)
    places = [where for where, _ in candidate_dirs(incomplete)]
    assert places[:3] == ["--model-dir / settings", f"${ENV_VAR}", "user data folder"]


def test_availability_reports_missing_extra_and_folder(monkeypatch):
    real_find_spec = hunyuan_models.importlib.util.find_spec
    monkeypatch.setattr(hunyuan_models.importlib.util, "find_spec",
                        lambda name, *a: None if name in ("torch", "transformers") else real_find_spec(name, *a))
    ok, reason = availability(None, require_gpu=True)
    assert not ok and reason.code is Code.HUNYUAN_PROBLEMS
    assert "[gpu] extra is not installed (torch and transformers missing" in str(reason)
    assert "no complete HunyuanOCR model folder found (looked in:" in str(reason)
    # the same reason in the Chinese UI: every clause in Chinese (paths and file names stay as they are)
    chinese = reason.message("zh")
    assert "没有安装可选的 [gpu] 组件" in chinese and "没有找到完整的 HunyuanOCR 模型文件夹" in chinese
    assert "用户数据文件夹" in chinese and "looked in" not in chinese and "not set" not in chinese
    # and it survives the JSON of a saved note
    assert Diagnostic.from_dict(json.loads(json.dumps(reason.to_dict()))).message("zh") == chinese


def test_create_engine_hunyuan_without_folder_raises_with_places(shoebox_home):
    with pytest.raises(EngineUnavailable) as info:
        create_engine("hunyuan", None)
    assert "looked in:" in str(info.value)
    assert str(shoebox_home / "data" / "models" / "HunyuanOCR") in str(info.value)


def test_create_engine_auto_falls_back_to_ppocr():
    ppocr = importlib.import_module("desktop.core.engines.ppocr")  # helper "pipeline" writes PPOCREngine
    notes: list[Diagnostic] = []
    engine = create_engine("auto", None, notes=notes)
    assert isinstance(engine, ppocr.PPOCREngine)
    # Nothing set up anywhere (the ordinary office PC): one short line, not the whole search list.
    assert [n.code for n in notes] == [Code.ENGINE_NOT_SET_UP]
    assert str(notes[0]) == "HunyuanOCR is not set up on this computer; using PP-OCR on the CPU."


def test_create_engine_auto_explains_an_incomplete_folder(tmp_path, monkeypatch):
    """A folder that exists but is incomplete is worth the full explanation."""
    ppocr = importlib.import_module("desktop.core.engines.ppocr")
    (tmp_path / "config.json").write_text("{}")
    notes: list[Diagnostic] = []
    engine = create_engine("auto", tmp_path, notes=notes)
    assert isinstance(engine, ppocr.PPOCREngine)
    assert notes and notes[0].code == Code.ENGINE_FALLBACK and "looked in:" in notes[0].message()


def test_create_engine_auto_passes_the_reason_on(tmp_path, monkeypatch):
    """The fallback note carries availability()'s reason (PP-OCR replaced by a stand-in class here, so
    this runs whether or not helper "pipeline"'s PPOCREngine is present)."""
    import types

    stub = types.ModuleType("desktop.core.engines.ppocr")

    class StandIn:
        pass

    stub.PPOCREngine = StandIn
    monkeypatch.setitem(sys.modules, "desktop.core.engines.ppocr", stub)
    monkeypatch.setattr(hunyuan_models, "availability", lambda model_dir, require_gpu: (False, "no CUDA GPU available (test)"))
    notes: list[Diagnostic] = []
    assert isinstance(create_engine("auto", tmp_path, notes=notes), StandIn)
    assert [str(n) for n in notes] == ["HunyuanOCR not used: no CUDA GPU available (test). Using PP-OCR on the CPU."]


@pytest.mark.skipif(not HAS_GPU_STACK, reason="needs the [gpu] extra (torch, transformers)")
def test_availability_needs_a_gpu_for_auto(tmp_path):
    import torch

    folder = make_model_folder(tmp_path / "m")
    ok, ready = availability(folder, require_gpu=False)
    assert ok and str(ready) == f"HunyuanOCR model in {folder}"
    ok, reason = availability(folder, require_gpu=True)
    if torch.cuda.is_available():
        assert ok
    else:
        assert not ok and str(reason).startswith("no CUDA GPU available")
        assert reason.message("zh").startswith("没有可用的 CUDA 显卡")


def test_engine_rejects_incomplete_folder(tmp_path):
    with pytest.raises(EngineUnavailable, match="incomplete: missing config.json"):
        HunyuanEngine(make_model_folder(tmp_path / "m", skip=("config.json",)))


# ---------------------------------------------------------------------------------------------- tiny model

gpu_stack = pytest.mark.skipif(not HAS_GPU_STACK, reason="needs the [gpu] extra (torch, transformers)")


@pytest.fixture
def engine(tiny_model_dir, _one_thread) -> HunyuanEngine:
    eng = HunyuanEngine(tiny_model_dir, device="cpu", max_pixels=160_000,
                        max_new_tokens={"spotting": 200, "fields": 120, "markdown": 120, "table": 120, "text": 120})
    yield eng
    eng.close()


def page(width: int, height: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


@gpu_stack
def test_loads_lazily_offline_on_cpu_in_float32(engine):
    assert not engine.loaded
    assert engine.describe() == "HunyuanOCR (CPU)"
    engine.warm_up()
    assert engine.loaded
    assert engine.describe() == "HunyuanOCR (CPU, float32)"
    assert any("CPU" in n and "minutes per page" in n for n in engine.load_notes)
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert engine._processor.tokenizer.padding_side == "left"
    assert type(engine._model).__name__ == "HunYuanVLForConditionalGeneration"
    engine.warm_up()  # loaded once


@gpu_stack
def test_two_differently_sized_pages_in_one_generate_call(engine, monkeypatch):
    engine.warm_up()
    spy = GenerateSpy(engine, monkeypatch)
    a, b = page(400, 300, 1), page(250, 500, 2)
    prompt = hunyuan.PROMPTS["spotting"]["zh"]
    batched = engine._generate([a, b], [prompt, prompt], 100)
    assert len(spy.calls) == 1 and spy.calls[0]["batch"] == 2
    assert spy.calls[0]["grid"][0] != spy.calls[0]["grid"][1]
    # left padding: each row continues its own prompt, so batched answers equal one-page answers
    single = [engine._generate([x], [prompt], 100)[0] for x in (a, b)]
    assert [g.raw_text for g in batched] == [g.raw_text for g in single]
    assert all(g.raw_text for g in batched)
    assert "检测并识别图片中的文字" in spy.calls[0]["prompt"]


@gpu_stack
def test_repetition_guard_stops_the_loop(engine):
    prompt = hunyuan.PROMPTS["text"]["en"]
    gen = engine._generate([page(400, 300)], [prompt], 400)[0]
    assert gen.stopped_by_guard and gen.suspect
    assert gen.new_tokens < 200           # far short of max_new_tokens: the tiny model loops at once
    assert len(gen.text) < len(gen.raw_text)
    assert any("repeated" in str(w) for w in gen.warnings)


@gpu_stack
def test_max_new_tokens_bounds_the_answer(engine, monkeypatch):
    engine.repetition_guard = False
    engine.warm_up()
    spy = GenerateSpy(engine, monkeypatch)
    answer = engine.run_task(page(300, 300), "markdown")
    assert spy.calls[0]["max_new_tokens"] == 120
    assert answer.suspect and any("length limit (120 tokens)" in str(w) for w in answer.warnings)
    gen = engine._generate([page(300, 300)], ["Extract the text in the image."], 40)[0]
    assert gen.new_tokens == 40 and gen.hit_token_limit and not gen.stopped_by_guard


@gpu_stack
def test_recorded_spotting_answer_through_the_real_decode(engine, monkeypatch):
    engine.warm_up()
    spy = GenerateSpy(engine, monkeypatch, answers=[(DATA / "spotting_stripped.txt").read_text(encoding="utf-8")])
    reading = engine.read_page(page(500, 400))
    lines = reading.lines
    assert [line.text for line in lines][:2] == ["TAN WOON YANN", "BOOK TA .K(TAMAN DAYA) SDN BHD"]
    assert lines[0].box == pytest.approx((42.0, 8.4, 458.0, 20.8))  # 0-1000 -> the 500 x 400 image given
    assert {line.confidence for line in lines} == {MODEL_LINE_CONFIDENCE}
    assert reading.warnings == [] and not reading.suspect and reading.seconds > 0
    assert len(spy.calls) == 1


@gpu_stack
def test_recognise_marks_lines_of_a_looping_answer(engine, monkeypatch):
    engine.warm_up()
    GenerateSpy(engine, monkeypatch, answers=[(DATA / "spotting_looping.txt").read_text(encoding="utf-8")])
    reading = engine.read_page(page(500, 400))
    lines = reading.lines
    assert [line.text for line in lines] == ["SUPERMARKET TESCO", "ITEM  QTY  AMOUNT", "MILK 1L  1  5.90"]
    assert {line.confidence for line in lines} == {SUSPECT_LINE_CONFIDENCE}
    assert reading.suspect and any("repeated" in str(w) for w in reading.warnings)


@gpu_stack
def test_extract_fields_prompt_and_recorded_answer(engine, monkeypatch):
    engine.warm_up()
    spy = GenerateSpy(engine, monkeypatch, answers=[(DATA / "fields_cn_vat_zh.txt").read_text(encoding="utf-8")])
    names = ["invoice_code", "date", "total", "currency"]
    values = engine.read_fields(page(400, 300), names, "zh").values
    assert "提取图片中的: ['发票代码', '开票日期', '价税合计（小写）', '币种'] 的字段内容，并按照 JSON 格式返回。" in spy.calls[0]["prompt"]
    assert values == {"invoice_code": "044031900111", "date": "2024年03月05日", "total": "￥77.10元", "currency": None}
    assert engine.fields_prompt(["total", "date"], "en") == \
        "Extract the content of the fields: ['total', 'date'] from the image and return it in JSON format."
    batch = engine.read_fields_pages([page(400, 300), page(300, 400)], names, "zh")
    assert len(spy.calls) == 2 and spy.calls[1]["batch"] == 2 and batch[0].values == batch[1].values == values


@gpu_stack
def test_extract_fields_on_nonsense_invents_nothing(engine):
    values = engine.read_fields(page(400, 300), ["vendor_name", "total"], "en").values
    assert values == {"vendor_name": None, "total": None}


@gpu_stack
def test_run_task(engine):
    assert isinstance(engine.run_task(page(300, 300), "table").text, str)
    with pytest.raises(EngineError, match="no task 'poem'"):
        engine.run_task(page(300, 300), "poem")


@gpu_stack
def test_out_of_memory_once_retries_at_half_the_pixels(engine, monkeypatch):
    engine.warm_up()
    spy = GenerateSpy(engine, monkeypatch, fail=1)
    reading = engine.read_page(page(800, 600))
    assert isinstance(reading.lines, list)
    assert len(spy.calls) == 2
    first, second = spy.pixels(0)[0], spy.pixels(1)[0]
    assert first <= engine.max_pixels and second <= engine.max_pixels // 2 < first
    assert any("reduced resolution" in str(w) for w in reading.warnings)


@gpu_stack
def test_out_of_memory_twice_fails_the_page(engine, monkeypatch):
    engine.warm_up()
    GenerateSpy(engine, monkeypatch, fail=2)
    with pytest.raises(EngineError, match="page too large for GPU memory: 800x600 px"):
        engine.read_page(page(800, 600))


@gpu_stack
def test_out_of_memory_in_a_batch_splits_it_and_the_batch_goes_on(engine, monkeypatch):
    engine.warm_up()
    engine.batch_size = 2
    # batch of 2 fails -> page 1 alone fails twice (full, half) -> page 2 alone succeeds
    spy = GenerateSpy(engine, monkeypatch, fail=3)
    results = engine.read_pages([page(400, 300, 1), page(300, 400, 2)])
    assert isinstance(results[0], EngineError) and "page too large for GPU memory" in str(results[0])
    assert isinstance(results[1], PageReading)
    assert [c["batch"] for c in spy.calls] == [2, 1, 1, 1]
    assert engine.batch_size == 1          # smaller batches from now on


@gpu_stack
def test_load_failure_is_clear_and_not_retried_per_page(tmp_path, tiny_model_dir, _one_thread):
    import shutil

    broken = tmp_path / "HunyuanOCR"
    shutil.copytree(tiny_model_dir, broken)
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    eng = HunyuanEngine(broken, device="cpu")
    with pytest.raises(EngineUnavailable, match=f"could not load HunyuanOCR from {broken}") as first:
        eng.read_page(page(100, 100))
    with pytest.raises(EngineUnavailable) as second:
        eng.read_page(page(100, 100))
    assert second.value is first.value
