"""Fit the offline judge's logistic confidence model with leave-one-repository-out, and compare it with the hand rules.

1. Collect: every labelled case (public + holdout + bench/data/near, bench/quality_report.py's set) runs through
   the shipped workflow in both input modes with the hand rules (`max_high` 3, so the scan judges past the first HIGH);
   each candidate the scan judges is recorded with its named features (`features.candidate_features`) as the scan
   scored it (`rows_of`: not `PrEvaluator.held`'s re-reading of its line) and a label (one of the case's fixes).
2. Fit: L2-regularised logistic regression by Newton's method (IRLS), plain Python — no new dependency.
   Thresholds: HIGH = the smallest probability at which the answers' top candidates above it are right
   ≥ 95% of the time; MEDIUM = the smallest at which top candidates between it and HIGH are right ≥ half
   the time. Both are chosen on out-of-fold probabilities of the training repositories (nested LOO).
3. Measure end to end: for each repository, the model fitted without it answers its cases (through the
   shipped workflow, quality_report's runner: `features.OVERRIDE`; the `unreleased_newest` cases too, each on its
   own cache, so the hand rules' row is quality_report's); the CV numbers are those answers. In-sample: fitted on all.
   The hand rules have no fitted value, so their in-sample and CV numbers are the same run.
4. Write `wif_action/engines/offline/confidence_model.json` (coefficients, thresholds, the numbers) with
   `"use": true` only when, in both modes, the fitted model's CV HIGH precision (over at least `MIN_ANSWERS` ✓)
   and CV top-1 are at least the hand rules' (`ships`).

`--veto-grid T1,T2,…` measures the model in a narrower role instead (nothing written): a veto on HIGH only — the
hand rules rank and decide, a HIGH whose probability is below t is MEDIUM (`veto_high`; a demoted HIGH no longer
ends the scan, so later batches are read and can change the answer: measured, every case re-run). For each t the
answers in-sample (fitted on all) and under LOO-CV (each repository by the model fitted without it), then t chosen
per held-out repository on the others' CV answers by `objective.py`, one t for both modes, ties to "off"
(`quality_report.loo`). About 5 minutes per value on this loaded 2-core machine.

`--floor-grid P1,P2,…` measures the role issue 21 names for the MEDIUM level: a floor — the hand rules decide HIGH
and rank, and a MEDIUM answer whose top candidate's probability is below p is `no_result` (its candidates then near
misses; `floored`). The floor acts after the scan, so one hand-rules run, recording the features of each answer's top
candidate as the scan scored it, gives every p's answers exactly (`answered_with_tops`); in-sample (fitted on all)
and LOO-CV (each repository by the model fitted without it), p chosen per held-out repository as for the veto. With
`--write` its rows go into the model's report (`medium_floor`). About 3 minutes plus the fits.

    python bench/fit_confidence.py [--db FILE] [--l2 1.0] [--write] [--veto-grid 0.1,0.3,0.5 | --floor-grid 0.01,0.05]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from itertools import repeat
from operator import add, mul
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.calibrate_offline import ShippedRunner  # noqa: E402
from bench.labelled import fixture_dir, registry_file  # noqa: E402
from bench.objective import Graded, objective  # noqa: E402
from bench.quality_report import (  # noqa: E402
    MODES,
    NEVER_FIXED,
    build_db,
    folds,
    labelled_cases,
    loo,
    metrics,
    repository,
    row,
    unreleased_cases,
)
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action.app import AppConfig  # noqa: E402
from wif_action.commands.eval_cases import run_case  # noqa: E402
from wif_action.engines.offline import features  # noqa: E402
from wif_action.engines.offline.judge import OfflineJudge  # noqa: E402
from wif_action.evaluation import Case, CaseResult, FixRef  # noqa: E402
from wif_action.models import Candidate, Entry, PullRequest, Score  # noqa: E402
from wif_action.question import Question  # noqa: E402
from wif_action.subtasks.pr_evaluation import PrEvaluator  # noqa: E402

HIGH_PRECISION = 0.95
MEDIUM_PRECISION = 0.5
MIN_ANSWERS = 5  # a threshold rests on at least this many answers above it


# --------------------------------------------------------------------------- collect

class Recorder:
    """While active (`with`), every scoring the offline judge makes — features, label, and whether
    `PrEvaluator.held` asked for it — for the case and mode set by `at`."""

    def __init__(self) -> None:
        self.scorings: list[dict] = []
        self._case: Case | None = None
        self._mode = ""
        self._held = 0

    def at(self, case: Case, mode: str) -> None:
        self._case, self._mode = case, mode

    def __enter__(self) -> Recorder:
        self._score, self._held_line = OfflineJudge.score_pr_confidence, PrEvaluator.held
        recorder, score, held_line = self, self._score, self._held_line

        def recording(judge: OfflineJudge, pr: PullRequest, entry: Entry | None, question: Question) -> Score:
            recorder._record(judge, pr, entry, question)
            return score(judge, pr, entry, question)

        def held(evaluator: PrEvaluator, entry: Entry) -> Candidate | None:
            recorder._held += 1
            try:
                return held_line(evaluator, entry)
            finally:
                recorder._held -= 1

        OfflineJudge.score_pr_confidence = recording  # type: ignore[method-assign,assignment]
        PrEvaluator.held = held  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        OfflineJudge.score_pr_confidence = self._score  # type: ignore[method-assign]
        PrEvaluator.held = self._held_line  # type: ignore[method-assign]

    def _record(self, judge: OfflineJudge, pr: PullRequest, entry: Entry | None, question: Question) -> None:
        case = self._case
        assert case is not None, "Recorder.at names the case first"
        label = any(_names_fix(pr, ref) and (ref.repo is None or ref.repo == pr.repo) for ref in case.expect.fixes())
        self.scorings.append({"case": case.id, "mode": self._mode, "repo": repository(case), "label": int(label),
                              "key": [pr.repo, pr.number if pr.commit is None else None, pr.commit],
                              "held": bool(self._held), "x": judge.candidate_features(pr, entry, question)})


def collect(cases: list[Case], db: str) -> list[dict]:
    """One row per (case, mode, candidate the scan judged): its features and label, from the scoring the answer
    uses (`rows_of`)."""
    config = AppConfig(db=db, engine="offline", max_high=3, run_source="eval", registry=registry_file())
    with Recorder() as recorder:
        for mode in MODES:
            for case in cases:
                recorder.at(case, mode)
                run_case(case, mode, config)
    return rows_of(recorder.scorings)


def rows_of(scorings: list[dict]) -> list[dict]:
    """The rows to fit on: each candidate's scoring by the scan (`PrEvaluator` judges a candidate once per run, and
    its candidate or near miss is what the answer uses), without the scorings of `PrEvaluator.held`.

    Why not the held scorings: they re-read a line on its own words (no PR fetched) as a rival of a later HIGH —
    the scan's HIGH itself once more (805 of 13,491 scorings were such a second scoring, and keyed by candidate the
    last one won, so a right ✓ was fitted on its line without its PR), and lines of releases the customer already
    runs. Neither is ever an answer, and a held line's label is not known: a case names its fixes after the
    customer's version, so an older line that fixes the same problem counts as wrong."""
    rows: dict[tuple, dict] = {}
    for scoring in scorings:
        if not scoring["held"]:
            key = (scoring["case"], scoring["mode"], *scoring["key"])
            rows.setdefault(key, {k: scoring[k] for k in ("case", "mode", "repo", "label", "x")})
    return list(rows.values())


def _names_fix(pr: PullRequest, ref: FixRef) -> bool:
    """The candidate is the fix: the same PR, or (a release line citing only a commit, judged as a stand-in PR)
    the same commit, either SHA a prefix of the other — as `evaluation.is_claim_of` judges an answer."""
    if ref.pr is not None:
        return pr.commit is None and ref.pr == pr.number
    sha, want = (pr.commit or "").lower(), (ref.commit or "").lower()
    return len(sha) >= 7 and (sha.startswith(want) or want.startswith(sha))


# --------------------------------------------------------------------------- fit

def fit(rows: list[dict], names: list[str], l2: float, iterations: int = 8) -> dict:
    """L2-regularised logistic regression (intercept not penalised) by Newton–Raphson."""
    return Fitter(rows, names, l2).fit(frozenset(), iterations)


class Fitter:
    """Fits on the rows outside a set of repositories, each distinct set once.

    Why it is fast: the nested leave-one-repository-out asks for every pair of held-out repositories twice (A
    held out, then B within it, and the reverse) — the same rows in the same order, so the same model, fitted
    once here; and a Newton step sums, for each pair of features (the Hessian is symmetric), only the rows where
    both are non-zero (most features are flags), with `sum(map(…))` over index lists and products x_i·x_j built
    once, a left-out row weighing an exact 0. Against a row-by-row loop only the rounding of the products
    differs (probabilities agree to ~1e-12)."""

    def __init__(self, rows: list[dict], names: list[str], l2: float) -> None:
        self.names, self.l2 = names, l2
        self.columns = [[1.0] * len(rows)] + [[float(r["x"].get(n, 0.0)) for r in rows] for n in names]
        self.labels = [float(r["label"]) for r in rows]
        self.repos = [r["repo"] for r in rows]
        nonzero = [[k for k, v in enumerate(column) if v != 0.0] for column in self.columns]
        self.nonzero = [(ks, [column[k] for k in ks]) for ks, column in zip(nonzero, self.columns, strict=True)]
        groups: dict[tuple[int, ...], list[tuple[int, int, list[float]]]] = defaultdict(list)
        for i, ks in enumerate(nonzero):
            for j in range(i, len(self.columns)):
                both = tuple(k for k in ks if self.columns[j][k] != 0.0)
                if both:
                    groups[both].append((i, j, [self.columns[i][k] * self.columns[j][k] for k in both]))
        self.groups = list(groups.items())  # rows where both features are non-zero → (i, j, x_i·x_j per row)
        self._fitted: dict[tuple[frozenset[str], int], dict] = {}

    def fit(self, without: frozenset[str], iterations: int) -> dict:
        """The model fitted on every row whose repository is not in `without`."""
        key = (without, iterations)
        if key not in self._fitted:
            w = self._newton([repo not in without for repo in self.repos], iterations)
            self._fitted[key] = {"intercept": w[0], "coefficients": dict(zip(self.names, w[1:], strict=True))}
        return self._fitted[key]

    def _newton(self, keep: list[bool], iterations: int) -> list[float]:
        d = len(self.columns)
        w = [0.0] * d
        for _ in range(iterations):
            z = [0.0] * len(keep)
            for wi, column in zip(w, self.columns, strict=True):
                z = list(map(add, z, map(mul, repeat(wi), column)))
            p = [_sigmoid(v) for v in z]
            weights = [max(pi * (1 - pi), 1e-9) if kept else 0.0 for pi, kept in zip(p, keep, strict=True)]
            residual = [y - pi if kept else 0.0 for y, pi, kept in zip(self.labels, p, keep, strict=True)]
            grad = [float(sum(map(mul, map(residual.__getitem__, ks), values))) for ks, values in self.nonzero]
            hess = [[0.0] * d for _ in range(d)]
            for both, products in self.groups:
                gathered = list(map(weights.__getitem__, both))
                for i, j, product in products:
                    hess[i][j] = hess[j][i] = float(sum(map(mul, gathered, product)))
            for i in range(1, d):
                grad[i] -= self.l2 * w[i]
                hess[i][i] += self.l2
            step = _solve(hess, grad)
            w = [wi + si for wi, si in zip(w, step, strict=True)]
        return w


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a is small and positive definite)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(col + 1, n):
            factor = m[r][col] / m[col][col]
            if factor:
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(m[r][r]) >= 1e-12:
            x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


# --------------------------------------------------------------------------- thresholds

def out_of_fold(rows: list[dict], fitter: Fitter, without: frozenset[str] = frozenset()) -> list[float]:
    """Each row's probability from the model fitted without its repository (`rows`: the fitter's rows outside
    the repositories `without`)."""
    probabilities = [0.0] * len(rows)
    for repo in sorted({r["repo"] for r in rows}):
        model = fitter.fit(without | {repo}, iterations=6)
        for index, r in enumerate(rows):
            if r["repo"] == repo:
                probabilities[index] = features.probability(model, r["x"])
    return probabilities


def thresholds(rows: list[dict], probabilities: list[float], combine: str) -> tuple[float, float]:
    """(high, medium) on answer-level proxies: each (case, mode) answered by its most probable candidate (with
    `veto`, HIGH is chosen among the candidates the hand rules make HIGH and verify)."""
    answers = _answers(rows, probabilities)
    high = _high(_answers([r for r in rows if _hand_high(r)], [p for r, p in zip(rows, probabilities, strict=True)
                                                               if _hand_high(r)]) if combine == "veto" else answers)
    medium = high
    band = [a for a in answers if a[0] < high]
    for index in range(1, len(band) + 1):
        above = band[:index]
        if sum(label for _, label in above) / len(above) >= MEDIUM_PRECISION:
            medium = above[-1][0]
    return high, medium


def _hand_high(r: dict) -> bool:
    return bool(r["x"].get("hand_high") and r["x"].get("verified"))


def _answers(rows: list[dict], probabilities: list[float]) -> list[tuple[float, int]]:
    best: dict[tuple, tuple[float, int]] = {}
    for r, p in zip(rows, probabilities, strict=True):
        key = (r["case"], r["mode"])
        if key not in best or p > best[key][0]:
            best[key] = (p, r["label"])
    return sorted(best.values(), reverse=True)


def _high(answers: list[tuple[float, int]]) -> float:
    high = 1.01
    for index in range(MIN_ANSWERS, len(answers) + 1):
        above = answers[:index]
        if sum(label for _, label in above) / len(above) >= HIGH_PRECISION:
            high = above[-1][0]
    return high


def trained(fitter: Fitter, rows: list[dict], combine: str, without: frozenset[str] = frozenset()) -> dict:
    """A model fitted on the rows outside the repositories `without` with thresholds from their out-of-fold
    probabilities."""
    model = dict(fitter.fit(without, iterations=8))
    kept = [r for r in rows if r["repo"] not in without]
    model["high"], model["medium"] = thresholds(kept, out_of_fold(kept, fitter, without), combine)
    model["combine"] = combine
    return model


# --------------------------------------------------------------------------- measure

def answer(cases: list[Case], runner: ShippedRunner, model: dict | None) -> dict[str, list[dict]]:
    """The cases answered through quality_report's runner (an `unreleased_newest` case on its own cache), with
    `model` as the judge's confidence model (None: the hand rules), judged as quality_report judges them."""
    features.OVERRIDE = model
    try:
        return {mode: [row(case, result) for case, result in zip(cases, runner.results(cases, mode), strict=True)]
                for mode in MODES}
    finally:
        features.OVERRIDE = None


def veto_high(model: dict, t: float) -> dict:
    """`model` as a veto on HIGH only: a hand HIGH below probability `t` is MEDIUM, no MEDIUM is lowered (a
    `medium` of 0: every probability is at least it)."""
    return {**model, "high": t, "medium": 0.0, "combine": "veto"}


def veto_grid(values: list[float], fitter: Fitter, by_repo: dict[str, list[Case]], runner: ShippedRunner,
              hand: dict[str, list[dict]]) -> None:
    """Print, per t, the veto's answers in-sample and under LOO-CV, then the LOO choice of t (ties: off)."""
    measured = [case for held in by_repo.values() for case in held]
    full = fitter.fit(frozenset(), iterations=8)
    runs: dict[str, dict[str, list[dict]]] = {}
    for t in values:
        in_sample = answer(measured, runner, veto_high(full, t))
        cv: dict[str, list[dict]] = {mode: [] for mode in MODES}
        for repo, held in sorted(by_repo.items()):
            for mode, answered in answer(held, runner, veto_high(fitter.fit(frozenset({repo}), 8), t)).items():
                cv[mode] += answered
        runs[str(t)] = cv
        for mode in MODES:
            show(f"{mode} t={t} in-sample", in_sample[mode])
            show(f"{mode} t={t} LOO-CV", cv[mode])
    runs["off"] = hand  # listed last: a tie goes to the hand rules alone
    for mode in MODES:
        show(f"{mode} hand rules (t off)", hand[mode])
        chosen_rows, chosen = loo(runs, mode, MODES)
        show(f"{mode} t chosen by LOO-CV", chosen_rows)
        print(f"  chosen per held-out repository: {folds(chosen)}")


def answered_with_tops(cases: list[Case], runner: ShippedRunner) -> dict[str, list[Answered]]:
    """The hand rules' answers (quality_report's runner, one case at a time) with the features of each answer's
    top candidate as the scan scored it (`rows_of`: the scoring its candidate came from; None: no top, or a top
    the offline judge did not score)."""
    answered: dict[str, list[Answered]] = {mode: [] for mode in MODES}
    features.OVERRIDE = None
    with Recorder() as recorder:
        for mode in MODES:
            for case in cases:
                recorder.at(case, mode)
                start = len(recorder.scorings)
                (result,) = runner.results([case], mode)
                scored = {tuple(r["key"]): r["x"] for r in reversed(recorder.scorings[start:]) if not r["held"]}
                top = result.candidates[0] if result.candidates else None  # the answer lists its top first
                x = scored.get((top.repo, top.pr, top.commit)) if top is not None else None
                answered[mode].append(Answered(case, result, x))
    return answered


@dataclass(frozen=True)
class Answered:
    """One hand-rules answer and the features of its top candidate (None: none recorded)."""

    case: Case
    result: CaseResult
    top: dict[str, float] | None


def floored(answered: Answered, model: dict, p: float) -> dict:
    """The answer under a fitted MEDIUM floor, as quality_report's row: a MEDIUM answer (an unconfident
    unreleased one too) whose top candidate's probability is below `p` is `no_result` (its candidates then are
    near misses); every other answer as the hand rules gave it.

    Why no re-run: the floor acts on the answer after the scan — the scan, its HIGHs and its ranking are the hand
    rules' — so the answer it changes is the run's own, whole; only its outcome and listing change."""
    hand = row(answered.case, answered.result)
    if not hand["medium"] or answered.top is None or features.probability(model, answered.top) >= p:
        return hand
    return row(answered.case, answered.result.model_copy(update={"outcome": "no_result", "candidates": []}))


def floor_grid(values: list[float], fitter: Fitter, answered: dict[str, list[Answered]]) -> dict[str, dict]:
    """Print, per p, the floor's answers in-sample (the model fitted on all) and under LOO-CV (each repository's
    answers by the model fitted without it), then p chosen per held-out repository by `objective.py` on the others'
    CV answers, one p for both modes, ties to "off" (`quality_report.loo`). Returns the rows as the report keeps
    them."""
    full = fitter.fit(frozenset(), iterations=8)
    repos = sorted({repository(a.case) for a in answered[MODES[0]]})
    fold = {repo: fitter.fit(frozenset({repo}), iterations=8) for repo in repos}
    runs: dict[str, dict[str, list[dict]]] = {}
    report: dict[str, dict] = {mode: {} for mode in MODES}
    unscored = {mode: sum(a.top is None and row(a.case, a.result)["medium"] for a in answered[mode]) for mode in MODES}
    print(f"MEDIUM answers whose top candidate has no recorded scoring (never floored): {unscored}")
    for p in values:
        cv = {mode: [floored(a, fold[repository(a.case)], p) for a in answered[mode]] for mode in MODES}
        runs[str(p)] = cv
        for mode in MODES:
            in_sample = [floored(a, full, p) for a in answered[mode]]
            show_floor(f"{mode} p={p} in-sample", in_sample)
            show_floor(f"{mode} p={p} LOO-CV", cv[mode])
            report[mode][str(p)] = {"in_sample": floor_metrics(in_sample), "cv": floor_metrics(cv[mode])}
    runs["off"] = {mode: [row(a.case, a.result) for a in answered[mode]] for mode in MODES}  # last: ties go off
    for mode in MODES:
        show_floor(f"{mode} hand rules (p off)", runs["off"][mode])
        chosen_rows, chosen = loo(runs, mode, MODES)
        show_floor(f"{mode} p chosen by LOO-CV", chosen_rows)
        print(f"  chosen per held-out repository: {folds(chosen)}")
        report[mode]["off"] = floor_metrics(runs["off"][mode])
        report[mode]["chosen"] = {**floor_metrics(chosen_rows), "folds": folds(chosen)}
    return report


def floor_metrics(rows: list[dict]) -> dict:
    """What the floor moves: quality_report's metrics, the unrelated MEDIUMs that lead a never-fixed answer, and
    objective.py's score."""
    never = [r for r in rows if r["category"] in NEVER_FIXED]
    return {**metrics(rows), "never_fixed_unrelated_medium": sum(r["medium"] and not r["top_right"] for r in never),
            "objective": round(objective(Graded(**r["graded"]) for r in rows), 2)}


def show_floor(title: str, rows: list[dict]) -> None:
    m = floor_metrics(rows)
    cells = [f"{k} {m[k][0]}/{m[k][1]}" for k in ("medium_top_precision", "top1", "found", "high_precision",
                                                  "never_fixed_ok")]
    unrelated = m["never_fixed_unrelated_medium"]
    print(f"{title:<30} " + " · ".join(cells) + f" · unrelated MEDIUM on never-fixed {unrelated} · objective "
          f"{m['objective']}")


def show(title: str, rows: list[dict]) -> None:
    m = metrics(rows)
    print(f"{title:<28} " + " · ".join(f"{k} {p}/{w}" + (f" ({p / w:.2f})" if w else "") for k, (p, w) in m.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="release cache (default: built from the fixtures)")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--write", action="store_true", help="write confidence_model.json")
    parser.add_argument("--combine", choices=("replace", "veto"), default="veto",
                        help="replace: the model decides the level; veto: it can only lower the hand rules' level")
    parser.add_argument("--rows", metavar="FILE", help="reuse (or save) the collected candidates")
    parser.add_argument("--veto-grid", metavar="T1,T2,…",
                        help="measure the model as a veto on HIGH only at these probabilities (nothing written)")
    parser.add_argument("--floor-grid", metavar="P1,P2,…",
                        help="measure the model as a MEDIUM floor at these probabilities (with --write: kept in the "
                             "model's report)")
    args = parser.parse_args(argv)
    if args.write and args.veto_grid:
        parser.error("--veto-grid measures a role, --write stores the fitted model: one at a time")
    if args.veto_grid and args.floor_grid:
        parser.error("--veto-grid and --floor-grid: one role at a time")
    db = args.db or build_db()
    cases = labelled_cases()  # fitted on these; measured on them and the `unreleased_newest` ones (their own cache)
    measured = cases + unreleased_cases()
    by_repo: dict[str, list[Case]] = defaultdict(list)
    for case in measured:
        by_repo[repository(case)].append(case)
    with FakeGitHub(fixture_dir()) as github, ShippedRunner(Path(db), fixture_dir(), registry_file()) as runner:
        os.environ["GITHUB_API_URL"] = github.url
        os.environ.pop("GITHUB_TOKEN", None)
        rows = _rows(args.rows, cases, db)
        names = sorted(rows[0]["x"])
        print(f"{len(rows)} candidates ({sum(r['label'] for r in rows)} right) from {len(cases)} cases × 2 modes; "
              f"measured on {len(measured)} cases")
        fitter = Fitter(rows, names, args.l2)
        floor_report: dict[str, dict] | None = None
        if args.floor_grid:
            answered = answered_with_tops(measured, runner)
            hand = {mode: [row(a.case, a.result) for a in answered[mode]] for mode in MODES}
            floor_report = floor_grid([float(v) for v in args.floor_grid.split(",")], fitter, answered)
            if not args.write:
                return 0
        else:
            hand = answer(measured, runner, None)
        if args.veto_grid:
            veto_grid([float(v) for v in args.veto_grid.split(",")], fitter, by_repo, runner, hand)
            return 0
        full = trained(fitter, rows, args.combine)
        in_sample = answer(measured, runner, full)
        cv: dict[str, list[dict]] = {mode: [] for mode in MODES}
        folds = {}
        for repo, held in sorted(by_repo.items()):
            model = trained(fitter, rows, args.combine, frozenset({repo}))
            print(f"  held out {repo} ({len(held)} cases): high {model['high']:.3f}, medium {model['medium']:.3f}",
                  file=sys.stderr, flush=True)
            folds[repo] = {"high": round(model["high"], 4), "medium": round(model["medium"], 4)}
            for mode, answers in answer(held, runner, model).items():
                cv[mode] += answers
    report: dict[str, dict] = {}
    for mode in MODES:
        show(f"{mode} hand rules (=CV)", hand[mode])
        show(f"{mode} fitted in-sample", in_sample[mode])
        show(f"{mode} fitted LOO-CV", cv[mode])
        report[mode] = {"hand": metrics(hand[mode]), "fitted_in_sample": metrics(in_sample[mode]),
                        "fitted_cv": metrics(cv[mode])}
    print(f"thresholds per held-out repository: {folds}")
    print(f"model fitted on all: high {full['high']:.3f}, medium {full['medium']:.3f}; coefficients "
          + ", ".join(f"{k} {v:+.2f}" for k, v in sorted(full["coefficients"].items(), key=lambda kv: -abs(kv[1]))))
    use = all(ships(report[m]["fitted_cv"], report[m]["hand"]) for m in MODES)
    print(f"ship the fitted model: {use} (in both modes its CV HIGH precision, over at least {MIN_ANSWERS} ✓, and "
          f"its CV top-1 {'are' if use else 'are not both'} at least the hand rules')")
    if args.write:
        full.update(use=use, fitted_on=f"{len(rows)} candidates of {len(cases)} labelled cases, both modes",
                    report=report, l2=args.l2)
        if floor_report is not None:
            full["medium_floor"] = floor_report
        features.MODEL_PATH.write_text(json.dumps(full, indent=1) + "\n", encoding="utf-8")
    return 0


def _rows(path: str | None, cases: list[Case], db: str) -> list[dict]:
    if path and Path(path).exists():
        return json.loads(Path(path).read_text())
    rows = collect(cases, db)
    if path:
        Path(path).write_text(json.dumps(rows))
    return rows


def ships(fitted: dict, hand: dict) -> bool:
    """Whether the fitted model beats the hand rules in one mode under CV: a HIGH precision at least theirs, over
    at least `MIN_ANSWERS` ✓ (a model whose threshold sits above nearly every probability says ✓ once or never:
    1/1 is no measured precision, and it turns every other right ✓ into a MEDIUM), and a top-1 at least theirs
    (a right answer it loses is not made up by precision)."""
    part, whole = fitted["high_precision"]
    hand_part, hand_whole = hand["high_precision"]
    precise = whole >= MIN_ANSWERS and part / whole >= (hand_part / hand_whole if hand_whole else 0.0)
    return precise and fitted["top1"][0] >= hand["top1"][0]


if __name__ == "__main__":
    sys.exit(main())
