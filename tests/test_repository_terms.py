"""Per-repository BM25 statistics stored at index time (schema m011, `indexer.store.rebuild_repository_terms`):
the same numbers the read path would count, kept only while the repository's notes are unchanged, and the same
answers with or without them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.registry import load_registry
from indexer.schema import open_cache
from indexer.store import RepositoryUpdate, UpdateResult, apply_update
from tests.cache_helpers import without_migration
from wif_action.engines.offline import OfflineJudge
from wif_action.ports import CacheReadError
from wif_action.question import analyse_question
from wif_action.tools.cache import SqliteReleaseCache

COCOA, RN = "getsentry/sentry-cocoa", "getsentry/sentry-react-native"
TERMS = ["crash", "tags", "watchdog", "rate limit", "quuxification"]


@pytest.fixture
def migrated(example_cache_copy: Path) -> Path:
    """The example cache as the indexer leaves it: every migration applied (m011 fills every repository)."""
    open_cache(example_cache_copy, create=True).close()
    return example_cache_copy


@pytest.fixture
def conn(migrated: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(migrated, isolation_level=None)
    yield connection
    connection.close()


def _stored(conn: sqlite3.Connection, repo: str) -> tuple[int, float] | None:
    row = conn.execute("select t.documents, t.mean_length from repository_terms t join repositories s "
                       "on s.id = t.repo_id where s.slug = ?", [repo]).fetchone()
    return (row[0], row[1]) if row else None


def _counted(conn: sqlite3.Connection, repo: str) -> tuple[int, float, dict[str, int]]:
    """What the read path counts without a stored row (the table emptied in a transaction rolled back)."""
    conn.execute("begin")
    try:
        conn.execute("delete from repository_terms")
        return SqliteReleaseCache(conn).term_statistics(repo, TERMS)
    finally:
        conn.execute("rollback")


def test_the_stored_statistics_are_what_the_read_path_counts_for_every_repository(conn: sqlite3.Connection) -> None:
    repos = [row[0] for row in conn.execute("select slug from repositories order by slug")]
    assert len(repos) == 11
    for repo in repos:
        stored = SqliteReleaseCache(conn).term_statistics(repo, TERMS)
        assert _stored(conn, repo) == stored[:2]
        assert stored == _counted(conn, repo)  # to the bit: the same floats
        assert stored[0] > 100


def test_a_changed_deleted_or_new_note_drops_its_repository_row_and_indexing_counts_it_again(
        conn: sqlite3.Connection, migrated: Path) -> None:
    entry = conn.execute("select e.id from entries e join repositories s on s.id = e.repo_id where s.slug = ? "
                         "limit 1", [COCOA]).fetchone()[0]
    before = _stored(conn, COCOA)
    conn.execute("update entries set text = 'Fix quuxification of the frobnicated wibble sprocket' where id = ?",
                 [entry])
    assert _stored(conn, COCOA) is None and _stored(conn, RN) is not None
    assert SqliteReleaseCache(conn).term_statistics(COCOA, [])[:2] != before  # counted, with the new text
    _reindex(migrated, COCOA)
    assert _stored(conn, COCOA) == _counted(conn, COCOA)[:2] != before
    conn.execute("delete from entry_prs where entry_id = ?", [entry])
    conn.execute("delete from bundle_bumps where entry_id = ?", [entry])
    conn.execute("delete from entries where id = ?", [entry])
    assert _stored(conn, COCOA) is None


def test_a_newer_notes_parser_reparses_and_the_row_is_counted_from_the_new_notes(
        conn: sqlite3.Connection, migrated: Path) -> None:
    """A parser-version bump re-parses every stored body (`reparse_if_stale`): the row follows the new notes."""
    release = conn.execute("select r.id from releases r join repositories s on s.id = r.repo_id "
                           "where s.slug = ? order by r.version_key desc limit 1", [RN]).fetchone()[0]
    before = _stored(conn, RN)
    conn.execute("update releases set body = body || ? where id = ?",
                 ["\n\n### Fixes\n\n- Fix a quuxification crash\n- Fix the frobnicated wibble sprocket\n", release])
    conn.execute("update repositories set notes_parser = 0 where slug = ?", [RN])
    assert _reindex(migrated, RN).reparsed > 100
    stored = _stored(conn, RN)
    assert stored is not None and stored != before and stored[0] == before[0] + 2  # type: ignore[index]
    assert stored == _counted(conn, RN)[:2]


def _reindex(path: Path, slug: str) -> UpdateResult:
    """What `wif index` does for a repository with nothing new: one transaction through the writer."""
    db = open_cache(path, create=True)
    try:
        db.execute("begin immediate")
        result = apply_update(db, RepositoryUpdate(slug=slug, releases=[], etag=None))
        db.execute("commit")
        return result
    finally:
        db.close()


def _judged(path: Path) -> list[tuple[int, float, str]]:
    registry = load_registry()
    question = analyse_question("WatchdogTermination issues have empty tags on crash", "", registry)
    cache = SqliteReleaseCache.open(path)
    try:
        user = cache.find_release(COCOA, "8.40.0")
        assert user is not None
        entries = cache.entries([r.id for r in cache.stable_after(COCOA, user.version_key, 30)])
        return [(r.entry.id, r.relevance, r.reason)
                for r in OfflineJudge(cache, registry).filter_relevant_entries(entries, question)]
    finally:
        cache.db.close()


def test_a_cache_without_the_table_answers_the_same(migrated: Path, tmp_path: Path) -> None:
    """A cache an older WIF wrote (no m011: writer-only), or whose rows are gone: the read path counts."""
    bare = without_migration(migrated, tmp_path / "bare.db", "repository_terms", "m011_repository_terms")
    stored = _judged(migrated)
    assert stored and stored == _judged(bare)
    assert SqliteReleaseCache.open(bare).term_statistics(COCOA, TERMS) == \
        SqliteReleaseCache.open(migrated).term_statistics(COCOA, TERMS)


def test_a_damaged_table_fails_with_the_cache_read_error(migrated: Path) -> None:
    with sqlite3.connect(migrated) as raw:
        raw.execute("drop table repository_terms")
        raw.execute("create table repository_terms (repo_id integer primary key, documents integer)")
    cache = SqliteReleaseCache.open(migrated)
    with pytest.raises(CacheReadError, match="rebuild the cache with `wif index`"):
        cache.term_statistics(COCOA, TERMS)
    cache.db.close()
