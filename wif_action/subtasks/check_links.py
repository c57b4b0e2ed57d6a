"""Subtask 3: the links fast path — a linked issue or PR → its fix → the first stable release.

The release comes from the cache's PR → release map when the notes mention the
PR, otherwise from the compare API (binary search over stable tags for the
first one containing the merge commit), which also handles backports. A fix
at or before the user's version is discarded (spec Example B). A link into an
SDK the customer's SDK bundles (a sentry-cocoa issue for React Native) resolves
to the bundled release, then to the first release of the customer's SDK whose
bump brings it in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from indexer.github_refs import parse_link
from indexer.versions import display_version
from wif_action.models import UNRELEASED_VERSION, Candidate, Confidence, Entry, Release, Via, unreleased_release
from wif_action.ports import AnalysisTools, ToolError
from wif_action.run_context import Run
from wif_action.subtasks.pr_evaluation import PrEvaluator

MAX_LINKS = 3
MAX_PRS_PER_LINK = 3


@dataclass(kw_only=True)
class LinkResult:
    outcome: Literal["high", "fall_through"]
    candidates: list[Candidate] = field(default_factory=list)


@dataclass(frozen=True)
class _Asked:
    """What every link is followed against: the run, the customer's repository and release, the PR evaluator."""

    run: Run
    repo: str
    user_release: Release | None
    evaluator: PrEvaluator


def check_links(run: Run, links: list[str], repo: str, user_release: Release | None,
                evaluator: PrEvaluator) -> LinkResult:
    """Raises CacheReadError when the cache could not be read (the workflow then fails the run)."""
    asked = _Asked(run, repo, user_release, evaluator)
    candidates: list[Candidate] = []
    for link in links[:MAX_LINKS]:
        candidates += _check_link(asked, link)
    high = [c for c in candidates if c.confidence == Confidence.HIGH]
    return LinkResult(outcome="high" if high else "fall_through", candidates=candidates)


def _check_link(asked: _Asked, link: str) -> list[Candidate]:
    parsed = parse_link(link)
    if not parsed:
        return []
    link_repo, kind, number = parsed.repo, parsed.kind, parsed.number
    journal = asked.run.journal
    if link_repo != asked.repo and not asked.run.tools.cache.has_repository(link_repo):
        journal.note(f"Link {link} is in {link_repo}, which the cache does not hold; not followed.")
        return []
    try:
        prs, commit = _fixing_prs(asked.run.tools, link_repo, kind, number)
    except ToolError as error:
        journal.skip(f"check link {link_repo}#{number}", error.reason)
        return []
    if not prs:
        found_what = "a closing commit but no merged PR" if commit else "no merged PR or closing commit"
        journal.note(f"Linked {link_repo}#{number}: {found_what} found.")
        return []
    found = []
    for pr in _closers_first(link_repo, number, prs, commit, asked.evaluator)[:MAX_PRS_PER_LINK]:
        candidate = _follow_pr(asked, link_repo, number, pr)
        if candidate:
            found.append(candidate)
    return found


def _fixing_prs(tools: AnalysisTools, repo: str, kind: str, number: int) -> tuple[list[int], str | None]:
    if kind == "pull":
        return [number], None
    resolution = tools.github.issue_resolution(repo, number)
    if resolution.is_pull:
        return [number], None
    return resolution.closing_prs, resolution.closing_commit


def _closers_first(repo: str, issue: int, prs: list[int], commit: str | None,
                   evaluator: PrEvaluator) -> list[int]:
    """The PRs that closed the issue: the one whose merge commit closed it, else those whose text says
    they close it, else every merged PR that mentions it (a mention alone is weaker evidence)."""
    if len(prs) <= 1:
        return prs
    details = {pr: evaluator.details(pr, repo) for pr in prs[:MAX_PRS_PER_LINK * 2]}
    by_commit = [pr for pr, pull in details.items() if commit and pull and pull.merge_commit_sha == commit]
    closing = re.compile(rf"\b(?:close|fix|resolve)[sd]?:?\s+(?:{re.escape(repo)})?#{issue}\b", re.IGNORECASE)
    by_text = [pr for pr, pull in details.items() if pull and closing.search(f"{pull.title}\n{pull.body}")]
    return by_commit or by_text or prs


def _follow_pr(asked: _Asked, link_repo: str, issue: int, pr: int) -> Candidate | None:
    repo, user_release, evaluator = asked.repo, asked.user_release, asked.evaluator
    tools, journal = asked.run.tools, asked.run.journal
    if link_repo != repo and link_repo in tools.cache.bundled_repositories(repo):
        return _follow_bundled_pr(asked, link_repo, issue, pr)
    release = _first_release(asked, link_repo, pr, user_release if link_repo == repo else None)
    if release is None and link_repo == repo:
        return _unreleased_pr(asked, issue, pr)
    if release is None:
        journal.note(f"Linked {link_repo}#{issue}: PR #{pr} is in no stable release after the user's version.")
        return None
    journal.read_version(release.version, display_version(release.tag))
    where = f"first released in {display_version(release.tag)}"
    if link_repo == repo and user_release and (
        release.version_key <= user_release.version_key or tools.cache.user_has_pr(repo, pr, user_release)
    ):
        journal.note(f"Linked {link_repo}#{issue}: fixed by PR #{pr}, {where} — at or before the user's "
                     f"{display_version(user_release.tag)}, so discarded (they have it and still see the problem).")
        return None
    journal.note(f"Linked {link_repo}#{issue}: fixed by PR #{pr}, {where}.")
    entry = next((e for e in tools.cache.entries([release.id]) if pr in e.prs), None)
    candidate = evaluator.evaluate(pr, entry, release, source="link", repo=link_repo)
    if candidate and link_repo != repo and candidate.confidence == Confidence.HIGH:
        candidate = replace(candidate, confidence=Confidence.MEDIUM,
                                                 reason=candidate.reason + f" (a fix in {link_repo})")
    return candidate


def _unreleased_pr(asked: _Asked, issue: int, pr: int) -> Candidate | None:
    """A linked fix in no release: merged after the newest release (or listed in the Unreleased notes), it is
    on the default branch and ships in the next release — judged like any fix, as an unreleased candidate."""
    repo, tools, journal = asked.repo, asked.run.tools, asked.run.journal
    details = asked.evaluator.details(pr, repo)
    notes = tools.cache.unreleased_notes(repo)
    entry = next((e for e in tools.cache.entries([notes.release.id]) if pr in e.prs), None) if notes else None
    latest = tools.cache.latest_stable(repo)
    merged_after = bool(details and details.merged and details.merged_at and latest and latest.published_at
                        and details.merged_at > latest.published_at)
    if entry is None and not merged_after:
        journal.note(f"Linked {repo}#{issue}: PR #{pr} is in no stable release after the user's version.")
        return None
    newest = f" after {display_version(latest.tag)}" if latest else ""
    journal.read_version(UNRELEASED_VERSION)
    journal.note(f"Linked {repo}#{issue}: fixed by PR #{pr}, merged{newest} and in no release yet "
                 f"({'listed in the Unreleased notes' if entry else 'not in the cached Unreleased notes'}).")
    release = notes.release if notes else unreleased_release(repo)
    return asked.evaluator.evaluate(pr, entry, release, source="link", repo=repo)


def _follow_bundled_pr(asked: _Asked, link_repo: str, issue: int, pr: int) -> Candidate | None:
    """A fix in a bundled SDK: its release, then the first release of `repo` whose bump brings it in."""
    repo, user_release, tools, journal = asked.repo, asked.user_release, asked.run.tools, asked.run.journal
    bundled = _first_release(asked, link_repo, pr, None)
    name = link_repo.split("/", 1)[-1]
    if bundled is None:
        journal.note(f"Linked {link_repo}#{issue}: PR #{pr} is in no stable release of {name}.")
        return None
    shown = display_version(bundled.tag)
    journal.read_version(bundled.version, shown)
    host = tools.cache.first_release_bundling(repo, link_repo, bundled.version_key)
    if host is None:
        journal.note(f"Linked {link_repo}#{issue}: fixed by PR #{pr} in {name} {shown}, which no stable release "
                     f"of {repo} bundles yet.")
        return None
    journal.read_version(host.version, display_version(host.tag))
    where = f"{name} {shown}, first bundled in {display_version(host.tag)}"
    if user_release and host.version_key <= user_release.version_key:
        journal.note(f"Linked {link_repo}#{issue}: fixed by PR #{pr} in {where} — at or before the user's "
                     f"{display_version(user_release.tag)}, so discarded (they have it and still see the problem).")
        return None
    journal.note(f"Linked {link_repo}#{issue}: fixed by PR #{pr} in {where}.")
    entry = _bundled_entry(tools, link_repo, pr, bundled, host)
    candidate = asked.evaluator.evaluate(pr, entry, host, source="link", repo=link_repo)
    if candidate is not None and candidate.via is None:
        candidate = replace(candidate, via=Via(repo=link_repo, version=shown))
    return candidate


def _bundled_entry(tools: AnalysisTools, link_repo: str, pr: int, bundled: Release, host: Release) -> Entry | None:
    """The bundled release's note for the PR, marked with the host release and its bump line."""
    entry = next((e for e in tools.cache.entries([bundled.id]) if pr in e.prs), None)
    if entry is None:
        return None
    bump = next((b.text for b in tools.cache.bundle_bumps([host.id]) if b.bundled_repo == link_repo), "")
    return replace(entry, bundled_in=host, bump=bump)


def _first_release(asked: _Asked, repo: str, pr: int, user_release: Release | None) -> Release | None:
    """From the PR → release map, else binary search with the compare API on the merge commit."""
    tools = asked.run.tools
    release = tools.cache.first_stable_release_with_pr(repo, pr)
    if release is not None:
        return release
    details = asked.evaluator.details(pr, repo)
    if details is None or not details.merge_commit_sha:
        return None
    releases = [r for r in tools.cache.stable_releases(repo)
                if user_release is None or r.version_key > user_release.version_key]
    try:
        return _first_containing(tools, repo, details.merge_commit_sha, releases)
    except ToolError as error:
        asked.run.journal.skip(f"find the release of PR #{pr}", error.reason)
        return None


def _first_containing(tools: AnalysisTools, repo: str, sha: str, releases: list[Release]) -> Release | None:
    low, high, found = 0, len(releases) - 1, None
    while low <= high:
        middle = (low + high) // 2
        if tools.github.tag_contains(repo, releases[middle].tag, sha):
            found, high = releases[middle], middle - 1
        else:
            low = middle + 1
    return found
