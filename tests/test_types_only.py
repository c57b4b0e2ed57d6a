"""A change to type declarations only is no fix of a failure at run time (objections.only_the_types)."""

from __future__ import annotations

import pytest

from wif_action.models import Confidence, PullRequest, Score
from wif_action.objections import only_the_types, weighed
from wif_action.question import analyse_question

RUN_TIME = analyse_question("Running under Pyodide, a request to a URL without a port fails with "
                            "\"TypeError: Failed to parse URL from https://host:None/\".")


def pull(title: str) -> PullRequest:
    return PullRequest(repo="o/r", number=1, title=title, body="", url="https://example.invalid/1")


@pytest.mark.parametrize(("title", "level", "objected"), [
    ("types: export CJS types from ESM (#6218) (c71811b)", "medium", True),  # the commit type says types only
    ("typings: accept string | undefined as init argument", "high", True),
    ("Fixed ``BaseHTTPResponse.readinto()`` type annotation to accept ``memoryview``", "medium", True),
    ("Fixed type of ``SSLContext`` for some static type checkers (e.g. pyright).", "medium", True),
    ("Fixed ``HTTPConnectionPool`` when used in Emscripten with no explicit port.", "medium", False),
    ("Fix TypeError when Resque.inline == true", "medium", False),  # an exception at run time, not a declaration
    ("http: fixed proxy-from-env module import", "medium", False),
    ("types: export CJS types from ESM", "low", False),
])
def test_a_change_to_type_declarations_only_is_an_objected_medium_for_a_run_time_failure(title, level, objected):
    objection = only_the_types(Score(confidence=Confidence(level), reason="R."), pull(title), None, RUN_TIME)
    if not objected:
        assert objection is None
    else:
        assert objection is not None and objection.confidence == Confidence.MEDIUM
        assert "type declarations only" in objection.reason


@pytest.mark.parametrize("problem", [
    "After upgrading, TypeScript insists on extra arguments when we verify a webhook event.",
    "mypy reports that the client's timeout argument has an incompatible type.",
    "The build fails with error TS2305: Module has no exported member ResponseInput.",
    "The HTTP status code enum the type definitions declare is undefined at run time.",
])
def test_a_problem_about_types_is_answered_by_a_change_of_types(problem):
    """TypeScript, mypy, a compiler's error code, type definitions: the problem is what a type checker reads (or
    names the declarations), which such a change may fix."""
    assert only_the_types(Score(confidence=Confidence.HIGH, reason="R."),
                          pull("types: make tolerance optional in constructEvent"), None,
                          analyse_question(problem)) is None


def test_every_score_goes_through_the_types_check():
    """`weighed` (what `PrEvaluator` applies to every engine's score) runs it: a unit test of the check alone stays
    green when it is left out of `objections.CHECKS`."""
    score, objected = weighed(Score(confidence=Confidence.MEDIUM, reason="R."),
                              pull("types: export CJS types from ESM"), None, RUN_TIME)
    assert objected and score.confidence == Confidence.MEDIUM
