"""Words people and notes write for the same thing (lexicon `[abbreviation]`, `[equivalent]`) are one term on both
sides.

Why: a customer writes "configuration", the note "config"; a Ruby log says "recursive locking", the fix "re-entrant
mutex". Without the fold the right line shares nothing specific with the problem and is never a candidate.
"""

from __future__ import annotations

from collections.abc import Collection

import pytest

from wif_action import lexicon
from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.question_terms import query_terms
from wif_action.lexicon.stemmer import stem
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, PullRequest


@pytest.fixture(autouse=True)
def packaged_lexicon():
    lexicon.use(None)
    yield
    lexicon.use(None)


def _without(*words: str) -> None:
    tables = lexicon.data()
    for word in words:
        del tables["abbreviation" if word in tables["abbreviation"] else "equivalent"][word]
    lexicon.use(tables)


def _keys(text: str) -> set[str]:
    return {term.key for term in analyse(text)}


@pytest.mark.parametrize(("customer", "note", "entries"), [
    ("the configuration object", "the config object", ("config",)),
    ("recursive locking", "re-entrant mutex", ("entrant", "mutex")),  # the phrase too: "recurs lock"
    ("crash on shutdown", "crash on exit", ("shutdown",)),  # an app's shutdown is its exit
    ("inside Pyodide", "inside Emscripten", ("pyodide",)),  # Pyodide is CPython built with Emscripten
    ("fails to authenticate the token", "fails to auth the token", ("auth",)),  # "org auth tokens"
    ("the chaos result is empty", "the chaos outcome is empty", ("outcome",)),  # what a call ends with
])
def test_a_word_and_its_equivalent_are_one_term(customer, note, entries):
    assert _keys(customer) == _keys(note)
    for entry in entries:
        _without(entry)
        assert _keys(customer) != _keys(note), entry
        lexicon.use(None)


class _Fts5Like:
    """Document frequencies as the cache's FTS5 index counts them: by the Porter stem of the word asked for,
    with no lexicon folding (a test double of the `TermStatistics` port, like `BatchStatistics`)."""

    def __init__(self, notes: list[str]):
        self.notes = [{stem(word) for word in note.lower().split()} for note in notes]

    def term_statistics(self, repo: str, terms: list[str]) -> tuple[int, float, dict[str, int]]:
        return len(self.notes), 3.0, {term: sum(stem(term) in note for note in self.notes) for term in terms}

    def stored_term_counts(self, entry_ids: list[int], fingerprint: str,
                           keys: Collection[str] | None = None) -> dict[int, dict[str, int]]:
        return {}


def test_the_document_frequency_of_a_folded_word_counts_its_most_frequent_spelling():
    """The customer writes "configuration", the notes mostly "config": every note writing either names the word,
    so it is as common as "config" is, not as rare as "configuration" alone."""
    notes = ["config option"] * 30 + ["configuration file"] * 2 + ["release health"] * 100
    term = next(t for t in analyse("configuration") if t.kind == "word")
    stats = RepositoryStats(_Fts5Like(notes))
    stats.load("r", [term])
    assert stats.df("r", term.key) == 30
    _without("config")
    term = next(t for t in analyse("configuration") if t.kind == "word")
    stats = RepositoryStats(_Fts5Like(notes))
    stats.load("r", [term])
    assert stats.df("r", term.key) == 2


def _level(problem: str, title: str) -> Confidence:
    query = query_terms(problem)
    stats = RepositoryStats(BatchStatistics(["release health", "span status", "session tracking", "client options",
                                             "response streaming", "breadcrumbs"] * 20 + [title]))
    stats.load("r", list(query.values()))
    # a PR with a description (of nothing the problem names): the MEDIUM bar of a described PR, not a bodiless one's
    pr = PullRequest(repo="r", number=4, title=title, body="See the discussion.", url="https://example.invalid/4")
    return scoring.confidence(gather(pr, None, query, stats, False, [], frozenset(query)))


def test_a_note_spelling_the_problem_differently_is_judged_as_naming_it():
    problem = ("A response-format configuration object that the caller passes in (and reuses across calls) is "
               "changed by the client during a request.")
    title = "fix(client): avoid mutating user-provided response config object"
    assert _level(problem, title) is Confidence.HIGH
    _without("config")
    assert _level(problem, title) is Confidence.LOW


@pytest.mark.parametrize(("note", "question", "shared"), [
    ("strip content-length header in response to CONNECT requests", "the connection is closing", False),
    ("Fix OPTIONS requests skipping before filters", "an OPTIONS preflight skips the before block", True),
    ("Fix OPTIONS requests skipping before filters", "the options we pass are ignored", False),
    ("Warn on a body for GET requests", "every GET call logs a warning", True),
])
def test_an_http_method_in_capitals_is_the_method_not_the_word_it_is_spelled_like(note, question, shared) -> None:
    """lexicon `http_methods`: "CONNECT" names a method, "connection" a connection; both stem to "connect"."""
    method = {"CONNECT", "OPTIONS", "GET"}
    assert bool(_keys(note) & _keys(question) & (method | {"connect", "option"})) is shared


@pytest.mark.parametrize(("question", "note"), [
    ("the server shuts down gracefully", "send 'connection: close' when graceful shutdown is triggered"),
    ("the upload finished successfully", "report successful uploads"),
])
def test_an_adverb_in_fully_also_reads_as_its_adjective(question, note) -> None:
    """lexicon `fully_adverb`: Porter keeps "gracefulli" apart from "grace"; the adverb also reads as the adjective."""
    assert _keys(question) & _keys(note) - {"shut", "upload", "send"}
