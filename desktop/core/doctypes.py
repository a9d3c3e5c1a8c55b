"""Document types and canonical fields, defined in ``resources/doctypes/*.json``.

A document type (``receipt``, ``invoice``, ``cn_vat_invoice``) lists which canonical fields it has;
the canonical fields (``fields.json``) give each field's value type, labels in English and Simplified
Chinese, and the key names used when asking a field-extracting model for it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from functools import cache

from desktop.resources import resources_dir

FIELD_TYPES = ("text", "date", "time", "amount", "currency", "code", "tax_id")


def label_in(labels: dict[str, str], locale: str) -> str:
    """The label of ``labels`` (by locale, ``{"en": ..., "zh_CN": ...}``) for ``locale``: its own entry, else
    the entry of its language (``zh_CN`` -> ``zh``), else one of the same language in another region
    (``zh`` -> ``zh_CN``), else English."""
    if labels.get(locale):
        return labels[locale]
    language = locale.replace("-", "_").split("_")[0].lower()
    if labels.get(language):
        return labels[language]
    for key, text in labels.items():
        if text and key.replace("-", "_").split("_")[0].lower() == language:
            return text
    return labels["en"]


@dataclass(frozen=True)
class FieldSpec:
    """A canonical field: ``name``, value ``type`` (one of :data:`FIELD_TYPES`), labels and prompt keys."""

    name: str
    type: str
    label: dict[str, str]
    prompt: dict[str, str]

    def label_for(self, locale: str = "en") -> str:
        """The label in ``locale`` (see :func:`label_in`)."""
        return label_in(self.label, locale)


@dataclass(frozen=True)
class DocumentType:
    """A document type: its ``name``, labels, main ``language``, its ordered ``fields``, its ``key_fields``
    and ``field_labels`` (per-type wording of canonical field labels, by field and locale).

    ``amount_sign`` is ``1``, or ``-1`` for a type whose amounts are booked negative (a credit note or
    refund: it reverses a sale, so its total, subtotal and tax are negative however they are printed).

    ``key_fields`` are the fields without which the document cannot be booked (who, when, how much;
    for a Chinese VAT invoice also the code/number pair and the buyer that the tax authority's
    verification asks for): left empty, they need the clerk's eye.
    """

    name: str
    label: dict[str, str]
    description: str
    language: str
    fields: tuple[str, ...]
    key_fields: tuple[str, ...] = ()
    amount_sign: int = 1
    field_labels: dict[str, dict[str, str]] = dataclass_field(default_factory=dict, compare=False, hash=False)

    def label_for(self, locale: str = "en") -> str:
        """The label in ``locale`` (see :func:`label_in`)."""
        return label_in(self.label, locale)

    def field_specs(self) -> list[FieldSpec]:
        """The type's fields in order, with this type's own wording of a label where it has one
        (``field_labels``: a receipt's 商家名称 where a VAT invoice says 销售方名称)."""
        specs = canonical_fields()
        out = []
        for name in self.fields:
            spec = specs[name]
            override = self.field_labels.get(name)
            out.append(replace(spec, label={**spec.label, **override}) if override else spec)
        return out


@cache
def canonical_fields() -> dict[str, FieldSpec]:
    """Every canonical field by name, in spreadsheet column order."""
    data = json.loads((resources_dir() / "doctypes" / "fields.json").read_text(encoding="utf-8"))
    out: dict[str, FieldSpec] = {}
    for f in data["fields"]:
        if f["type"] not in FIELD_TYPES:
            raise ValueError(f"fields.json: field {f['name']!r} has unknown type {f['type']!r}")
        out[f["name"]] = FieldSpec(name=f["name"], type=f["type"], label=f["label"], prompt=f["prompt"])
    return out


@cache
def document_types() -> dict[str, DocumentType]:
    """Every document type by name (``receipt``, ``invoice``, ``cn_vat_invoice``, ``credit_note``)."""
    specs = canonical_fields()
    out: dict[str, DocumentType] = {}
    for path in sorted((resources_dir() / "doctypes").glob("*.json")):
        if path.name == "fields.json":
            continue
        d = json.loads(path.read_text(encoding="utf-8"))
        unknown = [f for f in d["fields"] if f not in specs]
        if unknown:
            raise ValueError(f"{path.name}: unknown fields {unknown}")
        not_fields = [f for f in d.get("key_fields", []) if f not in d["fields"]]
        if not_fields:
            raise ValueError(f"{path.name}: key_fields not among its fields: {not_fields}")
        out[d["name"]] = DocumentType(
            name=d["name"], label=d["label"], description=d.get("description", ""),
            language=d.get("language", "en"), fields=tuple(d["fields"]),
            key_fields=tuple(d.get("key_fields", [])),
            amount_sign=-1 if d.get("amount_sign") == "negative" else 1,
            field_labels={k: dict(v) for k, v in d.get("field_labels", {}).items() if k in d["fields"]},
        )
    return out


def get_document_type(name: str) -> DocumentType:
    """Look a document type up by name.

    Raises:
        KeyError: with the known names, for an unknown type.
    """
    types = document_types()
    if name not in types:
        raise KeyError(f"unknown document type {name!r}; known: {', '.join(types)}")
    return types[name]
