"""Per-field comparison and ground-truth loading for the extraction benchmarks.

Comparison rules (:func:`normalise_for_compare`), applied to both the extracted and the expected
value:

* amounts: parsed to canonical ``"1234.56"`` (so ``RM96.20``, ``96.2`` and ``96.20`` agree);
* dates: parsed to ISO 8601 (SROIE prints dates day first: ``25/12/2017`` -> ``2017-12-25``);
* codes / invoice numbers / tax IDs: whitespace removed, a leading ``#`` dropped, upper case;
* currency: upper case;
* text (names, addresses): NFKC (full-width -> ASCII), case-insensitive, whitespace collapsed,
  whitespace next to ``. , : ;`` dropped, punctuation stripped at both ends (inner punctuation must
  match). The spacing around punctuation is not compared because the SROIE ground truth itself is
  inconsistent about it: ``sroie_617.key.json`` says ``NO. 1, TAMAN SRI DENGKIL`` where the same
  receipt's transcript ``sroie_617.box.txt`` (and the print) has ``NO.1, TAMAN SRI DENGKIL``
  (likewise sroie_622). A missing space between two words still counts as a miss.

Ground truth (:func:`load_ground_truth`) maps each source's keys to canonical field names:
SROIE ``company/address/date/total``; cn_invoice ``invoice_code, invoice_number, issue_date,
check_code, buyer_*, seller_*, amount_excl_tax, tax_amount, total_incl_tax``; invoice2data
``amount, amount_untaxed, amount_tax, date, invoice_number, issuer, currency, vat | static_vat``.
"""
from __future__ import annotations

import json
import os
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from desktop.core.extraction import normalise_field
from desktop.core.extraction.amounts import parse_amount
from desktop.core.extraction.dates import parse_date

__all__ = ["SAMPLES", "expected_document_type", "load_ground_truth", "normalise_for_compare", "read_manifest", "same",
           "same_party"]

SAMPLES = Path(os.environ.get("SHOEBOX_SAMPLES", Path(__file__).resolve().parent.parent.parent / "shared" / "samples"))

_AMOUNT = {"subtotal", "tax", "total"}
_CODE = {"invoice_code", "invoice_number", "check_code", "vendor_tax_id", "buyer_tax_id"}


def normalise_for_compare(field: str, value: Any) -> str | None:
    """A value in the form used to compare extracted and expected values (see the module docstring)."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and field in _AMOUNT:
        try:
            return str(Decimal(str(value)).quantize(Decimal("0.01")))
        except InvalidOperation:
            return str(value)
    text = str(value).strip()
    if not text:
        return None
    if field in _AMOUNT:
        v, _c, _p = parse_amount(text)
        return v
    if field == "date":
        v, _p = parse_date(text, "YMD" if re.match(r"\d{4}", text) else "DMY")
        return v
    if field == "time":
        v, _p = normalise_field("time", text)
        return v
    if field in _CODE:
        return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).lstrip("#").upper() or None
    if field == "currency":
        return text.upper()
    t = unicodedata.normalize("NFKC", text).casefold()
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"\s*([.,:;])\s*", r"\1", t)
    t = re.sub(r"^[\W_]+|[\W_]+$", "", t)
    return t or None


def same(field: str, got: Any, expected: Any) -> bool:
    """Whether an extracted value matches the expected one after :func:`normalise_for_compare`."""
    return normalise_for_compare(field, got) == normalise_for_compare(field, expected)


#: Legal-form designations that may end a company name (ISO 20275 entity legal forms, their usual
#: abbreviations in the countries of the invoice corpora: DE/AT, FR, NL/BE, IT, ES, UK/US, HU), with a
#: "& Co. KG" / "+ Co. KG" partnership ending.
_LEGAL_FORM_END = re.compile(
    r"(?:\s*[&+]\s*co\.?\s*kg|\s+(?:gmbh|ag|kg|ohg|gbr|ug(?:\s*\(haftungsbeschr[aä]nkt\))?|e\.\s*k\.?|se|kgaa|"
    r"sarl|s\.a\.r\.l\.?|sas|sasu|sa|s\.a\.|eurl|snc|sci|b\.?\s*v\.?|n\.?\s*v\.?|v\.o\.f\.?|bvba|srl|s\.r\.l\.?|"
    r"s\.p\.a\.?|spa|s\.l\.?|ltd\.?|limited|llp|plc|llc|inc\.?|corp\.?|kft\.?|zrt\.?|nyrt\.?|bt\.?))+\W*$", re.I)


def same_party(got: Any, expected: Any) -> bool:
    """Whether two party names (``vendor_name``) name the same party: equal after
    :func:`normalise_for_compare`, or equal once a trailing legal form (GmbH, SARL, B.V., Ltd, ...)
    is removed from both.

    Used for e-invoices, whose ground truth is the XML's seller name (EN 16931 BT-27, "the full formal
    name by which the Seller is registered"): whether that name carries the legal form depends on the
    country's register and on the issuer's software -- a French dénomination sociale is registered
    without it (Code de commerce R123-237 has the legal form printed beside the name), a German Firma
    with it (GmbHG s. 4) -- so the XML of one invoice says "Au bon moulin" where its page prints
    "Au bon moulin SARL", and another says "Kraxi GmbH". Both readings name the same seller; the rest
    of the name must match exactly. Receipts keep the plain comparison: their annotations carry the
    legal form wherever it is printed.
    """
    if same("vendor_name", got, expected):
        return True
    a, b = normalise_for_compare("vendor_name", got), normalise_for_compare("vendor_name", expected)
    if not a or not b:
        return False
    a2, b2 = _LEGAL_FORM_END.sub("", a).strip(" ,"), _LEGAL_FORM_END.sub("", b).strip(" ,")
    return bool(a2) and a2 == b2


def read_manifest(root: Path | None = None) -> list[dict[str, str]]:
    """MANIFEST.tsv rows as dicts (``path``, ``kind``, ``language``, ``ground_truth``, ``fields``, ``notes``)."""
    root = root or SAMPLES
    lines = (root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, ln.split("\t"))) for ln in lines[1:] if ln.strip()]


def expected_document_type(manifest_row: dict[str, str]) -> str | None:
    """The document type a sample should be detected as (``None`` for plain documents)."""
    src = manifest_row["path"].split("/")[0]
    return {"sroie": "receipt", "wildreceipt": "receipt", "cn_invoice": "cn_vat_invoice",
            "invoice2data": "invoice"}.get(src)


def load_ground_truth(manifest_row: dict[str, str], root: Path | None = None) -> dict[str, Any]:
    """Expected canonical field values of one sample (only the fields its ground truth holds).

    Args:
        manifest_row: a row of MANIFEST.tsv (:func:`read_manifest`).
        root: the samples folder (default :data:`SAMPLES`).

    Returns:
        ``{field: expected value}``; a field the ground truth says is absent maps to ``None``.
        Empty for samples without field ground truth (plain text documents).
    """
    root = root or SAMPLES
    src = manifest_row["path"].split("/")[0]
    gts = [root / p for p in manifest_row.get("ground_truth", "").split(";") if p]
    if src == "sroie":
        key = next((p for p in gts if p.name.endswith(".key.json")), None)
        if key is None:
            return {}
        d = json.loads(key.read_text(encoding="utf-8"))
        date, _p = parse_date(d.get("date"), "DMY")
        return {"vendor_name": d.get("company"), "vendor_address": d.get("address"), "date": date or d.get("date"),
                "total": normalise_for_compare("total", d.get("total"))}
    if src == "cn_invoice":
        d = json.loads(gts[0].read_text(encoding="utf-8"))
        mapping = {"invoice_code": "invoice_code", "invoice_number": "invoice_number", "date": "issue_date",
                   "check_code": "check_code", "buyer_name": "buyer_name", "buyer_tax_id": "buyer_tax_id",
                   "vendor_name": "seller_name", "vendor_tax_id": "seller_tax_id", "subtotal": "amount_excl_tax",
                   "tax": "tax_amount", "total": "total_incl_tax"}
        out = {k: d.get(v) for k, v in mapping.items()}
        out["currency"] = "CNY"
        return out
    if src == "invoice2data":
        d = json.loads(gts[0].read_text(encoding="utf-8"))
        d = d[0] if isinstance(d, list) else d
        out = {"total": d.get("amount"), "date": d.get("date"), "invoice_number": d.get("invoice_number"),
               "vendor_name": d.get("issuer"), "currency": d.get("currency")}
        if "amount_untaxed" in d:
            out["subtotal"] = d["amount_untaxed"]
        if "amount_tax" in d:
            out["tax"] = d["amount_tax"]
        # the issuer's VAT number: "vat" (coolblue, QualityHosting) or "static_vat" (saeco) in the
        # invoice2data templates' output
        vat = d.get("vat") or d.get("static_vat")
        if vat:
            out["vendor_tax_id"] = vat
        return {k: (normalise_for_compare(k, v) if k in _AMOUNT else v) for k, v in out.items()}
    return {}
