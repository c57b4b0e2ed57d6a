"""Slack Web API I/O: post, update and read a thread. No workflow logic.

Why a wrapper: every Slack failure (ok:false, HTTP errors, refused
connections) becomes one ToolError with a short, showable reason, so delivery
can record a skipped step instead of crashing. 429s are retried after
Retry-After by slack_sdk's handler, but never for longer than MAX_RATE_LIMIT_WAIT.
Failures that would repeat for every call (bad token, rate limit, unreachable)
stop further calls for the rest of the run.
"""

from __future__ import annotations

import io
import random
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any
from urllib.error import HTTPError

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.handler import RetryState
from slack_sdk.http_retry.interval_calculator import RetryIntervalCalculator
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse

from indexer.backoff import backoff_scale
from indexer.wall_clock import WallClockExceeded, run_within
from wif_action.ports import ToolError

DEFAULT_API_URL = "https://slack.com/api/"
SLACK_CALL_SECONDS = 15.0  # total bound on one Web API call (a slow drip is cut off here)
MARKDOWN_LIMIT = 12_000  # Slack's limit for markdown_text
_TRUNCATED = "\n\n… (truncated; the full answer is in the GitHub Actions job summary)"
_MAX_THREAD_PAGES = 5
MAX_RATE_LIMIT_WAIT = 10.0  # seconds; a longer Retry-After is not waited for
# ok:false errors every later call would repeat: the token or the workspace is the problem.
_FATAL_ERRORS = frozenset({"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired",
                           "no_permission", "ekm_access_denied", "team_access_not_granted", "ratelimited"})


class ScaledInterval(RetryIntervalCalculator):
    """slack_sdk's exponential back-off between attempts, times WIF_BACKOFF_SCALE (indexer.backoff)."""

    def __init__(self, scale: float | None = None, inner: RetryIntervalCalculator | None = None):
        self.scale = backoff_scale() if scale is None else scale
        self.inner = inner or BackoffRetryIntervalCalculator()

    def calculate_sleep_duration(self, current_attempt: int) -> float:
        return float(self.inner.calculate_sleep_duration(current_attempt)) * self.scale


class BoundedRateLimitRetry(RateLimitErrorRetryHandler):
    """slack_sdk's 429 handler, except that a Retry-After over `max_wait` seconds is not waited for, and
    the wait it does take is scaled by WIF_BACKOFF_SCALE (indexer.backoff)."""

    def __init__(self, max_retry_count: int = 2, max_wait: float = MAX_RATE_LIMIT_WAIT,
                 wait_scale: float | None = None):
        super().__init__(max_retry_count=max_retry_count)
        self.max_wait = max_wait
        self.wait_scale = backoff_scale() if wait_scale is None else wait_scale

    def next_wait(self, response: HttpResponse | None) -> float:
        """slack_sdk's wait for a 429: Retry-After (1 when absent) plus up to 1 s of jitter, scaled."""
        return (_retry_after(response) + random.random()) * self.wait_scale

    def prepare_for_next_attempt(self, *, state: RetryState, request: HttpRequest,
                                 response: HttpResponse | None = None, error: Exception | None = None) -> None:
        if response is None:
            raise error or RuntimeError("a rate-limit retry without a response")
        state.next_attempt_requested = True
        wait = self.next_wait(response)
        if wait > 0:
            time.sleep(wait)
        state.increment_current_attempt()

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if not super()._can_retry(state=state, request=request, response=response, error=error):
            return False
        return _retry_after(response) <= self.max_wait


def _retry_after(response: HttpResponse | None) -> float:
    """The Retry-After in seconds (1 when absent, as slack_sdk assumes; infinite when unreadable)."""
    headers = response.headers if response is not None else {}
    values = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if not values:
        return 1.0
    try:
        return float(values[0] if isinstance(values, list) else values)
    except ValueError:
        return float("inf")


SLACK_BODY_BYTES = 8 * 1024 * 1024  # a Web API reply is a few KB; 200 thread messages well under 1 MB


class SlackResponseTooLarge(SlackRequestError):
    """Slack's reply is larger than SLACK_BODY_BYTES (it was cut off there, not downloaded)."""


class CappedWebClient(WebClient):
    """slack-sdk's WebClient, except that no reply body is read past `body_cap` bytes.

    Why: slack-sdk reads a whole reply into memory (a 300 MB reply from a broken proxy took 683 MB).
    The override replaces only the read of slack-sdk's urllib request (same opener, proxy, TLS context);
    an oversize reply raises SlackResponseTooLarge, which no retry handler retries."""

    body_cap = SLACK_BODY_BYTES

    def _perform_urllib_http_request_internal(self, url: str, req: urllib.request.Request) -> dict[str, Any]:
        if not url.lower().startswith("http"):
            raise SlackRequestError(f"Invalid URL detected: {url}")
        handlers: list[urllib.request.BaseHandler] = [urllib.request.HTTPSHandler(context=self.ssl)]
        if self.proxy:
            handlers.insert(0, urllib.request.ProxyHandler({"http": str(self.proxy), "https": str(self.proxy)}))
        try:
            resp = urllib.request.build_opener(*handlers).open(req, timeout=self.timeout)
        except HTTPError as error:  # slack-sdk reads an error's body itself: hand it a capped copy
            body = self._read(error)
            raise HTTPError(error.url, error.code, error.msg, error.headers, io.BytesIO(body)) from None
        with resp:
            body = self._read(resp)
        charset = resp.headers.get_content_charset() or "utf-8"
        return {"status": resp.status, "headers": resp.headers, "body": body.decode(charset, errors="replace")}

    def _read(self, resp: Any) -> bytes:
        announced = str(resp.headers.get("Content-Length") or "")
        if announced.isdigit() and int(announced) > self.body_cap:
            resp.close()
            raise SlackResponseTooLarge(f"Slack's reply is {int(announced):,} bytes, over the "
                                        f"{self.body_cap:,}-byte cap")
        body = bytes(resp.read(self.body_cap + 1))
        if len(body) > self.body_cap:
            resp.close()
            raise SlackResponseTooLarge(f"Slack's reply is over the {self.body_cap:,}-byte cap")
        return body


def web_client(token: str | None, base_url: str | None = None, timeout: int = 10) -> WebClient:
    """The one slack-sdk WebClient construction (delivery and the Slack app), for SLACK_API_URL or Slack;
    replies are capped at SLACK_BODY_BYTES, connection retries back off by WIF_BACKOFF_SCALE."""
    return CappedWebClient(token=token, base_url=base_url or DEFAULT_API_URL, timeout=timeout,
                           retry_handlers=[ConnectionErrorRetryHandler(interval_calculator=ScaledInterval())])


class SlackClient:
    """A bot-token Slack client that speaks Markdown (`markdown_text`) and raises only ToolError."""

    def __init__(self, token: str, base_url: str | None = None, timeout: int = 10,
                 call_seconds: float = SLACK_CALL_SECONDS):
        self._call_seconds = call_seconds
        self.web = web_client(token, base_url, timeout)
        self.web.retry_handlers.append(BoundedRateLimitRetry(max_retry_count=2))
        self._unreachable: str | None = None  # after a connection failure, fail fast (one timeout per run)

    def post(self, channel: str, markdown: str, thread_ts: str | None = None) -> tuple[str, str]:
        """Post a message (a thread reply when `thread_ts`); returns (channel id, ts) for updates."""
        response = self._call("chat.postMessage", self.web.chat_postMessage, channel=channel,
                              thread_ts=thread_ts or None, markdown_text=fit(markdown),
                              unfurl_links=False, unfurl_media=False)
        return str(response["channel"]), str(response["ts"])

    def update(self, channel: str, ts: str, markdown: str) -> None:
        self._call("chat.update", self.web.chat_update, channel=channel, ts=ts, markdown_text=fit(markdown))

    def thread(self, channel: str, ts: str) -> list[dict[str, Any]]:
        """Every message of the thread rooted at `ts`, parent first."""
        return list(self._thread_pages(channel, ts))

    def _thread_pages(self, channel: str, ts: str) -> Iterator[dict[str, Any]]:
        cursor = None
        for _page in range(_MAX_THREAD_PAGES):
            response = self._call("conversations.replies", self.web.conversations_replies, channel=channel,
                                  ts=ts, limit=200, cursor=cursor)
            yield from (m for m in response.get("messages") or [] if isinstance(m, dict))
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not (response.get("has_more") and cursor):
                return

    def _call(self, name: str, method: Callable[..., Any], **kwargs: Any) -> Any:
        """One Web API call within SLACK_CALL_SECONDS in total; every failure is a ToolError (a breaker
        stops further calls after one that would repeat), so Slack can only ever cost Slack delivery."""
        if self._unreachable:
            raise ToolError("slack", f"{name} skipped: {self._unreachable}")
        try:
            return run_within(self._call_seconds, lambda: method(**kwargs))
        except WallClockExceeded as error:
            self._unreachable = f"Slack did not answer within {error.seconds:g} s"
            raise ToolError("slack", f"{name} failed: {self._unreachable}") from None
        except SlackApiError as error:
            status = getattr(error.response, "status_code", 0)
            detail = _error_code(error.response)
            reason = f"{name} failed: {detail or f'HTTP {status}'}"
            if detail in _FATAL_ERRORS or status == 429:
                self._unreachable = f"Slack refused an earlier call ({detail or f'HTTP {status}'})"
            raise ToolError("slack", reason) from error
        except Exception as error:  # refused, timeout, truncated body (IncompleteRead), bad JSON, ...
            self._unreachable = f"Slack unreachable ({type(error).__name__})"
            raise ToolError("slack", f"{name} failed: {type(error).__name__}: {str(error)[:120]}") from error


def _error_code(response: Any) -> str | None:
    """Slack's `error` code; a non-string (an object, from a broken proxy) is shown, not looked up."""
    detail = response.get("error") if hasattr(response, "get") else None
    if detail is None or isinstance(detail, str):
        return detail
    return f"unexpected error value {str(detail)[:80]}"


def fit(markdown: str) -> str:
    """Markdown within Slack's 12,000-character limit (cut with a pointer to the full answer)."""
    if len(markdown) <= MARKDOWN_LIMIT:
        return markdown
    return markdown[: MARKDOWN_LIMIT - len(_TRUNCATED)] + _TRUNCATED
