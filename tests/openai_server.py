"""An OpenAI-compatible chat-completions test server that speaks the protocol as vLLM does.

A real HTTP/1.1 server (``http.server.ThreadingHTTPServer``) on 127.0.0.1 only, port chosen by the OS:
``GET /v1/models`` (vLLM's model card: ``id``, ``root``, ``max_model_len``), ``GET /version``,
``GET /health``, ``POST /v1/chat/completions`` non-streaming (one JSON body) and streaming
(server-sent events over chunked transfer encoding, ``data: [DONE]`` at the end, a usage event when
``stream_options.include_usage``). Keep-alive connections are reused as vLLM's uvicorn does.

Answers come from ``answer(request) -> str`` (recorded HunyuanOCR-style outputs, or the tiny random
model through transformers, see :class:`TinyModelAnswer`). Faults are scripted per chat request
(``faults``: a list consumed in order, then ``default_fault``):

- ``"ok"``; ``"429"`` / ``"503"`` (with ``Retry-After: 0``); ``"500"``; ``"401"``;
- ``"drop"``: close the connection without answering; ``"drop_mid"``: close it half-way through a stream;
- ``"malformed"``: HTTP 200 with a body that is not a chat completion; ``"garbage_stream"``: an event
  that is not JSON; ``"slow"``: wait ``slow_s`` before answering.

``latency_s`` is added to every chat request; ``capacity`` bounds the requests handled at once (the
rest wait, as vLLM queues them), or with ``reject_when_full`` are answered 429.
Used by ``tests/test_server_engine.py`` and ``benchmarks/bench_server.py``.
"""
from __future__ import annotations

import base64
import io
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ChatRequest:
    """One chat-completion request as the server saw it."""

    body: dict[str, Any]
    prompt: str
    image: bytes
    headers: dict[str, str]

    @property
    def image_size(self) -> tuple[int, int]:
        from PIL import Image

        with Image.open(io.BytesIO(self.image)) as im:
            return im.size


@dataclass
class Stats:
    chat_requests: int = 0
    answered: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    max_concurrent: int = 0
    connections: int = 0


class OpenAITestServer:
    """See the module docstring. Use as a context manager; :attr:`url` is the ``/v1`` base URL."""

    def __init__(
        self,
        answer: Callable[[ChatRequest], str] | str = "",
        *,
        model_id: str = "tencent/HunyuanOCR",
        root: str = "/models/HunyuanOCR",
        max_model_len: int = 32768,
        api_key: str | None = None,
        faults: list[str] | None = None,
        default_fault: str = "ok",
        latency_s: float = 0.0,
        slow_s: float = 2.0,
        capacity: int | None = None,
        reject_when_full: bool = False,
        finish_reason: str = "stop",
        chunk_chars: int = 16,
    ) -> None:
        self.answer = answer if callable(answer) else (lambda _req, _a=answer: _a)
        self.model_id = model_id
        self.root = root
        self.max_model_len = max_model_len
        self.api_key = api_key
        self.faults = list(faults or [])
        self.default_fault = default_fault
        self.latency_s = latency_s
        self.slow_s = slow_s
        self.finish_reason = finish_reason
        self.chunk_chars = chunk_chars
        self.capacity = threading.BoundedSemaphore(capacity) if capacity else None
        self.reject_when_full = reject_when_full
        self.requests: list[ChatRequest] = []
        self.stats = Stats()
        self._lock = threading.Lock()
        self._active = 0
        self._sockets: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.keep_records = True

    # ------------------------------------------------------------------ life cycle

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAITestServer:
        server = self

        class Handler(_Handler):
            owner = server

        httpd = _QuietServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and cut every open connection (a server that dies mid-batch)."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            for sock in list(self._sockets):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> OpenAITestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ behaviour

    def next_fault(self) -> str:
        with self._lock:
            fault = self.faults.pop(0) if self.faults else self.default_fault
            self.stats.chat_requests += 1
            if fault != "ok":
                self.stats.faults[fault] = self.stats.faults.get(fault, 0) + 1
            return fault


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (early stop, a test's dropped connection) are not errors here."""


def _parse_chat(body: dict[str, Any], headers: dict[str, str]) -> ChatRequest:
    messages = body["messages"]
    user = next(m for m in messages if m["role"] == "user")
    prompt = next(c["text"] for c in user["content"] if c["type"] == "text")
    url = next(c["image_url"]["url"] for c in user["content"] if c["type"] == "image_url")
    header, _, data = url.partition(",")
    if not header.startswith("data:image/") or ";base64" not in header:
        raise ValueError("image_url is not a base64 data URL")
    return ChatRequest(body=body, prompt=prompt, image=base64.b64decode(data), headers=headers)


class _Handler(BaseHTTPRequestHandler):
    owner: OpenAITestServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        with self.owner._lock:
            self.owner._sockets.add(self.connection)
            self.owner.stats.connections += 1

    def finish(self) -> None:
        with self.owner._lock:
            self.owner._sockets.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    # ------------------------------------------------------------------ helpers

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        key = self.owner.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._json(401, {"error": {"message": "Unauthorized", "type": "invalid_api_key"}})
        return False

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # ------------------------------------------------------------------ routes

    def do_GET(self) -> None:
        o = self.owner
        if self.path == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/version":
            self._json(200, {"version": "0.18.1"})
            return
        if not self._authorised():
            return
        if self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [{
                "id": o.model_id, "object": "model", "created": 0, "owned_by": "vllm", "root": o.root,
                "parent": None, "max_model_len": o.max_model_len}]})
            return
        self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        o = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self._authorised():
            return
        if self.path != "/v1/chat/completions":
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            request = _parse_chat(json.loads(raw), dict(self.headers))
        except (ValueError, KeyError, StopIteration, TypeError) as exc:
            self._json(400, {"error": {"message": f"bad request: {exc}"}})
            return
        fault = o.next_fault()
        if fault in ("429", "503"):
            self._json(int(fault), {"error": {"message": "busy"}}, {"Retry-After": "0"})
            return
        if fault in ("500", "401"):
            self._json(int(fault), {"error": {"message": f"simulated {fault}"}})
            return
        if fault == "drop":
            self._drop()
            return
        if fault == "malformed":
            self._json(200, {"id": "x", "object": "chat.completion", "nothing": "here"})
            return
        if o.capacity is not None:
            if o.reject_when_full:
                if not o.capacity.acquire(blocking=False):
                    self._json(429, {"error": {"message": "queue full"}}, {"Retry-After": "0"})
                    return
            else:
                o.capacity.acquire()
        try:
            with o._lock:
                o._active += 1
                o.stats.max_concurrent = max(o.stats.max_concurrent, o._active)
            if o.keep_records:
                with o._lock:
                    o.requests.append(request)
            if fault == "slow":
                time.sleep(o.slow_s)
            if o.latency_s:
                time.sleep(o.latency_s)
            text = o.answer(request)
            if request.body.get("stream"):
                self._stream(request, text, fault)
            else:
                self._json(200, _completion(o.model_id, text, o.finish_reason))
            with o._lock:
                o.stats.answered += 1
        finally:
            with o._lock:
                o._active -= 1
            if o.capacity is not None:
                o.capacity.release()

    def _stream(self, request: ChatRequest, text: str, fault: str) -> None:
        o = self.owner
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def send(payload: str) -> None:
            data = payload.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def event(obj: Any) -> None:
            send("data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n")

        base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": o.model_id}
        event({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})
        pieces = [text[i:i + o.chunk_chars] for i in range(0, len(text), o.chunk_chars)]
        try:
            for n, piece in enumerate(pieces):
                if fault == "drop_mid" and n >= len(pieces) // 2:
                    self._drop()
                    return
                if fault == "garbage_stream" and n == 1:
                    send("data: {not json\n\n")
                event({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
            if fault == "drop_mid":  # too short to cut half-way: cut before the end
                self._drop()
                return
            event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": o.finish_reason}]})
            if (request.body.get("stream_options") or {}).get("include_usage"):
                event({**base, "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": max(1, len(text) // 3),
                                                         "total_tokens": 100 + max(1, len(text) // 3)}})
            event("[DONE]")
            send("")  # the last chunk (length 0)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading (early stop)
            self.close_connection = True


def _completion(model: str, text: str, finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 100, "completion_tokens": max(1, len(text) // 3), "total_tokens": 100 + len(text) // 3},
    }


class TinyModelAnswer:
    """Answers with the tiny random HunyuanOCR model (``tests/hunyuan_tiny.py``) through transformers.

    Each request's image and prompt go through :class:`~desktop.core.engines.hunyuan.HunyuanEngine`'s
    real processor, chat template and ``generate`` on the CPU; ``max_tokens`` is capped at
    ``max_new_tokens`` to keep the test fast.
    """

    def __init__(self, model_dir: Any, *, max_new_tokens: int = 24, max_pixels: int = 160_000) -> None:
        from desktop.core.engines.hunyuan import HunyuanEngine

        self.engine = HunyuanEngine(model_dir, device="cpu", max_pixels=max_pixels, batch_size=1)
        self.max_new_tokens = max_new_tokens
        self.lock = threading.Lock()
        self.prompts: list[str] = []

    def __call__(self, request: ChatRequest) -> str:
        from PIL import Image

        image = Image.open(io.BytesIO(request.image)).convert("RGB")
        limit = min(int(request.body.get("max_tokens") or self.max_new_tokens), self.max_new_tokens)
        with self.lock:
            self.prompts.append(request.prompt)
            gen = self.engine._generate([image], [request.prompt], limit)[0]
        if isinstance(gen, Exception):
            raise gen
        return gen.raw_text


def main(argv: list[str] | None = None) -> int:
    """Run the test server in its own process (benchmarks): prints ``PORT <n>`` and serves until killed."""
    import argparse
    import sys
    from pathlib import Path

    parser = argparse.ArgumentParser(description="OpenAI-compatible test server on 127.0.0.1")
    parser.add_argument("--answer-file", type=Path, required=True, help="the recorded answer to give")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per chat request")
    parser.add_argument("--capacity", type=int, default=None, help="requests handled at once (the rest queue)")
    args = parser.parse_args(argv)
    server = OpenAITestServer(args.answer_file.read_text(encoding="utf-8"), latency_s=args.latency,
                              capacity=args.capacity)
    server.keep_records = False
    server.start()
    print(f"PORT {server.port}", flush=True)
    try:
        sys.stdin.read()  # until the parent closes our stdin or kills us
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
