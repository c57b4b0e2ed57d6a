"""The Slack app manifest for each mode, built from the names the handlers use (so the two cannot drift).

Socket Mode: no public URL; Slack sends events and interactions over the app-level connection.
HTTP mode: Slack POSTs both to `request_url` (this app's `/slack/events`), signed with the signing secret.
Either way the app needs:
- `functions.ask_wif` (the workflow step; Slack sends `function_executed` for it only to an app subscribed
  to that event, so `event_subscriptions.bot_events` lists it);
- the message shortcut (`interactivity` on: shortcuts are interactions);
- `org_deploy_enabled: true`: Slack offers an app's custom steps in Workflow Builder only when the app is
  org-ready (it opts in to organisation-wide installation); without it the manifest's `functions` are refused;
- scopes: `chat:write` (the answer and the shortcut's notice), `commands` (the shortcut),
  `channels:history` / `groups:history` (the Action reads the thread it answers in).
"""

from __future__ import annotations

from typing import Any

from wif_action.slack_app import FUNCTION_ID, SHORTCUT_ID
from wif_action.slack_http import PATH

SCOPES = ["chat:write", "commands", "channels:history", "groups:history"]
EVENTS = ["function_executed"]
INPUTS: dict[str, dict[str, str]] = {
    "message": {"type": "string", "title": "Message text", "description": "The question as written"},
    "channel_id": {"type": "slack#/types/channel_id", "title": "Channel to answer in"},
    "message_ts": {"type": "string", "title": "Message timestamp", "description": "Answer in this thread"},
    "sdk": {"type": "string", "title": "SDK (optional)"},
    "version": {"type": "string", "title": "Version (optional)"},
    "problem": {"type": "string", "title": "Problem (optional)"},
    "links": {"type": "string", "title": "GitHub links (optional)"},
}


def manifest(url: str | None = None) -> dict[str, Any]:
    """Socket Mode without `url`; HTTP mode with it (the app's public base URL or its /slack/events)."""
    events: dict[str, Any] = {"bot_events": list(EVENTS)}
    interactivity: dict[str, Any] = {"is_enabled": True}
    if url:
        endpoint = url.rstrip("/") if url.rstrip("/").endswith(PATH) else url.rstrip("/") + PATH
        events["request_url"] = interactivity["request_url"] = endpoint
    return {
        "_metadata": {"major_version": 2},
        "display_information": {
            "name": "WIF",
            "description": "Was It Fixed? Asks WIF whether an SDK bug was fixed in a later release, and in which PR.",
        },
        "features": {
            "bot_user": {"display_name": "WIF", "always_online": False},
            "shortcuts": [{"name": "Ask WIF about this", "type": "message", "callback_id": SHORTCUT_ID,
                           "description": "Start WIF on this message; the answer arrives in its thread"}],
        },
        "oauth_config": {"scopes": {"bot": list(SCOPES)}},
        "settings": {
            "event_subscriptions": events,
            "interactivity": interactivity,
            "org_deploy_enabled": True,
            "socket_mode_enabled": not url,
            "function_runtime": "remote",
            "token_rotation_enabled": False,
        },
        "functions": {
            FUNCTION_ID: {
                "title": "Ask WIF",
                "description": "Starts the WIF GitHub workflow for a message; WIF answers in the message's thread",
                "input_parameters": {"properties": INPUTS, "required": ["message", "channel_id"]},
                "output_parameters": {"properties": {"run_url": {"type": "string", "title": "Workflow run URL"}},
                                      "required": []},
            },
        },
    }
