"""Recording proxies: a tool wrapped so each method call is timed and recorded.

Errors are recorded and re-raised unchanged, other attributes pass through, so
a proxied tool behaves exactly like the tool (recording never changes behaviour).
For the GitHub tool each call also records how many HTTP requests it made.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from wif_action.run_records.recorder import RunRecorder
from wif_action.run_records.summary import summarise_call


class RecordingProxy:
    """Wraps a tool: calls to `methods` are timed and recorded; everything else passes through."""

    def __init__(self, target: Any, tool: str, recorder: RunRecorder, methods: frozenset[str]):
        self._target, self._tool, self._recorder, self._methods = target, tool, recorder, methods

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._target, name)
        if name not in self._methods or not callable(attribute):
            return attribute
        return self._recorded(name, attribute)

    def _recorded(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            requests_before = self._requests()
            started = time.monotonic()
            try:
                result = method(*args, **kwargs)
            except BaseException as error:
                self._record(name, args, kwargs, started, requests_before, error=error)
                raise
            self._record(name, args, kwargs, started, requests_before, result=result)
            return result

        return call

    def _record(self, name: str, args: tuple, kwargs: dict, started: float, requests_before: int,
                result: Any = None, error: BaseException | None = None) -> None:
        """Hand the call to the recorder; a recording bug must not turn into a tool failure."""
        try:
            self._recorder.tool_call(self._tool, name, summarise_call(args, kwargs), started, result=result,
                                     error=error, github_requests=self._requests() - requests_before)
        except Exception as failure:  # never let recording change what the tool returned or raised
            print(f"wif: a tool call was not recorded ({type(failure).__name__})", file=sys.stderr)

    def _requests(self) -> int:
        try:
            return int(getattr(self._target, "requests_made", 0) or 0)
        except Exception:  # a tool without a counter made no counted requests
            return 0
