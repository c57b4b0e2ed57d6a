"""Second looks: a line far below its batch's best is listed beside better candidates, never leads, never answers
alone (relevance.rank_entries, pr_evaluation.as_second_look, scan_release_notes.listed / no_answer_of_second_looks)."""

from __future__ import annotations

from dataclasses import replace

from indexer.registry import load_registry
from wif_action import lexicon
from wif_action.candidate_order import candidate_order, older_rivals
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.engines.offline.relevance import rank_entries, score_entries
from wif_action.models import Candidate, Confidence, Entry, Grounds, NearMiss, Release
from wif_action.question import analyse_question
from wif_action.subtasks import scan_release_notes
from wif_action.subtasks.pr_evaluation import as_second_look
from wif_action.subtasks.scan_release_notes import listed, no_answer_of_second_looks

REPO = "acme/widget"
RELEASE = Release(id=1, repo=REPO, tag="2.0.0", version="2.0.0", version_key="k")
TEXTS = ["Fix the connection pool raising a TypeError for a redirect URL with query parameters in the pool manager",
         "Fix Emscripten builds with no explicit port",
         "Add a retry budget", "Fix docs typo", "Fix wheel metadata", "Improve logging", "Fix proxy headers",
         "Drop Python 3.8", "Fix cookie jar", "Add HTTP/2 probe", "Fix timeout defaults"]
PROBLEM = "Under Pyodide the connection pool fails with a TypeError when the request URL has no port."


def _ranked(section: str = "fix") -> tuple[list[tuple[int | None, bool]], list[float]]:
    """(PR, second look) of the picked lines, and every line's score; the Emscripten line in `section`."""
    entries = [Entry(id=i, release=RELEASE, section="fix" if i != 1 else section, text=text, prs=[100 + i])
               for i, text in enumerate(TEXTS)]
    question = analyse_question(PROBLEM, PROBLEM, load_registry())
    stats = RepositoryStats(BatchStatistics(TEXTS))
    stats.load(REPO, list(question.terms.values()))
    scores = [score for score, _, _ in score_entries(entries, question.terms, stats, False)]
    picked = rank_entries(entries, question.terms, stats, False)
    return [(item.pr, item.second_look) for item in picked], scores


def test_a_line_far_below_the_batchs_best_is_picked_as_a_second_look() -> None:
    """"… in Emscripten with no explicit port" shares only "port" with a Pyodide question: a quarter of the best
    line's score, under relative_to_best, yet among the batch's best few — picked, marked as a second look."""
    picked, scores = _ranked()
    assert scores[1] / scores[0] < lexicon.weight("relative_to_best")
    assert picked == [(100, False), (101, True)]


def test_only_a_line_of_a_fix_section_gets_a_second_look() -> None:
    """A dependency line far below the best is what its section says: no second look."""
    assert _ranked("dependency") == ([(100, False)], _ranked("dependency")[1])


def candidate(version: str, pr: int, confidence: Confidence = Confidence.MEDIUM) -> Candidate:
    return Candidate(version=version, tag=version, pr=pr, url=f"https://github.com/{REPO}/pull/{pr}",
                     confidence=confidence, reason="r", repo=REPO, strength=1.0)


def _look(candidate: Candidate) -> Candidate:
    return as_second_look(candidate, "far below")


def test_a_second_look_is_at_most_medium_listed_last_and_never_rivals() -> None:
    look = _look(candidate("1.0.0", 1, Confidence.HIGH))
    assert look.confidence == Confidence.MEDIUM and look.second_look and not look.objected
    later = candidate("3.0.0", 3)
    assert [c.pr for c in candidate_order([look, later])] == [3, 1]  # older, yet listed after
    objected = replace(candidate("3.0.0", 5), objected=True)  # an objection alone would leave release order
    assert [c.pr for c in candidate_order([look, objected])] == [5, 1]
    high = candidate("3.0.0", 4, Confidence.HIGH)
    same = Grounds(subjects=("port",), own_text=True, shares=(0.001,))
    assert older_rivals([look, high], lambda c: same) == []
    assert older_rivals([replace(look, second_look=False), high], lambda c: same)  # it would rival, unmarked


def test_a_second_look_naming_far_more_of_the_problem_leads() -> None:
    """A line is a second look on its release line's words alone; once its PR is scored it may name the problem
    `lead_margin` times as well as every other candidate (sentry-java #5835, "CPU busy-loop … under rate limiting",
    for a CPU pegged once the logs quota is hit, against a later "correct cpu usage" line): then it is the clear
    match and leads. Just under the margin, or objected by a check, it stays last."""
    margin = lexicon.weight("lead_margin")
    later = replace(candidate("3.0.0", 3), strength=10.0, breadth=0.2)
    look = _look(replace(candidate("2.0.0", 2), strength=10.0, breadth=0.2 * margin * 1.05))
    assert [c.pr for c in candidate_order([later, look])] == [2, 3]
    weaker = _look(replace(look, breadth=0.2 * margin * 0.95))
    assert [c.pr for c in candidate_order([later, weaker])] == [3, 2]
    assert [c.pr for c in candidate_order([later, replace(look, objected=True)])] == [3, 2]
    other_look = _look(replace(candidate("2.5.0", 4), strength=10.0, breadth=0.2 * margin))
    assert [c.pr for c in candidate_order([later, look, other_look])] == [3, 2, 4]  # two looks alike: no leader


def test_second_looks_alone_make_no_answer_but_near_misses() -> None:
    look, regular = _look(candidate("1.0.0", 1)), candidate("2.0.0", 2)
    misses = [NearMiss(version="1.5.0", pr=9, url="u", reason="low")]
    assert no_answer_of_second_looks([look, regular], misses) == [look, regular]
    assert no_answer_of_second_looks([look], misses) == []
    assert [m.pr for m in misses] == [1, 9]


def test_a_fully_scored_medium_takes_a_second_looks_place_at_the_cap() -> None:
    cap = scan_release_notes.MAX_MEDIUM
    look = _look(candidate("1.0.0", 1))
    candidates = [look, *(candidate("1.1.0", 10 + i) for i in range(cap - 1))]
    assert not listed(candidates, _look(candidate("1.2.0", 2)))
    assert listed(candidates, candidate("1.3.0", 3))
    assert look not in candidates and candidates[-1].pr == 3 and len(candidates) == cap
    assert not listed(candidates, candidate("1.4.0", 4))  # no second look left to give way


def test_an_objected_medium_does_not_take_a_second_looks_place_at_the_cap() -> None:
    """An objected MEDIUM is listed after the others and never leads, as a second look: at the cap the second look
    found first keeps its place (an OTLP exporter's "fix artifact name in an error message", a second look, is not
    pushed out by later objected MEDIUMs naming only "exporter")."""
    cap = scan_release_notes.MAX_MEDIUM
    look = _look(candidate("1.0.0", 1))
    candidates = [look, *(candidate("1.1.0", 10 + i) for i in range(cap - 1))]
    assert not listed(candidates, replace(candidate("1.3.0", 3), objected=True))
    assert look in candidates and len(candidates) == cap


def test_a_line_at_just_over_half_the_best_score_is_a_second_look() -> None:
    """`relative_to_best` (0.6, LOO-CV): a line at 0.54 of the batch's best is listed only as a second look, never
    leading; at 0.5 it would have been scored as a full candidate."""
    texts = [TEXTS[0], "Fix a request without port", *TEXTS[2:]]
    entries = [Entry(id=i, release=RELEASE, section="fix", text=text, prs=[100 + i]) for i, text in enumerate(texts)]
    question = analyse_question(PROBLEM, PROBLEM, load_registry())
    stats = RepositoryStats(BatchStatistics(texts))
    stats.load(REPO, list(question.terms.values()))
    scores = [score for score, _, _ in score_entries(entries, question.terms, stats, False)]
    assert 0.5 < scores[1] / scores[0] < lexicon.weight("relative_to_best")
    picked = rank_entries(entries, question.terms, stats, False)
    assert [(item.pr, item.second_look) for item in picked][:2] == [(100, False), (101, True)]
