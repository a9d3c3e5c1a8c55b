"""Nothing the clerk must read is cut off: long names and addresses, a Chinese VAT invoice's 20-digit
check code, long queue statuses and failure reasons fit their widgets, in English and Chinese, at
100 % and at 200 % scale (``QT_SCALE_FACTOR=2``, in a child process: the scale is fixed per process).

What "fits" means per widget (:func:`clipped`):

* a one-line input (``QLineEdit``): the text's advance is within the input's contents rect less
  Qt's 2 px text margins and the buttons drawn inside it (clear, calendar);
* a wrapping input (:class:`desktop.gui.form.WrapEdit`): its last line ends inside the viewport,
  nothing is left to scroll, and no blank line is left under it;
* a word-wrapped label (the problems under a field, the summary): as tall as its text at its width;
* a queue row: its wrapped name and status lines end inside the row's rectangle;
* the status bar's engine label: as wide as its text.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QCoreApplication

from desktop.core.diagnostics import Code, diag
from desktop.core.model import Document, Field
from tests.fake_engines import FakeEngine

REPO = Path(__file__).resolve().parent.parent

LONG_VENDOR = "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD"
LONG_ADDRESS = "NO. 17-G, JALAN SETIA INDAH (X) U13/X, SETIA ALAM, SEKSYEN U13, 40170 SHAH ALAM, SELANGOR DARUL EHSAN"
CN_VENDOR = "天津瑞佳讯贸易有限公司天津市武清区京津电子商务产业园分公司"
CN_ADDRESS = "天津市武清区京津电子商务产业园宏达道北侧2号 022-57807000 中国建设银行股份有限公司天津武清支行"
CHECK_CODE = "76939056883466677916"


def documents() -> list[Document]:
    """A receipt and a VAT invoice with long values, and a file that failed for a long reason."""
    receipt = Document(source="/scans/a-receipt-with-a-rather-long-file-name-from-the-phone-20261201.jpg",
                       document_type="receipt", pages=(1, 1), fields={
                           "vendor_name": Field("vendor_name", value=LONG_VENDOR, confidence=0.55, needs_review=True),
                           "vendor_address": Field("vendor_address", value=LONG_ADDRESS, confidence=0.9),
                           "total": Field("total", value="1234567.89", confidence=0.9, problems=[
                               diag(Code.SUBTOTAL_TOTAL_NO_TAX, field="total", subtotal="96.72", total="1234567.89",
                                    difference="1234471.17")]),
                       })
    vat = Document(source="/scans/vat_einvoice_tianjin.png", document_type="cn_vat_invoice", pages=(1, 1), fields={
        "check_code": Field("check_code", value=CHECK_CODE, confidence=1.0, source="qr"),
        "vendor_name": Field("vendor_name", value=CN_VENDOR, confidence=0.9),
        "vendor_address": Field("vendor_address", value=CN_ADDRESS, confidence=0.9),
        "vendor_tax_id": Field("vendor_tax_id", value="91120222079642398Y", confidence=0.9),
        "buyer_tax_id": Field("buyer_tax_id", value="91110108MA01XXXX7Q", confidence=0.9),
        "invoice_code": Field("invoice_code", value="012001800311", confidence=1.0, source="qr"),
    })
    failed = Document(source="/scans/broken.pdf", error=diag(Code.PDF_CONTENT_LOST, detail="zlib error: incorrect "
                                                                                             "header check in object 12"))
    return [receipt, vat, failed]


def clipped(window) -> list[str]:
    """What is cut off in ``window`` as it is shown now (one line per widget; empty when all fits)."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QLineEdit, QToolButton

    from desktop.gui.form import WrapEdit
    from desktop.gui.queue import STATUS_ROLE

    out: list[str] = []
    for name, row in window.form.rows.items():
        edit = row.edit
        if isinstance(edit, QLineEdit):
            buttons = [c for c in edit.findChildren(QToolButton) if c.isVisibleTo(edit)]
            room = edit.contentsRect().width() - 2 * 2 - edit.textMargins().left() - edit.textMargins().right()
            room -= sum(b.width() for b in buttons)
            need = edit.fontMetrics().horizontalAdvance(edit.text())
            if need > room:
                out.append(f"{name}: {need} px of text in {room} px")
        elif isinstance(edit, WrapEdit):
            last = edit.document().lastBlock()
            bottom = edit.blockBoundingGeometry(last).translated(edit.contentOffset()).bottom()
            if bottom > edit.viewport().height() + 0.5 or edit.verticalScrollBar().maximum() > 0:
                out.append(f"{name}: text {bottom:.0f} px tall in {edit.viewport().height()} px")
            elif edit.viewport().height() - bottom > 0.75 * edit.fontMetrics().lineSpacing():
                out.append(f"{name}: a blank line under the text ({bottom:.0f} px in {edit.viewport().height()} px)")
        if row.problems.isVisibleTo(window) and row.problems.heightForWidth(row.problems.width()) > row.problems.height():
            out.append(f"{name} problems: cut off")
    summary = window.summary_label
    if summary.isVisibleTo(window) and summary.heightForWidth(summary.width()) > summary.height():
        out.append("summary: cut off")
    view, delegate = window.queue_view, window.queue_view.itemDelegate()
    font = view.font()
    for r in range(window.model.rowCount()):
        index = window.model.index(r, 0)
        rect = view.visualRect(index)
        width = delegate._text_width(rect.width(), index.data(STATUS_ROLE) or "")
        name_rect, second_rect, _name, second = delegate.text_layout(font, width, index)
        if second_rect.bottom() + 8 > rect.height() or max(name_rect.width(), second_rect.width()) > width:
            out.append(f"queue row {r}: {second!r} needs {second_rect.bottom() + 8} px, row is {rect.height()}")
        if not QRect(0, 0, width, 10_000).contains(second_rect):
            out.append(f"queue row {r}: wider than the queue")
    engine = window.engine_label
    if engine.fontMetrics().horizontalAdvance(engine.text()) > engine.contentsRect().width():
        out.append(f"engine label: {engine.text()!r} cut off")
    return out


def check_all(language: str) -> dict[str, list[str]]:
    """Open a window in ``language`` on :func:`documents`, show each, and collect :func:`clipped`."""
    from PySide6.QtWidgets import QApplication

    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.resources import install_translators

    app = QApplication.instance() or QApplication([])
    translators = install_translators(app, language) if language != "en" else []
    try:
        window = MainWindow(engine_factory=lambda notes: FakeEngine([]), language=language)
        window.resize(1280, 800)
        window.show()
        window.engine_label.show_state("ready", "ppocr rapidocr 3.10.0 (CPU)", "ppocr", "cpu")
        found: dict[str, list[str]] = {}
        for doc in documents():
            entry_id = window.model.add_document(doc)
            window.select_entry(entry_id)
            for _ in range(3):  # layouts settle over a few event-loop turns
                app.processEvents()
            found[Path(doc.source).name] = clipped(window)
        window.close()
        window.shutdown()
        return found
    finally:
        for t in translators:
            app.removeTranslator(t)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_nothing_is_cut_off_at_100_percent(qtbot, language: str) -> None:
    found = check_all(language)
    assert found == {name: [] for name in found}


def test_nothing_is_cut_off_at_200_percent(tmp_path: Path) -> None:
    env = {**os.environ, "QT_SCALE_FACTOR": "2", "QT_QPA_PLATFORM": "offscreen", "SHOEBOX_HOME": str(tmp_path),
           "PYTHONPATH": str(REPO)}
    code = ("import json, sys; from tests.test_gui_fit import check_all; "
            "print(json.dumps({lang: check_all(lang) for lang in ('en', 'zh_CN')}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {lang: {name: [] for name in docs} for lang, docs in found.items()}
    assert set(found) == {"en", "zh_CN"} and all(len(docs) == 3 for docs in found.values())


def test_the_check_sees_a_clipped_value(qtbot) -> None:
    """The check can fail: the same window with the old fixed-width, one-line inputs is caught."""
    from desktop.gui.mainwindow import MainWindow

    window = MainWindow(engine_factory=lambda notes: FakeEngine([]))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    window.select_entry(window.model.add_document(documents()[1]))
    QCoreApplication.processEvents()
    edit = window.form.rows["check_code"].edit
    edit.setMinimumWidth(0)
    edit.setMaximumWidth(120)
    QCoreApplication.processEvents()
    assert any(line.startswith("check_code:") for line in clipped(window))
    window.close()
