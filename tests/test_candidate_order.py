"""The one top-candidate rule: the rendered answer, `wif eval` and the run records lead with the same
candidate, and a candidate an objection marks never leads while another of its level stands."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from indexer.redaction import Redactor
from wif_action.candidate_order import candidate_order, top_candidate
from wif_action.evaluation import CaseResult, Claim
from wif_action.evaluation import top_candidate as eval_top
from wif_action.models import Answer, AskInput, Candidate, Confidence, Outcome
from wif_action.rendering import render
from wif_action.run_records.recorder import RunContext, RunRecorder
from wif_action.run_records.store import RunStore

REPO = "acme/sdk"


def candidate(version: str, pr: int, confidence: Confidence, *, objected: bool = False) -> Candidate:
    return Candidate(version=version, tag=version, pr=pr, url=f"https://github.com/{REPO}/pull/{pr}",
                     confidence=confidence, reason=f"reason {pr}", objected=objected)


# Each: the candidates as an engine could hand them over (the objected one first and oldest), the PR that leads.
CASES = {
    "high": ([candidate("1.1.0", 11, Confidence.HIGH, objected=True), candidate("1.2.0", 12, Confidence.HIGH)], 12),
    "medium": ([candidate("1.1.0", 11, Confidence.MEDIUM, objected=True),
                candidate("1.3.0", 13, Confidence.MEDIUM), candidate("1.2.0", 12, Confidence.MEDIUM)], 12),
}


def recorded_top(tmp_path: Path, answer: Answer) -> tuple[str, int]:
    recorder = RunRecorder(RunStore(tmp_path / "runs.db"), Redactor({}), RunContext())
    recorder.begin(AskInput(repo=REPO, version="1.0.0", problem="p"))
    recorder.finish(answer)
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        return conn.execute("select top_version, top_pr from runs").fetchone()


@pytest.mark.parametrize("level", CASES)
def test_an_objected_candidate_does_not_lead_in_the_answer_the_record_or_the_evaluation(tmp_path, level) -> None:
    candidates, expected = CASES[level]
    answer = Answer(outcome=Outcome(level), repo=REPO, user_version="1.0.0", candidates=candidates)
    message = render(answer)
    assert message.splitlines()[0].count(f"/pull/{expected})") == 1  # the headline names it
    assert recorded_top(tmp_path, answer) == (f"1.{expected - 10}.0", expected)
    claims = [Claim(version=c.version, tag=c.tag, pr=c.pr, confidence=c.confidence.value, objected=c.objected)
              for c in candidates]
    top = eval_top(CaseResult(id="x", outcome=level, candidates=claims))
    assert top is not None and top.pr == expected


def test_order_highs_as_found_then_the_rest_oldest_first_objected_last_at_each_level() -> None:
    found = [candidate("1.4.0", 14, Confidence.MEDIUM), candidate("1.3.0", 13, Confidence.HIGH, objected=True),
             candidate("1.5.0", 15, Confidence.HIGH), candidate("1.2.0", 12, Confidence.HIGH),
             candidate("1.1.0", 11, Confidence.MEDIUM, objected=True), candidate("1.6.0", 16, Confidence.LOW)]
    assert [c.pr for c in candidate_order(found)] == [15, 12, 13, 14, 16, 11]
    assert top_candidate([]) is None
    only_objected = [candidate("1.3.0", 13, Confidence.MEDIUM, objected=True),
                     candidate("1.2.0", 12, Confidence.MEDIUM, objected=True)]
    assert top_candidate(only_objected) == only_objected[1]  # then the oldest still leads
