"""Writes to the release cache: one repository's update is one transaction.

Why one transaction per repository: an indexer killed at any moment must
leave every repository either fully old or fully new, and a second indexer on
the same file must wait (BEGIN IMMEDIATE + busy timeout) rather than interleave.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache

from packaging.version import Version
from sqlite_utils import Database

from indexer import repository_terms
from indexer.bumps import bump_verbs, bundled_name, parse_bumps
from indexer.notes_pool import EntriesWritten, ParseMany, parse_here
from indexer.packages import PackageHint, tag_package
from indexer.registry import Registry, RegistryError, load_registry
from indexer.release_notes import PARSER_VERSION
from indexer.versions import parse_tag, version_key

ENTRY_BATCH = 500  # entries inserted per statement while the rest are still being parsed


@dataclass
class ReleaseRecord:
    """A release as fetched from GitHub (the REST fields WIF keeps)."""

    id: int
    tag: str
    name: str | None
    body: str | None
    draft: bool
    prerelease: bool
    published_at: str | None
    url: str | None
    body_source: str = "release"


@dataclass
class RepositoryUpdate:
    """Everything one indexing pass learned about a repository."""

    slug: str
    releases: list[ReleaseRecord]
    etag: str | None
    pulls: list[dict] = field(default_factory=list)
    bundles: dict[str, str] | None = None  # bundled SDK name → repository; None: the packaged registry's
    # how the notes to write are parsed: `wif index` hands in its worker processes (indexer/notes_pool.py);
    # None parses them here, one after another (the entries are the same)
    parse_many: ParseMany | None = None
    written: EntriesWritten | None = None  # told the (id, text) of the entries inserted (`wif index`: their
    # term counts are stored in the same transaction)
    package: str | None = None  # the key of the one package of a monorepo kept (indexer/packages.py): cached
    # releases of other packages are deleted; None keeps every release (what was written before m012)


@dataclass
class UpdateResult:
    new: int = 0
    updated: int = 0
    skipped_tags: list[str] = field(default_factory=list)
    releases: int = 0
    stable: int = 0
    reparsed: int = 0  # stored releases re-parsed because an older parser wrote their entries
    dropped: int = 0  # cached releases of other packages than the one kept, deleted


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _release_row(repo_id: int, record: ReleaseRecord) -> dict:
    version = parse_tag(record.tag)
    stable = version is not None and not record.draft and not record.prerelease and not version.is_prerelease
    return {
        "id": record.id,
        "repo_id": repo_id,
        "tag": record.tag,
        "name": record.name or record.tag,
        "version": str(version) if version else None,
        "version_key": version_key(version) if version else None,
        "published_at": record.published_at,
        "prerelease": int(record.prerelease or bool(version and version.is_prerelease)),
        "draft": int(record.draft),
        "stable": int(stable),
        "url": record.url,
        "body": record.body or "",
        "body_source": record.body_source,
        "fetched_at": now(),
    }


def repository_id(db: Database, slug: str) -> int:
    """The id of a repository row, creating it when new."""
    row = db.execute("select id from repositories where slug = ?", [slug]).fetchone()
    if row:
        return row[0]
    return int(db.execute("insert into repositories (slug) values (?)", [slug]).lastrowid or 0)


def write_with_retry(db: Database, work: Callable[[], object], on_busy: Callable[[str], None]) -> object:
    """Run `work` in one IMMEDIATE transaction; on a locked database say so and retry."""
    delay = 0.5
    for attempt in range(8):
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
            on_busy(f"cache busy (another indexer is writing), retrying in {delay:.1f}s (attempt {attempt + 1})")
            time.sleep(delay)
            delay = min(delay * 2, 10)
            continue
        try:
            result = work()
            db.execute("COMMIT")
        except BaseException:
            # SQLite has already rolled back after some errors (disk full); a second ROLLBACK would
            # replace "database or disk is full" with "cannot rollback - no transaction is active".
            if db.conn.in_transaction:
                db.execute("ROLLBACK")
            raise
        return result
    raise sqlite3.OperationalError("cache stayed busy; another indexer holds the write lock")


def apply_update(db: Database, update: RepositoryUpdate) -> UpdateResult:
    """Upsert releases, re-parse changed bodies, rebuild derived maps. Call inside a transaction."""
    repo_id = repository_id(db, update.slug)
    dropped = keep_package(db, repo_id, update.slug, update.package) if update.package is not None else 0
    existing = {row[0]: (row[1], row[2]) for row in db.execute(
        "select tag, body, id from releases where repo_id = ?", [repo_id])}
    result = UpdateResult(reparsed=reparse_if_stale(db, update.slug, update.parse_many, update.written),
                          dropped=dropped)
    written: list[dict] = []
    for record in update.releases:
        row = _release_row(repo_id, record)
        if row["version"] is None:
            result.skipped_tags.append(record.tag)
        old = existing.get(record.tag)
        if old is not None and old[0] == row["body"]:
            db.execute("update releases set published_at = ?, prerelease = ?, draft = ?, stable = ?, url = ?, "
                       "fetched_at = ? where id = ?", [row["published_at"], row["prerelease"], row["draft"],
                                                       row["stable"], row["url"], row["fetched_at"], old[1]])
            continue
        if old is not None:
            _delete_release(db, old[1])
            result.updated += 1
        else:
            result.new += 1
        written.append(row)
    _insert_releases(db, written)
    insert_entries(db, repo_id, update.slug, [(row["id"], row["body"]) for row in written], update.parse_many,
                   update.written)
    refresh_bundle_bumps(db, update.slug, update.bundles)
    _store_pulls(db, repo_id, update.pulls)
    _rebuild_pr_first_release(db, repo_id)
    repository_terms.rebuild(db, repo_id)  # m011: one count per index run that wrote, not one per answer
    _update_repository_row(db, repo_id, update.etag, result)
    return result


_RELEASE_COLUMNS = ("id", "repo_id", "tag", "name", "version", "version_key", "published_at", "prerelease", "draft",
                    "stable", "url", "body", "body_source", "fetched_at")


def _insert_releases(db: Database, rows: list[dict]) -> None:
    """New or changed releases in one statement (a release re-tagged under a cached id replaces that row)."""
    db.conn.executemany(
        f"insert or replace into releases ({', '.join(_RELEASE_COLUMNS)}) "
        f"values ({', '.join('?' for _ in _RELEASE_COLUMNS)})",
        [[row[column] for column in _RELEASE_COLUMNS] for row in rows])


def keep_package(db: Database, repo_id: int, slug: str, package: str) -> int:
    """Delete the repository's cached releases of other packages than `package` (a key, indexer/packages.py) and
    remember it as the one kept; returns how many were deleted. Call inside a transaction; the caller rebuilds
    what is derived from the releases (`apply_update`, `keep_package_unchanged`)."""
    others = [release_id for release_id, tag in db.execute("select id, tag from releases where repo_id = ?",
                                                              [repo_id]).fetchall()
              if tag_package(tag, slug) != package]
    for release_id in others:
        _delete_release(db, release_id)
    db.execute("update repositories set package = ? where id = ?", [package, repo_id])
    return len(others)


def keep_package_unchanged(db: Database, slug: str, package: str) -> int:
    """`keep_package` when GitHub reported no change (304): an older cache's other packages are deleted, and what
    derives from its releases is rebuilt when any was. Call inside a transaction."""
    repo_id = repository_id(db, slug)
    dropped = keep_package(db, repo_id, slug, package)
    if dropped:
        _rebuild_pr_first_release(db, repo_id)
        repository_terms.rebuild(db, repo_id)
        _update_repository_row(db, repo_id, None, UpdateResult())
    return dropped


def stored_package(db: Database, slug: str) -> str | None:
    """The key of the package the last index run kept for `slug` (None: none chosen yet, or a new repository)."""
    row = db.execute("select package from repositories where slug = ?", [slug]).fetchone()
    return row[0] if row else None


def reparse_if_stale(db: Database, slug: str, parse_many: ParseMany | None = None,
                     written: EntriesWritten | None = None) -> int:
    """Re-parse every stored body of a repository whose entries an older parser wrote (`PARSER_VERSION`);
    returns how many releases were re-parsed. Local only: the bodies are in the cache. Call inside a
    transaction."""
    repo_id = repository_id(db, slug)
    written_by = db.execute("select notes_parser from repositories where id = ?", [repo_id]).fetchone()[0]
    if (written_by or 0) >= PARSER_VERSION:
        return 0
    releases = db.execute("select id, body from releases where repo_id = ?", [repo_id]).fetchall()
    for table in ("bundle_bumps", "entry_prs", "entries"):
        db.execute(f"delete from {table} where repo_id = ?", [repo_id])
    insert_entries(db, repo_id, slug, [(release_id, body or "") for release_id, body in releases], parse_many,
                   written)
    _rebuild_pr_first_release(db, repo_id)
    db.execute("update repositories set notes_parser = ? where id = ?", [PARSER_VERSION, repo_id])
    return len(releases)


def _delete_release(db: Database, release_id: int) -> None:
    db.execute("delete from bundle_bumps where release_id = ?", [release_id])
    db.execute("delete from entry_prs where release_id = ?", [release_id])
    db.execute("delete from entries where release_id = ?", [release_id])
    db.execute("delete from releases where id = ?", [release_id])


def insert_entries(db: Database, repo_id: int, slug: str, releases: list[tuple[int, str]],
                   parse_many: ParseMany | None = None, written: EntriesWritten | None = None) -> None:
    """Parse each (release id, body) (`parse_many`, else here) and write its entries, their PR numbers and their
    full-text rows: a few statements per repository rather than a few per entry.

    Why the full-text rows are written here and not by a trigger: the per-row trigger cost ~15 µs an entry
    (0.3 s of indexing the 11 fixture repositories); one `insert … select` does the same in a sixth of that
    (m008 dropped the insert trigger; deletes and updates still keep `entries_fts` in step by trigger).
    New ids follow the largest one, as SQLite would pick them: the write transaction is exclusive. Entries are
    inserted in batches of `ENTRY_BATCH` as they are parsed (workers parse the next bodies meanwhile); `written`
    is then told the (id, text) of every entry inserted."""
    first = int(db.execute("select coalesce(max(id), 0) + 1 from entries").fetchone()[0])
    parsed = (parse_many or parse_here)([body for _, body in releases], slug)
    entries: list[tuple] = []
    entry_prs: list[tuple[int, int, int, int]] = []
    texts: list[tuple[int, str]] = []
    next_id = first
    for (release_id, _body), rows in zip(releases, parsed, strict=True):
        for position, section, heading, text, prs, issues, commits, numbers in rows:
            entries.append((next_id, release_id, repo_id, position, section, heading, text, prs, issues, commits))
            texts.append((next_id, text))
            entry_prs.extend((next_id, release_id, repo_id, pr) for pr in numbers)
            next_id += 1
        if len(entries) >= ENTRY_BATCH:
            _write_entries(db, entries, entry_prs)
            entries, entry_prs = [], []
    _write_entries(db, entries, entry_prs)
    if next_id == first:
        return
    db.execute("insert into entries_fts (rowid, text) select id, text from entries where id >= ?", [first])
    if written is not None:
        written(db.conn, texts)
    repository_terms.invalidate(db, repo_id)  # m011: counted again by `apply_update` (a trigger per inserted
    # row would cost what m008 saved)


def _write_entries(db: Database, entries: list[tuple], entry_prs: list[tuple[int, int, int, int]]) -> None:
    if not entries:
        return
    db.conn.executemany(
        "insert into entries (id, release_id, repo_id, position, section, heading, text, prs, issues, commits) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", entries)
    db.conn.executemany("insert or ignore into entry_prs (entry_id, release_id, repo_id, pr) values (?, ?, ?, ?)",
                        entry_prs)


def refresh_bundle_bumps(db: Database, slug: str, bundles: dict[str, str] | None) -> None:
    """Bring the repository's bundle_bumps in line with its notes and `bundles` (None: the packaged registry's).
    Every release is read, so a newly declared name is found in old notes too. Call inside a transaction."""
    declared = bundles if bundles is not None else packaged_bundles(slug)
    repo_id = repository_id(db, slug)
    _insert_bundle_bumps(db, repo_id, declared)
    _resolve_bundled_repos(db, repo_id, declared)


def packaged_bundles(slug: str) -> dict[str, str]:
    """What the packaged registry says `slug` bundles (empty when it bundles nothing or cannot be read)."""
    registry = _packaged_registry()
    return registry.bundles(slug) if registry is not None else {}


def packaged_package_hint(slug: str) -> PackageHint:
    """What the packaged registry says of `slug`'s packages (nothing when it cannot be read)."""
    registry = _packaged_registry()
    return registry.package_hint(slug) if registry is not None else PackageHint()


@cache
def _packaged_registry() -> Registry | None:
    """Read once per process: `wif index --all` asks for every repository."""
    try:
        return load_registry()
    except RegistryError:
        return None


def _insert_bundle_bumps(db: Database, repo_id: int, bundles: dict[str, str]) -> None:
    """Bump lines of the repository's entries not yet in bundle_bumps (new, re-parsed, or naming an SDK the
    registry declares only now) → bundle_bumps."""
    verbs = " or ".join("e.text like ?" for _ in bump_verbs())
    rows = db.execute(
        f"select e.id, e.release_id, e.text from entries e where e.repo_id = ? and ({verbs}) "
        "and e.id not in (select entry_id from bundle_bumps)", [repo_id, *(f"%{verb}%" for verb in bump_verbs())]
    ).fetchall()
    for entry_id, release_id, text in rows:
        for bump in parse_bumps(text, bundles):
            db.execute(
                "insert into bundle_bumps (entry_id, release_id, repo_id, name, bundled_repo, from_text, to_text, "
                "from_key, to_key) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [entry_id, release_id, repo_id, bundled_name(bump.name), bundles.get(bundled_name(bump.name)),
                 bump.from_text, bump.to_text, _key(bump.from_version), _key(bump.to_version)])


def _key(version: Version | None) -> str | None:
    return version_key(version) if version is not None else None


def _resolve_bundled_repos(db: Database, repo_id: int, bundles: dict[str, str]) -> None:
    """Re-point every bump of the repository at the registry's current `bundles` (a registry edit needs
    no re-parse)."""
    names = [row[0] for row in db.execute("select distinct name from bundle_bumps where repo_id = ?", [repo_id])]
    for name in names:
        db.execute("update bundle_bumps set bundled_repo = ? where repo_id = ? and name = ?",
                   [bundles.get(name), repo_id, name])


def backfill_bundle_bumps(db: Database) -> None:
    """Fill bundle_bumps from the entries a cache already holds (the schema migration that adds the table)."""
    for repo_id, slug in db.execute("select id, slug from repositories").fetchall():
        _insert_bundle_bumps(db, repo_id, packaged_bundles(slug))


def _store_pulls(db: Database, repo_id: int, pulls: Iterable[dict]) -> None:
    rows = [{**pull, "repo_id": repo_id, "fetched_at": pull.get("fetched_at") or now()} for pull in pulls]
    if rows:
        db.table("pulls").upsert_all(rows, pk=("repo_id", "number"))


def _rebuild_pr_first_release(db: Database, repo_id: int) -> None:
    """PR → first *stable* release that lists it (a final release repeats its betas' entries)."""
    db.execute("delete from pr_first_release where repo_id = ?", [repo_id])
    db.execute(
        """insert into pr_first_release (repo_id, pr, release_id, version_key)
        select ep.repo_id, ep.pr, r.id, min(r.version_key)
        from entry_prs ep join releases r on r.id = ep.release_id
        where ep.repo_id = ? and r.stable = 1
        group by ep.repo_id, ep.pr""",
        [repo_id],
    )


def _update_repository_row(db: Database, repo_id: int, etag: str | None, result: UpdateResult) -> None:
    counts = db.execute(
        "select count(*), coalesce(sum(stable), 0) from releases where repo_id = ?", [repo_id]
    ).fetchone()
    result.releases, result.stable = counts[0], counts[1]
    skipped = [row[0] for row in db.execute(
        "select tag from releases where repo_id = ? and version is null order by tag", [repo_id])]
    db.execute(
        "update repositories set releases_etag = coalesce(?, releases_etag), last_indexed_at = ?, "
        "last_checked_at = ?, releases = ?, stable = ?, skipped_tags = ?, last_error = null where id = ?",
        [etag, now(), now(), counts[0], counts[1], json.dumps(skipped), repo_id],
    )


def mark_checked(db: Database, slug: str, error: str | None = None) -> None:
    """Record a no-op (304) check or a failure without touching releases."""
    repo_id = repository_id(db, slug)
    db.execute("update repositories set last_checked_at = ?, last_error = ? where id = ?", [now(), error, repo_id])
