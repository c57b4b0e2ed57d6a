"""A total wall-clock bound on one blocking call; `BackgroundThread`, calls run in turn in one daemon thread; and
`bounded_interrupt`, a Ctrl-C'd command that ends within `INTERRUPT_GRACE` seconds whatever its cleanup waits for.

Why: read timeouts in requests, httpx and urllib restart on every byte, so a server that
drips one byte every few seconds is never cut off by them. The call runs in a daemon
thread and the caller stops waiting after `seconds`; the abandoned thread ends with its
socket (and never keeps the process alive: it is a daemon). Its late result or error is
dropped, never printed.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from types import FrameType
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


INTERRUPT_GRACE = 10.0  # seconds a Ctrl-C'd command has to stop its threads and workers before it exits anyway
STUCK_DUMP_ENV = "WIF_STUCK_DUMP"  # set (tests): a stop that outlives the grace dumps every thread's stack first


@contextlib.contextmanager
def bounded_interrupt(code: int, message: str) -> Iterator[None]:
    """Inside: Ctrl-C raises KeyboardInterrupt as ever, and also starts a clock; if the process has not ended
    `INTERRUPT_GRACE` seconds later, `message` (and why) goes to stderr and the process exits with `code` at once.

    Why: after Ctrl-C, `wif index` rolls back its write and stops its read thread and parse workers, and Python's
    exit joins every non-daemon thread (the process pool's manager thread among them). One of those waits, stuck
    (a worker's reply cut in half, a lock held by a thread that will never run again), hung the run for good on a
    loaded machine. Nothing is lost by exiting without them: the write was not committed (SQLite rolls it back)
    and the workers die with the process (`notes_pool._end_with_parent`). Only for a process that ends on Ctrl-C
    (the command line); nothing changes where the main thread is not ours or Ctrl-C is not Python's default."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    armed: list[threading.Timer] = []

    def interrupted(signum: int, frame: FrameType | None) -> None:
        if not armed:
            armed.append(_exit_later(code, message))
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _exit_later(code: int, message: str) -> threading.Timer:
    """A daemon timer that exits the process after `INTERRUPT_GRACE` (it still runs while Python's exit waits for
    other threads). It writes on the descriptor: the stuck thread may hold `sys.stderr`'s lock."""

    def stuck() -> None:
        os.write(2, f"{message} (still stopping after {INTERRUPT_GRACE:g} s: ended without waiting; nothing "
                    "uncommitted is kept)\n".encode())
        if os.environ.get(STUCK_DUMP_ENV):
            faulthandler.dump_traceback(sys.__stderr__ or sys.stderr, all_threads=True)
        os._exit(code)

    timer = threading.Timer(INTERRUPT_GRACE, stuck)
    timer.daemon = True
    timer.start()
    return timer
