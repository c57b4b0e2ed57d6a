"""Each cached entry's BM25 term counts, computed once at index time instead of on every question.

Why: counting the terms of the entries a question scans (word splitting, stemming, synonyms) does not depend
on the question, yet was most of a 100-release offline answer. The counts depend on the judge's lexicon, which
changes between WIF versions without a re-index, so every row carries the `lexicon.fingerprint()` it was
computed under: the read path (`SqliteReleaseCache.stored_term_counts`) uses only rows of its own fingerprint
and counts the rest itself, and `refresh` (run by `wif index` after indexing) recomputes what is missing or
stale. The indexer does not import the judge (indexer/ stands alone), so it is handed `refresh` as its
`derive` step by the commands that index.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence

from wif_action import lexicon
from wif_action.lexicon.terms import term_counts

TABLE = "entry_terms"  # schema m009 (indexer/schema.py)


def has_table(conn: sqlite3.Connection) -> bool:
    return bool(conn.execute("select 1 from sqlite_master where type = 'table' and name = ?", [TABLE]).fetchone())


def refresh(conn: sqlite3.Connection, computed: Mapping[str, str] | None = None) -> int:
    """Compute the term counts of every entry without a row of the current fingerprint, in one transaction;
    returns how many were written (0 on a cache without the table: a schema before m009). `computed`: encoded
    counts by entry text, already worked out (by `counter` in the indexer's parse workers) under this process's
    lexicon."""
    if not has_table(conn):
        return 0
    fingerprint = lexicon.fingerprint()
    stale = conn.execute(f"select e.id, e.text from entries e left join {TABLE} t on t.entry_id = e.id "
                         "where t.fingerprint is null or t.fingerprint != ?", [fingerprint]).fetchall()
    if not stale:
        return 0
    chunks: dict = {}  # each chunk's keys, worked out once for the whole run
    # release notes repeat whole lines across releases: each text counted once
    encoded: dict[str, str] = dict(computed or {})
    rows = []
    for entry_id, text in stale:
        counts = encoded.get(text)
        if counts is None:
            counts = encoded[text] = encode(term_counts(text, chunks))
        rows.append((entry_id, fingerprint, counts))
    began = not conn.in_transaction
    if began:
        conn.execute("begin immediate")
    try:
        conn.executemany(f"insert or replace into {TABLE} (entry_id, fingerprint, counts) values (?, ?, ?)", rows)
    except BaseException:
        if began:
            conn.execute("rollback")
        raise
    if began:
        conn.execute("commit")
    return len(rows)


def store_new(conn: sqlite3.Connection, entries: Sequence[tuple[int, str]],
              computed: Mapping[str, str] | None = None) -> int:
    """The term counts of entries just inserted (their ids and texts), in the caller's transaction: `wif index`
    stores each repository's with its entries (`indexer.notes_pool.Derive.store_new`), so `refresh` afterwards
    finds none missing. `computed` as for `refresh`; returns how many rows were written."""
    if not entries or not has_table(conn):
        return 0
    fingerprint = lexicon.fingerprint()
    known = computed or {}
    count = counter()
    rows = [(entry_id, fingerprint, known.get(text) or count(text)) for entry_id, text in entries]
    conn.executemany(f"insert or replace into {TABLE} (entry_id, fingerprint, counts) values (?, ?, ?)", rows)
    return len(rows)


def counter() -> Callable[[str], str]:
    """What `refresh` stores for one entry text, with a memo of its own: the indexer's parse workers make one each
    (`indexer.notes_pool.Derive.per_text`) and hand `refresh` what they counted."""
    chunks: dict = {}
    return lambda text: encode(term_counts(text, chunks))


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # json.dumps builds one per call


def encode(counts: dict[str, int]) -> str:
    return _ENCODER.encode(counts)


def key_needle(key: str) -> str:
    """How `key` is written in `encode`'s JSON (`"crash":`): a stored row without it has no such key."""
    return _ENCODER.encode(key) + ":"
