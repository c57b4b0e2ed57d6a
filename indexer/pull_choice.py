"""Which PR details an indexing pass fetches: those the newest notes cite and the cache lacks, within the rate limit.

Why: a question about a recent release reads its PRs; the cache holds them so an answer needs no GitHub request,
but PR details are optional, so they never spend the requests other repositories' releases need.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlite_utils import Database

from indexer import unreleased
from indexer.cached import CachedRelease, known_pulls, release_pulls
from indexer.github_source import DefaultChangelog, ReleaseSource
from indexer.release_notes import parse_release_notes
from indexer.store import ReleaseRecord
from indexer.versions import parse_tag, version_key

RECENT_STABLE_RELEASES = 110  # the agent gives up beyond 100 releases; PR details past that are never read
PULL_RATE_RESERVE = 100  # PR details are optional: leave this many requests for other repositories' releases
NOT_FOUND_STATE = "not_found"  # pulls row for a number that is not a PR (an issue), so it is not re-fetched


def low_rate_limit(source: ReleaseSource, under_way: int = 0) -> str | None:
    limits = source.rate_limit()
    if limits and limits[0] - under_way <= PULL_RATE_RESERVE:
        return f"keeping the last {limits[0] - under_way} requests of the rate limit for release checks"
    return None


def wanted_pulls(db: Database, slug: str, fetched: list[ReleaseRecord], cached: dict[str, CachedRelease],
                  changelog: DefaultChangelog | None = None) -> list[int]:
    """PR numbers not yet in `pulls`, newest first: cited by the Unreleased notes (`changelog` as just read, else
    the cached ones: merged, in no release yet, what a question about the newest version needs), then by the
    newest stable releases."""
    newest = newest_stable(fetched, cached)
    known = known_pulls(db, slug)
    changed = {record.tag: record for record in fetched if not same_body(record, cached)}
    wanted: dict[int, None] = dict.fromkeys(
        number for number in unreleased.cited_pulls(db, slug, changelog) if number not in known)
    for tag in newest:
        if tag in changed:
            numbers: Iterable[int] = (pr for entry in parse_release_notes(changed[tag].body, repo=slug)
                                      for pr in entry.prs)
        else:
            numbers = release_pulls(db, cached[tag].id)
        for number in numbers:
            if number not in known:
                wanted.setdefault(number, None)
    return list(wanted)


def same_body(record: ReleaseRecord, cached: dict[str, CachedRelease]) -> bool:
    old = cached.get(record.tag)
    return old is not None and old.body == (record.body or "")


def newest_stable(fetched: list[ReleaseRecord], cached: dict[str, CachedRelease]) -> list[str]:
    """Tags of the newest stable releases after this run (fetched state overrides the cache)."""
    keys = {tag: old.version_key for tag, old in cached.items() if old.stable and old.version_key}
    for record in fetched:
        keys.pop(record.tag, None)
        key = stable_version_key(record)
        if key:
            keys[record.tag] = key
    return sorted(keys, key=keys.__getitem__, reverse=True)[:RECENT_STABLE_RELEASES]


def stable_version_key(record: ReleaseRecord) -> str | None:
    """The sort key of a stable release, None for drafts, pre-releases and unparseable tags
    (the same rule the store applies)."""
    version = parse_tag(record.tag)
    if version is None or record.draft or record.prerelease or version.is_prerelease:
        return None
    return version_key(version)


def not_a_pull(slug: str, number: int) -> dict:
    return {"number": number, "title": "", "body": "", "state": NOT_FOUND_STATE, "merged": 0,
            "merged_at": None, "merge_commit_sha": None, "url": f"https://github.com/{slug}/pull/{number}"}
