"""A fake Slack Web API for ``slack_sdk.WebClient(token=..., base_url=fake.url + "/api/")``.

Methods: ``chat.postMessage``, ``chat.update``, ``conversations.replies``, ``reactions.add``,
``auth.test``; anything else answers ``{"ok": false, "error": "unknown_method"}``. Parameters
are read from the query string, a form body or a JSON body alike. Like Slack, API errors are
HTTP 200 with ``ok: false``; HTTP-level failures (429 + ``Retry-After``) come from ``add_fault``.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from .http_base import FakeServer, Request, Response

__all__ = ["FakeSlack", "SlackError"]

_CHANNEL_ID = re.compile(r"[CDG][A-Z0-9]+")
_BASE_TS_US = 1_700_000_000 * 1_000_000
MARKDOWN_TEXT_LIMIT = 12_000  # per Slack's docs for markdown_text


class SlackError(Exception):
    """Raise inside a method handler to answer ``{"ok": false, "error": <error>}``."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


def _ts_to_us(ts: str) -> int:
    seconds, _, frac = ts.partition(".")
    return int(seconds) * 1_000_000 + int((frac + "000000")[:6])


def _us_to_ts(us: int) -> str:
    return f"{us // 1_000_000}.{us % 1_000_000:06d}"


def _flag(value: Any, default: bool | None = None) -> bool | None:
    if value is None:
        return default
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


def _blocks_text(blocks: Any) -> str:
    """Rough plain-text rendering of blocks (for ``text`` of block-only messages)."""
    parts: list[str] = []
    for block in blocks or []:
        if not isinstance(block, dict):
            continue
        text = block.get("text")
        if isinstance(text, dict):
            text = text.get("text")
        if isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


class FakeSlack(FakeServer):
    """Fake Slack Web API with in-memory channels, threads, edits and reactions.

    Inspect ``messages`` (every stored message dict: channel, ts, thread_ts, text,
    markdown_text, blocks, user, bot_id, unfurl_links, unfurl_media, reply_broadcast, edited,
    params), ``history[ts]`` (display text after the post and after each edit) and
    ``reactions``. ``requests`` is keyed by Slack method name (``"chat.postMessage"``).
    """

    bot_user_id = "U0WIFBOT"
    bot_id = "B0WIFBOT"
    team_id = "T0FAKE"

    def __init__(self, token: str | None = None, strict_markdown: bool = True) -> None:
        super().__init__()
        self.token = token  # if set, other tokens get invalid_auth
        self.strict_markdown = strict_markdown  # markdown_text with text/blocks → markdown_text_conflict
        self.known_channels: set[str] | None = None  # if set, other channel IDs → channel_not_found
        self.messages: list[dict[str, Any]] = []
        self.history: dict[str, list[str]] = defaultdict(list)
        self.reactions: list[dict[str, Any]] = []
        self.completions: list[dict[str, Any]] = []
        self.ephemerals: list[dict[str, Any]] = []  # functions.completeSuccess / completeError calls
        self.channel_ids: dict[str, str] = {}  # channel name → fake ID
        self.socket_mode_url = ""  # what apps.connections.open answers (tests/fakes/socket_mode_server.py)
        self._by_key: dict[tuple[str, str], dict[str, Any]] = {}
        self._last_us = _BASE_TS_US
        self._failures: dict[str, list[list[Any]]] = defaultdict(list)
        self._methods: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "chat.postMessage": self._chat_post,
            "chat.update": self._chat_update,
            "conversations.replies": self._replies,
            "reactions.add": self._reactions_add,
            "auth.test": self._auth_test,
            "apps.connections.open": lambda params: {"url": self.socket_mode_url},
            "chat.postEphemeral": self._ephemeral,
            "functions.completeSuccess": lambda params: self._complete("success", params),
            "functions.completeError": lambda params: self._complete("error", params),
        }
        self.route("*", r"/api/(?P<method>[A-Za-z0-9_.]+)", lambda g: g["method"], self._h_api)

    def _ephemeral(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.ephemerals.append({"channel": params.get("channel"), "user": params.get("user"),
                                    "text": params.get("text")})
        return {"message_ts": "1700000000.000001"}

    def _complete(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        outputs = params.get("outputs")
        if isinstance(outputs, str):
            outputs = json.loads(outputs)
        with self._lock:
            self.completions.append({"kind": kind, "function_execution_id": params.get("function_execution_id"),
                                     "outputs": outputs, "error": params.get("error")})
        return {}

    # ------------------------------------------------------------------ test API
    def fail_method(self, method: str, error: str = "internal_error", times: int | None = 1) -> None:
        """The next ``times`` calls of ``method`` (None: all) answer ``ok: false, error``."""
        with self._lock:
            self._failures[method].append([error, times])

    def seed_thread(self, channel: str, ts: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Seed a thread rooted at ``ts`` in ``channel``.

        If no message exists at ``ts`` yet, the first dict becomes the parent at ``ts``; the
        others are replies with later timestamps (or their own ``ts``). Each dict may carry
        ``user`` (default ``U1``), ``text``, ``ts``, ``bot_id``, ``blocks``.
        """
        stored = []
        with self._lock:
            items = list(messages)
            if (channel, ts) not in self._by_key:
                first = dict(items.pop(0)) if items else {"text": ""}
                first["ts"] = ts
                stored.append(self._seed(channel, first, None))
            for item in items:
                stored.append(self._seed(channel, dict(item), ts))
        return stored

    def seed_message(self, channel: str, text: str, user: str = "U1", ts: str | None = None) -> dict[str, Any]:
        """Seed one top-level message (e.g. the user's question)."""
        with self._lock:
            return self._seed(channel, {"text": text, "user": user, "ts": ts}, None)

    def thread(self, channel: str, ts: str) -> list[dict[str, Any]]:
        """Stored messages of a thread: parent first, then replies by ts."""
        with self._lock:
            return self._thread_messages(channel, ts)

    def message(self, channel: str, ts: str) -> dict[str, Any] | None:
        """Stored message by channel and ts."""
        with self._lock:
            return self._by_key.get((channel, ts))

    # --------------------------------------------------------------------- hooks
    def default_fault_body(self, status: int) -> Any:
        """Slack-shaped error body for injected faults."""
        return {"ok": False, "error": "ratelimited" if status == 429 else "fatal_error"}

    def not_found(self, req: Request) -> Response:
        """Non-``/api/`` paths."""
        return Response(404, {"ok": False, "error": "unknown_method"})

    # ------------------------------------------------------------------ handler
    def _h_api(self, req: Request) -> Response:
        params: dict[str, Any] = dict(req.query)
        if req.form:
            params.update(req.form)
        if isinstance(req.json, dict):
            params.update(req.json)
        for key in ("blocks", "attachments", "metadata"):
            if isinstance(params.get(key), str) and params[key].strip()[:1] in ("[", "{"):
                params[key] = json.loads(params[key])
        method = req.params["method"]
        auth = req.headers.get("authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else params.pop("token", None)
        params.pop("token", None)
        try:
            if not token:
                raise SlackError("not_authed")
            if self.token is not None and token != self.token:
                raise SlackError("invalid_auth")
            self._scripted_failure(method)
            handler = self._methods.get(method)
            if handler is None:
                raise SlackError("unknown_method")
            body = {"ok": True, **handler(params)}
        except SlackError as err:
            body = {"ok": False, "error": err.error}
        return Response(200, body, {"Content-Type": "application/json; charset=utf-8"})

    def _scripted_failure(self, method: str) -> None:
        pending = self._failures.get(method) or []
        for item in pending:
            error, times = item
            if times is None:
                raise SlackError(error)
            if times > 0:
                item[1] = times - 1
                raise SlackError(error)

    # ----------------------------------------------------------------- storage
    def _next_ts(self) -> str:
        self._last_us += 100
        return _us_to_ts(self._last_us)

    def _resolve_channel(self, channel: Any, create: bool) -> str:
        if not isinstance(channel, str) or not channel:
            raise SlackError("channel_not_found")
        if _CHANNEL_ID.fullmatch(channel):
            if self.known_channels is not None and channel not in self.known_channels:
                raise SlackError("channel_not_found")
            return channel
        if not create:
            raise SlackError("channel_not_found")
        name = channel.lstrip("#")
        if name not in self.channel_ids:
            self.channel_ids[name] = f"C{zlib.crc32(name.encode()):010d}"
        return self.channel_ids[name]

    def _store(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.messages.append(msg)
        self._by_key[(msg["channel"], msg["ts"])] = msg
        self.history[msg["ts"]].append(self._display(msg))
        return msg

    def _seed(self, channel: str, item: dict[str, Any], thread_ts: str | None) -> dict[str, Any]:
        ts = item.get("ts")
        if ts:
            self._last_us = max(self._last_us, _ts_to_us(ts))
        else:
            ts = self._next_ts()
        return self._store(
            {
                "channel": channel,
                "ts": ts,
                "thread_ts": thread_ts if thread_ts != ts else None,
                "text": item.get("text", ""),
                "markdown_text": None,
                "blocks": item.get("blocks"),
                "user": item.get("user", "U1"),
                "bot_id": item.get("bot_id"),
                "unfurl_links": None,
                "unfurl_media": None,
                "reply_broadcast": False,
                "edited": None,
                "params": {},
            }
        )

    @staticmethod
    def _display(msg: dict[str, Any]) -> str:
        return str(msg.get("markdown_text") or msg.get("text") or _blocks_text(msg.get("blocks")))

    def _thread_messages(self, channel: str, ts: str) -> list[dict[str, Any]]:
        parent = self._by_key.get((channel, ts))
        if parent is not None and parent.get("thread_ts"):
            ts = parent["thread_ts"]
            parent = self._by_key.get((channel, ts))
        replies = [m for m in self.messages if m["channel"] == channel and m.get("thread_ts") == ts]
        replies.sort(key=lambda m: _ts_to_us(m["ts"]))
        return ([parent] if parent is not None else []) + replies

    def _public(self, msg: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "message",
            "user": msg["user"],
            "text": self._display(msg),
            "ts": msg["ts"],
            "team": self.team_id,
        }
        if msg.get("bot_id"):
            out["bot_id"] = msg["bot_id"]
            out["app_id"] = "A0WIFAPP"
        if msg.get("blocks"):
            out["blocks"] = msg["blocks"]
        if msg.get("thread_ts"):
            out["thread_ts"] = msg["thread_ts"]
            out["parent_user_id"] = (self._by_key.get((msg["channel"], msg["thread_ts"])) or {}).get("user")
        else:
            replies = [m for m in self.messages if m["channel"] == msg["channel"] and m.get("thread_ts") == msg["ts"]]
            if replies:
                out["thread_ts"] = msg["ts"]
                out["reply_count"] = len(replies)
                out["reply_users"] = sorted({m["user"] for m in replies})
                out["latest_reply"] = max((m["ts"] for m in replies), key=_ts_to_us)
        if msg.get("edited"):
            out["edited"] = msg["edited"]
        return out

    def _check_content(self, params: dict[str, Any]) -> None:
        md = params.get("markdown_text")
        if md is not None:
            if self.strict_markdown and (params.get("text") or params.get("blocks")):
                raise SlackError("markdown_text_conflict")
            if len(str(md)) > MARKDOWN_TEXT_LIMIT:
                raise SlackError("msg_too_long")
        if not any(params.get(k) for k in ("text", "markdown_text", "blocks", "attachments")):
            raise SlackError("no_text")

    # ----------------------------------------------------------------- methods
    def _chat_post(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = self._resolve_channel(params.get("channel"), create=True)
        self._check_content(params)
        thread_ts = params.get("thread_ts") or None
        msg = self._store(
            {
                "channel": channel,
                "ts": self._next_ts(),
                "thread_ts": thread_ts,
                "text": params.get("text"),
                "markdown_text": params.get("markdown_text"),
                "blocks": params.get("blocks"),
                "user": self.bot_user_id,
                "bot_id": self.bot_id,
                "unfurl_links": _flag(params.get("unfurl_links")),
                "unfurl_media": _flag(params.get("unfurl_media")),
                "reply_broadcast": bool(_flag(params.get("reply_broadcast"), False)),
                "edited": None,
                "params": dict(params),
            }
        )
        return {"channel": channel, "ts": msg["ts"], "message": self._public(msg)}

    def _chat_update(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = self._resolve_channel(params.get("channel"), create=False)
        ts = params.get("ts")
        msg = self._by_key.get((channel, str(ts)))
        if msg is None:
            raise SlackError("message_not_found")
        if msg.get("bot_id") != self.bot_id:
            raise SlackError("cant_update_message")
        self._check_content(params)
        for key in ("text", "markdown_text", "blocks"):
            msg[key] = params.get(key)
        msg["edited"] = {"user": self.bot_user_id, "ts": self._next_ts()}
        self.history[msg["ts"]].append(self._display(msg))
        return {"channel": channel, "ts": msg["ts"], "text": self._display(msg), "message": self._public(msg)}

    def _replies(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = self._resolve_channel(params.get("channel"), create=False)
        ts = params.get("ts")
        if not ts:
            raise SlackError("invalid_arguments")
        thread = self._thread_messages(channel, str(ts))
        if not thread:
            raise SlackError("thread_not_found")
        limit = max(1, int(params.get("limit") or 1000))
        start = int(params.get("cursor") or 0)
        page = thread[start : start + limit]
        more = start + limit < len(thread)
        return {
            "messages": [self._public(m) for m in page],
            "has_more": more,
            "response_metadata": {"next_cursor": str(start + limit) if more else ""},
        }

    def _reactions_add(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = self._resolve_channel(params.get("channel"), create=False)
        ts, name = params.get("timestamp"), params.get("name")
        if not name:
            raise SlackError("invalid_name")
        if (channel, str(ts)) not in self._by_key:
            raise SlackError("message_not_found")
        reaction = {"channel": channel, "ts": str(ts), "name": str(name).strip(":"), "user": self.bot_user_id}
        if reaction in self.reactions:
            raise SlackError("already_reacted")
        self.reactions.append(reaction)
        return {}

    def _auth_test(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "url": "https://fake-workspace.slack.com/",
            "team": "Fake Workspace",
            "user": "wif",
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
            "is_enterprise_install": False,
        }
