"""Release-note lines that cite a commit and no PR: parsed, stored, judged with the note as the only text, and
answered with the release and the commit (linked), never with a PR the notes do not cite."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from indexer.registry import Registry
from indexer.release_notes import parse_release_notes
from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, requested_schema
from tests.workflow_helpers import ask
from wif_action.app import AppConfig, build_workflow
from wif_action.candidate_order import candidate_order
from wif_action.cli import main
from wif_action.engines.offline.judge import OfflineJudge
from wif_action.journal import Journal
from wif_action.models import Answer, AskInput, Candidate, Confidence, PullRequest, Score
from wif_action.objections import more_than_the_note, weighed
from wif_action.ports import AnalysisTools
from wif_action.question import analyse_question
from wif_action.run_context import Run
from wif_action.subtasks.resolve_answer import Findings, resolve_answer
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.progress import RecordingProgress

FIXTURE = json.loads((Path(__file__).parent / "data" / "commit_notes" / "acme__widget-js.json").read_text())
REPO = FIXTURE["repo"]
QUERY_SHA = "92e109c4e5f60718293a4b5c6d7e8f9012345678"
STREAM_SHA = "a3f5c7e9b1d2468ace0f13579bdf2468ace13579"


@pytest.mark.parametrize(("bullet", "commits"), [
    ("* **client:** preserve query params on base_url (92e109c)", ("92e109c",)),
    ("* **client:** x ([92e109c](https://github.com/acme/widget-js/commit/92e109c4e5f60718293a4b5c6d7e8f9012345678))",
     (QUERY_SHA,)),
    (f"- Fix streaming https://github.com/acme/widget-js/commit/{STREAM_SHA}", (STREAM_SHA,)),
    (f"- Fix streaming {STREAM_SHA}", (STREAM_SHA,)),  # a full SHA anywhere
    ("- 4c5d6e7: Fix retries", ("4c5d6e7",)),  # changesets' leading hash
    ("- Fix `4c5d6e7` retries", ("4c5d6e7",)),
    # another repository's commits: kept with their repository, after this repository's own
    (f"- Bump core https://github.com/other/core/commit/{STREAM_SHA}", (f"other/core@{STREAM_SHA}",)),
    ("- Bump core ([a1b2c3d](https://github.com/other/core/commit/a1b2c3d)) (a1b2c3d)", ("other/core@a1b2c3d",)),
    ("- x ([a1b2c3d](https://github.com/other/core/commit/a1b2c3d)) (92e109c)", ("92e109c", "other/core@a1b2c3d")),
    # not hashes
    ("- Fix (deadbeef) the (1234567) words", ()),  # a hex word has no digit; a number has no letter
    ("- Fix a1b2c3d in the middle of a sentence", ()),  # bare short hashes are too easily words or ids
])
def test_the_parser_finds_the_commits_a_line_cites(bullet: str, commits: tuple[str, ...]) -> None:
    (entry,) = parse_release_notes(bullet, REPO)
    assert entry.commits == commits


def test_a_line_citing_a_pr_and_a_commit_keeps_both() -> None:
    (entry,) = parse_release_notes("* **client:** x ([#27](https://github.com/acme/widget-js/issues/27)) "
                                   f"([92e109c](https://github.com/acme/widget-js/commit/{QUERY_SHA}))", REPO)
    assert (entry.prs, entry.commits) == ((27,), (QUERY_SHA,))


def test_a_paragraph_citing_only_another_repository_s_commit_is_no_entry_of_a_body_without_entries() -> None:
    """Prose bodies keep the pieces that cite this repository's change (prose.py): a thank-you naming another
    repository's commit is not one."""
    own = parse_release_notes(f"Fixed the retries (https://github.com/acme/widget-js/commit/{STREAM_SHA}).", REPO)
    other = parse_release_notes(f"Thanks to the fix in https://github.com/other/core/commit/{STREAM_SHA}.", REPO)
    assert [e.commits for e in own] == [(STREAM_SHA,)] and other == []


ENGINE = "acme/engine-js"
ENGINE_SHA = "d55c39e0ed5cb7b3a34875a398efc111c91184f6"


def test_a_line_citing_only_another_repository_s_commit_is_answered_with_that_commit(tmp_path) -> None:
    """socket.io-client's notes cite engine.io-client's commits for the fixes it ships from there: the answer links
    that repository's commit (it was dropped: the line cited no change of its own)."""
    body = ("### Bug Fixes\n\n* **webtransport:** properly handle abruptly closed connections "
            f"([d55c39e](https://github.com/{ENGINE}/commit/{ENGINE_SHA}))\n")
    release = {"tag_name": "v2.1.0", "name": "v2.1.0", "published_at": "2026-05-01T10:00:00Z", "draft": False,
               "prerelease": False, "html_url": f"https://github.com/{REPO}/releases/tag/v2.1.0", "body": body}
    older = {**release, "tag_name": "v2.0.0", "name": "v2.0.0", "published_at": "2026-04-01T10:00:00Z",
             "html_url": f"https://github.com/{REPO}/releases/tag/v2.0.0", "body": "### Features\n\n* x (1a2b3c4)\n"}
    fake = FakeGitHub()
    fake.start()
    try:
        fake.add_repo(REPO, releases=[release, older], pulls=[])
        path = tmp_path / "cache.db"
        build_cache(path, fake, [REPO], pulls="recent", max_pulls=None)
        answer, _ = ask(path, fake.url, AskInput(
            repo=REPO, version="2.0.0", problem="WebTransport connections closed abruptly are not handled"))
    finally:
        fake.stop()
    top = answer.candidates[0]
    assert (top.version, top.pr, top.commit, top.repo) == ("2.1.0", None, ENGINE_SHA, ENGINE), answer.message
    assert top.url == f"https://github.com/{ENGINE}/commit/{ENGINE_SHA}"
    assert f"[commit {ENGINE} d55c39e](https://github.com/{ENGINE}/commit/{ENGINE_SHA})" in answer.message


@pytest.fixture(scope="module")
def commit_cache(tmp_path_factory) -> tuple[Path, FakeGitHub]:
    fake = FakeGitHub()
    fake.start()
    fake.add_repo(REPO, releases=FIXTURE["releases"], pulls=[])
    path = tmp_path_factory.mktemp("commits") / "cache.db"
    build_cache(path, fake, [REPO], pulls="recent", max_pulls=None)
    yield path, fake
    fake.stop()


def test_the_cache_stores_each_line_s_commits(commit_cache) -> None:
    path, _ = commit_cache
    cache = SqliteReleaseCache.open(path)
    releases = cache.stable_releases(REPO)
    by_text = {e.text: e.commits for e in cache.entries([r.id for r in releases])}
    assert by_text["client: preserve query params on base_url (92e109c)"] == [QUERY_SHA]
    assert by_text["Fix retries ignoring the `maxRetries` option on timeouts"] == ["4c5d6e7"]


def test_a_fix_citing_only_a_commit_is_answered_with_its_release_and_commit(commit_cache) -> None:
    path, fake = commit_cache
    fake.reset_counts()
    answer, _ = ask(path, fake.url, AskInput(repo=REPO, version="1.0.0",
                                             problem="The client drops the query params of base_url."))
    top = answer.candidates[0]
    assert answer.outcome.value in ("high", "medium"), answer.message  # was no_result: a line with no PR was dropped
    assert (top.version, top.pr, top.commit) == ("1.2.0", None, QUERY_SHA)
    assert top.url == f"https://github.com/{REPO}/commit/{QUERY_SHA}"
    assert "**v1.2.0**" in answer.message and f"[commit 92e109c](https://github.com/{REPO}/commit/{QUERY_SHA})" \
        in answer.message
    assert 'Release note "client: preserve query params on base_url (92e109c)"' in answer.message
    assert not fake.requests_for("GET /repos/{o}/{r}/pulls/{n}"), "no PR to fetch: the note is the only text"


def test_a_short_hash_links_to_the_commit_as_the_notes_spell_it(commit_cache) -> None:
    path, fake = commit_cache
    answer, _ = ask(path, fake.url, AskInput(repo=REPO, version="1.3.0",
                                             problem="Retries ignore the maxRetries option when a request times out"))
    top = answer.candidates[0]
    assert (answer.outcome.value, top.version, top.pr, top.commit) == ("medium", "1.4.0", None, "4c5d6e7")
    assert top.url == f"https://github.com/{REPO}/commit/4c5d6e7"
    assert f"[commit 4c5d6e7](https://github.com/{REPO}/commit/4c5d6e7)" in answer.message
    assert "✓" not in answer.message, "a line citing only a commit has nothing beyond itself to confirm a ✓"
    assert "cites only a commit" in top.reason


def test_json_names_the_commit_and_no_pr(commit_cache, capsys, monkeypatch) -> None:
    path, fake = commit_cache
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    code = main(["ask", "--db", str(path), "--engine", "offline", "--repo", REPO, "--version", "1.2.0",
                 "--problem", "Streaming responses are cut off after 64 KB", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    top = data["candidates"][0]
    assert (data["outcome"], top["version"], top["pr"], top["commit"]) == ("medium", "1.3.0", None, STREAM_SHA)
    assert top["url"] == f"https://github.com/{REPO}/commit/{STREAM_SHA}"


def test_the_run_record_names_the_commit_the_answer_led_with(commit_cache, capsys, monkeypatch, tmp_path) -> None:
    """`top_pr` is null for a line citing only a commit; `top_commit` (m003) names it, and `wif runs list`/`show`
    show it where they show a PR."""
    path, fake = commit_cache
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    runs = tmp_path / "runs.db"
    assert main(["ask", "--quiet", "--db", str(path), "--engine", "offline", "--repo", REPO, "--version", "1.0.0",
                 "--problem", "The client drops the query params of base_url.", "--runs-db", str(runs)]) == 0
    with sqlite3.connect(runs) as conn:
        version, pr, commit, confidence = conn.execute(
            "select top_version, top_pr, top_commit, top_confidence from runs").fetchone()
    conn.close()
    assert (version, pr, commit) == ("1.2.0", None, QUERY_SHA)
    capsys.readouterr()
    assert main(["runs", "list", "--runs-db", str(runs)]) == 0
    assert "1.2.0 commit 92e109c" in capsys.readouterr().out
    assert main(["runs", "show", "last", "--runs-db", str(runs)]) == 0
    assert f"top candidate 1.2.0 commit 92e109c ({confidence})" in capsys.readouterr().out


def test_a_commit_the_run_never_read_is_dropped() -> None:
    journal = Journal()
    journal.read_version("1.2.0")
    journal.read_commit("92e109c", f"https://github.com/{REPO}/commit/92e109c")
    made_up = Candidate(version="1.2.0", tag="v1.2.0", pr=None, commit="ffff111",
                        url=f"https://github.com/{REPO}/commit/ffff111", confidence=Confidence.HIGH, reason="r")
    read = replace(made_up, commit="92e109c", url=f"https://github.com/{REPO}/commit/92e109c")
    answer = resolve_answer(_run(journal), Findings(repo=REPO, candidates=[made_up, read]))
    assert [c.commit for c in answer.candidates] == ["92e109c"]
    assert any("commit ffff111 was not read" in line for line in journal.rejected)


def test_an_older_cache_without_commit_column_still_answers(commit_cache, tmp_path) -> None:
    """m006 is writer-only: `wif ask` reads a cache an older WIF wrote (no `entries.commits`)."""
    path, fake = commit_cache
    old = tmp_path / "old.db"
    old.write_bytes(path.read_bytes())
    conn = sqlite3.connect(old)
    with conn:
        conn.execute("delete from _sqlite_migrations where name = 'm006_entry_commits'")
        conn.execute("alter table entries drop column commits")
    conn.close()
    answer, _ = ask(old, fake.url, AskInput(repo=REPO, version="1.0.0",
                                            problem="The client drops the query params of base_url."))
    assert answer.outcome.value == "no_result" and not answer.candidates


def _run(journal: Journal) -> Run:
    """A run of the offline engine that asked GitHub nothing (resolve_answer reads the tools' usage)."""
    class NoRequests:  # the GitHub port's counter; nothing here asks GitHub
        requests_made = 0

    tools = AnalysisTools(cache=None, github=NoRequests(), judge=OfflineJudge(None, Registry(aliases={})))  # type: ignore[arg-type]
    return Run(tools=tools, journal=journal, progress=RecordingProgress())



def test_a_line_citing_only_a_commit_is_at_most_medium_and_a_pr_line_is_not_capped() -> None:
    """The note is both the match and its only check when no PR stands behind it (the spec's HIGH asks for a
    PR that says it fixes the symptom): HIGH → MEDIUM with the reason; the same score for a PR is kept."""
    high = Score(confidence=Confidence.HIGH, reason="It names the symptom.")
    commit_line = PullRequest(repo=REPO, number=0, title="Fix retries", merged=True, url="u", commit="4c5d6e7")
    capped = more_than_the_note(high, commit_line, None, None)  # type: ignore[arg-type]
    assert capped is not None and capped.confidence == Confidence.MEDIUM and "only a commit" in capped.reason
    pr_line = replace(commit_line, commit=None, number=12)
    assert more_than_the_note(high, pr_line, None, None) is None  # type: ignore[arg-type]


def test_the_commit_cap_objects_to_nothing_so_the_line_keeps_its_place_among_the_mediums() -> None:
    """The cap says the evidence is thin, not that the line is about something else: a capped commit line is an
    unobjected MEDIUM, so the oldest (or the clear leader) leads — not a later, unrelated MEDIUM that an objection
    used to put ahead of it (openai-node 6.18.0's abort-signal fix behind 7.5.0's websocket listeners)."""
    question = analyse_question("Streaming responses are cut off after 64 KB")
    high = Score(confidence=Confidence.HIGH, reason="It names the symptom.", strength=15.9)
    commit_line = PullRequest(repo=REPO, number=0, title="Fix streaming responses being cut off after 64 KB",
                              merged=True, url="u", commit=STREAM_SHA)
    score, objected = weighed(high, commit_line, None, question)
    assert score.confidence == Confidence.MEDIUM and "cites only a commit" in score.reason
    assert not objected
    found = Candidate(version="1.3.0", tag="v1.3.0", pr=None, commit=STREAM_SHA, url="u", confidence=score.confidence,
                      reason=score.reason, objected=objected, strength=15.9)
    later = Candidate(version="1.9.0", tag="v1.9.0", pr=41, url="v", confidence=Confidence.MEDIUM,
                      reason="It shares an everyday word.", strength=14.4)
    assert candidate_order([later, found])[0] is found


INVENTED_SHA = "5d6e7f8a9b0c"


def _llm_naming(commit: str):
    """A scripted model that finds the query-params line and scores it HIGH, its reason naming `commit`."""
    def respond(request: dict) -> object:
        schema, _ = requested_schema(request)
        user = request["messages"][-1]["content"]
        if schema == "RelevantEntries":
            ids = [int(m.group(1)) for m in re.finditer(r"^\[(\d+)\] .*query params.*$", user, re.M)]
            return {"entries": [{"id": i, "pr": None, "relevance": 0.9, "reason": "query params"} for i in ids]}
        if schema == "PRScore":
            return {"confidence": "high", "reason": f"Commit {commit} (https://github.com/{REPO}/commit/{commit}) "
                                                    "preserves the query params of base_url."}
        if schema == "PRVerdict":
            return {"objection": None, "confirmed": True, "reason": "It keeps the query params."}
        return None
    return respond


def _ask_openai(path: Path, github_url: str, openai: FakeOpenAI) -> Answer:
    env = {"GITHUB_API_URL": github_url, "OPENAI_API_KEY": "sk-test-key", "OPENAI_BASE_URL": openai.url + "/v1",
           "WIF_LLM_MAX_RETRIES": "0", "WIF_MODEL": "gpt-test"}
    workflow = build_workflow(AppConfig(db=path, engine="openai", env=env, github_timeout=30), RecordingProgress())
    workflow.tools.fallback = None  # the model's answer alone, no offline engine behind it
    return workflow.run(AskInput(repo=REPO, version="1.0.0", problem="The client drops the query params of base_url."))


def test_an_llm_reason_naming_a_commit_it_was_not_shown_is_rejected(commit_cache, openai_fake) -> None:
    """Every commit reported must come from the data read: a reason naming another commit than the line's is
    rejected like an unread PR or version (its words never shown, the score no more than MEDIUM); the answer
    still names the line's own commit, linked to it."""
    path, fake = commit_cache
    openai_fake.responder = _llm_naming(INVENTED_SHA)
    answer = _ask_openai(path, fake.url, openai_fake)
    assert any(f"commit {INVENTED_SHA}" in claim for claim in answer.rejected_claims), answer.rejected_claims
    assert INVENTED_SHA[:7] not in answer.message
    top = answer.candidates[0]
    assert (top.version, top.pr, top.commit, top.confidence) == ("1.2.0", None, QUERY_SHA, Confidence.MEDIUM)
    assert f"[commit 92e109c](https://github.com/{REPO}/commit/{QUERY_SHA})" in answer.message


def test_an_llm_reason_naming_the_lines_own_commit_is_kept(commit_cache, openai_fake) -> None:
    """The commit the line cites, by its short hash, is data the run read: the reason stands."""
    path, fake = commit_cache
    openai_fake.responder = _llm_naming("92e109c")
    answer = _ask_openai(path, fake.url, openai_fake)
    assert not any("commit" in claim for claim in answer.rejected_claims), answer.rejected_claims
    top = answer.candidates[0]
    assert top.commit == QUERY_SHA and "Commit 92e109c" in top.reason and "preserves the query params" in top.reason
