"""`wif index` end to end: real PyGithub over HTTP to the fake GitHub, real SQLite files."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from packaging.version import InvalidVersion, Version

from indexer.github_source import ReleaseSource
from indexer.indexing import changelog_section, index_repositories
from indexer.schema import open_cache
from tests.fakes.github_server import FakeGitHub, load_repo_fixture
from wif_action.cli import main
from wif_action.tools.cache import SqliteReleaseCache

RUBY = "getsentry/sentry-ruby"  # 90 releases: one page
PHP = "getsentry/sentry-php"  # 124 releases: two pages
RECENTLY = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def wif_index(db: Path, *args: str) -> tuple[int, dict | None, str]:
    """Run `wif index --json` in-process; GITHUB_API_URL/GITHUB_TOKEN come from the environment."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["index", "--db", str(db), "--json", *args])
    text = out.getvalue()
    return code, (json.loads(text) if text.strip() else None), err.getvalue()


@pytest.fixture
def env(monkeypatch):
    """Point the CLI at a fake: `env(fake)` (optionally with a token)."""

    def point(fake: FakeGitHub, token: str | None = None) -> None:
        monkeypatch.setenv("GITHUB_API_URL", fake.url)
        if token is None:
            monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        else:
            monkeypatch.setenv("GITHUB_TOKEN", token)

    return point


def by_repo(data: dict) -> dict[str, dict]:
    return {item["repo"]: item for item in data["repos"]}


def independent_stable_count(releases: list[dict]) -> int:
    """Stable per the spec, computed without the indexer's code: final release, tag parses after
    stripping a package prefix and a leading v, and the version has no pre-release part."""
    count = 0
    for release in releases:
        if release.get("draft") or release.get("prerelease"):
            continue
        text = release["tag_name"].rsplit("@", 1)[-1]
        text = text[1:] if text[:1] in "vV" else text
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        count += not version.is_prerelease
    return count


def release_row(db_path: Path, repo: str, tag: str) -> dict | None:
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("select r.* from releases r join repositories s on s.id = r.repo_id "
                           "where s.slug = ? and r.tag = ?", [repo, tag]).fetchone()
        return dict(row) if row else None
    finally:
        conn.close()


def entry_prs(db_path: Path, repo: str, tag: str) -> set[int]:
    conn = sqlite3.connect(db_path)
    try:
        return {row[0] for row in conn.execute(
            "select ep.pr from entry_prs ep join releases r on r.id = ep.release_id "
            "join repositories s on s.id = r.repo_id where s.slug = ? and r.tag = ?", [repo, tag])}
    finally:
        conn.close()


# ------------------------------------------------------------------------ all 11 repositories
@pytest.fixture(scope="module")
def full_run(tmp_path_factory, github_repos):
    """`wif index --json` over every fixture repository into a fresh cache, once for the module."""
    db = tmp_path_factory.mktemp("full") / "cache.db"
    with FakeGitHub() as fake, pytest.MonkeyPatch.context() as patch:
        patch.setenv("GITHUB_API_URL", fake.url)
        patch.delenv("GITHUB_TOKEN", raising=False)
        args = [arg for repo in github_repos for arg in ("--repo", repo)]
        code, data, err = wif_index(db, *args)
        yield {"fake": fake, "db": db, "code": code, "data": data, "err": err, "args": args}


@pytest.mark.slow
def test_full_index_caches_exactly_the_stable_releases(full_run, github_repos) -> None:
    assert full_run["code"] == 0, full_run["err"]
    reports = by_repo(full_run["data"])
    assert list(reports) == github_repos
    for repo in github_repos:
        releases = load_repo_fixture(repo)["releases"]
        report = reports[repo]
        assert set(report) == {"repo", "releases", "stable", "new", "updated", "requests", "error", "unreleased",
                               "package"}
        assert report["package"] == ""  # one package: the repository's own
        assert report["unreleased"] == "no_section"  # the fake's CHANGELOG.md lists only published releases
        assert report["error"] is None
        assert report["releases"] == report["new"] == len(releases)
        assert report["stable"] == independent_stable_count(releases), repo
        assert report["requests"] == -(-len(releases) // 100) + 1  # a request per page of 100, and CHANGELOG.md
    assert len(full_run["err"].strip().splitlines()) == len(github_repos)  # one progress line each


@pytest.mark.slow
def test_noop_rerun_costs_two_conditional_requests_per_repository(full_run, github_repos) -> None:
    """Releases and the default branch's CHANGELOG.md (its Unreleased notes): both 304, free of rate limit."""
    fake: FakeGitHub = full_run["fake"]
    fake.reset_counts()
    code, data, err = wif_index(full_run["db"], *full_run["args"])
    assert code == 0, err
    assert fake.total_requests() == 2 * len(github_repos)
    assert {entry["status"] for entry in fake.log} == {304}
    assert all(r["requests"] == 2 and r["releases"] == 0 and r["error"] is None for r in data["repos"])
    assert [r["stable"] for r in data["repos"]] == [r["stable"] for r in full_run["data"]["repos"]]
    assert "not modified (304)" in err


# ------------------------------------------------------------------------ incremental updates
def test_new_then_edited_release_is_picked_up_with_few_requests(fake_github, env, tmp_path) -> None:
    env(fake_github)
    db = tmp_path / "cache.db"
    code, first, _ = wif_index(db, "--repo", PHP)
    assert code == 0 and by_repo(first)[PHP]["requests"] == 2 + 1  # two pages, CHANGELOG.md
    fake_github.add_release(PHP, {"tag_name": "4.99.0", "published_at": RECENTLY,
                                  "body": "### Bug Fixes\n\n- Fix the transport retry loop (#9999)\n"})
    fake_github.add_release(PHP, {"tag_name": "5.0.0", "draft": True, "published_at": None, "body": "- wip\n"})
    fake_github.reset_counts()
    code, second, err = wif_index(db, "--repo", PHP)
    report = by_repo(second)[PHP]
    assert code == 0, err
    assert (report["new"], report["updated"], report["releases"]) == (2, 0, 126)
    assert release_row(db, PHP, "5.0.0")["stable"] == 0  # drafts are kept, never stable
    assert report["requests"] == fake_github.total_requests() == 3  # page 1 changed, page 2 settled; CHANGELOG
    assert report["stable"] == by_repo(first)[PHP]["stable"] + 1
    assert SqliteReleaseCache.open(db).latest_stable(PHP).tag == "4.99.0"
    assert entry_prs(db, PHP, "4.99.0") == {9999}

    fake_github.edit_release(PHP, "4.99.0", body="### Bug Fixes\n\n- Fix the transport retry loop (#10001)\n")
    code, third, _ = wif_index(db, "--repo", PHP)
    assert (by_repo(third)[PHP]["new"], by_repo(third)[PHP]["updated"]) == (0, 1)
    assert entry_prs(db, PHP, "4.99.0") == {10001}


def test_a_newer_notes_parser_reparses_stored_bodies_without_requests(fake_github, env, tmp_path) -> None:
    """Parser fixes reach an existing cache on the next run, even when GitHub answers 304 (nothing fetched)."""
    from indexer.release_notes import PARSER_VERSION
    env(fake_github)
    db = tmp_path / "cache.db"
    assert wif_index(db, "--repo", RUBY)[0] == 0
    expected = entry_prs(db, RUBY, "5.15.0")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("delete from entry_prs")
        conn.execute("update repositories set notes_parser = ?", [PARSER_VERSION - 1])
    conn.close()
    fake_github.reset_counts()
    code, _, err = wif_index(db, "--repo", RUBY)
    assert code == 0, err
    assert fake_github.total_requests() == 2 and {entry["status"] for entry in fake_github.log} == {304}
    assert entry_prs(db, RUBY, "5.15.0") == expected and expected
    assert f"re-parsed (notes parser v{PARSER_VERSION})" in err
    code, _, err = wif_index(db, "--repo", RUBY)
    assert code == 0 and "re-parsed" not in err  # once per parser version


def test_refresh_window_rereads_recent_releases_beyond_the_first_page(env, tmp_path) -> None:
    with FakeGitHub(repos=[RUBY], per_page_max=10) as fake:
        env(fake)
        db = tmp_path / "cache.db"
        assert wif_index(db, "--repo", RUBY)[0] == 0  # 9 pages of 10
        for n in range(15):  # positions 0-14 are recent: pages 1 and 2
            fake.add_release(RUBY, {"tag_name": f"9.0.{n}", "published_at": RECENTLY, "body": f"- Change {n}\n"})
        _, data, _ = wif_index(db, "--repo", RUBY)
        assert (by_repo(data)[RUBY]["new"], by_repo(data)[RUBY]["requests"]) == (15, 3 + 1)  # + CHANGELOG.md

        fake.edit_release(RUBY, "9.0.3", body="- Change 3, corrected (#4242)\n")  # recent, now on page 2
        old_tag = fake.repo(RUBY).releases[40]["tag_name"]  # old, page 5
        old_body = release_row(db, RUBY, old_tag)["body"]
        fake.edit_release(RUBY, old_tag, body="- silently edited years later\n")
        fake.add_release(RUBY, {"tag_name": "9.1.0", "published_at": RECENTLY, "body": "- New (#4243)\n"})
        _, data, _ = wif_index(db, "--repo", RUBY)
        report = by_repo(data)[RUBY]
        assert (report["new"], report["updated"], report["requests"]) == (1, 1, 3 + 1)  # page 3 all old; CHANGELOG
        assert entry_prs(db, RUBY, "9.0.3") == {4242}
        assert release_row(db, RUBY, old_tag)["body"] == old_body  # outside the window: by design


def test_empty_body_falls_back_to_the_changelog_at_the_tag(fake_github, env, tmp_path) -> None:
    env(fake_github)
    db = tmp_path / "cache.db"
    wif_index(db, "--repo", PHP)
    # The notes were published under the re-tagged v4.99.0 (a pre-release); the final 4.99.0
    # release has an empty body, so its notes exist only in CHANGELOG.md at that tag.
    notes = "### Bug Fixes\n\n- Fix a crash when the DSN is empty (#9990)\n"
    fake_github.add_release(PHP, {"tag_name": "v4.99.0", "prerelease": True, "body": notes,
                                  "published_at": "2026-11-01T00:00:00Z"})
    fake_github.add_release(PHP, {"tag_name": "4.99.0", "body": "", "published_at": "2026-11-02T00:00:00Z"})
    fake_github.reset_counts()
    code, _, err = wif_index(db, "--repo", PHP, "--no-unreleased")
    assert code == 0, err
    assert fake_github.requests["GET /repos/{o}/{r}/contents/{path}"] == 1
    row = release_row(db, PHP, "4.99.0")
    assert row["body_source"] == "changelog" and row["stable"] == 1
    assert "Fix a crash when the DSN is empty" in row["body"]
    assert entry_prs(db, PHP, "4.99.0") == {9990}

    fake_github.add_release(PHP, {"tag_name": "4.99.1", "published_at": RECENTLY, "body": "- Later (#9991)\n"})
    fake_github.reset_counts()
    wif_index(db, "--repo", PHP, "--no-unreleased")
    assert fake_github.requests["GET /repos/{o}/{r}/contents/{path}"] == 0  # the section is reused
    assert release_row(db, PHP, "4.99.0")["body_source"] == "changelog"


def test_missing_changelog_leaves_the_body_empty_and_is_not_retried(fake_github, env, tmp_path) -> None:
    env(fake_github)
    fake_github.changelog_files = set()
    fake_github.add_release(RUBY, {"tag_name": "9.9.0", "body": "", "published_at": RECENTLY})
    db = tmp_path / "cache.db"
    assert wif_index(db, "--repo", RUBY)[0] == 0
    row = release_row(db, RUBY, "9.9.0")
    assert (row["body"], row["body_source"], row["stable"]) == ("", "release", 1)
    fake_github.add_release(RUBY, {"tag_name": "9.9.1", "body": "- Fix (#1)\n", "published_at": RECENTLY})
    fake_github.reset_counts()
    wif_index(db, "--repo", RUBY, "--no-unreleased")
    assert fake_github.requests["GET /repos/{o}/{r}/contents/{path}"] == 0


def test_changelog_too_large_for_the_contents_api_is_skipped_quietly(fake_github, env, tmp_path) -> None:
    env(fake_github)
    fake_github.contents_max_bytes = 10  # GitHub sends no content for big files
    fake_github.raw_contents = False  # and this server ignores the raw media type
    fake_github.add_release(RUBY, {"tag_name": "9.9.0", "body": "", "published_at": RECENTLY})
    code, data, err = wif_index(tmp_path / "cache.db", "--repo", RUBY, "--no-unreleased")
    assert code == 0 and data["repos"][0]["error"] is None, err
    assert fake_github.requests["GET /repos/{o}/{r}/contents/{path}"] == 2  # base64 attempt, then raw
    assert release_row(tmp_path / "cache.db", RUBY, "9.9.0")["body"] == ""


def test_no_changelog_fallback_option(fake_github, env, tmp_path) -> None:
    env(fake_github)
    fake_github.add_release(RUBY, {"tag_name": "9.9.0", "body": "", "published_at": RECENTLY})
    wif_index(tmp_path / "cache.db", "--repo", RUBY, "--no-changelog-fallback", "--no-unreleased")
    assert fake_github.requests["GET /repos/{o}/{r}/contents/{path}"] == 0


@pytest.mark.parametrize(
    ("text", "tag", "expected"),
    [
        ("# Changelog\n\n## Unreleased\n\n- wip\n\n## 1.2.0\n\n### Fixes\n\n- fix a (#1)\n\n## 1.1.0\n\n- b\n",
         "v1.2.0", "### Fixes\n\n- fix a (#1)"),
        ("## [1.2.0] - 2024-01-01\n- a\n## [1.1.0] - 2023-12-01\n- b\n", "1.1.0", "- b"),
        ("# v2.0.0\n\n## Features\n\n- x\n\n# v1.0.0\n\n- y\n", "sdk@2.0.0", "## Features\n\n- x"),
        ("## 8.0.0-beta.1\n\n- beta\n\n## 7.9.0\n\n- old\n", "8.0.0-beta.1", "- beta"),
        ("## 1.2.0\n\n## 1.1.0\n\n- b\n", "1.2.0", None),
        ("## 1.1.0\n\n- b\n", "1.2.0", None),
        (None, "1.2.0", None),
    ],
)
def test_changelog_section(text: str | None, tag: str, expected: str | None) -> None:
    assert changelog_section(text, tag) == expected


# ------------------------------------------------------------------------ PR details
def test_pull_details_are_fetched_incrementally_within_the_budget(fake_github, env, tmp_path) -> None:
    env(fake_github)
    db = tmp_path / "cache.db"
    code, data, _ = wif_index(db, "--repo", RUBY, "--pulls", "recent", "--max-pulls", "5")
    assert code == 0 and by_repo(data)[RUBY]["requests"] == 1 + 5 + 1  # releases, five PRs, CHANGELOG.md
    fake_github.reset_counts()
    _, data, _ = wif_index(db, "--repo", RUBY, "--pulls", "recent", "--max-pulls", "5")
    assert by_repo(data)[RUBY]["requests"] == 1 + 5 + 1  # 304 for releases, the next five PRs, 304 for CHANGELOG
    assert fake_github.requests["GET /repos/{o}/{r}/pulls/{n}"] == 5
    conn = sqlite3.connect(db)
    numbers = [row[0] for row in conn.execute("select number from pulls")]
    conn.close()
    assert len(numbers) == 10
    fixture_pulls = load_repo_fixture(RUBY)["pulls"]
    cache = SqliteReleaseCache.open(db)
    for number in numbers:
        if str(number) in fixture_pulls:
            assert cache.cached_pull(RUBY, number).title == fixture_pulls[str(number)]["title"]
    newest = cache.latest_stable(RUBY)
    newest_prs = {pr for entry in cache.entries([newest.id]) for pr in entry.prs}
    assert newest_prs <= set(numbers)  # the newest release's PRs come first


@pytest.mark.slow
def test_example_cache_is_complete_and_a_rerun_is_free(example_cache_copy, shared_fake_github, github_repos) -> None:
    def index() -> list:
        source = ReleaseSource(shared_fake_github.url, retries=None, requests_per_minute=None)
        return index_repositories(example_cache_copy, source, github_repos, pulls="recent", max_pulls=None,
                                  on_progress=lambda _: None)

    first = index()  # the committed example's ETags are another fake server's (its URLs are in each reply)
    assert all(r.error is None and r.new == r.updated == 0 for r in first)  # nothing to add, no PR backlog
    shared_fake_github.reset_counts()
    reports = index()
    assert shared_fake_github.total_requests() == 2 * len(github_repos)  # PR backlog empty: releases + CHANGELOG, 304s
    assert all(r.not_modified and r.error is None for r in reports)
    cache = SqliteReleaseCache.open(example_cache_copy)
    for repo in github_repos:
        assert len(cache.stable_releases(repo)) == independent_stable_count(load_repo_fixture(repo)["releases"])
    assert cache.first_stable_release_with_pr("getsentry/sentry-cocoa", 5242).tag == "8.52.0"
    assert "watchdog" in cache.cached_pull("getsentry/sentry-cocoa", 5242).title.lower()
    conn = sqlite3.connect(example_cache_copy)
    slug, number = conn.execute("select s.slug, p.number from pulls p join repositories s on s.id = p.repo_id "
                                "where p.state = 'not_found' limit 1").fetchone()
    conn.close()
    assert cache.cached_pull(slug, number) is None  # remembered as "not a PR", never served as one


# ------------------------------------------------------------------------ failures
def test_failures_are_per_repository(fake_github, env, tmp_path) -> None:
    env(fake_github)
    reset = fake_github.rate_limit_reset
    fake_github.add_fault(path_regex=r"^/repos/getsentry/sentry-php/", status=403, times=None,
                          headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
                          body={"message": "API rate limit exceeded for installation ID 1."})
    code, data, err = wif_index(tmp_path / "cache.db", "--repo", "getsentry/nope", "--repo", PHP, "--repo", RUBY)
    assert code == 0, err
    reports = by_repo(data)  # (a --repo that is not owner/name is a usage error: tests/test_cli.py)
    assert reports["getsentry/nope"]["error"] == "repository getsentry/nope not found (or not visible to this token)"
    hhmm = datetime.fromtimestamp(reset, UTC).strftime("%H:%M")
    assert reports[PHP]["error"] == f"GitHub rate limit exhausted; resets at {hhmm} UTC"
    assert reports[RUBY]["error"] is None and reports[RUBY]["stable"] > 0
    assert "Traceback" not in err
    assert SqliteReleaseCache.open(tmp_path / "cache.db").repositories() == [RUBY]  # no rows for failures


def test_rate_limit_exhausted_everywhere_fails_the_run(fake_github, env, tmp_path) -> None:
    env(fake_github)
    fake_github.rate_limit_remaining = 0
    code, data, err = wif_index(tmp_path / "cache.db", "--repo", RUBY, "--repo", PHP)
    assert code == 1
    assert all("rate limit exhausted; resets at" in r["error"] for r in data["repos"])
    assert "FAILED" in err


def test_wrong_token_is_rejected_clearly(env, tmp_path) -> None:
    with FakeGitHub(repos=[RUBY], token="right-token") as fake:
        env(fake, token="wrong-token")
        code, data, _ = wif_index(tmp_path / "cache.db", "--repo", RUBY)
        assert code == 1
        assert data["repos"][0]["error"].startswith("GitHub rejected the token (401)")
        env(fake, token="right-token")
        code, data, _ = wif_index(tmp_path / "cache.db", "--repo", RUBY)
        assert code == 0 and data["repos"][0]["error"] is None


def test_unreachable_api(monkeypatch, tmp_path) -> None:
    with FakeGitHub() as fake:
        url = fake.url  # a port that is closed once the fake stops
    monkeypatch.setenv("GITHUB_API_URL", url)
    code, data, _ = wif_index(tmp_path / "cache.db", "--repo", RUBY, "--timeout", "2")
    assert code == 1
    assert data["repos"][0]["error"].startswith(f"cannot reach GITHUB_API_URL ({url}")


def test_failed_fetch_leaves_the_repository_untouched(fake_github, env, tmp_path) -> None:
    env(fake_github)
    db = tmp_path / "cache.db"
    wif_index(db, "--repo", PHP)
    before = release_row(db, PHP, "4.7.0")
    fake_github.add_release(PHP, {"tag_name": "4.99.0", "body": "", "published_at": RECENTLY})
    fake_github.add_fault(path_regex=r"/contents/", status=500, times=None)  # dies after the pages
    code, data, _ = wif_index(db, "--repo", PHP)
    assert code == 1 and data["repos"][0]["error"].startswith("GitHub kept failing after retries")
    assert release_row(db, PHP, "4.99.0") is None
    assert release_row(db, PHP, "4.7.0") == before
    conn = sqlite3.connect(db)
    assert "kept failing" in conn.execute("select last_error from repositories").fetchone()[0]
    conn.close()


# ------------------------------------------------------------------------ usage errors
def test_corrupt_cache_is_a_clear_usage_error(env, fake_github, tmp_path) -> None:
    env(fake_github)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 100)
    code, data, err = wif_index(garbage, "--repo", RUBY)
    assert (code, data) == (2, None)
    assert "is not a WIF release cache (not a SQLite database)" in err and "Traceback" not in err
    assert "delete" not in err.lower() and garbage.read_bytes() == b"this is not a database" * 100

    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("create table notes (id integer)")
    conn.close()
    code, _, err = wif_index(foreign, "--repo", RUBY)
    assert code == 2 and "not a WIF release cache" in err


def test_usage_errors(env, fake_github, tmp_path) -> None:
    env(fake_github)
    assert wif_index(tmp_path / "cache.db")[0] == 2  # no repository
    code, _, err = wif_index(tmp_path, "--repo", RUBY)
    assert code == 2 and "is a directory" in err
    code, _, err = wif_index(tmp_path / "missing" / "cache.db", "--repo", RUBY)
    assert code == 2 and "does not exist" in err
    (tmp_path / "bad.json").write_text("[]")
    code, _, err = wif_index(tmp_path / "cache.db", "--registry", str(tmp_path / "bad.json"))
    assert code == 2 and "registry" in err


def test_registry_option_indexes_its_repositories(env, fake_github, tmp_path) -> None:
    env(fake_github)
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps({"repositories": {RUBY: {"aliases": ["ruby"]}}}))
    code, data, _ = wif_index(tmp_path / "cache.db", "--registry", str(registry), "--repo", RUBY)
    assert code == 0 and [r["repo"] for r in data["repos"]] == [RUBY]  # de-duplicated


@pytest.mark.slow
def test_python_m_indexer_help() -> None:
    result = subprocess.run([sys.executable, "-m", "indexer", "--help"], capture_output=True, text=True,
                            timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert result.returncode == 0, result.stderr
    assert "--db PATH" in result.stdout and "examples:" in result.stdout


def test_opening_the_cache_after_indexing(env, fake_github, tmp_path) -> None:
    env(fake_github)
    db = tmp_path / "cache.db"
    wif_index(db, "--repo", RUBY)
    opened = open_cache(db)  # readers open without create: the schema must be current
    assert opened.execute("select count(*) from releases").fetchone()[0] == 90
    opened.close()


SYSTEMIC_FAULTS = {
    "5xx": {"status": 503, "body": {"message": "unavailable"}},
    "unreachable": {"status": None, "drop_connection": True},
}


@pytest.mark.parametrize("fault", list(SYSTEMIC_FAULTS))
def test_index_stops_after_three_repositories_fail_the_same_systemic_way(fake_github, tmp_path, fault) -> None:
    """Against a broken GitHub `--all` must not pay timeout x retries for every repository: after
    three in a row fail the same way it stops, says why, and keeps what was indexed before."""
    lines: list[str] = []
    index_repositories(tmp_path / "cache.db", ReleaseSource(fake_github.url, retries=None), [RUBY],
                       on_progress=lines.append)
    fake_github.add_fault(path_regex=r"^/repos/getsentry/sentry-(php|java|dart|python)", times=None,
                          **SYSTEMIC_FAULTS[fault])
    repos = [PHP, "getsentry/sentry-java", "getsentry/sentry-dart", "getsentry/sentry-python"]
    before = fake_github.total_requests()
    reports = index_repositories(tmp_path / "cache.db", ReleaseSource(fake_github.url, retries=None), repos,
                                 on_progress=lines.append)
    assert [r.repo for r in reports] == repos
    assert all(r.error for r in reports)
    assert reports[3].error.startswith("not attempted: ")
    assert fake_github.total_requests() - before == 3  # the fourth repository cost nothing
    assert any(line.startswith("Stopped: 3 repositories in a row failed the same way") for line in lines), lines
    assert SqliteReleaseCache.open(tmp_path / "cache.db").repositories() == [RUBY]  # kept


def test_index_keeps_going_when_failures_are_per_repository(fake_github, tmp_path) -> None:
    """Three missing repositories in a row are three answers, not a broken GitHub: the fourth is indexed."""
    repos = ["getsentry/nope-1", "getsentry/nope-2", "getsentry/nope-3", RUBY]
    reports = index_repositories(tmp_path / "cache.db", ReleaseSource(fake_github.url, retries=None), repos,
                                 on_progress=lambda _line: None)
    assert [bool(r.error) for r in reports] == [True, True, True, False]


@pytest.mark.slow
def test_a_dripping_github_is_cut_off_per_repository_and_then_the_run_stops(fake_github, tmp_path) -> None:
    """One byte every 0.2 s defeats any read timeout; the repository's wall-clock budget does not. Three
    repositories cut off the same way end the run (the fourth is not attempted). The read timeout (10 s) is far
    above both the drip and the budget: with 1 s, a byte the loaded machine sent late by its margin ended the
    read by the timeout instead, and the test failed."""
    fake_github.add_fault(method=None, path_regex=r".*", status=None, times=None, drip=0.2)
    repos = [RUBY, PHP, "getsentry/sentry-java", "getsentry/sentry-dart"]
    source = ReleaseSource(fake_github.url, retries=None, timeout=10, repository_seconds=1.5)
    reports = index_repositories(tmp_path / "cache.db", source, repos, on_progress=lambda _line: None)
    assert all("no complete answer within the repository's 1.5 s budget" in (r.error or "") for r in reports[:3])
    assert reports[3].error and reports[3].error.startswith("not attempted: GitHub unreachable")


def test_a_full_disk_is_reported_as_such_and_nothing_half_written(fake_github, tmp_path) -> None:
    """SQLite rolls back by itself on SQLITE_FULL; the report must say "database or disk is full",
    not the "cannot rollback" of a second ROLLBACK, and the repository has no rows."""
    from indexer.indexing import index_repository

    db = open_cache(tmp_path / "cache.db", create=True)
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 3}")  # a disk with room for three more pages
    report = index_repository(db, ReleaseSource(fake_github.url, retries=None), PHP, on_progress=lambda _l: None)
    assert report.error and "database or disk is full" in report.error, report.error
    assert db.execute("select count(*) from releases").fetchone()[0] == 0
    db.close()


def test_the_indexer_commits_without_waiting_for_the_disk_but_only_in_wal_mode(tmp_path) -> None:
    """`synchronous = NORMAL` skips the fsync of each commit; it keeps the file consistent only in WAL mode, so
    the indexer's connection must be in WAL mode whenever it is set (a new and an existing cache alike)."""
    for _ in range(2):  # created, then opened again
        db = open_cache(tmp_path / "cache.db", create=True)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 8192
        db.close()


class _FailingRead(ReleaseSource):
    """The real source, but reading `broken` fails with `error` (default: one nobody expects, a bug)."""

    def __init__(self, url: str, broken: str, error: Exception | None = None) -> None:
        super().__init__(url, retries=None, requests_per_minute=None)
        self.broken, self.error = broken, error

    def first_page(self, slug: str, etag: str | None):
        if slug == self.broken:
            raise self.error or RuntimeError(f"a bug while reading {slug}")
        return super().first_page(slug, etag)


@pytest.mark.timeout(60)  # a read thread's error lost on its way would leave the run waiting for it forever
def test_an_unexpected_error_in_the_read_thread_reaches_the_caller_and_what_was_written_is_kept(fake_github,
                                                                                              tmp_path) -> None:
    """The second repository is read in the background thread (indexer.indexing, `wif-index-read`) while the
    first is written: its error is raised to the caller, not swallowed, the first repository is stored whole,
    the third is never requested, and no read thread is left behind."""
    java = "getsentry/sentry-java"
    path = tmp_path / "cache.db"
    with pytest.raises(RuntimeError, match=f"a bug while reading {PHP}"):
        index_repositories(path, _FailingRead(fake_github.url, broken=PHP), [RUBY, PHP, java],
                           on_progress=lambda _line: None)
    for thread in threading.enumerate():
        if thread.name == "wif-index-read":
            thread.join(10)
            assert not thread.is_alive()
    assert not [entry for entry in fake_github.log if entry["path"].startswith(f"/repos/{java}")]
    assert SqliteReleaseCache.open(path).repositories() == [RUBY]
    db = open_cache(path)
    assert db.execute("select count(*) from releases").fetchone()[0] == 90
    db.close()


class _HeldRead(ReleaseSource):
    """The real source, but the read of `held` waits in its first request (at most HOLD_SECONDS) until the test
    lets it go: a read still under way when the writer fails."""

    HOLD_SECONDS = 0.5  # how long the run may wait for the request under way; the outcome does not depend on it

    def __init__(self, url: str, held: str) -> None:
        super().__init__(url, retries=None, requests_per_minute=None)
        self.held = held
        self.reading, self.go = threading.Event(), threading.Event()

    def first_page(self, slug: str, etag: str | None):
        if slug == self.held:
            self.reading.set()
            self.go.wait(self.HOLD_SECONDS)
        return super().first_page(slug, etag)


@pytest.mark.timeout(60)
def test_a_writer_failing_while_the_next_repository_is_read_leaves_no_read_behind(fake_github, tmp_path) -> None:
    """The writer fails (here: its progress callback) while the read thread is inside the next repository's read.
    The error reaches the caller, and by then the read has stopped and its thread has ended: a caller that goes on
    in the same process has no thread left reading (with its own connection: the writer's is closed) or sending
    requests for a run that ended. The first repository is stored whole, the next gets nothing."""
    java = "getsentry/sentry-java"
    path = tmp_path / "cache.db"
    source = _HeldRead(fake_github.url, held=PHP)

    def progress(line: str) -> None:
        if line.startswith(RUBY):
            assert source.reading.wait(30), "the next repository's read never started"
            raise RuntimeError("the writer failed")

    try:
        with pytest.raises(RuntimeError, match="the writer failed"):
            index_repositories(path, source, [RUBY, PHP, java], on_progress=progress)
        assert [t for t in threading.enumerate() if t.name == "wif-index-read" and t.is_alive()] == []
    finally:
        source.go.set()
    requested = [entry["path"] for entry in fake_github.log]
    assert not [p for p in requested if p.startswith(f"/repos/{java}")]
    assert [p for p in requested if p.startswith(f"/repos/{PHP}")] == [f"/repos/{PHP}/releases"]  # no page 2
    db = open_cache(path)
    assert db.execute("select count(*) from releases").fetchone()[0] == 90
    db.close()


def test_the_read_threads_connection_cannot_write(tmp_path) -> None:
    """`read_only`: the read thread's own connection reads the cache the writer writes, and cannot change it."""
    from indexer.schema import read_only

    path = tmp_path / "cache.db"
    writer = open_cache(path, create=True)
    writer.execute("insert into repositories (slug) values ('o/r')")
    reader = read_only(path)
    assert reader.execute("select slug from repositories").fetchall() == [("o/r",)]
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.execute("delete from repositories")
    reader.close()
    writer.close()


def test_a_cache_read_failing_while_the_next_repository_is_read_is_that_repositorys_error(fake_github,
                                                                                      tmp_path) -> None:
    """The read (its own thread) only reads the cache: an SQLite error there is reported as a failed read of that
    repository, not as a failed write, and the repositories around it are indexed."""
    java = "getsentry/sentry-java"
    source = _FailingRead(fake_github.url, broken=PHP, error=sqlite3.OperationalError("disk I/O error"))
    reports = index_repositories(tmp_path / "cache.db", source, [RUBY, PHP, java], on_progress=lambda _line: None)
    assert [report.error for report in reports] == [None, "cache read failed: disk I/O error", None]
