"""Input folders and file names as they come: walking folders safely, and naming files in messages.

Folders given to ``shoebox scan`` or dropped on the app can hold anything: symbolic-link loops,
links to nothing, sub-folders the user may not read, FIFOs (named pipes), sockets and device files
(opening a FIFO or ``/dev/zero`` blocks or never ends). :func:`walk_inputs` reads only regular
files and names every other thing it met (never a traceback, never a silent skip of something that
might hold documents): an unreadable sub-folder, a link loop or a broken link becomes an error
document saying so. A file in a folder whose name has no supported suffix (none, or another one) is
read when its first bytes are those of a supported image or PDF (a scanner's ``scan0001``), and
otherwise skipped and named in one note (:data:`~desktop.core.diagnostics.Code.FILES_SKIPPED`,
:func:`skipped_note`). Hidden files and folders (a leading dot) are skipped on purpose, silently, as before.
A file or folder given more than once (``a.jpg a.jpg ./a.jpg``, a file and the folder holding it, a
link and its target) is read once and said so (:class:`Repeat`, :func:`repeat_note`); a copy under
another name is another file, read as a document of its own.

File names may contain newlines or other control characters; :func:`printable` escapes them so that
one error stays one line (``bad\\nname.jpg``).
"""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.model import Document

__all__ = ["SKIPPED_NAMES_SHOWN", "Repeat", "printable", "repeat_note", "skipped_note", "walk_inputs"]

#: How many names of skipped files :func:`skipped_note` shows.
SKIPPED_NAMES_SHOWN = 5

_CONTROL = {c: f"\\x{c:02x}" for c in range(32)} | {0x7F: "\\x7f"}
_CONTROL.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
# C1 controls and the Unicode line/paragraph separators break lines too
_CONTROL.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})
_CONTROL.update({0x2028: "\\u2028", 0x2029: "\\u2029"})


def printable(text: str | os.PathLike[str]) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\t``, ``\\x1b``, ...), for one-line messages.

    Undecodable bytes of a file name (surrogate escapes) are shown as ``\\udcXX`` likewise.
    """
    s = os.fspath(text)
    s = s.translate(_CONTROL)
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in s):
        s = "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in s)
    return s


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def _error(path: Path, reason: Diagnostic) -> Document:
    return Document(source=str(path), error=reason)


def _check_file(path: Path) -> Diagnostic | None:
    """Why ``path`` cannot be read as a document file (``None`` when it is a regular file; code
    ``is_a_folder`` for a folder)."""
    try:
        st = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return diag(Code.SYMLINK_LOOP)
        if exc.errno == errno.ENOENT and path.is_symlink():
            return diag(Code.BROKEN_LINK, target=printable(os.readlink(path)))
        if exc.errno == errno.ENOENT:
            return diag(Code.NO_SUCH_PATH)
        if exc.errno in (errno.EACCES, errno.EPERM):
            return diag(Code.PERMISSION_DENIED)
        return diag(Code.FILE_UNREADABLE, detail=exc.strerror or str(exc))
    if stat.S_ISREG(st.st_mode):
        return None
    if stat.S_ISDIR(st.st_mode):
        return diag(Code.IS_A_FOLDER)
    return diag(Code.SPECIAL_FILE, kind=_kind(st.st_mode))


def _readable_by_content(path: Path) -> bool:
    """Whether a regular file's first bytes are those of a format intake reads (:func:`magic_format`:
    nothing is parsed)."""
    from desktop.core.intake.sniffing import READABLE_MAGIC_FORMATS, magic_format

    return magic_format(path) in READABLE_MAGIC_FORMATS


def skipped_note(skipped: Sequence[Path]) -> Diagnostic | None:
    """One note naming the files a folder walk skipped (:func:`walk_inputs`' ``skipped``): how many, and
    the names of the first :data:`SKIPPED_NAMES_SHOWN`; ``None`` when none was skipped."""
    if not skipped:
        return None
    names = ", ".join(printable(p.name) for p in skipped[:SKIPPED_NAMES_SHOWN])
    if len(skipped) > SKIPPED_NAMES_SHOWN:
        names += ", …"
    return diag(Code.FILES_SKIPPED, count=len(skipped), names=names)


@dataclass(frozen=True)
class Repeat:
    """A file or folder the inputs named more than once, read once.

    Attributes:
        path: the file or folder as first met (the one read; a :func:`walk_inputs` file as returned).
        times: how many times it was met: given explicitly, found in a folder walk, or both.
        also_as: the other names it was met under (a link, a hard link), as :func:`printable` text; empty
            when every occurrence names the same path (``a.jpg``, ``./a.jpg``, ``/home/me/a.jpg``).
    """

    path: Path
    times: int
    also_as: tuple[str, ...] = ()


def repeat_note(repeat: Repeat) -> Diagnostic:
    """The note saying that ``repeat.path`` was given ``repeat.times`` times and read once (code
    :data:`~desktop.core.diagnostics.Code.GIVEN_REPEATEDLY`; the file is not part of the message)."""
    if repeat.also_as:
        return diag(Code.GIVEN_REPEATEDLY_AS, times=repeat.times, names=", ".join(repeat.also_as))
    return diag(Code.GIVEN_REPEATEDLY, times=repeat.times)


def _same_name(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name the same path once made absolute and normalised (``./a.jpg`` and
    ``a.jpg``; links are not followed: a link is another name)."""
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def walk_inputs(paths: Iterable[str | Path], suffixes: Iterable[str],
                skipped: list[Path] | None = None,
                repeated: list[Repeat] | None = None) -> tuple[list[Path], list[Document]]:
    """Turn command-line / drag-and-drop paths into the files to read.

    Folders are walked recursively in sorted order and contribute every regular file whose suffix is
    in ``suffixes`` (case-insensitive; hidden files and folders skipped, silently), and every other
    regular file whose first bytes are those of a supported image or PDF (no suffix, or a wrong one);
    the rest are appended to ``skipped`` (when given) for one note (:func:`skipped_note`). A file named
    explicitly is kept whatever its suffix. Symbolic links to files are followed; links to folders are followed
    once (a folder reached again through a link is not walked twice; a link back to a folder that
    contains it, a loop, is named). A file met more than once (the same file: its device and inode) is
    kept once, at its first occurrence, and a folder met more than once is walked once; each such file,
    and each such folder that was given as an input, is appended to ``repeated`` (when given; in the
    order first met) for a note (:func:`repeat_note`). A folder reached twice only inside a walk (two
    links to it) is walked once, silently.

    Returns:
        ``(files, errors)``: the files in order, and one error :class:`Document` (its ``source`` names
        the path) for every path that could not be used: does not exist (``no_such_path``), a
        sub-folder that cannot be read (``folder_unreadable``), a link loop (``symlink_loop``; a link
        to a folder that contains it, ``folder_link_loop``, whose folder is not walked again), a
        broken link (``broken_link``; both whatever the name's suffix, since what they lead to cannot be
        looked at), a FIFO, socket or device file among the supported suffixes (``special_file``; one
        with another name is skipped: it is never opened).
    """
    wanted = {s.lower() for s in suffixes}
    files: list[Path] = []
    errors: list[Document] = []
    seen: set[tuple[int, int]] = set()
    walked: set[tuple[int, int]] = set()
    # every file or folder met, by identity: its first path, how often, the other names
    met: dict[tuple[int, int], tuple[Path, int, list[str]]] = {}
    given_folders: set[tuple[int, int]] = set()  # folders given as inputs (one met twice inside a walk is not said)

    def meet(key: tuple[int, int], p: Path) -> None:
        first, times, names = met.get(key, (p, 0, []))
        if times and not _same_name(first, p) and not any(_same_name(Path(n), p) for n in names):
            names.append(str(p))
        met[key] = (first, times + 1, names)

    def add(p: Path) -> None:
        try:
            st = p.stat()
            key = (st.st_dev, st.st_ino)
        except OSError:
            key = (-1, hash(str(p)))
        meet(key, p)
        if key not in seen:
            seen.add(key)
            files.append(p)

    def walk(folder: Path, inside: frozenset[tuple[int, int]] = frozenset(), given: bool = False) -> None:
        try:
            st = folder.stat()
        except OSError as exc:
            errors.append(_error(folder, diag(Code.FOLDER_UNREADABLE, detail=exc.strerror or str(exc))))
            return
        key = (st.st_dev, st.st_ino)
        if key in inside and folder.is_symlink():
            # a link back to a folder that contains it: named, and not walked again (the batch goes on)
            errors.append(_error(folder, diag(Code.FOLDER_LINK_LOOP, target=printable(str(folder.resolve())))))
            return
        meet(key, folder)
        if given:
            given_folders.add(key)
        if key in walked:
            return  # the same folder reached twice (given twice, two links to it): its files are read once
        walked.add(key)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            reason = "permission denied" if exc.errno in (errno.EACCES, errno.EPERM) else (exc.strerror or str(exc))
            errors.append(_error(folder, diag(Code.FOLDER_UNREADABLE, detail=reason)))
            return
        subfolders = []
        for e in entries:
            if e.name.startswith("."):
                continue
            p = Path(e.path)
            try:
                is_dir = e.is_dir()  # follows links
            except OSError:
                is_dir = False
            if is_dir:
                subfolders.append(p)
                continue
            problem = _check_file(p)
            if Path(e.name).suffix.lower() not in wanted and (problem is None or problem.code is Code.SPECIAL_FILE):
                # a scanner's "scan0001", a mail's "attachment.dat": read when its content is a document
                if problem is None and _readable_by_content(p):
                    add(p)
                elif skipped is not None:
                    skipped.append(p)
                continue
            if problem is None:
                add(p)
            else:
                errors.append(_error(p, problem))
        for sub in subfolders:
            walk(sub, inside | {key})

    for raw in paths:
        p = Path(raw).expanduser()
        problem = _check_file(p)
        if problem is not None and problem.code is Code.IS_A_FOLDER:
            walk(p, given=True)
        elif problem is None:
            add(p)
        else:
            errors.append(_error(p, problem))
    if repeated is not None:
        repeated.extend(Repeat(first, times, tuple(printable(n) for n in names))
                        for key, (first, times, names) in met.items()
                        if times > 1 and (key in seen or key in given_folders))
    return files, errors
