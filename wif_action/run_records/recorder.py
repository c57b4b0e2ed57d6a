"""Recording a run: subtask boundaries, every tool call, every LLM call, inputs and answer.

`RunRecorder` subscribes to the run's events (run, step, LLM call; see
wif_action/events.py); tool calls arrive from the recording proxies (`proxies.py`). Nothing here
may break an analysis: a failing run-records file is reported once on stderr
and recording stops.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from indexer.redaction import Redactor
from indexer.store import now
from wif_action.candidate_order import top_candidate
from wif_action.events import Event, LlmCalled, RunFinished, RunStarted, StepFinished, StepStarted
from wif_action.models import Answer, AskInput, to_json
from wif_action.run_records.store import RunStore
from wif_action.run_records.summary import summarise
from wif_action.run_records.tables import clip

PROMPT_LIMIT = 200_000


@dataclass
class RunContext:
    """Who is running and against what (stored on the `runs` row)."""

    source: str = "cli"
    engine: str = ""
    cache: str = ""


@dataclass
class _Current:
    run_id: int | None
    started: float
    subtask: str = ""
    subtask_started: float = 0.0
    subtasks: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)


class RunRecorder:
    """Collects one run at a time in memory and writes it to a `RunStore`."""

    def __init__(self, store: RunStore, redactor: Redactor, context: RunContext, *, llm_observed: bool = False):
        self.store, self.redactor, self.context = store, redactor, context
        self.llm_observed = llm_observed
        self.disabled: str | None = None
        self._run: _Current | None = None

    def on_event(self, event: Event) -> None:
        """The workflow's and the LLM client's events (wif_action/events.py)."""
        if isinstance(event, RunStarted):
            self.begin(event.inputs)
        elif isinstance(event, RunFinished):
            self.finish(event.answer, event.error)
        elif isinstance(event, StepStarted):
            self.subtask_started(event.name)
        elif isinstance(event, StepFinished):
            self.subtask_finished(event.name, event.outcome)
        elif isinstance(event, LlmCalled):
            self.llm_call(event.record)

    # -- run lifecycle -----------------------------------------------------------------------------
    def begin(self, inputs: AskInput) -> None:
        self._run = _Current(run_id=None, started=time.monotonic())
        self._run.run_id = self._safely(lambda: self.store.begin(self._start_row(inputs)))

    def finish(self, answer: Answer | None, error: BaseException | None = None) -> None:
        run = self._run
        self._run = None
        if run is None or run.run_id is None:
            return
        run_id = run.run_id
        self._close_subtask(run, "error" if error else "interrupted")
        row = self._finish_row(run, answer, error)
        children = {"subtasks": run.subtasks, "tool_calls": run.tool_calls, "llm_calls": run.llm_calls}
        self._safely(lambda: self.store.finish(run_id, row, children))

    # -- steps -------------------------------------------------------------------------------------
    def subtask_started(self, name: str) -> None:
        if self._run is not None:
            self._run.subtask, self._run.subtask_started = name, time.monotonic()

    def subtask_finished(self, name: str, outcome: str) -> None:
        if self._run is not None and self._run.subtask == name:
            self._close_subtask(self._run, outcome)

    # -- tool and LLM calls ------------------------------------------------------------------------
    def tool_call(self, tool: str, method: str, arguments: str, started: float, result: Any = None,
                  error: BaseException | None = None, github_requests: int = 0) -> None:
        run = self._run
        if run is None:
            return
        run.tool_calls.append({
            "subtask": run.subtask, "tool": tool, "method": method, "arguments": self.redactor.text(arguments),
            "result": None if error else self.redactor.text(summarise(result)),
            **_span(run.started, started),
            "ok": int(error is None), "error": self.redactor.text(_error_text(error)) if error else None,
            "github_requests": github_requests,
        })

    def llm_call(self, record: Any) -> None:
        """One LlmCalled event; `record` is an `LLMCallRecord`."""
        run = self._run
        if run is None:
            return
        text = self.redactor.text
        run.llm_calls.append({
            "subtask": run.subtask, "tool": record.tool, "model": record.model, "schema": record.schema,
            "prompt": text(record.prompt_text[:PROMPT_LIMIT]), "response": text(record.response_text[:PROMPT_LIMIT]),
            "prompt_tokens": record.prompt_tokens, "completion_tokens": record.completion_tokens,
            "cached_tokens": record.cached_tokens, "reasoning_tokens": record.reasoning_tokens, "mode": record.mode,
            "started_ms": max(0.0, _ms(time.monotonic() - run.started) - record.latency_ms),
            "latency_ms": record.latency_ms, "ok": int(record.ok), "error": text(record.error),
        })

    # -- rows --------------------------------------------------------------------------------------
    def _start_row(self, inputs: AskInput) -> dict[str, Any]:
        data = self.redactor.value(_given(inputs))
        return {
            "source": self.context.source, "engine": self.context.engine, "cache": self.context.cache,
            "wif_version": _wif_version(), "inputs": _json(data), "repo": inputs.repo or inputs.sdk,
            "version": inputs.version, "problem": self.redactor.text(clip(inputs.problem or inputs.message or "", 500)),
        }

    def _finish_row(self, run: _Current, answer: Answer | None, error: BaseException | None) -> dict[str, Any]:
        row: dict[str, Any] = {
            "finished_at": now(), "duration_ms": int(_ms(time.monotonic() - run.started)),
            "status": "error" if error or answer is None else "complete",
            "github_requests": sum(call["github_requests"] or 0 for call in run.tool_calls),
            "error": self.redactor.text(_error_text(error)) if error else None,
        }
        if answer is not None:
            row.update(self._answer_columns(run, answer))
        return row

    def _answer_columns(self, run: _Current, answer: Answer) -> dict[str, Any]:
        top = top_candidate(answer.candidates)
        usage = answer.usage
        recorded = run.llm_calls if self.llm_observed else None
        return {
            "repo": answer.repo, "version": answer.user_version, "outcome": answer.outcome.value,
            "top_version": top.version if top else None, "top_pr": top.pr if top else None,
            "top_commit": top.commit if top else None,
            "top_confidence": top.confidence.value if top else None,
            "llm_calls": len(recorded) if recorded is not None else usage.llm_calls,
            "prompt_tokens": sum(c["prompt_tokens"] for c in recorded) if recorded is not None else usage.prompt_tokens,
            "completion_tokens": (sum(c["completion_tokens"] for c in recorded) if recorded is not None
                                  else usage.completion_tokens),
            "cached_tokens": sum(c["cached_tokens"] for c in recorded) if recorded is not None else usage.cached_tokens,
            "reasoning_tokens": (sum(c["reasoning_tokens"] for c in recorded) if recorded is not None
                                 else usage.reasoning_tokens),
            "cost_usd": usage.cost_usd,
            "answer": _json(self.redactor.value(answer.public_json())), "message": self.redactor.text(answer.message),
        }

    def _close_subtask(self, run: _Current, outcome: str) -> None:
        if not run.subtask:
            return
        run.subtasks.append({
            "name": run.subtask, **_span(run.started, run.subtask_started), "outcome": clip(outcome, 200),
        })
        run.subtask = ""

    def _safely(self, write: Callable[[], Any]) -> Any:
        """Run a write; on failure warn once and stop recording (the analysis must go on)."""
        if self.disabled:
            return None
        try:
            return write()
        except Exception as error:  # recording must never break a run
            self.disabled = f"{type(error).__name__}: {self.redactor.text(str(error))}"
            print(f"wif: run records disabled ({self.disabled})", file=sys.stderr)
            return None


def _error_text(error: BaseException | None) -> str | None:
    if error is None:
        return None
    return clip(f"{type(error).__name__}: {error}", 500)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _ms(seconds: float) -> float:
    """Milliseconds to 0.1 ms: enough to order the events of a run."""
    return round(seconds * 1000, 1)


def _span(run_started: float, started: float) -> dict[str, float]:
    """started_ms (from the run's start) and duration_ms, rounded consistently so start + duration = end."""
    start, end = _ms(started - run_started), _ms(time.monotonic() - run_started)
    return {"started_ms": start, "duration_ms": round(end - start, 1)}


def _wif_version() -> str:
    try:
        return metadata.version("wif")
    except metadata.PackageNotFoundError:
        return "unknown"


def _given(inputs: AskInput) -> dict[str, Any]:
    """The inputs a trigger set (those that differ from the defaults), as JSON."""
    defaults = to_json(AskInput())
    return {key: value for key, value in to_json(inputs).items() if value != defaults[key]}
