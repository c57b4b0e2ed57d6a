"""Oversized inputs are bounded and still answered: a 1 MB problem, a 200 KB PR description, a
release with 5,000 bullets. Each run ends with a defined outcome, the answer stays readable, and
no single LLM prompt grows with the input (no timing assertions: see the report for timings).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.workflow_helpers import ask, keyword_responder
from wif_action.models import Answer, AskInput, Outcome
from wif_action.subtasks.scan_state import MAX_ENTRIES_PER_CALL

COCOA = "getsentry/sentry-cocoa"
PROBLEM = "WatchdogTermination issues have empty tags (e.g., OS)."
ONE_MB = 1_000_000
ANSWERED = {Outcome.HIGH, Outcome.MEDIUM, Outcome.NO_RESULT}
MAX_MESSAGE_CHARS = 20_000  # what a reader (and a GitHub comment or Slack message) can take
MAX_PROMPT_CHARS = 210_000  # the largest prompt: a PR description sent to summarize (capped at 200,000)
MAX_JUDGING_PROMPT_CHARS = 100_000  # filter, score and verify prompts
BULLETS = 5_000


# ---------------------------------------------------------------------------------------------- helpers
def _filler(size: int) -> str:
    """Problem-like prose of `size` characters (so every word is analysed, not skipped as noise)."""
    words = ["the", "app", "crashes", "when", "the", "watchdog", "fires", "while", "tags", "are", "empty", "and",
             "the", "OS", "context", "is", "lost", "after", "a", "background", "termination", "on", "older"]
    text = " ".join(words[i % len(words)] for i in range(size // 4))
    return (text + " " + text)[:size]


def _assert_bounded(answer: Answer) -> None:
    assert answer.outcome in set(Outcome)
    assert len(answer.message) < MAX_MESSAGE_CHARS, len(answer.message)
    assert len(json.dumps(answer.public_json())) < 5 * MAX_MESSAGE_CHARS
    assert len(answer.candidates) <= 10


def _prompt_sizes(fake: FakeOpenAI) -> dict[str, int]:
    """The largest request body per tool (schema name)."""
    sizes: dict[str, int] = {}
    for body in fake.chat_requests():
        name = body["response_format"]["json_schema"]["name"]
        sizes[name] = max(sizes.get(name, 0), len(json.dumps(body, ensure_ascii=False)))
    return sizes


def _assert_prompts_bounded(fake: FakeOpenAI) -> None:
    sizes = _prompt_sizes(fake)
    assert sizes, "the LLM must have been asked"
    assert max(sizes.values()) <= MAX_PROMPT_CHARS, sizes
    assert all(size <= MAX_JUDGING_PROMPT_CHARS for name, size in sizes.items() if name != "Summary"), sizes


@pytest.fixture(scope="module")
def cocoa_cache(cache_path_for) -> Path:
    return cache_path_for([COCOA])


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture
def openai_fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(keyword_responder("watchdog")) as fake:
        yield fake


# ---------------------------------------------------------------------------------------------- 1 MB problem
_ON_COCOA = f"Customer on sentry-cocoa 8.48.0: {PROBLEM}"
ONE_MB_REQUESTS = {
    "problem": AskInput(sdk="sentry-cocoa", version="8.48.0", problem=f"{PROBLEM} {_filler(ONE_MB)}"),
    "message": AskInput(message=f"{_ON_COCOA} {_filler(ONE_MB)}"),
    # One 1 MB word after no sentence end: the offline extraction's worst case (the URL becomes a run of
    # spaces that its sentence split scans quadratically: about 1 s for the 20,000 characters passed on).
    "one-url": AskInput(message=f"sentry-cocoa 8.48.0 WatchdogTermination tags empty https://github.com/"
                                f"{'a/' * (ONE_MB // 2)}"),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(ONE_MB_REQUESTS))
def test_a_1_mb_request_is_bounded_and_answered_offline(cocoa_cache, github, kind):
    answer, _ = ask(cocoa_cache, github.url, ONE_MB_REQUESTS[kind])
    _assert_bounded(answer)
    assert answer.outcome in ANSWERED and answer.user_version == "8.48.0"
    assert answer.checked is not None and answer.checked.first == "8.49.0"


def test_a_1_mb_problem_never_reaches_the_llm_whole(cocoa_cache, github, openai_fake):
    inputs = AskInput(sdk="sentry-cocoa", version="8.48.0", problem=f"{PROBLEM} {_filler(ONE_MB)}")
    answer, _ = ask(cocoa_cache, github.url, inputs, engine="openai", openai_url=openai_fake.url)
    _assert_bounded(answer)
    assert answer.outcome in ANSWERED
    _assert_prompts_bounded(openai_fake)


# ---------------------------------------------------------------------------------------------- 200 KB PR body
@pytest.fixture
def github_with_a_huge_pr(github) -> FakeGitHub:
    """PR #5242 (the real fix of the question) with a 200 KB description, served by the API."""
    pull = github.repo(COCOA).pulls[5242]
    body = "Fixes the empty tags of watchdog termination events. " + _filler(200_000)
    github.add_pull(COCOA, {**pull, "body": body[:200_000]})
    return github


def _ask_about_watchdog(cache: Path, github: FakeGitHub, **options) -> Answer:
    inputs = AskInput(sdk="sentry-cocoa", version="8.48.0", problem=PROBLEM)
    return ask(cache, github.url, inputs, use_cached_pulls=False, **options)[0]


@pytest.mark.slow
def test_a_200_kb_pr_description_is_answered_offline(cocoa_cache, github_with_a_huge_pr):
    answer = _ask_about_watchdog(cocoa_cache, github_with_a_huge_pr)
    _assert_bounded(answer)
    assert answer.outcome in (Outcome.HIGH, Outcome.MEDIUM)
    assert 5242 in [candidate.pr for candidate in answer.candidates]
    assert github_with_a_huge_pr.requests_for("GET /repos/{o}/{r}/pulls/{n}")


def test_a_200_kb_pr_description_is_summarised_once_before_the_llm_judges_it(cocoa_cache, github_with_a_huge_pr,
                                                                             openai_fake):
    answer = _ask_about_watchdog(cocoa_cache, github_with_a_huge_pr, engine="openai", openai_url=openai_fake.url)
    _assert_bounded(answer)
    assert answer.outcome in (Outcome.HIGH, Outcome.MEDIUM)
    assert openai_fake.schema_names().count("Summary") == 1
    _assert_prompts_bounded(openai_fake)


# ---------------------------------------------------------------------------------------------- 5,000 bullets
@pytest.fixture(scope="module")
def cache_with_a_huge_release(cocoa_cache, tmp_path_factory) -> Path:
    """A copy of the cache with release 8.49.5 (inside the scanned range) listing 5,000 bullets."""
    path = tmp_path_factory.mktemp("huge-release") / "cache.db"
    shutil.copy(cocoa_cache, path)
    body = "### Fixes\n\n" + "".join(f"- Fix a layout glitch in view controller {i} of the sample app "
                                     f"(#{100_000 + i})\n" for i in range(BULLETS))
    db = open_cache(path, create=True)
    update = RepositoryUpdate(slug=COCOA, etag=None, releases=[ReleaseRecord(
        id=1, tag="8.49.5", name="8.49.5", body=body, draft=False, prerelease=False,
        published_at="2025-05-01T00:00:00Z", url=f"https://github.com/{COCOA}/releases/tag/8.49.5")])
    write_with_retry(db, lambda: apply_update(db, update), on_busy=print)
    stored = db.execute("select count(*) from entries e join releases r on r.id = e.release_id "
                        "where r.tag = '8.49.5'").fetchone()[0]
    db.close()
    assert stored == BULLETS
    return path


@pytest.mark.slow
def test_a_release_with_5000_bullets_is_answered_offline(cache_with_a_huge_release, github):
    answer = _ask_about_watchdog(cache_with_a_huge_release, github)
    _assert_bounded(answer)
    assert answer.outcome in (Outcome.HIGH, Outcome.MEDIUM)
    assert 5242 in [candidate.pr for candidate in answer.candidates]


@pytest.mark.slow
def test_a_release_with_5000_bullets_is_judged_in_bounded_prompts(cache_with_a_huge_release, github, openai_fake):
    answer = _ask_about_watchdog(cache_with_a_huge_release, github, engine="openai", openai_url=openai_fake.url)
    _assert_bounded(answer)
    assert answer.outcome in (Outcome.HIGH, Outcome.MEDIUM)
    assert openai_fake.schema_names().count("RelevantEntries") > BULLETS // MAX_ENTRIES_PER_CALL
    _assert_prompts_bounded(openai_fake)
