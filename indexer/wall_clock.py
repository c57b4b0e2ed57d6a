"""A total wall-clock bound on one blocking call; and `BackgroundThread`, calls run in turn in one daemon thread.

Why: read timeouts in requests, httpx and urllib restart on every byte, so a server that
drips one byte every few seconds is never cut off by them. The call runs in a daemon
thread and the caller stops waiting after `seconds`; the abandoned thread ends with its
socket (and never keeps the process alive: it is a daemon). Its late result or error is
dropped, never printed.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class WallClockExceeded(Exception):
    """The call was still running after its bound."""

    def __init__(self, seconds: float):
        super().__init__(f"no complete answer within {seconds:g} s")
        self.seconds = seconds


class _Outcome(Generic[T]):
    def __init__(self) -> None:
        self.value: T | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()


def run_within(seconds: float, call: Callable[[], T]) -> T:
    """`call()`'s result, or WallClockExceeded once `seconds` have passed (its own errors re-raised)."""
    if seconds <= 0:
        raise WallClockExceeded(0)
    outcome: _Outcome[T] = _Outcome()

    def work() -> None:
        try:
            outcome.value = call()
        except BaseException as error:  # handed to the waiting caller, never printed by the thread
            outcome.error = error
        finally:
            outcome.done.set()

    threading.Thread(target=work, name="wif-bounded-call", daemon=True).start()
    if not outcome.done.wait(seconds):
        raise WallClockExceeded(seconds)
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]


class BackgroundThread:
    """One daemon thread that runs the calls handed to it in turn, each answered through a Future.

    Why (not a ThreadPoolExecutor): `wif index` reads the next repository from GitHub here while the main thread
    writes the last one; a Ctrl-C must end the run at once, not wait at exit for a read against a hung GitHub
    (an executor's threads are joined at exit, a daemon thread is not). `teardown` runs in the thread when it
    ends (it closes what the calls opened there, e.g. their own SQLite connection)."""

    def __init__(self, name: str, teardown: Callable[[], None] | None = None) -> None:
        self._name = name
        self._teardown = teardown
        self._calls: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._futures: list[Future[Any]] = []

    def submit(self, call: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()
        self._futures = [*(f for f in self._futures if not f.done()), future]
        self._calls.put((future, call))
        return future

    def close(self, *, wait: bool = True) -> None:
        """Calls not started yet are cancelled; the thread ends after the call under way (and `teardown`).
        `wait`: return once it has ended (a caller that goes on must not leave it running); False only for a
        process that is ending (Ctrl-C), which must not wait for a request under way."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        for future in self._futures:
            future.cancel()  # a call under way is not cancelled, it ends on its own
        self._futures = []
        self._calls.put(None)
        if wait:
            thread.join()

    def _run(self) -> None:
        try:
            while (item := self._calls.get()) is not None:
                future, call = item
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    future.set_result(call())
                except BaseException as error:  # handed to whoever waits on the future
                    future.set_exception(error)
        finally:
            if self._teardown is not None:
                self._teardown()
