"""Plain-text tables for the terminal (`wif runs`, `wif eval`, bench/): tabulate lays them out;
here only what a cell shows (clipped, one line, short floats) is decided."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

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
    cells = [[cell(value, limit) for value in row] for row in rows]
    return tabulate(cells, headers=list(headers), tablefmt="simple", disable_numparse=True,
                    colalign=_alignments(headers, rows))


def _alignments(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """Right-align a column whose every value is a number (so digits line up), left-align the rest."""
    numeric = [bool(rows) and all(_is_number(row[i]) for row in rows if row[i] is not None)
               for i in range(len(headers))]
    return ["right" if is_number else "left" for is_number in numeric]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
