"""Generated invoices for the totals-block rules: write them, read them, score them.

The generator writes commercial invoices in English, German, French and Dutch with PyMuPDF (a PDF with
a text layer and a PNG rendering of each, 200 dpi) and their truth (subtotal, tax, total, amount due,
buyer). It varies the wording of each label among the usual ones of the language, the currency sign
printed before or after the figures (``€``, which base-14 Helvetica cannot draw, reaches the page and
the OCR as a stray mark) and the totals block:

* ``rate_rows``: a net total, then one tax row per rate that prints the tax alone (``VAT 20%  65.59``,
  ``VAT 0%  0.00``), then the total, sometimes the amount due;
* ``inline_base``: one tax row per rate with its base inside the label (``BTW 21% over 230,50  48,41``,
  ``TVA 20 % sur 785,00``, ``MwSt. 19 % auf 100,00``, ``VAT 20% on 100.00``), a single rate too;
* ``deposit``: net, tax and total, then a paid amount (a deposit) and the amount due after it
  (``Balance due``, ``Zu zahlen``, ``Reste à payer``, ``Te betalen``);
* ``gross_only``: the total with tax and the tax it includes, no net printed (the subtotal is then
  not on the page and must stay empty).

The buyer's heading varies too (``Bill to`` / ``Invoice to`` / ``Customer``, ``Rechnung an`` /
``Rechnungsempfänger`` / ``Kunde``, ``Facturé à`` / ``Adresse de facturation`` / ``Client``,
``Factuuradres`` / ``Gefactureerd aan`` / ``Klant``).

These documents are written by the person who wrote the rules they test: they show whether the rules
do what they are meant to on varied input of those kinds, not how they generalise (the corpora of
``benchmarks.score_extraction``, ``benchmarks.bench_einvoice`` and ``benchmarks.train_fields`` do).

Usage::

    python -m benchmarks.synth_totals --out DIR [--n 48] [--seed 11] [--ocr] [-v]

``--ocr`` also reads the PNG renderings with PP-OCR (rapidocr; recorded in ``DIR``, reused by a second
run). Per field and kind it prints the share right and the share wrong without a flag (silent
errors); an empty field that should be empty is right. Nothing is written to BENCHMARKS.md.
"""
from __future__ import annotations

import random
import sys
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synth_invoices import BUYERS, FORMS, STREETS, TOWNS, WORDS, money, run, score_documents, write_documents

FIELDS = ("subtotal", "tax", "total", "amount_due", "buyer_name")
KINDS = ("rate_rows", "inline_base", "deposit", "gross_only")
CENT = Decimal("0.01")

LANG: dict[str, dict] = {
    "en": dict(title="INVOICE", number=("Invoice No.", "Invoice number"), date=("Invoice date", "Date"),
               buyer=("Bill to", "Invoice to", "Customer"), net=("Net total", "Total net", "Subtotal", "Net amount"),
               vat="VAT {r}%", inline=("VAT {r}% on {b}", "VAT {r}% of {b}"),
               total=("Invoice total", "Total", "Grand total", "Total incl. VAT"),
               paid=("Paid on account", "Deposit paid", "Less deposit"),
               due=("Amount due", "Balance due", "Amount payable"), incl="of which VAT {r}%",
               rates=("20", "5", "0"), cur=("£", "GBP"), goods=("Paper", "Toner", "Books", "Cleaning", "Repairs")),
    "de": dict(title="RECHNUNG", number=("Rechnungs-Nr.", "Rechnungsnummer"), date=("Rechnungsdatum", "Datum"),
               buyer=("Rechnung an", "Rechnungsempfänger", "Kunde"),
               net=("Nettobetrag", "Summe netto", "Zwischensumme", "Netto"),
               vat="USt. {r} %", inline=("MwSt. {r} % auf {b}", "USt. {r} % aus {b}"),
               total=("Gesamtbetrag", "Rechnungsbetrag", "Summe brutto", "Endbetrag"),
               paid=("Anzahlung", "abzgl. Anzahlung", "Bereits bezahlt"),
               due=("Zu zahlen", "Zahlbetrag", "Restbetrag"), incl="enthaltene MwSt. {r} %",
               rates=("19", "7", "0"), cur=("€", "EUR"), goods=("Wartung", "Kabel", "Fachbuch", "Montage", "Leuchte")),
    "fr": dict(title="FACTURE", number=("N° facture", "Facture n°"), date=("Date", "Date de facture"),
               buyer=("Facturé à", "Adresse de facturation", "Client"), net=("Total HT", "Montant HT", "Sous-total"),
               vat="TVA {r} %", inline=("TVA {r} % sur {b}", "TVA {r}% sur {b}"),
               total=("Total TTC", "Montant TTC", "Montant total"),
               paid=("Acompte versé", "Acompte", "Déjà payé"),
               due=("Net à payer", "Reste à payer", "Solde dû"), incl="dont TVA {r} %",
               rates=("20", "10", "5,5"), cur=("€", "EUR"), goods=("Réparation", "Livres", "Déplacement", "Peinture")),
    "nl": dict(title="FACTUUR", number=("Factuurnummer", "Factuurnr."), date=("Factuurdatum", "Datum"),
               buyer=("Factuuradres", "Gefactureerd aan", "Klant"), net=("Subtotaal", "Totaal excl. BTW", "Netto bedrag"),
               vat="BTW {r}%", inline=("BTW {r}% over {b}", "BTW {r}% over € {b}"),
               total=("Totaal incl. BTW", "Totaalbedrag", "Factuurtotaal"),
               paid=("Aanbetaling", "Reeds betaald", "Vooruitbetaling"),
               due=("Te betalen", "Nog te betalen", "Openstaand bedrag"), incl="waarvan BTW {r}%",
               rates=("21", "9", "0"), cur=("€", "EUR"), goods=("Onderhoud", "Kraan", "Boeken", "Installatie")),
}


def _rate(r: str) -> Decimal:
    return Decimal(r.replace(",", "."))


def make_invoice(i: int, rng: random.Random) -> tuple[dict, list[tuple]]:
    """One invoice: its truth and its drawing ops ``(align, x, y, text, size, bold)`` in PDF points
    (``align`` ``"t"``: text starts at ``x``; ``"r"``: it ends there)."""
    lang = ("en", "de", "fr", "nl")[i % 4]
    kind = KINDS[(i // 4) % len(KINDS)]
    L = LANG[lang]
    name = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {rng.choice(FORMS[lang])}"
    street = rng.choice(STREETS[lang]).format(n=rng.randint(1, 180))
    town = rng.choice(TOWNS[lang])
    number = f"{rng.choice(('INV', 'RE', 'FA', ''))}-{rng.randint(2025, 2026)}-{rng.randint(10, 9999):04d}"
    day, month, year = rng.randint(1, 28), rng.randint(1, 12), 2026
    date = f"{day:02d}.{month:02d}.{year}" if lang in ("de", "nl") else f"{day:02d}/{month:02d}/{year}"
    sign, code = L["cur"]
    before = lang == "en" or rng.random() < 0.5  # "€ 48,41" / "£48.41" or "48,41 EUR"

    def amount(v: Decimal) -> str:
        m = money(v, lang)
        if v < 0:
            m = "-" + money(-v, lang)
        return f"{sign}{m}" if before and lang == "en" else f"{sign} {m}" if before else f"{m} {code}"

    ops: list[tuple] = [("t", 50, 50, name, 15, True), ("t", 420, 50, L["title"], 15, True),
                        ("t", 50, 72, street, 9, False), ("t", 50, 84, town, 9, False),
                        ("t", 330, 80, rng.choice(L["number"]), 9, False), ("t", 440, 80, number, 9, False),
                        ("t", 330, 93, rng.choice(L["date"]), 9, False), ("t", 440, 93, date, 9, False)]
    buyer = rng.choice(BUYERS)
    heading = rng.choice(L["buyer"])
    ops += [("t", 50, 150, heading, 9, True), ("t", 50, 163, buyer, 10, False),
            ("t", 50, 176, rng.choice(STREETS[lang]).format(n=rng.randint(1, 99)), 10, False),
            ("t", 50, 189, rng.choice(TOWNS[lang]), 10, False)]
    rates = list(L["rates"])
    used = rng.sample(rates[:2], 1) if kind == "gross_only" else (
        rates[: rng.choice((2, 3))] if kind == "rate_rows" else rates[: rng.choice((1, 2))])
    items = []
    for k in range(rng.randint(len(used), 5)):
        r = used[k % len(used)]
        qty = rng.randint(1, 9)
        price = Decimal(rng.randint(200, 30000)) / 100
        items.append((rng.choice(L["goods"]), qty, price, r, (price * qty).quantize(CENT)))
    y = 240.0
    for desc, qty, price, r, amt in items:
        ops += [("t", 50, y, desc, 9, False), ("t", 250, y, str(qty), 9, False),
                ("r", 340, y, money(price, lang), 9, False), ("t", 380, y, f"{r}%", 9, False),
                ("r", 540, y, money(amt, lang), 9, False)]
        y += 15
    bases: dict[str, Decimal] = defaultdict(Decimal)
    for *_x, r, amt in items:
        bases[r] += amt
    taxes = {r: (b * _rate(r) / 100).quantize(CENT, ROUND_HALF_UP) for r, b in bases.items()}
    net, vat = sum(bases.values(), Decimal(0)), sum(taxes.values(), Decimal(0))
    total = net + vat
    y += 25
    subtotal: Decimal | None = net
    due: Decimal | None = None

    def row(label: str, value: Decimal, bold: bool = False) -> None:
        nonlocal y
        ops.extend([("t", 300, y, label, 10, bold), ("r", 540, y, amount(value), 10, bold)])
        y += 16

    if kind == "gross_only":
        subtotal = None
        row(rng.choice(L["total"]), total, True)
        for r in bases:
            row(L["incl"].format(r=r), taxes[r])
    else:
        row(rng.choice(L["net"]), net)
        for r in bases:
            if kind == "inline_base":
                row(rng.choice(L["inline"]).format(r=r, b=money(bases[r], lang)), taxes[r])
            else:
                row(L["vat"].format(r=r), taxes[r])
        row(rng.choice(L["total"]), total, True)
        if kind == "deposit":
            paid = (total * Decimal(rng.choice((20, 25, 30, 50))) / 100).quantize(Decimal("1"))
            row(rng.choice(L["paid"]), -paid if rng.random() < 0.5 else paid)
            due = total - paid
            row(rng.choice(L["due"]), due, True)
        elif kind == "rate_rows" and rng.random() < 0.5:
            due = total
            row(rng.choice(L["due"]), due, True)
    ops.append(("t", 50, 790, f"{name} - {street} - {town}", 7, False))
    truth = {"subtotal": None if subtotal is None else str(subtotal), "tax": str(vat), "total": str(total),
             "amount_due": None if due is None else str(due), "buyer_name": buyer, "_kind": kind, "_lang": lang,
             "_rates": len(bases), "_heading": heading}
    return truth, ops


def write(out: Path, n: int, seed: int) -> list[str]:
    """Write ``n`` invoices (PDF, PNG, truth) into ``out``; returns their names."""
    return write_documents(out, n, seed, make_invoice, prefix="totals", dpi=200)


def score(out: Path, names: list[str], ocr: bool, verbose: bool) -> dict:
    """Read every invoice (text layer; with ``ocr`` also the PNG) and count right / silently wrong (a
    field the truth leaves empty is right only when empty; an unflagged empty field is silent)."""
    from benchmarks.scoring import same

    def match(f: str, got, want) -> bool:
        return got is None if want is None else same(f, got, want)

    return score_documents(out, names, ocr, verbose, fields=FIELDS, match=match, empty_is_silent=True)


def main(argv: list[str] | None = None) -> int:
    return run(argv, description=__doc__.split("\n")[0], seed=11, write_fn=write, score_fn=score, kinds=KINDS,
               fields=FIELDS, kind_width=12)


if __name__ == "__main__":
    raise SystemExit(main())
