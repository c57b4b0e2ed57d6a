"""A line of a release the customer already runs rivals a later ✓ (`scan_demotions.demote_behind_held_lines`,
issue 21), pinned at the spec's boundary: the customer's own release is held (a rival, never an answer); the
release just after it is scanned (a candidate). Real cache (SQLite), real workflow, offline engine, fake GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cache_helpers import line_pulls, releases_with_filler
from tests.fakes.github_server import FakeGitHub
from tests.lexicon_helpers import use_weights
from tests.workflow_helpers import ask
from wif_action.models import AskInput, Confidence, Outcome
from wif_action.tools.cache import SqliteReleaseCache

REPO = "acme/sockets"
PROBLEM = "Large WebSocket messages that arrive in masked fragments are read corrupted."
FIX = "Fixed reading fragmented WebSocket messages when the payload was masked"  # what 1.1.0 says
LATER = "Fixed control frames breaking fragmented WebSocket messages"  # another trigger, in 1.2.0
FILLER = ["Update the docs footer", "Bump the test matrix", "Tidy the changelog script", "Rename an internal helper"]
LINES = {"1.0.0": FILLER[0], "1.1.0": FIX, "1.2.0": LATER, "1.3.0": FILLER[1]}
PRS = {"1.0.0": 10, "1.1.0": 11, "1.2.0": 12, "1.3.0": 13}


def cache_with(path: Path) -> Path:
    """REPO's releases 1.0.0–1.3.0, oldest first, each with its line and a few unrelated ones."""
    return releases_with_filler(path, REPO, LINES, PRS, FILLER[1:])


@pytest.fixture
def github():
    with FakeGitHub() as fake:
        fake.add_repo(REPO, pulls=line_pulls(LINES, PRS))
        yield fake


def test_a_fix_in_the_customers_own_release_rivals_a_later_high(tmp_path, github, lexicon_restored) -> None:
    """Customer on 1.1.0, whose line names the problem: 1.2.0's fix of another trigger, a ✓ on its own, is only a
    MEDIUM, its reason saying the customer's version already has a matching line; 1.1.0's PR is never a candidate
    (the spec: a fix at or before the version is discarded)."""
    path = cache_with(tmp_path / "cache.db")
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.1.0", problem=PROBLEM))
    assert answer.outcome == Outcome.MEDIUM, answer.message
    assert [c.pr for c in answer.candidates] == [12]
    assert "your version already includes 1.1.0, whose line for PR #11 names the problem" in answer.candidates[0].reason
    use_weights(held_releases=0)  # the rule off: the later line is a ✓
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.1.0", problem=PROBLEM))
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 12, answer.message


def test_a_held_line_naming_as_many_of_the_problems_ideas_rivals_by_breadth(tmp_path, github, lexicon_restored) -> None:
    """A held line carries its breadth (the problem's ideas it names, each once) like a scanned candidate, so
    `rival_breadth` weighs it too: with the strength route out of reach (held_rival 1000), 1.1.0's line naming at
    least as many of the ideas as 1.2.0's still demotes that ✓; with `rival_breadth` off it does not."""
    path = cache_with(tmp_path / "cache.db")
    use_weights(held_rival=1000.0, rival_breadth=1.0)
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.1.0", problem=PROBLEM))
    assert answer.outcome == Outcome.MEDIUM and [c.pr for c in answer.candidates] == [12], answer.message
    use_weights(rival_breadth=float("inf"), held_specific=0.0)  # (1.1.0 also names "masked", which 1.2.0 lacks)
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.1.0", problem=PROBLEM))
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 12, answer.message


def test_the_release_just_after_the_customers_is_a_candidate_not_a_rival(tmp_path, github) -> None:
    """Customer on 1.0.0: 1.1.0 is the first release scanned, so its line is the ✓ (not a rival of 1.2.0's)."""
    path = cache_with(tmp_path / "cache.db")
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.0.0", problem=PROBLEM))
    assert answer.outcome == Outcome.HIGH, answer.message
    assert answer.candidates[0].pr == 11 and answer.candidates[0].confidence == Confidence.HIGH


def test_the_held_releases_are_the_customers_and_those_before_it(tmp_path) -> None:
    """`stable_up_to`: the newest N stable releases at or before the customer's, theirs included, oldest first;
    the release after it is the scan's (`stable_after`), never held."""
    cache = SqliteReleaseCache.open(cache_with(tmp_path / "cache.db"))
    customer = cache.find_release(REPO, "1.1.0")
    assert customer is not None
    assert [r.tag for r in cache.stable_up_to(REPO, customer.version_key, 5)] == ["1.0.0", "1.1.0"]
    assert [r.tag for r in cache.stable_up_to(REPO, customer.version_key, 1)] == ["1.1.0"]
    assert [r.tag for r in cache.stable_after(REPO, customer.version_key, 5)] == ["1.2.0", "1.3.0"]


RESUMED = {**LINES, "1.3.0": "Fixed masked fragments being read as corrupted data"}  # the fix, after the rivalled ✓


def test_the_scan_goes_on_past_a_high_its_customers_own_line_rivals(tmp_path, github, lexicon_restored) -> None:
    """Customer on 1.1.0: 1.2.0's line, a ✓ on its own, is rivalled by the customer's own line, so it is another fix
    of the same area; the scan goes on (lexicon `held_resume`) and judges 1.3.0's line, which it never reached when
    it stopped at the ✓ and lowered it only afterwards."""
    path = releases_with_filler(tmp_path / "cache.db", REPO, RESUMED, PRS, FILLER[1:])
    github.add_repo(REPO, pulls=line_pulls(RESUMED, PRS))
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.1.0", problem=PROBLEM))
    assert 13 in [c.pr for c in answer.candidates], answer.message
    assert next(c for c in answer.candidates if c.pr == 12).confidence == Confidence.MEDIUM
    use_weights(held_resume=0)  # the HIGH lowered after the scan stopped at it: 1.3.0 is never judged
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.1.0", problem=PROBLEM))
    assert [c.pr for c in answer.candidates] == [12], answer.message
