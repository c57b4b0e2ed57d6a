"""An annotation or decorator written with an @ ("@JsonNames", "`@Sendable`", "@SerialName(\"x\")") is a code name,
not a person's handle (lexicon/cleaning.py `_reference_or_annotation`, lexicon `pattern.credit_before`): its name is a
term on both sides, so a customer's pasted annotation meets the note naming it. Handles credited in notes ("by
@Viicos", "Thanks @Arghnews.") and chat mentions ("hey @bob") stay out."""

from __future__ import annotations

import pytest

from wif_action.lexicon.terms import analyse, term_counts
from wif_action.question import analyse_question

ANNOTATIONS = [
    ("Support @JsonNames for enum values (#1473)", "JsonNames"),
    ("Missing `@Sendable` in `RetryPolicy`.", "Sendable"),
    ("Mark @SerialName, @Required and @Transient with @MustBeDocumented (#2407)", "MustBeDocumented"),
    ("Fix mypy plugin handling of `@model_validator(mode=\"after\")` by @someone in #1", "model_validator"),
    ("Respect `validation_alias` in `@validate_call` by @Viicos in #123", "validate_call"),
    ("an entry carries @SerialName(\"inProgress\") next to it", "SerialName"),
]
HANDLES = [
    ("Fix the upload retry by @Viicos in #13193", "Viicos"),
    ("Made `fmt::join` work with C++ modules (#4379). Thanks @Arghnews.", "Arghnews"),
    ("`DefaultTags` moved to `SentryOptions` (#637) @PureKrome", "PureKrome"),
    ("Fix the route path if a route is unknown (#767 #769) @kanadaj @Tyrrrz", "Tyrrrz"),
    ("#1488: Fix: ensure calling before filters - @namusyaka, @jlfaber.", "jlfaber"),
    ("@Jake-Shadle", "Jake"),
    ("hey @bob can you check the upload", "bob"),
    ("add `ConstrainedBytes` types, #315 @Gr1N", "Gr1N"),
]


def _surfaces(text: str) -> set[str]:
    return {term.surface for term in analyse(text)}


@pytest.mark.parametrize(("text", "name"), ANNOTATIONS)
def test_an_annotation_is_a_code_name(text, name):
    assert name.lower() in {surface.lower() for surface in _surfaces(text)}


@pytest.mark.parametrize(("text", "name"), HANDLES)
def test_a_credited_handle_is_no_term(text, name):
    assert name not in _surfaces(text) and name.lower() not in {s.lower() for s in _surfaces(text)}


def test_a_pasted_annotation_meets_the_note_naming_it():
    """The message's `@JsonNames("in_progress")` and the note's "Support @JsonNames for enum values" share the
    annotation's name: before, both read it as a handle and the note shared only "enum" with the question."""
    question = analyse_question("an enum entry carries `@JsonNames(\"in_progress\")`, decoding \"in_progress\" fails")
    note = term_counts("Support @JsonNames for enum values (#1473)")
    shared = {key for key in question.terms if note.get(key)}
    assert any(question.terms[key].identifier for key in shared), shared
