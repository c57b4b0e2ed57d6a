"""Fixes merged but not released (issue 22): the default branch's Unreleased notes, end to end.

Real PyGithub over HTTP against the fake GitHub, which follows the eval cases' convention: the newest
K stable releases are withheld and their notes served under `## Unreleased` in CHANGELOG.md on the
default branch (tests/fakes/github_server.py `withhold_newest`). Real SQLite caches, real `wif` CLI.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sqlite3
from pathlib import Path

import pytest

from indexer.github_source import ReleaseSource
from indexer.indexing import index_repositories
from indexer.schema import open_cache
from indexer.unreleased import MAX_SECTION_CHARS, unreleased_section
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask, keyword_responder
from wif_action.cli import main
from wif_action.delivery.outputs import answer_outputs, summary_markdown
from wif_action.models import (
    Answer,
    AskInput,
    Candidate,
    Confidence,
    Outcome,
    UnreleasedCheck,
)
from wif_action.rendering import render
from wif_action.tools.cache import SqliteReleaseCache

COCOA = "getsentry/sentry-cocoa"
# The public case cocoa-unreleased-urlsession-request-mutation-race (tests/data/eval/cases.jsonl)
PROBLEM = ("The app still crashes now and then inside CFNetwork just as network requests start, with the SDK's "
           "network tracking adding trace headers a few frames below, even on a version that already had a fix "
           "for a similar crash.")
CONTENTS = "GET /repos/{o}/{r}/contents/{path}"


@pytest.fixture
def cocoa_fake(fake_github: FakeGitHub) -> FakeGitHub:
    """sentry-cocoa with its newest release (9.26.0) withheld: its notes are the Unreleased section."""
    assert [r["tag_name"] for r in fake_github.withhold_newest(COCOA, 1)] == ["9.26.0"]
    fake_github.rate_limit_limit = fake_github.rate_limit_remaining = 10**9
    return fake_github


TINY = "acme/tiny"  # for what the Unreleased section alone decides: a two-release index, not sentry-cocoa's 445


@pytest.fixture
def tiny_fake(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_repo(TINY, releases=[{"tag_name": "9.25.0", "body": "### Fixes\n\n- Old fix (#8000)\n"},
                                         {"tag_name": "9.24.0", "body": "### Fixes\n\n- Older fix (#7000)\n"}])
    return fake_github


def index(db: Path, fake: FakeGitHub, *repos: str) -> tuple[int, dict, str]:
    """`wif index --json` in-process against `fake`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.MonkeyPatch.context() as patch:
        patch.setenv("GITHUB_API_URL", fake.url)
        patch.delenv("GITHUB_TOKEN", raising=False)
        code = main(["index", "--db", str(db), "--json", *[a for r in repos for a in ("--repo", r)]])
    return code, json.loads(out.getvalue() or "{}"), err.getvalue()


def ask_json(db: Path, fake: FakeGitHub, *args: str) -> dict:
    """`wif ask --engine offline --json` in-process against `fake`."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            pytest.MonkeyPatch.context() as patch:
        patch.setenv("GITHUB_API_URL", fake.url)
        patch.delenv("GITHUB_TOKEN", raising=False)
        code = main(["ask", "--db", str(db), "--engine", "offline", "--json", "--quiet", *args])
    assert code == 0
    return json.loads(out.getvalue())


def unreleased_rows(db: Path, repo: str = COCOA) -> tuple[str | None, list[str]]:
    conn = sqlite3.connect(db)
    try:
        status = conn.execute("select u.status from unreleased_notes u join repositories s on s.id = u.repo_id "
                              "where s.slug = ?", [repo]).fetchone()
        texts = [row[0] for row in conn.execute(
            "select e.text from unreleased_entries e join repositories s on s.id = e.repo_id where s.slug = ? "
            "order by e.position", [repo])]
    finally:
        conn.close()
    return (status[0] if status else None), texts


# ----------------------------------------------------------------------------- the issue's done-when
def test_a_fix_on_the_default_branch_answers_unreleased_with_its_pr(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    assert index(db, cocoa_fake, COCOA)[0] == 0
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "9.25.0", "--problem", PROBLEM)
    assert answer["outcome"] == "unreleased"
    top = answer["candidates"][0]
    assert (top["pr"], top["version"], top["unreleased"], top["confidence"]) == (8650, None, True, "high")
    assert re.search(r"^✓ Fixed on the default branch by \[PR #8650\]\(https://github.com/getsentry/sentry-cocoa/"
                     r"pull/8650\), not released yet — it should ship in the release after \*\*v9\.25\.0\*\* "
                     r"\(notes read just now\)\.$", answer["message"], re.M), answer["message"]
    assert answer["unreleased_notes"]["checked"] and answer["unreleased_notes"]["after"] == "9.25.0"
    assert any(line.startswith("Checked the Unreleased notes of CHANGELOG.md") for line in answer["trace"])


def test_without_a_changelog_the_customer_on_the_newest_release_is_already_latest(cocoa_fake, tmp_path):
    cocoa_fake.set_default_changelog(COCOA, None)
    db = tmp_path / "cache.db"
    code, report, err = index(db, cocoa_fake, COCOA)
    assert code == 0 and report["repos"][0]["unreleased"] == "no_changelog"
    assert "no CHANGELOG.md on the default branch, so no Unreleased notes" in err
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "9.25.0", "--problem", PROBLEM)
    assert answer["outcome"] == "already_latest" and not answer["candidates"]
    assert "Unreleased notes not checked: the repository has no CHANGELOG.md on its default branch." \
        in answer["trace"]
    assert answer["unreleased_notes"]["checked"] is False


def test_a_customer_behind_gets_a_published_fix_before_an_unreleased_one(cocoa_fake, tmp_path):
    """The spec's scan is unchanged: a HIGH in a published release ends the run before the Unreleased notes."""
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "8.48.0", "--problem",
                      "WatchdogTermination issues have empty tags (e.g., OS).")
    assert answer["outcome"] == "high" and answer["candidates"][0]["version"] == "8.52.0"
    assert not any("Unreleased notes" in line for line in answer["trace"])


def test_the_openai_engine_judges_the_unreleased_notes_too(cocoa_fake, tmp_path, openai_fake):
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    openai_fake.responder = keyword_responder("urlsessiontask.currentrequest")
    answer, _ = ask(db, cocoa_fake.url, AskInput(repo=COCOA, version="9.25.0", problem=PROBLEM), engine="openai",
                    openai_url=openai_fake.url)
    assert answer.outcome == Outcome.UNRELEASED and answer.candidates[0].pr == 8650
    assert answer.usage.llm_calls >= 3 and "PRVerdict" in openai_fake.schema_names()


def test_a_linked_issue_closed_by_an_unreleased_pr_resolves_to_unreleased(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    cocoa_fake.add_issue(COCOA, 8519, title="SIGSEGV in SentryTracePropagation", closed_by_pr=8650)
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "9.25.0", "--problem", PROBLEM,
                      "--link", "https://github.com/getsentry/sentry-cocoa/issues/8519")
    assert answer["outcome"] == "unreleased"
    assert answer["candidates"][0]["pr"] == 8650 and answer["candidates"][0]["source"] == "link"
    assert any("fixed by PR #8650, merged after 9.25.0 and in no release yet" in line for line in answer["trace"])


def test_nothing_unreleased_matches_on_the_newest_release_is_no_result_saying_so(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "9.25.0", "--problem",
                      "Core Data stack migration silently deletes the persistent store on watchOS.")
    assert answer["outcome"] == "no_result"
    assert "v9.25.0 is the latest stable release of getsentry/sentry-cocoa" in answer["message"]
    assert "Checked: the Unreleased notes of CHANGELOG.md on the default branch" in answer["message"]


# ----------------------------------------------------------------------------- the indexer
def test_an_unchanged_changelog_costs_one_304_and_keeps_the_entries(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    before = unreleased_rows(db)
    assert before[0] == "ok" and any("#8650" in text or "(#8650)" in text for text in before[1])
    cocoa_fake.reset_counts()
    code, report, err = index(db, cocoa_fake, COCOA)
    assert code == 0 and report["repos"][0]["unreleased"] == "not_modified"
    assert cocoa_fake.requests[CONTENTS] == 1
    assert [e["status"] for e in cocoa_fake.log if "/contents/" in e["path"]] == [304]
    assert unreleased_rows(db) == before
    assert f"CHANGELOG.md not modified (304), {len(before[1])} Unreleased entries cached" in err


def test_the_section_goes_when_its_release_ships(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    cocoa_fake.publish_withheld(COCOA)
    code, report, err = index(db, cocoa_fake, COCOA)
    assert code == 0 and report["repos"][0]["unreleased"] == "no_section"
    assert unreleased_rows(db) == ("no_section", [])
    assert "CHANGELOG.md has no Unreleased section, nothing unreleased cached" in err
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "9.25.0", "--problem", PROBLEM)
    assert answer["outcome"] == "high" and answer["candidates"][0]["version"] == "9.26.0"


@pytest.mark.parametrize("heading", ["## Unreleased", "## [Unreleased]", "## Unreleased changes", "# Unreleased",
                                     "### Unreleased - 2026-11-20", "## [unreleased]", "## 🚀 Unreleased"])
def test_heading_variants_of_the_unreleased_section(tiny_fake, tmp_path, heading):
    tiny_fake.set_default_changelog(TINY, f"# Changelog\n\n{heading}\n\n#### Fixes\n\n- Fix a gizmo crash (#9001)\n"
                                          "- Fix a widget leak (#9002)\n\n## 9.25.0\n\n- Old fix (#8000)\n")
    db = tmp_path / "cache.db"
    index(db, tiny_fake, TINY)
    status, texts = unreleased_rows(db, TINY)
    assert status == "ok" and len(texts) == 2 and "Fix a gizmo crash" in texts[0]


@pytest.mark.parametrize("text", ["# Changelog\n\n## 9.25.0\n\n- Fix (#1)\n", "## Released\n\n- x (#1)\n",
                                  "## Unreleasedness is a word\n\n- x (#1)\n", ""])
def test_a_changelog_without_the_section_caches_nothing(text):
    assert unreleased_section(text.encode()).status == "no_section"


def test_a_binary_changelog_caches_nothing_and_does_not_fail_the_repository(tiny_fake, tmp_path):
    tiny_fake.set_default_changelog(TINY, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 64)
    db = tmp_path / "cache.db"
    code, report, err = index(db, tiny_fake, TINY)
    assert code == 0 and report["repos"][0]["error"] is None and report["repos"][0]["unreleased"] == "not_text"
    assert unreleased_rows(db, TINY) == ("not_text", []) and "CHANGELOG.md is not text" in err


def test_a_huge_unreleased_section_is_cut_at_its_bound(tiny_fake, tmp_path):
    bullets = "".join(f"- Fix widget number {n} flickering on rotation (#{n})\n" for n in range(1, 30_000))
    tiny_fake.set_default_changelog(TINY, f"## Unreleased\n\n### Fixes\n\n{bullets}\n## 9.25.0\n\n- x (#1)\n")
    db = tmp_path / "cache.db"
    code, report, err = index(db, tiny_fake, TINY)
    assert code == 0 and report["repos"][0]["unreleased"] == "ok"
    conn = sqlite3.connect(db)
    body_length, truncated = conn.execute("select length(body), truncated from unreleased_notes").fetchone()
    conn.close()
    assert body_length <= MAX_SECTION_CHARS and truncated == 1
    assert "(section cut at its size limit)" in err


def test_a_changelog_over_the_body_cap_is_not_read_and_keeps_what_was_cached(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    before = unreleased_rows(db)
    cocoa_fake.set_default_changelog(COCOA, b"## Unreleased\n\n" + b"- x (#1)\n" * 4_000_000)  # 36 MB
    code, report, err = index(db, cocoa_fake, COCOA)
    assert code == 0 and report["repos"][0]["error"] is None and report["repos"][0]["unreleased"] == "failed"
    assert "Unreleased notes not read (" in err and "cap" in err
    assert unreleased_rows(db) == before


def test_no_unreleased_option_reads_no_changelog(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            pytest.MonkeyPatch.context() as patch:
        patch.setenv("GITHUB_API_URL", cocoa_fake.url)
        assert main(["index", "--db", str(db), "--repo", COCOA, "--no-unreleased"]) == 0
    assert cocoa_fake.requests[CONTENTS] == 0 and unreleased_rows(db) == (None, [])


# ----------------------------------------------------------------------------- readers
def test_a_cache_without_the_unreleased_tables_still_answers_and_says_why(cocoa_fake, tmp_path):
    """Schema m004 is optional for readers: upgrading WIF never stops answers until the next index run."""
    db = tmp_path / "cache.db"
    index_repositories(db, ReleaseSource(cocoa_fake.url, retries=None), [COCOA], on_progress=lambda _: None)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("delete from _sqlite_migrations where name = 'm004_unreleased_notes'")
        conn.execute("drop table unreleased_entries")
        conn.execute("drop table unreleased_notes")
    conn.close()
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "9.25.0", "--problem", PROBLEM)
    assert answer["outcome"] == "already_latest"
    assert any("Unreleased notes not checked: the cache holds none for this repository" in line
               for line in answer["trace"])
    open_cache(db, create=True).close()  # the indexer migrates it
    assert SqliteReleaseCache.open(db).unreleased_notes(COCOA) is None


def _unreleased_answer(confidence: Confidence) -> Answer:
    candidate = Candidate(version="unreleased", tag="Unreleased", pr=8650, unreleased=True, confidence=confidence,
                          url="https://github.com/getsentry/sentry-cocoa/pull/8650", reason="It copies the request.")
    return Answer(outcome=Outcome.UNRELEASED, repo=COCOA, user_version="9.25.0", candidates=[candidate],
                  unreleased_notes=UnreleasedCheck(checked=True, entries=12, read_at="2026-01-01T00:00:00Z",
                                                   after="9.25.0"))


def test_a_medium_unreleased_match_says_may_and_defers():
    text = render(_unreleased_answer(Confidence.MEDIUM), "the Cocoa team")
    assert text.startswith("The default branch has a change, not released yet, that may address this "
                           "([PR #8650](https://github.com/getsentry/sentry-cocoa/pull/8650)) — it should ship in "
                           "the release after **v9.25.0** (notes read ")
    assert "Deferring to the Cocoa team to confirm." in text and "✓" not in text


def test_the_action_outputs_and_summary_name_the_unreleased_pr():
    answer = _unreleased_answer(Confidence.HIGH)
    answer.message = render(answer)
    outputs = answer_outputs(answer, "wif-result.json")
    assert outputs["outcome"] == "unreleased" and outputs["fixed-in"] == ""
    assert outputs["pr"] == "https://github.com/getsentry/sentry-cocoa/pull/8650"
    summary = summary_markdown(answer, "was it fixed?", [])
    assert "**Outcome:** `unreleased`" in summary and "not released yet" in summary
    assert re.search(r"notes read \d+ days ago", summary)
    assert answer.public_json()["candidates"][0]["version"] is None


def test_an_unreleased_line_citing_only_a_commit_is_cached_and_answered_with_that_commit(fake_github, tmp_path):
    """Unreleased lines keep the commits they cite (m010, as published lines since m006): a fix with no PR is
    answered with the commit it names, at most MEDIUM (only the note speaks for it)."""
    sha = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
    fake_github.withhold_newest(COCOA, 1)
    fake_github.set_default_changelog(
        COCOA, f"# Changelog\n\n## Unreleased\n\n### Fixes\n\n- Fix SentryFileManager deleting the envelope "
               f"directory when the disk is full ({sha[:7]})\n- Fix a widget leak (#9002)\n\n## 9.25.0\n\n- x (#1)\n")
    db = tmp_path / "cache.db"
    assert index(db, fake_github, COCOA)[0] == 0
    conn = sqlite3.connect(db)
    stored = conn.execute("select commits from unreleased_entries order by position").fetchall()
    conn.close()
    assert [json.loads(row[0]) for row in stored] == [[sha[:7]], []]
    answer = ask_json(db, fake_github, "--repo", COCOA, "--version", "9.25.0", "--problem",
                      "SentryFileManager deletes the envelope directory when the disk is full.")
    assert answer["outcome"] == "unreleased", answer["message"]
    top = answer["candidates"][0]
    assert (top["pr"], top["commit"], top["unreleased"], top["confidence"]) == (None, sha[:7], True, "medium")
    assert top["url"] == f"https://github.com/{COCOA}/commit/{sha[:7]}"
    assert f"commit/{sha[:7]}" in answer["message"] and "PR #None" not in answer["message"]


def test_a_cache_from_before_m010_reads_unreleased_entries_without_commits(cocoa_fake, tmp_path):
    db = tmp_path / "cache.db"
    index(db, cocoa_fake, COCOA)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("delete from _sqlite_migrations where name = 'm010_unreleased_commits'")
        conn.execute("alter table unreleased_entries drop column commits")
    conn.close()
    answer = ask_json(db, cocoa_fake, "--repo", COCOA, "--version", "9.25.0", "--problem", PROBLEM)
    assert answer["outcome"] == "unreleased" and answer["candidates"][0]["pr"] == 8650
    cocoa_fake.reset_counts()
    code, report, _ = index(db, cocoa_fake, COCOA)  # migrates, and reads CHANGELOG.md again to fill the column
    assert code == 0 and report["repos"][0]["unreleased"] == "ok"
    assert [e["status"] for e in cocoa_fake.log if "/contents/" in e["path"]] == [200]
