"""Turning HunyuanOCR's generated text into Shoebox data: lines with boxes, field values, clean task text.

Pure Python (no torch, no transformers), so everything here is unit-tested on recorded model outputs
where the ``[gpu]`` extra is not installed.

What the model writes (sources):

- **Text spotting** (prompt "检测并识别图片中的文字，将文本坐标格式化输出。"): one entry per text line,
  ``text(x1,y1),(x2,y2)``, top-left and bottom-right corners **normalised to 0-1000** of the image
  the model was given. ``<ref>``/``<quad>`` are special tokens in the real vocabulary, so with
  ``skip_special_tokens=True`` they disappear (Tencent-Hunyuan/HunyuanOCR issue #68 shows
  ``字符串1(312,22),(493,49)字符串2(401,0),(666,194)``); decoded with them kept the same entry reads
  ``<ref>text</ref><quad>(x1,y1),(x2,y2)</quad>``. Version 1.5's client asks for a JSON array of
  ``{"box": [xmin, ymin, xmax, ymax], "text": ...}`` on the same 0-1000 scale. Tencent's own
  post-processing (``Hunyuan-OCR-master/utils.py``: ``denormalize_coordinates``) maps ``v * size / 1000``.
- **Field extraction** ("Extract the content of the fields: [...] ... return it in JSON format."): a JSON
  object, often inside a ```json fence, sometimes cut short, values as printed (``"￥77.10元"``).
- **Loops**: the model can repeat its last line until ``max_new_tokens`` (upstream issues #53, #54).
  Tencent's ``clean_repeated_substrings`` (same ``utils.py``) keeps one copy of a suffix repeated at least
  10 times; :func:`trim_repeated_suffix` does the same with thresholds of our own (below), and
  :func:`repeating_period` is the token-level test the engine's stopping criterion runs while generating.
"""
from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.model import Line

if TYPE_CHECKING:
    from desktop.core.doctypes import FieldSpec

COORD_SCALE = 1000.0
"""Spotting coordinates are normalised to 0..COORD_SCALE of the image width/height (Tencent utils.py)."""

MODEL_LINE_CONFIDENCE = 0.9
"""Confidence given to a line read by HunyuanOCR, which reports no scores at all.

Chosen below PDF text layers (1.0) and at the level of a clean PP-OCR read, so a model line is never
mistaken for a text-layer line; downstream field confidences stay comparable between engines.
"""

SUSPECT_LINE_CONFIDENCE = 0.5
"""Confidence of lines from an output that looped or was cut at ``max_new_tokens`` (see ``suspect``)."""

# --------------------------------------------------------------------------------------------------
# Repetition: token level (while generating) and text level (after decoding)
# --------------------------------------------------------------------------------------------------

GUARD_MAX_PERIOD = 128
"""Longest repeating unit (tokens) the stopping criterion looks for; longer loops are caught by
``max_new_tokens`` and :func:`trim_repeated_suffix`."""
GUARD_MIN_REPEATS = 6
"""A unit must repeat at least this many times back to back."""
GUARD_MIN_SPAN = 64
"""...and the repeats must cover at least this many tokens (so a 1-token unit needs 64 copies: a row
of dots or dashes on a receipt is far shorter)."""


def repeating_period(
    tokens: Sequence[object],
    *,
    max_period: int = GUARD_MAX_PERIOD,
    min_repeats: int = GUARD_MIN_REPEATS,
    min_span: int = GUARD_MIN_SPAN,
) -> int | None:
    """The period of a loop at the end of ``tokens``, or ``None``.

    The tail of ``tokens`` is a loop of period ``p`` when its last ``n = p * k`` tokens consist of ``k``
    identical copies of a ``p``-token unit, with ``k = max(min_repeats, ceil(min_span / p))``.

    Args:
        tokens: generated token ids so far (prompt excluded), or any sequence compared item by item
            (the office-server engine passes the streamed text, one character per item).

    Returns:
        The smallest such period ``p`` (1..``max_period``), or ``None`` when the tail does not loop.
    """
    seq = list(tokens)
    n_tokens = len(seq)
    for period in range(1, max_period + 1):
        span = period * max(min_repeats, math.ceil(min_span / period))
        if span > n_tokens:
            if period * min_repeats > n_tokens:
                break
            continue
        if seq[-1] != seq[-1 - period]:  # cheap rejection: runs once per period at every generation step
            continue
        tail = seq[-span:]
        if tail[period:] == tail[:-period]:
            return period
    return None


TRIM_MIN_REPEATS = 5
"""A text suffix is a loop when a unit repeats at least this many times..."""
TRIM_MIN_CHARS = 100
"""...covering at least this many characters (Tencent: 10 repeats, only for outputs over 8000 chars;
we stop generation earlier, so the evidence left is shorter)."""
TRIM_MAX_PERIOD = 2000


def trim_repeated_suffix(
    text: str, *, min_repeats: int = TRIM_MIN_REPEATS, min_chars: int = TRIM_MIN_CHARS
) -> tuple[str, bool]:
    """Keep one copy of a unit the text ends by repeating.

    Args:
        text: decoded model output.

    Returns:
        ``(text, trimmed)``: the text with ``k - 1`` copies of a ``k``-times repeated suffix removed
        (the smallest repeating unit wins), and whether anything was removed.
    """
    n = len(text)
    for length in range(1, min(n // min_repeats, TRIM_MAX_PERIOD) + 1):
        candidate = text[n - length:]
        count = 1
        i = n - 2 * length
        while i >= 0 and text[i:i + length] == candidate:
            count += 1
            i -= length
        if count >= min_repeats and count * length >= min_chars:
            return text[: n - length * (count - 1)], True
    return text, False


# --------------------------------------------------------------------------------------------------
# Generation result shared by the engine and the parsers
# --------------------------------------------------------------------------------------------------


@dataclass
class Generation:
    """One decoded model answer.

    Attributes:
        text: the decoded answer with any looping suffix trimmed (special tokens skipped).
        raw_text: the decoded answer as generated.
        new_tokens: tokens generated (eos excluded).
        stopped_by_guard: the repetition stopping criterion ended generation.
        hit_token_limit: generation ran to ``max_new_tokens`` without an end token (answer cut short).
        trimmed: :func:`trim_repeated_suffix` removed a looping suffix.
        pixels: width * height of the image as handed to the processor (after the pixel budget).
    """

    text: str
    raw_text: str = ""
    new_tokens: int = 0
    stopped_by_guard: bool = False
    hit_token_limit: bool = False
    trimmed: bool = False
    pixels: int = 0
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def suspect(self) -> bool:
        """The answer looped or was cut short: its content needs a human look."""
        return self.stopped_by_guard or self.hit_token_limit or self.trimmed


def finish_generation(raw_text: str, *, new_tokens: int, stopped_by_guard: bool, hit_token_limit: bool,
                      pixels: int = 0, max_new_tokens: int | None = None) -> Generation:
    """Trim a looping suffix and write the warnings a suspect answer carries.

    When the stopping criterion has already seen a loop, weaker textual evidence suffices to trim it
    (3 repeats, 16 characters): the guard stops after only ``GUARD_MIN_SPAN`` tokens.
    """
    if stopped_by_guard:
        text, trimmed = trim_repeated_suffix(raw_text, min_repeats=3, min_chars=16)
    else:
        text, trimmed = trim_repeated_suffix(raw_text)
    gen = Generation(text=text.strip(), raw_text=raw_text, new_tokens=new_tokens, stopped_by_guard=stopped_by_guard,
                     hit_token_limit=hit_token_limit and not stopped_by_guard, trimmed=trimmed, pixels=pixels)
    if gen.stopped_by_guard or gen.trimmed:
        gen.warnings.append(diag(Code.HUNYUAN_REPEATED))
    if gen.hit_token_limit:
        gen.warnings.append(diag(Code.HUNYUAN_CUT_AT_LIMIT, tokens=int(max_new_tokens)) if max_new_tokens
                            else diag(Code.HUNYUAN_CUT))
    return gen


# --------------------------------------------------------------------------------------------------
# Text spotting
# --------------------------------------------------------------------------------------------------

_NUM = r"(-?\d+(?:\.\d+)?)"
_PAIR_RE = re.compile(
    r"\(\s*" + _NUM + r"\s*,\s*" + _NUM + r"\s*\)\s*,?\s*\(\s*" + _NUM + r"\s*,\s*" + _NUM + r"\s*\)"
)
_JSON_KEY_RE = re.compile(r'"(?:box|bbox|quad|polygon|text|content)"\s*:')
_TAG_RE = re.compile(r"</?(?:ref|quad|box)>", re.IGNORECASE)
_FENCE_RE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)(?:```|$)", re.DOTALL)


def strip_fences(text: str) -> str:
    """The content of the first Markdown code fence (```json ... ```), or ``text`` itself when there is none.

    A fence left open (the answer was cut) yields everything after the opening line.
    """
    match = _FENCE_RE.search(text)
    return match.group(1).strip() if match else text.strip()


def _scale_box(values: Sequence[float | str], width: int, height: int) -> tuple[float, float, float, float]:
    """0-1000 ``(x0, y0, x1, y1)`` -> pixels of a ``width`` x ``height`` image, ordered and clamped."""
    x0, y0, x1, y1 = (float(v) / COORD_SCALE for v in values)
    xs = sorted((min(max(x0, 0.0), 1.0) * width, min(max(x1, 0.0), 1.0) * width))
    ys = sorted((min(max(y0, 0.0), 1.0) * height, min(max(y1, 0.0), 1.0) * height))
    return (xs[0], ys[0], xs[1], ys[1])


def _parse_spotting_json(items: Any, width: int, height: int, confidence: float) -> list[Line]:
    lines: list[Line] = []
    if isinstance(items, dict):
        items = next((v for v in items.values() if isinstance(v, list)), [items])
    if not isinstance(items, list):
        return lines
    for item in items:
        if not isinstance(item, dict):
            continue
        text = item.get("text") or item.get("content") or item.get("transcription")
        coords = item.get("box") or item.get("bbox") or item.get("quad") or item.get("polygon")
        if not isinstance(text, str) or not text.strip() or not isinstance(coords, list):
            continue
        try:
            flat = [float(v) for v in _flatten_numbers(coords)]
        except (TypeError, ValueError):
            continue
        polygon = None
        if len(flat) == 4:
            box = _scale_box(flat, width, height)
        elif len(flat) >= 8 and len(flat) % 2 == 0:
            pts = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
            polygon = [
                (min(max(x / COORD_SCALE, 0.0), 1.0) * width, min(max(y / COORD_SCALE, 0.0), 1.0) * height)
                for x, y in pts
            ]
            box = (min(p[0] for p in polygon), min(p[1] for p in polygon),
                   max(p[0] for p in polygon), max(p[1] for p in polygon))
        else:
            continue
        lines.append(Line(text=text.strip(), box=box, confidence=confidence, polygon=polygon))
    return lines


def _flatten_numbers(values: Any) -> Iterable[Any]:
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flatten_numbers(v)
        else:
            yield v


def parse_spotting(text: str, width: int, height: int, *, confidence: float = MODEL_LINE_CONFIDENCE) -> list[Line]:
    """Lines with boxes from a spotting answer, in the pixels of the image the model was shown.

    Accepts the three forms described in the module docstring: ``text(x1,y1),(x2,y2)`` (tags stripped),
    ``<ref>text</ref><quad>(x1,y1),(x2,y2)</quad>``, and a JSON array of ``{"box": [...], "text": ...}``
    (4 numbers = box, 8 = quadrilateral). Text may itself contain parentheses; only a pair of
    coordinate points ends an entry. Exact duplicates (same text and box: a looping answer) are dropped.

    Args:
        text: the decoded answer.
        width, height: size in pixels of the image given to :meth:`HunyuanEngine.read_page`; the
            model's 0-1000 coordinates are relative to that image, whatever it was resized to inside.
        confidence: put on every line (the model gives no scores; see :data:`MODEL_LINE_CONFIDENCE`).

    Returns:
        Lines in the model's reading order, boxes ``(x0, y0, x1, y1)`` clamped to the image.
    """
    body = strip_fences(text)
    lines: list[Line]
    if body[:1] in ("[", "{") and _JSON_KEY_RE.search(body):
        import json_repair

        lines = _parse_spotting_json(json_repair.loads(body), width, height, confidence)
    else:
        lines = []
        start = 0
        for match in _PAIR_RE.finditer(body):
            piece = _TAG_RE.sub("", body[start:match.start()]).strip().strip(",;").strip()
            start = match.end()
            if not piece:
                continue
            box = _scale_box([match.group(i) for i in range(1, 5)], width, height)
            lines.append(Line(text=piece, box=box, confidence=confidence))
    seen: set[tuple[str, tuple[float, ...]]] = set()
    unique = []
    for line in lines:
        key = (line.text, tuple(round(v, 1) for v in line.box))
        if key not in seen:
            seen.add(key)
            unique.append(line)
    return unique


# --------------------------------------------------------------------------------------------------
# Field extraction
# --------------------------------------------------------------------------------------------------

_NOT_FOUND = {"", "null", "none", "n/a", "na", "nil", "-", "--", "无", "空", "未知", "not found", "unknown", "未找到"}


def quote_bare_numbers(body: str) -> str:
    """Put quotes around numbers that stand outside strings in (possibly broken) JSON.

    ``{"invoice number": 04403200211, "total": 77.10}`` -> ``{"invoice number": "04403200211", "total": "77.10"}``,
    so codes keep their leading zeros and amounts their trailing zeros, as printed. Text inside strings
    is never touched (a small scanner tracks quotes and backslash escapes).
    """
    out: list[str] = []
    i, n = 0, len(body)
    quote = ""  # the delimiter of the string being scanned ('"', or "'" for Python-style answers)
    while i < n:
        ch = body[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(body[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = ""
            i += 1
            continue
        if ch in "\"'":
            quote = ch
            out.append(ch)
            i += 1
            continue
        if ch.isdigit() or (ch == "-" and i + 1 < n and body[i + 1].isdigit()):
            j = i + 1
            while j < n and (body[j].isdigit() or body[j] in ".eE+-"):
                j += 1
            out.append('"' + body[i:j] + '"')
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _key_norm(key: str) -> str:
    """Comparison form of a field key: NFKC, case-folded, letters/digits/CJK only (``价税合计（小写）`` ->
    ``价税合计小写``, ``Vendor_Name`` -> ``vendorname``)."""
    key = unicodedata.normalize("NFKC", key).casefold()
    return "".join(ch for ch in key if ch.isalnum())


def _flatten_value(value: Any) -> str | None:
    """A model value as one string: numbers as written, lists and objects joined by spaces, empties None."""
    if value is None or isinstance(value, bool):
        return None if value is None else str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        text = " ".join(value.split())
        return None if text.casefold() in _NOT_FOUND else text
    if isinstance(value, dict):
        # {"value": "RM 223.00", "raw": "223.00"}: the value itself, not every attribute joined
        for key in ("value", "text", "content", "值", "内容", "raw"):
            if key in value and _flatten_value(value[key]):
                return _flatten_value(value[key])
        parts = [_flatten_value(v) for v in value.values()]
    elif isinstance(value, (list, tuple)):
        parts = [_flatten_value(v) for v in value]
    else:
        return None
    joined = " ".join(p for p in parts if p)
    return joined or None


def as_field_specs(fields: Sequence[FieldSpec | str]) -> list[FieldSpec]:
    """Field specifications from specs or canonical names.

    A name that is not a canonical field (``resources/doctypes/fields.json``) becomes an ad-hoc text
    field asked for as itself with underscores turned to spaces (``table_number`` -> ``table number``).
    """
    from desktop.core.doctypes import FieldSpec, canonical_fields

    specs = canonical_fields()
    out: list[FieldSpec] = []
    for f in fields:
        if isinstance(f, FieldSpec):
            out.append(f)
        elif f in specs:
            out.append(specs[f])
        else:
            words = str(f).replace("_", " ")
            out.append(FieldSpec(name=str(f), type="text", label={"en": words}, prompt={"en": words}))
    return out


def fields_prompt_keys(fields: Sequence[FieldSpec | str], language: str = "en") -> dict[str, str]:
    """Canonical field name -> the key put in the extraction prompt: the spec's ``prompt`` wording in
    ``language`` (``en``/``zh``), falling back to English, then to the name (see :func:`as_field_specs`)."""
    lang = "zh" if language.lower().startswith("zh") else "en"
    return {spec.name: spec.prompt.get(lang) or spec.prompt.get("en") or spec.name.replace("_", " ")
            for spec in as_field_specs(fields)}


def _aliases(spec: FieldSpec, prompt_key: str) -> list[str]:
    """Every spelling of a field the model may echo back: prompt key, canonical name, other-language key, labels."""
    return [prompt_key, spec.name, *spec.prompt.values(), *spec.label.values()]


def _parse_json_object(text: str) -> tuple[Any, bool]:
    """Parse (and repair) the JSON in an answer; returns ``(object, closed)``.

    ``closed`` is False when the JSON was cut short (no closing bracket after the last value), in which
    case the last value may be incomplete. Bare numbers are quoted first so that codes keep their
    leading zeros and amounts their trailing zeros, as printed.
    """
    import json_repair

    body = strip_fences(text)
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts:
        return None, False
    body = body[min(starts):].rstrip()
    closed = body.endswith(("}", "]"))
    body = quote_bare_numbers(body)
    try:
        return json.loads(body), closed
    except ValueError:
        return json_repair.loads(body), closed


def parse_fields(text: str, fields: Sequence[FieldSpec | str], language: str = "en") -> tuple[dict[str, str | None], list[Diagnostic]]:
    """Field values from an extraction answer, keyed by canonical field names.

    Args:
        text: the model's answer.
        fields: what was asked for: :class:`~desktop.core.doctypes.FieldSpec` objects or canonical names
            (:func:`as_field_specs`).
        language: the language the prompt was worded in (``en``/``zh``).

    Rules:
      - JSON is repaired where malformed (``json_repair``); a ```json fence and text around it are ignored.
      - Keys are matched to the requested fields by their prompt key, canonical name, the other
        language's key or label, compared without case, spaces or punctuation; then by unique
        containment (``价税合计`` matches ``价税合计（小写）``). Keys matching no requested field are dropped.
      - Values: strings as printed (whitespace collapsed); numbers as written; lists flattened to one
        space-joined string; a nested object gives its ``value``/``text`` entry, else its values joined;
        empty / ``null`` / ``N/A`` / ``无`` -> ``None``.
      - A list of objects is merged (first value of a field wins); a single wrapping object
        (``{"fields": {...}}``) is unwrapped.
      - Cut-short JSON: the last value may be incomplete, so it is dropped (``None``), never guessed.

    Returns:
        ``(values, warnings)``: every requested field name -> value as printed or ``None``; and notes
        about what was dropped or repaired (diagnostics: ``HUNYUAN_NO_FIELD_JSON``, ``HUNYUAN_VALUE_CUT``,
        ``HUNYUAN_EXTRA_FIELDS``).
    """
    specs = as_field_specs(fields)
    keys = fields_prompt_keys(specs, language)
    values: dict[str, str | None] = {spec.name: None for spec in specs}
    warnings: list[Diagnostic] = []
    obj, closed = _parse_json_object(text)
    if isinstance(obj, list):
        merged: dict[str, Any] = {}
        for item in obj:
            if isinstance(item, dict):
                for k, v in item.items():
                    merged.setdefault(k, v)
        obj = merged
    if not isinstance(obj, dict) or not obj:
        if text.strip():
            warnings.append(diag(Code.HUNYUAN_NO_FIELD_JSON))
        return values, warnings

    lookup: dict[str, str] = {}
    for spec in specs:
        for alias in _aliases(spec, keys[spec.name]):
            lookup.setdefault(_key_norm(alias), spec.name)

    def match(key: str) -> str | None:
        norm = _key_norm(str(key))
        if not norm:
            return None
        if norm in lookup:
            return lookup[norm]
        hits = {name for alias, name in lookup.items() if len(norm) >= 2 and (norm in alias or alias in norm)}
        return hits.pop() if len(hits) == 1 else None

    if not any(match(k) for k in obj) and len(obj) == 1:
        inner = next(iter(obj.values()))
        if isinstance(inner, dict):
            obj = inner
    items = list(obj.items())
    if not closed and items:
        last_key = items[-1][0]
        items = items[:-1]
        warnings.append(diag(Code.HUNYUAN_VALUE_CUT, key=str(last_key)))
    dropped: list[str] = []
    for key, raw in items:
        wanted = match(key)
        if wanted is None:
            dropped.append(str(key))
            continue
        if values[wanted] is None:
            values[wanted] = _flatten_value(raw)
    if dropped:
        warnings.append(diag(Code.HUNYUAN_EXTRA_FIELDS, fields=dropped))
    return values, warnings
