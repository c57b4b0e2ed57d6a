"""Tools cut off at the run's deadline.

Once the deadline passes, GitHub and the primary engine are no longer called
(their calls fail fast as skipped steps), so a slow upstream costs at most the
one call in flight, bounded by its own timeout and retries.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from wif_action.journal import Journal
from wif_action.ports import AnalysisTools, ToolUnavailable

DEADLINE_REASON = "not attempted: the run's deadline was reached"


def until_deadline(tools: AnalysisTools, journal: Journal) -> AnalysisTools:
    """The run's tools with GitHub and the primary engine cut off at the deadline.

    The release cache and the fallback engine stay available: both are local and fast, and
    they are what still answers once the deadline has passed.
    """
    judge = _UntilDeadline(tools.judge, "judge", journal)
    fallback = judge if tools.fallback is tools.judge else tools.fallback
    return replace(tools, github=_UntilDeadline(tools.github, "github", journal), judge=judge, fallback=fallback)


class _UntilDeadline:
    """Passes every attribute through; a method called after the deadline raises ToolUnavailable instead."""

    _UNGUARDED = frozenset({"usage"})

    def __init__(self, target: Any, tool: str, journal: Journal):
        self._target, self._tool, self._journal = target, tool, journal

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if name.startswith("_") or name in self._UNGUARDED or not callable(value):
            return value

        @functools.wraps(value)
        def bounded(*args: Any, **kwargs: Any) -> Any:
            if self._journal.expired():
                raise ToolUnavailable(self._tool, DEADLINE_REASON)
            return value(*args, **kwargs)

        return bounded
