"""GitHub REST lookups made on a question: PR details, linked issues, tag containment.

I/O only. Uses PyGithub's requester (auth, base URL, retries) with raw JSON
calls so every lookup is counted (its retries, bounded by indexer.github_client.BoundedRetry, are
not: a Retry-After beyond the allowed wait fails at once). Failures become ToolError with a
reason that is safe to show (never the server's free text). After a failure
that will repeat for every call — unreachable, timed out, rate limited, token
rejected, 5xx after retries — the client stops calling (a circuit breaker), so
a broken API costs one bounded attempt, not one per PR.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from wif_action.models import IssueResolution, PullRequest
from wif_action.ports import PullRequestCache, ToolError, ToolUnavailable

if TYPE_CHECKING:  # PyGithub, requests, PyJWT and cryptography load at the first lookup (most answers make none)
    from github import Github

_MAX_TIMELINE_PAGES = 3
READ_TOKEN_HINT = ("GitHub rejected the token (HTTP 401): GITHUB_TOKEN (the Action's `github-token`) is "
                   "invalid or expired; reading PRs and issues needs a valid token (of private repositories: "
                   "contents: read and pull-requests: read), or none at all for public ones")


class GitHubClient:
    """The GitHub port over PyGithub; counts requests and trips a breaker on connection errors.

    `github` may be a factory: the client (and PyGithub with it, ~110 ms of imports) is built at the first
    lookup, and most offline answers make none."""

    def __init__(self, github: Github | Callable[[], Github]):
        self._make = github if callable(github) else (lambda: github)
        self._client: Github | None = None
        self._requests = 0
        self._unreachable: str | None = None

    @property
    def requests_made(self) -> int:
        return self._requests

    def _get(self, path: str, parameters: dict | None = None, expect: type = dict) -> Any:
        """The JSON at `path`, of type `expect`; raises ToolError (tripping the breaker when it will repeat)."""
        if self._unreachable:
            raise ToolUnavailable("github", self._unreachable)
        self._requests += 1
        import requests
        from github import GithubException
        from github.GithubException import RateLimitExceededException, UnknownObjectException

        from indexer.github_client import ResponseTooLarge

        try:
            if self._client is None:
                self._client = self._make()
            _headers, data = self._client.requester.requestJsonAndCheck("GET", path, parameters=parameters)
        except UnknownObjectException as error:
            raise ToolError("github", f"not found: {path}") from error
        except RateLimitExceededException as error:
            raise self._trip("GitHub rate limit exhausted") from error
        except GithubException as error:  # BadCredentialsException too: any 401 repeats on every call
            if error.status == 401:
                said = error.data.get("message") if isinstance(error.data, dict) else None
                raise self._trip(READ_TOKEN_HINT + (f" (GitHub said: {str(said)[:120]})" if said else "")) from error
            if error.status == 429:
                raise self._trip("GitHub rate limit reached (HTTP 429)") from error
            raise ToolError("github", f"GitHub answered HTTP {error.status} for {path}") from error
        except requests.exceptions.RetryError as error:  # 5xx (or 403/429) on every retry
            raise self._trip(f"GitHub kept failing ({retry_reason(error)}) after retries") from error
        except ValueError as error:
            raise ToolError("github", f"GitHub sent a malformed response for {path}") from error
        except ResponseTooLarge as error:  # a server that sends this once sends it for every PR: stop calling
            raise self._trip(f"{error} for {path}") from error
        except Exception as error:  # requests/urllib3 connection errors and timeouts
            raise self._trip(f"cannot reach the GitHub API ({network_reason(error)})") from error
        if not isinstance(data, expect):
            raise ToolError("github", f"GitHub sent an unexpected response for {path}")
        return data

    def _trip(self, reason: str) -> ToolUnavailable:
        """Stop calling GitHub for the rest of the run: this failure would repeat on every call."""
        self._unreachable = reason
        return ToolUnavailable("github", reason)

    def pull_request(self, repo: str, number: int) -> PullRequest:
        path = f"/repos/{repo}/pulls/{int(number)}"
        data = _shaped(self._get(path), path, ("number", "title", "state"))
        try:
            return PullRequest(
                repo=repo, number=int(data.get("number") or number), title=_text(data.get("title")),
                body=_text(data.get("body")), state=_text(data.get("state")),
                merged=bool(data.get("merged") or data.get("merged_at")),
                merged_at=_text(data.get("merged_at")) or None,
                merge_commit_sha=_text(data.get("merge_commit_sha")) or None,
                url=_github_html_url(data.get("html_url"), repo, "pull", number),
            )
        except (TypeError, ValueError) as error:  # a field of the wrong type, a number that is not one
            raise ToolError("github", f"GitHub sent an unexpected response for {path}") from error

    def issue_resolution(self, repo: str, number: int) -> IssueResolution:
        path = f"/repos/{repo}/issues/{int(number)}"
        issue = _shaped(self._get(path), path, ("number", "state"))
        if issue.get("pull_request"):
            return IssueResolution(repo=repo, number=number, is_pull=True, state=str(issue.get("state") or ""))
        closing_prs: list[int] = []
        closing_commit = None
        for page in range(1, _MAX_TIMELINE_PAGES + 1):
            events = self._get(f"/repos/{repo}/issues/{int(number)}/timeline", {"per_page": 100, "page": page},
                               expect=list)
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


def _closing_commit(event: Any) -> str | None:
    if isinstance(event, dict) and event.get("event") == "closed" and isinstance(event.get("commit_id"), str):
        return event["commit_id"]
    return None


def _merged_cross_reference(event: Any, repo: str) -> int | None:
    if not isinstance(event, dict) or event.get("event") != "cross-referenced":
        return None
    issue = _dict(_dict(event.get("source")).get("issue"))
    pull = _dict(issue.get("pull_request"))
    source_repo = _dict(issue.get("repository")).get("full_name")
    if pull.get("merged_at") and (source_repo in (None, repo)) and isinstance(issue.get("number"), int):
        return issue["number"]
    return None


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    """A string field; anything else (a number, an object) is a malformed payload."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def retry_reason(error: Exception) -> str:
    """`HTTP 502` from urllib3's "too many 502 error responses" (requests' RetryError: retries exhausted)."""
    status = retry_status(error)
    return f"HTTP {status}" if status else "retries exhausted"


def retry_status(error: Exception) -> int:
    """The HTTP status retries kept getting (urllib3's "too many 502 error responses"), 0 when it does not say."""
    match = re.search(r"too many (\d{3}) error responses", str(error))
    return int(match.group(1)) if match else 0


def _shaped(data: dict[str, Any], path: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """`data` if it has the fields of a PR/issue. Why: PyGithub wraps a non-JSON 200 (an HTML page from a
    proxy) as {"data": "<html>…"}, which must be a failed lookup, not a PR with an empty title."""
    if not all(key in data for key in keys) or not isinstance(data.get("title", ""), str | None):
        raise ToolError("github", f"GitHub sent an unexpected response (not a PR or issue) for {path}")
    return data


def network_reason(error: Exception) -> str:
    """A short reason for a request that got no answer: "timed out", "connection refused", else the error's kind."""
    import requests

    text = str(error).lower()
    if isinstance(error, requests.exceptions.Timeout) or "timed out" in text:
        return "timed out"
    if "refused" in text:
        return "connection refused"
    return type(error).__name__


def _github_html_url(url: object, repo: str, kind: str, number: int) -> str:
    if isinstance(url, str) and re.match(r"^https://[^\s]+$", url):
        return url
    return f"https://github.com/{repo}/{kind}/{int(number)}"


class CachedPullRequests:
    """PR details from the release cache's `pulls` table first, the API on a miss."""

    def __init__(self, github: GitHubClient, cache: PullRequestCache):
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
