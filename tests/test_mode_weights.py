"""Each input mode judges by its own weights where it has them (lexicon.toml [fields_weight], [message_weight]): the
request says where its problem came from (`Request.from_message`), the workflow reads every weight of the run in
that mode (`lexicon.input_mode`), the batch filter and the judge's thresholds included, and the benches vary one
mode's own value (quality_report --grid <mode>_weight.NAME=…)."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from dataclasses import replace

import pytest

from bench.quality_report import grid_settings, scoped_mode
from indexer.registry import load_registry
from tests.conftest import EXAMPLE_CACHE
from tests.fakes.github_server import FakeGitHub
from tests.test_evaluation import CASES
from wif_action import lexicon
from wif_action.app import AppConfig, build_workflow
from wif_action.commands.eval_cases import case_input
from wif_action.engines.offline import scoring
from wif_action.engines.offline.judge import OfflineJudge
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.engines.offline.relevance import rank_entries, score_entries
from wif_action.evaluation import load_cases
from wif_action.journal import Journal
from wif_action.models import AskInput, Entry, Release, Request
from wif_action.ports import AnalysisTools
from wif_action.question import analyse_question, question_of
from wif_action.run_context import Run
from wif_action.subtasks.extract_request import extract_request, from_message
from wif_action.tools.progress import RecordingProgress

REPO = "acme/widget"
RELEASE = Release(id=1, repo=REPO, tag="2.0.0", version="2.0.0", version_key="k")
TEXTS = ["Fix the connection pool raising a TypeError for a redirect URL with query parameters in the pool manager",
         "Fix Emscripten builds with no explicit port", "Add a retry budget", "Fix docs typo", "Improve logging"]
PROBLEM = "Under Pyodide the connection pool fails with a TypeError when the request URL has no port."


@contextlib.contextmanager
def _with(tables_of: dict[str, dict[str, float]]) -> Iterator[None]:
    """The packaged lexicon with these tables' values laid over, for the test; the packaged one afterwards."""
    tables = copy.deepcopy(lexicon.data())
    for table, values in tables_of.items():
        tables.setdefault(table, {}).update(values)
    lexicon.use(tables)
    try:
        yield
    finally:
        lexicon.use(None)


@pytest.fixture
def message_share() -> Iterator[float]:
    """A lexicon whose [message_weight] share of the best is far below the Emscripten line's score share and whose
    [weight] one is above it; the packaged lexicon again afterwards."""
    with _with({"weight": {"relative_to_best": 0.9}, "message_weight": {"relative_to_best": 0.05}}):
        yield 0.05


@pytest.fixture
def fields_floor() -> Iterator[None]:
    """A lexicon whose [fields_weight] has a batch-filter floor no line reaches and a MEDIUM bar no line reaches:
    two weights no code names as per-mode."""
    with _with({"fields_weight": {"min_relevance": 1e6, "medium_mass": 1e6}}):
        yield


def _picked(mode: str) -> tuple[list[tuple[int | None, bool]], list[float]]:
    entries = [Entry(id=i, release=RELEASE, section="fix", text=text, prs=[100 + i]) for i, text in enumerate(TEXTS)]
    question = analyse_question(PROBLEM, PROBLEM, load_registry())
    stats = RepositoryStats(BatchStatistics(TEXTS))
    stats.load(REPO, list(question.terms.values()))
    scores = [score for score, _, _ in score_entries(entries, question.terms, stats, False)]
    with lexicon.input_mode(mode):
        picked = rank_entries(entries, question.terms, stats, False)
    return [(item.pr, item.second_look) for item in picked], scores


def test_a_weight_reads_the_mode_table_only_in_that_mode(message_share: float) -> None:
    with lexicon.input_mode("message"):
        assert lexicon.weight("relative_to_best") == message_share
        assert lexicon.weight("max_per_batch") == lexicon.data()["weight"]["max_per_batch"]  # not overridden
    with lexicon.input_mode("fields"):
        assert lexicon.weight("relative_to_best") == 0.9
    assert lexicon.weight("relative_to_best") == 0.9  # no mode: the shared value
    with pytest.raises(ValueError), lexicon.input_mode("slack"):
        pass


def test_a_message_picks_a_line_by_its_own_share_of_the_best(message_share: float) -> None:
    """The Emscripten line scores a fraction of the best: over the message's share, a candidate of its own; under
    the fields' share, a second look."""
    fields, scores = _picked("fields")
    message, _ = _picked("message")
    assert message_share < scores[1] / scores[0] < 0.9
    assert (101, True) in fields
    assert (101, False) in message


def test_any_weight_of_a_mode_table_reaches_the_filter_and_the_judge(fields_floor: None) -> None:
    """`min_relevance` (the batch filter) and `medium_mass` (the judge's `Thresholds`) in [fields_weight]: the fields
    mode drops every line and lays the MEDIUM bar over the judge's thresholds, even over ones calibration passed in;
    the message mode keeps the shared values."""
    fields, _ = _picked("fields")
    message, _ = _picked("message")
    assert fields == [] and message
    judge = OfflineJudge(None, load_registry(), replace(scoring.SHIPPED, high_mass=1.5))
    with lexicon.input_mode("fields"):
        assert judge.thresholds() == replace(scoring.SHIPPED, high_mass=1.5, medium_mass=1e6)
    with lexicon.input_mode("message"):
        assert judge.thresholds() == replace(scoring.SHIPPED, high_mass=1.5)


def test_the_workflow_answers_in_the_mode_the_question_came_in(fields_floor: None) -> None:
    """The same case through the shipped workflow: asked in fields, the [fields_weight] floor leaves nothing to
    list; asked as a message, it is answered with the shared weights as before."""
    case = next(c for c in load_cases(CASES) if c.id == "java-cron-checkin-wrong-duration")
    with FakeGitHub() as github:
        config = AppConfig(db=EXAMPLE_CACHE, engine="offline", env={"GITHUB_API_URL": github.url})
        answers = {mode: build_workflow(config, RecordingProgress()).run(case_input(case, mode))
                   for mode in ("fields", "message")}
    assert not answers["fields"].candidates
    assert any(c.pr in case.expect.prs for c in answers["message"].candidates)
    assert lexicon.weight("min_relevance") == lexicon.data()["weight"]["min_relevance"]  # the run's mode is gone


def test_the_packaged_mode_tables_name_shared_weights_only() -> None:
    """A mode's own value overrides a `[weight]` (a misspelt name would never be read); the lead rule's weights are
    read again when an answer is rendered, outside its run, so they have no per-mode value."""
    tables = lexicon.data()
    for mode in lexicon.MODES:
        own = tables.get(f"{mode}_weight", {})
        assert set(own) <= set(tables["weight"]), mode
        assert not {"lead_margin", "lead_breadth"} & set(own), mode


def _extracted(inputs: AskInput) -> Request:
    judge = OfflineJudge(None, load_registry())
    run = Run(tools=AnalysisTools(cache=None, github=None, judge=judge),  # type: ignore[arg-type]
              journal=Journal(), progress=RecordingProgress())
    return extract_request(run, inputs).request


def test_the_request_says_its_problem_came_out_of_a_message() -> None:
    message = "sentry-python 2.3.0: the Celery integration drops the trace id when a task retries. Fixed later?"
    inputs = [AskInput(message=message),
              AskInput(sdk="sentry-python", version="2.3.0", problem="Celery retries drop the trace id"),
              AskInput(problem="Celery retries drop the trace id", message=message),
              AskInput(problem="  ", message=message), AskInput(sdk="sentry-python", message=" ")]
    requests = [_extracted(given) for given in inputs]
    assert [r.from_message for r in requests] == [True, False, False, True, False]
    assert [from_message(given) for given in inputs] == [r.from_message for r in requests]  # the run's mode
    assert question_of(requests[0], load_registry()).from_message
    assert not question_of(requests[1], load_registry()).from_message


def test_a_grid_of_one_modes_weights_is_chosen_in_that_mode() -> None:
    """quality_report --grid: repeated grids are every combination; a grid of one mode's own table is scoped to it."""
    assert grid_settings(["fields_weight.min_relevance=0,3.5", "fields_weight.max_per_batch=3,4"]) == [
        ["fields_weight.min_relevance=0", "fields_weight.max_per_batch=3"],
        ["fields_weight.min_relevance=0", "fields_weight.max_per_batch=4"],
        ["fields_weight.min_relevance=3.5", "fields_weight.max_per_batch=3"],
        ["fields_weight.min_relevance=3.5", "fields_weight.max_per_batch=4"]]
    assert scoped_mode(["fields_weight.min_relevance=0,3.5", "fields_weight.max_per_batch=3,4"]) == "fields"
    assert scoped_mode(["message_weight.relative_to_best=0.5,0.55"]) == "message"
    assert scoped_mode(["weight.max_per_batch=3,4"]) is None
    assert scoped_mode(["fields_weight.max_per_batch=3,4", "message_weight.max_per_batch=3,4"]) is None
