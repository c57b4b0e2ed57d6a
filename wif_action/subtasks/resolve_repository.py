"""Subtask 2: map the SDK to an `owner/repo` before any release data is read."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from indexer.registry import SLUG, Registry
from wif_action.journal import Journal
from wif_action.models import Request
from wif_action.ports import Judge, ReleaseCache, ToolError
from wif_action.subtasks.judging import judged


class RepositoryResult(BaseModel):
    outcome: Literal["ok", "needs_clarification", "failed"]
    repo: str | None = None
    message: str = ""


def resolve_repository(
    request: Request, registry: Registry, cache: ReleaseCache, judge: Judge, fallback: Judge | None,
    journal: Journal,
) -> RepositoryResult:
    repo = _explicit_repo(request.repo) or registry.lookup(request.sdk) or registry.lookup(request.repo)
    if repo is None and request.sdk and registry.choices(request.sdk):
        repo = _disambiguate(request, registry.choices(request.sdk), judge, fallback, journal)
    if repo is None:
        name = request.sdk or request.repo or "?"
        return RepositoryResult(
            outcome="needs_clarification",
            message=f"I don't know the SDK \u201c{name}\u201d. Which repository (owner/name) is it?",
        )
    if not cache.has_repository(repo):  # a CacheReadError goes up: the workflow fails the run
        return RepositoryResult(
            outcome="failed", repo=repo,
            message=f"The release cache has no releases of {repo} yet (index it with `wif index --repo {repo}`).",
        )
    journal.note(f"Repository: {repo} (from \u201c{request.sdk or request.repo}\u201d).")
    return RepositoryResult(outcome="ok", repo=repo)


def _explicit_repo(value: str | None) -> str | None:
    value = (value or "").strip()
    return value if SLUG.match(value) else None


def _disambiguate(request: Request, choices: list[str], judge: Judge, fallback: Judge | None,
                  journal: Journal) -> str | None:
    try:
        choice = judged(journal, "resolve repository", judge, fallback,
                        lambda j: j.resolve_repository_ambiguous(request.raw_text, choices))
    except ToolError as error:
        journal.skip("resolve repository", error.reason)
        return None
    return choice if choice in choices else None
