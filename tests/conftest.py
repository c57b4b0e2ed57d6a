"""Shared fixtures: fake GitHub servers and release caches built by the real indexer.

The example cache is the committed `cache.db.example` (scripts/build_example_cache.py: every fixture
repository in tests/data/github indexed over HTTP, PyGithub → FakeGitHub, with PR details for the newest
stable releases), copied once per session; when this code would not have written it (a migration or a
notes parser it lacks) it is built the same way instead, once per digest of the sources (kept in pytest's
cache directory). tests/test_example_cache.py (slow) checks that a committed file this code would have written
equals a build from sources. Tests that need to change a cache copy it first.

Property tests (hypothesis) have no deadline and no too_slow health check: nothing in them is timed.

Retries keep their policy but do not sleep: WIF_BACKOFF_SCALE=0 (indexer.backoff) for this process and
the `wif` subprocesses it starts.

Notes are parsed in the indexing process (WIF_INDEX_WORKERS=0, indexer.notes_pool): pytest-xdist already keeps
every core busy, so parse workers would only add forks and pipes (the fast subset took 6% more CPU with them).
tests/test_notes_pool.py starts workers itself and compares a run with them and one without.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from indexer.backoff import ENV as BACKOFF_ENV
from indexer.github_source import ReleaseSource
from indexer.indexing import RepoReport, index_repositories
from indexer.notes_pool import WORKERS_ENV, Derive
from indexer.release_notes import PARSER_VERSION
from indexer.schema import MIGRATIONS, open_cache
from tests.fakes.github_server import FakeGitHub, available_repos
from tests.fakes.openai_server import FakeOpenAI
from wif_action import lexicon
from wif_action.tools.term_index import counter, refresh

GITHUB_REPOS: list[str] = available_repos()
EXAMPLE_CACHE = Path(__file__).resolve().parent.parent / "cache.db.example"
os.environ[BACKOFF_ENV] = "0"
os.environ[WORKERS_ENV] = "0"
# Property tests judge what a function returns, never how fast: hypothesis's default 200 ms deadline per example and
# its too_slow health check (data generation timed) fail a test whose process the loaded CI machine paused, and a
# deadline overrun that a re-run does not repeat is reported as Flaky. Loaded before any test module makes its
# @settings, so theirs inherit it.
settings.register_profile("wif", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("wif")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes a second or more (processes, property tests, a real build); "
                                       "`pytest -m 'not slow'` is the fast subset, CI runs everything")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that runs the Action's steps (the `runner` harness: one process per step) is slow."""
    for item in items:
        if "runner" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def github_repos() -> list[str]:
    """owner/name of every fixture repository (11)."""
    return list(GITHUB_REPOS)


@pytest.fixture
def lexicon_restored() -> Iterator[None]:
    """The shipped lexicon again after a test that judged with other tables (tests.lexicon_helpers.use_weights)."""
    yield
    lexicon.use(None)


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
        reports = index_repositories(path, ReleaseSource(fake.url, retries=None, requests_per_minute=None), repos,
                                     on_progress=lambda _message: None, **options)
    fake.reset_counts()
    failed = [f"{r.repo}: {r.error}" for r in reports if r.error]
    assert not failed, failed
    _single_file(path)
    return reports


@contextmanager
def one_fix_per_repository(path: Path, notes: dict[str, str]) -> Iterator[FakeGitHub]:
    """A fake GitHub where each repository of `notes` has a 1.0.0 and a 1.1.0 whose notes are `notes[repo]`,
    the merged PR its first "#N" cites, all indexed (PR details too) into `path`: the smallest cache on which a
    message about one of them is answered from a fix line."""
    with FakeGitHub() as github:
        for repo, body in notes.items():
            number = int(re.findall(r"#(\d+)", body)[0])
            github.add_repo(repo, releases=[{"tag_name": "1.1.0", "body": body},
                                            {"tag_name": "1.0.0", "body": "- Initial release"}],
                            pulls=[{"number": number, "title": body.split("- ", 1)[1].split(" (#")[0],
                                    "merged": True}])
        build_cache(path, github, list(notes), pulls="recent", max_pulls=None)
        yield github


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


def build_example_cache(path: Path, fake: FakeGitHub) -> list[RepoReport]:
    """What scripts/build_example_cache.py writes: all repositories, PR details for the newest releases."""
    return build_cache(path, fake, GITHUB_REPOS, pulls="recent", max_pulls=None, derive=Derive(refresh, counter))


def example_is_current(path: Path) -> bool:
    """This code would have written `path`: every migration it knows applied and none it does not, every
    fixture repository indexed, each by the current notes parser."""
    try:
        db = open_cache(path)
    except Exception:
        return False
    try:
        if MIGRATIONS.pending(db):
            return False
        parsers = dict(db.execute("select slug, notes_parser from repositories").fetchall())
    finally:
        db.close()
    return all(parsers.get(repo) == PARSER_VERSION for repo in GITHUB_REPOS)


def sources_digest() -> str:
    """A digest of everything a build of the example cache depends on: the indexer, its packaged data, the
    fixture repositories and the fake GitHub that serves them."""
    root = EXAMPLE_CACHE.parent
    files = sorted([*root.glob("indexer/**/*.py"), *root.glob("indexer/data/*"),
                    *(root / "tests" / "data" / "github").rglob("*"), *(root / "tests" / "fakes").glob("*.py")])
    digest = hashlib.sha256()
    for file in files:
        if file.is_file():
            digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@pytest.fixture(scope="session")
def built_example_cache(request: pytest.FixtureRequest, tmp_path_factory, shared_fake_github) -> Path:
    """The example cache built from sources, once per sources digest: kept in pytest's cache directory, so
    only the first run after a change to the indexer or the fixtures pays the build (~10k requests, ~19 s)."""
    cache = getattr(request.config, "cache", None)
    folder = cache.mkdir("wif-example-cache") if cache is not None else tmp_path_factory.mktemp("example-build")
    path = folder / f"{sources_digest()}.db"
    if not path.exists():
        for stale in folder.glob("*.db*"):
            stale.unlink()
        partial = folder / "build.partial"
        for leftover in folder.glob("build.partial*"):
            leftover.unlink()
        build_example_cache(partial, shared_fake_github)
        os.replace(partial, path)
    return path


@pytest.fixture(scope="session")
def example_cache_path(request: pytest.FixtureRequest, tmp_path_factory) -> Path:
    """All 11 repositories, PR details for the newest 110 stable releases (unlimited). Do not modify.

    A copy of the committed cache.db.example (~0.1 s) when this code would have written it, else of the
    build from sources (`built_example_cache`)."""
    path = tmp_path_factory.mktemp("example-cache") / "cache.db"
    source = EXAMPLE_CACHE if example_is_current(EXAMPLE_CACHE) else request.getfixturevalue("built_example_cache")
    shutil.copy(source, path)
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
