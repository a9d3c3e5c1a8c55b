"""Tests for desktop.core.inputs: a file or folder given more than once is read once, and said so."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from desktop.core.diagnostics import Code
from desktop.core.inputs import Repeat, repeat_note, walk_inputs

SUFFIXES = (".png", ".jpg", ".pdf")


def test_the_same_file_three_ways_is_read_once_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.jpg").write_bytes(b"GOOD")
    monkeypatch.chdir(tmp_path)
    repeated: list[Repeat] = []
    files, errors = walk_inputs(["a.jpg", "a.jpg", "./a.jpg", str(tmp_path / "a.jpg")], SUFFIXES,
                                repeated=repeated)
    assert files == [Path("a.jpg")] and errors == []
    assert repeated == [Repeat(Path("a.jpg"), 4, ())]
    note = repeat_note(repeated[0])
    assert note.code is Code.GIVEN_REPEATEDLY
    assert note.message() == "given 4 times; read once"
    assert note.message("zh") == "给出了 4 次；只读取一次"


def test_a_file_given_once_is_not_said(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"GOOD")
    shutil.copy(tmp_path / "a.jpg", tmp_path / "copy.jpg")  # a copy: another file, another document
    repeated: list[Repeat] = []
    files, _ = walk_inputs([tmp_path / "a.jpg", tmp_path / "copy.jpg"], SUFFIXES, repeated=repeated)
    assert files == [tmp_path / "a.jpg", tmp_path / "copy.jpg"]
    assert repeated == []


@pytest.mark.skipif(os.name == "nt", reason="symbolic links as on POSIX")
def test_a_file_met_in_its_folder_and_by_another_name(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(b"GOOD")
    (folder / "b.png").write_bytes(b"GOOD")
    os.symlink(folder / "a.jpg", tmp_path / "link.jpg")
    repeated: list[Repeat] = []
    files, _ = walk_inputs([folder, folder / "a.jpg", tmp_path / "link.jpg", folder / "b.png"], SUFFIXES,
                           repeated=repeated)
    assert files == [folder / "a.jpg", folder / "b.png"]
    assert repeated == [Repeat(folder / "a.jpg", 3, (str(tmp_path / "link.jpg"),)),
                        Repeat(folder / "b.png", 2, ())]
    note = repeat_note(repeated[0])
    assert note.code is Code.GIVEN_REPEATEDLY_AS
    assert note.message() == f"given 3 times (also as {tmp_path / 'link.jpg'}: the same file); read once"
    assert note.message("zh").startswith("给出了 3 次（也以 ")


def test_a_folder_given_twice_is_walked_once_and_said(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.jpg").write_bytes(b"GOOD")
    (folder / "sub" / "c.pdf").write_bytes(b"GOOD")
    repeated: list[Repeat] = []
    files, _ = walk_inputs([folder, folder / "sub", folder], SUFFIXES, repeated=repeated)
    assert files == [folder / "a.jpg", folder / "sub" / "c.pdf"]
    assert repeated == [Repeat(folder, 2, ()), Repeat(folder / "sub", 2, ())]


@pytest.mark.skipif(os.name == "nt", reason="symbolic links as on POSIX")
def test_two_links_to_one_folder_inside_a_walk_are_not_said(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "a.jpg").write_bytes(b"GOOD")
    folder.mkdir()
    os.symlink(tmp_path / "shared", folder / "l1")
    os.symlink(tmp_path / "shared", folder / "l2")
    repeated: list[Repeat] = []
    files, _ = walk_inputs([folder], SUFFIXES, repeated=repeated)
    assert files == [folder / "l1" / "a.jpg"]
    assert repeated == []
