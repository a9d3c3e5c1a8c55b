"""The main window fits the screen it opens on: a first start, a geometry saved at another scale, a
geometry larger than the screen (fresh-QA finding: a fixed 1440 x 900 window on a 1366 x 768 screen hid
the Mark reviewed button, the confidence column and the status bar)."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


def _window(qtbot):
    from desktop.gui.mainwindow import MainWindow
    from tests.fake_engines import FakeEngine

    w = MainWindow(engine_factory=lambda notes: FakeEngine([]))
    qtbot.addWidget(w)
    return w


def _inside(w) -> bool:
    area = w.screen().availableGeometry()
    maximised = bool(w.windowState() & w.windowState().WindowMaximized)
    return maximised or area.contains(w.frameGeometry())


def test_first_start_fits_the_screen(qtbot) -> None:
    w = _window(qtbot)
    area = w.screen().availableGeometry()
    assert _inside(w), (w.frameGeometry(), area)
    if area.width() >= 1500 and area.height() >= 960:  # room for the default size: it is used
        assert (w.width(), w.height()) == (1440, 900)


def test_a_geometry_saved_larger_than_the_screen_is_fitted(qtbot) -> None:
    w = _window(qtbot)
    area = w.screen().availableGeometry()
    w.resize(area.width() + 600, area.height() + 400)
    w.move(area.x() + 300, area.y() + 200)
    w.close()  # saves the geometry
    again = _window(qtbot)
    assert _inside(again), (again.frameGeometry(), area)


def test_a_geometry_saved_at_another_scale_is_not_restored(qtbot) -> None:
    from PySide6.QtCore import QSize

    w = _window(qtbot)
    w.resize(420, 300)  # a window that filled a screen at 200 % comes back half as large at 100 %
    w.close()  # saves the geometry
    qs = w._qsettings()
    qs.setValue("scale", "2" if w._scale_key() != "2" else "1")
    qs.sync()
    again = _window(qtbot)
    area = again.screen().availableGeometry()
    expected = QSize(min(1440, area.width()), min(900, area.height()))
    assert again.width() >= min(expected.width(), 421) and again.height() >= min(expected.height(), 301)
    assert (again.width(), again.height()) != (420, 300)
    assert _inside(again)


def test_the_same_scale_restores_the_saved_size(qtbot) -> None:
    w = _window(qtbot)
    w.resize(700, 500)
    w.close()  # saves the geometry
    again = _window(qtbot)
    assert (again.width(), again.height()) == (700, 500)
