"""The office server in the window: the settings dialog's server options, and the engine state
(status bar) following the server's reachability."""
from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from desktop.core.settings import Settings
from desktop.gui.dialogs import SettingsDialog
from desktop.gui.worker import ReadWorker


def test_settings_dialog_edits_the_server_options(qtbot):
    dialog = SettingsDialog(Settings(server_url="http://10.0.0.2:8000/v1", server_max_in_flight=6))
    qtbot.addWidget(dialog)
    assert dialog.server_url.text() == "http://10.0.0.2:8000/v1" and dialog.server_in_flight.value() == 6
    assert not dialog.server_fallback.isChecked() and not dialog.server_public.isChecked()  # off by default
    dialog.engine.setCurrentIndex(dialog.engine.findData("server"))
    dialog.server_url.setText("  http://gpu-box:8000/v1 ")
    dialog.server_api_key.setText("key")
    dialog.server_fallback.setChecked(True)
    s = dialog.result_settings()
    assert (s.engine, s.server_url, s.server_api_key, s.server_cpu_fallback, s.server_allow_public) == (
        "server", "http://gpu-box:8000/v1", "key", True, False)
    assert dialog.server_api_key.echoMode() == dialog.server_api_key.EchoMode.Password


class _Engine:
    name = "server"
    connection_problem: str | None = None

    def describe(self) -> str:
        return "HunyuanOCR server: m at http://10.0.0.2:8000/v1"


def test_worker_reports_when_the_server_stops_and_starts_answering(qtbot):
    worker = ReadWorker(lambda notes: _Engine())
    engine = _Engine()
    seen: list[tuple[str, str]] = []
    worker.engine_state.connect(lambda state, text: seen.append((state, text)))
    worker._report_connection(engine)  # reachable, as before: nothing to say
    engine.connection_problem = "the office server at http://10.0.0.2:8000/v1 could not be reached: refused"
    worker._report_connection(engine)
    worker._report_connection(engine)  # said once
    engine.connection_problem = None
    worker._report_connection(engine)
    assert [s for s, _ in seen] == ["failed", "ready"]
    assert "Office server not reachable" in seen[0][1] and "could not be reached" in seen[0][1]
