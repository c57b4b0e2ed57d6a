"""Subtask 4: the stable releases strictly after the user's version, from the cache.

No release-list API call: the range is two indexed queries. The >100 guard is
a COUNT, computed before any release notes are read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from indexer.versions import display_version, parse_tag
from wif_action.models import Release
from wif_action.ports import ReleaseCache
from wif_action.run_context import Run


@dataclass(kw_only=True)
class RangeResult:
    outcome: Literal["ok", "too_old", "already_latest", "needs_clarification"]
    user_release: Release | None = None
    releases: list[Release] = field(default_factory=list)
    count: int = 0
    latest: Release | None = None
    message: str = ""


def fetch_release_range(run: Run, repo: str, version: str) -> RangeResult:
    """The guard is `run.options.max_releases`. Raises CacheReadError when the cache cannot be read (the workflow
    fails the run)."""
    cache, journal, guard = run.tools.cache, run.journal, run.options.max_releases
    user_release = cache.find_release(repo, version) if parse_tag(version) else None
    if user_release is None:
        return RangeResult(outcome="needs_clarification", message=_not_a_release(repo, version, cache))
    if display_version(user_release.tag) != display_version(version.strip()):
        journal.note(f"Version \u201c{version}\u201d read as release {user_release.tag}.")
    journal.read_version(user_release.version, display_version(user_release.tag))
    count = cache.count_stable_after(repo, user_release.version_key)
    latest = cache.latest_stable(repo)
    if latest:
        journal.read_version(latest.version, display_version(latest.tag))
    if count > guard:
        newest = f" (the newest is {display_version(latest.tag)})" if latest else ""
        journal.note(f"{count} stable releases of {repo} came after {display_version(user_release.tag)}{newest}; "
                     f"the scan reads at most {guard} (the release-count guard: --max-releases, the Action input "
                     f"max_releases, WIF_MAX_RELEASES), so the version is too old to look up.")
        return RangeResult(outcome="too_old", user_release=user_release, count=count, latest=latest)
    if count == 0:
        return RangeResult(outcome="already_latest", user_release=user_release, latest=latest)
    releases = cache.stable_after(repo, user_release.version_key, guard)
    for release in releases:
        journal.read_version(release.version, display_version(release.tag))
    return RangeResult(outcome="ok", user_release=user_release, releases=releases, count=count, latest=latest)


def _not_a_release(repo: str, version: str, cache: ReleaseCache) -> str:
    latest = cache.latest_stable(repo)
    newest = f" The newest stable release is {display_version(latest.tag)}." if latest else ""
    if parse_tag(version) is None:
        return f"\u201c{version}\u201d is not a version I can read. Could you verify the exact SDK version?{newest}"
    return f"{repo} has no release {version}. Could you verify the exact SDK version?{newest}"
