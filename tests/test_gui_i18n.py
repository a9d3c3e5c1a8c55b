"""The Simplified Chinese translation: complete, compiled, and loaded by the app."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

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
    from desktop.gui.resources import install_translators, remove_translators, resolve_language

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
        remove_translators(app, translators)


def test_the_catalogue_covers_every_string_of_the_gui(tmp_path) -> None:
    """``pyside6-lupdate`` over ``desktop/gui`` finds no string that the Chinese catalogue lacks or
    leaves unfinished (the same command the docs give for adding strings)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    folder = resources_dir() / "translations"
    lupdate = shutil.which("pyside6-lupdate") or str(Path(sys.executable).with_name("pyside6-lupdate"))
    assert Path(lupdate).exists() or shutil.which(lupdate), "pyside6-lupdate (PySide6-Essentials) is missing"
    copy = tmp_path / "shoebox_zh_CN.ts"
    copy.write_bytes((folder / "shoebox_zh_CN.ts").read_bytes())
    gui = sorted(str(p) for p in (Path(__file__).resolve().parents[1] / "desktop" / "gui").glob("*.py"))
    done = subprocess.run([lupdate, "-no-obsolete", *gui, "-ts", str(copy)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    unfinished = [m.find("source").text for m in ET.parse(copy).iter("message")
                  if m.find("translation").get("type") == "unfinished"]
    assert unfinished == [], f"strings missing from shoebox_zh_CN.ts (run pyside6-lupdate, translate): {unfinished}"
    assert "(0 new " in done.stdout


def test_chinese_ui_words_failures_notes_engine_notes_and_qt_dialogs_in_chinese(qtbot) -> None:
    """Failure reasons, page notes, the engine's fallback note and Qt's own file dialog, in the Chinese UI."""
    from desktop.core.diagnostics import Code, diag
    from desktop.core.engines import hunyuan_models
    from desktop.core.model import Document, PageResult
    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.notes import document_notes
    from desktop.gui.resources import install_translators, remove_translators

    app = QCoreApplication.instance()
    translators = install_translators(app, "zh_CN")
    try:
        # Qt's own dialogs: the qtbase catalogue is loaded beside ours
        assert QCoreApplication.translate("QFileDialog", "&Open") == "打开(&O)"
        assert QCoreApplication.translate("QFileDialog", "File &name:") != "File &name:"
        w = MainWindow(engine_factory=lambda notes: None, language="zh_CN")
        qtbot.addWidget(w)
        failed = Document(source="/scans/locked.pdf", error=diag(Code.PDF_ENCRYPTED))
        entry = w.model.add_document(failed)
        status = w.model.status_text(w.model.entry(entry))
        assert status == "失败：PDF 受密码保护"
        w.select_entry(entry)
        assert "PDF 受密码保护" in w.viewer.message and "password" not in w.viewer.message
        page = PageResult(1, 100, 100, warnings=[diag(Code.TURNED, degrees=90)])
        read = Document(source="/scans/a.png", document_type="receipt", page_results=[page],
                        notes=[diag(Code.PAGES_JOINED_EINVOICE)])
        texts = [n.text for n in document_notes(read, "zh_CN")]
        assert texts and all(re.search(r"[\u4e00-\u9fff]", t) for t in texts), texts
        # the engine fallback note, whatever the reason HunyuanOCR was not used
        _ok, reason = hunyuan_models.availability("/nowhere/HunyuanOCR", require_gpu=False)
        note = diag(Code.ENGINE_FALLBACK, reason=reason).message("zh")
        assert note.startswith("未使用 HunyuanOCR：") and "looked in" not in note and "missing" not in note
        w.close()
    finally:
        remove_translators(app, translators)


def _dialog_texts(dialog) -> set[str]:
    """Every text a file dialog shows: labels, buttons, tooltips, list entries, column headers,
    menu actions (its context menu's included) and the kind of each listed item."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QComboBox, QHeaderView, QLabel, QWidget

    out: set[str] = {dialog.windowTitle()}
    for w in dialog.findChildren(QWidget):
        if not w.isVisibleTo(dialog):
            continue
        out.add(w.toolTip())
        if isinstance(w, QLabel | QAbstractButton):
            out.add(w.text())
        if isinstance(w, QComboBox):
            out.update(w.itemText(i) for i in range(w.count()))
        if isinstance(w, QHeaderView):
            out.update(str(w.model().headerData(i, Qt.Orientation.Horizontal)) for i in range(w.count()))
        if isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView) and w.model() is not None:
            model, root = w.model(), w.rootIndex()
            for r in range(model.rowCount(root)):
                for c in range(model.columnCount(root)):
                    out.add(str(model.index(r, c, root).data(Qt.ItemDataRole.DisplayRole) or ""))
    for a in dialog.findChildren(QAction):
        out.update((a.text(), a.toolTip()))
    return {t for t in out if t}


def test_qt_file_dialog_in_chinese_shows_no_english(qtbot, tmp_path) -> None:
    """Qt's own file dialog in the Chinese UI: the labels Qt's zh_CN catalogue lacks ("Look in:",
    "Files of type:", the item kinds) come from ours (desktop/gui/qt_strings.py); nothing is English
    but the names of the files and the filter's patterns."""
    from PySide6.QtWidgets import QFileDialog

    from desktop.gui.resources import install_translators, remove_translators

    (tmp_path / "receipts").mkdir()
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4\n")
    app = QCoreApplication.instance()
    translators = install_translators(app, "zh_CN")
    try:
        dialog = QFileDialog(None, QCoreApplication.translate("QFileDialog", "Open"), str(tmp_path),
                             "单据 (*.pdf *.jpg);;所有文件 (*)")
        qtbot.addWidget(dialog)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setViewMode(QFileDialog.ViewMode.Detail)
        dialog.show()
        qtbot.wait_until(lambda: any("receipts" in t for t in _dialog_texts(dialog)), timeout=5000)
        texts = _dialog_texts(dialog)
        assert {"查找范围(&L)：", "文件类型(&T)：", "文件名称(&N)：", "文件夹"} <= texts, texts
        assert "PDF 文档" in texts  # the file's kind, from the MIME database in the UI's locale
        # a file's size is worded by Qt in the *system's* locale (QLocale::system(), "9 bytes" under
        # LANG=C, "9 字节" on a Chinese system), which no catalogue or default locale changes
        texts = {t for t in texts if not re.fullmatch(r"[\d.,]+ (bytes|[KMGT]i?B)", t)}
        allowed = {"receipts", "scan", "pdf", "jpg", "PDF"} | set(re.findall(r"[A-Za-z]+", str(tmp_path)))
        english = {t for t in texts if set(re.findall(r"[A-Za-z]{2,}", t)) - allowed}
        assert english == set(), english
        dialog.close()
    finally:
        remove_translators(app, translators)


#: Latin words the Chinese UI may show: product, format and key names, the English language's own name.
_NAMES = {"Shoebox", "PDF", "OCR", "PP", "HunyuanOCR", "CPU", "GPU", "AI", "QR", "XML", "OFD", "JSON", "CSV", "Excel",
          "xlsx", "json", "csv", "Markdown", "HTML", "API", "URL", "HTTP", "IBAN", "EUR", "USD", "CNY", "Ctrl", "Enter",
          "Shift", "Del", "Qt", "PySide", "Python", "English", "fake"}


def test_the_chinese_window_and_its_dialogs_show_no_english(qtbot, make_window, translated) -> None:
    """Every text of the main window (menus, toolbars, queue, form, notes, status bar, tooltips) and of
    the Settings and Vendors dialogs, on documents with failures, notes and flags, is Chinese but for
    names (of products, formats, keys, the documents' own values) and the English words a tooltip
    keeps for support (a failure's English message, a library's own words)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QHeaderView, QLabel, QLineEdit, QMenu, QTabWidget, QWidget

    from desktop.core.diagnostics import Code, diag, library_text
    from desktop.core.model import Document, Field, PageResult
    from desktop.gui.dialogs import SettingsDialog
    from desktop.gui.notes import document_notes

    translated("zh_CN")
    w = make_window(language="zh_CN")
    docs = [
        Document(source="/scans/receipt.jpg", document_type="receipt", pages=(1, 1), fields={
            "vendor_address": Field("vendor_address", value="1 MAIN ST", confidence=0.993, needs_review=True),
            "date": Field("date", value="2026-03-04", raw="03/04/26", confidence=0.9, problems=[
                diag(Code.AMBIGUOUS_DATE_ORDER, field="date", raw="03/04/26", order="DMY")]),
            "total": Field("total", value="12.30", confidence=0.9, problems=[
                diag(Code.SUBTOTAL_TOTAL_NO_TAX, field="total", subtotal="10.00", total="12.30", difference="2.30")]),
            "tax": Field("tax")},
            page_results=[PageResult(1, 100, 100, warnings=[diag(Code.TURNED, degrees=90)])],
            notes=[diag(Code.PAGES_JOINED_EINVOICE)],
            duplicate_of={"source": "/scans/earlier.jpg", "pages": [1, 1], "reason": "same file"}),
        Document(source="/scans/broken.jpg", error=diag(Code.IMAGE_DAMAGED, detail="image file is truncated")),
        Document(source="/scans/server.pdf", error=diag(Code.SERVER_DOWN_CPU, url="http://192.168.1.20:8000",
                                                        detail="connection refused")),
    ]
    support = {d.error.message("en") for d in docs if d.error} | {n.raw for d in docs for n in document_notes(d, "zh_CN")}
    support |= {t for d in docs if d.error for t in library_text(d.error)}
    values = {"MAIN", "ST", "receipt", "jpg", "broken", "server", "pdf", "earlier", "scans"}
    texts: dict[str, str] = {}

    def collect(root: QWidget, where: str) -> None:
        for x in [root, *root.findChildren(QWidget)]:
            if x is not root and not x.isVisibleTo(root):
                continue
            found = [x.toolTip(), x.windowTitle()]
            if isinstance(x, QLabel | QAbstractButton):
                found.append(x.text())
            if isinstance(x, QLineEdit):
                found.append(x.placeholderText())
            if isinstance(x, QComboBox):
                found += [x.itemText(i) for i in range(x.count())]
            if isinstance(x, QTabWidget):
                found += [x.tabText(i) for i in range(x.count())]
            if isinstance(x, QHeaderView) and x.model() is not None:
                found += [str(x.model().headerData(i, x.orientation()) or "") for i in range(x.count())]
            for a in x.actions():
                found += [a.text(), a.toolTip()]
            for t in found:
                if t:
                    texts.setdefault(t, f"{where}: {type(x).__name__}")
        for r in range(w.model.rowCount()):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                texts.setdefault(str(w.model.index(r, 0).data(role) or ""), "queue")
                texts.setdefault(str(w.model.index(r, 2).data(role) or ""), "queue")

    for doc in docs:
        w.select_entry(w.model.add_document(doc))
        qtbot.wait(50)
        collect(w, Path(doc.source).name)
    for menu in w.menuBar().findChildren(QMenu):
        for a in menu.actions():
            texts.setdefault(a.text(), "menu")
            texts.setdefault(a.toolTip(), "menu")
    settings = SettingsDialog(w.settings, w.language, w)
    qtbot.addWidget(settings)
    settings.show()
    collect(settings, "settings")
    vendors = w.vendors_dialog()
    if vendors is not None:
        collect(vendors, "vendors")
    english = {}
    for t, where in texts.items():
        lines = [ln for ln in t.splitlines() if ln not in support and not ln.startswith("/scans/")]
        words = set(re.findall(r"[A-Za-z]{2,}", re.sub(r"<[^>]+>|https?://\S+", " ", "\n".join(lines))))
        if words - _NAMES - values:
            english[t] = where
    assert english == {}, english
    assert len(texts) > 150 and vendors is not None


def test_a_failed_export_says_why_in_chinese(qtbot, make_window, translated, tmp_path, monkeypatch) -> None:
    """The reason an export could not be written (a missing folder, a full disk) is worded from its
    code in the UI's language, not the operating system's English."""
    from PySide6.QtWidgets import QMessageBox

    from desktop.core.model import Document, Field

    translated("zh_CN")
    w = make_window(language="zh_CN")
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: shown.append(f"{title}\n{text}"))
    doc = Document(source="/scans/r.jpg", document_type="receipt", pages=(1, 1), fields={"total": Field("total", "1.00")})
    assert not w.export_documents([doc], tmp_path / "missing" / "out.xlsx")
    (text,) = shown
    assert f"文件夹 {tmp_path / 'missing'} 不存在" in text and "does not exist" not in text, text


def test_export_in_the_chinese_ui_writes_a_chinese_workbook(qtbot, make_window, translated, tmp_path) -> None:
    """File > Export in the 简体中文 UI: the workbook's sheets, headers, field labels, status and problems in
    Chinese, its values as read; the same export from the English UI stays English."""
    import openpyxl

    from desktop.core.diagnostics import Code, diag
    from desktop.core.doctypes import get_document_type
    from desktop.core.model import Document, Field

    problem = diag(Code.SUM_MISMATCH, subtotal="9.00", tax="0.50", sum="9.50", total="10.00")
    doc = Document(source="/scans/r.jpg", document_type="receipt", pages=(1, 1), fields={
        "vendor_name": Field("vendor_name", "KEDAI", confidence=0.9),
        "date": Field("date", "2024-01-02", confidence=0.9),
        "total": Field("total", "10.00", confidence=0.9, problems=[problem])})
    translated("zh_CN")
    w = make_window(language="zh_CN")
    assert w.export_documents([doc], tmp_path / "zh.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "zh.xlsx")
    assert wb.sheetnames == ["单据", "明细", "问题"]
    ws = wb["单据"]
    row = dict(zip([c.value for c in ws[1]], [c for c in ws[2]], strict=True))
    assert row["单据类型"].value == "收据" and row["状态"].value == "未审核"
    assert row["价税合计"].value == 10.0 and row["价税合计"].number_format == "0.00"
    assert row["开票日期"].is_date
    total_label = {s.name: s.label_for("zh_CN") for s in get_document_type("receipt").field_specs()}["total"]
    problems = [list(r) for r in wb["问题"].iter_rows(values_only=True)]
    assert problems == [["源文件", "页码", "字段", "说明"], ["/scans/r.jpg", 1, total_label, problem.message("zh")]]
    assert w.export_documents([doc], tmp_path / "zh.csv")
    assert (tmp_path / "zh.csv").read_bytes().startswith("\ufeff源文件,页码,单据类型,状态".encode())

    english = make_window(language="en")
    assert english.export_documents([doc], tmp_path / "en.xlsx")
    assert openpyxl.load_workbook(tmp_path / "en.xlsx").sheetnames == ["Documents", "Line items", "Problems"]
