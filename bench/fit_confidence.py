"""Fit the offline judge's logistic confidence model with leave-one-repository-out, and compare it with the hand rules.

1. Collect: every labelled case (public + holdout + bench/data/near, bench/quality_report.py's set) runs through
   the shipped workflow in both input modes with the hand rules (`max_high` 3, so the scan judges past the first HIGH);
   each candidate the judge scores is recorded with its named features (`features.candidate_features`) and
   a label (it is one of the case's right fixes).
2. Fit: L2-regularised logistic regression by Newton's method (IRLS), plain Python — no new dependency.
   Thresholds: HIGH = the smallest probability at which the answers' top candidates above it are right
   ≥ 95% of the time; MEDIUM = the smallest at which top candidates between it and HIGH are right ≥ half
   the time. Both are chosen on out-of-fold probabilities of the training repositories (nested LOO).
3. Measure end to end: for each repository, the model fitted without it answers its cases (through the
   shipped workflow, quality_report's runner: `features.OVERRIDE`; the `unreleased_newest` cases too, each on its
   own cache, so the hand rules' row is quality_report's); the CV numbers are those answers. In-sample: fitted on all.
   The hand rules have no fitted value, so their in-sample and CV numbers are the same run.
4. Write `wif_action/engines/offline/confidence_model.json` (coefficients, thresholds, the numbers) with
   `"use": true` only when the fitted model's CV HIGH precision is at least the hand rules' in both modes.

    python bench/fit_confidence.py [--db FILE] [--l2 1.0] [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.calibrate_offline import ShippedRunner  # noqa: E402
from bench.labelled import fixture_dir, registry_file  # noqa: E402
from bench.quality_report import MODES, build_db, labelled_cases, metrics, repository, row, unreleased_cases  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action.app import AppConfig  # noqa: E402
from wif_action.commands.eval_cases import run_case  # noqa: E402
from wif_action.engines.offline import features  # noqa: E402
from wif_action.engines.offline.judge import OfflineJudge  # noqa: E402
from wif_action.evaluation import Case  # noqa: E402

HIGH_PRECISION = 0.95
MEDIUM_PRECISION = 0.5
MIN_ANSWERS = 5  # a threshold rests on at least this many answers above it


# --------------------------------------------------------------------------- collect

def collect(cases: list[Case], db: str) -> list[dict]:
    """One row per (case, mode, candidate scored): features and label."""
    rows: dict[tuple, dict] = {}
    current: dict[str, object] = {}
    original = OfflineJudge.score_pr_confidence

    def recording(self, pr, entry, question):
        case: Case = current["case"]
        fixes = case.expect.fixes()
        label = pr.commit is None and any(ref.pr == pr.number and (ref.repo is None or ref.repo == pr.repo)
                                          for ref in fixes)
        key = (case.id, current["mode"], pr.repo, pr.number, pr.commit)
        rows[key] = {"case": case.id, "mode": current["mode"], "repo": repository(case), "label": int(label),
                     "x": self.candidate_features(pr, entry, question)}
        return original(self, pr, entry, question)

    OfflineJudge.score_pr_confidence = recording  # type: ignore[method-assign]
    try:
        config = AppConfig(db=db, engine="offline", max_high=3, run_source="eval", registry=registry_file())
        for mode in MODES:
            for case in cases:
                current.update(case=case, mode=mode)
                run_case(case, mode, config)
    finally:
        OfflineJudge.score_pr_confidence = original  # type: ignore[method-assign]
    return list(rows.values())


# --------------------------------------------------------------------------- fit

def fit(rows: list[dict], names: list[str], l2: float, iterations: int = 8) -> dict:
    """L2-regularised logistic regression (intercept not penalised) by Newton–Raphson."""
    xs = [[1.0] + [r["x"].get(n, 0.0) for n in names] for r in rows]
    ys = [r["label"] for r in rows]
    d = len(names) + 1
    w = [0.0] * d
    for _ in range(iterations):
        grad = [0.0] * d
        hess = [[0.0] * d for _ in range(d)]
        for x, y in zip(xs, ys, strict=True):
            p = _sigmoid(sum(wi * xi for wi, xi in zip(w, x, strict=True)))
            weight = max(p * (1 - p), 1e-9)
            for i in range(d):
                if x[i] == 0.0:
                    continue
                grad[i] += (y - p) * x[i]
                row_i = hess[i]
                for j in range(d):
                    if x[j] != 0.0:
                        row_i[j] += weight * x[i] * x[j]
        for i in range(1, d):
            grad[i] -= l2 * w[i]
            hess[i][i] += l2
        step = _solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
    return {"intercept": w[0], "coefficients": dict(zip(names, w[1:], strict=True))}


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

def out_of_fold(rows: list[dict], names: list[str], l2: float) -> list[float]:
    """Each row's probability from the model fitted without its repository."""
    probabilities = [0.0] * len(rows)
    for repo in sorted({r["repo"] for r in rows}):
        model = fit([r for r in rows if r["repo"] != repo], names, l2, iterations=6)
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


def trained(rows: list[dict], names: list[str], l2: float, combine: str) -> dict:
    """A model fitted on `rows` with thresholds from their out-of-fold probabilities."""
    model = fit(rows, names, l2)
    model["high"], model["medium"] = thresholds(rows, out_of_fold(rows, names, l2), combine)
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
    args = parser.parse_args(argv)
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
        hand = answer(measured, runner, None)
        full = trained(rows, names, args.l2, args.combine)
        in_sample = answer(measured, runner, full)
        cv: dict[str, list[dict]] = {mode: [] for mode in MODES}
        folds = {}
        for repo, held in sorted(by_repo.items()):
            model = trained([r for r in rows if r["repo"] != repo], names, args.l2, args.combine)
            folds[repo] = {"high": round(model["high"], 4), "medium": round(model["medium"], 4)}
            for mode, answered in answer(held, runner, model).items():
                cv[mode] += answered
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
    use = all(_precision(report[m]["fitted_cv"]) >= _precision(report[m]["hand"]) for m in MODES)
    print(f"ship the fitted model: {use} (its CV HIGH precision is {'at least' if use else 'below'} the hand rules')")
    if args.write:
        full.update(use=use, fitted_on=f"{len(rows)} candidates of {len(cases)} labelled cases, both modes",
                    report=report, l2=args.l2)
        features.MODEL_PATH.write_text(json.dumps(full, indent=1) + "\n", encoding="utf-8")
    return 0


def _rows(path: str | None, cases: list[Case], db: str) -> list[dict]:
    if path and Path(path).exists():
        return json.loads(Path(path).read_text())
    rows = collect(cases, db)
    if path:
        Path(path).write_text(json.dumps(rows))
    return rows


def _precision(m: dict) -> float:
    part, whole = m["high_precision"]
    return part / whole if whole else 1.0


if __name__ == "__main__":
    sys.exit(main())
