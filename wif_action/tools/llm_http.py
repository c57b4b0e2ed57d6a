"""The LLM endpoint's HTTP client: the SDK's own client (proxy settings kept) with every reply capped.

Why hooks and not a transport: httpx reads HTTPS_PROXY / HTTP_PROXY / NO_PROXY only when no
transport is given, so a transport of our own silently bypassed a corporate proxy. Why we decode:
a 1 MiB gzip reply can expand to 1 GiB, and httpx inflates each chunk in full; here the cap counts
decompressed bytes, inflated in bounded steps. Only gzip and deflate are asked for.

Works with the httpx the installed openai uses (httpx2 for openai ≥ 3, httpx before): the module is
taken from the live response, never imported here.
"""

from __future__ import annotations

import importlib
import os
import ssl
import zlib
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

LLM_BODY_BYTES = 8 * 1024 * 1024  # a structured answer is a few KB; more is a broken or hostile endpoint
ACCEPT_ENCODING = "gzip, deflate"
_STEP = 64 * 1024  # most bytes one inflate step may produce


class UnreadableReply(Exception):
    """A reply that is not read further (too large, or an encoding that cannot be decoded). Final: never retried."""


class ReplyTooLarge(UnreadableReply):
    """The endpoint's reply passed the cap (counted after decompression)."""


def capped_reply_hooks(cap: int = LLM_BODY_BYTES) -> dict[str, list[Callable[[Any], None]]]:
    """`event_hooks` for the SDK's httpx client: ask for gzip/deflate only, cap every reply at `cap` bytes."""

    def on_request(request: Any) -> None:
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING

    def on_response(response: Any) -> None:
        encoding = response.headers.get("Content-Encoding", "").strip().lower()
        announced = response.headers.get("Content-Length", "")
        if announced.isdigit() and int(announced) > cap:
            response.close()
            raise ReplyTooLarge(f"reply of {int(announced):,} bytes, over the {cap:,}-byte cap")
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            response.close()
            raise UnreadableReply(f"reply in an encoding that was not asked for ({encoding[:20]})")
        response.stream = _stream_class(type(response).__module__)(response.stream, cap, encoding)
        if encoding:  # decoded by the capped stream: httpx must not inflate it again
            del response.headers["Content-Encoding"]

    return {"request": [on_request], "response": [on_response]}


def shared_tls_context(client_class: type) -> ssl.SSLContext:
    """The TLS context the SDK's httpx `client_class` builds by default (its CA store; SSL_CERT_FILE / SSL_CERT_DIR
    honoured), built once per process and setting. Why shared: building one reads the whole CA store (~30 ms of CPU)
    and every workflow builds an LLM client (each `wif eval` case, each Slack question); a context is read-only
    once built and httpx shares it across its connections anyway."""
    module = client_class.__mro__[1].__module__.split(".")[0]
    return _tls_context(module, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@cache
def _tls_context(module: str, _cert_file: str | None, _cert_dir: str | None) -> ssl.SSLContext:
    """httpx's own default context (`create_ssl_context()`, no arguments in every httpx the SDK has used)."""
    context: ssl.SSLContext = importlib.import_module(module).create_ssl_context()
    return context


@cache
def _stream_class(response_module: str) -> type:
    """A capped stream deriving from the response's own httpx `SyncByteStream` (httpx checks the type)."""
    module = importlib.import_module(response_module.split(".")[0])
    return type("CappedStream", (_CappedStream, module.SyncByteStream), {})


class _CappedStream:
    def __init__(self, inner: Any, cap: int, encoding: str):
        self._inner, self._cap = inner, cap
        self._inflate = _Inflater(encoding) if encoding not in ("", "identity") else None

    def __iter__(self) -> Iterator[bytes]:
        size = 0
        for chunk in self._inner:
            for piece in self._inflate.feed(chunk) if self._inflate else (chunk,):
                size += len(piece)
                if size > self._cap:
                    raise ReplyTooLarge(f"reply over the {self._cap:,}-byte cap")
                yield piece

    def close(self) -> None:
        self._inner.close()


class _Inflater:
    """gzip / deflate (zlib-wrapped or raw) decoded at most _STEP bytes at a time."""

    def __init__(self, encoding: str):
        self._raw_fallback = encoding == "deflate"
        self._z = zlib.decompressobj(zlib.MAX_WBITS | (16 if encoding != "deflate" else 0))

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            while data and not self._z.eof:
                out = self._z.decompress(data, _STEP)
                data = self._z.unconsumed_tail
                self._raw_fallback = False
                if out:
                    yield out
        except zlib.error:
            if not self._raw_fallback:
                raise UnreadableReply("reply could not be decompressed") from None
            self._raw_fallback = False  # "deflate" sent without the zlib header: raw deflate
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            yield from self.feed(data)
