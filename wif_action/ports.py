"""The interfaces subtasks depend on (typing Protocols).

Subtasks receive objects satisfying these; they never build clients. Tools in
`wif_action/tools/` implement the I/O ones, engines in `wif_action/engines/`
implement `Judge`. Tests can pass any object of the right shape.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from wif_action.models import (
    BundleBump,
    Entry,
    IssueResolution,
    PullRequest,
    Release,
    RelevantEntry,
    Request,
    Score,
    UnreleasedNotes,
    Usage,
    Verdict,
)
from wif_action.question import Question


class PullRequestCache(Protocol):
    """PR details the release cache holds: what the GitHub tools read before (and, past the deadline, instead of)
    the API (`tools/github.CachedPullRequests`, `tools/deadline.GitHubUntilDeadline`); no subtask reads it."""

    def cached_pull(self, repo: str, number: int) -> PullRequest | None: ...


class ReleaseCache(PullRequestCache, Protocol):
    """Read-only queries over the release cache (tools/cache.py) that the subtasks make; it is also the
    `PullRequestCache` the run's GitHub tools are handed (`tools/deadline.until_deadline`)."""

    def has_repository(self, repo: str) -> bool: ...

    def repositories(self) -> list[str]:
        """Every cached repository (`owner/name`)."""

    def find_release(self, repo: str, version: str) -> Release | None:
        """The release (stable or pre-release) whose version equals `version` (incomplete versions too)."""

    def count_stable_after(self, repo: str, version_key: str) -> int: ...

    def stable_after(self, repo: str, version_key: str, limit: int) -> list[Release]:
        """Stable releases strictly after `version_key`, oldest first."""

    def stable_up_to(self, repo: str, version_key: str, limit: int) -> list[Release]:
        """The newest `limit` stable releases at or before `version_key` (the customer's own included), oldest
        first: the release lines the customer already runs (`scan_release_notes`' held rivals)."""

    def latest_stable(self, repo: str) -> Release | None: ...

    def entries(self, release_ids: list[int], sections: frozenset[str] | None = None) -> list[Entry]:
        """Parsed entries of these releases, in release then position order (a negative id: the Unreleased
        pseudo-release of `unreleased_notes`); only those of `sections` when given."""

    def unreleased_notes(self, repo: str) -> UnreleasedNotes | None:
        """The default branch's Unreleased notes as cached (None: never read, or a cache without them)."""

    def first_stable_release_with_pr(self, repo: str, pr: int) -> Release | None: ...

    def bundle_bumps(self, release_ids: list[int]) -> list[BundleBump]:
        """Bundled-SDK bumps announced by these releases' notes."""

    def bundled_key_at(self, repo: str, bundled_repo: str, host_key: str, *, inclusive: bool) -> str | None:
        """The bundled version key the newest stable release at/before `host_key` bumped to."""

    def stable_between(self, repo: str, after_key: str, upto_key: str) -> list[Release]:
        """Stable releases in (after_key, upto_key], oldest first."""

    def first_release_bundling(self, repo: str, bundled_repo: str, bundled_key: str) -> Release | None:
        """The oldest stable release of `repo` that bumps `bundled_repo` to `bundled_key` or later."""

    def bundled_repositories(self, repo: str) -> list[str]: ...

    def user_has_pr(self, repo: str, pr: int, user_release: Release) -> bool:
        """Whether a release at or before the user's (same line, published no later) lists `pr`."""

    def prs_user_has(self, repo: str, prs: list[int], user_release: Release) -> set[int]:
        """`user_has_pr` for many PRs at once."""

    def stable_releases(self, repo: str) -> list[Release]:
        """All stable releases, oldest first (for compare-based binary search)."""


class TermStatistics(Protocol):
    """Document statistics for BM25: the cache's counts over a repository's notes, or a batch's own."""

    def term_statistics(self, repo: str, terms: list[str]) -> tuple[int, float, dict[str, int]]:
        """(documents, mean length, document frequency per term) over a repository's entries."""

    def stored_term_counts(self, entry_ids: list[int], fingerprint: str,
                           keys: Collection[str] | None = None) -> dict[int, dict[str, int]]:
        """Term counts computed at index time under this lexicon `fingerprint`, for the entries that have them.
        With `keys` (the question's), an entry whose counts hold none of them maps to {}: BM25 scores it 0
        whatever its other terms, so they are not read."""


class NoteStatistics(TermStatistics, Protocol):
    """The offline engine's own port onto the release cache (tools/cache.py): which repositories are cached
    and how their notes use each term. Apart from `ReleaseCache`, which the subtasks read, so neither side
    sees the other's methods."""

    def has_repository(self, repo: str) -> bool: ...


class GitHub(Protocol):
    """GitHub REST lookups used on a question (tools/github.py). Raises ToolError on failure."""

    def pull_request(self, repo: str, number: int) -> PullRequest: ...

    def issue_resolution(self, repo: str, number: int) -> IssueResolution: ...

    def tag_contains(self, repo: str, tag: str, sha: str) -> bool: ...

    @property
    def requests_made(self) -> int: ...


class Progress(Protocol):
    """Where the spec's progress checkpoints go (console, Slack, a GitHub comment)."""

    def checkpoint(self, text: str) -> None: ...

    def finish(self, text: str) -> None: ...


class Judge(Protocol):
    """The judgement tools of the spec; implemented by the OpenAI and offline engines."""

    name: str
    local: bool  # needs no network: still used after the run's deadline (tools/deadline.py)
    rejected_claims: list[str]  # claims the engine dropped because the input did not contain them

    def extract_request(self, message: str) -> Request: ...

    def resolve_repository_ambiguous(self, context: str, choices: list[str]) -> str | None: ...

    def filter_relevant_entries(self, entries: list[Entry], question: Question) -> list[RelevantEntry]: ...

    def score_pr_confidence(self, pr: PullRequest, entry: Entry | None, question: Question) -> Score: ...

    def verify_pr_match(self, pr: PullRequest, entry: Entry | None, question: Question) -> Verdict: ...

    def usage(self) -> Usage: ...


@dataclass
class AnalysisTools:
    """The tools the analysis subtasks use, injected by whoever builds the workflow."""

    cache: ReleaseCache
    github: GitHub
    judge: Judge
    fallback: Judge | None = None


class ToolError(Exception):
    """A tool could not do its I/O; the message is safe to show to people."""

    def __init__(self, tool: str, reason: str):
        super().__init__(f"{tool}: {reason}")
        self.tool = tool
        self.reason = reason


class CacheReadError(Exception):
    """The release cache could not be read (tools/cache.py). Deliberately not a ToolError: steps
    that degrade on a ToolError (PR details, engine statistics) must not swallow it, because an
    answer must never rest on a half-read cache. Only the workflow catches it, and fails the run."""

    def __init__(self, reason: str):
        super().__init__(f"cache: {reason}")
        self.reason = reason


class ToolUnavailable(ToolError):
    """A failure every further call of this tool would repeat this run (unreachable, rate limited,
    token rejected, the run's deadline): callers stop using the tool instead of retrying it."""
