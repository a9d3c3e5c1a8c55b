"""Bank account numbers printed on invoices: IBANs (ISO 13616-1), checked with python-stdnum."""
from __future__ import annotations

import re
import unicodedata

__all__ = ["find_ibans"]

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
