"""A question saying something used to work also reads what a note undoing a regression says
(`question_terms.regression_words`, lexicon `regression_note_words`, `pattern.regression_cue`): "the build tool no
longer starts on our Windows 7 machines" against "Restore compatibility with Windows 7". Kept by
near-dune-windows7-entry-point-missing (fields; bench/ablation.md, "A regression reads as what restores it").
"""

from __future__ import annotations

from tests.lexicon_helpers import use_weights
from wif_action import lexicon
from wif_action.lexicon.question_terms import query_terms
from wif_action.lexicon.stemmer import stem

RESTORE = stem("restore")
PROBLEM = "After updating, the build tool no longer starts on our Windows 7 machines."


def test_a_regression_also_reads_as_restoring(lexicon_restored: None) -> None:
    terms = query_terms(PROBLEM)
    assert terms[RESTORE].weight == terms[stem("build")].weight * lexicon.weight("regression_word") > 0


def test_off_a_regression_reads_no_restore(lexicon_restored: None) -> None:
    use_weights(regression_word=0)
    assert RESTORE not in query_terms(PROBLEM)


def test_only_a_regression_reads_as_restoring(lexicon_restored: None) -> None:
    assert RESTORE not in query_terms("the build tool does not start on our Windows 7 machines")
    assert RESTORE in query_terms("the SDK stopped sending events after the upgrade")
    assert RESTORE in query_terms("uploads used to work, now they fail")
    written = query_terms("restore of the backup fails")[RESTORE].weight
    assert written == query_terms("restore of the backup no longer works")[RESTORE].weight  # its own weight kept
