"""The spec's "prioritize Fixes" (objections.a_fix_for_a_bug): for a broken behaviour, a line the maintainers filed
under a section too light to make a HIGH of a bug report — a feature, a breaking change, a performance note — is at
most MEDIUM and listed after the fixes; a request for missing functionality takes its features as they are."""

from __future__ import annotations

import pytest

from wif_action import lexicon
from wif_action.candidate_order import candidate_order
from wif_action.models import Candidate, Confidence, Entry, PullRequest, Release, Score
from wif_action.objections import a_fix_for_a_bug, weighed
from wif_action.question import analyse_question

BUG = analyse_question("The release the plugin uploads under ignores the release and dist we configured.")
WISH = analyse_question("There is no option to set the release the plugin uploads under.")
RELEASE = Release(id=1, repo="o/r", tag="2.0.0", version="2.0.0", version_key="k")
LINE = "Update env/config `release` and `dist` behaviour (#217)"


def _objection(section: str, question=BUG, level: str = "medium") -> Score | None:
    pull = PullRequest(repo="o/r", number=217, title=LINE, body="", url="https://example.invalid/217")
    entry = Entry(id=1, release=RELEASE, section=section, text=LINE, prs=[217])
    return a_fix_for_a_bug(Score(confidence=Confidence(level), reason="R."), pull, entry, question)


@pytest.mark.parametrize(("section", "why"), [
    ("breaking", "filed under breaking changes, not fixes"),
    ("performance", "filed under performance changes, not fixes"),
    ("feature", "it adds functionality"),
])
def test_a_line_of_a_section_below_the_fixes_is_an_objected_medium_for_a_bug(section, why):
    assert lexicon.section_weights()[section] < lexicon.weight("min_section_for_high")
    objection = _objection(section)
    assert objection is not None and objection.confidence == Confidence.MEDIUM and why in objection.reason


@pytest.mark.parametrize("section", ["fix", "other"])
def test_a_fix_or_an_unlabelled_line_is_not_objected_to(section):
    assert _objection(section) is None


def test_a_request_for_functionality_takes_any_section_and_a_low_is_left_alone():
    assert _objection("breaking", WISH) is None and _objection("feature", WISH) is None
    assert _objection("breaking", level="low") is None


def test_a_later_breaking_change_no_longer_leads_an_older_fix():
    """sentry-dart-plugin: the 2.0.0 breaking change naming far more of the problem led as the clear match; the
    1.5.0 fix ("custom `dist` and `release` has precedence") is the answer."""
    pull = PullRequest(repo="o/r", number=217, title=LINE, body="", url="https://example.invalid/217")
    entry = Entry(id=1, release=RELEASE, section="breaking", text=LINE, prs=[217])
    _, objected = weighed(Score(confidence=Confidence.MEDIUM, reason="R."), pull, entry, BUG)
    fix = Candidate(version="1.5.0", tag="1.5.0", pr=139, url="u", confidence=Confidence.MEDIUM, reason="r",
                    strength=10.0, breadth=0.3)
    breaking = Candidate(version="2.0.0", tag="2.0.0", pr=217, url="u", confidence=Confidence.MEDIUM, reason="r",
                         strength=30.0, breadth=0.5, objected=objected)
    assert [c.pr for c in candidate_order([fix, breaking])] == [139, 217]
