"""One run's context: what every subtask of a question needs, passed as one object.

Why: the tools, the options, the deadline, the journal, the registry and the progress sink
used to be handed from step to step by hand (scan_release_notes took nine parameters, and
the six subtasks had four calling styles). The workflow builds one `Run` per question; every
subtask takes it first (`tests/test_subtask_calls.py`), reads what it needs from it and adds
nothing to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexer.registry import Registry
from wif_action.journal import Journal
from wif_action.ports import AnalysisTools, Progress
from wif_action.rendering import DEFAULT_MENTION


@dataclass
class WorkflowOptions:
    """Per-deployment settings of the analysis (from app.AppConfig)."""

    max_high: int = 1
    deadline_seconds: float = 240.0
    max_releases: int = 100  # the release-count guard: more releases after the user's version is too_old
    mention: str = DEFAULT_MENTION


@dataclass
class Run:
    """The tools (already cut off at the deadline), options, journal, progress and SDK registry of one question."""

    tools: AnalysisTools
    journal: Journal
    progress: Progress
    options: WorkflowOptions = field(default_factory=WorkflowOptions)
    registry: Registry = field(default_factory=lambda: Registry(aliases={}))

    @property
    def deadline(self) -> float:
        """When GitHub and the primary engine stop being called (time.monotonic() seconds)."""
        return self.journal.deadline

    def expired(self) -> bool:
        return self.journal.expired()


def mention_for(options: WorkflowOptions, registry: Registry, repo: str | None) -> str:
    """How answers about `repo` name its maintainers (the registry's GitHub team, if any)."""
    team = registry.maintainers(repo).get("github_team") if repo else None
    return f"{options.mention} ({team})" if team else options.mention
