"""The one objective every leave-one-repository-out tool maximises when it chooses a value.

Why one: `quality_report.py --grid` and `crossval_offline.py` used to weigh answers differently (one paid for a
right outcome, the other charged for an unrelated MEDIUM), so the same grid could choose two values. The order of
harm is the product's: a wrong "✓ fixed in vX" is the worst answer, naming a `must_not_claim` fix is worse still,
an unrelated MEDIUM is the second worst; a right fix first earns most, a right fix listed earns half; each unrelated
line listed as a second look (`Candidate.second_look`: below the top, never leading) costs a tenth of an unrelated
MEDIUM leading — a support engineer reads it, but does not forward it as the answer — so a way of listing more lines
pays only when at least one in eleven of them is a right fix (0.5 earned against 10 × 0.05).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from wif_action.evaluation import Case, CaseResult, is_claim_of, is_high, judge_result, top_candidate  # noqa: E402

WEIGHTS = {"top1": 1.0, "found": 0.5, "wrong_high": -3.0, "wrong_medium": -0.5, "claimed_bad": -5.0,
           "wrong_second_looks": -0.05}


@dataclass(frozen=True)
class Graded:
    """What the objective reads of one answer."""

    top1: bool  # a fix case whose top candidate is its right fix
    found: bool  # a fix case whose right fix is among the candidates
    wrong_high: bool  # a ✓ whose top candidate is not a right fix
    wrong_medium: bool  # a MEDIUM whose top candidate is not a right fix
    claimed_bad: bool  # an answer naming a `must_not_claim` fix
    wrong_second_looks: int = 0  # second looks listed that are no right fix (each one costs)


def graded(case: Case, result: CaseResult) -> Graded:
    """One answer as the objective reads it (a confident `unreleased` answer is a ✓; an unconfident one a MEDIUM)."""
    verdict = judge_result(case, result)
    top = top_candidate(result)
    fixes = case.expect.fixes()
    top_right = bool(top is not None and fixes and is_claim_of(top, fixes))
    high = is_high(result)
    medium = result.outcome == "medium" or (result.outcome == "unreleased" and not high)
    looks = [c for c in result.candidates if c.second_look and not (fixes and is_claim_of(c, fixes))]
    return Graded(top1=verdict.has_fix and verdict.top1, found=verdict.has_fix and verdict.found,
                  wrong_high=high and not top_right, wrong_medium=medium and not top_right,
                  claimed_bad=bool(verdict.wrong_claims), wrong_second_looks=len(looks))


def objective(answers: Iterable[Graded]) -> float:
    """Higher is better; `WEIGHTS` per answer (per second look for `wrong_second_looks`)."""
    total = 0.0
    for answer in answers:
        total += sum(weight * float(getattr(answer, name)) for name, weight in WEIGHTS.items())
    return total
