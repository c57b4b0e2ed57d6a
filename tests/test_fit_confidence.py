"""bench/fit_confidence.py's fit: the fast column-wise Newton fit is the row-by-row one, and each set of held-out
repositories is fitted once."""

from __future__ import annotations

import math
import random

from bench.fit_confidence import Answered, Fitter, _names_fix, _solve, floored, out_of_fold, rows_of, ships, veto_high
from wif_action.engines.offline import features
from wif_action.evaluation import Case, CaseResult, Claim, Expectation, FixRef
from wif_action.models import Confidence, PullRequest

NAMES = ["flag", "value", "rare"]


def _rows() -> list[dict]:
    draw = random.Random(21)
    rows = []
    for index in range(120):
        x = {"flag": float(draw.random() < 0.4), "value": round(draw.random(), 3), "rare": float(index % 17 == 0)}
        z = -1.5 + 2.0 * x["flag"] + 1.0 * x["value"] + 1.5 * x["rare"]
        rows.append({"repo": f"r{index % 4}", "case": f"c{index // 3}", "mode": "fields", "x": x,
                     "label": int(draw.random() < 1 / (1 + math.exp(-z)))})
    return rows


def _row_by_row(rows: list[dict], l2: float, iterations: int) -> list[float]:
    """The textbook IRLS loop over rows (the script's fit before it summed by columns)."""
    xs = [[1.0] + [r["x"][n] for n in NAMES] for r in rows]
    w = [0.0] * (len(NAMES) + 1)
    for _ in range(iterations):
        grad = [0.0] * len(w)
        hess = [[0.0] * len(w) for _ in w]
        for x, r in zip(xs, rows, strict=True):
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, x, strict=True))))
            for i in range(len(w)):
                grad[i] += (r["label"] - p) * x[i]
                for j in range(len(w)):
                    hess[i][j] += max(p * (1 - p), 1e-9) * x[i] * x[j]
        for i in range(1, len(w)):
            grad[i] -= l2 * w[i]
            hess[i][i] += l2
        w = [a + b for a, b in zip(w, _solve(hess, grad), strict=True)]
    return w


def test_the_column_fit_is_the_row_by_row_fit_on_the_rows_left_in() -> None:
    rows = _rows()
    model = Fitter(rows, NAMES, 1.0).fit(frozenset({"r1"}), iterations=6)
    expected = _row_by_row([r for r in rows if r["repo"] != "r1"], 1.0, 6)
    assert abs(model["intercept"] - expected[0]) < 1e-9
    for name, value in zip(NAMES, expected[1:], strict=True):
        assert abs(model["coefficients"][name] - value) < 1e-9
    assert model["coefficients"]["flag"] > 0.5  # it learned something: a wrong sum would not


def test_a_pair_of_held_out_repositories_is_fitted_once_whichever_is_held_out_first() -> None:
    fitter = Fitter(_rows(), NAMES, 1.0)
    first = fitter.fit(frozenset({"r0"}) | {"r2"}, iterations=6)
    assert fitter.fit(frozenset({"r2"}) | {"r0"}, iterations=6) is first
    assert fitter.fit(frozenset({"r0", "r2"}), iterations=8) is not first


def test_out_of_fold_probabilities_come_from_the_model_fitted_without_the_rows_repository() -> None:
    rows = _rows()
    fitter = Fitter(rows, NAMES, 1.0)
    kept = [r for r in rows if r["repo"] != "r3"]
    probabilities = out_of_fold(kept, fitter, frozenset({"r3"}))
    for r, p in zip(kept, probabilities, strict=True):
        assert p == features.probability(fitter.fit(frozenset({"r3", r["repo"]}), iterations=6), r["x"])


def _pr(number: int, commit: str | None = None) -> PullRequest:
    return PullRequest(repo="o/r", number=number, title="fix: it", url="https://example.invalid/pr", commit=commit)


def test_a_line_citing_only_a_commit_is_labelled_right_by_its_sha() -> None:
    ref = FixRef(fixed_in="6.18.0", commit="b449f36609b727f3f147fad19e8d064225bc8621")
    assert _names_fix(_pr(0, "b449f36"), ref)
    assert not _names_fix(_pr(0, "b449f37"), ref)
    assert not _names_fix(_pr(0, "b449f36"), FixRef(fixed_in="6.18.0", pr=0))  # a stand-in's number is no PR
    assert _names_fix(_pr(12), FixRef(fixed_in="1.0.0", pr=12))


def test_a_model_that_says_almost_no_check_mark_or_loses_right_answers_does_not_ship() -> None:
    hand = {"high_precision": (158, 162), "top1": (246, 288)}
    assert not ships({"high_precision": (0, 0), "top1": (239, 288)}, hand)
    assert not ships({"high_precision": (1, 1), "top1": (246, 288)}, hand)  # 1/1 is no measured precision
    assert not ships({"high_precision": (40, 40), "top1": (239, 288)}, hand)  # precise, but right answers lost
    assert not ships({"high_precision": (19, 20), "top1": (250, 288)}, hand)
    assert ships({"high_precision": (40, 40), "top1": (246, 288)}, hand)


def test_a_veto_on_high_lowers_only_a_high_below_its_threshold() -> None:
    model = veto_high({"intercept": 0.0, "coefficients": {"flag": 1.0}, "high": 0.98, "medium": 0.4}, 0.6)
    unsure, sure = {"flag": 0.0}, {"flag": 1.0}  # probabilities 0.5 and 0.73
    assert features.level(model, unsure, Confidence.HIGH) is Confidence.MEDIUM
    assert features.level(model, sure, Confidence.HIGH) is Confidence.HIGH
    assert features.level(model, {"flag": -9.0}, Confidence.MEDIUM) is Confidence.MEDIUM  # p 0.0001: no MEDIUM lowered
    assert features.level(model, unsure, Confidence.LOW) is Confidence.LOW


def _scoring(held: bool, x: float, number: int = 7, case: str = "c1") -> dict:
    return {"case": case, "mode": "fields", "repo": "o/r", "label": 1, "key": ["o/r", number, None], "held": held,
            "x": {"flag": x}}


def test_a_candidate_is_fitted_on_the_scans_scoring_not_on_its_held_re_reading() -> None:
    # the scan's HIGH re-read on its own line as a rival of the held lines (`PrEvaluator.held`), after the scan
    scorings = [_scoring(False, 1.0), _scoring(True, 0.0), _scoring(True, 0.5, number=3),
                _scoring(False, 0.2, case="c2")]
    rows = rows_of(scorings)
    assert [(r["case"], r["x"]["flag"]) for r in rows] == [("c1", 1.0), ("c2", 0.2)]  # a held-only line is no row
    assert set(rows[0]) == {"case", "mode", "repo", "label", "x"}


def _answered(outcome: str, confidence: str, pr: int, flag: float) -> Answered:
    case = Case(id="c", category="fixed", repo="o/r", version="1.0.0", problem="it breaks",
                expect=Expectation(outcome="fixed", fixed_in="1.1.0", prs=[7]))
    claim = Claim(version="1.1.0", tag="1.1.0", pr=pr, confidence=confidence, repo="o/r")
    return Answered(case, CaseResult(id="c", outcome=outcome, candidates=[claim]), {"flag": flag})


def test_a_medium_floor_turns_only_a_medium_answer_below_it_into_no_result() -> None:
    model = {"intercept": 0.0, "coefficients": {"flag": 1.0}}  # flag 0: p 0.5; flag 1: p 0.73
    unsure = floored(_answered("medium", "medium", 7, 0.0), model, 0.6)
    assert (unsure["outcome"], unsure["top1"], unsure["found"], unsure["medium"]) == ("no_result", False, False, False)
    sure = floored(_answered("medium", "medium", 7, 1.0), model, 0.6)
    assert (sure["outcome"], sure["top1"]) == ("medium", True)
    high = floored(_answered("high", "high", 8, 0.0), model, 0.6)  # the hand rules decide HIGH
    assert (high["outcome"], high["high"], high["top_right"]) == ("high", True, False)
    unscored = _answered("medium", "medium", 8, 0.0)
    assert floored(Answered(unscored.case, unscored.result, None), model, 0.6)["outcome"] == "medium"
