"""`shoebox serve` on an installation without the [serve] extra says what to install (no traceback)."""
from __future__ import annotations

import sys

import pytest


@pytest.mark.parametrize("argv", [["--port", "8799"], ["--host", "0.0.0.0", "--port", "8799"]])
def test_serve_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                          argv: list[str]) -> None:
    from desktop.service.cli import serve_main

    monkeypatch.setitem(sys.modules, "fastapi", None)  # "import fastapi" now fails as if not installed
    monkeypatch.delitem(sys.modules, "desktop.service.app", raising=False)
    assert serve_main(argv) == 2
    err = capsys.readouterr().err
    assert "[serve] extra" in err and "fastapi" in err and 'pip install "shoebox[serve]"' in err
    assert "Traceback" not in err
