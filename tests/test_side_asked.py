"""The other-side objection (objections.on_the_side_asked): a fix about the other side of an exchange (requests for
a problem with responses) is the same subject's other trigger, at most an objected MEDIUM."""

from __future__ import annotations

import pytest

from wif_action import lexicon
from wif_action.models import Confidence, PullRequest, Score
from wif_action.objections import on_the_side_asked, weighed
from wif_action.question import analyse_question

TRUNCATED = analyse_question("When the connection is dropped while a response body is still streaming, the body just "
                             "ends as if it were complete.")
TRAILERS = analyse_question("The response trailers after a chunked body fail to parse in our client.")


def pull(title: str) -> PullRequest:
    return PullRequest(repo="o/r", number=1, title=title, body="", url="https://example.invalid/1")


def objection(title: str, question, level: str = "high") -> Score | None:
    return on_the_side_asked(Score(confidence=Confidence(level), reason="R."), pull(title), None, question)


@pytest.mark.parametrize(("title", "question"), [
    # it qualifies the thing by the other side ("request body") that the problem qualifies by its own
    ("http2: cancel sending client request body on response future drop", TRUNCATED),
    ("Fix request trailers after a chunked body", TRAILERS),
])
def test_a_fix_of_the_other_side_is_an_objected_medium(title, question):
    for level in ("high", "medium"):
        found = objection(title, question, level)
        assert found is not None and found.confidence == Confidence.MEDIUM
        assert "about the request side, and the problem is about the response" in found.reason


@pytest.mark.parametrize(("title", "question"), [
    ("http1: send error when the connection is dropped mid-body", TRUNCATED),  # names no side: the spec's MEDIUM
    ("Fix truncated response bodies when the connection drops", TRUNCATED),  # the problem's own side
    ("Fix the response body of retried requests", TRUNCATED),  # the other side qualifies another thing
    # only the other side, and the problem only its own, but not of the same thing: "requests" may be the exchange
    ("http1: allow keep-alive for chunked requests with trailers", TRAILERS),
    # a problem naming both sides objects to nothing
    ("Fix trailers of chunked requests",
     analyse_question("Trailers of chunked requests and responses are dropped.")),
    # the problem names no side
    ("Fix trailers of chunked requests", analyse_question("Trailers after a chunked body are dropped.")),
])
def test_a_fix_of_the_same_side_or_of_none_is_not_objected_to(title, question):
    assert objection(title, question) is None


def test_a_low_score_stays_low():
    assert objection("Fix request trailers after a chunked body", TRAILERS, "low") is None


def test_every_score_goes_through_the_side_check():
    """`weighed` (what `PrEvaluator` applies to every engine's score) runs the check: a unit test of the check alone
    stays green when it is left out of `objections.CHECKS`."""
    score, objected = weighed(Score(confidence=Confidence.HIGH, reason="R."),
                              pull("Fix request trailers after a chunked body"), None, TRAILERS)
    assert objected and score.confidence == Confidence.MEDIUM


def test_the_sides_are_the_lexicons():
    """Without the `[[counterpart]]` record the requests of a note are no side, and nothing is objected to."""
    tables = lexicon.data()
    tables["counterpart"] = []
    lexicon.use(tables)
    try:
        question = analyse_question("The response trailers after a chunked body fail to parse in our client.")
        assert not question.sides
        assert objection("Fix request trailers after a chunked body", question) is None
    finally:
        lexicon.use(None)


def test_the_sides_a_text_names_and_what_each_qualifies():
    assert lexicon.sides_named("cancel sending client request body on Response future drop") == {
        "request": frozenset({"bodi"}), "response": frozenset({"futur"})}
    assert lexicon.sides_named("Fix requests to the server") == {"request": frozenset()}  # "to": a stopword
