"""The Slack app over real HTTP: real slack_bolt behind a WSGI server on 127.0.0.1, the fake Slack
Web API and the fake GitHub; payloads signed as Slack signs them."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from slack_bolt.adapter.wsgi import SlackRequestHandler

from tests.fakes.github_server import FakeGitHub
from tests.fakes.slack_server import FakeSlack
from wif_action.app import write_github
from wif_action.slack_app import Dispatcher, build_slack_app

SECRET = "signing-secret-for-tests"
REPO = "acme/support"
ROOT = Path(__file__).resolve().parent.parent


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


class SlackAppServer:
    def __init__(self, github: FakeGitHub, slack: FakeSlack):
        env = {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": slack.url + "/api/"}
        dispatcher = Dispatcher(lambda: write_github({"GITHUB_API_URL": github.url, "GITHUB_TOKEN": "ghp_test"}),
                                REPO, "wif.yml", "main")
        self.server = make_server("127.0.0.1", 0, SlackRequestHandler(build_slack_app(env, dispatcher)),
                                  handler_class=_Quiet)
        self.url = f"http://127.0.0.1:{self.server.server_port}/slack/events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def post(self, body: bytes, content_type: str, *, secret: str = SECRET, retry: int | None = None) -> int:
        stamp = str(int(time.time()))
        signature = "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
        headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature}
        if retry is not None:
            headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(token="ghp_test") as fake:
        fake.add_repo(REPO)
        yield fake


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def app(github, slack) -> Iterator[SlackAppServer]:
    server = SlackAppServer(github, slack)
    yield server
    server.server.shutdown()


def function_executed(inputs: dict[str, Any], execution: str = "Fx0001") -> bytes:
    event = {"type": "function_executed", "function": {"id": "Fn0001", "callback_id": "ask_wif", "title": "Ask WIF",
                                                       "type": "app", "app_id": "A0WIF"},
             "inputs": inputs, "function_execution_id": execution, "workflow_execution_id": "Wx0001",
             "event_ts": "1700000000.000200", "bot_access_token": "xwfp-function-token"}
    return json.dumps({"token": "x", "team_id": "T0FAKE", "api_app_id": "A0WIF", "event": event,
                       "type": "event_callback", "event_id": f"Ev{execution}", "event_time": 1700000000}).encode()


def message_action(text: str) -> bytes:
    payload = {"type": "message_action", "callback_id": "ask_wif_message", "trigger_id": "13345.7.ab",
               "team": {"id": "T0FAKE"}, "user": {"id": "U0SUPPORT"}, "channel": {"id": "C0SUPPORT"},
               "message": {"type": "message", "text": text, "ts": "1700000000.000100", "user": "U0CUSTOMER"},
               "message_ts": "1700000000.000100", "response_url": "http://127.0.0.1:9/none"}
    return urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()


def wait_for(condition: Any) -> None:
    deadline = time.monotonic() + 10
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


STEP_INPUTS = {"message": "iOS 8.48.0: WatchdogTermination tags are empty", "channel_id": "C0SUPPORT",
               "message_ts": "1700000000.000100"}


def test_the_step_dispatches_the_message_and_completes_with_the_run_url(app, github, slack):
    assert app.post(function_executed(STEP_INPUTS), "application/json") == 200
    wait_for(lambda: slack.completions)
    (record,) = github.dispatches
    assert record["workflow"] == "wif.yml" and record["ref"] == "main"
    assert record["inputs"] == {"message": STEP_INPUTS["message"], "slack_channel": "C0SUPPORT",
                                "slack_thread_ts": "1700000000.000100"}
    assert slack.completions == [{"kind": "success", "function_execution_id": "Fx0001",
                                  "outputs": {"run_url": "https://github.com/acme/support/actions/runs/123"},
                                  "error": None}]


@pytest.mark.parametrize(("setup", "hint"), [
    (lambda fake: setattr(fake, "token", "another"), "the token was rejected"),
    (lambda fake: setattr(fake, "workflow_files", {"other.yml"}), "repository or workflow not found"),
    (lambda fake: setattr(fake, "max_dispatch_inputs", 1), "GitHub refused the inputs or ref"),
])
def test_github_errors_complete_the_step_with_what_to_fix(app, github, slack, setup, hint):
    setup(github)
    app.post(function_executed(STEP_INPUTS), "application/json")
    wait_for(lambda: slack.completions)
    (completion,) = slack.completions
    assert completion["kind"] == "error" and hint in completion["error"], completion
    assert not github.dispatches


def test_a_bad_signature_is_refused_and_nothing_is_dispatched(app, github, slack):
    assert app.post(function_executed(STEP_INPUTS), "application/json", secret="wrong") == 401
    time.sleep(0.3)
    assert not github.dispatches and not slack.completions


def test_a_slack_retry_does_not_dispatch_twice(app, github, slack):
    app.post(function_executed(STEP_INPUTS), "application/json")
    wait_for(lambda: slack.completions)
    app.post(function_executed(STEP_INPUTS), "application/json", retry=1)
    time.sleep(0.3)
    assert len(github.dispatches) == 1 and len(slack.completions) == 1


def test_hostile_text_is_passed_as_data_only(app, github, slack):
    text = "<!channel> ${{ secrets.GITHUB_TOKEN }} $(rm -rf /)\n`id`\n" + "x" * 50_000
    app.post(function_executed({**STEP_INPUTS, "message": text}), "application/json")
    wait_for(lambda: slack.completions)
    sent = github.dispatches[0]["inputs"]["message"]
    assert sent == text[:20_000]  # verbatim, only bounded: the workflow passes it on as data


def test_the_message_shortcut_dispatches_the_message_it_was_used_on(app, github, slack):
    assert app.post(message_action("Android 8.39.0: ANR on start"), "application/x-www-form-urlencoded") == 200
    wait_for(lambda: slack.ephemerals)
    assert github.dispatches[0]["inputs"] == {"message": "Android 8.39.0: ANR on start",
                                              "slack_channel": "C0SUPPORT", "slack_thread_ts": "1700000000.000100"}
    assert "actions/runs/123" in slack.ephemerals[0]["text"]


def test_the_manifest_declares_the_step_the_shortcut_and_the_scopes():
    manifest = json.loads((ROOT / "slack" / "manifest.json").read_text())
    function = manifest["functions"]["ask_wif"]
    assert set(function["input_parameters"]["properties"]) >= {"message", "channel_id", "message_ts"}
    assert "run_url" in function["output_parameters"]["properties"]
    shortcuts = manifest["features"]["shortcuts"]
    assert any(s["callback_id"] == "ask_wif_message" and s["type"] == "message" for s in shortcuts)
    # chat:write: the answer and the shortcut's notice; commands: the shortcut; *:history: the Action reads the thread
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {"chat:write", "commands", "channels:history",
                                                          "groups:history"}


@pytest.mark.parametrize(("argv", "missing"), [
    (["slack", "serve"], "SLACK_APP_TOKEN"), (["slack", "serve", "--http"], "SLACK_SIGNING_SECRET"),
])
def test_serve_without_its_settings_says_which_and_exits_2(argv, missing, monkeypatch, capsys):
    from wif_action.cli import main

    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "GITHUB_TOKEN", "WIF_REPOSITORY",
                 "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert missing in err and "SLACK_BOT_TOKEN" in err and "WIF_REPOSITORY" in err
