"""Layout helpers over recognised lines: rows, neighbours to the right / below a label, label search.

All boxes are in page pixels (see :mod:`desktop.core.model`). OCR engines return each text run as a
separate line box, so a label (``TOTAL``) and its value (``RM 37.80``) are often two boxes on the same
row; text-layer PDFs give the same shape after grouping words into lines.
"""
from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from desktop.core.diagnostics import Diagnostic
from desktop.core.extraction.amounts import ISO_4217_COMMON
from desktop.core.layout import deskewed_boxes
from desktop.core.model import Box, Field, Line, PageResult, union_box

__all__ = ["Candidate", "Layout", "Ln", "char_confidences", "nfkc", "candidate_to_field"]


def nfkc(text: str) -> str:
    """NFKC-normalised text (full-width digits, colons and parentheses become ASCII)."""
    return unicodedata.normalize("NFKC", text)


def char_confidences(text: str, confidences: list[float] | None) -> tuple[float, ...] | None:
    """Per-character confidences of ``text`` (an engine's line, as printed) mapped onto
    ``nfkc(text).strip()`` (the text an :class:`Ln` holds): a character NFKC expands (``㈱`` -> ``(株)``)
    lends its confidence to each of its replacements. ``None`` when ``confidences`` is ``None``, not
    aligned with ``text``, or the mapping does not reproduce the normalised text (a composed sequence)."""
    if confidences is None or len(confidences) != len(text):
        return None
    out: list[float] = []
    pieces: list[str] = []
    for ch, c in zip(text, confidences):
        n = nfkc(ch)
        pieces.append(n)
        out.extend([float(c)] * len(n))
    joined = "".join(pieces)
    if joined != nfkc(text):
        return None
    lead = len(joined) - len(joined.lstrip())
    kept = len(joined.strip())
    return tuple(out[lead: lead + kept])


@dataclass
class Ln:
    """One line with its position in the document.

    Attributes:
        page: 1-based page number.
        index: index of the line in ``PageResult.lines``.
        text: NFKC-normalised text.
        box: ``(x0, y0, x1, y1)`` page pixels.
        confidence: the engine's recognition confidence.
        page_width, page_height: size of the page in page pixels.
        frame: on a skewed page, the line's box turned back by the skew
            (:func:`desktop.core.layout.deskewed_boxes`), ``None`` otherwise. Every geometric query
            (``x0`` ... ``h``, rows, neighbours) reads it; ``box`` stays the page-pixel box that a
            field's outline shows.
        chars: the recogniser's probability of each character of ``text`` (same length, each in
            [0, 1]; :func:`char_confidences` maps the engine's
            :attr:`~desktop.core.model.Line.char_confidences` onto the normalised text), ``None`` when
            unknown (text layers, VLM engines, a recording without them).
    """

    page: int
    index: int
    text: str
    box: Box
    confidence: float
    page_width: float
    page_height: float
    raw_text: str = ""
    frame: Box | None = None
    chars: tuple[float, ...] | None = None

    def span_confidence(self, start: int = 0, end: int | None = None) -> float:
        """The lowest character confidence of ``text[start:end]``, spaces left out (the line's
        ``confidence`` when the characters' are unknown or the span holds none)."""
        if self.chars is None:
            return self.confidence
        part = [c for c, ch in zip(self.chars[start:end], self.text[start:end]) if not ch.isspace()]
        return min(part) if part else self.confidence

    # geometry, read from ``frame or box`` once: the rules and candidate features query it millions of
    # times a batch, and a line is never moved after it is built
    x0: float = field(init=False, repr=False, compare=False)
    y0: float = field(init=False, repr=False, compare=False)
    x1: float = field(init=False, repr=False, compare=False)
    y1: float = field(init=False, repr=False, compare=False)
    #: vertical centre (page pixels)
    cy: float = field(init=False, repr=False, compare=False)
    #: height (page pixels, at least 1)
    h: float = field(init=False, repr=False, compare=False)
    #: vertical centre as a fraction of the page height (0 = top)
    rel_y: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        g = self.frame or self.box
        self.x0, self.y0, self.x1, self.y1 = g[0], g[1], g[2], g[3]
        self.cy = (g[1] + g[3]) / 2
        self.h = max(1.0, g[3] - g[1])
        self.rel_y = self.cy / max(1.0, self.page_height)


@dataclass
class Candidate:
    """A value found for a field, with where it came from.

    ``score`` orders candidates of the same field (higher is better); ``factor`` is the heuristic
    confidence factor multiplied with the OCR confidence (strong label match ~0.95, weak ~0.6).
    """

    value: str | None
    raw: str
    lines: list[Ln]
    problems: list[Diagnostic] = field(default_factory=list)
    factor: float = 0.9
    score: float = 0.0
    source: str = "ocr"
    boxes: list[Box] | None = None
    #: the line holding the label a value was read after (:meth:`Layout.labelled`), else ``None``
    label_line: Ln | None = field(default=None, repr=False, compare=False)

    @property
    def page(self) -> int | None:
        return self.lines[0].page if self.lines else None

    @property
    def confidence(self) -> float:
        if not self.lines:
            return self.factor
        return min(ln.confidence for ln in self.lines) * self.factor


def candidate_to_field(name: str, cand: Candidate | None, *, source: str | None = None) -> Field:
    """Turn a candidate into a :class:`~desktop.core.model.Field` (``None`` -> empty field).

    ``source`` (where the document's text came from: ``ocr``, ``text_layer``...) replaces the
    candidate's, except for a value that was not printed (``inferred``); an empty ``raw`` becomes
    ``None`` (nothing printed)."""
    if cand is None:
        return Field(name=name)
    boxes = list(cand.boxes) if cand.boxes is not None else [ln.box for ln in cand.lines]
    return Field(
        name=name,
        value=cand.value,
        raw=cand.raw or None,
        confidence=round(max(0.0, min(1.0, cand.confidence)), 4),
        page=cand.page,
        box=union_box(boxes),
        boxes=boxes,
        # a value inferred rather than read (a currency from the country on the page) keeps saying so
        source=cand.source if cand.source == "inferred" else (source or cand.source),
        problems=list(cand.problems),
    )


#: A box that opens with a word of three letters or more (a label), not a currency sign or code.
_OPENING_WORD = re.compile(r"^\W*([^\W\d_]{3,})")


class Layout:
    """The lines of one document (all its pages) with geometric queries.

    Args:
        pages: the pages' recognition results; lines keep their page order, and within a page are
            sorted top to bottom (by vertical centre), then left to right.
    """

    def __init__(self, pages: Iterable[PageResult]):
        self.pages = list(pages)
        self.lines: list[Ln] = []
        for p in self.pages:
            kept = [(i, line) for i, line in enumerate(p.lines) if line.text and line.text.strip()]
            # a skewed scan or photo: rows and neighbours are found on the lines turned back by the skew
            frames = deskewed_boxes([line for _i, line in kept]) if len(kept) >= 3 else None
            page_lines = [
                Ln(p.number, i, nfkc(line.text).strip(), tuple(line.box), float(line.confidence),  # type: ignore[arg-type]
                   float(p.width or 1), float(p.height or 1), line.text, frames[k] if frames else None,
                   char_confidences(line.text, line.char_confidences))
                for k, (i, line) in enumerate(kept)
            ]
            page_lines.sort(key=lambda ln: (ln.cy, ln.x0))
            self.lines.extend(page_lines)
        self.text = "\n".join(ln.text for ln in self.lines)
        self._pos = {id(ln): i for i, ln in enumerate(self.lines)}
        self._row_cache: dict[int, list[Ln]] = {}
        self._by_page: dict[int, tuple[list[Ln], list[float], float]] = {}

    def source_line(self, ln: Ln) -> Line:
        page = next(p for p in self.pages if p.number == ln.page)
        return page.lines[ln.index]

    # -- geometry ---------------------------------------------------------------------------------
    @staticmethod
    def same_row(a: Ln, b: Ln) -> bool:
        """Whether two lines sit on the same text row (vertical overlap of most of the smaller box)."""
        if a.page != b.page:
            return False
        overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
        if overlap < 0.5 * min(a.h, b.h) or abs(a.cy - b.cy) > 0.6 * max(a.h, b.h):
            return False
        # lines of one row sit side by side (the axis-aligned boxes of a skewed scan's lines overlap
        # vertically, those of its stacked lines too)
        return a is b or not Layout.stacked(a, b)

    @staticmethod
    def stacked(a: Ln, b: Ln) -> bool:
        """Whether two lines overlap along the row over half the narrower one's width: one is printed
        over the other, whatever their boxes' vertical overlap."""
        across = min(a.x1, b.x1) - max(a.x0, b.x0)
        return across > 0.5 * min(a.x1 - a.x0, b.x1 - b.x0)

    def rows(self, *, by_position: bool = False) -> list[list[Ln]]:
        """Every text row of the document (:meth:`row`: its lines left to right), each once, in the
        order of their first line in :attr:`lines` (reading order), or with ``by_position`` top to
        bottom per page by the rows' highest line centre."""
        seen: set[int] = set()
        out: list[list[Ln]] = []
        for ln in self.lines:
            if id(ln) in seen:
                continue
            row = self.row(ln)
            seen.update(id(o) for o in row)
            out.append(row)
        if by_position:
            out.sort(key=lambda r: (r[0].page, min(o.cy for o in r)))
        return out

    def row(self, ln: Ln) -> list[Ln]:
        """Every line on the same row as ``ln`` (including it), left to right (memoised: the layout
        does not change after construction)."""
        key = id(ln)
        got = self._row_cache.get(key)
        if got is None:
            lines, cys, max_h = self._page_lines(ln.page)
            # only lines whose centres lie within 0.6 x the taller height can share the row (same_row)
            reach = 0.6 * max(ln.h, max_h)
            lo, hi = bisect_left(cys, ln.cy - reach), bisect_right(cys, ln.cy + reach)
            got = sorted((o for o in lines[lo:hi] if o is ln or self.same_row(ln, o)), key=lambda o: o.x0)
            self._row_cache[key] = got
        return list(got)

    def _page_lines(self, page: int) -> tuple[list[Ln], list[float], float]:
        got = self._by_page.get(page)
        if got is None:
            lines = sorted((o for o in self.lines if o.page == page), key=lambda o: o.cy)
            got = self._by_page[page] = (lines, [o.cy for o in lines], max((o.h for o in lines), default=1.0))
        return got

    def right_of(self, ln: Ln, max_gap: float | None = None) -> list[Ln]:
        """Lines on the same row starting to the right of ``ln``'s middle, nearest first. Of lines
        stacked one over another there (a skewed scan's value column, where a label's row reaches the
        values above and below it), only the one level with ``ln`` (nearest vertical centre)."""
        mid = (ln.x0 + ln.x1) / 2
        out = [o for o in self.row(ln) if o is not ln and o.x0 >= mid]
        out = [o for o in out if not any(p is not o and self.stacked(o, p) and abs(p.cy - ln.cy) < abs(o.cy - ln.cy)
                                         for p in out)]
        if max_gap is not None:
            out = [o for o in out if o.x0 - ln.x1 <= max_gap]
        return sorted(out, key=lambda o: o.x0)

    def below(self, ln: Ln, max_lines: int = 2, max_dy: float | None = None) -> list[Ln]:
        """Lines below ``ln`` that overlap it horizontally, nearest first (at most ``max_lines``)."""
        limit = max_dy if max_dy is not None else 2.6 * ln.h
        lines, cys, max_h = self._page_lines(ln.page)
        # only lines whose centres lie between ln's bottom and ``limit`` (plus half the tallest line,
        # as o.cy <= o.y0 + max_h) below it can qualify: the page's lines sorted by centre, bisected
        lo = bisect_right(cys, ln.y1 - 0.2 * ln.h)
        hi = bisect_right(cys, ln.y1 + limit + max_h)
        out = [
            o for o in lines[lo:hi]
            if o is not ln and o.cy > ln.y1 - 0.2 * ln.h and o.y0 - ln.y1 <= limit
            and min(o.x1, ln.x1) - max(o.x0, ln.x0) > -0.2 * ln.h and not self.same_row(ln, o)
        ]
        out.sort(key=lambda o: (o.y0, abs(o.x0 - ln.x0)))
        return out[:max_lines]

    def after(self, ln: Ln, n: int = 1) -> list[Ln]:
        """The next ``n`` lines in reading order."""
        i = self._pos[id(ln)]
        return self.lines[i + 1: i + 1 + n]

    # -- label search ---------------------------------------------------------------------------
    def labelled(
        self,
        label: re.Pattern[str],
        parse: Callable[[str], tuple[str | None, str, list[Diagnostic]] | None],
        *,
        exclude: re.Pattern[str] | None = None,
        right: bool = True,
        below: bool = True,
        factor: float = 0.95,
        prefer_rightmost: bool = False,
    ) -> list[Candidate]:
        """Values printed after a label: on the same line, in boxes to the right, or just below.

        Args:
            label: pattern searched in each line's (NFKC) text.
            parse: ``text -> (value, raw, problems)`` or ``None`` when ``text`` holds no value.
            exclude: lines matching this are not labels (e.g. ``TOTAL QTY`` for totals).
            right, below: whether to look at boxes to the right / the line below.
            factor: confidence factor of a match.
            prefer_rightmost: try the farthest box to the right first (amount columns).

        Returns:
            Candidates in document order; ``score`` is 0 (callers rank them).
        """
        out: list[Candidate] = []
        for ln in self.lines:
            m = label.search(ln.text)
            if not m or (exclude is not None and exclude.search(ln.text)):
                continue
            rest = ln.text[m.end():]
            neighbours = self.right_of(ln) if right else []
            # stop at the next label on the row ("Exclusief BTW € 593,36   Subtotaal € 717,97")
            for k, o in enumerate(neighbours):
                if len(re.findall(r"[^\W\d_]", o.text)) >= 3 and not re.search(r"\d", o.text):
                    neighbours = neighbours[:k]
                    break
            found = False
            if prefer_rightmost and rest.strip(" :：.-") and (own := parse(rest)) and own[0] is not None:
                # the label line holds its own value: a box to its right that opens with a word of its own
                # ("Total HT 24,33   TVA 2,97") is the next label's pair, not this label's value column
                for k, o in enumerate(neighbours):
                    w = _OPENING_WORD.match(o.text)
                    if w and w.group(1).upper() not in ISO_4217_COMMON and w.group(1).upper() != "RMB":
                        neighbours = neighbours[:k]
                        break
            if prefer_rightmost:
                # the value column: the rightmost box of the row that holds a value wins over the label line
                for o in neighbours[::-1][:4]:
                    got = parse(o.text)
                    if got and got[0] is not None:
                        out.append(Candidate(got[0], got[1], [o], got[2], factor * 0.98, label_line=ln))
                        found = True
                        break
                if found:
                    continue
            got = parse(rest) if rest.strip(" :：.-") else None
            if got and got[0] is not None:
                out.append(Candidate(got[0], got[1], [ln], got[2], factor, label_line=ln))
                continue
            if right and not prefer_rightmost:
                for o in neighbours[:4]:
                    got = parse(o.text)
                    if got and got[0] is not None:
                        out.append(Candidate(got[0], got[1], [o], got[2], factor * 0.98, label_line=ln))
                        found = True
                        break
            if not found and below:
                for o in self.below(ln, 1):
                    got = parse(o.text)
                    if got and got[0] is not None:
                        out.append(Candidate(got[0], got[1], [o], got[2], factor * 0.85, label_line=ln))
                        break
        return out
