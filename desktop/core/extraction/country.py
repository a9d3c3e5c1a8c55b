"""Which country a document comes from, from what is printed on it, and so its currency when no
currency is printed (or an ambiguous or misread sign is).

Evidence is a table of rules (:data:`COUNTRY_RULES`), each a printed pattern that only one country uses,
with the standard it follows:

* **Singapore** (SGD): "Singapore" followed by a six-digit postal code (SingPost postal codes are six
  digits); the Unique Entity Number (UEN, ACRA: ``200312345K``, ``53012345D``, ``T09LL0001B``) under a
  "UEN" label; GST at 9 %, 8 % or 7 % (the rates of Singapore's Goods and Services Tax Act since 2007:
  7 %, 8 % in 2023, 9 % from 2024); the +65 calling code (ITU-T E.164).
* **Malaysia** (MYR): the company suffixes "Sdn Bhd" / "S/B" (Companies Act 2016), "Malaysia" and the
  names of its states; SST (Sales and Services Tax Act 2018); GST at its one rate, 6 %, and the 12-digit
  GST ID (Goods and Services Tax Act 2014, in force 2015-2018); the +60 calling code.
* **India** (INR): a GSTIN (CGST Rules 2017, rule 10: two-digit state code, the ten-character PAN, an
  entity digit, ``Z`` and a check character); CGST / SGST / UTGST / IGST (the CGST, SGST and IGST Acts
  2017); the word "Rupees"; the Indian numbering system's lakh grouping (``1,05,000.00``); the +91
  calling code.
* **Japan** (JPY): kana (a Japanese text); "〒" before a postal code (``〒100-0001``); the +81 calling code.
* **United Kingdom** (GBP): a UK VAT registration number (``GB`` + 9 or 12 digits, HMRC VAT Notice 700/1);
  a postcode in the Royal Mail format (``SW1A 1AA``, ``YO1 8SS``); the +44 calling code.
* **United States** (USD): a state's two-letter USPS abbreviation before a ZIP code (``OR 97201``).
* **Australia** (AUD): an Australian Business Number under an "ABN" label (11 digits whose weighted sum
  passes the ATO's modulus-89 check: https://abr.business.gov.au/Help/AbnFormat); a state or territory
  abbreviation before a four-digit postcode (Australia Post addressing: ``Melbourne VIC 3000``,
  ``Sydney NSW 2000``); the +61 calling code.
* **Canada** (CAD): a province or territory abbreviation before a postal code in Canada Post's
  ``A1A 1A1`` format (``Toronto ON M5V 2T6``; the letters D, F, I, O, Q, U are never used, W and Z
  never first); HST, the Harmonized Sales Tax (Excise Tax Act, Part IX), which only Canada levies.

Words that several countries print ("GST Reg No": Singapore, Malaysia until 2018, Australia, India's
"GSTIN"; "Tax Invoice") are no evidence here.

Evidence is **strong** when at least two different rules of one country match and no rule of another
country does; otherwise it is weak, and a currency inferred from it is flagged for the clerk
(:data:`desktop.core.diagnostics.Code.CURRENCY_INFERRED`).
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

__all__ = ["COUNTRY_CURRENCY", "COUNTRY_RULES", "CountryEvidence", "country_evidence"]

#: Country (ISO 3166-1 alpha-2) -> its currency (ISO 4217).
COUNTRY_CURRENCY = {"SG": "SGD", "MY": "MYR", "IN": "INR", "JP": "JPY", "GB": "GBP", "US": "USD", "AU": "AUD",
                    "CA": "CAD"}

_MY_STATES = (r"SELANGOR|JOHOR|KEDAH|KELANTAN|MELAKA|MALACCA|NEGERI\s+SEMBILAN|PAHANG|PERAK|PERLIS|"
              r"PULAU\s+PINANG|PENANG|SABAH|SARAWAK|TERENGGANU|KUALA\s+LUMPUR|PUTRAJAYA|LABUAN")
_US_STATES = ("AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
              "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY").split()
_AU_STATES = "NSW VIC QLD SA WA TAS NT ACT".split()
_CA_PROVINCES = "AB BC MB NB NL NS NT NU ON PE QC SK YT".split()
_ABN = re.compile(r"\bABN\W{0,3}((?:\d\s?){10}\d)(?!\d)")
_ABN_WEIGHTS = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)


def _abn_valid(digits: str) -> bool:
    """The ATO's ABN check: subtract 1 from the first digit, weight the 11 digits by
    :data:`_ABN_WEIGHTS`; the sum is a multiple of 89."""
    d = [int(c) for c in digits]
    d[0] -= 1
    return len(d) == 11 and sum(w * x for w, x in zip(_ABN_WEIGHTS, d, strict=True)) % 89 == 0


class _ValidABN:
    """A pattern-like rule: an "ABN" label and 11 digits that pass :func:`_abn_valid`."""

    def search(self, text: str) -> bool:
        return any(_abn_valid(re.sub(r"\s", "", m.group(1))) for m in _ABN.finditer(text))

#: ``(country, what it is, pattern)``: the evidence rules (see the module docstring for their sources).
COUNTRY_RULES: tuple[tuple[str, str, re.Pattern[str] | _ValidABN], ...] = (
    ("SG", "a Singapore postal code", re.compile(r"\bSINGAPORE\s*[,(]?\s*\d{6}\b", re.I)),
    ("SG", "a UEN", re.compile(r"\bUEN\b\W{0,3}(?:\d{8,9}[A-Z]|[TSR]\d{2}[A-Z]{2}\d{4}[A-Z])\b", re.I)),
    ("SG", "GST at a Singapore rate", re.compile(r"\bGST\b\D{0,12}\b[789](?:\.0+)?\s*%", re.I)),
    ("SG", "a +65 phone number", re.compile(r"\+\s?65[\s-]?[689]\d{3}[\s-]?\d{4}\b")),
    ("MY", "a Malaysian company suffix", re.compile(r"\b(?:SDN\.?\s*BHD|S/B)\b", re.I)),
    ("MY", "a Malaysian place", re.compile(r"\b(?:MALAYSIA|" + _MY_STATES + r")\b", re.I)),
    ("MY", "SST", re.compile(r"\bSST\b", re.I)),
    ("MY", "GST at the Malaysian rate", re.compile(r"\bGST\b\D{0,12}(?<!\d)6(?:\.0+)?\s*%", re.I)),
    ("MY", "a Malaysian GST ID", re.compile(r"\bGST\s*(?:ID|REG\w*)\W{0,6}(?:NO\.?\W{0,3})?\d{12}\b", re.I)),
    ("MY", "a +60 phone number", re.compile(r"\+\s?60[\s-]?1?\d[\s-]?\d{3,4}[\s-]?\d{4}\b")),
    ("IN", "a GSTIN", re.compile(r"\b\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]\b")),
    ("IN", "CGST/SGST/IGST", re.compile(r"\b(?:CGST|SGST|UTGST|IGST)\b", re.I)),
    ("IN", "the word Rupees", re.compile(r"\bRUPEES?\b", re.I)),
    ("IN", "lakh digit grouping", re.compile(r"(?<![\d,.])\d{1,2},\d{2},\d{3}(?:\.\d{2})?(?![\d,])")),
    ("IN", "a +91 phone number", re.compile(r"\+\s?91[\s-]?[6-9]\d{4}[\s-]?\d{5}\b")),
    ("JP", "Japanese text", re.compile(r"[\u3041-\u3096\u30a1-\u30fa]{2,}")),
    ("JP", "a Japanese postal code", re.compile(r"〒\s?\d{3}-\d{4}")),
    ("JP", "a +81 phone number", re.compile(r"\+\s?81[\s-]?\d{1,4}[\s-]?\d{2,4}[\s-]?\d{4}\b")),
    ("GB", "a UK VAT number", re.compile(r"\bGB\s?\d{3}\s?\d{4}\s?\d{2}(?:\s?\d{3})?\b")),
    ("GB", "a UK postcode", re.compile(r"\b(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?)\s\d[ABD-HJLNP-UW-Z]{2}\b")),
    ("GB", "a +44 phone number", re.compile(r"\+\s?44[\s-]?\(?0?\)?\d{2,4}[\s-]?\d{3,4}[\s-]?\d{3,4}\b")),
    ("US", "a US state and ZIP code", re.compile(r"\b(?:" + "|".join(_US_STATES) + r")\s+\d{5}(?:-\d{4})?\b")),
    ("AU", "an ABN", _ValidABN()),
    ("AU", "an Australian state and postcode", re.compile(r"\b(?:" + "|".join(_AU_STATES) + r")\s+\d{4}(?![\d.,])")),
    ("AU", "a +61 phone number", re.compile(r"\+\s?61[\s-]?\(?0?\)?[2-478][\s-]?\d{4}[\s-]?\d{4}\b")),
    ("CA", "a Canadian province and postal code",
     re.compile(r"\b(?:" + "|".join(_CA_PROVINCES) + r")\s+[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z]\s?\d[ABCEGHJ-NPRSTV-Z]\d\b")),
    ("CA", "HST", re.compile(r"\bHST\b")),
)


@dataclass(frozen=True)
class CountryEvidence:
    """The country a document's text points to.

    Attributes:
        country: ISO 3166-1 alpha-2 code.
        currency: that country's ISO 4217 currency.
        reasons: what pointed to it (the rules' descriptions, in rule order).
        strong: at least two different rules of this country matched and none of another country.
        others: the other countries that some rule matched.
    """

    country: str
    currency: str
    reasons: tuple[str, ...]
    strong: bool
    others: tuple[str, ...] = ()


def country_evidence(text: str) -> CountryEvidence | None:
    """The country :data:`COUNTRY_RULES` point to in ``text`` (``None`` when no rule matches).

    The country matched by the most different rules wins; on a tie, the first in rule order.
    """
    found: defaultdict[str, list[str]] = defaultdict(list)
    for country, what, pattern in COUNTRY_RULES:
        if pattern.search(text):
            found[country].append(what)
    if not found:
        return None
    best = max(found, key=lambda c: len(found[c]))  # dicts keep rule order: the first of equals wins
    others = tuple(c for c in found if c != best)
    return CountryEvidence(best, COUNTRY_CURRENCY[best], tuple(found[best]),
                           strong=len(found[best]) >= 2 and not others, others=others)
