"""The office-server engine against a real OpenAI-compatible test server on 127.0.0.1 (tests/openai_server.py).

Covers the request HunyuanOCR's client sends, both answer formats and version detection, streaming and
non-streaming, 429/503/dropped/malformed/slow answers, back-pressure, the privacy policy of the URL,
the CPU fallback, ``create_engine``, ``shoebox server-check``, a whole scan through the pipeline with a
recorded answer, and one run where the test server answers with the tiny random HunyuanOCR model.
"""
from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import numpy as np
import pytest

from desktop.core.diagnostics import Code
from desktop.core.engines import EngineUnavailable, create_engine
from desktop.core.engines.base import EngineError, PageReading
from desktop.core.engines.hunyuan import MAX_NEW_TOKENS, PROMPTS, REPETITION_PENALTY
from desktop.core.engines.hunyuan_output import MODEL_LINE_CONFIDENCE, SUSPECT_LINE_CONFIDENCE
from desktop.core.engines.server import (
    PROMPTS_15,
    ServerConfig,
    ServerEngine,
    ServerError,
    ServerRefused,
    ServerUnreachable,
    check_server_url,
    detect_version,
    normalise_url,
    server_check,
)
from tests.fake_engines import FakeEngine, RecordedPage
from tests.openai_server import OpenAITestServer, TinyModelAnswer

pytestmark = pytest.mark.loopback

DATA = Path(__file__).parent / "data"
SPOT_15 = (DATA / "hunyuan" / "spotting_json.txt").read_text(encoding="utf-8")
SPOT_10 = (DATA / "hunyuan" / "spotting_stripped.txt").read_text(encoding="utf-8")


def fast(url: str, **kw) -> ServerConfig:
    """A configuration with short waits, so fault tests take milliseconds."""
    values = dict(backoff_s=0.01, backoff_max_s=0.05, connect_timeout_s=2.0, read_timeout_s=5.0, down_retry_s=60.0)
    values.update(kw)
    return ServerConfig(url, **values)


@pytest.fixture
def serve():
    """Start test servers; every one is stopped at the end of the test."""
    started: list[OpenAITestServer] = []

    def start(answer="", **kw) -> OpenAITestServer:
        srv = OpenAITestServer(answer, **kw).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


def page(width: int = 400, height: int = 500) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (height, width, 3), dtype=np.uint8)


# ------------------------------------------------------------------------------------------ the request


def test_request_is_shaped_like_hunyuans_own_client(serve):
    srv = serve(SPOT_15)
    engine = ServerEngine(fast(srv.url, max_pixels=250_000))
    engine.recognise(page(1000, 1000))  # 1 Mpx: shrunk to the budget before it is sent
    req = srv.requests[-1]
    body = req.body
    assert body["model"] == "tencent/HunyuanOCR"
    assert body["messages"][0] == {"role": "system", "content": ""}
    content = body["messages"][1]["content"]
    assert content[0]["type"] == "image_url" and content[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert content[1] == {"type": "text", "text": PROMPTS_15["spotting"]}  # version unknown: 1.5's prompt
    assert body["temperature"] == 0.0 and body["top_p"] == 1.0 and body["top_k"] == -1
    assert body["repetition_penalty"] == REPETITION_PENALTY == 1.08
    assert body["skip_special_tokens"] is True
    assert body["max_tokens"] == MAX_NEW_TOKENS["spotting"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    w, h = req.image_size
    assert w * h <= 250_000 and abs(w - h) <= 1
    assert req.headers.get("Authorization") is None
    engine.close()


def test_lines_map_from_the_0_1000_grid_to_the_image_given(serve):
    srv = serve(SPOT_15)
    engine = ServerEngine(fast(srv.url, max_pixels=50_000))
    reading = engine.read_page(page(400, 500))  # sent at ~200x250; boxes come back in 400x500 pixels
    lines = reading.lines
    texts = [ln.text for ln in lines]
    assert texts == ["TAN WOON YANN", "Total (RM):", "9.00", "Date: 25/12/2018"]
    assert lines[0].box == pytest.approx((33.6, 10.5, 366.4, 26.0))
    assert lines[3].polygon is not None
    assert all(ln.confidence == MODEL_LINE_CONFIDENCE for ln in lines)
    assert reading.warnings == [] and not reading.suspect
    engine.close()


@pytest.mark.parametrize("stream", [True, False])
def test_streaming_and_non_streaming_read_the_same(serve, stream):
    srv = serve(SPOT_10)
    engine = ServerEngine(fast(srv.url, stream=stream))
    lines = engine.recognise(page())
    assert [ln.text for ln in lines][:3] == ["TAN WOON YANN", "BOOK TA .K(TAMAN DAYA) SDN BHD", "Total (RM):"]
    assert srv.requests[-1].body["stream"] is stream
    engine.close()


# ------------------------------------------------------------------------------------ model versions


def test_version_15_from_a_json_answer(serve):
    srv = serve(SPOT_15)
    engine = ServerEngine(fast(srv.url))
    engine.recognise(page())
    assert engine.server_info.hunyuan_version == "1.5" and engine.server_info.version_source == "answers"
    engine.recognise(page())
    assert [r.prompt for r in srv.requests] == [PROMPTS_15["spotting"]] * 2
    assert "HunyuanOCR 1.5" in engine.model_name
    engine.close()


def test_version_10_from_an_answer_in_its_own_form(serve):
    srv = serve(SPOT_10)  # a 1.0 model answers the JSON prompt in its text(x1,y1),(x2,y2) form
    engine = ServerEngine(fast(srv.url))
    assert len(engine.recognise(page())) == 5
    assert engine.server_info.hunyuan_version == "1.0"
    engine.recognise(page())
    assert [r.prompt for r in srv.requests] == [PROMPTS_15["spotting"], PROMPTS["spotting"]["zh"]]
    engine.close()


def test_an_answer_of_neither_form_is_asked_again_in_10s_words(serve):
    def answer(request):
        return "I see a receipt." if request.prompt == PROMPTS_15["spotting"] else SPOT_10

    srv = serve(answer)
    engine = ServerEngine(fast(srv.url))
    lines = engine.recognise(page())
    assert len(lines) == 5 and engine.server_info.hunyuan_version == "1.0"
    assert [r.prompt for r in srv.requests] == [PROMPTS_15["spotting"], PROMPTS["spotting"]["zh"]]
    engine.close()


def test_version_from_the_model_list(serve):
    srv = serve(SPOT_10, model_id="hunyuan-ocr", root="/srv/models/tencent/HunyuanOCR/v1.0", max_model_len=16384)
    engine = ServerEngine(fast(srv.url))
    info = engine.connect()
    assert (info.hunyuan_version, info.version_source, info.max_model_len) == ("1.0", "model list", 16384)
    assert info.server_version == "0.18.1"
    assert len(engine.recognise(page())) == 5
    assert srv.requests[0].prompt == PROMPTS["spotting"]["zh"]
    engine.close()


@pytest.mark.parametrize("names, version", [
    (("tencent/HunyuanOCR", "/models/HunyuanOCR"), None),
    (("tencent/HunyuanOCR", "/models/HunyuanOCR/v1.0"), "1.0"),
    (("HunyuanOCR-1.5",), "1.5"),
    (("hunyuanocr-v1.5", "/x/v1.0"), "1.5"),
    (("tencent/HunyuanOCR-v1",), "1.0"),
    (("qwen2.5-vl",), None),
])
def test_detect_version(names, version):
    assert detect_version(*names) == version


def test_field_prompt_only_on_10_and_not_a_capability(serve):
    srv = serve('```json\n{"total": "9.00", "date": "25/12/2018"}\n```', root="/m/HunyuanOCR/v1.0")
    engine = ServerEngine(fast(srv.url))
    assert "fields" not in engine.capabilities  # the pipeline extracts fields from the lines itself
    values = engine.read_fields(page(), ["total", "date", "vendor_name"]).values
    assert values == {"total": "9.00", "date": "25/12/2018", "vendor_name": None}
    assert srv.requests[-1].body["max_tokens"] == MAX_NEW_TOKENS["fields"]
    srv15 = serve(SPOT_15, root="/m/HunyuanOCR-1.5")
    with pytest.raises(ServerError, match="no field-extraction task"):
        ServerEngine(fast(srv15.url)).read_fields(page(), ["total"])
    engine.close()


def test_run_task_uses_the_official_prompt_of_the_version(serve):
    srv = serve("```html\n<table><tr><td>1</td></tr></table>\n```", root="/m/HunyuanOCR-1.5")
    engine = ServerEngine(fast(srv.url))
    assert engine.run_task(page(), "table").text == "<table><tr><td>1</td></tr></table>"
    engine.run_task(page(), "markdown")
    assert [r.prompt for r in srv.requests] == [PROMPTS_15["table"], PROMPTS_15["markdown"]]
    with pytest.raises(EngineError, match="no task"):
        engine.run_task(page(), "poetry")
    engine.close()


# ------------------------------------------------------------------------------------ faults


def test_retries_429_503_drops_and_malformed_answers_then_reads(serve):
    srv = serve(SPOT_15, faults=["429", "503", "drop", "malformed", "drop_mid", "garbage_stream"])
    engine = ServerEngine(fast(srv.url, retries=5))
    lines = engine.recognise(page())
    assert len(lines) == 4
    assert srv.stats.chat_requests == 7
    assert srv.stats.faults == {"429": 1, "503": 1, "drop": 1, "malformed": 1, "drop_mid": 1, "garbage_stream": 1}
    assert engine.client.retried == 6
    engine.close()


def test_busy_server_slows_the_page_then_fails_it_with_the_reason(serve):
    srv = serve(SPOT_15, default_fault="503")
    engine = ServerEngine(fast(srv.url, page_deadline_s=0.3))
    started = time.monotonic()
    with pytest.raises(ServerError, match=r"stayed busy .*HTTP 503"):
        engine.recognise(page())
    assert 0.2 < time.monotonic() - started < 3
    assert srv.stats.chat_requests > 3  # it kept asking: busy is not a connection failure
    engine.close()


def test_connection_failures_become_unreachable_and_later_pages_fail_fast(serve):
    srv = serve(SPOT_15, default_fault="drop")
    engine = ServerEngine(fast(srv.url, retries=2))
    with pytest.raises(ServerUnreachable, match=r"could not be reached: the connection dropped"):
        engine.recognise(page())
    assert srv.stats.chat_requests == 3
    started = time.monotonic()
    with pytest.raises(ServerUnreachable, match=srv.url.replace(".", r"\.")):
        engine.recognise(page())
    assert time.monotonic() - started < 0.5 and srv.stats.chat_requests == 3  # inside down_retry_s: not sent
    engine.close()


def test_a_stopped_server_is_unreachable(serve):
    srv = serve(SPOT_15)
    url = srv.url
    srv.stop()
    engine = ServerEngine(fast(url, retries=1))
    with pytest.raises(EngineUnavailable, match="could not be reached"):
        engine.warm_up()
    engine.close()


def test_http_errors_are_not_retried_and_say_what_happened(serve):
    srv = serve(SPOT_15, faults=["500"])
    engine = ServerEngine(fast(srv.url))
    with pytest.raises(ServerError, match="HTTP 500: simulated 500"):
        engine.recognise(page())
    assert srv.stats.chat_requests == 1
    engine.close()


def test_slow_answer_past_the_read_timeout_is_retried(serve):
    srv = serve(SPOT_15, faults=["slow"], slow_s=1.0)
    engine = ServerEngine(fast(srv.url, read_timeout_s=0.3))
    assert len(engine.recognise(page())) == 4
    assert srv.stats.chat_requests == 2
    engine.close()


def test_api_key_is_sent_and_a_wrong_one_is_named(serve):
    srv = serve(SPOT_15, api_key="s3cret")
    good = ServerEngine(fast(srv.url, api_key="s3cret"))
    assert len(good.recognise(page())) == 4
    assert srv.requests[-1].headers["Authorization"] == "Bearer s3cret"
    bad = ServerEngine(fast(srv.url, api_key="wrong"))
    with pytest.raises(EngineUnavailable, match="refused the API key"):
        bad.warm_up()
    good.close()
    bad.close()


def test_looping_stream_is_stopped_early_and_marked(serve):
    srv = serve("TOTAL 9.00(100,100),(300,120)" + "ha ha ha ha " * 1000, chunk_chars=64)
    engine = ServerEngine(fast(srv.url))
    reading = engine.read_page(page())
    lines = reading.lines
    assert lines[0].text == "TOTAL 9.00" and lines[0].confidence == SUSPECT_LINE_CONFIDENCE
    assert reading.suspect and any("repeated itself" in str(w) for w in reading.warnings)
    engine.close()


def test_answer_cut_at_the_token_limit_is_marked(serve):
    srv = serve(SPOT_10, finish_reason="length")
    engine = ServerEngine(fast(srv.url, stream=False))
    reading = engine.read_page(page())
    assert reading.lines and all(ln.confidence == SUSPECT_LINE_CONFIDENCE for ln in reading.lines)
    assert reading.suspect and any("cut at the length limit" in str(w) for w in reading.warnings)
    engine.close()


# ------------------------------------------------------------------------------------ flow control


def test_pages_in_flight_are_bounded_and_none_is_dropped(serve):
    srv = serve(SPOT_15, latency_s=0.05, faults=["429", "503", "drop"])
    engine = ServerEngine(fast(srv.url, max_in_flight=3))
    results = engine.read_pages([page(80 + i, 90) for i in range(12)])
    assert len(results) == 12 and all(isinstance(r, PageReading) and len(r.lines) == 4 for r in results)
    assert srv.stats.max_concurrent <= 3
    assert srv.stats.chat_requests == 15 and engine.pages_sent == 12
    # keep-alive: 15 chat requests + 2 GETs over at most 3 pooled connections, +1 for the dropped one,
    # +1 or 2 while a pooled connection is being replaced
    assert srv.stats.connections <= 7
    engine.close()


def test_batch_reports_each_failed_page_in_its_slot(serve):
    srv = serve(SPOT_15, faults=["ok", "500", "ok"])
    engine = ServerEngine(fast(srv.url, max_in_flight=1))
    results = engine.read_pages([page(), page(), page()])
    assert [type(r).__name__ for r in results] == ["PageReading", "ServerError", "PageReading"]
    assert results[1].diagnostic.code == Code.SERVER_HTTP_ERROR and "HTTP 500" in str(results[1])
    engine.close()


def test_cpu_fallback_reads_the_page_and_says_so(serve):
    srv = serve(SPOT_15, default_fault="drop")
    recorded = RecordedPage(400, 500, [{"text": "CPU LINE", "box": [10, 10, 100, 30], "confidence": 0.8}])
    fallback = FakeEngine([recorded])
    engine = ServerEngine(fast(srv.url, retries=0, cpu_fallback=True), fallback=lambda: fallback)
    engine.warm_up()  # the model list is answered, so this connects
    reading = engine.read_page(page())
    assert [ln.text for ln in reading.lines] == ["CPU LINE"]
    assert "read with PP-OCR on the CPU" in str(reading.warnings[0]) and srv.url in str(reading.warnings[0])
    assert engine.pages_fallback == 1
    engine.close()


def test_fallback_off_by_default_and_warm_up_notes_it_when_on(serve):
    srv = serve(SPOT_15)
    url = srv.url
    srv.stop()
    engine = ServerEngine(fast(url, retries=0, cpu_fallback=True), fallback=lambda: FakeEngine([]))
    engine.warm_up()
    assert engine.load_notes[0].code == Code.SERVER_DOWN_CPU and "until it answers" in str(engine.load_notes[0])
    assert ServerConfig(url).cpu_fallback is False
    engine.close()


# ------------------------------------------------------------------------------------ privacy


@pytest.mark.parametrize("url, normal", [
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ("127.0.0.1:8000", "http://127.0.0.1:8000/v1"),
    ("http://localhost:8000/v1/", "http://localhost:8000/v1"),
    ("http://10.1.2.3:8000", "http://10.1.2.3:8000/v1"),
    ("https://192.168.1.20/ocr/v1", "https://192.168.1.20/ocr/v1"),
    ("http://[fd00::5]:8000/v1", "http://[fd00::5]:8000/v1"),
    ("http://100.101.1.2:8000/v1", "http://100.101.1.2:8000/v1"),
])
def test_private_addresses_are_accepted(url, normal):
    assert check_server_url(url) == normal


@pytest.mark.parametrize("url", ["http://8.8.8.8:8000/v1", "http://[2001:4860::8888]/v1", "http://0.0.0.0:8000"])
def test_public_addresses_need_the_allow_setting(url, network_attempts):
    with pytest.raises(ServerRefused, match="not a loopback or private-network address"):
        check_server_url(url)
    assert check_server_url(url, allow_public=True).startswith("http")
    assert network_attempts == []


def test_host_names_are_judged_by_every_address_they_resolve_to():
    assert check_server_url("http://gpu-box:8000", resolve=lambda h: ["192.168.1.9"]) == "http://gpu-box:8000/v1"
    with pytest.raises(ServerRefused, match=r"gpu-box \(203\.0\.113\.7\)"):
        check_server_url("http://gpu-box:8000", resolve=lambda h: ["192.168.1.9", "203.0.113.7"])

    def nxdomain(host):
        raise OSError("Name or service not known")

    with pytest.raises(ServerUnreachable, match="does not resolve"):
        check_server_url("http://nope:8000", resolve=nxdomain)


@pytest.mark.parametrize("url, message", [
    ("ftp://10.0.0.1/v1", "http:// or https://"),
    ("http://user:pw@10.0.0.1/v1", "without user name"),
    ("http://10.0.0.1/v1?key=1", "without user name"),
    ("http://:8000/v1", "no host"),
    ("http://10.0.0.1:99999/v1", "out of range|Port"),
])
def test_malformed_urls_are_refused(url, message):
    with pytest.raises(ServerRefused, match=message):
        normalise_url(url) if "99999" not in url else check_server_url(url)


def test_proxy_variables_are_ignored(serve, monkeypatch, network_attempts):
    srv = serve(SPOT_15)
    monkeypatch.setenv("HTTP_PROXY", "http://10.9.9.9:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.9.9.9:3128")
    engine = ServerEngine(fast(srv.url))
    assert len(engine.recognise(page())) == 4  # straight to the configured URL, never the proxy
    assert network_attempts == []
    engine.close()


def test_no_connection_without_a_configured_url(network_attempts, monkeypatch):
    monkeypatch.delenv("SHOEBOX_SERVER_URL", raising=False)
    assert ServerConfig.from_settings() is None
    with pytest.raises(EngineUnavailable, match="no office server is configured"):
        create_engine("server")
    assert type(create_engine("auto")).__name__ == "PPOCREngine"
    assert network_attempts == []


# ------------------------------------------------------------------------------------ create_engine, settings


def test_create_engine_server_and_auto_from_the_environment(serve, monkeypatch):
    srv = serve(SPOT_15)
    monkeypatch.setenv("SHOEBOX_SERVER_URL", srv.url)
    monkeypatch.setenv("SHOEBOX_SERVER_API_KEY", "k")
    engine = create_engine("server")
    assert isinstance(engine, ServerEngine) and engine.config.api_key == "k"
    notes: list[str] = []
    auto = create_engine("auto", notes=notes)
    assert isinstance(auto, ServerEngine) and auto.server_info is not None and notes == []
    srv.stop()
    notes = []
    assert type(create_engine("auto", notes=notes)).__name__ == "PPOCREngine"
    assert notes[0].code == Code.SERVER_NOT_USED
    assert "office server not used" in str(notes[0]) and "could not be reached" in str(notes[0])
    engine.close()
    auto.close()


def test_settings_carry_the_server_options(monkeypatch):
    from desktop.core.settings import Settings

    monkeypatch.delenv("SHOEBOX_SERVER_URL", raising=False)
    Settings(server_url="http://10.0.0.7:8000/v1", server_api_key="abc", server_cpu_fallback=True,
             server_max_in_flight=7).save()
    config = ServerConfig.from_settings()
    assert (config.url, config.api_key, config.cpu_fallback, config.max_in_flight) == ("http://10.0.0.7:8000/v1", "abc", True, 7)
    assert (Settings.path().stat().st_mode & 0o077) == 0  # the key is readable by its owner only
    with pytest.raises(EngineUnavailable, match="not a loopback"):
        create_engine("server", server=ServerConfig("http://8.8.4.4:8000/v1"))


# ------------------------------------------------------------------------------------ whole scans and server-check


def _recorded_answer(name: str) -> tuple[str, int, int, list]:
    """A 1.5 spotting answer (0-1000 grid) made from a recorded reading in tests/data/ocr."""
    d = json.loads((DATA / "ocr" / f"{name}.json").read_text(encoding="utf-8"))
    p = d["pages"][0]
    w, h = p["width"], p["height"]
    items = [{"box": [round(ln["box"][0] * 1000 / w), round(ln["box"][1] * 1000 / h),
                      round(ln["box"][2] * 1000 / w), round(ln["box"][3] * 1000 / h)], "text": ln["text"]}
             for ln in p["lines"]]
    return "```json\n" + json.dumps(items, ensure_ascii=False) + "\n```", w, h, p["lines"]


def test_a_scan_through_the_pipeline_reads_fields_from_the_servers_lines(serve, tmp_path):
    from PIL import Image

    from desktop.core.pipeline import ScanOptions, scan_file

    answer, w, h, recorded = _recorded_answer("sroie_006")
    srv = serve(answer)
    path = tmp_path / "receipt.png"
    Image.new("RGB", (w, h), "white").save(path)
    engine = ServerEngine(fast(srv.url))
    options = ScanOptions(auto_rotate=False, decode_qr=False)
    (doc,) = scan_file(path, engine, options)
    assert doc.error is None and doc.engine == "server"
    assert "tencent/HunyuanOCR (HunyuanOCR 1.5)" in doc.extras["engine_model"]
    assert len(doc.page_results[0].lines) == len(recorded)
    # the same recorded lines read by a local engine give the same fields: the extraction is our own
    (local,) = scan_file(path, FakeEngine([RecordedPage(w, h, recorded)]), options)
    ours = {k: f.value for k, f in doc.fields.items()}
    assert ours == {k: f.value for k, f in local.fields.items()}
    assert ours.get("total")
    engine.close()


def test_an_unreachable_server_fails_each_document_with_the_reason(serve, tmp_path):
    from PIL import Image

    from desktop.core.pipeline import ScanOptions, scan_file

    srv = serve(SPOT_15, default_fault="drop")
    path = tmp_path / "p.png"
    Image.new("RGB", (300, 300), "white").save(path)
    engine = ServerEngine(fast(srv.url, retries=0))
    engine.connect()
    (doc,) = scan_file(path, engine, ScanOptions(auto_rotate=False, decode_qr=False))
    assert doc.error and "could not be reached" in str(doc.error) and srv.url in str(doc.error)
    assert doc.error.code == Code.SERVER_UNREACHABLE  # the server's own diagnostic
    engine.close()


def test_server_check_reports_model_context_and_round_trip(serve):
    srv = serve(SPOT_15, root="/models/HunyuanOCR-1.5", max_model_len=32768)
    report = server_check(fast(srv.url))
    text = "\n".join(report.lines())
    assert report.ok and report.probe_seconds is not None
    assert "tencent/HunyuanOCR" in text and "1.5 (from the model list)" in text and "32,768 tokens" in text
    assert "vLLM 0.18.1" in text and "result:          OK" in text
    srv.stop()
    dead = server_check(fast(srv.url))
    assert not dead.ok and "could not be reached" in dead.problems[0]


def test_server_check_command(serve, capsys):
    from desktop import cli

    srv = serve(SPOT_15)
    assert cli.main(["server-check", srv.url]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert "context length:  32,768 tokens" in out and "round trip" in out
    assert cli.main(["server-check", "http://8.8.8.8:8000/v1"]) == cli.EXIT_ENGINE_UNAVAILABLE
    assert "not a loopback or private-network" in capsys.readouterr().err


def test_scan_command_with_server_url(serve, tmp_path, capsys):
    from PIL import Image

    from desktop import cli

    answer, w, h, _ = _recorded_answer("sroie_006")
    srv = serve(answer)
    path = tmp_path / "r.png"
    Image.new("RGB", (w, h), "white").save(path)
    assert cli.main(["scan", str(path), "--engine", "server", "--server-url", srv.url, "-q"]) == cli.EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert result["documents"][0]["engine"] == "server"
    srv.stop()
    assert cli.main(["scan", str(path), "--engine", "server", "--server-url", srv.url, "-q"]) == cli.EXIT_ENGINE_UNAVAILABLE
    assert "could not be reached" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ the tiny model behind the server


@pytest.mark.gpu_stack
def test_end_to_end_with_the_tiny_model_through_transformers(serve, tiny_model_dir):
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model = TinyModelAnswer(tiny_model_dir, max_new_tokens=16)
        srv = serve(model)
        engine = ServerEngine(fast(srv.url, read_timeout_s=60))
        markdown = engine.run_task(page(200, 160), "markdown").text
        lines = engine.recognise(page(200, 160))
        assert model.prompts[:2] == [PROMPTS["markdown"]["en"], PROMPTS_15["spotting"]]
        # what came back over the wire is what the model generated for the image the server decoded
        sent = srv.requests[0]
        import io

        from PIL import Image

        direct = model.engine._generate([Image.open(io.BytesIO(sent.image)).convert("RGB")], [sent.prompt], 16)[0]
        assert markdown == direct.text and markdown
        assert isinstance(lines, list)  # random weights write no coordinates: no lines, but no failure
        assert base64.b64decode(sent.body["messages"][1]["content"][0]["image_url"]["url"].split(",", 1)[1])[:2] == b"\xff\xd8"
        engine.close()
    finally:
        torch.set_num_threads(threads)


def test_scan_command_reads_several_files_at_once_and_keeps_their_order(serve, tmp_path, capsys):
    from PIL import Image

    from desktop import cli

    answer, w, h, _ = _recorded_answer("sroie_006")
    srv = serve(answer, latency_s=0.15)
    paths = []
    for i in range(6):
        path = tmp_path / f"r{i}.png"
        Image.new("RGB", (w, h), "white").save(path)
        paths.append(str(path))
    assert cli.main(["scan", *paths, "--engine", "server", "--server-url", srv.url, "--max-in-flight", "3",
                     "-q"]) == cli.EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert [d["source"] for d in result["documents"]] == paths
    assert 2 <= srv.stats.max_concurrent <= 3
