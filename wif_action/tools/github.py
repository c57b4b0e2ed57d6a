"""GitHub REST lookups made on a question: PR details, linked issues, tag containment.

I/O only. Uses PyGithub's requester (auth, base URL, retries) with raw JSON
calls so every HTTP request is counted. Failures become ToolError with a
reason that is safe to show; after a connection failure the client stops
calling (a circuit breaker) so an unreachable API costs one timeout, not ten.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import quote

from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import RateLimitExceededException, UnknownObjectException

from wif_action.models import IssueResolution, PullRequest
from wif_action.ports import ToolError

DEFAULT_API_URL = "https://api.github.com"
_MAX_TIMELINE_PAGES = 3


def github_from_env(env: os._Environ | dict = os.environ, *, timeout: float = 10, retries: int = 2,
                    max_rate_limit_wait: float = 30) -> Github:
    """A PyGithub client for GITHUB_API_URL (GitHub Enterprise too) and GITHUB_TOKEN (optional)."""
    token = env.get("GITHUB_TOKEN") or None
    retry = GithubRetry(total=retries, connect=1, read=1, backoff_factor=0.5,
                        max_rate_limit_wait=max_rate_limit_wait, secondary_rate_wait=min(60, max_rate_limit_wait))
    return Github(
        auth=Auth.Token(token) if token else None,
        base_url=(env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        timeout=int(max(1, timeout)),
        retry=retry,
        per_page=100,
        seconds_between_requests=None,
        lazy=True,
    )


class GitHubClient:
    """The GitHub port over PyGithub; counts requests and trips a breaker on connection errors."""

    def __init__(self, github: Github):
        self._github = github
        self._requests = 0
        self._unreachable: str | None = None

    @property
    def requests_made(self) -> int:
        return self._requests

    def _get(self, path: str, parameters: dict | None = None) -> Any:
        if self._unreachable:
            raise ToolError("github", self._unreachable)
        self._requests += 1
        try:
            _headers, data = self._github.requester.requestJsonAndCheck("GET", path, parameters=parameters)
        except UnknownObjectException as error:
            raise ToolError("github", f"not found: {path}") from error
        except RateLimitExceededException as error:
            raise ToolError("github", "GitHub rate limit exhausted") from error
        except GithubException as error:
            raise ToolError("github", f"GitHub answered {error.status} for {path}") from error
        except ValueError as error:
            raise ToolError("github", f"GitHub sent a malformed response for {path}") from error
        except Exception as error:  # requests/urllib3 connection, timeout, retry exhaustion
            self._unreachable = f"cannot reach the GitHub API ({type(error).__name__})"
            raise ToolError("github", self._unreachable) from error
        if data is None:
            raise ToolError("github", f"GitHub sent an empty response for {path}")
        return data

    def pull_request(self, repo: str, number: int) -> PullRequest:
        data = self._get(f"/repos/{repo}/pulls/{int(number)}")
        return PullRequest(
            repo=repo, number=int(data.get("number") or number), title=str(data.get("title") or ""),
            body=str(data.get("body") or ""), state=str(data.get("state") or ""),
            merged=bool(data.get("merged") or data.get("merged_at")), merged_at=data.get("merged_at"),
            merge_commit_sha=data.get("merge_commit_sha"),
            url=_github_html_url(data.get("html_url"), repo, "pull", number),
        )

    def issue_resolution(self, repo: str, number: int) -> IssueResolution:
        issue = self._get(f"/repos/{repo}/issues/{int(number)}")
        if issue.get("pull_request"):
            return IssueResolution(repo=repo, number=number, is_pull=True, state=str(issue.get("state") or ""))
        closing_prs: list[int] = []
        closing_commit = None
        for page in range(1, _MAX_TIMELINE_PAGES + 1):
            events = self._get(f"/repos/{repo}/issues/{int(number)}/timeline", {"per_page": 100, "page": page})
            if not isinstance(events, list):
                raise ToolError("github", f"unexpected timeline for {repo}#{number}")
            for event in events:
                closing_commit = _closing_commit(event) or closing_commit
                pr = _merged_cross_reference(event, repo)
                if pr and pr not in closing_prs:
                    closing_prs.append(pr)
            if len(events) < 100:
                break
        return IssueResolution(repo=repo, number=number, closing_prs=closing_prs,
                               closing_commit=closing_commit, state=str(issue.get("state") or ""))

    def tag_contains(self, repo: str, tag: str, sha: str) -> bool:
        """Whether `tag` contains commit `sha` (compare sha...tag is ahead or identical)."""
        data = self._get(f"/repos/{repo}/compare/{quote(sha, safe='')}...{quote(tag, safe='')}",
                         {"per_page": 1})
        return data.get("status") in ("ahead", "identical")


def _closing_commit(event: dict) -> str | None:
    if isinstance(event, dict) and event.get("event") == "closed" and event.get("commit_id"):
        return str(event["commit_id"])
    return None


def _merged_cross_reference(event: dict, repo: str) -> int | None:
    if not isinstance(event, dict) or event.get("event") != "cross-referenced":
        return None
    issue = (event.get("source") or {}).get("issue") or {}
    pull = issue.get("pull_request") or {}
    source_repo = (issue.get("repository") or {}).get("full_name")
    if pull.get("merged_at") and (source_repo in (None, repo)) and isinstance(issue.get("number"), int):
        return issue["number"]
    return None


def _github_html_url(url: object, repo: str, kind: str, number: int) -> str:
    if isinstance(url, str) and re.match(r"^https://[^\s]+$", url):
        return url
    return f"https://github.com/{repo}/{kind}/{int(number)}"


class CachedPullRequests:
    """PR details from the release cache's `pulls` table first, the API on a miss."""

    def __init__(self, github: GitHubClient, cache: Any):
        self._github = github
        self._cache = cache

    @property
    def requests_made(self) -> int:
        return self._github.requests_made

    def pull_request(self, repo: str, number: int) -> PullRequest:
        cached = self._cache.cached_pull(repo, number)
        return cached if cached is not None else self._github.pull_request(repo, number)

    def issue_resolution(self, repo: str, number: int) -> IssueResolution:
        return self._github.issue_resolution(repo, number)

    def tag_contains(self, repo: str, tag: str, sha: str) -> bool:
        return self._github.tag_contains(repo, tag, sha)
