"""The kind-of-failure objections (objections.of_the_failure_asked, of_the_exception_asked) and how objected
MEDIUMs rank against a fix not released yet (resolve_answer._outcome_from)."""

from __future__ import annotations

import pytest

from wif_action.models import Candidate, Confidence, Outcome, PullRequest, Score
from wif_action.objections import of_the_exception_asked, of_the_failure_asked, weighed
from wif_action.question import analyse_question
from wif_action.subtasks.resolve_answer import _outcome_from

FROZEN = analyse_question("Session replays look frozen: a segment shows one screen for seconds.")


def pull(title: str) -> PullRequest:
    return PullRequest(repo="o/r", number=1, title=title, body="", url="https://example.invalid/1")


@pytest.mark.parametrize(("title", "level", "after"), [
    ("fix: catch CoreAnimation exceptions that crash the replay", "high", ("medium", "another failure (crash)")),
    ("fix: catch CoreAnimation exceptions that crash the replay", "medium", ("medium", "another failure (crash)")),
    ("Fix replay segments stuck on one screen", "high", None),  # names the hang
    ("Fix replay segments stuck on one screen", "medium", None),
    ("Skip replay frames while the app is in the background", "medium", None),  # a remedy word names no failure
    ("Remove the preview display link", "medium", None),  # names no failure: the spec's MEDIUM
    ("Remove the preview display link", "high", None),
    ("Remove the preview display link", "low", None),
])
def test_a_fix_of_another_failure_is_an_objected_medium(title, level, after):
    objection = of_the_failure_asked(Score(confidence=Confidence(level), reason="R."), pull(title), None, FROZEN)
    if after is None:
        assert objection is None
    else:
        assert objection is not None and objection.confidence == Confidence(after[0]) and after[1] in objection.reason


def test_a_problem_naming_no_failure_gets_no_objection():
    question = analyse_question("Add an option to set the sample rate of profiles.")
    assert of_the_failure_asked(Score(confidence=Confidence.HIGH, reason="R."),
                                pull("fix: crash when the sample rate is zero"), None, question) is None


NPE = analyse_question("compileReleaseKotlin fails with a `NullPointerException` thrown from "
                       "`io.sentry.compose.JetpackComposeTracingIrExtension` in a module without compose-ui.")


@pytest.mark.parametrize(("title", "level", "objected"), [
    # another exception class of the same place: another bug
    ("Fix AbstractMethodError when compose-ui 1.11+ is used with the Sentry Kotlin compiler plugin", "high", True),
    ("Fix AbstractMethodError when compose-ui 1.11+ is used with the Sentry Kotlin compiler plugin", "medium", True),
    ("Fix NullPointerException and AbstractMethodError in the compiler plugin", "high", None),  # names the asked one
    ("Only apply Jetpack Compose instrumentation if the Modifier class is available", "high", None),  # names none
    ("Fix `exceptions_from_error` in the compiler plugin", "high", None),  # a function named like one, no class
    ("Fix AbstractMethodError in the compiler plugin", "low", None),
])
def test_a_fix_of_another_exception_class_is_an_objected_medium(title, level, objected):
    objection = of_the_exception_asked(Score(confidence=Confidence(level), reason="R."), pull(title), None, NPE)
    if objected is None:
        assert objection is None
    else:
        assert objection is not None and objection.confidence == Confidence.MEDIUM
        assert "another failure (AbstractMethodError)" in objection.reason


@pytest.mark.parametrize(("exception", "objected"), [("AbstractMethodError", True), ("NullPointerException", False)])
def test_every_score_goes_through_the_exception_check(exception, objected):
    """`weighed` (what `PrEvaluator` applies to every engine's score) runs the exception check: a unit test of the
    check alone stays green when it is left out of `objections.CHECKS`."""
    score, was_objected = weighed(Score(confidence=Confidence.HIGH, reason="R."),
                                  pull(f"Fix {exception} when compose-ui 1.11+ is used with the compiler plugin"),
                                  None, NPE)
    assert was_objected is objected
    assert score.confidence == (Confidence.MEDIUM if objected else Confidence.HIGH)


def test_an_exception_class_named_in_the_plural_is_another_failure():
    """"Fix rescue_from ValidationErrors exception" names a class of failure as much as "ValidationError" would
    (lexicon `failure_class`, plural too): for a NoMethodError it fixes another exception of the same handler."""
    question = analyse_question("Any exception now ends with `NoMethodError: undefined method` in rescue_from.")
    objection = of_the_exception_asked(Score(confidence=Confidence.HIGH, reason="R."),
                                       pull("Fix rescue_from ValidationErrors exception"), None, question)
    assert objection is not None and "another failure (ValidationErrors)" in objection.reason


def test_a_problem_naming_no_exception_class_gets_no_exception_objection():
    question = analyse_question("The Kotlin compiler crashes on a module without compose-ui.")
    assert of_the_exception_asked(Score(confidence=Confidence.HIGH, reason="R."),
                                  pull("Fix AbstractMethodError in the compiler plugin"), None, question) is None


def candidate(version: str, confidence: str, objected: bool = False) -> Candidate:
    return Candidate(version=version, tag=version, pr=1, url="https://example.invalid/1", reason="R.",
                     confidence=Confidence(confidence), objected=objected, unreleased=version == "unreleased")


@pytest.mark.parametrize(("candidates", "outcome"), [
    ([candidate("9.24.0", "medium", objected=True), candidate("unreleased", "medium")], Outcome.UNRELEASED),
    ([candidate("9.24.0", "medium"), candidate("unreleased", "medium")], Outcome.MEDIUM),  # have it today
    ([candidate("9.24.0", "medium", True), candidate("unreleased", "medium", True)], Outcome.MEDIUM),
    ([candidate("9.24.0", "medium", True), candidate("unreleased", "high")], Outcome.UNRELEASED),
    ([candidate("9.24.0", "high", True), candidate("unreleased", "high")], Outcome.HIGH),
    ([candidate("unreleased", "medium", True)], Outcome.UNRELEASED),
    ([], Outcome.NO_RESULT),
])
def test_an_objected_published_medium_does_not_lead_over_an_unreleased_one_nothing_objects_to(candidates, outcome):
    assert _outcome_from(candidates) == outcome
