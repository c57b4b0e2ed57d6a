"""A change to what a failure's message says is no fix of the failure itself (objections.only_the_message)."""

from __future__ import annotations

import pytest

from wif_action.models import Confidence, PullRequest, Score
from wif_action.objections import only_the_message, weighed
from wif_action.question import analyse_question

FAILURE = analyse_question("Connecting through Sentinel servers that require a password fails: the client never "
                           "authenticates to the sentinels.")


def pull(title: str) -> PullRequest:
    return PullRequest(repo="o/r", number=1, title=title, body="", url="https://example.invalid/1")


@pytest.mark.parametrize(("title", "level", "objected"), [
    ("Fix #1879: Improve exception message when the wrong password is used (#2246 by NickCraver)", "high", True),
    ("Auth: Better exception for bad passwords", "high", True),  # an area label, then the lead
    ("fix(#7875): update error message for missing GrpcSenderProvider dependency", "medium", True),
    ("Improve the message when a Sentinel password is missing", "medium", True),
    ("Clearer errors", "medium", True),
    ("Fix authentication to Sentinel servers and improve the error message", "high", False),  # the fix leads
    ("Better error handling for Sentinel connections", "high", False),  # handling errors is behaviour
    ("Improve message batching for Sentinel connections", "high", False),  # a message as data, not a report
    ("Fix #1428: Add `auth` to command-map for Sentinel", "high", False),
    ("Auth: Better exception for bad passwords", "low", False),
])
def test_a_reworded_failure_message_is_an_objected_medium_for_the_failure(title, level, objected):
    objection = only_the_message(Score(confidence=Confidence(level), reason="R."), pull(title), None, FAILURE)
    if not objected:
        assert objection is None
    else:
        assert objection is not None and objection.confidence == Confidence.MEDIUM
        assert "message" in objection.reason


@pytest.mark.parametrize("problem", [
    "When the log exporter's library is missing, the startup error tells us to add a dependency whose name does not "
    "exist, so we cannot follow it.",
    "With a misspelled organization, the upload told us our server was too old for the upload format.",
    "The error message for a wrong password is misleading: it says the server timed out.",
])
def test_a_problem_about_what_a_message_says_is_answered_by_a_reworded_message(problem):
    """The error "tells us", the upload "told us", a misleading message: what the failure says is the problem, which a
    reworded message may fix."""
    assert only_the_message(Score(confidence=Confidence.HIGH, reason="R."),
                            pull("Improve error message when the wrong password is used"), None,
                            analyse_question(problem)) is None


def test_every_score_goes_through_the_message_check():
    """`weighed` (what `PrEvaluator` applies to every engine's score) runs it: a unit test of the check alone stays
    green when it is left out of `objections.CHECKS`."""
    score, objected = weighed(Score(confidence=Confidence.HIGH, reason="R."),
                              pull("Improve exception message when the wrong password is used"), None, FAILURE)
    assert objected and score.confidence == Confidence.MEDIUM
