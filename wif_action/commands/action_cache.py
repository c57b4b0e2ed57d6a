"""A usable release cache for this run: the one given, or one repository indexed on the spot.

Why index on the spot: on a first run (no release asset, no Actions cache
yet) an answer a minute late beats no answer. Only the repository the
question needs is indexed, so it costs a few API requests, not a full crawl.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from indexer.registry import SLUG, Registry, RegistryError, load_registry
from indexer.schema import CacheError, open_cache
from wif_action.app import AppConfig, build_workflow, release_source
from wif_action.delivery.settings import ActionSettings, ConfigError
from wif_action.models import AskInput
from wif_action.ports import Progress
from wif_action.workflow import Workflow

Log = Callable[[str], None]


def open_workflow(settings: ActionSettings, ask: AskInput, env: Mapping[str, str], progress: Progress,
                  log: Log) -> Workflow:
    """The workflow over a usable cache; raises ConfigError when there is none and indexing fails."""
    db = settings.cache_db
    if not _usable_file(db):
        log(f"No release cache at '{db or '(none given)'}': indexing the question's repository on the spot.")
        db = index_on_the_spot(settings, ask, env, log, db or None)
    try:
        return _build(settings, db, env, progress, log)
    except CacheError as error:
        log(f"The release cache is unusable ({error}); indexing the question's repository on the spot.")
    except (RegistryError, ValueError) as error:
        raise ConfigError(str(error)) from error
    fresh = index_on_the_spot(settings, ask, env, log, None)
    try:
        return _build(settings, fresh, env, progress, log)
    except (CacheError, RegistryError, ValueError) as error:
        raise ConfigError(str(error)) from error


def _build(settings: ActionSettings, db: str, env: Mapping[str, str], progress: Progress, log: Log) -> Workflow:
    """build_workflow; an unusable run-records file only turns recording off (the answer matters more)."""
    try:
        return build_workflow(app_config(settings, db, env), progress)
    except CacheError as error:
        if not settings.runs_db or not _cache_opens(db):
            raise
        log(f"Run records are off for this run: {error}")
        return build_workflow(app_config(settings, db, env, record=False), progress)


def app_config(settings: ActionSettings, db: str, env: Mapping[str, str], *, record: bool = True) -> AppConfig:
    return AppConfig(db=db, engine=settings.engine, registry=settings.registry, env=dict(env),
                     deadline_seconds=settings.deadline, max_releases=settings.max_releases,
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
                      target: str | None) -> str:
    """Index the one repository the question needs into `target` (or a new file); returns the path."""
    from indexer.indexing import index_repositories

    try:
        repo = repository_for(ask, load_registry(settings.registry))
    except RegistryError as error:
        raise ConfigError(str(error)) from error
    if not repo:
        raise ConfigError("There is no usable release cache, and the question does not name a known SDK "
                          "to index. Set the `cache-db` or `cache-repo` input, or give `sdk`.")
    path = Path(target or Path(env.get("RUNNER_TEMP") or ".") / "wif-index.db")
    path.parent.mkdir(parents=True, exist_ok=True)
    source = release_source(env, retries=2, max_rate_limit_wait=60)
    try:
        reports = index_repositories(path, source, [repo], on_progress=log)
    except CacheError as error:
        raise ConfigError(f"Cannot create a release cache at {path}: {error}") from error
    finally:
        source.close()
    if reports and reports[0].error:
        raise ConfigError(f"Indexing {repo} failed: {reports[0].error}")
    return str(path)


def repository_for(ask: AskInput, registry: Registry) -> str | None:
    """The repository the question is about: explicit repo, a known SDK name, or one named in the text."""
    for name in (ask.repo, ask.sdk):
        if name and (registry.lookup(name) or SLUG.match(name.strip())):
            return registry.lookup(name) or name.strip()
    text = " ".join(part for part in (ask.problem, ask.message) if part)
    found = [repo for _alias, repo in registry.find_in_text(text) if repo]
    return found[0] if found else None
