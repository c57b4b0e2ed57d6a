"""Calling a judgement tool with graceful degradation.

Why: an LLM error (timeout, refusal, schema-invalid output) must not end the
run. The failure is recorded as a skipped step and, when a fallback engine is
available (the offline one), it answers instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from wif_action.models import Skipped
from wif_action.ports import Judge, ToolError
from wif_action.run_context import Run

T = TypeVar("T")


def judged(run: Run, step: str, call: Callable[[Judge], T]) -> T:
    """`call` on the run's judge; on ToolError record the skip and try the run's fallback (which may raise)."""
    primary, fallback = run.tools.judge, run.tools.fallback
    try:
        return call(primary)
    except ToolError as error:
        if fallback is None or fallback is primary:
            raise
        run.journal.skip(step, f"{error.reason}; {FALLBACK_NOTE.format(engine=fallback.name)}")
        return call(fallback)


FALLBACK_NOTE = "used the {engine} engine instead"


def fell_back(skipped: list[Skipped]) -> list[str]:
    """The steps a fallback engine answered (`wif eval` never counts them as the primary engine's)."""
    marker = FALLBACK_NOTE.split("{engine}")[-1]
    return [s.step for s in skipped if s.reason.endswith(marker)]
