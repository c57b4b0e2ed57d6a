"""Helpers for tests on real cache files (SQLite, the indexer's own store)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry


def without_migration(source: Path, copy: Path, table: str, migration: str) -> Path:
    """A copy of ``source`` as a WIF from before ``migration`` wrote it: the derived ``table`` and its record gone."""
    copy.write_bytes(source.read_bytes())
    with sqlite3.connect(copy) as raw:
        raw.execute(f"drop table {table}")
        raw.execute("delete from _sqlite_migrations where name = ?", [migration])
    raw.close()
    return copy


def write_releases(path: Path, slug: str, bodies: dict[str, str]) -> Path:
    """Cache `bodies` (tag → release notes, oldest first) of `slug` as stable releases a second apart, so a
    test states only what its releases say; the rest (ids, dates, URLs) is what the indexer would store."""
    db = open_cache(path, create=True)
    records = [ReleaseRecord(id=n + 1, tag=tag, name=tag, draft=False, prerelease=False, body=body,
                             published_at=f"2025-01-01T00:{n // 60:02d}:{n % 60:02d}Z",
                             url=f"https://github.com/{slug}/releases/tag/{tag}")
               for n, (tag, body) in enumerate(bodies.items())]
    write_with_retry(db, lambda: apply_update(db, RepositoryUpdate(slug=slug, etag=None, releases=records)), print)
    db.close()
    return path


def releases_with_filler(path: Path, slug: str, lines: dict[str, str], prs: dict[str, int],
                         filler: list[str]) -> Path:
    """One `### Fixes` release per tag: unrelated filler lines (PRs `prs[tag] * 10 + i`) then the tag's own line, so
    the judge ranks each line against a batch, as in real notes."""
    return write_releases(path, slug, {tag: "### Fixes\n\n" + "".join(f"- {line} (#{prs[tag] * 10 + i})\n"
                                                                   for i, line in enumerate(filler, 1))
                                       + f"- {lines[tag]} (#{prs[tag]})\n" for tag in lines})


def line_pulls(lines: dict[str, str], prs: dict[str, int]) -> list[dict]:
    """The fake GitHub's merged PR of each tag's line, its title the line (what `releases_with_filler` cites)."""
    return [{"number": prs[tag], "title": lines[tag], "merged": True, "body": ""} for tag in lines]
