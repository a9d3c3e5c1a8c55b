"""What the clerk sees: the subtotal/total warning, the same fields counted by the queue badge, the
form and the xlsx Problems sheet, the engine named in a clerk's words, a zoom that reads naturally
for PDF pages, and the page picture at once after a restart (a preview stored with the session)."""
from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import QCoreApplication

from desktop.core.diagnostics import Code, diag
from desktop.core.model import Document, Field, PageResult
from tests.fake_engines import FakeEngine

WINDOW_SIZE = (1280, 800)  # the conftest's make_window


def window_engine() -> FakeEngine:
    return FakeEngine([])


def receipt(**fields: Field) -> Document:
    return Document(source="/scans/r.jpg", document_type="receipt", pages=(1, 1), fields=dict(fields))


# ------------------------------------------------------------------------------ subtotal and total
def test_subtotal_and_total_disagree_without_tax_is_a_clear_warning(make_window) -> None:
    w = make_window()
    doc = receipt(vendor_name=Field("vendor_name", value="KEDAI MAJU", confidence=0.95),
                  date=Field("date", value="2026-11-30", confidence=0.95),
                  subtotal=Field("subtotal", value="96.72", confidence=0.95),
                  tax=Field("tax", value="15.48", confidence=0.95),
                  total=Field("total", value="112.20", confidence=0.95))
    w.select_entry(w.model.add_document(doc))
    assert not w.form.rows["total"].problems.isVisibleTo(w.form)
    w.commit_field("tax", "")  # the clerk clears the tax: subtotal + tax = total can no longer hold
    after = w.current_document()
    assert [p.code for p in after.fields["total"].problems] == [Code.SUBTOTAL_TOTAL_NO_TAX]
    row = w.form.rows["total"]
    assert row.problems.isVisibleTo(w.form)
    assert "subtotal 96.72 and total 112.20 differ by 15.48 and no tax was read" in row.problems.text()
    assert row.edit.property("problem")
    assert "1 field" in w.summary_label.text()  # ("1 field to check" once the English plurals are loaded)
    assert after.fields["total"].problems[0].message("zh").startswith("金额 96.72 与合计 112.20 相差 15.48，但没有读到税额")


# ------------------------------------------------------------------------- one count, three places
def test_badge_form_and_problems_sheet_count_exactly_the_flagged_fields(make_window, tmp_path) -> None:
    """The queue badge, the fields the form tints and the xlsx Problems sheet's field rows are the
    same fields, for every way a field gets flagged (a failed check, low confidence, an empty key
    field, a key field absent) and every way it does not (edited by the clerk, confident)."""
    import openpyxl

    from desktop.core import flags
    from desktop.core.doctypes import canonical_fields
    from desktop.gui.queue import ATTENTION_ROLE

    docs = [
        receipt(vendor_name=Field("vendor_name", value="KEDAI", confidence=0.4, needs_review=True),
                date=Field("date", value="2026-13-40", confidence=0.9, problems=[diag(Code.IMPOSSIBLE_MONTH, month=13)]),
                total=Field("total", value="10.00", confidence=0.95, problems=[
                    diag(Code.SUBTOTAL_TOTAL_NO_TAX, field="total", subtotal="9.00", total="10.00", difference="1.00")]),
                subtotal=Field("subtotal", value="9.00", confidence=0.95)),
        receipt(vendor_name=Field("vendor_name", value="TYPED", confidence=1.0, source="user", edited=True),
                date=Field("date", value=None, confidence=0.0)),  # empty key field; total absent
        receipt(vendor_name=Field("vendor_name", value="SHOP", confidence=0.97),
                date=Field("date", value="2026-11-30", confidence=0.97),
                total=Field("total", value="5.00", confidence=0.97)),
    ]
    docs = [Document.from_dict({**d.to_dict(), "source": f"/scans/r{i}.jpg"}) for i, d in enumerate(docs)]
    w = make_window()
    ids = [w.model.add_document(d) for d in docs]
    labels = {name: spec.label_for("en") for name, spec in canonical_fields().items()}
    out = tmp_path / "out.xlsx"
    assert w.export_documents(docs, out)
    wb = openpyxl.load_workbook(out, read_only=True)
    sheet_rows = [r for r in wb["Problems"].iter_rows(min_row=2, values_only=True)]
    wb.close()
    seen_any = 0
    for entry_id, doc in zip(ids, docs, strict=True):
        w.select_entry(entry_id)
        QCoreApplication.processEvents()
        badge = w.model.data(w.model.index(w.model.row_of(entry_id), 0), ATTENTION_ROLE)
        tinted = sorted(name for name, r in w.form.rows.items()
                        if r.edit.property("problem") or r.edit.property("low") or r.badge.text() == "empty")
        in_sheet = sorted(field for source, _pages, field, _msg in sheet_rows if source == doc.source and field)
        flagged = sorted(flags.flagged_fields(doc))
        assert badge == len(flagged) == len(in_sheet) == len(tinted), (doc.source, badge, flagged, in_sheet, tinted)
        assert in_sheet == sorted(labels[n] for n in flagged) and tinted == flagged
        seen_any += badge
    assert [len(flags.flagged_fields(d)) for d in docs] == [3, 2, 0] and seen_any == 5


# ------------------------------------------------------------------------------------ engine words
def test_the_status_bar_names_the_engine_in_a_clerks_words(qtbot) -> None:
    from desktop.gui.engine_label import EngineLabel

    label = EngineLabel()
    qtbot.addWidget(label)
    details = "ppocr rapidocr 3.10.0 (PP-OCRv6_det_small + PP-OCRv6_rec_small + ch_ppocr_mobile_v2.0_cls_mobile) (CPU)"
    label.show_state("ready", details, "ppocr", "cpu", notes=["HunyuanOCR is not set up on this computer"])
    assert label.text() == "Standard OCR on this computer · ready"
    assert details in label.toolTip() and "not set up" in label.toolTip()
    label.show_state("ready", "HunyuanOCR (CUDA, bfloat16)", "hunyuan", "cuda:0")
    assert label.text() == "HunyuanOCR AI model on the graphics card · ready"
    label.show_state("ready", "HunyuanOCR server: office-gpu", "server", "remote")
    assert label.text() == "HunyuanOCR on the office server · ready"
    label.show_state("loading", "PP-OCR", "ppocr", "cpu")
    assert label.text() == "Starting: Standard OCR on this computer…"


# ------------------------------------------------------------------------------------------- zoom
def test_zoom_reads_as_the_papers_size_for_a_pdf_page(qtbot) -> None:
    from desktop.gui.viewer import SCREEN_DPI, PageViewer

    v = PageViewer()
    qtbot.addWidget(v)
    v.resize(700, 900)
    v.show()
    shown: list[float] = []
    v.zoom_changed.connect(shown.append)
    a4 = PageResult(1, 1654, 2339, dpi=200.0)  # A4 rendered at 200 dpi
    v.set_page(None, a4)
    v.zoom_actual()
    assert v.zoom_factor() == pytest.approx(SCREEN_DPI / 200.0) and shown[-1] == pytest.approx(1.0)
    assert v.is_paper()
    v.zoom_in()
    assert shown[-1] == pytest.approx(1.25)
    # the same page rendered at another resolution reads the same at the same size on screen
    v.set_page(None, PageResult(1, 2481, 3508, dpi=300.0))
    v.zoom_actual()
    assert v.zoom_factor() * 2481 == pytest.approx(SCREEN_DPI / 200.0 * 1654, rel=0.01)
    # an image: 100 % is one image pixel per screen pixel
    v.set_page(None, PageResult(1, 800, 1200))
    v.zoom_actual()
    assert not v.is_paper() and v.zoom_factor() == pytest.approx(1 / max(1.0, v.devicePixelRatioF()))


# ----------------------------------------------------------------------------- preview on restart
def _png(path: Path) -> Path:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (600, 900), "white")
    ImageDraw.Draw(img).rectangle((60, 60, 540, 160), fill=(200, 30, 30))
    img.save(path)
    return path


def test_the_page_appears_at_once_after_a_restart(qtbot, make_window, tmp_path, monkeypatch) -> None:
    importlib.import_module("desktop.core.pipeline")  # part of the product: never a skip
    from desktop.gui.worker import ImageLoader

    page = {"width": 600, "height": 900, "lines": [{"text": "KEDAI MAJU", "box": [60, 60, 540, 160], "confidence": 0.9}]}
    w = make_window(FakeEngine([page]))
    (entry_id,) = w.add_paths([_png(tmp_path / "a.png")])
    qtbot.waitUntil(lambda: not w.is_busy() and w.viewer._pixmap_item is not None, timeout=30000)
    qtbot.waitUntil(lambda: w.store.has_preview(str((tmp_path / "a.png").resolve()), 1, 0), timeout=5000)
    w.close()
    w.shutdown()

    # the next start cannot open page pictures at all: what appears comes from the session
    monkeypatch.setattr(ImageLoader, "load", lambda self, *args: None)
    started = time.monotonic()
    w2 = make_window()
    entry = w2.model.entry(w2.model.entries()[0].id)
    assert entry.thumbnail is not None and not entry.thumbnail.isNull()
    w2.select_entry(entry.id)
    assert w2.viewer._pixmap_item is not None, "only outlines after a restart"
    assert time.monotonic() - started < 5
    image = w2.viewer._pixmap_item.pixmap().toImage()
    red = image.pixelColor(image.width() // 2, int(image.height() * 110 / 900))
    assert red.red() > 150 and red.green() < 90  # the page's own picture, not a blank sheet
    assert [i.text for i in w2.viewer.line_items()] == ["KEDAI MAJU"]

    # a file changed since is not shown from its stale preview
    w2.close()
    w2.shutdown()
    os.utime(tmp_path / "a.png", ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    w3 = make_window()
    w3.select_entry(w3.model.entries()[0].id)
    assert w3.viewer._pixmap_item is None and w3.model.entries()[0].thumbnail is None


# ------------------------------------------------------------------ plain words for a flag, an empty amount

@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_sure_but_flagged_value_and_an_empty_amount_read_plainly(make_window, translated, language) -> None:
    """A value flagged by its field's own review threshold (above 99 % for a receipt's address) shows
    its confidence like any other value, and the line under it says why "99%" is not enough; a low one
    shows its percentage and its reason the same way; an empty Tax field shows no grey "0.00" that
    would read as a tax of zero."""
    import re

    translated(language)
    w = make_window(language=language)
    doc = receipt(vendor_address=Field("vendor_address", value="1 MAIN ST", confidence=0.993, needs_review=True,
                                       review_threshold=0.9995),
                  total=Field("total", value="12.30", confidence=0.45, needs_review=True, review_threshold=0.6),
                  tax=Field("tax"))
    w.select_entry(w.model.add_document(doc))
    rows = w.form.rows
    address = rows["vendor_address"]
    assert address.badge.text() == "99%"
    # the reason as the Problems sheet words it: the confidence and the threshold it is below
    why = {"en": "confidence 99%, below the 100% needed to pass unchecked", "zh_CN": "置信度 99%，低于免核对所需的 100%"}
    assert address.reason.text() == why[language] and address.reason.isVisibleTo(w.form)
    assert why[language] in address.badge.toolTip()
    assert rows["total"].badge.text() == "45%"
    assert rows["total"].reason.text() == {"en": "confidence 45%, below the 60% needed to pass unchecked",
                                           "zh_CN": "置信度 45%，低于免核对所需的 60%"}[language]
    hint = rows["tax"].edit.placeholderText()
    assert rows["tax"].edit.text() == "" and hint and not re.fullmatch(r"[\d.,\s]*", hint)
    assert {"en": "amount", "zh_CN": "金额"}[language] in hint


# -------------------------------------------------------------------- why a field is flagged, by kind
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_flagged_field_says_why_under_it_as_the_problems_sheet_does(make_window, translated, tmp_path,
                                                                          language) -> None:
    """Under each flagged field, the Problems sheet's own words in the UI language: a value flagged for
    its confidence (by the field model's threshold or the rules' 60 %) in a quiet line, a failed check in
    red; a field that is not flagged has no line under it. Its confidence column shows the percentage
    the reason gives."""
    import openpyxl

    from desktop.core import flags
    from desktop.gui.form import PROBLEM_STYLE, REASON_STYLE

    translated(language)
    w = make_window(language=language)
    doc = receipt(vendor_name=Field("vendor_name", value="KEDAI MAJU", confidence=0.76, needs_review=True,
                                    review_threshold=0.8875),  # the model's threshold: once shown as "check"
                  date=Field("date", value="2026-11-30", confidence=0.97),
                  subtotal=Field("subtotal", value="9.00", confidence=0.95),
                  tax=Field("tax", value="0.50", confidence=0.95),
                  total=Field("total", value="10.00", confidence=0.43, needs_review=True, review_threshold=0.6,
                              problems=[diag(Code.SUM_MISMATCH, field="total", subtotal="9.00", tax="0.50",
                                             sum="9.50", total="10.00")]),
                  currency=Field("currency", value="MYR", confidence=0.43, needs_review=True, review_threshold=0.6))
    w.select_entry(w.model.add_document(doc))
    rows = w.form.rows
    out = tmp_path / "out.xlsx"
    assert w.export_documents([doc], out)
    wb = openpyxl.load_workbook(out, read_only=True)
    problems = wb[{"en": "Problems", "zh_CN": "问题"}[language]]
    sheet = {field: message for _src, _pages, field, message in list(problems.iter_rows(values_only=True))[1:]}
    wb.close()
    label = {name: w.form.label_of(name) for name in rows}  # the receipt's own labels, as the sheet's

    # unsure: the model's threshold (76 % < 89 %) and the rules' (43 % < 60 %) read alike, quietly
    for name, percentage, needed in (("vendor_name", "76%", "89%"), ("currency", "43%", "60%")):
        row = rows[name]
        assert row.badge.text() == percentage
        assert row.reason.isVisibleTo(w.form) and not row.problems.isVisibleTo(w.form)
        assert row.reason.text() == sheet[label[name]] == flags.flag_reason(doc.fields[name], name == "vendor_name",
                                                                           language)
        assert row.reason.text() == {"en": f"confidence {percentage}, below the {needed} needed to pass unchecked",
                                     "zh_CN": f"置信度 {percentage}，低于免核对所需的 {needed}"}[language]
        assert row.reason.styleSheet() == REASON_STYLE != PROBLEM_STYLE
        assert row.edit.property("low") and not row.edit.property("problem")
        assert row.reason.text() in row.badge.toolTip() and row.reason.text() in row.edit.toolTip()

    # contradicts the page: the failed check, in red, and no second, quiet line
    total = rows["total"]
    assert total.problems.isVisibleTo(w.form) and not total.reason.isVisibleTo(w.form)
    assert total.problems.text() == "⚠ " + sheet[label["total"]]
    assert total.problems.styleSheet() == PROBLEM_STYLE and total.edit.property("problem")

    # not flagged: nothing under it, a plain percentage
    for name in ("date", "subtotal", "tax"):
        assert not rows[name].reason.isVisibleTo(w.form) and not rows[name].problems.isVisibleTo(w.form), name
        assert rows[name].reason.text() == "" and label[name] not in sheet
    assert rows["date"].badge.text() == "97%"


@pytest.mark.parametrize(("confidence", "threshold", "shown", "needed"), [
    (0.9269, 0.9272, "92%", "93%"),  # "93%" (rounded) beside "below the 93% needed" would contradict it
    (0.596, 0.6, "59%", "60%"),
    (0.995, 1.0, "99%", "100%"),
])
def test_the_percentage_agrees_with_the_reason(make_window, confidence, threshold, shown, needed) -> None:
    """The confidence column, the reason line and the tooltip give the same percentage (rounded down,
    the threshold up), so a value just under its threshold never reads as reaching it."""
    w = make_window()
    doc = receipt(total=Field("total", value="10.00", confidence=confidence, needs_review=True,
                              review_threshold=threshold))
    w.select_entry(w.model.add_document(doc))
    row = w.form.rows["total"]
    assert row.badge.text() == shown
    assert row.reason.text() == f"confidence {shown}, below the {needed} needed to pass unchecked"
    assert f"Confidence: {shown}" in row.badge.toolTip() and f"Confidence: {shown}" in row.edit.toolTip()


def test_no_reason_line_once_a_person_has_checked_the_field(make_window) -> None:
    """The quiet line goes with the flag: on a document marked reviewed, and once the clerk types the
    value; while the clerk types another value it is hidden (it speaks of the value as read). An empty
    key field says so in the same place."""
    w = make_window()
    doc = receipt(vendor_name=Field("vendor_name", value="KEDAI", confidence=0.5, needs_review=True,
                                    review_threshold=0.6),
                  date=Field("date", value=None, confidence=0.0),
                  total=Field("total", value="10.00", confidence=0.97))
    w.select_entry(w.model.add_document(doc))
    rows = w.form.rows
    assert rows["date"].badge.text() == "empty" and rows["date"].reason.text() == "empty: not found on the page"
    row = rows["vendor_name"]
    assert row.reason.isVisibleTo(w.form)
    row.edit.textEdited.emit("KEDAI MAJU")  # typing: the line speaks of the value as read
    assert not row.reason.isVisibleTo(w.form)
    row.edit.textEdited.emit("KEDAI")
    assert row.reason.isVisibleTo(w.form)
    w.reviewing.set_reviewed(True)
    QCoreApplication.processEvents()
    assert not any(r.reason.isVisibleTo(w.form) for r in w.form.rows.values())
    assert rows["vendor_name"].badge.text() == "50%" and not rows["vendor_name"].edit.property("low")
    w.reviewing.set_reviewed(False)
    QCoreApplication.processEvents()
    assert rows["vendor_name"].reason.isVisibleTo(w.form)
    w.commit_field("vendor_name", "KEDAI MAJU")
    QCoreApplication.processEvents()
    assert not w.form.rows["vendor_name"].reason.isVisibleTo(w.form)
    assert w.form.rows["vendor_name"].badge.text() == ""


# ----------------------------------------------------------------------- flags follow the clerk
def test_flags_follow_the_clerks_tax_and_the_reviewed_mark(make_window) -> None:
    """The clerk types the tax the OCR missed: subtotal + tax = total holds, and the total is no longer
    tinted or counted. Marked reviewed, a document's remaining flagged fields are neither tinted nor
    counted (badge and header); marked as needing review again, they are."""
    from desktop.gui.queue import ATTENTION_ROLE

    doc = receipt(vendor_name=Field("vendor_name", value="KEDAI MAJU", confidence=0.7, needs_review=True),
                  date=Field("date", value="2026-11-30", confidence=0.95),
                  subtotal=Field("subtotal", value="20.30", confidence=0.85),
                  tax=Field("tax", value=None),
                  total=Field("total", value="21.52", confidence=0.5, needs_review=True,
                              problems=[diag(Code.SUBTOTAL_TOTAL_NO_TAX, field="total", subtotal="20.30",
                                             total="21.52", difference="1.22")]))
    w = make_window()
    entry_id = w.model.add_document(doc)
    w.select_entry(entry_id)

    def badge() -> int:
        return w.model.data(w.model.index(w.model.row_of(entry_id), 0), ATTENTION_ROLE)

    assert badge() == 2 and w.form.rows["total"].edit.property("problem")
    w.commit_field("tax", "1.22")
    QCoreApplication.processEvents()
    total = w.current_document().fields["total"]
    assert not total.problems and not total.needs_review
    row = w.form.rows["total"]
    assert not row.edit.property("low") and not row.edit.property("problem") and row.badge.text() != "50%"
    assert badge() == 1 and w.form.rows["vendor_name"].edit.property("low")
    w.reviewing.set_reviewed(True)
    QCoreApplication.processEvents()
    assert badge() == 0 and not w.form.rows["vendor_name"].edit.property("low")
    assert "to check" not in w.summary_label.text() and "field" not in w.summary_label.text()
    w.reviewing.set_reviewed(False)
    QCoreApplication.processEvents()
    assert badge() == 1 and w.form.rows["vendor_name"].edit.property("low")
