"""The Slack app (Bolt): a workflow step "Ask WIF" and a message shortcut that dispatch wif.yml.

Why an app: a Slack message is free text and a support team should not have to host code of their
own to ask from Slack. Both entry points start the same workflow_dispatch as `wif dispatch`, with
the message as `message` (data only: it never reaches a shell) and the thread to answer in.

Why acknowledge before dispatching: Slack wants the 200 within 3 s and retries otherwise, and GitHub
may take 30 s. A listener only records the request (`slack_jobs.RequestLog`, so a retry, a restart or
a second replica starts nothing twice) and returns; the dispatch and the reply run on a worker.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from github import Github
from slack_bolt import App
from slack_sdk import WebClient

from indexer.redaction import Redactor
from indexer.wall_clock import run_within
from wif_action.slack_jobs import JobRunner
from wif_action.slack_payload import FIELDS, payload_problem, text_at
from wif_action.tools.github_issues import DISPATCH_HINTS, GitHubWriteError, dispatch_workflow

FUNCTION_ID = "ask_wif"
SHORTCUT_ID = "ask_wif_message"
MAX_MESSAGE_CHARS = 20_000  # what the Action reads of a request anyway
REPLY_SECONDS = 15.0  # total bound on the step's completion or the shortcut's notice
log = logging.getLogger("wif.slack")


def function_key(body: Mapping[str, Any]) -> str:
    """One key per function execution: Slack's retries of it carry the same execution id."""
    execution = text_at(body, "event.function_execution_id") or text_at(body, "event_id")
    return f"fn:{execution}" if execution else f"fn:body:{_digest(body)}"


def shortcut_key(body: Mapping[str, Any]) -> str:
    """One key per use of the shortcut: its trigger_id, else the whole payload (who, where, when)."""
    trigger = text_at(body, "trigger_id")
    return f"sc:{trigger}" if trigger else f"sc:body:{_digest(body)}"


def _digest(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()[:32]


class Dispatcher:
    """Starts wif.yml for one request and tells Slack how it went, every text redacted by value."""

    def __init__(self, github: Callable[[], Github], repo: str, workflow: str, ref: str, *,
                 slack: Callable[[str], WebClient], redactor: Redactor):
        self._github, self.repo, self.workflow, self.ref = github, repo, workflow, ref
        self._slack, self._redactor = slack, redactor

    def dispatch(self, message: str, channel: str, thread_ts: str, fields: Mapping[str, Any]) -> str:
        """The run URL; raises GitHubWriteError with a hint for 401/404/422 in its reason."""
        inputs = {"message": message[:MAX_MESSAGE_CHARS], "slack_channel": channel, "slack_thread_ts": thread_ts}
        inputs.update({name: str(fields.get(name) or "") for name in FIELDS})
        inputs = {key: value.strip() for key, value in inputs.items() if value and value.strip()}
        try:
            return dispatch_workflow(self._github(), self.repo, self.workflow, self.ref, inputs)
        except GitHubWriteError as error:
            hint = DISPATCH_HINTS.get(error.status)
            raise GitHubWriteError(f"{error.reason}" + (f" — {hint}" if hint else ""), error.status) from error

    def run(self, job: dict[str, Any]) -> None:
        """One accepted request: dispatch, then complete the step or post the shortcut's notice."""
        try:
            url, reason = self.dispatch(str(job.get("message") or ""), str(job.get("channel") or ""),
                                        str(job.get("thread_ts") or ""), job.get("fields") or {}), None
        except GitHubWriteError as error:
            url, reason = None, f"WIF could not start: {error.reason}"
        except Exception as error:  # a bug, or a row another version wrote: the asker still hears back
            log.error("slack dispatch for %s failed: %s", job.get("kind"), type(error).__name__)
            url, reason = None, f"WIF could not start: the app failed ({type(error).__name__}); its log says more"
        redact = Redactor({}, extra=(job.get("token") or "",))
        reason = redact.text(self._redactor.text(reason))
        try:
            run_within(REPLY_SECONDS, lambda: self._reply(job, url, reason))
        except Exception as error:  # the run is started; a lost notice is logged, never retried into a 2nd run
            log.warning("slack reply for %s failed: %s", job["kind"], type(error).__name__)

    def _reply(self, job: dict[str, Any], url: str | None, reason: str | None) -> None:
        if job["kind"] == "function":
            client = self._slack(job["token"])
            if url:
                client.functions_completeSuccess(function_execution_id=job["execution"], outputs={"run_url": url})
            else:
                client.functions_completeError(function_execution_id=job["execution"], error=reason or "")
        else:
            text = f"WIF is on it: {url}" if url else reason
            self._slack("").chat_postEphemeral(channel=job["channel"], user=job["user"], text=text or "")


def function_job(body: Mapping[str, Any], inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The step's request; a field of another type than Slack sends reads as absent (`slack_payload`)."""
    inputs = inputs if isinstance(inputs, Mapping) else {}
    return {"kind": "function", "message": text_at(inputs, "message"), "channel": text_at(inputs, "channel_id"),
            "thread_ts": text_at(inputs, "message_ts"), "fields": {name: text_at(inputs, name) for name in FIELDS},
            "execution": text_at(body, "event.function_execution_id"),
            "token": text_at(body, "event.bot_access_token")}


def shortcut_job(shortcut: Mapping[str, Any]) -> dict[str, Any]:
    """The shortcut's request; a field of another type than Slack sends reads as absent (`slack_payload`)."""
    return {"kind": "shortcut", "message": text_at(shortcut, "message.text"),
            "channel": text_at(shortcut, "channel.id"),
            "thread_ts": text_at(shortcut, "message.thread_ts") or text_at(shortcut, "message.ts"), "fields": {},
            "user": text_at(shortcut, "user.id")}


def build_slack_app(env: Mapping[str, str], jobs: JobRunner, client: WebClient) -> App:
    """The Bolt app for SLACK_BOT_TOKEN / SLACK_SIGNING_SECRET; `client` is its Web API client.

    `process_before_response`: the 200 leaves only after the listener has recorded the request (so an
    acknowledged request is never lost); the listener does nothing slow, the dispatch runs on `jobs`."""
    app = App(client=client, token_verification_enabled=False,
              signing_secret=(env.get("SLACK_SIGNING_SECRET") or "").strip(), process_before_response=True)

    @app.function(FUNCTION_ID)
    def ask_wif(body: dict[str, Any], inputs: dict[str, Any]) -> None:
        if readable(body):
            accept(jobs, function_key(body), function_job(body, inputs))

    @app.shortcut(SHORTCUT_ID)
    def ask_about_message(ack: Any, body: dict[str, Any], shortcut: dict[str, Any]) -> None:
        if readable(body):
            accept(jobs, shortcut_key(body), shortcut_job(shortcut))
        ack()

    return app


def readable(body: Mapping[str, Any]) -> bool:
    """False (and one log line) for a payload WIF cannot read or answer: nothing is recorded or dispatched.

    HTTP mode refuses such a body with 400 before Bolt (`slack_http.RequestGuard`), Socket Mode before Bolt's adapter
    (`slack_socket`); this holds if a payload reaches a listener all the same."""
    problem = payload_problem(body)
    if problem:
        log.warning("slack request refused: %s", problem)
    return problem is None


def accept(jobs: JobRunner, key: str, job: dict[str, Any]) -> None:
    """Record the request (a repeat of a recorded key starts nothing) and queue its dispatch."""
    if jobs.requests.accept(key, job):
        jobs.submit(key)
