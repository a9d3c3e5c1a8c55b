"""E-invoice benchmark: fields from the invoice's own data, and the page cross-check.

Usage::

    python benchmarks/bench_einvoice.py [--samples DIR] [--no-write]

Corpora (each with ``MANIFEST.tsv`` and ``SOURCE.md``; truth from the XML or QR):

- ``einvoice``: 33 EU e-invoices: 27 Factur-X/ZUGFeRD PDFs with embedded XML, 6 visual PDFs of standalone
  XML invoices, and the 33 XML files (the standalone XML, or the attachment extracted). Every PDF and
  XML file is read with :func:`desktop.core.pipeline.scan_file` (text layer; the fake engine is never
  called) and each canonical field is compared exactly with ``<name>.truth.json`` (amount due from
  ``_extra.amount_due``; line items as (name, quantity, unit price, line total) without EXTENDED group
  lines). The same PDFs read from their page alone (today's text rules) give the baseline.
- ``cn_invoice_more``: 5 Chinese OFD e-invoices, compared with ``<name>.gt.json``; "carried" fields are
  those whose ``_gt_method`` names the embedded XML, the OFD metadata/custom tags or the QR code.

Cross-check: the number of fields flagged as disagreeing with the page on the real files (target 0), and
on generated mismatches: a temporary copy of every PDF/OFD with data whose XML total is changed by +1.00
(the page still prints the old one), which must be flagged (target 100 %).

Figures go to ``BENCHMARKS.md`` between the ``bench_einvoice`` markers.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DEFAULT_SAMPLES = REPO.parent / "shared" / "samples"
START, END = "<!-- bench_einvoice:start -->", "<!-- bench_einvoice:end -->"

EU_FIELDS = ("invoice_number", "date", "due_date", "vendor_name", "vendor_address", "vendor_tax_id", "buyer_name",
             "buyer_tax_id", "subtotal", "tax", "total", "amount_due", "currency")
CN_FIELDS = {"invoice_type": "invoice_type", "invoice_code": "invoice_code", "invoice_number": "invoice_number",
             "date": "issue_date", "check_code": "check_code", "buyer_name": "buyer_name", "buyer_tax_id": "buyer_tax_id",
             "vendor_name": "seller_name", "vendor_tax_id": "seller_tax_id", "subtotal": "amount_excl_tax",
             "tax": "tax_amount", "total": "total_incl_tax"}
CARRIERS = re.compile(r"XML|XBRL|CustomData|CustomTag|QR", re.I)


def _manifest(folder: Path) -> list[dict[str, str]]:
    with open(folder / "MANIFEST.tsv", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _scan(path: Path):
    from desktop.core.pipeline import scan_file
    from tests.fake_engines import FakeEngine

    docs = scan_file(path, FakeEngine())
    return docs[0]


def _lines_truth(truth: list | None) -> list[tuple] | None:
    if truth is None:
        return None
    parents = {x.get("parent_line_id") for x in truth if x.get("parent_line_id")}
    return [(x.get("name"), x.get("quantity"), x.get("unit_price"), x.get("line_total")) for x in truth
            if x.get("line_id") not in parents]


def _lines_ours(items: list[dict]) -> list[tuple]:
    return [(x.get("description"), x.get("quantity"), x.get("unit_price"), x.get("amount")) for x in items]


def _page_only(doc) -> dict[str, str | None]:
    from desktop.core import extraction

    result = extraction.extract_fields(doc.page_results, "invoice")
    return {k: f.value for k, f in result.fields.items()}


def run_eu(folder: Path) -> dict:
    rows = [r for r in _manifest(folder) if r["kind"] == "pdf"]
    res: dict = {"files": 0, "pdf_with_xml": 0, "pdf_without_xml": [], "xml_files": 0,
                 "exact": defaultdict(lambda: [0, 0]), "baseline": defaultdict(lambda: [0, 0]),
                 "by_source": defaultdict(Counter), "lines": [0, 0], "flags_real": 0, "flagged_files": [],
                 "misses": [], "seconds": [], "page_only": []}
    for row in rows:
        stem = row["path"][:-4]
        truth = json.loads((folder / f"{stem}.truth.json").read_text(encoding="utf-8"))
        truth["amount_due"] = truth.get("_extra", {}).get("amount_due")
        files = [folder / row["path"]] + sorted(folder.glob(f"{stem}.*.xml"))
        for path in files:
            t0 = time.perf_counter()
            doc = _scan(path)
            res["seconds"].append(time.perf_counter() - t0)
            res["files"] += 1
            carried = bool(doc.extras.get("einvoice"))
            is_pdf = path.suffix == ".pdf"
            if is_pdf and not carried:
                res["pdf_without_xml"].append(path.name)
                continue
            if is_pdf:
                res["pdf_with_xml"] += 1
                page = _page_only(doc)
                for name in EU_FIELDS:
                    if truth.get(name) is not None and name in page:
                        res["baseline"][name][1] += 1
                        res["baseline"][name][0] += page.get(name) == truth[name]
            else:
                res["xml_files"] += 1
            for name in EU_FIELDS:
                want = truth.get(name)
                f = doc.fields.get(name)
                got = f.value if f else None
                if want is None:  # the XML does not carry it: not scored (a page value may stand)
                    if got is not None:
                        res["page_only"].append(f"{path.name} {name} = {got!r} ({f.source})")
                    continue
                res["exact"][name][1] += 1
                ok = got == want
                res["exact"][name][0] += ok
                if f is not None and got is not None:
                    res["by_source"][name][f.source] += 1
                if not ok:
                    res["misses"].append(f"{path.name} {name}: want {want!r}, got {got!r}")
            want_lines = _lines_truth(truth.get("line_items"))
            if want_lines is not None:
                res["lines"][1] += 1
                if _lines_ours(doc.line_items) == want_lines:
                    res["lines"][0] += 1
                else:
                    res["misses"].append(f"{path.name} line items differ")
            mism = doc.extras.get("einvoice", {}).get("mismatches", [])
            if mism:
                res["flags_real"] += len(mism)
                res["flagged_files"].append(f"{path.name}: {', '.join(mism)}")
    return res


def _bump(value: str) -> str:
    return f"{Decimal(value) + 1:.2f}"


def _tamper_pdf(src: Path, dst: Path) -> str | None:
    """Copy ``src`` to ``dst`` with the embedded XML's grand total raised by 1.00; returns the new total."""
    import pymupdf

    from desktop.core.einvoice import facturx

    doc = pymupdf.open(str(src))
    found = facturx.embedded_xml(doc)
    if found is None:
        doc.close()
        return None
    name, data = found
    text = data.decode("utf-8")
    m = re.search(r"(<(?:\w+:)?(?:GrandTotalAmount|TaxInclusiveAmount)\b[^>]*>)\s*([-\d.]+)\s*(<)", text)
    if not m:
        doc.close()
        return None
    new = _bump(m.group(2))
    text = text[:m.start(2)] + new + text[m.end(2):]
    replaced = 0
    for xref in range(1, doc.xref_length()):
        try:
            if doc.xref_is_stream(xref) and doc.xref_stream(xref) == data:
                doc.update_stream(xref, text.encode("utf-8"))
                replaced += 1
        except Exception:
            continue
    if not replaced:
        doc.close()
        return None
    doc.save(str(dst))
    doc.close()
    return new


def _tamper_ofd(src: Path, dst: Path) -> str | None:
    with zipfile.ZipFile(src) as zin:
        names = zin.namelist()
        target = next((n for n in names if "attachs/" in n.lower() and n.lower().endswith(".xml")
                       and not n.lower().endswith("attachments.xml")), None)
        if target is None:
            return None
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
            new = None
            for n in names:
                data = zin.read(n)
                if n == target:
                    text = data.decode("utf-8")
                    m = re.search(r"(TaxInclusiveTotalAmount|TaxIncludedAmountInFigures)\b[^>]*>\s*([\d.]+)", text)
                    if m:
                        new = _bump(m.group(2))
                        text = text[:m.start(2)] + new + text[m.end(2):]
                        data = text.encode("utf-8")
                zout.writestr(n, data)
    return new


def run_mismatches(eu: Path, cn: Path) -> dict:
    res = {"generated": 0, "flagged": 0, "missed": []}
    with tempfile.TemporaryDirectory() as tmp:
        for src in sorted(eu.glob("*.pdf")) + sorted(cn.glob("*.ofd")):
            dst = Path(tmp) / src.name
            new = _tamper_pdf(src, dst) if src.suffix == ".pdf" else _tamper_ofd(src, dst)
            if new is None:
                continue
            res["generated"] += 1
            doc = _scan(dst)
            total = doc.fields.get("total")
            ok = total is not None and total.value == new and total.needs_review and "total" in doc.extras.get("einvoice", {}).get("mismatches", [])
            res["flagged"] += ok
            if not ok:
                res["missed"].append(src.name)
    return res


def run_cn(folder: Path) -> dict:
    res: dict = {"files": 0, "read": 0, "exact": defaultdict(lambda: [0, 0]), "carried": defaultdict(lambda: [0, 0]),
                 "by_source": defaultdict(Counter), "qr": [0, 0], "flags_real": 0, "misses": [], "seconds": []}
    for row in _manifest(folder):
        rel = row["path"].split("/", 1)[-1]
        path = folder / rel
        gt = json.loads((folder / (Path(rel).stem + ".gt.json")).read_text(encoding="utf-8"))
        t0 = time.perf_counter()
        doc = _scan(path)
        res["seconds"].append(time.perf_counter() - t0)
        res["files"] += 1
        if doc.error:
            res["misses"].append(f"{rel}: {doc.error}")
            continue
        res["read"] += 1
        method = gt.get("_gt_method", {})
        for name, key in CN_FIELDS.items():
            want = gt.get(key)
            f = doc.fields.get(name)
            got = f.value if f else None
            if want is None and got is None:
                continue
            ok = got == want
            res["exact"][name][1] += 1
            res["exact"][name][0] += ok
            if CARRIERS.search(str(method.get(key, ""))):
                res["carried"][name][1] += 1
                res["carried"][name][0] += ok
            if f is not None and got is not None:
                res["by_source"][name][f.source] += 1
            if not ok:
                res["misses"].append(f"{rel} {name}: want {want!r}, got {got!r} ({method.get(key, '')[:40]})")
        if gt.get("qr_payload"):
            res["qr"][1] += 1
            res["qr"][0] += gt["qr_payload"] in doc.extras.get("qr_payloads", [])
        res["flags_real"] += len(doc.extras.get("einvoice", {}).get("mismatches", []))
    return res


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f} %)" if b else "-"


def report(eu: dict, cn: dict, mm: dict, command: str) -> str:
    out = ["## E-invoices: the invoice's own data, cross-checked against the page", "",
           f"`{command}` (fake engine: every page here has a text layer or is an OFD/XML page, so no OCR runs; "
           f"loaded shared machine, {time.strftime('%Y-%m-%d')}). Truth from the XML/QR (see each corpus's SOURCE.md).", "",
           f"**einvoice**: {eu['files']} files read: {eu['pdf_with_xml']} PDFs with embedded XML, {eu['xml_files']} XML files; "
           f"{len(eu['pdf_without_xml'])} visual PDFs carry no XML ({', '.join(eu['pdf_without_xml'])}) and are read from their page only.", "",
           "| field | exact (PDFs with XML + XML files) | page text only (same PDFs, before) | sources |", "|---|---|---|---|"]
    for name in EU_FIELDS:
        a, b = eu["exact"][name]
        c, d = eu["baseline"][name]
        src = ", ".join(f"{k} {v}" for k, v in eu["by_source"][name].most_common())
        out.append(f"| {name} | {_pct(a, b)} | {_pct(c, d)} | {src} |")
    la, lb = eu["lines"]
    out += [f"| line items (name, qty, unit price, line total) | {_pct(la, lb)} | - | xml |", "",
            "Scored where the XML carries the field. Fields the XML lacks keep the page's reading (source PDF text): "
            + ("; ".join(eu["page_only"]) or "none") + ".", ""]
    out += [f"**cn_invoice_more** (OFD): {cn['read']}/{cn['files']} files read; QR payload decoded {_pct(*cn['qr'])}.", "",
            "| field | exact (all) | exact (carried by XML / metadata / QR) | sources |", "|---|---|---|---|"]
    for name in CN_FIELDS:
        a, b = cn["exact"][name]
        c, d = cn["carried"][name]
        src = ", ".join(f"{k} {v}" for k, v in cn["by_source"][name].most_common())
        out.append(f"| {name} | {_pct(a, b)} | {_pct(c, d)} | {src} |")
    out += ["", "**Cross-check**", "",
            f"- mismatch flags on the real files (agreeing pages): {eu['flags_real'] + cn['flags_real']} "
            f"(einvoice {eu['flags_real']}, OFD {cn['flags_real']}; target 0)"
            + (f": {'; '.join(eu['flagged_files'])}" if eu["flagged_files"] else ""),
            f"- generated mismatches (XML total +1.00 in a temporary copy; the page prints the old total) flagged on "
            f"the total: {_pct(mm['flagged'], mm['generated'])} (target 100 %)" + (f"; missed: {', '.join(mm['missed'])}" if mm["missed"] else ""),
            f"- seconds per file (median): einvoice {sorted(eu['seconds'])[len(eu['seconds']) // 2]:.2f}, OFD "
            f"{sorted(cn['seconds'])[len(cn['seconds']) // 2]:.2f}", ""]
    misses = eu["misses"] + cn["misses"]
    if misses:
        out += ["<details><summary>Misses</summary>", ""] + [f"- {m}" for m in misses] + ["", "</details>"]
    return "\n".join(out)


def write_section(path: Path, body: str) -> None:
    """Replace (or append) the text between the bench_einvoice markers of ``path``."""
    from benchmarks.sections import write_section as write

    write(path, START, END, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES)
    parser.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    eu_dir, cn_dir = args.samples / "einvoice", args.samples / "cn_invoice_more"
    if not (eu_dir / "MANIFEST.tsv").is_file() or not (cn_dir / "MANIFEST.tsv").is_file():
        print(f"no einvoice / cn_invoice_more corpus under {args.samples}", file=sys.stderr)
        return 2
    eu = run_eu(eu_dir)
    cn = run_cn(cn_dir)
    mm = run_mismatches(eu_dir, cn_dir)
    body = report(eu, cn, mm, "python benchmarks/bench_einvoice.py")
    print(body)
    if not args.no_write:
        write_section(REPO / "BENCHMARKS.md", body)
        print(f"\nwritten to {REPO / 'BENCHMARKS.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
