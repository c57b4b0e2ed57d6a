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
from wif_action.ports import ToolError

COMMENT_LIMIT = 65_000  # GitHub rejects comment bodies over 65,536 characters
_MAX_COMMENTS_SCANNED = 1_000
T = TypeVar("T")


class GitHubWriteError(ToolError):
    """A failed GitHub write; `status` is the HTTP status (0 when no response came back)."""

    def __init__(self, reason: str, status: int = 0):
        super().__init__("github", reason)
        self.status = status


def guarded(action: str, call: Callable[[], T]) -> T:
    """Run one GitHub call; any failure becomes GitHubWriteError."""
    try:
        return call()
    except GithubException as error:
        message = error.data.get("message") if isinstance(error.data, dict) else None
        reason = f"{action} failed: HTTP {error.status} {redact(str(message or ''))[:200]}".strip()
        raise GitHubWriteError(reason, error.status) from error
    except Exception as error:  # connection errors, timeouts, retry exhaustion
        raise GitHubWriteError(f"{action} failed: {type(error).__name__}") from error


class IssueThread:
    """Comments and reactions on one issue."""

    def __init__(self, github: Github, repo: str, issue: int):
        self._issue = github.get_repo(repo).get_issue(issue)
        self.repo, self.number = repo, issue

    def react(self, comment_id: int, content: str) -> None:
        """Add a reaction (eyes, rocket, confused, ...) to a comment; adding it twice is harmless."""
        guarded(f"reacting {content}", lambda: self._issue.get_comment(comment_id).create_reaction(content))

    def find_comment(self, marker: str) -> int | None:
        """The id of a bot comment containing `marker` (WIF's answer from an earlier run), if any."""
        def scan() -> int | None:
            for index, comment in enumerate(self._issue.get_comments()):
                if index >= _MAX_COMMENTS_SCANNED:
                    return None
                if marker in (comment.body or "") and _is_bot(comment.raw_data):
                    return int(comment.id)
            return None
        return guarded("listing comments", scan)

    def create(self, body: str) -> int:
        return guarded("creating the answer comment", lambda: int(self._issue.create_comment(fit(body)).id))

    def edit(self, comment_id: int, body: str) -> None:
        guarded("editing the answer comment", lambda: self._issue.get_comment(comment_id).edit(fit(body)))


def _is_bot(raw: dict[str, Any]) -> bool:
    """Why only bot comments: a person could paste the marker to have WIF overwrite their comment."""
    user = raw.get("user")
    return isinstance(user, dict) and user.get("type") == "Bot"


def fit(body: str) -> str:
    if len(body) <= COMMENT_LIMIT:
        return body
    return body[: COMMENT_LIMIT - 80] + "\n\n… (truncated; the full answer is in the workflow run's summary)"


def dispatch_workflow(github: Github, repo: str, workflow: str, ref: str, inputs: dict[str, str]) -> str:
    """Start a workflow_dispatch run; returns the run's web URL (or the workflow's runs page)."""
    def call() -> str:
        target = github.get_repo(repo).get_workflow(workflow)
        run = target.create_dispatch(ref=ref, inputs=inputs, throw=True, return_run_details=True)
        url = run.html_url if not isinstance(run, bool) else None
        return url or f"https://github.com/{repo}/actions/workflows/{workflow}"
    return guarded("dispatching the workflow", call)
