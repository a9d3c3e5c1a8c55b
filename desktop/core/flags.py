"""Which fields the clerk must check: one rule, used by the form's tint, the queue badge, the summary
counts, the CLI and the xlsx Problems sheet alike.

A field is flagged when

* a check failed on it (``Field.problems``), or
* extraction set ``Field.needs_review`` (for values chosen by the learned field model: the calibrated
  probability of being right is under the field's review threshold, chosen from the cross-validated
  curve in ``benchmarks/train_fields.py``; for other values: a heuristic confidence under 0.6), or
* it is one of its document type's key fields (``key_fields`` in ``resources/doctypes``) and empty.

A value the clerk typed or confirmed by editing (``Field.edited``, or ``Field.source == "user"``) is
flagged only by a failed check. On a document the clerk marked reviewed (``Document.reviewed``) no field
is left to check: a person has checked every one of them, so the queue badge, the summary and the
Problems column count none; what extraction had flagged on it is still listed, as reviewed
(:func:`flagged_before_review`, the xlsx Problems sheet), and its failed checks stay beside the fields.
:func:`field_reasons` is the rule; :func:`is_flagged`, :func:`flagged_fields` and
:mod:`desktop.core.review` ask it.
"""
from __future__ import annotations

import math
from enum import StrEnum

from desktop.core.diagnostics import Code, Diagnostic, as_diagnostic, diag
from desktop.core.model import Document, Field

__all__ = ["Reason", "document_key_fields", "expected_key_fields", "field_reasons", "flag_diagnostics",
           "flag_reason", "flagged_before_review", "flagged_fields", "is_empty_key", "is_flagged", "key_fields",
           "percent"]


class Reason(StrEnum):
    """Why a field needs the clerk's eye."""

    FLAGGED = "flagged"  # Field.needs_review: set by extraction (confidence, a cross-check)
    PROBLEM = "problem"  # a failed check (Field.problems)
    EMPTY_KEY = "empty_key"  # a key field of the document type with no value


def key_fields(document_type: str | None) -> frozenset[str]:
    """The fields of ``document_type`` that must not stay empty (``key_fields`` in its doctype JSON)."""
    from desktop.core.doctypes import get_document_type

    try:
        return frozenset(get_document_type(document_type or "").key_fields)
    except KeyError:
        return frozenset()


def document_key_fields(document: Document) -> frozenset[str]:
    """The key fields :func:`key_fields` names for ``document``'s type, less those its own kind does not
    carry: a fully digitised Chinese e-invoice (数电票 / 全电发票, a 20-digit 发票号码) has no 发票代码 (State
    Taxation Administration announcement 2021 No. 23 on fully digitised e-invoices), so an empty invoice
    code is not missing on it."""
    return expected_key_fields(document.document_type, document.fields)


def expected_key_fields(document_type: str | None, fields: dict[str, Field]) -> frozenset[str]:
    """:func:`document_key_fields` for a document of ``document_type`` with these ``fields``."""
    keys = key_fields(document_type)
    number = fields.get("invoice_number")
    if document_type == "cn_vat_invoice" and number is not None and number.value \
            and len(number.value) == 20 and number.value.isdigit():
        keys = keys - {"invoice_code"}
    return keys


def _empty(field: Field) -> bool:
    return field.value is None and not (field.raw or "").strip()


def is_empty_key(field: Field | None, key: bool) -> bool:
    """A key field (``key``) with nothing in it that the clerk did not clear on purpose (an absent
    field counts)."""
    if not key:
        return False
    if field is None:
        return True
    return _empty(field) and not _by_clerk(field)


def _by_clerk(field: Field) -> bool:
    return field.edited or field.source == "user"


def field_reasons(field: Field | None, key: bool = False, *, reviewed: bool = False) -> tuple[Reason, ...]:
    """Why the clerk must check ``field``, in :class:`Reason` order (empty: they need not).

    Args:
        field: the field, or ``None`` when the document has no such field.
        key: it is a key field of the document's type (:func:`key_fields`).
        reviewed: its document is marked reviewed (``Document.reviewed``): a person checked it, so
            nothing is left to check.
    """
    if reviewed:
        return ()
    reasons: list[Reason] = []
    if field is not None and field.needs_review and not _by_clerk(field):
        reasons.append(Reason.FLAGGED)
    if field is not None and field.problems:
        reasons.append(Reason.PROBLEM)
    if is_empty_key(field, key):
        reasons.append(Reason.EMPTY_KEY)
    return tuple(reasons)


def is_flagged(field: Field, key: bool = False, *, reviewed: bool = False) -> bool:
    """Whether the clerk must check ``field`` (:func:`field_reasons` gives a reason); ``key``: it is a
    key field; ``reviewed``: its document is marked reviewed."""
    return bool(field_reasons(field, key, reviewed=reviewed))


def percent(confidence: float, *, up: bool = False) -> str:
    """``confidence`` (in [0, 1]) as a whole percentage, rounded down (``up``: rounded up), so that a
    confidence under a threshold never reads as equal to it ("92%" below "93%", not "93%" below "93%")
    and a value under 100 % never reads as 100 %."""
    hundredths = round(confidence * 100, 6)  # 0.6 * 100 is 60.00000000000001
    return f"{math.ceil(hundredths) if up else math.floor(hundredths)}%"


def flag_diagnostics(field: Field, key: bool = False) -> list[Diagnostic]:
    """Why ``field`` is flagged, as diagnostics (empty when it is not): its problems, else one of
    ``FIELD_EMPTY_KEY`` (a key field, empty), ``FIELD_NOT_FOUND``, ``FIELD_LOW_CONFIDENCE`` (its
    confidence and the review threshold it is below, ``Field.review_threshold``: the field model's for
    the document type, or the rules' 60 %), ``FIELD_ALWAYS_CHECKED`` (a threshold above 100 %: the
    field is always checked) or ``FIELD_NOT_SURE`` (flagged as read with no threshold it is below: the
    model could not score the value, or a file written before thresholds were recorded)."""
    if not is_flagged(field, key):
        return []
    if field.problems:
        return [as_diagnostic(p) for p in field.problems]
    if _empty(field):
        return [diag(Code.FIELD_EMPTY_KEY if key else Code.FIELD_NOT_FOUND)]
    confidence = percent(field.confidence)
    needed = field.review_threshold
    if needed is not None and needed > 1:
        return [diag(Code.FIELD_ALWAYS_CHECKED, confidence=confidence)]
    if needed is not None and field.confidence < needed:
        return [diag(Code.FIELD_LOW_CONFIDENCE, confidence=confidence, needed=percent(needed, up=True))]
    return [diag(Code.FIELD_NOT_SURE, confidence=confidence)]


def flag_reason(field: Field, key: bool = False, language: str = "en") -> str | None:
    """Why ``field`` is flagged (:func:`flag_diagnostics`) in ``language`` (``en`` / ``zh``, see
    :func:`desktop.core.diagnostics.render`), reasons joined by semicolons; ``None`` when it is not:
    ``empty: not found on the page``, ``confidence 86%, below the 93% needed to pass unchecked``, or its
    problems' messages."""
    reasons = flag_diagnostics(field, key)
    if not reasons:
        return None
    sep = "；" if language.lower().startswith("zh") else "; "
    return sep.join(d.message(language) for d in reasons)


def flagged_fields(document: Document | None) -> list[str]:
    """Names of the fields of ``document`` to check, key fields missing from ``document.fields``
    included (an unread or failed document has none, and so has a reviewed one: a person checked it)."""
    if document is None or document.reviewed:
        return []
    return flagged_before_review(document)


def flagged_before_review(document: Document | None) -> list[str]:
    """Names of the fields of ``document`` that :func:`flagged_fields` gives as long as it is not marked
    reviewed (on a reviewed document: the fields the clerk checked because extraction flagged them)."""
    if document is None or document.error:
        return []
    keys = document_key_fields(document)
    out = [name for name, f in document.fields.items() if is_flagged(f, name in keys)]
    out += [name for name in sorted(keys) if name not in document.fields]
    return out
