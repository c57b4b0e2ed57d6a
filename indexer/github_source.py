"""GitHub I/O for the indexer: releases (conditional, paged), CHANGELOG.md at a tag and on the default
branch (conditional), PR details.

Only this module talks to GitHub. Every PyGithub or network failure leaves it as
a `SourceError` whose message tells an operator what to do, so the indexer can
record it against one repository and carry on with the others.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
import urllib3.exceptions
from github import Github, GithubException
from github.Repository import Repository

from indexer.github_client import REQUESTS_PER_MINUTE, GitHubPolicy, RequestGate, ResponseTooLarge, build_github
from indexer.redaction import Redactor, redact, shown_url
from indexer.registry import SLUG
from indexer.store import ReleaseRecord
from indexer.wall_clock import WallClockExceeded, run_within

PER_PAGE = 100
PULL_WORKERS = 8  # PR details fetched at once (`pull_pool`): a small pool, paced by RequestGate
REPOSITORY_SECONDS = 300.0  # wall-clock budget of one repository's requests (a hung GitHub costs this once)
_NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')
_POOL_PREAMBLE = re.compile(r"^\S*HTTPS?Connection(?:Pool)?\([^)]*\):\s*")
# GitHub token shapes (classic and fine-grained PATs, app and Actions tokens), for server text we repeat.
T = TypeVar("T")


class SourceError(Exception):
    """A repository could not be fetched; `str(error)` is the operator-facing reason."""

    def __init__(self, slug: str, message: str, status: int = 0):
        super().__init__(message)
        self.slug = slug
        self.message = message
        self.status = status  # HTTP status, 0 when no response (network, bad slug, bad JSON)


@dataclass
class Page:
    """One page of `GET /repos/o/r/releases` (newest first); `releases` is None on 304."""

    status: int
    etag: str | None
    releases: list[ReleaseRecord] | None
    next_url: str | None


@dataclass
class DefaultChangelog:
    """CHANGELOG.md on the default branch: `status` 200 (`data` is the file's bytes), 304 (unchanged since
    `etag`) or 404 (no such file); `url` is where people read it."""

    status: int
    etag: str | None = None
    data: bytes | None = None
    url: str | None = None


RAW = "application/vnd.github.raw+json"


class ReleaseSource:
    """A PyGithub client that counts its requests and speaks in ReleaseRecords and SourceErrors.

    `pull` may run on several threads at once (`pull_pool`): each thread gets its own PyGithub client (one
    client's connection object holds the request being sent, so it is not thread-safe); all of them share the
    request count, the repository's wall-clock budget and one RequestGate (a `Retry-After` pauses them all).
    """

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: int = 15,
        retries: int | None = 3,
        max_rate_limit_wait: float = 60,
        seconds_between_requests: float | None = None,
        repository_seconds: float = REPOSITORY_SECONDS,
        requests_per_minute: int | None = REQUESTS_PER_MINUTE,
        pull_workers: int = PULL_WORKERS,
    ):
        policy = GitHubPolicy(base_url=base_url, token=token, timeout=timeout, retries=retries,
                              max_rate_limit_wait=max_rate_limit_wait,
                              seconds_between_requests=seconds_between_requests)
        self.base_url = policy.api_url
        # Bounded: a scheduled run should fail one repository quickly, not sleep for an hour.
        # retries=None turns retrying off (tests: a scripted fault is answered exactly once).
        self._policy = policy
        self._gate = RequestGate(requests_per_minute)  # None: unpaced (a local fake, a mirror)
        self.github = build_github(policy, self._gate)
        self._clients = [self.github]
        self._owner = threading.current_thread()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.pull_workers = max(1, pull_workers)
        self.requests = 0
        self._token = token or ""
        self.redactor = Redactor(extra=(self._token,))  # what is stored passes it: the environment's secrets
        self.repository_seconds = repository_seconds
        self._repository_deadline = time.monotonic() + repository_seconds

    @classmethod
    def from_env(cls, **kwargs: Any) -> ReleaseSource:
        """The client the CLI and the workflow use: GITHUB_API_URL and GITHUB_TOKEN."""
        return cls(os.environ.get("GITHUB_API_URL") or None, os.environ.get("GITHUB_TOKEN") or None, **kwargs)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for client in self._clients:
            client.close()

    def pull_pool(self) -> ThreadPoolExecutor:
        """The `pull_workers` threads that fetch PR details at once, started on first use, ended by `close`."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.pull_workers, thread_name_prefix="wif-pulls")
        return self._pool

    def _client(self) -> Github:
        """This thread's PyGithub client: the source's own on the thread that made it, else one per thread."""
        if threading.current_thread() is self._owner:
            return self.github
        client: Github | None = getattr(self._local, "github", None)
        if client is None:
            client = self._local.github = build_github(self._policy, self._gate)
            with self._lock:
                self._clients.append(client)
        return client

    # ------------------------------------------------------------------ releases
    def first_page(self, slug: str, etag: str | None) -> Page:
        """The newest page, conditional on `etag`: a 304 costs no rate limit and carries no body."""
        check_slug(slug)
        headers = {"If-None-Match": etag} if etag else {}
        return self._page(slug, f"/repos/{slug}/releases", {"per_page": PER_PAGE}, headers)

    def next_page(self, slug: str, page: Page) -> Page | None:
        """The page after `page` (its Link header's next URL), or None at the end."""
        if not page.next_url:
            return None
        # PyGithub reduces an absolute URL to path + query on its own base host, so a link to another
        # host would silently be read from this one: refuse it instead.
        if not _same_origin(page.next_url, self.base_url):
            raise SourceError(slug, f"GitHub's next-page link points to another host ({page.next_url[:200]}); "
                                    "not followed")
        try:
            return self._page(slug, page.next_url, {}, {})
        except SourceError as error:
            if error.status != 404:
                raise
            raise SourceError(slug, f"GitHub's next-page link {page.next_url[:200]} led nowhere (HTTP 404)",
                              404) from error

    def pages(self, slug: str) -> Iterator[Page]:
        """Every page, newest first, unconditionally."""
        page: Page | None = self.first_page(slug, None)
        while page is not None:
            yield page
            page = self.next_page(slug, page)

    def _page(self, slug: str, url: str, parameters: dict, headers: dict) -> Page:
        status, response_headers, text = self._call(
            slug, lambda github: github.requester.requestJson("GET", url, parameters=parameters, headers=headers))
        if status == 304:
            return Page(304, _header(response_headers, "etag") or headers.get("If-None-Match"), None, None)
        data = _json(slug, text)
        if status >= 400:
            raise self._status_error(slug, status, response_headers, data)
        if not isinstance(data, list):
            raise SourceError(slug, f"GitHub returned an unexpected releases payload (HTTP {status})")
        link = _header(response_headers, "link") or ""
        match = _NEXT_LINK.search(link)
        return Page(status, _header(response_headers, "etag"), _records(slug, status, data),
                    match.group(1) if match else None)

    # ------------------------------------------------------------ other content
    def changelog_at(self, slug: str, tag: str, path: str = "CHANGELOG.md") -> str | None:
        """CHANGELOG.md as of a tag (decoded), or None when the file does not exist there."""
        check_slug(slug)
        try:
            content = self._call(slug, lambda github: _repo(github, slug).get_contents(path, ref=tag))
        except SourceError as error:
            if error.status == 404:
                return None
            raise
        if isinstance(content, list) or content.type != "file":
            return None
        if content.encoding != "base64":  # files over 1 MB come without content: ask for the raw file
            return self._raw_file(slug, path, tag)
        return content.decoded_content.decode("utf-8", "replace")

    def default_changelog(self, slug: str, etag: str | None, path: str = "CHANGELOG.md") -> DefaultChangelog:
        """The default branch's CHANGELOG.md (the contents API without `ref`), conditional on `etag`: an
        unchanged file costs one 304. Asked raw, so a file of any size up to the body cap is one request;
        a server that answers JSON anyway is read from its base64 `content`. Bytes, never decoded here."""
        check_slug(slug)
        headers = {"Accept": RAW} | ({"If-None-Match": etag} if etag else {})
        status, response_headers, text = self._call(slug, lambda github: github.requester.requestJson(
            "GET", f"/repos/{slug}/contents/{path}", headers=headers))
        url = f"https://github.com/{slug}/blob/HEAD/{path}"
        if status == 304:
            return DefaultChangelog(304, _header(response_headers, "etag") or etag, url=url)
        if status == 404:
            return DefaultChangelog(404, url=url)
        if status >= 400:
            raise self._status_error(slug, status, response_headers, _json(slug, text, strict=False))
        new_etag = _header(response_headers, "etag")
        if "json" not in (_header(response_headers, "content-type") or ""):
            return DefaultChangelog(200, new_etag, (text or "").encode("utf-8", "surrogateescape"), url)
        return DefaultChangelog(200, new_etag, _base64_content(slug, _json(slug, text)), url)

    def _raw_file(self, slug: str, path: str, tag: str) -> str | None:
        status, headers, text = self._call(slug, lambda github: github.requester.requestJson(
            "GET", f"/repos/{slug}/contents/{path}", parameters={"ref": tag},
            headers={"Accept": "application/vnd.github.raw+json"}))
        if status == 404:
            return None
        if status >= 400:
            raise self._status_error(slug, status, headers, _json(slug, text, strict=False))
        if "json" in (_header(headers, "content-type") or ""):
            return None  # the server ignored the raw media type (no large-file support): give up quietly
        return text

    def pull(self, slug: str, number: int) -> dict | None:
        """A PR's details as stored in the `pulls` table, or None when #number is not a PR (404)."""
        check_slug(slug)
        try:
            pr = self._call(slug, lambda github: _completed(_repo(github, slug).get_pull(number)))
        except SourceError as error:
            if error.status == 404:
                return None
            raise
        if not isinstance(pr.raw_data, dict) or pr.raw_data.get("number") != number:
            raise SourceError(slug, f"GitHub returned an unexpected payload for PR #{number}")
        return {
            "number": number,
            "title": pr.title or "",
            "body": pr.body or "",
            "state": pr.state or "",
            "merged": int(bool(pr.merged)),
            "merged_at": _iso(pr.merged_at),
            "merge_commit_sha": pr.merge_commit_sha,
            "url": pr.html_url or f"https://github.com/{slug}/pull/{number}",
        }

    def rate_limit(self) -> tuple[int, int] | None:
        """(remaining, limit) from the latest response's headers; None before any response.

        Why not `Github.rate_limiting`: it spends a request on /rate_limit when nothing is known yet. With
        several clients (`pull_pool`) the latest is the reading of the newest reset window with the fewest left.
        """
        readings = [(client.requester.rate_limiting_resettime, *client.requester.rate_limiting)
                    for client in list(self._clients)]
        known = [reading for reading in readings if reading[2] >= 0]
        if not known:
            return None
        _, remaining, limit = max(known, key=lambda reading: (reading[0], -reading[1]))
        return remaining, limit

    # -------------------------------------------------------------------- helpers
    def _status_error(self, slug: str, status: int, headers: Any, data: Any) -> SourceError:
        """The SourceError for an HTTP error, without the token should the server's message quote it."""
        error = _error_for_status(slug, status, headers, data, shown_url(self.base_url))
        return SourceError(slug, redact(error.message, self._token), status)

    def begin_repository(self) -> None:
        """Start one repository's wall-clock budget: its requests together may not take longer."""
        self._repository_deadline = time.monotonic() + self.repository_seconds

    def _call(self, slug: str, request: Callable[[Github], T]) -> T:
        """Run one HTTP request within the repository's budget, counting it; failures become SourceError.

        Why a wall-clock bound: read timeouts restart on every byte, so a slow-drip server would
        otherwise hold the whole index run.
        """
        client = self._client()
        with self._lock:
            self.requests += 1
        self._gate.enter()
        left = self._repository_deadline - time.monotonic()
        try:
            return run_within(left, lambda: request(client))
        except WallClockExceeded:
            raise self._unreachable(slug, f"no complete answer within the repository's "
                                          f"{self.repository_seconds:g} s budget") from None
        except GithubException as error:
            raise self._status_error(slug, error.status, error.headers or {}, error.data) from error
        except requests.exceptions.RetryError as error:
            raise SourceError(slug, f"GitHub kept failing after retries ({_reason(error)})", 502) from error
        except ResponseTooLarge as error:  # cut off at the cap, not downloaded: a broken proxy or a hostile server
            raise SourceError(slug, f"{error} (at {shown_url(self.base_url)}); not read") from error
        except ValueError as error:  # PyGithub's own JSON decoding (PR details, contents)
            raise SourceError(slug, f"GitHub returned malformed JSON ({str(error)[:200]})") from error
        except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, OSError) as error:
            raise self._unreachable(slug, _reason(error)) from error

    def _unreachable(self, slug: str, why: str) -> SourceError:
        """GitHub not reached: the URL without its credentials (`shown_url`), the environment's secrets redacted
        from the reason (a library's error may quote the URL as configured)."""
        return SourceError(slug, self.redactor.text(f"cannot reach GITHUB_API_URL ({shown_url(self.base_url)}: "
                                                    f"{why})") or "")


def _repo(github: Github, slug: str) -> Repository:
    return github.get_repo(slug)  # lazy client: no request


def _same_origin(url: str, base_url: str) -> bool:
    """Whether an absolute `url` is on the API's scheme, host and port (a relative one always is)."""
    target, base = urlsplit(url), urlsplit(base_url)
    if not target.netloc:
        return True
    return (target.scheme, target.hostname, target.port) == (base.scheme, base.hostname, base.port)


def check_slug(slug: str) -> None:
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise SourceError(str(slug), f"'{slug}' is not an owner/name slug")


def _error_for_status(slug: str, status: int, headers: Any, data: Any, base_url: str) -> SourceError:
    message = data.get("message", "") if isinstance(data, dict) else str(data or "")
    if status == 404:
        text = f"repository {slug} not found (or not visible to this token)"
    elif status == 401:
        text = "GitHub rejected the token (401); check GITHUB_TOKEN"
    elif status in (403, 429) and _is_rate_limit(headers, message):
        text = f"GitHub rate limit exhausted; resets at {_reset_time(headers)}"
    elif status == 403:
        text = f"GitHub refused access (403): {message or 'forbidden'}"
    elif status >= 500:
        text = f"GitHub server error (HTTP {status}) at {base_url}: {message or 'no details'}"
    else:
        text = f"GitHub returned HTTP {status}: {message or 'no details'}"
    return SourceError(slug, text, status)


def _is_rate_limit(headers: Any, message: str) -> bool:
    return _header(headers, "x-ratelimit-remaining") == "0" or "rate limit" in message.lower() \
        or _header(headers, "retry-after") is not None


def _reset_time(headers: Any) -> str:
    reset = _header(headers, "x-ratelimit-reset")
    try:
        return datetime.fromtimestamp(int(float(reset or "")), UTC).strftime("%H:%M UTC")
    except (TypeError, ValueError):
        retry_after = _header(headers, "retry-after")
        return f"in {retry_after}s" if retry_after else "an unknown time"


def _header(headers: Any, name: str) -> str | None:
    """Case-insensitive header lookup over PyGithub's lower-cased dicts and urllib3's header objects."""
    if not headers:
        return None
    for key, value in headers.items():
        if key.lower() == name:
            return str(value)
    return None


def _json(slug: str, text: str, *, strict: bool = True) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError as error:
        if not strict:
            return text[:200]
        raise SourceError(slug, f"GitHub returned malformed JSON ({error})") from error


def _reason(error: BaseException) -> str:
    """The innermost cause without urllib3's pool preamble: "[Errno 111] Connection refused"."""
    while True:
        inner = getattr(error, "reason", None)
        if not isinstance(inner, BaseException):
            inner = error.args[0] if error.args and isinstance(error.args[0], BaseException) else None
        if inner is None:
            break
        error = inner
    text = _POOL_PREAMBLE.sub("", str(error)).replace("Failed to establish a new connection: ", "")
    return text if len(text) < 300 else text[:297] + "..."


def _base64_content(slug: str, data: Any) -> bytes:
    """The bytes of a contents-API JSON reply; a file too large for base64 (no content) reads as empty."""
    if not isinstance(data, dict) or data.get("type", "file") != "file":
        raise SourceError(slug, "GitHub returned an unexpected contents payload for CHANGELOG.md")
    if data.get("encoding") != "base64":
        return b""
    try:
        return base64.b64decode(str(data.get("content") or ""), validate=False)
    except ValueError as error:
        raise SourceError(slug, f"GitHub returned undecodable CHANGELOG.md content ({error})") from error


# A release as GitHub's REST API writes it: each field WIF stores, and the JSON types it may have (null included)
_RELEASE_FIELDS: dict[str, tuple[type, ...]] = {
    "tag_name": (str,), "name": (str, type(None)), "body": (str, type(None)), "draft": (bool, type(None)),
    "prerelease": (bool, type(None)), "published_at": (str, type(None)), "html_url": (str, type(None)),
}


def _release_problem(index: int, item: object) -> str | None:
    """Why the page's `index`-th release is not one (None when it is). Why: a proxy's or a broken server's page of
    other JSON types ended `wif index` with a TypeError or AttributeError traceback, or was stored misread
    (`"prerelease": "yes"` as a prerelease, a tag 110 as "110")."""
    if not isinstance(item, dict):
        return f"release {index} is {_json_type(item)}, not an object"
    if isinstance(item.get("id"), bool) or not isinstance(item.get("id"), int):
        return f"release {index} has no numeric id"
    for key, types in _RELEASE_FIELDS.items():
        if not isinstance(item.get(key), types):
            return f"release {index} has `{key}` of type {_json_type(item.get(key))}"
    return None


def _json_type(value: object) -> str:
    names = {type(None): "null", bool: "boolean", int: "number", float: "number", str: "string", list: "list"}
    return names.get(type(value), "object")


def _records(slug: str, status: int, data: list) -> list[ReleaseRecord]:
    """The page's releases; SourceError for a page holding anything but releases (the repository fails, the run
    goes on)."""
    problem = next(filter(None, (_release_problem(index, item) for index, item in enumerate(data))), None)
    if problem:
        raise SourceError(slug, f"GitHub returned an unexpected releases payload (HTTP {status}): {problem}")
    return [_record(item) for item in data]


def _record(item: dict) -> ReleaseRecord:
    return ReleaseRecord(
        id=int(item["id"]),
        tag=str(item["tag_name"]),
        name=item.get("name"),
        body=item.get("body") or "",
        draft=bool(item.get("draft")),
        prerelease=bool(item.get("prerelease")),
        published_at=item.get("published_at"),
        url=item.get("html_url"),
    )


def _completed(obj: T) -> T:
    """Fetch a lazy PyGithub object now, inside `_call`, so its errors are translated and counted."""
    _ = obj.raw_data  # type: ignore[attr-defined]
    return obj


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
