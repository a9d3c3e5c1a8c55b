"""OCR engines behind one interface (:class:`~desktop.core.engines.base.Engine`).

``create_engine`` picks one by name. Engine modules are imported lazily: importing this package costs
nothing, so the window can show before onnxruntime, torch or transformers load.
"""
from __future__ import annotations

import logging
from pathlib import Path

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.engines.base import Engine, EngineError, EngineUnavailable

__all__ = ["ENGINE_NAMES", "Engine", "EngineError", "EngineUnavailable", "create_engine", "create_worker_engine"]

log = logging.getLogger(__name__)

ENGINE_NAMES = ("auto", "ppocr", "hunyuan")


def create_engine(name: str = "auto", model_dir: str | Path | None = None, *, notes: list[Diagnostic] | None = None) -> Engine:
    """Create an engine by name.

    Args:
        name: ``ppocr`` (PP-OCR on the CPU, the built-in default), ``hunyuan`` (HunyuanOCR through
            transformers; needs the ``[gpu]`` extra and a model folder) or ``auto`` (HunyuanOCR when a
            GPU and a complete model folder are present, else PP-OCR).
        model_dir: the HunyuanOCR model folder chosen by the user (``--model-dir`` / settings);
            other places are searched too (see :mod:`desktop.core.engines.hunyuan`).
        notes: when given, diagnostics are appended (for example why ``auto`` fell back
            to PP-OCR), for the status bar or stderr.

    Raises:
        EngineUnavailable: ``hunyuan`` was asked for explicitly and cannot run here (the message says
            what is missing and where it was looked for).
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if name in ("auto", "hunyuan"):
        from desktop.core.engines import hunyuan

        ok, reason = hunyuan.availability(model_dir, require_gpu=(name == "auto"))
        if ok:
            return hunyuan.HunyuanEngine(hunyuan.find_model_dir(model_dir))
        if name == "hunyuan":
            raise EngineUnavailable(reason)
        nothing_set_up = not any(path is not None and path.exists() for _, path in hunyuan.candidate_dirs(model_dir))
        if nothing_set_up:
            # The ordinary CPU-only office PC: one short line, the full search list goes to the log.
            log.info("HunyuanOCR not used: %s", reason)
            message = diag(Code.ENGINE_NOT_SET_UP)
        else:
            message = diag(Code.ENGINE_FALLBACK, reason=reason)
            log.info("%s", message)
        if notes is not None:
            notes.append(message)
    from desktop.core.engines.ppocr import PPOCREngine

    return PPOCREngine()


ENGINE_LABELS = {"auto": "OCR engine", "ppocr": "PP-OCR", "hunyuan": "HunyuanOCR"}


def create_worker_engine(name: str = "auto", model_dir: str | Path | None = None) -> Engine:
    """The engine the app uses: :func:`create_engine` run in a worker process
    (:class:`~desktop.core.engines.process.WorkerEngine`), so that a crash, a hang or an out-of-memory
    kill while reading costs one page, not the application.

    Creating it is free (nothing is started or imported); the worker starts on the first call or on
    ``warm_up()``, which raises what :func:`create_engine` raises there (``EngineUnavailable``). The
    notes :func:`create_engine` writes (why ``auto`` fell back to PP-OCR) arrive as ``load_notes``.

    Raises:
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    from desktop.core.engines.process import EngineSpec, WorkerEngine

    spec = EngineSpec("desktop.core.engines:create_engine",
                      {"name": name, "model_dir": str(model_dir) if model_dir else None}, label=ENGINE_LABELS[name])
    return WorkerEngine(spec)
