"""Progress sinks: where the spec's checkpoints ("Analyzing…", "Scanning releases…") go.

A sink never raises into the workflow: a failing sink (Slack down) is
disabled and its error kept, so progress reporting can't break an analysis.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from wif_action.ports import Progress


class ConsoleProgress:
    """Checkpoints as lines on stderr (stdout stays clean for --json)."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr

    def checkpoint(self, text: str) -> None:
        print(f"… {text}", file=self.stream, flush=True)

    def finish(self, text: str) -> None:
        mark = "✗" if text.startswith("Failed") else "✓"
        print(f"{mark} {text}", file=self.stream, flush=True)


class RecordingProgress:
    """Keeps checkpoints in memory (tests, run records, the job summary)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def checkpoint(self, text: str) -> None:
        self.lines.append(text)

    def finish(self, text: str) -> None:
        self.lines.append(text)


class FanOutProgress:
    """Sends each checkpoint to several sinks; a sink that raises is dropped, its error kept."""

    def __init__(self, *sinks: Progress):
        self.sinks = list(sinks)
        self.errors: list[str] = []

    def checkpoint(self, text: str) -> None:
        self._each(lambda sink: sink.checkpoint(text))

    def finish(self, text: str) -> None:
        self._each(lambda sink: sink.finish(text))

    def _each(self, send: Callable[[Progress], None]) -> None:
        for sink in list(self.sinks):
            try:
                send(sink)
            except Exception as error:  # a sink must never break the analysis
                self.sinks.remove(sink)
                self.errors.append(f"{type(sink).__name__}: {type(error).__name__}: {error}"[:300])
