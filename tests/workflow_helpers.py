"""Building a real workflow against the fake servers, for the workflow and fault tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from indexer.registry import load_registry
from tests.fakes.openai_server import requested_schema
from wif_action.app import llm_client, read_github
from wif_action.engines import choose_engine
from wif_action.engines.offline import OfflineJudge
from wif_action.lexicon.names import distinctive_part
from wif_action.models import Answer, AskInput
from wif_action.ports import AnalysisTools
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.github import CachedPullRequests, GitHubClient
from wif_action.tools.progress import RecordingProgress
from wif_action.workflow import Workflow, WorkflowOptions

EXAMPLE_B = AskInput(
    sdk="sentry-cocoa", version="8.48.0",
    problem="WatchdogTermination issues have empty tags (e.g., OS).",
    links=["https://github.com/getsentry/sentry-cocoa/issues/5397"],
)


def build(cache_path, github_url: str, *, engine: str = "offline", openai_url: str | None = None,
          use_cached_pulls: bool = True, fallback: bool = True, **options: Any) -> tuple[Workflow, RecordingProgress]:
    env = {"GITHUB_API_URL": github_url}
    if openai_url:
        env |= {"OPENAI_API_KEY": "sk-test-key", "OPENAI_BASE_URL": openai_url + "/v1", "WIF_LLM_MAX_RETRIES": "0",
                "WIF_LLM_TIMEOUT": "30"}
    cache = SqliteReleaseCache.open(cache_path)
    registry = load_registry()
    registry.add_repositories(cache.repositories(), distinctive=distinctive_part)
    client = GitHubClient(read_github(env, timeout=30, retries=0))
    github = CachedPullRequests(client, cache) if use_cached_pulls else client
    judge = choose_engine(engine, cache=cache, registry=registry, make_llm=llm_client, env=env)
    backup = OfflineJudge(cache, registry) if fallback and judge.name != "offline" else None
    progress = RecordingProgress()
    tools = AnalysisTools(cache=cache, github=github, judge=judge, fallback=backup)
    return Workflow(tools=tools, registry=registry, progress=progress, options=WorkflowOptions(**options)), progress


def ask(cache_path, github_url: str, inputs: AskInput, **kwargs: Any) -> tuple[Answer, RecordingProgress]:
    workflow, progress = build(cache_path, github_url, **kwargs)
    return workflow.run(inputs), progress


def keyword_responder(keyword: str, *, confidence: str = "high", confirmed: bool = True,
                      reason: str | None = None) -> Callable[[dict], Any]:
    """A scripted LLM: entries mentioning `keyword` are relevant and score `confidence`."""

    def respond(request: dict) -> Any:
        schema, _ = requested_schema(request)
        user = request["messages"][-1]["content"]
        if schema == "RelevantEntries":
            ids = [int(m.group(1)) for m in re.finditer(r"^\[(\d+)\] .*$", user, re.M) if keyword in m.group(0).lower()]
            return {"entries": [{"id": i, "pr": None, "relevance": 0.9, "reason": f"mentions {keyword}"} for i in ids]}
        if schema == "PRScore":
            found = keyword in user.lower()
            return {"confidence": confidence if found else "low",
                    "reason": reason or f"The PR title mentions {keyword}."}
        if schema == "PRVerdict":
            return {"objection": None, "confirmed": confirmed, "reason": "The fix mechanism matches the symptom."}
        return None

    return respond
