"""The composition root: builds the real tools and engines from configuration.

Only here (and in tests) are clients constructed; subtasks get them injected.
`wif ask`, `wif eval` and the Action all build their workflow through
`build_workflow`, so they run exactly the same code path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from indexer.registry import Registry, load_registry
from wif_action.events import Events
from wif_action.ports import AnalysisTools, Progress
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.github import CachedPullRequests, GitHubClient, github_from_env
from wif_action.workflow import Workflow, WorkflowOptions


@dataclass
class AppConfig:
    db: str | Path
    engine: str = "auto"
    registry: str | Path | None = None
    max_high: int = 1
    deadline_seconds: float = 240.0
    github_timeout: float = 10.0
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    runs_db: str | Path | None = None  # run-records file (None: not recorded)
    run_source: str = "cli"  # stored on each run record: cli, action, eval:<case>


def load_known_registry(config: AppConfig, cache: SqliteReleaseCache) -> Registry:
    """The SDK registry plus every repository the cache holds (so any cached repo can be named)."""
    registry = load_registry(config.registry)
    registry.add_repositories(cache.repositories())
    return registry


def build_workflow(config: AppConfig, progress: Progress) -> Workflow:
    """Raises CacheError (unusable cache), RegistryError or ValueError (bad engine setup)."""
    from wif_action.engines import choose_engine

    cache = SqliteReleaseCache.open(config.db)
    registry = load_known_registry(config, cache)
    github = CachedPullRequests(GitHubClient(github_from_env(config.env, timeout=config.github_timeout)), cache)
    events = Events()  # run records subscribe to it; the LLM client and the workflow emit to it
    judge = choose_engine(config.engine, cache=cache, registry=registry, env=config.env,
                          on_llm_call=events.llm_called)
    fallback = None
    if judge.name != "offline":
        from wif_action.engines.offline import OfflineJudge

        fallback = OfflineJudge(cache, registry)
    tools = AnalysisTools(cache=cache, github=github, judge=judge, fallback=fallback)
    options = WorkflowOptions(max_high=config.max_high, deadline_seconds=config.deadline_seconds)
    workflow = Workflow(tools=tools, registry=registry, progress=progress, options=options, events=events)
    if config.runs_db:
        from wif_action.run_records.hook import with_run_records

        return with_run_records(workflow, config.runs_db, env=config.env, source=config.run_source,
                                cache=str(config.db), llm_observed=not judge.local)
    return workflow
