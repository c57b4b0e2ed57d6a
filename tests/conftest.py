"""Shared fixtures: fake GitHub servers and release caches built by the real indexer.

The example cache is built once per session by indexing every fixture repository in
tests/data/github over HTTP (PyGithub → FakeGitHub), exactly as `wif index` would, with
PR details for the newest stable releases. Tests that need to change a cache copy it first.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from indexer.github_source import ReleaseSource
from indexer.indexing import RepoReport, index_repositories
from tests.fakes.github_server import FakeGitHub, available_repos
from tests.fakes.openai_server import FakeOpenAI

GITHUB_REPOS: list[str] = available_repos()


@pytest.fixture(scope="session")
def github_repos() -> list[str]:
    """owner/name of every fixture repository (11)."""
    return list(GITHUB_REPOS)


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    """A fresh fake over all fixtures, for tests that mutate releases, faults or limits."""
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture
def example_b_github(fake_github: FakeGitHub) -> FakeGitHub:
    """A fresh fake where issue 5397 (the spec's Example B) was fixed by PR #4953, shipped in 8.47.0:
    at or before the user's 8.48.0, so the link must be discarded."""
    fake_github.add_issue("getsentry/sentry-cocoa", 5397, title="WatchdogTermination events have empty tags",
                          closed_by_pr=4953)
    return fake_github


@pytest.fixture
def openai_fake() -> Iterator[FakeOpenAI]:
    """A fresh fake OpenAI-compatible server (default replies: minimal schema instances)."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture(scope="session")
def shared_fake_github() -> Iterator[FakeGitHub]:
    """One fake for the session, read-only by convention (reset its counters before counting)."""
    with FakeGitHub() as fake:
        yield fake


def build_cache(path: Path, fake: FakeGitHub, repos: list[str], **options) -> list[RepoReport]:
    """Index `repos` from `fake` into `path` with the real indexer; leave a single-file database.

    The fake's rate limit is lifted for the build (an unlimited PR fetch needs ~10k requests)
    and its counters are reset afterwards, so tests start from a clean slate.
    """
    with _unlimited_rate(fake):
        reports = index_repositories(path, ReleaseSource(fake.url, retries=None), repos,
                                     on_progress=lambda _message: None, **options)
    fake.reset_counts()
    failed = [f"{r.repo}: {r.error}" for r in reports if r.error]
    assert not failed, failed
    _single_file(path)
    return reports


@contextmanager
def _unlimited_rate(fake: FakeGitHub) -> Iterator[None]:
    saved = fake.rate_limit_limit, fake.rate_limit_remaining
    fake.rate_limit_limit = fake.rate_limit_remaining = 10**9
    try:
        yield
    finally:
        fake.rate_limit_limit, fake.rate_limit_remaining = saved


def _single_file(path: Path) -> None:
    """Checkpoint the WAL and switch to a rollback journal, so a plain file copy is complete."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
    finally:
        conn.close()


@pytest.fixture(scope="session")
def example_cache_path(tmp_path_factory, shared_fake_github) -> Path:
    """All 11 repositories, PR details for the newest 110 stable releases (unlimited). Do not modify."""
    path = tmp_path_factory.mktemp("example-cache") / "cache.db"
    build_cache(path, shared_fake_github, GITHUB_REPOS, pulls="recent", max_pulls=None)
    return path


@pytest.fixture
def example_cache_copy(example_cache_path, tmp_path) -> Path:
    """A private, writable copy of the example cache."""
    path = tmp_path / "cache.db"
    shutil.copy(example_cache_path, path)
    return path


@pytest.fixture(scope="session")
def cache_path_for(tmp_path_factory, shared_fake_github) -> Callable[..., Path]:
    """`cache_path_for(["owner/name", ...], pulls="none")` → a cache of just those repositories.

    Built once per distinct request and shared: copy it before modifying.
    """
    built: dict[tuple, Path] = {}

    def build(repos: list[str] | tuple[str, ...], pulls: str = "none") -> Path:
        key = (tuple(sorted(repos)), pulls)
        if key not in built:
            path = tmp_path_factory.mktemp("cache") / "cache.db"
            build_cache(path, shared_fake_github, list(key[0]), pulls=pulls, max_pulls=None)
            built[key] = path
        return built[key]

    return build
