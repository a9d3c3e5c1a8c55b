"""The optimised-model cache of onnxruntime sessions (:mod:`desktop.core.engines.ort_cache`)."""
from __future__ import annotations

import numpy as np
import pytest

from desktop.core.engines import ort_cache
from desktop.core.engines.ppocr import MODEL_FILES, model_dir
from desktop.core.engines.ppocr_stages import session_options

ort = pytest.importorskip("onnxruntime")


def _cls_model():
    return model_dir() / MODEL_FILES["Cls"]


def _run(session, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((3, 3, 48, 192)).astype(np.float32)
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def test_a_cached_optimised_model_gives_the_same_outputs_bit_for_bit(tmp_path):
    model = _cls_model()
    plain = ort.InferenceSession(str(model), sess_options=session_options(1), providers=["CPUExecutionProvider"])
    first = ort_cache.create_session(model, session_options(1), ["CPUExecutionProvider"], folder=tmp_path)
    cached = ort_cache.cached_model_path(model, int(ort.GraphOptimizationLevel.ORT_ENABLE_ALL), tmp_path)
    assert cached.is_file() and not list(tmp_path.glob("*.tmp"))
    options = session_options(1)
    again = ort_cache.create_session(model, options, ["CPUExecutionProvider"], folder=tmp_path)
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # loaded as optimised
    for seed in (0, 1):
        assert np.array_equal(_run(plain, seed), _run(first, seed))
        assert np.array_equal(_run(plain, seed), _run(again, seed))


def test_a_damaged_cached_model_is_replaced(tmp_path):
    model = _cls_model()
    cached = ort_cache.cached_model_path(model, int(ort.GraphOptimizationLevel.ORT_ENABLE_ALL), tmp_path)
    cached.write_bytes(b"not an onnx model")
    session = ort_cache.create_session(model, session_options(1), ["CPUExecutionProvider"], folder=tmp_path)
    assert _run(session).shape == (3, 2)
    assert cached.stat().st_size > 1000  # written again, whole


def test_an_unwritable_cache_still_gives_a_session(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("x")
    session = ort_cache.create_session(_cls_model(), session_options(1), ["CPUExecutionProvider"],
                                       folder=blocker / "onnx")
    assert _run(session).shape == (3, 2)


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv(ort_cache.CACHE_ENV, "0")
    ort_cache.create_session(_cls_model(), session_options(1), ["CPUExecutionProvider"], folder=tmp_path)
    assert not list(tmp_path.iterdir())


def test_the_cached_name_follows_the_cpu_the_runtime_and_the_level(tmp_path, monkeypatch):
    model = _cls_model()
    level = int(ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    here = ort_cache.cached_model_path(model, level, tmp_path)
    assert here == ort_cache.cached_model_path(model, level, tmp_path)
    assert here != ort_cache.cached_model_path(model, int(ort.GraphOptimizationLevel.ORT_ENABLE_BASIC), tmp_path)
    monkeypatch.setattr(ort, "__version__", "0.0.0")
    assert here != ort_cache.cached_model_path(model, level, tmp_path)
    monkeypatch.undo()
    monkeypatch.setattr(ort_cache, "_cpu_identity", lambda: "another cpu")
    assert here != ort_cache.cached_model_path(model, level, tmp_path)


def test_the_cache_is_under_the_user_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SHOEBOX_HOME", str(tmp_path))
    monkeypatch.delenv(ort_cache.CACHE_DIR_ENV, raising=False)
    ort_cache.create_session(_cls_model(), session_options(1), ["CPUExecutionProvider"])
    assert [p.suffix for p in (tmp_path / "cache" / "onnx").iterdir()] == [".onnx"]


def test_the_cache_folder_can_be_named(tmp_path, monkeypatch):
    monkeypatch.setenv(ort_cache.CACHE_DIR_ENV, str(tmp_path / "shared"))
    ort_cache.create_session(_cls_model(), session_options(1), ["CPUExecutionProvider"])
    assert len(list((tmp_path / "shared").glob("*.onnx"))) == 1
