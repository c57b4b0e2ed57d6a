"""Every subtask is called one way: the run context (`run_context.Run`) first, its own inputs after.

Why: the six subtasks once had four calling styles (loose judge/fallback/journal/cache/registry
parameters in some, the run in others) and two helpers took eight parameters. The rule read here from
the code: a public function or class of `wif_action/subtasks/` either takes `run: Run` first or is pure
(none of its parameters is a collaborator the run carries); no function there takes more than six.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import wif_action.subtasks as subtasks_package
from indexer.registry import Registry
from wif_action.journal import Journal
from wif_action.models import Usage
from wif_action.ports import AnalysisTools, GitHub, Judge, Progress, ReleaseCache
from wif_action.run_context import Run, WorkflowOptions

# What the run carries: a subtask reads these from `run`, never as parameters of its own.
COLLABORATORS = (AnalysisTools, ReleaseCache, GitHub, Judge, Journal, Progress, Registry, WorkflowOptions, Usage)
# The spec's steps and the scan's parts the workflow calls (each must take the run first).
ENTRY_POINTS = {
    "extract_request": "extract_request", "resolve_repository": "resolve_repository",
    "check_links": "check_links", "fetch_release_range": "fetch_release_range",
    "scan_release_notes": "scan_release_notes", "unreleased_notes": "check_unreleased",
    "resolve_answer": "resolve_answer", "pr_evaluation": "PrEvaluator", "bundled_sdks": "BundleFollower",
    "judging": "judged",
}
MAX_PARAMETERS = 6


def _modules() -> Iterator[Any]:
    for info in pkgutil.iter_modules(subtasks_package.__path__):
        yield importlib.import_module(f"{subtasks_package.__name__}.{info.name}")


def _own(module: Any) -> Iterator[tuple[str, Any]]:
    """Functions and classes the module defines (not imports)."""
    for name, value in vars(module).items():
        if (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == module.__name__:
            yield name, value


def _parameters(value: Any) -> list[tuple[str, Any]]:
    """(name, annotation) of each parameter; a class's are its __init__'s without `self`."""
    function: Callable[..., Any] = value.__init__ if inspect.isclass(value) else value
    hints = typing.get_type_hints(function, vars(inspect.getmodule(value)))
    names = [name for name in inspect.signature(value).parameters]
    return [(name, hints.get(name)) for name in names]


def _is_collaborator(annotation: Any) -> bool:
    kinds = typing.get_args(annotation) or (annotation,)
    return any(kind in COLLABORATORS for kind in kinds)  # the ports are Protocols: compared, not issubclass


def _public_callables() -> list[tuple[str, Any]]:
    found = []
    for module in _modules():
        for name, value in _own(module):
            if name.startswith("_"):
                continue
            if inspect.isclass(value) and issubclass(value, Exception):
                continue  # an error carries data, not collaborators (a result dataclass is checked: its fields)
            found.append((f"{module.__name__.rsplit('.', 1)[-1]}.{name}", value))
    return found


@pytest.mark.parametrize(("module", "name"), sorted(ENTRY_POINTS.items()))
def test_each_subtask_entry_point_takes_the_run_first(module: str, name: str) -> None:
    value = getattr(importlib.import_module(f"wif_action.subtasks.{module}"), name)
    (first, annotation), *_ = _parameters(value)
    assert (first, annotation) == ("run", Run), f"{module}.{name} takes {first}: {annotation} first, not run: Run"


@pytest.mark.parametrize(("name", "value"), _public_callables(), ids=lambda item: item if isinstance(item, str) else "")
def test_a_public_subtask_callable_takes_the_run_or_no_collaborator(name: str, value: Any) -> None:
    """Run first, or pure: a helper handed the journal, a judge or the cache beside its inputs is a second
    calling style (pass the run instead)."""
    parameters = _parameters(value)
    if parameters and parameters[0][1] is Run:
        parameters = parameters[1:]
    loose = [parameter for parameter, annotation in parameters if _is_collaborator(annotation)]
    assert not loose, f"{name} takes {loose} beside its inputs: take `run: Run` first and read them from it"


def test_no_subtask_function_takes_more_than_six_parameters() -> None:
    """Long lists (_scan_batch and _follow_pr took eight) shrink by passing the run or a small dataclass."""
    too_long = []
    for module in _modules():
        for name, value in _own(module):
            functions = [(name, value)] if inspect.isfunction(value) else [
                (f"{name}.{attribute}", member) for attribute, member in vars(value).items()
                if inspect.isfunction(member)
                and not (attribute == "__init__" and hasattr(value, "__dataclass_fields__"))]
            for label, function in functions:
                count = len([p for p in inspect.signature(function).parameters if p not in ("self", "cls")])
                if count > MAX_PARAMETERS:
                    too_long.append(f"{module.__name__}.{label} ({count})")
    assert not too_long, f"more than {MAX_PARAMETERS} parameters: {too_long}"


def test_the_rule_catches_a_loose_collaborator() -> None:
    """The check itself can fail: a helper taking the journal beside its inputs is flagged."""
    def helper(entries: list[str], journal: Journal) -> None: ...
    def pure(entries: list[str], limit: int) -> None: ...
    assert _is_collaborator(typing.get_type_hints(helper)["journal"])
    assert not any(_is_collaborator(hint) for hint in typing.get_type_hints(pure).values())
    assert _is_collaborator(Judge | None)
