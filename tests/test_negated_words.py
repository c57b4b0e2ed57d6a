"""An "un-" word of the question also reads as the word it negates (`question_terms.negated_bases`), and a participle
it negates as its "un-" word (`question_terms.negated_participles`).

The customer names the defect ("the plugin's JS is unminified", "`ResourceWarning: unclosed socket`"); the fix names
what the SDK does now ("Use a minified and optimized bundle …", "explicitly close sockets"). Kept by
near-cordova-sdk-bundle-size (bench/ablation.md, "An un- word also reads as the word it negates").
"""

from __future__ import annotations

from tests.lexicon_helpers import use_weights
from wif_action import lexicon
from wif_action.lexicon.question_terms import query_terms
from wif_action.lexicon.stemmer import stem
from wif_action.lexicon.terms import term_counts


def test_an_un_word_also_reads_as_the_word_it_negates(lexicon_restored: None) -> None:
    terms = query_terms("The SDK's JS bundle is unminified and several hundred KB.")
    base = terms[stem("minified")]
    assert base.kind == "word"
    assert base.weight == terms[stem("unminified")].weight * lexicon.weight("negated_base") > 0


def test_the_base_never_outweighs_a_word_the_question_writes_itself(lexicon_restored: None) -> None:
    written = query_terms("Sockets stay open; we close the session ourselves.")[stem("close")].weight
    terms = query_terms("Sockets stay unclosed; we close the session ourselves.")
    assert terms[stem("close")].weight == written  # the question's own word, not its negated reading


def test_a_short_or_plain_word_has_no_base(lexicon_restored: None) -> None:
    assert stem("able") not in query_terms("unable to send events")  # "unable": too short to split
    assert stem("til") not in query_terms("retries until timeout")


def test_the_fix_naming_what_the_un_word_lacks_shares_a_term(lexicon_restored: None) -> None:
    problem = "Logs show ResourceWarning: unclosed socket after failed connects."
    note = "Changed connection creation to explicitly close sockets if an exception is raised"
    counts = term_counts(note)
    assert stem("close") in query_terms(problem) and counts[stem("close")]
    use_weights(negated_base=0.0)
    assert stem("close") not in query_terms(problem)


def test_switched_off_no_base_is_read(lexicon_restored: None) -> None:
    use_weights(negated_base=0.0)
    assert stem("minified") not in query_terms("The SDK's JS bundle is unminified.")


UNDEFINED = "Setting a connection timeout makes every request fail: an internal timeout function is not defined."


def test_a_negated_participle_also_reads_as_its_un_word(lexicon_restored: None) -> None:
    """"is not defined" names the defect a note calls "undefined" ("Fix use of undefined variable in timeout code",
    near-httpjl-connect-timeout-undefvar); "never closed" is "unclosed"."""
    note = term_counts("Fix use of undefined variable in timeout code.")
    terms = query_terms(UNDEFINED)
    assert terms[stem("undefined")].weight == terms[stem("defined")].weight * lexicon.weight("negated_base") > 0
    assert note[stem("undefined")]
    assert stem("unclosed") in query_terms("The file object passed as the body is never closed.")


def test_a_negated_participle_has_no_un_word_without_the_pattern(lexicon_restored: None) -> None:
    tables = lexicon.data()
    tables["pattern"]["negated_participle"]["re"] = "(?!)"
    lexicon.use(tables)
    assert stem("undefined") not in query_terms(UNDEFINED)


def test_a_negated_participle_is_read_only_with_negated_base(lexicon_restored: None) -> None:
    use_weights(negated_base=0.0)
    assert stem("undefined") not in query_terms(UNDEFINED)


def test_only_a_negated_participle_reads_an_un_word(lexicon_restored: None) -> None:
    """A negated verb ("does not start") or a word too short ("not used") has no un-word: "unstart" names nothing."""
    terms = query_terms("The worker does not start and the cache is not used.")
    assert stem("unstart") not in terms and stem("unused") not in terms
