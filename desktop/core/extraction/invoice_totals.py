"""The totals block of an invoice: which printed amount is the total, the tax, the subtotal and the
amount due, and whether they agree.

EN 16931-1:2017 names the document totals (BG-22) and ties them together:

* BT-109 the total without VAT, BT-110 the total VAT, BT-112 the total with VAT (BR-CO-15:
  BT-112 = BT-109 + BT-110);
* BT-113 the paid amount (a deposit, "Acompte versé", "Anzahlung", "Aanbetaling", "Paid"), BT-114
  the rounding amount and BT-115 the amount due for payment (BR-CO-16: BT-115 = BT-112 - BT-113 +
  BT-114): "Amount due", "Balance due", "Net à payer", "Reste à payer", "Zu zahlen", "Zahlbetrag",
  "Restbetrag", "Te betalen", "Openstaand bedrag", "Importe a pagar", "Da pagare", "Valor a pagar".

Rules here, each of the kind, never of one document:

* a label's own base amount is never the tax: in ``BTW 21% over 230,50``, ``TVA 20 % sur 785,00``,
  ``MwSt. 19 % auf 100,00``, ``VAT 20% on 100.00`` the amount after the rate is the taxable amount the
  rate applies to (:func:`strip_rate_base`);
* one tax row per rate, each with its one amount (``VAT 20%  £65.59`` / ``VAT 0%  £0.00``) and
  distinct rates: the tax is their sum (BR-CO-14), not the last row's (:func:`per_rate_tax`);
* a total is never an amount labelled as a subtotal (or as the amount due after a deposit) when a
  larger amount with a total label is printed (:func:`prefer_total`);
* when no subtotal was read but a total and a tax were, the total less the tax is looked for among the
  printed amounts (:func:`review_totals`); not finding it is a problem on both, and an amount due
  other than the total must be explained by a printed paid amount.

Coordinates: the :class:`~desktop.core.extraction.layout.Ln` boxes are in page pixels.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.extraction.amounts import to_decimal
from desktop.core.extraction.labels import label_pattern
from desktop.core.extraction.layout import Candidate, Layout, Ln
from desktop.core.extraction.parsers import money_tokens
from desktop.core.model import Field

__all__ = ["AMOUNT_DUE_LABEL", "NET_TOTAL_LABEL", "PAID_LABEL", "WITHHOLDING_LABEL", "amount_due_candidate",
           "check_amount_due", "included_tax", "per_rate_tax", "prefer_total", "review_totals", "strip_rate_base", "tax_money", "without_amount_due"]

Money = Callable[[str], "tuple[str | None, str, list[Diagnostic]] | None"]

_CENT = Decimal("0.01")

#: Labels of the amount due for payment (EN 16931 BT-115) in en/de/fr/nl/es/it/pt, whole words.
AMOUNT_DUE_LABEL = re.compile(
    r"^\W*(?:(?:total|invoice|the|gesamt|totale?)\s+)?(amount\s*due|balance\s*due|total\s*due|amount\s*payable|"
    r"balance\s*to\s*pay|amount\s*to\s*pay|net\s*[àa]\s*payer|reste\s*[àa]\s*payer|montant\s*d[ûu]|solde\s*d[ûu]|"
    r"zu\s*zahlen|zahlbetrag|restbetrag|offener\s*betrag|te\s*betalen|openstaand\s*bedrag|nog\s*te\s*betalen|"
    r"importe\s*a\s*pagar|total\s*a\s*pagar|saldo\s*a\s*pagar|(?:importo\s*)?da\s*pagare|"
    r"netto\s*a\s*pagare|valor\s*a\s*pagar)(?![^\W\d_])(?!\s*(voor|before|by|bis|avant|le|op|binnen|within)\b)",
    re.I)
#: The total without VAT (EN 16931 BT-109) labelled by the one word "Net" ("Net: $540.00", "NET  540.00"
#: with the amount in the next box), as English invoices print it after a discount or a charge; only as
#: the whole label, so "Net 30" (payment terms, BT-20), "Net weight" or "Net amount" are not it ("Net
#: amount" is in the shared vocabulary). The shared vocabulary's subtotal labels name it in the other
#: languages: "Imponibile", "Total HT", "Netto", "Total excl. GST" (``resources/labels/amounts.json``).
NET_TOTAL_LABEL = re.compile(r"^\W*net\s*(?:[:：]|$)", re.I)
#: Labels of an amount already paid (EN 16931 BT-113 "Paid amount": "the sum of amounts which have been
#: paid in advance"): a deposit or a prepayment, and a payment recorded on the invoice before it was
#: printed, as invoicing software prints it above the balance ("Payment received 03/10/2025 -$6,000.00",
#: "Less payments", "Payments/Credits", "Zahlungseingang", "Erhaltene Zahlung", "Paiement reçu",
#: "Règlement reçu", "Ontvangen betaling", "Pago recibido", "Pagamento ricevuto / recebido").
PAID_LABEL = re.compile(
    r"(?<![^\W\d_])(paid|prepaid|prepayment|deposit|already\s*paid|less\s*paid|acompte|d[ée]j[àa]\s*(pay[ée]|"
    r"r[ée]gl[ée])|avance|anzahlung|vorauszahlung|bereits\s*bezahlt|abschlag\w*|aanbetaling|vooruitbetaling|"
    r"reeds\s*betaald|betaald|anticipo|acconto|adiantamento|sinal|"
    r"payments?\s*(received|made|applied)|(less|minus)\s*payments?|payments?\s*/\s*credits?|amount\s*received|"
    r"zahlung(seingang|\s*erhalten)|erhaltene\s*zahlung|(paiement|r[èe]glement|versement)\s*re[çc]u|"
    r"betaling\s*ontvangen|ontvangen\s*betaling|pago\s*recibido|pagamento\s*(ricevuto|recebido))(?![^\W\d_])", re.I)
#: Labels of a tax withheld from the payment (the ``withholding`` role of ``resources/labels/amounts.json``):
#: Italy's ritenuta d'acconto (DPR 600/1973 art. 25; FatturaPA ``DatiRitenuta``: the amount to pay is the
#: document total less the ritenuta), Spain's retención IRPF (Real Decreto 1619/2012 art. 6.2), the German
#: Sicherheitseinbehalt, the French retenue de garantie (loi 71-584), a US retainage. It is withheld from the
#: amount payable, not from the total (BT-112): like a paid amount, it explains an amount due below the total.
WITHHOLDING_LABEL = label_pattern("withholding")
#: A rate followed by the base it applies to, inside a tax label: ``21% over 230,50``, ``20 % sur
#: 785,00``, ``19 % auf 100,00``, ``20% on 100.00``, ``21 % van 50,00``, ``22% su 10,00``, ``21% sobre
#: 10,00``, ``7% von 20,00``; the base may carry a currency sign or code.
_RATE_BASE = re.compile(
    r"(\d{1,2}(?:[.,]\d{1,2})?\s*%)\s*(?:over|sur|auf|von|aus|on|of|from|van|op|su|sobre|de|[üu]ber|x|\*)\s*"
    r"(?:[€$£]|EUR|GBP|CHF|USD)?\s*\d{1,3}(?:[.,'\u00a0 ]\d{3})*(?:[.,]\d{1,2})?(?!\d)"
    r"(?:\s*(?:[€$£]|EUR|GBP|CHF|USD)(?![^\W\d_])(?!\s*[-\d]))?", re.I)
#: Tax words; India's GST is levied as CGST + SGST (or UTGST) within a state and IGST between states (CGST
#: Act 2017 s. 9, IGST Act 2017 s. 5): two taxes at the same rate on one invoice. Canada's GST/TPS with a
#: provincial PST or QST/TVQ, or the harmonized HST/TVH (``resources/labels/amounts.json``), likewise.
_TAX_WORD = re.compile(r"(?<![^\W\d_])(tax|vat|tva|mwst|ust|btw|gst|cgst|sgst|utgst|igst|iva|igic|moms|alv|dph|pdv|"
                       r"hst|pst|qst|tps|tvh|tvq)"
                       r"(?![^\W\d_])", re.I)
_TAX_NOT = re.compile(r"incl|inkl|excl|exkl|ohne|nummer|number|n[°º]|\bnr\b|\bno\b|\bid\b|registr|intracom|"
                      r"total|totaal|summe|gesamt|grondslag|base|netto|\bht\b", re.I)


def strip_rate_base(text: str) -> str:
    """``text`` with a rate's base removed (``"BTW 9% over 39,95"`` -> ``"BTW 9%"``): the amount a rate
    is applied to, printed inside the tax label, is the taxable amount, never the tax."""
    return _RATE_BASE.sub(lambda m: m.group(1), text).rstrip() if _RATE_BASE.search(text) else text


def tax_money(money: Money) -> Money:
    """``money`` for tax labels: the text's rate bases are no amounts (:func:`strip_rate_base`)."""

    def find(text: str) -> tuple[str | None, str, list[Diagnostic]] | None:
        return money(strip_rate_base(text))

    return find


def _value(c: Candidate | Field | None) -> Decimal | None:
    return to_decimal(c.value) if c is not None else None


def _rate_tax_row(row: list[Ln]) -> tuple[tuple[str, Decimal], str, str, Ln] | None:
    """``((tax, rate), value, raw, line)`` of a tax row that names one rate and prints one amount after it
    (``VAT 20%  £65.59``, ``BTW 21% over 230,50  48,41``, ``CGST @ 9%  9,450.00``), else ``None``; ``tax``
    is the tax word, upper case."""
    label = row[0]
    text = strip_rate_base(label.text)
    m = re.search(r"(\d{1,2}(?:[.,]\d{1,2})?)\s*%", text)
    if not _TAX_WORD.search(text) or not m or _TAX_NOT.search(text) or len(re.findall(r"%", text)) != 1:
        return None
    after = text[m.end():]
    found: list[tuple[str, str, Ln]] = [(v, raw, label) for v, raw, dec, _s in money_tokens(after) if dec]
    for o in row[1:]:
        found += [(v, raw, o) for v, raw, dec, _s in money_tokens(o.text) if dec]
    if len(found) != 1:
        return None
    v, raw, ln = found[0]
    word = _TAX_WORD.search(text)
    return ((word.group(1).upper() if word else ""), Decimal(m.group(1).replace(",", "."))), v, raw, ln


def per_rate_tax(layout: Layout) -> Candidate | None:
    """The sum of adjacent tax rows of distinct rates or distinct taxes that print one amount each
    (BR-CO-14), when there are two rows or more (``VAT 20% £65.59`` / ``VAT 0% £0.00`` -> 65.59; ``CGST @ 9%
    9,450.00`` / ``SGST @ 9% 9,450.00`` -> 18900.00); ``None`` otherwise.

    A breakdown that prints each rate's base beside its tax is :mod:`.vat_breakdown`'s; this reads the
    rows that print the tax alone (or the base inside the label, :func:`strip_rate_base`)."""
    blocks: list[list[tuple[tuple[str, Decimal], str, str, Ln]]] = []
    current: list[tuple[tuple[str, Decimal], str, str, Ln]] = []
    for row in layout.rows(by_position=True):
        got = _rate_tax_row(row)
        if got is not None and (not current or got[0] not in {r[0] for r in current}
                                and current[-1][3].page == got[3].page):
            current.append(got)
            continue
        if current:
            blocks.append(current)
        current = [got] if got is not None else []
    if current:
        blocks.append(current)
    blocks = [b for b in blocks if len(b) >= 2 and any(r[0][1] > 0 for r in b)]
    if not blocks:
        return None
    block = blocks[-1]
    total = sum((Decimal(r[1]) for r in block), Decimal(0)).quantize(_CENT)
    return Candidate(str(total), " + ".join(r[2] for r in block), [r[3] for r in block], [], 0.85)


_SUBTOTAL_WORDS = label_pattern("subtotal")


def prefer_total(total: Candidate | None, totals: list[Candidate], layout: Layout) -> Candidate | None:
    """The rules' total, unless it is labelled as a subtotal or as the amount due while a larger
    amount with a total label of another kind is printed: then the largest such amount.

    A subtotal is the amount before tax and the amount due the total less what was paid (BR-CO-16),
    so either is at most the total; the larger total-labelled amount is the document's total."""
    if total is None:
        return None
    g = _value(total)
    if g is None:
        return total

    def kind_of(c: Candidate) -> str:
        row = " ".join(" ".join(o.text for o in layout.row(ln)) for ln in c.lines)
        if _SUBTOTAL_WORDS.search(row):
            return "sub"
        return "due" if AMOUNT_DUE_LABEL.search(row) else "total"

    mine = kind_of(total)
    if mine == "total":
        return total
    larger = [c for c in totals if kind_of(c) == "total" and (v := _value(c)) is not None and v > g]
    return max(larger, key=lambda c: _value(c) or Decimal(0)) if larger else total


def amount_due_candidate(layout: Layout, money: Money) -> Candidate | None:
    """The amount due for payment (BT-115): the last amount after an amount-due label, or ``None``."""
    found = layout.labelled(AMOUNT_DUE_LABEL, money, prefer_rightmost=True, factor=0.9)
    return found[-1] if found else None


def _printed(layout: Layout) -> list[tuple[Decimal, str, Ln]]:
    out = []
    for ln in layout.lines:
        for v, raw, dec, _s in money_tokens(strip_rate_base(ln.text)):
            if dec:
                out.append((Decimal(v), raw, ln))
    return out


def _has_due_label(layout: Layout) -> bool:
    return any(AMOUNT_DUE_LABEL.search(ln.text) for ln in layout.lines)


def review_totals(fields: dict[str, Field], layout: Layout, source: str) -> set[str]:
    """Tie an invoice's amount fields together once every field is chosen (in place).

    * No subtotal but a total and a non-zero tax: the printed amount that is the total less the tax
      (BR-CO-15), on a line that is neither the total's nor a tax line, becomes the subtotal (with its
      box, confidence 0.85: the arithmetic confirms it); when it is printed nowhere, the total and the
      tax get a :attr:`~desktop.core.diagnostics.Code.NET_NOT_PRINTED` problem (one of them is wrong).
    * An amount due other than the total must be the total less a printed paid amount (BR-CO-16),
      else it gets :attr:`~desktop.core.diagnostics.Code.AMOUNT_DUE_UNEXPLAINED`.
    * No amount due read although an amount-due label or a paid amount is printed: it is missing (it
      is never computed: a value not printed is not invented).

    Args:
        fields: the invoice's fields by name (``subtotal``, ``tax``, ``total``, ``amount_due``).
        layout: the document's lines.
        source: the fields' source (``ocr``, ``text_layer``).

    Returns:
        The names of fields left empty that the document says it has (a subtotal beside a non-zero
        tax, an amount due under a printed amount-due label): the caller flags them for review.
    """
    missing: set[str] = set()
    sub, tax, total, due = (fields.get(n) for n in ("subtotal", "tax", "total", "amount_due"))
    g, t = _value(total), _value(tax)
    if sub is not None and sub.value is None and g is not None and t is not None and t != 0 and total and tax:
        net = (g - t).quantize(_CENT)
        own = {tuple(b) for f in (total, tax) for b in f.boxes}
        hit = next(((raw, ln) for v, raw, ln in _printed(layout) if abs(v - net) < _CENT
                    and tuple(ln.box) not in own and not _TAX_WORD.search(ln.text)), None)
        if hit is not None:
            raw, ln = hit
            fields["subtotal"] = Field(name="subtotal", value=str(net), raw=raw, confidence=round(0.85 * ln.confidence, 4),
                                       page=ln.page, boxes=[ln.box], source=source)
        else:
            problem = diag(Code.NET_NOT_PRINTED, total=str(g), tax=str(t), net=str(net))
            for f in (total, tax):
                f.problems.append(problem)
            missing.add("subtotal")
    if due is not None and due.value is not None:
        due.problems.extend(check_amount_due(_value(due), g, layout))
    elif due is not None and (_has_due_label(layout) or any((PAID_LABEL.search(ln.text) or WITHHOLDING_LABEL.search(ln.text))
                                                             and money_tokens(ln.text) for ln in layout.lines)):
        missing.add("amount_due")
    return missing


def without_amount_due(cands: list, rules: dict[str, Candidate | None], layout: Layout) -> list:
    """The learned model's total candidates less the amount due, when the rules read an amount due
    smaller than the total that a printed paid amount explains (BR-CO-16: the amount due is the total
    less what was paid, so it is not the total). Unchanged otherwise, and never emptied.

    Args:
        cands: the total's :class:`~desktop.core.extraction.candidates.FieldCandidate` list.
        rules: the rules' candidates (``total``, ``amount_due``).
        layout: the document's lines.
    """
    due, total = _value(rules.get("amount_due")), _value(rules.get("total"))
    if due is None or total is None or due >= total or check_amount_due(due, total, layout):
        return cands
    kept = [c for c in cands if to_decimal(c.value) != due]
    return kept or cands




def check_amount_due(due: Decimal | None, total: Decimal | None, layout: Layout) -> list[Diagnostic]:
    """BR-CO-16: an amount due other than the total is the total less a paid amount that is printed
    (``Acompte versé -300,00``, ``Paid 50.00``), or less a printed withholding (:data:`WITHHOLDING_LABEL`:
    ``Ritenuta d'acconto 20% -200,00``, ``Retención IRPF 15% -150,00``); a problem when none is."""
    if due is None or total is None or abs(due - total) < _CENT:
        return []
    paid = total - due
    for v, _raw, ln in _printed(layout):
        if abs(abs(v) - abs(paid)) < _CENT and any(PAID_LABEL.search(o.text) or WITHHOLDING_LABEL.search(o.text)
                                                   for o in [ln, *layout.row(ln)]):
            return []
    return [diag(Code.AMOUNT_DUE_UNEXPLAINED, due=str(due), total=str(total), difference=str(paid.quantize(_CENT)))]


#: A tax row that states the tax already included in the total: "VAT @ 20% incl.", "incl. 19 % MwSt.",
#: "dont TVA 20 %" (French "of which VAT"), "IVA incluida", "BTW inbegrepen", "GST included".
_INCLUDED_WORD = re.compile(r"(?<![^\W\d_])(incl(?:\.|uded|udes|usive|uding)?|inkl\.?|inklusive|enthalten|dont|"
                            r"inclus[ae]?|incluid[oa]|inclus[oa]|inbegrepen|davon)(?![^\W\d_])", re.I)
#: Words that make an "incl." row a total rather than the tax in it ("Total incl. VAT 13.60").
_INCLUDED_NOT = re.compile(r"total|totaal|summe|gesamt|betrag|bedrag|montant|importe|importo|amount|price|prix|"
                           r"preis|excl|exkl|ohne|\bht\b|nummer|number|\bno\b|\breg", re.I)
#: The amount before tax on a tax-inclusive receipt, alone on its row: "Net", "Net amount", "Netto",
#: "Excl. VAT", "Total excl. VAT", "Montant HT", "Taxable value" (India, CGST Rules 2017 r. 46(j)),
#: "Imponibile", "Base imponible", "Base tributável" (EN 16931 BT-116 in Italian, Spanish, Portuguese).
#: Not Malaysia's "NETT" total.
NET_LABEL = re.compile(r"^\W*(net(\s*(amount|total|sales|value|of\s*(vat|tax|gst)))?|total\s*net|netto(betrag|summe)?|"
                       r"(total\s*|amount\s*)?excl\.?\s*(of\s*)?(vat|tax|gst|mwst|btw|tva)|(total|montant)\s*ht|"
                       r"taxable\s*(value|amount)|(base\s*)?imponibile|base\s*imponible|base\s*tribut[áa]vel)\W*$", re.I)


def _one_amount(row: list[Ln], label_end: int) -> tuple[str, str, Ln] | None:
    label = row[0]
    found = [(v, raw, label) for v, raw, dec, _s in money_tokens(label.text[label_end:]) if dec]
    for o in row[1:]:
        found += [(v, raw, o) for v, raw, dec, _s in money_tokens(o.text) if dec]
    return found[0] if len(found) == 1 else None


def included_tax(layout: Layout, total: Decimal | None) -> tuple[Candidate | None, Candidate | None]:
    """``(tax, net)`` of a tax-inclusive receipt that prints the tax its total includes ("VAT @ 20% incl.
    £2.27") and the amount before tax ("Net £11.33"), each ``None`` when not found.

    The tax row has a tax word, an "included" word (:data:`_INCLUDED_WORD`) and no total word, and one
    amount after its label; it is taken when a net row (:data:`NET_LABEL`, one amount) makes
    ``net + tax = total`` (within 0.01), or when its printed rate agrees with the total
    (``tax = total x r / (100 + r)`` within 0.02, tax-inclusive prices); the net only with such a tax.
    """
    if total is None or total <= 0:
        return None, None
    tax: Candidate | None = None
    rate: Decimal | None = None
    nets: list[Candidate] = []
    for row in layout.rows(by_position=True):
        text = row[0].text
        if NET_LABEL.match(re.sub(r"[-−]?\s*[£€$]?\s*\d[\d.,]*\s*$", "", text)):
            got = _one_amount(row, 0)
            if got is not None:
                nets.append(Candidate(got[0], got[1], [got[2]], [], 0.85))
            continue
        if tax is not None or not (_TAX_WORD.search(text) and _INCLUDED_WORD.search(text)) or _INCLUDED_NOT.search(text):
            continue
        m = re.search(r"(\d{1,2}(?:[.,]\d{1,2})?)\s*%", text)
        got = _one_amount(row, m.end() if m else _INCLUDED_WORD.search(text).end())  # type: ignore[union-attr]
        if got is not None and (v := to_decimal(got[0])) is not None and 0 < v < total:
            tax = Candidate(got[0], got[1], [got[2]], [], 0.85)
            rate = Decimal(m.group(1).replace(",", ".")) if m else None
    if tax is None:
        return None, None
    t = to_decimal(tax.value)
    assert t is not None
    for net in nets:
        n = to_decimal(net.value)
        if n is not None and abs(n + t - total) <= _CENT:
            return tax, net
    if rate is not None and abs(total * rate / (100 + rate) - t) <= Decimal("0.02"):
        return tax, None
    return None, None
