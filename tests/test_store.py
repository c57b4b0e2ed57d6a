"""Cache writes: idempotent upserts, re-parsed edits, first-stable-release map, all-or-nothing."""

from __future__ import annotations

import pytest

from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, mark_checked, write_with_retry
from wif_action.tools.cache import SqliteReleaseCache

REPO = "acme/sdk"


def release(tag: str, body: str, *, id: int, prerelease: bool = False, draft: bool = False,
            published_at: str = "2026-01-01T00:00:00Z") -> ReleaseRecord:
    return ReleaseRecord(id=id, tag=tag, name=tag, body=body, draft=draft, prerelease=prerelease,
                         published_at=published_at, url=f"https://github.com/{REPO}/releases/tag/{tag}")


RELEASES = [
    release("2.0.0", "### Fixes\n\n- Fix crash on start (#30)\n- Fix memory leak (#20)\n", id=4,
            published_at="2026-03-01T00:00:00Z"),
    release("2.0.0-beta.1", "### Fixes\n\n- Fix memory leak (#20)\n", id=3, prerelease=True,
            published_at="2026-02-01T00:00:00Z"),
    release("1.1.0", "### Features\n\n- Add widgets (#10)\n", id=2, published_at="2026-01-15T00:00:00Z"),
    release("1.0.0", "Initial release", id=1),
    release("nightly", "- Nightly build (#40)\n", id=5, prerelease=True),
    release("3.0.0", "- Draft notes (#50)\n", id=6, draft=True, published_at=None),
]


@pytest.fixture
def db(tmp_path):
    database = open_cache(tmp_path / "cache.db", create=True)
    yield database
    database.close()


def write(db, releases, etag="etag-1", pulls=()):
    update = RepositoryUpdate(slug=REPO, releases=list(releases), etag=etag, pulls=list(pulls))
    return write_with_retry(db, lambda: apply_update(db, update), on_busy=print)


def counts(db) -> dict[str, int]:
    return {table: db.execute(f"select count(*) from {table}").fetchone()[0]
            for table in ("repositories", "releases", "entries", "entry_prs", "pr_first_release", "pulls")}


def test_apply_twice_is_idempotent(db) -> None:
    first = write(db, RELEASES)
    assert (first.new, first.updated) == (len(RELEASES), 0)
    assert first.skipped_tags == ["nightly"]
    before = counts(db)
    second = write(db, RELEASES)
    assert (second.new, second.updated) == (0, 0)
    assert counts(db) == before
    assert before["releases"] == len(RELEASES)
    assert db.execute("select count(*) from entries_fts where entries_fts match 'leak'").fetchone()[0] == 2


def test_stable_means_parsed_final_published(db) -> None:
    result = write(db, RELEASES)
    stable = {row[0] for row in db.execute("select tag from releases where stable = 1")}
    assert stable == {"2.0.0", "1.1.0", "1.0.0"}
    assert result.stable == 3
    row = db.execute("select releases_etag, releases, stable, skipped_tags from repositories").fetchone()
    assert row == ("etag-1", len(RELEASES), 3, '["nightly"]')


def test_edited_body_replaces_its_entries(db) -> None:
    write(db, RELEASES)
    edited = release("1.1.0", "### Fixes\n\n- Fix the widget renderer (#11)\n", id=2)
    result = write(db, [edited], etag="etag-2")
    assert (result.new, result.updated) == (0, 1)
    texts = [row[0] for row in db.execute(
        "select e.text from entries e join releases r on r.id = e.release_id where r.tag = '1.1.0'")]
    assert len(texts) == 1 and "widget renderer" in texts[0]
    prs = {row[0] for row in db.execute(
        "select pr from entry_prs ep join releases r on r.id = ep.release_id where r.tag = '1.1.0'")}
    assert prs == {11}
    assert db.execute("select count(*) from entries_fts where entries_fts match 'add'").fetchone()[0] == 0
    assert db.execute("select releases_etag from repositories").fetchone()[0] == "etag-2"


def _fts_consistent(db) -> bool:
    """FTS5's own check: every entry's text is indexed under its rowid, and nothing else is."""
    db.execute("insert into entries_fts (entries_fts) values ('integrity-check')")  # raises when inconsistent
    return db.execute("select count(*) from entries_fts").fetchone()[0] == counts(db)["entries"]


def test_full_text_rows_follow_new_edited_and_reparsed_entries(db) -> None:
    """The store writes new entries' full-text rows itself (m008 dropped the per-row insert trigger)."""
    assert not db.execute("select 1 from sqlite_master where type = 'trigger' and name = 'entries_ai'").fetchone()
    write(db, RELEASES)
    assert _fts_consistent(db)
    write(db, [release("1.1.0", "### Fixes\n\n- Fix the widget renderer (#11)\n- Fix a leak (#12)\n", id=2)],
          etag="etag-2")
    assert _fts_consistent(db)
    assert db.execute("select count(*) from entries_fts where entries_fts match 'leak'").fetchone()[0] == 3
    db.execute("update repositories set notes_parser = 0")
    from indexer.store import reparse_if_stale
    write_with_retry(db, lambda: reparse_if_stale(db, REPO), on_busy=print)
    assert _fts_consistent(db)
    assert db.execute("select count(*) from entries_fts where entries_fts match 'renderer'").fetchone()[0] == 1


def test_entry_ids_of_one_write_are_new_and_in_order(db) -> None:
    """Ids are given by the store (one statement per repository): after every id already used, in the order of
    the releases and their positions, so an edit never reuses a live entry's id."""
    write(db, RELEASES)
    before = db.execute("select max(id) from entries").fetchone()[0]
    write(db, [release("1.1.0", "- One (#1)\n- Two (#2)\n", id=2), release("2.1.0", "- Three (#3)\n", id=7)],
          etag="etag-2")
    rows = db.execute("select id, text from entries where id > ? order by id", [before]).fetchall()
    assert [text for _, text in rows] == ["One (#1)", "Two (#2)", "Three (#3)"]
    assert db.execute("select count(*), count(distinct id) from entries").fetchone() == (counts(db)["entries"],) * 2


def test_pr_first_release_is_the_first_stable_one(db) -> None:
    write(db, RELEASES)
    cache = SqliteReleaseCache(db)
    assert cache.first_stable_release_with_pr(REPO, 20).tag == "2.0.0"  # the beta listed it first
    assert cache.first_stable_release_with_pr(REPO, 10).tag == "1.1.0"
    assert cache.first_stable_release_with_pr(REPO, 50) is None  # only in a draft
    assert cache.first_stable_release_with_pr(REPO, 40) is None  # only in an unparseable tag


def test_pulls_are_upserted(db) -> None:
    pull = {"number": 20, "title": "Fix leak", "body": "b", "state": "closed", "merged": 1,
            "merged_at": "2026-01-20T00:00:00Z", "merge_commit_sha": "abc", "url": "u"}
    write(db, RELEASES, pulls=[pull])
    write(db, [], pulls=[{**pull, "title": "Fix memory leak"}])
    assert counts(db)["pulls"] == 1
    assert SqliteReleaseCache(db).cached_pull(REPO, 20).title == "Fix memory leak"


def test_failure_inside_the_transaction_rolls_back_everything(db) -> None:
    write(db, RELEASES[:2])
    before = counts(db)

    def work():
        apply_update(db, RepositoryUpdate(slug=REPO, releases=RELEASES, etag="etag-9"))
        mark_checked(db, REPO)
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        write_with_retry(db, work, on_busy=print)
    assert counts(db) == before
    assert db.execute("select releases_etag from repositories").fetchone()[0] == "etag-1"
    assert not db.conn.in_transaction


def test_second_writer_is_told_the_cache_is_busy_and_retries(tmp_path) -> None:
    path = tmp_path / "cache.db"
    holder, writer = open_cache(path, create=True), open_cache(path, create=True)
    writer.conn.execute("PRAGMA busy_timeout = 0")  # fail fast instead of SQLite's own 30 s wait
    messages: list[str] = []

    def on_busy(message: str) -> None:  # the other indexer finishes while we wait
        messages.append(message)
        if holder.conn.in_transaction:
            holder.execute("COMMIT")

    holder.execute("BEGIN IMMEDIATE")
    update = RepositoryUpdate(slug=REPO, releases=RELEASES[:1], etag="e")
    result = write_with_retry(writer, lambda: apply_update(writer, update), on_busy=on_busy)
    assert result.new == 1
    assert len(messages) == 1 and "busy" in messages[0]
    holder.close()
    writer.close()


def test_an_error_after_sqlite_rolled_back_by_itself_keeps_its_own_message(tmp_path):
    """On a full disk SQLite may roll the transaction back itself; the original error must surface,
    not "cannot rollback - no transaction is active" from a second ROLLBACK."""
    import sqlite3

    db = open_cache(tmp_path / "cache.db", create=True)

    def disk_full() -> None:
        db.execute("ROLLBACK")  # what SQLite does on its own after SQLITE_FULL
        raise sqlite3.OperationalError("database or disk is full")

    with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
        write_with_retry(db, disk_full, on_busy=lambda _message: None)
    assert not db.conn.in_transaction


def _stale(db, written_by: int) -> None:
    """What an older parser left: other entries, and its version on the repository row."""
    db.execute("update entries set section = 'other', text = 'stale'")
    db.execute("update repositories set notes_parser = ?", [written_by])


def test_entries_an_older_parser_wrote_are_reparsed_from_the_stored_bodies(db) -> None:
    from indexer.release_notes import PARSER_VERSION
    from indexer.store import reparse_if_stale
    write(db, RELEASES)
    fresh = db.execute("select release_id, section, text, prs from entries order by release_id, position").fetchall()
    before = counts(db)
    _stale(db, PARSER_VERSION - 1)
    assert write_with_retry(db, lambda: reparse_if_stale(db, REPO), on_busy=print) == len(RELEASES)
    assert db.execute("select release_id, section, text, prs from entries "
                      "order by release_id, position").fetchall() == fresh
    assert counts(db) == before  # entry_prs and pr_first_release rebuilt, nothing doubled
    assert db.execute("select count(*) from entries_fts where entries_fts match 'leak'").fetchone()[0] == 2
    assert db.execute("select notes_parser from repositories").fetchone()[0] == PARSER_VERSION


def test_entries_the_current_parser_wrote_are_left_alone(db) -> None:
    from indexer.release_notes import PARSER_VERSION
    from indexer.store import reparse_if_stale
    write(db, RELEASES)
    _stale(db, PARSER_VERSION)
    assert write_with_retry(db, lambda: reparse_if_stale(db, REPO), on_busy=print) == 0
    assert {row[0] for row in db.execute("select text from entries")} == {"stale"}


def test_a_write_brings_an_older_parsers_entries_up_to_date(db) -> None:
    from indexer.release_notes import PARSER_VERSION
    write(db, RELEASES)
    _stale(db, 0)  # a cache from before the parser version was recorded
    result = write(db, RELEASES)
    assert (result.reparsed, result.new, result.updated) == (len(RELEASES), 0, 0)
    assert "stale" not in {row[0] for row in db.execute("select text from entries")}
    assert db.execute("select notes_parser from repositories").fetchone()[0] == PARSER_VERSION


def _without_migration(path, name: str, drop: str) -> None:
    """The file as an older WIF left it: without migration `name` (and what it added, `drop`)."""
    import sqlite3
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("delete from _sqlite_migrations where name = ?", [name])
        conn.execute(drop)
    conn.close()


def test_a_reader_opens_a_cache_missing_only_writer_only_migrations(tmp_path) -> None:
    """Upgrading WIF must not stop answers until the next index run: `wif ask` reads a cache without the
    parser-version column; the indexer adds it. A missing migration that readers need is still refused."""
    from indexer.schema import CacheError
    path = tmp_path / "cache.db"
    database = open_cache(path, create=True)
    write(database, RELEASES)
    database.close()
    _without_migration(path, "m003_notes_parser", "alter table repositories drop column notes_parser")
    assert SqliteReleaseCache.open(path).latest_stable(REPO).tag == "2.0.0"
    database = open_cache(path, create=True)
    assert "notes_parser" in {column.name for column in database.table("repositories").columns}
    database.close()
    _without_migration(path, "m002_bundle_bumps", "drop table bundle_bumps")
    with pytest.raises(CacheError, match="older schema"):
        SqliteReleaseCache.open(path)
