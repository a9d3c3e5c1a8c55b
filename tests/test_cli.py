"""The ``shoebox`` command: parsing, exit status, error lines, folder walking, output by suffix.

Most tests replace the pipeline and the engine factory with small fakes that follow the contracts
(``desktop.core.pipeline.collect_inputs`` / ``scan_file`` / ``ScanOptions`` and
``desktop.core.engines.create_engine``), so they exercise the command itself in milliseconds. The tests
at the end run the real pipeline (a tiny scripted engine on generated images, and PP-OCR on two real
receipts) and are skipped while ``desktop.core.pipeline`` is absent.
"""
from __future__ import annotations

import importlib
import io
import json
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from desktop import __version__, cli
from desktop.core.diagnostics import Code, diag
from desktop.core.engines.base import Engine, EngineUnavailable, PageReading
from desktop.core.export import ExportError
from desktop.core.model import Document, Field, Line, ScanResult

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------------- fakes


@dataclass
class FakeOptions:
    document_type: str = "auto"
    date_order: str | None = None
    task: str | None = None


@dataclass
class FakeProgress:
    source: Path
    page: int
    pages: int
    message: str


class FakePipeline(types.SimpleNamespace):
    """Follows the pipeline contract. A file's bytes decide what it yields:

    ``BAD...`` -> an error document whose message starts with the file name (as IntakeError's str does);
    ``RAISE...`` -> scan_file raises (a pipeline bug; the command must carry on);
    ``TWO...`` -> two documents (a PDF holding two invoices); anything else -> one receipt.
    """

    SUFFIXES = (".jpg", ".png", ".pdf")

    def __init__(self) -> None:
        super().__init__(ScanOptions=FakeOptions, Progress=FakeProgress)
        self.scanned: list[Path] = []
        self.options: list[FakeOptions] = []

    def collect_inputs(self, paths, skipped=None, repeated=None):
        files: list[Path] = []
        errors: list[Document] = []
        for p in map(Path, paths):
            if p.is_dir():
                files += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in self.SUFFIXES)
            elif p.is_file():
                files.append(p)
            else:
                errors.append(Document(source=str(p), error=diag(Code.NO_SUCH_PATH)))
        return files, errors

    def scan_file(self, path, engine, options=None, *, cancel=None, progress=None):
        path = Path(path)
        self.scanned.append(path)
        self.options.append(options)
        data = path.read_bytes()
        if progress:
            progress(FakeProgress(path, 1, 1, "reading"))
        if data.startswith(b"RAISE"):
            raise RuntimeError("pipeline bug")
        if data.startswith(b"BAD"):
            return [Document(source=str(path), error=diag(Code.IMAGE_DAMAGED, detail="truncated JPEG"))]
        total = Field("total", value="12.50", raw="RM12.50", confidence=0.9)
        code = Field("invoice_code", value="012001800311", raw="012001800311", confidence=0.9)
        docs = [Document(source=str(path), document_type="receipt", engine=engine.name,
                         fields={"total": total, "invoice_code": code})]
        if data.startswith(b"TWO"):
            docs.append(Document(source=str(path), pages=(2, 2), document_type="invoice", engine=engine.name))
        return docs


class FakeEngine(Engine):
    name = "fake"
    version = "1"
    capabilities = frozenset()

    def __init__(self) -> None:
        self.closed = False

    def read_page(self, image: np.ndarray) -> PageReading:
        return PageReading([])

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):
    """The fake pipeline, installed; ``fake.engine_calls`` records create_engine's arguments."""
    pipeline = FakePipeline()
    pipeline.engine_calls = []
    pipeline.engines = []

    def create(name, model_dir, notes):
        pipeline.engine_calls.append((name, model_dir))
        if name == "hunyuan":
            raise EngineUnavailable("no HunyuanOCR model folder found (looked in /nowhere)")
        if name == "auto":
            notes.append("HunyuanOCR not used: no GPU. Using PP-OCR on the CPU.")
        engine = FakeEngine()
        pipeline.engines.append(engine)
        return engine

    monkeypatch.setattr(cli, "_pipeline", lambda: pipeline)
    monkeypatch.setattr(cli, "_create_engine", create)
    return pipeline


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    """in/a.jpg, in/b.png, in/sub/c.pdf (TWO documents), in/notes.txt (ignored)."""
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.jpg").write_bytes(b"GOOD")
    (folder / "b.png").write_bytes(b"GOOD")
    (folder / "sub" / "c.pdf").write_bytes(b"TWO")
    (folder / "notes.txt").write_text("not a scan", encoding="utf-8")
    return folder


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("shoebox: error:")]


# ------------------------------------------------------------------------------------------ dispatch


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"shoebox {__version__}\nPython ")
    assert "openpyxl" in out and "rapidocr" in out


def test_top_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "shoebox scan" in out and "exit status" in out and "4    the requested engine" in out


@pytest.mark.parametrize("argv", [[], ["a.jpg", "b.pdf"], ["/scans/x.png"], ["-style", "fusion"]])
def test_window_gets_the_arguments(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    seen: list[list[str]] = []
    monkeypatch.setattr(cli, "_gui_main", lambda: lambda args: seen.append(args) or 0)
    assert cli.main(argv) == 0
    assert seen == [argv]


def test_window_missing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def missing():
        raise ImportError("No module named 'PySide6'")

    monkeypatch.setattr(cli, "_gui_main", missing)
    assert cli.main([]) == cli.EXIT_NO_WINDOW
    assert "shoebox: error: the window cannot open here: No module named 'PySide6'" in capsys.readouterr().err


def test_window_without_a_display(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No display on Linux: the documented status 5 and a sentence, not Qt's abort (status 134)."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    monkeypatch.setattr(cli, "_gui_main", lambda: pytest.fail("Qt must not be started without a display"))
    assert cli.main(["a.jpg"]) == cli.EXIT_NO_WINDOW == 5
    err = capsys.readouterr().err
    assert "there is no display" in err and "xvfb-run" in err and "shoebox scan" in err


def test_mistyped_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["scna", "x.jpg"]) == 2
    assert "did you mean 'scan'?" in capsys.readouterr().err


def test_scan_help_lists_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["scan", "--help"]) == 0
    out = capsys.readouterr().out
    for text in ("--engine {auto,ppocr,hunyuan,server}", "--server-url URL", "--task {markdown,table,translate_en,translate_zh}",
                 "cn_vat_invoice", "exit status:", "3    nothing could be read", "--language {en,zh}"):
        assert text in out


# --------------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "argv",
    [
        ["scan"],
        ["scan", "a.jpg", "--engine", "tesseract"],
        ["scan", "a.jpg", "--type", "passport"],
        ["scan", "a.jpg", "--task", "summarise"],
        ["scan", "a.jpg", "--date-order", "YMD"],
        ["scan", "a.jpg", "--language", "fr"],
        ["scan", "a.jpg", "--bogus"],
        ["scan", "a.jpg", "-o", "out.txt"],
        ["scan", "a.jpg", "-o", "out"],
    ],
)
def test_usage_errors(fake, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 2
    assert "shoebox scan: error:" in capsys.readouterr().err
    assert fake.scanned == [] and fake.engine_calls == []


def test_options_reach_the_pipeline_and_engine(fake, batch: Path, tmp_path: Path) -> None:
    status = cli.main(["scan", str(batch / "a.jpg"), "--type", "cn_vat_invoice", "--engine", "ppocr",
                       "--model-dir", str(tmp_path / "models"), "--task", "table", "--date-order", "dmy",
                       "-o", str(tmp_path / "o.json"), "-q"])
    assert status == 0
    assert fake.options == [FakeOptions(document_type="cn_vat_invoice", date_order="DMY", task="table")]
    assert fake.engine_calls == [("ppocr", tmp_path / "models")]
    assert fake.engines[0].closed


def test_defaults(fake, batch: Path, tmp_path: Path) -> None:
    assert cli.main(["scan", str(batch / "a.jpg"), "-o", str(tmp_path / "o.json")]) == 0
    assert fake.options == [FakeOptions(document_type="auto", date_order=None, task=None)]
    assert fake.engine_calls == [("auto", None)]


def test_model_dir_defaults_to_saved_setting(fake, batch: Path, tmp_path: Path) -> None:
    from desktop.core.settings import Settings

    Settings(model_dir=str(tmp_path / "hy")).save()
    assert cli.main(["scan", str(batch / "a.jpg"), "-o", str(tmp_path / "o.json"), "-q"]) == 0
    assert fake.engine_calls == [("auto", tmp_path / "hy")]


# ---------------------------------------------------------------------------------------- batches


def test_folder_is_walked_in_order(fake, batch: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.xlsx"
    assert cli.main(["scan", str(batch), "-o", str(out), "-q"]) == 0
    assert fake.scanned == [batch / "a.jpg", batch / "b.png", batch / "sub" / "c.pdf"]
    ws = openpyxl.load_workbook(out)["Documents"]
    sources = [ws.cell(row=r, column=1).value for r in range(2, ws.max_row + 1)]
    assert sources == [str(batch / "a.jpg"), str(batch / "b.png"), str(batch / "sub" / "c.pdf"),
                       str(batch / "sub" / "c.pdf")]
    header = [c.value for c in ws[1]]
    code = ws.cell(row=2, column=header.index("Invoice code") + 1).value
    assert code == "012001800311"


def test_one_bad_file_does_not_stop_the_batch(fake, batch: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = batch / "bad.jpg"
    bad.write_bytes(b"BAD")
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(batch), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    # one line naming the file and the reason, without the file name twice
    assert _error_lines(err) == [f"shoebox: error: {bad}: the file is damaged or not a complete image (truncated JPEG)"]
    docs = ScanResult.load(out).documents
    assert len(docs) == 5
    assert [d.source for d in docs if d.error] == [str(bad)]
    assert len(fake.scanned) == 4


def test_pipeline_exception_is_one_error_line(fake, batch: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (batch / "boom.png").write_bytes(b"RAISE")
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(batch), "-o", str(out), "-q"]) == 1
    assert _error_lines(capsys.readouterr().err) == [
        f"shoebox: error: {batch / 'boom.png'}: unexpected error: RuntimeError: pipeline bug"]
    assert len(ScanResult.load(out).documents) == 5


def test_every_file_bad_is_status_3(fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("x.jpg", "y.jpg"):
        (tmp_path / name).write_bytes(b"BAD")
    out = tmp_path / "out.csv"
    assert cli.main(["scan", str(tmp_path / "x.jpg"), str(tmp_path / "y.jpg"), "-o", str(out), "-q"]) == 3
    assert len(_error_lines(capsys.readouterr().err)) == 2
    assert out.read_text(encoding="utf-8-sig").count("Error: ") == 2  # the errors are still written


def test_missing_path(fake, batch: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.jpg"
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(missing), str(batch / "a.jpg"), "-o", str(out), "-q"]) == 1
    assert _error_lines(capsys.readouterr().err) == [f"shoebox: error: {missing}: no such file or folder"]
    assert [d.error is None for d in ScanResult.load(out).documents] == [False, True]


def test_only_missing_paths(fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["scan", str(tmp_path / "nope.jpg"), "-o", str(tmp_path / "o.json")]) == 3
    assert fake.engine_calls == []  # no engine is loaded for nothing
    assert not (tmp_path / "o.json").exists()


def test_folder_without_scans(fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "readme.txt").write_text("x", encoding="utf-8")
    assert cli.main(["scan", str(tmp_path)]) == 3
    assert _error_lines(capsys.readouterr().err) == [f"shoebox: error: no supported files in {tmp_path}"]
    # The engine was started beside the inputs' check (the path exists); it is closed, not left running.
    assert all(engine.closed for engine in fake.engines)


def test_the_engine_warms_up_beside_the_pipeline_import(fake, batch: Path, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    import threading

    started = threading.Event()
    release = threading.Event()
    seen: list[str] = []

    class SlowStart(FakeEngine):
        def warm_up(self) -> None:
            seen.append(threading.current_thread().name)
            started.set()
            assert release.wait(10)

    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: SlowStart())

    def pipeline():
        # The warm-up is under way (in its own thread) while this process imports the pipeline.
        assert started.wait(10)
        release.set()
        return fake

    monkeypatch.setattr(cli, "_pipeline", pipeline)
    assert cli.main(["scan", str(batch), "-o", str(tmp_path / "o.json")]) == 0
    assert seen == ["engine-start"] and len(fake.scanned) == 3


# ----------------------------------------------------------------------------------------------- output


def test_json_to_stdout(fake, batch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["scan", str(batch / "a.jpg"), "-q"]) == 0
    captured = capsys.readouterr()
    result = ScanResult.from_json(captured.out)
    assert [d.source for d in result.documents] == [str(batch / "a.jpg")]
    assert result.documents[0].fields["total"].raw == "RM12.50"
    assert captured.err == ""


def test_stdout_is_utf8_whatever_the_console(fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scan = tmp_path / "发票.jpg"
    scan.write_bytes(b"GOOD")
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="cp1252"))
    assert cli.main(["scan", str(scan), "-q"]) == 0
    assert json.loads(raw.getvalue().decode("utf-8"))["documents"][0]["source"] == str(scan)


@pytest.mark.parametrize(("suffix", "magic"), [(".xlsx", b"PK\x03\x04"), (".csv", b"\xef\xbb\xbf"), (".json", b"{")])
def test_output_format_by_suffix(fake, batch: Path, tmp_path: Path, suffix: str, magic: bytes,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"result{suffix}"
    assert cli.main(["scan", str(batch / "a.jpg"), "-o", str(out)]) == 0
    assert out.read_bytes().startswith(magic)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"shoebox: wrote 1 document to {out}" in captured.err


@pytest.mark.parametrize("suffix", [".xlsx", ".csv"])
def test_language_zh_writes_the_spreadsheet_in_chinese(fake, batch: Path, tmp_path: Path, suffix: str) -> None:
    """``--language zh``: Chinese sheet names, headers, field labels, type names and status; the values as
    read (an amount still a number formatted 0.00, an invoice code text with its leading zero); without the
    option the output is English."""
    import csv

    out = tmp_path / f"zh{suffix}"
    assert cli.main(["scan", str(batch / "a.jpg"), str(batch / "b.png"),
                     "-o", str(out), "--language", "zh", "-q"]) == 0
    if suffix == ".xlsx":
        wb = openpyxl.load_workbook(out)
        assert wb.sheetnames == ["单据", "明细", "问题"]
        ws = wb["单据"]
        row = dict(zip([c.value for c in ws[1]], ws[2], strict=True))
        assert row["单据类型"].value == "收据" and row["状态"].value == "未审核"
        assert row["价税合计"].value == 12.5 and row["价税合计"].number_format == "0.00"
        assert row["发票代码"].value == "012001800311" and row["发票代码"].number_format == "@"
        problems = list(wb["问题"].iter_rows(values_only=True))
        assert problems[0] == ("源文件", "页码", "字段", "说明")
        assert all(r[3].startswith("空：") for r in problems[1:]) and len(problems) > 1  # empty key fields
    else:
        rows = list(csv.reader(io.StringIO(out.read_bytes().decode("utf-8-sig"), newline="")))
        assert out.read_bytes().startswith(b"\xef\xbb\xbf")
        row = dict(zip(rows[0], rows[1], strict=True))
        assert (row["单据类型"], row["状态"], row["价税合计"], row["发票代码"]) == ("收据", "未审核", "12.50", "012001800311")
    english = tmp_path / f"en{suffix}"
    assert cli.main(["scan", str(batch / "a.jpg"), "-o", str(english), "-q"]) == 0
    if suffix == ".xlsx":
        assert openpyxl.load_workbook(english).sheetnames == ["Documents", "Line items", "Problems"]
    else:
        assert english.read_text(encoding="utf-8-sig").startswith("Source file,Pages,Document type,Status")


def test_output_folder_missing_fails_before_scanning(fake, batch: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no" / "out.xlsx"
    assert cli.main(["scan", str(batch), "-o", str(out)]) == 3
    assert f"Could not write {out}: the folder {out.parent} does not exist" in capsys.readouterr().err
    assert fake.scanned == []


def test_output_write_failure_is_status_3(fake, batch: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.xlsx"

    def fail(documents, path, *, language="en"):
        raise ExportError(path, "permission denied")

    monkeypatch.setattr("desktop.core.export.export", fail)
    assert cli.main(["scan", str(batch), "-o", str(out), "-q"]) == 3
    assert _error_lines(capsys.readouterr().err) == [f"shoebox: error: Could not write {out}: permission denied"]


# ----------------------------------------------------------------------------------------------- engine


def test_engine_unavailable_is_status_4(fake, batch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["scan", str(batch), "--engine", "hunyuan"]) == 4
    err = capsys.readouterr().err
    assert "shoebox: error: the hunyuan engine is unavailable: no HunyuanOCR model folder found" in err
    assert fake.scanned == []


def test_engine_notes_on_stderr_unless_quiet(fake, batch: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    args = ["scan", str(batch / "a.jpg"), "--task", "markdown", "-o", str(tmp_path / "o.json")]
    assert cli.main(args) == 0
    err = capsys.readouterr().err
    assert "shoebox: note: HunyuanOCR not used: no GPU. Using PP-OCR on the CPU." in err
    assert "shoebox: engine: fake 1 (CPU)" in err
    assert "shoebox: note: --task markdown needs HunyuanOCR; the fake engine skips it" in err
    assert cli.main([*args, "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_interrupt(fake, batch: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(fake, "scan_file", interrupted)
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(batch), "-o", str(out), "-q"]) == 130
    assert not out.exists()
    assert fake.engines[0].closed
    assert "interrupted" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ no Qt


def test_scan_path_imports_no_qt() -> None:
    """``desktop.cli`` and the scan parser load neither Qt nor the GUI package (nor torch)."""
    code = (
        "import sys, desktop.cli as c\n"
        "c.build_scan_parser().parse_args(['x.jpg'])\n"
        "c.main(['--version'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'torch', 'transformers')"
        " or m.startswith('desktop.gui'))\n"
        "print('BAD:' + ','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("BAD:")


def test_python_dash_m_desktop() -> None:
    out = subprocess.run([sys.executable, "-m", "desktop", "--version"], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert out.stdout.startswith(f"shoebox {__version__}")


# ------------------------------------------------------------------------ with the real pipeline


class ScriptedEngine(Engine):
    """Reads every page as the same receipt lines (boxes in the given image's pixels)."""

    name = "scripted"
    version = "1"

    def read_page(self, image: np.ndarray) -> PageReading:
        h, w = image.shape[:2]
        texts = ["KEDAI RUNCIT MAJU", "DATE: 11/01/2019", "TOTAL RM 12.50"]
        return PageReading([Line(text=t, box=(w * 0.1, h * (0.1 + 0.2 * i), w * 0.9, h * (0.2 + 0.2 * i)), confidence=0.95)
                for i, t in enumerate(texts)])


def test_real_pipeline_with_scripted_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    importlib.import_module("desktop.core.pipeline")  # part of the product: never a skip
    from PIL import Image

    folder = tmp_path / "scans"
    (folder / "sub").mkdir(parents=True)
    Image.new("RGB", (400, 600), "white").save(folder / "r1.png")
    Image.new("RGB", (300, 500), "white").save(folder / "sub" / "r2.jpg")
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a JPEG")
    (folder / "notes.txt").write_text("ignored", encoding="utf-8")
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: ScriptedEngine())
    out = tmp_path / "out.xlsx"
    status = cli.main(["scan", str(folder), "--type", "receipt", "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert status == 1, err
    lines = _error_lines(err)
    assert len(lines) == 1 and lines[0].startswith(f"shoebox: error: {folder / 'broken.jpg'}: ")
    ws = openpyxl.load_workbook(out)["Documents"]
    sources = sorted(ws.cell(row=r, column=1).value for r in range(2, ws.max_row + 1))
    assert sources == sorted(str(p) for p in (folder / "broken.jpg", folder / "r1.png", folder / "sub" / "r2.jpg"))
    assert all(not str(s).endswith(".txt") for s in sources)


def test_a_file_given_three_times_is_read_once_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    importlib.import_module("desktop.core.pipeline")
    from PIL import Image

    Image.new("RGB", (400, 600), "white").save(tmp_path / "a.png")
    (tmp_path / "copy.png").write_bytes((tmp_path / "a.png").read_bytes())  # a copy: a document of its own
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: ScriptedEngine())
    status = cli.main(["scan", "a.png", "a.png", "./a.png", "copy.png", "--type", "receipt", "--no-memory"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "shoebox: note: a.png: given 3 times; read once\n" in err
    assert "copy.png: given" not in err
    docs = json.loads(out)["documents"]
    assert [d["source"] for d in docs] == ["a.png", "copy.png"]
    assert [(n["code"], n["params"]) for n in docs[0]["notes"]] == [("given_repeatedly", {"times": 3})]
    assert not any(n["code"] == "given_repeatedly" for n in docs[1]["notes"])
    assert docs[1]["duplicate_of"]["source"] == "a.png"


@pytest.mark.slow
@pytest.mark.samples
def test_end_to_end_ppocr_on_real_receipts(samples: Path, tmp_path: Path) -> None:
    """Two real SROIE receipts through ``shoebox scan`` with PP-OCR; checks against the ground truth."""
    importlib.import_module("desktop.core.pipeline")  # part of the product: never a skip
    pytest.importorskip("rapidocr")
    names = ["sroie_006", "sroie_514"]
    out = tmp_path / "receipts.json"
    status = cli.main(["scan", *(str(samples / "sroie" / f"{n}.jpg") for n in names),
                       "--engine", "ppocr", "--type", "receipt", "-o", str(out), "-q"])
    assert status == 0
    docs = ScanResult.load(out).documents
    assert [Path(d.source).stem for d in docs] == names
    totals_right = 0
    for name, doc in zip(names, docs):
        truth = json.loads((samples / "sroie" / f"{name}.key.json").read_text(encoding="utf-8"))
        assert doc.error is None and doc.engine == "ppocr" and doc.document_type == "receipt"
        assert truth["total"] in doc.text  # the engine read the printed total
        totals_right += doc.fields["total"].value == truth["total"]
    assert totals_right >= 1, [d.fields["total"].value for d in docs]


def test_engine_that_cannot_load_is_one_error_and_status_4(
    fake, batch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken model folder (say a cut-short weights file) fails once at warm-up, before any page."""

    def broken_warm_up(self) -> None:
        raise EngineUnavailable("could not load HunyuanOCR from /models: SafetensorError: invalid header length")

    monkeypatch.setattr(FakeEngine, "warm_up", broken_warm_up, raising=False)
    assert cli.main(["scan", str(batch), "-q"]) == 4
    err = capsys.readouterr().err
    assert err.count("could not load HunyuanOCR") == 1
    assert fake.scanned == []


def test_an_empty_folder_in_a_batch_is_said(tmp_path, monkeypatch, capsys):
    from desktop import cli

    empty = tmp_path / "empty"
    empty.mkdir()
    missing = tmp_path / "nothing.png"
    status = cli.main(["scan", str(empty), str(missing), "-o", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert status == 3 and "nothing.png" in err, err
    (tmp_path / "a.txt").write_text("x")
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: ScriptedEngine())
    cli.main(["scan", str(empty), str(missing), str(tmp_path / "a.txt"), "-o", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert f"{empty}: no supported files in this folder" in err, err


def _damaged_four_page_pdf(path: Path) -> Path:
    """Four text pages, cut off where page 3's content stream begins: MuPDF repairs the file; page 3's
    content cannot be loaded and page 4's is gone (both read as blank)."""
    import pymupdf

    doc = pymupdf.open()
    for i in range(4):
        doc.new_page().insert_text((72, 100), f"Page {i + 1} TOTAL 1{i}.50 some text here", fontsize=14)
    data = doc.tobytes(garbage=0, deflate=True, no_new_id=True)
    path.write_bytes(data[:data.find(b"12 0 obj")])
    return path


def test_a_damaged_pdf_is_worded_once_per_file_and_a_lost_page_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """stderr says a repair once for the file (MuPDF repairs the file, not each page) and a lost page
    in one error line, without a second note that nothing was found on it; the JSON keeps every page's
    warnings."""
    pdf = _damaged_four_page_pdf(tmp_path / "cut.pdf")
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: FakeEngine())  # reads every page as blank
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(pdf), "-o", str(out)]) == cli.EXIT_SOME_FAILED
    err = capsys.readouterr().err
    assert err.count("was repaired") == 1, err  # the file was cut short: said once, with why
    assert f"note: {pdf}: the PDF file is cut short" in err
    for n in (3, 4):
        said = [ln for ln in err.splitlines() if f": page {n}:" in ln]
        assert len(said) == 1 and said[0].startswith("shoebox: error:"), err
    pages = [p for d in json.loads(out.read_text(encoding="utf-8"))["documents"] for p in d["page_results"]]
    assert all(any(w["code"] == "pdf_truncated" for w in p["warnings"]) for p in pages)


def _two_page_invoice(path: Path, share: float) -> Path:
    """A two-page text-layer invoice (number and date on page 1, the total on page 2), its bytes cut to
    ``share`` of their length: MuPDF repairs it; page 1 loses part of its content (at 60% and 70%) and
    page 2 all of it (at 80%, part of it: it reads as blank either way)."""
    import pymupdf

    doc = pymupdf.open()
    for rows in (["ACME Widgets GmbH", "INVOICE", "Invoice No: INV-2025-0042", "Invoice Date: 2025-02-10",
                  "Item   Amount", *(f"Widget type {i:02d}    10.00" for i in range(1, 26))],
                 ["Widget type 26    10.00", "Subtotal    260.00", "VAT 19%     49.40", "Total       309.40"]):
        page = doc.new_page()
        for i, row in enumerate(rows):
            page.insert_text((60, 72 + 20 * i), row, fontname="cour", fontsize=10)
    data = doc.tobytes(garbage=0, deflate=True, no_new_id=True)
    path.write_bytes(data[:int(len(data) * share)])
    return path


@pytest.mark.parametrize("share", [0.6, 0.7, 0.8])
def test_a_cut_short_invoice_whose_last_page_is_lost_is_one_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     share: float) -> None:
    """QA: a two-page invoice PDF cut short came out as the invoice and an empty phantom "receipt" on the
    lost page 2. The lost page shows nothing, so nothing says a new document starts there: one invoice of
    two pages, its loss an error line, a document note and a flag on the total it may have held."""
    pdf = _two_page_invoice(tmp_path / "inv2p_truncated.pdf", share)
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: FakeEngine())
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(pdf), "-o", str(out), "-q"]) == cli.EXIT_SOME_FAILED
    assert any(line.split(": ")[3] == "page 2" for line in _error_lines(capsys.readouterr().err))
    (doc,) = json.loads(out.read_text(encoding="utf-8"))["documents"]
    assert doc["pages"] == [1, 2] and doc["document_type"] == "invoice"
    assert [p["number"] for p in doc["page_results"]] == [1, 2] and not doc["page_results"][1]["lines"]
    codes = [(n["code"], n["page"]) for n in doc["notes"]]
    assert ("pages_joined_content_lost", 2) in codes and ("page_content_lost", 2) in codes
    assert doc["fields"]["invoice_number"]["value"] == "INV-2025-0042"
    total = doc["fields"]["total"]
    assert total["needs_review"] and total["problems"], total  # it may have been on the lost page


@pytest.mark.parametrize("suffix", [".xlsx", ".json", ".csv"])
def test_pages_a_damaged_pdf_may_have_lost_are_problems_and_status_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    """A truncated PDF's pages whose content may be lost are never silent: an error line each, exit status 1,
    a row each in the Problems sheet (the status in CSV, a document note in JSON). They stay with the document
    they belong to (nothing on them marks a new document): one document of four pages, not a phantom document
    per lost page."""
    import csv

    pdf = _damaged_four_page_pdf(tmp_path / "cut.pdf")
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: FakeEngine())
    out = tmp_path / f"out{suffix}"
    status = cli.main(["scan", str(pdf), "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert status == cli.EXIT_SOME_FAILED, err
    lines = _error_lines(err)
    assert [line.split(": ")[3] for line in lines] == ["page 3", "page 4"], err
    if suffix == ".xlsx":
        wb = openpyxl.load_workbook(out)
        docs = [tuple(r[:2]) for r in wb["Documents"].iter_rows(min_row=2, values_only=True)]
        assert docs == [(str(pdf), "1-4")]
        rows = [r for r in wb["Problems"].iter_rows(min_row=2, values_only=True) if str(r[2]).startswith("page ")]
        assert [(r[1], r[2]) for r in rows] == [("1-4", "page 3"), ("1-4", "page 4")]  # the pages: the document's
        assert "could not be loaded" in rows[0][3] and "lost this page's content" in rows[1][3]
    elif suffix == ".json":
        result = json.loads(out.read_text(encoding="utf-8"))
        assert [d["pages"] for d in result["documents"]] == [[1, 4]]
        notes = [(n["code"], n["page"]) for n in result["documents"][0]["notes"]]
        assert notes == [("pages_joined_continuation", 2), ("pages_joined_content_lost", 3),
                         ("pages_joined_content_lost", 4), ("page_content_lost", 3), ("page_content_lost", 4)]
        again = ScanResult.load(out)  # the derived notes are not read back twice
        assert [n.code for n in again.documents[0].notes] == [Code.PAGES_JOINED_CONTINUATION,
                                                              Code.PAGES_JOINED_CONTENT_LOST,
                                                              Code.PAGES_JOINED_CONTENT_LOST]
    else:
        with out.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
        assert [r["Status"].startswith("Error: page ") for r in rows] == [True]
