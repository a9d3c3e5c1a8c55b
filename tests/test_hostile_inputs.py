"""Hostile inputs end in a named error, never a traceback or a silent loss: folders with link loops,
broken links, FIFOs, device files and unreadable sub-folders; control characters in file names; an
output that cannot be written; Ctrl+C in a long batch; the progress line's throughput."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from desktop import cli
from desktop.core.diagnostics import Code
from desktop.core.inputs import printable, walk_inputs
from tests.test_cli import FakePipeline, batch, fake  # noqa: F401 - fixtures

SUFFIXES = (".png", ".jpg", ".pdf")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.png").write_bytes(b"GOOD")
    (folder / "sub" / "b.jpg").write_bytes(b"GOOD")
    os.symlink("a.png", folder / "good_link.png")  # the same file again: read once
    os.symlink("loop.jpg", folder / "loop.jpg")  # a link to itself
    os.symlink("nowhere.png", folder / "broken.png")
    os.symlink("..", folder / "sub" / "up")  # a folder loop
    os.mkfifo(folder / "pipe.jpg")  # opening it would block for ever
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", folder / "zero.jpg")  # reading it never ends
    (folder / "new\nline.png").write_bytes(b"GOOD")
    return folder


pytestmark = pytest.mark.skipif(os.name == "nt", reason="FIFOs and symbolic links as on POSIX")


def test_walk_names_every_hostile_entry_and_reads_only_regular_files(hostile: Path) -> None:
    files, errors = walk_inputs([hostile], SUFFIXES)
    assert sorted(f.name for f in files) == ["a.png", "b.jpg", "new\nline.png"]
    by_name = {Path(d.source).name: d.error for d in errors}
    assert by_name["loop.jpg"].code is Code.SYMLINK_LOOP
    # the folder loop (sub/up -> ..) is named, its folder not walked twice, and the rest is read
    assert by_name["up"].code is Code.FOLDER_LINK_LOOP and str(hostile.resolve()) in str(by_name["up"])
    assert "符号链接循环" in by_name["up"].message("zh")
    assert by_name["broken.png"].code is Code.BROKEN_LINK and "nowhere.png" in str(by_name["broken.png"])
    assert by_name["pipe.jpg"].code is Code.SPECIAL_FILE and "FIFO" in str(by_name["pipe.jpg"])
    assert "命名管道" in by_name["pipe.jpg"].message("zh")
    if (hostile / "zero.jpg").is_symlink():
        assert "character device" in str(by_name["zero.jpg"])


def test_an_unreadable_sub_folder_is_named(hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = hostile / "locked"
    locked.mkdir()
    (locked / "c.png").write_bytes(b"GOOD")
    real = os.scandir

    def scandir(path):  # also when the tests run as root, who may read anything
        if Path(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    files, errors = walk_inputs([hostile], SUFFIXES)
    assert "c.png" not in {f.name for f in files} and "a.png" in {f.name for f in files}
    (err,) = [d.error for d in errors if Path(d.source) == locked]
    assert err.code is Code.FOLDER_UNREADABLE
    assert "cannot be read (permission denied)" in str(err) and "its files were not read" in str(err)


def test_named_paths_that_are_not_files(hostile: Path) -> None:
    files, errors = walk_inputs([hostile / "loop.jpg", hostile / "pipe.jpg", hostile / "missing.png"], SUFFIXES)
    assert files == []
    assert [e.error.code for e in errors] == [Code.SYMLINK_LOOP, Code.SPECIAL_FILE, Code.NO_SUCH_PATH]
    assert str(errors[1].error) == "a FIFO (named pipe), not a document file"


def test_the_real_pipeline_collects_without_traceback(hostile: Path) -> None:
    from desktop.core.pipeline import collect_inputs

    files, errors = collect_inputs([hostile])
    assert {f.name for f in files} == {"a.png", "b.jpg", "new\nline.png"}
    assert len(errors) >= 3


def test_control_characters_are_escaped() -> None:
    assert printable("bad\nname\t\x1b[31m.jpg") == "bad\\nname\\t\\x1b[31m.jpg"
    assert printable("caf\udce9.jpg") == "caf\\xe9.jpg"  # an undecodable byte of a file name


def test_cli_error_for_a_name_with_a_newline_is_one_line(fake, tmp_path: Path, capsys) -> None:  # noqa: F811
    bad = tmp_path / "evil\nname.jpg"
    bad.write_bytes(b"BAD")
    assert cli.main(["scan", str(bad), "-o", str(tmp_path / "o.json"), "-q"]) == 3
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln]
    assert len(lines) == 1 and "evil\\nname.jpg" in lines[0] and "truncated JPEG" in lines[0]


def test_output_is_checked_before_the_scan(fake, batch: Path, tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: F811
    import tempfile

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", full)
    assert cli.main(["scan", str(batch), "-o", str(tmp_path / "o.xlsx"), "-q"]) == 3
    err = capsys.readouterr().err
    assert fake.scanned == []  # nothing was read for nothing
    assert err.count("\n") == 1 and "the disk is full" in err


def test_ctrl_c_writes_the_documents_already_read(fake, batch: Path, tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: F811
    import json

    real = fake.scan_file

    def scan(path, *args, **kwargs):
        if Path(path).name == "b.png":
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fake, "scan_file", scan)
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(batch), "-o", str(out), "-q"]) == 130
    docs = json.loads(out.read_text(encoding="utf-8"))["documents"]
    assert [Path(d["source"]).name for d in docs] == ["a.jpg"]
    err = capsys.readouterr().err
    assert "interrupted after 1 of 3 files" in err and f"wrote 1 document to {out}" in err
    assert fake.engines[0].closed


def test_throughput_line() -> None:
    from desktop.core.progress import Throughput

    now = [0.0]
    t = Throughput(3, clock=lambda: now[0])
    assert t.text() == "0 pages"
    t.page(1, 4, finished=False)
    now[0] = 30.0
    t.page(3, 4, finished=False)  # two pages done in 30 s
    assert t.pages_done == 2
    assert t.text() == "2 pages, 4.0 pages/min, 2:30 left"  # 2 left here + 2 files x 4 pages = 10 at 4/min
    assert t.text("zh") == "已读 2 页，每分钟 4.0 页，剩余 2:30"
    t.page(4, 4, finished=True)
    t.file_done()
    assert t.pages_done == 4
    one = Throughput(2, clock=lambda: now[0])
    now[0] += 60.0
    one.page(1, 1, finished=True)
    assert one.text() == "1 page, 1.0 pages/min, 1:00 left" and one.text("zh") == "已读 1 页，每分钟 1.0 页，剩余 1:00"


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")  # no "Exception ignored" noise
def test_a_full_disk_while_writing_is_one_clear_line(fake, batch: Path, tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: F811
    import desktop.core.export as export

    real_open = os.fdopen

    def full_disk(fd, *args, **kwargs):  # the temporary file of the atomic write fills the disk
        fh = real_open(fd, *args, **kwargs)

        def write(data):
            raise OSError(errno.ENOSPC, "No space left on device")

        fh.write = write
        return fh

    monkeypatch.setattr(export.os, "fdopen", full_disk)
    out = tmp_path / "out.xlsx"
    assert cli.main(["scan", str(batch), "-o", str(out), "-q"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the disk is full" in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".out.xlsx.*"))  # nothing half-written left


def test_the_app_queues_a_hostile_folder_without_a_traceback(qtbot, hostile: Path) -> None:
    pytest.importorskip("pytestqt")
    from PIL import Image

    from desktop.gui.mainwindow import MainWindow
    from tests.fake_engines import FakeEngine

    for name in ("a.png", "sub/b.jpg", "new\nline.png"):
        Image.new("RGB", (200, 300), "white").save(hostile / name, "PNG" if name.endswith("png") else "JPEG")
    w = MainWindow(engine_factory=lambda notes: FakeEngine([{"width": 200, "height": 300, "lines": []}]))
    qtbot.addWidget(w)
    w.show()
    ids = w.add_paths([hostile])
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=30000)
    entries = [w.model.entry(i) for i in ids]
    failed = {Path(e.source).name: e.document.error.code for e in entries if e.status == "failed"}
    assert failed["loop.jpg"] is Code.SYMLINK_LOOP and failed["pipe.jpg"] is Code.SPECIAL_FILE
    assert failed["broken.png"] is Code.BROKEN_LINK
    read = {Path(e.source).name for e in entries if e.status != "failed"}
    assert read == {"a.png", "b.jpg", "new\nline.png"}
    w.close()


def _jpeg_bytes() -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (40, 40), "white").save(buf, "JPEG")
    return buf.getvalue()


@pytest.fixture
def unnamed(tmp_path: Path) -> Path:
    """A folder of files whose names do not say what they are."""
    folder = tmp_path / "unnamed"
    folder.mkdir()
    (folder / "scan0001").write_bytes(_jpeg_bytes())  # a scanner's file without a suffix
    (folder / "attachment.dat").write_bytes(b"%PDF-1.7\n%...")  # a PDF under another suffix
    (folder / "notes.txt").write_text("not a scan", encoding="utf-8")
    (folder / "README").write_text("nor this", encoding="utf-8")
    (folder / ".thumbs").write_bytes(_jpeg_bytes())  # hidden: skipped, and not said
    os.mkfifo(folder / "pipe")  # never opened to sniff it
    os.symlink("loopB", folder / "loopA")  # a loop of two links, no suffix
    os.symlink("loopA", folder / "loopB")
    return folder


def test_a_folder_walk_reads_files_by_content_and_names_what_it_skips(unnamed: Path) -> None:
    from desktop.core.inputs import skipped_note

    skipped: list[Path] = []
    files, errors = walk_inputs([unnamed], SUFFIXES, skipped)
    assert [f.name for f in files] == ["attachment.dat", "scan0001"]
    assert [p.name for p in skipped] == ["README", "notes.txt", "pipe"]
    assert [(Path(d.source).name, d.error.code) for d in errors] == [("loopA", Code.SYMLINK_LOOP),
                                                                     ("loopB", Code.SYMLINK_LOOP)]
    note = skipped_note(skipped)
    assert note is not None and note.code is Code.FILES_SKIPPED
    assert "3 file(s) skipped" in note.message() and "(README, notes.txt, pipe)" in note.message()
    assert "跳过了 3 个文件" in note.message("zh")
    assert skipped_note([]) is None
    many = skipped_note([Path(f"f{i}.txt") for i in range(9)])
    assert many is not None and many.message().endswith("(f0.txt, f1.txt, f2.txt, f3.txt, f4.txt, …)")


def test_a_loop_of_two_links_is_worded_as_a_loop(tmp_path: Path) -> None:
    os.symlink("l2.jpg", tmp_path / "l1.jpg")
    os.symlink("l1.jpg", tmp_path / "l2.jpg")
    _files, (error, _other) = walk_inputs([tmp_path], SUFFIXES)
    assert error.error.code is Code.SYMLINK_LOOP
    assert "itself" not in str(error.error) and "loop of symbolic links" in str(error.error)


def test_cli_reads_a_suffixless_scan_in_a_folder_and_notes_the_skipped(unnamed: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from tests.test_cli import FakeEngine

    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: FakeEngine())
    for name in ("attachment.dat", "pipe", "loopA", "loopB"):
        (unnamed / name).unlink()
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(unnamed), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "shoebox: note: 2 file(s) skipped in the folders" in err and "(README, notes.txt)" in err, err
    import json

    assert [d["source"] for d in json.loads(out.read_text(encoding="utf-8"))["documents"]] == [str(unnamed / "scan0001")]


def test_cli_a_one_pixel_image_is_an_error_and_the_others_are_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys) -> None:
    """The README's exit status: 1 when some files failed and others were read, 3 when nothing was read."""
    from PIL import Image

    from tests.test_cli import FakeEngine

    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: FakeEngine())
    Image.new("RGB", (1, 1), "white").save(tmp_path / "dot.png")
    Image.new("RGB", (300, 400), "white").save(tmp_path / "page.png")
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(tmp_path / "dot.png"), str(tmp_path / "page.png"), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"shoebox: error: {tmp_path / 'dot.png'}: the image is 1 x 1 pixels: too small to hold readable text" in err
    assert cli.main(["scan", str(tmp_path / "dot.png"), "-o", str(out)]) == 3


@pytest.mark.parametrize(("numbers", "text"), [
    ([4], "page 4"), ([1, 2, 3], "pages 1-3"), (list(range(1, 201)), "pages 1-200"),
    ([1, 2, 3, 7, 9, 10], "pages 1-3, 7, 9-10"), ([5, 6], "pages 5-6"), ([2, 9], "pages 2, 9"),
])
def test_page_numbers_are_named_as_runs(numbers: list[int], text: str) -> None:
    assert cli._page_list(numbers) == text


def _tiff_of(path: Path, pages: int) -> Path:
    from PIL import Image

    frames = [Image.new("RGB", (300, 400), (255, 255, 255 - i)) for i in range(pages)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def test_cli_says_a_note_repeated_on_many_pages_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """QA: a PDF of 200 blank pages wrote 200 "no text was found" lines; now one line per file."""
    from tests.fake_engines import FakeEngine
    from tests.test_boundaries import RECEIPTS, _recording

    blank = {"width": 600, "height": 1000, "lines": []}
    recordings = [_recording(RECEIPTS[0]), blank, blank, blank, _recording(RECEIPTS[0])] + [blank] * 12
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: FakeEngine(recordings))
    out = tmp_path / "out.json"
    assert cli.main(["scan", str(_tiff_of(tmp_path / "some.tif", 5)), str(_tiff_of(tmp_path / "none.tif", 12)),
                     "-o", str(out)]) == 0
    notes = [ln for ln in capsys.readouterr().err.splitlines() if "no text" in ln]
    assert notes == [
        f"shoebox: note: {tmp_path / 'some.tif'}: pages 2-4: no text was found on this page (blank, or the print is "
        "too faint to read)",
        f"shoebox: note: {tmp_path / 'none.tif'}: no text was found on any of its 12 page(s): no document type was "
        "guessed and no field was read; check the scan (a blank sheet, a page scanned face down, or print too "
        "faint to read)"]
