"""A release line citing only a commit holds back a later ✓ of its subject, as an older PR line would.

openai-node's null-body case: "avoid serializing null optional bodies (e4ddff6)" (6.45.0) is the fix, the judge
confirms it HIGH on its words and the commit cap keeps it MEDIUM (no PR to confirm the note); the scan goes on and
"handle empty JSON response body without content-length" (7.5.0 #1998), naming more of the problem's words, reached
✓. An older PR line so confirmed would have ended the scan as the ✓.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.lexicon_helpers import use_weights
from tests.workflow_helpers import ask
from wif_action.candidate_order import older_rivals, top_candidate
from wif_action.models import AskInput, Candidate, Confidence, Grounds
from wif_action.subtasks.scan_demotions import demote_behind_older_rivals
from wif_action.subtasks.scan_state import ScanResult

REPO = "acme/gadget-js"
SHA = "e4ddff6f2085b1c69eaa790e48d1a22d2dd9d7fb"
PROBLEM = ("A POST we send through the client's generic request method with an empty (null) body goes out as the "
           "text null with a JSON content type, and the server refuses it.")
LATER = "handle an empty JSON response body the server sends to a POST request without content-length"
# Other lines of the repository: they make "JSON", "content", "server", "POST" and "request" everyday words of its
# notes, so the later line's most specific subject is "body", the word both fixes name.
FILLERS = ("add JSON content `organization` server resources for POST requests",
           "support JSON content server streaming uploads in POST requests",
           "update the JSON content websocket server adapter for POST requests",
           "improve JSON content server retries docs for POST requests")


def _release(minor: int, body: str) -> dict:
    tag = f"v1.{minor}.0"
    return {"tag_name": tag, "name": tag, "published_at": f"2026-{minor + 1:02d}-01T10:00:00Z", "draft": False,
            "prerelease": False, "html_url": f"https://github.com/{REPO}/releases/tag/{tag}", "body": body}


def _pull(number: int, title: str, body: str = "") -> dict:
    return {"number": number, "title": title, "body": body, "merged": True, "merged_at": "2026-01-01T00:00:00Z"}


@pytest.fixture(scope="module")
def commit_rival_cache(tmp_path_factory) -> Iterator[tuple[Path, FakeGitHub]]:
    """1.1.0 fixes it by a line citing only a commit; 1.7.0, two batches later, has a PR line about another body."""
    releases = [_release(0, "### Features\n\n* **api:** add projects endpoints (#1)\n"),
                _release(1, "### Bug Fixes\n\n* avoid serializing null optional bodies "
                            f"([e4ddff6](https://github.com/{REPO}/commit/{SHA}))\n"),
                *[_release(minor, f"### Features\n\n* **api:** {FILLERS[minor % 4]} (#{20 + minor})\n")
                  for minor in range(2, 7)],
                _release(7, f"### Bug Fixes\n\n* **client:** {LATER} ([#30](https://github.com/{REPO}/issues/30))\n")]
    pulls = [_pull(1, "feat(api): add projects endpoints"),
             *[_pull(20 + minor, f"feat(api): {FILLERS[minor % 4]}") for minor in range(2, 7)],
             _pull(30, f"fix(client): {LATER}",
                   "When the server answers with an empty body and no content-length, parsing the JSON failed.")]
    with FakeGitHub() as fake:
        fake.add_repo(REPO, releases=list(reversed(releases)), pulls=pulls)
        path = tmp_path_factory.mktemp("commit-rivals") / "cache.db"
        build_cache(path, fake, [REPO], pulls="recent", max_pulls=None)
        yield path, fake


def test_an_older_commit_line_holds_back_a_later_tick_of_its_subject(commit_rival_cache, lexicon_restored) -> None:
    """The commit line (confirmed HIGH on its words, capped at MEDIUM) demotes the later PR line's ✓ although it
    names less of the problem (strength 13 against 23; the breadth path is off here so only this rule can act), and
    leads the answer, linked to its commit; the later line is listed after it, its reason saying why."""
    path, fake = commit_rival_cache
    use_weights(rival_breadth=float("inf"))
    answer, _ = ask(path, fake.url, AskInput(repo=REPO, version="1.0.0", problem=PROBLEM))
    assert answer.outcome.value == "medium", answer.message
    first, later = answer.candidates[0], answer.candidates[1]
    assert (first.version, first.pr, first.commit) == ("1.1.0", None, SHA)
    assert (later.version, later.pr, later.confidence, later.objected) == ("1.7.0", 30, Confidence.MEDIUM, True)
    assert "commit e4ddff6 of the older 1.1.0 is about the same thing and matched the problem first" in later.reason
    assert f"[commit e4ddff6](https://github.com/{REPO}/commit/{SHA})" in answer.message
    assert "✓" not in answer.message
    assert answer.message.index(f"/commit/{SHA})") < answer.message.index("/pull/30)")


def test_without_the_commit_line_the_later_line_keeps_its_tick(commit_rival_cache, lexicon_restored) -> None:
    """The same question asked of a customer already past the commit's release: nothing older rivals 1.7.0 #30,
    which is a ✓ (what the rule changes is the rival, not the later line's own level)."""
    path, fake = commit_rival_cache
    use_weights(rival_breadth=float("inf"))
    answer, _ = ask(path, fake.url, AskInput(repo=REPO, version="1.1.0", problem=PROBLEM))
    assert answer.outcome.value == "high" and (answer.candidates[0].version, answer.candidates[0].pr) == ("1.7.0", 30)


def _candidate(version: str, confidence: Confidence, strength: float, *, pr: int | None = None,
               commit: str | None = None) -> Candidate:
    url = f"https://github.com/{REPO}/" + (f"pull/{pr}" if pr is not None else f"commit/{commit}")
    return Candidate(version=version, tag=version, pr=pr, commit=commit, url=url, confidence=confidence,
                     reason="r", strength=strength)


def _grounds(by_change: dict[str, Grounds]) -> Callable[[Candidate], Grounds | None]:
    return lambda c: by_change.get(str(c.pr) if c.pr is not None else str(c.commit))


LATER_GROUNDS = Grounds(subjects=("bodi", "json", "content"), own_text=True)
COMMIT_LINE = Grounds(subjects=("null", "bodi"), commit_line=True)


def test_a_commit_line_is_its_own_text_and_a_capped_one_rivals_by_its_subject(lexicon_restored) -> None:
    """`older_rivals`: a line citing only a commit rivals as a PR line whose PR was read (here at 0.9 of the later
    HIGH's strength); weaker, it rivals only when it was a confirmed HIGH a cap lowered (`Grounds.capped`), and
    then by the HIGH's subject alone. A line whose PR could not be read still rivals nothing; neither does a
    capped line of the HIGH's own release, one about another subject, nor any with the rule off (older_rival inf)."""
    use_weights(older_rival=0.8, rival_breadth=float("inf"))
    high = _candidate("7.5.0", Confidence.HIGH, 22.8, pr=1998)
    strong = _candidate("6.45.0", Confidence.MEDIUM, 20.5, commit="e4ddff6")
    weak = replace(strong, strength=13.6)
    assert older_rivals([strong, high], _grounds({"1998": LATER_GROUNDS, "e4ddff6": COMMIT_LINE})) == [(high, strong)]
    unread = Grounds(subjects=COMMIT_LINE.subjects)  # a PR line whose PR details were unavailable
    assert older_rivals([strong, high], _grounds({"1998": LATER_GROUNDS, "e4ddff6": unread})) == []
    assert older_rivals([weak, high], _grounds({"1998": LATER_GROUNDS, "e4ddff6": COMMIT_LINE})) == []
    capped = replace(COMMIT_LINE, capped=True)
    assert older_rivals([weak, high], _grounds({"1998": LATER_GROUNDS, "e4ddff6": capped})) == [(high, weak)]
    same_release = replace(weak, version="7.5.0", tag="7.5.0")  # one of a 300-line release's lines: no rival
    assert older_rivals([same_release, high], _grounds({"1998": LATER_GROUNDS, "e4ddff6": capped})) == []
    elsewhere = replace(capped, subjects=("null", "serial"))
    assert older_rivals([weak, high], _grounds({"1998": LATER_GROUNDS, "e4ddff6": elsewhere})) == []
    use_weights(older_rival=float("inf"))
    assert older_rivals([weak, high], _grounds({"1998": LATER_GROUNDS, "e4ddff6": capped})) == []


def test_a_high_held_back_by_the_first_match_cannot_lead_as_the_clear_match(lexicon_restored) -> None:
    """The demoted line names far more of the problem (the clear leader by `lead_margin`), yet the capped commit
    line it was demoted behind leads: the demoted line is marked objected. Behind an ordinary rival it is not."""
    use_weights(older_rival=0.3)
    grounds = _grounds({"1998": LATER_GROUNDS, "e4ddff6": replace(COMMIT_LINE, capped=True)})
    first = _candidate("6.45.0", Confidence.MEDIUM, 10.0, commit="e4ddff6")
    result = ScanResult(candidates=[first, _candidate("7.5.0", Confidence.HIGH, 25.0, pr=1998)])
    notes: list[str] = []
    demote_behind_older_rivals(result, grounds, notes.append)
    assert [(c.confidence, c.objected) for c in result.candidates] == [(Confidence.MEDIUM, False),
                                                                       (Confidence.MEDIUM, True)]
    assert top_candidate(result.candidates) is first
    assert notes == ["PR #1998 (7.5.0) lowered to medium: commit e4ddff6 of the older 6.45.0 is about the same "
                     "thing and matched the problem first."]
    ordinary = _grounds({"1998": LATER_GROUNDS, "e4ddff6": COMMIT_LINE})
    result = ScanResult(candidates=[first, _candidate("7.5.0", Confidence.HIGH, 25.0, pr=1998)])
    demote_behind_older_rivals(result, ordinary)
    assert not result.candidates[1].objected and top_candidate(result.candidates).pr == 1998
