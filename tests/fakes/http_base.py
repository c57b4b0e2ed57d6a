"""Shared plumbing for the in-process fake HTTP servers (GitHub, OpenAI, Slack).

Every fake is a :class:`FakeServer` subclass that registers routes. The base class owns:

* a stdlib ``ThreadingHTTPServer`` on ``127.0.0.1`` port 0, served from a daemon thread; HTTP/1.1, connections
  kept alive between requests and all closed when the fake stops;
* the request log (``.log``) and per-endpoint counters (``.requests``), guarded by one lock;
* fault injection (``add_fault`` / ``clear_faults``), identical for all fakes.

Route handlers run under the fake's lock, so they may touch shared state freely. Fault
delays run outside the lock, so a slow fault never blocks other requests.
"""

from __future__ import annotations

import contextlib
import json
import re
import selectors
import socket
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qsl, unquote, urlsplit

__all__ = ["CIDict", "FakeServer", "Fault", "HTTPError", "Request", "Response"]


class CIDict(dict[str, str]):
    """A dict of HTTP headers with lower-cased keys and case-insensitive lookups."""

    def __init__(self, items: Any = ()) -> None:
        super().__init__()
        pairs = items.items() if isinstance(items, dict) else items
        for key, value in pairs:
            self[key] = value

    def __setitem__(self, key: str, value: str) -> None:
        super().__setitem__(key.lower(), value)

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(key.lower(), default)


@dataclass
class Request:
    """One parsed incoming request, as handed to route handlers."""

    method: str
    path: str  # percent-decoded path, no query string
    raw_path: str  # path exactly as sent, no query string
    query: dict[str, str]
    query_items: list[tuple[str, str]]
    headers: CIDict
    body: bytes
    json: Any  # parsed JSON body, or None
    form: dict[str, str] | None  # parsed form body, or None
    base_url: str  # "http://<Host header>", used to build absolute URLs on the fake's own host
    endpoint: str = ""
    params: dict[str, str] = field(default_factory=dict)  # named groups of the matched route


@dataclass
class Response:
    """A response produced by a handler; ``body`` is JSON-encoded unless ``raw`` is given."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None

    def payload(self) -> bytes:
        """The bytes to send (empty for ``body is None`` and no ``raw``)."""
        if self.raw is not None:
            return self.raw
        if self.body is None or self.status in (204, 304):
            return b""
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8")


class HTTPError(Exception):
    """Raise from a handler to answer with ``status`` and JSON ``body``."""

    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.response = Response(status, body, dict(headers or {}))


@dataclass
class Fault:
    """A scripted misbehaviour for requests matching ``method`` and ``path_regex``."""

    method: str | None
    path_regex: re.Pattern[str]
    status: int | None
    times: int | None
    headers: dict[str, str] | None
    body: Any
    delay: float
    raw_body: bytes | None
    drop_connection: bool
    drip: float = 0.0
    truncate: bool = False
    huge: int = 0
    huge_length: bool = True
    hits: int = 0
    sent: int = 0  # body bytes a `huge` fault got onto the wire before the client hung up
    gate: threading.Event | None = None

    def matches(self, method: str, path: str) -> bool:
        """True if this fault applies to the request and has uses left."""
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method is not None and self.method.upper() != method:
            return False
        return self.path_regex.search(path) is not None


Handler = Callable[[Request], Response]


NameSpec = str | Callable[[dict[str, str]], str]


@dataclass
class _Route:
    method: str  # "*" matches any method
    regex: re.Pattern[str]
    name: NameSpec  # endpoint name, or a function of the route's named groups
    handler: Handler


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128
    fake: FakeServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stop_requested = threading.Event()
        self._stopped = threading.Event()
        self._wake_read, self._wake_write = socket.socketpair()
        self._open: set[socket.socket] = set()  # connections being served (kept alive between requests)
        self._open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about clients that hung up (timeouts, dropped connections)."""

    def serve_until_stopped(self) -> None:
        """`serve_forever` that `stop_serving` wakes at once. Why: `shutdown` waits for the loop's next poll
        (`serve_forever` has no other way to wake), ~25 ms per fake stopped on average, and the suite starts and
        stops ~300 of them: seconds of every run spent waiting."""
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self, selectors.EVENT_READ)
                selector.register(self._wake_read, selectors.EVENT_READ)
                while not self._stop_requested.is_set():
                    ready = selector.select()
                    if self._stop_requested.is_set():
                        break
                    if any(key.fileobj is self for key, _ in ready):
                        self._handle_request_noblock()
        finally:
            self._wake_read.close()
            self._stopped.set()

    def stop_serving(self) -> None:
        """End `serve_until_stopped` (running in another thread) and wait until it has."""
        self._stop_requested.set()
        with contextlib.suppress(OSError):  # the loop may already be gone (its socket pair closed)
            self._wake_write.send(b"\0")
        self._stopped.wait()
        self._wake_write.close()
        with self._open_lock:
            connections = list(self._open)
        for connection in connections:  # a client's kept-alive connection must not outlive the fake: it is down
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class _RequestHandler(BaseHTTPRequestHandler):
    server: _HTTPServer
    # connections kept alive: a client reuses one for its next request (PyGithub's and openai's pools do), so no
    # connect and no new serving thread per request (a third of the CPU of building the example cache went there)
    protocol_version = "HTTP/1.1"
    # headers and body are separate writes: with Nagle's algorithm the body could wait for the client's delayed
    # ACK (~40 ms), and timings would measure the fake
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def _dispatch(self) -> None:
        self.server.fake._serve(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _dispatch


class FakeServer:
    """Base class of the fakes: lifecycle, routing, logging, counting and faults."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._routes: list[_Route] = []
        self._faults: list[Fault] = []
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self.requests: Counter[str] = Counter()
        self.log: list[dict[str, Any]] = []
        self.errors: list[str] = []  # tracebacks of handler crashes (answered with HTTP 500)

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> Self:
        """Bind an ephemeral port on 127.0.0.1 and serve from a daemon thread."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _HTTPServer(("127.0.0.1", 0), _RequestHandler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_until_stopped, name=f"{type(self).__name__}-http",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port; pending fault delays are cut short."""
        self._stopping.set()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.stop_serving()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (the server must be started)."""
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without trailing slash, e.g. ``http://127.0.0.1:54321``."""
        return f"http://127.0.0.1:{self.port}"

    # -------------------------------------------------------------------- routes
    def route(self, method: str, pattern: str, name: NameSpec, handler: Handler) -> None:
        """Register ``handler`` for ``method`` and a full-match regex on the decoded path.

        ``name`` is the endpoint key used in ``requests`` / ``log``; it may be a callable
        receiving the route's named groups (e.g. Slack's method name).
        """
        self._routes.append(_Route(method.upper(), re.compile(pattern), name, handler))

    def _match(self, method: str, path: str) -> tuple[_Route | None, dict[str, str]]:
        for candidate in self._routes:
            if candidate.method not in ("*", method):
                continue
            m = candidate.regex.fullmatch(path)
            if m:
                return candidate, {k: v for k, v in m.groupdict().items() if v is not None}
        return None, {}

    # -------------------------------------------------------------------- faults
    def add_fault(
        self,
        method: str | None = "GET",
        path_regex: str = r".*",
        status: int | None = 500,
        times: int | None = 1,
        headers: dict[str, str] | None = None,
        body: Any = None,
        delay: float = 0.0,
        raw_body: bytes | None = None,
        drop_connection: bool = False,
        drip: float = 0.0,
        truncate: bool = False,
        huge: int = 0,
        huge_length: bool = True,
        gate: threading.Event | None = None,
    ) -> Fault:
        """Make the next ``times`` matching requests misbehave (``times=None``: forever).

        ``path_regex`` is searched in the decoded path; ``method=None`` matches any method.
        ``delay`` sleeps first; then ``drop_connection`` closes the socket without a response,
        ``raw_body`` is sent verbatim, or ``status`` with ``body`` (default: the fake's usual
        error shape) and ``headers`` is sent. ``status=None`` only delays and then serves the
        request normally. ``drip`` sends the whole response (status line, headers, body) one byte
        every ``drip`` seconds: a slow-drip server that defeats per-read timeouts. ``truncate`` announces
        a longer body than it sends, then closes (the client sees an IncompleteRead). ``huge`` answers 200
        with a JSON object of that many bytes, generated while it is streamed (``huge_length=False``: no
        Content-Length, the body ends when the connection closes); ``Fault.sent`` counts what was sent.
        ``gate`` holds the request until the test sets it (or the server stops): "still running" without a clock.
        Returns the :class:`Fault` (``.hits`` counts its uses).
        """
        fault = Fault(
            method=method.upper() if method else None,
            path_regex=re.compile(path_regex),
            status=status,
            times=times,
            headers=dict(headers or {}),
            body=body,
            delay=delay,
            raw_body=raw_body,
            drop_connection=drop_connection,
            drip=drip,
            truncate=truncate,
            huge=huge,
            huge_length=huge_length,
            gate=gate,
        )
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        """Remove every pending fault."""
        with self._lock:
            self._faults.clear()

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.hits += 1
                    return fault
        return None

    # ------------------------------------------------------------------ counters
    def total_requests(self) -> int:
        """Number of requests received since the last ``reset_counts``."""
        with self._lock:
            return sum(self.requests.values())

    def reset_counts(self) -> None:
        """Clear ``requests`` and ``log``."""
        with self._lock:
            self.requests.clear()
            self.log.clear()

    def requests_for(self, endpoint: str) -> list[dict[str, Any]]:
        """Log entries for one endpoint name."""
        with self._lock:
            return [entry for entry in self.log if entry["endpoint"] == endpoint]

    # --------------------------------------------------------------------- hooks
    def default_fault_body(self, status: int) -> Any:
        """Body of a fault response when ``body`` was not given."""
        return {"message": f"Injected fault (HTTP {status})"}

    def before_route(self, req: Request) -> Response | None:
        """Run before the handler (auth, rate limits); return a response to short-circuit."""
        return None

    def not_found(self, req: Request) -> Response:
        """Response for a path no route matches."""
        return Response(404, {"message": "Not Found"})

    def finalize(self, req: Request, resp: Response, faulted: bool) -> Response:
        """Adjust every outgoing response (extra headers, conditional requests)."""
        return resp

    # ------------------------------------------------------------------- serving
    def _parse(self, h: _RequestHandler) -> Request:
        headers = CIDict(list(h.headers.items()))
        body = _read_body(h, headers)
        split = urlsplit(h.path)
        raw_path = split.path or "/"
        query_items = parse_qsl(split.query, keep_blank_values=True)
        ctype = headers.get("content-type", "").split(";")[0].strip().lower()
        parsed_json: Any = None
        form: dict[str, str] | None = None
        if body:
            if ctype == "application/x-www-form-urlencoded":
                form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
            else:
                with contextlib.suppress(ValueError):
                    parsed_json = json.loads(body)
        host = headers.get("host") or f"127.0.0.1:{self.port}"
        return Request(
            method=h.command.upper(),
            path=unquote(raw_path),
            raw_path=raw_path,
            query=dict(query_items),
            query_items=query_items,
            headers=headers,
            body=body,
            json=parsed_json,
            form=form,
            base_url=f"http://{host}",
        )

    def _serve(self, h: _RequestHandler) -> None:
        try:
            req = self._parse(h)
        except (OSError, ValueError):
            h.close_connection = True
            return
        found, params = self._match(req.method, req.path)
        if found is None:
            req.endpoint = f"{req.method} {req.path}"
        else:
            req.endpoint = found.name if isinstance(found.name, str) else found.name(params)
        req.params = params
        entry: dict[str, Any] = {
            "method": req.method,
            "path": req.path,
            "query": dict(req.query),
            "headers": CIDict(req.headers),
            "json": req.json,
            "form": req.form,
            "endpoint": req.endpoint,
            "status": None,
        }
        with self._lock:
            self.log.append(entry)
            self.requests[req.endpoint] += 1

        fault = self._take_fault(req.method, req.path)
        resp: Response | None = None
        if fault is not None:
            if fault.delay:
                self._stopping.wait(fault.delay)
            while fault.gate is not None and not fault.gate.wait(0.05) and not self._stopping.is_set():
                pass
            if fault.drop_connection:
                entry["status"] = "dropped"
                _drop(h)
                return
            if fault.raw_body is not None:
                resp = Response(fault.status or 200, raw=fault.raw_body, headers=dict(fault.headers or {}))
                resp.headers.setdefault("Content-Type", "application/json")
            elif fault.status is not None:
                body = fault.body if fault.body is not None else self.default_fault_body(fault.status)
                resp = Response(fault.status, body, dict(fault.headers or {}))
        with self._lock:
            if resp is not None:
                resp = self.finalize(req, resp, True)
            else:
                try:
                    resp = self.before_route(req)
                    if resp is None:
                        resp = found.handler(req) if found else self.not_found(req)
                except HTTPError as err:
                    resp = err.response
                except Exception as exc:  # a bug in the fake: answer 500 and keep the trace
                    self.errors.append(traceback.format_exc())
                    resp = Response(500, {"message": f"fake server error: {exc!r}"})
                resp = self.finalize(req, resp, False)
            entry["status"] = resp.status
        if fault is not None and fault.drip:
            _drip(h, resp, fault.drip, self._stopping)
            return
        if fault is not None and fault.truncate:
            _truncated(h, resp)
            return
        if fault is not None and fault.huge:
            _huge(h, fault)
            return
        _write(h, resp, head_only=req.method == "HEAD")


def _read_body(h: _RequestHandler, headers: CIDict) -> bytes:
    """Read a request body given by Content-Length or chunked transfer encoding."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        chunks: list[bytes] = []
        while True:
            size = int(h.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while h.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(chunks)
            chunks.append(h.rfile.read(size))
            h.rfile.readline()
    length = int(headers.get("content-length") or 0)
    return h.rfile.read(length) if length > 0 else b""


def _write(h: _RequestHandler, resp: Response, head_only: bool = False) -> None:
    payload = resp.payload()
    headers = dict(resp.headers)
    if payload and not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = "application/json; charset=utf-8"
    try:
        h.send_response(resp.status)
        for key, value in headers.items():
            h.send_header(key, str(value))
        if resp.status not in (204, 304):
            h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        if payload and not head_only and resp.status not in (204, 304):
            h.wfile.write(payload)
        h.wfile.flush()
    except OSError:  # the client went away (e.g. it timed out during a delay fault)
        h.close_connection = True


def _drip(h: _RequestHandler, resp: Response, interval: float, stopping: threading.Event) -> None:
    """Send the response one byte every `interval` seconds (until the client leaves or the fake stops)."""
    payload = resp.payload()
    head = [f"HTTP/1.1 {resp.status} Drip", f"Content-Length: {len(payload)}", "Connection: close"]
    head += [f"{key}: {value}" for key, value in resp.headers.items() if key.lower() != "content-length"]
    if not any(key.lower() == "content-type" for key in resp.headers):
        head.append("Content-Type: application/json; charset=utf-8")
    data = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
    h.close_connection = True
    try:
        for index in range(len(data)):
            h.wfile.write(data[index:index + 1])
            h.wfile.flush()
            if stopping.wait(interval):
                return
    except OSError:
        return


def _truncated(h: _RequestHandler, resp: Response) -> None:
    """Announce the body's length plus 100 bytes, send half of it, close."""
    payload = resp.payload()
    try:
        h.send_response(resp.status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(payload) + 100))
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(payload[: len(payload) // 2])
        h.wfile.flush()
    except OSError:
        pass
    h.close_connection = True


def _huge(h: _RequestHandler, fault: Fault) -> None:
    """A 200 whose JSON body is `fault.huge` bytes, generated in 64 KiB pieces as it is sent."""
    head, tail = b'{"number": 1, "title": "', b'"}'
    filler = b"x" * 65536
    h.close_connection = True
    try:
        h.send_response(200)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        if fault.huge_length:
            h.send_header("Content-Length", str(fault.huge))
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(head)
        left = fault.huge - len(head) - len(tail)
        while left > 0:
            piece = filler[:min(left, len(filler))]
            h.wfile.write(piece)
            fault.sent += len(piece)
            left -= len(piece)
        h.wfile.write(tail)
        h.wfile.flush()
    except OSError:  # the client stopped reading: what a body cap is for
        pass


def _drop(h: _RequestHandler) -> None:
    """Close the client socket without sending a single byte."""
    h.close_connection = True
    with contextlib.suppress(OSError):
        h.connection.shutdown(socket.SHUT_RDWR)
