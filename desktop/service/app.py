"""``shoebox serve``: the scanning pipeline behind an HTTP API (FastAPI), for ERP scripts and mail-room jobs.

Endpoints (OpenAPI at ``/docs``, schema at ``/openapi.json``):

- ``POST /v1/scan`` with a multipart ``file``: the documents read, as ``shoebox scan`` writes them
  (:class:`~desktop.core.model.ScanResult` JSON; ``?format=xlsx`` or ``?format=csv`` for those files).
  200 when something was read, 422 (same JSON) when nothing could be.
- ``POST /v1/batch`` with multipart ``files``: 202 and a job id; ``GET /v1/batch/{id}`` its state and,
  once done, the result (``?format=`` as above); ``DELETE /v1/batch/{id}`` forgets it.
- ``GET /health``: the engine's state and the queue (no token needed, no document data).

Safety (see :class:`ServiceConfig`): binds 127.0.0.1 unless told otherwise, and a bind to any other
address needs a token (``Authorization: Bearer <token>``, compared in constant time); uploads are
capped in size and written to a private temporary folder under a sanitised name (intake recognises
the content by its bytes; a path on the server's disk is never accepted); at most ``queue_size`` jobs
wait or run, further ones get 429 with ``Retry-After``; each request has a time limit (504, and the
scan is cancelled at its next page); the log carries job ids, sizes, counts and timings, never a field
value or a file name; uploads are deleted once answered unless the client asks ``keep=true`` and the
service was started with a ``keep_dir``. Results of batch jobs are held in memory until fetched with
``DELETE`` or for ``result_ttl_s``.

FastAPI resolves the endpoints' annotations at run time, so its names are imported at module level:
importing this module imports FastAPI (the ``[serve]`` extra); ``desktop.service`` itself does not.
"""
from __future__ import annotations

import dataclasses
import hmac
import logging
import re
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import UploadFile as StarletteUpload

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.model import Document, ScanResult

__all__ = ["ServiceConfig", "create_app", "is_loopback_host"]

log = logging.getLogger("shoebox.serve")

FORMATS = {"json": ("application/json", ".json"),
           "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx"),
           "csv": ("text/csv; charset=utf-8", ".csv")}


def is_loopback_host(host: str) -> bool:
    """``127.0.0.0/8``, ``::1`` or ``localhost``: reachable from this computer only."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class ServiceConfig:
    """How the service runs.

    Attributes:
        host, port: where uvicorn listens (127.0.0.1:8765 by default).
        token: required as ``Authorization: Bearer <token>`` on every ``/v1`` request when set;
            mandatory for a host that is not loopback.
        max_upload_bytes: largest file accepted (413 above); a batch may total ``max_batch_files``
            times that.
        max_batch_files: files per batch request.
        queue_size: jobs waiting or running at once (a single file or a whole batch is one job);
            the next one gets 429.
        request_timeout_s: longest ``/v1/scan`` waits for its result (504 after; the scan is
            cancelled before its next page). Batch jobs get ``request_timeout_s`` per file.
        keep_dir: where uploads asked to be kept (``keep=true``) are moved; ``None`` = never kept.
        work_dir: parent of the per-job temporary folders (``None`` = the system temp folder).
        result_ttl_s: how long a finished batch result is held.
        engine_factory: creates the OCR engine, once, in the worker thread.
        options_factory: ``(document_type, date_order) -> pipeline.ScanOptions``.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    max_upload_bytes: int = 50 * 1024 * 1024
    max_batch_files: int = 100
    queue_size: int = 8
    request_timeout_s: float = 300.0
    keep_dir: Path | None = None
    work_dir: Path | None = None
    result_ttl_s: float = 3600.0
    engine_factory: Callable[[], Any] | None = None
    options_factory: Callable[[str, str | None], Any] | None = None

    def check(self) -> None:
        """Refuse unsafe combinations.

        Raises:
            ValueError: a host that is not loopback without a token, or limits below 1.
        """
        if not is_loopback_host(self.host) and not self.token:
            raise ValueError(f"listening on {self.host} makes Shoebox reachable from other computers: "
                             "give a token (--token-file FILE or $SHOEBOX_SERVE_TOKEN), or keep --host 127.0.0.1")
        if self.token is not None and len(self.token) < 16:
            raise ValueError("the token must be at least 16 characters long")
        if self.max_upload_bytes < 1 or self.queue_size < 1 or self.request_timeout_s <= 0:
            raise ValueError("upload limit, queue size and time limit must be positive")


_LANGUAGE_HELP = "en or zh: the language of an xlsx's or csv's sheet names, headers, labels and messages (JSON is the same in both)"


@dataclass
class _Job:
    id: str
    folder: Path
    files: list[tuple[Path, str]]  # (path on disk, name the client gave)
    fmt: str
    keep: bool
    state: str = "queued"  # queued | running | done | failed | timed out
    documents: list[Document] = field(default_factory=list)
    error: str | None = None
    done_files: int = 0
    created: float = field(default_factory=time.time)
    finished: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    timed_out: bool = False
    future: Future[Any] | None = None


class _Runner:
    """One engine; jobs run one at a time, or ``engine.concurrency`` at a time for an engine that reads
    from several threads (the office-server engine); a bounded count of jobs waiting or running."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shoebox-serve")
        self._wide: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._pending = 0
        self.engine: Any = None
        self.engine_error: str | None = None
        self.engine_state = "starting"
        self.jobs: dict[str, _Job] = {}
        self.completed = 0

    # ------------------------------------------------------------------ engine

    def start(self) -> None:
        self._pool.submit(self._ensure_engine)

    def _ensure_engine(self) -> Any:
        if self.engine is not None or self.engine_error is not None:
            return self.engine
        try:
            factory = self.config.engine_factory or _default_engine_factory
            engine = factory()
            warm_up = getattr(engine, "warm_up", None)
            if callable(warm_up):
                warm_up()
        except Exception as exc:
            self.engine_error = f"the OCR engine could not start: {exc}"
            self.engine_state = "failed"
            log.error("engine start failed: %s", type(exc).__name__)
            return None
        workers = int(getattr(engine, "concurrency", 1) or 1)
        if workers > 1:
            self._wide = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="shoebox-serve-wide")
        self.engine = engine
        self.engine_state = "ready"
        return engine

    def describe_engine(self) -> str:
        if self.engine is None:
            return self.engine_error or "starting"
        describe = getattr(self.engine, "describe", None)
        return describe() if callable(describe) else str(getattr(self.engine, "name", "engine"))

    def close(self) -> None:
        for job in list(self.jobs.values()):
            job.cancel.set()
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._wide is not None:
            self._wide.shutdown(wait=True, cancel_futures=True)
        if self.engine is not None:
            close = getattr(self.engine, "close", None)
            if callable(close):
                close()

    # ------------------------------------------------------------------ queue

    @property
    def pending(self) -> int:
        with self._lock:
            return self._pending

    def submit(self, job: _Job, options: Any) -> bool:
        """Queue ``job``; False when the queue is full."""
        with self._lock:
            if self._pending >= self.config.queue_size:
                return False
            self._pending += 1
            self.jobs[job.id] = job
        job.future = (self._wide or self._pool).submit(self._run, job, options)
        return True

    def _run(self, job: _Job, options: Any) -> None:
        started = time.perf_counter()
        try:
            if job.cancel.is_set():
                job.state = "timed out"
                return
            job.state = "running"
            engine = self._ensure_engine()
            if engine is None:
                job.state, job.error = "failed", self.engine_error
                return
            from desktop.core import pipeline

            for path, name in job.files:
                if job.cancel.is_set():
                    break
                deadline = time.monotonic() + self.config.request_timeout_s
                try:
                    docs = pipeline.scan_file(path, engine, options,
                                              cancel=lambda d=deadline: job.cancel.is_set() or time.monotonic() > d)
                except pipeline.Cancelled as exc:
                    job.timed_out = True
                    limit = diag(Code.SERVICE_TIME_LIMIT, seconds=round(self.config.request_timeout_s))
                    docs = exc.documents or [Document(source=str(path), error=limit)]
                    for d in docs:
                        d.error = d.error or limit
                except Exception as exc:
                    log.error("job %s: unexpected %s", job.id, type(exc).__name__)
                    docs = [Document(source=str(path), error=diag(Code.UNEXPECTED, detail=type(exc).__name__))]
                job.documents.extend(_anonymise(d, path, name, job.folder) for d in docs)
                job.done_files += 1
            job.state = "timed out" if (job.cancel.is_set() or job.timed_out) else "done"
        except Exception as exc:
            log.error("job %s failed: %s", job.id, type(exc).__name__)
            job.state, job.error = "failed", f"unexpected error: {type(exc).__name__}"
        finally:
            job.finished = time.time()
            with self._lock:
                self._pending -= 1
                self.completed += 1
            _finish_files(job, self.config.keep_dir)
            log.info("job %s: %s, %d file(s), %d document(s), %.2f s", job.id, job.state, len(job.files),
                     len(job.documents), time.perf_counter() - started)

    def forget_old(self) -> None:
        cutoff = time.time() - self.config.result_ttl_s
        with self._lock:
            for key in [k for k, j in self.jobs.items() if j.finished is not None and j.finished < cutoff]:
                del self.jobs[key]


def _default_engine_factory() -> Any:
    # uploads are untrusted files: the engine and the file readers run in a worker process
    from desktop.core.isolation import create_isolated_engine

    return create_isolated_engine("auto")


def _default_options(document_type: str, date_order: str | None) -> Any:
    from desktop.core.pipeline import ScanOptions

    return ScanOptions(document_type=document_type, date_order=date_order)


def _anonymise(doc: Document, path: Path, name: str, folder: Path) -> Document:
    """The document as the client may see it: ``source`` = the name it uploaded, no server path anywhere
    (in the error's or the page warnings' parameters)."""
    doc.source = name
    prefix = str(folder)

    def scrub(value: Any) -> Any:
        if isinstance(value, Diagnostic):
            return dataclasses.replace(value, params={k: scrub(v) for k, v in value.params.items()})
        if isinstance(value, str):
            return value.replace(prefix + "/", "").replace(prefix, "")
        return value

    if doc.error is not None:
        doc.error = scrub(doc.error)
    for page in doc.page_results:
        page.warnings = [scrub(w) for w in page.warnings]
    return doc


def _finish_files(job: _Job, keep_dir: Path | None) -> None:
    """Delete the job's uploads, or move them to ``keep_dir/<job id>/`` when the client asked to keep them."""
    try:
        if job.keep and keep_dir is not None:
            target = Path(keep_dir) / job.id
            target.mkdir(parents=True, exist_ok=True)
            for path, _name in job.files:
                if path.exists():
                    shutil.move(str(path), target / path.name)
    finally:
        shutil.rmtree(job.folder, ignore_errors=True)


_SAFE_NAME = re.compile(r"[^\w.\- ()\[\]]+", re.UNICODE)


def safe_name(filename: str | None, index: int = 0) -> str:
    """A file name safe to create in a private folder: the last path part only, odd characters replaced,
    at most 120 characters (``../../etc/passwd`` -> ``passwd``; empty -> ``upload-<index>``)."""
    base = re.split(r"[\\/]", filename or "")[-1].strip().lstrip(".")
    base = _SAFE_NAME.sub("_", base)[:120].strip()
    return base or f"upload-{index + 1}"


# --------------------------------------------------------------------------------------------------
# The app
# --------------------------------------------------------------------------------------------------


def create_app(config: ServiceConfig | None = None) -> Any:
    """The FastAPI application.

    Raises:
        ValueError: the configuration is unsafe (see :meth:`ServiceConfig.check`).
    """
    from desktop import __version__

    config = config or ServiceConfig()
    config.check()
    runner = _Runner(config)

    @asynccontextmanager
    async def lifespan(_app: Any):
        runner.start()
        try:
            yield
        finally:
            await run_in_threadpool(runner.close)

    app = FastAPI(title="Shoebox", version=__version__, lifespan=lifespan,
                  description="Reads receipts, invoices and Chinese VAT invoices into checked fields. "
                              "The same result schema as `shoebox scan`.")
    app.state.runner = runner
    app.state.config = config

    def authorise(request: Request) -> None:
        if config.token is None:
            return
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), config.token.encode()):
            raise HTTPException(401, "missing or wrong token (Authorization: Bearer <token>)",
                                headers={"WWW-Authenticate": "Bearer"})

    def check_format(fmt: str) -> str:
        if fmt not in FORMATS:
            raise HTTPException(400, f"unknown format {fmt!r}; use json, xlsx or csv")
        return fmt

    def check_language(language: str) -> str:
        from desktop.core.export import EXPORT_LANGUAGES

        if language not in EXPORT_LANGUAGES:
            raise HTTPException(400, f"unknown language {language!r}; use {' or '.join(EXPORT_LANGUAGES)}")
        return language

    def check_keep(keep: bool) -> None:
        if keep and config.keep_dir is None:
            raise HTTPException(400, "this service does not keep documents (start it with --keep-dir DIR)")

    def check_date_order(date_order: str) -> str | None:
        upper = date_order.upper()
        if upper in ("DMY", "MDY"):
            return upper
        if upper == "AUTO":
            return None
        raise HTTPException(400, "date_order must be auto, DMY or MDY")

    def check_type(document_type: str) -> str:
        from desktop.core.doctypes import document_types

        if document_type != "auto" and document_type not in document_types():
            raise HTTPException(400, f"unknown document type {document_type!r}")
        return document_type

    async def save_uploads(uploads: list[Any], folder: Path, limit_total: int) -> list[tuple[Path, str]]:
        saved: list[tuple[Path, str]] = []
        total = 0
        used: set[str] = set()
        for i, upload in enumerate(uploads):
            if not isinstance(upload, StarletteUpload):
                raise HTTPException(400, "send the document as a multipart file upload")
            name = safe_name(upload.filename, i)
            stem, dot, suffix = name.rpartition(".")
            disk = name
            n = 1
            while disk.lower() in used:
                n += 1
                disk = f"{stem}-{n}.{suffix}" if dot else f"{name}-{n}"
            used.add(disk.lower())
            path = folder / disk
            size = 0
            with open(path, "wb") as fh:
                while chunk := await upload.read(1024 * 1024):
                    size += len(chunk)
                    total += len(chunk)
                    if size > config.max_upload_bytes or total > limit_total:
                        raise HTTPException(413, f"upload too large (at most {config.max_upload_bytes:,} bytes per file)")
                    fh.write(chunk)
            saved.append((path, name))
        return saved

    def new_job(files: list[tuple[Path, str]], folder: Path, fmt: str, keep: bool) -> _Job:
        return _Job(id=uuid.uuid4().hex, folder=folder, files=files, fmt=fmt, keep=keep)

    def new_folder() -> Path:
        base = config.work_dir
        if base is not None:
            Path(base).mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="shoebox-serve-", dir=base))

    def queue_or_429(job: _Job, options: Any) -> None:
        if runner.engine_state == "failed":
            shutil.rmtree(job.folder, ignore_errors=True)
            raise HTTPException(503, runner.engine_error or "the OCR engine is not available")
        if not runner.submit(job, options):
            shutil.rmtree(job.folder, ignore_errors=True)
            raise HTTPException(429, f"the queue is full ({config.queue_size} jobs); try again shortly",
                                headers={"Retry-After": "5"})

    def render(documents: list[Document], fmt: str, language: str = "en") -> Response:
        ok = any(d.error is None for d in documents)
        status = 200 if ok else 422
        if fmt == "json":
            return Response(ScanResult(documents).to_json() + "\n", status_code=status,
                            media_type=FORMATS["json"][0])
        from desktop.core.export import export

        with tempfile.TemporaryDirectory(prefix="shoebox-export-", dir=config.work_dir) as tmp:
            out = Path(tmp) / f"shoebox{FORMATS[fmt][1]}"
            export(documents, out, language=language)
            data = out.read_bytes()
        return Response(data, status_code=status, media_type=FORMATS[fmt][0],
                        headers={"Content-Disposition": f'attachment; filename="shoebox{FORMATS[fmt][1]}"'})

    # ------------------------------------------------------------------ routes

    @app.get("/health", summary="Engine state and queue")
    def health() -> dict[str, Any]:
        return {"status": "ok" if runner.engine_state != "failed" else "engine failed",
                "engine": runner.describe_engine(), "engine_state": runner.engine_state,
                "queue": {"pending": runner.pending, "capacity": config.queue_size},
                "version": __version__}

    @app.post("/v1/scan", summary="Read one file", dependencies=[Depends(authorise)],
              responses={200: {"description": "ScanResult JSON (or the xlsx/csv file)"},
                         413: {"description": "upload too large"}, 422: {"description": "nothing could be read"},
                         429: {"description": "queue full"}, 504: {"description": "time limit reached"}})
    async def scan(file: UploadFile, format: str = Query("json", description="json, xlsx or csv"),
                   document_type: str = Query("auto"), date_order: str = Query("auto"),
                   keep: bool = Query(False, description="keep the upload on the server (needs --keep-dir)"),
                   language: str = Query("en", description=_LANGUAGE_HELP)) -> Response:
        fmt = check_format(format)
        language = check_language(language)
        check_keep(keep)
        options = (config.options_factory or _default_options)(check_type(document_type), check_date_order(date_order))
        folder = new_folder()
        try:
            files = await save_uploads([file], folder, config.max_upload_bytes)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        job = new_job(files, folder, fmt, keep)
        queue_or_429(job, options)
        assert job.future is not None
        try:
            await run_in_threadpool(job.future.result, config.request_timeout_s + 5)
        except FutureTimeout:
            job.cancel.set()
            raise HTTPException(504, f"no result within {config.request_timeout_s:.0f} s; the scan was stopped") from None
        finally:
            runner.jobs.pop(job.id, None)
        if job.state == "failed":
            raise HTTPException(503 if runner.engine_state == "failed" else 500, job.error or "the OCR engine is not available")
        if job.state == "timed out":
            raise HTTPException(504, f"no result within {config.request_timeout_s:.0f} s; the scan was stopped")
        return await run_in_threadpool(render, job.documents, fmt, language)

    @app.post("/v1/batch", status_code=202, summary="Queue many files; returns a job id",
              dependencies=[Depends(authorise)])
    async def batch(files: list[UploadFile], document_type: str = Query("auto"), date_order: str = Query("auto"),
                    keep: bool = Query(False)) -> dict[str, Any]:
        check_keep(keep)
        if not files:
            raise HTTPException(400, "send at least one file")
        if len(files) > config.max_batch_files:
            raise HTTPException(413, f"at most {config.max_batch_files} files per batch")
        options = (config.options_factory or _default_options)(check_type(document_type), check_date_order(date_order))
        runner.forget_old()
        folder = new_folder()
        try:
            saved = await save_uploads(list(files), folder, config.max_upload_bytes * config.max_batch_files)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        job = new_job(saved, folder, "json", keep)
        queue_or_429(job, options)
        return {"job_id": job.id, "files": len(saved), "status_url": f"/v1/batch/{job.id}"}

    @app.get("/v1/batch/{job_id}", summary="State of a batch job, and its result once done",
             dependencies=[Depends(authorise)])
    def batch_status(job_id: str, format: str = Query("json"),
                     language: str = Query("en", description=_LANGUAGE_HELP)) -> Response:
        fmt = check_format(format)
        language = check_language(language)
        job = runner.jobs.get(job_id)
        if job is None:
            raise HTTPException(404, "no such job (finished results are kept for a limited time)")
        finished = job.state in ("done", "timed out", "failed")
        if finished and fmt != "json":
            return render(job.documents, fmt, language)
        body: dict[str, Any] = {"job_id": job.id, "state": job.state, "files": len(job.files),
                                "files_done": job.done_files, "error": job.error}
        if finished:
            body["result"] = ScanResult(job.documents).to_dict()
        return JSONResponse(body)

    @app.delete("/v1/batch/{job_id}", status_code=204, summary="Forget a batch job (cancels it if still running)",
                dependencies=[Depends(authorise)], response_class=Response, response_model=None)
    def batch_delete(job_id: str) -> None:
        job = runner.jobs.pop(job_id, None)
        if job is None:
            raise HTTPException(404, "no such job")
        job.cancel.set()

    return app
