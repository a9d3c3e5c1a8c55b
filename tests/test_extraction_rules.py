"""Table-driven tests of the general extraction rules: receipt vendor / address / tax / subtotal,
company-name clean-up, VAT number formats, invoice issuer and customer details.

Recorded OCR fixtures (tests/data/ocr/*.json) are our own PP-OCR output for the shared samples
(sroie_514 through the real pipeline: scan_file + PPOCREngine); expected values are what each
receipt prints (SROIE ground truth for names and addresses; sub-totals and taxes read off the print).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.diagnostics import Code
from desktop.core.extraction import extract_fields
from desktop.core.extraction.common import tidy_name
from desktop.core.extraction.taxids import find_vat_numbers, match_vat
from tests.pages import pages_of
from tests.pages import synthetic_page as _page

DATA = Path(__file__).parent / "data" / "ocr"




RECEIPTS = [
    # name over three rows, OCR "SIN BHU" for SDN BHD, "ENTERPRISE.(" (real pipeline recording)
    ("sroie_514", {"vendor_name": "AIK HUAT HAKIWARE ENTERPRISE (SETIA ALAM) SDN BHD",
                   "vendor_address": "NO. 17-G, JALAN SETIA INDAH (X) U13/X, SETIA ALAM, SEKSYEN U13, 40170 SHAH ALAM,",
                   "subtotal": "2.36", "tax": "0.14", "total": "2.50"}),
    # brand line above "OWN BY: <company>"; "GST TA AMT" (taxable amount) is the subtotal, "SUBTOTAL" = total
    ("sroie_388", {"vendor_name": "CHEF LEE SDN BHD", "subtotal": "90.75", "tax": "5.45", "total": "96.20"}),
    # postcode glued to the town by OCR
    ("sroie_622", {"vendor_name": "ONE ONE THREE SEAFOOD RESTAURANT SDN BHD",
                   "vendor_address": "NO.1, TAMAN SRI DENGKIL, JALAN AIR HITAM 43800 DENGKIL,SELANGOR.",
                   "subtotal": "38.00", "tax": "0.00", "total": "38.00"}),
    # "GST: 0.27 4.7" (tax and total on one row) and a summary row whose tax digit OCR misread
    ("sroie_265", {"subtotal": "4.43", "tax": "0.27", "total": "4.70"}),
    # GST summary table "GST S@6% 35.66 2.14" under a tax-inclusive total
    ("sroie_086", {"subtotal": "35.66", "tax": "2.14", "total": "37.80"}),
    ("sroie_430", {"subtotal": "8.21", "tax": "0.49", "total": "8.70"}),
    # person's name in lower case above the company, registration number below it; the print has a comma
    # where OCR reads a full stop (the ground truth says ", 81200"): the comma reading is the value
    ("sroie_006", {"vendor_name": "SOON HUAT MACHINERY ENTERPRISE",
                   "vendor_address": "NO.53 JALAN PUTRA 1, TAMAN SRI PUTRA, 81200 JOHOR BAHRU JOHOR"}),
]


@pytest.mark.parametrize(("name", "expected"), RECEIPTS, ids=[r[0] for r in RECEIPTS])
def test_receipt_rules(name: str, expected: dict[str, str]) -> None:
    result = extract_fields(pages_of(name), "receipt")
    got = {k: result.fields[k].value for k in expected}
    assert got == expected
    assert not any(p.code is Code.SUM_MISMATCH for p in result.fields["total"].problems)
    # a receipt whose only total-like label is SUBTOTAL: the value stands, flagged for the clerk
    promoted = any(p.code is Code.SUBTOTAL_AS_TOTAL for p in result.fields["total"].problems)
    assert promoted == (name == "sroie_388")




TAX_CASES = [
    # rate-checked tax-inclusive total, "included in total" wording
    ("included", [[("TOTAL INCL. GST@6%", 10), ("RM 53.20", 450)], [("GST @6% included in total", 10), ("RM 3.01", 450)]],
     {"total": "53.20", "tax": "3.01", "subtotal": None}),
    # printed subtotal + tax = total
    ("excl-incl", [[("Total Excl GST", 10), ("RM9.20", 450)], [("GST:", 10), ("RM0.55", 450)],
                   [("Total Sales:", 10), ("RM9.75", 450)]],
     {"total": "9.75", "tax": "0.55", "subtotal": "9.20"}),
    # the GST row also prints the total: a tax is never more than 30% of the total
    ("tax-and-total", [[("TOTAL", 10), ("12.00", 450)], [("GST 6%", 10), ("0.68", 300), ("12.00", 450)]],
     {"total": "12.00", "tax": "0.68", "subtotal": None}),
    # summary table; "SUBTOTAL" printed equal to the total is tax-inclusive, so not the subtotal
    ("summary", [[("SUBTOTAL", 10), ("21.20", 450)], [("TOTAL", 10), ("21.20", 450)],
                 [("GST SUMMARY", 10), ("AMOUNT", 300), ("TAX", 450)], [("SR @ 6%", 10), ("20.00", 300), ("1.20", 450)]],
     {"total": "21.20", "tax": "1.20", "subtotal": "20.00"}),
    # registration numbers and "TAX INVOICE" are not taxes
    ("no-tax", [[("GST REG NO: 000670224384", 10)], [("TAX INVOICE", 10)], [("TOTAL", 10), ("8.00", 450)]],
     {"total": "8.00", "tax": None, "subtotal": None}),
    # the tax contained in a VAT-inclusive total, in English, German, French and Dutch wording
    ("incl-vat", [[("TOTAL", 10), ("£25.30", 450)], [("Incl. VAT 20%", 10), ("4.22", 450)]],
     {"total": "25.30", "tax": "4.22", "subtotal": None}),
    ("inkl-mwst", [[("SUMME EUR", 10), ("11,90", 450)], [("inkl. MwSt. 19%", 10), ("1,90", 450)]],
     {"total": "11.90", "tax": "1.90", "subtotal": None}),
    ("dont-tva", [[("TOTAL TTC", 10), ("12,00", 450)], [("dont TVA 20%", 10), ("2,00", 450)]],
     {"total": "12.00", "tax": "2.00", "subtotal": None}),
    ("incl-btw", [[("TOTAAL", 10), ("12,10", 450)], [("incl. BTW 21%", 10), ("2,10", 450)]],
     {"total": "12.10", "tax": "2.10", "subtotal": None}),
    # a till's VAT table of two rates (net, tax, gross per rate): the sums, never one rate's row
    ("two-rates", [[("SUMME EUR", 10), ("8,45", 450)], [("MwSt", 10), ("Netto", 200), ("Steuer", 300), ("Brutto", 450)],
                   [("A 7%", 10), ("5,23", 200), ("0,37", 300), ("5,60", 450)],
                   [("B 19%", 10), ("2,39", 200), ("0,46", 300), ("2,85", 450)]],
     {"total": "8.45", "tax": "0.83", "subtotal": "7.62"}),
    ("two-rates-en", [[("TOTAL", 10), ("12.48", 450)], [("VAT", 10), ("Net", 200), ("VAT", 300), ("Gross", 450)],
                      [("20%", 10), ("6.00", 200), ("1.20", 300), ("7.20", 450)],
                      [("5%", 10), ("5.03", 200), ("0.25", 300), ("5.28", 450)]],
     {"total": "12.48", "tax": "1.45", "subtotal": "11.03"}),
]

VAT_ID_CASES = [
    ("VAT Reg No GB 284 6193 51", "GB284619351"),
    ("VAT No: GB 412 7788 19", "GB412778819"),
    ("USt-IdNr. DE318274655", "DE318274655"),
    ("BTW NL810433941B01", "NL810433941B01"),
    ("N° TVA FR 40 303 265 045", "FR40303265045"),
]


@pytest.mark.parametrize(("row", "vat"), VAT_ID_CASES, ids=[c[1] for c in VAT_ID_CASES])
def test_receipt_vendor_vat_number(row: str, vat: str) -> None:
    """A shop's VAT number after its label, in the VIES format of its country, is the receipt's
    vendor tax ID (spaces dropped), and the address above it ends before its row."""
    rows = [[("HARTLEY & SONS GROCERS", 10)], [("14 Market Street", 10)], [("Leeds LS1 6DT", 10)], [(row, 10)],
            [("Beleg-Nr. 2026-18842", 10)], [("03.02.2026 09:42", 10)], [("TOTAL", 10), ("12.48", 450)]]
    result = extract_fields(_page(rows), "receipt")
    assert result.fields["vendor_tax_id"].value == vat
    assert result.fields["vendor_address"].value == "14 Market Street Leeds LS1 6DT"


@pytest.mark.parametrize("row", ["St.-Nr. 214/5703/1188", "USt-IdNr. DE318274655", "Beleg-Nr. 2026-18842",
                                 "Kassen-Nr. 3",
                                 # the US EIN, Australian ABN / ACN, Singapore UEN, with their numbers
                                 "EIN 12-3456789", "FEIN: 12-3456789", "ABN 51 824 753 556", "ACN 004 085 616",
                                 "UEN: 201934567K"])
def test_registration_and_number_rows_end_an_address(row: str) -> None:
    from desktop.core.extraction.candidates import ends_address

    assert ends_address(row)
    assert not ends_address("Lindenallee 7")
    assert not ends_address("NO. 12, JALAN SS 2/4")
    assert not ends_address("Ein Laden 12")  # German "ein" is a word, not the EIN


@pytest.mark.parametrize(("case", "rows", "expected"), TAX_CASES, ids=[c[0] for c in TAX_CASES])
def test_receipt_tax_subtotal(case: str, rows, expected: dict[str, str | None]) -> None:
    result = extract_fields(_page(rows), "receipt")
    assert {k: result.fields[k].value for k in expected} == expected


@pytest.mark.parametrize(
    ("raw", "clean"),
    [("EDENIMPRESSIONSDN BHD", "EDENIMPRESSION SDN BHD"), ("FOO TRADING SDNBHD", "FOO TRADING SDN BHD"),
     ("S.H.H.MOTOR(SUNGAI RENGIT)SDN.BHD.", "S.H.H. MOTOR (SUNGAI RENGIT) SDN. BHD."),
     ("AIK HUAT ENTERPRISE.( SETIA ALAM) SIN BHU", "AIK HUAT ENTERPRISE (SETIA ALAM) SDN BHD"),
     ("99 SPEED MART S/8 (519537-X)", "99 SPEED MART S/B"), ("OWN BY: CHEF LEE SDN BHD", "CHEF LEE SDN BHD"),
     ("ASIN BHD", "ASIN BHD"), ("Broadview Marketing 5dn Bhd", "Broadview Marketing Sdn Bhd"),
     ("AIK_HUAT ENTERPRISE (SETIA ALAM).SDN BHD", "AIK HUAT ENTERPRISE (SETIA ALAM) SDN BHD"),
     ("Broadview Marketing Sdn Bhd(728384-M)", "Broadview Marketing Sdn Bhd")],
)
def test_tidy_name(raw: str, clean: str) -> None:
    assert tidy_name(raw) == clean


@pytest.mark.parametrize(
    ("text", "vat"),
    [("NL810433941B01", "NL810433941B01"), ("UStId DE 232 446 240", "DE232446240"), ("FR 63 530848134", "FR63530848134"),
     ("ATU12345678", "ATU12345678"), ("CHE-123.456.789 MWST", "CHE123456789"), ("GSTIN 27AAPFU0939F1ZV", "27AAPFU0939F1ZV"),
     ("IBAN DE30507500940000048567", None), ("IBAN NL50INGB0683251309", None), ("F63530848134", None)],
)
def test_match_vat(text: str, vat: str | None) -> None:
    assert match_vat(text) == vat


def test_find_vat_numbers_skips_ibans() -> None:
    assert find_vat_numbers("IBAN NL50INGB0683251309  BTW NL810433941B01") == ["NL810433941B01"]


def test_invoice_issuer_and_customer_coolblue() -> None:
    f = extract_fields(pages_of("coolblue1"), "invoice").fields
    assert f["vendor_name"].value == "Coolblue B.V."
    assert f["vendor_address"].value == "Weena 664, 3012 CN Rotterdam, Nederland"
    assert f["vendor_tax_id"].value == "NL810433941B01"
    assert f["buyer_name"].value == "Pino Bluebird"


def test_invoice_address_azure() -> None:
    f = extract_fields(pages_of("AzureInterior"), "invoice").fields
    assert f["vendor_address"].value == "4557 De Silva St, Fremont CA 94538, United States"


@pytest.mark.parametrize(
    ("pdf", "expected"),
    [("QualityHosting.pdf", {"vendor_name": "QualityHosting AG", "vendor_tax_id": "DE232446240",
                             "vendor_address": "Uferweg 40-42, D-63571 Gelnhausen", "tax": None, "buyer_name": None}),
     ("NetpresseInvoice.pdf", {"vendor_name": "NETPRESSE", "buyer_name": "ALEXINUX"}),
     # issuer details only in an image: no vendor rather than the customer; "Uw BTW nummer" is the customer's
     ("saeco.pdf", {"vendor_name": None, "vendor_tax_id": None, "buyer_name": "Strategic Corp",
                    "buyer_tax_id": "NL00333599698"}),
     ("FlipkartInvoice.pdf", {"vendor_tax_id": "29670869006", "buyer_name": "Anushrut Singh"})],
)
def test_invoice_text_layer(samples, pdf: str, expected: dict[str, str | None]) -> None:
    from benchmarks.score_extraction import pdf_text_pages

    f = extract_fields(pdf_text_pages(samples / "invoice2data" / pdf), "invoice").fields
    assert {k: f[k].value for k in expected} == expected
