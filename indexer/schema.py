"""The one module that owns the SQLite schema of the release cache.

Every table, index and migration lives here; readers and writers elsewhere
only run queries. `open_cache` refuses files that are not a WIF cache (or have
an older/newer schema) with a message that says how to rebuild.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from sqlite_utils import Database, Migrations

from indexer.store import backfill_bundle_bumps

MIGRATIONS = Migrations("wif-cache")
BUSY_TIMEOUT_MS = 30_000
BUSY_RETRY_SECONDS = 0.2
OPEN_BUSY_SECONDS = 30.0
_KNOWN: dict[str, list[str]] = {}
# Migrations a reader (`wif ask`) can do without: it opens a file that lacks them, so upgrading WIF never stops
# answers until the next index run. m003 and m006 add what only the indexer reads (or readers check for); m004's
# Unreleased notes are read when present (tools/cache.py says "not cached" otherwise).
WRITER_ONLY = frozenset({"m003_notes_parser", "m004_unreleased_notes", "m006_entry_commits"})


def migration(migrations: Migrations):
    """Register a migration and remember its name, to tell older from newer files."""

    def register(func):
        _KNOWN.setdefault(migrations.name, []).append(func.__name__)
        return migrations()(func)

    return register


class CacheError(Exception):
    """The cache file cannot be used; the message says what to do."""


@migration(MIGRATIONS)
def m001_release_cache(db: Database) -> None:
    db.table("repositories").create(
        {
            "id": int,
            "slug": str,
            "releases_etag": str,
            "last_indexed_at": str,
            "last_checked_at": str,
            "releases": int,
            "stable": int,
            "skipped_tags": str,
            "last_error": str,
        },
        pk="id",
        not_null={"slug"},
        defaults={"releases": 0, "stable": 0, "skipped_tags": "[]"},
    )
    db.table("repositories").create_index(["slug"], unique=True)
    db.table("releases").create(
        {
            "id": int,
            "repo_id": int,
            "tag": str,
            "name": str,
            "version": str,
            "version_key": str,
            "published_at": str,
            "prerelease": int,
            "draft": int,
            "stable": int,
            "url": str,
            "body": str,
            "body_source": str,
            "fetched_at": str,
        },
        pk="id",
        not_null={"repo_id", "tag"},
        defaults={"prerelease": 0, "draft": 0, "stable": 0, "body": "", "body_source": "release"},
        foreign_keys=[("repo_id", "repositories", "id")],
    )
    db.table("releases").create_index(["repo_id", "tag"], unique=True)
    db.table("releases").create_index(["repo_id", "stable", "version_key"])
    db.table("entries").create(
        {
            "id": int,
            "release_id": int,
            "repo_id": int,
            "position": int,
            "section": str,
            "heading": str,
            "text": str,
            "prs": str,
            "issues": str,
        },
        pk="id",
        not_null={"release_id", "repo_id", "text"},
        defaults={"prs": "[]", "issues": "[]", "heading": ""},
        foreign_keys=[("release_id", "releases", "id"), ("repo_id", "repositories", "id")],
    )
    db.table("entries").create_index(["release_id", "position"])
    db.table("entries").enable_fts(["text"], create_triggers=True, tokenize="porter")
    db.table("entry_prs").create(
        {"entry_id": int, "release_id": int, "repo_id": int, "pr": int},
        pk=("entry_id", "pr"),
        foreign_keys=[("entry_id", "entries", "id"), ("release_id", "releases", "id")],
    )
    db.table("entry_prs").create_index(["repo_id", "pr"])
    db.table("entry_prs").create_index(["release_id"])
    db.table("pr_first_release").create(
        {"repo_id": int, "pr": int, "release_id": int, "version_key": str},
        pk=("repo_id", "pr"),
        foreign_keys=[("release_id", "releases", "id")],
    )
    db.table("pulls").create(
        {
            "repo_id": int,
            "number": int,
            "title": str,
            "body": str,
            "state": str,
            "merged": int,
            "merged_at": str,
            "merge_commit_sha": str,
            "url": str,
            "fetched_at": str,
        },
        pk=("repo_id", "number"),
        foreign_keys=[("repo_id", "repositories", "id")],
    )


@migration(MIGRATIONS)
def m002_bundle_bumps(db: Database) -> None:
    """Bundled-SDK bumps of hybrid SDKs' notes; derived from `entries`, rebuilt with them (indexer.store)."""
    db.table("bundle_bumps").create(
        {
            "id": int,
            "entry_id": int,
            "release_id": int,
            "repo_id": int,
            "name": str,  # the bundled SDK as the line names it, in one spelling ("cocoa")
            "bundled_repo": str,  # from the registry's `bundles`; null when the name is not declared
            "from_text": str,
            "to_text": str,
            "from_key": str,  # version_key of from/to; null when the text is not a version (never followed)
            "to_key": str,
        },
        pk="id",
        not_null={"entry_id", "release_id", "repo_id", "name", "to_text"},
        foreign_keys=[("entry_id", "entries", "id"), ("release_id", "releases", "id"),
                      ("repo_id", "repositories", "id")],
    )
    db.table("bundle_bumps").create_index(["release_id"])
    db.table("bundle_bumps").create_index(["repo_id", "bundled_repo", "to_key"])
    backfill_bundle_bumps(db)


@migration(MIGRATIONS)
def m003_notes_parser(db: Database) -> None:
    """Which parser version wrote each repository's entries; 0 (older caches) makes the next index run
    re-parse the stored bodies (indexer.store.reparse_if_stale)."""
    db.table("repositories").add_column("notes_parser", int, not_null_default=0)


@migration(MIGRATIONS)
def m004_unreleased_notes(db: Database) -> None:
    """The Unreleased section of each repository's CHANGELOG.md on the default branch (indexer/unreleased.py):
    one row per repository (`status` ok / no_changelog / no_section / not_text, when it was read, the ETag of
    the file), its parsed entries apart from published releases' (`entries`), so no release query sees them."""
    db.table("unreleased_notes").create(
        {"repo_id": int, "status": str, "heading": str, "body": str, "truncated": int, "etag": str, "url": str,
         "read_at": str, "parser": int},
        pk="repo_id", not_null={"status", "read_at"}, defaults={"heading": "", "body": "", "truncated": 0},
        foreign_keys=[("repo_id", "repositories", "id")],
    )
    db.table("unreleased_entries").create(
        {"id": int, "repo_id": int, "position": int, "section": str, "heading": str, "text": str, "prs": str,
         "issues": str},
        pk="id", not_null={"repo_id", "text"}, defaults={"prs": "[]", "issues": "[]", "heading": ""},
        foreign_keys=[("repo_id", "repositories", "id")],
    )
    db.table("unreleased_entries").create_index(["repo_id", "position"])


@migration(MIGRATIONS)
def m006_entry_commits(db: Database) -> None:
    """The commits each release-note line cites (JSON list of hashes), for lines that cite no PR. Writer-only:
    a reader of an older file sees no commits (`tools/cache.py` checks the column); the parser-version bump
    (3) makes the next index run re-parse the stored bodies and fill it."""
    db.table("entries").add_column("commits", str, not_null_default="[]")


def _connect(path: Path) -> Database:
    # check_same_thread=False: a network call bounded by indexer.wall_clock runs in a worker thread and may
    # read PR details from the cache; Python's sqlite3 is built serialized (threadsafety 3), so sharing is safe.
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return Database(conn)


def rebuild_hint(path: Path) -> str:
    return (f"Run `wif index --db {path} --all` to build or update it; if `wif index` refuses the file, "
            "delete it (or point --db at a new path) and run that again.")


def open_cache(path: str | Path, *, create: bool = False) -> Database:
    """Open (and with create=True, create or migrate) the release cache at `path`.

    Readers pass create=False: a missing, empty, foreign, damaged or wrong-schema file
    raises CacheError instead of answering from a half-valid database.
    """
    return open_migrated(Path(path), MIGRATIONS, "WIF release cache", rebuild_hint(Path(path)), create=create)


def open_migrated(
    path: Path, migrations: Migrations, label: str, hint: str, *, create: bool = False
) -> Database:
    """Open a SQLite file owned by one migration set, checking it is that kind of file and undamaged.

    A file that is refused is left untouched (the checks only read). "database is locked" at open is
    retried for OPEN_BUSY_SECONDS: SQLite skips the busy handler in a few WAL cases (another process
    recovering the WAL index or closing the last connection), so two indexers starting on one file
    could otherwise refuse each other.
    """
    give_up = time.monotonic() + OPEN_BUSY_SECONDS
    while True:
        try:
            return _open_checked(path, migrations, label, hint, create=create)
        except CacheError as error:
            if not _is_busy(error.__cause__) or time.monotonic() >= give_up:
                raise
        time.sleep(BUSY_RETRY_SECONDS)


def _is_busy(error: BaseException | None) -> bool:
    return isinstance(error, sqlite3.OperationalError) and getattr(error, "sqlite_errorcode", 0) & 0xFF == 5


def _open_checked(path: Path, migrations: Migrations, label: str, hint: str, *, create: bool) -> Database:
    if not create and (not path.exists() or path.stat().st_size == 0):
        raise CacheError(f"No {label} at {path} (file missing or empty). {hint}")
    db: Database | None = None
    try:
        db = _connect(path)
        _check_schema(db, path, migrations, label, hint, create=create)
        _check_pages(db, path, label, hint)
        if create:
            _migrate(db, path, migrations, label, hint)
    except BaseException as error:
        if db is not None:
            db.close()
        if isinstance(error, sqlite3.DatabaseError):
            raise CacheError(f"{path} is not a readable {label} ({error}). {hint}") from error
        raise
    return db


def _check_pages(db: Database, path: Path, label: str, hint: str) -> None:
    """`PRAGMA quick_check`: a truncated or overwritten file is refused at open, not discovered
    halfway through an answer. It reads every page once: ~25 ms for the 20 MB example cache."""
    problems = [row[0] for row in db.execute("PRAGMA quick_check(3)").fetchall()]
    if problems != ["ok"]:
        details = " ".join("; ".join(problems).split())[:300]
        raise CacheError(f"{path} is a damaged {label} ({details}). {hint}")


def _migrate(db: Database, path: Path, migrations: Migrations, label: str, hint: str) -> None:
    """Create or migrate the schema in one IMMEDIATE transaction.

    Why: two indexers starting together on a new file would otherwise both create the
    tables (the second fails), and a kill between the migrations table and the first
    migration left a file that every later run refused.
    """
    db.enable_wal()
    db.execute("BEGIN IMMEDIATE")
    try:
        _check_schema(db, path, migrations, label, hint, create=True)  # another process may have migrated
        migrations.apply(db)
    except BaseException:
        if db.conn.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _check_schema(
    db: Database, path: Path, migrations: Migrations, label: str, hint: str, *, create: bool
) -> None:
    tables = set(db.table_names())
    if tables == {migrations.migrations_table} and not _count(db, migrations.migrations_table):
        tables = set()  # an older WIF killed between creating this table and its first migration
    if not tables:
        if create:
            return
        raise CacheError(f"{path} is an empty SQLite database, not a {label}. {hint}")
    applied = {m.name for m in migrations.applied(db)}
    if not applied:
        raise CacheError(f"{path} is a SQLite file but not a {label}. {hint}")
    known = set(_KNOWN.get(migrations.name, []))
    if applied - known:
        newer = ", ".join(sorted(applied - known))
        raise CacheError(f"{path} was written by a newer WIF (unknown migrations: {newer}). "
                         f"Upgrade WIF, or rebuild: {hint}")
    if not create and known - applied - WRITER_ONLY:
        raise CacheError(f"{path} has an older schema. {hint}")


def _count(db: Database, table: str) -> int:
    return db.execute(f"select count(*) from [{table}]").fetchone()[0]
