"""HunyuanOCR answer parsing on recorded-style outputs (tests/data/hunyuan/*.txt); no torch needed.

The recorded answers are written to look like the real model's: spotting as decoded with special tokens
skipped (``text(x1,y1),(x2,y2)``, Tencent-Hunyuan/HunyuanOCR issue #68), with ``<ref>/<quad>`` tags, and
as version 1.5's JSON array; field JSON fenced, cut short, nested; a looping answer.
"""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from desktop.core.engines.hunyuan_output import (
    MODEL_LINE_CONFIDENCE,
    finish_generation,
    parse_fields,
    parse_spotting,
    quote_bare_numbers,
    repeating_period,
    strip_fences,
    trim_repeated_suffix,
)

DATA = Path(__file__).parent / "data" / "hunyuan"


def recorded(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------- spotting


def test_spotting_stripped_format_maps_0_1000_to_pixels():
    lines = parse_spotting(recorded("spotting_stripped.txt"), width=500, height=2000)
    assert [line.text for line in lines] == [
        "TAN WOON YANN",
        "BOOK TA .K(TAMAN DAYA) SDN BHD",  # parentheses inside the text are kept
        "Total (RM):",
        "9.00",
        "Date: 25/12/2018 8:13:39 PM",
    ]
    # (84,21),(916,52) on a 500 x 2000 image: x * 500 / 1000, y * 2000 / 1000
    assert lines[0].box == pytest.approx((42.0, 42.0, 458.0, 104.0))
    assert lines[3].box == pytest.approx((390.0, 1400.0, 460.0, 1450.0))
    assert all(line.confidence == MODEL_LINE_CONFIDENCE for line in lines)


def test_spotting_ref_quad_tags():
    lines = parse_spotting(recorded("spotting_tags.txt"), width=1000, height=600)
    assert [line.text for line in lines] == ["电子普通发票", "发票代码：044031900111", "价税合计（大写）柒拾柒圆壹角", "（小写）￥77.10"]
    assert lines[3].box == pytest.approx((640.0, 492.0, 880.0, 510.0))


def test_spotting_json_array_with_box_and_quad():
    lines = parse_spotting(recorded("spotting_json.txt"), width=1000, height=1000, confidence=0.7)
    assert [line.text for line in lines] == ["TAN WOON YANN", "Total (RM):", "9.00", "Date: 25/12/2018"]
    assert lines[2].box == (780.0, 700.0, 920.0, 725.0)
    assert lines[3].polygon == [(80.0, 760.0), (650.0, 760.0), (650.0, 785.0), (80.0, 785.0)]
    assert lines[3].box == (80.0, 760.0, 650.0, 785.0)
    assert {line.confidence for line in lines} == {0.7}


@pytest.mark.parametrize(
    "answer, box",
    [
        ("A(1200,-5),(900,40)", (450.0, 0.0, 500.0, 8.0)),   # out of range clamped; corners ordered
        ("A( 100 , 200 ) , ( 300 , 400 )", (50.0, 40.0, 150.0, 80.0)),  # spaces tolerated
        ("A(100.5,200),(300,400)", (50.25, 40.0, 150.0, 80.0)),
    ],
)
def test_spotting_coordinate_edge_cases(answer, box):
    (line,) = parse_spotting(answer, width=500, height=200)
    assert line.box == pytest.approx(box)


def test_spotting_looping_answer_is_deduplicated_and_cut_entry_dropped():
    raw = recorded("spotting_looping.txt")
    gen = finish_generation(raw, new_tokens=900, stopped_by_guard=True, hit_token_limit=False)
    assert gen.suspect and gen.trimmed
    assert len(gen.text) < len(raw) / 5
    assert any("repeated" in str(w) for w in gen.warnings)
    lines = parse_spotting(gen.text, 1000, 1000)
    assert [line.text for line in lines] == ["SUPERMARKET TESCO", "ITEM  QTY  AMOUNT", "MILK 1L  1  5.90"]
    # even untrimmed, identical (text, box) entries collapse to one
    assert [line.text for line in parse_spotting(raw, 1000, 1000)] == [line.text for line in lines]


def test_spotting_garbage_gives_no_lines():
    assert parse_spotting("[[[[[[[[[[", 100, 100) == []
    assert parse_spotting("", 100, 100) == []
    assert parse_spotting("no coordinates at all", 100, 100) == []


# ---------------------------------------------------------------------------------------------- fields


def test_fields_chinese_vat_invoice_keys_mapped_back_values_as_printed():
    names = ["vendor_name", "vendor_tax_id", "buyer_name", "invoice_code", "invoice_number", "date",
             "subtotal", "tax", "total", "check_code", "currency"]
    values, warnings = parse_fields(recorded("fields_cn_vat_zh.txt"), names, "zh")
    assert values == {
        "vendor_name": "深圳市前海数码科技有限公司",
        "vendor_tax_id": "91440300MA5F0XXXXX",
        "buyer_name": "上海鞋盒文具有限公司",
        "invoice_code": "044031900111",  # bare number in the JSON: leading zero kept
        "invoice_number": "02547381",
        "date": "2024年03月05日",
        "subtotal": "￥72.73",
        "tax": "￥4.37",
        "total": "￥77.10元",  # "价税合计(小写)" vs prompt key "价税合计（小写）": NFKC match
        "check_code": "65471 82930 11827 40395",
        "currency": None,  # not in the answer: None, never invented
    }
    assert warnings == []


def test_fields_fenced_json_with_prose_lists_numbers_and_unknown_keys():
    names = ["vendor_name", "vendor_address", "date", "time", "total", "tax", "currency"]
    values, warnings = parse_fields(recorded("fields_receipt_en_fenced.txt"), names, "en")
    assert values == {
        "vendor_name": "MR. D.I.Y. (M) SDN BHD",
        "vendor_address": "LOT 1851-A & 1851-B, JALAN KPB 6, KAWASAN PERINDUSTRIAN BALAKONG, 43300 SERI KEMBANGAN, SELANGOR",
        "date": "09/01/2018",
        "time": None,      # ""
        "total": "15.90",  # bare 15.90: trailing zero kept
        "tax": None,       # "N/A"
        "currency": "RM",
    }
    assert any("not asked for" in str(w) and "cashier" in str(w) and "items" in str(w) for w in warnings)


def test_fields_truncated_json_drops_the_cut_value():
    names = ["vendor_name", "vendor_address", "date", "subtotal", "total"]
    values, warnings = parse_fields(recorded("fields_truncated.txt"), names, "en")
    assert values == {"vendor_name": "KEDAI PAPAN YEW CHUAN", "vendor_address": None, "date": "19/03/2018",
                      "subtotal": "80.90", "total": "87.45"}
    assert any("cut short" in str(w) and "vendor address" in str(w) for w in warnings)


def test_fields_list_of_objects_and_wrapper_object_flattened():
    values, _ = parse_fields(recorded("fields_nested_list.txt"), ["vendor_name", "total", "date"], "en")
    assert values == {"vendor_name": "SYARIKAT PERNIAGAAN GIN KEE", "total": "RM 223.00", "date": None}


@pytest.mark.parametrize("answer", ["", "[[[[[[[[[[[[", "I cannot read this image.", "```json\n```"])
def test_fields_no_json_means_every_field_none(answer):
    values, _ = parse_fields(answer, ["total", "date"], "en")
    assert values == {"total": None, "date": None}


def test_fields_key_matching_variants():
    answer = '{"Vendor_Name": "A", "TOTAL": "1.00", "开票日期": "2024-01-02", "价税合计": "x"}'
    values, warnings = parse_fields(answer, ["vendor_name", "total", "date"], "en")
    # canonical spelling, case, the other language's key; the first value of a field wins
    assert values == {"vendor_name": "A", "total": "1.00", "date": "2024-01-02"}
    assert warnings == []


def test_fields_non_canonical_name_asked_as_itself():
    values, _ = parse_fields('{"table number": "12"}', ["table_number"], "en")
    assert values == {"table_number": "12"}


def test_normalisation_handoff_to_extraction():
    """Values as printed go to extraction.fields_from_values, which normalises them (helper "extract")."""
    extraction = importlib.import_module("desktop.core.extraction")
    from desktop.core.model import PageResult

    values, _ = parse_fields(recorded("fields_cn_vat_zh.txt"), ["invoice_code", "date", "total"], "zh")
    result = extraction.fields_from_values(values, [PageResult(number=1, width=1000, height=600)], "cn_vat_invoice")
    assert result.fields["total"].value == "77.10"
    assert result.fields["total"].raw == "￥77.10元"
    assert result.fields["date"].value == "2024-03-05"
    assert result.fields["invoice_code"].value == "044031900111"


# ---------------------------------------------------------------------------------------------- helpers


@pytest.mark.parametrize(
    "text, expected",
    [
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('before ```html\n<table></table>``` after', "<table></table>"),
        ('```json\n{"a": "cut', '{"a": "cut'),
        ("plain", "plain"),
    ],
)
def test_strip_fences(text, expected):
    assert strip_fences(text) == expected


def test_quote_bare_numbers_leaves_strings_alone():
    assert quote_bare_numbers('{"a": 007, "b": "x 12, 3", "c": [1.50, -2], "d": "it\'s 5"}') == \
        '{"a": "007", "b": "x 12, 3", "c": ["1.50", "-2"], "d": "it\'s 5"}'


# ---------------------------------------------------------------------------------------------- repetition


@pytest.mark.parametrize(
    "tokens, period",
    [
        ([7] * 64, 1),
        ([1, 2, 3] + [7] * 64, 1),
        ([1, 2, 3] + [7] * 63, None),              # one short of the 64-token span
        ([5, 6] * 32, 2),
        (list(range(20)) * 6, 20),                  # 6 repeats of a 20-token line
        (list(range(20)) * 5, None),                # 5 repeats: not yet
        ([9] + list(range(40)) * 6 + [0, 1, 2], 40),  # cut inside the 7th copy: still periodic
        (list(range(200)), None),
        ([1, 2, 3, 4] * 15 + [5], None),
        ([], None),
    ],
)
def test_repeating_period(tokens, period):
    assert repeating_period(tokens) == period


def test_repeating_period_bounds():
    unit = list(range(130))
    assert repeating_period(unit * 8) is None          # period above GUARD_MAX_PERIOD
    assert repeating_period(unit * 8, max_period=130) == 130


@pytest.mark.parametrize(
    "text, expected, trimmed",
    [
        ("hello " + "abc" * 40, "hello abc", True),
        ("x" * 150, "x", True),
        ("total 5.00\n" + "-" * 30, "total 5.00\n" + "-" * 30, False),   # a divider is not a loop
        ("a normal ending.", "a normal ending.", False),
        ("row|" * 4 + "end", "row|" * 4 + "end", False),
    ],
)
def test_trim_repeated_suffix(text, expected, trimmed):
    assert trim_repeated_suffix(text) == (expected, trimmed)


def test_finish_generation_flags():
    ok = finish_generation("fine", new_tokens=3, stopped_by_guard=False, hit_token_limit=False)
    assert not ok.suspect and ok.warnings == []
    cut = finish_generation("cut here", new_tokens=100, stopped_by_guard=False, hit_token_limit=True, max_new_tokens=100)
    assert cut.suspect and cut.hit_token_limit and "100 tokens" in str(cut.warnings[0])
    # guard stopped: weaker textual evidence suffices (64 tokens of "g")
    guarded = finish_generation("g" * 64, new_tokens=64, stopped_by_guard=True, hit_token_limit=True)
    assert guarded.text == "g" and guarded.trimmed and not guarded.hit_token_limit
