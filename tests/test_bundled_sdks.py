"""Fixes that reach a hybrid SDK through an SDK it bundles, end to end: real indexer, real PyGithub
against the fake GitHub, the offline engine.

React Native 5.12.0's notes say only "Bump Cocoa SDK from v8.13.0 to v8.14.2"; sentry-cocoa 8.13.1 fixed
"Crash in SentryTracer when cancelling timer (#3333)". React Native's releases from 6.0.0 on are removed
from the fake so that 5.9.1 is within the spec's 100-release range (it is 121 releases behind in the
full data, which the spec answers with too_old).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.version import Version

from indexer.registry import load_registry
from indexer.schema import open_cache
from indexer.versions import version_key
from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.test_faults_github import wif_index
from tests.workflow_helpers import ask as ask_with
from tests.workflow_helpers import keyword_responder
from wif_action.app import AppConfig, build_workflow
from wif_action.models import Answer, AskInput, Confidence
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.progress import RecordingProgress

RN, COCOA = "getsentry/sentry-react-native", "getsentry/sentry-cocoa"
PROBLEM = "On iOS, the app crashes inside SentryTracer while a transaction's timer is being cancelled."
BUMP = "Bump Cocoa SDK from v8.13.0 to v8.14.2"


def _trimmed(fake: FakeGitHub) -> FakeGitHub:
    for release in list(fake.repo(RN).releases):
        try:
            newer = Version(release["tag_name"].lstrip("v")) >= Version("6.0.0")
        except ValueError:
            newer = True
        if newer:
            fake.remove_release(RN, release["tag_name"])
    return fake


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield _trimmed(fake)


def _cache(tmp_path: Path, github: FakeGitHub, repos: list[str]) -> Path:
    path = tmp_path / "cache.db"
    build_cache(path, github, repos)
    return path


def ask(db: Path, github: FakeGitHub, version: str = "5.9.1", links: list[str] | None = None) -> Answer:
    config = AppConfig(db=db, engine="offline", env={"GITHUB_API_URL": github.url}, github_timeout=30)
    inputs = AskInput(repo=RN, version=version, problem=PROBLEM, links=links or [])
    return build_workflow(config, RecordingProgress()).run(inputs)


@pytest.mark.slow
def test_a_bump_spanning_several_bundled_releases_answers_with_the_bundled_fix(tmp_path, github):
    answer = ask(_cache(tmp_path, github, [RN, COCOA]), github)
    first = answer.candidates[0]
    assert (answer.outcome.value, first.version, first.pr, first.repo) == ("high", "5.12.0", 3333, COCOA)
    assert first.via is not None and (first.via.repo, first.via.version) == (COCOA, "8.13.1")
    assert answer.repo == RN
    assert "fixed in **v5.12.0** (it bundles sentry-cocoa 8.13.1)" in answer.message
    assert f"[PR {COCOA}#3333](https://github.com/{COCOA}/pull/3333)" in answer.message
    spans = [line for line in answer.trace if line.startswith("5.12.0 bundles sentry-cocoa")]
    assert spans and "8.13.1–8.14.2" in spans[0] and BUMP in spans[0], answer.trace
    data = answer.public_json()
    assert data["candidates"][0]["via"] == {"repo": COCOA, "version": "8.13.1"}
    assert data["repo"] == RN


def test_without_the_bundled_repository_cached_the_bump_is_a_skipped_step_never_high(tmp_path, github):
    answer = ask(_cache(tmp_path, github, [RN]), github)
    skipped = [s.reason for s in answer.skipped if s.step == "follow bumps of sentry-cocoa"]
    assert skipped and skipped[0].startswith("release notes of sentry-cocoa not in the cache; bumps in ")
    assert "5.12.0" in skipped[0] and skipped[0].endswith("not followed")
    assert all(c.via is None for c in answer.candidates)
    assert not any(c.confidence == Confidence.HIGH and "Bump" in c.entry for c in answer.candidates)
    assert answer.outcome.value != "high" or answer.candidates[0].pr != 3333


@pytest.mark.slow
def test_a_link_into_the_bundled_repository_resolves_to_the_release_that_bundles_it(tmp_path, github):
    github.add_issue(COCOA, 3300, title="Crash in SentryTracer when cancelling the timer", closed_by_pr=3333)
    db = _cache(tmp_path, github, [RN, COCOA])
    link = f"https://github.com/{COCOA}/issues/3300"
    answer = ask(db, github, links=[link])
    linked = [c for c in answer.candidates if c.source == "link"]
    assert linked and (linked[0].version, linked[0].pr, linked[0].repo) == ("5.12.0", 3333, COCOA)
    assert linked[0].via is not None and linked[0].via.version == "8.13.1"
    assert any("first bundled in 5.12.0" in line for line in answer.trace), answer.trace


@pytest.mark.slow
def test_a_link_already_bundled_at_the_users_version_is_discarded(tmp_path, github):
    github.add_issue(COCOA, 3300, title="Crash in SentryTracer when cancelling the timer", closed_by_pr=3333)
    db = _cache(tmp_path, github, [RN, COCOA])
    answer = ask(db, github, version="5.12.0", links=[f"https://github.com/{COCOA}/issues/3300"])
    assert not [c for c in answer.candidates if c.source == "link"]
    assert any("first bundled in 5.12.0" in line and "discarded" in line for line in answer.trace), answer.trace
    assert all(c.pr != 3333 for c in answer.candidates)


@pytest.mark.slow
def test_a_bump_whose_versions_do_not_parse_is_kept_as_text_and_not_followed(tmp_path, github):
    body = github.repo(RN).releases[[r["tag_name"] for r in github.repo(RN).releases].index("5.12.0")]["body"]
    github.edit_release(RN, "5.12.0", body=body.replace(BUMP, "Bump Cocoa SDK from 3f2a1bc to main"))
    db = _cache(tmp_path, github, [RN, COCOA])
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select from_text, to_text, from_key, to_key from bundle_bumps "
                            "where from_text = '3f2a1bc'").fetchall()
    assert rows == [("3f2a1bc", "main", None, None)]
    answer = ask(db, github)
    assert any("does not say which sentry-cocoa versions" in line for line in answer.trace), answer.trace
    assert all(c.pr != 3333 for c in answer.candidates)
    assert answer.outcome.value != "failed"


@pytest.mark.slow
def test_a_bundled_release_the_users_version_already_ships_is_not_brought_in_again(tmp_path, github):
    """5.11.0 bumps Cocoa to 8.13.0; a later bump written "from v8.12.0" must start after 8.13.0."""
    body = github.repo(RN).releases[[r["tag_name"] for r in github.repo(RN).releases].index("5.12.0")]["body"]
    github.edit_release(RN, "5.12.0", body=body.replace(BUMP, "Bump Cocoa SDK from v8.12.0 to v8.14.2"))
    answer = ask(_cache(tmp_path, github, [RN, COCOA]), github, version="5.11.0")
    spans = [line for line in answer.trace if line.startswith("5.12.0 bundles sentry-cocoa")]
    assert spans and "sentry-cocoa 8.13.1–8.14.2" in spans[0], answer.trace


@pytest.mark.slow
def test_bump_ranges_are_open_below_and_closed_above(tmp_path, github):
    cache = SqliteReleaseCache(open_cache(_cache(tmp_path, github, [RN, COCOA])))
    between = [r.version for r in cache.stable_between(COCOA, _key("8.13.0"), _key("8.14.2"))]
    assert between[0] == "8.13.1" and between[-1] == "8.14.2"
    assert cache.first_release_bundling(RN, COCOA, _key("8.13.1")).version == "5.12.0"
    assert cache.first_release_bundling(RN, COCOA, _key("8.13.0")).version == "5.11.0"
    assert cache.bundled_key_at(RN, COCOA, _key("5.11.0"), inclusive=True) == _key("8.13.0")
    assert cache.bundled_key_at(RN, COCOA, _key("5.12.0"), inclusive=False) == _key("8.13.0")
    assert cache.bundled_repositories(RN) == sorted(set(load_registry().bundles(RN).values()) - {
        "getsentry/sentry-dotnet", "getsentry/sentry-native"})


def _key(version: str) -> str:
    return version_key(Version(version))


@pytest.mark.slow
def test_a_cache_from_before_bundle_bumps_is_migrated_with_its_bumps_filled_in(tmp_path, github):
    db = _cache(tmp_path, github, [RN])
    with sqlite3.connect(db) as conn:
        expected = conn.execute("select entry_id, name, bundled_repo, from_key, to_key from bundle_bumps "
                                "order by id").fetchall()
        conn.execute("drop table bundle_bumps")
        conn.execute("delete from _sqlite_migrations where name = 'm002_bundle_bumps'")
    assert len(expected) > 100
    open_cache(db, create=True).close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("select entry_id, name, bundled_repo, from_key, to_key from bundle_bumps "
                            "order by id").fetchall() == expected


@pytest.mark.slow
def test_the_openai_engine_judges_bundled_entries_like_the_releases_own(tmp_path, github, openai_fake):
    """The LLM sees the bundled entry marked with its repository and host release, and picks it."""
    prompts: list[str] = []

    def respond(request: dict) -> object:
        prompts.append(request["messages"][-1]["content"])
        return keyword_responder("sentrytracer")(request)

    openai_fake.responder = respond
    db = _cache(tmp_path, github, [RN, COCOA])
    answer, _ = ask_with(db, github.url, AskInput(repo=RN, version="5.9.1", problem=PROBLEM), engine="openai",
                         openai_url=openai_fake.url)
    first = answer.candidates[0]
    assert (answer.outcome.value, first.version, first.pr, first.repo) == ("high", "5.12.0", 3333, COCOA)
    assert first.via is not None and first.via.version == "8.13.1"
    assert any(f"(release 8.13.1 of {COCOA}, bundled in release 5.12.0, section fix)" in p for p in prompts)


@pytest.mark.slow
def test_wif_index_with_a_users_registry_indexes_and_follows_what_it_declares(tmp_path, github, monkeypatch):
    """Any organisation's registry declares its own bundles: `--registry` indexes the bundled repository too,
    and its bump lines point at it even when the name is one the packaged registry does not know."""
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps({"repositories": {RN: {"bundles": {"Cocoa": COCOA, "CLI": COCOA}}}}))
    db = tmp_path / "cache.db"
    code, data, err = wif_index(monkeypatch, github.url, db, "--registry", str(registry))
    assert code == 0, err
    assert {report["repo"] for report in data["repos"]} == {RN, COCOA}
    with sqlite3.connect(db) as conn:
        names = dict(conn.execute("select name, bundled_repo from bundle_bumps group by name").fetchall())
    assert names["cocoa"] == COCOA and names["cli"] == COCOA and names["android"] is None
    registry.write_text(json.dumps({"repositories": {RN: {"bundles": {"Cocoa": COCOA}}}}))
    code, _, err = wif_index(monkeypatch, github.url, db, "--registry", str(registry))  # all 304: notes unchanged
    assert code == 0, err
    with sqlite3.connect(db) as conn:
        assert conn.execute("select bundled_repo from bundle_bumps where name = 'cli'").fetchone() == (None,)


def test_a_ruled_out_pr_of_a_bundled_sdk_names_its_repository():
    """Near misses link like candidates: a PR of another repository than the answer's says which one."""
    from wif_action.models import NearMiss, Outcome
    from wif_action.rendering import render

    misses = [NearMiss(version="5.12.0", pr=3333, url="https://github.com/getsentry/sentry-cocoa/pull/3333",
                       reason="shares only “timer”", repo="getsentry/sentry-cocoa"),
              NearMiss(version="5.13.0", pr=12, url="https://github.com/getsentry/sentry-react-native/pull/12",
                       reason="shares only “span”", repo="getsentry/sentry-react-native")]
    message = render(Answer(outcome=Outcome.NO_RESULT, repo="getsentry/sentry-react-native", user_version="5.9.1",
                            near_misses=misses))
    assert "[PR getsentry/sentry-cocoa#3333](https://github.com/getsentry/sentry-cocoa/pull/3333)" in message
    assert "[PR #12](https://github.com/getsentry/sentry-react-native/pull/12)" in message


def test_bundled_releases_taken_in_pre_releases_reach_the_stable_release(tmp_path, github):
    """A stable release's notes may name only the last hop of its bundled SDK ("Bump Cocoa SDK from v8.14.0 to
    v8.14.2"; its pre-releases took 8.13.0 → 8.14.0): the customer on the previous stable release (8.13.0) gets
    8.13.1's fix with it, so the scan starts at what the previous stable release shipped (the Android Gradle
    plugin's 6.2.0 says only "Bump CLI from v3.3.2 to v3.3.3" after 6.1.0's v3.2.0)."""
    body = next(r["body"] for r in github.repo(RN).releases if r["tag_name"] == "5.12.0")
    assert BUMP in body
    github.edit_release(RN, "5.12.0", body=body.replace(BUMP, "Bump Cocoa SDK from v8.14.0 to v8.14.2"))
    answer = ask(_cache(tmp_path, github, [RN, COCOA]), github)
    first = answer.candidates[0]
    assert (answer.outcome.value, first.version, first.pr, first.repo) == ("high", "5.12.0", 3333, COCOA)
    assert first.via is not None and first.via.version == "8.13.1"


def test_a_bump_worded_update_reaches_the_bundled_fix(tmp_path, github):
    """"Update"/"Upgrade" bump lines with both ends (sentry-electron's "feat: Update JavaScript SDKs from vA to vB")
    are stored and followed like "Bump" lines: the store looks for every verb of words.toml `bump_verbs`, not "bump"
    alone; a to-only one ("chore(deps): update Cocoa SDK to v8.14.2") is not read."""
    body = next(r["body"] for r in github.repo(RN).releases if r["tag_name"] == "5.12.0")
    github.edit_release(RN, "5.12.0", body=body.replace(BUMP, "feat: Update Cocoa SDK from v8.13.0 to v8.14.2"))
    answer = ask(_cache(tmp_path, github, [RN, COCOA]), github)
    first = answer.candidates[0]
    assert (answer.outcome.value, first.version, first.pr, first.repo) == ("high", "5.12.0", 3333, COCOA)
    assert first.via is not None and first.via.version == "8.13.1"
    github.edit_release(RN, "5.12.0", body=body.replace(BUMP, "chore(deps): update Cocoa SDK to v8.14.2"))
    (tmp_path / "to-only").mkdir()
    to_only = ask(_cache(tmp_path / "to-only", github, [RN, COCOA]), github)
    assert all(c.via is None for c in to_only.candidates)
