"""Generated invoices for the tax-summary and vendor-name rules: write them, read them, score them.

The generator writes commercial invoices in German, French, English and Dutch with PyMuPDF: a PDF
with a text layer and a PNG rendering of each (150 dpi), and beside them ``<name>.truth.json``
(vendor name, subtotal, tax, total, invoice number, date). It varies the vendor (a name from word
lists with the legal form of the vendor's country), the letterhead's place (left, right, centred, a
sender line over the address window, the issuer's block in the right column with its registration
and bank lines, or only the legal footer under a logo), the number format of the language, and the totals block:

* ``multi_table``: a VAT breakdown table (rate, base, tax) of two or three rates, with or without the
  net/VAT total rows under it, then the grand total;
* ``multi_inline``: one row per rate with its base in the label ("MwSt. 19 % auf 100,00   19,00");
* ``single``: one rate, "Subtotal / VAT 20 % / Total" (the behaviour that must stay);
* ``single_table``: a breakdown table of one rate.

These documents are written by the same person who writes the rules they test, so they measure
whether the rules do what they are meant to on clean, varied input; they say nothing about
generalisation (the e-invoice corpus, ``benchmarks.bench_einvoice``, and the cross-validated
``benchmarks.train_fields`` do).

Usage::

    python -m benchmarks.synth_invoices --out DIR [--n 48] [--seed 7] [--ocr] [-v]

``--ocr`` also reads the PNG renderings with PP-OCR (rapidocr; recorded in ``DIR`` with the PNG's digest, so that a
second run over the same renderings reuses them). Per field and kind it prints the share right and the share wrong without a flag
(silent errors). Nothing is written to BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FIELDS = ("vendor_name", "invoice_number", "date", "subtotal", "tax", "total")
KINDS = ("multi_table", "multi_inline", "single", "single_table")
CENT = Decimal("0.01")

LANG = {
    "de": dict(title="Rechnung", number="Rechnungsnummer:", date="Rechnungsdatum:", buyer="Rechnungsempfänger",
               items=("Pos.", "Beschreibung", "Menge", "Einzelpreis", "MwSt.", "Betrag"),
               table=("MwSt.-Satz", "Netto", "MwSt."), table2=("Steuersatz", "Bemessungsgrundlage", "Steuerbetrag"),
               net="Summe netto", vat="Summe MwSt.", total="Gesamtbetrag", sub="Zwischensumme",
               vat1="MwSt. {r} %", inline="MwSt. {r} % auf {b}", rates=("19", "7"), cur="EUR",
               goods=("Beratung", "Büromaterial", "Lebensmittel", "Bücher", "Wartung", "Lizenz", "Versand")),
    "fr": dict(title="Facture", number="Facture n°", date="Date de facture :", buyer="Client",
               items=("Réf.", "Désignation", "Qté", "Prix unitaire", "TVA", "Montant HT"),
               table=("Taux TVA", "Base HT", "Montant TVA"), table2=("TVA", "Base", "Montant"),
               net="Total HT", vat="Total TVA", total="Total TTC", sub="Total HT",
               vat1="TVA {r} %", inline="TVA {r} % sur {b}", rates=("20", "10", "5,5"), cur="€",
               goods=("Prestation", "Fournitures", "Livres", "Repas", "Maintenance", "Transport")),
    "en": dict(title="Invoice", number="Invoice No:", date="Invoice Date:", buyer="Bill to",
               items=("#", "Description", "Qty", "Unit price", "VAT", "Amount"),
               table=("VAT rate", "Net amount", "VAT"), table2=("Rate", "Net", "VAT amount"),
               net="Total net", vat="Total VAT", total="Total", sub="Subtotal",
               vat1="VAT {r}%", inline="VAT {r}% on {b}", rates=("20", "5"), cur="£",
               goods=("Consulting", "Stationery", "Food", "Books", "Support", "Licence", "Delivery")),
    "nl": dict(title="Factuur", number="Factuurnummer:", date="Factuurdatum:", buyer="Factuuradres",
               items=("Nr.", "Omschrijving", "Aantal", "Prijs", "BTW", "Bedrag"),
               table=("BTW %", "Grondslag", "BTW-bedrag"), table2=("BTW-tarief", "Bedrag excl.", "BTW"),
               net="Totaal excl. BTW", vat="Totaal BTW", total="Totaal incl. BTW", sub="Subtotaal",
               vat1="BTW {r}%", inline="BTW {r}% over {b}", rates=("21", "9"), cur="€",
               goods=("Advies", "Kantoorartikelen", "Boeken", "Catering", "Onderhoud", "Verzending")),
}
#: Vendor legal forms per language (the usual ones of the country: ISO 20275 ELF abbreviations).
FORMS = {"de": ("GmbH", "AG", "KG", "e.K.", "UG (haftungsbeschränkt)", "GmbH & Co. KG"),
         "fr": ("SARL", "SAS", "S.A.", "EURL", "S.à r.l."),
         "en": ("Ltd", "Limited", "LLP", "PLC", "Ltd."),
         "nl": ("B.V.", "B.V.", "N.V.", "V.O.F.", "BV")}
WORDS = ("Nordlicht", "Vries", "Bakker", "Hoekstra", "Lumière", "Moulin", "Atlas", "Kestrel", "Brightwater",
         "Falke", "Sonnen", "Delta", "Orion", "Meridian", "Horizon", "Kiel", "Rivage", "Tulp", "Zeeland",
         "Alpen", "Harbour", "Greenfield", "Papier", "Druck", "Techniek", "Services", "Logistics", "Handel",
         "Conseil", "Bureau", "Digital", "Media", "Bouw", "Systems")
STREETS = {"de": ("Hauptstraße {n}", "Bahnhofstr. {n}", "Am Markt {n}"), "fr": ("{n} rue de la Paix", "{n} avenue Foch"),
           "en": ("{n} High Street", "{n} Station Road"), "nl": ("Keizersgracht {n}", "Stationsweg {n}")}
TOWNS = {"de": ("10115 Berlin", "80331 München", "20095 Hamburg"), "fr": ("75002 Paris", "69001 Lyon"),
         "en": ("London EC1A 1BB", "Leeds LS1 4DY"), "nl": ("1017 AB Amsterdam", "3511 CE Utrecht")}
BUYERS = ("Muster Handel GmbH", "Client Dupont SA", "Acme Widgets Ltd", "Jansen Groep B.V.", "Stadtwerke Nord AG")


def money(v: Decimal, lang: str) -> str:
    """``v`` printed as the language writes amounts (de/nl ``1.234,56``, fr ``1 234,56``, en ``1,234.56``)."""
    s = f"{v:,.2f}"
    if lang == "en":
        return s
    s = s.replace(",", "_").replace(".", ",")
    return s.replace("_", " " if lang == "fr" else ".")


def _rate(r: str) -> Decimal:
    return Decimal(r.replace(",", "."))


def make_invoice(i: int, rng: random.Random) -> tuple[dict, list[tuple]]:
    """One invoice: its truth and its drawing ops ``(align, x, y, text, size, bold)`` in PDF points
    (``align`` ``"t"``: text starts at ``x``; ``"r"``: it ends there)."""
    lang = ("de", "fr", "en", "nl")[i % 4]
    kind = KINDS[(i // 4) % len(KINDS)]
    L = LANG[lang]
    form = rng.choice(FORMS[lang])
    name = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {form}"
    street = rng.choice(STREETS[lang]).format(n=rng.randint(1, 180))
    town = rng.choice(TOWNS[lang])
    number = f"{rng.choice(('RE', 'F', 'INV', ''))}{rng.randint(2024, 2026)}-{rng.randint(100, 99999):05d}"
    day, month, year = rng.randint(1, 28), rng.randint(1, 12), rng.choice((2025, 2026))
    date = f"{day:02d}.{month:02d}.{year}" if lang in ("de", "nl") else f"{day:02d}/{month:02d}/{year}"
    ops: list[tuple] = []
    y = 60.0
    place = rng.choice(("left", "right", "centre", "sender", "footer", "block"))
    reg = {"de": ("HRB {n} · USt-IdNr. DE{v}", "Amtsgericht Berlin HRB {n}"), "fr": ("RCS Paris {n} · TVA FR{v}", "SIRET {n}"),
           "en": ("Company No. {n} · VAT GB{v}", "Registered in England No. {n}"),
           "nl": ("KvK {n} · BTW NL{v}B01", "KvK-nummer {n}")}[lang]
    reg_line = rng.choice(reg).format(n=rng.randint(10000000, 99999999), v=rng.randint(100000000, 999999999))
    iban = f"IBAN {lang.upper()}{rng.randint(10, 99)} BANK 0{rng.randint(100000000, 999999999)}"
    if place == "sender":
        ops.append(("t", 50, 40, f"{name} · {street} · {town}", 7, False))
        y = 150
    elif place == "footer":  # a logo letterhead: the name is printed only in the legal footer
        y = 150
    elif place == "block":  # the issuer's block in the right column, with its registration and bank lines
        ops += [("t", 360, 40, name, 9, True), ("t", 360, 52, street, 9, False), ("t", 360, 64, town, 9, False),
                ("t", 360, 76, reg_line.split(" · ")[0], 9, False), ("t", 360, 88, iban, 9, False)]
        y = 150
    else:
        # left-aligned at 50, centred near the middle, or right-aligned at 545
        x, a = {"left": (50, "t"), "right": (545, "r"), "centre": (200, "t")}[place]
        ops += [(a, x, y, name, 16, True), (a, x, y + 20, street, 9, False), (a, x, y + 32, town, 9, False),
                (a, x, y + 44, f"Tel. +{rng.randint(30, 49)} {rng.randint(10, 99)} {rng.randint(100000, 999999)}",
                 9, False)]
        y = 150
    buyer = rng.choice(BUYERS)
    if place not in ("sender", "footer"):
        ops.append(("t", 50, y, L["buyer"], 9, True))
        y += 13
    ops += [("t", 50, y, buyer, 10, False), ("t", 50, y + 13, "Industrieweg 4", 10, False),
            ("t", 50, y + 26, rng.choice(TOWNS[lang]), 10, False)]
    ops += [("t", 360, 170, L["number"], 9, False), ("t", 460, 170, number, 9, False),
            ("t", 360, 183, L["date"], 9, False), ("t", 460, 183, date, 9, False)]
    ops.append(("t", 50, 250, L["title"], 18, True))
    # line items: each with a rate of the language; a multi-rate invoice uses two or three rates
    rates = list(L["rates"])
    if kind.startswith("multi"):
        used = rates[: rng.choice((2, 3))] if len(rates) >= 3 else rates[:2]
    else:
        used = [rng.choice(rates)]
    items = []
    for k in range(rng.randint(len(used), 5)):
        r = used[k % len(used)]
        qty = rng.randint(1, 12)
        price = Decimal(rng.randint(150, 40000)) / 100
        items.append((rng.choice(L["goods"]), qty, price, r, (price * qty).quantize(CENT)))
    cols = (50, 80, 270, 330, 410, 480)
    y = 290
    for x, h in zip(cols, L["items"]):
        ops.append(("t", x, y, h, 9, True))
    for k, (desc, qty, price, r, amt) in enumerate(items):
        y += 15
        for x, t in zip(cols, (str(k + 1), desc, str(qty), money(price, lang), f"{r} %", money(amt, lang))):
            ops.append(("r" if x in (330, 480) else "t", x + 50 if x in (330, 480) else x, y, t, 9, False))
    bases: dict[str, Decimal] = defaultdict(Decimal)
    for *_x, r, amt in items:
        bases[r] += amt
    taxes = {r: (b * _rate(r) / 100).quantize(CENT, ROUND_HALF_UP) for r, b in bases.items()}
    net, vat = sum(bases.values(), Decimal(0)), sum(taxes.values(), Decimal(0))
    total = net + vat
    cur = L["cur"]
    y += 35
    if kind in ("multi_table", "single_table"):
        heads = L["table"] if rng.random() < 0.5 else L["table2"]
        for x, h in zip((250, 440, 540), heads):
            ops.append(("t" if x == 250 else "r", x, y, h, 9, True))
        for r in bases:
            y += 14
            for x, t in zip((250, 440, 540), (f"{r} %", money(bases[r], lang), money(taxes[r], lang))):
                ops.append(("t" if x == 250 else "r", x, y, t, 9, False))
        y += 10
        if rng.random() < 0.5:  # the net and VAT total rows printed under the table, or only the total
            y += 14
            ops += [("t", 300, y, L["net"], 9, False), ("r", 540, y, money(net, lang), 9, False)]
            y += 14
            ops += [("t", 300, y, L["vat"], 9, False), ("r", 540, y, money(vat, lang), 9, False)]
    elif kind == "multi_inline":
        y += 14
        ops += [("t", 300, y, L["sub"], 9, False), ("r", 540, y, money(net, lang), 9, False)] \
            if rng.random() < 0.5 else []
        for r in bases:
            y += 14
            ops += [("t", 300, y, L["inline"].format(r=r, b=money(bases[r], lang)), 9, False),
                    ("r", 540, y, money(taxes[r], lang), 9, False)]
    else:
        y += 14
        ops += [("t", 300, y, L["sub"], 9, False), ("r", 540, y, money(net, lang), 9, False)]
        y += 14
        r = used[0]
        ops += [("t", 300, y, L["vat1"].format(r=r), 9, False), ("r", 540, y, money(vat, lang), 9, False)]
    y += 18
    ops += [("t", 300, y, L["total"], 10, True), ("r", 540, y, f"{money(total, lang)} {cur}", 10, True)]
    ops.append(("t", 50, 780, f"{name} – {street} – {town}", 7, False))
    ops.append(("t", 50, 790, f"{reg_line} · {iban}", 7, False))
    truth = {"vendor_name": name, "invoice_number": number, "date": f"{year}-{month:02d}-{day:02d}",
             "subtotal": str(net), "tax": str(vat), "total": str(total), "_kind": kind, "_lang": lang,
             "_rates": len(bases), "_place": place}
    return truth, ops


def write(out: Path, n: int, seed: int) -> list[str]:
    """Write ``n`` invoices (PDF, PNG, truth) into ``out``; returns their names."""
    return write_documents(out, n, seed, make_invoice, prefix="synth", dpi=150)


def write_documents(out: Path, n: int, seed: int, make, *, prefix: str, dpi: int) -> list[str]:
    """Write ``n`` generated documents into ``out``: ``make(i, rng)`` gives ``(truth, ops)``, each op
    ``(kind, x, y, text, size, bold)`` in PDF points on an A4 page (kind ``r``: right-aligned at x);
    each document becomes ``<name>.pdf`` (text layer), ``<name>.png`` (rendered at ``dpi``) and
    ``<name>.truth.json``. Returns the names."""
    import pymupdf

    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    names = []
    for i in range(n):
        truth, ops = make(i, rng)
        name = f"{prefix}_{i:03d}_{truth['_lang']}_{truth['_kind']}"
        doc = pymupdf.open()
        page = doc.new_page(width=595, height=842)
        for k, x, y, text, size, bold in ops:
            font = "hebo" if bold else "helv"
            if k == "r":  # right-aligned at x (amount columns)
                x -= pymupdf.get_text_length(text, fontname=font, fontsize=size)
            page.insert_text((x, y + size), text, fontsize=size, fontname=font)
        doc.save(out / f"{name}.pdf")
        page.get_pixmap(dpi=dpi).save(out / f"{name}.png")
        doc.close()
        (out / f"{name}.truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1), encoding="utf-8")
        names.append(name)
    return names


def readings(out: Path, name: str, ocr: bool) -> list[tuple[str, list]]:
    """``[("text", pages)]`` of a generated document's text layer, and with ``ocr`` also ``("ocr",
    pages)``: PP-OCR's reading of its PNG, recorded beside it (``<name>.ocr.json``) and reused while
    the PNG's SHA-256 is the one recorded."""
    from benchmarks.score_extraction import pdf_text_pages, run_ppocr
    from desktop.core.model import PageResult

    out_readings: list[tuple[str, list]] = [("text", pdf_text_pages(out / f"{name}.pdf"))]
    if ocr:
        rec = out / f"{name}.ocr.json"
        digest = hashlib.sha256((out / f"{name}.png").read_bytes()).hexdigest()
        saved = json.loads(rec.read_text(encoding="utf-8")) if rec.is_file() else {}
        if saved.get("png_sha256") == digest:  # a recording of this very rendering
            pages = [PageResult.from_dict(p) for p in saved["pages"]]
        else:
            pages = run_ppocr(out / f"{name}.png")
            rec.write_text(json.dumps({"png_sha256": digest, "pages": [p.to_dict() for p in pages]},
                                      ensure_ascii=False), encoding="utf-8")
        out_readings.append(("ocr", pages))
    return out_readings


def score_documents(out: Path, names: list[str], ocr: bool, verbose: bool, *, fields, match,
                    empty_is_silent: bool) -> dict:
    """Read every generated invoice (text layer; with ``ocr`` also the PNG) and count, per reading path,
    field and kind (the truth's ``_kind`` and ``all``), ``[n, right, silently wrong]``.

    ``match(field, got, want)`` decides right; a wrong value not flagged for review is silent, and with
    ``empty_is_silent`` an unflagged empty field where the truth has a value is silent too."""
    from desktop.core.extraction import extract_fields

    stats: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for name in names:
        truth = json.loads((out / f"{name}.truth.json").read_text(encoding="utf-8"))
        for how, pages in readings(out, name, ocr):
            read = extract_fields(pages, "invoice").fields
            for f in fields:
                got, want = read[f], truth[f]
                ok = match(f, got.value, want)
                for kind in (truth["_kind"], "all"):
                    s = stats[(how, f, kind)]
                    s[0] += 1
                    s[1] += ok
                    s[2] += (not ok) and (empty_is_silent or got.value is not None) and not got.needs_review
                if verbose and not ok:
                    print(f"  {how} {name} {f}: got {got.value!r} ({got.confidence:.2f}"
                          f"{', flagged' if got.needs_review else ''}), expected {want!r}")
    return stats


def score(out: Path, names: list[str], ocr: bool, verbose: bool) -> dict:
    """Read every invoice (text layer; with ``ocr`` also the PNG) and count right / silently wrong
    (vendors compared as parties, :func:`benchmarks.scoring.same_party`; an empty field is never silent)."""
    from benchmarks.scoring import same, same_party

    def match(f: str, got, want) -> bool:
        return same_party(got, want) if f == "vendor_name" else same(f, got, want)

    return score_documents(out, names, ocr, verbose, fields=FIELDS, match=match, empty_is_silent=False)


def run(argv: list[str] | None, *, description: str, seed: int, write_fn, score_fn, kinds, fields,
        kind_width: int = 13) -> int:
    """The command line of a generated-document benchmark: write ``--n`` documents to ``--out``
    (never the repository), score them (``score_fn(out, names, ocr, verbose)`` -> ``{(how, field,
    kind): [n, right, silent]}``) and print one line per reading path and kind."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", type=Path, required=True, help="folder for the generated documents (not the repository)")
    ap.add_argument("--n", type=int, default=48)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--ocr", action="store_true", help="also read the PNG renderings with PP-OCR")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    names = write_fn(args.out, args.n, args.seed)
    stats = score_fn(args.out, names, args.ocr, args.verbose)
    for how in ("text", "ocr"):
        for kind in (*kinds, "all"):
            row = [(f, stats.get((how, f, kind))) for f in fields]
            if not any(s for _f, s in row):
                continue
            cells = "  ".join(f"{f} {s[1]}/{s[0]} (silent {s[2]})" for f, s in row if s)
            print(f"{how:4s} {kind:{kind_width}s} {cells}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(argv, description=__doc__.split("\n")[0], seed=7, write_fn=write, score_fn=score, kinds=KINDS,
               fields=FIELDS)


if __name__ == "__main__":
    raise SystemExit(main())
