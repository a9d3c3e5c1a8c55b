"""Company legal forms printed after a registered name (GmbH, B.V., SARL, Ltd, sp. z o.o., ...).

Source: the abbreviations of the ISO 20275 "Entity Legal Forms" (ELF) code list maintained by GLEIF
(the list the EU Business Registers interconnection system, BRIS, and the LEI system use), for the EU
and EEA member states, Switzerland and the United Kingdom, plus the US forms already read on
receipts (Inc., LLC, Corp.). Company law makes a company print its legal form with its name on its
letters and invoices (EU Directive 2017/1132 art. 26; GmbHG s. 4, HGB s. 19, BW 2:177, Code de
commerce R123-237, UK Companies Act 2006 s. 82), so a row that ends with one of these names a
company.

Matching (:data:`LEGAL_FORM`, :data:`LEGAL_FORM_END`): a form written with full stops matches with
a space after each (``B.V.``, ``B. V.``), without its last one when it has another (``B.V``), and
without any when it has four letters or more (``S.p.A.``, ``SpA``; the undotted short forms are listed where they are used,
``BV``, ``NV``); a form of four letters
or more matches in any case (``GMBH``, ``Sarl``); a shorter one only as printed or in capitals
(``Oy`` / ``OY``, ``AB``, ``A/S``), and a short one that is also a word or a common abbreviation
(``AS``, ``AB``, ``SE``, ``CV``, ``DA``, ...) only where it ends the text.
"""
from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["LEGAL_FORMS", "LEGAL_FORM", "LEGAL_FORM_END", "ends_with_legal_form", "restore_legal_form"]

#: Legal-form abbreviations per country (ISO 3166-1 alpha-2), as printed (ISO 20275 ELF list).
LEGAL_FORMS: dict[str, tuple[str, ...]] = {
    "NL": ("B.V.", "N.V.", "V.O.F.", "C.V.", "U.A.", "Coöp."),
    "BE": ("BV", "SRL", "NV", "SA", "VOF", "SNC", "CommV", "SComm", "BVBA", "SPRL", "CVBA", "SCRL", "VZW", "ASBL"),
    "DE": ("GmbH", "gGmbH", "AG", "KG", "OHG", "GbR", "e.K.", "e.Kfm.", "e.Kfr.", "UG (haftungsbeschränkt)", "UG",
           "KGaA", "SE", "eG", "e.V.", "PartG", "PartG mbB", "mbH"),
    "AT": ("GmbH", "AG", "KG", "OG", "e.U."),
    "CH": ("AG", "GmbH", "SA", "Sàrl", "Sagl"),
    "FR": ("SARL", "SAS", "SASU", "SA", "EURL", "SNC", "SCI", "SCOP", "SCS", "SCA", "EIRL", "SELARL", "SELAS", "GIE"),
    "LU": ("S.à r.l.", "S.à.r.l.", "S.A.", "SCS", "SCA", "SCSp", "SE"),
    "IT": ("S.p.A.", "SpA", "S.r.l.", "Srl", "S.r.l.s.", "S.a.s.", "S.n.c.", "S.c.a r.l.", "Soc. Coop."),
    "ES": ("S.A.", "S.L.", "S.L.U.", "S.A.U.", "S.Coop.", "S.C."),
    "PT": ("Lda.", "S.A.", "Unipessoal Lda."),
    "GB": ("Ltd", "Ltd.", "Limited", "LLP", "PLC", "LP", "CIC"),
    "IE": ("Ltd", "Limited", "DAC", "PLC", "UC", "ULC", "Teoranta"),
    "SE": ("AB", "HB", "KB"),
    "DK": ("A/S", "ApS", "I/S", "K/S", "P/S", "IVS"),
    "NO": ("AS", "ASA", "ANS", "DA", "NUF"),
    "FI": ("Oy", "Oyj", "Ky", "Ay"),
    "IS": ("ehf.", "hf."),
    "PL": ("sp. z o.o.", "Sp. z o.o.", "S.A.", "sp.k.", "sp.j.", "S.K.A."),
    "CZ": ("s.r.o.", "a.s.", "v.o.s.", "k.s."),
    "SK": ("s.r.o.", "a.s.", "v.o.s.", "k.s."),
    "HU": ("Kft.", "Kft", "Zrt.", "Nyrt.", "Bt.", "Kkt."),
    "RO": ("S.R.L.", "S.A."),
    "BG": ("OOD", "EOOD", "AD", "EAD"),
    "HR": ("d.o.o.", "d.d."),
    "SI": ("d.o.o.", "d.d."),
    "EE": ("OÜ", "AS"),
    "LV": ("SIA", "AS"),
    "LT": ("UAB", "AB"),
    "GR": ("A.E.", "E.P.E.", "I.K.E."),
    "US": ("Inc.", "LLC", "Corp."),
}

#: Short forms that are also words or common abbreviations in the languages read (English "as", "AB"
#: blood group, "SE" south-east, "CV", "DA", ...): they count only where they end the text.
_AMBIGUOUS = frozenset({"AS", "AB", "SE", "CV", "DA", "AD", "OG", "UC", "LP", "HB", "KB", "Ay", "Ky", "UA", "SA",
                        "NV", "BV", "eG", "KG", "AG", "UG", "SC", "hf."})


#: Letters OCR confuses inside the short lower-case forms (``r.I.`` for ``r.l.``, ``0`` for ``o``), as
#: character classes; used only to restore a misread form (:func:`restore_legal_form`).
_CONFUSED = {"l": "[lI1|]", "I": "[Il1|]", "o": "[o0O]", "O": "[O0o]"}


def _pattern(form: str, confusions: bool = False) -> str:
    """A regular expression for one printed form: each full stop followed by at most one space, and
    optional in a form of four letters or more (``S.p.A.``, ``SpA``; ``a.s.`` without its stops is the
    word "as") and at the end, each space one or more blanks, the parenthesised part left to the
    caller (``UG`` alone)."""
    form = re.sub(r"\s*\(.*\)$", "", form) if "(" in form else form
    letters = sum(c.isalpha() for c in form)
    optional = letters >= 4
    # the last stop may go (``B.V``) where another stop marks the form; a short form with its only
    # stop at the end needs it (``Bt.``: "BT" is a word, "BT-10" a code)
    last_optional = optional or form.count(".") >= 2
    out = []
    for k, ch in enumerate(form):
        if ch == "." and (optional or (k == len(form) - 1 and last_optional)):
            out.append(r"(?:\.\s?)?")
        elif ch == ".":
            out.append(r"\.\s?")
        elif ch == " ":
            out.append(r"\s+")
        elif ch.isalpha():
            folded = {"à": "[àa]", "ö": "[öo]", "Ü": "[ÜU]", "ü": "[üu]", "ä": "[äa]"}.get(ch)
            out.append(folded or (_CONFUSED.get(ch) if confusions else None) or re.escape(ch))
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _alternatives(end: bool) -> str:
    forms = sorted({f for fs in LEGAL_FORMS.values() for f in fs}, key=lambda f: -len(f))
    alts = []
    for f in forms:
        if f in _AMBIGUOUS and not end:
            continue
        letters = sum(c.isalpha() for c in f)
        p = _pattern(f)
        if "(" in f:
            p += r"(?:\s*\(haftungsbeschr[äa]nkt\))?"
        if letters >= 4:
            alts.append(f"(?i:{p})")
        else:
            upper = _pattern(f.upper())
            alts.append(f"(?:{p}|{upper})" if upper != p else p)
    return "|".join(alts)


#: A legal form anywhere in a text, as a whole token (not glued to a digit or a hyphenated code:
#: "BT-10"; the ambiguous short forms excluded).
LEGAL_FORM = re.compile(r"(?<![^\W\d_])(?:" + _alternatives(end=False) + r")(?![^\W_]|-\w)")
#: A legal form that ends the text (trailing punctuation, a closing bracket or a "& Co. KG" allowed).
LEGAL_FORM_END = re.compile(r"(?<![^\W\d_])(?:" + _alternatives(end=True) + r")(?:\s*[&+]\s*Co\.?\s*KG)?[\W]*$")


@lru_cache(maxsize=4096)
def ends_with_legal_form(text: str) -> bool:
    """Whether ``text`` ends with a legal form of :data:`LEGAL_FORMS` (``"Jansen Groep B.V."``,
    ``"Nordlys AS"``, ``"Kowalski sp. z o.o."``; not ``"Same as"``)."""
    return bool(LEGAL_FORM_END.search(text.strip()))


@lru_cache(maxsize=1)
def _misread_forms() -> list[tuple[str, re.Pattern[str]]]:
    """Each form with a full stop or a lower-case letter l/o, as a pattern that ends a text and reads
    the letters of :data:`_CONFUSED` as OCR confuses them."""
    forms = sorted({f for fs in LEGAL_FORMS.values() for f in fs if "." in f and re.search(r"[lIoO]", f)},
                   key=lambda f: -len(f))
    return [(f, re.compile(r"(?<![^\W\d_])" + _pattern(f, confusions=True) + r"\W*$")) for f in forms]


@lru_cache(maxsize=1)
def _any_misread_form() -> re.Pattern[str]:
    """One pattern that matches where any of :func:`_misread_forms` does (a text that ends with none of
    them, nearly every text, is told in one search)."""
    forms = [f for f, _p in _misread_forms()]
    return re.compile(r"(?<![^\W\d_])(?:" + "|".join(_pattern(f, confusions=True) for f in forms) + r")\W*$")


@lru_cache(maxsize=4096)
def restore_legal_form(text: str) -> str:
    """``text`` with a trailing legal form that OCR misread in a letter (``S.à r.I.``, ``sp. z 0.0.``,
    ``s.r.0.``) written as the form is (``S.à r.l.``); any other text unchanged. Only forms with full
    stops are restored (their stops make the reading unambiguous)."""
    t = text.rstrip()
    if not t or LEGAL_FORM_END.search(t) or not _any_misread_form().search(t):
        return text
    for form, p in _misread_forms():
        m = p.search(t)
        if m:
            return t[: m.start()] + form
    return text
