"""Tax identification numbers printed on invoices: EU VAT numbers, Swiss UID/MWST, Indian GSTIN,
and the labels that announce them in English, Dutch, German, French, Spanish and Italian.

Formats (country prefix + digits/letters, spaces and dots ignored) are those the European
Commission's VIES service validates ("VIES VAT number validation -- FAQ: format of VAT numbers",
https://ec.europa.eu/taxation_customs/vies/faq.html), the Swiss UID (``CHE-123.456.789 MWST``,
Federal Act on the Business Identification Number, SR 431.03) and the Indian GSTIN (15 characters:
2-digit state code + 10-character PAN + entity number + ``Z`` + check character; CBIC, GST
Registration Rules 2017, rule 10). A value that does not match any format is still returned when a
label announces it, with a problem noting so.
"""
from __future__ import annotations

import re

__all__ = ["VAT_FORMATS", "TAX_ID_LABEL", "REGISTRATION_LABEL", "REGISTRATION_NUMBER", "BUYER_MARK", "SELLER_MARK",
           "match_vat", "find_vat_numbers", "check_digits_fail"]

#: ISO 3166 alpha-2 prefix (EL for Greece, as VIES writes it) -> regex of the rest.
VAT_FORMATS: dict[str, str] = {
    "AT": r"U\d{8}", "BE": r"[01]\d{9}", "BG": r"\d{9,10}", "CY": r"\d{8}[A-Z]", "CZ": r"\d{8,10}",
    "DE": r"\d{9}", "DK": r"\d{8}", "EE": r"\d{9}", "EL": r"\d{9}", "ES": r"[A-Z0-9]\d{7}[A-Z0-9]",
    "FI": r"\d{8}", "FR": r"[A-HJ-NP-Z0-9]{2}\d{9}", "HR": r"\d{11}", "HU": r"\d{8}",
    "IE": r"\d[A-Z0-9+*]\d{5}[A-Z]{1,2}", "IT": r"\d{11}", "LT": r"\d{9}|\d{12}", "LU": r"\d{8}",
    "LV": r"\d{11}", "MT": r"\d{8}", "NL": r"\d{9}B\d{2}", "PL": r"\d{10}", "PT": r"\d{9}",
    "RO": r"\d{2,10}", "SE": r"\d{10}01", "SI": r"\d{8}", "SK": r"\d{10}", "GB": r"\d{9}|\d{12}|GD\d{3}|HA\d{3}",
    "XI": r"\d{9}|\d{12}", "CHE": r"\d{9}",
}
_VAT_RX = re.compile("|".join(f"(?:{cc}(?:{rest}))" for cc, rest in VAT_FORMATS.items()))
_GSTIN = re.compile(r"\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]")

#: Labels of VAT / sales-tax registration numbers (not amounts): VAT No / VAT Reg / VAT ID, BTW(-nummer),
#: USt-IdNr / UStId / MwSt-Nr, TVA (intracommunautaire) / N° TVA, NIF / CIF, P.IVA / Partita IVA, GSTIN,
#: GST No / GST Reg, TIN, Tax ID.
TAX_ID_LABEL = re.compile(
    r"\b(VAT\s*(REG(ISTRATION)?\.?\s*)?(NO|NUMBER|NR|ID|#)?\.?|VAT/TIN|BTW[\s-]*(NUMMER|NR|ID|NO)?\.?|"
    r"UST[\s.-]*ID[\s.-]*(NR)?\.?|USTID(NR)?\.?|MWST[\s.-]*(NR|NUMMER)\.?|UMSATZSTEUER[\s-]*ID\w*|"
    r"(N[°º]\s*)?TVA(\s*INTRA\w*)?|NIF|CIF|P\.?\s*IVA|PARTITA\s*IVA|GSTIN|GST\s*(REG(ISTRATION)?\.?\s*)?(NO|ID|#)\.?|"
    r"TIN|TAX\s*(ID|NO|NUMBER|REG\w*)\.?)(?=\W|$)\s*[:：.#]?", re.I)

#: Labels of business and tax registration numbers other than VAT numbers: the US Employer Identification
#: Number (``EIN`` / ``FEIN``, IRS format NN-NNNNNNN), the Australian Business Number and Company Number
#: (``ABN``, ATO; ``ACN``, ASIC), Singapore's UEN (ACRA), India's CIN and PAN, a UK "Company No." / "Company
#: Reg. No." (Companies House), "Reg. No.", the German Steuernummer (``St.-Nr.``) and Handelsregister
#: (``HRA`` / ``HRB``), the French SIRET / SIREN / RCS, the Dutch KvK, the Italian codice fiscale and REA,
#: Malaysia's ROC / BRN. The acronyms count in capitals only (German "ein" is a word).
REGISTRATION_LABEL = re.compile(
    r"(?-i:\b(?:F?EIN|ABN|ACN|UEN|CIN|PAN|ROC|BRN|HR[AB]|RCS|REA)\b)|"
    r"\b(?:company\s*(?:reg(?:istration)?\.?\s*)?(?:no|number|nr)|reg(?:istration)?\.?\s*(?:no|number|nr)|"
    r"st\.?\s*-?\s*nr|steuer\s*-?\s*(?:nr|nummer)|siret|siren|kvk(?:\s*-?\s*(?:nr|nummer))?|"
    r"codice\s*fiscale|c\.?\s*f\.|employer\s*identification\s*(?:no|number))\b\.?", re.I)
#: A tax or registration label (:data:`TAX_ID_LABEL`, :data:`REGISTRATION_LABEL`) followed by its number
#: (digits, possibly after a country prefix: ``VAT No. GB 123 4567 89``, ``EIN 12-3456789``, ``ABN 51 824
#: 753 556``, ``USt-IdNr.: DE123456789``): a field of its own, never part of an address or of the payment
#: terms. A label alone ("prices excl. VAT", "12 Tin Lane") is not one.
REGISTRATION_NUMBER = re.compile(
    rf"(?:{TAX_ID_LABEL.pattern}|{REGISTRATION_LABEL.pattern})\s*[:：#]?\s*(?=[A-Z]{{0,4}}[\s-]?\d[\dA-Z .\/-]{{4,}})",
    re.I)

#: Wording that marks a tax ID as the customer's, not the issuer's ("Uw BTW nummer", "Ihre USt-IdNr",
#: "Votre n° TVA", "Vos identifiants", "Customer VAT", "Buyer GSTIN", "Kunden-USt", "Ku.-USt-Id", "Vostra
#: P.IVA", Hungarian "Vevő" (buyer) / "Ügyf." (ügyfél, customer)).
BUYER_MARK = re.compile(r"\b(uw|your|ihre?|votre|vos|vostr[oaie]|customer|client|klant|kunden?|buyer|bill\s*to|"
                        r"acheteur|koper|vevő|ügyfél)\b|\b(ku|ügyf)\.", re.I)
#: Wording that marks a block or a tax ID as the issuer's own ("Nos références", "Notre n° TVA", "Our VAT
#: number", "Unsere USt-IdNr", "Onze BTW", "Nostra P.IVA").
SELLER_MARK = re.compile(r"\b(nos|notre|our|unser\w*|onze|nostr[oaie])\b", re.I)


def _squash(text: str) -> str:
    return re.sub(r"[\s.\-/]", "", text.upper())


def match_vat(text: str) -> str | None:
    """The first well-formed VAT number / GSTIN in ``text`` (spaces, dots, hyphens ignored), upper case."""
    t = _squash(text)
    for rx in (_VAT_RX, _GSTIN):
        for m in rx.finditer(t):
            s, e = m.span()
            # not a slice of a longer code (an IBAN such as DE30507500940000048567)
            if (s and t[s - 1].isalnum() and not t[:s].endswith(("VAT", "BTW", "TVA", "IVA", "USTID", "IDNR", "TIN"))) \
                    or (e < len(t) and t[e].isdigit()):
                continue
            return m.group(0)
    return None


def find_vat_numbers(text: str) -> list[str]:
    """Every well-formed VAT number / GSTIN token in ``text`` (each whitespace-separated group tried)."""
    out = []
    for tok in re.findall(r"[A-Z]{2,3}[\dA-Z .\-]{6,20}", text.upper()):
        v = match_vat(tok)
        if v and v not in out:
            out.append(v)
    return out


def check_digits_fail(value: str) -> bool:
    """Whether a well-formed VAT number (:func:`match_vat`) fails its check digits: the national
    algorithms of the EU member states (German ISO 7064 MOD 11,10, French key = (12 + 3 x SIREN mod 97)
    mod 97, ...) and the GSTIN's check character, as python-stdnum implements them (``stdnum.eu.vat``,
    ``stdnum.in_.gstin``). ``False`` for a number whose format python-stdnum does not check (a Swiss
    UID, a UK number it does not know): only a failed check counts, as a misread digit or a misprint."""
    from stdnum import exceptions
    from stdnum.eu import vat
    from stdnum.in_ import gstin

    checker = gstin if _GSTIN.fullmatch(value) else vat
    try:
        checker.validate(value)
    except exceptions.InvalidChecksum:
        return True
    except exceptions.ValidationError:
        return False
    return False
