"""A total wall-clock bound on one blocking call.

Why: read timeouts in requests, httpx and urllib restart on every byte, so a server that
drips one byte every few seconds is never cut off by them. The call runs in a daemon
thread and the caller stops waiting after `seconds`; the abandoned thread ends with its
socket (and never keeps the process alive: it is a daemon). Its late result or error is
dropped, never printed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

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
