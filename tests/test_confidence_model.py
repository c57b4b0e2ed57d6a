"""The named features of a candidate and the logistic confidence model that reads them (coefficients as data)."""

from __future__ import annotations

import json
import math

import pytest

from wif_action.engines.offline import features
from wif_action.engines.offline.evidence import gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, PullRequest

NOTES = ["SentryUploadQueue", "upload proxy port"] * 3 + ["crash"] * 20 + ["missing"] * 5 + ["release health"] * 200


def _features(problem: str, title: str, body: str = "") -> dict[str, float]:
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(NOTES))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=title, body=body, url="https://example.invalid/4")
    return features.candidate_features(gather(pr, None, query, stats, False, [], frozenset(query), "r"), stats,
                                       "r", pr)


def test_the_features_say_what_the_headline_shares_with_the_problem():
    x = _features("Uploads through a proxy with a port go missing.", "Fix uploads through a proxy port going missing")
    assert x["named"] > 0 and x["says_fix"] == 1.0 and x["failure_named"] == 1.0 and x["another_failure"] == 0.0
    assert x["no_description"] == 1.0 and x["identifier"] == 0.0
    assert 0.0 < x["rarity"] <= 1.0


def test_a_named_identifier_and_another_kind_of_failure_are_features():
    crash = _features("SentryUploadQueue loses events: they go missing.", "Fix a crash in SentryUploadQueue",
                      body="Details.")
    assert crash["identifier"] == 1.0 and crash["another_failure"] == 1.0 and crash["no_description"] == 0.0


def test_rarer_shared_concepts_score_a_higher_rarity():
    rare = _features("SentryUploadQueue stops.", "Fix SentryUploadQueue")
    common = _features("The app reports release health.", "Fix release health")
    assert rare["rarity"] > common["rarity"]


MODEL = {"intercept": -1.0, "coefficients": {"named": 2.0, "verified": 1.5}, "high": 0.8, "medium": 0.3}


def test_the_probability_is_a_dot_product_through_the_logistic_function():
    x = {"named": 0.5, "verified": 1.0, "unknown_to_the_model": 9.0}
    assert features.probability(MODEL, x) == pytest.approx(1 / (1 + math.exp(-(-1.0 + 1.0 + 1.5))))


@pytest.mark.parametrize(("x", "hand", "replace", "veto"), [
    ({"named": 1.0, "verified": 1.0}, Confidence.MEDIUM, Confidence.HIGH, Confidence.MEDIUM),  # p 0.92
    ({"named": 0.5, "verified": 0.0}, Confidence.HIGH, Confidence.MEDIUM, Confidence.MEDIUM),  # p 0.5
    ({"named": 0.0, "verified": 0.0}, Confidence.HIGH, Confidence.LOW, Confidence.LOW),  # p 0.27
])
def test_replace_decides_the_level_and_veto_can_only_lower_the_hand_rules(x, hand, replace, veto):
    assert features.level(MODEL | {"combine": "replace"}, x, hand) == replace
    assert features.level(MODEL | {"combine": "veto"}, x, hand) == veto


def test_the_shipped_model_is_data_naming_only_known_features():
    model = json.loads(features.MODEL_PATH.read_text(encoding="utf-8"))
    known = set(_features("Uploads go missing.", "Fix uploads"))
    assert set(model["coefficients"]) <= known
    assert 0.0 < model["medium"] <= model["high"]
    assert (features.shipped_model() is not None) is bool(model["use"])
