"""The engine contract, checked the same way on every engine (after OCRmyPDF's
``tests/test_ocr_engine_interface.py``): the fake engine, PP-OCR, the tiny random HunyuanOCR model, and an
engine behind the worker process, and the office-server engine against the OpenAI-compatible test server on
127.0.0.1 (tests/openai_server.py).

Whatever the engine, :meth:`Engine.read_page` answers a :class:`PageReading` that passes
:func:`check_page_reading`, converts to plain data and back unchanged, and carries warnings as texts or
diagnostics (rendered in the clerk's language); the
capabilities are a typed set; :meth:`Engine.read_fields` answers exactly the canonical names asked for
(or refuses, for an engine without the capability); :meth:`Engine.run_task` refuses what it cannot do.
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.doctypes import get_document_type
from desktop.core.engines.base import (
    Capability,
    Engine,
    EngineError,
    EngineInfo,
    FieldReading,
    MalformedOutput,
    PageReading,
    TaskReading,
    as_capabilities,
    check_page_reading,
)
from desktop.core.model import Line
from tests.fake_engines import FakeEngine

HAS_TORCH = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))

TEXT_PAGE = {"width": 600, "height": 300, "lines": [
    {"text": "CORNER SHOP", "box": [40, 30, 300, 70], "confidence": 0.98},
    {"text": "TOTAL 12.50", "box": [40, 200, 360, 240], "confidence": 0.97},
]}


def text_image() -> np.ndarray:
    """A 600 x 300 white page with two printed lines (PIL's bundled font, scaled up)."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (600, 300), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=36)
    draw.text((40, 30), "CORNER SHOP", fill="black", font=font)
    draw.text((40, 200), "TOTAL 12.50", fill="black", font=font)
    return np.asarray(image).copy()


def _server_answer() -> str:
    """TEXT_PAGE as HunyuanOCR 1.5 spots it: a JSON array of boxes on the 0-1000 grid."""
    import json

    w, h = TEXT_PAGE["width"], TEXT_PAGE["height"]
    return json.dumps([{"box": [round(ln["box"][0] * 1000 / w), round(ln["box"][1] * 1000 / h),
                                round(ln["box"][2] * 1000 / w), round(ln["box"][3] * 1000 / h)], "text": ln["text"]}
                       for ln in TEXT_PAGE["lines"]])


@pytest.fixture(params=["fake", "ppocr", "hunyuan", "worker", pytest.param("server", marks=pytest.mark.loopback)])
def engine(request) -> Engine:
    kind = request.param
    if kind == "fake":
        eng: Engine = FakeEngine([TEXT_PAGE], capabilities={"fields", "markdown"}, field_values={"total": "12.50"},
                                 warnings=["answer cut short", diag(Code.HUNYUAN_CUT)], suspect=True)
    elif kind == "ppocr":
        pytest.importorskip("rapidocr")
        from desktop.core.engines.ppocr import PPOCREngine

        eng = PPOCREngine()
    elif kind == "hunyuan":
        if not HAS_TORCH:
            pytest.skip("needs the [gpu] extra (torch, transformers)")
        from desktop.core.engines.hunyuan import HunyuanEngine

        request.getfixturevalue("_one_thread")
        eng = HunyuanEngine(request.getfixturevalue("tiny_model_dir"), device="cpu", max_pixels=160_000,
                            max_new_tokens={"spotting": 60, "fields": 60, "markdown": 40, "table": 40})
    elif kind == "server":
        from desktop.core.engines.server import ServerConfig, ServerEngine
        from tests.openai_server import OpenAITestServer

        server = OpenAITestServer(_server_answer()).start()
        request.addfinalizer(server.stop)
        eng = ServerEngine(ServerConfig(server.url, backoff_s=0.01))
    else:
        from desktop.core.isolation.process import EngineSpec, WorkerEngine

        eng = WorkerEngine(EngineSpec("tests.fake_engines:FakeEngine", {
            "pages": [TEXT_PAGE], "capabilities": ["fields", "table"], "field_values": {"total": "12.50"},
            "warnings": ["answer cut short", diag(Code.HUNYUAN_REPEATED)]}))
    eng.warm_up()
    yield eng
    eng.close()


def test_read_page_answers_a_sound_reading(engine):
    image = text_image()
    reading = engine.read_page(image)
    assert isinstance(reading, PageReading)
    assert check_page_reading(reading, 600, 300) is reading
    assert all(isinstance(ln, Line) and ln.text for ln in reading.lines)
    assert all(isinstance(w, str | Diagnostic) for w in reading.warnings) and isinstance(reading.suspect, bool)
    assert reading.seconds >= 0
    assert PageReading.from_dict(reading.to_dict()) == PageReading.from_dict(reading.to_dict())
    again = PageReading.from_dict(reading.to_dict())
    assert [ln.text for ln in again.lines] == [ln.text for ln in reading.lines]
    assert again.warnings == reading.warnings and again.suspect == reading.suspect


def test_read_page_on_a_blank_page_is_sound(engine):
    reading = engine.read_page(np.full((120, 200, 3), 255, np.uint8))
    check_page_reading(reading, 200, 120)


def test_description_and_typed_capabilities(engine):
    assert isinstance(engine.capabilities, frozenset)
    assert all(isinstance(c, Capability) for c in engine.capabilities)
    info = engine.info()
    assert EngineInfo.from_dict(info.to_dict()) == info
    assert info.name == engine.name and info.capabilities == engine.capabilities
    assert isinstance(engine.describe(), str) and engine.describe()
    assert engine.max_pixels > 0 and engine.seconds_per_megapixel > 0


def test_read_upright_answers_a_sound_reading_or_refuses(engine):
    from desktop.core.engines.upright import Reading, check_reading
    from desktop.core.orientation import rotate_image

    image = rotate_image(text_image(), 90)  # lying on its side: 300 wide, 600 tall
    if Capability.UPRIGHT not in engine.capabilities:
        with pytest.raises(EngineError):
            engine.read_upright(image)
        return
    reading = engine.read_upright(image)
    assert check_reading(reading, 300, 600) is reading
    assert reading.rotation == 270 and reading.reason
    assert [ln.text for ln in reading.lines] == ["CORNER SHOP", "TOTAL 12.50"]
    again = Reading.from_dict(reading.to_dict())  # plain data keeps it (confidences rounded as Line.to_dict does)
    assert (again.rotation, again.reason, again.scores) == (reading.rotation, reading.reason, reading.scores)
    assert [ln.text for ln in again.lines] == [ln.text for ln in reading.lines]
    assert Reading.from_dict(again.to_dict()) == again


@pytest.mark.parametrize("bad, message", [
    ({"rotation": 45, "lines": []}, "not a quarter turn"),
    ({"rotation": 0, "lines": "x"}, "instead of a page reading"),
    ({"rotation": "up", "lines": []}, "not numbers"),
    ([], "instead of an upright reading"),
])
def test_malformed_upright_readings_are_refused(bad, message):
    from desktop.core.engines.upright import Reading

    with pytest.raises(MalformedOutput, match=message):
        Reading.from_dict(bad)


def test_an_upright_reading_is_checked_on_the_turned_image():
    from desktop.core.engines.upright import Reading, check_reading

    tall_line = Line("TOTAL", (10, 500, 290, 560), 0.9)  # inside 300 x 600, the image turned a quarter
    assert check_reading(Reading(90, [tall_line]), 600, 300).rotation == 90
    with pytest.raises(MalformedOutput, match="outside the 600x300 image"):
        check_reading(Reading(0, [tall_line]), 600, 300)


def test_read_fields_answers_canonical_names_or_refuses(engine):
    specs = get_document_type("receipt").field_specs()[:3] + [get_document_type("receipt").field_specs()[-1]]
    names = [s.name for s in specs]
    if Capability.FIELDS not in engine.capabilities:
        with pytest.raises(EngineError):
            engine.read_fields(text_image(), specs, "en")
        return
    answer = engine.read_fields(text_image(), specs, "en")
    assert isinstance(answer, FieldReading)
    assert list(answer.values) == names
    assert all(v is None or isinstance(v, str) for v in answer.values.values())
    assert FieldReading.from_dict(answer.to_dict(), requested=names) == answer


def test_run_task_refuses_what_it_cannot_do(engine):
    with pytest.raises(EngineError):
        engine.run_task(text_image(), "poem")
    for cap in (Capability.MARKDOWN, Capability.TABLE):
        if cap in engine.capabilities:
            answer = engine.run_task(text_image(), cap.value)
            assert isinstance(answer, TaskReading) and isinstance(answer.text, str)
        else:
            with pytest.raises(EngineError):
                engine.run_task(text_image(), cap.value)


# -- the contract's own checks -----------------------------------------------------------------------

@pytest.mark.parametrize(("line", "message"), [
    (Line("", (0, 0, 10, 10)), None),
    (Line("x", (0, 0, float("nan"), 10)), "not finite"),
    (Line("x", (0, 0, 900, 10)), "outside"),
    (Line("x", (20, 0, 10, 10)), "outside"),
    (Line("x", (0, 0, 10, 10), 1.5), "confidence"),
])
def test_check_page_reading_names_the_bad_line(line, message):
    reading = PageReading([Line("ok", (0, 0, 5, 5)), line])
    if message is None:
        check_page_reading(reading, 100, 100)  # an empty text is allowed (a box with nothing legible)
        return
    with pytest.raises(MalformedOutput, match=f"line 2 .*{message}"):
        check_page_reading(reading, 100, 100)


def test_malformed_plain_data_is_refused():
    with pytest.raises(MalformedOutput):
        PageReading.from_dict("garbage")
    with pytest.raises(MalformedOutput, match="line 1"):
        PageReading.from_dict({"lines": [{"box": [0, 0, 1, 1]}]})
    with pytest.raises(MalformedOutput):
        FieldReading.from_dict({"values": {"total": 12.5}})
    with pytest.raises(MalformedOutput, match="not asked for"):
        FieldReading.from_dict({"values": {"销售方名称": "X"}}, requested=["vendor_name"])
    with pytest.raises(MalformedOutput):
        check_page_reading([Line("x", (0, 0, 1, 1))], 10, 10)


def test_capabilities_are_typed_and_unknown_names_refused():
    caps = as_capabilities(["fields", "table"])
    assert caps == {Capability.FIELDS, Capability.TABLE} and "fields" in caps
    assert Capability.for_task("translate_zh") is Capability.TRANSLATE
    with pytest.raises(ValueError, match="unknown engine capability 'poetry'"):
        as_capabilities(["poetry"])
