"""What the release cache already holds of a repository, read by an indexing pass before it asks GitHub.

Plain queries on the connection the pass reads with (the writer's, or the read-ahead thread's own read-only one,
`indexing._ReadAhead`); nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database


@dataclass
class CachedRelease:
    """A cached release as a pass compares it with what GitHub returns (its body, where the body came from)."""

    id: int
    body: str
    body_source: str
    version_key: str | None
    stable: bool


def repo_id(db: Database, slug: str) -> int | None:
    row = db.execute("select id from repositories where slug = ?", [slug]).fetchone()
    return row[0] if row else None


def stored_etag(db: Database, slug: str) -> str | None:
    row = db.execute("select releases_etag from repositories where slug = ?", [slug]).fetchone()
    return row[0] if row else None


def cached_releases(db: Database, slug: str, *, bodies: bool = True) -> dict[str, CachedRelease]:
    body = "r.body" if bodies else "''"
    rows = db.execute(
        f"select r.tag, r.id, {body}, r.body_source, r.version_key, r.stable from releases r "
        "join repositories s on s.id = r.repo_id where s.slug = ?", [slug])
    return {row[0]: CachedRelease(row[1], row[2] or "", row[3] or "release", row[4], bool(row[5])) for row in rows}


def known_pulls(db: Database, slug: str) -> set[int]:
    found = repo_id(db, slug)
    if found is None:
        return set()
    return {row[0] for row in db.execute("select number from pulls where repo_id = ?", [found])}


def release_pulls(db: Database, release_id: int) -> list[int]:
    return [row[0] for row in db.execute(
        "select ep.pr from entry_prs ep join entries e on e.id = ep.entry_id "
        "where ep.release_id = ? order by e.position", [release_id])]


def stable_count(db: Database, slug: str) -> int:
    row = db.execute("select stable from repositories where slug = ?", [slug]).fetchone()
    return int(row[0] or 0) if row else 0
