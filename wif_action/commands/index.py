"""`wif index`: the indexer's command (indexer/cli.py), with the judge's term counts as its derived data.

Why a module of its own: the indexer imports nothing of the action, so the command that runs it hands it
`term_index.refresh`, which stores each entry's term counts for the read path, `term_index.counter`, which
counts them in the indexer's parse workers, and `term_index.store_new`, which stores each repository's with its
entries (`python -m indexer` does not: readers then compute them).
"""

from __future__ import annotations

import argparse

from indexer import cli


def add_arguments(parser: argparse.ArgumentParser) -> None:
    cli.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from indexer.notes_pool import Derive
    from wif_action.tools.term_index import counter, refresh, store_new

    return cli.run(args, derive=Derive(refresh, counter, store_new))
