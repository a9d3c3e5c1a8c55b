"""``shoebox serve``: real HTTP requests (httpx) against uvicorn on 127.0.0.1.

Good and bad files, xlsx/csv answers, batch jobs, oversize uploads, a full queue, a missing or wrong
token, concurrent clients, uploads deleted after the answer, no field value in the log.
"""
from __future__ import annotations

import io
import json
import logging
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from desktop.service.app import ServiceConfig, create_app, safe_name
from tests.fake_engines import FakeEngine, RecordedPage
from tests.pages import OCR_DATA

pytestmark = pytest.mark.loopback

TOKEN = "t0ken-for-the-tests-0123456789"


def _recorded(name: str = "sroie_006") -> RecordedPage:
    d = json.loads((OCR_DATA / f"{name}.json").read_text(encoding="utf-8"))
    p = d["pages"][0]
    return RecordedPage(p["width"], p["height"], p["lines"])


def png_bytes(width: int = 457, height: int = 1170) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buf, format="PNG")
    return buf.getvalue()


class Service:
    """uvicorn serving :func:`create_app` on a 127.0.0.1 socket the OS picked, in a thread."""

    def __init__(self, config: ServiceConfig) -> None:
        import uvicorn

        self.app = create_app(config)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{self.port}"

    def client(self, **kw) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, trust_env=False, **kw)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@pytest.fixture
def service(tmp_path):
    started: list[Service] = []

    def start(engine=None, **kw) -> Service:
        kw.setdefault("work_dir", tmp_path / "work")
        config = ServiceConfig(engine_factory=lambda: engine or FakeEngine([_recorded()]), **kw)
        svc = Service(config)
        started.append(svc)
        return svc

    yield start
    for svc in started:
        svc.stop()


def _work_files(tmp_path: Path) -> list[Path]:
    return [p for p in (tmp_path / "work").rglob("*") if p.is_file()] if (tmp_path / "work").exists() else []


def test_scan_one_file_returns_the_scan_schema_and_deletes_the_upload(service, tmp_path, caplog):
    svc = service()
    with caplog.at_level(logging.INFO), svc.client() as c:
        r = c.post("/v1/scan", files={"file": ("receipt 12.png", png_bytes(), "image/png")},
                   params={"document_type": "receipt"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["schema_version"] and len(body["documents"]) == 1
    doc = body["documents"][0]
    assert doc["source"] == "receipt 12.png" and doc["error"] is None and doc["document_type"] == "receipt"
    total = doc["fields"]["total"]["value"]
    assert total
    assert str(tmp_path) not in r.text  # no server path in the answer
    assert _work_files(tmp_path) == []  # the upload is gone
    logged = "\n".join(rec.getMessage() for rec in caplog.records)
    assert "job " in logged and total not in logged and "receipt 12" not in logged


@pytest.mark.parametrize("fmt, media, magic", [("xlsx", "spreadsheetml", b"PK"), ("csv", "text/csv", b"\xef\xbb\xbf")])
def test_scan_as_xlsx_and_csv(service, fmt, media, magic):
    svc = service()
    with svc.client() as c:
        r = c.post("/v1/scan", params={"format": fmt}, files={"file": ("r.png", png_bytes())})
    assert r.status_code == 200 and media in r.headers["content-type"]
    assert r.content.startswith(magic)
    assert "attachment" in r.headers["content-disposition"]


def test_scan_as_a_chinese_workbook(service):
    import io

    import openpyxl

    svc = service()
    with svc.client() as c:
        r = c.post("/v1/scan", params={"format": "xlsx", "language": "zh"}, files={"file": ("r.png", png_bytes())})
        bad = c.post("/v1/scan", params={"format": "xlsx", "language": "fr"}, files={"file": ("r.png", png_bytes())})
    assert r.status_code == 200
    wb = openpyxl.load_workbook(io.BytesIO(r.content))
    assert wb.sheetnames[0] == "单据" and wb["单据"]["A1"].value == "源文件"
    assert bad.status_code == 400 and "unknown language 'fr'" in bad.text


def test_bad_files_are_named_by_intake_and_never_read_from_a_server_path(service, tmp_path):
    svc = service()
    secret = tmp_path / "secret.png"
    secret.write_bytes(png_bytes())
    with svc.client() as c:
        text = c.post("/v1/scan", files={"file": ("notes.pdf", b"just some text, not a PDF\n" * 20)})
        empty = c.post("/v1/scan", files={"file": ("empty.jpg", b"")})
        path = c.post("/v1/scan", files={"file": (str(secret), b"\x89PNG\r\n\x1a\n broken")})
        bad_format = c.post("/v1/scan", params={"format": "docx"}, files={"file": ("r.png", png_bytes())})
        no_file = c.post("/v1/scan", data={"path": str(secret)})
    assert text.status_code == 422
    doc = text.json()["documents"][0]
    assert doc["source"] == "notes.pdf" and doc["error"]["code"] == "unsupported_text_file"
    assert empty.status_code == 422 and empty.json()["documents"][0]["error"]["code"] == "empty_file"
    assert path.status_code == 422
    assert path.json()["documents"][0]["source"] == "secret.png"  # the name only; the content sent was read
    assert str(tmp_path) not in path.text
    assert bad_format.status_code == 400
    assert no_file.status_code == 422  # FastAPI: the required multipart field is missing


def test_oversize_upload_is_refused(service, tmp_path):
    svc = service(max_upload_bytes=10_000)
    with svc.client() as c:
        r = c.post("/v1/scan", files={"file": ("big.png", png_bytes(2000, 2000) + b"\0" * 20_000)})
    assert r.status_code == 413 and "too large" in r.json()["detail"]
    assert _work_files(tmp_path) == []


def test_full_queue_answers_429(service):
    svc = service(FakeEngine([_recorded()], delay=0.6), queue_size=1)
    with ThreadPoolExecutor(3) as pool, svc.client() as c:
        first = pool.submit(c.post, "/v1/scan", files={"file": ("a.png", png_bytes())})
        time.sleep(0.25)
        second = c.post("/v1/scan", files={"file": ("b.png", png_bytes())})
        assert second.status_code == 429 and second.headers["retry-after"]
        assert first.result().status_code == 200
        with svc.client() as c2:
            assert c2.get("/health").json()["queue"] == {"pending": 0, "capacity": 1}


def test_time_limit_answers_504(service):
    svc = service(FakeEngine([_recorded()], delay=0.8), request_timeout_s=0.2)
    with svc.client() as c:
        r = c.post("/v1/scan", files={"file": ("a.png", png_bytes())})
    assert r.status_code == 504 and "no result within" in r.json()["detail"]


def test_token_is_required_when_set(service):
    svc = service(token=TOKEN)
    files = {"file": ("a.png", png_bytes())}
    with svc.client() as c:
        assert c.post("/v1/scan", files=files).status_code == 401
        assert c.post("/v1/scan", files=files, headers={"Authorization": "Bearer nope"}).status_code == 401
        assert c.post("/v1/scan", files=files, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        assert c.get("/health").status_code == 200  # health carries no document data


def test_lan_bind_without_a_token_is_refused():
    with pytest.raises(ValueError, match="give a token"):
        create_app(ServiceConfig(host="0.0.0.0"))
    with pytest.raises(ValueError, match="at least 16"):
        create_app(ServiceConfig(host="192.168.1.5", token="short"))
    create_app(ServiceConfig(host="192.168.1.5", token=TOKEN))  # built, not started: nothing is bound


def test_serve_command_refuses_unsafe_options(capsys):
    from desktop import cli

    assert cli.main(["serve", "--host", "0.0.0.0"]) == 2
    assert "give a token" in capsys.readouterr().err


def test_concurrent_clients_each_get_their_own_result(service):
    pages = {i: RecordedPage(300, 200, [{"text": f"CLIENT {i} TOTAL {i}.00", "box": [10, 10, 290, 40],
                                         "confidence": 0.99}]) for i in range(5)}
    engine = FakeEngine(pages, key=lambda image: int(image[0, 0, 0]) // 40)
    svc = service(engine, queue_size=8)

    def one(i: int) -> tuple[int, str]:
        from PIL import Image

        buf = io.BytesIO()
        Image.new("RGB", (300, 200), (40 * i + 5, 255, 255)).save(buf, format="PNG")
        with svc.client() as c:
            r = c.post("/v1/scan", files={"file": (f"c{i}.png", buf.getvalue())})
        return r.status_code, r.json()["documents"][0]["page_results"][0]["lines"][0]["text"]

    with ThreadPoolExecutor(5) as pool:
        results = list(pool.map(one, range(5)))
    assert results == [(200, f"CLIENT {i} TOTAL {i}.00") for i in range(5)]


def test_batch_job(service, tmp_path):
    svc = service()
    with svc.client() as c:
        r = c.post("/v1/batch", files=[("files", ("a.png", png_bytes())), ("files", ("a.png", png_bytes())),
                                       ("files", ("bad.jpg", b"nope"))])
        assert r.status_code == 202
        job = r.json()
        assert job["files"] == 3
        deadline = time.monotonic() + 20
        while (state := c.get(job["status_url"]).json())["state"] in ("queued", "running"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert state["state"] == "done" and state["files_done"] == 3
        docs = state["result"]["documents"]
        assert [d["source"] for d in docs] == ["a.png", "a.png", "bad.jpg"]
        assert docs[0]["error"] is None and docs[2]["error"]
        assert c.get(job["status_url"], params={"format": "csv"}).content.startswith(b"\xef\xbb\xbf")
        assert c.delete(job["status_url"]).status_code == 204
        assert c.get(job["status_url"]).status_code == 404
    assert _work_files(tmp_path) == []


def test_keep_needs_a_keep_dir_and_then_keeps(service, tmp_path):
    svc = service()
    with svc.client() as c:
        assert c.post("/v1/scan", params={"keep": "true"}, files={"file": ("a.png", png_bytes())}).status_code == 400
    keeper = service(keep_dir=tmp_path / "kept")
    with keeper.client() as c:
        assert c.post("/v1/scan", params={"keep": "true"}, files={"file": ("a.png", png_bytes())}).status_code == 200
    kept = list((tmp_path / "kept").rglob("*.png"))
    assert [p.name for p in kept] == ["a.png"]


def test_openapi_docs_and_health(service):
    svc = service()
    with svc.client() as c:
        assert c.get("/docs").status_code == 200
        spec = c.get("/openapi.json").json()
        assert {"/v1/scan", "/v1/batch", "/v1/batch/{job_id}", "/health"} <= set(spec["paths"])
        deadline = time.monotonic() + 5
        while (h := c.get("/health").json())["engine_state"] == "starting" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert h["status"] == "ok" and h["engine_state"] == "ready"


def test_engine_that_cannot_start_gives_503(service):
    def broken():
        raise RuntimeError("no model here")

    svc = Service(ServiceConfig(engine_factory=broken))
    try:
        with svc.client() as c:
            r = c.post("/v1/scan", files={"file": ("a.png", png_bytes())})
            assert r.status_code == 503 and "could not start" in r.json()["detail"]
            assert c.get("/health").json()["status"] == "engine failed"
    finally:
        svc.stop()


@pytest.mark.parametrize("given, safe", [("../../etc/passwd", "passwd"), ("C:\\Users\\x\\inv 1.pdf", "inv 1.pdf"),
                                         ("", "upload-1"), (".hidden.png", "hidden.png"), ("a;rm -rf.png", "a_rm -rf.png")])
def test_safe_name(given, safe):
    assert safe_name(given) == safe
