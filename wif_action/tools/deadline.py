"""Tools cut off at the run's deadline.

Once the deadline passes, GitHub and a remote engine are no longer called
(their calls fail fast as skipped steps), so a slow upstream costs at most the
one call in flight, bounded by its own timeout and retries. What is local still
answers: the release cache, PR details cached in it, and a local engine (the
offline one), so the scan of cached notes completes after the deadline.
"""

from __future__ import annotations

from wif_action.journal import Journal
from wif_action.models import Entry, IssueResolution, PullRequest, RelevantEntry, Request, Score, Usage, Verdict
from wif_action.ports import AnalysisTools, GitHub, Judge, ReleaseCache, ToolUnavailable

DEADLINE_REASON = "not attempted: the run's deadline was reached"


def until_deadline(tools: AnalysisTools, journal: Journal) -> AnalysisTools:
    """The run's tools with GitHub and every remote engine cut off at the deadline."""
    judge = _bounded_judge(tools.judge, journal)
    fallback = judge if tools.fallback is tools.judge else (
        _bounded_judge(tools.fallback, journal) if tools.fallback is not None else None)
    github = GitHubUntilDeadline(tools.github, tools.cache, journal)
    return AnalysisTools(cache=tools.cache, github=github, judge=judge, fallback=fallback)


def _bounded_judge(judge: Judge, journal: Journal) -> Judge:
    return judge if judge.local else JudgeUntilDeadline(judge, journal)


class GitHubUntilDeadline:
    """GitHub until the deadline; after it, PR details only from the release cache."""

    def __init__(self, github: GitHub, cache: ReleaseCache, journal: Journal):
        self._github, self._cache, self._journal = github, cache, journal

    def _check(self) -> None:
        if self._journal.expired():
            raise ToolUnavailable("github", DEADLINE_REASON)

    @property
    def requests_made(self) -> int:
        return self._github.requests_made

    def pull_request(self, repo: str, number: int) -> PullRequest:
        if self._journal.expired():
            cached = self._cache.cached_pull(repo, number)
            if cached is None:
                raise ToolUnavailable("github", DEADLINE_REASON)
            return cached
        return self._github.pull_request(repo, number)

    def issue_resolution(self, repo: str, number: int) -> IssueResolution:
        self._check()
        return self._github.issue_resolution(repo, number)

    def tag_contains(self, repo: str, tag: str, sha: str) -> bool:
        self._check()
        return self._github.tag_contains(repo, tag, sha)


class JudgeUntilDeadline:
    """A remote engine until the deadline; after it every call raises ToolUnavailable (the
    subtasks then use the local fallback engine)."""

    def __init__(self, judge: Judge, journal: Journal):
        self._judge, self._journal = judge, journal
        self.name, self.local = judge.name, judge.local
        self.rejected_claims = judge.rejected_claims  # the same list: the engine appends to it

    def _check(self) -> None:
        if self._journal.expired():
            raise ToolUnavailable("judge", DEADLINE_REASON)

    def extract_request(self, message: str) -> Request:
        self._check()
        return self._judge.extract_request(message)

    def resolve_repository_ambiguous(self, context: str, choices: list[str]) -> str | None:
        self._check()
        return self._judge.resolve_repository_ambiguous(context, choices)

    def filter_relevant_entries(self, entries: list[Entry], problem: str, request_text: str) -> list[RelevantEntry]:
        self._check()
        return self._judge.filter_relevant_entries(entries, problem, request_text)

    def score_pr_confidence(self, pr: PullRequest, entry: Entry | None, problem: str, request_text: str) -> Score:
        self._check()
        return self._judge.score_pr_confidence(pr, entry, problem, request_text)

    def verify_pr_match(self, pr: PullRequest, entry: Entry | None, problem: str, request_text: str) -> Verdict:
        self._check()
        return self._judge.verify_pr_match(pr, entry, problem, request_text)

    def summarize(self, text: str, purpose: str) -> str:
        self._check()
        return self._judge.summarize(text, purpose)

    def usage(self) -> Usage:
        return self._judge.usage()

