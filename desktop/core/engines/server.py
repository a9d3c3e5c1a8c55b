"""HunyuanOCR on an office GPU server: an OpenAI-compatible chat-completions endpoint (vLLM).

The only network connection Shoebox ever opens, and only to the URL the user (or IT) configured:
off by default; no proxy from the environment (``trust_env=False``); redirects are not followed; a URL
whose host is not a loopback or private-network address is refused unless ``allow_public`` is set
(:func:`check_server_url`).

Requests are shaped as HunyuanOCR's own vLLM client shapes them (Tencent-Hunyuan/HunyuanOCR
``inference/vLLM/infer_vllm_client.py``): an empty system message, then one user message holding the
page as a base64 ``data:image/jpeg`` URL and one official prompt; ``temperature=0``, ``top_p=1``,
``top_k=-1``, ``repetition_penalty=1.08``, ``skip_special_tokens=True``; streamed, with an early stop
when the tail of the answer loops (Tencent's ``infer_stream`` does the same). The page is shrunk to the
pixel budget (:data:`~desktop.core.engines.hunyuan.DEFAULT_MAX_PIXELS`) before it is encoded: vLLM's
HunyuanOCR default (about 4096 x 4096) lets one 300 dpi page exhaust the GPU (upstream issue #114).

Model versions
--------------
The server may serve HunyuanOCR 1.0 or 1.5 (Tencent moved 1.0 to ``v1.0/`` in the model repository in
2026). :func:`detect_version` reads it from the model list (``id`` and ``root``); when the names do not
tell, the first spotting answer does. Until then 1.5's JSON spotting prompt is sent (the bare name has
meant 1.5 since 2026): 1.5 answers it with a JSON array of ``{"box": [...], "text": ...}``, while 1.0,
never trained on it, answers in its own ``text(x1,y1),(x2,y2)`` form; an answer with neither form is
asked once more with 1.0's prompt (which 1.5 also knows: ``spotting_hunyuan`` in 1.5's
``inference/utils/tasks.py``), and a coordinate answer to that one means 1.0. Both answer forms are
parsed by :func:`~desktop.core.engines.hunyuan_output.parse_spotting` (0-1000 grid of the image sent).
1.5's client has no field-extraction task, so :meth:`ServerEngine.read_fields` works on 1.0 only.

Flow control
------------
- One ``httpx.Client`` per engine (keep-alive connections reused), at most ``max_in_flight`` requests
  at once (a semaphore; :meth:`ServerEngine.read_pages` sends that many pages concurrently).
- HTTP 429/502/503/504 (the server is busy or restarting): wait and send again, honouring
  ``Retry-After``, with capped exponential backoff and jitter, until ``page_deadline_s``. A busy server
  slows the queue; a page is never dropped: it is read, or it fails with a message saying why.
- Connection errors, dropped connections, timeouts and malformed answers: ``retries`` more tries
  with backoff, then :class:`ServerUnreachable`. The engine then treats the server as down for
  ``down_retry_s`` (later pages fail at once, or go to the CPU engine when ``cpu_fallback`` is set)
  and tries it again after that.
"""
from __future__ import annotations

import base64
import io
import ipaddress
import json
import logging
import os
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.engines.base import (
    Capability,
    Engine,
    EngineError,
    EngineUnavailable,
    FieldReading,
    PageReading,
    TaskReading,
)
from desktop.core.engines.hunyuan import DEFAULT_MAX_PIXELS, MAX_NEW_TOKENS, PROMPTS, REPETITION_PENALTY
from desktop.core.engines.hunyuan_output import (
    MODEL_LINE_CONFIDENCE,
    SUSPECT_LINE_CONFIDENCE,
    Generation,
    as_field_specs,
    fields_prompt_keys,
    finish_generation,
    parse_fields,
    parse_spotting,
    repeating_period,
    strip_fences,
)
from desktop.core.model import Line

if TYPE_CHECKING:
    import httpx

    from desktop.core.doctypes import FieldSpec

__all__ = [
    "ENV_API_KEY", "ENV_URL", "PROMPTS_15", "ServerConfig", "ServerEngine", "ServerError", "ServerInfo",
    "ServerRefused", "ServerUnavailable", "ServerUnreachable", "check_server_url", "detect_version", "server_check",
]

log = logging.getLogger(__name__)

ENV_URL = "SHOEBOX_SERVER_URL"
"""Environment variable with the server's base URL (``http://gpu-box:8000/v1``); overrides the settings."""
ENV_API_KEY = "SHOEBOX_SERVER_API_KEY"
"""Environment variable with the API key (vLLM ``--api-key``); overrides the settings."""

JPEG_QUALITY = 92
"""Quality of the JPEG sent (Tencent's client sends the file's bytes as ``image/jpeg``; 92 keeps 9 pt
print crisp at about a fifth of a PNG's size)."""

RETRY_STATUSES = frozenset({429, 502, 503, 504})
"""HTTP statuses that mean "busy or restarting, send again" (RFC 6585 s. 4, RFC 9110 s. 15.6)."""

STREAM_CHECK_FROM = 2000
"""Characters of streamed answer before the loop check starts (Tencent: 4000, checks every 1000)."""
STREAM_CHECK_EVERY = 500
STREAM_LOOP_MAX_PERIOD = 256   # Tencent ``has_tail_repetition``: max_unit 256
STREAM_LOOP_MIN_REPEATS = 8    # Tencent ``infer_stream``: repeat_min_repeats 8
STREAM_LOOP_MIN_SPAN = 200     # a dotted rule of 200 characters is not a receipt line

# HunyuanOCR 1.5's official prompts (Tencent-Hunyuan/HunyuanOCR inference/utils/tasks.py, TASK_PROMPTS).
PROMPTS_15: dict[str, str] = {
    "spotting": "检测并识别图中所有的文字行，请按从上到下、从左到右的阅读顺序进行识别。 "
                "输出格式为 JSON 数组，每个元素必须包含："
                '"box": [xmin, ymin, xmax, ymax]（坐标需归一化到 [0, 1000] 范围内）；'
                '"text": "识别出的文字内容"。 '
                "注意：请直接输出 JSON 数组，不要包含任何多余的描述性文字。",
    "markdown": "提取文档图片中正文的所有信息用markdown格式表示，其中页眉、页脚部分忽略，表格用html格式表达，"
                "文档中公式用latex格式表示，按照阅读顺序组织进行解析。",
    "text": "提取图中的文字。",
    "table": "把图中的表格解析为HTML。",
    "translate_en": "按照阅读顺序，提取图中文字，公式用latex格式表示，表格用markdown格式表示，再将文字内容翻译为英文。",
    "translate_zh": "按照阅读顺序，提取图中文字，公式用latex格式表示，表格用markdown格式表示，再将文字内容翻译为中文。",
}

TASKS = ("markdown", "table", "translate_en", "translate_zh", "text", "spotting")

# Every message is a diagnostic (desktop.core.diagnostics, codes SERVER_*); the exceptions carry theirs
# as ``.diagnostic`` (the pipeline puts it on the page or document) and read as its English message.


class ServerError(EngineError):
    """The server answered, but not with a usable reading (HTTP error, refused key, still busy).

    Attributes:
        diagnostic: what happened, as a :class:`~desktop.core.diagnostics.Diagnostic` (always set).
    """

    diagnostic: Diagnostic

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.message("en"))


class ServerUnreachable(ServerError):
    """The server could not be reached or kept dropping the connection."""


class ServerRefused(EngineUnavailable):
    """The configured URL is not acceptable (bad form, or a public address without the allow setting)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.message("en"))


class ServerUnavailable(EngineUnavailable):
    """The server could not be used at start-up and the settings allow no CPU fallback."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.message("en"))


def _detail(exc: BaseException) -> str:
    """The ``detail`` of a server diagnostic (the reason without the URL), else the message."""
    d = getattr(exc, "diagnostic", None)
    if isinstance(d, Diagnostic) and "detail" in d.params:
        return str(d.params["detail"])
    return str(exc)


# --------------------------------------------------------------------------------------------------
# Configuration and the URL policy
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerConfig:
    """How to reach the office server.

    Attributes:
        url: base URL of the OpenAI-compatible API, e.g. ``http://gpu-box:8000/v1`` (``/v1`` is added
            when missing).
        api_key: sent as ``Authorization: Bearer <key>`` (vLLM ``--api-key``); empty = none.
        allow_public: accept a host that is not loopback or private (RFC 1918, RFC 4193, link-local).
        cpu_fallback: read on the CPU (PP-OCR) while the server cannot be reached; each page read so
            says it in its warnings. Off: such pages fail with the reason.
        model: served model name to use; empty = the HunyuanOCR model in the server's model list.
        max_in_flight: requests this desktop sends at once (the rest wait: back-pressure).
        connect_timeout_s, read_timeout_s: httpx timeouts per request (read = between bytes).
        retries: extra tries after a connection error or malformed answer.
        backoff_s, backoff_max_s: first and largest wait between tries (doubles each time, jittered).
        page_deadline_s: longest a page may wait on a busy server (429/503) before it fails.
        down_retry_s: after the server was found unreachable, how long later pages skip it.
        stream: stream answers (server-sent events), stopping early when the answer loops.
        max_pixels: pixel budget of the page image sent.
    """

    url: str
    api_key: str = ""
    allow_public: bool = False
    cpu_fallback: bool = False
    model: str = ""
    max_in_flight: int = 4
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 300.0
    retries: int = 3
    backoff_s: float = 0.5
    backoff_max_s: float = 30.0
    page_deadline_s: float = 900.0
    down_retry_s: float = 30.0
    stream: bool = True
    max_pixels: int = DEFAULT_MAX_PIXELS

    @classmethod
    def from_settings(cls, settings: Any = None, *, url: str | None = None, api_key: str | None = None,
                      **overrides: Any) -> ServerConfig | None:
        """The configuration from (in order of precedence) the arguments, the environment
        (:data:`ENV_URL`, :data:`ENV_API_KEY`) and the saved :class:`~desktop.core.settings.Settings`.

        Returns:
            ``None`` when no URL is configured anywhere (the server engine is off).
        """
        if settings is None:
            from desktop.core.settings import Settings

            settings = Settings.load()
        chosen = (url or os.environ.get(ENV_URL) or getattr(settings, "server_url", "") or "").strip()
        if not chosen:
            return None
        key = api_key if api_key is not None else (os.environ.get(ENV_API_KEY) or getattr(settings, "server_api_key", ""))
        values: dict[str, Any] = {
            "url": chosen, "api_key": key or "",
            "allow_public": bool(getattr(settings, "server_allow_public", False)),
            "cpu_fallback": bool(getattr(settings, "server_cpu_fallback", False)),
            "model": getattr(settings, "server_model", "") or "",
            "max_in_flight": max(1, int(getattr(settings, "server_max_in_flight", 4) or 4)),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def normalise_url(url: str) -> str:
    """``gpu-box:8000`` / ``http://gpu-box:8000`` / ``http://gpu-box:8000/v1/`` -> ``http://gpu-box:8000/v1``.

    Raises:
        ServerRefused: not an ``http``/``https`` URL with a host, or it carries a query, fragment or
            user name (credentials go in the API-key setting, never in the URL).
    """
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)

    def refuse(problem: str) -> ServerRefused:
        return ServerRefused(diag(Code.SERVER_BAD_URL, url=url, problem=problem))

    if parts.scheme not in ("http", "https"):
        raise refuse("the server URL must start with http:// or https://")
    if not parts.hostname:
        raise refuse("the server URL has no host name")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise refuse("give the server URL without user name, query or fragment")
    try:
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as exc:
        raise refuse(str(exc)) from None
    path = parts.path.rstrip("/")
    if not path.endswith("/v1"):
        path += "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


OFFICE_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "127.0.0.0/8", "::1/128",                          # loopback (RFC 1122, RFC 4291)
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",   # private (RFC 1918)
    "100.64.0.0/10",                                   # shared address space: CGNAT, office VPNs (RFC 6598)
    "169.254.0.0/16", "fe80::/10",                     # link-local (RFC 3927, RFC 4291)
    "fc00::/7",                                        # unique local (RFC 4193)
))
"""Addresses a server may have without the "allow public" setting. Explicit, because Python's
``is_private`` also counts documentation and reserved ranges, which are not an office network."""


def _address_is_private(address: str) -> bool:
    """Whether ``address`` lies in :data:`OFFICE_NETWORKS` (an IPv4-mapped IPv6 address counts as its IPv4)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip.version == net.version and ip in net for net in OFFICE_NETWORKS)


def check_server_url(url: str, *, allow_public: bool = False,
                     resolve: Callable[[str], list[str]] | None = None) -> str:
    """Apply the privacy policy to a configured URL; returns it normalised (:func:`normalise_url`).

    A host given as an IP address is checked as it is. A host name is resolved (``resolve``, default
    :func:`socket.getaddrinfo`) and every address it resolves to must be loopback or private; ``localhost``
    is loopback without resolving.

    Raises:
        ServerRefused: bad URL, or a public address while ``allow_public`` is false.
        ServerUnreachable: the host name does not resolve.
    """
    normal = normalise_url(url)
    host = urlsplit(normal).hostname or ""
    if allow_public:
        return normal
    try:
        addresses = [host] if _is_ip(host) else (["127.0.0.1"] if host.lower() == "localhost" else None)
        if addresses is None:
            addresses = (resolve or _resolve)(host)
    except OSError as exc:
        raise ServerUnreachable(diag(Code.SERVER_NAME_UNRESOLVED, url=normal, host=host, detail=str(exc))) from None
    public = [a for a in addresses if not _address_is_private(a)]
    if public or not addresses:
        shown = host if _is_ip(host) else f"{host} ({', '.join(public) or 'no address'})"
        raise ServerRefused(diag(Code.SERVER_PUBLIC, url=normal, host=shown))
    return normal


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _resolve(host: str) -> list[str]:
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)})


# --------------------------------------------------------------------------------------------------
# The model list
# --------------------------------------------------------------------------------------------------


@dataclass
class ServerInfo:
    """What the server says about itself.

    Attributes:
        url: the normalised base URL.
        model: the served model name used in requests (``id`` in ``GET /v1/models``).
        root: where the server loaded it from (vLLM's ``root``: a hub id or a folder), the revision hint.
        max_model_len: the context length in tokens (vLLM's ``max_model_len``), when given.
        hunyuan_version: ``1.0``, ``1.5`` or ``None`` (not known yet).
        version_source: ``model list``, ``answers`` or ``""``.
        server_version: vLLM's ``GET /version``, when it answers.
        models: every model id the server lists.
    """

    url: str
    model: str
    root: str = ""
    max_model_len: int | None = None
    hunyuan_version: str | None = None
    version_source: str = ""
    server_version: str = ""
    models: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``tencent/HunyuanOCR (HunyuanOCR 1.5) at http://gpu-box:8000/v1``: recorded per document."""
        version = f" (HunyuanOCR {self.hunyuan_version})" if self.hunyuan_version else ""
        return f"{self.model}{version} at {self.url}"


_V10_RE = re.compile(r"(?:^|[^0-9.])v?1\.0(?:$|[^0-9.])|hunyuanocr[-_]?v?1(?:$|[^.0-9])", re.IGNORECASE)
_V15_RE = re.compile(r"(?:^|[^0-9.])v?1\.5(?:$|[^0-9.])", re.IGNORECASE)


def detect_version(*names: str) -> str | None:
    """HunyuanOCR ``1.0`` or ``1.5`` from model names and paths (``tencent/HunyuanOCR/v1.0``,
    ``HunyuanOCR-1.5``), or ``None`` when they do not say (the bare ``tencent/HunyuanOCR`` has meant
    both: 1.0 until 2026, 1.5 since)."""
    text = " ".join(n for n in names if n)
    if _V15_RE.search(text):
        return "1.5"
    if _V10_RE.search(text):
        return "1.0"
    return None


def _answer_version(text: str) -> str | None:
    """``1.5`` for a JSON spotting answer, ``1.0`` for ``text(x1,y1),(x2,y2)``, else ``None``."""
    body = strip_fences(text)
    if body[:1] in ("[", "{") and '"box"' in body:
        return "1.5"
    if re.search(r"\(\s*\d+\s*,\s*\d+\s*\)\s*,?\s*\(\s*\d+\s*,\s*\d+\s*\)", body):
        return "1.0"
    return None


# --------------------------------------------------------------------------------------------------
# The HTTP client
# --------------------------------------------------------------------------------------------------


@dataclass
class Completion:
    """One chat-completion answer.

    Attributes:
        text: the answer as received (before loop trimming).
        finish_reason: ``stop``, ``length`` (hit ``max_tokens``), or ``early_stop`` (we stopped a loop).
        completion_tokens: tokens generated, from ``usage`` (0 when the server did not say).
        model: the ``model`` field of the answer.
        seconds: wall time of the successful request.
        tries: requests sent for it (1 = no retry).
    """

    text: str
    finish_reason: str = ""
    completion_tokens: int = 0
    model: str = ""
    seconds: float = 0.0
    tries: int = 1


class _Malformed(Exception):
    """The server's answer was not a chat completion."""


class ServerClient:
    """Talks to the server: model list, version, chat completions with retries and back-pressure.

    Thread-safe; at most ``config.max_in_flight`` requests run at once.

    Args:
        config: see :class:`ServerConfig`; its URL must already have passed :func:`check_server_url`.
        transport: an ``httpx`` transport (tests); default: a real connection pool.
    """

    def __init__(self, config: ServerConfig, *, transport: Any = None) -> None:
        import httpx

        self.config = config
        self.url = normalise_url(config.url)
        headers = {"User-Agent": "Shoebox"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        limits = httpx.Limits(max_connections=config.max_in_flight + 1,
                              max_keepalive_connections=config.max_in_flight + 1)
        timeout = httpx.Timeout(config.read_timeout_s, connect=config.connect_timeout_s)
        self._http = httpx.Client(base_url=self.url, headers=headers, limits=limits, timeout=timeout,
                                  trust_env=False, follow_redirects=False, transport=transport)
        self._slots = threading.BoundedSemaphore(max(1, config.max_in_flight))
        self._closed = threading.Event()
        self.retried = 0  # requests sent again (any reason), for benchmarks and the log

    def close(self) -> None:
        self._closed.set()
        self._http.close()

    # ------------------------------------------------------------------ plain requests

    def get_json(self, path: str, *, retries: int | None = None) -> Any:
        """``GET path`` -> parsed JSON (same retry rules as :meth:`chat`)."""
        return self._send(lambda: self._http.get(path), lambda r: r.json(), retries=retries)[0]

    def models(self, *, retries: int | None = None) -> list[dict[str, Any]]:
        """``GET /v1/models`` -> the ``data`` list (each with ``id``, and for vLLM ``root``, ``max_model_len``)."""
        body = self.get_json("models", retries=retries)
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise ServerError(diag(Code.SERVER_NO_MODEL, url=self.url))
        return [m for m in data if isinstance(m, dict) and m.get("id")]

    def server_version(self) -> str:
        """vLLM's ``GET /version`` (outside ``/v1``), or ``""`` when the server has none."""
        import httpx

        root = self.url[: -len("/v1")] if self.url.endswith("/v1") else self.url
        try:
            with self._slots:
                r = self._http.get(root + "/version", timeout=self.config.connect_timeout_s)
            return str(r.json().get("version", "")) if r.status_code == 200 else ""
        except (httpx.HTTPError, ValueError, AttributeError):
            return ""

    # ------------------------------------------------------------------ chat completions

    def chat(self, model: str, image_jpeg: bytes, prompt: str, max_tokens: int) -> Completion:
        """One page and one prompt, as Tencent's client sends them.

        Raises:
            ServerUnreachable: connection failures (or malformed answers) past ``retries``.
            ServerError: an HTTP error that retrying cannot fix (400, 401, 404, 500...), or still
                busy at ``page_deadline_s``.
        """
        data_url = "data:image/jpeg;base64," + base64.b64encode(image_jpeg).decode("ascii")
        body: dict[str, Any] = {
            "model": model,
            "messages": [
                {"role": "system", "content": ""},
                {"role": "user", "content": [
                    {"type": "image_url", "image_url": {"url": data_url}},
                    {"type": "text", "text": prompt},
                ]},
            ],
            "max_tokens": int(max_tokens),
            "temperature": 0.0,
            "top_p": 1.0,
            "top_k": -1,
            "repetition_penalty": REPETITION_PENALTY,
            "skip_special_tokens": True,
            "stream": self.config.stream,
        }
        if self.config.stream:
            body["stream_options"] = {"include_usage": True}
            completion, tries = self._send(lambda: self._http.send(
                self._http.build_request("POST", "chat/completions", json=body), stream=True), _read_stream)
        else:
            completion, tries = self._send(lambda: self._http.post("chat/completions", json=body), _read_completion)
        completion.tries = tries
        return completion

    def _send(self, request: Callable[[], httpx.Response], parse: Callable[[httpx.Response], Any], *,
              retries: int | None = None) -> tuple[Any, int]:
        """Send with the retry policy of the module docstring; returns ``(parse(response), tries)``."""
        import httpx

        cfg = self.config
        max_failures = cfg.retries if retries is None else retries
        deadline = time.monotonic() + cfg.page_deadline_s
        failures = 0
        busy = 0
        tries = 0
        while True:
            if self._closed.is_set():
                raise ServerError(diag(Code.SERVER_CLOSED))
            tries += 1
            delay: float | None = None
            status = 0
            with self._slots:
                started = time.perf_counter()
                try:
                    response = request()
                    try:
                        status = response.status_code
                        if status in RETRY_STATUSES:
                            busy += 1
                            delay = _retry_after(response)
                            if delay is None:
                                delay = _backoff(busy, cfg.backoff_s, cfg.backoff_max_s)
                        elif status >= 400:
                            raise ServerError(_http_error(self.url, response))
                        else:
                            result = parse(response)
                            if isinstance(result, Completion):
                                result.seconds = time.perf_counter() - started
                            return result, tries
                    finally:
                        response.close()
                except (httpx.TransportError, _Malformed, ValueError) as exc:
                    failures += 1
                    reason = _transport_reason(exc)
                    if failures > max_failures:
                        raise ServerUnreachable(diag(Code.SERVER_UNREACHABLE, url=self.url, detail=reason)) from None
                    log.info("office server: %s; trying again (%d/%d)", reason, failures, max_failures)
                    delay = _backoff(failures, cfg.backoff_s, cfg.backoff_max_s)
            if delay is None:  # pragma: no cover - every branch above sets it or returns
                delay = cfg.backoff_s
            self.retried += 1
            if status and time.monotonic() + delay > deadline:
                raise ServerError(diag(Code.SERVER_BUSY, url=self.url, seconds=round(cfg.page_deadline_s), status=status))
            if self._closed.wait(delay):
                raise ServerError(diag(Code.SERVER_CLOSED))


def _backoff(attempt: int, base: float, cap: float) -> float:
    """Capped exponential backoff with jitter: ``min(cap, base * 2**(attempt-1)) * U(0.5, 1)``
    ("equal jitter", AWS Architecture Blog, "Exponential Backoff And Jitter", 2015)."""
    ceiling = min(cap, base * (2 ** max(0, attempt - 1)))
    return ceiling * (0.5 + random.random() / 2)


def _retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (RFC 9110 s. 10.2.3; the HTTP-date form is not used by vLLM), capped at 60."""
    value = response.headers.get("retry-after", "").strip()
    try:
        return min(60.0, max(0.0, float(value))) if value else None
    except ValueError:
        return None


def _http_error(url: str, response: httpx.Response) -> Diagnostic:
    status = response.status_code
    if status in (401, 403):
        return diag(Code.SERVER_KEY_REFUSED, url=url, status=status)
    try:
        response.read()
        detail = response.text[:300].strip()
    except Exception:
        detail = ""
    message = detail
    if detail.startswith("{"):
        try:
            error = json.loads(detail).get("error")
            message = (error.get("message") if isinstance(error, dict) else str(error or "")) or detail
        except (ValueError, AttributeError):
            pass
    return diag(Code.SERVER_HTTP_ERROR, url=url, status=status, detail=message or "no detail")


def _transport_reason(exc: BaseException) -> str:
    import httpx

    if isinstance(exc, _Malformed):
        return f"malformed answer ({exc})"
    if isinstance(exc, ValueError):
        return f"malformed answer ({exc})"
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer in time ({type(exc).__name__})"
    if isinstance(exc, httpx.ConnectError):
        return f"connection refused or no route ({exc})" if str(exc) else "connection refused or no route"
    return f"the connection dropped ({type(exc).__name__}{': ' + str(exc) if str(exc) else ''})"


def _read_completion(response: httpx.Response) -> Completion:
    try:
        body = response.json()
        choice = body["choices"][0]
        text = choice["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise _Malformed(f"no choices[0].message.content: {type(exc).__name__}") from None
    usage = body.get("usage") or {}
    return Completion(text=str(text), finish_reason=str(choice.get("finish_reason") or ""),
                      completion_tokens=int(usage.get("completion_tokens") or 0), model=str(body.get("model") or ""))


def _sse_events(response: httpx.Response) -> Iterator[str]:
    """The ``data:`` payloads of a server-sent-event stream (WHATWG HTML s. 9.2), one per event."""
    data: list[str] = []
    for line in response.iter_lines():
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def _read_stream(response: httpx.Response) -> Completion:
    """Collect a streamed answer, stopping early when its tail loops (Tencent ``infer_stream``)."""
    parts: list[str] = []
    length = 0
    next_check = STREAM_CHECK_FROM
    finish = ""
    tokens = 0
    model = ""
    done = False
    for payload in _sse_events(response):
        if done:
            continue  # read to the end of the body so that the connection is kept alive for the next page
        if payload.strip() == "[DONE]":
            done = True
            continue
        try:
            event = json.loads(payload)
        except ValueError:
            raise _Malformed("an event that is not JSON") from None
        if not isinstance(event, dict):
            raise _Malformed("an event that is not an object")
        if "error" in event:
            raise _Malformed(f"error event: {str(event['error'])[:200]}")
        model = model or str(event.get("model") or "")
        usage = event.get("usage")
        if isinstance(usage, dict) and usage.get("completion_tokens"):
            tokens = int(usage["completion_tokens"])
        for choice in event.get("choices") or ():
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                parts.append(piece)
                length += len(piece)
            if choice.get("finish_reason"):
                finish = str(choice["finish_reason"])
        if length >= next_check:
            next_check = length + STREAM_CHECK_EVERY
            tail = "".join(parts)[-STREAM_LOOP_MAX_PERIOD * STREAM_LOOP_MIN_REPEATS * 2:]
            if repeating_period(tail, max_period=STREAM_LOOP_MAX_PERIOD, min_repeats=STREAM_LOOP_MIN_REPEATS,
                                min_span=STREAM_LOOP_MIN_SPAN) is not None:
                return Completion(text="".join(parts), finish_reason="early_stop", completion_tokens=tokens, model=model)
    if not done and not finish:
        raise _Malformed("the stream ended before its last event")
    return Completion(text="".join(parts), finish_reason=finish, completion_tokens=tokens, model=model)


# --------------------------------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------------------------------


def encode_page(image: Any, max_pixels: int) -> tuple[bytes, int, int]:
    """The page as JPEG bytes within ``max_pixels``.

    Args:
        image: ``(H, W, 3)`` uint8 RGB array (or ``(H, W)`` grey, or a PIL image).

    Returns:
        ``(jpeg, width, height)``: the bytes and the size of the image sent. The model's 0-1000
        coordinates are relative to that image, and so to the image given (same aspect ratio).
    """
    from desktop.core.engines.hunyuan import _to_pil, fit_pixels

    pil = fit_pixels(_to_pil(image), max_pixels)
    buffer = io.BytesIO()
    pil.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return buffer.getvalue(), pil.width, pil.height


def _image_size(image: Any) -> tuple[int, int]:
    if isinstance(image, np.ndarray):
        return int(image.shape[1]), int(image.shape[0])
    width, height = image.size
    return int(width), int(height)


# --------------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------------


class ServerEngine(Engine):
    """HunyuanOCR on an office server behind the :class:`~desktop.core.engines.base.Engine` interface.

    Creating the engine opens no connection; :meth:`warm_up` (or the first page) asks the model list.
    Thread-safe: pages may be read from several threads at once (at most ``max_in_flight`` requests).

    Args:
        config: see :class:`ServerConfig`.
        transport: an ``httpx`` transport (tests).
        fallback: creates the CPU engine used while the server is down (``cpu_fallback``); default PP-OCR.

    Attributes:
        server_info: what the server said about itself (after :meth:`connect`); ``None`` before.
        load_notes: notes from starting (e.g. "the office server is down; reading on the CPU").
        pages_sent, pages_fallback: counters.

    Raises:
        ServerRefused: the URL is malformed or not private while ``allow_public`` is false.
    """

    name = "server"
    languages = ("zh", "en")
    capabilities = frozenset({Capability.MARKDOWN, Capability.TABLE, Capability.TRANSLATE})
    device = "server"
    seconds_per_megapixel = 10.0  # a busy office server queues pages; the watchdog unit if ever run in a worker

    def __init__(self, config: ServerConfig, *, transport: Any = None,
                 fallback: Callable[[], Engine] | None = None,
                 resolve: Callable[[str], list[str]] | None = None) -> None:
        url = check_server_url(config.url, allow_public=config.allow_public, resolve=resolve)
        self.config = replace(config, url=url)
        self.max_pixels = int(config.max_pixels)
        self.max_new_tokens = dict(MAX_NEW_TOKENS)
        self.version = f"HunyuanOCR server at {url}"
        self.server_info: ServerInfo | None = None
        self.load_notes: list[Diagnostic] = []
        self.pages_sent = 0
        self.pages_fallback = 0
        self._transport = transport
        self._client: ServerClient | None = None
        self._fallback_factory = fallback
        self._fallback: Engine | None = None
        self._lock = threading.RLock()
        self._down_until = 0.0
        self._down_reason: Diagnostic | None = None

    # ------------------------------------------------------------------ connection

    @property
    def url(self) -> str:
        return self.config.url

    @property
    def concurrency(self) -> int:
        """Pages a caller may read at once from several threads (``max_in_flight``); ``shoebox scan``
        and ``shoebox serve`` read that many files at once with this engine."""
        return max(1, int(self.config.max_in_flight))

    @property
    def client(self) -> ServerClient:
        with self._lock:
            if self._client is None:
                self._client = ServerClient(self.config, transport=self._transport)
            return self._client

    @property
    def model_name(self) -> str | None:
        """The served model's label (model, HunyuanOCR version, URL), recorded on each document."""
        return self.server_info.label if self.server_info else None

    def connect(self, *, retries: int | None = None) -> ServerInfo:
        """Ask the model list (and vLLM's version); pick the model; read its HunyuanOCR version from the names.

        Raises:
            ServerUnreachable: no answer.
            ServerError: the server answers but serves no model, or not the configured one.
        """
        client = self.client
        models = client.models(retries=retries)
        ids = [str(m["id"]) for m in models]
        if not models:
            raise ServerError(diag(Code.SERVER_NO_MODEL, url=self.url))
        if self.config.model:
            card = next((m for m in models if m["id"] == self.config.model), None)
            if card is None:
                raise ServerError(diag(Code.SERVER_MODEL_MISSING, url=self.url, model=self.config.model,
                                       models=", ".join(ids)))
        else:
            card = next((m for m in models if "hunyuan" in (str(m["id"]) + str(m.get("root", ""))).lower()), models[0])
        root = str(card.get("root") or "")
        version = detect_version(str(card["id"]), root)
        length = card.get("max_model_len")
        info = ServerInfo(url=self.url, model=str(card["id"]), root=root,
                          max_model_len=int(length) if isinstance(length, (int, float)) else None,
                          hunyuan_version=version, version_source="model list" if version else "",
                          server_version=client.server_version(), models=ids)
        with self._lock:
            self.server_info = info
            self._down_until, self._down_reason = 0.0, None
        self.version = info.label + (f", vLLM {info.server_version}" if info.server_version else "")
        return info

    def warm_up(self) -> None:
        """Ask the server who it is. When it cannot be reached and ``cpu_fallback`` is set, a load
        note says so and pages go to the CPU until it answers; otherwise the error is raised.

        Raises:
            ServerUnavailable: the server could not be reached (or refused) and no fallback is allowed.
        """
        try:
            self.connect()
        except ServerError as exc:
            if not self.config.cpu_fallback:
                raise ServerUnavailable(exc.diagnostic) from None
            self._mark_down(exc.diagnostic)
            note = diag(Code.SERVER_DOWN_CPU, url=self.url, detail=_detail(exc))
            log.warning("%s", note)
            self.load_notes.append(note)

    def describe(self) -> str:
        if self.server_info is None:
            return f"HunyuanOCR server {self.url} (not connected)"
        return f"HunyuanOCR server: {self.server_info.label}"

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
            if self._fallback is not None:
                self._fallback.close()
                self._fallback = None

    # ------------------------------------------------------------------ down / fallback

    def _mark_down(self, reason: Diagnostic) -> None:
        with self._lock:
            self._down_until = time.monotonic() + self.config.down_retry_s
            self._down_reason = reason

    @property
    def connection_problem(self) -> Diagnostic | None:
        """Why the server is not being used right now (it could not be reached), or ``None`` once it
        answers again; for the status bar."""
        with self._lock:
            return self._down_reason

    def _is_down(self) -> Diagnostic | None:
        with self._lock:
            if self._down_until and time.monotonic() < self._down_until:
                return self._down_reason
            return None

    def _fallback_engine(self) -> Engine:
        with self._lock:
            if self._fallback is None:
                if self._fallback_factory is not None:
                    self._fallback = self._fallback_factory()
                else:
                    from desktop.core.engines.ppocr import PPOCREngine

                    self._fallback = PPOCREngine()
            return self._fallback

    # ------------------------------------------------------------------ requests

    def _ask(self, image: Any, task: str, prompt_for: Callable[[str | None], str]) -> tuple[Generation, int, int]:
        """Send one page with the prompt for the (known or not yet known) model version.

        Returns:
            ``(generation, width, height)``: the answer and the size of the image sent.

        Raises:
            ServerUnreachable, ServerError: see :meth:`ServerClient.chat`.
        """
        down = self._is_down()
        if down is not None:
            raise ServerUnreachable(down)
        if self.server_info is None:
            try:
                self.connect()
            except ServerUnreachable as exc:
                self._mark_down(exc.diagnostic)
                raise
        assert self.server_info is not None
        jpeg, width, height = encode_page(image, self.max_pixels)
        limit = self.max_new_tokens[task]
        try:
            completion = self.client.chat(self.server_info.model, jpeg, prompt_for(self.server_info.hunyuan_version), limit)
        except ServerUnreachable as exc:
            self._mark_down(exc.diagnostic)
            raise
        with self._lock:
            self.pages_sent += 1
            self._down_until, self._down_reason = 0.0, None
        gen = finish_generation(
            completion.text, new_tokens=completion.completion_tokens,
            stopped_by_guard=completion.finish_reason == "early_stop",
            hit_token_limit=completion.finish_reason == "length", pixels=width * height, max_new_tokens=limit)
        if completion.tries > 1:
            log.info("office server: page read after %d tries", completion.tries)
        return gen, width, height

    def _spotting_prompt(self, version: str | None) -> str:
        """1.0's prompt for 1.0, else 1.5's (also while the version is not known: see the module docstring)."""
        return PROMPTS["spotting"]["zh"] if version == "1.0" else PROMPTS_15["spotting"]

    def _learn_version(self, version: str) -> None:
        with self._lock:
            if self.server_info is not None and self.server_info.hunyuan_version is None:
                self.server_info.hunyuan_version = version
                self.server_info.version_source = "answers"
                self.version = self.server_info.label

    def _read(self, image: Any) -> PageReading:
        """One page's reading; read on the CPU when allowed and the server is down (the warning says so)."""
        started = time.perf_counter()
        try:
            gen, width, height = self._ask(image, "spotting", self._spotting_prompt)
        except ServerUnreachable as exc:
            if not self.config.cpu_fallback:
                raise
            reading = self._fallback_engine().read_page(np.asarray(image))
            with self._lock:
                self.pages_fallback += 1
            note = diag(Code.SERVER_FALLBACK, url=self.url, detail=_detail(exc))
            return PageReading(reading.lines, warnings=[note, *reading.warnings], suspect=reading.suspect,
                               seconds=time.perf_counter() - started)
        if self.server_info is not None and self.server_info.hunyuan_version is None:
            version = _answer_version(gen.text)
            if version is None:  # neither form: perhaps a 1.0 model lost on 1.5's prompt; ask in 1.0's words
                gen, width, height = self._ask(image, "spotting", lambda _v: PROMPTS["spotting"]["zh"])
                version = "1.0" if _answer_version(gen.text) == "1.0" else None
            if version:
                self._learn_version(version)
        conf = SUSPECT_LINE_CONFIDENCE if gen.suspect else MODEL_LINE_CONFIDENCE
        # Boxes: 0-1000 of the image sent = of the image given (same aspect ratio), in its pixels.
        given_w, given_h = _image_size(image)
        lines = parse_spotting(gen.text, given_w, given_h, confidence=conf)
        return PageReading(lines, warnings=list(gen.warnings), suspect=gen.suspect,
                           seconds=time.perf_counter() - started)

    # ------------------------------------------------------------------ the Engine interface

    def read_page(self, image: np.ndarray) -> PageReading:
        """Text spotting on the server: every line with its box, in the pixels of ``image``.

        Lines carry :data:`~desktop.core.engines.hunyuan_output.MODEL_LINE_CONFIDENCE` (the model gives no
        scores), or ``SUSPECT_LINE_CONFIDENCE`` when the answer looped or was cut short (then the reading
        is ``suspect`` and its warnings say why). A page read on the CPU fallback says so in its warnings.

        Raises:
            ServerUnreachable: the server cannot be reached and ``cpu_fallback`` is off.
            ServerError: the server failed on this page.
        """
        return self._read(image)

    def recognise(self, image: np.ndarray) -> list[Line]:
        """The lines of :meth:`read_page` (for scripts and ``server-check``)."""
        return self._read(image).lines

    def read_pages(self, images: Sequence[np.ndarray]) -> list[PageReading | EngineError]:
        """:meth:`read_page` for several pages, ``max_in_flight`` at a time, answers in page order.

        Returns:
            One entry per image: its reading, or the :class:`EngineError` that page failed with (never
            dropped).
        """
        results: list[PageReading | EngineError] = [EngineError("not read")] * len(images)

        def one(i: int) -> None:
            try:
                results[i] = self._read(images[i])
            except EngineError as exc:
                results[i] = exc
            except Exception as exc:
                log.exception("office server: page %d failed", i + 1)
                results[i] = EngineError(f"{type(exc).__name__}: {exc}")

        workers = max(1, min(self.config.max_in_flight, len(images)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="shoebox-server") as pool:
            list(pool.map(one, range(len(images))))
        return results

    def fields_prompt(self, fields: Sequence[FieldSpec | str], language: str = "en") -> str:
        """HunyuanOCR 1.0's field-extraction prompt (Tencent's README wording)."""
        lang = "zh" if language.lower().startswith("zh") else "en"
        keys = fields_prompt_keys(fields, lang)
        listed = "[" + ", ".join(f"'{k}'" for k in keys.values()) + "]"
        return PROMPTS["fields"][lang].format(keys=listed)

    def read_fields(self, image: np.ndarray, fields: Sequence[FieldSpec | str], language: str = "en") -> FieldReading:
        """Ask the model for named fields: a second opinion beside Shoebox's own extraction.

        Only HunyuanOCR 1.0 has this task (1.5's client dropped it); the engine does not list
        :attr:`~desktop.core.engines.base.Capability.FIELDS`, so the pipeline reads the fields from the
        spotted lines itself and this is never the first opinion.

        Returns:
            A :class:`FieldReading` keyed by the canonical names of ``fields``.

        Raises:
            ServerError: the server serves 1.5 (or the version is unknown), or failed on the page.
        """
        started = time.perf_counter()
        if self.server_info is None:
            self.connect()
        assert self.server_info is not None
        if self.server_info.hunyuan_version != "1.0":
            raise ServerError(diag(Code.SERVER_NO_FIELD_TASK, model=self.server_info.model,
                                   version=self.server_info.hunyuan_version or "?"))
        specs = as_field_specs(fields)
        prompt = self.fields_prompt(specs, language)
        gen, _, _ = self._ask(image, "fields", lambda _v: prompt)
        values, notes = parse_fields(gen.text, specs, language)
        return FieldReading(values, warnings=[*gen.warnings, *notes], suspect=gen.suspect,
                            seconds=time.perf_counter() - started)

    def run_task(self, image: np.ndarray, task: str, language: str = "en") -> TaskReading:
        """A document task on the server (1.5's official prompts when it serves 1.5, else 1.0's).

        Raises:
            EngineError: unknown task, or the page could not be read.
        """
        if task not in TASKS:
            raise ServerError(diag(Code.SERVER_NO_TASK, task=task, tasks=", ".join(TASKS)))
        started = time.perf_counter()
        lang = "zh" if language.lower().startswith("zh") else "en"

        def prompt(version: str | None) -> str:
            if task == "spotting":
                return self._spotting_prompt(version)
            return PROMPTS_15[task] if version == "1.5" else PROMPTS[task][lang]

        gen, _, _ = self._ask(image, task, prompt)
        text = strip_fences(gen.text) if task == "table" else gen.text
        return TaskReading(text, warnings=list(gen.warnings), suspect=gen.suspect,
                           seconds=time.perf_counter() - started)


# --------------------------------------------------------------------------------------------------
# shoebox server-check
# --------------------------------------------------------------------------------------------------


@dataclass
class CheckReport:
    """What ``shoebox server-check`` found.

    Attributes:
        ok: the server answered the model list and the probe page.
        info: the server's description (``None`` when it did not answer).
        probe_seconds: round trip of the probe page (spotting), in seconds.
        probe_lines: lines read on the probe page.
        problems: what went wrong, one line each.
    """

    url: str
    ok: bool = False
    info: ServerInfo | None = None
    probe_seconds: float | None = None
    probe_lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report as printed."""
        out = [f"server:          {self.url}"]
        if self.info is not None:
            i = self.info
            out += [
                f"answers:         yes{f' (vLLM {i.server_version})' if i.server_version else ''}",
                f"model:           {i.model}" + (f" (also serves: {', '.join(m for m in i.models if m != i.model)})"
                                                 if len(i.models) > 1 else ""),
                f"revision/root:   {i.root or 'not given'}",
                f"HunyuanOCR:      {i.hunyuan_version or 'version not known'}"
                + (f" (from the {i.version_source})" if i.version_source else ""),
                f"context length:  {f'{i.max_model_len:,} tokens' if i.max_model_len else 'not given'}",
            ]
        else:
            out.append("answers:         no")
        if self.probe_seconds is not None:
            out.append(f"probe page:      {self.probe_seconds:.2f} s round trip, {len(self.probe_lines)} lines read")
        out += [f"problem:         {p}" for p in self.problems]
        out.append("result:          " + ("OK" if self.ok else "NOT USABLE"))
        return out


def probe_page() -> np.ndarray:
    """A small printed page (600 x 200 px, two lines of text) for the round-trip probe."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (600, 200), "white")
    draw = ImageDraw.Draw(image)
    draw.text((30, 40), "SHOEBOX PROBE RECEIPT", fill="black", font_size=32)
    draw.text((30, 120), "TOTAL 12.34", fill="black", font_size=32)
    return np.asarray(image)


def server_check(config: ServerConfig, *, transport: Any = None,
                 resolve: Callable[[str], list[str]] | None = None) -> CheckReport:
    """Check a server: does it answer, what it serves, and the round trip of a probe page.

    Never raises for server problems: they are listed in :attr:`CheckReport.problems`.

    Raises:
        ServerRefused: the URL breaks the privacy policy (bad form, public host without the allow setting).
    """
    quick = replace(config, retries=0, page_deadline_s=min(config.page_deadline_s, 60.0))
    engine = ServerEngine(quick, transport=transport, resolve=resolve)
    report = CheckReport(url=engine.url)
    try:
        try:
            report.info = engine.connect(retries=0)
        except ServerError as exc:
            report.problems.append(str(exc))
            return report
        started = time.perf_counter()
        try:
            reading = engine.read_page(probe_page())
        except ServerError as exc:
            report.problems.append(f"the probe page failed: {exc}")
            return report
        lines = reading.lines
        report.probe_seconds = time.perf_counter() - started
        report.probe_lines = [ln.text for ln in lines]
        report.info = engine.server_info
        for warning in reading.warnings:
            report.problems.append(f"probe page: {warning}")
        if not lines:
            report.problems.append("the probe page came back without any text line (is this HunyuanOCR?)")
        report.ok = bool(lines)
        return report
    finally:
        engine.close()
