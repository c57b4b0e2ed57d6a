"""A release-note line citing only a commit is followed like a PR line: the commit's message (`GET
/repos/{o}/{r}/commits/{sha}`) is read as its description, once per run, counted, capped; another repository's commit
is read from that repository; a commit GitHub cannot give (404, 422, 5xx, a timeout, too large) leaves the note alone
judged, never a traceback. All over real HTTP to the fake GitHub."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, requested_schema
from tests.workflow_helpers import ask
from wif_action.app import read_github
from wif_action.models import Answer, AskInput
from wif_action.ports import ToolError, ToolUnavailable
from wif_action.tools.github import GitHubClient

REPO = "acme/sock-js"
ENGINE = "acme/engine-js"
OWN_SHA = "5bc94b56bc1788bab16d9d514d2c8abf3b1d8f87"
ENGINE_SHA = "d55c39e0ed5cb7b3a34875a398efc111c91184f6"
OTHER_SHA = "f2892aba0beeae7c9be930221655d7da6094c5f1"
# The note shares no word with the customer's problem; only the commit's body says what was fixed.
OWN_MESSAGE = ("fix: do not swallow user exceptions\n\n"
               "Any exception in a user-provided event listener would get caught in the try...catch of the decoder "
               "and result in the reconnection of the socket, again and again.")
PROBLEM = "An exception thrown in our event listener makes the socket reconnect again and again"
ENGINE_MESSAGE = ("fix(webtransport): properly handle abruptly closed connections\n\n"
                  "The upload stream kept buffering packets after the session ended, so memory grew without bound.")
ENGINE_PROBLEM = "After abruptly closed connections the upload stream keeps buffering packets and memory grows"


def _release(tag: str, when: str, body: str) -> dict:
    return {"tag_name": tag, "name": tag, "published_at": when, "draft": False, "prerelease": False,
            "html_url": f"https://github.com/{REPO}/releases/tag/{tag}", "body": body}


RELEASES = [
    _release("4.7.0", "2026-05-01T10:00:00Z", "### Bug Fixes\n\n"
             f"* do not swallow user exceptions ([5bc94b5](https://github.com/{REPO}/commit/{OWN_SHA}))\n"
             "* use same scope for setTimeout and clearTimeout calls "
             f"([f2892ab](https://github.com/{REPO}/commit/{OTHER_SHA}))\n"),
    _release("4.6.2", "2026-04-15T10:00:00Z", "### Bug Fixes\n\n* **webtransport:** properly handle abruptly "
             f"closed connections ([d55c39e](https://github.com/{ENGINE}/commit/{ENGINE_SHA}))\n"),
    _release("4.6.1", "2026-04-01T10:00:00Z", "### Features\n\n* initial ([1a2b3c4](https://github.com/"
             f"{REPO}/commit/1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d))\n"),
]
COMMIT_ENDPOINT = "GET /repos/{o}/{r}/commits/{sha}"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Iterator[Path]:
    fake = FakeGitHub()
    fake.start()
    try:
        fake.add_repo(REPO, releases=RELEASES, pulls=[])
        path = tmp_path_factory.mktemp("commit-messages") / "cache.db"
        build_cache(path, fake, [REPO], pulls="recent", max_pulls=None)
    finally:
        fake.stop()
    yield path


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.start()
    server.add_repo(REPO, releases=RELEASES, pulls=[])
    server.add_commit(REPO, OWN_SHA, OWN_MESSAGE)
    server.add_commit(REPO, OTHER_SHA, "fix: use same scope for setTimeout and clearTimeout calls")
    server.add_commit(ENGINE, ENGINE_SHA, ENGINE_MESSAGE)
    yield server
    server.stop()


def _client(fake: FakeGitHub) -> GitHubClient:
    return GitHubClient(read_github({"GITHUB_API_URL": fake.url}, timeout=30, retries=0))


def _ask(cache: Path, fake: FakeGitHub, problem: str = PROBLEM, **kwargs) -> Answer:
    answer, _ = ask(cache, fake.url, AskInput(repo=REPO, version="4.6.1", problem=problem), **kwargs)
    return answer


# ------------------------------------------------------------------------------------------------------ the tool
def test_the_tool_reads_a_commit_s_message_by_full_or_short_hash(fake: FakeGitHub) -> None:
    client = _client(fake)
    full = client.commit(REPO, OWN_SHA)
    short = client.commit(REPO, OWN_SHA[:7])
    assert (full.sha, full.message, full.url) == (OWN_SHA, OWN_MESSAGE, f"https://github.com/{REPO}/commit/{OWN_SHA}")
    assert short.sha == OWN_SHA and client.requests_made == 2


@pytest.mark.parametrize(("repo", "sha", "said"), [
    (REPO, "0" * 40, "HTTP 422"),  # GitHub: "No commit found for SHA"
    ("acme/nowhere", OWN_SHA, "not found"),
])
def test_a_commit_github_does_not_have_fails_that_lookup_only(fake: FakeGitHub, repo: str, sha: str,
                                                               said: str) -> None:
    client = _client(fake)
    with pytest.raises(ToolError, match=said) as raised:
        client.commit(repo, sha)
    assert not isinstance(raised.value, ToolUnavailable)
    assert client.commit(REPO, OWN_SHA).message == OWN_MESSAGE  # the breaker did not trip


def test_a_hash_that_is_no_hash_is_never_requested(fake: FakeGitHub) -> None:
    client = _client(fake)
    with pytest.raises(ToolError, match="not a commit hash"):
        client.commit(REPO, "../pulls/1")
    assert client.requests_made == 0 and fake.total_requests() == 0


def test_a_5xx_trips_the_breaker_and_a_commit_over_the_body_cap_does_not(fake: FakeGitHub) -> None:
    client = _client(fake)
    fake.add_fault("GET", r"/commits/", huge=6 * 1024 * 1024)  # a commit whose diff is over 5 MiB
    with pytest.raises(ToolError) as raised:
        client.commit(REPO, OWN_SHA)
    assert not isinstance(raised.value, ToolUnavailable), "one huge commit says nothing of the next lookup"
    fake.add_fault("GET", r"/commits/", status=502, times=None)
    with pytest.raises(ToolUnavailable):
        client.commit(REPO, OWN_SHA)


def test_a_reply_that_is_not_a_commit_is_a_failed_lookup(fake: FakeGitHub) -> None:
    fake.add_fault("GET", r"/commits/", status=200, body={"sha": OWN_SHA, "commit": {"message": 7}})
    with pytest.raises(ToolError, match="not a commit"):
        _client(fake).commit(REPO, OWN_SHA)


# ------------------------------------------------------------------------------------------- the workflow
def test_the_commit_message_finds_a_fix_the_note_does_not_name(cache: Path, fake: FakeGitHub) -> None:
    answer = _ask(cache, fake)
    top = answer.candidates[0]
    assert (answer.outcome.value, top.version, top.commit) == ("medium", "4.7.0", OWN_SHA), answer.message
    assert "✓" not in answer.message, "a commit line stays capped at MEDIUM: no PR confirms it"
    assert answer.usage.github_requests == len(fake.requests_for(COMMIT_ENDPOINT)) >= 1
    shas = [entry["path"].rsplit("/", 1)[-1] for entry in fake.requests_for(COMMIT_ENDPOINT)]
    assert len(shas) == len(set(shas)), "each commit is fetched once per run"


def test_without_the_message_the_note_alone_is_judged(cache: Path, fake: FakeGitHub) -> None:
    """The same question with the commit gone from GitHub: the note shares no word with the problem, so no
    answer — and the lookup that failed is listed as skipped, not raised."""
    fake.add_fault("GET", r"/commits/", status=404, times=None)
    answer = _ask(cache, fake)
    assert answer.outcome.value in ("no_result", "medium") and (
        not answer.candidates or answer.candidates[0].commit != OWN_SHA), answer.message
    assert any(s.step.startswith("commit ") and "details" in s.step for s in answer.skipped), answer.skipped


@pytest.mark.parametrize("fault", [dict(status=503, times=None), dict(status=429, times=None),
                                   dict(drop_connection=True, times=None)])
def test_github_failing_on_commits_degrades_to_the_note(cache: Path, fake: FakeGitHub, fault: dict) -> None:
    fake.add_fault("GET", r"/commits/", **fault)
    answer = _ask(cache, fake, problem="user exceptions are swallowed")
    assert answer.outcome.value == "medium" and answer.candidates[0].commit == OWN_SHA, answer.message
    assert answer.skipped, "the step GitHub could not serve is named"


def test_another_repository_s_commit_is_read_from_that_repository(cache: Path, fake: FakeGitHub) -> None:
    answer = _ask(cache, fake, problem=ENGINE_PROBLEM)
    top = answer.candidates[0]
    assert (top.version, top.commit, top.repo) == ("4.6.2", ENGINE_SHA, ENGINE), answer.message
    paths = [entry["path"] for entry in fake.requests_for(COMMIT_ENDPOINT)]
    assert f"/repos/{ENGINE}/commits/{ENGINE_SHA}" in paths


def test_past_the_deadline_no_commit_is_fetched(cache: Path, fake: FakeGitHub) -> None:
    answer = _ask(cache, fake, problem="user exceptions are swallowed",
                  deadline_seconds=0)
    assert not fake.requests_for(COMMIT_ENDPOINT)
    assert answer.outcome.value == "medium" and answer.candidates[0].commit == OWN_SHA, answer.message


def test_the_llm_engine_reads_the_commit_message(cache: Path, fake: FakeGitHub) -> None:
    prompts: list[str] = []

    def respond(request: dict):
        schema, _ = requested_schema(request)
        user = request["messages"][-1]["content"]
        if schema == "RelevantEntries":
            ids = [int(m.group(1)) for m in re.finditer(r"^\[(\d+)\] ", user, re.M)]
            return {"entries": [{"id": i, "pr": None, "relevance": 0.9, "reason": "r"} for i in ids]}
        if schema == "PRScore":
            prompts.append(user)
            return {"confidence": "medium", "reason": "The commit message names the listener loop."}
        if schema == "PRVerdict":
            return {"objection": None, "confirmed": True, "reason": "ok"}
        return None

    with FakeOpenAI(respond) as llm:
        _ask(cache, fake, engine="openai", openai_url=llm.url)
    assert prompts and any("Commit message:" in p and "reconnection of the socket" in p for p in prompts), prompts
