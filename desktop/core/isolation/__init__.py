"""Isolation: engines and the readers of untrusted files run in worker processes.

A crash, a hang or an out-of-memory kill while reading a page, or a native crash while opening a hostile
PDF, costs one page or one document, never the application:

- :mod:`desktop.core.isolation.process`: :class:`WorkerEngine` (an engine in a worker process that also
  opens and renders the files, with a watchdog, memory recycling and a warm spare) and
  :class:`PagesInWorker` (an engine in this process whose files are opened in a page worker);
- :mod:`desktop.core.isolation.pages`: :class:`PageHost`, the interface of "where files are opened and
  rendered", and :data:`LOCAL_PAGES` (this process);
- :func:`create_worker_engine` and :func:`create_isolated_engine`: the engines the front ends use;
  :func:`page_host`: the host that goes with an engine.

This package sits above both :mod:`desktop.core.engines` and :mod:`desktop.core.intake` (the layers
contract in ``pyproject.toml``): it is where the two meet, so that engines (which only see page images)
and intake (which only opens files) stay independent of each other.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.engines import ENGINE_LABELS, ENGINE_NAMES, server_engine
from desktop.core.engines.base import Engine
from desktop.core.isolation.pages import LOCAL_PAGES, LocalPageHost, PageHost
from desktop.core.isolation.process import EngineSpec, PagesInWorker, Watchdog, WorkerEngine, page_host

if TYPE_CHECKING:
    from desktop.core.diagnostics import Diagnostic
    from desktop.core.engines.server import ServerConfig

__all__ = ["LOCAL_PAGES", "EngineSpec", "LocalPageHost", "PageHost", "PagesInWorker", "Watchdog", "WorkerEngine",
           "create_isolated_engine", "create_worker_engine", "page_host"]


def _ppocr_in_worker() -> Engine:
    return create_worker_engine("ppocr")


def create_worker_engine(name: str = "auto", model_dir: str | Path | None = None, *, spare: bool = False,
                         use_server: bool = True) -> WorkerEngine:
    """The engine the app uses: :func:`desktop.core.engines.create_engine` run in a worker process
    (:class:`~desktop.core.isolation.process.WorkerEngine`), so that a crash, a hang or an out-of-memory
    kill while reading costs one page, not the application.

    Creating it is free (nothing is started or imported); the worker starts on the first call or on
    ``warm_up()``, which raises what ``create_engine`` raises there (``EngineUnavailable``). The
    notes ``create_engine`` writes (why ``auto`` fell back to PP-OCR) arrive as ``load_notes``.
    ``spare``: keep a second worker warm for a small CPU engine, so that a crash costs the next page
    no restart (the window's engine; see :class:`~desktop.core.isolation.process.WorkerEngine`).
    ``use_server=False``: ``auto`` does not look for the office server.

    Raises:
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
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
    (:class:`~desktop.core.isolation.process.PagesInWorker`) and its CPU fallback reads in a worker
    process. Every other engine runs in a worker process (:func:`create_worker_engine`; its notes
    arrive as ``load_notes`` once it has started; ``spare`` as there); for ``auto`` the server is not
    asked again there.

    Raises:
        EngineUnavailable: ``server`` was asked for and cannot be used (as ``create_engine``).
        ValueError: unknown engine name.
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if name in ("auto", "server"):
        engine = server_engine(name, server, notes, fallback=_ppocr_in_worker)
        if engine is not None:
            return PagesInWorker(engine)
        return create_worker_engine(name, model_dir, spare=spare, use_server=False)
    return create_worker_engine(name, model_dir, spare=spare)
