"""Every query the read path makes uses an index (EXPLAIN QUERY PLAN), so an answer's cost does not grow
with the number of repositories in the cache (issue 23: term statistics scanned every repository's entries),
and no full-text query runs inside a loop over other rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from indexer.schema import open_cache
from wif_action import lexicon
from wif_action.tools.cache import SqliteReleaseCache

COCOA, RN = "getsentry/sentry-cocoa", "getsentry/sentry-react-native"


def _read_path_statements(cache: SqliteReleaseCache, conn: sqlite3.Connection) -> list[str]:
    """The SQL of every SqliteReleaseCache method, as the read path runs it (traced, parameters bound).
    `repositories()` reads the whole (small) table by design: one row per repository, for the registry."""
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    user = cache.find_release(COCOA, "8.48.0")
    assert user is not None
    cache.find_release(COCOA, "8.4")
    cache.count_stable_after(COCOA, user.version_key)
    batch = cache.stable_after(COCOA, user.version_key, 5)
    ids = [release.id for release in batch]
    cache.latest_stable(COCOA)
    cache.stable_releases(COCOA)
    entries = cache.entries(ids)
    cache.entries(ids, frozenset({"fix", "other"}))
    cache.stored_term_counts([entry.id for entry in entries], lexicon.fingerprint())
    cache.bundle_bumps(ids)
    cache.bundled_key_at(RN, COCOA, user.version_key, inclusive=True)
    cache.stable_between(COCOA, user.version_key, batch[-1].version_key)
    cache.first_release_bundling(RN, COCOA, user.version_key)
    cache.bundled_repositories(RN)
    cache.first_stable_release_with_pr(COCOA, 5242)
    cache.prs_user_has(COCOA, [5242, 4953], user)
    cache.cached_pull(COCOA, 5242)
    cache.term_statistics(COCOA, ["watchdog", "tags"])  # stored documents (m011) …
    conn.execute("delete from repository_terms where repo_id = (select id from repositories where slug = ?)", [RN])
    cache.term_statistics(RN, ["watchdog"])  # … and counted, for a repository without a row
    cache.repositories()
    cache.has_repository(COCOA)
    conn.set_trace_callback(None)
    # FTS5's own reads of its shadow tables (entries_fts_config, …) are SQLite's, not the read path's.
    return [sql for sql in dict.fromkeys(seen) if sql.lstrip().lower().startswith("select")
            and "'entries_fts_" not in sql]


def test_every_read_path_query_uses_an_index(example_cache_copy: Path) -> None:
    open_cache(example_cache_copy, create=True).close()  # the indexer's migrations (indexes included)
    conn = sqlite3.connect(example_cache_copy)
    statements = _read_path_statements(SqliteReleaseCache(conn), conn)
    assert len(statements) >= 17
    assert any("from entry_terms" in sql for sql in statements)
    assert any("from repository_terms" in sql for sql in statements)
    assert any("avg(length(text)" in sql for sql in statements)
    scans = {}
    for sql in statements:
        plan = conn.execute(f"explain query plan {sql}").fetchall()
        full = [row[3] for row in plan if row[3].startswith("SCAN") and "INDEX" not in row[3]]
        outer = [row[3] for row in plan if row[1] == 0]
        # A full-text query inside a loop over other rows runs once per row (a 120 s answer, seen).
        full += [step for step in outer[1:] if "VIRTUAL TABLE" in step]
        if full:
            scans[sql[:120]] = full
    conn.close()
    assert not scans, scans
