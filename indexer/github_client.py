"""The one way to build a PyGithub client: base URL, token, timeouts, retries from one policy.

Why one place: the indexer, the analysis lookups and the issue-comment writes each
used to build `Github` with their own timeouts and retries; a bound fixed in one
was missed in the others. Every `Github(...)` in the code base is made here.
"""

from __future__ import annotations

import os
import re
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import requests
from github import Auth, Github, GithubRetry
from github.GithubException import GithubException, RateLimitExceededException
from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass, Requester

from indexer.backoff import backoff_scale

DEFAULT_GITHUB_API_URL = "https://api.github.com"


def api_url_problem(url: str | None) -> str | None:
    """Why GITHUB_API_URL cannot be used, in one line; None when unset or an http(s) URL with a host.

    Why before any client is built: PyGithub takes any string and fails at its first request with AttributeError
    ("not a url"), AssertionError ("Unknown URL scheme") or ValueError ("Invalid IPv6 URL"), a traceback."""
    if not url:
        return None
    try:
        parts = urllib.parse.urlsplit(url.strip())
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 1) > 0
    except ValueError:  # an unclosed IPv6 bracket, a port out of range
        usable = False
    if usable:
        return None
    return (f"GITHUB_API_URL must be an http(s) URL such as {DEFAULT_GITHUB_API_URL} (GitHub Enterprise: "
            f"https://HOST/api/v3), not {url[:200]!r}")
# Largest body read from GitHub: one PR or issue (and its timeline/events pages) is a few hundred KB at most;
# a releases page of 100 releases or a CHANGELOG is a few MB. A reply beyond is cut off, not downloaded.
ITEM_BODY_BYTES = 5 * 1024 * 1024
LIST_BODY_BYTES = 32 * 1024 * 1024
_ITEM_PATH = re.compile(r"/repos/[^/]+/[^/]+/(?:pulls|issues)/\d+(?:/|$|\?)")
_CHUNK = 64 * 1024


class ResponseTooLarge(requests.exceptions.RequestException):
    """GitHub's reply is larger than the body cap (it was cut off after the cap, not downloaded)."""


def body_cap(path: str) -> int:
    """The cap for a request path: single PRs and issues get ITEM_BODY_BYTES, lists LIST_BODY_BYTES."""
    return ITEM_BODY_BYTES if _ITEM_PATH.search(path) else LIST_BODY_BYTES


def _read_capped(response: requests.Response, *_args: Any, **_kwargs: Any) -> requests.Response:
    """A requests response hook: read the body (requests has not yet) and stop past the cap.

    Why a hook: it runs before requests loads the content, so a 300 MB reply costs at most the cap in
    memory and on the wire, and the announced Content-Length is refused before reading anything."""
    cap = body_cap(response.request.path_url or "")
    announced = response.headers.get("Content-Length", "")
    if announced.isdigit() and int(announced) > cap:
        response.close()
        raise ResponseTooLarge(f"GitHub's reply is {int(announced):,} bytes, over the {cap:,}-byte cap")
    chunks, size = [], 0
    for chunk in response.iter_content(_CHUNK):  # decoded (a gzip bomb is capped too); errors as requests'
        size += len(chunk)
        if size > cap:
            response.close()
            raise ResponseTooLarge(f"GitHub's reply is over the {cap:,}-byte cap")
        chunks.append(chunk)
    response._content = b"".join(chunks)  # what `response.content` returns; requests documents no setter
    return response


class _CappedHTTPS(HTTPSRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session.hooks["response"].append(_read_capped)


class _CappedHTTP(HTTPRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session.hooks["response"].append(_read_capped)


@dataclass(frozen=True)
class GitHubPolicy:
    """How every GitHub client behaves. `retries=None` turns retrying off (tests count exact calls)."""

    base_url: str | None = None
    token: str | None = None
    timeout: float = 10
    retries: int | None = 2
    max_rate_limit_wait: float = 30
    seconds_between_requests: float | None = None
    backoff_scale: float = field(default_factory=backoff_scale)  # indexer.backoff: 0 in tests

    @property
    def api_url(self) -> str:
        return (self.base_url or DEFAULT_GITHUB_API_URL).rstrip("/")

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, **overrides: Any) -> GitHubPolicy:
        """GITHUB_API_URL (GitHub Enterprise too) and GITHUB_TOKEN (optional) from the environment."""
        policy = cls(base_url=env.get("GITHUB_API_URL") or None, token=(env.get("GITHUB_TOKEN") or "").strip() or None)
        return replace(policy, **overrides)


# GitHub's secondary rate limit for REST: at most 900 points a minute (a GET is one point)
# https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits
REQUESTS_PER_MINUTE = 900


class RequestGate:
    """What several clients of one run (the indexer's PR workers) wait for before each request.

    Why: GitHub asks clients that are told to wait (`Retry-After`, a secondary rate limit, a server error's
    back-off) to send nothing until then — not only the request that was told. A retry that sleeps holds the
    gate (`hold`), so every worker's next request waits as long (`enter`). `enter` also keeps to GitHub's
    secondary limit of `per_minute` requests in any minute: a burst is not slowed, a long run is paced
    (None: no pacing, for a local server).
    """

    def __init__(self, per_minute: int | None = REQUESTS_PER_MINUTE, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.per_minute = per_minute
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._until = 0.0
        self._starts: deque[float] = deque()

    def hold(self, seconds: float) -> None:
        """No request of any client before `seconds` from now."""
        with self._lock:
            self._until = max(self._until, self._clock() + seconds)

    def enter(self) -> None:
        """Wait until a request may start (a hold is over, and fewer than `per_minute` started in the last 60 s)."""
        while True:
            with self._lock:
                now = self._clock()
                while self._starts and self._starts[0] <= now - 60:
                    self._starts.popleft()
                wait = self._until - now
                if self.per_minute is not None and len(self._starts) >= self.per_minute:
                    wait = max(wait, self._starts[0] + 60 - now)
                if wait <= 0:
                    if self.per_minute is not None:
                        self._starts.append(now)
                    return
            self._sleep(wait)


def build_github(policy: GitHubPolicy, gate: RequestGate | None = None) -> Github:
    """A lazy PyGithub client following `policy`; PyGithub's own write sleep is replaced by our throttles.
    `gate`: shared with other clients, whose retries' waits then hold every client (RequestGate)."""
    client = Github(
        auth=Auth.Token(policy.token) if policy.token else None,
        base_url=policy.api_url,
        timeout=int(max(1, policy.timeout)),
        retry=github_retry(policy, gate),
        per_page=100,
        seconds_between_requests=policy.seconds_between_requests,
        seconds_between_writes=None,
        lazy=True,
    )
    _cap_bodies(client.requester, policy.api_url.startswith("https:"))
    return client


def github_retry(policy: GitHubPolicy, gate: RequestGate | None = None) -> BoundedRetry | None:
    """The retry policy of `policy`'s clients; None when retrying is off."""
    if policy.retries is None:
        return None
    return BoundedRetry(total=policy.retries, connect=1, read=1, backoff_factor=0.5,
                        max_rate_limit_wait=policy.max_rate_limit_wait,
                        secondary_rate_wait=min(60, policy.max_rate_limit_wait), wait_scale=policy.backoff_scale,
                        gate=gate)


def _cap_bodies(requester: Requester, https: bool) -> None:
    """Make this client's connections read bodies through the cap.

    PyGithub picks its connection class per client at construction; its only public hook,
    `Requester.injectConnectionClasses`, is process-wide and turns connection reuse off, so the class is
    set on this client's requester (and the public hook is the fallback if PyGithub renames the field)."""
    capped: type = _CappedHTTPS if https else _CappedHTTP
    if hasattr(requester, "_Requester__connectionClass"):
        requester._Requester__connectionClass = capped
    else:  # pragma: no cover - a PyGithub without the field
        Requester.injectConnectionClasses(_CappedHTTP, _CappedHTTPS)


class BoundedRetry(GithubRetry):
    """GithubRetry that never sleeps longer than `max_rate_limit_wait` for a `Retry-After`.

    Why: urllib3 sleeps whatever `Retry-After` a 403, 429 or 503 carries (up to six hours)
    before GithubRetry's own cap is consulted; an unattended run must fail fast instead.
    A 403/429 asking for too long a wait raises RateLimitExceededException, anything else
    GithubException, each carrying the response's status and headers. Every wait it does sleep
    (Retry-After, rate-limit reset, exponential back-off) is multiplied by `wait_scale` (indexer.backoff), and
    holds `gate` as long (the other clients sharing it wait too).
    """

    def __init__(self, wait_scale: float = 1.0, gate: RequestGate | None = None, **kwargs: Any) -> None:
        self.wait_scale = wait_scale
        self.gate = gate
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> Any:
        kw["wait_scale"] = self.wait_scale
        kw["gate"] = self.gate
        return super().new(**kw)

    def next_wait(self, response: Any = None) -> float:
        """Seconds before the next attempt: what urllib3's `sleep` would wait, times `wait_scale`."""
        asked = self.get_retry_after(response) if self.respect_retry_after_header and response else None
        return max(0.0, (asked or self.get_backoff_time()) * self.wait_scale)

    def sleep(self, response: Any = None) -> None:
        wait = self.next_wait(response)
        if wait > 0:
            if self.gate is not None:
                self.gate.hold(wait)
            time.sleep(wait)

    def increment(self, method: str | None = None, url: str | None = None, response: Any = None,
                  error: Exception | None = None, _pool: Any = None, _stacktrace: Any = None) -> Any:
        wait = self._asked_wait(response)
        limit = self.max_rate_limit_wait
        if wait is not None and limit is not None and wait > limit:
            data = {"message": f"GitHub asked to retry after {wait:g} s, more than the {limit:g} s allowed"}
            kind = RateLimitExceededException if response.status in (403, 429) else GithubException
            raise kind(response.status, data, dict(response.headers))
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def _asked_wait(self, response: Any) -> float | None:
        value = response.headers.get("Retry-After") if response is not None else None
        if not value:
            return None
        try:
            return float(self.parse_retry_after(value))
        except Exception:  # an unreadable Retry-After: urllib3 decides, as before
            return None


