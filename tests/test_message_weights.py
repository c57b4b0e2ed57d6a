"""A problem condensed out of a free-text message judges by its own weights (lexicon.toml [message_weight]; the
mechanism, for any weight and either mode: tests/test_mode_weights.py): its setup statements weigh less."""

from __future__ import annotations

import pytest

from wif_action import lexicon
from wif_action.lexicon.question_terms import setup_statements
from wif_action.question import analyse_question

SETUP_FIRST = ("We're testing Elixir 1.19 with the logger handler. Events from Logger now have titles like "
               "`%{elixir_translation: ...}` instead of the readable crash message.")


def test_a_setup_statement_of_a_message_weighs_less_than_what_fails() -> None:
    """lexicon `setup_statement`, [message_weight] setup_factor: the sentence introducing what the customer uses
    ("We're testing … with the logger handler.") weighs less in a message than the sentence stating the failure;
    a form's problem ([weight] setup_factor 1) weighs both alike."""
    message = analyse_question(SETUP_FIRST, SETUP_FIRST, from_message=True).terms
    fields = analyse_question(SETUP_FIRST, SETUP_FIRST).terms
    assert message["handler"].weight == pytest.approx(lexicon.weight("setup_factor", from_message=True))
    assert fields["handler"].weight == 1.0
    assert message["translat"].weight == fields["translat"].weight  # the failure's sentence keeps its weight
    assert lexicon.weight("setup_factor", from_message=True) < 1.0 == lexicon.weight("setup_factor")


@pytest.mark.parametrize("sentence", [
    "Using the stream handler, every request fails with a timeout.",  # states a failure
    "Are you testing with the logger handler?",  # asks
    "The logger handler drops them.",  # no setup cue
])
def test_a_sentence_stating_a_failure_asking_or_without_a_setup_cue_is_no_setup_statement(sentence: str) -> None:
    stated, setup = setup_statements(f"{sentence} Events from Logger show the wrong title.")
    assert not setup.strip() and stated.startswith(sentence)


def test_a_setup_statement_is_found_by_its_cue() -> None:
    stated, setup = setup_statements(f"using the stream handler with a custom wrapper. {SETUP_FIRST}")
    assert " ".join(setup.split()) == ("using the stream handler with a custom wrapper. "
                                       "We're testing Elixir 1.19 with the logger handler.")
    assert stated.split()[0] == "Events" and len(stated) == len(setup)
