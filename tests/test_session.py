"""The SQLite session store: round trips, ordering, and surviving a killed process."""
from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop.core.diagnostics import Code
from desktop.core.model import Document, Field, Line, PageResult
from desktop.core.session import SessionStore, status_of

REPO = Path(__file__).resolve().parent.parent


def _doc(source: str = "/data/r1.jpg", total: str | None = "12.50", reviewed: bool = False) -> Document:
    return Document(
        source=source,
        document_type="receipt",
        engine="fake",
        fields={"total": Field("total", total, total, 0.9, 1, (10, 20, 30, 40))},
        page_results=[PageResult(1, 100, 200, [Line("TOTAL 12.50", (10, 20, 30, 40), 0.9)])],
        reviewed=reviewed,
    )


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (None, "queued"),
        (Document(source="x", error="x: broken"), "failed"),
        (_doc(), "needs_review"),
        (_doc(reviewed=True), "reviewed"),
    ],
)
def test_status_of(document: Document | None, expected: str) -> None:
    assert status_of(document) == expected


def test_default_location_and_wal(shoebox_home: Path) -> None:
    with SessionStore() as store:
        assert store.path == shoebox_home / "data" / "session.db"
        mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"


def test_round_trip_and_order(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        a = store.add("/data/a.pdf")
        b = store.add("/data/b.jpg", _doc("/data/b.jpg"))
        store.set_status(a, "reading")
        ids = store.replace(a, [_doc("/data/a.pdf", "1.00"), _doc("/data/a.pdf", "2.00")])
        assert ids[0] == a and len(ids) == 2
        doc_b = _doc("/data/b.jpg", "99.99", reviewed=True)
        store.update(b, doc_b)
    with SessionStore(path) as store:
        entries = store.entries()
    assert [e.source for e in entries] == ["/data/a.pdf", "/data/a.pdf", "/data/b.jpg"]
    assert [e.document.fields["total"].value for e in entries] == ["1.00", "2.00", "99.99"]
    assert [e.status for e in entries] == ["needs_review", "needs_review", "reviewed"]
    assert entries[0].document.page_results[0].lines[0].box == (10, 20, 30, 40)


def test_remove_clear_and_errors(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        a = store.add("/a")
        store.add("/b")
        store.remove([a])
        assert [e.source for e in store.entries()] == ["/b"]
        with pytest.raises(KeyError):
            store.update(a, _doc())
        with pytest.raises(ValueError):
            store.set_status(a, "done")
        with pytest.raises(ValueError):
            store.replace(store.entries()[0].id, [])
        store.clear()
        assert len(store) == 0


def test_unreadable_json_becomes_failed_entry(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        a = store.add("/a", _doc("/a"))
        store._db.execute("UPDATE entries SET document='{not json' WHERE id=?", (a,))
        (entry,) = store.entries()
    assert entry.status == "failed" and entry.document.error.code == Code.SAVED_RESULT_UNREADABLE


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SessionStore(path).close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version=99")
    con.close()
    with pytest.raises(sqlite3.DatabaseError, match="newer Shoebox"):
        SessionStore(path)


def test_killed_process_keeps_committed_edits(tmp_path: Path) -> None:
    """A child writes two edits and is SIGKILLed without closing: both edits are there."""
    path = tmp_path / "s.db"
    child = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(REPO)!r})
        from desktop.core.model import Document, Field
        from desktop.core.session import SessionStore
        store = SessionStore({str(path)!r})
        i = store.add("/data/r.jpg", Document(source="/data/r.jpg", document_type="receipt",
                      fields={{"total": Field("total", "1.00")}}))
        d = store.entries()[0].document
        d.fields["total"].value = "7.77"; d.fields["total"].edited = True; d.reviewed = True
        store.update(i, d)
        print("written", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "written" in proc.stdout
    with SessionStore(path) as store:
        (entry,) = store.entries()
    assert entry.status == "reviewed"
    assert entry.document.fields["total"].value == "7.77" and entry.document.fields["total"].edited


def test_page_previews_are_kept_with_the_session_and_never_stale(tmp_path: Path) -> None:
    import os

    scan = tmp_path / "a.jpg"
    scan.write_bytes(b"not really a jpeg")
    other = tmp_path / "b.jpg"
    other.write_bytes(b"another")
    db = tmp_path / "s.db"
    with SessionStore(db) as store:
        a = store.add(str(scan))
        store.add(str(other))
        assert store.preview(str(scan), 1) is None and not store.has_preview(str(scan), 1)
        assert store.put_preview(str(scan), 1, 0, b"JPEG-1")
        assert store.put_preview(str(scan), 1, 90, b"JPEG-1-turned")
        assert store.put_preview(str(other), 1, 0, b"JPEG-B")
        assert not store.put_preview(str(tmp_path / "gone.jpg"), 1, 0, b"x")  # no file, no preview
    with SessionStore(db) as store:  # after a restart
        assert store.preview(str(scan), 1) == b"JPEG-1" and store.preview(str(scan), 1, 450) == b"JPEG-1-turned"
        assert store.preview(str(scan), 2) is None
        # the file changed since: its preview is stale, so none is given
        st = scan.stat()
        os.utime(scan, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        assert store.preview(str(scan), 1) is None and not store.has_preview(str(scan), 1)
        # previews of a file no longer queued go with its entries
        store.remove([a])
        assert store._db.execute("SELECT COUNT(*) FROM previews WHERE source=?", (str(scan),)).fetchone()[0] == 0
        assert store.preview(str(other), 1) == b"JPEG-B"
        store.clear()
        assert store.preview(str(other), 1) is None
