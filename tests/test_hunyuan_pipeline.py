"""The HunyuanOCR field path through the real pipeline, with the tiny random model (tests/hunyuan_tiny.py)
whose ``generate`` answers recorded text: the model's field answer comes back keyed by the canonical names
or by the prompt wording, and either way the document gets the values under their canonical names.

(Before the engine contract took field specifications, the pipeline asked for prompt keys and the
engine parsed them as canonical names: an answer keyed by canonical names read as all-None.)
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from desktop.core.pipeline import ScanOptions, scan_file
from tests.hunyuan_tiny import GenerateSpy

pytestmark = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("torch", "transformers")),
    reason="needs the [gpu] extra (torch, transformers)")

SPOTTING = (Path(__file__).parent / "data" / "hunyuan" / "spotting_stripped.txt").read_text(encoding="utf-8")

VAT = {"invoice_code": "044031900111", "invoice_number": "12345678", "date": "2024年03月05日",
       "vendor_name": "天津市某某商贸有限公司", "total": "￥77.10元"}
VAT_PROMPT_KEYS = {"invoice_code": "发票代码", "invoice_number": "发票号码", "date": "开票日期",
                   "vendor_name": "销售方名称", "total": "价税合计（小写）"}
RECEIPT = {"vendor_name": "BOOK TA .K(TAMAN DAYA) SDN BHD", "date": "25/12/2018", "total": "9.00"}
RECEIPT_PROMPT_KEYS = {"vendor_name": "vendor name", "date": "date", "total": "total"}


@pytest.fixture
def engine(tiny_model_dir, _one_thread):
    from desktop.core.engines.hunyuan import HunyuanEngine

    eng = HunyuanEngine(tiny_model_dir, device="cpu", max_pixels=160_000,
                        max_new_tokens={"spotting": 200, "fields": 200})
    eng.warm_up()
    yield eng
    eng.close()


def page_file(tmp_path: Path) -> Path:
    path = tmp_path / "page.png"
    Image.fromarray(np.full((400, 300, 3), 255, np.uint8)).save(path)
    return path


@pytest.mark.parametrize("keyed", ["canonical", "prompt"])
@pytest.mark.parametrize(("doctype", "values", "prompt_keys"), [
    ("cn_vat_invoice", VAT, VAT_PROMPT_KEYS),
    ("receipt", RECEIPT, RECEIPT_PROMPT_KEYS),
], ids=["zh", "en"])
def test_model_fields_arrive_under_canonical_names(engine, monkeypatch, tmp_path, keyed, doctype, values, prompt_keys):
    answer = values if keyed == "canonical" else {prompt_keys[k]: v for k, v in values.items()}
    fields_json = json.dumps(answer, ensure_ascii=False)
    spy = GenerateSpy(engine, monkeypatch, answer=lambda prompt: fields_json if "JSON" in prompt else SPOTTING)
    doc = scan_file(page_file(tmp_path), engine, ScanOptions(document_type=doctype, auto_rotate=False, decode_qr=False))[0]
    assert doc.error is None
    assert any("JSON" in c["prompt"] for c in spy.calls)  # the model was asked for the fields
    if doctype == "cn_vat_invoice":
        assert "'销售方名称'" in next(c["prompt"] for c in spy.calls if "JSON" in c["prompt"])
    for name in ("vendor_name", "date", "total"):
        assert doc.fields[name].source == "model", (name, doc.fields[name])
    assert doc.fields["vendor_name"].value == values["vendor_name"]
    assert doc.fields["total"].value == ("77.10" if doctype == "cn_vat_invoice" else "9.00")
    assert doc.fields["date"].value == ("2024-03-05" if doctype == "cn_vat_invoice" else "2018-12-25")
    if doctype == "cn_vat_invoice":
        assert doc.fields["invoice_code"].value == "044031900111"
