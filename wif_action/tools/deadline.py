"""Tools cut off at the run's deadline, every network call bounded in wall-clock time.

Once the deadline passes, GitHub and a remote engine are no longer called
(their calls fail fast as skipped steps). A call in flight is bounded too: by the
time left, and by PER_CALL_SECONDS in total (indexer.wall_clock), because read
timeouts restart on every byte and a slow-drip server would otherwise hold the run
forever. A call cut off that way trips a breaker: that tool is not called again this
run. What is local still answers: the release cache, PR details cached in it, and a
local engine (the offline one), so the scan of cached notes completes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from indexer.wall_clock import WallClockExceeded, run_within
from wif_action.journal import Journal
from wif_action.models import Entry, IssueResolution, PullRequest, RelevantEntry, Request, Score, Usage, Verdict
from wif_action.ports import AnalysisTools, GitHub, Judge, PullRequestCache, ToolUnavailable
from wif_action.question import Question

DEADLINE_REASON = "not attempted: the run's deadline was reached"
PER_CALL_SECONDS = 60.0  # no single GitHub call (or engine call, unless it says `call_seconds`) may take longer
T = TypeVar("T")


class WallClock:
    """The deadline check and the total bound shared by one tool's calls (and its breaker)."""

    def __init__(self, tool: str, journal: Journal, per_call: float = PER_CALL_SECONDS):
        self.tool, self.journal, self.per_call = tool, journal, per_call
        self.broken: str | None = None

    def check(self) -> None:
        if self.journal.expired():
            raise ToolUnavailable(self.tool, DEADLINE_REASON)
        if self.broken:
            raise ToolUnavailable(self.tool, f"not called: {self.broken}")

    def call(self, work: Callable[[], T]) -> T:
        self.check()
        seconds = min(self.per_call, self.journal.seconds_left())
        try:
            return run_within(seconds, work)
        except WallClockExceeded:
            self.broken = f"an earlier call got no complete answer within {seconds:.0f} s"
            cut = "the run's deadline" if seconds < self.per_call else f"the {self.per_call:g} s bound per call"
            raise ToolUnavailable(self.tool, f"cut off at {cut} (no complete answer within {seconds:.0f} s)") from None


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
    """GitHub until the deadline, each call bounded; after it, PR details only from the release cache."""

    def __init__(self, github: GitHub, cache: PullRequestCache, journal: Journal):
        self._github, self._cache, self._journal = github, cache, journal
        self._clock = WallClock("github", journal)

    @property
    def requests_made(self) -> int:
        return self._github.requests_made

    def pull_request(self, repo: str, number: int) -> PullRequest:
        if self._journal.expired() or self._clock.broken:
            cached = self._cache.cached_pull(repo, number)
            if cached is None:
                self._clock.check()
            return cached  # type: ignore[return-value]  # check() raised when nothing was cached
        return self._clock.call(lambda: self._github.pull_request(repo, number))

    def issue_resolution(self, repo: str, number: int) -> IssueResolution:
        return self._clock.call(lambda: self._github.issue_resolution(repo, number))

    def tag_contains(self, repo: str, tag: str, sha: str) -> bool:
        return self._clock.call(lambda: self._github.tag_contains(repo, tag, sha))


class JudgeUntilDeadline:
    """A remote engine until the deadline, each call bounded; after it (or after a call was cut off)
    every call raises ToolUnavailable and the subtasks use the local fallback engine."""

    def __init__(self, judge: Judge, journal: Journal):
        self._judge, self._journal = judge, journal
        self.name, self.local = judge.name, judge.local
        self.rejected_claims = judge.rejected_claims  # the same list: the engine appends to it
        self._clock = WallClock("judge", journal, per_call=getattr(judge, "call_seconds", PER_CALL_SECONDS))
        bind = getattr(judge, "bind_deadline", None)
        if bind is not None:  # the engine retries a timed-out attempt only while the run has time left
            bind(journal.seconds_left)

    def extract_request(self, message: str) -> Request:
        return self._clock.call(lambda: self._judge.extract_request(message))

    def resolve_repository_ambiguous(self, context: str, choices: list[str]) -> str | None:
        return self._clock.call(lambda: self._judge.resolve_repository_ambiguous(context, choices))

    def filter_relevant_entries(self, entries: list[Entry], question: Question) -> list[RelevantEntry]:
        return self._clock.call(lambda: self._judge.filter_relevant_entries(entries, question))

    def score_pr_confidence(self, pr: PullRequest, entry: Entry | None, question: Question) -> Score:
        return self._clock.call(lambda: self._judge.score_pr_confidence(pr, entry, question))

    def verify_pr_match(self, pr: PullRequest, entry: Entry | None, question: Question) -> Verdict:
        return self._clock.call(lambda: self._judge.verify_pr_match(pr, entry, question))

    def usage(self) -> Usage:
        return self._judge.usage()
