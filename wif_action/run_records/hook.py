"""Hooking run records into a built workflow (called from `app.build_workflow`).

The workflow and subtasks stay unaware of recording: the tools are swapped for
recording proxies, and the recorder subscribes to the workflow's events
(wif_action/events.py) for the run's start and end, its steps and its LLM calls.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from indexer.redaction import Redactor
from wif_action import ports
from wif_action.ports import AnalysisTools
from wif_action.run_records.proxies import RecordingProxy
from wif_action.run_records.recorder import RunContext, RunRecorder
from wif_action.run_records.store import RunStore
from wif_action.workflow import Workflow


def protocol_methods(protocol: type, *, exclude: tuple[str, ...] = ()) -> frozenset[str]:
    """The public methods a Protocol declares, its base Protocols' included (`ReleaseCache` is also the
    `PullRequestCache` the GitHub tools read): what may be called on a tool."""
    ports_of = [cls for cls in protocol.__mro__ if cls.__module__ == protocol.__module__]
    names = {name for cls in ports_of for name, value in vars(cls).items()
             if not name.startswith("_") and callable(value) and not isinstance(value, property)}
    return frozenset(names - set(exclude))


TOOL_METHODS = {
    "cache": protocol_methods(ports.ReleaseCache),
    "github": protocol_methods(ports.GitHub),
    "judge": protocol_methods(ports.Judge, exclude=("usage",)),
}


def with_run_records(workflow: Workflow, runs_db: str | Path, *, env: Mapping[str, str], source: str = "cli",
                     cache: str = "", llm_observed: bool = False) -> Workflow:
    """The same workflow, recording into `runs_db` (raises CacheError if that file is unusable).

    The recorder subscribes to the workflow's events (run, step and, when `llm_observed`, LLM
    calls: the app wired the LLM client to the same bus); tool calls go through recording proxies.
    """
    tools = workflow.tools
    context = RunContext(source=source, engine=tools.judge.name, cache=cache)
    recorder = RunRecorder(RunStore(runs_db), Redactor(env), context, llm_observed=llm_observed)
    judge = _proxy(tools.judge, "judge", recorder)
    fallback = tools.fallback
    if fallback is not None:
        fallback = judge if fallback is tools.judge else _proxy(fallback, "fallback", recorder, methods="judge")
    recorded = AnalysisTools(cache=_proxy(tools.cache, "cache", recorder),
                             github=_proxy(tools.github, "github", recorder), judge=judge, fallback=fallback)
    workflow.events.subscribe(recorder.on_event)
    return dataclasses.replace(workflow, tools=recorded)


def _proxy(target: Any, tool: str, recorder: RunRecorder, methods: str | None = None) -> Any:
    return RecordingProxy(target, tool, recorder, TOOL_METHODS[methods or tool])
