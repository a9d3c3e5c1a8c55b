"""The ``shoebox`` command (console script; also ``python -m desktop``).

Usage::

    shoebox                       open the window
    shoebox FILE...               open the window with FILEs queued
    shoebox scan PATH... [-o OUT.xlsx|OUT.json|OUT.csv] [--type auto|receipt|invoice|cn_vat_invoice]
                 [--engine auto|ppocr|hunyuan|server] [--model-dir DIR] [--server-url URL]
                 [--task markdown|table|translate_en|translate_zh] [--date-order auto|DMY|MDY]
                 [--language en|zh] [--no-memory] [-q]
    shoebox learn REVIEWED.json [--all] [--include-flagged] [-q]
    shoebox server-check URL      does the office HunyuanOCR server answer, and with what
    shoebox serve [--host 127.0.0.1] [--port 8765]    the pipeline as a local HTTP service
    shoebox --version

``scan`` reads files (folders are walked, sorted, keeping supported files) with no window. Without ``-o``
the JSON result goes to stdout; messages, notes and the progress bar go to stderr. One bad file gets a
one-line error naming the file and the reason (``shoebox: error: /path/bad.jpg: <reason>``) and the
batch goes on. The vendor memory (:mod:`desktop.core.memory`, in the same local database as the window's
session) fills and checks vendor fields of every document, and possible duplicates are marked
(``duplicate_of``), within the batch and against the documents the memory learned; ``--no-memory``
reads without the memory (duplicates are then looked for within the batch only). ``--language zh``
writes an .xlsx or .csv output's sheet names, headers, labels, status words and messages in Simplified
Chinese (default ``en``; JSON is the same in every language).

``learn`` teaches the vendor memory from a JSON result (``shoebox scan``'s schema) that a clerk
reviewed: every document marked ``"reviewed": true`` (``--all``: every document read). A vendor field
still marked ``"needs_review": true`` (or with a failed check) that the clerk did not edit
(``"edited": true`` or ``"source": "user"``) is not learned, unless the document's
``extras.confirmed_flagged`` names it (the window's "I checked them" box) or ``--include-flagged`` is
given: one line per such document on stderr names the file and the fields left out
(:func:`desktop.core.memory.unchecked_fields`; QA finding F1: a reviewed export whose wrong vendor was
still flagged was learned, and every later copy then read it at 99.99 %, unflagged).

Exit status
-----------
====  ==========================================================================================
0     every file was read
1     some files failed, or some pages could not be read or may have lost their content (a damaged
      PDF, an OCR answer cut at its length limit); the rest is still written, and each such file or
      page is an error line and a problem in the output
2     usage error (bad option, unknown output suffix)
3     nothing could be read (no supported file, or every file failed), or the output could not
      be written
4     the requested engine is unavailable (for example ``--engine hunyuan`` without the model,
      or ``--engine server`` when the server cannot be reached); ``server-check``: not usable
5     the window could not be opened (PySide6 or the GUI package missing)
130   interrupted (Ctrl+C); the documents already read are written
====  ==========================================================================================

Qt stays out of ``shoebox scan``: the window's module is loaded with :func:`importlib.import_module`
only when the window is asked for. A plain ``from desktop.gui.app import main`` inside a function would
work at run time, but import-linter (grimp) reads every ``import`` statement of a module, function-level
ones included, and the ``The core never imports Qt`` contract in ``pyproject.toml`` forbids
``desktop.cli -> desktop.gui`` (checked: it reports ``desktop.cli -> desktop.gui.app``). The pipeline and
the engines are loaded lazily too, so ``shoebox --version`` and ``--help`` answer at once.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from desktop import __version__
from desktop.core.diagnostics import (
    Code,
    Diagnostic,
    ExitCode,
    Severity,
    as_diagnostic,
    diag,
    exit_code_for,
    is_page_lost,
)

log = logging.getLogger(__name__)

# The statuses (desktop.core.diagnostics.ExitCode; a document's error code picks its status through
# desktop.core.diagnostics.EXIT_CODES). The names stay for callers of this module.
EXIT_OK = ExitCode.OK
EXIT_SOME_FAILED = ExitCode.SOME_FAILED
EXIT_USAGE = ExitCode.USAGE
EXIT_NOTHING_DONE = ExitCode.NOTHING_DONE
EXIT_ENGINE_UNAVAILABLE = ExitCode.ENGINE_UNAVAILABLE
EXIT_NO_WINDOW = ExitCode.NO_WINDOW
EXIT_INTERRUPTED = ExitCode.INTERRUPTED

SUBCOMMANDS = ("scan", "learn", "server-check", "serve")
TASKS = ("markdown", "table", "translate_en", "translate_zh")
# The engine capability (desktop.core.engines.base.Engine.capabilities) each task needs.
TASK_CAPABILITY = {"markdown": "markdown", "table": "table", "translate_en": "translate", "translate_zh": "translate"}

EXIT_STATUS_HELP = """\
exit status:
  0    every file was read
  1    some files failed, or some pages could not be read or may have lost their
       content (a damaged PDF, an OCR answer cut short); the rest is still written
  2    usage error
  3    nothing could be read, or the output could not be written
  4    the requested engine is unavailable (e.g. --engine hunyuan without the model,
       or --engine server when the server cannot be reached)
  5    the window could not be opened
  130  interrupted
"""

TOP_HELP = f"""\
usage: shoebox [FILE...]
       shoebox scan PATH... [-o OUT.xlsx|OUT.json|OUT.csv] [options]
       shoebox learn REVIEWED.json [--all] [--include-flagged]
       shoebox server-check URL
       shoebox serve [--host 127.0.0.1] [--port 8765] [--token-file FILE]
       shoebox --version

Shoebox reads receipts, invoices and Chinese VAT invoices on this computer (nothing leaves it).

  shoebox              open the window
  shoebox FILE...      open the window with these files queued
  shoebox scan ...     read files without a window and write Excel, CSV or JSON
                       (`shoebox scan --help` for its options)
  shoebox learn F.json teach the vendor memory from a reviewed JSON result
  shoebox server-check URL
                       does the office HunyuanOCR server at URL answer, which model it
                       serves, and how long a probe page takes
  shoebox serve        the scanning pipeline as an HTTP service on this computer
                       (`shoebox serve --help`)
  shoebox --version    print the versions of Shoebox and its engines

{EXIT_STATUS_HELP}"""

_PROG = "shoebox"


class _UsageError(Exception):
    """Raised by the parser instead of exiting, so :func:`main` returns 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise _UsageError(message)


def _date_order(text: str) -> str:
    upper = text.strip().upper()
    if upper in ("DMY", "MDY"):
        return upper
    if upper == "AUTO":
        return "auto"
    raise argparse.ArgumentTypeError(f"invalid date order {text!r} (choose DMY, MDY or auto)")


def build_scan_parser() -> argparse.ArgumentParser:
    """The ``shoebox scan`` argument parser (its ``error`` raises instead of exiting)."""
    from desktop.core.doctypes import document_types
    from desktop.core.export import EXPORT_LANGUAGES, EXPORT_SUFFIXES

    parser = _Parser(
        prog=f"{_PROG} scan",
        description="Read documents without a window and write the fields as Excel, CSV or JSON.",
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (folders are walked)")
    parser.add_argument(
        "-o", "--output", metavar="OUT",
        help=f"write to OUT; the suffix picks the format ({', '.join(EXPORT_SUFFIXES)}). "
             "Without -o the JSON result goes to stdout.",
    )
    parser.add_argument(
        "--type", dest="document_type", default="auto", choices=["auto", *document_types()],
        help="document type (default: auto, detected per document)",
    )
    parser.add_argument(
        "--engine", default="auto", choices=("auto", "ppocr", "hunyuan", "server"),
        help="auto (the office server when one is configured and answers, else HunyuanOCR when a GPU "
             "and its model are present, else PP-OCR; the default), ppocr (CPU), hunyuan (GPU) or "
             "server (HunyuanOCR on the office server)",
    )
    add_server_arguments(parser)
    parser.add_argument(
        "--model-dir", type=Path, metavar="DIR",
        help="the HunyuanOCR model folder (default: the one chosen in the window's settings, "
             "then the usual places)",
    )
    parser.add_argument("--task", choices=TASKS, help="an extra HunyuanOCR task per page")
    parser.add_argument(
        "--language", default="en", choices=EXPORT_LANGUAGES,
        help="the language of an .xlsx or .csv output: sheet names, column headers, field labels, document "
             "types, status words and problem messages in English (en, the default) or Simplified Chinese "
             "(zh); values (amounts, dates, names) are written as read. JSON is the same in every language",
    )
    parser.add_argument(
        "--date-order", type=_date_order, default="auto", metavar="{auto,DMY,MDY}",
        help="how to read ambiguous dates such as 03/04/2024 (default: auto, from the document)",
    )
    parser.add_argument("--no-memory", dest="memory", action="store_false",
                        help="do not use the vendor memory (no vendor values from earlier documents; "
                             "duplicates looked for within this batch only)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no notes; errors only")
    return parser


def build_learn_parser() -> argparse.ArgumentParser:
    """The ``shoebox learn`` argument parser (its ``error`` raises instead of exiting)."""
    parser = _Parser(
        prog=f"{_PROG} learn",
        description="Teach the vendor memory from a reviewed JSON result (the schema shoebox scan writes): "
                    "vendor name, address, tax ID, document type and currency, and where total and date "
                    "are printed.",
    )
    parser.add_argument("result", type=Path, metavar="REVIEWED.json", help="a JSON result a clerk checked")
    parser.add_argument("--all", action="store_true",
                        help="learn every document read, not only those marked \"reviewed\": true")
    parser.add_argument("--include-flagged", action="store_true",
                        help="learn vendor fields still marked \"needs_review\": true that were not edited too "
                             "(default: left out, one line on stderr per document)")
    parser.add_argument("-q", "--quiet", action="store_true", help="errors only")
    return parser


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """``--server-url``, ``--allow-public-server`` and ``--max-in-flight`` (scan and serve)."""
    parser.add_argument(
        "--server-url", metavar="URL",
        help="the office HunyuanOCR server (OpenAI-compatible, e.g. http://gpu-box:8000/v1; default: "
             "$SHOEBOX_SERVER_URL, then Settings). Its API key: $SHOEBOX_SERVER_API_KEY or Settings",
    )
    parser.add_argument("--allow-public-server", action="store_true",
                        help="accept a server whose address is not loopback or private-network")
    parser.add_argument("--max-in-flight", type=int, metavar="N",
                        help="pages sent to the server at once (default: Settings, 4)")


def server_config_from_args(args: argparse.Namespace) -> Any:
    """The office-server configuration the command-line options ask for, or ``None`` when they set
    nothing (then the engine factory reads the environment and the settings itself)."""
    if not (args.server_url or args.allow_public_server or args.max_in_flight):
        return None
    from desktop.core.engines.server import ServerConfig

    return ServerConfig.from_settings(url=args.server_url, allow_public=True if args.allow_public_server else None,
                                      max_in_flight=args.max_in_flight)


# --------------------------------------------------------------------------------------------------
# Hooks (tests replace these)


def _pipeline() -> ModuleType:
    """The scanning pipeline, :mod:`desktop.core.pipeline` (imported on first use)."""
    return importlib.import_module("desktop.core.pipeline")


def _create_engine(name: str, model_dir: Path | None, notes: list[Diagnostic], **kwargs: Any) -> Any:
    """The engine (:func:`desktop.core.isolation.create_isolated_engine`): in a worker process, except the
    office-server engine asked for explicitly, which only talks HTTP and runs here, with its files opened
    and rendered in a page worker."""
    from desktop.core.isolation import create_isolated_engine

    return create_isolated_engine(name, model_dir, notes=notes, **kwargs)


def _open_memory() -> Any:
    """The vendor memory in the user's data folder (:class:`desktop.core.memory.VendorMemory`)."""
    from desktop.core.memory import VendorMemory

    return VendorMemory()


def _gui_main() -> Any:
    """``desktop.gui.app.main``, loaded by name so the core never imports Qt (see module docstring)."""
    return importlib.import_module("desktop.gui.app").main


# --------------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``shoebox`` command.

    Args:
        argv: the arguments without the program name (default ``sys.argv[1:]``).

    Returns:
        The exit status (see the module docstring).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "scan":
        return scan_main(args[1:])
    if args and args[0] == "learn":
        return learn_main(args[1:])
    if args and args[0] == "server-check":
        return server_check_main(args[1:])
    if args and args[0] == "serve":
        from desktop.service.cli import serve_main

        return serve_main(args[1:])
    if args and args[0] in ("-V", "--version"):
        print(version_text())
        return EXIT_OK
    if args and args[0] in ("-h", "--help"):
        print(TOP_HELP, end="")
        return EXIT_OK
    if args and _looks_like_unknown_command(args[0]):
        import difflib

        close = difflib.get_close_matches(args[0], SUBCOMMANDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else " (and no such file)"
        print(f"{_PROG}: error: unknown command '{args[0]}'{hint}", file=sys.stderr)
        print(f"run '{_PROG} --help' for usage", file=sys.stderr)
        return EXIT_USAGE
    return open_window(args)


def _looks_like_unknown_command(arg: str) -> bool:
    """A bare word that is not an existing path (``shoebox scna x.jpg``) is a mistyped command."""
    if arg.startswith("-") or Path(arg).exists():
        return False
    return "/" not in arg and "\\" not in arg and "." not in arg


def open_window(files: list[str]) -> int:
    """Open the window with ``files`` queued; ``desktop.gui.app.main(files)``'s status (``EXIT_NO_WINDOW``
    when PySide6 is missing, or on Linux when there is no display to open it on: Qt would abort)."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                                 or os.environ.get("QT_QPA_PLATFORM")):
        print(f"{_PROG}: error: the window cannot open here: there is no display (DISPLAY and WAYLAND_DISPLAY "
              f"are not set). Run it on a desktop, under xvfb-run, or use '{_PROG} scan' to read files "
              "without it.", file=sys.stderr)
        return EXIT_NO_WINDOW
    try:
        gui_main = _gui_main()
    except ImportError as exc:
        print(f"{_PROG}: error: the window cannot open here: {exc}. "
              f"'{_PROG} scan' reads files without it.", file=sys.stderr)
        return EXIT_NO_WINDOW
    return int(gui_main(files) or 0)


def version_text() -> str:
    """Shoebox's version and those of the libraries that read and write documents (none imported)."""
    # Imported here, not with this module: importlib.metadata (email, zipfile, ...) costs 25-100 ms, in the
    # CLI's process and again in every engine worker, which imports this module when spawned.
    from importlib import metadata

    dists = ["rapidocr", "onnxruntime", "PyMuPDF", "Pillow", "openpyxl", "PySide6-Essentials",
             "torch", "transformers"]
    parts = []
    for dist in dists:
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} not installed")
    python = ".".join(str(v) for v in sys.version_info[:3])
    return f"{_PROG} {__version__}\nPython {python}\n" + "\n".join(parts)


# --------------------------------------------------------------------------------------------------
# shoebox scan


class _Console:
    """stderr messages that do not tear the progress bar."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.bar: Any = None

    def _write(self, text: str) -> None:
        from desktop.core.inputs import printable

        text = printable(text)  # a file name with a newline stays one line: one error, one line
        if self.bar is not None:
            from tqdm import tqdm

            tqdm.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)

    def error(self, text: str) -> None:
        self._write(f"{_PROG}: error: {text}")

    def note(self, text: str) -> None:
        if not self.quiet:
            self._write(f"{_PROG}: {text}")

    def always(self, text: str) -> None:
        """A message shown even with ``-q`` (what an interrupted batch wrote)."""
        self._write(f"{_PROG}: {text}")


def _worth_a_note(warning: Diagnostic) -> bool:
    """Page warnings a clerk should see on stderr: severity ``warning`` or worse (a blank page, a
    repaired PDF, a page that could not be read); ``info`` and ``detail`` ones (turned upright, read
    downscaled) stay in the result."""
    return warning.severity in (Severity.WARNING, Severity.ERROR)


_FILE_WIDE = frozenset({Code.PDF_REPAIRED, Code.PDF_TRUNCATED})
"""Page warnings that say something of the whole file (MuPDF repairs a damaged file, not a page):
stderr says them once per file, the JSON keeps them on each page."""


def _page_list(numbers: Sequence[int]) -> str:
    """``page 4``, ``pages 1-200``, ``pages 1-3, 7, 9-10`` (runs of consecutive pages joined)."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    return f"page {text}" if len(numbers) == 1 else f"pages {text}"


_SAID_OF_DOCUMENT = frozenset({Code.NO_TEXT_IN_DOCUMENT, Code.PAGE_HOLDS_TWO_DOCUMENTS})
"""Document notes stderr says (once per document): what its fields alone do not tell."""


class _Exit(Exception):
    """A step of ``shoebox scan`` stops the command with ``code`` (it has said why on stderr)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def scan_main(argv: Sequence[str]) -> int:
    """``shoebox scan``: see the module docstring. Returns the exit status.

    The steps: the arguments and the output file (:func:`_scan_arguments`), the engine's start in the
    background (:class:`_EngineStart`), the inputs, the engine ready (:func:`_start_engine`), the batch
    (:func:`_run_batch`), the notes on what to check (:func:`_note_to_check`), the output (:func:`_write_output`) and the exit status
    (:func:`desktop.core.diagnostics.exit_code_for`).
    """
    try:
        args, out = _scan_arguments(argv)
        console = _Console(args.quiet)
        # The engine's worker boots on the other core while this process goes on (unless no path
        # given exists: then the batch stops at the inputs and no engine is started for nothing).
        starting = _EngineStart(args) if any(os.path.exists(p) for p in args.paths) else None
        try:
            try:
                pipeline = _pipeline()
            except ImportError as exc:  # a broken installation
                console.error(f"the scanning pipeline cannot load: {exc}")
                raise _Exit(EXIT_NOTHING_DONE) from None
            files, documents, repeats = _inputs(pipeline, args.paths, console)
            starting = starting or _EngineStart(args)
            _preload_extraction(memory=args.memory)
            engine = _start_engine(args, console, starting)
        except BaseException:
            if starting is not None:
                starting.abandon()
            raise
        documents, interrupted = _run_batch(pipeline, files, engine, args, console, documents)
        _note_repeats(documents, repeats)
        _note_to_check(documents, console)
        _write_output(documents, out, console, interrupted, language=args.language)
    except _Exit as stop:
        return stop.code
    if interrupted:
        return EXIT_INTERRUPTED
    # a document read but for a page the engine could not read, or whose content a damaged PDF may have
    # lost, counts as failed too: a page is lost
    page_errors = [lost for doc in documents if doc.error is None for lost in doc.lost_pages()]
    return exit_code_for([doc.error for doc in documents if doc.error is not None] + page_errors,
                         any_read=any(doc.error is None for doc in documents))


def _scan_arguments(argv: Sequence[str]) -> tuple[argparse.Namespace, Path | None]:
    """Parse ``argv`` and check the output file now, not after an hour of reading.

    Returns:
        The arguments and the output path (``None``: JSON to stdout).

    Raises:
        _Exit: ``--help`` (0), a usage error (2), an output that cannot be written (3).
    """
    from desktop.core.export import EXPORT_SUFFIXES, ExportError, check_writable
    from desktop.core.inputs import printable

    parser = build_scan_parser()
    try:
        args = parser.parse_args(list(argv))
    except _UsageError:
        raise _Exit(EXIT_USAGE) from None
    except SystemExit as exc:  # --help
        raise _Exit(int(exc.code or 0)) from None
    out: Path | None = Path(args.output) if args.output else None
    if out is None:
        return args, None
    if out.suffix.lower() not in EXPORT_SUFFIXES:
        try:
            parser.error(f"cannot tell the format of {out}: use a name ending in {', '.join(EXPORT_SUFFIXES)}")
        except _UsageError:
            raise _Exit(EXIT_USAGE) from None
    if out.is_dir():
        print(f"{_PROG}: error: Could not write {out}: it is a folder", file=sys.stderr)
        raise _Exit(EXIT_NOTHING_DONE)
    if not out.parent.is_dir():
        print(f"{_PROG}: error: Could not write {out}: the folder {out.parent} does not exist", file=sys.stderr)
        raise _Exit(EXIT_NOTHING_DONE)
    try:
        check_writable(out)
    except ExportError as exc:
        print(f"{_PROG}: error: {printable(str(exc))}", file=sys.stderr)
        raise _Exit(EXIT_NOTHING_DONE) from None
    return args, out


def _inputs(pipeline: ModuleType, paths: list[str], console: _Console) -> tuple[list[Path], list[Any], list[Any]]:
    """The files to read, the error documents of the inputs that cannot be (each said on stderr), and
    the files and folders given more than once (:class:`desktop.core.inputs.Repeat`: each read once, and
    said so on stderr); the files the folder walks skipped are named in one note
    (:func:`desktop.core.inputs.skipped_note`).

    Raises:
        _Exit: no supported file (3).
    """
    from desktop.core.inputs import Repeat, printable, repeat_note, skipped_note

    skipped: list[Path] = []
    repeats: list[Repeat] = []
    files, documents = pipeline.collect_inputs(paths, skipped=skipped, repeated=repeats)
    documents = list(documents)
    note = skipped_note(skipped)
    if note is not None:
        console.note(f"note: {note.message()}")
    for repeat in repeats:
        console.note(f"note: {printable(repeat.path)}: {repeat_note(repeat).message()}")
    for doc in documents:
        console.error(f"{doc.source}: {doc.error.message() if doc.error else 'cannot be read'}")
    if not files:
        if not documents:
            console.error(f"no supported files in {', '.join(paths)}")
        raise _Exit(EXIT_NOTHING_DONE)
    named = {doc.source for doc in documents}
    for given in paths:  # a folder that gave nothing is said, not passed over
        folder = Path(given)
        if folder.is_dir() and given not in named and not any(folder in f.parents for f in files):
            console.note(f"note: {given}: no supported files in this folder")
    return files, documents, repeats


def _note_repeats(documents: list[Any], repeats: list[Any]) -> None:
    """Add to each document of a file given more than once the note saying so
    (:func:`desktop.core.inputs.repeat_note`; the JSON's ``notes``), as stderr said before reading."""
    from desktop.core.inputs import repeat_note

    notes = {str(r.path): repeat_note(r) for r in repeats}
    for doc in documents:
        note = notes.get(doc.source)
        if note is not None and note not in doc.notes:
            doc.notes = [*doc.notes, note]


class _EngineStart:
    """The engine ``--engine`` names, created now and warmed up (its worker started and its models
    loaded) in a background thread, while the main thread imports the pipeline, looks at the inputs and
    loads the field model: the worker's start (about a second of CPU: onnxruntime, rapidocr and the
    sessions) overlaps this process' own on the second core. Nothing is reported here: errors and notes
    are kept for :func:`_start_engine`, which says them in the order it always has.
    """

    def __init__(self, args: argparse.Namespace) -> None:
        import threading

        self.engine: Any = None
        self.notes: list[Diagnostic] = []
        self.config_error: Exception | None = None
        self.create_error: Exception | None = None
        self.warm_error: BaseException | None = None
        self._thread: threading.Thread | None = None
        from desktop.core.engines import EngineError

        model_dir = args.model_dir
        if model_dir is None:
            from desktop.core.settings import Settings

            saved = Settings.load().model_dir
            model_dir = Path(saved) if saved else None
        try:
            server = server_config_from_args(args)
        except EngineError as exc:
            self.config_error = exc
            return
        try:
            self.engine = _create_engine(args.engine, model_dir, self.notes, **({"server": server} if server else {}))
        except EngineError as exc:  # EngineUnavailable and engines that fail to load
            self.create_error = exc
            return
        warm_up = getattr(self.engine, "warm_up", None)
        if callable(warm_up):
            self._thread = threading.Thread(target=self._warm_up, args=(warm_up,), name="engine-start", daemon=True)
            self._thread.start()

    def _warm_up(self, warm_up: Any) -> None:
        try:
            warm_up()
        except BaseException as exc:  # said by _start_engine, in the main thread
            self.warm_error = exc

    def wait(self) -> None:
        """Until the warm-up has ended (its error, if any, is in ``warm_error``)."""
        if self._thread is not None:
            self._thread.join()

    def abandon(self) -> None:
        """The batch will not run (bad inputs, Ctrl+C): stop the engine started for it, at once."""
        interrupt = getattr(self.engine, "interrupt", None)
        if callable(interrupt) and self._thread is not None and self._thread.is_alive():
            interrupt()  # the worker still starting is stopped, not waited for
        self.wait()
        close = getattr(self.engine, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # stopping a worker that failed to start: nothing more to do
                log.debug("closing the unused engine failed", exc_info=True)


def _preload_extraction(*, memory: bool = False) -> None:
    """Import field extraction and load the field model now, while the engine starts (both are needed
    for the first document anyway; a failure here is left for that document to report); with
    ``memory``, import the vendor memory's module too (about 30 ms of CPU, otherwise spent after the
    engine is ready and before the first page)."""
    try:
        importlib.import_module("desktop.core.extraction.field_model").load_model()
        importlib.import_module("desktop.core.extraction").preload()
        if memory:
            importlib.import_module("desktop.core.memory")
    except Exception:
        log.debug("preloading field extraction failed", exc_info=True)


def _start_engine(args: argparse.Namespace, console: _Console, starting: _EngineStart) -> Any:
    """The engine ``--engine`` names with its models loaded, before the batch (:class:`_EngineStart`
    began it): a broken model folder is one engine error, not the same load failure repeated on every
    page. Its notes (why ``auto`` fell back to PP-OCR, "slow on the CPU", a task it cannot do) go to
    stderr.

    Raises:
        _Exit: the engine is unavailable or cannot start (4).
    """
    from desktop.core.engines import EngineError, EngineUnavailable

    if starting.config_error is not None:
        console.error(str(starting.config_error))
        raise _Exit(EXIT_ENGINE_UNAVAILABLE)
    if starting.create_error is not None:
        console.error(f"the {args.engine} engine is unavailable: {starting.create_error}")
        raise _Exit(EXIT_ENGINE_UNAVAILABLE)
    engine, notes = starting.engine, starting.notes
    for note in notes:
        console.note(f"note: {as_diagnostic(note).message()}")
    starting.wait()
    error = starting.warm_error
    if isinstance(error, EngineUnavailable):
        console.error(f"the {args.engine} engine is unavailable: {error}")
        raise _Exit(EXIT_ENGINE_UNAVAILABLE)
    if isinstance(error, EngineError):
        console.error(f"the {args.engine} engine could not start: {error}")
        raise _Exit(EXIT_ENGINE_UNAVAILABLE)
    if error is not None:
        raise error
    for note in engine.load_notes:  # from the worker: why auto fell back to PP-OCR, "slow on the CPU"
        if as_diagnostic(note) not in notes:
            console.note(f"note: {as_diagnostic(note).message()}")
    describe = getattr(engine, "describe", None)
    if callable(describe):
        console.note(f"engine: {describe()}")
    if args.task and TASK_CAPABILITY[args.task] not in getattr(engine, "capabilities", frozenset()):
        console.note(f"note: --task {args.task} needs HunyuanOCR; the {engine.name} engine skips it")
    return engine


def _run_batch(pipeline: ModuleType, files: list[Path], engine: Any, args: argparse.Namespace, console: _Console,
               documents: list[Any]) -> tuple[list[Any], bool]:
    """Read ``files`` with the vendor memory (unless ``--no-memory``), then mark possible duplicates
    (within the batch and against what the memory learned). The engine and the memory are closed
    whatever happens.

    Returns:
        ``documents`` (the inputs' error documents) followed by every document read, and whether
        Ctrl+C stopped the batch (what was read before it is kept).

    Raises:
        _Exit: Ctrl+C before any file was read (130).
    """
    from desktop.core.model import Document

    options = pipeline.ScanOptions(
        document_type=args.document_type,
        date_order=None if args.date_order == "auto" else args.date_order,
        task=args.task,
    )
    memory = _memory_for_scan(args.memory, console)
    options.memory = memory
    from desktop.core.duplicates import ReadingCache

    options.readings = ReadingCache()  # a file whose bytes were read earlier in the batch is not read again
    known = _known_documents(memory, console) if memory is not None else []
    read: list[Any] = []
    interrupted = False
    try:
        _scan_files(pipeline, files, engine, options, console, Document, read)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        close = getattr(engine, "close", None)
        if callable(close):
            close()
        if memory is not None:
            memory.close()
    documents = documents + read
    if interrupted:
        if not read:
            console.error(diag(Code.INTERRUPTED).message())
            raise _Exit(EXIT_INTERRUPTED)
        # Ctrl+C after an hour of reading keeps that hour: what was read is written, and said so
        console.error(diag(Code.INTERRUPTED_WRITING, done=len({d.source for d in read}), files=len(files),
                           count=len(read)).message())
    _mark_duplicates(documents, known, console)
    return documents, interrupted


def _note_to_check(documents: list[Any], console: _Console) -> None:
    """One note on how many fields the clerk must check (:mod:`desktop.core.flags`), and where."""
    from desktop.core.flags import flagged_fields

    to_check = sum(len(flagged_fields(d)) for d in documents)
    if to_check:
        docs_n = sum(1 for d in documents if flagged_fields(d))
        console.note(f"to check: {to_check} field{'s' if to_check != 1 else ''} in {docs_n} "
                     f"document{'s' if docs_n != 1 else ''} (needs_review in the JSON, the Problems sheet in xlsx)")


def _write_output(documents: list[Any], out: Path | None, console: _Console, interrupted: bool, *,
                  language: str = "en") -> None:
    """Write the documents to ``out`` (all or nothing; an .xlsx's or .csv's words in ``language``), or
    their JSON to stdout.

    Raises:
        _Exit: the output could not be written (3, or 130 after Ctrl+C), or stdout went away.
    """
    from desktop.core.export import ExportError, export
    from desktop.core.model import ScanResult

    if out is not None:
        try:
            export(documents, out, language=language)
        except ExportError as exc:
            console.error(str(exc))
            raise _Exit(EXIT_INTERRUPTED if interrupted else EXIT_NOTHING_DONE) from None
        (console.always if interrupted else console.note)(
            f"wrote {len(documents)} document{'s' if len(documents) != 1 else ''} to {out}")
        return
    status = _write_stdout(ScanResult(documents).to_json() + "\n")
    if status is not None:
        raise _Exit(EXIT_INTERRUPTED if interrupted else status)


def _memory_for_scan(wanted: bool, console: _Console) -> Any:
    """The vendor memory for ``shoebox scan`` (``None`` with ``--no-memory`` or when it cannot open)."""
    from desktop.core.diagnostics import Code, diag

    if not wanted:
        return None
    try:
        return _open_memory()
    except Exception as exc:
        console.note(f"note: {diag(Code.MEMORY_UNAVAILABLE, detail=str(exc)).message()}; reading without it")
        return None


def _known_documents(memory: Any, console: _Console) -> list[dict[str, Any]]:
    try:
        return list(memory.known_documents())
    except Exception as exc:
        console.note(f"note: the vendor memory's documents cannot be read ({exc}); "
                     "duplicates are looked for within this batch only")
        return []


def _mark_duplicates(documents: list[Any], known: list[dict[str, Any]], console: _Console) -> None:
    """Mark possible duplicates (``duplicate_of``) in batch order; one note per duplicate on stderr."""
    from desktop.core.diagnostics import Code, diag
    from desktop.core.duplicates import DuplicateChecker, reason_of

    checker = DuplicateChecker(known=list(known))
    for doc in documents:
        mark = checker.check(doc)
        if mark:
            first, last = mark["pages"]
            pages = f" page {first}" if first == last else f" pages {first}-{last}"
            note = diag(Code.POSSIBLE_DUPLICATE, source=f"{mark['source']}{pages}", reason=reason_of(mark))
            console.note(f"note: {doc.source}: {note.message()}")


def learn_main(argv: Sequence[str]) -> int:
    """``shoebox learn``: see the module docstring. Returns the exit status."""
    from desktop.core.model import ScanResult

    parser = build_learn_parser()
    try:
        args = parser.parse_args(list(argv))
    except _UsageError:
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    console = _Console(args.quiet)
    try:
        result = ScanResult.load(args.result)
    except OSError as exc:
        console.error(f"{args.result}: cannot be read ({exc.strerror or exc})")
        return EXIT_NOTHING_DONE
    except (ValueError, KeyError, TypeError) as exc:
        console.error(f"{args.result}: not a Shoebox JSON result ({exc})")
        return EXIT_NOTHING_DONE
    chosen = [d for d in result.documents if not d.error and (args.all or d.reviewed)]
    if not chosen:
        read = sum(1 for d in result.documents if not d.error)
        hint = " (none is marked \"reviewed\": true; --all learns every document)" if read else ""
        console.error(f"{args.result}: no document to learn from{hint}")
        return EXIT_NOTHING_DONE
    try:
        memory = _open_memory()
    except Exception as exc:
        console.error(f"the vendor memory cannot be opened: {exc}")
        return EXIT_NOTHING_DONE
    from desktop.core.memory import unchecked_fields

    learned = 0
    try:
        for doc in chosen:
            left_out = [] if args.include_flagged else unchecked_fields(doc)
            lesson = memory.learn(doc, include_flagged=args.include_flagged)
            if left_out:
                console.note(f"note: {doc.source}: not learned, still marked to check and not edited: "
                             f"{', '.join(left_out)}{'' if lesson else ' (nothing else to learn)'} "
                             "(--include-flagged learns them)")
            if lesson is None:
                if not left_out:
                    console.note(f"note: {doc.source}: no vendor name or tax ID to learn")
                continue
            learned += 1
        vendors = len(memory.profiles())
    finally:
        memory.close()
    if not learned:
        return EXIT_NOTHING_DONE
    console.note(f"learned from {learned} document{'s' if learned != 1 else ''}; "
                 f"the vendor memory knows {vendors} vendor{'s' if vendors != 1 else ''}")
    return EXIT_OK


def _scan_files(pipeline: ModuleType, files: list[Path], engine: Any, options: Any, console: _Console,
                document_cls: type, results: list[Any]) -> list[Any]:
    """Scan every file with a progress bar on stderr (files, pages done, pages per minute, time left);
    one line on stderr per file that failed. Documents are appended to ``results`` as each file is
    read, so a Ctrl+C (``KeyboardInterrupt``, re-raised) leaves the files read so far there.

    An engine that reads pages concurrently (``engine.concurrency`` > 1: the office-server engine,
    its pages in flight) gets that many files at once; results and messages stay in file order. An
    engine in a worker process reads the next file's first page ahead (``engine.read_ahead``).
    """
    from tqdm import tqdm

    from desktop.core.inputs import printable
    from desktop.core.progress import Throughput

    bar = tqdm(total=len(files), unit="file", file=sys.stderr, dynamic_ncols=True,
               disable=True if console.quiet else None)
    console.bar = bar
    rate = Throughput(len(files))
    workers = int(getattr(engine, "concurrency", 1) or 1)
    concurrent = workers > 1 and len(files) > 1

    def scan_one(path: Path) -> list[Any]:
        def progress(p: Any, _name: str = printable(Path(path).name)) -> None:
            if concurrent:  # several files at once: the rate is counted per file finished
                bar.set_postfix_str(f"{_name} page {p.page}/{p.pages} · {rate.text()}", refresh=True)
                return
            rate.page(p.page, p.pages, getattr(p, "message", "") == "done")
            bar.set_postfix_str(f"{_name} page {p.page}/{p.pages} · {rate.text()}", refresh=True)

        try:
            docs = list(pipeline.scan_file(path, engine, options, progress=progress))
        except Exception as exc:  # the pipeline promises not to raise; keep the batch going if it does
            log.exception("scanning %s failed", path)
            docs = [document_cls(source=str(path), error=diag(Code.UNEXPECTED, detail=f"{type(exc).__name__}: {exc}"))]
        return docs or [document_cls(source=str(path), error=diag(Code.NOTHING_READ))]

    said_of_file: set[tuple[str, Code]] = set()

    def report(docs: list[Any]) -> None:
        page_notes: dict[tuple[str, str], list[int]] = {}  # (file, message): its pages, in order
        for doc in docs:
            if doc.error:
                console.error(f"{doc.source}: {doc.error.message()}")
                continue
            for lost in doc.lost_pages():  # the engine stopped on it, it could not be read, its content may be lost
                console.error(f"{doc.source}: {lost.message()}")  # the message names the page
            lost = {d.page for d in doc.lost_pages()}
            blank = any(n.code is Code.NO_TEXT_IN_DOCUMENT for n in doc.notes)  # one note says it of all pages
            for page in doc.page_results:  # read, but worth a look: blank, repaired
                for warning in page.warnings:
                    if is_page_lost(warning) or not _worth_a_note(warning):
                        continue
                    if warning.code is Code.NO_TEXT and (page.number in lost or blank):
                        continue  # its error line says why nothing was read, or the document's note does
                    if warning.code in _FILE_WIDE:  # said of every page of the file: once, for the file
                        if (doc.source, warning.code) not in said_of_file:
                            said_of_file.add((doc.source, warning.code))
                            console.note(f"note: {doc.source}: {warning.message()}")
                        continue
                    # the same note on several pages of the file is one line naming them ("pages 1-200: ...")
                    page_notes.setdefault((doc.source, warning.message()), []).append(page.number)
            for note in doc.notes:
                if note.code in _SAID_OF_DOCUMENT:  # no type guessed, no fields; two documents on a page
                    console.note(f"note: {doc.source}: {note.message()}")  # it names the number of pages
        for (source, message), numbers in page_notes.items():
            console.note(f"note: {source}: {_page_list(numbers)}: {message}")
        results.extend(docs)
        if concurrent:
            pages = sum(len(doc.page_results) for doc in docs)
            rate.page(pages, pages, True)
        rate.file_done()
        bar.update(1)

    try:
        if concurrent:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(max_workers=min(workers, len(files)), thread_name_prefix="shoebox-scan")
            try:
                for docs in pool.map(scan_one, files):
                    report(docs)
            finally:  # Ctrl+C: no new file starts; the engine's close() ends the requests in flight
                pool.shutdown(wait=False, cancel_futures=True)
        else:
            # An engine in a worker reads the next file's first page ahead, beside the current one
            # (WorkerEngine.read_ahead: PP-OCR then keeps both cores busy); the readings are the same.
            read_ahead = getattr(engine, "read_ahead", None) if len(files) > 1 else None
            planned: set[str] = set()  # content hashes of the files read or read ahead so far

            def first_of_its_content(upcoming: Path) -> bool:
                # a copy of a file read before is not read at all (options.readings): no read-ahead either
                from desktop.core.duplicates import content_hash

                digest = content_hash(upcoming) if getattr(options, "readings", None) is not None else None
                if digest is None:
                    return True
                seen = digest in planned
                planned.add(digest)
                return not seen

            for i, path in enumerate(files):
                if callable(read_ahead):
                    for upcoming in files[i:i + 2] if i == 0 else files[i + 1:i + 2]:
                        if not first_of_its_content(upcoming):
                            continue
                        try:
                            read_ahead(upcoming)
                        except Exception:  # a speed-up only: the file's own scan meets any problem
                            log.debug("reading %s ahead failed", upcoming, exc_info=True)
                bar.set_postfix_str(f"{printable(Path(path).name)} · {rate.text()}", refresh=True)
                report(scan_one(path))
    finally:
        bar.close()
        console.bar = None
    return results


def server_check_main(argv: Sequence[str]) -> int:
    """``shoebox server-check URL``: prints what the server is and how fast a probe page comes back.

    Returns 0 when the server is usable, 4 when not, 2 for a usage error.
    """
    parser = _Parser(prog=f"{_PROG} server-check",
                     description="Check an office HunyuanOCR server (OpenAI-compatible, e.g. vLLM): does it "
                                 "answer, which model and revision it serves, its context length, and the "
                                 "round trip of a probe page. The API key comes from $SHOEBOX_SERVER_API_KEY "
                                 "or Settings.")
    parser.add_argument("url", metavar="URL", help="e.g. http://gpu-box:8000/v1")
    parser.add_argument("--allow-public-server", action="store_true",
                        help="accept an address that is not loopback or private-network")
    parser.add_argument("--model", default="", help="the served model name to check (default: the HunyuanOCR one)")
    try:
        args = parser.parse_args(list(argv))
    except _UsageError:
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    from desktop.core.engines.base import EngineError
    from desktop.core.engines.server import ServerConfig, server_check

    try:
        config = ServerConfig.from_settings(url=args.url, allow_public=True if args.allow_public_server else None,
                                            model=args.model or None)
        assert config is not None
        report = server_check(config)
    except EngineError as exc:  # refused by the privacy policy, or the name does not resolve
        print(f"{_PROG}: error: {exc}", file=sys.stderr)
        return EXIT_ENGINE_UNAVAILABLE
    print("\n".join(report.lines()))
    return EXIT_OK if report.ok else EXIT_ENGINE_UNAVAILABLE


def _write_stdout(text: str) -> int | None:
    """Write UTF-8 text to stdout whatever the console encoding; ``None``, or the status on failure."""
    try:
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:
            buffer.write(text.encode("utf-8"))
            buffer.flush()
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except BrokenPipeError:  # `shoebox scan ... | head`: stop quietly (Python docs, "Note on SIGPIPE")
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_NOTHING_DONE
    except OSError as exc:
        print(f"{_PROG}: error: could not write to stdout: {exc}", file=sys.stderr)
        return EXIT_NOTHING_DONE
    return None


def run(argv: Sequence[str] | None = None) -> None:
    """The entry of the ``shoebox`` command (console script, ``python -m desktop``, the frozen
    executable): :func:`main`, then, after ``scan``, :func:`_leave` instead of the interpreter's teardown.

    Raises:
        SystemExit: with :func:`main`'s status (every command but ``scan``, or when leaving fast fails).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    code = main(args)
    if args and args[0] == "scan":
        _leave(code)
    raise SystemExit(code)


def _leave(code: int) -> None:
    """End a finished ``shoebox scan`` at once: what the interpreter's exit does that matters (the
    threads' shutdown: the thread pools' exit hooks and non-daemon threads joined; the ``atexit``
    handlers: logging flushed, multiprocessing's children reaped, temporary folders removed; stdout
    and stderr flushed), then ``os._exit`` without the teardown of every module (numpy, Pillow, lxml,
    sqlite3, the field model's objects), which the scan's process otherwise spends 0.05-0.1 s on
    after its output is written (measured 2026-12-03, see BENCHMARKS.md). Returns (and lets the caller
    exit the ordinary way) when this Python lacks the hooks or a stream cannot be flushed.
    """
    import atexit
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if not callable(shutdown) or not callable(run_exitfuncs) or threading.current_thread() is not threading.main_thread():
        return
    shutdown()
    run_exitfuncs()
    clear = getattr(atexit, "_clear", None)
    if callable(clear):
        clear()  # run once: the ordinary exit after a failed flush below runs none of them again
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe: the ordinary exit says it as before
            return
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
