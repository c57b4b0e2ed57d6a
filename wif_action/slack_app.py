"""The Slack app (Bolt): a workflow step "Ask WIF" and a message shortcut that dispatch wif.yml.

Why an app: a Slack message is free text and a support team should not have to host code of their
own to ask from Slack. Both entry points start the same workflow_dispatch as `wif dispatch`, with
the message as `message` (data only: it never reaches a shell) and the thread to answer in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from github import Github
from slack_bolt import App

from wif_action.commands.dispatch import HINTS
from wif_action.tools.github_issues import GitHubWriteError, dispatch_workflow
from wif_action.tools.slack import web_client

FUNCTION_ID = "ask_wif"
SHORTCUT_ID = "ask_wif_message"
FIELDS = ("sdk", "version", "problem", "links")
MAX_MESSAGE_CHARS = 20_000  # what the Action reads of a request anyway


class Dispatcher:
    """Starts wif.yml for one Slack message, once: Slack retries of the same execution are ignored."""

    def __init__(self, github: Callable[[], Github], repo: str, workflow: str, ref: str):
        self._github, self.repo, self.workflow, self.ref = github, repo, workflow, ref
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def first_time(self, key: str) -> bool:
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
            return True

    def dispatch(self, message: str, channel: str, thread_ts: str, fields: Mapping[str, Any]) -> str:
        """The run URL; raises GitHubWriteError with a hint for 401/404/422 in its reason."""
        inputs = {"message": message[:MAX_MESSAGE_CHARS], "slack_channel": channel, "slack_thread_ts": thread_ts}
        inputs.update({name: str(fields.get(name) or "") for name in FIELDS})
        inputs = {key: value.strip() for key, value in inputs.items() if value and value.strip()}
        try:
            return dispatch_workflow(self._github(), self.repo, self.workflow, self.ref, inputs)
        except GitHubWriteError as error:
            hint = HINTS.get(error.status)
            raise GitHubWriteError(f"{error.reason}" + (f" — {hint}" if hint else ""), error.status) from error


def build_slack_app(env: Mapping[str, str], dispatcher: Dispatcher) -> App:
    """The Bolt app for SLACK_BOT_TOKEN / SLACK_SIGNING_SECRET, its Web API at SLACK_API_URL."""
    token = (env.get("SLACK_BOT_TOKEN") or "").strip()
    app = App(token=token, signing_secret=(env.get("SLACK_SIGNING_SECRET") or "").strip(),
              client=web_client(token, env.get("SLACK_API_URL") or None), token_verification_enabled=False,
              process_before_response=True)

    @app.function(FUNCTION_ID)
    def ask_wif(body: dict[str, Any], inputs: dict[str, Any], complete: Any, fail: Any) -> None:
        execution = str((body.get("event") or {}).get("function_execution_id") or "")
        if not dispatcher.first_time(f"fn:{execution}"):
            return
        try:
            url = dispatcher.dispatch(str(inputs.get("message") or ""), str(inputs.get("channel_id") or ""),
                                      str(inputs.get("message_ts") or ""), inputs)
        except GitHubWriteError as error:
            fail(f"WIF could not start: {error.reason}")
            return
        complete(outputs={"run_url": url})

    @app.shortcut(SHORTCUT_ID)
    def ask_about_message(ack: Any, shortcut: dict[str, Any], client: Any) -> None:
        ack()
        message = shortcut.get("message") or {}
        channel = str((shortcut.get("channel") or {}).get("id") or "")
        ts = str(message.get("thread_ts") or message.get("ts") or "")
        if not dispatcher.first_time(f"sc:{shortcut.get('trigger_id')}"):
            return
        try:
            url = dispatcher.dispatch(str(message.get("text") or ""), channel, ts, {})
            text = f"WIF is on it: {url}"
        except GitHubWriteError as error:
            text = f"WIF could not start: {error.reason}"
        client.chat_postEphemeral(channel=channel, user=(shortcut.get("user") or {}).get("id"), text=text)

    return app
