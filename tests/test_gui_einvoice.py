"""The desktop app on e-invoices: an OFD and an XML-only invoice shown, reviewed, with source chips."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from tests.einvoice_fixtures import ubl_xml
from tests.ofd_fixtures import DIGITAL, make_ofd
from tests.test_gui_window import ScriptedEngine as window_engine  # noqa: F401 - the conftest's make_window
from tests.test_gui_window import wait_read


def test_ofd_and_xml_invoices_shown_and_reviewed(qtbot, make_window, tmp_path: Path) -> None:
    ofd_path = make_ofd(tmp_path / "fapiao.ofd", xml=False, qr="vector")
    xml_path = tmp_path / "xrechnung.xml"
    xml_path.write_bytes(ubl_xml())
    w = make_window()
    first, second = w.add_paths([ofd_path, xml_path])
    wait_read(qtbot, w)

    w.select_entry(first)
    doc = w.model.entry(first).document
    assert doc.error is None and doc.document_type == "cn_vat_invoice"
    qtbot.waitUntil(lambda: w.viewer._pixmap_item is not None, timeout=10000)
    assert w.viewer.page is not None and w.viewer.line_items()  # text outlines from the page XML
    rows = w.form.rows
    assert rows["invoice_number"].edit.text() == DIGITAL["invoice_number"]
    assert rows["subtotal"].source.text() == "OFD text"
    assert rows["total"].source.text() == "QR"  # the 数电票 QR code's tax-inclusive total
    assert rows["invoice_type"].edit.text() == "电子发票（普通发票）"
    w.reviewed_action.trigger()
    assert w.model.entry(first).status == "reviewed"

    w.select_entry(second)
    doc = w.model.entry(second).document
    assert doc.document_type == "invoice" and doc.page_results[0].origin == "xml_view"
    qtbot.waitUntil(lambda: w.viewer._pixmap_item is not None, timeout=10000)
    rows = w.form.rows
    assert rows["total"].edit.text() == "1487.50" and rows["total"].source.text() == "e-invoice XML"
    assert rows["due_date"].edit.text() == "2025-04-13" and rows["iban"].source.text() == "e-invoice XML"
    assert not rows["total"].problems.isVisible()
    w.reviewed_action.trigger()
    assert w.model.entry(second).status == "reviewed"
