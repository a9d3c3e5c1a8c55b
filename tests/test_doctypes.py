"""Document types and canonical fields from resources/doctypes."""
from __future__ import annotations

import pytest

from desktop.core.doctypes import canonical_fields, document_types, get_document_type


def test_the_types_share_canonical_fields() -> None:
    types = document_types()
    assert set(types) == {"receipt", "invoice", "cn_vat_invoice", "credit_note"}
    specs = canonical_fields()
    for dt in types.values():
        assert all(name in specs for name in dt.fields)
        assert set(dt.key_fields) <= set(dt.fields)


@pytest.mark.parametrize(
    ("doctype", "field", "zh_label"),
    [
        ("receipt", "vendor_name", "商家名称"),     # a shop, not a VAT seller
        ("receipt", "total", "合计"),
        ("invoice", "buyer_name", "客户名称"),
        ("cn_vat_invoice", "vendor_name", "销售方名称"),  # the wording printed on the VAT invoice
        ("cn_vat_invoice", "total", "价税合计"),
    ],
)
def test_each_type_words_its_labels_in_chinese(doctype: str, field: str, zh_label: str) -> None:
    spec = {s.name: s for s in get_document_type(doctype).field_specs()}[field]
    assert spec.label_for("zh_CN") == zh_label
    assert spec.label_for("en") == canonical_fields()[field].label["en"]  # English stays canonical


def test_unknown_type_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="receipt"):
        get_document_type("payslip")


def test_a_label_in_a_language_finds_its_regional_entry() -> None:
    """``zh`` (an export's language) finds the ``zh_CN`` label the GUI shows; ``zh_TW`` without its own
    entry falls back to it too; a language without labels gets English."""
    from desktop.core.doctypes import canonical_fields, get_document_type, label_in

    code = canonical_fields()["invoice_code"]
    assert code.label_for("zh") == code.label_for("zh_CN") == code.label["zh_CN"] == "发票代码"
    assert code.label_for("zh_TW") == "发票代码" and code.label_for("fr") == code.label_for("en") == "Invoice code"
    assert get_document_type("receipt").label_for("zh") == get_document_type("receipt").label["zh_CN"]
    assert label_in({"en": "Total", "zh_CN": "合计"}, "zh-Hans") == "合计"
