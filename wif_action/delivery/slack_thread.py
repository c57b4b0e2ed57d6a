"""A Slack thread as request text: people relabelled "User 1", "User 2", bots left out.

Why relabel: the engines need who-said-what to follow a conversation, not
names or Slack IDs (which also must not reach an LLM or be echoed back as a
ping). Bot messages (WIF's own progress and answers) are noise.
"""

from __future__ import annotations

import re
from typing import Any

from wif_action.delivery.github_event import MAX_REQUEST_CHARS

_USER_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_GROUP_MENTION = re.compile(r"<!(?:subteam\^[A-Z0-9]+|here|channel|everyone)(?:\|([^>]*))?>")


def thread_text(messages: list[dict[str, Any]]) -> str:
    """The human messages of a thread, in order, as `User N: text` paragraphs (bounded)."""
    labels: dict[str, str] = {}
    paragraphs = []
    for message in messages:
        if _is_bot(message) or not str(message.get("text") or "").strip():
            continue
        label = _label(labels, str(message.get("user") or "unknown"))
        paragraphs.append(f"{label}: {_plain(str(message['text']), labels)}")
    return "\n\n".join(paragraphs)[:MAX_REQUEST_CHARS]


def _is_bot(message: dict[str, Any]) -> bool:
    return bool(message.get("bot_id")) or message.get("subtype") in ("bot_message", "channel_join")


def _label(labels: dict[str, str], user: str) -> str:
    if user not in labels:
        labels[user] = f"User {len(labels) + 1}"
    return labels[user]


def _plain(text: str, labels: dict[str, str]) -> str:
    """Mentions become labels (or "someone"), so no Slack ID or ping survives into the request."""
    text = _USER_MENTION.sub(lambda m: labels.get(m.group(1), "someone"), text)
    return _GROUP_MENTION.sub(lambda m: (m.group(1) or "the group").lstrip("@"), text)
