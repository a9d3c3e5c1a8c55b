"""Shared fixtures.

- Every test runs with the network cut off: any ``socket.connect`` to an address that is not local
  raises :class:`NetworkAccessError` and is recorded, so a library that tries to phone home fails the
  test that triggered it (``network_attempts`` lets a test assert on the record directly).
  Loopback (127.0.0.0/8, ::1) is allowed only to tests marked ``loopback`` (the office-server engine
  and ``shoebox serve`` tests, which start real servers on 127.0.0.1); Unix sockets always.
- ``samples`` is ``../shared/samples`` beside the checkout (override with ``SHOEBOX_SAMPLES``);
  tests that need it are skipped where it is absent.
- Per-user folders (settings, session database) go to a temporary ``SHOEBOX_HOME``.
- ``make_window`` opens main windows for a GUI test (closed at its end); ``translated`` installs the
  app's translators for a test.
"""
from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

REPO = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("SHOEBOX_SAMPLES", REPO.parent / "shared" / "samples"))


class NetworkAccessError(RuntimeError):
    """A test tried to open a network connection."""


_ATTEMPTS: list[object] = []
_LOOPBACK = threading.Event()  # set while a test marked ``loopback`` runs
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_local(sock: socket.socket, address: object) -> bool:
    if sock.family == getattr(socket, "AF_UNIX", object()):
        return True
    host = address[0] if isinstance(address, tuple) else address
    loopback = host in ("127.0.0.1", "::1", "localhost") or str(host).startswith("127.")
    return loopback and _LOOPBACK.is_set()


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(self, address):
        _ATTEMPTS.append(address)
        raise NetworkAccessError(f"test tried to connect to {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(self, address):
        _ATTEMPTS.append(address)
        raise NetworkAccessError(f"test tried to connect to {address!r}")
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


@pytest.fixture
def network_attempts() -> list[object]:
    """The non-local connection attempts made during the test (cleared at its start)."""
    _ATTEMPTS.clear()
    return _ATTEMPTS


@pytest.fixture(autouse=True)
def _fail_on_network_attempt(request: pytest.FixtureRequest):
    before = len(_ATTEMPTS)
    if request.node.get_closest_marker("loopback"):
        _LOOPBACK.set()
    try:
        yield
    finally:
        _LOOPBACK.clear()
    new = _ATTEMPTS[before:]
    if new:
        pytest.fail(f"network connection attempted: {new}")


@pytest.fixture(autouse=True)
def shoebox_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh per-test ``SHOEBOX_HOME`` so no test reads or writes the real user folders."""
    home = tmp_path_factory.mktemp("shoebox_home")
    monkeypatch.setenv("SHOEBOX_HOME", str(home))
    return home


@pytest.fixture(autouse=True, scope="session")
def shared_ort_cache(tmp_path_factory: pytest.TempPathFactory):
    """One optimised-model cache (:mod:`desktop.core.engines.ort_cache`) for the whole run, instead of one
    written into every test's fresh home by every engine the test starts."""
    from desktop.core.engines.ort_cache import CACHE_DIR_ENV

    before = os.environ.get(CACHE_DIR_ENV)
    os.environ[CACHE_DIR_ENV] = str(tmp_path_factory.mktemp("ort_cache"))
    yield
    if before is None:
        os.environ.pop(CACHE_DIR_ENV, None)
    else:
        os.environ[CACHE_DIR_ENV] = before


@pytest.fixture(scope="session")
def samples() -> Path:
    """``../shared/samples`` (skips the test where it is absent)."""
    if not (SAMPLES / "MANIFEST.tsv").is_file():
        pytest.skip(f"samples not found at {SAMPLES}")
    return SAMPLES


# -- the tiny random HunyuanOCR model (tests/hunyuan_tiny.py) ----------------------------------------

@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A tiny random HunyuanOCR-architecture folder, built once per session (~5-10 s)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tests.hunyuan_tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("hunyuan") / "HunyuanOCR")


@pytest.fixture(scope="session")
def _one_thread():
    """One torch thread: tiny matrices on 2 busy cores run ~40x slower with thread hand-offs."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# -- the GUI: main windows and translations ---------------------------------------------------------

@pytest.fixture
def make_window(request: pytest.FixtureRequest, qtbot):
    """``make(engine=None, language="en", factory=None)``: a shown main window reading with ``engine``
    (or with ``factory(notes)``), closed when the test ends.

    A test module may set ``window_engine`` (a callable giving the engine when none is passed;
    default ``FakeEngine()``), ``WINDOW_SIZE`` (default 1400 x 900) and ``WINDOW_WAITS_FOR_ENGINE``
    (wait until the status bar says the engine is ready).
    """
    from desktop.gui.mainwindow import MainWindow
    from tests.fake_engines import FakeEngine

    module = request.module
    windows = []

    def make(engine=None, language: str = "en", factory=None):
        if factory is None:
            chosen = engine if engine is not None else getattr(module, "window_engine", FakeEngine)()

            def factory(notes):
                return chosen
        w = MainWindow(engine_factory=factory, language=language)
        qtbot.addWidget(w)
        w.resize(*getattr(module, "WINDOW_SIZE", (1400, 900)))
        w.show()
        qtbot.waitExposed(w)
        if getattr(module, "WINDOW_WAITS_FOR_ENGINE", False):
            qtbot.waitUntil(lambda: w.engine_label.text().endswith("ready"), timeout=10000)
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.close()


@pytest.fixture
def translated(qtbot):
    """``install(language)``: the app's translators for ``language`` for the rest of the test."""
    from PySide6.QtCore import QCoreApplication

    from desktop.gui.resources import install_translators, remove_translators

    app, installed = QCoreApplication.instance(), []

    def install(language: str) -> None:
        installed.extend(install_translators(app, language))
        assert installed, f"no translation for {language}"

    yield install
    remove_translators(app, installed)
