"""The workflow's models are plain dataclasses: `to_json` is the `--json` shape, `from_json` rebuilds it."""

from __future__ import annotations

import pytest

from wif_action.models import (
    Answer,
    Candidate,
    Checked,
    Confidence,
    ExtractedRequest,
    Outcome,
    Score,
    Skipped,
    Via,
    from_json,
    to_json,
)


def an_answer() -> Answer:
    return Answer(
        outcome=Outcome.HIGH, repo="getsentry/sentry-cocoa", user_version="8.48.0",
        candidates=[Candidate(version="8.52.0", tag="8.52.0", pr=5242, url="https://github.com/x/y/pull/5242",
                              confidence=Confidence.HIGH, reason="r",
                              via=Via(repo="getsentry/sentry-java", version="8"))],
        checked=Checked(first="8.49.0", last="8.52.0", releases=4, entries=80),
        skipped=[Skipped(step="pr_details", reason="HTTP 500")],
        request=ExtractedRequest(sdk="sentry-cocoa", links=["https://github.com/x/y/issues/1"],
                                 sources={"sdk": "given"}))


def test_to_json_is_json_data_with_enum_values() -> None:
    data = to_json(an_answer())
    assert data["outcome"] == "high" and type(data["outcome"]) is str
    assert data["candidates"][0]["confidence"] == "high" and type(data["candidates"][0]["confidence"]) is str
    assert data["candidates"][0]["via"] == {"repo": "getsentry/sentry-java", "version": "8"}
    assert data["usage"]["github_requests"] == 0 and data["request"]["sources"] == {"sdk": "given"}


def test_from_json_rebuilds_the_same_answer_with_nested_models_and_enums() -> None:
    answer = an_answer()
    rebuilt = from_json(Answer, to_json(answer))
    assert rebuilt == answer
    assert isinstance(rebuilt.candidates[0].via, Via) and rebuilt.outcome is Outcome.HIGH


def test_from_json_refuses_a_key_the_model_does_not_declare() -> None:
    with pytest.raises(TypeError):
        from_json(Answer, {**to_json(an_answer()), "surprise": 1})


def test_public_json_nulls_an_unreleased_candidates_version() -> None:
    answer = an_answer()
    answer.candidates[0].unreleased = True
    assert answer.public_json()["candidates"][0]["version"] is None


def test_confidence_and_outcome_given_as_text_become_the_enums() -> None:
    """What pydantic did for the models' enum fields: an engine's "high" is the enum, not a bare string."""
    assert Score(confidence="medium", reason="r").confidence is Confidence.MEDIUM  # type: ignore[arg-type]
    assert Answer(outcome="no_result").outcome is Outcome.NO_RESULT  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Score(confidence="certain", reason="r")  # type: ignore[arg-type]
