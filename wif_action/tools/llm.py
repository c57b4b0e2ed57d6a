"""The LLM call (I/O only): one structured-output request to an OpenAI-compatible API.

Judgement lives in `wif_action/engines/openai_engine.py`; this module only
sends a prompt, parses the reply into a pydantic model and turns every failure
into a `ToolError("llm", reason)` whose reason is short and safe to show
(never the API key, headers or a raw provider message that may echo the key).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import httpx2
import openai
import pydantic
from pydantic import BaseModel

from indexer.redaction import redact
from wif_action.ports import ToolError, ToolUnavailable

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
MAX_FAILURES_IN_A_ROW = 3  # then the engine is given up for the run (every later call fails fast)
# Failures that repeat for every call: no point in asking again this run.
# Largest reply read from the LLM endpoint: a structured answer is a few KB; a larger body is a broken or
# hostile endpoint, cut off at the cap instead of being downloaded.
LLM_BODY_BYTES = 8 * 1024 * 1024


class ReplyTooLarge(httpx2.ReadError):
    """The endpoint's reply passed LLM_BODY_BYTES (an httpx read error, so the openai client reports it as
    a connection failure and the breaker stops further calls)."""


class _CappedStream(httpx2.SyncByteStream):
    def __init__(self, inner: Any, cap: int, request: httpx2.Request):
        self._inner, self._cap, self._request = inner, cap, request

    def __iter__(self) -> Any:
        size = 0
        for chunk in self._inner:
            size += len(chunk)
            if size > self._cap:
                raise ReplyTooLarge(f"reply over the {self._cap:,}-byte cap", request=self._request)
            yield chunk

    def close(self) -> None:
        self._inner.close()


class CappedTransport(httpx2.HTTPTransport):
    """An HTTP transport that refuses replies over `cap` bytes: announced ones before reading, others at the cap."""

    def __init__(self, cap: int = LLM_BODY_BYTES, **kwargs: Any):
        super().__init__(**kwargs)
        self._cap = cap

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle_request(request)
        announced = response.headers.get("Content-Length", "")
        if announced.isdigit() and int(announced) > self._cap:
            response.close()
            raise ReplyTooLarge(f"reply of {int(announced):,} bytes, over the {self._cap:,}-byte cap", request=request)
        response.stream = _CappedStream(response.stream, self._cap, request)
        return response


_UNAVAILABLE = (openai.APIConnectionError, openai.AuthenticationError, openai.PermissionDeniedError,
                openai.RateLimitError, openai.InternalServerError)


@dataclass
class LLMResult:
    """One successful structured reply and what it cost."""

    parsed: BaseModel | None
    refusal: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    model: str
    prompt_text: str
    response_text: str


@dataclass
class LLMCallRecord:
    """What a run record stores about one LLM call (successful or not)."""

    tool: str
    model: str
    schema: str
    prompt_text: str
    response_text: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    ok: bool
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class LLMClient:
    """`openai.OpenAI` with bounded timeouts and retries, and a log of every call.

    A circuit breaker bounds what a broken endpoint costs a run: after a failure that would
    repeat (unreachable, timed out, rate limited after retries, key rejected, 5xx) or after
    MAX_FAILURES_IN_A_ROW unusable replies, further calls raise ToolUnavailable at once.
    """

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        temperature: float | None = None,
        on_call: Callable[[LLMCallRecord], None] | None = None,
    ):
        self._api_key = api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self._temperature = temperature
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=max_retries,
            http_client=openai.DefaultHttpxClient(transport=CappedTransport()),
        )
        self.on_call = on_call
        self.calls: list[LLMCallRecord] = []
        self._unavailable: str | None = None
        self._failures_in_a_row = 0

    def parse(
        self,
        model: str,
        system: str,
        user: str,
        schema: type[BaseModel],
        max_tokens: int,
        *,
        tool: str = "llm",
    ) -> LLMResult:
        """Ask `model` for a `schema` instance; raises ToolError("llm", ...) on any failure."""
        if self._unavailable:
            raise ToolUnavailable("llm", f"not called: {self._unavailable}")
        prompt_text = f"{system}\n\n{user}"
        started = time.monotonic()
        body = ""
        try:
            raw = self._client.chat.completions.with_raw_response.parse(
                **self._request(model, system, user, schema, max_tokens)
            )
            body = raw.text
            completion = raw.parse()
        except (openai.OpenAIError, pydantic.ValidationError) as error:
            reason = self._scrub(_reason(error, self._timeout, self._max_retries))
            self._record(tool, model, schema, prompt_text, _body_content(body), _body_usage(body), started,
                         reason)
            raise self._failed(reason, repeats=isinstance(error, _UNAVAILABLE)) from None
        except _NOT_A_COMPLETION:  # a 200 whose body is HTML, empty or not JSON at all
            raise self._unusable_reply(tool, model, schema, prompt_text, body, started) from None
        try:
            result = _result(completion, model, prompt_text, started)
        except _NOT_A_COMPLETION:  # JSON, but no `choices` or no message in it
            raise self._unusable_reply(tool, model, schema, prompt_text, body, started) from None
        unusable = _unusable(result)
        usage = (result.prompt_tokens, result.completion_tokens)
        self._record(tool, result.model, schema, prompt_text, result.response_text, usage, started, unusable)
        if unusable:
            raise self._failed(self._scrub(unusable))
        self._failures_in_a_row = 0
        return result

    def _unusable_reply(self, tool: str, model: str, schema: type[BaseModel], prompt_text: str, body: str,
                        started: float) -> ToolError:
        """A 200 that is not a chat completion counts as an unusable reply (like a refusal), not a crash."""
        reason = "the endpoint's reply was not a chat completion (wrong OPENAI_BASE_URL, or a proxy's page?)"
        self._record(tool, model, schema, prompt_text, _body_content(body), (0, 0), started, reason)
        return self._failed(reason)

    def _failed(self, reason: str, *, repeats: bool = False) -> ToolError:
        """The error for a failed call; trips the breaker when the engine is no use for the rest of the run."""
        self._failures_in_a_row += 1
        if repeats:
            self._unavailable = reason
        elif self._failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
            self._unavailable = f"{self._failures_in_a_row} calls in a row failed (last: {reason})"
        return ToolUnavailable("llm", reason) if self._unavailable else ToolError("llm", reason)

    def _request(self, model: str, system: str, user: str, schema: type[BaseModel],
                 max_tokens: int) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "response_format": schema,
            "max_completion_tokens": max_tokens,
        }
        if self._temperature is not None:
            request["temperature"] = self._temperature
        return request

    def _record(self, tool: str, model: str, schema: type[BaseModel], prompt_text: str,
                response_text: str, usage: tuple[int, int], started: float, error: str | None) -> None:
        record = LLMCallRecord(
            tool=tool, model=model, schema=schema.__name__, prompt_text=self._without_key(prompt_text),
            response_text=self._without_key(response_text), prompt_tokens=usage[0], completion_tokens=usage[1],
            latency_ms=_elapsed_ms(started), ok=error is None, error=self._scrub(error) if error else None,
        )
        self.calls.append(record)
        if self.on_call is not None:
            self.on_call(record)

    def _without_key(self, text: str) -> str:
        return redact(text, self._api_key)

    def _scrub(self, text: str) -> str:
        """Remove the API key (and anything shaped like a secret) from text meant for people."""
        return redact(text, self._api_key)


_NOT_A_COMPLETION = (ValueError, TypeError, AttributeError, IndexError, KeyError)


def _result(completion: Any, model: str, prompt_text: str, started: float) -> LLMResult:
    message = completion.choices[0].message
    usage = completion.usage
    return LLMResult(
        parsed=message.parsed,
        refusal=message.refusal,
        prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
        completion_tokens=(usage.completion_tokens or 0) if usage else 0,
        latency_ms=_elapsed_ms(started),
        model=completion.model or model,
        prompt_text=prompt_text,
        response_text=message.content or message.refusal or "",
    )


def _unusable(result: LLMResult) -> str | None:
    """Why a reply that arrived cannot be used (a refusal or no content), else None."""
    if result.refusal:
        return f"the model refused: {_short(result.refusal)}"
    if result.parsed is None:
        return "the model returned no content"
    return None


def _reason(error: Exception, timeout: float, retries: int) -> str:
    """A short human reason for a failed call; order matters (subclasses first)."""
    if isinstance(error, pydantic.ValidationError):
        return f"output did not match the schema ({error.error_count()} error(s))"
    if isinstance(error, openai.LengthFinishReasonError):
        return "response cut off (length)"
    if isinstance(error, openai.ContentFilterFinishReasonError):
        return "response blocked by the content filter"
    if isinstance(error, openai.AuthenticationError):
        return "authentication failed (HTTP 401): check OPENAI_API_KEY"
    if isinstance(error, openai.RateLimitError):
        return f"rate limited (HTTP 429) after {retries} retr{'y' if retries == 1 else 'ies'}"
    if isinstance(error, openai.APITimeoutError):
        return f"timed out after {timeout:g} s ({retries} retries)"
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__
        return f"the LLM API's {cause}" if isinstance(cause, ReplyTooLarge) else "could not connect to the LLM API"
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}{_api_detail(error)}"
    return f"unexpected {type(error).__name__}"


def _api_detail(error: openai.APIStatusError) -> str:
    """The provider's error code/type (never its free-text message, which can quote the key)."""
    parts = [str(part) for part in (error.code, error.type) if part]
    return f" ({', '.join(parts)})" if parts else ""


def _body_json(body: str) -> dict[str, Any]:
    try:
        data = json.loads(body) if body else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _body_content(body: str) -> str:
    """The assistant text of a reply that could not be used (for the run record)."""
    try:
        message = _body_json(body)["choices"][0]["message"]
        return str(message.get("content") or message.get("refusal") or "")
    except (KeyError, IndexError, TypeError, AttributeError):
        return body[:2000]


def _body_usage(body: str) -> tuple[int, int]:
    """Tokens already spent by a reply that could not be used (zero when unknown)."""
    usage = _body_json(body).get("usage")
    if not isinstance(usage, dict):
        return (0, 0)
    return (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
