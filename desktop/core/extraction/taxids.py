"""Tax identification numbers printed on invoices: EU VAT numbers, Swiss UID/MWST, Indian GSTIN,
and the labels that announce them in English, Dutch, German, French, Spanish and Italian.

Formats (country prefix + digits/letters, spaces and dots ignored) are those the European
Commission's VIES service validates ("VIES VAT number validation -- FAQ: format of VAT numbers",
https://ec.europa.eu/taxation_customs/vies/faq.html), the Swiss UID (``CHE-123.456.789 MWST``,
Federal Act on the Business Identification Number, SR 431.03) and the Indian GSTIN (15 characters:
2-digit state code + 10-character PAN + entity number + ``Z`` + check character; CBIC, GST
Registration Rules 2017, rule 10), the Spanish NIF printed without its ``ES`` prefix (Agencia Tributaria,
Real Decreto 1065/2007 arts. 18-22 and Orden EHA/451/2008: a legal entity's CIF is a letter + 7 digits + a
control digit or letter, a Spaniard's DNI 8 digits + a check letter, a foreigner's NIE X/Y/Z + 7 digits +
a check letter; :data:`ES_NIF`) and the Canadian GST/HST registration (the CRA's 9-digit Business Number
+ program identifier ``RT`` + 4-digit account: ``123456789 RT0001``; :data:`CA_GST_HST`).
A value that does not match any format is still returned when a
label announces it, with a problem noting so.
"""
from __future__ import annotations

import re

__all__ = ["VAT_FORMATS", "ES_NIF", "CA_GST_HST", "BARE_TAX_ID", "match_es_nif",
           "TAX_ID_LABEL", "REGISTRATION_LABEL", "REGISTRATION_NUMBER", "BUYER_MARK", "SELLER_MARK",
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
    r"(N[°º]\s*)?TVA(\s*INTRA\w*)?|N\.?I\.?F\.?|C\.?I\.?F\.?|NIE|(?-i:UID)([\s-]*(NR|NUMMER))?\.?|"
    r"(GST|HST|QST|TPS|TVQ)(\s*/\s*(GST|HST|TPS|TVQ))?\s*(REG(ISTRATION)?\.?\s*)?(NO|NUMBER|N[°º]|ID|#)\.?|P\.?\s*IVA|PARTITA\s*IVA|GSTIN|GST\s*(REG(ISTRATION)?\.?\s*)?(NO|ID|#)\.?|"
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


#: A Spanish NIF without the ``ES`` prefix (Agencia Tributaria; Orden EHA/451/2008 for the CIF's first
#: letter, the entity's legal form): a CIF (A-H, J, N, P-S, U-W + 7 digits + a control digit or letter A-J),
#: a NIF of the K/L/M series or a NIE (X/Y/Z + 7 digits + a check letter), a DNI (8 digits + a check letter).
#: Matched on the squashed text (:func:`_squash`), so ``B-84512376`` and ``12.345.678-Z`` are read whole.
ES_NIF = re.compile(r"[A-HJNP-SUVW]\d{7}[0-9A-J]|[KLMXYZ]\d{7}[A-Z]|\d{8}[A-Z]")
#: A Canadian GST/HST (or Quebec QST) registration: the CRA Business Number (9 digits) + program
#: identifier ``RT`` (``TQ`` for Revenu Québec's QST) + a 4-digit reference ("GST/HST registration number",
#: CRA RC2 "The Business Number and Your Canada Revenue Agency Program Accounts").
CA_GST_HST = re.compile(r"\d{9}(RT|TQ)\d{4}")
#: A line (or a line's end) that is only a tax ID, without its label: a VIES-format VAT number with its
#: country prefix, an Austrian ``ATU12345678``, a Swiss ``CHE-123.456.789 MWST/TVA/IVA``, a Canadian
#: ``123456789 RT0001``. None is ever part of a postal address.
BARE_TAX_ID = re.compile(r"(?<![\w-])(CHE[\s-]?\d{3}[.\s]?\d{3}[.\s]?\d{3}(\s*(MWST|TVA|IVA|VAT))?|"
                         r"ATU\s?\d{8}|\d{9}\s?(RT|TQ)\s?\d{4}|"
                         r"(AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|GB|XI)"
                         r"\s?(?=[A-Z0-9]*\d)[A-Z0-9]{8,12})(?![\w-])")


def _squash(text: str) -> str:
    return re.sub(r"[\s.\-/]", "", text.upper())


def match_vat(text: str) -> str | None:
    """The first well-formed VAT number / GSTIN in ``text`` (spaces, dots, hyphens ignored), upper case."""
    t = _squash(text)
    for rx in (_VAT_RX, _GSTIN):
        for m in rx.finditer(t):
            s, e = m.span()
            # not a slice of a longer code (an IBAN such as DE30507500940000048567)
            if (s and t[s - 1].isalnum()
                    and not t[:s].endswith(("VAT", "BTW", "TVA", "IVA", "USTID", "IDNR", "TIN", "UID", "UIDNR", "NIF", "CIF"))) \
                    or (e < len(t) and t[e].isdigit()):
                continue
            return m.group(0)
    return None


def match_es_nif(text: str) -> str | None:
    """The Spanish NIF / CIF / NIE (:data:`ES_NIF`) that opens ``text`` (spaces, dots, hyphens ignored),
    upper case and without the ``ES`` prefix: ``"B-84512376"`` -> ``"B84512376"``; ``None`` when
    ``text`` does not start with one. Whether its check character verifies is :func:`check_digits_fail`'s."""
    first = re.match(r"\s*(ES\s*)?[A-Z0-9][A-Z0-9 .\-]{7,13}", text.upper())
    if not first:
        return None
    t = _squash(first.group(0))
    t = t[2:] if t.startswith("ES") and ES_NIF.match(t[2:]) else t
    m = ES_NIF.match(t)
    if not m or (m.end() < len(t) and t[m.end()].isalnum()):
        return None
    return m.group(0)


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
    UID, a UK number it does not know): only a failed check counts, as a misread digit or a misprint.
    A Spanish NIF without its prefix (:data:`ES_NIF`) is checked as ``stdnum.es.nif`` does: the DNI / NIE
    check letter is the number mod 23 (Real Decreto 1553/2005 art. 11), the CIF's control character the
    Luhn-like sum of Orden EHA/451/2008."""
    from stdnum import exceptions
    from stdnum.es import nif
    from stdnum.eu import vat
    from stdnum.in_ import gstin

    checker = gstin if _GSTIN.fullmatch(value) else nif if ES_NIF.fullmatch(value) else vat
    try:
        checker.validate(value)
    except exceptions.InvalidChecksum:
        return True
    except exceptions.ValidationError:
        return False
    return False
