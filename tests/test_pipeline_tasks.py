"""``pipeline.run_task``: the GUI's Document menu tasks on a document read before (fake engines)."""
from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from desktop.core.diagnostics import Diagnostic
from desktop.core.engines.base import EngineError
from desktop.core.pipeline import Cancelled, ScanOptions, run_task, scan_file
from tests.fake_engines import FakeEngine

W, H = 600, 900
PAGE = {"width": W, "height": H, "lines": [{"text": "TOTAL 12.50", "box": [40, 700, 560, 740], "confidence": 0.99}]}
TABLE = "<table><tr><td>Item</td><td>Qty</td></tr><tr><td>Tea</td><td>2</td></tr></table>"
CAPS = {"markdown", "table", "translate"}


def tiff(path: Path, pages: int, size: tuple[int, int] = (W, H)) -> Path:
    frames = [Image.new("RGB", size, (255, 255, 255 - i)) for i in range(pages)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def read(path: Path):
    (doc,) = scan_file(path, FakeEngine([PAGE]), ScanOptions(document_type="receipt"))
    return doc


@pytest.mark.parametrize(("task", "language"), [("markdown", "en"), ("table", "en"), ("translate_en", "en"),
                                                 ("translate_zh", "zh")])
def test_every_task_stores_one_output_per_page(tmp_path, task, language) -> None:
    doc = read(tiff(tmp_path / "two.tif", 2))
    engine = FakeEngine(capabilities=CAPS, task_outputs={"table": TABLE}, task_output="# {task}")
    after = run_task(doc, task, engine)
    expected = TABLE if task == "table" else f"# {task}"
    assert after.extras[task] == [{"page": 1, "text": expected}, {"page": 2, "text": expected}]
    assert engine.task_calls == [task, task]
    assert after.tables == ([{"page": 1, "html": TABLE}, {"page": 2, "html": TABLE}] if task == "table" else [])
    assert task not in doc.extras and doc.tables == []  # the input is not changed
    assert after.fields.keys() == doc.fields.keys()


def test_pages_are_rendered_within_the_engine_budget_and_rerun_replaces(tmp_path) -> None:
    doc = read(tiff(tmp_path / "big.tif", 1, (2000, 3000)))
    engine = FakeEngine(capabilities=CAPS, max_pixels=600_000, task_output=TABLE)
    first = run_task(doc, "table", engine)
    again = run_task(first, "table", engine)
    (h, w), = set(engine.task_shapes)
    assert h * w <= 600_000 and abs(w / h - 2 / 3) < 0.01
    assert again.tables == [{"page": 1, "html": TABLE}] and len(again.extras["table"]) == 1


def test_engine_without_the_capability_and_bad_tasks_raise(tmp_path) -> None:
    doc = read(tiff(tmp_path / "a.tif", 1))
    with pytest.raises(EngineError, match="cannot do the task"):
        run_task(doc, "markdown", FakeEngine())
    with pytest.raises(ValueError, match="unknown task"):
        run_task(doc, "poem", FakeEngine(capabilities=CAPS))


def test_failure_on_every_page_names_file_page_and_reason(tmp_path) -> None:
    doc = read(tiff(tmp_path / "a.tif", 2))
    with pytest.raises(EngineError) as err:
        run_task(doc, "table", FakeEngine(capabilities=CAPS, task_error="CUDA out of memory"))
    assert str(err.value).startswith("a.tif: table failed on page 1: CUDA out of memory (and 1 more pages)")


def test_failed_page_is_noted_and_the_others_kept(tmp_path) -> None:
    path = tiff(tmp_path / "a.tif", 2)
    doc = read(path)
    engine = FakeEngine(capabilities=CAPS, task_output="ok")
    calls = {"n": 0}
    real = engine.run_task

    def flaky(image, task, language="en"):
        calls["n"] += 1
        if calls["n"] == 2:
            raise EngineError("generation looped")
        return real(image, task, language)

    engine.run_task = flaky  # type: ignore[method-assign]
    after = run_task(doc, "markdown", engine)
    assert after.extras["markdown"] == [{"page": 1, "text": "ok"}]
    assert [Diagnostic.from_dict(p).message() for p in after.extras["task_problems"]["markdown"]] == [
        "page 2: generation looped"]
    path.unlink()  # the source file went away: every page fails, the message says which file
    with pytest.raises(EngineError, match="a.tif: markdown failed on page 1"):
        run_task(after, "markdown", FakeEngine(capabilities=CAPS))


def test_cancel_and_progress(tmp_path) -> None:
    doc = read(tiff(tmp_path / "a.tif", 3))
    seen = []
    with pytest.raises(Cancelled):
        run_task(doc, "markdown", FakeEngine(capabilities=CAPS), progress=seen.append, cancel=lambda: len(seen) >= 2)
    assert [p.page for p in seen] == [1, 2]
    seen.clear()
    run_task(doc, "markdown", FakeEngine(capabilities=CAPS), progress=seen.append)
    assert [p.page for p in seen] == [1, 2, 3, 3] and seen[-1].message == "done"


def test_error_document_is_refused(tmp_path) -> None:
    from desktop.core.model import Document

    with pytest.raises(ValueError, match="was not read"):
        run_task(Document(source=str(tmp_path / "x.png"), error="x.png: broken"), "table", FakeEngine(capabilities=CAPS))
