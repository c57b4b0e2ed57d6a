"""Words of a support message that say nothing about the symptom, and what reading them as symptom words costs.

The customer's control case ("With the default reqwest transport it backs off correctly") names the setup that
works: out of the condensed problem and, but for its code names, out of the request text's terms.

A hedge ("transactions that supposedly started on 01/01/0001") reports what the customer sees with a doubt; as a
term it weighs like a symptom word and splits the phrase the release note shares ("transactions with their start
date set to Jan 01, 001": "transaction start"). Kept by near-unity-transaction-year-one (bench/ablation.md).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wif_action import lexicon
from wif_action.lexicon.control_case import without_what_works
from wif_action.lexicon.question_terms import query_terms
from wif_action.lexicon.terms import analyse


@pytest.fixture(autouse=True)
def _packaged_lexicon() -> Iterator[None]:
    lexicon.use(None)
    yield
    lexicon.use(None)


def _keys(text: str) -> set[str]:
    return {term.key for term in analyse(text)}


@pytest.mark.parametrize("hedge", ["supposedly", "apparently", "seemingly"])
def test_a_hedge_is_no_term_and_keeps_the_phrase_around_it(hedge: str) -> None:
    keys = _keys(f"we see transactions that {hedge} started on 01/01/0001")
    assert hedge[:6] not in {key[:6] for key in keys} and "transact start" in keys


def test_without_it_the_hedge_weighs_as_a_symptom_word() -> None:
    tables = lexicon.data()
    tables["words"]["stopwords"].remove("supposedly")
    lexicon.use(tables)
    keys = _keys("we see transactions that supposedly started on 01/01/0001")
    assert "supposedli" in keys and "transact start" not in keys


CURL = ("Customer on sentry 0.48.5 (Rust) using the `curl` transport feature: when their project hits its quota, the "
        "SDK keeps posting error envelopes and gets 429s over and over. With the default reqwest transport it backs "
        "off correctly. Fixed in a later release?")


def test_the_control_case_is_out_of_the_request_texts_terms_too() -> None:
    """"With the default reqwest transport it backs off correctly": the setup that works. Out of the condensed
    problem already, its words still weighed from the request text (the whole message) and led to the reqwest
    transport's fix (near-rust-curl-transport-ignores-rate-limit)."""
    terms = query_terms("using the curl transport: the SDK keeps posting error envelopes and gets 429s", CURL)
    assert "curl" in terms and "reqwest" not in terms and "default" not in terms
    tables = lexicon.data()  # "correctly" is what says that clause works
    tables["pattern"]["works_here"]["re"] = tables["pattern"]["works_here"]["re"].replace("correctly|", "")
    lexicon.use(tables)
    assert "reqwest" in query_terms("using the curl transport", CURL)


def test_a_control_clause_keeps_its_code_names_in_the_request_text() -> None:
    """"SentryCapacitor.crash() crashes the iOS app as expected, but on Android nothing happens": the API tried is
    what fails on Android; only the prose of the setup that works goes."""
    message = ("sentry-capacitor 0.4.3: SentryCapacitor.crash() crashes the iOS app as expected, but on Android "
               "nothing happens at all.")
    assert "SentryCapacitor.crash" in without_what_works(message, keep_code=True)
    assert "SentryCapacitor" not in without_what_works(message) and "iOS" not in without_what_works(message, True)
    kept = query_terms("on Android nothing happens at all", message)
    assert "sentrycapacitor.crash" in kept and "expect" not in kept


def test_a_control_clause_joined_by_and_leaves_the_setup_before_it() -> None:
    """"we start the app with `python -m myapp` and the first start is fine, but after any code change …": "and"
    ends the setup, so only "the first start is fine" is the control case; taken with it, the reloader and the
    `python -m` start were out of the condensed problem (near-werkzeug-reloader-python-m-imports)."""
    sentence = ("Werkzeug 0.14.1 dev server with the reloader: we start the app with `python -m myapp` and the first "
                "start is fine, but after any code change the restarted process dies with `ModuleNotFoundError`.")
    kept = without_what_works(sentence)
    assert "reloader" in kept and "python -m myapp" in kept and "ModuleNotFoundError" in kept
    assert "first start" not in kept


def test_the_customers_ask_about_a_release_is_no_symptom() -> None:
    """"Is there a version that handles this better?", "Does a newer Black handle this?": the ask's fix verbs and
    ask words are out of the problem's and the request's terms (release notes start fixes with "Handle …"); the rest
    of the ask ("tokens") stays, and so does a question that asks about no release, or "handler" anywhere."""
    from wif_action.question import analyse_question

    question = analyse_question("`debug-files upload` fails with `Could not resolve host`. Is there a version that "
                                "handles this better?",
                                "Does a newer plugin handle org tokens? Any release that handles this properly?")
    assert not {"handl", "better", "properli"} & (question.terms.keys() | question.problem_keys)
    assert {"resolv", "host", "token"} <= question.terms.keys()
    kept = analyse_question("The request handler crashes. Why does the client handle redirects better on Linux?")
    assert {"handler", "handl", "better"} <= kept.problem_keys


def test_a_host_names_top_level_domain_is_no_word() -> None:
    """"sentry.io" is one name (its "io" is no word: not "iOS", which stems to "io", nor a Java path's "io"), and so is
    the reversed "io.sentry.android"; a path's "/io/" segment and "iOS" keep theirs."""
    assert "io" not in _keys("Could not resolve host: sentry.io") | _keys("at io.sentry.android.core.Foo")
    assert "sentry.io" in _keys("sentry.io") and "github" in _keys("github.com")
    assert "io" in _keys("iOS and Android") and "io" in _keys("src/main/java/io/sentry/Foo.java")
