"""onnxruntime sessions from a cache of graph-optimised models, so that a worker starts sooner.

Creating a session with full graph optimisation (``ORT_ENABLE_ALL``: constant folding, node fusions,
the CPU's NCHWc convolution layouts) spends most of its time optimising the graph. onnxruntime can write
the optimised graph out (``SessionOptions.optimized_model_filepath``) and load it later with graph
optimisation off: the same graph, so the same kernels and the same outputs, bit for bit (tested on the
PP-OCR detector, recogniser and classifier, ``tests/test_ort_cache.py``). Measured 2026-12-02 on the
shared 2-core machine (loaded, 3 runs each): the three PP-OCR sessions 0.21-0.25 CPU s created from the
wheel's models, 0.10 from the optimised ones; a ``shoebox scan`` worker waits for them before its first page.

An optimised model is only valid for the onnxruntime build and the CPU that wrote it (the NCHWc layouts
depend on the CPU's vector width; onnxruntime documents offline-optimised models with layout
optimisations as hardware-specific), so the cached file's name digests the model file (path, size,
modification time), the optimisation level, the onnxruntime version and the CPU (machine, model name
and flags from ``/proc/cpuinfo`` where there is one). The first session of a model writes it (about
0.1 CPU s more, once; 32 MB for PP-OCR's three models), in ``settings.user_cache_dir()/onnx``,
through a temporary file renamed into place, so concurrent workers never read half a file. Any failure
(a read-only cache, a damaged file) falls back to the wheel's model, optimised as before.
"""
from __future__ import annotations

import hashlib
import logging
import os
import platform
from functools import cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: Environment variable that turns the cache off (``0``): every session optimises its model again.
CACHE_ENV = "SHOEBOX_ORT_CACHE"
#: Environment variable naming the cache's folder instead of ``settings.user_cache_dir()/onnx`` (the test
#: suite shares one among its tests, each of which has a home of its own).
CACHE_DIR_ENV = "SHOEBOX_ORT_CACHE_DIR"
#: Bump to invalidate every cached model (a change to what is written or how it is named).
FORMAT = 1


@cache
def _cpu_identity() -> str:
    """The CPU as far as optimised graphs depend on it: machine, model name and instruction-set flags."""
    parts = [platform.machine()]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key = line.split(":", 1)[0].strip()
                if key in ("model name", "flags", "Features", "CPU part") and line not in parts:
                    parts.append(line.strip())
                if line.strip() == "" and len(parts) > 1:
                    break  # the first processor's block is enough
    except OSError:
        parts.append(platform.processor())
    return "\n".join(parts)


def cached_model_path(model_path: str | Path, level: int, folder: Path | None = None) -> Path:
    """Where the optimised form of ``model_path`` at graph optimisation ``level`` is cached (see the
    module docstring for what its name depends on): in ``folder``, else the folder ``SHOEBOX_ORT_CACHE_DIR``
    names, else ``settings.user_cache_dir()/onnx``."""
    import onnxruntime as ort

    model = Path(model_path)
    stat = model.stat()
    key = "\n".join([str(FORMAT), str(model.resolve()), str(stat.st_size), str(stat.st_mtime_ns), str(int(level)),
                     ort.__version__, _cpu_identity()])
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=12).hexdigest()
    if folder is None and os.environ.get(CACHE_DIR_ENV):
        folder = Path(os.environ[CACHE_DIR_ENV])
    if folder is None:
        from desktop.core.settings import user_cache_dir

        folder = user_cache_dir() / "onnx"
    return folder / f"{model.stem}.{digest}.onnx"


def create_session(model_path: str | Path, options: Any, providers: list[str], *, folder: Path | None = None) -> Any:
    """An ``onnxruntime.InferenceSession`` of ``model_path`` with ``options``, from the cached optimised
    model when there is one (created with graph optimisation off), else from ``model_path`` (writing
    the optimised model for next time). ``options`` is changed (its optimisation level or output path).

    Raises:
        Exception: what onnxruntime raises for ``model_path`` itself (a cache failure is never raised).
    """
    import onnxruntime as ort

    if os.environ.get(CACHE_ENV, "1") == "0":
        return ort.InferenceSession(str(model_path), sess_options=options, providers=providers)
    level = options.graph_optimization_level
    try:
        cached = cached_model_path(model_path, int(level), folder)
    except (OSError, ValueError) as exc:
        log.debug("no optimised-model cache for %s: %s", model_path, exc)
        return ort.InferenceSession(str(model_path), sess_options=options, providers=providers)
    if cached.is_file():
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(cached), sess_options=options, providers=providers)
        except Exception as exc:  # a damaged or foreign file: drop it and optimise again
            log.warning("the cached optimised model %s cannot be loaded (%s); optimising %s again", cached, exc, model_path)
            options.graph_optimization_level = level
            _remove(cached)
    tmp = cached.with_name(f"{cached.stem}.{os.getpid()}.tmp")
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        options.optimized_model_filepath = str(tmp)
        session = ort.InferenceSession(str(model_path), sess_options=options, providers=providers)
    except Exception as exc:  # the cache cannot be written (a read-only folder, a full disk): go without
        log.debug("the optimised model of %s was not cached: %s", model_path, exc)
        _remove(tmp)
        options.optimized_model_filepath = ""
        return ort.InferenceSession(str(model_path), sess_options=options, providers=providers)
    try:
        os.replace(tmp, cached)
    except OSError as exc:
        log.debug("the optimised model of %s was not cached: %s", model_path, exc)
        _remove(tmp)
    return session


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
