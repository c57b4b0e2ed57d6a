"""A headline naming one of a message's ideas places a candidate in the problem's area (MEDIUM) only when its release
line says at least `weak_line` of the problem (BM25 × section / scale, as the batch filter scored it:
`scoring._headline_in_area`): a message has many words, and a thin line reaches one of them by chance. Its PR
description naming `body_concepts` of the problem's ideas still carries a MEDIUM. Per input mode: a form's problem
is the symptom alone, and fields keeps the rule off."""

from __future__ import annotations

from wif_action import lexicon
from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import Concept, Evidence
from wif_action.engines.offline.judge import OfflineJudge
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.engines.offline.relevance import score_entries
from wif_action.lexicon.terms import Term
from wif_action.models import Confidence, Entry, Release
from wif_action.question import Question

MASS = 2 * lexicon.weight("medium_mass") / lexicon.weight("body_factor")  # enough mass in all for a MEDIUM


def _evidence(line: float | None, from_message: bool, body_terms: int = 1) -> Evidence:
    """One everyday key concept named in the headline (never a ✓ alone); `body_terms` others named only in the
    description, with mass enough for MEDIUM; the release line scored `line` by the batch filter."""
    term = Term("type", "type")
    others = [Term(f"idea{i}", f"idea{i}") for i in range(body_terms)]
    concepts = [Concept([term], 3.0, {"type"})] + [Concept([t], MASS / body_terms, {t.key}) for t in others]
    return Evidence(1.0, scale=1.0, concepts=concepts, credits=[1.0] + [0.0] * body_terms,
                    matched=[{"type"}] + [set() for _ in others], keys=["type"] + [t.key for t in others],
                    shares=[0.3] + [0.01] * body_terms, wheres=[False] * (1 + body_terms),
                    headline={"type": (term, 3.0)}, body={t.key: (t, MASS / body_terms) for t in others},
                    from_message=from_message, line_relevance=line)


def test_the_floor_is_the_message_modes_own() -> None:
    assert lexicon.weight("weak_line", from_message=True) > 0
    assert lexicon.weight("weak_line", from_message=False) == 0


def test_a_weak_line_of_a_message_is_no_medium_on_one_named_word() -> None:
    """The line scored below the floor and the description names one idea: LOW for a message, MEDIUM for fields."""
    weak = lexicon.weight("weak_line", from_message=True) * 0.9
    assert scoring.confidence(_evidence(weak, from_message=True)) == Confidence.LOW
    assert scoring.confidence(_evidence(weak, from_message=False)) == Confidence.MEDIUM


def test_a_line_saying_enough_or_no_line_is_medium() -> None:
    enough = lexicon.weight("weak_line", from_message=True) * 1.1
    assert scoring.confidence(_evidence(enough, from_message=True)) == Confidence.MEDIUM
    assert scoring.confidence(_evidence(None, from_message=True)) == Confidence.MEDIUM  # a PR no line cites


def test_a_description_naming_several_ideas_still_carries_a_weak_line() -> None:
    """A right line worded unlike the message ("Catch client exceptions in HttpTransport.send") whose PR description
    names the problem's ideas stays MEDIUM."""
    weak = lexicon.weight("weak_line", from_message=True) * 0.5
    many = int(lexicon.weight("body_concepts"))
    assert scoring.confidence(_evidence(weak, from_message=True, body_terms=many)) == Confidence.MEDIUM


def test_the_judge_measures_the_line_as_the_batch_filter_does() -> None:
    """`Evidence.line_relevance` is the filter's BM25 × section of the line, per scale (batch statistics here)."""
    release = Release(id=1, repo="acme/widget", tag="2.0.0", version="2.0.0", version_key="k")
    entry = Entry(id=1, release=release, section="fix", text="Fix a timeout when uploading files (#12)")
    query = {"timeout": Term("timeout", "timeout"), "upload": Term("upload", "upload")}
    judge = OfflineJudge(None, registry=None)  # type: ignore[arg-type]
    question = Question(problem="timeout uploading", request_text="timeout uploading", terms=query)
    stats = RepositoryStats(BatchStatistics([entry.text]))
    stats.load("acme/widget", list(query.values()))
    expected = score_entries([entry], query, stats, False)[0][0] / stats.scale("acme/widget")
    assert expected > 0
    assert judge._line_relevance(entry, question) == expected
