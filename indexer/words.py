"""The indexer's words as data (`indexer/data/words.toml`), and the regexes built from them.

Why: section headings, change kinds, conventional-commit types and fix verbs are knowledge the parser and the
judge share. The indexer is the lower layer, so their one home is this package's data file: the parser reads it
here, the judge's lexicon reads its `[words]` table (a downward import). Read once (the section names when
release_notes is imported); the regexes are built on first use.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources
from typing import Any


@cache
def tables() -> dict[str, Any]:
    """The tables of words.toml, as loaded (callers must not change them)."""
    return tomllib.loads(resources.files("indexer").joinpath("data", "words.toml").read_text(encoding="utf-8"))


@cache
def words(name: str) -> frozenset[str]:
    """A top-level word list of words.toml ("capitalised_only")."""
    return frozenset(tables()[name])


def alternation(items: frozenset[str] | set[str]) -> str:
    """`(?:longest|…|short)`: the words as one regex group, longer words first; an empty list matches nothing."""
    if not items:
        return "(?!)"
    return "(?:" + "|".join(re.escape(item) for item in sorted(items, key=lambda item: (-len(item), item))) + ")"


def whole_words(items: list[str] | tuple[str, ...]) -> str:
    """A regex naming any of `items` as whole words; a `*` at a word's end or start lets it run on ("deprecat*")."""
    if not items:
        return "(?!)"
    return "|".join(("" if item.startswith("*") else r"\b") + re.escape(item.strip("*"))
                    + ("" if item.endswith("*") else r"\b") for item in items)
