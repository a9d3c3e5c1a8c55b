"""The review session: every queued file and read document, saved continuously to SQLite.

The desktop app keeps its work here so that closing the window, a crash or a killed process loses
nothing the clerk confirmed: each change is its own committed transaction. The database lives at
``user_data_dir() / "session.db"`` (see :mod:`desktop.core.settings`), in WAL mode with
``synchronous=FULL`` so that a committed transaction survives the process being killed and, per the
SQLite documentation (https://www.sqlite.org/pragma.html#pragma_synchronous), a power loss.

Page previews (table ``previews``): a small picture of each page shown (an encoded image, JPEG or
PNG, of at most about a megapixel), stored with the session so that after a restart the page appears
at once instead of after the file is opened and decoded again. A preview is keyed by source, page and
rotation and carries the file's :func:`file_signature`; a file changed since is not shown from its
stale preview. Previews of sources no longer in the queue are dropped with their entries.

One row per *entry*: a file waiting to be read (``document`` is ``None``) or one document read from it.
The document itself is stored as the JSON of :meth:`Document.to_dict`; ``source``, ``status`` and
``reviewed`` are copied into columns for listing without parsing JSON. Source files are referenced by
path, never copied or altered.

This module imports no Qt (the core never does).
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.model import Document

SCHEMA_VERSION = 1

MEMORY_TABLES = ("vendor_profiles", "vendor_lessons")
"""Tables of the vendor memory (:mod:`desktop.core.memory`), which lives in the same database file."""

STATUSES = ("queued", "reading", "needs_review", "reviewed", "failed")
"""Entry states: waiting, being read, read and waiting for the clerk, confirmed, could not be read."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    position  REAL    NOT NULL,
    source    TEXT    NOT NULL,
    status    TEXT    NOT NULL,
    reviewed  INTEGER NOT NULL DEFAULT 0,
    error     TEXT,
    document  TEXT,
    updated   REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_position ON entries(position, id);
CREATE TABLE IF NOT EXISTS previews (
    source    TEXT    NOT NULL,
    page      INTEGER NOT NULL,
    rotation  INTEGER NOT NULL,
    signature TEXT    NOT NULL,
    image     BLOB    NOT NULL,
    PRIMARY KEY (source, page, rotation)
);
"""


def file_signature(path: str | Path) -> str | None:
    """``"<size>:<mtime in ns>"`` of the file at ``path`` (``None`` when it cannot be examined): a
    change of either means a stored preview of it is stale."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return f"{st.st_size}:{st.st_mtime_ns}"


def status_of(document: Document | None, pending: str = "queued") -> str:
    """The status an entry holding ``document`` has.

    Args:
        document: the read document, or ``None`` while the file waits (``pending`` is returned).
        pending: ``queued`` or ``reading``.
    """
    if document is None:
        return pending
    if document.error:
        return "failed"
    return "reviewed" if document.reviewed else "needs_review"


@dataclass
class SessionEntry:
    """One row of the session.

    Attributes:
        id: the row id (stable for the life of the session).
        source: path of the source file as the user gave it.
        status: one of :data:`STATUSES`.
        document: the document read, ``None`` while queued or reading.
        position: sort key of the row in the queue.
    """

    id: int
    source: str
    status: str
    document: Document | None
    position: float


def _row_id(cursor: sqlite3.Cursor) -> int:
    """The id SQLite gave the row an ``INSERT`` on ``cursor`` just added.

    Raises:
        sqlite3.DatabaseError: the statement inserted no row (``lastrowid`` is ``None``).
    """
    if cursor.lastrowid is None:
        raise sqlite3.DatabaseError("the session did not store the new entry")
    return int(cursor.lastrowid)


def _entry_of(row_id: int, position: float, source: str, status: str, data: str | None) -> SessionEntry:
    doc: Document | None = None
    if data is not None:
        try:
            doc = Document.from_dict(json.loads(data))
        except (ValueError, KeyError, TypeError) as exc:
            doc = Document(source=source, error=diag(Code.SAVED_RESULT_UNREADABLE, detail=str(exc)))
            status = "failed"
    return SessionEntry(row_id, source, status, doc, position)


class SessionStore:
    """The session database (one per user data folder).

    Every mutating method commits before it returns.

    Args:
        path: database file; ``None`` = ``user_data_dir() / "session.db"``; ``":memory:"`` for a
            session that is not saved (see :func:`open_session`).

    Raises:
        sqlite3.DatabaseError: the file exists but is not a Shoebox session database.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            from desktop.core.settings import user_data_dir

            path = user_data_dir() / "session.db"
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), isolation_level=None)  # autocommit; explicit BEGINs
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA busy_timeout=5000")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"{self.path.name} was written by a newer Shoebox (schema {version}, this one reads {SCHEMA_VERSION})"
            )
        self._db.executescript(_SCHEMA)
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -- reading -----------------------------------------------------------------------------------
    def entries(self) -> list[SessionEntry]:
        """Every entry in queue order. A row whose JSON cannot be parsed comes back as a failed document."""
        return [_entry_of(*row) for row in self._db.execute(
            "SELECT id, position, source, status, document FROM entries ORDER BY position, id")]

    def entry(self, entry_id: int) -> SessionEntry | None:
        """One entry (``None``: no such id), read as :meth:`entries` reads it."""
        row = self._db.execute(
            "SELECT id, position, source, status, document FROM entries WHERE id=?", (entry_id,)).fetchone()
        return _entry_of(*row) if row is not None else None

    def position_after(self, position: float) -> float:
        """A queue position right after ``position`` and before the next entry's (for an entry inserted
        there, such as the second part of a split document)."""
        later = self._db.execute("SELECT MIN(position) FROM entries WHERE position > ?", (position,)).fetchone()[0]
        return (position + float(later)) / 2 if later is not None else position + 1.0

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    # -- writing -----------------------------------------------------------------------------------
    def _next_position(self) -> float:
        top = self._db.execute("SELECT MAX(position) FROM entries").fetchone()[0]
        return 0.0 if top is None else float(top) + 1.0

    def add(self, source: str | Path, document: Document | None = None, status: str | None = None) -> int:
        """Append an entry at the end of the queue and return its id.

        Args:
            source: the file path.
            document: the read document, or ``None`` for a file waiting to be read.
            status: overrides :func:`status_of` (for example ``reading``).
        """
        status = status or status_of(document)
        cur = self._db.execute(
            "INSERT INTO entries(position, source, status, reviewed, error, document, updated) VALUES (?,?,?,?,?,?,?)",
            self._row(str(source), status, document, self._next_position()),
        )
        return _row_id(cur)

    @staticmethod
    def _row(source: str, status: str, document: Document | None, position: float) -> tuple:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        data = json.dumps(document.to_dict(), ensure_ascii=False) if document is not None else None
        reviewed = int(bool(document and document.reviewed))
        error = document.error.message() if document is not None and document.error is not None else None
        return (position, source, status, reviewed, error, data, time.time())

    def update(self, entry_id: int, document: Document | None, status: str | None = None) -> None:
        """Replace an entry's document (and status, by default derived from the document).

        Raises:
            KeyError: no entry with this id.
        """
        row = self._db.execute("SELECT source, position FROM entries WHERE id=?", (entry_id,)).fetchone()
        if row is None:
            raise KeyError(entry_id)
        status = status or status_of(document)
        position, source, status, reviewed, error, data, updated = self._row(row[0], status, document, row[1])
        self._db.execute(
            "UPDATE entries SET status=?, reviewed=?, error=?, document=?, updated=? WHERE id=?",
            (status, reviewed, error, data, updated, entry_id),
        )

    def next_id(self) -> int:
        """The id the next new entry gets (for a command that creates an entry when applied)."""
        row = self._db.execute("SELECT MAX(id) FROM entries").fetchone()[0]
        seq = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name='entries'").fetchone()
        return max(int(row or 0), int(seq[0]) if seq else 0) + 1

    def put(self, entry_id: int, source: str | Path, position: float, document: Document | None,
            status: str | None = None) -> None:
        """Write an entry with a given id and position, inserting it when absent (undo and redo of a
        review command restore entries exactly where they were)."""
        status = status or status_of(document)
        self._db.execute(
            "INSERT OR REPLACE INTO entries(id, position, source, status, reviewed, error, document, updated) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (entry_id, *self._row(str(source), status, document, position)),
        )

    def set_status(self, entry_id: int, status: str) -> None:
        """Change only the status (``queued`` <-> ``reading`` while a file waits)."""
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        self._db.execute("UPDATE entries SET status=?, updated=? WHERE id=?", (status, time.time(), entry_id))

    def replace(self, entry_id: int, documents: list[Document]) -> list[int]:
        """Replace one waiting entry by the documents read from its file, in its place, atomically.

        Returns:
            The new entries' ids, in order (the first reuses ``entry_id``).

        Raises:
            KeyError: no entry with this id.
            ValueError: ``documents`` is empty.
        """
        if not documents:
            raise ValueError("a file yields at least one document (an error document when it cannot be read)")
        row = self._db.execute("SELECT source, position FROM entries WHERE id=?", (entry_id,)).fetchone()
        if row is None:
            raise KeyError(entry_id)
        source, position = row
        nxt = self._db.execute(
            "SELECT MIN(position) FROM entries WHERE position > ?", (position,)
        ).fetchone()[0]
        step = ((nxt - position) if nxt is not None else 1.0) / (len(documents) + 1)
        ids = [entry_id]
        self._db.execute("BEGIN IMMEDIATE")
        try:
            first = documents[0]
            self._db.execute(
                "UPDATE entries SET position=?, source=?, status=?, reviewed=?, error=?, document=?, updated=? WHERE id=?",
                (*self._row(source, status_of(first), first, position), entry_id),
            )
            for i, doc in enumerate(documents[1:], start=1):
                cur = self._db.execute(
                    "INSERT INTO entries(position, source, status, reviewed, error, document, updated) VALUES (?,?,?,?,?,?,?)",
                    self._row(source, status_of(doc), doc, position + i * step),
                )
                ids.append(_row_id(cur))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return ids

    def remove(self, entry_ids: Iterable[int]) -> None:
        """Forget entries (the source files are untouched), and the previews no entry needs now."""
        self._db.executemany("DELETE FROM entries WHERE id=?", [(i,) for i in entry_ids])
        self._drop_unused_previews()

    def clear(self) -> None:
        """Forget every entry (and every preview)."""
        self._db.execute("DELETE FROM entries")
        self._db.execute("DELETE FROM previews")

    # -- page previews -----------------------------------------------------------------------------
    def put_preview(self, source: str | Path, page: int, rotation: int, image: bytes,
                    signature: str | None = None) -> bool:
        """Store the preview of page ``page`` (1-based) of ``source`` shown turned by ``rotation``
        degrees; ``image`` is the encoded picture. ``signature`` defaults to the file's
        :func:`file_signature`. Returns ``False`` (nothing stored) when the file cannot be examined."""
        signature = signature if signature is not None else file_signature(source)
        if signature is None:
            return False
        self._db.execute("INSERT OR REPLACE INTO previews (source, page, rotation, signature, image) "
                         "VALUES (?, ?, ?, ?, ?)", (str(source), int(page), int(rotation) % 360, signature, image))
        return True

    def preview(self, source: str | Path, page: int, rotation: int = 0) -> bytes | None:
        """The stored preview of that page, or ``None`` (none stored, or the file changed since)."""
        row = self._db.execute("SELECT signature, image FROM previews WHERE source=? AND page=? AND rotation=?",
                               (str(source), int(page), int(rotation) % 360)).fetchone()
        if row is None or row[0] != file_signature(source):
            return None
        return bytes(row[1])

    def has_preview(self, source: str | Path, page: int, rotation: int = 0) -> bool:
        """Whether a current preview of that page is stored (one of the file as it is now)."""
        row = self._db.execute("SELECT signature FROM previews WHERE source=? AND page=? AND rotation=?",
                               (str(source), int(page), int(rotation) % 360)).fetchone()
        return row is not None and row[0] == file_signature(source)

    def _drop_unused_previews(self) -> None:
        self._db.execute("DELETE FROM previews WHERE source NOT IN (SELECT source FROM entries)")

    def close(self) -> None:
        """Checkpoint the WAL into the main file and close."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class SessionOpened:
    """What :func:`open_session` got: the store, and what the clerk must be told about it.

    Attributes:
        store: the session (a fresh one when the saved one could not be used).
        problem: what the clerk must be told, in plain words (``session_kept_aside``,
            ``session_unsaved``, ``session_newer``), or ``None`` when the saved session opened.
        kept_aside: where an unreadable session file was moved (renamed, never deleted), or ``None``.
        saved: ``False`` when this session lives in memory only (the data folder cannot be written).
    """

    store: SessionStore
    problem: Diagnostic | None = None
    kept_aside: Path | None = None
    saved: bool = True


def _probe(path: Path) -> None:
    """Check a saved session without writing to it (read-only connection): the SQLite integrity check
    and a read of every row. A missing or empty file passes (a new session).

    Raises:
        sqlite3.DatabaseError: the file is damaged, not a database, or from a newer Shoebox.
        OSError: the file cannot be read.
    """
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb"):  # unreadable -> PermissionError, before SQLite's vaguer words
        pass
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"{path.name} was written by a newer Shoebox (schema {version}, this one reads {SCHEMA_VERSION})")
        row = db.execute("PRAGMA quick_check").fetchone()
        if row is None or row[0] != "ok":
            raise sqlite3.DatabaseError(f"the integrity check failed: {row[0] if row else 'no answer'}")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "entries" in tables:
            db.execute("SELECT id, position, source, status, error, document FROM entries").fetchall()
        elif tables - {"sqlite_sequence", *MEMORY_TABLES}:
            raise sqlite3.DatabaseError(f"it is not a Shoebox session (tables: {', '.join(sorted(tables))})")
    finally:
        db.close()


def _keep_aside(path: Path) -> Path:
    """Rename a bad session file (and its -wal/-shm companions) to ``<name>.bad-<time>``; returns the new
    path of the main file."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.bad-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.bad-{stamp}-{n}")
    path.rename(target)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            try:
                companion.rename(target.with_name(target.name + suffix))
            except OSError:
                pass
    return target


def open_session(path: str | Path | None = None) -> SessionOpened:
    """Open the session for the app, whatever state its file is in; never raises.

    * A saved session that opens and reads back: used as it is.
    * A corrupt, truncated or foreign file (not an SQLite database, a malformed page, a failed
      integrity check): renamed to ``session.db.bad-<date>-<time>`` beside it (never deleted, so it
      can be recovered), and a new session begins.
    * A session written by a newer Shoebox: left untouched; this run uses a session in memory.
    * A file or folder that cannot be read or written (permissions, a read-only data folder or disk):
      this run uses a session in memory, and the clerk is told nothing will be saved.

    Args:
        path: the database file; ``None`` = ``user_data_dir() / "session.db"``.

    Returns:
        A :class:`SessionOpened` (``problem`` is the message to show, ``None`` when all is well).
    """
    if path is None:
        from desktop.core.settings import user_data_dir

        path = user_data_dir() / "session.db"
    path = Path(path)
    try:
        _probe(path)
    except sqlite3.DatabaseError as exc:
        reason = str(exc) or type(exc).__name__
        if "newer Shoebox" in reason:
            version = reason.split("schema ")[-1].split(",")[0] if "schema " in reason else "?"
            return SessionOpened(SessionStore(":memory:"), diag(Code.SESSION_NEWER, path=str(path), version=version),
                                 saved=False)
        if isinstance(exc, sqlite3.OperationalError) and ("unable to open" in reason or "readonly" in reason
                                                            or "read-only" in reason or "disk I/O" in reason):
            return _unsaved(path, reason)
        try:
            aside = _keep_aside(path)
        except OSError as move_exc:
            return _unsaved(path, f"{reason}; it could not be moved aside either ({move_exc.strerror or move_exc})")
        try:
            fresh = SessionStore(path)
        except (sqlite3.Error, OSError) as new_exc:
            return _unsaved(path, str(new_exc))
        return SessionOpened(fresh, diag(Code.SESSION_KEPT_ASIDE, detail=reason, kept=aside.name, folder=str(aside.parent)),
                             kept_aside=aside)
    except OSError as exc:
        return _unsaved(path, exc.strerror or str(exc))
    try:
        return SessionOpened(SessionStore(path))
    except sqlite3.DatabaseError as exc:
        return _unsaved(path, str(exc) or type(exc).__name__)
    except OSError as exc:
        return _unsaved(path, exc.strerror or str(exc))


def _unsaved(path: Path, reason: str) -> SessionOpened:
    return SessionOpened(SessionStore(":memory:"), diag(Code.SESSION_UNSAVED, path=str(path), detail=reason), saved=False)
