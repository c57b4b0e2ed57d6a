"""bench/data/near: the labelled repositories added to the in-sample pool hold against their data, in one format.

Why: leave-one-repository-out CV over them chooses the judge's rules, so a label its release data does not support
(a PR not in the fix release, a bundled fix the host brought in elsewhere) would steer a rule wrong; and another
engineer writes files into the same directory, so the format (one data, cases and registry file per repository)
is checked, not assumed.
"""

from __future__ import annotations

import json

import pytest

from bench.fixture_cache import build_cache
from bench.labelled import NEAR, case_files, fixture_dir, merged_registry, near_case_files, near_repos
from bench.verify_cases import problems
from indexer.registry import load_registry
from tests.fakes.github_server import DATA_DIR, available_repos
from wif_action.tools.cache import SqliteReleaseCache

FAR = NEAR.parent / "far"
CASE_KEYS = {"id", "repo", "sdk", "version", "problem", "message", "category", "difficulty", "expect", "evidence"}


def _cases(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_each_near_repository_has_data_cases_and_registry() -> None:
    repos = near_repos()
    assert repos, "bench/data/near holds at least one repository"
    for repo in repos:
        stem = repo.replace("/", "__")
        cases = _cases(NEAR / f"{stem}.cases.jsonl")
        assert cases and {case["repo"] for case in cases} == {repo}
        assert all(set(case) >= CASE_KEYS for case in cases)
        registry = json.loads((NEAR / f"{stem}.registry.json").read_text())
        assert set(registry["repositories"]) == {repo}
    assert [p.name.removesuffix(".cases.jsonl").replace("__", "/") for p in near_case_files()] == repos


def test_near_repositories_are_new_to_the_pool_and_never_far() -> None:
    repos = set(near_repos())
    assert not repos & set(available_repos(DATA_DIR)), "tests/data/github already has it"
    assert not repos & set(available_repos(FAR)), "the far holdout must stay unseen"
    ids = [case["id"] for path in case_files() for case in _cases(path)]
    assert len(ids) == len(set(ids))


def test_the_merged_registry_lays_near_aliases_over_the_packaged_one(tmp_path) -> None:
    packaged = load_registry()
    merged = merged_registry()
    if merged is None:  # the near files add nothing: the tools run with the packaged registry itself
        assert all(packaged.lookup(repo) == repo for repo in near_repos())
        return
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(merged))
    registry = load_registry(path)
    assert {alias: registry.aliases[alias] for alias in packaged.aliases} == packaged.aliases
    assert all(registry.bundles(repo) == packaged.bundles(repo) for repo in packaged.repositories)
    for repo in near_repos():
        info = json.loads((NEAR / f"{repo.replace('/', '__')}.registry.json").read_text())["repositories"][repo]
        assert all(registry.lookup(alias) for alias in info.get("aliases", []))


def test_near_cases_hold_against_the_labelled_data(tmp_path) -> None:
    cases = [case for path in near_case_files() for case in _cases(path)]
    needed = {case["repo"] for case in cases} | {case["expect"]["pr_repo"] for case in cases
                                                 if case["category"] == "bundled_fix"}
    db = build_cache(tmp_path / "near.db", [(r, r) for r in sorted(needed)], pulls=False, data_dir=fixture_dir(),
                     terms=False)
    cache = SqliteReleaseCache.open(db)
    assert {case["id"]: problems(case, cache) for case in cases} == {case["id"]: [] for case in cases}


def test_an_unreleased_label_must_name_a_withheld_fix_and_a_published_customer_release(tmp_path) -> None:
    """`unreleased_fix`: the PR first ships in one of the newest `unreleased_newest` releases (the ones the fake
    withholds) and the customer's release stays published; a PR of a published release, or a customer on a
    withheld release, is a label the data does not support."""
    repo = "getsentry/sentry-cli"
    db = build_cache(tmp_path / "cli.db", [(repo, repo)], pulls=False, data_dir=fixture_dir(), terms=False)
    cache = SqliteReleaseCache.open(db)
    label = {"id": "x", "repo": repo, "version": "3.4.1", "category": "unreleased_fix", "unreleased_newest": 1,
             "expect": {"outcome": "unreleased", "fixed_in": None, "prs": [3347]}}
    assert problems(label, cache) == []
    published_fix = {**label, "expect": {**label["expect"], "prs": [3301]}}  # 3.5.0: the newest 1 is 3.6.0
    assert problems(published_fix, cache) == ["#3301 first ships in 3.5.0, not in a withheld release"]
    assert problems({**label, "unreleased_newest": 3}, cache) == []  # 3.5.0, 3.5.1, 3.6.0 withheld
    assert problems({**label, "version": "3.6.0"}, cache) == [
        "3.6.0 is withheld (one of the newest 1), not a published release"]
    assert problems({**label, "unreleased_newest": None}, cache) == [
        "unreleased_newest 0 withholds no release or every release"]


@pytest.mark.parametrize(("repo", "withhold", "newest_left", "withheld_pr"), [
    ("getsentry/sentry-cli", 1, "3.5.1", 3341),
    # a monorepo package tagged `@emotion/react@11.13.5` (or a crate `tokio-1.38.0`): the fake reads the tag's
    # version as WIF does; it withheld none before, and the unreleased case was answered from its fix release
    ("emotion-js/emotion", 2, "11.13.3", 3270),
])
def test_a_near_repository_can_withhold_its_newest_releases(tmp_path, repo, withhold, newest_left,
                                                            withheld_pr) -> None:
    """The `unreleased_newest` cases of a near repository are asked of a cache indexed from a fake serving the
    labelled fixtures (bench/labelled.fixture_dir()), which withholds the newest releases and serves their notes
    as the Unreleased section."""
    from tests.unreleased_eval import withheld_github

    with withheld_github({repo: withhold}, tmp_path / "w.db", data_dir=fixture_dir()):
        cache = SqliteReleaseCache.open(tmp_path / "w.db")
        newest = cache.latest_stable(repo)
        assert newest is not None and newest.version == newest_left
        assert cache.first_stable_release_with_pr(repo, withheld_pr) is None


def test_a_bundled_label_reads_a_backport_as_wif_does(tmp_path) -> None:
    """sentry-java #5597 is in 8.43.3 (a backport published after 8.44.0 and 8.44.1) and 8.45.0: the Gradle
    plugin's 6.12.0 ships 8.44.0, which does not carry it, so 6.13.0 (bumping to 8.45.0) brings the fix; a label
    naming 8.44.1 as the release that carries it is wrong (cache.prs_user_has: published no later)."""
    repos = ["getsentry/sentry-android-gradle-plugin", "getsentry/sentry-java"]
    db = build_cache(tmp_path / "agp.db", [(r, r) for r in repos], pulls=False, data_dir=fixture_dir(),
                     terms=False)
    cache = SqliteReleaseCache.open(db)
    label = {"id": "x", "repo": repos[0], "version": "6.12.0", "category": "bundled_fix",
             "expect": {"outcome": "high", "fixed_in": "6.13.0", "prs": [5597], "pr_repo": repos[1],
                        "via": "sentry-java 8.45.0"}}
    assert problems(label, cache) == []
    wrong_via = {**label, "expect": {**label["expect"], "via": "sentry-java 8.44.1"}}
    assert "getsentry/sentry-java#5597 first ships in 8.43.3" in problems(wrong_via, cache)
