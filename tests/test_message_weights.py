"""A problem condensed out of a free-text message judges by its own weights (lexicon.toml [message_weight]):
the request says where its problem came from (`Request.from_message`), the question carries it, and the batch
filter reads the message's share of the best (relevance.rank_entries)."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest

from indexer.registry import load_registry
from wif_action import lexicon
from wif_action.engines.offline.judge import OfflineJudge
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.engines.offline.relevance import rank_entries, score_entries
from wif_action.journal import Journal
from wif_action.lexicon.question_terms import setup_statements
from wif_action.models import AskInput, Entry, Release, Request
from wif_action.ports import AnalysisTools
from wif_action.question import analyse_question, question_of
from wif_action.run_context import Run
from wif_action.subtasks.extract_request import extract_request
from wif_action.tools.progress import RecordingProgress

REPO = "acme/widget"
RELEASE = Release(id=1, repo=REPO, tag="2.0.0", version="2.0.0", version_key="k")
TEXTS = ["Fix the connection pool raising a TypeError for a redirect URL with query parameters in the pool manager",
         "Fix Emscripten builds with no explicit port", "Add a retry budget", "Fix docs typo", "Improve logging"]
PROBLEM = "Under Pyodide the connection pool fails with a TypeError when the request URL has no port."


@pytest.fixture
def message_share() -> Iterator[float]:
    """A lexicon whose [message_weight] share of the best is far below the Emscripten line's score share and whose
    [weight] one is above it; the packaged lexicon again afterwards."""
    packaged = lexicon.data()
    tables = copy.deepcopy(packaged)
    tables["weight"]["relative_to_best"] = 0.9
    tables["message_weight"] = {"relative_to_best": 0.05}
    lexicon.use(tables)
    try:
        yield 0.05
    finally:
        lexicon.use(None)


def _picked(from_message: bool) -> tuple[list[tuple[int | None, bool]], list[float]]:
    entries = [Entry(id=i, release=RELEASE, section="fix", text=text, prs=[100 + i]) for i, text in enumerate(TEXTS)]
    question = analyse_question(PROBLEM, PROBLEM, load_registry())
    stats = RepositoryStats(BatchStatistics(TEXTS))
    stats.load(REPO, list(question.terms.values()))
    scores = [score for score, _, _ in score_entries(entries, question.terms, stats, False)]
    picked = rank_entries(entries, question.terms, stats, False, from_message)
    return [(item.pr, item.second_look) for item in picked], scores


def test_a_weight_reads_the_message_table_only_for_a_message(message_share: float) -> None:
    assert lexicon.weight("relative_to_best", from_message=True) == message_share
    assert lexicon.weight("relative_to_best") == 0.9
    assert lexicon.weight("max_per_batch", from_message=True) == lexicon.weight("max_per_batch")  # not overridden


def test_a_message_picks_a_line_by_its_own_share_of_the_best(message_share: float) -> None:
    """The Emscripten line scores a fraction of the best: over the message's share, a candidate of its own; under
    the fields' share, a second look."""
    fields, scores = _picked(from_message=False)
    message, _ = _picked(from_message=True)
    assert message_share < scores[1] / scores[0] < 0.9
    assert (101, True) in fields
    assert (101, False) in message


def _extracted(inputs: AskInput) -> Request:
    judge = OfflineJudge(None, load_registry())
    run = Run(tools=AnalysisTools(cache=None, github=None, judge=judge),  # type: ignore[arg-type]
              journal=Journal(), progress=RecordingProgress())
    return extract_request(run, inputs).request


def test_the_request_says_its_problem_came_out_of_a_message() -> None:
    message = "sentry-python 2.3.0: the Celery integration drops the trace id when a task retries. Fixed later?"
    from_text = _extracted(AskInput(message=message))
    given = _extracted(AskInput(sdk="sentry-python", version="2.3.0", problem="Celery retries drop the trace id"))
    both = _extracted(AskInput(problem="Celery retries drop the trace id", message=message))
    assert (from_text.from_message, given.from_message, both.from_message) == (True, False, False)
    assert question_of(from_text, load_registry()).from_message
    assert not question_of(given, load_registry()).from_message


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
