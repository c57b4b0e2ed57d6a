"""Plain-text tables for the terminal (`wif runs`, `wif eval`) — no dependency, aligned columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CELL_LIMIT = 80


def cell(value: Any, limit: int = CELL_LIMIT) -> str:
    """A value as one table cell: None → empty, floats shortened, newlines flattened, long text clipped."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], limit: int = CELL_LIMIT) -> str:
    """Left-aligned text, right-aligned numbers, a dashed rule under the header."""
    cells = [[cell(v, limit) for v in row] for row in rows]
    numeric = [all(_is_number(row[i]) for row in rows if row[i] is not None) and bool(rows)
               for i in range(len(headers))]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return "  ".join(parts).rstrip()

    return "\n".join([line(list(headers)), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
