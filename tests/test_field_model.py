"""Learned field selection: candidate generation and features, the shipped model, calibration, and
behaviour pinned by kind (not by one sample's output)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from desktop.core import flags
from desktop.core.diagnostics import Code
from desktop.core.extraction import candidate_sets, extract_fields
from desktop.core.extraction.candidates import clean_address, clean_name
from desktop.core.extraction.field_model import MODEL_FORMAT, N_CALIBRATION_INPUTS, FieldModel, FieldScorer, load_model
from desktop.core.model import Document, Field
from tests.pages import synthetic_page

MODEL_FILE = Path(__file__).resolve().parent.parent / "resources" / "models" / "field_model.json"


def _cands(rows, doc_type="receipt", field="total"):
    return candidate_sets(synthetic_page(rows), doc_type)[field]


def _by_value(cands, value):
    hits = [c for c in cands if c.value == value]
    assert hits, f"no candidate {value!r} among {[c.value for c in cands]}"
    return hits[0]


# -- candidate generation and features, table-driven, several languages --------------------------

@pytest.mark.parametrize("label, value, kind", [
    ("GRAND TOTAL", "12.60", "grand"),
    ("Total Amount Collected", "12.60", "grand"),
    ("Gesamtbetrag", "119,00 €", "total"),
    ("Net à payer", "50,00", "grand"),
    ("Te betalen", "45,10", "grand"),
    ("合计", "¥77.10", "total"),
    ("CASH", "20.00", "cash"),
    ("CHANGE", "7.40", "change"),
    ("Rounding Adj", "0.02", "rounding"),
    ("SUBTOTAL (QTY 4)", "12.62", "excl_tax"),
    ("Zwischensumme", "100,00", "excl_tax"),
    ("TVA 20%", "20,00", "tax"),
])
def test_amount_label_kinds(label, value, kind):
    cands = _cands([[("SHOP SDN BHD", 100)], [(label, 20), (value, 400)]])
    got = [c for c in cands if c.raw.replace(" ", "") == value.replace(" ", "") or c.value in value.replace(",", ".")]
    got = got or [c for c in cands if c.lines[0].text == value]
    assert got, [c.raw for c in cands]
    assert got[0].features[f"lab_{kind}"] == 1.0


def test_amount_arithmetic_features():
    rows = [[("SHOP SDN BHD", 100)], [("SUBTOTAL", 20), ("10.00", 400)], [("GST 6%", 20), ("0.60", 400)],
            [("TOTAL INCL GST", 20), ("10.60", 400)], [("ROUNDING", 20), ("-0.02", 400)],
            [("TOTAL", 20), ("10.58", 400)], [("CASH", 20), ("20.00", 400)], [("CHANGE", 20), ("9.42", 400)]]
    cands = _cands(rows)
    assert _by_value(cands, "10.60").features["eq_sub_tax"] == 1.0
    assert _by_value(cands, "10.58").features["eq_cash_change"] == 1.0
    assert _by_value(cands, "10.58").features["eq_total_round"] == 1.0
    assert _by_value(cands, "20.00").features["eq_cash_change"] == 0.0


@pytest.mark.parametrize("rows, paid, not_paid", [
    # a total before tax, its tax and a rounding adjustment above the amount paid (5-sen rounding)
    ([("Total Sales Amount", "33.00"), ("GST 6%", "1.98"), ("Rounding Adjustment", "0.02"), ("TOTAL", "35.00"),
      ("CASH", "55.00"), ("Change Returned", "20.00-")], "35.00", "33.00"),
    # the tax as a "Total GST" row and a negative rounding, the amount paid on the cash row
    ([("Sub Total (RM) :", "106.10"), ("Total GST (RM) :", "6.37"), ("Rounding (RM) :", "-0.02"),
      ("CASH :", "112.45")], "112.45", "106.10"),
    # German: Zwischensumme + MwSt. with no rounding
    ([("Zwischensumme", "100,00"), ("MwSt. 19%", "19,00"), ("Gesamt", "119,00")], "119.00", "100.00"),
])
def test_parts_above_add_up_to_the_amount_paid(rows, paid, not_paid):
    page = [[("SHOP SDN BHD", 100)]] + [[(label, 20), (value, 400)] for label, value in rows]
    cands = _cands(page)
    assert _by_value(cands, paid).features["eq_parts_above"] == 1.0
    assert all(c.features["eq_parts_above"] == 0.0 for c in cands if c.value == not_paid)


def test_change_printed_with_a_trailing_minus_still_checks_cash_minus_change():
    rows = [[("SHOP SDN BHD", 100)], [("TOTAL", 20), ("35.00", 400)], [("CASH", 20), ("55.00", 400)],
            [("Change Returned", 20), ("20.00-", 400)]]
    assert _by_value(_cands(rows), "35.00").features["eq_cash_change"] == 1.0


def test_stacked_label_column_keeps_each_value_with_its_own_label():
    # labels in one column, values in another, rows close together (OCR joins them into one row group)
    page = synthetic_page([[("SHOP SDN BHD", 100)]])
    from desktop.core.model import Line

    y = 200
    for i, (label, value) in enumerate((("Total Incl. GST", "34.80"), ("CASH", "100.00"), ("CHANGE", "65.20"))):
        page[0].lines.append(Line(label, (20, y + 18 * i, 200, y + 18 * i + 20), 0.99))
        page[0].lines.append(Line(value, (400, y + 18 * i + 1, 460, y + 18 * i + 21), 0.99))
    cands = candidate_sets(page, "receipt")["total"]
    assert _by_value(cands, "100.00").features["lab_cash"] == 1.0
    assert _by_value(cands, "100.00").features["lab_total"] == 0.0
    assert _by_value(cands, "34.80").features["lab_total"] == 1.0


@pytest.mark.parametrize("label, text, feature", [
    ("Invoice date", "15.08.2026", "lab_issue_date"),
    ("Rechnungsdatum", "15.08.2026", "lab_issue_date"),
    ("Date de facture", "15/08/2026", "lab_issue_date"),
    ("Due date", "14.09.2026", "lab_other_date"),
    ("Fällig am", "14.09.2026", "lab_other_date"),
    ("Échéance", "14/09/2026", "lab_other_date"),
])
def test_date_label_kinds(label, text, feature):
    cands = _cands([[("ACME GMBH", 100)], [(label, 20), (text, 300)]], "invoice", "date")
    assert cands and cands[0].features[feature] == 1.0


def test_billing_period_range_is_marked():
    cands = _cands([[("ACME LTD", 100)], [("Period: 1 July 2026 - 31 July 2026", 20)]], "invoice", "date")
    # both ends are kept when nothing else is printed (the model and the review threshold decide)
    assert len(cands) == 2 and all(c.features["range"] == 1.0 for c in cands)
    rows = [[("ACME LTD", 100)], [("Invoice date: 05.08.2026", 20)], [("Period: 1 July 2026 - 31 July 2026", 20)]]
    assert [c.value for c in _cands(rows, "invoice", "date")] == ["2026-08-05"]


@pytest.mark.parametrize("other", ["Due date", "Date de livraison :", "DATE DE FACTURE ASSOCIÉE :", "Auftrag-Datum :",
                                   "Période du"])
def test_a_date_after_another_dates_label_is_no_candidate(other):
    rows = [[("ACME GMBH", 100)], [("Invoice date: 03.06.2025", 20)], [(f"{other} 01.07.2025", 20)]]
    assert [c.value for c in _cands(rows, "invoice", "date")] == ["2025-06-03"]


@pytest.mark.parametrize("row", ["Kunden-Nr. : 009420", "GLN 4304171000002", "Facture liée FA-2017-0010",
                                 "Bestell-Nr : B123456789", "Handelsrechnung (380)"])
def test_another_numbers_label_is_no_invoice_number(row):
    rows = [[("ACME GMBH", 100)], [("Rechnung Nr. RE-2025-17", 20)], [(row, 20)]]
    assert [c.value for c in _cands(rows, "invoice", "invoice_number")] == ["RE-2025-17"]


def test_the_buyer_is_no_vendor_candidate():
    rows = [[("Lieferant", 20), ("Käufer", 320)], [("MUSTERLIEFERANT GMBH", 20), ("MUSTER-KUNDE GMBH", 320)]]
    values = {c.value for c in _cands(rows, "invoice", "vendor_name")}
    assert "MUSTERLIEFERANT GMBH" in values and "MUSTER-KUNDE GMBH" not in values


def test_vendor_name_broken_over_rows_is_one_candidate():
    cands = _cands([[("POPULAR BOOK", 150)], [("CO. (M) SDN BHD", 140)], [("NO 8, JALAN 7/118B", 120)]],
                   field="vendor_name")
    pair = _by_value(cands, "POPULAR BOOK CO. (M) SDN BHD")
    assert pair.features["pair"] == 1.0 and pair.features["inner_suffix_start"] == 1.0
    values = {c.value for c in cands}
    # neither half alone: a name never starts with its legal form, and a row whose next row starts
    # with one is not finished
    assert "CO. (M) SDN BHD" not in values and "POPULAR BOOK" not in values


@pytest.mark.parametrize("rows, whole, parts", [
    ([["AIK HUAT HARDWARE"], ["ENTERPRISE (SETIA ALAM) SDN BHD"]],
     "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD", ["AIK HUAT HARDWARE", "ENTERPRISE (SETIA ALAM) SDN BHD"]),
    ([["LIAN CHI VEGETARIAN"], ["RESTAURANT SDN BHD"]], "LIAN CHI VEGETARIAN RESTAURANT SDN BHD",
     ["RESTAURANT SDN BHD"]),
    ([["HOME MASTER HARDWARE &"], ["ELECTRICAL"]], "HOME MASTER HARDWARE & ELECTRICAL", ["HOME MASTER HARDWARE &"]),
    ([["KEDAI (SETIA"], ["ALAM) SDN BHD"]], "KEDAI (SETIA ALAM) SDN BHD", ["KEDAI (SETIA", "ALAM) SDN BHD"]),
    # one row of two boxes: the box before a legal form is not a name alone
    ([["AIK HUAT HARDWARE", "ENTERPRISE SDN BHD"]], "AIK HUAT HARDWARE ENTERPRISE SDN BHD",
     ["AIK HUAT HARDWARE", "ENTERPRISE SDN BHD"]),
])
def test_part_of_a_name_printed_over_rows_is_no_candidate(rows, whole, parts):
    cands = _cands([[(t, 150 + 200 * k) for k, t in enumerate(r)] for r in rows] + [[("NO 8, JALAN 7/118B", 120)]],
                   field="vendor_name")
    values = {c.value.rstrip(" &").replace("& ", "& ") for c in cands}
    assert _by_value(cands, whole)
    assert not values & {p.rstrip(" &") for p in parts}


def test_a_label_is_no_vendor_name():
    cands = _cands([[("Ansprechpartner: Hans Test", 150)], [("Stylesheet-Version: 2.6", 150)]], field="vendor_name")
    assert not {"Ansprechpartner", "Stylesheet-Version"} & {c.value for c in cands}


def test_owner_line_below_the_shop_header_is_no_candidate():
    cands = _cands([[("KEDAI MAJU", 150)], [("Owned by: MAJU HOLDINGS SDN BHD", 60)]], field="vendor_name")
    assert _by_value(cands, "KEDAI MAJU").features["owner"] == 0.0
    assert "MAJU HOLDINGS SDN BHD" not in {c.value for c in cands}


def test_glued_trade_words_are_split():
    from desktop.core.extraction.candidates import clean_name

    assert clean_name("SANYUSTATIONERYSHOP") == "SANYU STATIONERY SHOP"
    assert clean_name("GARDENIABAKERIES (KL) SDN BHD") == "GARDENIA BAKERIES (KL) SDN BHD"
    assert clean_name("SUPERMARKET") == "SUPERMARKET" and clean_name("STATIONERS") == "STATIONERS"


@pytest.mark.parametrize("brand", ["FAMILYMART", "TIMESBOOKSTORES", "WALMART SUPERCENTER", "COFFEESHOP CO"])
def test_a_short_shop_word_glued_in_a_brand_stays_glued(brand):
    # MART / SHOP / STORES are printed glued in brand names: no evidence of a space OCR lost
    from desktop.core.extraction.candidates import clean_name

    assert clean_name(brand) == brand


@pytest.mark.parametrize("stop", ["Licensee of McDonald's", "(GST ID No: 000504664064)", "Tel: 03-9201 6281",
                                  "TAX INVOICE", "10 Mar 2018 18:24",
                                  # telephone numbers printed without a label (MCMC numbering plan, E.164)
                                  "03-8051 9514", "019-7521215", "careline: 1800 88 1231", "+49 30 1234567",
                                  # North American Numbering Plan
                                  "(217) 555-0100", "217-555-0100", "1-800-555-0199"])
def test_address_spans_end_at_lines_no_address_holds(stop):
    rows = [[("KEDAI MAJU SDN BHD", 150)], [(stop, 100)], [("No 8, Jalan 7/118B,", 100)],
            [("56000 Kuala Lumpur", 100)], [(stop, 100)], [("SUNWAY VELOCITY", 100)]]
    values = {c.value for c in _cands(rows, field="vendor_address")}
    assert "No 8, Jalan 7/118B, 56000 Kuala Lumpur" in values
    assert not any(stop.split()[0] in v for v in values if "Jalan" in v)


def test_address_ends_at_the_country():
    rows = [[("POPULAR BOOK CO. (M) SDN BHD", 150)], [("No 8, Jalan 7/118B, Desa Tun Razak", 100)],
            [("56000 Kuala Lumpur, Malaysia", 100)], [("SUNWAY VELOCITY", 100)]]
    values = {c.value for c in _cands(rows, field="vendor_address")}
    assert "No 8, Jalan 7/118B, Desa Tun Razak 56000 Kuala Lumpur, Malaysia" in values
    assert not any("Malaysia" in v and "SUNWAY" in v for v in values)


def test_address_after_a_registration_line_is_a_candidate():
    rows = [[("BOOK TA.K (TAMAN DAYA) SDN BHD", 60)], [("(CO. REG: 575038-K)", 120)],
            [("NO.5, JALAN SAGU 18,", 100)], [("81100 JOHOR BAHRU, JOHOR.", 100)], [("TEL: 07-3541111", 100)]]
    cands = _cands(rows, field="vendor_address")
    _by_value(cands, "NO.5, JALAN SAGU 18, 81100 JOHOR BAHRU, JOHOR.")
    assert any(c.features["p_reg"] == 1.0 and c.features["n_contact"] == 1.0 for c in cands
               if c.value == "NO.5, JALAN SAGU 18, 81100 JOHOR BAHRU, JOHOR.")


@pytest.mark.parametrize("raw, clean", [
    ("99 SPEED MART 5/B", "99 SPEED MART S/B"),
    ("RAPID RAIL SUN BHD", "RAPID RAIL SDN BHD"),
    ("URBAN 1DEA SDN BHD (417940-M)", "URBAN IDEA SDN BHD"),
    ("99 SPEED MART S/B 519537-X)", "99 SPEED MART S/B"),
    ("#000002 BAIFU (M) Sdn Bhd", "BAIFU (M) Sdn Bhd"),
    ("MR. D.1.Y. (M) SDN BHD", "MR. D.I.Y. (M) SDN BHD"),
    ("7-ELEVEN MALAYSIA SDN BHD", "7-ELEVEN MALAYSIA SDN BHD"),
])
def test_clean_name(raw, clean):
    assert clean_name(raw) == clean


@pytest.mark.parametrize("raw, clean", [
    ("(1120908-M) NO.1, TAMAN SRI DENGKIL", "NO.1, TAMAN SRI DENGKIL"),
    ("CO-REG:750441-W LOT 1851-A", "LOT 1851-A"),
    ("LOT 2685 JLN GENTING KLANG 53300KL", "LOT 2685 JLN GENTING KLANG 53300 KL"),
    ("12, Jalan Tampoi 7/4", "12, Jalan Tampoi 7/4"),
    # the first word of a street address, misread in one letter
    ("Loi 3, Jalan Pelabur 23/1", "Lot 3, Jalan Pelabur 23/1"),
    ("Eot 3, Jalan Pelabur 23/1", "Lot 3, Jalan Pelabur 23/1"),
    ("N0.12, JALAN SS4C/5", "NO.12, JALAN SS4C/5"),
    ("A05-125 THE MARCO POLO", "A05-125 THE MARCO POLO"),  # a unit code, not a misread word
    ("Unit 3, Blk 5", "Unit 3, Blk 5"),
    # a letter read as punctuation inside a street or place word, a street word glued to its name
    ("NO.12,JA:AN SS4C/5,PETALING JAYA SE_ANGOR", "NO.12,JALAN SS4C/5,PETALING JAYA SELANGOR"),
    ("Lot 3, JalanPelabur 23/1", "Lot 3, Jalan Pelabur 23/1"),
    ("EL:AN ROAD", "EL:AN ROAD"),  # no address word fits: unchanged
    # punctuation never printed in an address
    ("LEBUHRAYA UTARA SELATAN., 84600,PAGOH,JOHOR", "LEBUHRAYA UTARA SELATAN, 84600,PAGOH,JOHOR"),
    ("LOT 2110&:2111 JALAN PERMAS UTARA 81750.JOHOR BAHRU", "LOT 2110&2111 JALAN PERMAS UTARA 81750 JOHOR BAHRU"),
    ("SHELL STATION PT15944.Mukim", "SHELL STATION PT15944.Mukim"),  # a lot number, not a postcode
    ("SELANGOR D.E.", "SELANGOR D.E."),
])
def test_clean_address(raw, clean):
    assert clean_address(raw) == clean


# -- the shipped model -------------------------------------------------------------------------

def test_shipped_model_is_plain_json_and_loads():
    raw = MODEL_FILE.read_bytes()
    assert len(raw) < 4 * 1024 * 1024
    data = json.loads(raw)  # plain JSON: nothing in it can run code
    assert data["format"] == MODEL_FORMAT
    model = load_model()
    assert model is not None and model.version == data["version"]
    for doc_type, names in (("receipt", {"total", "date", "vendor_name", "vendor_address"}),
                            ("invoice", {"total", "date", "vendor_name", "invoice_number"})):
        assert names <= set(model.fields(doc_type)), doc_type
        for name in names:
            s = model.scorer(doc_type, name)
            assert 0.0 <= s.review_threshold <= 1.01
            assert s.cal_coef.shape == (N_CALIBRATION_INPUTS,) and np.isfinite(s.cal_coef).all() and np.isfinite(s.cal_intercept)
            for z in ([5.0, 10.0, 1.0, 2.0, 2.5, 1.0, 0.0], [-8.0, 0.0, 0.0, 0.15, 0.3, 0.0, 4.0]):
                assert 0.0 < s.calibrate(z) < 1.0


def test_a_model_built_for_other_calibration_inputs_is_refused():
    spec = {"features": ["f0"], "trees": {"feature": [], "threshold": [], "left": [], "right": [], "value": [],
                                          "roots": []},
            "calibration": {"coef": [0.0] * (N_CALIBRATION_INPUTS - 1), "intercept": 0.0}, "threshold": 0.5}
    with pytest.raises(ValueError, match="rebuild it with benchmarks/train_fields.py"):
        FieldScorer(spec)


def test_a_value_at_even_odds_or_worse_is_always_flagged():
    # a field right on every training document gets a curve-chosen threshold near 0; the floor still
    # flags a value the model gives at most even odds (e.g. the 0.05 given under the score floor)
    from desktop.core.extraction.field_model import FLOOR_PROBABILITY, REVIEW_FLOOR

    spec = {"features": ["f0"], "trees": {"feature": [], "threshold": [], "left": [], "right": [], "value": [],
                                          "roots": []},
            "calibration": {"coef": [0.0] * N_CALIBRATION_INPUTS, "intercept": 0.0}, "threshold": 0.05}
    scorer = FieldScorer(spec)
    assert scorer.review_threshold == REVIEW_FLOOR and FLOOR_PROBABILITY < REVIEW_FLOOR
    model = load_model()
    assert model is not None
    for doc_type in ("receipt", "invoice"):
        for name in model.fields(doc_type):
            assert model.scorer(doc_type, name).review_threshold >= REVIEW_FLOOR


def test_shipped_lexicon_is_plain_json_of_words_seen_at_several_vendors():
    from desktop.core.extraction.field_model import load_lexicon

    path = MODEL_FILE.with_name("field_lexicon.json")
    data = json.loads(path.read_bytes())  # plain JSON: nothing in it can run code
    assert data["format"] == "shoebox-field-lexicon/1"
    words = load_lexicon("receipt")
    assert len(words) >= 20 and all(w.isupper() and len(w) >= 4 for w in words)
    assert min(words.values()) >= 3  # only words of several vendors' labelled names and addresses
    assert load_lexicon("no such type") == {}


def test_wrong_format_is_refused():
    with pytest.raises(ValueError, match="not a Shoebox field model"):
        FieldModel({"format": "pickle", "document_types": {}})


def test_tree_evaluator_matches_lightgbm():
    lgb = pytest.importorskip("lightgbm")
    from benchmarks.train_fields import PARAMS, export_trees

    rng = np.random.default_rng(7)
    x = rng.random((400, 6))
    x[:, 3] = (x[:, 3] > 0.5).astype(float)
    y = ((x[:, 0] + x[:, 3] > 1.0) ^ (rng.random(400) < 0.1)).astype(float)
    booster = lgb.train(PARAMS, lgb.Dataset(x, y), num_boost_round=25)
    spec = {"features": [f"f{i}" for i in range(6)], "trees": export_trees(booster, 6),
            "calibration": {"coef": [1.0] + [0.0] * (N_CALIBRATION_INPUTS - 1), "intercept": 0.0}, "threshold": 0.5}
    ours = FieldScorer(spec).raw_scores(x)
    assert np.allclose(ours, booster.predict(x, raw_score=True), atol=1e-6)


# -- behaviour by kind, through extract_fields with the shipped model ---------------------------

def _receipt(rows):
    return extract_fields(synthetic_page(rows, width=600), "receipt")


def test_the_amount_after_a_rounding_adjustment_is_the_total():
    rows = [[("KEDAI RUNCIT MAJU SDN BHD", 120)], [("NO 12, JALAN MAWAR 3,", 140)], [("43000 KAJANG, SELANGOR", 140)],
            [("TAX INVOICE", 220)], [("DATE: 12/03/2018", 20)], [("MILO 1KG", 20), ("12.90", 450)],
            [("SUGAR 2KG", 20), ("5.67", 450)], [("Total Incl. GST", 20), ("18.57", 450)],
            [("Rounding Adj", 20), ("-0.02", 450)], [("TOTAL", 20), ("18.55", 450)],
            [("CASH", 20), ("50.00", 450)], [("CHANGE", 20), ("31.45", 450)],
            [("GST SUMMARY", 20), ("Amount", 300), ("Tax", 450)], [("SR @ 6%", 20), ("17.52", 300), ("1.05", 450)]]
    total = _receipt(rows).fields["total"]
    assert total.value == "18.55"
    assert total.source == "ocr" and total.boxes


def test_cash_tendered_is_not_the_total():
    rows = [[("RESTORAN SELERA KITA", 120)], [("DATE: 01/02/2018", 20)], [("NASI LEMAK", 20), ("6.50", 450)],
            [("TEH TARIK", 20), ("2.20", 450)], [("TOTAL", 20), ("8.70", 450)], [("CASH", 20), ("10.00", 450)],
            [("CHANGE", 20), ("1.30", 450)]]
    assert _receipt(rows).fields["total"].value == "8.70"


def test_due_date_is_not_the_issue_date():
    rows = [[("ACME Widgets GmbH", 20)], [("Musterstraße 1, 10115 Berlin", 20)], [("Rechnung", 20)],
            [("Rechnungsnummer: RE-2026-0042", 20)], [("Rechnungsdatum: 15.08.2026", 20)],
            [("Fällig am: 14.09.2026", 20)], [("Gesamtbetrag", 20), ("1.190,00 €", 450)]]
    got = extract_fields(synthetic_page(rows), "invoice").fields
    assert got["date"].value == "2026-08-15"


def test_every_field_carries_a_probability_and_a_review_flag():
    rows = [[("RESTORAN SELERA KITA", 120)], [("DATE: 01/02/2018", 20)], [("TOTAL", 20), ("8.70", 450)]]
    result = _receipt(rows)
    assert result.model_version and result.model_version == load_model().version
    for name, f in result.fields.items():
        assert 0.0 <= f.confidence <= 1.0, name
        assert isinstance(f.needs_review, bool)
    # no address is printed: the model leaves it empty, and an empty field the model abstained on is
    # flagged "not found" (the benchmark counts it as flagged too), though it is no key field
    address = result.fields["vendor_address"]
    assert address.value is None and address.needs_review and flags.is_flagged(address)
    assert flags.flag_reason(address) == "not found"


# -- one flag for the form, the badge and the Problems sheet ------------------------------------

def test_flag_rules():
    assert flags.is_flagged(Field("total", "1.00", needs_review=True))
    assert not flags.is_flagged(Field("total", "1.00", confidence=0.3, needs_review=False))
    assert flags.is_flagged(Field("total", "1.00", problems=["subtotal + tax != total"]))
    assert flags.is_flagged(Field("total"), key=True) and not flags.is_flagged(Field("total"), key=False)
    edited = Field("total", "1.00", needs_review=True, edited=True, source="user")
    assert not flags.is_flagged(edited)



# (confidence, the review threshold extraction recorded, the reason's code, its English wording): every
# value flagged by its confidence gives the confidence and what it was compared with, in one phrase
@pytest.mark.parametrize(("confidence", "threshold", "code", "words"), [
    # the rules' 60 % (a value the model does not choose)
    (0.43, 0.6, Code.FIELD_LOW_CONFIDENCE, "confidence 43%, below the 60% needed to pass unchecked"),
    # a learned field's threshold (invoices: 92.72 %): a high confidence below it is said the same way
    (0.86, 0.9272, Code.FIELD_LOW_CONFIDENCE, "confidence 86%, below the 93% needed to pass unchecked"),
    # rounded so that a value just under the threshold never reads as equal to it
    (0.9269, 0.9272, Code.FIELD_LOW_CONFIDENCE, "confidence 92%, below the 93% needed to pass unchecked"),
    # a threshold above 100 %: the field is always checked, whatever its confidence
    (0.993, 1.01, Code.FIELD_ALWAYS_CHECKED, "confidence 99%; this field is always checked on this kind of document"),
    # flagged as read with no threshold it is below (the model could not score it; an older file)
    (0.993, None, Code.FIELD_NOT_SURE, "confidence 99%, but flagged when it was read: not sure enough to pass "
                                       "unchecked"),
    (0.95, 0.9272, Code.FIELD_NOT_SURE, "confidence 95%, but flagged when it was read: not sure enough to pass "
                                        "unchecked"),
])
def test_a_confidence_flag_says_the_confidence_and_the_threshold(confidence, threshold, code, words):
    f = Field("total", "1.00", confidence=confidence, needs_review=True, review_threshold=threshold)
    assert [d.code for d in flags.flag_diagnostics(f)] == [code]
    assert flags.flag_reason(f) == words
    assert "置信度" in flags.flag_reason(f, language="zh")


def test_extraction_records_the_threshold_each_value_was_compared_with():
    """A learned field carries its model threshold, a rules' field the heuristic one; both go through JSON."""
    from desktop.core.extraction import HEURISTIC_REVIEW_THRESHOLD

    fields = extract_fields(synthetic_page([[("SHOP SDN BHD", 10)], [("No. 1 Jalan Besar", 10)],
                                            [("12/03/2024 10:15", 10)], [("TOTAL", 10), ("11.50", 400)]]),
                            "receipt").fields
    model = load_model()
    for name, f in fields.items():
        if f.value is None or f.source == "qr":
            continue
        scorer = model.scorer("receipt", name) if model else None
        if scorer is not None and f.review_threshold is not None:
            assert f.review_threshold == scorer.review_threshold, name
        elif scorer is None:
            assert f.review_threshold == HEURISTIC_REVIEW_THRESHOLD, name
        assert Field.from_dict(name, f.to_dict()).review_threshold == f.review_threshold
    assert fields["total"].review_threshold is not None


def test_problems_sheet_lists_exactly_the_flagged_fields(tmp_path):
    from openpyxl import load_workbook

    from desktop.core.export import export

    doc = Document(source="r.jpg", document_type="receipt", fields={
        "vendor_name": Field("vendor_name", "SHOP", confidence=0.95),
        "date": Field("date", "2018-01-02", confidence=0.41, needs_review=True),
        "total": Field("total", "8.70", confidence=0.99, problems=["subtotal + tax != total"]),
        "tax": Field("tax", "0.50", confidence=0.2),  # low, but not flagged by extraction: not listed
    })
    out = tmp_path / "o.xlsx"
    export([doc], out)
    ws = load_workbook(out)["Problems"]
    rows = [tuple(c.value for c in r) for r in ws.iter_rows(min_row=2)]
    assert sorted(r[2] for r in rows) == ["Date", "Total"]
    assert len(rows) == len(flags.flagged_fields(doc)) == 2


def test_legacy_session_fields_get_the_old_flag():
    old = Field.from_dict("total", {"value": "1.00", "confidence": 0.4, "source": "ocr"})
    new = Field.from_dict("total", {"value": "1.00", "confidence": 0.4, "source": "ocr", "needs_review": False})
    assert old.needs_review and not new.needs_review


# -- calibration on held-out vendors, with the real training code --------------------------------

@pytest.mark.samples
def test_calibration_holds_on_held_out_vendors(samples):
    """Train on the line transcripts of half the vendors of sroie_dev, score the other half: the
    calibrated confidence of the chosen totals tracks their accuracy (loose bound: small sample)."""
    pytest.importorskip("lightgbm")
    pytest.importorskip("sklearn")
    from benchmarks import train_fields as tf
    from desktop.core.model import Line, PageResult

    folder = samples / "sroie_dev"
    docs = []
    for key in sorted(folder.glob("*.key.json"))[:100]:
        stem = key.name[: -len(".key.json")]
        lines = []
        for row in (folder / f"{stem}.box.txt").read_text(encoding="utf-8", errors="replace").splitlines():
            parts = row.split(",", 8)
            if len(parts) < 9 or not parts[8].strip():
                continue
            xs, ys = [float(v) for v in parts[0:8:2]], [float(v) for v in parts[1:8:2]]
            lines.append(Line(parts[8], (min(xs), min(ys), max(xs), max(ys)), 0.99))
        if not lines:
            continue
        w = int(max(ln.box[2] for ln in lines)) + 20
        h = int(max(ln.box[3] for ln in lines)) + 20
        truth = json.loads(key.read_text(encoding="utf-8"))
        docs.append(tf.Doc(stem, "sroie_dev", "receipt", [PageResult(1, w, h, lines)],
                           {"total": tf.normalise_for_compare("total", truth.get("total"))},
                           tf._fold_key(truth.get("company"))))
    tf.build(docs)
    groups = sorted({d.group for d in docs})
    random.Random(3).shuffle(groups)
    held = set(groups[: len(groups) // 2])
    train = [d for d in docs if d.group not in held]
    test = [d for d in docs if d.group in held]
    features = tf.feature_names(docs, "total")
    cv = tf.cross_validate(train, "total", features, 3, verbose=False)
    found = np.array([r["found"] for r in cv["records"]])
    lr = tf._calibrator(cv["z"][found], cv["correct"][found])
    booster = tf._train(train, "total", features)
    probs, right = [], []
    for d in test:
        cands = d.sets.get("total", [])
        if not cands:
            continue
        b, _s, z = tf._pick(booster, cands, features)
        probs.append(float(lr.predict_proba([z])[0, 1]))
        right.append(tf.same("total", cands[b].value, d.truth["total"]))
    assert len(probs) >= 25
    assert abs(np.mean(probs) - np.mean(right)) <= 0.15
    confident = [r for p, r in zip(probs, right) if p >= 0.9]
    if len(confident) >= 10:
        assert np.mean(confident) >= 0.8


def test_a_stray_accent_on_a_thermal_print_is_read_without_it():
    filler = [[(f"ITEM {i} NASI LEMAK AYAM GORENG 1 X 3.50", 20)] for i in range(8)]
    rows = [[("SANYU STATIONERY SHOP", 150)], [("NO. 31G&33G, JALAN SETIA INDAH X", 60)], [("40170 SETIA ÁLAM", 60)],
            [("Tel: +603-3362 4137", 60)]] + filler
    values = {c.value for c in _cands(rows, field="vendor_address")}
    assert "NO. 31G&33G, JALAN SETIA INDAH X 40170 SETIA ALAM" in values


def test_accents_of_a_language_that_has_them_stay():
    rows = [[("Société Générale Équipements", 150)], [("12 rue de l'Église", 60)], [("75001 Paris", 60)],
            [("Référence : désignation des matériaux, quantité livrée", 20)]] + \
        [[(f"Article {i} prévu à l'entrepôt, délai écoulé", 20)] for i in range(6)]
    values = {c.value for c in _cands(rows, "invoice", field="vendor_name")}
    assert "Société Générale Équipements" in values


@pytest.mark.parametrize("printed, read", [
    ("TAMAN SRI PUTRA. 81200 JOHOR BAHRU", "TAMAN SRI PUTRA, 81200 JOHOR BAHRU"),  # a misread comma
    ("Jalan Wangsa Delima 12. Wangsa Maju", "Jalan Wangsa Delima 12, Wangsa Maju"),
    ("NO. 5, JALAN SAGU 18", "NO. 5, JALAN SAGU 18"),  # an abbreviation's full stop
    ("Jln. Ampang 12, 50450 Kuala Lumpur", "Jln. Ampang 12, 50450 Kuala Lumpur"),
    ("Hauptstr. 5, 10115 Berlin", "Hauptstr. 5, 10115 Berlin"),
    ("SELANGOR D.E.", "SELANGOR D.E."),
])
def test_a_full_stop_inside_an_address_is_read_as_a_comma(printed, read):
    rows = [[("KEDAI MAJU SDN BHD", 150)], [(printed, 100)], [("TEL: 03-9201 6281", 60)]]
    assert read in {c.value for c in _cands(rows, field="vendor_address")}


@pytest.mark.parametrize("street", ["Jalan Lapangan Terbang Subang", "Jaīan Lapängan Terbang Subang"])
def test_a_street_without_a_number_starts_an_address(street):
    # the street row holds no number and the postcode row below starts with one: the street is no shop
    # name, also where OCR misread its street word with stray accents ("Jaīan")
    rows = [[("TAX INVOICE", 100)], [("BHPetrol Subang Airport", 60)], [(street, 60)], [("47200 Subang", 60)],
            [("Selangor", 60)], [("CO. REG. NO: 000948487-V", 60)]] + \
        [[(f"Item number {i} of the sale today", 20)] for i in range(8)]
    values = {c.value for c in _cands(rows, field="vendor_address")}
    assert "Jalan Lapangan Terbang Subang 47200 Subang Selangor" in values


@pytest.mark.parametrize("name_row", ["MYDIN MART SRI MUDA", "SUSHI MENTAI PLAZA DANAU"])
def test_a_shop_name_above_the_street_number_is_not_part_of_the_address(name_row):
    rows = [[("TRI SHAAS SDN BHD", 150)], [(name_row, 100)], [("4-20, Jalan Ria 25/62", 60)],
            [("40400 Shah Alam Selangor", 60)]]
    values = {c.value for c in _cands(rows, field="vendor_address")}
    assert "4-20, Jalan Ria 25/62 40400 Shah Alam Selangor" in values
    assert not any(v.startswith(name_row) and "Jalan" in v for v in values)


# -- review thresholds (benchmarks/train_fields.py) -----------------------------------------------

def _calibrated_records(skills: dict[str, float], n: int = 400, seed: int = 3) -> dict[str, list[dict]]:
    """Synthetic out-of-fold records whose confidences are calibrated: each value is right with
    probability ``p``; a field of higher ``skill`` has its confidences nearer 0 and 1."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, skill in skills.items():
        p = 1 / (1 + np.exp(-rng.normal(2.0, skill, n)))
        correct = rng.random(n) < p
        out[name] = [{"p": float(a), "correct": bool(c), "found": True, "fold": i % 5}
                     for i, (a, c) in enumerate(zip(p, correct))]
    return out


def test_one_threshold_keeps_the_expected_silent_errors_within_the_budget():
    from benchmarks.train_fields import choose_thresholds, nested_thresholds
    from desktop.core.extraction.field_model import REVIEW_FLOOR

    SILENT_TARGET = 0.015  # the budget, in expected errors
    recs = _calibrated_records({"easy": 4.0, "hard": 1.0})
    chosen = choose_thresholds(recs, 800, SILENT_TARGET)
    t = chosen["easy"]
    assert chosen["hard"] == t and REVIEW_FLOOR <= t <= 1.0  # one threshold for the document type
    shown = [r for rec in recs.values() for r in rec if r["p"] >= t]
    assert sum(1 - r["p"] for r in shown) <= SILENT_TARGET * 800  # the budget, in expected errors
    lower = max(r["p"] for rec in recs.values() for r in rec if r["p"] < t)  # one step lower breaks it
    assert sum(1 - r["p"] for rec in recs.values() for r in rec if r["p"] >= lower) > SILENT_TARGET * 800
    # the field whose confidences separate right from wrong is flagged less
    flagged = {n: sum(r["p"] < t for r in rec) for n, rec in recs.items()}
    assert flagged["easy"] < flagged["hard"]
    # calibrated confidences: the errors actually shown stay near the budget, and so held out
    silent = sum(1 for r in shown if not r["correct"])
    assert silent <= 2 * SILENT_TARGET * 800
    nested = nested_thresholds({n: {"records": rec} for n, rec in recs.items()}, SILENT_TARGET)
    assert 0.0 <= nested["silent"] <= 2 * SILENT_TARGET and 0.0 < nested["flagged"] < 1.0


def test_the_budget_is_the_largest_that_meets_the_target_held_out():
    import benchmarks.train_fields as tf

    curve = {0.005: {"silent": 0.012, "flagged": 0.40}, 0.01: {"silent": 0.018, "flagged": 0.30},
             0.015: {"silent": 0.019, "flagged": 0.26}, 0.02: {"silent": 0.024, "flagged": 0.22}}
    assert tf.choose_budget(curve) == 0.015
    assert tf.choose_budget({0.005: {"silent": 0.05, "flagged": 0.1}, 0.01: {"silent": 0.06, "flagged": 0.05}}) == 0.005
    # on calibrated records: a larger budget shows more values and lets more errors through, held out too
    splits = [{n: {"records": rec} for n, rec in _calibrated_records({"a": 2.0, "b": 1.5}, seed=s).items()}
              for s in (1, 2)]
    front = tf.frontier(splits)
    assert list(front) == list(tf.BUDGETS)
    assert front[tf.BUDGETS[0]]["flagged"] >= front[tf.BUDGETS[-1]]["flagged"]
    assert front[tf.BUDGETS[0]]["silent"] <= front[tf.BUDGETS[-1]]["silent"]
    held = tf.held_out_budget_check(splits)
    assert 0.0 <= held["silent"] <= 2 * tf.SILENT_TARGET and 0.0 < held["flagged"] < 1.0


def test_no_threshold_keeps_the_budget_then_every_value_is_flagged():
    from benchmarks.train_fields import choose_thresholds

    recs = {"x": [{"p": 0.6, "correct": True, "found": True, "fold": 0}] * 10}
    assert choose_thresholds(recs, 10, 0.015) == {"x": 1.01}
    # values not found are flagged whatever the threshold and count in no expected error
    recs = {"x": [{"p": 0.999, "correct": True, "found": True, "fold": 0}] * 10 +
                 [{"p": 0.0, "correct": False, "found": False, "fold": 0}] * 5}
    assert choose_thresholds(recs, 15, 0.015)["x"] <= 0.999


def _skewed_page(texts: list[str], x0: float = 150, step: float = 28, height: float = 60):
    """Lines of a scan tilted a few degrees: each axis-aligned box is taller than its text (``height``),
    so the boxes of consecutive lines overlap vertically by more than half their height."""
    from desktop.core.model import Line, PageResult

    lines = [Line(text=t, box=(x0 + 5 * i, 200 + step * i, x0 + 5 * i + 9 * len(t), 200 + step * i + height),
                  confidence=0.99) for i, t in enumerate(texts)]
    return [PageResult(number=1, width=900, height=1400, lines=lines)]


def test_stacked_lines_of_a_skewed_scan_are_rows_of_their_own():
    from desktop.core.extraction.candidates import Rows
    from desktop.core.extraction.layout import Layout

    texts = ["LIGHTROOM GALLERY SDN BHD", "No: 28, JALAN ASTANA 1C,", "BANDAR BUKIT RAJA, 41050",
             "KLANG SELANGOR D.E, MALAYSIA", "ROC No.: (1072825-A)"]
    rows = Rows(Layout(_skewed_page(texts)))
    assert rows.texts[:5] == texts
    values = {c.value for c in candidate_sets(_skewed_page(texts), "receipt")["vendor_address"]}
    assert "No: 28, JALAN ASTANA 1C, BANDAR BUKIT RAJA, 41050 KLANG SELANGOR D.E, MALAYSIA" in values
    # lines side by side on one row still make one row, however their boxes differ in height
    side = Rows(Layout(synthetic_page([[("TOTAL", 40), ("12.50", 400)], [("CASH", 40), ("20.00", 400)]])))
    assert side.texts == ["TOTAL 12.50", "CASH 20.00"]


@pytest.mark.parametrize("row, is_time", [
    ("NO.5: 55,57 & 59, JALAN SAGU 18,", False),  # a house number and its colon, then the next numbers
    ("Date : 25/12/2018 8:13:39 PM", True), ("13:05", True), ("Time: 10: 30 AM", True), ("8: 13: 39", True)])
def test_a_spaced_colon_between_numbers_is_no_time_of_day(row, is_time):
    from desktop.core.extraction.candidates import _text_features_of

    assert bool(_text_features_of(row)["date"]) is is_time


@pytest.mark.parametrize("field_row", ["Site: 1046", "TABLE:T10", "Cashier : KELLY", "Rcpt#:A18000010451"])
def test_a_tills_field_row_is_no_part_of_the_address(field_row):
    rows = [[("SUN WONG KUT SDN BHD", 150)], [(field_row, 100)], [("176 JLN SUNGEI BESI", 100)],
            [("57100 KUALA LUMPUR", 100)], [("Telephone: 03-9221345", 100)]]
    values = {c.value for c in _cands(rows, field="vendor_address")}
    assert "176 JLN SUNGEI BESI 57100 KUALA LUMPUR" in values
    assert not any(field_row.split(":")[0].split("#")[0].strip() in v for v in values if "SUNGEI" in v)
    # a street address that starts with its number label is one: "NO: 28, JALAN ASTANA 1C"
    rows = [[("KEDAI SDN BHD", 150)], [("No: 28", 100)], [("JALAN ASTANA 1C, 41050 KLANG", 100)]]
    assert "No: 28 JALAN ASTANA 1C, 41050 KLANG" in {c.value for c in _cands(rows, field="vendor_address")}


def test_the_value_level_with_its_label_on_a_skewed_scan():
    """A skewed scan's totals block: each label's box reaches the values above and below it; the
    value level with the label is its value (not the rightmost of the stacked column)."""
    from desktop.core.extraction.layout import Layout
    from desktop.core.model import Line, PageResult

    rows = [("Total Incl. GST@6%", 48, 357, 1033, 1079, "RM 34.80", 560, 722, 1024, 1066),
            ("CASH", 50, 126, 1075, 1112, "RM 100.00", 562, 723, 1058, 1100),
            ("CHANGE", 48, 159, 1106, 1147, "RM 65.20", 580, 723, 1091, 1134)]
    lines = [Line(text="KEDAI MAJU SDN BHD", box=(100, 200, 420, 240), confidence=0.99)]
    for label, a, b, c, d, value, e, f, g, h in rows:
        lines += [Line(text=label, box=(a, c, b, d), confidence=0.99), Line(text=value, box=(e, g, f, h), confidence=0.99)]
    layout = Layout([PageResult(number=1, width=800, height=1400, lines=lines)])
    label = next(ln for ln in layout.lines if ln.text.startswith("Total"))
    assert [o.text for o in layout.right_of(label)] == ["RM 34.80"]
    cash = next(ln for ln in layout.lines if ln.text == "CASH")
    assert [o.text for o in layout.right_of(cash)] == ["RM 100.00"]
    from desktop.core.extraction.receipt import pick_total

    total, _sub = pick_total(layout)
    assert total is not None and total.value == "34.80"


def _turned_receipt(degrees: float):
    """A small receipt's lines turned ``degrees`` about the page centre (a photo taken askew): each
    line's polygon turned, its box the polygon's axis-aligned bounds, as an engine reports them."""
    import math

    from desktop.core.model import Line, PageResult

    rows = [[("BLUE HERON CAFE SDN BHD", 60)], [("12 Jalan Mawar, 50450 Kuala Lumpur", 60)],
            [("Date: 14/03/2024", 60)], [("Croissant", 60), ("9.00", 480)], [("Iced Lemon Tea", 60), ("11.30", 480)],
            [("Subtotal", 60), ("20.30", 480)], [("SST 6%", 60), ("1.22", 480)], [("TOTAL", 60), ("21.52", 480)],
            [("Cash", 60), ("50.00", 480)], [("Change", 60), ("28.48", 480)]]
    a = math.radians(degrees)
    c, s, cx, cy = math.cos(a), math.sin(a), 300.0, 300.0
    lines = []
    for i, row in enumerate(rows):
        y = 100 + 40 * i
        for text, x0 in row:
            quad = [(x0, y), (x0 + 14 * len(text), y), (x0 + 14 * len(text), y + 30), (x0, y + 30)]
            poly = [(cx + (x - cx) * c - (y_ - cy) * s, cy + (x - cx) * s + (y_ - cy) * c) for x, y_ in quad]
            xs, ys = [p[0] for p in poly], [p[1] for p in poly]
            lines.append(Line(text=text, box=(min(xs), min(ys), max(xs), max(ys)), confidence=0.99, polygon=poly))
    return [PageResult(number=1, width=700, height=700, lines=lines)]


@pytest.mark.parametrize("degrees", [-7, -3, 0, 3, 7])
def test_a_receipt_photographed_askew_reads_as_upright(degrees):
    """Rows, labels and their values are found on the lines turned back by the page's skew; the
    fields' outlines stay in page pixels."""
    from desktop.core.extraction.layout import Layout
    from desktop.core.layout import skew_angle

    pages = _turned_receipt(degrees)
    assert (skew_angle(pages[0].lines) is None) == (degrees == 0)
    layout = Layout(pages)
    label = next(ln for ln in layout.lines if ln.text == "TOTAL")
    assert [o.text for o in layout.right_of(label)] == ["21.52"]
    fields = extract_fields(pages, "receipt").fields
    assert fields["total"].value == "21.52"
    assert fields["subtotal"].value == "20.30" and fields["tax"].value == "1.22"
    line = next(ln for ln in pages[0].lines if ln.text == "21.52")
    assert fields["total"].box == tuple(line.box)  # the outline is where the engine saw the value


def _zh_receipt(tax_id: str = "91310115MA1K4ABC3E"):
    return synthetic_page([[("上海星河科技有限公司", 60)], [("地址：上海市浦东新区张江路88号", 60)],
                           [(f"统一社会信用代码：{tax_id}", 60)], [("销售小票", 200)], [("日期：2024年05月20日", 60)],
                           [("单号：SH20240520001", 60)], [("打印纸A4 2", 60), ("58.00", 450)],
                           [("签字笔 10", 60), ("25.00", 450)], [("小计：83.00", 60)], [("税额：10.79", 60)],
                           [("合计：93.79", 60)], [("谢谢惠顾", 200)]])


def test_a_chinese_receipts_labelled_fields():
    """A Chinese sales slip: the address after its label (地址), the unified social credit code as the
    vendor's tax ID with its GB 32100-2015 check character verified, the document title (销售小票) and
    field rows (日期：, 单号：) never the vendor or the address, renminbi from the credit code."""
    from desktop.core.extraction.layout import Layout
    from desktop.core.extraction.receipt import pick_vendor

    vendor, _row = pick_vendor(Layout(_zh_receipt()))
    assert vendor is not None and vendor.value == "上海星河科技有限公司"
    fields = extract_fields(_zh_receipt(), "receipt").fields
    assert fields["vendor_address"].value == "上海市浦东新区张江路88号"
    assert fields["vendor_tax_id"].value == "91310115MA1K4ABC3E" and not fields["vendor_tax_id"].problems
    assert fields["currency"].value == "CNY"
    assert fields["total"].value == "93.79"
    wrong = extract_fields(_zh_receipt("91310115MA1K4ABC3X"), "receipt").fields["vendor_tax_id"]
    assert wrong.value == "91310115MA1K4ABC3X"  # kept as printed, and flagged: never dropped silently
    assert [p.code for p in wrong.problems] == ["tax_id_check_character"] and flags.is_flagged(wrong)


@pytest.mark.parametrize("label", ["Address:", "ADDRESS :", "Adresse :", "Alamat:"])
def test_an_address_after_its_label_is_the_rest_of_the_row(label):
    rows = [[("KEDAI MAJU SDN BHD", 150)], [(f"{label} 12 Jalan Mawar, 50450 Kuala Lumpur", 60)],
            [("Tel: 03-1234 5678", 60)], [("TOTAL", 60), ("12.50", 450)]]
    fields = extract_fields(synthetic_page(rows), "receipt").fields
    assert fields["vendor_address"].value == "12 Jalan Mawar, 50450 Kuala Lumpur"


@pytest.mark.parametrize(("confidence", "nines"), [(0.9, 1.0), (0.99, 2.0), (0.5, 0.30103), (1.0, 4.0), (0.0, 0.0)])
def test_engine_confidence_enters_calibration_as_nines(confidence: float, nines: float) -> None:
    """Recogniser confidences crowd near 1 (0.95 wrong, 0.99 right, on receipts' addresses): the
    calibration reads them as -log10(1 - c), capped at 4, so that gap is as wide as 0.5 against 0.95."""
    from desktop.core.extraction.field_model import _nines

    assert _nines(confidence) == pytest.approx(nines, abs=1e-4)


@pytest.mark.parametrize("value, raw, label", [
    ("Ansprechpartner", "Ansprechpartner: Hans Test", True),
    ("Kontakt (Büro)+", "  Kontakt (Büro)+  ：Hans", True),  # regex metacharacters are literal; full-width colon
    ("Kontakt (Büro)+", "Kontakt (Büro): Hans", False),
    ("KEDAI", "MY KEDAI: 12", False),  # the value must begin the row
    ("KEDAI MAJU", "KEDAI MAJU SDN BHD", False),
])
def test_a_value_printed_as_a_label_is_a_fragment(value, raw, label):
    from desktop.core.extraction.candidates import Rows, _is_fragment
    from desktop.core.extraction.layout import Layout

    rows = Rows(Layout(synthetic_page([[(raw, 150)]])))
    assert _is_fragment(value, raw, 0, 0, rows) is label


# -- the SROIE key audit (benchmarks/sroie_label_audit.tsv) ----------------------------------------

def test_label_audit_rows_name_a_key_value_and_its_evidence():
    from benchmarks.train_fields import load_audit

    audit = load_audit()
    assert audit, "the audit file lists no correction"
    raw = [ln.split("\t") for ln in
           (Path(__file__).resolve().parent.parent / "benchmarks" / "sroie_label_audit.tsv").read_text(encoding="utf-8")
           .splitlines() if ln.strip() and not ln.startswith("#")][1:]
    for doc, field, was, now, evidence in raw:
        assert doc.startswith(("sroie/", "sroie_dev/")) and field in ("company", "address", "total", "date")
        assert was != now and now.strip() and len(evidence) > 20, (doc, field)


def test_label_audit_matches_the_published_keys_and_is_applied(tmp_path):
    import benchmarks.train_fields as tf
    from benchmarks.scoring import SAMPLES

    audit = tf.load_audit()
    keys = {d: SAMPLES / f"{d}.key.json" for d, _f in audit}
    if not all(k.is_file() for k in keys.values()):
        pytest.skip("the SROIE samples are not beside the checkout")
    for (doc, field), (was, _now) in audit.items():
        assert (json.loads(keys[doc].read_text(encoding="utf-8")).get(field) or "") == was, (doc, field)
    # applied by load_receipts: a recording of one audited receipt, its total corrected, its vendor kept
    doc, field = next((d, f) for d, f in audit if f == "total")
    corpus, stem = doc.split("/")
    (tmp_path / f"{corpus}__{stem}.jpg.json").write_text(json.dumps(
        {"pages": [p.to_dict() for p in synthetic_page([[("SHOP SDN BHD", 100)]])]}), encoding="utf-8")
    docs = tf.load_receipts(tmp_path, audit)
    assert [d.name for d in docs] == [doc]
    assert docs[0].truth["total"] == tf.normalise_for_compare("total", audit[(doc, field)][1])
    assert tf.load_receipts(tmp_path, {})[0].truth["total"] != docs[0].truth["total"]


def test_label_audit_refuses_a_key_that_changed(tmp_path):
    import benchmarks.train_fields as tf
    from benchmarks.scoring import SAMPLES

    (doc, field), (was, now) = next(iter(tf.load_audit().items()))
    if not (SAMPLES / f"{doc}.key.json").is_file():
        pytest.skip("the SROIE samples are not beside the checkout")
    corpus, stem = doc.split("/")
    (tmp_path / f"{corpus}__{stem}.jpg.json").write_text(json.dumps(
        {"pages": [p.to_dict() for p in synthetic_page([[("SHOP SDN BHD", 100)]])]}), encoding="utf-8")
    with pytest.raises(ValueError, match="not"):
        tf.load_receipts(tmp_path, {(doc, field): (was + " changed", now)})


_AUDIT_HEAD = "# header\ndocument\tfield\tkey\taudited\tevidence\n"
_AUDIT_ROW = "sroie_dev/sroie_149\ttotal\t26.82\t26.80\tROUNDING -0.02, AMOUNT TO BE PAID 26.80\n"


@pytest.mark.parametrize("text, message", [
    (_AUDIT_ROW, "line 1: expected the column line"),  # the column line deleted
    ("# only comments\n", "no column line"),
    (_AUDIT_HEAD + "sroie_dev/sroie_149\ttotal\t26.82\t26.80\n", "line 3: 4 tab-separated columns, expected 5"),
    (_AUDIT_HEAD + _AUDIT_ROW.replace("\n", "\t\n"), "line 3: 6 tab-separated columns"),
    (_AUDIT_HEAD + _AUDIT_ROW.replace("\ttotal\t", "\tTotal\t"), "line 3: field 'Total' is none of"),
    (_AUDIT_HEAD + _AUDIT_ROW + _AUDIT_ROW.replace("26.80\t", "26.85\t"), "line 4: a second correction of"),
    (_AUDIT_HEAD + _AUDIT_ROW.replace("\t26.80\t", "\t26.82\t"), "must change the key"),
])
def test_a_malformed_audit_file_is_refused_naming_its_line(tmp_path, text, message):
    from benchmarks.train_fields import load_audit

    path = tmp_path / "audit.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_audit(path)


def test_an_audit_row_naming_no_receipt_is_refused(tmp_path):
    import benchmarks.train_fields as tf

    with pytest.raises(ValueError, match="no key file .* for sroie_dev/sroie_0333"):
        tf.load_receipts(tmp_path, {("sroie_dev/sroie_0333", "total"): ("", "8.20")})


# -- an address that is none (a receipt that prints no address) ------------------------------------

@pytest.mark.parametrize("value, plausible", [
    ("NO 8, JALAN KENANGA 3, 68000 AMPANG", True),
    ("DAISO JAPAN, IOI MALL", True),  # no number, a mall
    ("Hauptstraße 5, 10115 Berlin", True),
    ("12 Rue de la Paix", True),
    ("Tax Receipt", False),  # a heading
    ("T.A.S Leisure Sdn Bhd (256864-P)", False),  # a company line: its only digits are the registration no.
    ("Thank you, please come again", False),
    ("THANK YOU FOR SHOPPING WITH US!", False),  # QA (a WildReceipt slogan given as the address at 97%)
    ("Terima kasih, sila datang lagi", False),  # Malay
    ("Vielen Dank für Ihren Einkauf - Filiale 24", False),  # a digit, but a courtesy line
    ("Merci de votre visite", False),
    ("1 UTAMA SHOPPING CENTRE, LEBUH BANDAR UTAMA", True),  # "shopping" with a place word
    ("MID VALLEY MEGAMALL SHOPPING ARCADE", True),
    ("", False),
])
def test_looks_like_address(value, plausible):
    from desktop.core.extraction.candidates import looks_like_address

    assert looks_like_address(value) is plausible


def test_a_chosen_address_that_is_no_address_is_flagged_with_its_reason(monkeypatch):
    from desktop.core.diagnostics import Code
    from desktop.core.extraction import field_model

    # QA: a receipt that prints no address got its "Tax Receipt" heading as the address at 99.95%
    rows = [[("CHILI'S GRILL & BAR KLCC", 100)], [("T.A.S LEISURE SDN BHD (256864-P)", 100)],
            [("Tel: 03-2164 1400", 100)], [("Tax Receipt", 200)], [("30 Dec 17 18:40:57", 100)],
            [("TOTAL", 20), ("102.40", 400)], [("CASH", 20), ("110.00", 400)], [("CHANGE", 20), ("7.60", 400)]]
    pages = synthetic_page(rows)
    original = field_model.FieldScorer.choose

    def choose_heading(self, candidates):
        got = original(self, candidates)
        heading = [c for c in candidates if c.value == "Tax Receipt"]
        if candidates and candidates[0].field == "vendor_address" and heading:
            return field_model.Choice(heading[0], 0.9995, 1.0, False, 2.0)  # as the model chose it
        return got

    monkeypatch.setattr(field_model.FieldScorer, "choose", choose_heading)
    address = extract_fields(pages, "receipt").fields["vendor_address"]
    assert address.value == "Tax Receipt" and address.needs_review and address.confidence <= 0.05
    assert [p.code for p in address.problems] == [Code.NOT_AN_ADDRESS]
    assert "does not look like a postal address" in address.problems[0].message("en")


@pytest.mark.parametrize(("row", "name"), [
    ("Harborline Marine Supply, Inc. INVOICE", "Harborline Marine Supply, Inc."),
    ("Kessler & Vogt GmbH RECHNUNG", "Kessler & Vogt GmbH"), ("Atelier Dupont SARL FACTURE", "Atelier Dupont SARL"),
    ("Lion City Engineering Pte. Ltd. TAX INVOICE", "Lion City Engineering Pte. Ltd."),
    ("Ferramenta Rossi S.r.l. FATTURA", "Ferramenta Rossi S.r.l."),
    ("INVOICE", "INVOICE"),  # the heading alone is left to the heading rules
])
def test_a_document_heading_read_on_the_names_row_is_no_part_of_the_name(row, name):
    from desktop.core.extraction.candidates import clean_name

    assert clean_name(row) == name


@pytest.mark.parametrize("price", ["8,95", "14.50", "€ 3.20", "RM 11.50 SR", "6.00 A"])
def test_item_lines_under_the_header_are_no_address(price):
    # words, then a price in its own box at the row's end: an item line, never a postal address
    rows = [[("FIETSENMAKER DE SPAAK", 150)], [("Oudegracht 212", 100)], [("3511 NV Utrecht", 100)],
            [("Binnenband 28", 60), (price, 420)], [("Fietslamp achter LED", 60), (price, 420)]]
    values = {c.value for c in _cands(rows, field="vendor_address")}
    assert any("Oudegracht 212" in v for v in values)
    assert not any("Binnenband" in v or "Fietslamp" in v for v in values)
