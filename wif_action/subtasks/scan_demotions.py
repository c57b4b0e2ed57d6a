"""After the scan: a HIGH lowered to MEDIUM behind a rival line, the customer's own, an older one or a later one.

Why apart from the scan: the scan finds candidates oldest first and stops at the first confirmed HIGH; these rules
then weigh that HIGH against lines it never competed with, and a ✓ on the wrong fix is the worst answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from wif_action import candidate_order, lexicon
from wif_action.candidate_order import later_rival, more_specific_held, older_rivals, stronger_held
from wif_action.models import Candidate, Confidence, Grounds, Release, RelevantEntry
from wif_action.ports import ToolError
from wif_action.subtasks.pr_evaluation import HELD
from wif_action.subtasks.scan_state import Passed, Scan, ScanResult, change, named_line, relevant_entries, shipped_in

SPECIFIC = "more specific"  # the `reason` of a held rival found by `candidate_order.more_specific_held`
STRONGER = "stronger"  # … and of one found by `candidate_order.stronger_held`


def demote_behind_held_lines(scan: Scan, repo: str, user_release: Release) -> None:
    """A HIGH of the scan that a line of a release the customer already runs rivals (`_held_lines`) becomes
    MEDIUM, its reason saying so (`candidate_order.older_rivals`, the held lines as rivals). Both are weighed on
    the same evidence, the release line alone: what each release says it fixed. A confirmed one filed as a fix that
    names the problem better, about another part of the code, rivals it too (`candidate_order.stronger_held`). A
    HIGH none of them rivals is weighed against the lines of the newest `held_specific_releases` (lexicon.toml
    [weight]) releases, read only then: one naming the problem more specifically rivals it
    (`candidate_order.more_specific_held`).

    Why: the scan judges only releases after the customer's (the spec), so a later fix of the same component
    reached ✓ while the fix the customer already runs, naming the problem as well, never competed."""
    result, evaluator = scan.result, scan.evaluator
    newest, wider = int(lexicon.weight("held_releases")), int(lexicon.weight("held_specific_releases"))
    if newest < 1 or not math.isfinite(lexicon.weight("held_rival")):
        return  # the rule off: nothing more is read or judged
    highs = [c for c in result.candidates if c.confidence == Confidence.HIGH and id(c) in scan.lines]
    as_lines, breadths = {}, {}
    for high in highs:
        line = evaluator.held(scan.lines[id(high)])
        if line is not None and line.strength:  # an engine that measures no strength cannot compare lines
            as_lines[id(high)] = replace(high, strength=line.strength, source=HELD)
            breadths[id(high)] = line.breadth
    held = _held_lines(scan, repo, user_release, newest) if as_lines else []
    confirmed = [line for line in held if line.confidence == Confidence.HIGH]
    rivalled = {id(copy): rival for copy, rival in older_rivals(list(as_lines.values()), evaluator.grounds, confirmed)}
    for copy in as_lines.values():  # a confirmed line naming the problem better, whatever part of the code
        stronger = None if id(copy) in rivalled else stronger_held(copy, confirmed, evaluator.grounds)
        if stronger is not None:
            rivalled[id(copy)] = replace(stronger, reason=STRONGER)
    left = [(key, copy) for key, copy in as_lines.items() if id(copy) not in rivalled]
    if left and wider > newest and lexicon.weight("held_specific") > 0:  # the wider window, read only when needed
        held += _held_lines(scan, repo, user_release, wider, skip=newest)
        for key, copy in left:  # both weighed on their release line alone, its breadth too
            rival = more_specific_held(replace(copy, breadth=breadths[key]), held, evaluator.grounds)
            if rival is not None:
                rivalled[id(copy)] = replace(rival, reason=SPECIFIC)
    demoted = {id(high): rivalled[id(as_lines[id(high)])] for high in highs
               if id(high) in as_lines and id(as_lines[id(high)]) in rivalled}
    for rival in demoted.values():  # read from the cache: the reason may name them (as the customer's, not a fix)
        scan.run.journal.read_version(rival.version)
        scan.run.journal.read_pr(rival.pr)
    _demote(result, demoted, scan.run.journal.note)


def _held_lines(scan: Scan, repo: str, user_release: Release, newest: int, skip: int = 0) -> list[Candidate]:
    """The lines of the newest `newest` releases at or before the customer's (theirs included) but the newest
    `skip`, from the cache, that the judge picks, each judged on its own words (`PrEvaluator.held`: lines that would
    be a ✓ were they after the customer's version): rivals of a later HIGH, never an answer (the spec: a fix at or
    before the customer's version is discarded). The caller weighs their levels: a MEDIUM is often only the same
    area ("Set foreground true for watchdog terminations" against a missing-context fix)."""
    cache = scan.run.tools.cache
    releases = cache.stable_up_to(repo, user_release.version_key, newest)
    releases = releases[:max(len(releases) - skip, 0)]
    entries = cache.entries([r.id for r in releases]) if releases else []
    if not entries:
        return []
    try:
        relevant = relevant_entries(scan, entries, releases)
    except ToolError:
        return []
    by_id = {entry.id: entry for entry in entries}
    lines = (scan.evaluator.held(by_id[item.entry.id]) for item in relevant if item.entry.id in by_id)
    return [line for line in lines if line is not None]


def demote_behind_later_lines(scan: Scan) -> None:
    """A HIGH the scan stopped at becomes MEDIUM when a line of a later release of its batch, which the filter
    ranked above the HIGH's own line and the scan therefore never judged, is judged now and rivals it
    (`candidate_order.later_rival`): both are listed, as MEDIUMs, oldest first. So does a line of its batch (its
    own release's too) ranked close below it (`later_reach`), when it names an idea of the problem the HIGH does
    not, at least as rare as the HIGH's rarest (`candidate_order._names_a_rarer_idea`).

    Why: the scan stops at the first HIGH, oldest first; when the batch's best line is a later fix of the same
    part of the code ("Fix Timeout middleware Context propagation" after "Fix timeout middleware not sending
    status code"), the earlier HIGH is often another bug of that part, and a ✓ on it is the worst answer. The
    later line is judged in full (its PR read) so the answer can name it; nothing is judged past the batch. A line
    ranked just below is the same doubt when it names what the HIGH leaves out: "Fixed --interactive prompts for
    required vars sometimes appearing in a random order" is a ✓ on the customer's setup words alone, "Fixed
    pressing `Esc` at an interactive variable prompt not cancelling the run" names the setup and the symptom."""
    result, evaluator = scan.result, scan.evaluator
    for passed in scan.passed:
        if passed.high not in result.candidates or passed.high.confidence != Confidence.HIGH:
            continue
        judged_lines = [(item, _judge_line(scan, item, passed)) for item in passed.items]
        below = [c for item, c in judged_lines if c is not None and item.relevance <= passed.relevance]
        rival = later_rival(passed.high, [c for _, c in judged_lines if c is not None], evaluator.grounds, below)
        if rival is None:
            continue
        where = "the same release" if rival.version == passed.high.version else f"the later {rival.version}"
        scan.run.journal.note(f"{change(passed.high)} ({passed.high.version}) lowered to medium: "
                              f"{change(rival)} of {where} names the problem as well.")
        index = next(i for i, c in enumerate(result.candidates) if c is passed.high)
        result.candidates[index] = replace(
            passed.high, confidence=Confidence.MEDIUM,
            reason=f"{passed.high.reason} But {change(rival)} of {where} is about the same "
                   "thing and names the problem about as well, so neither is certain.")
        result.candidates.append(replace(rival, confidence=Confidence.MEDIUM) if rival.confidence == Confidence.HIGH
                                 else rival)


def _judge_line(scan: Scan, item: RelevantEntry, passed: Passed) -> Candidate | None:
    """A passed-over line judged as the scan would have (its PR read; a commit line on its words), or None."""
    line = named_line(item, passed.by_id)
    if line is None:
        return None
    entry, pr = line
    if pr is None:
        return scan.evaluator.evaluate_commit(entry, shipped_in(entry)) if entry.commits else None
    if any(c.pr == pr and (c.repo or entry.release.repo) == entry.release.repo for c in scan.result.candidates):
        return None
    release = passed.first.get((entry.release.repo, pr)) or shipped_in(entry)
    return scan.evaluator.evaluate(pr, entry, release, source="scan", repo=entry.release.repo)


def demote_behind_older_rivals(result: ScanResult, grounds: Callable[[Candidate], Grounds | None],
                                note: Callable[[str], None] = lambda line: None) -> None:
    """A HIGH an older MEDIUM rivals (`candidate_order.older_rivals`; `grounds`: `PrEvaluator.grounds`) becomes
    MEDIUM, its reason naming the rival: the answer lists both, oldest first. `note`: the trace's line for each.
    A rival that was the first confirmed match of the subject (`candidate_order.first_match`) leads: the HIGH it
    demotes is marked `objected` too (`behind_first_match`)."""
    pairs = older_rivals(result.candidates, grounds)
    firsts = {id(rival) for _, rival in pairs if behind_first_match(grounds(rival))}
    _demote(result, dict((id(high), rival) for high, rival in pairs), note, firsts)


def behind_first_match(rival: Grounds | None) -> bool:
    """Whether a HIGH demoted behind this rival is also marked `objected`, so it cannot lead as the clear match
    (`candidate_order.clear_leader`): the rival was the first confirmed match of the subject
    (`candidate_order.first_match`).

    Why: such a rival holds the later line back without naming as much of the problem (a PR line so confirmed would
    have ended the scan as the ✓), so the later line, naming more of the problem's words, would otherwise still lead
    as the clear match over the fix the scan found first — the ✓ taken away, the later line still on top."""
    return candidate_order.first_match(rival)  # read at each use: bench/ablate.py switches it off


def _demote(result: ScanResult, demoted: dict[int, Candidate], note: Callable[[str], None],
            firsts: set[int] | None = None) -> None:
    """Each candidate `demoted` names (by id) made MEDIUM behind its rival; `note`: the trace's line for each;
    `firsts`: the ids of rivals that were the first confirmed match of their subject (`behind_first_match`)."""
    firsts = firsts or set()
    for high in result.candidates:
        if id(high) in demoted:
            rival = demoted[id(high)]
            note(f"{change(high)} ({high.version}) lowered to medium: {_rival_clause(rival, id(rival) in firsts)}.")
    result.candidates = [_demoted(c, demoted[id(c)], id(demoted[id(c)]) in firsts) if id(c) in demoted else c
                         for c in result.candidates]


def _demoted(high: Candidate, rival: Candidate, first: bool = False) -> Candidate:
    """The HIGH as a MEDIUM behind its rival. A bundled SDK's line demoted by an older line of the customer's own SDK
    is also `objected` when `behind_own` (lexicon.toml [weight]) is on: the rival's line is the reason against it;
    so is one demoted behind the first confirmed match of its subject (`first`: `behind_first_match`).

    Why: each line's strength is measured against its own repository's notes, so a bundled line's is not on the
    customer's SDK's scale; without the mark the demoted line, its words rare in its own notes, could still lead as
    the clear match (`candidate_order.clear_leader`) over the older line of the customer's own SDK that named the
    same subject first — the ✓ taken away, the wrong line still on top."""
    doubt = ("so this may be a change to something else" if rival.source == HELD and rival.reason == STRONGER
             else "so this may be another fix in the same area" if rival.source == HELD else "so neither is certain")
    behind_own = (high.via is not None and rival.via is None and rival.source != HELD
                  and lexicon.weight("behind_own") > 0)
    return replace(high, confidence=Confidence.MEDIUM,
                   reason=f"{high.reason} But {_rival_clause(rival, first)}, {doubt}.",
                   objected=high.objected or behind_own or first)


def _rival_clause(rival: Candidate, first: bool = False) -> str:
    """Why a HIGH was lowered; a line the customer already runs is named as theirs, never as a fix to take; a rival
    that was the first confirmed match of the subject (`first`) as the match found first."""
    if rival.source == HELD:
        hows = {SPECIFIC: "more specifically", STRONGER: "better, about another part of the code"}
        how = hows.get(rival.reason, "about as well")
        return f"your version already includes {rival.version}, whose line for {change(rival)} names the problem {how}"
    if first:
        return f"{change(rival)} of the older {rival.version} is about the same thing and matched the problem first"
    return f"{change(rival)} of the older {rival.version} is about the same thing and names the problem about as well"
