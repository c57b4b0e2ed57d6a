"""A usable release cache for this run: the one given, or one repository indexed on the spot.

Why index on the spot: on a first run (no release asset, no Actions cache
yet) an answer a minute late beats no answer. Only the repository the
question needs is indexed, so it costs a few API requests, not a full crawl.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from indexer.registry import Registry, RegistryError, load_registry
from indexer.schema import CacheError, open_cache
from wif_action.app import AppConfig, build_workflow, release_source, text_reader
from wif_action.delivery.settings import ActionSettings, ConfigError
from wif_action.models import AskInput
from wif_action.ports import Progress
from wif_action.workflow import Workflow

Log = Callable[[str], None]


ANSWER_RESERVE = 30.0  # of the run's deadline, kept for the analysis after indexing on the spot (at most)


class Deadline:
    """The run's one time budget (WIF_DEADLINE): indexing on the spot and the analysis share it."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.seconds, self._clock = seconds, clock
        self._end = clock() + seconds

    def left(self) -> float:
        return max(0.0, self._end - self._clock())

    def for_indexing(self) -> float:
        """What indexing may spend: the time left less a reserve for the analysis (a quarter, at most 30 s)."""
        return max(0.0, self.left() - min(ANSWER_RESERVE, self.seconds / 4))


def open_workflow(settings: ActionSettings, ask: AskInput, env: Mapping[str, str], progress: Progress,
                  log: Log) -> Workflow:
    """The workflow over a usable cache; raises ConfigError when there is none and indexing fails."""
    deadline = Deadline(settings.deadline)
    db = settings.cache_db
    if not _usable_file(db):
        log(f"No release cache at '{db or '(none given)'}': indexing the question's repository on the spot.")
        db = index_on_the_spot(settings, ask, env, log, db or None, deadline)
    try:
        return _build(settings, db, env, progress, log, deadline)
    except CacheError as error:
        log(f"The release cache is unusable ({error}); indexing the question's repository on the spot.")
    except (RegistryError, ValueError) as error:
        raise ConfigError(str(error)) from error
    fresh = index_on_the_spot(settings, ask, env, log, None, deadline)
    try:
        return _build(settings, fresh, env, progress, log, deadline)
    except (CacheError, RegistryError, ValueError) as error:
        raise ConfigError(str(error)) from error


def _build(settings: ActionSettings, db: str, env: Mapping[str, str], progress: Progress, log: Log,
           deadline: Deadline) -> Workflow:
    """build_workflow with the time left; an unusable run-records file only turns recording off."""
    try:
        return build_workflow(app_config(settings, db, env, seconds=deadline.left()), progress)
    except CacheError as error:
        if not settings.runs_db or not _cache_opens(db):
            raise
        log(f"Run records are off for this run: {error}")
        return build_workflow(app_config(settings, db, env, record=False, seconds=deadline.left()), progress)


def app_config(settings: ActionSettings, db: str, env: Mapping[str, str], *, record: bool = True,
               seconds: float | None = None) -> AppConfig:
    return AppConfig(db=db, engine=settings.engine, registry=settings.registry, env=dict(env),
                     deadline_seconds=settings.deadline if seconds is None else seconds,
                     max_releases=settings.max_releases,
                     runs_db=(settings.runs_db or None) if record else None, run_source="action")


def _cache_opens(db: str) -> bool:
    try:
        open_cache(db).close()
    except CacheError:
        return False
    return True


def _usable_file(path: str) -> bool:
    return bool(path) and Path(path).is_file() and Path(path).stat().st_size > 0


def index_on_the_spot(settings: ActionSettings, ask: AskInput, env: Mapping[str, str], log: Log,
                      target: str | None, deadline: Deadline) -> str:
    """Index the one repository the question needs into `target` (or a new file), within the run's
    deadline less the analysis's reserve; returns the path."""
    from indexer.github_source import REPOSITORY_SECONDS
    from indexer.indexing import index_repositories
    from wif_action.lexicon.names import distinctive_part

    try:
        registry = load_registry(settings.registry)
    except RegistryError as error:
        raise ConfigError(str(error)) from error
    registry.add_package_names(list(registry.repositories), distinctive_part)
    repo = repository_for(ask, registry)
    if not repo:
        raise ConfigError(f"There is no usable release cache, and {_unresolved(ask, registry)} "
                          "Set the `cache-db` or `cache-repo` input, or give `sdk`.")
    budget = float(int(min(REPOSITORY_SECONDS, deadline.for_indexing())))  # whole seconds: said in errors
    if budget < 1:
        raise ConfigError(f"There is no usable release cache, and the run's deadline ({deadline.seconds:g} s, "
                          f"WIF_DEADLINE) leaves no time to index {repo} on the spot. Set the `cache-db` or "
                          "`cache-repo` input, or allow more time.")
    path = Path(target or Path(env.get("RUNNER_TEMP") or ".") / "wif-index.db")
    path.parent.mkdir(parents=True, exist_ok=True)
    source = release_source(env, retries=2, max_rate_limit_wait=min(60, budget), repository_seconds=budget,
                            timeout=int(max(1, min(15, budget))))
    try:
        reports = index_repositories(path, source, [repo], on_progress=log,
                                     packages={repo: registry.package_hint(repo)})
    except CacheError as error:
        raise ConfigError(f"Cannot create a release cache at {path}: {error}") from error
    finally:
        source.close()
    if reports and reports[0].error:
        raise ConfigError(f"Indexing {repo} failed: {reports[0].error}")
    return str(path)


def _unresolved(ask: AskInput, registry: Registry) -> str:
    """Why no repository could be indexed: a name several SDKs share (which, as `wif ask` would ask), or none."""
    from wif_action.lexicon.names import name_repository
    from wif_action.subtasks.resolve_repository import could_be

    text = "\n\n".join(part for part in (ask.problem, ask.message) if part)
    shared = name_repository(registry, ask.sdk, ask.repo, text).choices if ask.sdk else ()
    if shared:
        return f"{could_be(ask.sdk or '', list(shared))}: the question does not say which to index (as owner/name)."
    return "the question does not name a known SDK to index."


def repository_for(ask: AskInput, registry: Registry) -> str | None:
    """The repository the question is about, resolved as `wif ask` resolves it (`lexicon.names.name_repository`):
    the SDK and repository fields, else the SDK the offline reader finds in the text (problem and message); a
    name several repositories share is narrowed by the package manager the text names ("the sentry crate") and,
    if still shared, decided by the offline engine's pick from the text's words, or None (no guess)."""
    from wif_action.engines.offline.extraction import extract
    from wif_action.lexicon.names import name_repository

    text = "\n\n".join(part for part in (ask.problem, ask.message) if part)
    sdk, repo = (ask.sdk or "").strip() or None, (ask.repo or "").strip() or None
    if not (sdk or repo):
        read = extract(text, registry, list(ask.links))
        sdk, repo = read.sdk, read.repo
    naming = name_repository(registry, sdk, repo, text)
    if naming.repo or not naming.choices:
        return naming.repo
    return text_reader(registry).resolve_repository_ambiguous(text, list(naming.choices))
