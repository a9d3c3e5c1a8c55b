"""The test engines: recorded output scaled to the image, delays, and each way of failing."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from desktop.core.engines.base import EngineError
from desktop.core.engines.hunyuan_output import as_field_specs
from desktop.core.model import Line
from tests.fake_engines import (
    CrashingEngine,
    FailingEngine,
    FakeEngine,
    MemoryHogEngine,
    RecordedPage,
    SlowEngine,
)

PAGE = {
    "width": 400,
    "height": 200,
    "lines": [
        {"text": "TOTAL 12.50", "box": [200, 100, 380, 120], "confidence": 0.97,
         "polygon": [[200, 100], [380, 100], [380, 120], [200, 120]]},
        {"text": "SHOP", "box": [20, 10, 120, 40], "confidence": 0.99},
    ],
}


def image(h: int, w: int) -> np.ndarray:
    return np.full((h, w, 3), 255, np.uint8)


def test_replays_recording_scaled_to_the_image_and_in_reading_order():
    engine = FakeEngine([PAGE])
    lines = engine.read_page(image(100, 200)).lines  # half size
    assert [ln.text for ln in lines] == ["SHOP", "TOTAL 12.50"]
    assert lines[1].box == pytest.approx((100, 50, 190, 60))
    assert lines[1].polygon[2] == pytest.approx((190, 60))
    assert lines[1].confidence == pytest.approx(0.97)
    assert engine.calls == 1 and engine.shapes == [(100, 200)]


def test_sequence_is_replayed_in_order_and_the_last_repeats():
    one = {"width": 10, "height": 10, "lines": [{"text": "one", "box": [0, 0, 5, 2]}]}
    two = {"width": 10, "height": 10, "lines": [{"text": "two", "box": [0, 0, 5, 2]}]}
    engine = FakeEngine([one, two])
    texts = [engine.read_page(image(10, 10)).lines[0].text for _ in range(3)]
    assert texts == ["one", "two", "two"]


def test_mapping_uses_the_key_function_and_unknown_keys_read_blank():
    engine = FakeEngine({"red": PAGE}, key=lambda img: "red" if img[0, 0, 0] == 255 and img[0, 0, 1] == 0 else None)
    red = image(20, 40)
    red[0, 0] = (255, 0, 0)
    assert len(engine.read_page(red).lines) == 2
    assert engine.read_page(image(20, 40)).lines == []


def test_accepts_line_objects_and_empty_recordings():
    engine = FakeEngine([RecordedPage(10, 10, [Line("x y z", (0, 0, 10, 1))])])
    assert engine.read_page(image(20, 20)).lines[0].box == (0, 0, 20, 2)
    assert FakeEngine().read_page(image(5, 5)).lines == []
    with pytest.raises(ValueError):
        RecordedPage(0, 10, [])


def test_delay_and_slow_engine_sleep_and_can_be_interrupted():
    start = time.perf_counter()
    FakeEngine([PAGE], delay=0.05).read_page(image(10, 10))
    assert time.perf_counter() - start >= 0.05
    stop = threading.Event()
    slow = SlowEngine(5000, interrupt=stop.is_set, pages=[PAGE])
    threading.Timer(0.05, stop.set).start()
    start = time.perf_counter()
    assert len(slow.read_page(image(10, 10)).lines) == 2
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    ("engine", "error"),
    [
        (FailingEngine("no luck"), EngineError),
        (CrashingEngine(), RuntimeError),
        (MemoryHogEngine(), MemoryError),
    ],
)
def test_fault_engines_raise_their_kind_of_error(engine, error):
    with pytest.raises(error):
        engine.read_page(image(10, 10))


def test_failing_engine_can_fail_on_chosen_calls_only():
    engine = FailingEngine(fail_on={2}, pages=[PAGE])
    assert engine.read_page(image(10, 10)).lines
    with pytest.raises(EngineError, match="simulated"):
        engine.read_page(image(10, 10))
    assert engine.read_page(image(10, 10)).lines
    late = FailingEngine(fail_from=2)
    late.read_page(image(10, 10))
    with pytest.raises(EngineError):
        late.read_page(image(10, 10))


def test_capabilities_gate_fields_and_tasks():
    plain = FakeEngine()
    with pytest.raises(EngineError):
        plain.read_fields(image(5, 5), as_field_specs(["total"]))
    with pytest.raises(EngineError):
        plain.run_task(image(5, 5), "markdown")
    rich = FakeEngine(capabilities={"fields", "translate"}, field_values={"total": "9.90"})
    assert rich.read_fields(image(5, 5), as_field_specs(["total", "date"])).values == {"total": "9.90", "date": None}
    assert rich.run_task(image(5, 5), "translate_en").text == "<translate_en output>"
    assert rich.field_calls == [["total", "date"]] and rich.task_calls == ["translate_en"]
