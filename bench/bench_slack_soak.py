"""Soak of `wif slack serve --http` (issue 25): signed requests from concurrent clients, idle sockets held open,
Slack-style retries, and a restart of the server in the middle; prints one table row per restart kind.

The server is the real command as a process (waitress, the request guard, Bolt, the SQLite request log) against
the fake GitHub (every dispatch takes --dispatch-delay seconds) and the fake Slack Web API. Each client sends its
share of --requests: new workflow-step executions and shortcut uses, and, for a quarter of them, a Slack retry of
one it sent before (same execution id / trigger_id, X-Slack-Retry-Num: 1). A request that gets no answer (the
restart) is retried as Slack retries, until answered. Halfway, the server is stopped (SIGTERM: graceful; SIGKILL:
a crash) and started again on the same port and state file.

Columns: requests sent (first tries) · answered 200 (of them, eventually) · answered within 3 s · no answer first
time (the restart window; retried) · distinct steps/shortcuts accepted · dispatches GitHub saw · distinct keys
dispatched · duplicates (dispatches − distinct) · missing (accepted, never dispatched) · Slack replies.

    python bench/bench_slack_soak.py [--requests 200] [--clients 20] [--idle 5] [--restart term,kill]
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tabulate import tabulate  # noqa: E402

from tests.fakes.github_server import FakeGitHub  # noqa: E402
from tests.fakes.slack_server import FakeSlack  # noqa: E402

SECRET = "soak-signing-secret"
REPO = "acme/support"


@dataclass
class Tally:
    sent: int = 0
    answered: int = 0
    fast: int = 0
    unanswered_first: int = 0
    keys: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def step_body(key: str) -> bytes:
    event = {"type": "function_executed", "function": {"id": "Fn1", "callback_id": "ask_wif", "title": "Ask WIF",
                                                       "type": "app", "app_id": "A0WIF"},
             "inputs": {"message": f"iOS 8.48.0: tags empty ({key})", "channel_id": "C0SUPPORT",
                        "message_ts": "1700000000.000100"},
             "function_execution_id": key, "workflow_execution_id": "Wx1", "event_ts": "1700000000.000200",
             "bot_access_token": "xwfp-soak"}
    return json.dumps({"token": "x", "team_id": "T0", "api_app_id": "A0WIF", "event": event,
                       "type": "event_callback", "event_id": f"Ev{key}", "event_time": 1700000000}).encode()


def shortcut_body(key: str) -> bytes:
    payload = {"type": "message_action", "callback_id": "ask_wif_message", "trigger_id": key,
               "team": {"id": "T0"}, "user": {"id": "U0SUPPORT"}, "channel": {"id": "C0SUPPORT"},
               "message": {"type": "message", "text": f"Android 8.39.0: ANR ({key})", "ts": "1700000000.000100"},
               "message_ts": "1700000000.000100", "response_url": "http://127.0.0.1:9/none"}
    return urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()


def post(url: str, body: bytes, content_type: str, retry: int) -> int | None:
    """The status, or None when the server gave no answer (refused, reset, timed out)."""
    stamp = str(int(time.time()))
    signature = "v0=" + hmac.new(SECRET.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature}
    if retry:
        headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, body, headers, method="POST"), timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except OSError:
        return None


def client(number: int, count: int, url: str, tally: Tally) -> None:
    rng = random.Random(number)
    mine: list[tuple[bytes, str]] = []
    for index in range(count):
        if mine and rng.random() < 0.25:
            body, kind = rng.choice(mine)  # Slack retrying a delivery it thinks failed
            retry = 1
        else:
            key = f"{'Fx' if index % 2 else 'Tr'}-{number}-{index}"
            body, kind = (step_body(key), "application/json") if index % 2 else \
                (shortcut_body(key), "application/x-www-form-urlencoded")
            mine.append((body, kind))
            retry = 0
            with tally.lock:
                tally.keys.add(key)
        with tally.lock:
            tally.sent += 1
        started, attempt = time.monotonic(), 0
        status = post(url, body, kind, retry)
        if status is None:
            with tally.lock:
                tally.unanswered_first += 1
        while status is None and attempt < 60:  # Slack retries a delivery that got no answer
            attempt += 1
            time.sleep(0.25)
            status = post(url, body, kind, attempt)
        with tally.lock:
            tally.answered += status == 200
            tally.fast += status == 200 and attempt == 0 and time.monotonic() - started < 3


def start_server(port: int, env: dict[str, str], state: Path, log: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-m", "wif_action.cli", "slack", "serve", "--http", "--host",
                                "127.0.0.1", "--port", str(port), "--state", str(state)],
                               env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                return process
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"the server did not start; see {log}")


def soak(restart: str, args: argparse.Namespace) -> list[object]:
    with FakeGitHub() as github, FakeSlack() as slack, tempfile.TemporaryDirectory() as tmp:
        github.add_repo(REPO)
        github.add_fault("POST", r"/dispatches$", status=None, delay=args.dispatch_delay, times=None)
        port, state, log = free_port(), Path(tmp) / "wif-slack.db", Path(tmp) / "server.log"
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SLACK_BOT_TOKEN": "xoxb-soak",
               "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": slack.url + "/api/", "GITHUB_API_URL": github.url,
               "GITHUB_TOKEN": "ghp_soak", "WIF_REPOSITORY": REPO, "WIF_SLACK_LEASE": str(args.lease)}
        server = start_server(port, env, state, log)
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.idle)]
        url, tally = f"http://127.0.0.1:{port}/slack/events", Tally()
        share = [args.requests // args.clients + (n < args.requests % args.clients) for n in range(args.clients)]
        threads = [threading.Thread(target=client, args=(n, share[n], url, tally)) for n in range(args.clients)]
        for thread in threads:
            thread.start()
        while tally.sent < args.requests // 2:
            time.sleep(0.01)
        server.send_signal(signal.SIGTERM if restart == "term" else signal.SIGKILL)
        server.wait(timeout=120)
        server = start_server(port, env, state, log)
        for thread in threads:
            thread.join()
        wait_until = time.monotonic() + args.lease * 3 + 30  # a crash's accepted requests: after the lease
        while time.monotonic() < wait_until and len(_dispatched(github)) < len(tally.keys):
            time.sleep(0.5)
        time.sleep(1)
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
        for sock in idle:
            sock.close()
        dispatched = _dispatched(github)
        replies = len(slack.completions) + len(slack.ephemerals)
        return [f"SIG{restart.upper()}", tally.sent, tally.answered, tally.fast, tally.unanswered_first,
                len(tally.keys), len(github.dispatches), len(set(dispatched)),
                len(github.dispatches) - len(set(dispatched)), len(tally.keys - set(dispatched)), replies]


def _dispatched(github: FakeGitHub) -> list[str]:
    """The request key each dispatch came from (it is in the message text)."""
    return [d["inputs"]["message"].rsplit("(", 1)[-1].rstrip(")") for d in list(github.dispatches)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--idle", type=int, default=5, help="sockets opened and never written to")
    parser.add_argument("--restart", default="term,kill", help="restart kinds: term (graceful), kill (crash)")
    parser.add_argument("--dispatch-delay", type=float, default=0.2, help="seconds GitHub takes per dispatch")
    parser.add_argument("--lease", type=float, default=5, help="WIF_SLACK_LEASE for the server")
    args = parser.parse_args()
    rows = [soak(kind.strip(), args) for kind in args.restart.split(",") if kind.strip()]
    print(tabulate(rows, headers=["restart", "sent", "answered 200", "in 3 s, 1st try", "no answer 1st try",
                                  "accepted keys", "dispatches", "distinct", "duplicates", "missing",
                                  "Slack replies"], tablefmt="github"))


if __name__ == "__main__":
    main()
