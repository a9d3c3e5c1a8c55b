"""OCR engines behind one interface (:class:`~desktop.core.engines.base.Engine`).

``create_engine`` picks one by name. Engine modules are imported lazily: importing this package costs
nothing, so the window can show before onnxruntime, torch or transformers load.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.engines.base import Engine, EngineError, EngineUnavailable

__all__ = ["ENGINE_LABELS", "ENGINE_NAMES", "Engine", "EngineError", "EngineUnavailable", "create_engine"]

if TYPE_CHECKING:
    from desktop.core.engines.server import ServerConfig

log = logging.getLogger(__name__)

ENGINE_NAMES = ("auto", "ppocr", "hunyuan", "server")

#: What to call each engine before it has loaded (a worker process's label, the status bar).
#: The environment variable naming the office server (:data:`desktop.core.engines.server.ENV_URL`, tested
#: to agree), read here so that finding no server configured imports nothing.
SERVER_URL_ENV = "SHOEBOX_SERVER_URL"

ENGINE_LABELS = {"auto": "OCR engine", "ppocr": "PP-OCR", "hunyuan": "HunyuanOCR", "server": "office server"}


def create_engine(name: str = "auto", model_dir: str | Path | None = None, *, notes: list[Diagnostic] | None = None,
                  server: ServerConfig | None = None, use_server: bool = True,
                  fallback: Callable[[], Engine] | None = None) -> Engine:
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
        fallback: creates the office-server engine's CPU engine (used when its settings allow a CPU
            fallback, ``cpu_fallback``); ``None``: PP-OCR in this process. The app's front ends pass PP-OCR in a
            worker process (:func:`desktop.core.isolation.create_isolated_engine`).

    Raises:
        EngineUnavailable: ``hunyuan`` or ``server`` was asked for explicitly and cannot run here (the
            message says what is missing, where it was looked for, or why the server is refused).
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if name == "server" or (name == "auto" and use_server):
        engine = server_engine(name, server, notes, fallback=fallback)
        if engine is not None:
            return engine
    if name in ("auto", "hunyuan"):
        # The checks live in the light hunyuan_models; the engine's own module (25 ms of CPU at every
        # start of a PP-OCR worker) is imported only when HunyuanOCR can run.
        from desktop.core.engines import hunyuan_models

        ok, reason = hunyuan_models.availability(model_dir, require_gpu=(name == "auto"))
        if ok:
            from desktop.core.engines import hunyuan

            return hunyuan.HunyuanEngine(hunyuan.find_model_dir(model_dir))
        if name == "hunyuan":
            exc = EngineUnavailable(str(reason))
            exc.diagnostic = reason  # shown in the UI's language
            raise exc
        nothing_set_up = not any(path is not None and path.exists() for _, path in hunyuan_models.candidate_dirs(model_dir))
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


def server_engine(name: str, config: ServerConfig | None, notes: list[Diagnostic] | None, *,
                  fallback: Callable[[], Engine] | None = None) -> Engine | None:
    """The office-server engine for ``server`` (raises when it cannot be used) or ``auto`` (``None``
    when none is configured or it does not answer; a note says why).

    Args:
        name: ``server`` or ``auto``.
        config: the server's configuration; ``None``: from the environment and the saved settings.
        notes: diagnostics are appended here (why ``auto`` does not use the server).
        fallback: as in :func:`create_engine`.

    Raises:
        ServerUnavailable: ``server`` was asked for and cannot be used (not configured, refused).
    """
    if config is None and not _server_url_set():
        if name == "server":
            from desktop.core.engines import server as srv

            raise srv.ServerUnavailable(diag(Code.SERVER_NOT_CONFIGURED))
        return None  # nothing configured: no need to import the server module (22 ms at every start)
    from desktop.core.engines import server as srv

    if config is None:
        config = srv.ServerConfig.from_settings()
    if config is None:
        if name == "server":
            raise srv.ServerUnavailable(diag(Code.SERVER_NOT_CONFIGURED))
        return None
    try:
        engine = srv.ServerEngine(config, fallback=fallback)
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


def _server_url_set() -> bool:
    """Whether an office-server URL is configured at all (environment or saved settings), the first
    question :meth:`~desktop.core.engines.server.ServerConfig.from_settings` asks."""
    import os

    if (os.environ.get(SERVER_URL_ENV) or "").strip():
        return True
    from desktop.core.settings import Settings

    return bool((getattr(Settings.load(), "server_url", "") or "").strip())
