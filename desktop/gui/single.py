"""One running app per user data folder, so two windows never share (and overwrite) one ``session.db``.

The first app listens on a ``QLocalServer`` whose name is derived from the user data folder
(:func:`desktop.core.settings.user_data_dir`, so ``SHOEBOX_HOME`` gives a separate instance). A second
start connects to it, sends the files it was given and exits; the running window queues them and
comes to the front. ``QLocalServer`` is a local socket (a Unix domain socket / a Windows named pipe):
nothing goes over the network.

Protocol: the client sends one UTF-8 JSON line ``{"files": ["/abs/path", ...]}``; the server answers
``ok\\n`` once the files are handed to the window.
"""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from desktop.core.settings import user_data_dir

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_MS = 500
REPLY_TIMEOUT_MS = 5000


def server_name(data_dir: Path | None = None) -> str:
    """``shoebox-<16 hex>``: a hash of the resolved user data folder (short enough for a socket path)."""
    folder = (data_dir or user_data_dir()).expanduser().resolve()
    return "shoebox-" + hashlib.sha256(str(folder).encode("utf-8")).hexdigest()[:16]


def send_to_running(files: list[str], name: str | None = None) -> bool:
    """Hand ``files`` (made absolute here) to an app already running; ``False`` when none answers."""
    socket = QLocalSocket()
    socket.connectToServer(name or server_name())
    if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
        return False
    payload = json.dumps({"files": [str(Path(f).expanduser().absolute()) for f in files]}) + "\n"
    socket.write(payload.encode("utf-8"))
    socket.flush()
    if socket.bytesToWrite() and not socket.waitForBytesWritten(REPLY_TIMEOUT_MS):
        log.warning("the running Shoebox did not take the file list: %s", socket.errorString())
        return False
    answered = False
    while socket.waitForReadyRead(REPLY_TIMEOUT_MS):
        if bytes(socket.readAll().data()).startswith(b"ok"):
            answered = True
            break
    socket.disconnectFromServer()
    return answered


class InstanceServer(QObject):
    """The running app's end: emits ``files_received(list of absolute paths)`` for each later start.

    Signals:
        files_received(files): a second start asked for these files to be queued (may be empty:
            then it only wants the window in front).
    """

    files_received = Signal(list)

    def __init__(self, name: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name or server_name()
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_connection)
        self._buffers: dict[QLocalSocket, bytearray] = {}  # a message still being read, by connection
        self._open: set[QLocalSocket] = set()  # every connection not yet closed, answered or not

    def listen(self) -> bool:
        """Start listening; a socket file left by a crashed app is removed first. ``False`` on failure."""
        if self.server.listen(self.name):
            return True
        # nobody answered on this name a moment ago (send_to_running), so what is there is stale
        log.info("removing a stale instance socket %s (%s)", self.name, self.server.errorString())
        QLocalServer.removeServer(self.name)
        if self.server.listen(self.name):
            return True
        log.warning("cannot listen on %s: %s; running without the single-instance guard",
                    self.name, self.server.errorString())
        return False

    def close(self) -> None:
        """Stop listening and drop the connections still open (their signals first, so none fires)."""
        for socket in list(self._open):
            socket.blockSignals(True)
            socket.abort()
            socket.deleteLater()
        self._open.clear()
        self._buffers.clear()
        self.server.close()

    # The slots below are methods of this object (never lambdas): Qt then drops the connections when
    # this object is destroyed, before it deletes its children. A lambda's connection outlived it, and
    # a child socket closed by that deletion could call back into a half-destroyed server.

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            self._buffers[socket] = bytearray()
            self._open.add(socket)
            socket.readyRead.connect(self._on_ready)
            socket.disconnected.connect(self._on_disconnected)

    def _sending_socket(self) -> QLocalSocket | None:
        socket = self.sender()
        return socket if isinstance(socket, QLocalSocket) else None

    def _on_disconnected(self) -> None:
        socket = self._sending_socket()
        if socket is None:
            return
        self._buffers.pop(socket, None)
        self._open.discard(socket)
        socket.deleteLater()

    def _on_ready(self) -> None:
        socket = self._sending_socket()
        buf = self._buffers.get(socket) if socket is not None else None
        if socket is None or buf is None:
            return
        buf += bytes(socket.readAll().data())
        if b"\n" not in buf:
            if len(buf) > 16 * 1024 * 1024:  # not ours: drop it
                socket.abort()
            return
        line = bytes(buf.split(b"\n", 1)[0])
        try:
            message = json.loads(line.decode("utf-8"))
            files = [str(f) for f in message.get("files", [])]
        except (ValueError, AttributeError, TypeError) as exc:
            log.warning("ignoring a malformed message on %s: %s", self.name, exc)
            socket.abort()
            return
        self._buffers.pop(socket, None)
        self.files_received.emit(files)
        socket.write(b"ok\n")
        socket.flush()
        socket.disconnectFromServer()
