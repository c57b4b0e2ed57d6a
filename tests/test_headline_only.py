"""A change to one side of a failure only is no fix of the failure itself: a reworded message
(objections.only_the_message) or type declarations (objections.only_the_types). Both share one headline check
(`objections._headline_only`), so both are held to one table shape here."""

from __future__ import annotations

import pytest

from wif_action.models import Confidence, PullRequest, Score
from wif_action.objections import only_the_message, only_the_types, weighed
from wif_action.question import analyse_question

FAILURE = analyse_question("Connecting through Sentinel servers that require a password fails: the client never "
                           "authenticates to the sentinels.")
RUN_TIME = analyse_question("Running under Pyodide, a request to a URL without a port fails with "
                            "\"TypeError: Failed to parse URL from https://host:None/\".")
MESSAGE = (only_the_message, FAILURE, "message")
TYPES = (only_the_types, RUN_TIME, "type declarations only")


def pull(title: str) -> PullRequest:
    return PullRequest(repo="o/r", number=1, title=title, body="", url="https://example.invalid/1")


@pytest.mark.parametrize(("check", "title", "level", "objected"), [
    (MESSAGE, "Fix #1879: Improve exception message when the wrong password is used (#2246 by NickCraver)", "high",
     True),
    (MESSAGE, "Auth: Better exception for bad passwords", "high", True),  # an area label, then the lead
    (MESSAGE, "fix(#7875): update error message for missing GrpcSenderProvider dependency", "medium", True),
    (MESSAGE, "Improve the message when a Sentinel password is missing", "medium", True),
    (MESSAGE, "Clearer errors", "medium", True),
    (MESSAGE, "Fix authentication to Sentinel servers and improve the error message", "high", False),  # fix leads
    (MESSAGE, "Better error handling for Sentinel connections", "high", False),  # handling errors is behaviour
    (MESSAGE, "Improve message batching for Sentinel connections", "high", False),  # a message as data
    (MESSAGE, "Fix #1428: Add `auth` to command-map for Sentinel", "high", False),
    (MESSAGE, "Auth: Better exception for bad passwords", "low", False),
    (TYPES, "types: export CJS types from ESM (#6218) (c71811b)", "medium", True),  # the commit type says types only
    (TYPES, "typings: accept string | undefined as init argument", "high", True),
    (TYPES, "Fixed ``BaseHTTPResponse.readinto()`` type annotation to accept ``memoryview``", "medium", True),
    (TYPES, "Fixed type of ``SSLContext`` for some static type checkers (e.g. pyright).", "medium", True),
    (TYPES, "Fixed ``HTTPConnectionPool`` when used in Emscripten with no explicit port.", "medium", False),
    (TYPES, "Fix TypeError when Resque.inline == true", "medium", False),  # an exception at run time
    (TYPES, "http: fixed proxy-from-env module import", "medium", False),
    (TYPES, "types: export CJS types from ESM", "low", False),
])
def test_a_change_to_one_side_of_the_failure_is_an_objected_medium(check, title, level, objected):
    function, question, word = check
    objection = function(Score(confidence=Confidence(level), reason="R."), pull(title), None, question)
    if not objected:
        assert objection is None
    else:
        assert objection is not None and objection.confidence == Confidence.MEDIUM
        assert word in objection.reason


@pytest.mark.parametrize(("function", "title", "problem"), [
    (only_the_message, "Improve error message when the wrong password is used",
     "When the log exporter's library is missing, the startup error tells us to add a dependency whose name does "
     "not exist, so we cannot follow it."),
    (only_the_message, "Improve error message when the wrong password is used",
     "With a misspelled organization, the upload told us our server was too old for the upload format."),
    (only_the_message, "Improve error message when the wrong password is used",
     "The error message for a wrong password is misleading: it says the server timed out."),
    (only_the_types, "types: make tolerance optional in constructEvent",
     "After upgrading, TypeScript insists on extra arguments when we verify a webhook event."),
    (only_the_types, "types: make tolerance optional in constructEvent",
     "mypy reports that the client's timeout argument has an incompatible type."),
    (only_the_types, "types: make tolerance optional in constructEvent",
     "The build fails with error TS2305: Module has no exported member ResponseInput."),
    (only_the_types, "types: make tolerance optional in constructEvent",
     "The HTTP status code enum the type definitions declare is undefined at run time."),
])
def test_a_problem_about_that_side_is_answered_by_such_a_change(function, title, problem):
    """What the failure says (the error "tells us", a misleading message) or what a type checker reads (TypeScript,
    mypy, a compiler's error code, type definitions) is the problem, which such a change may fix."""
    assert function(Score(confidence=Confidence.HIGH, reason="R."), pull(title), None,
                    analyse_question(problem)) is None


@pytest.mark.parametrize(("level", "title", "question"), [
    ("high", "Improve exception message when the wrong password is used", FAILURE),
    ("medium", "types: export CJS types from ESM", RUN_TIME),
])
def test_every_score_goes_through_both_checks(level, title, question):
    """`weighed` (what `PrEvaluator` applies to every engine's score) runs them: a unit test of a check alone stays
    green when it is left out of `objections.CHECKS`."""
    score, objected = weighed(Score(confidence=Confidence(level), reason="R."), pull(title), None, question)
    assert objected and score.confidence == Confidence.MEDIUM
