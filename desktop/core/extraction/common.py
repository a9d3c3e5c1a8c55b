"""Document-level helpers shared by the per-type extractors: currency evidence, date order, vendor text."""
from __future__ import annotations

import re
from collections import defaultdict

from desktop.core.diagnostics import Code, diag
from desktop.core.extraction.amounts import DOLLAR_SIGN_CURRENCIES, bare_dollar, currency_from_text
from desktop.core.extraction.country import COUNTRY_CURRENCY, country_evidence
from desktop.core.extraction.dates import find_dates
from desktop.core.extraction.layout import Candidate, Layout, Ln
from desktop.core.extraction.legal_forms import LEGAL_FORM_END

__all__ = ["ADDRESS_LABEL", "PAGE_MARKER", "missing_pages", "page_marker",
           "CJK_LABEL_ROW", "CN_REGISTRATION", "CN_TITLE", "COUNTRY_DATE_ORDER", "INFERRED", "document_currency",
           "infer_date_order", "looks_like_name", "tidy_name"]

#: A label announcing the address on its row ("地址：", "Address:", "Adresse :", "Anschrift:", Malay
#: "Alamat:"); the address is the rest of the row.
ADDRESS_LABEL = re.compile(r"^\W*(地\s*址|住\s*所|address|addr\.?|adresse|anschrift|alamat)\s*[:：]\s*", re.I)
#: A Chinese "label: value" row ("日期：2024年05月20日", "单号：SH2024...", "电话：..."): a field of the
#: document, never a shop's name.
CJK_LABEL_ROW = re.compile(r"^\W*[\u4e00-\u9fff]{2,10}\s*[:：]")
#: Labels of Chinese registration and tax numbers: the unified social credit code (统一社会信用代码,
#: GB 32100-2015), the taxpayer identification number (纳税人识别号, 税号), the tax registration
#: number (税务登记号) and the business licence number (营业执照号).
CN_REGISTRATION = re.compile(r"统\s*一\s*社\s*会\s*信\s*用\s*代\s*码|纳\s*税\s*人\s*识\s*别\s*号|税\s*号|"
                             r"税\s*务\s*登\s*记\s*号|营\s*业\s*执\s*照")
#: A Chinese document title alone on its row: sales slip (销售小票, 购物小票, 小票), receipt (收据,
#: 收款收据), cash register slip (收银小票, 收银单), sales / settlement note (销售单, 结账单).
CN_TITLE = re.compile(r"^\W*(销\s*售|购\s*物|收\s*银)?\s*(小\s*票|收\s*据|单)\W*$|^\W*(收\s*款\s*收\s*据|结\s*账\s*单)\W*$")

#: Usual numeric date order by currency (i.e. by country): ISO 8601 is YMD; the US writes MDY; Malaysia,
#: the euro area, the UK, India and Singapore write DMY; China writes YYYY年MM月DD日 (YMD).
COUNTRY_DATE_ORDER = {"USD": "MDY", "CNY": "YMD", "MYR": "DMY", "EUR": "DMY", "GBP": "DMY", "INR": "DMY",
                      "SGD": "DMY", "AUD": "DMY", "NZD": "DMY", "HKD": "DMY", "CHF": "DMY"}

_MALAYSIA = re.compile(r"\b(SDN\.?\s*BHD|S/B|BHD|MALAYSIA|SELANGOR|JOHOR|KUALA LUMPUR|GST\s*(ID|REG)|SST)\b", re.I)
_CJK = re.compile(r"[\u4e00-\u9fff]")


#: The source of a value that is not printed but inferred from other evidence on the page (a currency
#: from the country of the address or tax ID): ``Field.source``, shown as "inferred".
INFERRED = "inferred"

def _evidence_words(reasons: tuple[str, ...]) -> str:
    return reasons[0] if len(reasons) == 1 else ", ".join(reasons[:-1]) + " and " + reasons[-1]


def document_currency(layout: Layout, default: str | None = None) -> Candidate | None:
    """The document's currency (ISO 4217) from the symbols and codes printed on it, or inferred from the
    country the page points to (:func:`desktop.core.extraction.country.country_evidence`).

    Printed codes and unambiguous symbols (``RM``, ``€``, ``₹``, ``A$``) are read as printed (confidence
    0.9, the line of the first). ``¥`` outside a Chinese document reads as JPY, unless the page's
    evidence is Indian: ``₹`` is OCR'd as ``¥``, so it is INR, flagged (``CURRENCY_SIGN_CONFLICT``).

    A bare ``$`` is the sign of several currencies (:data:`~desktop.core.extraction.amounts.
    DOLLAR_SIGN_CURRENCIES`). Which one it is, strongest evidence first:

    1. an ISO 4217 code of one of them printed on the page (``Total AUD: $594.00``, ``All amounts in
       CAD``, ``US$``): the page says which dollar, read at 0.9;
    2. the country the page points to, when it is a dollar country and no other country's rule matched
       (``Portland OR 97214`` -> USD, ``Singapore 159521`` -> SGD, ``Melbourne VIC 3000`` -> AUD): the sign
       and the country agree, read at 0.9;
    3. a Malaysian page: tills there print ``$`` for ringgit, so MYR, inferred like an unprinted currency
       (below);
    4. otherwise (no country evidence, or a country whose currency is no dollar, or evidence of several
       countries) USD, at 0.5 and flagged (``CURRENCY_AMBIGUOUS_SIGN``): the page does not say which
       dollar.

    **Inferred currency** (nothing, or only a ``$`` on a Malaysian page, says which currency): the
    currency of the country the page points to, with source :data:`INFERRED`, no ``raw`` text and no
    lines. One rule: strong evidence (two different rules of one country, none of another) gives 0.8,
    not flagged; weak evidence gives 0.5 and ``CURRENCY_INFERRED``, which flags it for the clerk. A
    Chinese registration number (issued in mainland China only) gives CNY at 0.8.

    Returns:
        A candidate (value = code; the line of its first occurrence) or, with ``default``, a
        candidate without lines; ``None`` when there is no evidence and no default.
    """
    chinese = bool(_CJK.search(layout.text))
    votes: defaultdict[str, float] = defaultdict(float)
    first: dict[str, Ln] = {}
    dollars = 0  # lines whose currency is a bare "$"
    first_dollar: Ln | None = None
    for ln in layout.lines:
        if bare_dollar(ln.text):
            dollars += 1
            first_dollar = first_dollar or ln
            continue
        code = currency_from_text(ln.text, chinese_document=chinese)
        if code:
            votes[code] += 1.0
            first.setdefault(code, ln)
    evidence = None if chinese else country_evidence(layout.text)
    problems = []
    inferred_from_dollar = ambiguous = False
    if first_dollar is not None:
        named = [c for c in votes if c in DOLLAR_SIGN_CURRENCIES]
        if named:
            # the page names its dollar with an ISO 4217 code or a prefixed sign
            dollar = max(named, key=votes.__getitem__)
        elif evidence is not None and evidence.currency in DOLLAR_SIGN_CURRENCIES and not evidence.others:
            dollar = evidence.currency
        elif evidence is not None and evidence.currency == "MYR" or evidence is None and _MALAYSIA.search(layout.text):
            dollar = ""  # a Malaysian till printing "$" means ringgit: inferred below (no line prints it)
            inferred_from_dollar = True
        else:
            dollar, ambiguous = "USD", True
        if dollar:
            votes[dollar] += 0.3 * dollars  # a sign alone weighs less than a printed code
            first.setdefault(dollar, first_dollar)
    if "JPY" in votes and evidence is not None and evidence.country == "IN" and "JPY" not in layout.text.upper():
        seen = first.pop("JPY")
        votes["INR"] += votes.pop("JPY")
        first.setdefault("INR", seen)
        problems.append(diag(Code.CURRENCY_SIGN_CONFLICT, sign="¥", printed="JPY", value="INR",
                             evidence=_evidence_words(evidence.reasons)))
    if not votes and chinese and CN_REGISTRATION.search(layout.text):
        # a unified social credit code or taxpayer ID is issued in mainland China only (GB 32100-2015):
        # its amounts are in renminbi
        return Candidate("CNY", "", [], [], 0.8, source=INFERRED)
    if not votes and inferred_from_dollar:
        # the country rules count on a Chinese-Malaysian shop's receipt too (evidence is None on a page
        # with Chinese characters); only _MALAYSIA's words (a "BHD" suffix, a GST ID label) are weak
        evidence = evidence or country_evidence(layout.text)
        if evidence is None or evidence.currency != "MYR":
            return Candidate("MYR", "", [], [diag(Code.CURRENCY_INFERRED, value="MYR", evidence="a Malaysian word")],
                             0.5, source=INFERRED)
    if not votes and evidence is not None and evidence.reasons:
        flag = [] if evidence.strong else [diag(Code.CURRENCY_INFERRED, value=evidence.currency,
                                                 evidence=_evidence_words(evidence.reasons))]
        return Candidate(evidence.currency, "", [], flag, 0.8 if evidence.strong else 0.5, source=INFERRED)
    if not votes:
        if default:
            return Candidate(default, "", [], [], 0.5, source=INFERRED)
        return None
    code = max(votes, key=votes.__getitem__)  # the first of equal votes wins (as Counter.most_common)
    at = first[code]
    if ambiguous and code == "USD":
        against = "nothing on the page says which" if evidence is None else \
            f"the page points to {_evidence_words(tuple(COUNTRY_CURRENCY[c] for c in (evidence.country, *evidence.others)))}"
        return Candidate(code, at.text, [at], [diag(Code.CURRENCY_AMBIGUOUS_SIGN, sign="$", value=code,
                                                    evidence=against)], 0.5)
    return Candidate(code, at.text, [at], problems, 0.9)


def infer_date_order(layout: Layout, currency: str | None, default: str) -> tuple[str, bool]:
    """Day/month order for numeric dates on this document.

    Evidence, strongest first: a numeric date on the document that only reads one way (first field
    > 12 -> DMY, second > 12 -> MDY); the country implied by the currency (:data:`COUNTRY_DATE_ORDER`);
    the document type's default.

    Returns:
        ``(order, hinted)``: ``hinted`` is False when nothing but the default decided.
    """
    dmy = mdy = 0
    for ln in layout.lines:
        for d in find_dates(ln.text, "DMY"):
            if d.order == "DMY":
                parts = [int(x) for x in re.findall(r"\d+", d.raw)[:2]]
                if len(parts) == 2:
                    if parts[0] > 12 >= parts[1]:
                        dmy += 1
                    elif parts[1] > 12 >= parts[0]:
                        mdy += 1
    if dmy != mdy:
        return ("DMY" if dmy > mdy else "MDY"), True
    if currency in COUNTRY_DATE_ORDER and COUNTRY_DATE_ORDER[currency] != "YMD":
        return COUNTRY_DATE_ORDER[currency], True
    return default, False


_REG_PAREN = re.compile(r"\s*[(（]\s*(?:CO\.?\s*(?:REG|NO)\.?\s*:?\s*)?[A-Z]{0,3}\d[\d\s-]{3,}[A-Z]?\s*[)）]?\s*$", re.I)


def tidy_name(text: str) -> str:
    """Clean a company name as printed: drop a trailing registration number in parentheses
    (``(728384-M)``), "OWNED BY:" prefixes, and restore spaces OCR dropped around parentheses,
    after abbreviating dots (``S.H.H.MOTOR`` -> ``S.H.H. MOTOR``, ``SDN.BHD.`` -> ``SDN. BHD.``) and
    before a glued Malaysian company suffix (``IMPRESSIONSDN BHD`` -> ``IMPRESSION SDN BHD``,
    ``SDNBHD`` -> ``SDN BHD``: "Sdn. Bhd." is always printed as its own words, Companies Act 2016
    (Malaysia) s. 27).
    """
    t = text.strip()
    t = re.sub(r"^(?:OWNE?D?\s+BY|OPERATED\s+BY|A\s+MEMBER\s+OF)\s*[:：]?\s*", "", t, flags=re.I)
    t = _REG_PAREN.sub("", t)
    # the legal suffix is a closed vocabulary, so OCR confusions in it can be undone: SIN/S0N -> SDN,
    # BHU/BH0 -> BHD, S/8 -> S/B (only as the last words of the name)
    t = re.sub(r"\b(?:S[Il1O0]N|5DN)(\.?\s*)(BH[DUO0]\.?)\s*$", r"SDN\1\2", t)
    t = re.sub(r"\b5dn(\.?\s*)(Bhd\.?)\s*$", r"Sdn\1\2", t)
    t = re.sub(r"\b(SDN\.?\s*)BH[UO0](\.?)\s*$", r"\1BHD\2", t)
    t = re.sub(r"(?<=[A-Za-z])_(?=[A-Za-z])", " ", t)
    t = re.sub(r"\)[.,](?=[A-Za-z])", ") ", t)
    t = re.sub(r"\bS/8\s*$", "S/B", t)
    t = re.sub(r"\b(SDN\.?)\s*(BHD\.?)(?=\W|$)", r"\1 \2", t, flags=re.I)
    t = re.sub(r"(?<=[A-Za-z])[.,]\(\s*", " (", t)
    t = re.sub(r"(?<=[A-Za-z]{3})(SDN\.?\s+BHD)(?=\W|$)", r" \1", t, flags=re.I)
    t = re.sub(r"(?<=[A-Za-z])\((?=[A-Za-z])", " (", t)
    t = re.sub(r"\)(?=[A-Za-z])", ") ", t)
    t = re.sub(r"(?<=[A-Za-z]{2})\.(?=[A-Za-z]{2})", ". ", t)
    t = re.sub(r"(?<=\.[A-Za-z])\.(?=[A-Za-z]{2})", ". ", t)
    t = re.sub(r"\s+", " ", t)
    return t.strip(" ,;:")


#: Longest company-name line accepted as a vendor / issuer name (characters). Registered names run
#: long ("AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD" is 50); a longer line is running text.
MAX_NAME_CHARS = 70
_WORD = re.compile(r"[^\W\d_]+")


def looks_like_name(text: str) -> bool:
    """Whether a line can be a business name rather than a line of prose.

    Names are short (at most :data:`MAX_NAME_CHARS` characters), written in capitals or title case,
    and do not end a sentence. Rejected: longer lines; lines where at least three words, and at least
    40% of them, start in lower case ("This is a lot of 12 point text to test the"; lower-case
    particles of names such as "van", "de", "of" stay a minority); lines ending with a full stop after a
    lower-case word ("... over the lazy fox."; abbreviations such as "Sdn. Bhd." or "Co." are
    capitalised; a trailing legal form of :mod:`.legal_forms` is not counted). Chinese text (no case)
    is judged by length only.
    """
    t = text.strip()
    if not t or len(t) > MAX_NAME_CHARS:
        return False
    # a legal form written in lower case ends a name, not a sentence ("S.à r.l.", "sp. z o.o.", "s.r.o.")
    words = _WORD.findall(LEGAL_FORM_END.sub("", t) or t)
    lower = [w for w in words if w[0].islower()]
    if len(lower) >= 3 and len(lower) >= 0.4 * len(words):
        return False
    if re.search(r"(?<![^\W\d_])[a-z]{2,}\.$", t) and len(words) >= 3:
        return False
    return True


#: A page's own number and the document's page count, as printed in its header or footer: "Page 1 of 3",
#: "Seite 1 von 3", "Page 1 / 3", "page 1 sur 3", "Pagina 1 van 3", "Página 1 de 3", "Strona 1 z 3",
#: "Halaman 1 dari 3", and the Chinese "第1页 共3页" (either order). A bare "1/3" is not one (a date, a
#: fraction, a quantity): the page word is required.
PAGE_MARKER = re.compile(
    r"\b(?:page|pg\.?|p\.|p[aá]g(?:ina)?\.?|seite|blatt|feuille|folio|blad(?:zijde)?|halaman|strona|sivu|sida)"
    r"\s*(?P<n>\d{1,3})\s*(?:/|of|von|sur|de|van|di|dari|z|od|af|av)\s*(?P<of>\d{1,3})\b|"
    r"第\s*(?P<n2>\d{1,3})\s*页\s*[,，/]?\s*共\s*(?P<of2>\d{1,3})\s*页|"
    r"共\s*(?P<of3>\d{1,3})\s*页\s*[,，/]?\s*第\s*(?P<n3>\d{1,3})\s*页", re.I)


def page_marker(texts: list[str]) -> tuple[int, int] | None:
    """The first page marker (:data:`PAGE_MARKER`) among a page's line texts: ``(page, of)``, 1-based,
    with ``1 <= page <= of``; ``None`` when the page prints none (or an impossible one, "Page 4 of 3")."""
    for text in texts:
        for m in PAGE_MARKER.finditer(text):
            n = m.group("n") or m.group("n2") or m.group("n3")
            of = m.group("of") or m.group("of2") or m.group("of3")
            if 1 <= int(n) <= int(of):
                return int(n), int(of)
    return None


def missing_pages(markers: list[tuple[int, int] | None]) -> tuple[list[int], list[int]]:
    """The pages a document says it has but that were not read, from each read page's marker
    (:func:`page_marker`, in the order the pages were read): ``(before, after)``, the page numbers
    missing before the first page read and after the last. Both empty when the pages read are as many
    as the count printed (a marker misread on one page does not make a complete document incomplete),
    or when no page prints a marker. When every page's marker was read, the pages missing are the
    numbers none of them carries (page 1 scanned twice, page 2 never).
    """
    known = [m for m in markers if m is not None]
    if not known:
        return [], []
    count = max(of for _n, of in known)
    if len(known) == len(markers):
        seen = {n for n, _of in known}
        return list(range(1, min(seen))), list(range(max(seen) + 1, count + 1))
    if len(markers) >= count:
        return [], []
    first = markers[0][0] if markers[0] is not None else None
    if markers[-1] is not None:
        last: int | None = markers[-1][0]
    elif first is not None:
        last = first + len(markers) - 1
    else:
        last = None
    before = list(range(1, first)) if first is not None else []
    after = list(range(last + 1, count + 1)) if last is not None else []
    return before, after
