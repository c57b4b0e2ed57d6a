"""A fake Slack Socket Mode endpoint: a WebSocket server on 127.0.0.1 that hands envelopes to a connected app.

Why: `wif slack serve` without `--http` receives every request through slack_sdk's Socket Mode client and Bolt's
adapter, which read the payload before any listener of WIF's does; only a real connection exercises that path.
FakeSlack's `apps.connections.open` answers with this server's `url`. The server speaks the little of RFC 6455 the
client uses: the handshake, unfragmented text frames (the client's masked), ping → pong, close.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import socket
import struct
import threading
from typing import Any

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class FakeSocketMode:
    """Accepts connections; `send(envelope)` goes to the latest; `acks` are the envelope ids the app answered."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"ws://127.0.0.1:{self._listener.getsockname()[1]}/link/?ticket=fake"
        self.acks: list[str] = []
        self._lock = threading.Lock()
        self._connected = threading.Condition(self._lock)
        self._client: socket.socket | None = None
        self._clients: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._start(self._accept)

    def __enter__(self) -> FakeSocketMode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, envelope: dict[str, Any], timeout: float = 30) -> None:
        """One envelope as a text frame to the connected client (waits for it to connect)."""
        with self._connected:
            if not self._connected.wait_for(lambda: self._client is not None, timeout):
                raise TimeoutError("no Socket Mode client connected")
            client = self._client
        assert client is not None
        client.sendall(_frame(0x1, json.dumps(envelope).encode()))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            clients = list(self._clients)
        for client in clients:  # ends each connection's reader
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
            client.close()
        for thread in self._threads:
            thread.join(timeout=10)
        self._listener.close()

    def _start(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        """Until `close`: a blocking accept is not woken by closing its socket from another thread, so it waits in
        short turns."""
        self._listener.settimeout(0.05)
        while True:
            with self._lock:
                if self._closed:
                    return
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            with self._lock:
                self._clients.append(client)
            self._start(self._serve, client)

    def _serve(self, client: socket.socket) -> None:
        reader = client.makefile("rb")
        try:
            key = _handshake_key(reader)
            accept = base64.b64encode(hashlib.sha1(key + _GUID).digest())
            client.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
            with self._connected:
                self._client = client
                self._connected.notify_all()
            while (frame := _read_frame(reader)) is not None:
                opcode, data = frame
                if opcode == 0x9:
                    client.sendall(_frame(0xA, data))
                elif opcode == 0x8:
                    return
                elif opcode == 0x1:
                    with self._lock:
                        self.acks.append(json.loads(data).get("envelope_id", ""))
        except (OSError, ValueError):
            return


def _handshake_key(reader: Any) -> bytes:
    key = b""
    while (line := reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"sec-websocket-key":
            key = value.strip()
    return key


def _frame(opcode: int, data: bytes) -> bytes:
    """A final, unmasked frame (a server's)."""
    length = len(data)
    if length < 126:
        header = struct.pack("!BB", 0x80 | opcode, length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", 0x80 | opcode, 126, length)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 127, length)
    return header + data


def _read_frame(reader: Any) -> tuple[int, bytes] | None:
    """(opcode, unmasked data) of the next frame, or None at the end of the stream."""
    head = reader.read(2)
    if len(head) < 2:
        return None
    opcode, length = head[0] & 0x0F, head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", reader.read(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", reader.read(8))[0]
    mask = reader.read(4) if head[1] & 0x80 else b"\0\0\0\0"
    data = reader.read(length)
    return opcode, bytes(byte ^ mask[index % 4] for index, byte in enumerate(data))
