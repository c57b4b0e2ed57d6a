"""GitHub issue comments, reactions and workflow dispatch via PyGithub. No workflow logic.

Why separate from tools/github.py: these are writes made for delivery (with
the job's `issues: write` token), not the read-only lookups of the analysis.
Failures become ToolError with a short, showable reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from github import Github, GithubException

from indexer.redaction import redact
from indexer.wall_clock import WallClockExceeded, run_within
from wif_action.ports import ToolError

COMMENT_LIMIT = 65_000  # GitHub rejects comment bodies over 65,536 characters
_MAX_COMMENTS_SCANNED = 1_000
T = TypeVar("T")


class GitHubWriteError(ToolError):
    """A failed GitHub write; `status` is the HTTP status (0 when no response came back)."""

    def __init__(self, reason: str, status: int = 0):
        super().__init__("github", reason)
        self.status = status


WRITE_CALL_SECONDS = 30.0  # total bound on one comment/reaction/dispatch call (a hung GitHub costs one)
_REPEATS = {0, 401, 403, 429, 500, 502, 503, 504}  # failures every later call would hit too
TOKEN_HINT = ("GitHub rejected the token (HTTP 401): the Action's `github-token` (GITHUB_TOKEN) needs "
              "`issues: write` on this repository to comment and react")


def guarded(action: str, call: Callable[[], T], seconds: float = WRITE_CALL_SECONDS) -> T:
    """Run one GitHub call within `seconds` in total; any failure becomes GitHubWriteError."""
    try:
        return run_within(seconds, call)
    except WallClockExceeded as error:
        raise GitHubWriteError(f"{action} failed: GitHub did not answer within {error.seconds:g} s") from None
    except GithubException as error:
        if error.status == 401:
            raise GitHubWriteError(f"{action} failed: {TOKEN_HINT}", 401) from error
        message = error.data.get("message") if isinstance(error.data, dict) else None
        reason = f"{action} failed: HTTP {error.status} {redact(str(message or ''))[:200]}".strip()
        raise GitHubWriteError(reason, error.status) from error
    except Exception as error:  # connection errors, timeouts, retry exhaustion
        raise _unanswered(action, error) from error


def _unanswered(action: str, error: Exception) -> GitHubWriteError:
    """Retries exhausted on 5xx/429 ("GitHub kept failing (HTTP 502) after retries", that status: the breaker
    knows it repeats), else no answer at all ("cannot reach GitHub (connection refused)"); never a bare class name
    such as "RetryError"."""
    import requests

    from wif_action.tools.github import network_reason, retry_reason, retry_status

    if isinstance(error, requests.exceptions.RetryError):
        reason, status = retry_reason(error), retry_status(error)
        status = 0 if status == 403 else status  # a secondary rate limit, not the token (DISPATCH_HINTS[403])
        return GitHubWriteError(f"{action} failed: GitHub kept failing ({reason}) after retries", status)
    if isinstance(error, ValueError):  # json.JSONDecodeError: PyGithub parses every reply, an error's too
        return GitHubWriteError(f"{action} failed: GitHub's reply was not JSON (cut off, or a proxy's page)")
    return GitHubWriteError(f"{action} failed: cannot reach GitHub ({network_reason(error)})")


class IssueThread:
    """Comments and reactions on one issue, behind a circuit breaker.

    Why the breaker: after a failure that every later call would hit too (no answer, token
    rejected, rate limited, 5xx) the run stops calling, so a hung or refusing GitHub costs one
    bounded call, not one per progress edit.
    """

    def __init__(self, github: Github, repo: str, issue: int, call_seconds: float = WRITE_CALL_SECONDS):
        self._issue = github.get_repo(repo).get_issue(issue)
        self.repo, self.number = repo, issue
        self._broken: str | None = None
        self._seconds = call_seconds

    def _call(self, action: str, call: Callable[[], T]) -> T:
        if self._broken:
            raise GitHubWriteError(f"{action}: not attempted ({self._broken})")
        try:
            return guarded(action, call, self._seconds)
        except GitHubWriteError as error:
            if error.status in _REPEATS:
                self._broken = f"an earlier call failed: {error.reason}"
            raise

    def react(self, comment_id: int, content: str) -> None:
        """Add a reaction (eyes, rocket, confused, ...) to a comment; adding it twice is harmless."""
        self._call(f"reacting {content}", lambda: self._issue.get_comment(comment_id).create_reaction(content))

    def find_comment(self, marker: str) -> int | None:
        """The id of a bot comment containing `marker` (WIF's answer from an earlier run), if any."""
        def scan() -> int | None:
            for index, comment in enumerate(self._issue.get_comments()):
                if index >= _MAX_COMMENTS_SCANNED:
                    return None
                if marker in (comment.body or "") and _is_bot(comment.raw_data):
                    return int(comment.id)
            return None
        return self._call("listing comments", scan)

    def create(self, body: str) -> int:
        return self._call("creating the answer comment", lambda: int(self._issue.create_comment(fit(body)).id))

    def edit(self, comment_id: int, body: str) -> None:
        self._call("editing the answer comment", lambda: self._issue.get_comment(comment_id).edit(fit(body)))


def _is_bot(raw: dict[str, Any]) -> bool:
    """Why only bot comments: a person could paste the marker to have WIF overwrite their comment."""
    user = raw.get("user")
    return isinstance(user, dict) and user.get("type") == "Bot"


def fit(body: str) -> str:
    if len(body) <= COMMENT_LIMIT:
        return body
    return body[: COMMENT_LIMIT - 80] + "\n\n… (truncated; the full answer is in the workflow run's summary)"


# What to do about a refused workflow_dispatch, by HTTP status (`wif dispatch` and the Slack app).
DISPATCH_HINTS = {
    401: "the token was rejected: set GITHUB_TOKEN (or GH_TOKEN) to a token with Actions: write on the repository",
    403: "the token may not start workflows: it needs Actions: write on the repository",
    404: "repository or workflow not found (check --repo and --workflow, and that the token can see the repository)",
    422: "GitHub refused the inputs or ref: check --ref names a branch, and that the workflow file on that branch "
         "has a workflow_dispatch trigger declaring these inputs",
}


def dispatch_workflow(github: Github, repo: str, workflow: str, ref: str, inputs: dict[str, str]) -> str:
    """Start a workflow_dispatch run; returns the run's web URL (or the workflow's runs page).

    A reply that is not JSON leaves unknown whether GitHub started the run (PyGithub parses a 2xx and an error
    alike): the error says so and where to look, so nobody retries into a second run unawares."""
    runs_page = f"https://github.com/{repo}/actions/workflows/{workflow}"
    sent: list[bool] = []

    def call() -> str:
        target = github.get_repo(repo).get_workflow(workflow)
        sent.append(True)
        run = target.create_dispatch(ref=ref, inputs=inputs, throw=True, return_run_details=True)
        return _run_url(run) or runs_page
    try:
        return guarded("dispatching the workflow", call)
    except GitHubWriteError as error:
        if sent and isinstance(error.__cause__, ValueError):
            raise GitHubWriteError(f"{error.reason}; whether the run started is unknown, see {runs_page}",
                                   error.status) from error
        raise


def _run_url(run: object) -> str | None:
    """The started run's page from the reply's run details; None when there are none or they are malformed (the
    run was started all the same: the reply was a 2xx)."""
    try:
        url = getattr(run, "html_url", None) if not isinstance(run, bool) else None
    except Exception:  # PyGithub's BadAttributeException: `html_url` of another JSON type
        return None
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else None


