"""The words of the spreadsheet exports (xlsx, CSV) in each export language: sheet names, column
headers, status words, line-item and tax-by-rate headers, the Problems sheet's own phrases.

What is worded elsewhere is not repeated here, so each text has one source:

* field labels and document type names: ``resources/doctypes`` (:mod:`desktop.core.doctypes`,
  ``label_for``), the labels the GUI's form and type list show;
* messages (errors, page warnings, field problems, flag reasons, duplicate reasons):
  :data:`desktop.core.diagnostics.CATALOGUE`, the messages the GUI and the CLI show.

The Chinese wording follows the GUI's catalogue (``resources/translations/shoebox_zh_CN.ts``: 单据 for a
document, 已审核 for reviewed, 第 N 页 for a page) and, for invoice line items, the column headers printed
on a Chinese VAT invoice (State Taxation Administration invoice format: 规格型号, 单位, 数量, 单价, 金额,
税率, 税额).
"""
from __future__ import annotations

from desktop.core.diagnostics import LANGUAGES

__all__ = ["EXPORT_LANGUAGES", "export_language", "item_key_label", "word"]

#: The languages the spreadsheets are written in: the languages messages are rendered in
#: (:data:`desktop.core.diagnostics.LANGUAGES`, ``en`` and ``zh``).
EXPORT_LANGUAGES: tuple[str, ...] = LANGUAGES

#: Every word by its English text, in Simplified Chinese; ``{}`` fields are filled with ``str.format``.
#: The English text is the ``en`` wording, but for the few keys in :data:`_EN` (an English word that
#: Chinese words in two ways: the Problems sheet 问题, the Problems column 待核对字段数).
_ZH: dict[str, str] = {
    # sheet names (Excel: at most 31 characters, none of : \ / ? * [ ])
    "Documents": "单据",
    "Line items": "明细",
    "Tax by rate": "分税率汇总",
    "Tables": "表格",
    "Problems": "问题",
    # leading columns of the Documents sheet and the CSV
    "Source file": "源文件",
    "Pages": "页码",
    "Document type": "单据类型",
    "Status": "状态",
    "Problems column": "待核对字段数",
    "Duplicate of": "可能重复于",
    # status
    "Reviewed": "已审核",
    "Not reviewed": "未审核",
    "Error: {}": "错误：{}",
    # the Tax by rate sheet
    "Category": "税种类别",
    "Rate": "税率",
    "Taxable amount": "计税金额",
    "Tax": "税额",
    "Exemption reason": "免税原因",
    "tax by rate": "分税率汇总",
    "{rate}: tax {tax}": "{rate}：税额 {tax}",
    " on {basis}": "，计税金额 {basis}",
    # the Problems sheet
    "Field": "字段",
    "Message": "说明",
    "could not be read: {}": "无法读取：{}",
    "page {}": "第 {} 页",
    "line item {}": "明细 {}",
    # the Tables sheet
    "Table {}": "表格 {}",
    "Page {}": "第 {} 页",
    # a duplicate's earlier document: "<source> p. 1-2"
    "{source} p. {pages}": "{source} 第 {pages} 页",
    # a cell cut at Excel's limit (the cell comment and the Problems row)
    "text cut from {full} to {limit} characters (the most an Excel cell holds); the JSON export has all of it":
        "文字已从 {full} 个字符截断为 {limit} 个（Excel 单元格最多容纳的字符数）；JSON 导出包含全部内容",
}

#: English wording of the keys of :data:`_ZH` that are not their own English text.
_EN: dict[str, str] = {"Problems column": "Fields to check"}

#: The line-item keys the extraction and the e-invoice readers give (``Document.line_items``) as Chinese
#: column headers (in English a key is its own words: ``unit_price`` -> ``Unit price``).
_ITEM_KEYS_ZH: dict[str, str] = {
    "line_id": "行号",
    "parent_line_id": "上级行号",
    "description": "项目名称",
    "specification": "规格型号",
    "quantity": "数量",
    "unit": "单位",
    "unit_code": "单位代码",
    "unit_price": "单价",
    "price_basis_quantity": "价格基准数量",
    "gross_unit_price": "折扣前单价",
    "price": "价格",
    "amount": "金额",
    "tax_rate": "税率",
    "tax": "税额",
    "total": "合计",
    "note": "备注",
}


def export_language(language: str | None) -> str:
    """``language`` as one of :data:`EXPORT_LANGUAGES`: ``en`` / ``zh``, or a locale name of either
    (``zh_CN``, ``zh-Hans``, ``en_GB``: the GUI's UI languages are ``en`` and ``zh_CN``); ``None`` is ``en``.

    Raises:
        ValueError: any other language, naming the ones there are.
    """
    if language is None:
        return "en"
    base = str(language).replace("-", "_").split("_")[0].lower()
    if base not in EXPORT_LANGUAGES:
        raise ValueError(f"unknown export language {language!r}; choose {' or '.join(EXPORT_LANGUAGES)}")
    return base


def word(english: str, language: str, *args: object, **kwargs: object) -> str:
    """The word or phrase ``english`` in ``language`` (``en`` / ``zh``), with ``{}`` fields filled.

    Raises:
        KeyError: ``english`` is not one of the export's words (a programming error: add it to ``_ZH``).
    """
    zh = _ZH[english]
    template = zh if language == "zh" else _EN.get(english, english)
    return template.format(*args, **kwargs) if args or kwargs else template


def item_key_label(key: str, language: str) -> str:
    """The column header of a line-item key: in English its words (``unit_price`` -> ``Unit price``), in
    Chinese its name from ``_ITEM_KEYS_ZH``, else its words too."""
    if language == "zh" and key in _ITEM_KEYS_ZH:
        return _ITEM_KEYS_ZH[key]
    return key.replace("_", " ").strip().capitalize() or key
