"""OCR engines behind one interface (:class:`~desktop.core.engines.base.Engine`).

``create_engine`` picks one by name. Engine modules are imported lazily: importing this package costs
nothing, so the window can show before onnxruntime, torch or transformers load.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.engines.base import Engine, EngineError, EngineUnavailable

__all__ = ["ENGINE_NAMES", "Engine", "EngineError", "EngineUnavailable", "create_engine", "create_isolated_engine",
           "create_worker_engine"]

if TYPE_CHECKING:
    from desktop.core.engines.server import ServerConfig

log = logging.getLogger(__name__)

ENGINE_NAMES = ("auto", "ppocr", "hunyuan", "server")


def create_engine(name: str = "auto", model_dir: str | Path | None = None, *, notes: list[Diagnostic] | None = None,
                  server: ServerConfig | None = None, use_server: bool = True, cpu_in_worker: bool = False) -> Engine:
    """Create an engine by name.

    Args:
        name: ``ppocr`` (PP-OCR on the CPU, the built-in default), ``hunyuan`` (HunyuanOCR through
            transformers; needs the ``[gpu]`` extra and a model folder), ``server`` (HunyuanOCR on the
            office server, :mod:`desktop.core.engines.server`) or ``auto`` (the office server when one is
            configured and answers; else HunyuanOCR when a GPU and a complete model folder are present;
            else PP-OCR).
        model_dir: the HunyuanOCR model folder chosen by the user (``--model-dir`` / settings);
            other places are searched too (see :mod:`desktop.core.engines.hunyuan`).
        notes: when given, diagnostics are appended (for example why ``auto`` fell back
            to PP-OCR), for the status bar or stderr.
        server: the office server's configuration; ``None`` = from the environment and the saved
            settings (:meth:`~desktop.core.engines.server.ServerConfig.from_settings`).
        use_server: ``False``: ``auto`` does not look for the office server (it was tried already).
        cpu_in_worker: the office-server engine's CPU fallback (``cpu_fallback``) runs PP-OCR in a worker
            process (:func:`create_worker_engine`); only where this process may start one.

    Raises:
        EngineUnavailable: ``hunyuan`` or ``server`` was asked for explicitly and cannot run here (the
            message says what is missing, where it was looked for, or why the server is refused).
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if name == "server" or (name == "auto" and use_server):
        engine = _server_engine(name, server, notes, cpu_in_worker=cpu_in_worker)
        if engine is not None:
            return engine
    if name in ("auto", "hunyuan"):
        from desktop.core.engines import hunyuan

        ok, reason = hunyuan.availability(model_dir, require_gpu=(name == "auto"))
        if ok:
            return hunyuan.HunyuanEngine(hunyuan.find_model_dir(model_dir))
        if name == "hunyuan":
            exc = EngineUnavailable(str(reason))
            exc.diagnostic = reason  # type: ignore[attr-defined]  # shown in the UI's language
            raise exc
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


def _server_engine(name: str, config: ServerConfig | None, notes: list[Diagnostic] | None, *,
                   cpu_in_worker: bool = False) -> Engine | None:
    """The office-server engine for ``server`` (raises when it cannot be used) or ``auto`` (``None``
    when none is configured or it does not answer; a note says why)."""
    from desktop.core.engines import server as srv

    if config is None:
        config = srv.ServerConfig.from_settings()
    if config is None:
        if name == "server":
            raise srv.ServerUnavailable(diag(Code.SERVER_NOT_CONFIGURED))
        return None
    try:
        engine = srv.ServerEngine(config, fallback=_ppocr_in_worker if cpu_in_worker else None)
    except EngineError as exc:  # ServerRefused (privacy policy), or a name that does not resolve
        reason = getattr(exc, "diagnostic", None) or diag(Code.ENGINE_FAILED, detail=str(exc))
        if name == "server":
            raise srv.ServerUnavailable(reason) from None
        message = diag(Code.SERVER_NOT_USED, reason=reason)
        log.warning("%s", message)
        if notes is not None:
            notes.append(message)
        return None
    if name == "server":
        return engine  # warm_up() connects; it raises, or falls back to the CPU when the settings allow
    try:
        engine.connect(retries=0)
    except EngineError as exc:
        engine.close()
        message = diag(Code.SERVER_NOT_USED, reason=getattr(exc, "diagnostic", None) or str(exc))
        log.warning("%s", message)
        if notes is not None:
            notes.append(message)
        return None
    return engine


ENGINE_LABELS = {"auto": "OCR engine", "ppocr": "PP-OCR", "hunyuan": "HunyuanOCR", "server": "office server"}


def _ppocr_in_worker() -> Engine:
    return create_worker_engine("ppocr")


def create_worker_engine(name: str = "auto", model_dir: str | Path | None = None, *, spare: bool = False,
                         use_server: bool = True) -> Engine:
    """The engine the app uses: :func:`create_engine` run in a worker process
    (:class:`~desktop.core.engines.process.WorkerEngine`), so that a crash, a hang or an out-of-memory
    kill while reading costs one page, not the application.

    Creating it is free (nothing is started or imported); the worker starts on the first call or on
    ``warm_up()``, which raises what :func:`create_engine` raises there (``EngineUnavailable``). The
    notes :func:`create_engine` writes (why ``auto`` fell back to PP-OCR) arrive as ``load_notes``.
    ``spare``: keep a second worker warm for a small CPU engine, so that a crash costs the next page
    no restart (the window's engine; see :class:`~desktop.core.engines.process.WorkerEngine`).
    ``use_server=False``: ``auto`` does not look for the office server.

    Raises:
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    from desktop.core.engines.process import EngineSpec, WorkerEngine

    kwargs: dict[str, Any] = {"name": name, "model_dir": str(model_dir) if model_dir else None}
    if not use_server:
        kwargs["use_server"] = False
    spec = EngineSpec("desktop.core.engines:create_engine", kwargs, label=ENGINE_LABELS[name])
    return WorkerEngine(spec, spare=spare)


def create_isolated_engine(name: str = "auto", model_dir: str | Path | None = None, *,
                           notes: list[Diagnostic] | None = None, server: ServerConfig | None = None,
                           spare: bool = False) -> Engine:
    """The engine of the app's front ends (``shoebox scan``, ``shoebox serve``, the window): nothing
    native reads an untrusted file or runs a model in the calling process.

    The office-server engine (``server``, or ``auto`` when a server is configured, given or saved, and
    answers) runs here: it only talks HTTP, reads from several threads and reports its connection state.
    Its files are opened and rendered in a page worker
    (:class:`~desktop.core.engines.process.PagesInWorker`) and its CPU fallback reads in a worker
    process. Every other engine runs in a worker process (:func:`create_worker_engine`; its notes
    arrive as ``load_notes`` once it has started; ``spare`` as there); for ``auto`` the server is not
    asked again there.

    Raises:
        EngineUnavailable: ``server`` was asked for and cannot be used (as :func:`create_engine`).
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if name in ("auto", "server"):
        engine = _server_engine(name, server, notes, cpu_in_worker=True)
        if engine is not None:
            from desktop.core.engines.process import PagesInWorker

            return PagesInWorker(engine)
        return create_worker_engine(name, model_dir, spare=spare, use_server=False)
    return create_worker_engine(name, model_dir, spare=spare)

