"""HTTP mode of the Slack app: a guard in front of Bolt, served by waitress.

Why waitress (a dependency): Bolt's `App.start` is the standard library's single-threaded development
server, where one client that connects and sends nothing blocks every other request. waitress reads each
request in full on its event loop before a worker thread sees it, so an idle or slow client costs a socket,
not a worker; it is pure Python (no fork, any OS) and runs in-process, so tests and `wif slack serve` serve
the same way. (gunicorn's sync workers are themselves blocked by slow clients unless a proxy buffers them.)
Every connection is closed after READ_SECONDS idle, and a request still arriving after READ_SECONDS is cut off.

Why a guard: Bolt answers a garbage body with a dropped connection and a traceback, and a non-numeric
X-Slack-Request-Timestamp with 500. The guard checks size, timestamp, signature and shape (down to each field's
JSON type, `slack_payload`) first, and answers
400/401/413 with one log line; only a signed, well-formed request reaches Bolt.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from waitress import trigger as waitress_trigger
from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

from wif_action.slack_payload import payload_problem

PATH = "/slack/events"
HEALTH_PATH = "/health"
MAX_BODY_BYTES = 1024 * 1024  # Slack's payloads are a few KB; a workflow step's inputs at most ~100 KB
READ_SECONDS = 10  # a request must arrive within this (and an idle connection is closed after it)
THREADS = 8
STOP_SECONDS = 30  # how long `stop` from another thread waits for the loop to close its sockets
log = logging.getLogger("wif.slack")
StartResponse = Callable[..., Any]


class RequestGuard:
    """WSGI: refuse what is not a signed, well-formed Slack request before Bolt sees it."""

    def __init__(self, app: App, signing_secret: str):
        self._bolt = SlackRequestHandler(app)
        self._secret = signing_secret.encode()

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO") or "", environ.get("REQUEST_METHOD") or ""
        if path == HEALTH_PATH and method == "GET":
            return _answer(start_response, 200, "ok")
        if path != PATH or method != "POST":
            return _answer(start_response, 404, "not found")
        try:
            refusal, body = self._check(environ)
        except Exception as error:  # a client that hung up mid-body, a broken input stream
            refusal, body = (400, f"unreadable request ({type(error).__name__})"), b""
        if refusal:
            log.warning("slack request refused: %s", refusal[1])
            return _answer(start_response, *refusal)
        environ = {**environ, "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))}
        try:
            return list(self._bolt(environ, start_response))
        except Exception as error:  # a bug in a listener: one line, never a traceback or a dropped socket
            log.error("slack request failed: %s", type(error).__name__)
            return _answer(start_response, 500, "internal error")

    def _check(self, environ: dict[str, Any]) -> tuple[tuple[int, str] | None, bytes]:
        length = str(environ.get("CONTENT_LENGTH") or "0")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            return (413, f"body of {length[:20]} bytes (at most {MAX_BODY_BYTES})"), b""
        body = environ["wsgi.input"].read(int(length))
        stamp = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP") or ""
        if not stamp.isdigit():
            return (401, "X-Slack-Request-Timestamp is not a number"), b""
        if abs(time.time() - int(stamp)) > 300:
            return (401, "X-Slack-Request-Timestamp is more than 5 minutes off"), b""
        if not self._signed(body, stamp, environ.get("HTTP_X_SLACK_SIGNATURE") or ""):
            return (401, "bad signature"), b""
        problem = _shape_problem(body, environ.get("CONTENT_TYPE") or "")
        if problem:
            return (400, f"signed, but not a Slack payload WIF can read: {problem}"), b""
        return None, body


    def _signed(self, body: bytes, stamp: str, signature: str) -> bool:
        """Slack's v0 signature over the raw bytes (slack-sdk's verifier decodes them first: a non-UTF-8
        body raised there)."""
        expected = "v0=" + hmac.new(self._secret, b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, signature)


def _shape_problem(body: bytes, content_type: str) -> str | None:
    """A JSON object (events) or a form whose `payload` is a JSON object (interactivity, shortcuts), each field of
    the type Slack sends (`slack_payload`); a slash command is a plain form. None when Bolt may read it."""
    try:
        text = body.decode("utf-8")
        if content_type.startswith("application/json"):
            return payload_problem(json.loads(text))
        form = urllib.parse.parse_qs(text, strict_parsing=True)
        payload = form.get("payload")
        if payload:
            return payload_problem(json.loads(payload[0]))
        return None if "command" in form else "a form with neither `payload` nor `command`"
    except UnicodeDecodeError:
        return "the body is not UTF-8"
    except ValueError as error:
        return f"not JSON or a form ({type(error).__name__})"


def _answer(start_response: StartResponse, status: int, text: str) -> list[bytes]:
    reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 413: "Payload Too Large",
              500: "Internal Server Error"}[status]
    body = (text + "\n").encode()
    start_response(f"{status} {reason}", [("Content-Type", "text/plain; charset=utf-8"),
                                          ("Content-Length", str(len(body)))])
    return [body]


class _TimedChannel(HTTPChannel):
    """A connection that remembers when the request it is reading began."""

    request_began = 0.0

    def received(self, data: bytes) -> bool:
        if self.request is None and data:
            self.request_began = time.time()
        return bool(super().received(data))


class _Trigger(waitress_trigger.trigger):
    """waitress's wake-up pipe, written and closed only while holding its `lock`.

    Why: waitress checks nothing before writing the wake-up byte, and closes the pipe without the lock. A thread
    pulling the trigger (`stop`, a worker finishing a request) while the loop closes it could write to the closed
    fd's number once a new socket or file reuses it: a stray byte in another connection. Under the lock a pull sees
    the trigger open and writes before any close, or sees it closed and writes nothing. The queued calls are run
    outside the lock, so one of them may close the trigger (`SlackHTTPServer._close_all`)."""

    thunks: list[Callable[[], object]]

    def pull_trigger(self, thunk: Callable[[], object] | None = None) -> bool:
        """Queue `thunk` (if any) for the loop and wake it; False when the trigger is closed (nothing queued)."""
        with self.lock:
            if self._closed:
                return False
            if thunk:
                self.thunks.append(thunk)
            self._physical_pull()
            return True

    def close(self) -> None:
        with self.lock:
            super().close()

    def handle_read(self) -> None:
        try:
            self.recv(8192)
        except OSError:
            return
        with self.lock:
            thunks = self.thunks
            self.thunks = []
        for thunk in thunks:
            try:
                thunk()
            except Exception:
                _, kind, value, where = wasyncore.compact_traceback()
                self.log_info(f"exception in trigger thunk: ({kind}:{value} {where})")


class SlackHTTPServer(TcpWSGIServer):
    """waitress on one address; closes connections idle, or reading one request, for over `read_seconds`."""

    channel_class = _TimedChannel
    trigger: _Trigger

    def __init__(self, app: Callable[..., Any], host: str, port: int, *, threads: int = THREADS,
                 read_seconds: int = READ_SECONDS):
        adj = Adjustments(host=host, port=port, threads=threads, channel_timeout=read_seconds, cleanup_interval=1,
                          max_request_body_size=MAX_BODY_BYTES, ident="wif")
        dispatcher = ThreadedTaskDispatcher()
        dispatcher.set_thread_count(threads)
        super().__init__(app, map={}, dispatcher=dispatcher, adj=adj, sockinfo=adj.listen[0])
        self.trigger.close()  # waitress's own, unguarded: replaced by one that writes and closes under its lock
        self.trigger = _Trigger(self._map)
        self.read_seconds = read_seconds
        self._state = threading.Lock()
        self._stopping = False
        self._loop: threading.Thread | None = None  # the thread in `run`
        self._loop_ended = threading.Event()

    def run(self) -> None:
        """Serve until `stop` (from any thread); returns at once when stopped before it began."""
        with self._state:
            if self._stopping:
                return
            self._loop = threading.current_thread()
        try:
            super().run()
        finally:
            self._loop_ended.set()

    def maintenance(self, now: float) -> None:
        super().maintenance(now)
        for channel in list(self.active_channels.values()):
            reading = getattr(channel, "request", None) is not None
            if reading and now - getattr(channel, "request_began", now) > self.read_seconds:
                channel.will_close = True

    @property
    def port(self) -> int:
        return int(self.effective_port)

    def stop(self) -> None:
        """Stop accepting and close every connection (requests being answered get up to 5 s); safe from any thread.

        Why not close the sockets here: the loop thread may be inside `select` on them, or about to be, and a
        socket closed under it fails there (EBADF) or, once its number is reused, reads another file. From
        another thread the sockets are closed by the loop itself (waitress's trigger runs a call in it), and
        `stop` returns once the loop has ended."""
        self.task_dispatcher.shutdown(cancel_pending=False)
        with self._state:
            self._stopping = True
            loop = self._loop
        if loop is not None and loop is not threading.current_thread() and not self._loop_ended.is_set():
            self._ask_loop_to_close()
            if self._loop_ended.wait(STOP_SECONDS):
                return
        self._close_all()

    def _ask_loop_to_close(self) -> None:
        """Queue `_close_all` for the loop and wake it (`_Trigger`: under its lock, so never after the loop closed
        it). A closed trigger queues nothing: the loop is closing already, or `stop` closes what is left after
        waiting."""
        if not self.trigger.pull_trigger(self._close_all):
            log.debug("the loop closed its trigger before stop asked it to close")

    def _close_all(self) -> None:
        wasyncore.close_all(self._map)


def serve(app: App, signing_secret: str, host: str, port: int, **options: Any) -> SlackHTTPServer:
    """The server for `app` (not yet running: call `.run()`, which returns when it is closed)."""
    return SlackHTTPServer(RequestGuard(app, signing_secret), host, port, **options)
