"""The objection to a change that declares no change of behaviour (objections.a_behaviour_change): a `chore:`,
`ref:` or `refactor:` PR is at most MEDIUM — unless the release line the maintainers wrote says it fixes something."""

from __future__ import annotations

import pytest

from wif_action.models import Confidence, Entry, PullRequest, Release, Score
from wif_action.objections import a_behaviour_change
from wif_action.question import analyse_question

QUESTION = analyse_question("Uploads fail to authenticate with an organization token when no server URL is set.")
RELEASE = Release(id=1, repo="o/r", tag="1.6.3", version="1.6.3", version_key="k")


def _objection(title: str, note: str | None, level: str = "high") -> Score | None:
    pull = PullRequest(repo="o/r", number=169, title=title, body="", url="https://example.invalid/169")
    entry = None if note is None else Entry(id=1, release=RELEASE, section="fix", text=note, prs=[169])
    return a_behaviour_change(Score(confidence=Confidence(level), reason="R."), pull, entry, QUESTION)


@pytest.mark.parametrize(("title", "note", "objected"), [
    # the release line tells users it fixes something: the PR's `chore` type is how it was filed, not what it did
    ("chore(deps): update CLI to v2.21.2",
     "Fixes org auth tokens with no URL not supported by bumping CLI to v2.21.2 (#169)", False),
    ("refactor: move token parsing", "Fix org auth tokens without a URL (#169)", False),
    # a release line that says no more than the PR, or declares no behaviour change itself, leaves the objection
    ("chore(deps): update CLI to v2.21.2", "Bump CLI to v2.21.2 (#169)", True),
    ("chore(deps): update CLI to v2.21.2", None, True),
    ("fix: org auth tokens without a URL", "chore: fix token parsing lint (#169)", True),
    ("refactor: move token parsing", "refactor: move token parsing (#169)", True),
])
def test_a_declared_no_behaviour_change_is_medium_unless_its_release_line_says_it_fixes(title, note, objected):
    objection = _objection(title, note)
    assert (objection is not None) == objected
    if objection is not None:
        assert objection.confidence == Confidence.MEDIUM and "declares no change of behaviour" in objection.reason


def test_only_a_high_is_objected_to():
    assert _objection("chore(deps): update CLI to v2.21.2", "Bump CLI to v2.21.2 (#169)", "medium") is None
