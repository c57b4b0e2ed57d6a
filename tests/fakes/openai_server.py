"""A fake OpenAI-compatible Chat Completions server for ``client.chat.completions.parse``.

Point the client at it with ``OpenAI(api_key="test", base_url=fake.url + "/v1", max_retries=0)``.
Replies are scripted with ``fake.queue(...)`` (consumed first, in order) and then
``fake.responder(request_json)``. A reply may be a dict or pydantic model (JSON-encoded into
``message.content``), a str (sent verbatim as content), a :class:`FakeReply`, or None (use the
default). The default reply is a minimal instance of the requested JSON schema (first enum
value, empty strings, zeros, ``False``, empty lists), or ``"OK"`` without ``response_format``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .http_base import FakeServer, HTTPError, Request, Response

__all__ = ["FakeOpenAI", "FakeReply", "requested_schema", "schema_example"]

# The schema a client that cannot use `json_schema` output quotes in its system prompt (wif_action.tools.llm).
_PROMPTED_SCHEMA = re.compile(r"JSON schema \(name: (\w+)\):\n```json\n(.*?)\n```", re.DOTALL)
# Reasoning tokens a fake reasoning model spends, by `reasoning_effort` (OpenAI's default effort is medium).
REASONING_SPEND = {"minimal": 200, "low": 800, "medium": 3_000, "high": 9_000}
# OpenAI's prompt caching: a prompt of at least 1,024 tokens whose start was sent before (same model) is served
# from the cache for the longest such prefix, counted in steps of 128 tokens (platform.openai.com/docs/guides/
# prompt-caching). Tokens are characters / 4 here, as everywhere in this fake.
CACHE_MIN_TOKENS, CACHE_STEP_TOKENS = 1_024, 128

_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_denied", None),
    404: ("invalid_request_error", "model_not_found"),
    408: ("timeout", None),
    409: ("conflict", None),
    422: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
}


@dataclass
class FakeReply:
    """A scripted reply with full control over the completion or an error status.

    ``content`` may be a str (verbatim), a dict / pydantic model (JSON-encoded) or None.
    With ``status >= 400`` an OpenAI-style error body is sent whose message is ``content``.
    ``usage`` overrides the computed token counts.
    """

    content: Any = None
    refusal: str | None = None
    finish_reason: str = "stop"
    status: int = 200
    headers: dict[str, str] | None = None
    usage: dict[str, int] | None = None


Responder = Callable[[dict[str, Any]], Any]


def schema_example(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """A minimal value conforming to a (strict, pydantic-generated) JSON schema."""
    root = root if root is not None else schema
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return schema_example(target, root)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
            return schema_example(options[0], root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        return {name: schema_example(sub, root) for name, sub in schema.get("properties", {}).items()}
    return {"array": [], "string": "", "integer": 0, "number": 0.0, "boolean": False}.get(str(kind))


def requested_schema(body: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """(name, JSON schema) a chat request asks for: from ``response_format`` json_schema, or, in JSON and
    prompt modes, from the schema quoted in its system message (what a real model would read)."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema") or {}
        return spec.get("name"), spec.get("schema")
    for message in body.get("messages") or []:
        found = _PROMPTED_SCHEMA.search(_text_of(message.get("content")) if isinstance(message, dict) else "")
        if found:
            return found.group(1), json.loads(found.group(2))
    return None, None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class FakeOpenAI(FakeServer):
    """Fake ``POST /v1/chat/completions`` (and ``/chat/completions``).

    ``fake.log`` entries carry the request JSON (``entry["json"]``); ``schema_names()`` lists
    ``response_format.json_schema.name`` of every chat request. Without an
    ``Authorization: Bearer <key>`` header the fake answers 401 like OpenAI.
    """

    ENDPOINT = "POST /v1/chat/completions"

    def __init__(self, responder: Responder | None = None) -> None:
        super().__init__()
        self.responder: Responder | None = responder
        # ``response_format`` types answered with a 400 (an older OpenAI-compatible server): "json_schema", ...
        self.rejected_formats: set[str] = set()
        # models that reason before answering: their hidden tokens count against ``max_completion_tokens``
        self.reasoning_models: set[str] = set()
        self._cached_prefixes: set[tuple[str, str]] = set()  # (model, digest of a cacheable prefix)
        self._queue: deque[Any] = deque()
        self._ids = itertools.count(1)
        self.route("POST", r"(?:/v1)?/chat/completions", self.ENDPOINT, self._h_chat)

    # ------------------------------------------------------------------ test API
    def queue(self, *replies: Any) -> None:
        """Script replies consumed in order before falling back to ``responder``."""
        with self._lock:
            self._queue.extend(replies)

    def pending(self) -> int:
        """Number of queued replies not consumed yet."""
        with self._lock:
            return len(self._queue)

    def chat_requests(self) -> list[dict[str, Any]]:
        """Request JSON bodies of all chat completion calls, oldest first."""
        with self._lock:
            return [e["json"] for e in self.log if e["endpoint"] == self.ENDPOINT and e["json"] is not None]

    def schema_names(self) -> list[str | None]:
        """``response_format.json_schema.name`` of each chat call (None when absent)."""
        return [requested_schema(body)[0] for body in self.chat_requests()]

    # --------------------------------------------------------------------- hooks
    def default_fault_body(self, status: int) -> Any:
        """OpenAI-shaped error body for injected faults."""
        return _error_body(status, f"Injected fault (HTTP {status})")

    def not_found(self, req: Request) -> Response:
        """OpenAI's 404 shape."""
        return Response(404, _error_body(404, f"Invalid URL ({req.method} {req.path})"))

    def before_route(self, req: Request) -> Response | None:
        """Require ``Authorization: Bearer <anything>``."""
        auth = req.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or not auth[7:].strip():
            return Response(401, _error_body(401, "You didn't provide an API key."))
        return None

    # ------------------------------------------------------------------ handler
    def _h_chat(self, req: Request) -> Response:
        body = req.json
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body.get("model"):
            raise HTTPError(400, _error_body(400, "'model' and 'messages' are required"))
        if body.get("stream"):
            raise HTTPError(400, _error_body(400, "FakeOpenAI does not support stream=true"))
        kind = (body.get("response_format") or {}).get("type")
        if kind in self.rejected_formats:
            error = _error_body(400, f"response_format type '{kind}' is not supported by this server")
            error["error"]["param"] = "response_format"
            raise HTTPError(400, error)
        _check_response_format(body)
        reply = self._queue.popleft() if self._queue else None
        if reply is None and self.responder is not None:
            reply = self.responder(body)
        if not isinstance(reply, FakeReply):
            reply = FakeReply(content=reply if reply is not None else self._default_content(body))
        if reply.status >= 400:
            message = reply.content if isinstance(reply.content, str) else f"HTTP {reply.status}"
            return Response(reply.status, _error_body(reply.status, message), dict(reply.headers or {}))
        content = _encode_content(reply.content)
        prompt = "".join(_text_of(m.get("content")) for m in body["messages"] if isinstance(m, dict))
        completion = _tokens(content or reply.refusal or "")
        reasoning = self._reasoning(body)
        finish_reason = reply.finish_reason
        cap = body.get("max_completion_tokens") or body.get("max_tokens")
        if reasoning and cap and reasoning + completion > cap:  # thought until the cap: no answer left
            reasoning, completion, content, finish_reason = cap, 0, "", "length"
        elif cap and content and completion > cap:  # the answer is cut off at the cap, mid-JSON
            completion, content, finish_reason = cap, content[:cap * 4], "length"
        cached = self._cached_tokens(body["model"], prompt)
        usage = reply.usage or {
            "prompt_tokens": _tokens(prompt),
            "completion_tokens": completion + reasoning,
            "total_tokens": _tokens(prompt) + completion + reasoning,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        }
        n = next(self._ids)
        return Response(
            reply.status,
            {
                "id": f"chatcmpl-fake{n:06d}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "system_fingerprint": "fp_fake",
                "service_tier": "default",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": content,
                            "refusal": reply.refusal,
                            "annotations": [],
                        },
                        "logprobs": None,
                        "finish_reason": finish_reason,
                    }
                ],
                "usage": usage,
            },
            {"x-request-id": f"req_fake{n:06d}", **(reply.headers or {})},
        )

    def _cached_tokens(self, model: str, prompt: str) -> int:
        """Tokens of `prompt` served from the prompt cache (see CACHE_MIN_TOKENS); the prompt's own prefixes are
        cached for the next request."""
        digest, cached = hashlib.sha256(), 0
        done, tokens = 0, CACHE_MIN_TOKENS
        with self._lock:
            while tokens * 4 <= len(prompt):
                digest.update(prompt[done:tokens * 4].encode())
                done = tokens * 4
                key = (model, digest.hexdigest())
                if key in self._cached_prefixes:  # (a longer prefix seen implies every shorter one)
                    cached = tokens
                self._cached_prefixes.add(key)
                tokens += CACHE_STEP_TOKENS
        return cached

    def _reasoning(self, body: dict[str, Any]) -> int:
        """Hidden reasoning tokens this request costs (0 for a chat model)."""
        if body["model"] not in self.reasoning_models:
            return 0
        return REASONING_SPEND.get(str(body.get("reasoning_effort") or "medium"), REASONING_SPEND["medium"])

    @staticmethod
    def _default_content(body: dict[str, Any]) -> Any:
        _, schema = requested_schema(body)
        if isinstance(schema, dict):
            return schema_example(schema)
        if (body.get("response_format") or {}).get("type") == "json_object":
            return {}
        return "OK"


def _check_response_format(body: dict[str, Any]) -> None:
    """The 400s OpenAI answers for a response_format it cannot use: JSON mode without the word "json" in the
    messages, and a strict json_schema whose objects do not require every property or allow others."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_object":
        text = "".join(_text_of(m.get("content")) for m in body["messages"] if isinstance(m, dict))
        if "json" not in text.lower():
            raise HTTPError(400, _error_body(400, "'messages' must contain the word 'json' in some form, to use "
                                                  "'response_format' of type 'json_object'."))
    spec = fmt.get("json_schema") or {}
    if fmt.get("type") == "json_schema" and spec.get("strict"):
        problem = _strict_problem(spec.get("schema") or {})
        if problem:
            raise HTTPError(400, _error_body(400, f"Invalid schema for response_format '{spec.get('name')}': "
                                                  f"{problem}"))


def _strict_problem(schema: Any) -> str | None:
    """Why a schema is not valid for strict structured outputs, or None."""
    if isinstance(schema, list):
        return next((p for p in map(_strict_problem, schema) if p), None)
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "object" or "properties" in schema:
        keys = set(schema.get("properties", {}))
        if set(schema.get("required", [])) != keys:
            return f"'required' is required to include every key in properties (missing {sorted(keys)})."
        if schema.get("additionalProperties") is not False:
            return "'additionalProperties' is required to be supplied and to be false."
    return next((p for p in map(_strict_problem, schema.values()) if p), None)


def _encode_content(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if hasattr(content, "model_dump_json"):  # a pydantic model instance
        return str(content.model_dump_json())
    return json.dumps(content)


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind, code = _ERROR_TYPES.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
