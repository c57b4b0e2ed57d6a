"""WIF as a library: `open_cache` and `ask`, for a team's own bot, script or notebook.

Why a library and not only a CLI: a bot that already runs Python should not shell out and parse
text. `ask` returns the same `Answer` (a dataclass) that `wif ask --json` prints (`answer.public_json()`
is that object), and `wif ask` itself is a thin layer over this module, so both behave alike.

    from wif_action import ask, open_cache

    cache = open_cache("cache.db.example")
    answer = ask(cache, sdk="sentry-cocoa", version="8.48.0", problem="WatchdogTermination issues have empty tags")
    print(answer.outcome, answer.candidates[0].version, answer.candidates[0].pr)

Errors are exceptions, never an exit: `CacheError` (the file is not a usable release cache),
`RegistryError` (an unusable `registry` file), `ValueError` (no question, or an engine that cannot
be set up, e.g. `engine="openai"` without OPENAI_API_KEY). A run that fails upstream is not an
exception: it is an `Answer` with outcome `failed` that says why.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from indexer.registry import RegistryError
from indexer.schema import CacheError
from wif_action.app import AppConfig, build_workflow
from wif_action.delivery.settings import deadline_from, max_releases_from
from wif_action.models import Answer, AskInput
from wif_action.ports import Progress
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.progress import RecordingProgress

__all__ = ["Answer", "Cache", "CacheError", "Engine", "RegistryError", "ask", "open_cache"]

Engine = Literal["auto", "openai", "offline"]


@dataclass(frozen=True)
class Cache:
    """An opened and checked release cache (the SQLite file `wif index` builds). Open it once and ask
    many questions; use one per thread (SQLite connections are not shared across threads)."""

    path: Path
    releases: SqliteReleaseCache

    def repositories(self) -> list[str]:
        """The `owner/name` of every repository the cache holds."""
        return self.releases.repositories()


def open_cache(path: str | Path) -> Cache:
    """Open the release cache at `path` read-only; CacheError when it is missing, not a WIF cache,
    damaged, or of a newer schema (the message says what to do)."""
    return Cache(Path(path), SqliteReleaseCache.open(path))


def ask(
    cache: Cache | str | Path,
    *,
    sdk: str | None = None,
    repo: str | None = None,
    version: str | None = None,
    problem: str | None = None,
    links: Iterable[str] = (),
    message: str | None = None,
    engine: Engine = "auto",
    registry: str | Path | None = None,
    max_high: int = 1,
    deadline: float | None = None,
    max_releases: int | None = None,
    env: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    runs_db: str | Path | None = None,
    run_source: str = "api",
) -> Answer:
    """Answer one "was it fixed?" question: fields (`sdk` or `repo`, `version`, `problem`, `links`)
    and/or the free text `message`, as `wif ask` takes them.

    `env` (default: os.environ) supplies GITHUB_API_URL/GITHUB_TOKEN and OPENAI_API_KEY/OPENAI_BASE_URL;
    `engine="auto"` uses OpenAI when a key is set, else the offline engine. `deadline` is the run's
    time budget in seconds (default: WIF_DEADLINE, else 240). `max_releases` is the release-count guard
    (default: WIF_MAX_RELEASES, else the spec's 100; more releases after `version` answer too_old).
    `progress` receives the checkpoints (default: kept silently); `runs_db` keeps a run record (see `wif runs`).
    """
    if not ((message or "").strip() or (problem or "").strip()):
        raise ValueError("give a problem (with sdk or repo, and version) or a message")
    if sdk and repo:
        raise ValueError("give sdk or repo, not both")
    if not 1 <= max_high <= 3:
        raise ValueError("max_high must be 1, 2 or 3")
    if deadline is not None and not 0 <= deadline < float("inf"):
        raise ValueError("deadline must be a finite number of seconds >= 0")
    if max_releases is not None and max_releases < 1:
        raise ValueError("max_releases must be a whole number >= 1")
    environment = dict(os.environ if env is None else env)
    guard = max_releases_from(environment) if max_releases is None else max_releases
    opened = cache if isinstance(cache, Cache) else open_cache(cache)
    config = AppConfig(db=opened.path, engine=engine, registry=registry, max_high=max_high,
                       deadline_seconds=deadline_from(environment) if deadline is None else deadline,
                       env=environment, runs_db=runs_db, run_source=run_source, max_releases=guard)
    workflow = build_workflow(config, progress or RecordingProgress(), cache=opened.releases)
    return workflow.run(AskInput(sdk=sdk, repo=repo, version=version, problem=problem, links=list(links),
                                 message=message))
