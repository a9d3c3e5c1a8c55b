"""Bank account numbers printed on invoices: IBANs (ISO 13616-1), checked with python-stdnum."""
from __future__ import annotations

import re
import unicodedata

__all__ = ["BANK_DETAILS_LABEL", "find_ibans", "labelled_iban_like"]

#: Labels of an invoice's bank details (EN 16931 BG-17 "Credit transfer": BT-84 payment account
#: identifier, BT-85 account name, BT-86 the bank's identifier), as printed in English, German, French,
#: Dutch, Italian, Spanish and Portuguese, followed by their value: the IBAN (ISO 13616) and the BIC /
#: SWIFT code (ISO 9362: 4 letters bank, 2 letters country, 2 letters or digits location, optional
#: 3-character branch), an account, sort code (UK), routing / ABA number (US), Konto / BLZ (DE), RIB
#: (FR), rekening (NL), conto (IT), cuenta (ES), conta / NIB (PT) with its number or a colon; a bank's
#: name label (Bank, Bankverbindung, Banque, Coordonnées bancaires, Banca, Coordinate bancarie, Banco,
#: Datos / Dados bancários) with its colon. "by bank transfer", "auf unser Konto." are no label.
BANK_DETAILS_LABEL = re.compile(
    r"(?<![^\W\d_])(?:"
    r"(?:iban|account\s*(?:no\.?|number|nr\.?|#)?|acct\.?\s*(?:no\.?|#)?|sort\s*code|routing\s*(?:no\.?|number)?|"
    r"aba(?:\s*(?:no\.?|number))?|konto(?:nummer|\s*-?\s*nr\.?)?|kto\.?\s*(?:-?\s*nr\.?)?|blz|rib|"
    r"(?:bank)?rekening(?:nummer)?|rek\.?\s*nr\.?|conto(?:\s*corrente)?|c/c|cuenta|conta|nib)"
    r"\s*[:：#]?\s*(?=[A-Z]{0,4}[\s-]?\d[\dA-Z .\/-]{4,})"
    r"|(?:bic|swift)(?:\s*(?:code|/\s*bic))?\s*[:：]?\s*(?=(?-i:[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)\b)"
    r"|(?:bic|swift|iban|bank(?:verbindung|\s*details|\s*account|\s*name)?|banque|domiciliation|"
    r"coordonn[ée]es\s*bancaires|banca|coordinate\s*bancarie|banco|datos\s*bancarios|dados\s*banc[áa]rios)"
    r"\s*[:：])", re.I)

#: Two letters, two check digits and 11 to 30 letters or digits, possibly in groups of four separated
#: by spaces (ISO 13616-1 print format).
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ \u00a0]?[A-Z0-9]){11,30}\b")


def find_ibans(text: str) -> list[str]:
    """Every valid IBAN in ``text``, compact (``DE12500105170648489890``), in order of appearance.

    A candidate (:data:`_IBAN`) counts when its MOD 97-10 check (ISO 7064) and its country's length
    hold (``stdnum.iban.is_valid``); of a candidate followed by other text on the line (a BIC), the
    longest prefix that is a valid IBAN is taken.
    """
    from stdnum import iban

    found: list[str] = []
    for m in _IBAN.finditer(unicodedata.normalize("NFKC", text).upper()):
        token = m.group(0)
        for end in range(len(token), 14, -1):
            compact = iban.compact(token[:end])
            if iban.is_valid(compact):
                if compact not in found:
                    found.append(compact)
                break
    return found


#: An IBAN label and the IBAN-shaped text after it ("IBAN: DE89 3704 0044 0532 0131 00").
_LABELLED = re.compile(r"\bIBAN\b\s*[:：.]?\s*([A-Z]{2}\s?\d{2}(?:[ \u00a0]?[A-Z0-9]){11,30})\b")


def labelled_iban_like(text: str) -> tuple[str, str] | None:
    """``(compact, raw)`` of an IBAN-shaped value printed after an ``IBAN`` label whose check fails
    (:func:`find_ibans` finds none in it), or ``None``. A misprinted or misread IBAN is kept so that it
    can be shown and flagged, never dropped."""
    t = unicodedata.normalize("NFKC", text).upper()
    m = _LABELLED.search(t)
    if m is None or find_ibans(m.group(1)):
        return None
    raw = m.group(1).strip()
    return re.sub(r"[\s\u00a0]", "", raw), raw
