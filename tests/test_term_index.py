"""Term counts stored at index time (schema m009, wif_action/tools/term_index.py): the same counts the read path
would compute, kept only for the text and the lexicon they were computed from, and used by the offline judge
only under its own lexicon's fingerprint."""

from __future__ import annotations

import copy
import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.registry import load_registry
from indexer.schema import open_cache
from tests.cache_helpers import without_migration
from wif_action import lexicon
from wif_action.engines.offline import OfflineJudge
from wif_action.engines.offline.ranking import RepositoryStats, bm25
from wif_action.lexicon import cleaning
from wif_action.lexicon.cleaning import clean
from wif_action.lexicon.terms import analyse, term_counts
from wif_action.question import analyse_question
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.term_index import encode, refresh

COCOA = "getsentry/sentry-cocoa"
NONSENSE = "quuxification"  # a word no note uses


@pytest.fixture(scope="session")
def refreshed_example(example_cache_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example cache migrated and refreshed once per session, as `wif index` would leave it (the committed
    copy may predate a lexicon edit), in one file: each test copies it (checking and refreshing all 20k entries
    per test cost seconds)."""
    path = tmp_path_factory.mktemp("refreshed") / "cache.db"
    shutil.copy(example_cache_path, path)
    open_cache(path, create=True).close()
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        refresh(connection)
        connection.execute("PRAGMA journal_mode=DELETE")  # the WAL folded in: a copy of the file is complete
    finally:
        connection.close()
    return path


@pytest.fixture
def conn(refreshed_example: Path, tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "cache.db"
    shutil.copy(refreshed_example, path)
    connection = sqlite3.connect(path, isolation_level=None)
    yield connection
    connection.close()


@pytest.fixture
def packaged_lexicon() -> Iterator[None]:
    yield
    lexicon.use(None)


def _stored(conn: sqlite3.Connection, entry_id: int) -> tuple[str, dict[str, int]] | None:
    row = conn.execute("select fingerprint, counts from entry_terms where entry_id = ?", [entry_id]).fetchone()
    return (row[0], json.loads(row[1])) if row else None


def test_refresh_stores_what_the_read_path_counts_and_only_what_is_missing(conn: sqlite3.Connection) -> None:
    conn.execute("delete from entry_terms")
    assert refresh(conn) == conn.execute("select count(*) from entries").fetchone()[0]
    assert refresh(conn) == 0
    rows = conn.execute("select e.id, e.text, t.fingerprint, t.counts from entries e join entry_terms t "
                        "on t.entry_id = e.id join repositories s on s.id = e.repo_id where s.slug = ?", [COCOA])
    checked = 0
    for _, text, fingerprint, counts in rows:
        assert fingerprint == lexicon.fingerprint()
        assert json.loads(counts) == dict(term_counts(text))
        checked += 1
    assert checked > 1000


TRICKY = ["", "times out after 1,5 s", "Fix crash when app times out (#12) in SentryHub.captureEvent",
          "foo_barBaz __init__ 404 v1.2.3 50ms", "a - b. c: d/e \"quoted\" `code` crash crash crashes",
          "HTTPTransport / addBreadcrumb, sentry_sdk.init()",
          "Zürich naïve café ünïcode words", "x" * 30_000]


@pytest.mark.slow
def test_the_index_time_counter_counts_exactly_what_term_counts_counts(conn: sqlite3.Connection) -> None:
    """`term_counts` skips building bigram `Term`s; it must give every key `analyse` gives, in the same order (the
    stored JSON is compared byte for byte), for every note of the example cache and a few texts made to differ."""
    texts = [row[0] for row in conn.execute("select text from entries")] + TRICKY
    chunks: dict = {}
    differing = [text for text in texts if encode(term_counts(text, chunks)) != json.dumps(
        Counter(term.key for term in analyse(text)), ensure_ascii=False, separators=(",", ":"))]
    assert len(texts) > 10_000
    assert differing == []


CLEANED = ["see https://example.com/a and http://x.y", "GH-12 fixed, owner/repo#34 and #5 by @alice-b",
           "50 % faster, 3rd try, 2x, 10ms, 1.2.3 and v4.5-beta.1", "\u0661\u0662\u0663 % of Arabic-Indic digits",
           "five minutes, a thirty-second wait, Ten HOURS, sub-second",
           "Init it AGAIN, re-initialise, 32-Bit float, a 0x0 image, games closing, UI Freezes, Subresource Integrity",
           "100% CPU, half-written, ECONNREFUSED, 0.10000000149011612, Jos\\u00e9, sensitive data, locks up",
           "a `&`, a `\\` and a `\\r` in ES modules",
           "tickets (JAVA-559), PYD-164: and UTF-8", "near misses: a#1 b/#2 @/x e-mail@host 1. 12x3",
           "plain words only"]


def test_clean_skips_a_pattern_only_where_it_cannot_match(conn: sqlite3.Connection) -> None:
    """`clean` applies each pattern only when the text holds a character its matches need: the text must come
    out as from every pattern applied in turn, on every cached note and texts made to hit each pattern."""
    def every_pattern(text: str) -> str:
        text = text[:cleaning.MAX_ANALYSED_CHARS]
        text = cleaning._REFERENCE.sub(cleaning._reference_or_annotation, cleaning._URL.sub(" ", text))
        text = lexicon.pattern("tracker_key").sub(cleaning._name_or_space, text)
        for name, reads, _ in lexicon.reading_patterns():
            text = lexicon.pattern(name).sub(cleaning._also_reads(reads), text)
        duration = lexicon.duration_pattern()
        for pattern in (cleaning._VERSION_LIKE, duration, cleaning._NOISE_NUMBER):
            replace = {cleaning._VERSION_LIKE: cleaning._version_or_space, duration: cleaning._seconds}
            text = pattern.sub(replace.get(pattern, " "), text)
        text = lexicon.spelled_duration_pattern().sub(cleaning._spelled_seconds, text)
        return lexicon.pattern("subsecond").sub(cleaning._subsecond, text)

    texts = [row[0] for row in conn.execute("select text from entries")] + TRICKY + CLEANED
    assert [text for text in texts if clean(text) != every_pattern(text)] == []
    assert all(clean(text) != text for text in CLEANED[:-2])


def test_a_changed_or_deleted_entry_loses_its_counts_whoever_writes_it(conn: sqlite3.Connection) -> None:
    first, second = [row[0] for row in conn.execute("select id from entries order by id limit 2")]
    assert _stored(conn, first) and _stored(conn, second)
    conn.execute("update entries set text = 'Fix quuxification of the sprocket' where id = ?", [first])
    conn.execute("delete from entry_prs where entry_id = ?", [second])
    conn.execute("delete from bundle_bumps where entry_id = ?", [second])
    conn.execute("delete from entries where id = ?", [second])
    assert _stored(conn, first) is None and _stored(conn, second) is None
    assert refresh(conn) == 1
    assert _stored(conn, first) == (lexicon.fingerprint(), dict(term_counts("Fix quuxification of the sprocket")))


def test_counts_of_another_lexicon_are_recomputed_not_used(conn: sqlite3.Connection, packaged_lexicon: None) -> None:
    before = lexicon.fingerprint()
    tables = copy.deepcopy(lexicon.data())
    tables["words"]["stopwords"] = [*tables["words"]["stopwords"], "sprocket"]
    lexicon.use(tables)
    assert lexicon.fingerprint() != before
    entry_id = conn.execute("select id from entries limit 1").fetchone()[0]
    assert SqliteReleaseCache(conn).stored_term_counts([entry_id], lexicon.fingerprint()) == {}
    assert refresh(conn) == conn.execute("select count(*) from entries").fetchone()[0]
    assert _stored(conn, entry_id)[0] == lexicon.fingerprint()  # type: ignore[index]


def test_with_the_question_keys_a_row_naming_none_of_them_is_empty_and_the_scores_are_the_same(
        conn: sqlite3.Connection) -> None:
    """`stored_term_counts(…, keys)` skips decoding rows that share no key with the question (most of a scan):
    they come back {} (BM25 scores them 0), the others whole; every entry's BM25 match is what it was."""
    cache = SqliteReleaseCache(conn)
    user = cache.find_release(COCOA, "8.40.0")
    assert user is not None
    entries = cache.entries([r.id for r in cache.stable_after(COCOA, user.version_key, 30)])
    ids, fingerprint = [entry.id for entry in entries], lexicon.fingerprint()
    full = cache.stored_term_counts(ids, fingerprint)
    question = analyse_question("WatchdogTermination issues have empty tags on crash", "", load_registry())
    keys = sorted(question.terms)
    some = cache.stored_term_counts(ids, fingerprint, keys)
    assert some.keys() == full.keys() == set(ids)
    assert {i: counts for i, counts in some.items() if counts} == \
        {i: counts for i, counts in full.items() if set(counts) & set(keys)}
    assert 0 < sum(1 for counts in some.values() if counts) < len(ids)
    assert all(counts == {} for counts in cache.stored_term_counts(ids, fingerprint, [NONSENSE]).values())
    stats = RepositoryStats(cache)
    query = question.terms
    stats.load(COCOA, list(query.values()))
    unfiltered = [bm25(counts, query, stats, COCOA) for counts in stats.entry_counts(entries)]
    filtered = [bm25(counts, query, stats, COCOA) for counts in stats.entry_counts(entries, keys)]
    assert filtered == unfiltered and any(match.score for match in filtered)


def test_the_judge_scores_the_stored_counts_under_its_own_fingerprint(conn: sqlite3.Connection,
                                                                      packaged_lexicon: None) -> None:
    """Counts written for one entry as if its text said NONSENSE make it the only relevant entry; under another
    lexicon (a different fingerprint) the judge counts the real text and finds nothing."""
    cache = SqliteReleaseCache(conn)
    user = cache.find_release(COCOA, "8.48.0")
    assert user is not None
    entries = cache.entries([r.id for r in cache.stable_after(COCOA, user.version_key, 5)])
    target = entries[len(entries) // 2]
    key = analyse(NONSENSE)[0].key
    conn.execute("update entry_terms set counts = ? where entry_id = ?", [json.dumps({key: 2}), target.id])
    registry = load_registry()

    def relevant() -> list[int]:
        question = analyse_question(NONSENSE, NONSENSE, registry)
        return [found.entry.id for found in OfflineJudge(cache, registry).filter_relevant_entries(entries, question)]

    assert relevant() == [target.id]
    tables = copy.deepcopy(lexicon.data())
    tables["words"]["stopwords"] = [*tables["words"]["stopwords"], "sprocket"]
    lexicon.use(tables)
    assert relevant() == []


def test_a_cache_without_stored_counts_answers_the_same(example_cache_copy: Path, tmp_path: Path) -> None:
    """A cache an older WIF wrote (no m009) or `python -m indexer` filled: the judge counts every entry itself."""
    bare = without_migration(example_cache_copy, tmp_path / "bare.db", "entry_terms", "m009_entry_terms")
    registry = load_registry()
    question = analyse_question("WatchdogTermination issues have empty tags", "", registry)
    found = []
    for path in (example_cache_copy, bare):
        cache = SqliteReleaseCache.open(path)
        user = cache.find_release(COCOA, "8.40.0")
        assert user is not None
        entries = cache.entries([r.id for r in cache.stable_after(COCOA, user.version_key, 30)])
        found.append([(r.entry.id, r.relevance, r.reason)
                      for r in OfflineJudge(cache, registry).filter_relevant_entries(entries, question)])
        cache.db.close()
    assert found[0] and found[0] == found[1]


def test_a_tuned_weight_keeps_the_stored_counts_valid(packaged_lexicon: None) -> None:
    """Weights weigh terms and never decide which terms a text has: tuning one must not orphan every stored
    count (nor the committed example cache's); a word list must."""
    before = lexicon.fingerprint()
    tables = copy.deepcopy(lexicon.data())
    tables["weight"] = {name: float(value) + 1.0 for name, value in tables["weight"].items()}
    tables["section_weight"] = {name: float(value) + 1.0 for name, value in tables["section_weight"].items()}
    lexicon.use(tables)
    assert lexicon.fingerprint() == before
    tables["words"]["stopwords"] = [*tables["words"]["stopwords"], "sprocket"]
    lexicon.use(tables)
    assert lexicon.fingerprint() != before
