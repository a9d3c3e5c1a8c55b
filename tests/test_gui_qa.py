"""Fixes from a QA run of the real app (X11 shortcuts, single instance, empty key fields, notes)."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtGui import QAction, QKeySequence  # noqa: E402


@pytest.fixture
def window(qtbot):
    from desktop.gui.mainwindow import MainWindow
    from tests.test_gui_window import ScriptedEngine

    w = MainWindow(engine_factory=lambda notes: ScriptedEngine())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


# ------------------------------------------------------------------------------------------ shortcuts
def test_unique_shortcuts_expands_and_deduplicates(qapp) -> None:
    from desktop.gui.mainwindow import unique_shortcuts

    keys = unique_shortcuts("Ctrl+Shift+Z", "Ctrl+Y", QKeySequence.StandardKey.Redo, "Ctrl+Y")
    assert len(keys) == len({k.toString() for k in keys})
    assert keys[:2] == [QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")]
    for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Redo):
        assert k in keys


def test_no_action_binds_a_key_twice(window) -> None:
    """A key bound twice (in one action or two) is ambiguous in Qt and then does nothing."""
    seen: dict[str, str] = {}
    for a in window.findChildren(QAction):
        keys = [k.toString() for k in a.shortcuts()]
        assert len(keys) == len(set(keys)), (a.text(), keys)
        for k in keys:
            assert k not in seen, f"{k} bound to both {seen[k]!r} and {a.text()!r}"
            seen[k] = a.text()
    redo = [k.toString() for k in window.redo_action.shortcuts()]
    assert "Ctrl+Shift+Z" in redo and "Ctrl+Y" in redo
    assert QKeySequence(QKeySequence.StandardKey.Undo) in window.undo_action.shortcuts()
