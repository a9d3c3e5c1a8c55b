"""A corrupt, truncated, unreadable or read-only session never stops the app: the bad file is kept
aside (renamed, never deleted), the clerk is told, and a new session begins."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from desktop.core.diagnostics import Code
from desktop.core.model import Document
from desktop.core.session import SessionStore, open_session


def _saved(path: Path, n: int = 50) -> Path:
    with SessionStore(path) as store:
        for i in range(n):
            store.add(f"{i}.png", Document(source=f"{i}.png", extras={"pad": "x" * 400}))
    return path


@pytest.mark.parametrize("damage", ["garbage", "truncated", "zeroed_page"])
def test_a_damaged_session_is_kept_aside_and_a_new_one_begins(tmp_path: Path, damage: str) -> None:
    path = _saved(tmp_path / "session.db")
    data = path.read_bytes()
    if damage == "garbage":
        bad = b"this is not a database\n" * 200
    elif damage == "truncated":
        bad = data[: len(data) // 3]
    else:
        bad = data[:4096] + b"\x00" * 4096 + data[8192:]
    path.write_bytes(bad)
    opened = open_session(path)
    assert opened.problem is not None and opened.problem.code is Code.SESSION_KEPT_ASIDE
    assert "could not be read" in str(opened.problem) and "a new session was started" in str(opened.problem)
    assert opened.kept_aside is not None and opened.kept_aside.read_bytes() == bad  # kept, not deleted
    assert opened.kept_aside.name.startswith("session.db.bad-")
    assert len(opened.store) == 0 and opened.saved
    opened.store.add("new.png")
    opened.store.close()
    assert len(SessionStore(path)) == 1  # the new session is saved where the old one was


def test_a_good_session_opens_quietly(tmp_path: Path) -> None:
    opened = open_session(_saved(tmp_path / "session.db", 3))
    assert opened.problem is None and len(opened.store) == 3


def test_an_unwritable_session_gives_an_unsaved_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import desktop.core.session as session

    real = session.SessionStore.__init__

    def refuse(self, path=None):  # a read-only data folder (also when the tests run as root)
        if str(path) != ":memory:":
            raise sqlite3.OperationalError("attempt to write a readonly database")
        real(self, path)

    monkeypatch.setattr(session.SessionStore, "__init__", refuse)
    opened = open_session(tmp_path / "session.db")
    assert not opened.saved and opened.problem.code is Code.SESSION_UNSAVED and "will not be saved" in str(opened.problem)
    opened.store.add("a.png")  # usable all the same
    assert len(opened.store) == 1


def test_a_newer_session_is_left_alone(tmp_path: Path) -> None:
    path = _saved(tmp_path / "session.db", 1)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.close()
    before = path.read_bytes()
    opened = open_session(path)
    assert not opened.saved and opened.problem.code is Code.SESSION_NEWER and path.read_bytes() == before
    assert "newer Shoebox (schema 99)" in str(opened.problem)


def test_the_app_starts_on_a_corrupt_session_database(qtbot, shoebox_home: Path) -> None:
    pytest.importorskip("pytestqt")
    from desktop.core.settings import user_data_dir
    from desktop.gui.mainwindow import MainWindow

    path = user_data_dir() / "session.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)  # a header, then rubbish
    w = MainWindow(engine_factory=lambda notes: None)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.findChild(object, "session_problem") is not None, timeout=10000)
    assert "could not be read" in w.session_problem and "new session" in w.session_problem
    assert w.model.rowCount() == 0
    assert list(path.parent.glob("session.db.bad-*"))
    w.close()


def test_a_read_only_home_does_not_stop_scanning_or_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``SHOEBOX_HOME`` under a file: no folder can be made there (also for root, who ignores modes)."""
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("SHOEBOX_HOME", str(blocker / "home"))
    from desktop.core.engines.hunyuan import candidate_dirs
    from desktop.core.settings import Settings, user_config_dir, user_data_dir

    assert user_data_dir() == blocker / "home" / "data" and user_config_dir() == blocker / "home" / "config"
    assert Settings.load() == Settings()  # defaults
    assert any(where == "user data folder" for where, _p in candidate_dirs())  # scan looks for a model
    opened = open_session()
    assert not opened.saved and opened.problem.code is Code.SESSION_UNSAVED
    opened.store.add("a.png")
    assert len(opened.store) == 1
