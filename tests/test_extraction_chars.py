"""Per-character recogniser confidences in extraction: mapped onto the normalised line text, the
lowest of a value's own characters (``value_confidence``), and its use as a calibration input; and
address corrections by kind."""
from __future__ import annotations

import pytest

from desktop.core.extraction.candidates import FieldCandidate, clean_address, value_confidence
from desktop.core.extraction.field_model import N_CALIBRATION_INPUTS, _nines, calibration_inputs
from desktop.core.extraction.layout import Layout, Ln, char_confidences
from desktop.core.model import Line, PageResult


def _ln(text: str, chars: list[float] | None, confidence: float = 0.95) -> Ln:
    return Ln(1, 0, text, (0.0, 0.0, 10.0 * len(text), 20.0), confidence, 600.0, 800.0, text, None,
              tuple(chars) if chars is not None else None)


@pytest.mark.parametrize("text, confs, expected", [
    ("AB C", [0.9, 0.8, 1.0, 0.7], (0.9, 0.8, 1.0, 0.7)),  # plain ASCII: unchanged
    ("  AB ", [0.1, 0.2, 0.9, 0.8, 0.3], (0.9, 0.8)),  # the stripped spaces' confidences go with them
    ("ＡＢ１", [0.9, 0.8, 0.7], (0.9, 0.8, 0.7)),  # full-width letters and digits: one ASCII character each
    ("㈱AB", [0.6, 0.9, 0.8], (0.6, 0.6, 0.6, 0.9, 0.8)),  # NFKC expands one character to three: "(株)"
    ("AB", [0.9], None),  # not aligned with the text: unknown
    ("AB", None, None),  # the engine gave none
])
def test_char_confidences_follow_the_normalised_text(text, confs, expected):
    assert char_confidences(text, confs) == expected


def test_layout_lines_carry_the_engines_character_confidences():
    lines = [Line("NO 12, JALAN MAWAR", (10, 10, 200, 30), 0.97, char_confidences=[0.99] * 7 + [0.41] + [0.99] * 10),
             Line("TOTAL", (10, 40, 80, 60), 0.98)]
    layout = Layout([PageResult(number=1, width=600, height=800, lines=lines)])
    by_text = {ln.text: ln for ln in layout.lines}
    assert by_text["NO 12, JALAN MAWAR"].chars is not None
    assert by_text["NO 12, JALAN MAWAR"].span_confidence(0, 7) == pytest.approx(0.99)
    assert by_text["NO 12, JALAN MAWAR"].span_confidence(0, 8) == pytest.approx(0.41)
    assert by_text["TOTAL"].chars is None and by_text["TOTAL"].span_confidence() == pytest.approx(0.98)


def test_value_confidence_is_the_lowest_of_the_values_own_characters():
    # a registration number before the address, dropped by the cleaning, holds the lowest character:
    # it does not count; the misread letter inside the address does
    reg = "(1120908-M) "
    addr = "NO 5, JALAN SAGU 18"
    chars = [0.30] * len(reg) + [0.99] * len(addr)
    chars[len(reg) + addr.index("S")] = 0.62
    line = _ln(reg + addr, chars, confidence=0.9)
    c = FieldCandidate("vendor_address", clean_address(reg + addr), reg + addr, [line])
    assert c.value == addr
    assert value_confidence(c) == pytest.approx(0.62)


def test_value_confidence_spans_several_lines_and_skips_spaces():
    a, b = _ln("KEDAI MAJU", [0.99] * 5 + [0.10] + [0.98] * 4), _ln("SDN BHD", [0.97] * 3 + [0.2] + [0.93] * 3)
    c = FieldCandidate("vendor_name", "KEDAI MAJU SDN BHD", "KEDAI MAJU SDN BHD", [a, b])
    assert value_confidence(c) == pytest.approx(0.93)  # the spaces' 0.10 and 0.2 are no characters


@pytest.mark.parametrize("field, raw, value, line_text, low_at, expected", [
    ("total", "RM18.55", "18.55", "TOTAL RM18.55", 1, 0.99),  # a low character in the label: not the value's
    ("total", "RM18.55", "18.55", "TOTAL RM18.55", 10, 0.5),  # a low digit of the amount
    ("date", "12/03/2018", "2018-03-12", "DATE: 12/03/2018", 0, 0.99),
])
def test_value_confidence_of_amounts_and_dates_reads_the_printed_token(field, raw, value, line_text, low_at, expected):
    chars = [0.99] * len(line_text)
    chars[low_at] = 0.5
    c = FieldCandidate(field, value, raw, [_ln(line_text, chars)])
    assert value_confidence(c) == pytest.approx(expected)


def test_value_confidence_falls_back_to_the_line_confidence():
    c = FieldCandidate("vendor_name", "KEDAI MAJU", "KEDAI MAJU", [_ln("KEDAI MAJU", None, 0.87), _ln("SDN", [0.99] * 3)])
    assert value_confidence(c) == pytest.approx(0.87)
    assert value_confidence(FieldCandidate("vendor_name", "X", "X", [])) == 1.0


def test_calibration_reads_the_lowest_character_of_the_value():
    sure = FieldCandidate("vendor_address", "NO 5, JALAN SAGU", "NO 5, JALAN SAGU", [_ln("NO 5, JALAN SAGU", [0.999] * 16, 0.999)])
    chars = [0.999] * 16
    chars[12] = 0.5  # one misread letter: the line's mean hardly moves
    unsure = FieldCandidate("vendor_address", "NO 5, JALAN SAGU", "NO 5, JALAN SAGU", [_ln("NO 5, JALAN SAGU", chars, 0.97)])
    a, b = calibration_inputs(3.0, 2.0, sure), calibration_inputs(3.0, 2.0, unsure)
    assert len(a) == len(b) == N_CALIBRATION_INPUTS
    assert a[3] == pytest.approx(_nines(0.999)) and b[3] == pytest.approx(_nines(0.5))
    assert a[6] == 0 and b[6] == 1  # one doubtful character


@pytest.mark.parametrize("field, value, raw, text, chars, expected", [
    # an address: every doubtful letter counts, spaces never do
    ("vendor_address", "NO 5, JALAN SAGU", "NO 5, JALAN SAGU", "NO 5, JALAN SAGU",
     [0.999] * 4 + [0.6] + [0.999] * 3 + [0.9, 0.999, 0.96] + [0.999] * 5, 3),
    # a name cleaned of its registration number: the dropped characters do not count
    ("vendor_name", "KEDAI MAJU", "KEDAI MAJU (12345-A)", "KEDAI MAJU (12345-A)",
     [0.999] * 11 + [0.5] * 9, 0),
    # an amount: the token as printed, not the rest of its line
    ("total", "12.30", "12.30", "TOTAL 12.30", [0.5] * 6 + [0.999, 0.9, 0.999, 0.999, 0.999], 1),
])
def test_suspect_characters_are_counted_in_the_value_only(field, value, raw, text, chars, expected):
    from desktop.core.extraction.candidates import suspect_char_count

    c = FieldCandidate(field, value, raw, [_ln(text, chars, 0.95)])
    assert suspect_char_count(c) == expected


def test_no_character_confidences_no_suspects():
    from desktop.core.extraction.candidates import suspect_char_count

    assert suspect_char_count(FieldCandidate("vendor_name", "KEDAI", "KEDAI", [_ln("KEDAI", None, 0.5)])) == 0
    assert suspect_char_count(FieldCandidate("vendor_name", "KEDAI", "KEDAI", [])) == 0


# -- address corrections, by kind -------------------------------------------------------------

@pytest.mark.parametrize("raw, clean", [
    # a number with a letter misread inside or at its end: the digit it resembles
    ("4115O KLANG, SELANGOR", "41150 KLANG, SELANGOR"),
    ("4380O DENGKIL", "43800 DENGKIL"),
    ("NO 29O, JALAN BESAR", "NO 290, JALAN BESAR"),
    ("LOT 1B5, JALAN KPB 6", "LOT 185, JALAN KPB 6"),
    # a shop lot or unit code starting with its block's letter is printed so, not misread
    ("Lot S319, 2nd Floor", "Lot S319, 2nd Floor"),
    ("Lot S25, AEON Tebrau City", "Lot S25, AEON Tebrau City"),
    ("LOT B12, JALAN MAWAR", "LOT B12, JALAN MAWAR"),
    ("NO O12, JALAN 3", "NO O12, JALAN 3"),
])
def test_numbers_misread_in_addresses(raw, clean):
    assert clean_address(raw) == clean


# -- words misread in their weakest character, restored from the lexicon ----------------------

_LEXICON = {"JALAN": 60, "TAMAN": 40, "ALAM": 12, "JAYA": 15, "SELANGOR": 80, "BATU": 9, "BARU": 11}


def _cand(text: str, low: dict[int, float], field: str = "vendor_address") -> FieldCandidate:
    chars = [0.995] * len(text)
    for i, c in low.items():
        chars[i] = c
    return FieldCandidate(field, text, text, [_ln(text, chars)])


@pytest.mark.parametrize("text, low, fixed", [
    # the weakest character of a word the lexicon lacks, replaced, gives exactly one lexicon word
    ("SETIA ALAN, SELANGOR", {9: 0.55}, "SETIA ALAM, SELANGOR"),
    ("47500 Subang Jaga", {15: 0.41}, "47500 Subang Jaya"),
    ("Jalan Sagu, Taman Daya", {}, "Jalan Sagu, Taman Daya"),  # every character sure: as read
    ("SETIA ALAN", {7: 0.5}, "SETIA ALAN"),  # the weak character is not the one that would fix it
    ("SETIA ALAN", {9: 0.99}, "SETIA ALAN"),  # the recogniser is sure of the N
    ("KAJANG SELANGOOR", {14: 0.6}, "KAJANG SELANGOR"),  # a character read twice: dropped
    ("BATU 4, BARI", {11: 0.5}, "BATU 4, BARU"),
])
def test_lexicon_fix_by_kind(text, low, fixed):
    from desktop.core.extraction.candidates import lexicon_fix

    assert lexicon_fix(_cand(text, low), _LEXICON) == fixed


def test_a_word_two_lexicon_words_fit_stays_as_read():
    from desktop.core.extraction.candidates import lexicon_fix

    c = _cand("BATI 4", {3: 0.5})
    assert lexicon_fix(c, _LEXICON) == "BATU 4"
    assert lexicon_fix(c, {**_LEXICON, "BATA": 5}) == "BATI 4"  # BATU or BATA: unknown


def test_lexicon_fix_keeps_case_and_needs_character_confidences():
    from desktop.core.extraction.candidates import lexicon_fix

    assert lexicon_fix(_cand("Setia Alan", {9: 0.5}), _LEXICON) == "Setia Alam"
    c = FieldCandidate("vendor_address", "SETIA ALAN", "SETIA ALAN", [_ln("SETIA ALAN", None, 0.5)])
    assert lexicon_fix(c, _LEXICON) == "SETIA ALAN"  # which character is suspect is unknown
    assert lexicon_fix(_cand("SETIA ALAN", {9: 0.5}), {}) == "SETIA ALAN"  # no lexicon shipped


def test_lexicon_holds_words_of_several_vendors_only():
    from benchmarks.train_fields import LEXICON_MIN_VENDORS, Doc, build_lexicon

    def doc(group: str, name: str, address: str) -> Doc:
        return Doc(group, "sroie", "receipt", [], {"vendor_name": name, "vendor_address": address}, group)

    docs = [doc(f"v{i}", f"KEDAI {i}", f"NO {i}, JALAN MAWAR, 43000 KAJANG") for i in range(LEXICON_MIN_VENDORS)]
    docs += [doc("v0", "KEDAI 0", "TAMAN UNIK") for _ in range(5)]  # one vendor, many receipts
    lex = build_lexicon(docs)
    assert lex["JALAN"] == LEXICON_MIN_VENDORS and lex["KAJANG"] == LEXICON_MIN_VENDORS
    assert "UNIK" not in lex and "TAMAN" not in lex  # a vendor's own words, however often printed
    assert "NO" not in lex  # words under four letters are never corrected


def test_a_lexicon_of_another_format_is_refused(tmp_path, monkeypatch):
    import desktop.resources
    from desktop.core.extraction import field_model

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "field_lexicon.json").write_text('{"format": "pickle"}', encoding="utf-8")
    monkeypatch.setattr(desktop.resources, "resources_dir", lambda: tmp_path)
    field_model._load_lexicon_cached.cache_clear()
    try:
        with pytest.raises(ValueError, match="not a Shoebox field lexicon"):
            field_model.load_lexicon("receipt")
    finally:
        field_model._load_lexicon_cached.cache_clear()
