"""The one module that owns the SQLite schema of the release cache.

Every table, index and migration lives here; readers and writers elsewhere
only run queries. `open_cache` (the indexer) creates or migrates a file after checking every page;
`read_cache` (readers: `wif ask`) checks only what is cheap — the header, the schema, that the cache was
ever filled — and opens a plain `sqlite3` connection, so answering never imports sqlite-utils.
A refused file is never changed; indexer.cache_file says which kind of refusal it is.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer import repository_terms
from indexer.cache_file import (
    CacheDamaged,
    CacheError,
    CacheUnavailable,
    NeverFilled,
    NotACache,
    classify,
    header_problem,
    is_busy,
    reason,
)

if TYPE_CHECKING:
    from sqlite_utils import Database

__all__ = ["BUSY_TIMEOUT_MS", "MIGRATIONS", "CacheDamaged", "CacheError", "CacheUnavailable", "MigrationSet",
           "NeverFilled", "NotACache", "migration", "open_cache", "open_migrated", "read_cache", "refusal"]

BUSY_TIMEOUT_MS = 30_000
BUSY_RETRY_SECONDS = 0.2
OPEN_BUSY_SECONDS = 30.0
MIGRATIONS_TABLE = "_sqlite_migrations"  # sqlite-utils' table of applied migrations
CACHE_LABEL = "WIF release cache"


class MigrationSet:
    """A named, ordered set of migrations (sqlite-utils' `Migrations` is built only to apply them).

    Why not `Migrations` itself: readers only compare names with the `_sqlite_migrations` table, and
    importing sqlite-utils (with click and pluggy) costs every answer ~40 ms it does not need.
    """

    migrations_table = MIGRATIONS_TABLE

    def __init__(self, name: str, reader_optional: frozenset[str] = frozenset()):
        self.name = name
        self.steps: list[Callable[[Database], None]] = []
        self.reader_optional = reader_optional  # migrations a reader can do without (it copes with their absence)

    def names(self) -> list[str]:
        return [step.__name__ for step in self.steps]

    def applied(self, conn: sqlite3.Connection | Database) -> list[str]:
        """Names of the migrations of this set the file has applied, in order (read-only)."""
        raw = conn if isinstance(conn, sqlite3.Connection) else conn.conn
        if not raw.execute("select 1 from sqlite_master where type = 'table' and name = ?",
                           [MIGRATIONS_TABLE]).fetchone():
            return []
        return [row[0] for row in raw.execute(
            f"select name from {MIGRATIONS_TABLE} where migration_set = ? order by rowid", [self.name])]

    def pending(self, conn: sqlite3.Connection | Database) -> list[str]:
        applied = set(self.applied(conn))
        return [name for name in self.names() if name not in applied]

    def apply(self, db: Database) -> None:
        from sqlite_utils import Migrations

        real = Migrations(self.name)
        for step in self.steps:
            real()(step)
        real.apply(db)


MIGRATIONS = MigrationSet("wif-cache")
# Migrations a reader (`wif ask`) can do without: it opens a file that lacks them, so upgrading WIF never stops
# answers until the next index run. m003, m006 and m010 add what only the indexer reads (or readers check for);
# m004's Unreleased notes are read when present (tools/cache.py says "not cached" otherwise); m005's indexes only speed
# reads up; m008 changes only how the indexer writes full-text rows; m009's term counts are derived data a reader
# computes itself when they are missing or stale.
WRITER_ONLY = frozenset({"m003_notes_parser", "m004_unreleased_notes", "m005_read_indexes", "m006_entry_commits",
                         "m008_entries_fts_by_store", "m009_entry_terms", "m010_unreleased_commits",
                         "m011_repository_terms", "m012_repository_package"})


def migration(migrations: MigrationSet) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
    """Register a migration in `migrations` (its name is the function's)."""

    def register(func: Callable[[Database], None]) -> Callable[[Database], None]:
        if func.__name__ in migrations.names():
            raise ValueError(f"migration {func.__name__} is already registered in {migrations.name}")
        migrations.steps.append(func)
        return func

    return register


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
    from indexer.store import backfill_bundle_bumps

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
def m005_read_indexes(db: Database) -> None:
    """Indexes for the read path's remaining full scan: a repository's entries (term statistics counted every
    repository's). Writer-only: a reader of a file without them answers the same, only slower
    (tests/test_query_plans.py checks every read-path query's plan)."""
    db.execute("create index if not exists idx_entries_repo_id on entries (repo_id)")


@migration(MIGRATIONS)
def m006_entry_commits(db: Database) -> None:
    """The commits each release-note line cites (JSON list of hashes), for lines that cite no PR. Writer-only:
    a reader of an older file sees no commits (`tools/cache.py` checks the column); the parser-version bump
    (3) makes the next index run re-parse the stored bodies and fill it."""
    db.table("entries").add_column("commits", str, not_null_default="[]")


@migration(MIGRATIONS)
def m008_entries_fts_by_store(db: Database) -> None:
    """New entries' full-text rows are written by `indexer.store.insert_entries`, one statement per repository,
    not by a trigger per row (a sixth of the cost). Writer-only: readers only query `entries_fts`; an older WIF
    refuses to write to a file with this migration (unknown migration), so no writer is left without the
    trigger. The delete and update triggers stay."""
    db.execute("drop trigger if exists entries_ai")


@migration(MIGRATIONS)
def m009_entry_terms(db: Database) -> None:
    """Each entry's BM25 term counts (JSON), derived data the read path would otherwise compute on every question.

    `fingerprint` names what computed them (the judge's lexicon and analysing code,
    `wif_action.lexicon.fingerprint()`): a reader uses a row only under its own fingerprint and computes the
    rest itself, so an upgraded WIF answers the same before the next index run. The indexer keeps no stale row
    for a changed entry: deleting an entry or changing its text deletes its row (triggers), whoever writes
    entries; `wif index` then fills what is missing or stale (`wif_action/tools/term_index.py`). Writer-only."""
    db.execute("create table if not exists entry_terms (entry_id integer primary key, fingerprint text not null, "
               "counts text not null)")
    db.execute("create trigger if not exists entry_terms_entry_deleted after delete on entries "
               "begin delete from entry_terms where entry_id = old.id; end")
    db.execute("create trigger if not exists entry_terms_text_changed after update of text on entries "
               "begin delete from entry_terms where entry_id = old.id; end")


@migration(MIGRATIONS)
def m010_unreleased_commits(db: Database) -> None:
    """The commits each Unreleased line cites (JSON list of hashes), as `entries.commits` (m006) for published
    releases. Writer-only: a reader of an older file sees no commits (`tools/cache.py` checks the column). The
    stored ETags are forgotten, so the next index run reads each CHANGELOG.md again (one 200 instead of a 304)
    and fills the column."""
    db.table("unreleased_entries").add_column("commits", str, not_null_default="[]")
    db.execute("update unreleased_notes set etag = null")


@migration(MIGRATIONS)
def m011_repository_terms(db: Database) -> None:
    """Each repository's BM25 document statistics (how many notes, their mean length), derived data the read
    path would otherwise count over all of the repository's notes at every answer (`tools/cache.py`
    `term_statistics`). They depend on the notes alone (not on the judge's lexicon), so the indexer keeps them:
    filled here for the notes already cached, rebuilt by `indexer.store.apply_update` for each repository it
    writes (`indexer/repository_terms.py`); a deleted or changed note deletes its repository's row (triggers),
    whoever writes it, and `insert_entries` does so for new notes. A reader without a row (or without the
    table: writer-only) counts as before, so an answer is the same either way."""
    db.execute("create table if not exists repository_terms (repo_id integer primary key, "
               "documents integer not null, mean_length real not null)")
    db.execute("create trigger if not exists repository_terms_entry_deleted after delete on entries "
               "begin delete from repository_terms where repo_id = old.repo_id; end")
    db.execute("create trigger if not exists repository_terms_entry_changed after update of text, repo_id "
               "on entries begin delete from repository_terms where repo_id in (old.repo_id, new.repo_id); end")
    repository_terms.rebuild(db)


@migration(MIGRATIONS)
def m012_repository_package(db: Database) -> None:
    """Which package of a monorepo's releases the cache keeps for the repository (indexer/packages.py): its key,
    "" for the repository's own; null until an index run chose one. An older cache (null) holds every package's
    releases as before; its next index run chooses from the cached tags and deletes the other packages' releases
    (no request). Writer-only: readers read only the releases kept."""
    db.table("repositories").add_column("package", str)


def _connect(target: str, *, uri: bool = False) -> sqlite3.Connection:
    # check_same_thread=False: a network call bounded by indexer.wall_clock runs in a worker thread and may
    # read PR details from the cache; Python's sqlite3 is built serialized (threadsafety 3), so sharing is safe.
    conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False,
                           uri=uri)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def read_only(path: str | Path) -> Database:
    """A read-only connection to the cache at `path`, for the one thread that makes it (it cannot write, nor be
    shared). Why: `wif index` reads the next repository in a thread while its main thread writes the last one
    (indexer/indexing.py); with a connection of its own (WAL: it reads the last commit while the writer writes
    on), closing the writer's never pulls a connection from under a read."""
    from sqlite_utils import Database

    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                           timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return Database(conn)


def rebuild_hint(path: Path) -> str:
    return f"Run `wif index --db {path} --all` to build or update it (it needs GitHub)."


def open_cache(path: str | Path, *, create: bool = False) -> Database:
    """Open (and with create=True, create or migrate) the release cache at `path` for the indexer.

    A missing, empty (create=False), foreign, damaged or wrong-schema file raises CacheError and is left
    untouched; every page is checked (`PRAGMA quick_check`) before anything is written.
    """
    return open_migrated(Path(path), MIGRATIONS, CACHE_LABEL, rebuild_hint(Path(path)), create=create)


def read_cache(path: str | Path) -> sqlite3.Connection:
    """A connection for answering questions from the release cache at `path`: cheap checks only.

    Refused: a missing or empty file, anything but a whole SQLite file (its header), another program's
    database, a newer or older schema, a cache never filled. When the file cannot be opened the normal way
    for a reason of the moment (no space for SQLite's `-shm` file, a read-only directory) and no write-ahead
    log is pending, it is read as an immutable file instead, so a full disk still gets its answer.
    """
    path = Path(path)
    conn = _retry_busy(lambda: _read_checked(path))
    return conn


def _read_checked(path: Path) -> sqlite3.Connection:
    label, hint = CACHE_LABEL, rebuild_hint(path)
    _check_file(path, label, hint, create=False)
    try:
        return _checked_reader(_connect(str(path)), path, label, hint)
    except CacheUnavailable as error:
        if is_busy(error.__cause__) or not _may_read_immutable(path):
            raise
        immutable = path.resolve().as_uri() + "?mode=ro&immutable=1"
        return _checked_reader(_connect(immutable, uri=True), path, label, hint)


def _checked_reader(conn: sqlite3.Connection, path: Path, label: str, hint: str) -> sqlite3.Connection:
    try:
        _check_schema(conn, path, MIGRATIONS, label, hint, create=False)
        if not conn.execute("select 1 from repositories where releases > 0 limit 1").fetchone():
            raise NeverFilled(f"{path} is a {label} that has never been filled: no repository has been indexed "
                             f"into it yet (a first `wif index` that could not reach GitHub leaves it so). {hint}")
    except BaseException as error:
        conn.close()
        if isinstance(error, sqlite3.DatabaseError):
            raise refusal(error, path, label, hint) from error
        raise
    return conn


def _may_read_immutable(path: Path) -> bool:
    """An immutable read sees only the main file: safe when no write-ahead log holds newer pages."""
    wal = Path(f"{path}-wal")
    try:
        return not wal.exists() or wal.stat().st_size == 0
    except OSError:
        return False


def open_migrated(path: Path, migrations: MigrationSet, label: str, hint: str, *, create: bool = False) -> Database:
    """Open a SQLite file owned by one migration set, checking it is that kind of file and undamaged.

    A file that is refused is left untouched (the checks only read). "database is locked" at open is
    retried for OPEN_BUSY_SECONDS: SQLite skips the busy handler in a few WAL cases (another process
    recovering the WAL index or closing the last connection), so two indexers starting on one file
    could otherwise refuse each other.
    """
    return _retry_busy(lambda: _open_checked(path, migrations, label, hint, create=create))


def _retry_busy(open_once: Callable[[], Any]) -> Any:
    give_up = time.monotonic() + OPEN_BUSY_SECONDS
    while True:
        try:
            return open_once()
        except CacheError as error:
            if not is_busy(error.__cause__) or time.monotonic() >= give_up:
                raise
        time.sleep(BUSY_RETRY_SECONDS)


def _check_file(path: Path, label: str, hint: str, *, create: bool) -> None:
    """Missing, empty or not a whole SQLite file, from the file system and the header alone."""
    try:
        size = path.stat().st_size if path.exists() else 0
    except OSError as error:
        raise CacheUnavailable(f"{path} cannot be read now ({error.strerror or error}); the file was not "
                               "changed. Check its permissions, then retry.") from error
    if size == 0:
        if create:
            return
        raise CacheError(f"No {label} at {path} (file missing or empty). {hint}")
    problem = header_problem(path)
    if problem is None:
        return
    kind, why = problem
    if kind is NotACache:
        raise NotACache(_not_a(path, label, why, hint))
    raise CacheDamaged(_damaged(path, label, why, hint))


def _not_a(path: Path, label: str, why: str, hint: str = "") -> str:
    """Refused as not this kind of file; what to do is the release cache's own advice, else the file's `hint`
    (run records are no file `wif index` builds)."""
    if label != CACHE_LABEL:
        return f"{path} is not a {label} ({why}); it was not changed. {hint}".strip()
    return (f"{path} is not a {label} ({why}); it was not changed. Point --db at the file `wif index` "
            "built, or at a new path for `wif index` to build one.")


def _damaged(path: Path, label: str, why: str, hint: str = "") -> str:
    if label != CACHE_LABEL:
        return f"{path} is a damaged {label} ({why}). Move it aside. {hint}".strip()
    return (f"{path} is a damaged {label} ({why}). Move it aside and rebuild it with "
            f"`wif index --db {path} --all`.")


def refusal(error: sqlite3.DatabaseError, path: Path, label: str = CACHE_LABEL, hint: str = "") -> CacheError:
    """The CacheError an SQLite error at open means: not now, not a cache, or damaged."""
    kind = classify(error)
    if kind is CacheUnavailable:
        return CacheUnavailable(f"{path} cannot be opened now ({reason(error)}); the file was not changed. "
                                "Free disk space, check permissions or wait for the other process, then retry.")
    if kind is NotACache:
        return NotACache(_not_a(path, label, reason(error), hint))
    return CacheDamaged(_damaged(path, label, reason(error), hint))


def _open_checked(path: Path, migrations: MigrationSet, label: str, hint: str, *, create: bool) -> Database:
    from sqlite_utils import Database

    _check_file(path, label, hint, create=create)
    conn: sqlite3.Connection | None = None
    try:
        conn = _connect(str(path))
        _check_schema(conn, path, migrations, label, hint, create=create)
        _check_pages(conn, path, label, hint)
        if create:
            _migrate(Database(conn), path, migrations, label, hint)
    except BaseException as error:
        if conn is not None:
            conn.close()
        if isinstance(error, sqlite3.DatabaseError):
            raise refusal(error, path, label, hint) from error
        raise
    return Database(conn)


def _check_pages(conn: sqlite3.Connection, path: Path, label: str, hint: str = "") -> None:
    """`PRAGMA quick_check`: a damaged file is refused, not written over. It reads every page once (~25 ms for
    the 20 MB example cache, ~380 ms at 20×), which is why answering a question (`read_cache`) does not."""
    problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)").fetchall()]
    if problems and problems != ["ok"]:
        details = " ".join("; ".join(problems).split())[:300]
        raise CacheDamaged(_damaged(path, label, details, hint))


def _migrate(db: Database, path: Path, migrations: MigrationSet, label: str, hint: str) -> None:
    """Create or migrate the schema in one IMMEDIATE transaction.

    Why: two indexers starting together on a new file would otherwise both create the
    tables (the second fails), and a kill between the migrations table and the first
    migration left a file that every later run refused.

    Why `synchronous = NORMAL` (this connection's writes): in WAL mode a commit then waits for no fsync (~20 ms
    each on a common disk, two commits per repository: 0.4 s of indexing the 11 fixture repositories). A killed
    process still loses nothing committed, and the file is never left inconsistent; only a power cut can roll
    back the last commits, which the next run fetches again (a repository's ETag is in the same transaction).
    A checkpoint (which does fsync) once per 32 MB of log rather than SQLite's 4 MB: one for the fixtures, not six.
    """
    db.enable_wal()
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA wal_autocheckpoint = 8192")
    db.execute("BEGIN IMMEDIATE")
    try:
        _check_schema(db.conn, path, migrations, label, hint, create=True)  # another process may have migrated
        migrations.apply(db)
    except BaseException:
        if db.conn.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _check_schema(
    conn: sqlite3.Connection, path: Path, migrations: MigrationSet, label: str, hint: str, *, create: bool
) -> None:
    tables = {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
    if tables == {MIGRATIONS_TABLE} and not conn.execute(f"select count(*) from {MIGRATIONS_TABLE}").fetchone()[0]:
        tables = set()  # an older WIF killed between creating this table and its first migration
    if not tables:
        if create:
            return
        raise CacheError(f"{path} is an empty SQLite database, not a {label} yet. {hint}")
    applied = set(migrations.applied(conn))
    if not applied:
        raise NotACache(_not_a(path, label, "a SQLite database of another program", hint))
    known = set(migrations.names())
    if applied - known:
        newer = ", ".join(sorted(applied - known))
        raise CacheError(f"{path} was written by a newer WIF (unknown migrations: {newer}). "
                         f"Upgrade WIF, or rebuild: {hint}")
    if not create and known - applied - WRITER_ONLY - migrations.reader_optional:
        raise CacheError(f"{path} has an older schema. {hint}")
