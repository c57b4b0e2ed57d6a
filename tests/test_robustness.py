"""bench/robustness.py says which single concept a ✓ rests on: the one whose removal drops it to MEDIUM.

Why: a HIGH that one concept carries is a thin basis; the tool's count of such ✓s, right against wrong, is how a
gate on thinness is judged, so it must mark exactly the concepts without which the same evidence is no HIGH."""

from __future__ import annotations

from bench.robustness import describe, still_high, without
from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.terms import analyse
from wif_action.models import PullRequest

PROBLEM = "Uploads time out when the proxy url has a port."
NOTES = ["uploads timeout proxy url port"] * 5 + ["release health"] * 95


def _evidence(title: str):
    query = {term.key: term for term in analyse(PROBLEM)}
    stats = RepositoryStats(BatchStatistics(NOTES))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=title, body="", url="https://example.invalid/4")
    return gather(pr, None, query, stats, False, [], frozenset(query), "r")


def test_a_high_naming_just_enough_concepts_rests_on_each_of_them():
    evidence = _evidence("Fix uploads timing out behind a proxy")
    assert still_high(evidence, scoring.SHIPPED)
    found = describe(evidence, "", scoring.SHIPPED)
    assert found["named"] and all(n["carries"] for n in found["named"])
    assert not any(still_high(without(evidence, i), scoring.SHIPPED) for i, credit in enumerate(evidence.credits)
                   if credit >= 1)


def test_a_high_naming_more_than_enough_rests_on_none_alone():
    evidence = _evidence("Fix uploads timing out when the proxy url has a port")
    found = describe(evidence, "", scoring.SHIPPED)
    assert len(found["named"]) >= 3 and not any(n["carries"] for n in found["named"])
