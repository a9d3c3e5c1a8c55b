"""Each benchmark owns one section of BENCHMARKS.md, between its own HTML comment markers."""
from __future__ import annotations

from pathlib import Path

__all__ = ["write_section"]


def write_section(path: Path, start: str, end: str, body: str) -> None:
    """Replace the text between the markers ``start`` and ``end`` in ``path`` with ``body`` (markers
    kept), or append the marked section when the file has none (a new file starts ``# Benchmarks``)."""
    section = f"{start}\n{body}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + section + after
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")
