"""PR details fetched by a small pool (`wif index --pulls recent`): the same PRs, stored in the same order, for
the same requests as one at a time; a failure keeps what came before it and starts nothing after; the rate-limit
reserve counts the requests under way; a `Retry-After` told to one worker pauses them all (indexer.indexing,
indexer.github_source, indexer.github_client.RequestGate). Real PyGithub over HTTP against the fake."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from indexer.github_client import RequestGate
from indexer.github_source import PULL_WORKERS, ReleaseSource
from indexer.indexing import RepoReport, index_repositories
from indexer.pull_choice import PULL_RATE_RESERVE
from tests.fakes.github_server import FakeGitHub

REPO = "getsentry/sentry-ruby"
PULL = "GET /repos/{o}/{r}/pulls/{n}"
SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}


def index(fake: FakeGitHub, db: Path, workers: int, retries: int | None = None, **options) -> RepoReport:
    source = ReleaseSource(fake.url, retries=retries, requests_per_minute=None, pull_workers=workers)
    try:
        return index_repositories(db, source, [REPO], pulls="recent", on_progress=lambda _: None, **options)[0]
    finally:
        source.close()


def stored(db: Path) -> list[tuple[int, str]]:
    """The PRs as stored, in the order they were written."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute("select number, title from pulls order by rowid").fetchall()
    finally:
        conn.close()


@pytest.fixture
def github(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.rate_limit_limit = fake_github.rate_limit_remaining = 10**9
    return fake_github


@pytest.fixture
def one_at_a_time(github: FakeGitHub, tmp_path: Path) -> list[tuple[int, str]]:
    """The reference: 60 PRs fetched by one worker (the order the indexer wants them, newest first)."""
    report = index(github, tmp_path / "one.db", 1, max_pulls=60)
    assert report.error is None and report.pulls == 60 and github.requests[PULL] == 60
    github.reset_counts()
    return stored(tmp_path / "one.db")


def test_a_pool_stores_the_same_prs_in_the_same_order_for_the_same_requests(github, tmp_path, one_at_a_time):
    github.add_fault("GET", r"/pulls/\d*[02468]$", status=None, delay=0.03, times=None)  # even numbers answer late
    report = index(github, tmp_path / "pool.db", PULL_WORKERS, max_pulls=60)
    assert report.error is None and not report.warnings
    assert stored(tmp_path / "pool.db") == one_at_a_time
    assert github.requests[PULL] == 60 and report.requests == 60 + 2  # the PRs, the releases page, CHANGELOG.md


def test_a_failure_keeps_the_prs_before_it_and_starts_none_after(github, tmp_path, one_at_a_time):
    failing = one_at_a_time[20][0]
    github.add_fault("GET", rf"/pulls/{failing}$", status=500, times=None)
    report = index(github, tmp_path / "pool.db", PULL_WORKERS, max_pulls=60)
    assert report.error is None and report.stable > 0  # the releases are kept
    assert stored(tmp_path / "pool.db") == one_at_a_time[:20]
    assert report.warnings[0].startswith("stopped fetching PR details after 20 of 60: GitHub server error (HTTP 500)")
    # the failing one and those already under way beside it; none started after it failed
    assert 21 <= github.requests[PULL] <= 20 + PULL_WORKERS


def test_a_failing_first_request_is_the_only_one(github, tmp_path, one_at_a_time):
    """The pool starts with one request and doubles with each answer: a server failing at once sees one."""
    github.add_fault("GET", r"/pulls/\d+$", status=502, times=None)
    report = index(github, tmp_path / "pool.db", PULL_WORKERS, max_pulls=60)
    assert report.error is None and stored(tmp_path / "pool.db") == []
    assert github.requests[PULL] == 1


@pytest.mark.parametrize("workers", [1, PULL_WORKERS])
def test_the_rate_limit_reserve_counts_the_requests_under_way(fake_github, tmp_path, workers):
    """One at a time, the PRs stop exactly at the reserve; a pool counts its requests under way, so it never
    goes below it either (it may stop a few short: an answer in flight can be counted twice)."""
    fake_github.rate_limit_limit = 5000
    fake_github.rate_limit_remaining = PULL_RATE_RESERVE + 2 + 25  # the releases page, CHANGELOG.md, 25 PRs
    report = index(fake_github, tmp_path / "pool.db", workers)
    assert report.error is None and "requests of the rate limit for release checks" in report.warnings[0]
    assert fake_github.rate_limit_remaining >= PULL_RATE_RESERVE  # never below the reserve
    if workers == 1:
        assert report.pulls == 25 and fake_github.rate_limit_remaining == PULL_RATE_RESERVE
    else:
        assert 25 - workers < report.pulls <= 25


def test_a_retry_after_told_to_one_worker_pauses_them_all(github, tmp_path, one_at_a_time, monkeypatch):
    """GitHub asks a client told `Retry-After` to send nothing until then. With retry waits scaled to 0.4 s
    (WIF_BACKOFF_SCALE), what arrives between the 403 and its retry is only what the other workers sent before
    the 403 reached its client (at most one or two each); without the shared pause they would send dozens."""
    monkeypatch.setenv("WIF_BACKOFF_SCALE", "0.4")
    limited = one_at_a_time[30][0]
    github.add_fault("GET", rf"/pulls/{limited}$", status=403, headers={"Retry-After": "1"}, body=SECONDARY, times=1)
    report = index(github, tmp_path / "pool.db", PULL_WORKERS, retries=2, max_pulls=60)
    assert report.error is None and not report.warnings
    assert stored(tmp_path / "pool.db") == one_at_a_time  # the retry got it: nothing lost, same order
    paths = [entry["path"] for entry in github.log if entry["endpoint"] == PULL]
    told, retried = [index for index, path in enumerate(paths) if path.endswith(f"/pulls/{limited}")]
    assert retried - told - 1 < 2 * PULL_WORKERS


UNRELEASED = "# Changelog\n\n## Unreleased\n\n### Fixes\n\n- Fix a crash on resume (#9001)\n- Fix a leak (#9002)\n"


def test_the_prs_the_unreleased_notes_cite_come_first(github, tmp_path):
    """Merged but in no release yet: what a question about the newest version needs, so they are the newest
    wanted — from the CHANGELOG.md just read, and from the cached notes when it answers 304."""
    github.set_default_changelog(REPO, UNRELEASED)
    for number in (9001, 9002):
        github.add_pull(REPO, {"number": number, "title": f"Unreleased fix {number}"})
    db = tmp_path / "pool.db"
    index(github, db, PULL_WORKERS, max_pulls=1)
    assert stored(db) == [(9001, "Unreleased fix 9001")]
    github.reset_counts()
    report = index(github, db, PULL_WORKERS, max_pulls=2)  # CHANGELOG.md unchanged: 304, the cached notes
    assert report.unreleased_status == "not_modified"
    assert [number for number, _ in stored(db)][:2] == [9001, 9002]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def test_the_gate_waits_out_a_hold_and_keeps_to_the_requests_per_minute():
    clock = Clock()
    gate = RequestGate(3, clock=lambda: clock.now, sleep=clock.sleep)
    for _ in range(3):
        gate.enter()  # a burst up to the limit is not slowed
    assert clock.slept == []
    gate.enter()  # the fourth in the same minute waits for the first to leave it
    assert clock.slept == [60.0]
    gate.hold(5)
    gate.enter()
    assert clock.slept == [60.0, 5.0]
    unpaced = RequestGate(None, clock=lambda: clock.now, sleep=clock.sleep)
    for _ in range(1000):
        unpaced.enter()
    assert clock.slept == [60.0, 5.0]


def test_the_help_states_the_pool_and_the_pace():
    """`wif index --help` loads no GitHub client, so it spells the numbers out: they must stay the code's."""
    import argparse

    from indexer.cli import add_arguments
    from indexer.github_client import REQUESTS_PER_MINUTE

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert f"up to {PULL_WORKERS} requests at once (at most {REQUESTS_PER_MINUTE} a minute" in text
