"""Invoices headed in Italian, Spanish, Portuguese and Polish are typed as invoices and their number is
read from the heading's label, not from the seller's VAT number (table-driven, made-up documents)."""
from __future__ import annotations

import pytest

from desktop.core.extraction import detect_document_type, extract_fields
from tests.pages import synthetic_page

# (id, lines, invoice number, buyer)
CASES = [
    ("it-fattura-n", ["Osteria Al Ponte S.r.l.", "Corso Italia 8, 20122 Milano", "P.IVA IT09876543210",
                      "FATTURA N. 112/2026", "Data: 15/03/2026", "Cliente: Bottega Verdi, Via Po 2, Torino",
                      "Pranzo di lavoro 250,00 €", "Imponibile 250,00 €", "IVA 10% 25,00 €", "Totale documento 275,00 €"],
     "112/2026", "Bottega Verdi"),
    ("it-numero-fattura", ["Idraulica Bianchi S.n.c.", "Partita IVA 01234567890", "Numero fattura: 2026/0087",
                           "Data fattura 02/02/2026", "Imponibile 100,00", "IVA 22% 22,00", "Totale 122,00"],
     "2026/0087", None),
    ("es-factura-n", ["Talleres Gómez S.L.", "NIF B12345678", "FACTURA Nº F-2026-031", "Fecha: 10/05/2026",
                      "Cliente: Construcciones Ruiz S.A.", "Base imponible 400,00 €", "IVA 21% 84,00 €",
                      "Total factura 484,00 €"], "F-2026-031", "Construcciones Ruiz S.A."),
    ("pt-fatura", ["Padaria Lisboa Lda", "NIF PT501234567", "Fatura n.º 2026/118", "Data: 03/06/2026",
                   "Base tributável 50,00 €", "IVA 23% 11,50 €", "Total 61,50 €"], "2026/118", None),
    ("pl-faktura-nr", ["Kowalski Sp. z o.o.", "NIP PL5261234567", "Faktura nr FV/45/2026", "Data: 12.07.2026",
                       "Netto 1000,00 zł", "VAT 23% 230,00 zł", "Razem 1230,00 zł"], "FV/45/2026", None),
]


def _pages(lines: list[str]) -> list:
    return synthetic_page([[(t, 10)] for t in lines], width=900)


@pytest.mark.parametrize(("lines", "number", "buyer"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_latin_script_invoice_is_an_invoice_with_its_number(lines, number, buyer) -> None:
    pages = _pages(lines)
    assert detect_document_type(pages) == "invoice"
    fields = extract_fields(pages, "invoice").fields
    assert fields["invoice_number"].value == number
    assert not fields["invoice_number"].value.startswith(("IT", "PT", "PL"))  # never the VAT number
    if buyer is not None:
        assert fields["buyer_name"].value == buyer


@pytest.mark.parametrize("lines", [
    ["BAR CENTRALE", "Scontrino n. 45", "Caffè 1,20", "TOTALE 1,20", "CONTANTI 2,00", "RESTO 0,80", "Grazie"],
    ["CAFÉ SOL", "Ticket nº 88", "Café con leche 1,80", "TOTAL 1,80", "EFECTIVO 5,00", "CAMBIO 3,20", "Gracias"],
], ids=["it-scontrino", "es-ticket"])
def test_a_till_receipt_in_those_languages_stays_a_receipt(lines) -> None:
    assert detect_document_type(_pages(lines)) == "receipt"
