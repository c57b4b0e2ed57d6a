"""Hooking run records into a built workflow (called from `app.build_workflow`).

The workflow and subtasks stay unaware of recording: the tools are swapped for
recording proxies, the recorder becomes the workflow's observer, and
`RecordedWorkflow.run` brackets the run with a start row and a final write.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wif_action import ports
from wif_action.models import Answer, AskInput
from wif_action.ports import AnalysisTools
from wif_action.run_records.proxies import RecordingProxy
from wif_action.run_records.recorder import RunContext, RunRecorder
from wif_action.run_records.redaction import Redactor
from wif_action.run_records.store import RunStore
from wif_action.workflow import Workflow


def protocol_methods(protocol: type, *, exclude: tuple[str, ...] = ()) -> frozenset[str]:
    """The public methods a Protocol declares (what subtasks may call on a tool)."""
    names = {name for name, value in vars(protocol).items()
             if not name.startswith("_") and callable(value) and not isinstance(value, property)}
    return frozenset(names - set(exclude))


TOOL_METHODS = {
    "cache": protocol_methods(ports.ReleaseCache),
    "github": protocol_methods(ports.GitHub),
    "judge": protocol_methods(ports.Judge, exclude=("usage",)),
}


@dataclasses.dataclass
class RecordedWorkflow(Workflow):
    """A Workflow whose every run is written to the run-records file."""

    recorder: RunRecorder | None = None

    def run(self, inputs: AskInput) -> Answer:
        if self.recorder is None:
            return super().run(inputs)
        self.recorder.begin(inputs)
        try:
            answer = super().run(inputs)
        except BaseException as error:
            self.recorder.finish(None, error)
            raise
        self.recorder.finish(answer)
        return answer


def with_run_records(workflow: Workflow, runs_db: str | Path, *, env: Mapping[str, str], source: str = "cli",
                     cache: str = "") -> RecordedWorkflow:
    """The same workflow, recording into `runs_db` (raises CacheError if that file is unusable)."""
    tools = workflow.tools
    context = RunContext(source=source, engine=getattr(tools.judge, "name", ""), cache=cache)
    recorder = RunRecorder(RunStore(runs_db), Redactor(env), context)
    recorder.llm_hooked = any([_hook_llm(tools.judge, recorder), _hook_llm(tools.fallback, recorder)])
    judge = _proxy(tools.judge, "judge", recorder)
    fallback = tools.fallback
    if fallback is not None:
        fallback = judge if fallback is tools.judge else _proxy(fallback, "fallback", recorder, methods="judge")
    recorded = AnalysisTools(cache=_proxy(tools.cache, "cache", recorder),
                             github=_proxy(tools.github, "github", recorder), judge=judge, fallback=fallback)
    fields = {f.name: getattr(workflow, f.name) for f in dataclasses.fields(Workflow)}
    return RecordedWorkflow(**{**fields, "tools": recorded, "observer": recorder}, recorder=recorder)


def _proxy(target: Any, tool: str, recorder: RunRecorder, methods: str | None = None) -> Any:
    return RecordingProxy(target, tool, recorder, TOOL_METHODS[methods or tool])


def _hook_llm(judge: Any, recorder: RunRecorder) -> bool:
    """Chain the recorder onto the judge's `LLMClient.on_call` (engines without an LLM: no-op)."""
    llm = getattr(judge, "llm", None)
    if llm is None or not hasattr(llm, "on_call"):
        return False
    previous = llm.on_call

    def on_call(record: Any) -> None:
        try:
            recorder.llm_call(record)
        except Exception as failure:  # recording must never break the LLM call
            print(f"wif: an LLM call was not recorded ({type(failure).__name__})", file=sys.stderr)
        if previous is not None:
            previous(record)

    llm.on_call = on_call
    return True
