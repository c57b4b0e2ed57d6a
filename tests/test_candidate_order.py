"""The one top-candidate rule: the rendered answer, `wif eval` and the run records lead with the same
candidate, and a candidate an objection marks never leads while another of its level stands."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from indexer.redaction import Redactor
from indexer.registry import Registry
from tests.lexicon_helpers import use_weights
from wif_action import lexicon
from wif_action.candidate_order import _same_name, candidate_order, clear_leader, older_rivals, top_candidate
from wif_action.engines.offline.judge import OfflineJudge
from wif_action.evaluation import CaseResult, Claim
from wif_action.evaluation import top_candidate as eval_top
from wif_action.journal import Journal
from wif_action.lexicon.terms import analyse
from wif_action.models import Answer, AskInput, Candidate, Confidence, Grounds, Outcome, Via
from wif_action.ports import AnalysisTools
from wif_action.rendering import render
from wif_action.run_context import Run
from wif_action.run_records.recorder import RunContext, RunRecorder
from wif_action.run_records.store import RunStore
from wif_action.subtasks.resolve_answer import Findings, resolve_answer
from wif_action.subtasks.scan_demotions import demote_behind_older_rivals
from wif_action.subtasks.scan_state import ScanResult
from wif_action.tools.progress import RecordingProgress

REPO = "acme/sdk"


def candidate(version: str, pr: int, confidence: Confidence, *, objected: bool = False,
              strength: float | None = None, breadth: float | None = None) -> Candidate:
    return Candidate(version=version, tag=version, pr=pr, url=f"https://github.com/{REPO}/pull/{pr}",
                     confidence=confidence, reason=f"reason {pr}", objected=objected, strength=strength,
                     breadth=breadth)


# Each: the candidates as an engine could hand them over (the objected one first and oldest), the PR that leads.
CASES = {
    "high": ([candidate("1.1.0", 11, Confidence.HIGH, objected=True), candidate("1.2.0", 12, Confidence.HIGH)], 12),
    "medium": ([candidate("1.1.0", 11, Confidence.MEDIUM, objected=True),
                candidate("1.3.0", 13, Confidence.MEDIUM), candidate("1.2.0", 12, Confidence.MEDIUM)], 12),
    # a MEDIUM naming lead_margin times as much of the problem as the other leads (the objected one is not counted)
    "clear leader": ([candidate("1.1.0", 11, Confidence.MEDIUM, objected=True, strength=90.0),
                      candidate("1.2.0", 12, Confidence.MEDIUM, strength=10.0),
                      candidate("1.3.0", 13, Confidence.MEDIUM, strength=10.0 * lexicon.weight("lead_margin"))], 13),
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
    outcome = Outcome.HIGH if level == "high" else Outcome.MEDIUM
    answer = Answer(outcome=outcome, repo=REPO, user_version="1.0.0", candidates=candidates)
    message = render(answer)
    assert message.splitlines()[0].count(f"/pull/{expected})") == 1  # the headline names it
    assert recorded_top(tmp_path, answer) == (f"1.{expected - 10}.0", expected)
    claims = [Claim(version=c.version, tag=c.tag, pr=c.pr, confidence=c.confidence.value, objected=c.objected,
                    strength=c.strength) for c in candidates]
    top = eval_top(CaseResult(id="x", outcome=outcome.value, candidates=claims))
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


def medium(version: str, pr: int, strength: float | None) -> Candidate:
    return candidate(version, pr, Confidence.MEDIUM, strength=strength)


def test_within_one_release_the_stronger_headline_comes_first() -> None:
    """Two MEDIUM lines of one release (no clear leader): the one naming more of the problem leads, whatever
    order the notes list them in; a HIGH stays in the order found and a later release still comes after."""
    weak, strong, later = medium("1.2.0", 12, 10.0), medium("1.2.0", 21, 12.0), medium("1.3.0", 13, 15.0)
    assert [c.pr for c in candidate_order([weak, later, strong])] == [21, 12, 13]
    assert [c.pr for c in candidate_order([medium("1.2.0", 12, None), strong])] == [21, 12]
    highs = [candidate("1.2.0", 12, Confidence.HIGH, strength=1.0), candidate("1.2.0", 21, Confidence.HIGH,
                                                                               strength=9.0)]
    assert [c.pr for c in candidate_order(highs)] == [12, 21]


def test_a_later_medium_leads_only_at_lead_margin_times_every_other_mediums_strength() -> None:
    older, margin = medium("1.1.0", 11, 10.0), lexicon.weight("lead_margin")
    at = medium("1.3.0", 13, 10.0 * margin)
    below = medium("1.3.0", 13, 10.0 * margin - 0.01)
    assert [c.pr for c in candidate_order([at, older])] == [13, 11]
    assert [c.pr for c in candidate_order([below, older])] == [11, 13]
    # the runner-up decides, not the oldest: two strong later ones, neither clearly ahead of the other
    assert clear_leader([older, at, medium("1.2.0", 12, 10.0 * margin - 1)]) is None


def test_the_margin_is_the_weight_tables(lexicon_restored) -> None:
    """lead_margin is read at each use (lexicon.toml [weight]), so calibration's --set/--grid reach it."""
    older, later = medium("1.1.0", 11, 10.0), medium("1.3.0", 13, 25.0)
    assert [c.pr for c in candidate_order([later, older])] == [13, 11]  # 2.5 ≥ the shipped 1.8
    use_weights(lead_margin=2.6)
    assert [c.pr for c in candidate_order([later, older])] == [11, 13]


def test_the_lead_is_measured_by_strength_and_by_how_many_of_the_problems_ideas_it_names(lexicon_restored) -> None:
    """lead_measure: strength × breadth ** lead_breadth. An older line naming one idea of the problem in many words
    (strength 11, breadth 0.18) and a later one naming two of its ideas (strength 13, breadth 0.3): by strength
    alone neither is the clear match (13 < 1.8 × 11); counting the ideas, the later one is."""
    older = candidate("9.0.0", 90, Confidence.MEDIUM, strength=11.0, breadth=0.18)
    later = candidate("9.1.0", 91, Confidence.MEDIUM, strength=13.0, breadth=0.3)
    assert [c.pr for c in candidate_order([older, later])] == [91, 90]
    unmeasured = [replace(older, breadth=None), replace(later, breadth=None)]  # an engine measuring no breadth
    assert [c.pr for c in candidate_order(unmeasured)] == [90, 91]
    # one release's lines: the one naming more of the problem's ideas first, though it names fewer of its words
    wordy = candidate("9.2.0", 92, Confidence.MEDIUM, strength=14.4, breadth=0.13)
    apt = candidate("9.2.0", 93, Confidence.MEDIUM, strength=12.9, breadth=0.2)
    assert [c.pr for c in candidate_order([wordy, apt])] == [93, 92]
    use_weights(lead_breadth=0.0)  # how bench/ablate.py switches it off: strength alone
    assert [c.pr for c in candidate_order([older, later])] == [90, 91]
    assert [c.pr for c in candidate_order([wordy, apt])] == [92, 93]


def test_a_clear_lead_in_words_or_in_ideas_leads_unless_the_two_name_different_lines() -> None:
    """clear_leader: far ahead by strength alone still leads when breadth makes it no clear match (a runner-up
    naming more of the problem's ideas in fewer words), unless breadth-weighted another line is far ahead."""
    older = candidate("4.8.0", 48, Confidence.MEDIUM, strength=10.0, breadth=0.48)
    wordy = candidate("4.10.0", 410, Confidence.MEDIUM, strength=20.0, breadth=0.37)
    assert clear_leader([older, wordy]) is wordy  # 20 ≥ 1.8 × 10; 7.4 < 1.8 × 4.8
    apt = candidate("4.12.0", 412, Confidence.MEDIUM, strength=4.0, breadth=0.5)
    far = candidate("4.14.0", 414, Confidence.MEDIUM, strength=19.0, breadth=0.1)
    assert clear_leader([apt, far]) is far  # by strength 19 ≥ 1.8 × 4; by ideas 2 vs 1.9: no leader
    ideas, words = (candidate("4.12.0", 412, Confidence.MEDIUM, strength=10.0, breadth=0.9),
                    candidate("4.14.0", 414, Confidence.MEDIUM, strength=17.0, breadth=0.2))
    assert clear_leader([ideas, words]) is ideas  # 9 ≥ 1.8 × 3.4, and 17 < 1.8 × 10
    rival = candidate("4.16.0", 416, Confidence.MEDIUM, strength=40.0, breadth=0.05)
    assert clear_leader([ideas, candidate("4.0.0", 40, Confidence.MEDIUM, strength=1.0, breadth=0.1), rival]) is None


def test_no_leader_out_of_release_order_with_a_high_without_strengths_or_when_off(lexicon_restored) -> None:
    strong, weak = medium("1.3.0", 13, 100.0), medium("1.1.0", 11, 1.0)
    assert clear_leader([strong, weak, candidate("1.5.0", 15, Confidence.HIGH)]) is None  # a HIGH leads anyway
    assert clear_leader([strong, weak, medium("1.2.0", 12, None)]) is None  # an engine that measures none
    assert clear_leader([strong]) is None
    unreleased = replace(candidate("unreleased", 19, Confidence.MEDIUM, strength=100.0), tag="")
    assert clear_leader([unreleased, weak]) is None  # a released MEDIUM leads a MEDIUM answer
    use_weights(lead_margin=float("inf"))  # how bench/ablate.py switches the rule off
    assert [c.pr for c in candidate_order([strong, weak])] == [11, 13]


def test_the_answer_says_why_a_later_candidate_leads() -> None:
    candidates = [medium("1.1.0", 11, 10.0), medium("1.3.0", 13, 10.0 * lexicon.weight("lead_margin"))]
    answer = Answer(outcome=Outcome.MEDIUM, repo=REPO, user_version="1.0.0", candidates=candidates)
    assert "Candidates (the one naming clearly the most of the problem first, then oldest first):" in render(answer)
    answer.candidates[1].strength = 10.0
    assert "Candidates (oldest first):" in render(answer)


def grounds_of(**by_pr: Grounds) -> Callable[[Candidate], Grounds | None]:
    """`PrEvaluator.grounds` for a test: PR number (as `pr12=`) → what its level rests on."""
    return lambda c: by_pr.get(f"pr{c.pr}")


OWN = Grounds(subjects=("strictmode",), own_text=True)  # a rival whose PR was read and that names the subject
HIGH_GROUNDS = Grounds(subjects=("strictmode", "violat"), own_text=True)


def test_a_high_an_older_medium_rivals_is_demoted(lexicon_restored) -> None:
    """older_rivals: a HIGH is demoted when an older, released MEDIUM nothing objects to names the problem at least
    `older_rival` times as well; not for a weaker, objected, later or same-release MEDIUM."""
    use_weights(older_rival=0.8)
    high = candidate("1.5.0", 15, Confidence.HIGH, strength=10.0)
    grounds = grounds_of(pr15=HIGH_GROUNDS, pr12=OWN, pr16=OWN, pr14=OWN)
    rival = medium("1.2.0", 12, 8.0)
    assert older_rivals([high, rival], grounds) == [(high, rival)]
    assert older_rivals([high, medium("1.2.0", 12, 7.9)], grounds) == []
    assert older_rivals([high, candidate("1.2.0", 12, Confidence.MEDIUM, objected=True, strength=20.0)], grounds) == []
    assert older_rivals([high, medium("1.6.0", 16, 20.0), medium("1.5.0", 14, 20.0)], grounds) == []
    assert older_rivals([high, medium("1.2.0", 12, None)], grounds) == []
    use_weights(older_rival=float("inf"))  # the rule off
    assert older_rivals([high, medium("1.2.0", 12, 100.0)], grounds) == []


def test_an_older_rival_naming_as_many_of_the_problems_ideas_demotes_a_wordier_high(lexicon_restored) -> None:
    """zap: "Store strings when using AddByteString with the map encoder" (1.7.1) names every idea of the problem
    the later "Fix inconsistency between MapObjectEncoder's AddByteString and AppendByteString" names (the same
    breadth), at 0.57 of its strength, which counts each idea once per spelling: the older line rivals it
    (`rival_breadth`, ideas counted once). A rival naming fewer of the ideas at a low strength does not, nor any
    with the rule off (inf)."""
    use_weights(older_rival=0.8, rival_breadth=1.0)
    high = candidate("1.10.0", 110, Confidence.HIGH, strength=52.7, breadth=0.637)
    grounds = grounds_of(pr110=HIGH_GROUNDS, pr71=OWN)
    as_broad = candidate("1.7.1", 71, Confidence.MEDIUM, strength=29.9, breadth=0.637)
    narrower = candidate("1.7.1", 71, Confidence.MEDIUM, strength=29.9, breadth=0.5)
    assert older_rivals([high, as_broad], grounds) == [(high, as_broad)]
    assert older_rivals([high, narrower], grounds) == []
    assert older_rivals([high, candidate("1.7.1", 71, Confidence.MEDIUM, strength=29.9)], grounds) == []
    use_weights(rival_breadth=float("inf"))
    assert older_rivals([high, as_broad], grounds) == []


def test_a_rival_naming_the_highs_class_by_its_words_is_about_the_same_thing(lexicon_restored) -> None:
    """aiohttp: "Fixed digest auth dropping challenge fields …" (subject "digest auth") is about the
    `DigestAuthMiddleware` a later "Scoped DigestAuthMiddleware credentials …" names (subject
    "digestauthmiddleware"): a phrase of two or more of a code name's words, in order, names it; one word ("auth")
    or words out of order do not."""
    use_weights(older_rival=0.8)
    high, rival = candidate("3.14.1", 141, Confidence.HIGH, strength=10.0), medium("3.13.4", 134, 9.0)
    later = Grounds(subjects=("digestauthmiddleware", "challeng"), own_text=True)
    assert older_rivals([high, rival], grounds_of(pr141=later, pr134=Grounds(
        subjects=("digest auth", "field"), own_text=True))) == [(high, rival)]
    for other in (("auth",), ("auth digest",), ("digest realm",)):
        assert older_rivals([high, rival], grounds_of(pr141=later, pr134=Grounds(subjects=other,
                                                                                  own_text=True))) == []


def test_an_older_rival_needs_its_own_text_and_the_highs_subject(lexicon_restored) -> None:
    """A rival whose only evidence is its release line (its PR unread: a planted note, a PR that cannot be fetched;
    a line citing only a commit is its own text: tests/test_commit_rivals.py) cannot take a ✓ away, nor can one about
    another subject: it must name the HIGH's first (heaviest) subject by the same term. A HIGH whose engine names no
    subjects is left alone."""
    use_weights(older_rival=0.8)
    high, rival = candidate("1.5.0", 15, Confidence.HIGH, strength=10.0), medium("1.2.0", 12, 20.0)
    assert older_rivals([high, rival], grounds_of(pr15=HIGH_GROUNDS, pr12=OWN)) == [(high, rival)]
    unread = Grounds(subjects=OWN.subjects, own_text=False)
    assert older_rivals([high, rival], grounds_of(pr15=HIGH_GROUNDS, pr12=unread)) == []
    assert older_rivals([high, rival], grounds_of(pr15=HIGH_GROUNDS)) == []  # not judged by this evaluator
    second_only = Grounds(subjects=("violat",), own_text=True)  # names the HIGH's second subject, not its first
    assert older_rivals([high, rival], grounds_of(pr15=HIGH_GROUNDS, pr12=second_only)) == []
    part = Grounds(subjects=("path",), own_text=True)  # "path" of a "root path" HIGH: another term
    assert older_rivals([high, rival], grounds_of(pr15=Grounds(subjects=("root path",), own_text=True),
                                                  pr12=part)) == []
    assert older_rivals([high, rival], grounds_of(pr15=Grounds(own_text=True), pr12=OWN)) == []


def test_an_older_rival_naming_a_rare_subject_of_the_high_is_about_the_same_thing(lexicon_restored) -> None:
    """A rival naming another of the HIGH's subjects than its first rivals it when that subject is rare in the
    repository's notes (fewer than `rival_share` name it: "IL2CPP" of a Unity SDK), not when it is everyday there
    ("thread"): the share is the repository's own (`Grounds.shares`), not a global list. `rival_share` 0: the first
    subject only."""
    use_weights(older_rival=0.8, rival_share=0.03)
    high, rival = candidate("2.2.0", 22, Confidence.HIGH, strength=10.0), medium("2.1.2", 21, 9.0)
    rare = Grounds(subjects=("stack trace", "il2cpp"), own_text=True, shares=(0.008, 0.016))
    everyday = Grounds(subjects=("breadcrumb", "thread"), own_text=True, shares=(0.025, 0.035))
    assert older_rivals([high, rival], grounds_of(pr22=rare, pr21=Grounds(subjects=("il2cpp", "line number"),
                                                                          own_text=True))) == [(high, rival)]
    assert older_rivals([high, rival], grounds_of(pr22=everyday, pr21=Grounds(subjects=("thread",),
                                                                              own_text=True))) == []
    unmeasured = Grounds(subjects=rare.subjects, own_text=True)  # an engine that measures no shares: first only
    assert older_rivals([high, rival], grounds_of(pr22=unmeasured, pr21=Grounds(subjects=("il2cpp",),
                                                                                own_text=True))) == []
    use_weights(rival_share=0.0)
    assert older_rivals([high, rival], grounds_of(pr22=rare, pr21=Grounds(subjects=("il2cpp",), own_text=True))) == []


def test_an_older_rival_naming_a_rare_part_of_a_subject_of_the_high_is_about_the_same_thing(lexicon_restored) -> None:
    """"Fix `FacebookInitProvider` instrumentation" (subject "provider", rare in its own notes) rivals a later
    "reset content-provider timespans" (subjects "app", "content provider"); a part everyday in the rival's notes
    ("path" of "root path") does not, nor does a rival whose subject is wider than the HIGH's."""
    use_weights(older_rival=0.8, rival_share=0.01)
    high, rival = candidate("5.0.0", 50, Confidence.HIGH, strength=10.0), medium("4.2.0", 42, 11.0)
    later = Grounds(subjects=("app", "content provid"), own_text=True, shares=(0.037, 0.0025))
    assert older_rivals([high, rival], grounds_of(pr50=later, pr42=Grounds(
        subjects=("provid", "instrument"), own_text=True, shares=(0.004, 0.02)))) == [(high, rival)]
    assert older_rivals([high, rival], grounds_of(pr50=later, pr42=Grounds(
        subjects=("provid", "instrument"), own_text=True, shares=(0.04, 0.02)))) == []
    assert older_rivals([high, rival], grounds_of(pr50=Grounds(subjects=("app", "provid"), own_text=True,
                                                               shares=(0.037, 0.04)), pr42=Grounds(
        subjects=("content provid",), own_text=True, shares=(0.004,)))) == []
    use_weights(rival_share=0.0)
    assert older_rivals([high, rival], grounds_of(pr50=later, pr42=Grounds(
        subjects=("provid", "instrument"), own_text=True, shares=(0.004, 0.02)))) == []


def test_a_line_the_customer_already_runs_rivals_a_later_high(lexicon_restored) -> None:
    """`held` rivals (lines of releases at or before the customer's, `PrEvaluator.held`): they demote a HIGH they
    name about as well (`held_rival` times its strength) and by its first subject (`held_share` 0), without a PR
    read of their own; not when weaker, objected, about another subject, or with the rule off (inf)."""
    use_weights(held_rival=0.6, held_share=0.0)
    high = candidate("1.5.0", 15, Confidence.HIGH, strength=10.0)
    line_only = Grounds(subjects=("strictmode",), own_text=False)
    grounds = grounds_of(pr15=HIGH_GROUNDS, pr12=line_only)
    held = replace(candidate("1.2.0", 12, Confidence.HIGH, strength=6.0), source="held")
    assert older_rivals([high], grounds, [held]) == [(high, held)]
    assert older_rivals([high], grounds, [replace(held, strength=5.9)]) == []
    assert older_rivals([high], grounds, [replace(held, objected=True)]) == []
    second = Grounds(subjects=("violat",), own_text=False, shares=(0.001,))
    assert older_rivals([high], grounds_of(pr15=replace(HIGH_GROUNDS, shares=(0.001, 0.001)), pr12=second),
                        [held]) == []
    scanned = replace(held, source="scan", confidence=Confidence.MEDIUM)
    assert older_rivals([high, scanned], grounds) == []  # a scanned line needs its PR read (`own_text`)
    use_weights(held_rival=float("inf"))
    assert older_rivals([high], grounds, [held]) == []


def test_the_scan_demotes_a_rivalled_high_so_the_answer_leads_with_the_older_line(lexicon_restored) -> None:
    use_weights(older_rival=0.8)
    result = ScanResult(candidates=[medium("1.2.0", 12, 9.0), candidate("1.5.0", 15, Confidence.HIGH, strength=10.0)])
    demote_behind_older_rivals(result, grounds_of(pr15=HIGH_GROUNDS, pr12=OWN))
    assert [c.confidence for c in result.candidates] == [Confidence.MEDIUM, Confidence.MEDIUM]
    assert "PR #12 of the older 1.2.0 is about the same thing" in result.candidates[1].reason
    assert top_candidate(result.candidates).pr == 12
    answer = Answer(outcome=Outcome.MEDIUM, repo=REPO, user_version="1.0.0", candidates=result.candidates)
    assert render(answer).index("/pull/12)") < render(answer).index("/pull/15)")  # both listed, oldest first
    bundled = replace(medium("1.2.0", 12, 9.0), repo="acme/core", via=Via(repo="acme/core", version="3.1.0"))
    result = ScanResult(candidates=[bundled, candidate("1.5.0", 15, Confidence.HIGH, strength=10.0)])
    notes: list[str] = []
    demote_behind_older_rivals(result, grounds_of(pr15=HIGH_GROUNDS, pr12=OWN), notes.append)
    assert "But core PR #12 of the older 1.2.0 is about the same thing" in result.candidates[1].reason
    assert notes == ["PR #15 (1.5.0) lowered to medium: core PR #12 of the older 1.2.0 is about the same thing and "
                     "names the problem about as well."]


def test_a_bundled_high_demoted_by_an_older_own_line_cannot_lead_as_the_clear_match(lexicon_restored) -> None:
    """A bundled SDK's HIGH demoted by an older line of the customer's own SDK is marked objected: its strength,
    measured against its own repository's notes (here 2.5 times the rival's), would otherwise make it the clear
    leader over the line that named the subject first (the Android Gradle plugin's compiler-plugin case). An own
    HIGH demoted so, or a bundled one behind a bundled rival, is not marked; `behind_own` 0 switches the mark off."""
    use_weights(older_rival=0.3)
    bundled_high = replace(candidate("1.5.0", 15, Confidence.HIGH, strength=25.0), repo="acme/core",
                           via=Via(repo="acme/core", version="3.1.0"))
    result = ScanResult(candidates=[medium("1.2.0", 12, 10.0), bundled_high])
    demote_behind_older_rivals(result, grounds_of(pr15=HIGH_GROUNDS, pr12=OWN))
    assert [(c.pr, c.confidence, c.objected) for c in result.candidates] == [
        (12, Confidence.MEDIUM, False), (15, Confidence.MEDIUM, True)]
    assert top_candidate(result.candidates).pr == 12
    own_high = candidate("1.5.0", 15, Confidence.HIGH, strength=25.0)
    result = ScanResult(candidates=[medium("1.2.0", 12, 10.0), own_high])
    demote_behind_older_rivals(result, grounds_of(pr15=HIGH_GROUNDS, pr12=OWN))
    assert not result.candidates[1].objected and top_candidate(result.candidates).pr == 15  # the clear leader
    use_weights(older_rival=0.3, behind_own=0)
    result = ScanResult(candidates=[medium("1.2.0", 12, 10.0), bundled_high])
    demote_behind_older_rivals(result, grounds_of(pr15=HIGH_GROUNDS, pr12=OWN))
    assert not result.candidates[1].objected and top_candidate(result.candidates).pr == 15


def test_the_answers_first_candidate_is_the_one_its_message_leads_with() -> None:
    """`wif ask --json`'s first candidate is the one the rendered answer leads with: an older MEDIUM found first
    comes after the clear leader (#15 names the problem far better), as in the message."""
    journal = Journal()
    journal.read_version("1.2.0", "1.5.0")
    for pr in (12, 15):
        journal.read_pr(pr, f"https://github.com/{REPO}/pull/{pr}")

    class NoRequests:  # the GitHub port's counter; nothing here asks GitHub
        requests_made = 0

    tools = AnalysisTools(cache=None, github=NoRequests(), judge=OfflineJudge(None, Registry(aliases={})))  # type: ignore[arg-type]
    run = Run(tools=tools, journal=journal, progress=RecordingProgress())
    answer = resolve_answer(run, Findings(repo=REPO, candidates=[medium("1.2.0", 12, 1.0), medium("1.5.0", 15, 9.0)]))
    assert answer.outcome == Outcome.MEDIUM
    assert [c.pr for c in answer.candidates] == [15, 12]
    assert answer.message.index("/pull/15)") < answer.message.index("/pull/12)")


def test_a_phrase_spells_a_stemmed_code_name_that_ends_inside_its_last_word() -> None:
    """`LatestApiVersion` is keyed as one stemmed word ("latestapivers", `terms._identifier`), and a line naming
    "API version" names it: the phrase's last word may be cut where the stem ends. Only at the end, in order, and
    a phrase of one word or a cut below three letters spells nothing."""
    name = analyse("LatestApiVersion")[0].key
    assert name == "latestapivers" and _same_name(name, "api version") and _same_name("api version", name)
    assert not _same_name(name, "version api") and not _same_name(name, "version")
    assert not _same_name("latestapiversx", "api version")  # "vers" must end the name, or "version" be whole
    assert _same_name("digestauthmiddlewar", "digest auth") and _same_name("composeui", "compos ui")


def test_a_line_filed_under_a_lighter_heading_weighs_its_section_in_the_lead(lexicon_restored) -> None:
    """lead_measure and the words measure are weighed by the section the line is filed under (`filed`, to the
    power lead_section): "#2717 Add V2List and V2ListPromise types" (Other, 0.8) names about as much of an
    iteration bug as the later "#2747 Fix V2ListIterator: … empty page handling" (Fixes); the fix leads. Off
    (lead_section 0), neither is the clear match and the older line leads."""
    older = replace(candidate("22.2.0", 2717, Confidence.MEDIUM, strength=23.9, breadth=0.42), filed=0.8)
    fix = replace(candidate("22.2.1", 2747, Confidence.MEDIUM, strength=25.1, breadth=0.42), filed=1.0)
    assert top_candidate([older, fix]) is fix
    claims = [Claim(version=c.version, tag=c.tag, pr=c.pr, confidence=c.confidence.value, strength=c.strength,
                    breadth=c.breadth, filed=c.filed) for c in (older, fix)]
    assert eval_top(CaseResult(id="x", outcome="medium", candidates=claims)).pr == 2747  # the evaluation's too
    use_weights(lead_section=0.0)  # how bench/ablate.py switches it off
    assert top_candidate([older, fix]) is older


def test_a_feature_section_weighs_as_a_fix_when_the_request_asks_for_functionality() -> None:
    from wif_action.candidate_order import filed_weight
    assert filed_weight("feature", wants_functionality=True) == lexicon.weight("missing_functionality_section")
    assert filed_weight("feature", wants_functionality=False) == lexicon.section_weights()["feature"]
    assert filed_weight("fix", wants_functionality=False) == 1.0
    assert filed_weight("a heading the table lacks", False) == lexicon.section_weights()["other"]
    assert filed_weight(None, False) is None


@pytest.mark.parametrize(("section", "filed"), [("other", 0.8), ("fix", 1.0)])
def test_a_judged_line_carries_the_weight_of_its_section(section, filed) -> None:
    """PrEvaluator sets `filed` from the line's section (lexicon [section_weight]), whatever the engine, as the
    order reads it; and the evaluation's claims carry it (`eval_cases.result_of`)."""
    from wif_action.commands.eval_cases import result_of
    from wif_action.models import Entry, PullRequest, Release, Score
    from wif_action.question import analyse_question
    from wif_action.subtasks.pr_evaluation import PrEvaluator

    class OnePull:  # the GitHub port, holding one PR
        requests_made = 0

        def pull_request(self, repo: str, number: int) -> PullRequest:
            return PullRequest(repo=repo, number=number, title="Fix V2ListIterator", body="",
                               url=f"https://x.invalid/{number}", merged=True)

    class Medium:  # an engine that scores every PR MEDIUM
        def score_pr_confidence(self, pr: PullRequest, entry: Entry | None, question: object) -> Score:
            return Score(confidence=Confidence.MEDIUM, reason="In the same area.", strength=10.0, breadth=0.4)

    tools = AnalysisTools(cache=None, github=OnePull(), judge=Medium())  # type: ignore[arg-type]
    run = Run(tools=tools, journal=Journal(), progress=RecordingProgress())
    release = Release(id=1, repo=REPO, tag="v22.2.1", version="22.2.1", version_key="22.2.1")
    entry = Entry(id=1, release=release, section=section, text="#2747 Fix V2ListIterator", prs=[2747])
    found = PrEvaluator(run, REPO, analyse_question("A v2 list stops early.")).evaluate(2747, entry, release, "scan")
    assert found is not None and found.filed == filed
    answer = Answer(outcome=Outcome.MEDIUM, message="m", candidates=[found])
    assert result_of("x", answer, 0.0).candidates[0].filed == filed


def test_a_thin_high_is_rivalled_by_an_older_line_naming_about_as_many_ideas(lexicon_restored) -> None:
    """opentelemetry-java: "OTLP: update error message for missing GrpcSenderProvider dependency" (`fix(#7875):`, no
    fix verb, the problem's heaviest idea unnamed: `Grounds.thin`) reached ✓ while the older "Fix OTLP exporter artifact
    name in an error message" names 0.92 of its breadth by other subjects ("exporter", "name"): a thin HIGH is
    rivalled by an older line naming at least `thin_rival` times as many of the problem's ideas, whatever its
    subject; a HIGH that is not thin, a narrower line, or the rule off (inf) is not."""
    use_weights(older_rival=0.8, rival_breadth=1.0, thin_rival=0.9)
    high = candidate("1.57.0", 157, Confidence.HIGH, strength=14.1, breadth=0.501)
    other = Grounds(subjects=("export", "error", "name"), shares=(0.13, 0.015, 0.046), own_text=True)
    thin = Grounds(subjects=("miss", "error", "depend"), shares=(0.009, 0.015, 0.022), own_text=True, thin=True)
    rival = candidate("1.28.0", 128, Confidence.MEDIUM, strength=10.4, breadth=0.463)
    assert older_rivals([high, rival], grounds_of(pr157=thin, pr128=other)) == [(high, rival)]
    assert older_rivals([high, rival], grounds_of(pr157=replace(thin, thin=False), pr128=other)) == []
    narrower = candidate("1.28.0", 128, Confidence.MEDIUM, strength=10.4, breadth=0.4)
    assert older_rivals([high, narrower], grounds_of(pr157=thin, pr128=other)) == []
    use_weights(thin_rival=float("inf"))
    assert older_rivals([high, rival], grounds_of(pr157=thin, pr128=other)) == []
