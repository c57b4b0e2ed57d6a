"""An HTTP status the question names only by its number also reads as what notes call it (`question_terms.status_words`,
lexicon `status_word_terms`): "devtools show 404, the transactions say 500" against "Use
`ActionDispatch::ExceptionWrapper` for correct HTTP status code". Kept by h-ruby-rails-404-recorded-as-500 (message;
bench/ablation.md, "An HTTP status number reads as its status").
"""

from __future__ import annotations

from tests.lexicon_helpers import use_weights
from wif_action import lexicon
from wif_action.lexicon.question_terms import query_terms
from wif_action.lexicon.stemmer import stem
from wif_action.lexicon.terms import term_counts

STATUS = stem("status")
PROBLEM = "Requests for missing records: devtools show 404, but the transactions say 500 / internal_error."
NOTE = "Use `ActionDispatch::ExceptionWrapper` for correct HTTP status code (#2850)"


def test_a_status_number_also_reads_as_the_status(lexicon_restored: None) -> None:
    terms = query_terms(PROBLEM)
    assert terms[STATUS].weight == terms["404"].weight * lexicon.weight("status_word") > 0
    assert set(terms) & set(term_counts(NOTE)) == {STATUS}  # the only term the right line shares


def test_off_the_number_shares_nothing_with_the_note(lexicon_restored: None) -> None:
    use_weights(status_word=0)
    assert not set(query_terms(PROBLEM)) & set(term_counts(NOTE))


def test_no_status_number_no_status_and_a_written_status_keeps_its_weight(lexicon_restored: None) -> None:
    assert STATUS not in query_terms("the transactions are missing for requests that fail")
    assert STATUS not in query_terms("each flush takes 500 ms and the payload is 200 KB")  # measures
    written = query_terms("the HTTP status is 500")[STATUS].weight
    assert written == query_terms("the HTTP status is wrong")[STATUS].weight
