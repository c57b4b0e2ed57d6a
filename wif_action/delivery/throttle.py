"""Progress lines shown in one editable message, edited at most once per interval.

Why: Slack allows about one post per second per channel and GitHub asks for
a pause between writes; progress must never cost the answer a rate limit.
The last state is always sent (`flush`), waiting out the interval if needed.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class ThrottledLines:
    """Collects lines; `push(lines)` runs at most once per `interval` seconds, and on `flush`."""

    def __init__(self, push: Callable[[list[str]], None], interval: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.lines: list[str] = []
        self._push, self._interval, self._clock, self._sleep = push, interval, clock, sleep
        self._last: float | None = None
        self._dirty = False

    def add(self, line: str) -> None:
        self.lines.append(line)
        if self._last is None or self._clock() - self._last >= self._interval:
            self._send()
        else:
            self._dirty = True

    def flush(self) -> None:
        """Send the pending state, no sooner than `interval` after the previous send."""
        if not self._dirty:
            return
        if self._last is not None:
            wait = self._interval - (self._clock() - self._last)
            if wait > 0:
                self._sleep(wait)
        self._send()

    def _send(self) -> None:
        self._dirty = False
        self._last = self._clock()
        self._push(list(self.lines))
