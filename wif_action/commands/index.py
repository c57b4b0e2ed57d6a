"""`wif index`: the indexer's command (indexer/cli.py), with the judge's term counts as its derived data.

Why a module of its own: the indexer imports nothing of the action, so the command that runs it hands it
`term_index.refresh`, which stores each entry's term counts for the read path, `term_index.counter`, which
counts them in the indexer's parse workers, and `term_index.store_new`, which stores each repository's with its
entries (`python -m indexer` does not: readers then compute them).
"""

from __future__ import annotations

import argparse
import sqlite3
from collections.abc import Callable, Mapping, Sequence

from indexer import cli


def add_arguments(parser: argparse.ArgumentParser) -> None:
    cli.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from indexer.notes_pool import Derive

    return cli.run(args, derive=Derive(_refresh, _counter, _store_new))


# Imported on first use: a first run forks its parse workers before the judge's lexicon is loaded, and each worker
# loads it (for `_counter`) while the indexer loads its GitHub client.
def _refresh(conn: sqlite3.Connection, computed: Mapping[str, str]) -> int:
    from wif_action.tools.term_index import refresh

    return refresh(conn, computed)


def _counter() -> Callable[[str], str]:
    from wif_action.tools.term_index import counter

    return counter()


def _store_new(conn: sqlite3.Connection, entries: Sequence[tuple[int, str]], computed: Mapping[str, str]) -> int:
    from wif_action.tools.term_index import store_new

    return store_new(conn, entries, computed)
