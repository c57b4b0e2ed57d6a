"""Named features of one candidate, and the logistic confidence model that reads them.

Why: the hand rules of `scoring.py` decide HIGH/MEDIUM/LOW from thresholds chosen by hand; a fitted model
states the same evidence as numbers (how rare in this repository the shared concepts are, whether an
identifier is named, whether the headline fixes the problem's kind of failure, …) and turns them into a
probability. Its coefficients are data (`confidence_model.json`, written by `bench/fit_confidence.py` with
leave-one-repository-out), applied here as a dot product; no runtime dependency. The model is used only
when the JSON says `"use": true` — it is shipped only if it is at least as good as the hand rules under CV.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

from wif_action import lexicon
from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import Evidence
from wif_action.engines.offline.ranking import RepositoryStats
from wif_action.models import Confidence, PullRequest

MODEL_PATH = Path(__file__).with_name("confidence_model.json")


def candidate_features(evidence: Evidence, stats: RepositoryStats, repo: str, pr: PullRequest,
                       weights: scoring.Thresholds = scoring.SHIPPED) -> dict[str, float]:
    """The candidate's named features (0/1 flags or values of order 1)."""
    named = evidence.named(weights.named_credit)
    verbatim = evidence.named()
    shares = dict(zip((id(c) for c in evidence.concepts), evidence.shares or [0.0] * len(evidence.concepts),
                      strict=True))
    rarest_share = min((shares[id(c)] for c in named), default=1.0)
    asked = scoring._families(evidence.symptoms_asked)
    unit, floor = lexicon.weight("feature_mass_unit"), lexicon.weight("feature_rarity_floor")
    return {
        "named": min(len(verbatim), 5) / 5,
        "named_partly": min(len(named), 5) / 5,
        "coverage": evidence.coverage,
        "headline_mass": min(evidence.headline_mass / evidence.scale / unit, 2.0),
        "total_mass": min(evidence.total_mass / evidence.scale / unit, 2.0),
        "rarity": -math.log10(max(rarest_share, floor)) / 3 if named else 0.0,
        "all_common": float(bool(named) and not evidence.uncommon(named, weights.common_share)),
        "identifier": float(any(c.terms[0].identifier for c in named)),
        "another_failure": float(scoring._another_failure(evidence)),
        "failure_named": float(bool(asked & scoring._families(evidence.symptoms_named))),
        "defect_unnamed": float(bool(evidence.defects) and not evidence.defects_named),
        "says_fix": float(evidence.says_fix),
        "section": evidence.section_weight,
        "ships": float(evidence.ships),
        "linked_issue": float(evidence.linked_issue is not None),
        "quoted_unique": float(evidence.quoted_unique),
        "verified": float(scoring.verified(evidence, stats, repo, weights)),
        "body_concepts": min(evidence.body_concepts, 3) / 3,
        "no_description": float(pr.commit is not None or not pr.body.strip()),
        "hand_high": float(scoring.confidence(evidence, weights) is Confidence.HIGH),
    }


def probability(model: dict, features: dict[str, float]) -> float:
    """The logistic model: sigmoid(intercept + Σ coefficient × feature); a feature the model lacks counts 0."""
    z = float(model["intercept"]) + sum(float(w) * features.get(name, 0.0)
                                        for name, w in model["coefficients"].items())
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def level(model: dict, features: dict[str, float], hand: Confidence) -> Confidence:
    """`combine: "replace"`: HIGH above the model's `high` probability, MEDIUM above `medium`, else LOW.
    `combine: "veto"`: the hand rules' level, except that a HIGH below `high` is MEDIUM and a MEDIUM below
    `medium` is LOW (the model can only lower a level: the hand rules find, the model doubts)."""
    p = probability(model, features)
    fitted = Confidence.HIGH if p >= float(model["high"]) else \
        Confidence.MEDIUM if p >= float(model["medium"]) else Confidence.LOW
    if model.get("combine", "replace") == "replace":
        return fitted
    order = [Confidence.LOW, Confidence.MEDIUM, Confidence.HIGH]
    return min(hand, fitted, key=order.index)


OVERRIDE: dict | None = None  # bench/fit_confidence.py sets a fold's model here to measure it end to end


def active_model() -> dict | None:
    """The model the judge uses now: a bench override, else the shipped one when in use (None: hand rules)."""
    return OVERRIDE if OVERRIDE is not None else shipped_model()


@cache
def shipped_model() -> dict | None:
    """The fitted model when the repository ships it in use (`"use": true`), else None (hand rules)."""
    try:
        model = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return model if model.get("use") else None
