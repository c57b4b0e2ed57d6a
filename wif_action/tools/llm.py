"""The LLM call (I/O only): one structured-output request to an OpenAI-compatible API.

Judgement lives in `wif_action/engines/openai_engine.py`; this module only
sends a prompt, parses the reply into a pydantic model and turns every failure
into a `ToolError("llm", reason)` whose reason is short and safe to show
(never the API key, headers or a raw provider message that may echo the key).

Why it retries by itself (the SDK's retries are off): an attempt is bounded by the model's
timeout and by the run's deadline, and a timed-out attempt is retried while time remains; an
oversize reply is final (never fetched again). A server that rejects `json_schema` output is
asked again in JSON mode (then plain prompting), and every reply is still validated by the
same pydantic model.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import openai
import pydantic
from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel

from indexer.backoff import backoff_scale
from indexer.redaction import redact
from wif_action.ports import ToolError, ToolUnavailable
from wif_action.tools.llm_http import LLM_BODY_BYTES, UnreadableReply, capped_reply_hooks, shared_tls_context
from wif_action.tools.llm_models import ModelSettings, cost_usd, price_for, settings_for

__all__ = ["DEFAULT_MAX_RETRIES", "LLM_BODY_BYTES", "LLMCallRecord", "LLMClient", "LLMResult"]

DEFAULT_MAX_RETRIES = 2
MAX_FAILURES_IN_A_ROW = 3  # then the engine is given up for the run (every later call fails fast)
MAX_RETRY_WAIT = 20.0  # longest Retry-After honoured; a longer one ends the call
MIN_ATTEMPT_SECONDS = 2.0  # no retry is started with less time than this left
# Output modes, best first: a server that rejects one is asked in the next for the rest of the run.
MODES = ("json_schema", "json_object", "prompt")
_RETRIED_STATUS = {408, 409, 429}


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
    cached_tokens: int = 0
    reasoning_tokens: int = 0


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
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    mode: str = "json_schema"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Ping(BaseModel):
    ok: bool


class _Unusable(Exception):
    """A reply that arrived but cannot be used (cut off, refused, empty, not the schema)."""


class _NoTimeLeft(Exception):
    """The run's deadline leaves no time for an attempt."""


class LLMClient:
    """`openai.OpenAI` with per-model settings, retries inside the deadline, and a log of every call.

    A circuit breaker bounds what a broken endpoint costs a run: after a failure that would
    repeat (unreachable, timed out, rate limited after retries, quota exhausted, key rejected,
    5xx, oversize reply) or after MAX_FAILURES_IN_A_ROW unusable replies, further calls raise
    ToolUnavailable at once.
    """

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
        temperature: float | None = None,
        env: Mapping[str, str] | None = None,
        on_call: Callable[[LLMCallRecord], None] | None = None,
        body_cap: int = LLM_BODY_BYTES,
    ):
        self._api_key = api_key
        self._max_retries = max_retries
        self.wait_scale = backoff_scale()  # WIF_BACKOFF_SCALE: the retry policy's waits, slept × this
        self._temperature = temperature
        self._env = dict(env or {})
        if timeout is not None:  # one timeout for every model (tests, callers without an environment)
            self._env["WIF_LLM_TIMEOUT"] = str(timeout)
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url or None, max_retries=0,
            http_client=openai.DefaultHttpxClient(event_hooks=capped_reply_hooks(body_cap),
                                               verify=shared_tls_context(openai.DefaultHttpxClient)),
        )
        self.on_call = on_call
        self.calls: list[LLMCallRecord] = []
        self.mode = MODES[0]
        self.time_left: Callable[[], float] | None = None  # the run's deadline, bound by the workflow
        self._unavailable: str | None = None
        self._failures_in_a_row = 0
        self._settings: dict[str, ModelSettings] = {}

    def settings(self, model: str) -> ModelSettings:
        """The model's settings (reasoning effort, token allowance, timeout); raises ValueError when misconfigured."""
        if model not in self._settings:
            self._settings[model] = settings_for(model, self._env)
        return self._settings[model]

    def call_seconds(self, model: str) -> float:
        """The longest one `parse` may take: every attempt at its timeout plus the waits between them."""
        return self.settings(model).timeout * (self._max_retries + 1) + MAX_RETRY_WAIT * self._max_retries

    def cost_usd(self) -> float | None:
        """What the calls so far cost at their models' prices (None when a model's price is unknown)."""
        total = 0.0
        for call in self.calls:
            price = price_for(call.model, self._env)
            if price is None:
                return None
            total += cost_usd(price, call.prompt_tokens, call.cached_tokens, call.completion_tokens)
        return total

    def preflight(self, model: str) -> None:
        """Ask `model` for a one-field answer; raises ToolError (never trips the breaker for later runs)."""
        self.parse(model, "Reply with ok set to true.", "Is this endpoint working?", _Ping, 20, tool="preflight")

    def parse(self, model: str, system: str, user: str, schema: type[BaseModel], max_tokens: int, *,
              tool: str = "llm") -> LLMResult:
        """Ask `model` for a `schema` instance; raises ToolError("llm", ...) on any failure."""
        if self._unavailable:
            raise ToolUnavailable("llm", f"not called: {self._unavailable}")
        settings = self.settings(model)
        started = time.monotonic()
        while True:
            request = self._request(model, system, user, schema, settings.max_tokens(max_tokens))
            prompt_text = "\n\n".join(m["content"] for m in request["messages"])
            body = ""
            try:
                raw = self._send(request, started, settings)
                body = raw.text
                result = _result(raw.parse(), schema, model, prompt_text, started)
            except openai.BadRequestError as error:
                if _rejects_output_mode(error) and self.mode != MODES[-1]:
                    self._record(tool, model, schema, prompt_text, "", (0, 0, 0, 0), started,
                                 f"the endpoint rejected {self.mode} output; asking again in {_next_mode(self.mode)}")
                    self.mode = _next_mode(self.mode)
                    continue
                raise self._error(tool, model, schema, prompt_text, body, started, error) from None
            except (openai.OpenAIError, UnreadableReply, _Unusable, _NoTimeLeft) as error:
                raise self._error(tool, model, schema, prompt_text, body, started, error) from None
            except _NOT_A_COMPLETION:  # a 200 whose body is HTML, empty, or JSON without `choices`
                raise self._unusable_reply(tool, model, schema, prompt_text, body, started) from None
            self._record(tool, result.model, schema, prompt_text, result.response_text, _usage_of(result),
                         started, None)
            self._failures_in_a_row = 0
            return result

    # -- one request, retried inside the time left ---------------------------------------------------
    def _send(self, request: dict[str, Any], started: float, settings: ModelSettings) -> Any:
        attempt = 0
        while True:
            timeout = min(settings.timeout, self._seconds_left())
            if timeout <= 0:
                raise _NoTimeLeft()
            try:
                return self._client.chat.completions.with_raw_response.create(**request, timeout=timeout)
            except (openai.OpenAIError, UnreadableReply) as error:
                wait = _retry_wait(error, attempt)
                if wait is None or attempt >= self._max_retries or self._seconds_left() < wait + MIN_ATTEMPT_SECONDS:
                    raise
                time.sleep(wait * self.wait_scale)
                attempt += 1

    def _seconds_left(self) -> float:
        return self.time_left() if self.time_left is not None else float("inf")

    def _request(self, model: str, system: str, user: str, schema: type[BaseModel],
                 max_tokens: int) -> dict[str, Any]:
        settings = self.settings(model)
        if self.mode != "json_schema":
            system = f"{system}\n\n{json_instructions(schema)}"
        request: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_completion_tokens": max_tokens,
        }
        if self.mode == "json_schema":
            request["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema.__name__, "strict": True, "schema": to_strict_json_schema(schema)}}
        elif self.mode == "json_object":
            request["response_format"] = {"type": "json_object"}
        if settings.reasoning_effort:
            request["reasoning_effort"] = settings.reasoning_effort
        elif self._temperature is not None:
            request["temperature"] = self._temperature
        return request

    # -- failures ------------------------------------------------------------------------------------
    def _error(self, tool: str, model: str, schema: type[BaseModel], prompt_text: str, body: str,
               started: float, error: Exception) -> ToolError:
        reason = self._scrub(_reason(error, self._max_retries, self.settings(model).timeout))
        self._record(tool, model, schema, prompt_text, _body_content(body), _body_usage(body), started, reason)
        return self._failed(reason, repeats=_repeats(error))

    def _unusable_reply(self, tool: str, model: str, schema: type[BaseModel], prompt_text: str, body: str,
                        started: float) -> ToolError:
        """A 200 that is not a chat completion counts as an unusable reply (like a refusal), not a crash."""
        reason = "the endpoint's reply was not a chat completion (wrong OPENAI_BASE_URL, or a proxy's page?)"
        self._record(tool, model, schema, prompt_text, _body_content(body), (0, 0, 0, 0), started, reason)
        return self._failed(reason)

    def _failed(self, reason: str, *, repeats: bool = False) -> ToolError:
        """The error for a failed call; trips the breaker when the engine is no use for the rest of the run."""
        self._failures_in_a_row += 1
        if repeats:
            self._unavailable = reason
        elif self._failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
            self._unavailable = f"{self._failures_in_a_row} calls in a row failed (last: {reason})"
        return ToolUnavailable("llm", reason) if self._unavailable else ToolError("llm", reason)

    def _record(self, tool: str, model: str, schema: type[BaseModel], prompt_text: str, response_text: str,
                usage: tuple[int, int, int, int], started: float, error: str | None) -> None:
        record = LLMCallRecord(
            tool=tool, model=model, schema=schema.__name__, prompt_text=self._scrub(prompt_text),
            response_text=self._scrub(response_text), prompt_tokens=usage[0], completion_tokens=usage[1],
            cached_tokens=usage[2], reasoning_tokens=usage[3], latency_ms=_elapsed_ms(started),
            ok=error is None, error=self._scrub(error) if error else None, mode=self.mode,
        )
        self.calls.append(record)
        if self.on_call is not None:
            self.on_call(record)

    def _scrub(self, text: str) -> str:
        """Remove the API key (and anything shaped like a secret) from text meant for people."""
        return redact(text, self._api_key)


def json_instructions(schema: type[BaseModel]) -> str:
    """What a model asked without `json_schema` output is told (the reply is validated by `schema` all the same)."""
    spec = json.dumps(to_strict_json_schema(schema), separators=(",", ":"))
    return ("Reply with one JSON object and nothing else (no prose, no code fence). It must match this "
            f"JSON schema (name: {schema.__name__}):\n```json\n{spec}\n```")


_NOT_A_COMPLETION = (ValueError, TypeError, AttributeError, IndexError, KeyError)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def _result(completion: Any, schema: type[BaseModel], model: str, prompt_text: str, started: float) -> LLMResult:
    choice = completion.choices[0]
    message = choice.message
    text = message.content or ""
    refusal = getattr(message, "refusal", None)
    if choice.finish_reason == "length":
        raise _Unusable("response cut off (length)")
    if choice.finish_reason == "content_filter":
        raise _Unusable("response blocked by the content filter")
    if refusal:
        raise _Unusable(f"the model refused: {_short(refusal)}")
    if not text.strip():
        raise _Unusable("the model returned no content")
    try:
        parsed = schema.model_validate_json(_json_text(text))
    except pydantic.ValidationError as error:
        raise _Unusable(f"output did not match the schema ({error.error_count()} error(s))") from None
    usage = _usage(completion.usage)
    return LLMResult(parsed=parsed, refusal=None, prompt_tokens=usage[0], completion_tokens=usage[1],
                     cached_tokens=usage[2], reasoning_tokens=usage[3], latency_ms=_elapsed_ms(started),
                     model=completion.model or model, prompt_text=prompt_text, response_text=text)


def _json_text(text: str) -> str:
    """The JSON object in a reply (JSON and prompt modes may wrap it in a code fence or a sentence)."""
    text = _FENCE.sub("", text.strip())
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else text


def _usage(usage: Any) -> tuple[int, int, int, int]:
    """(prompt, completion, cached prompt, reasoning) tokens; zero where the server does not say."""
    if usage is None:
        return (0, 0, 0, 0)
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    completion_details = getattr(usage, "completion_tokens_details", None)
    return (usage.prompt_tokens or 0, usage.completion_tokens or 0,
            (getattr(prompt_details, "cached_tokens", 0) or 0) if prompt_details else 0,
            (getattr(completion_details, "reasoning_tokens", 0) or 0) if completion_details else 0)


def _usage_of(result: LLMResult) -> tuple[int, int, int, int]:
    return (result.prompt_tokens, result.completion_tokens, result.cached_tokens, result.reasoning_tokens)


def _next_mode(mode: str) -> str:
    return MODES[min(MODES.index(mode) + 1, len(MODES) - 1)]


def _rejects_output_mode(error: openai.BadRequestError) -> bool:
    """A 400 about `response_format` (a server without structured outputs, or without JSON mode)."""
    text = f"{getattr(error, 'param', '')} {error.body} {error.message}".lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object", "structured output"))


def _is_quota(error: Exception) -> bool:
    return isinstance(error, openai.RateLimitError) and getattr(error, "code", None) == "insufficient_quota"


def _cause(error: Exception) -> BaseException | None:
    return error if isinstance(error, UnreadableReply) else error.__cause__


def _retry_wait(error: Exception, attempt: int) -> float | None:
    """Seconds to wait before retrying `error`, or None when retrying cannot help."""
    if isinstance(_cause(error), UnreadableReply) or _is_quota(error):
        return None
    if isinstance(error, openai.APIStatusError):
        headers = error.response.headers
        if headers.get("x-should-retry") == "false":
            return None
        if error.status_code not in _RETRIED_STATUS and error.status_code < 500:
            return None
        asked = _retry_after(headers)
        if asked is not None:
            return asked if asked <= MAX_RETRY_WAIT else None
    elif not isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return None
    return min(0.5 * 2 ** attempt, 8.0)


def _retry_after(headers: Any) -> float | None:
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return max(float(headers.get(key, "")) * scale, 0.0)
        except ValueError:
            continue
    return None


def _repeats(error: Exception) -> bool:
    """A failure that would repeat on every later call this run: the breaker trips at once."""
    if isinstance(_cause(error), UnreadableReply) or isinstance(error, _NoTimeLeft):
        return True
    return isinstance(error, (openai.APIConnectionError, openai.AuthenticationError, openai.PermissionDeniedError,
                              openai.RateLimitError, openai.InternalServerError))


def _reason(error: Exception, retries: int, timeout: float) -> str:
    """A short human reason for a failed call; order matters (subclasses first)."""
    cause = _cause(error)
    if isinstance(error, _Unusable):
        return str(error)
    if isinstance(error, _NoTimeLeft):
        return "not attempted: the run's deadline was reached"
    if isinstance(cause, UnreadableReply):
        return f"the LLM API's {cause}"
    if isinstance(error, openai.AuthenticationError):
        return "authentication failed (HTTP 401): check OPENAI_API_KEY"
    if _is_quota(error):
        return ("quota exhausted (HTTP 429 insufficient_quota): the key's account has no credit left — "
                "add credit or use another key; not retried")
    if isinstance(error, openai.RateLimitError):
        return f"rate limited (HTTP 429) after {_retries(retries)}: transient, try again later"
    if isinstance(error, openai.APITimeoutError):
        return f"timed out after {timeout:g} s per attempt ({_retries(retries)} at most, inside the run's deadline)"
    if isinstance(error, openai.APIConnectionError):
        return "could not connect to the LLM API"
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}{_api_detail(error)}"
    return f"unexpected {type(error).__name__}"


def _retries(count: int) -> str:
    return f"{count} retr{'y' if count == 1 else 'ies'}"


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


def _body_usage(body: str) -> tuple[int, int, int, int]:
    """Tokens already spent by a reply that could not be used (zero when unknown)."""
    usage = _body_json(body).get("usage")
    if not isinstance(usage, dict):
        return (0, 0, 0, 0)
    details = usage.get("completion_tokens_details")
    cached = usage.get("prompt_tokens_details")
    return (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
            int((cached or {}).get("cached_tokens") or 0) if isinstance(cached, dict) else 0,
            int((details or {}).get("reasoning_tokens") or 0) if isinstance(details, dict) else 0)


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
