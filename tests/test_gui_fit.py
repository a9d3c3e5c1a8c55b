"""Nothing the clerk must read is cut off: long names and addresses, a Chinese VAT invoice's 20-digit
check code, long queue statuses and failure reasons fit their widgets, in English and Chinese, at
100 % and at 200 % scale (``QT_SCALE_FACTOR=2``, in a child process: the scale is fixed per process).

What "fits" means per widget (:func:`clipped`):

* a one-line input (``QLineEdit``): the text's advance is within the input's contents rect less
  Qt's 2 px text margins and the buttons drawn inside it (clear, calendar);
* a wrapping input (:class:`desktop.gui.form.WrapEdit`): its last line ends inside the viewport,
  nothing is left to scroll, and no blank line is left under it;
* a word-wrapped label (the problems under a field, the summary): as tall as its text at its width;
* a queue row: painted through its delegate (:class:`RecordingPainter`), every text it draws, as the
  painter itself lays it out, lies inside the rectangle it is drawn into, and that rectangle inside
  the row; the row lies inside the view's viewport; the file name is drawn on the lines the delegate
  broke it into (Qt wraps none of them again, which would break a word anywhere), and a name whose
  every part fits a line breaks only after ``_``, ``-``, ``.`` or a space. :func:`queue_sweep` does this at every queue
  width from 200 to 400 px in 1 px steps (with and without a vertical scroll bar), because a
  mismatch between the width a text is measured at and the width it is drawn into shows only at
  some widths (a status that lost its last character at 265-280 px, not at the widths tried);
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

from PySide6.QtCore import QCoreApplication, QRect, QRectF
from PySide6.QtGui import QImage, QPainter

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


QA_NAME = "nl_vandijk_factuur_scan.pdf"
"""A file name QA saw wrapped as ``nl_vandijk_factuur_scan.pd`` / ``f``: each of its parts fits a line
at every queue width swept, so it must break only after ``_``, ``-``, ``.`` or a space (not before its
suffix, ``.pdf``)."""


def queue_documents() -> list[Document]:
    """Rows for the queue sweep: long failure reasons, possible duplicates of each type, mixed
    Latin/Chinese file names (where Qt's line breaking is least regular)."""
    out = []
    for doc_type, name in (("invoice", QA_NAME), ("receipt", "WeChat Image_20261201093112（副本）.jpg"),
                           ("cn_vat_invoice", "发票_天津瑞佳讯贸易有限公司_2026年12月（2）.pdf"), (None, "scan（2）.pdf")):
        out.append(Document(source=f"/scans/{name}", document_type=doc_type, pages=(1, 1),
                            fields={"total": Field("total", value="12.30", confidence=0.5, needs_review=True)},
                            duplicate_of={"source": "/scans/earlier.jpg", "pages": [1, 1], "reason": "same file"}))
    for name, code, params in (
            ("WeChat Image_20261201.pdf天津瑞佳讯贸易有限公司（2）.png", Code.IMAGE_DAMAGED,
             {"detail": "image file is truncated (17 bytes not processed)"}),
            ("scan-0042.pdf", Code.SERVER_DOWN_CPU, {"url": "http://192.168.1.20:8000", "detail": "connection refused"})):
        out.append(Document(source=f"/scans/{name}", error=diag(code, **params)))
    return out


def clipped(window) -> list[str]:
    """What is cut off in ``window`` as it is shown now (one line per widget; empty when all fits)."""
    from PySide6.QtWidgets import QLineEdit, QToolButton

    from desktop.gui.form import WrapEdit

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
        for line, label in (("problems", row.problems), ("reason", row.reason)):
            if label.isVisibleTo(window) and label.heightForWidth(label.width()) > label.height():
                out.append(f"{name} {line}: cut off")
    summary = window.summary_label
    if summary.isVisibleTo(window) and summary.heightForWidth(summary.width()) > summary.height():
        out.append("summary: cut off")
    view = window.queue_view
    viewport = view.viewport().rect()
    for r in range(window.model.rowCount()):
        rect = view.visualRect(window.model.index(r, 0))
        if rect.left() < viewport.left() or rect.right() > viewport.right():
            out.append(f"queue row {r}: {rect.width()} px wide in a {viewport.width()} px viewport")
        out += queue_row_clipped(view, r, rect.width(), height=rect.height())
    engine = window.engine_label
    if engine.fontMetrics().horizontalAdvance(engine.text()) > engine.contentsRect().width():
        out.append(f"engine label: {engine.text()!r} cut off")
    return out


class RecordingPainter(QPainter):
    """A painter that keeps, for each text drawn into a rectangle, ``(rectangle, text, drawn)``:
    ``drawn`` is the bounding rectangle of the text as this painter laid it out (taller than the
    rectangle when the text wrapped onto more lines than fit: the rest is clipped)."""

    def __init__(self, device) -> None:
        super().__init__(device)
        self.texts: list[tuple[QRect, str, QRect]] = []

    def drawText(self, *args):
        if len(args) == 3 and isinstance(args[0], QRect | QRectF) and isinstance(args[2], str):
            drawn = super().drawText(*args)
            rect = args[0] if isinstance(args[0], QRect) else args[0].toAlignedRect()
            self.texts.append((QRect(rect), args[2], QRect(drawn)))
            return drawn
        return super().drawText(*args)


def queue_row_clipped(view, row: int, width: int, height: int | None = None) -> list[str]:
    """Paint queue row ``row`` ``width`` px wide (and ``height`` px tall, else as tall as its delegate
    asks for at that width) into an image at the view's device pixel ratio; what it draws outside
    the rectangle it draws into, or outside the row."""
    from PySide6.QtWidgets import QStyleOptionViewItem

    delegate, index = view.itemDelegate(), view.model().index(row, 0)
    height = delegate.row_height(view.font(), width, index) if height is None else height
    ratio = view.devicePixelRatioF()
    image = QImage(int(width * ratio) + 1, int(height * ratio) + 1, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    painter = RecordingPainter(image)
    option = QStyleOptionViewItem()
    option.initFrom(view)
    option.rect, option.font, option.widget = QRect(0, 0, width, height), view.font(), view
    delegate.paint(painter, option, index)
    painter.end()
    row_rect, out = QRect(0, 0, width, height), []
    for rect, text, drawn in painter.texts:
        if not rect.contains(drawn) or not row_rect.contains(rect):
            out.append(f"queue row {row} at {width} px: {text!r} needs {drawn.width()}x{drawn.height()} px, drawn "
                       f"into {rect.width()}x{rect.height()} in a {width}x{height} row")
    name = index.data()  # the file name as the model gives it, on one line
    drawn_names = [t for t in painter.texts if t[1].replace("\n", "") == name]
    if len(drawn_names) != 1:
        return [*out, f"queue row {row} at {width} px: the name {name!r} drawn {len(drawn_names)} times"]
    return out + name_wrapped_mid_word(view, row, width, drawn_names[0])


def name_wrapped_mid_word(view, row: int, width: int, drawn_name: tuple[QRect, str, QRect]) -> list[str]:
    """What is wrong with the file name as the row drew it (``drawn_name``): Qt wrapped one of its
    lines again (drawn taller than its lines unwrapped: a break the delegate did not choose, anywhere
    in a word), or :data:`QA_NAME` broke other than after ``_ - .`` or a space."""
    from PySide6.QtGui import QFont, QFontMetrics

    rect, text, drawn = drawn_name
    bold = QFont(view.font())
    bold.setBold(True)
    unwrapped = QFontMetrics(bold).boundingRect(QRect(0, 0, 100_000, 10_000), 0, text)
    out = []
    if drawn.height() > unwrapped.height():
        out.append(f"queue row {row} at {width} px: name {text!r} wrapped again by Qt "
                   f"({drawn.height()} px tall, its lines {unwrapped.height()} px)")
    lines = text.split("\n")
    if text.replace("\n", "") == QA_NAME and (any(line[-1] not in "_-. " for line in lines[:-1])
                                              or not lines[-1].endswith("scan.pdf")):
        out.append(f"queue row {row} at {width} px: {QA_NAME!r} broken mid-word as {lines!r}")
    return out


QUEUE_WIDTHS = range(200, 401)
"""Queue widths swept, in logical pixels (1 px steps)."""


def queue_sweep(window, widths: range = QUEUE_WIDTHS) -> list[str]:
    """:func:`queue_row_clipped` for every row at every queue width in ``widths``: the row is as wide
    as the view's viewport (the view less its frame), with and without a vertical scroll bar."""
    view = window.queue_view
    frame = 2 * view.frameWidth()
    bar = view.style().pixelMetric(view.style().PixelMetric.PM_ScrollBarExtent, None, view)
    row_widths = sorted({w - frame - b for w in widths for b in (0, bar)})
    return [line for row_width in row_widths for r in range(window.model.rowCount())
            for line in queue_row_clipped(view, r, max(row_width, 1))]


def check_all(language: str) -> dict[str, list[str]]:
    """Open a window in ``language`` on :func:`documents`, show each, and collect :func:`clipped`."""
    from PySide6.QtWidgets import QApplication

    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.resources import install_translators, remove_translators

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
        for doc in queue_documents():
            window.model.add_document(doc)
        app.processEvents()
        # the real view at a few widths (its frame, a scroll bar once the rows overflow)...
        for width in (240, 265, 272, 280, 300):
            window.queue_view.setFixedWidth(width)
            for _ in range(3):
                app.processEvents()
            found[f"queue at {width} px"] = clipped(window)
        # ...and every row painted at every width
        found["queue sweep"] = queue_sweep(window)
        window.close()
        window.shutdown()
        return found
    finally:
        remove_translators(app, translators)


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
    assert set(found) == {"en", "zh_CN"} and all(len(docs) == 3 + 5 + 1 for docs in found.values())


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


def test_the_queue_sweep_sees_text_drawn_narrower_than_it_was_measured(qtbot, monkeypatch) -> None:
    """The sweep can fail: a delegate that draws each text 1 px narrower than the width it measured
    it at (as the old one drew into the text's tight bounding rectangle, which re-wraps mixed
    Latin/Chinese text such as ``WeChat Image_20261201.pdf天津…（2）.png`` at 267-276 px) loses a
    line or a character at some widths, and the sweep names them."""
    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.queue import QueueDelegate

    window = MainWindow(engine_factory=lambda notes: FakeEngine([]))
    qtbot.addWidget(window)
    for doc in queue_documents():
        window.model.add_document(doc)
    assert queue_sweep(window) == []
    measured = QueueDelegate.text_layout

    def narrower(self, font, width, index):
        name_rect, second_rect, name, second = measured(self, font, width, index)
        return name_rect.adjusted(0, 0, -1, 0), second_rect.adjusted(0, 0, -1, 0), name, second

    monkeypatch.setattr(QueueDelegate, "text_layout", narrower)
    found = [line for line in queue_sweep(window) if "wrapped again by Qt" not in line]  # the name, too
    assert found and all(" needs " in line for line in found)
    assert len({line.split(" px:")[0] for line in found}) < len(QUEUE_WIDTHS)  # at some widths, not all
    window.close()


def test_the_queue_sweep_sees_a_name_wrapped_anywhere(qtbot, monkeypatch) -> None:
    """The sweep can fail: a delegate that leaves the file name to Qt's wrapping anywhere (as before,
    ``nl_vandijk_factuur_scan.pd`` / ``f``) is caught at the widths where it breaks a word."""
    from desktop.gui.mainwindow import MainWindow
    from desktop.gui.queue import QueueDelegate

    window = MainWindow(engine_factory=lambda notes: FakeEngine([]))
    qtbot.addWidget(window)
    window.model.add_document(queue_documents()[0])
    monkeypatch.setattr(QueueDelegate, "name_lines", lambda self, font, width, name: name)
    found = queue_sweep(window)
    assert found and all("wrapped again by Qt" in line for line in found)
    assert any(QA_NAME in line for line in found)
    window.close()


@pytest.mark.parametrize(("name", "room", "lines"), [
    ("nl_vandijk_factuur_scan.pdf", 24, ["nl_vandijk_factuur_", "scan.pdf"]),  # the suffix stays on its word
    ("nl_vandijk_factuur_scan.pdf", 12, ["nl_vandijk_", "factuur_", "scan.pdf"]),
    ("fr_vernier_2pages_one_invoice.pdf (p. 1–2)", 24, ["fr_vernier_2pages_one_", "invoice.pdf (p. 1–2)"]),
    ("scan-0042.pdf", 8, ["scan-", "0042.pdf"]),
    ("IMG 2026.12.01.jpeg", 10, ["IMG 2026.", "12.01.jpeg"]),
    ("20261201093112.jpg", 6, ["202612", "010931", "12.jpg"]),  # a part wider than a line: anywhere
    ("发票_天津瑞佳讯.pdf", 6, ["发票_天津瑞", "佳讯.pdf"]),  # between Chinese characters, as Chinese wraps
    ("scan（2）.pdf", 8, ["scan", "（2）.pdf"]),
    ("a.jpg", 40, ["a.jpg"]),
    ("", 5, [""]),
])
def test_wrap_file_name(name: str, room: int, lines: list[str]) -> None:
    from desktop.gui.queue import wrap_file_name

    assert wrap_file_name(name, lambda text: len(text) <= room) == lines
