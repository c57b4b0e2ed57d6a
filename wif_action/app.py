"""The composition root: builds the real tools and engines from configuration.

Only here (and in tests) are clients constructed; subtasks get them injected.
`wif ask`, `wif eval` and the Action all build their workflow through
`build_workflow`, so they run exactly the same code path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.registry import Registry, load_registry
from wif_action.events import Events
from wif_action.lexicon.names import distinctive_part
from wif_action.ports import AnalysisTools, Progress
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.github import CachedPullRequests, GitHubClient
from wif_action.workflow import Workflow, WorkflowOptions

if TYPE_CHECKING:  # clients load on first use: an offline answer imports none of them
    from github import Github
    from slack_sdk import WebClient

    from indexer.github_source import ReleaseSource
    from wif_action.engines.offline import OfflineJudge
    from wif_action.engines.offline.scoring import Thresholds
    from wif_action.tools.llm import LLMCallRecord, LLMClient
    from wif_action.tools.slack import SlackClient


@dataclass
class AppConfig:
    db: str | Path
    engine: str = "auto"
    registry: str | Path | None = None
    max_high: int = 1
    deadline_seconds: float = 240.0
    max_releases: int = 100  # the release-count guard (spec: 100; an operator may raise it)
    github_timeout: float = 10.0
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    runs_db: str | Path | None = None  # run-records file (None: not recorded)
    run_source: str = "cli"  # stored on each run record: cli, action, eval:<case>
    weights: Thresholds | None = None  # the offline judge's thresholds (None: the lexicon's; calibration: others)


def load_known_registry(config: AppConfig, cache: SqliteReleaseCache) -> Registry:
    """The SDK registry plus every repository the cache holds (so any cached repo can be named), each listed or
    cached repository also by the distinctive part of its name where a message uses it as a package's name."""
    registry = load_registry(config.registry)
    registry.add_repositories(cache.repositories(), distinctive=distinctive_part)
    registry.add_package_names(list(registry.repositories), distinctive_part)
    return registry


def build_workflow(config: AppConfig, progress: Progress, *, cache: SqliteReleaseCache | None = None) -> Workflow:
    """Raises CacheError (unusable cache), RegistryError or ValueError (bad engine setup).
    `cache`: one already opened from `config.db` (the Python API opens it once for many questions)."""
    from wif_action.engines import choose_engine

    cache = cache or SqliteReleaseCache.open(config.db)
    registry = load_known_registry(config, cache)
    env, timeout = config.env, config.github_timeout
    github = CachedPullRequests(GitHubClient(lambda: read_github(env, timeout=timeout)), cache)
    events = Events()  # run records subscribe to it; the LLM client and the workflow emit to it
    judge = choose_engine(config.engine, cache=cache, registry=registry, env=config.env,
                          make_llm=lambda env: llm_client(env, on_call=events.llm_called), weights=config.weights)
    fallback = None
    if judge.name != "offline":
        from wif_action.engines.offline import OfflineJudge

        fallback = OfflineJudge(cache, registry, config.weights) if config.weights else OfflineJudge(cache, registry)
    tools = AnalysisTools(cache=cache, github=github, judge=judge, fallback=fallback)
    options = WorkflowOptions(max_high=config.max_high, deadline_seconds=config.deadline_seconds,
                              max_releases=config.max_releases)
    workflow = Workflow(tools=tools, registry=registry, progress=progress, options=options, events=events)
    if config.runs_db:
        from wif_action.run_records.hook import with_run_records

        return with_run_records(workflow, config.runs_db, env=config.env, source=config.run_source,
                                cache=str(config.db), llm_observed=not judge.local)
    return workflow


def text_reader(registry: Registry) -> OfflineJudge:
    """The offline engine with no cache, reading a request's text alone: the Action picks which repository to index
    on the spot (`commands/action_cache.repository_for`) before any release cache exists."""
    from wif_action.engines.offline import OfflineJudge

    return OfflineJudge(None, registry)


# -- clients: the only place they are built (tests build them through these too) ----------------
def read_github(env: Mapping[str, str], *, timeout: float = 10, retries: int | None = 2) -> Github:
    """The analysis's read-only lookups (PR details, linked issues)."""
    from indexer.github_client import GitHubPolicy, build_github

    return build_github(GitHubPolicy.from_env(env, timeout=timeout, retries=retries))


def write_github(env: Mapping[str, str], *, timeout: float = 15) -> Github:
    """Delivery writes: issue comments, reactions, workflow dispatch."""
    from indexer.github_client import GitHubPolicy, build_github

    return build_github(GitHubPolicy.from_env(env, timeout=timeout))


def release_source(env: Mapping[str, str], **policy: Any) -> ReleaseSource:
    """The indexer's release reader for GITHUB_API_URL / GITHUB_TOKEN (the Action indexes on the spot)."""
    from indexer.github_source import ReleaseSource

    return ReleaseSource(env.get("GITHUB_API_URL") or None, (env.get("GITHUB_TOKEN") or "").strip() or None,
                         **policy)


def slack_client(env: Mapping[str, str]) -> SlackClient | None:
    """SLACK_BOT_TOKEN (and SLACK_API_URL for tests or proxies); None without a token."""
    from wif_action.tools.slack import SlackClient

    token = (env.get("SLACK_BOT_TOKEN") or "").strip()
    return SlackClient(token, env.get("SLACK_API_URL") or None) if token else None


def slack_web_client(env: Mapping[str, str], token: str | None = None) -> WebClient:
    """The Slack app's Web API client for SLACK_API_URL: the bot token, or `token` (a workflow step's own)."""
    from wif_action.tools.slack import web_client

    return web_client(token or (env.get("SLACK_BOT_TOKEN") or "").strip(), env.get("SLACK_API_URL") or None)


def llm_client(env: Mapping[str, str], on_call: Callable[[LLMCallRecord], None] | None = None) -> LLMClient:
    """OPENAI_API_KEY / OPENAI_BASE_URL with WIF_LLM_MAX_RETRIES; per-model settings (WIF_LLM_TIMEOUT,
    WIF_REASONING_*) are read from `env` too. `on_call` sees every call's record (the run's event bus)."""
    from wif_action.tools.llm import DEFAULT_MAX_RETRIES, LLMClient

    return LLMClient(
        env["OPENAI_API_KEY"].strip(),
        base_url=env.get("OPENAI_BASE_URL") or None,
        max_retries=int(number_setting(env, "WIF_LLM_MAX_RETRIES", DEFAULT_MAX_RETRIES)),
        env=env,
        on_call=on_call,
    )


def number_setting(env: Mapping[str, str], key: str, default: float) -> float:
    """A numeric setting from the environment; a malformed value is a clear error, not a crash."""
    value = env.get(key)
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{key} must be a number, got '{value}'") from None
