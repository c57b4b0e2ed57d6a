"""Judge with other lexicon weights inside one test; conftest's `lexicon_restored` puts the shipped tables back."""

from __future__ import annotations

from wif_action import lexicon


def use_weights(**weights: float) -> None:
    """Judge with these `[weight]` values from now on, the rest as they are (`lexicon_restored` puts all back)."""
    tables = lexicon.data()
    tables["weight"].update(weights)
    lexicon.use(tables)
