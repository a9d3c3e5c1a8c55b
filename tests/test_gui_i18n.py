"""The Simplified Chinese translation: complete, compiled, and loaded by the app."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import QCoreApplication

from desktop.resources import resources_dir


def test_ts_is_complete_and_compiled() -> None:
    folder = resources_dir() / "translations"
    tree = ET.parse(folder / "shoebox_zh_CN.ts")
    messages = list(tree.iter("message"))
    assert len(messages) > 100
    unfinished = [m.find("source").text for m in messages if m.find("translation").get("type") == "unfinished"]
    assert unfinished == []
    qm = folder / "shoebox_zh_CN.qm"
    assert qm.is_file() and qm.stat().st_mtime >= (folder / "shoebox_zh_CN.ts").stat().st_mtime - 1


def test_chinese_ui(qtbot) -> None:
    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.resources import install_translators, resolve_language

    assert resolve_language("zh_CN") == "zh_CN" and resolve_language("en") == "en"
    app = QCoreApplication.instance()
    translators = install_translators(app, "zh_CN")
    try:
        assert translators, "translation did not load"
        w = MainWindow(engine_factory=lambda notes: None, language="zh_CN")
        qtbot.addWidget(w)
        titles = [a.text() for a in w.menuBar().actions()]
        assert titles[0] == "文件(&F)"
        assert w.type_combo.itemText(w.type_combo.findData("receipt")) == "收据"
        w.close()
    finally:
        for t in translators:
            app.removeTranslator(t)
