"""The Slack app over real HTTP, served as `wif slack serve --http` serves it: real slack_bolt behind the
request guard, under waitress on 127.0.0.1, against the fake Slack Web API and the fake GitHub; payloads
signed as Slack signs them, accepted requests recorded in a real SQLite file."""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github_server import FakeGitHub
from tests.fakes.slack_server import FakeSlack
from wif_action.commands.slack import build
from wif_action.slack_http import SlackHTTPServer, _Trigger, serve

SECRET = "signing-secret-for-tests"
REPO = "acme/support"
GITHUB_TOKEN = "0123456789abcdef0123456789abcdef01234567"  # a classic token: 40 hex, no recognisable shape
ROOT = Path(__file__).resolve().parent.parent


class SlackAppServer:
    """One app process: its own Bolt app, job runner and server, sharing `state` with any other."""

    def __init__(self, github: FakeGitHub, slack: FakeSlack, state: Path, read_seconds: int = 10):
        self.env = {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": SECRET,
                    "SLACK_API_URL": slack.url + "/api/", "GITHUB_API_URL": github.url,
                    "GITHUB_TOKEN": GITHUB_TOKEN, "WIF_REPOSITORY": REPO}
        app, self.jobs = build(self.env, str(state))
        self.jobs.start_sweeping()  # as `wif slack serve` does: takes up what a dead process left
        self.server: SlackHTTPServer = serve(app, SECRET, "127.0.0.1", 0, read_seconds=read_seconds)
        self.url = f"http://127.0.0.1:{self.server.port}/slack/events"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.stop()
        self.jobs.close()

    def post(self, body: bytes, content_type: str, *, secret: str = SECRET, retry: int | None = None,
             stamp: str | None = None, timeout: float = 30) -> int:
        stamp = stamp or str(int(time.time()))
        signature = "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
        headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature}
        if retry is not None:
            headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=GITHUB_TOKEN) as fake:
        fake.add_repo(REPO)
        yield fake


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def state(tmp_path) -> Path:
    return tmp_path / "wif-slack.db"


@pytest.fixture
def app(github, slack, state) -> Iterator[SlackAppServer]:
    server = SlackAppServer(github, slack, state)
    yield server
    server.close()


def function_executed(inputs: dict[str, Any], execution: str = "Fx0001") -> bytes:
    event = {"type": "function_executed", "function": {"id": "Fn0001", "callback_id": "ask_wif", "title": "Ask WIF",
                                                       "type": "app", "app_id": "A0WIF"},
             "inputs": inputs, "function_execution_id": execution, "workflow_execution_id": "Wx0001",
             "event_ts": "1700000000.000200", "bot_access_token": "xwfp-function-token"}
    return json.dumps({"token": "x", "team_id": "T0FAKE", "api_app_id": "A0WIF", "event": event,
                       "type": "event_callback", "event_id": f"Ev{execution}", "event_time": 1700000000}).encode()


def message_action(text: str, trigger_id: str | None = "13345.7.ab", user: str = "U0SUPPORT",
                   ts: str = "1700000000.000100") -> bytes:
    payload = {"type": "message_action", "callback_id": "ask_wif_message", "trigger_id": trigger_id,
               "team": {"id": "T0FAKE"}, "user": {"id": user}, "channel": {"id": "C0SUPPORT"},
               "message": {"type": "message", "text": text, "ts": ts, "user": "U0CUSTOMER"},
               "message_ts": ts, "response_url": "http://127.0.0.1:9/none"}
    if trigger_id is None:
        del payload["trigger_id"]
    return urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()


def wait_for(condition: Any, seconds: float = 60) -> None:
    """Poll until `condition()` holds; `seconds` is only a deadline (the assertions after it fail if it passed),
    long enough for a job's first dispatch on a loaded machine (PyGithub and slack_sdk imported in its thread)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


STEP_INPUTS = {"message": "iOS 8.48.0: WatchdogTermination tags are empty", "channel_id": "C0SUPPORT",
               "message_ts": "1700000000.000100"}
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


def test_the_step_dispatches_the_message_and_completes_with_the_run_url(app, github, slack):
    assert app.post(function_executed(STEP_INPUTS), JSON) == 200
    wait_for(lambda: slack.completions)
    (record,) = github.dispatches
    assert record["workflow"] == "wif.yml" and record["ref"] == "main"
    assert record["inputs"] == {"message": STEP_INPUTS["message"], "slack_channel": "C0SUPPORT",
                                "slack_thread_ts": "1700000000.000100"}
    assert slack.completions == [{"kind": "success", "function_execution_id": "Fx0001",
                                  "outputs": {"run_url": "https://github.com/acme/support/actions/runs/123"},
                                  "error": None}]
    (call,) = slack.requests_for("functions.completeSuccess")
    assert call["headers"]["authorization"] == "Bearer xwfp-function-token"  # the step's own token


@pytest.mark.parametrize(("setup", "hint"), [
    (lambda fake: setattr(fake, "token", "another"), "the token was rejected"),
    (lambda fake: setattr(fake, "workflow_files", {"other.yml"}), "repository or workflow not found"),
    (lambda fake: setattr(fake, "max_dispatch_inputs", 1), "GitHub refused the inputs or ref"),
])
def test_github_errors_complete_the_step_with_what_to_fix(app, github, slack, setup, hint):
    setup(github)
    app.post(function_executed(STEP_INPUTS), JSON)
    wait_for(lambda: slack.completions)
    (completion,) = slack.completions
    assert completion["kind"] == "error" and hint in completion["error"], completion
    assert not github.dispatches


def test_a_bad_signature_is_refused_and_nothing_is_dispatched(app, github, slack):
    assert app.post(function_executed(STEP_INPUTS), JSON, secret="wrong") == 401
    time.sleep(0.3)
    assert not github.dispatches and not slack.completions


def test_a_slack_retry_does_not_dispatch_twice(app, github, slack):
    app.post(function_executed(STEP_INPUTS), JSON)
    wait_for(lambda: slack.completions)
    app.post(function_executed(STEP_INPUTS), JSON, retry=1)
    time.sleep(0.3)
    assert len(github.dispatches) == 1 and len(slack.completions) == 1


def test_a_retry_after_a_restart_or_at_a_second_replica_does_not_dispatch_again(app, github, slack, state):
    """Item 2: the accepted keys live in the SQLite file, not in one process's memory."""
    assert app.post(function_executed(STEP_INPUTS), JSON) == 200
    wait_for(lambda: slack.completions)
    app.close()  # the restart
    second = SlackAppServer(github, slack, state)
    try:
        assert second.post(function_executed(STEP_INPUTS), JSON, retry=1) == 200
        assert second.post(function_executed(STEP_INPUTS, execution="Fx0002"), JSON) == 200
        wait_for(lambda: len(slack.completions) >= 2)
        time.sleep(0.3)
    finally:
        second.close()
    assert [c["function_execution_id"] for c in slack.completions] == ["Fx0001", "Fx0002"]
    assert len(github.dispatches) == 2


def test_two_shortcuts_without_a_trigger_id_are_two_requests(app, github, slack):
    """Item 2: a key of `trigger_id` alone made every shortcut without one the same request."""
    assert app.post(message_action("Android 8.39.0: ANR on start", trigger_id=None), FORM) == 200
    assert app.post(message_action("iOS 8.1.0: crash on launch", trigger_id=None, user="U0OTHER",
                                   ts="1700000000.000200"), FORM) == 200
    wait_for(lambda: len(slack.ephemerals) >= 2)
    assert sorted(d["inputs"]["message"] for d in github.dispatches) == ["Android 8.39.0: ANR on start",
                                                                         "iOS 8.1.0: crash on launch"]


def test_a_request_its_process_died_with_is_dispatched_once_by_the_next(github, slack, state):
    """Accepted (recorded, acknowledged), then the process died before dispatching: the next one sweeps it."""
    from wif_action.slack_jobs import RequestLog

    job = {"kind": "shortcut", "message": "Android 8.39.0: ANR on start", "channel": "C0SUPPORT",
           "thread_ts": "1700000000.000100", "fields": {}, "user": "U0SUPPORT"}
    assert RequestLog(state, lease=0).accept("sc:dead-process", job)  # its lease already over
    server = SlackAppServer(github, slack, state)
    try:
        wait_for(lambda: slack.ephemerals)
        time.sleep(0.3)
    finally:
        server.close()
    assert len(github.dispatches) == 1 and len(slack.ephemerals) == 1
    assert RequestLog(state).states() == {"done": 1}


def test_a_row_another_version_wrote_is_still_dispatched_or_answered(github, slack, state):
    """Rows left by an older app (a key it did not write) or holding another shape: the first is dispatched, the
    second gets its notice that WIF could not start. Both were a KeyError/AttributeError in the log and silence."""
    from wif_action.slack_jobs import RequestLog

    older = {"kind": "shortcut", "message": "Android 8.39.0: ANR on start", "channel": "C0SUPPORT", "user": "U0A"}
    odd = {**older, "user": "U0B", "thread_ts": "1700000000.000100", "fields": ["sdk"]}
    log = RequestLog(state, lease=0)  # their leases already over: the next process sweeps them up
    assert log.accept("sc:older", older) and log.accept("sc:odd", odd)
    server = SlackAppServer(github, slack, state)
    try:
        wait_for(lambda: len(slack.ephemerals) >= 2)
    finally:
        server.close()
    assert [d["inputs"] for d in github.dispatches] == [{"message": "Android 8.39.0: ANR on start",
                                                        "slack_channel": "C0SUPPORT"}]
    notices = {e["user"]: e["text"] for e in slack.ephemerals}
    assert "actions/runs/123" in notices["U0A"]
    assert notices["U0B"] == "WIF could not start: the app failed (AttributeError); its log says more"
    assert RequestLog(state).states() == {"done": 2}


def test_a_malformed_github_api_url_stops_serve_before_it_starts(monkeypatch, capsys):
    from wif_action.cli import main

    for name, value in {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": SECRET, "GITHUB_TOKEN": GITHUB_TOKEN,
                        "WIF_REPOSITORY": REPO, "GITHUB_API_URL": "ftp://ghe.example.com/api/v3"}.items():
        monkeypatch.setenv(name, value)
    assert main(["slack", "serve", "--http"]) == 2
    assert "set GITHUB_API_URL (an http(s) URL)" in capsys.readouterr().err


def test_hostile_text_is_passed_as_data_only(app, github, slack):
    text = "<!channel> ${{ secrets.GITHUB_TOKEN }} $(rm -rf /)\n`id`\n" + "x" * 50_000
    app.post(function_executed({**STEP_INPUTS, "message": text}), JSON)
    wait_for(lambda: slack.completions)
    sent = github.dispatches[0]["inputs"]["message"]
    assert sent == text[:20_000]  # verbatim, only bounded: the workflow passes it on as data


def test_the_message_shortcut_dispatches_the_message_it_was_used_on(app, github, slack):
    assert app.post(message_action("Android 8.39.0: ANR on start"), FORM) == 200
    wait_for(lambda: slack.ephemerals)
    assert github.dispatches[0]["inputs"] == {"message": "Android 8.39.0: ANR on start",
                                              "slack_channel": "C0SUPPORT", "slack_thread_ts": "1700000000.000100"}
    assert "actions/runs/123" in slack.ephemerals[0]["text"]


# -- item 1: a real server: idle clients, slow GitHub ------------------------------------------------
def test_an_idle_connection_blocks_no_one(github, slack, state):
    """Five clients that connect and send nothing and one that stops mid-body: every signed request is answered
    while all six are still connected. The server's read timeout (600 s here) never frees them during the test,
    so no client timeout has to fall between two clocks (8 s against the default 10 s raced on a loaded machine)."""
    app = SlackAppServer(github, slack, state, read_seconds=600)
    idle = [socket.create_connection(("127.0.0.1", app.server.port)) for _ in range(5)]
    half = socket.create_connection(("127.0.0.1", app.server.port))
    half.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{")  # and stops
    try:
        codes = [app.post(function_executed(STEP_INPUTS, execution=f"Fx{n}"), JSON) for n in range(8)]
        assert codes == [200] * 8
        wait_for(lambda: len(slack.completions) == 8)
        assert len(github.dispatches) == 8
        for sock in [*idle, half]:  # still connected: the server did not hang up on them to serve the others
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
    finally:
        for sock in [*idle, half]:
            sock.close()
        app.close()


def test_the_shortcut_is_acknowledged_before_the_dispatch_completes(app, github, slack):
    held = threading.Event()  # GitHub starts no run until the test lets it: both acks must come while it waits
    github.add_fault("POST", r"/dispatches$", status=None, times=None, gate=held)
    try:
        assert app.post(message_action("Android 8.39.0: ANR on start"), FORM, timeout=30) == 200
        assert app.post(function_executed(STEP_INPUTS), JSON, timeout=30) == 200
        assert not github.dispatches  # acknowledged; both dispatches still held
    finally:
        held.set()
    wait_for(lambda: slack.ephemerals and slack.completions)
    assert len(github.dispatches) == 2


@pytest.mark.slow
def test_a_client_that_drips_its_request_is_cut_off(github, slack, state):
    server = SlackAppServer(github, slack, state, read_seconds=1)
    try:
        drip = socket.create_connection(("127.0.0.1", server.server.port))
        drip.settimeout(10)
        drip.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\n")
        closed = False
        for _ in range(40):  # one header line every 0.25 s: never idle, never complete
            try:
                drip.sendall(b"X-Pad: 1\r\n")
            except OSError:
                closed = True
                break
            time.sleep(0.25)
        if not closed:
            closed = drip.recv(1) == b""
        assert closed  # the server hung up on it
        assert server.post(function_executed(STEP_INPUTS), JSON) == 200  # still serving the others
    finally:
        server.close()


# -- item 3: secrets by value ------------------------------------------------------------------------
def test_a_token_github_echoes_never_reaches_slack(app, github, slack):
    echo = {"message": f"Bad inputs for token {GITHUB_TOKEN} (signing secret {SECRET}, bot xoxb-test)"}
    github.add_fault("POST", r"/dispatches$", status=422, body=echo, times=2)
    app.post(function_executed(STEP_INPUTS), JSON)
    app.post(message_action("Android 8.39.0: ANR on start"), FORM)
    wait_for(lambda: slack.completions and slack.ephemerals)
    shown = json.dumps([slack.completions, slack.ephemerals])
    assert "Bad inputs for token [redacted]" in shown
    assert GITHUB_TOKEN not in shown and SECRET not in shown and "xoxb-test" not in shown


# -- item 4: malformed requests ---------------------------------------------------------------------
@pytest.mark.parametrize(("body", "content_type", "signed", "code"), [
    (b"\x00\xffnot a payload", FORM, True, 400),
    (b"payload=%7Bnot-json", FORM, True, 400),
    (b"[1, 2, 3]", JSON, True, 400),
    (b"\x00\xffnot a payload", FORM, False, 401),
])
def test_a_garbage_body_is_refused_with_one_log_line(app, github, slack, caplog, body, content_type, signed, code):
    with caplog.at_level("WARNING", logger="wif.slack"):
        assert app.post(body, content_type, secret=SECRET if signed else "wrong") == code
    assert [r.levelname for r in caplog.records if r.name == "wif.slack"] == ["WARNING"]
    assert "Traceback" not in caplog.text
    assert app.post(function_executed(STEP_INPUTS), JSON) == 200  # the server is still up
    wait_for(lambda: slack.completions)
    assert len(github.dispatches) == 1


@pytest.mark.parametrize("stamp", ["soon", "1.5e9", "", "-1"])
def test_a_non_numeric_timestamp_is_refused(app, github, stamp):
    assert app.post(function_executed(STEP_INPUTS), JSON, stamp=stamp or " ") == 401
    time.sleep(0.2)
    assert not github.dispatches


# -- item 5: the manifests ----------------------------------------------------------------------------
def test_each_manifest_declares_what_the_handlers_need():
    from wif_action.slack_app import FIELDS, FUNCTION_ID, SHORTCUT_ID, function_job
    from wif_action.slack_manifest import manifest

    inputs = {"message": "m", "channel_id": "C1", "message_ts": "1.2", **{name: name for name in FIELDS}}
    read = function_job({"event": {}}, inputs)  # every input the handler reads ends up in the job
    assert {read["message"], read["channel"], read["thread_ts"], *read["fields"].values()} == set(inputs.values())
    for url in (None, "https://wif.example.com"):
        spec = manifest(url)
        function = spec["functions"][FUNCTION_ID]
        assert set(function["input_parameters"]["properties"]) == set(inputs)
        assert "run_url" in function["output_parameters"]["properties"]
        assert any(s["callback_id"] == SHORTCUT_ID and s["type"] == "message" for s in spec["features"]["shortcuts"])
        assert set(spec["oauth_config"]["scopes"]["bot"]) == {"chat:write", "commands", "channels:history",
                                                              "groups:history"}
        settings = spec["settings"]
        assert settings["event_subscriptions"]["bot_events"] == ["function_executed"]
        assert settings["interactivity"]["is_enabled"] and settings["org_deploy_enabled"] is True
        assert settings["socket_mode_enabled"] is (url is None)
        urls = {settings["event_subscriptions"].get("request_url"), settings["interactivity"].get("request_url")}
        assert urls == ({None} if url is None else {"https://wif.example.com/slack/events"})


def test_the_shipped_manifest_is_what_wif_slack_manifest_prints(capsys):
    from wif_action.cli import main

    assert main(["slack", "manifest"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads((ROOT / "slack" / "manifest.json").read_text())
    assert main(["slack", "manifest", "--http", "--url", "https://wif.example.com/"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["event_subscriptions"]["request_url"] == \
        "https://wif.example.com/slack/events"
    assert main(["slack", "manifest", "--http"]) == 2
    assert "--url" in capsys.readouterr().err


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


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00\xffnot sqlite" * 500)


def _another_programs(path: Path) -> None:
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE requests (id INTEGER, url TEXT)")
    db.close()


@pytest.mark.parametrize(("make", "said"), [
    (_garbage, "file is not a database"), (lambda path: path.mkdir(), "unable to open database file"),
    (_another_programs, "holds another program's 'requests' table (columns id, url)"),
])
def test_an_unusable_state_file_is_one_line_and_exit_2_before_serving(tmp_path, monkeypatch, capsys, make, said):
    """`--state` naming a damaged file, a directory or another program's database was a traceback at start-up."""
    from wif_action.cli import main

    for name, value in {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": SECRET, "GITHUB_TOKEN": GITHUB_TOKEN,
                        "WIF_REPOSITORY": REPO, "SLACK_API_URL": "http://127.0.0.1:9/api/"}.items():
        monkeypatch.setenv(name, value)
    state = tmp_path / "wif-slack.db"
    make(state)
    assert main(["slack", "serve", "--http", "--host", "127.0.0.1", "--port", "9", "--state", str(state)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wif slack serve: {state} ") and said in err and "Traceback" not in err, err
    assert "--state" in err


class _RecordingServer(SlackHTTPServer):
    """The real server; records the thread that closes its listening socket."""

    closed_in: list[str]

    def close(self) -> None:
        self.closed_in = [*getattr(self, "closed_in", []), threading.current_thread().name]
        super().close()


class _CheckedTrigger(_Trigger):
    """The server's trigger, recording whether its lock was held (and whether it was open) at every wake-up byte
    written and at its close."""

    pulls: list[tuple[bool, bool]]
    closes: list[bool]

    def _physical_pull(self) -> None:
        self.pulls.append((self.lock.locked(), self._closed))
        super()._physical_pull()

    def _close(self) -> None:
        self.closes.append(self.lock.locked())
        super()._close()


def test_the_trigger_is_written_and_closed_only_under_its_lock():
    """A wake-up byte is written only while holding the trigger's lock and while it is open, and the loop closes it
    holding that lock: a pull (`stop`, a worker finishing a request) can never write to the closed pipe's fd
    number after a new socket took it. Deterministic: only what happened is checked, never when."""
    server = _RecordingServer(_hello, "127.0.0.1", 0)
    server.trigger.__class__ = _CheckedTrigger
    server.trigger.pulls, server.trigger.closes = [], []
    loop = threading.Thread(target=server.run, name="wif-test-trigger-lock", daemon=True)
    loop.start()
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/", timeout=10) as response:
        assert response.read() == b"ok"
    server.stop()
    loop.join(30)
    assert not loop.is_alive() and server.closed_in == [loop.name]
    assert server.trigger.pulls and all(held and not closed for held, closed in server.trigger.pulls)
    assert server.trigger.closes == [True]


def test_a_closed_trigger_writes_nothing_to_its_old_fd_number():
    """Once closed, pulling the trigger queues and writes nothing, though its old fd number now names another
    pipe (as a new socket reusing the number would): waitress's own trigger wrote the wake-up byte there."""
    server = SlackHTTPServer(_hello, "127.0.0.1", 0)
    trigger = server.trigger
    server.stop()
    assert trigger._closed
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(read_end, False)
        trigger.trigger = write_end  # the number the closed pipe had, now someone else's
        assert trigger.pull_trigger() is False and trigger.pull_trigger(lambda: None) is False
        assert trigger.thunks == []
        with pytest.raises(BlockingIOError):
            os.read(read_end, 1)
    finally:
        os.close(read_end)
        os.close(write_end)


def _hello(_environ: dict, start_response: Any) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_stop_from_another_thread_closes_the_sockets_in_the_loop_thread():
    """A test harness (or any caller) stops the server from another thread than the one serving it: the sockets
    are closed by the loop itself, never under its `select` (EBADF in waitress's loop thread), and `stop` returns
    once the loop has ended. Clients keep the loop busy meanwhile; stopped before it ran, `run` returns at once."""
    for round_ in range(3):
        server = _RecordingServer(_hello, "127.0.0.1", 0)
        loop = threading.Thread(target=server.run, name=f"wif-test-loop-{round_}", daemon=True)
        loop.start()
        busy = threading.Event()

        def client(port: int = server.port, busy: threading.Event = busy) -> None:
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
                        response.read()
                except (OSError, http.client.HTTPException):
                    return  # the server is gone
                busy.set()

        clients = [threading.Thread(target=client, daemon=True) for _ in range(3)]
        for each in clients:
            each.start()
        assert busy.wait(30)
        server.stop()
        assert server.closed_in == [loop.name]
        loop.join(30)
        for each in clients:
            each.join(30)
        assert not loop.is_alive() and not any(each.is_alive() for each in clients)
    early = _RecordingServer(_hello, "127.0.0.1", 0)
    early.stop()
    early.run()  # returns at once
    assert early.closed_in == [threading.current_thread().name]


# -- payload fields of another JSON type than Slack sends -------------------------------------------
def _shortcut(**fields: Any) -> dict[str, Any]:
    return {**json.loads(urllib.parse.parse_qs(message_action("Android 8.39.0: ANR on start").decode())["payload"][0]),
            **fields}


def _step(event: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    body = json.loads(function_executed(STEP_INPUTS))
    body["event"].update(event or {})
    return {**body, **fields}


SHORTCUT_SHAPES = [({"channel": "C0SUPPORT"}, "`channel` is a string"), ({"user": "U0SUPPORT"}, "`user` is a string"),
                   ({"user": [1]}, "`user` is a list"), ({"channel": None}, "without `channel.id`"),
                   ({"user": {}}, "without `user.id`"), ({"message": "hi"}, "`message` is a string"),
                   ({"message": {"text": 5, "ts": "1.2"}}, "`message.text` is a number"),
                   ({"message": {"text": "hi", "ts": {"a": 1}}}, "`message.ts` is an object"),
                   ({"team": "T0FAKE"}, "`team` is a string"), ({"trigger_id": ["x"]}, "`trigger_id` is a list")]
STEP_SHAPES = [({"event": {"inputs": "x"}}, "`event.inputs` is a string"),
               ({"event": {"inputs": None}}, "without `event.inputs`"),
               ({"event": {"inputs": {**STEP_INPUTS, "channel_id": ["C1"]}}}, "`event.inputs.channel_id` is a list"),
               ({"event": {"function": "ask_wif"}}, "`event.function` is a string"),
               ({"event": {"function_execution_id": {"id": 1}}}, "`event.function_execution_id` is an object"),
               ({"event": {"function_execution_id": None}}, "without `event.function_execution_id`"),
               ({"event": {"bot_access_token": 5}}, "`event.bot_access_token` is a number"),
               ({"event": {"user": 7}}, "`event.user` is a number"),
               ({"authorizations": "x"}, "`authorizations` is a string"),
               ({"authorizations": [{"team": 3}]}, "`authorizations[0].team` is a number"),
               ({"team_id": {"id": "T"}}, "`team_id` is an object")]


@pytest.mark.parametrize(("fields", "said"), [*SHORTCUT_SHAPES, ({"event": "x"}, "`event` is a string"),
                                                ({"event": [1]}, "`event` is a list")])
def test_a_shortcut_field_of_the_wrong_type_is_a_400_naming_it(app, github, slack, caplog, fields, said):
    """A 500 with an AttributeError was what a string `channel` or `user` got; now one line says which field."""
    with caplog.at_level("WARNING", logger="wif.slack"):
        code = app.post(urllib.parse.urlencode({"payload": json.dumps(_shortcut(**fields))}).encode(), FORM)
    assert code == 400
    (line,) = [r.getMessage() for r in caplog.records if r.name in ("wif.slack", "slack_bolt.App")]
    assert said in line and "Traceback" not in caplog.text
    assert app.post(message_action("iOS 8.1.0: crash on launch"), FORM) == 200  # still serving
    wait_for(lambda: slack.ephemerals)
    assert [d["inputs"]["message"] for d in github.dispatches] == ["iOS 8.1.0: crash on launch"]


@pytest.mark.parametrize(("fields", "said"), STEP_SHAPES)
def test_a_step_field_of_the_wrong_type_is_a_400_naming_it(app, github, slack, caplog, fields, said):
    with caplog.at_level("WARNING", logger="wif.slack"):
        assert app.post(json.dumps(_step(fields.get("event"), **{k: v for k, v in fields.items() if k != "event"})
                                   ).encode(), JSON) == 400
    (line,) = [r.getMessage() for r in caplog.records if r.name in ("wif.slack", "slack_bolt.App")]
    assert said in line
    assert app.post(function_executed(STEP_INPUTS, execution="Fx0009"), JSON) == 200
    wait_for(lambda: slack.completions)
    assert [c["function_execution_id"] for c in slack.completions] == ["Fx0009"] and len(github.dispatches) == 1


@pytest.mark.parametrize(("body", "said"), [
    (_shortcut(channel="C0SUPPORT"), "`channel` is a string"), (_shortcut(user=None), "without `user.id`"),
    (_step({"inputs": [1]}), "`event.inputs` is a list"),
])
def test_socket_mode_refuses_the_same_shapes_in_the_listener(github, slack, state, caplog, body, said):
    """Socket Mode has no request guard: Bolt hands the payload to the listener, which refuses it the same way
    (one line, nothing recorded or dispatched) instead of raising AttributeError."""
    from slack_bolt.request import BoltRequest

    env = {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": slack.url + "/api/",
           "GITHUB_API_URL": github.url, "GITHUB_TOKEN": GITHUB_TOKEN, "WIF_REPOSITORY": REPO}
    bolt, jobs = build(env, str(state))
    try:
        with caplog.at_level("WARNING"):
            response = bolt.dispatch(BoltRequest(body=body, mode="socket_mode"))
        assert response.status == 200
        assert any(said in r.getMessage() for r in caplog.records if r.name == "wif.slack")
        assert not any(r.levelname == "ERROR" for r in caplog.records), caplog.text
        assert jobs.requests.states() == {}
    finally:
        jobs.close()
    assert not github.dispatches


SOCKET_SHAPES = [(_step(authorizations="x"), "`authorizations` is a string"),
                 (_step(authorizations=[{"team": 3}]), "`authorizations[0].team` is a number"),
                 (_shortcut(authorizations=["x"]), "`authorizations[0]` is a string")]


def test_socket_mode_refuses_a_payload_bolt_cannot_read_before_its_adapter(github, slack, state, caplog):
    """Over a real Socket Mode connection (slack_sdk's client, Bolt's adapter, `wif slack serve`'s handler): Bolt
    builds its request before any listener, and `"authorizations": "x"` raised AttributeError there
    (`extract_is_enterprise_install`), logged with a traceback, the envelope never acknowledged. Now one line
    names the field, the envelope is acknowledged, nothing is recorded, and the next request is answered."""
    from tests.fakes.socket_mode_server import FakeSocketMode
    from wif_action.slack_socket import GuardedSocketModeHandler

    env = {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": slack.url + "/api/",
           "GITHUB_API_URL": github.url, "GITHUB_TOKEN": GITHUB_TOKEN, "WIF_REPOSITORY": REPO}
    bolt, jobs = build(env, str(state))
    with FakeSocketMode() as server, caplog.at_level("INFO"):
        slack.socket_mode_url = server.url
        handler = GuardedSocketModeHandler(bolt, "xapp-test")
        try:
            handler.connect()
            for number, (payload, _) in enumerate(SOCKET_SHAPES):
                kind = "interactive" if payload.get("type") == "message_action" else "events_api"
                server.send({"envelope_id": f"bad{number}", "type": kind, "payload": payload,
                             "accepts_response_payload": False})
            wait_for(lambda: len(server.acks) == len(SOCKET_SHAPES))
            good = json.loads(function_executed(STEP_INPUTS, execution="Fx0042"))
            server.send({"envelope_id": "good", "type": "events_api", "payload": good,
                         "accepts_response_payload": False})
            wait_for(lambda: "good" in server.acks and slack.completions)
        finally:
            handler.close()
            jobs.close()
    assert sorted(server.acks) == sorted([f"bad{number}" for number in range(len(SOCKET_SHAPES))] + ["good"])
    refused = [r.getMessage() for r in caplog.records if r.name == "wif.slack"]
    assert all(any(said in line for line in refused) for _, said in SOCKET_SHAPES), refused
    assert not any(r.levelname == "ERROR" or r.exc_info for r in caplog.records), caplog.text
    assert [c["function_execution_id"] for c in slack.completions] == ["Fx0042"] and len(github.dispatches) == 1
