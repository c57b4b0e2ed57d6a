"""Subtask 5: a linear scan of the range's release notes, oldest first, in batches of at most 5.

Entries whose PR the user already has (listed in a release at or before their
version, e.g. a final release repeating its betas) are dropped before judging.
The scan stops after the first confirmed HIGH (or `max_high` of them). A release that bumps a
bundled SDK brings that SDK's releases in its bump range into its batch (subtasks/bundled_sdks.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from indexer.versions import display_version
from wif_action import candidate_order, lexicon
from wif_action.candidate_order import later_rival, older_rivals
from wif_action.models import Candidate, Confidence, Entry, Grounds, NearMiss, Release, RelevantEntry
from wif_action.ports import Judge, ToolError, ToolUnavailable
from wif_action.run_context import Run
from wif_action.subtasks.bundled_sdks import BundleFollower
from wif_action.subtasks.cited_prs import cited_pr, repository_names
from wif_action.subtasks.judging import judged
from wif_action.subtasks.pr_evaluation import HELD, PrEvaluator, as_second_look

BATCH_SIZE = 5
MAX_MEDIUM = 5
# Entries per filter call: bounds the prompt (≈170 KB) when a release lists thousands of bullets; five real
# releases hold at most 260 entries in the example cache, so real batches are still judged in one call.
MAX_ENTRIES_PER_CALL = 300


@dataclass(kw_only=True)
class ScanResult:
    candidates: list[Candidate] = field(default_factory=list)
    scanned: list[Release] = field(default_factory=list)
    entries_reviewed: int = 0
    complete: bool = True
    unavailable: str = ""  # why nothing more can be judged this run (the engine gave up, the deadline)


@dataclass
class _Scan:
    """One scan's working set: the run, the PR evaluator, what it found so far, and the short names a line may
    cite another repository by (`cited_prs.repository_names`)."""

    run: Run
    evaluator: PrEvaluator
    result: ScanResult
    names: dict[str, str]
    lines: dict[int, Entry] = field(default_factory=dict)  # id of a candidate → the release line it was judged on
    passed: list[_Passed] = field(default_factory=list)  # lines the filter ranked above a HIGH the scan stopped at

    def confirmed_high(self) -> bool:
        """As many HIGHs as the run asks for (`max_high`): the scan stops."""
        return _confirmed_high(self.result) >= self.run.options.max_high


@dataclass
class _Passed:
    """The lines of a batch the scan never judged because it stopped at `high`, each ranked above the HIGH's own
    line by the filter (`relevance`), with what `_consider` needs to judge them."""

    high: Candidate
    items: list[RelevantEntry]
    by_id: dict[int, Entry]
    first: dict[tuple[str, int], Release]


def scan_release_notes(run: Run, repo: str, user_release: Release, releases: list[Release],
                       evaluator: PrEvaluator, known: list[Candidate] | None = None) -> ScanResult:
    """Reports "Scanned N of M releases…" on `run.progress` between batches. `run.registry` says which
    platforms each bundled SDK ships for."""
    tools, journal = run.tools, run.journal
    question = evaluator.question
    bundles = BundleFollower(run, repo, user_release, question.wants_functionality, question.platforms)
    names = repository_names([*run.registry.bundles(repo).values(), *tools.cache.repositories()])
    scan = _Scan(run, evaluator, ScanResult(candidates=list(known or [])), names)
    result = scan.result
    for start in range(0, len(releases), BATCH_SIZE):  # runs past the deadline: only local tools answer then
        batch = releases[start:start + BATCH_SIZE]
        result.scanned += batch
        entries = _new_entries(run, repo, user_release, tools.cache.entries([r.id for r in batch]))
        _scan_batch(scan, batch, entries + bundles.entries(batch))
        if result.unavailable:
            journal.skip("scan release notes", f"stopped after {start + len(batch)} of {len(releases)} releases: "
                                               f"{result.unavailable}")
            break
        if scan.confirmed_high():
            break
        if start + BATCH_SIZE < len(releases):
            run.progress.checkpoint(f"Scanned {start + len(batch)} of {len(releases)} releases…")
    bundles.report()
    _demote_behind_held_lines(scan, repo, user_release)
    _demote_behind_older_rivals(result, evaluator.grounds, journal.note)
    _demote_behind_later_lines(scan)
    result.candidates = no_answer_of_second_looks(result.candidates, evaluator.near_misses)
    return result


def _demote_behind_held_lines(scan: _Scan, repo: str, user_release: Release) -> None:
    """A HIGH of the scan that a line of a release the customer already runs rivals (`_held_lines`) becomes
    MEDIUM, its reason saying so (`candidate_order.older_rivals`, the held lines as rivals). Both are weighed on
    the same evidence, the release line alone: what each release says it fixed.

    Why: the scan judges only releases after the customer's (the spec), so a later fix of the same component
    reached ✓ while the fix the customer already runs, naming the problem as well, never competed."""
    result, evaluator = scan.result, scan.evaluator
    if lexicon.weight("held_releases") < 1 or not math.isfinite(lexicon.weight("held_rival")):
        return  # the rule off: nothing more is read or judged
    highs = [c for c in result.candidates if c.confidence == Confidence.HIGH and id(c) in scan.lines]
    as_lines = {}
    for high in highs:
        line = evaluator.held(scan.lines[id(high)])
        if line is not None and line.strength:  # an engine that measures no strength cannot compare lines
            as_lines[id(high)] = replace(high, strength=line.strength, source=HELD)
    held = _held_lines(scan, repo, user_release) if as_lines else []
    if not held:
        return
    rivalled = {id(copy): rival for copy, rival in older_rivals(list(as_lines.values()), evaluator.grounds, held)}
    demoted = {id(high): rivalled[id(as_lines[id(high)])] for high in highs
               if id(high) in as_lines and id(as_lines[id(high)]) in rivalled}
    for rival in demoted.values():  # read from the cache: the reason may name them (as the customer's, not a fix)
        scan.run.journal.read_version(rival.version)
        scan.run.journal.read_pr(rival.pr)
    _demote(result, demoted, scan.run.journal.note)


def _held_lines(scan: _Scan, repo: str, user_release: Release) -> list[Candidate]:
    """The lines of the newest `held_releases` (lexicon.toml [weight]; 0: the rule off) releases at or before the
    customer's (theirs included), from the cache, that the judge picks and confirms HIGH on their own words
    (`PrEvaluator.held`: lines that would be a ✓ were they after the customer's version): rivals of a later
    HIGH, never an answer (the spec: a fix at or before the customer's version is discarded). A MEDIUM there is
    only the same area ("Set foreground true for watchdog terminations" against a missing-context fix)."""
    cache = scan.run.tools.cache
    releases = cache.stable_up_to(repo, user_release.version_key, int(lexicon.weight("held_releases")))
    entries = cache.entries([r.id for r in releases]) if releases else []
    if not entries:
        return []
    try:
        relevant = _relevant_entries(scan, entries, releases)
    except ToolError:
        return []
    by_id = {entry.id: entry for entry in entries}
    lines = (scan.evaluator.held(by_id[item.entry.id]) for item in relevant if item.entry.id in by_id)
    return [line for line in lines if line is not None and line.confidence == Confidence.HIGH]


def _pass_over(scan: _Scan, last: RelevantEntry | None, rest: list[RelevantEntry], by_id: dict[int, Entry],
               first: dict[tuple[str, int], Release]) -> None:
    """Remember the lines of the batch the filter ranked above the line the scan stopped at (`last`, whose PR
    was the HIGH), for `_demote_behind_later_lines`."""
    high = scan.result.candidates[-1] if scan.result.candidates else None
    if last is None or high is None or high.confidence != Confidence.HIGH or scan.lines.get(id(high)) is None:
        return
    if scan.lines[id(high)].id != last.entry.id:
        return
    above = [item for item in rest if item.relevance > last.relevance and not item.second_look]
    if above and math.isfinite(lexicon.weight("later_rival")):
        scan.passed.append(_Passed(high, above, by_id, first))


def _demote_behind_later_lines(scan: _Scan) -> None:
    """A HIGH the scan stopped at becomes MEDIUM when a line of a later release of its batch, which the filter
    ranked above the HIGH's own line and the scan therefore never judged, is judged now and rivals it
    (`candidate_order.later_rival`): both are listed, as MEDIUMs, oldest first.

    Why: the scan stops at the first HIGH, oldest first; when the batch's best line is a later fix of the same
    part of the code ("Fix Timeout middleware Context propagation" after "Fix timeout middleware not sending
    status code"), the earlier HIGH is often another bug of that part, and a ✓ on it is the worst answer. The
    later line is judged in full (its PR read) so the answer can name it; nothing is judged past the batch."""
    result, evaluator = scan.result, scan.evaluator
    for passed in scan.passed:
        if passed.high not in result.candidates or passed.high.confidence != Confidence.HIGH:
            continue
        judged_lines = (_judge_line(scan, item, passed) for item in passed.items)
        rival = later_rival(passed.high, [c for c in judged_lines if c is not None], evaluator.grounds)
        if rival is None:
            continue
        scan.run.journal.note(f"{_change(passed.high)} ({passed.high.version}) lowered to medium: the later "
                              f"{_change(rival)} ({rival.version}) names the problem as well.")
        index = next(i for i, c in enumerate(result.candidates) if c is passed.high)
        result.candidates[index] = replace(
            passed.high, confidence=Confidence.MEDIUM,
            reason=f"{passed.high.reason} But {_change(rival)} of the later {rival.version} is about the same "
                   "thing and names the problem at least as well, so neither is certain.")
        result.candidates.append(replace(rival, confidence=Confidence.MEDIUM) if rival.confidence == Confidence.HIGH
                                 else rival)


def _judge_line(scan: _Scan, item: RelevantEntry, passed: _Passed) -> Candidate | None:
    """A passed-over line judged as the scan would have (its PR read; a commit line on its words), or None."""
    line = _named_line(item, passed.by_id)
    if line is None:
        return None
    entry, pr = line
    if pr is None:
        return scan.evaluator.evaluate_commit(entry, _shipped_in(entry)) if entry.commits else None
    if any(c.pr == pr and (c.repo or entry.release.repo) == entry.release.repo for c in scan.result.candidates):
        return None
    release = passed.first.get((entry.release.repo, pr)) or _shipped_in(entry)
    return scan.evaluator.evaluate(pr, entry, release, source="scan", repo=entry.release.repo)


def _demote_behind_older_rivals(result: ScanResult, grounds: Callable[[Candidate], Grounds | None],
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
            note(f"{_change(high)} ({high.version}) lowered to medium: {_rival_clause(rival, id(rival) in firsts)}.")
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
    doubt = "so this may be another fix in the same area" if rival.source == HELD else "so neither is certain"
    behind_own = (high.via is not None and rival.via is None and rival.source != HELD
                  and lexicon.weight("behind_own") > 0)
    return replace(high, confidence=Confidence.MEDIUM,
                   reason=f"{high.reason} But {_rival_clause(rival, first)}, {doubt}.",
                   objected=high.objected or behind_own or first)


def _rival_clause(rival: Candidate, first: bool = False) -> str:
    """Why a HIGH was lowered; a line the customer already runs is named as theirs, never as a fix to take; a rival
    that was the first confirmed match of the subject (`first`) as the match found first."""
    if rival.source == HELD:
        return (f"your version already includes {rival.version}, whose line for {_change(rival)} names the problem "
                "about as well")
    if first:
        return f"{_change(rival)} of the older {rival.version} is about the same thing and matched the problem first"
    return f"{_change(rival)} of the older {rival.version} is about the same thing and names the problem about as well"


def _change(candidate: Candidate) -> str:
    """"PR #12", "commit 92e109c", a bundled SDK's with its SDK: "sentry-java PR #4724"."""
    change = f"PR #{candidate.pr}" if candidate.pr is not None else f"commit {str(candidate.commit)[:7]}"
    return f"{candidate.via.repo.split('/')[-1]} {change}" if candidate.via is not None else change


def _confirmed_high(result: ScanResult) -> int:
    return sum(1 for c in result.candidates if c.confidence == Confidence.HIGH)


def _scan_batch(scan: _Scan, batch: list[Release], entries: list[Entry]) -> None:
    if not entries:
        return
    journal, result = scan.run.journal, scan.result
    try:
        relevant = _relevant_entries(scan, entries, batch)
    except ToolError as error:
        journal.skip(f"filter notes of {_span(batch)}", error.reason)
        result.complete = False
        if isinstance(error, ToolUnavailable):
            result.unavailable = "no engine can judge the release notes"
        return
    result.entries_reviewed += len(entries)  # judged, not merely read: all batches failing is not "no result"
    by_id = {entry.id: entry for entry in entries}
    first = _first_shipped(entries)
    ordered = _oldest_first(relevant, by_id)
    for index, item in enumerate(ordered):
        if scan.confirmed_high():
            _pass_over(scan, ordered[index - 1] if index else None, ordered[index:], by_id, first)
            break  # early exit: no candidate is processed after the last needed high-confidence match
        line = _named_line(item, by_id)
        if line is None:
            journal.rejected.append(f"filter named entry {item.entry.id} / PR {item.pr}, not in this batch")
            continue
        entry, pr = line
        _consider(scan, entry, item.pr, item.second_look,
                  first.get((entry.release.repo, pr)) if pr is not None else None)


def _named_line(item: RelevantEntry, by_id: dict[int, Entry]) -> tuple[Entry, int | None] | None:
    """The batch's entry the filter named and the PR it is judged by (the one named, else the line's first; None
    for a line citing only a commit), or None when the filter named an entry or PR the batch does not have."""
    entry = by_id.get(item.entry.id)
    if entry is None or (item.pr is not None and item.pr not in entry.prs):
        return None
    return entry, item.pr if item.pr is not None else (entry.prs[0] if entry.prs else None)


def _first_shipped(entries: list[Entry]) -> dict[tuple[str, int], Release]:
    """(repository, PR) → the oldest release of the batch that ships a line citing it.

    Why: notes repeat a fix in a later release, often worded better ("Fix null data on breadcrumb. (#90)" in 1.3.2,
    "Ignore null data on Internal breadcrumbs (#90)" in 1.4.0); the judge may pick the later line (it names more of
    the problem, and keeps one line per PR), but the fix is in the release that first shipped it."""
    first: dict[tuple[str, int], Release] = {}
    for entry in entries:
        shipped = _shipped_in(entry)
        for pr in entry.prs:
            known = first.get((entry.release.repo, pr))
            if known is None or shipped.version_key < known.version_key:
                first[(entry.release.repo, pr)] = shipped
    return first


def _relevant_entries(scan: _Scan, entries: list[Entry], batch: list[Release]) -> list[RelevantEntry]:
    """The judge's pick, asked for at most MAX_ENTRIES_PER_CALL entries at a time (raises ToolError)."""
    question = scan.evaluator.question
    relevant: list[RelevantEntry] = []
    for start in range(0, len(entries), MAX_ENTRIES_PER_CALL):
        chunk = entries[start:start + MAX_ENTRIES_PER_CALL]

        def pick(judge: Judge, chunk: list[Entry] = chunk) -> list[RelevantEntry]:
            return judge.filter_relevant_entries(chunk, question)

        relevant += judged(scan.run, f"filter notes of {_span(batch)}", pick)
    return relevant


def _oldest_first(relevant: list[RelevantEntry], by_id: dict[int, Entry]) -> list[RelevantEntry]:
    """Judge candidates in the order the customer's releases ship them (a bundled entry at its host
    release), so the first confirmed fix is the earliest one; within one release, the judge's most relevant
    first (then the notes' order), so its MEDIUMs are listed strongest first."""
    order = {entry_id: (_shipped_in(entry).version_key, index) for index, (entry_id, entry) in enumerate(by_id.items())}
    last = ("~", len(order))
    return sorted(relevant, key=lambda item: (order.get(item.entry.id, last)[0], -item.relevance,
                                              order.get(item.entry.id, last)[1]))


def _shipped_in(entry: Entry) -> Release:
    """The customer's SDK release that ships an entry: its own, or the one bundling it."""
    return entry.bundled_in or entry.release


def _new_entries(run: Run, repo: str, user_release: Release, entries: list[Entry]) -> list[Entry]:
    """Drop entries whose every PR the user already has (repeated beta entries, re-listed fixes)."""
    has = run.tools.cache.prs_user_has(repo, [pr for entry in entries for pr in entry.prs], user_release)
    return [entry for entry in entries if not (entry.prs and all(pr in has for pr in entry.prs))]


def _consider(scan: _Scan, entry: Entry, pr: int | None, second_look: bool = False,
              first: Release | None = None) -> None:
    """Judge one relevant line's PR (or cited PR, or commit); `first`: the batch's oldest release shipping its PR."""
    evaluator, journal, result = scan.evaluator, scan.run.journal, scan.result
    pr_repo = entry.release.repo
    cited = cited_pr(entry, scan.names) if pr is None and not entry.prs else None
    if cited is not None:  # "… in pydantic-core#1833": the change is that repository's PR
        pr_repo, pr = cited
        journal.note(f"Release-note line in {display_version(_shipped_in(entry).tag)} has no PR of its own; judging "
                     f"the one it cites, {pr_repo}#{pr}.")
    if pr is None and not entry.commits:
        journal.note(f"Release-note line in {display_version(_shipped_in(entry).tag)} looked relevant but names no PR: "
                     f"\u201c{entry.text[:160]}\u201d.")
        return
    if pr is None:  # "… base_url (92e109c)": the line is the only evidence, the commit what to link to
        if any(c.commit == entry.commits[0] for c in result.candidates):
            return
        candidate = evaluator.evaluate_commit(entry, _shipped_in(entry), repo=pr_repo)
    elif any(c.pr == pr and (c.repo or pr_repo) == pr_repo for c in result.candidates):
        return
    else:
        candidate = evaluator.evaluate(pr, entry, first or _shipped_in(entry), source="scan", repo=pr_repo)
    if candidate is None:
        return
    if second_look:
        candidate = as_second_look(candidate, "its line scored far below the best lines of its releases")
        journal.note(f"{_change(candidate)} ({candidate.version}) is listed at most as medium, after the others.")
    if listed(result.candidates, candidate):
        scan.lines[id(candidate)] = entry


def listed(candidates: list[Candidate], candidate: Candidate) -> bool:
    """Append `candidate` unless `MAX_MEDIUM` MEDIUMs are listed; a candidate scored in full then takes the place of
    the newest second look (`pr_evaluation.as_second_look`), so a line let in as a second look never keeps a later,
    better scored one out. Whether it was appended."""
    mediums = [c for c in candidates if c.confidence == Confidence.MEDIUM]
    if candidate.confidence == Confidence.MEDIUM and len(mediums) >= MAX_MEDIUM:
        looks = [c for c in mediums if c.second_look]
        if candidate.second_look or not looks:
            return False
        del candidates[next(i for i, c in enumerate(candidates) if c is looks[-1])]
    candidates.append(candidate)
    return True


def no_answer_of_second_looks(candidates: list[Candidate], near_misses: list[NearMiss]) -> list[Candidate]:
    """The candidates, or none when every one is a second look (`pr_evaluation.as_second_look`): then they lead
    `near_misses` (of a no_result) instead.

    Why: a line far below its batch's best is worth listing beside a better candidate (recall), but alone it would
    lead the answer as a guess, and an unrelated MEDIUM is the second-worst answer."""
    if not candidates or not all(c.second_look for c in candidates):
        return candidates
    near_misses[:0] = [NearMiss(version=c.version, pr=c.pr, url=c.url, reason=c.reason, repo=c.repo,
                                commit=c.commit) for c in candidates]
    return []


def _span(batch: list[Release]) -> str:
    first, last = display_version(batch[0].tag), display_version(batch[-1].tag)
    return first if first == last else f"{first}–{last}"
