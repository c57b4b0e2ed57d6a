"""Subtask 2: map the SDK to an `owner/repo` before any release data is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wif_action.lexicon.names import name_repository
from wif_action.models import Request
from wif_action.ports import ToolError
from wif_action.run_context import Run
from wif_action.subtasks.extract_request import NO_SDK_QUESTION
from wif_action.subtasks.judging import judged


@dataclass(kw_only=True)
class RepositoryResult:
    outcome: Literal["ok", "needs_clarification", "failed"]
    repo: str | None = None
    message: str = ""
    inferred: bool = False  # no SDK was named; the repository was chosen from the request's wording


def resolve_repository(run: Run, request: Request) -> RepositoryResult:
    """The repository from the request's own slug, the run's registry, or (no SDK named) the cache."""
    naming = name_repository(run.registry, request.sdk, request.repo, request.raw_text)
    choices = list(naming.choices)
    if naming.narrowed_from:
        run.journal.note(f"\u201c{request.sdk}\u201d: of {', '.join(naming.narrowed_from)}, the package manager the "
                         f"request names is {', '.join(choices or [naming.repo or ''])}'s.")
    repo = naming.repo or (_disambiguate(run, request, choices) if choices else None)
    if repo is None and not (request.sdk or request.repo):
        return _inferred(run, request)
    if repo is None:
        return RepositoryResult(outcome="needs_clarification", message=_which(request.sdk or request.repo or "?",
                                                                             choices))
    if not run.tools.cache.has_repository(repo):  # a CacheReadError goes up: the workflow fails the run
        return RepositoryResult(
            outcome="failed", repo=repo,
            message=f"The release cache has no releases of {repo} yet (index it with `wif index --repo {repo}`).",
        )
    run.journal.note(f"Repository: {repo} (from \u201c{request.sdk or request.repo}\u201d).")
    return RepositoryResult(outcome="ok", repo=repo)


def _inferred(run: Run, request: Request) -> RepositoryResult:
    """No SDK named: the cached repositories with a release of the customer's version are the choices, and the
    engine picks one only when the request's own words point at it ("WatchdogTermination" is in the notes of
    sentry-cocoa alone); otherwise the question stands. The trace says it was inferred."""
    version, cache = (request.version or "").strip(), run.tools.cache
    choices = [repo for repo in cache.repositories() if cache.find_release(repo, version)] if version else []
    repo = _disambiguate(run, request, choices) if choices else None
    if repo is None:
        return RepositoryResult(outcome="needs_clarification", message=NO_SDK_QUESTION)
    run.journal.note(f"Repository: {repo} (inferred: the request names no SDK; of the cached repositories with a "
                 f"release {version} ({', '.join(choices)}), its wording points at {repo}).")
    return RepositoryResult(outcome="ok", repo=repo, inferred=True)


def _which(name: str, choices: list[str]) -> str:
    """The clarifying question: the repositories an ambiguous name could be, or that the name is unknown."""
    if choices:
        return f"{could_be(name, choices)}. Which repository (owner/name) is it?"
    return f"I don't know the SDK \u201c{name}\u201d. Which repository (owner/name) is it?"


def could_be(name: str, choices: list[str], most: int = 5) -> str:
    """"“sentry” could be a, b, c, d, e or 2 others": the first `most` repositories a shared name could mean, then
    how many more (a registry's "sentry" has a handful, and a Slack thread is no place for a long list). Also the
    Action's words when it cannot tell which to index on the spot (`commands/action_cache`)."""
    named = choices[:most] if len(choices) > most + 1 else list(choices)
    rest = f"{len(choices) - len(named)} others" if len(choices) > len(named) else named.pop()
    return f"\u201c{name}\u201d could be {', '.join(named) + ' or ' if named else ''}{rest}"


def _disambiguate(run: Run, request: Request, choices: list[str]) -> str | None:
    try:
        choice = judged(run, "resolve repository", lambda j: j.resolve_repository_ambiguous(request.raw_text, choices))
    except ToolError as error:
        run.journal.skip("resolve repository", error.reason)
        return None
    return choice if choice in choices else None
