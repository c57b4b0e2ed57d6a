"""Subtask 5: a linear scan of the range's release notes, oldest first, in batches of at most 5.

Entries whose PR the user already has (listed in a release at or before their
version, e.g. a final release repeating its betas) are dropped before judging.
The scan stops after the first confirmed HIGH (or `max_high` of them). A release that bumps a
bundled SDK brings that SDK's releases in its bump range into its batch (subtasks/bundled_sdks.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from indexer.versions import display_version
from wif_action import lexicon
from wif_action.models import Candidate, Confidence, Entry, NearMiss, Release, RelevantEntry
from wif_action.ports import ToolError, ToolUnavailable
from wif_action.run_context import Run
from wif_action.subtasks.bundled_sdks import BundleFollower
from wif_action.subtasks.cited_prs import cited_pr, repository_names
from wif_action.subtasks.pr_evaluation import PrEvaluator, as_second_look
from wif_action.subtasks.scan_demotions import (
    demote_behind_held_lines,
    demote_behind_later_lines,
    demote_behind_older_rivals,
)
from wif_action.subtasks.scan_state import (
    Passed,
    Scan,
    ScanResult,
    change,
    named_line,
    relevant_entries,
    shipped_in,
    span,
)

BATCH_SIZE = 5
MAX_MEDIUM = 5


def scan_release_notes(run: Run, repo: str, user_release: Release, releases: list[Release],
                       evaluator: PrEvaluator, known: list[Candidate] | None = None) -> ScanResult:
    """Reports "Scanned N of M releases…" on `run.progress` between batches. `run.registry` says which
    platforms each bundled SDK ships for."""
    tools, journal = run.tools, run.journal
    question = evaluator.question
    bundles = BundleFollower(run, repo, user_release, question.wants_functionality, question.platforms)
    names = repository_names([*run.registry.bundles(repo).values(), *tools.cache.repositories()])
    scan = Scan(run, evaluator, ScanResult(candidates=list(known or [])), names,
                held=_held_check(repo, user_release))
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
        if scan.stops() or scan.resumed:
            break
        if start + BATCH_SIZE < len(releases):
            run.progress.checkpoint(f"Scanned {start + len(batch)} of {len(releases)} releases…")
    bundles.report()
    demote_behind_held_lines(scan, repo, user_release)
    demote_behind_older_rivals(result, evaluator.grounds, journal.note)
    demote_behind_later_lines(scan)
    result.candidates = no_answer_of_second_looks(result.candidates, evaluator.near_misses)
    return result


def _held_check(repo: str, user_release: Release) -> Callable[[Scan], None] | None:
    """The check `Scan.stops` makes before the scan stops at a HIGH: `demote_behind_held_lines` (lexicon.toml
    [weight] `held_resume`; 0: the scan stops at the HIGH and the check runs after it, as the other demotions).

    Why: a HIGH that a line of a release the customer already runs rivals is another fix of the same area
    ("your version already includes …"), not this problem's fix; the scan stopped there and lowered it only
    afterwards, leaving the rest of its batch unjudged, where the fix of this problem may be. The scan goes on to
    the end of that batch (`Scan.resumed`): the lines the filter picked there that stopping skipped, without its
    second looks (a line far below the batch's best is no lead past the lowered HIGH, which stays listed)."""
    if lexicon.weight("held_resume") <= 0:
        return None
    return lambda scan: demote_behind_held_lines(scan, repo, user_release)


def _pass_over(scan: Scan, last: RelevantEntry | None, rest: list[RelevantEntry], by_id: dict[int, Entry],
               first: dict[tuple[str, int], Release]) -> None:
    """Remember the lines of the batch the filter ranked above the line the scan stopped at (`last`, whose PR
    was the HIGH), or below it at no less than `later_reach` (lexicon.toml [weight]; 1: none below) of its
    relevance, for `demote_behind_later_lines`."""
    high = scan.result.candidates[-1] if scan.result.candidates else None
    if last is None or high is None or high.confidence != Confidence.HIGH or scan.lines.get(id(high)) is None:
        return
    if scan.lines[id(high)].id != last.entry.id:
        return
    reach = lexicon.weight("later_reach")
    above = [item for item in rest if not item.second_look
             and (item.relevance > last.relevance or (reach < 1 and item.relevance >= reach * last.relevance))]
    if above and math.isfinite(lexicon.weight("later_rival")):
        scan.passed.append(Passed(high, above, by_id, first, last.relevance))


def _scan_batch(scan: Scan, batch: list[Release], entries: list[Entry]) -> None:
    if not entries:
        return
    journal, result = scan.run.journal, scan.result
    try:
        relevant = relevant_entries(scan, entries, batch)
    except ToolError as error:
        journal.skip(f"filter notes of {span(batch)}", error.reason)
        result.complete = False
        if isinstance(error, ToolUnavailable):
            result.unavailable = "no engine can judge the release notes"
        return
    result.entries_reviewed += len(entries)  # judged, not merely read: all batches failing is not "no result"
    by_id = {entry.id: entry for entry in entries}
    first = _first_shipped(entries)
    ordered = _oldest_first(relevant, by_id)
    for index, item in enumerate(ordered):
        if scan.stops():
            _pass_over(scan, ordered[index - 1] if index else None, ordered[index:], by_id, first)
            break  # early exit: no candidate is processed after the last needed high-confidence match
        line = named_line(item, by_id)
        if line is None:
            journal.rejected.append(f"filter named entry {item.entry.id} / PR {item.pr}, not in this batch")
            continue
        entry, pr = line
        if item.second_look and scan.resumed:
            continue  # past a HIGH lowered behind the customer's own line, a line far below the best is no lead
        _consider(scan, entry, item.pr, item.second_look,
                  first.get((entry.release.repo, pr)) if pr is not None else None)


def _first_shipped(entries: list[Entry]) -> dict[tuple[str, int], Release]:
    """(repository, PR) → the oldest release of the batch that ships a line citing it.

    Why: notes repeat a fix in a later release, often worded better ("Fix null data on breadcrumb. (#90)" in 1.3.2,
    "Ignore null data on Internal breadcrumbs (#90)" in 1.4.0); the judge may pick the later line (it names more of
    the problem, and keeps one line per PR), but the fix is in the release that first shipped it."""
    first: dict[tuple[str, int], Release] = {}
    for entry in entries:
        shipped = shipped_in(entry)
        for pr in entry.prs:
            known = first.get((entry.release.repo, pr))
            if known is None or shipped.version_key < known.version_key:
                first[(entry.release.repo, pr)] = shipped
    return first


def _oldest_first(relevant: list[RelevantEntry], by_id: dict[int, Entry]) -> list[RelevantEntry]:
    """Judge candidates in the order the customer's releases ship them (a bundled entry at its host
    release), so the first confirmed fix is the earliest one; within one release, the judge's most relevant
    first (then the notes' order), so its MEDIUMs are listed strongest first."""
    order = {entry_id: (shipped_in(entry).version_key, index) for index, (entry_id, entry) in enumerate(by_id.items())}
    last = ("~", len(order))
    return sorted(relevant, key=lambda item: (order.get(item.entry.id, last)[0], -item.relevance,
                                              order.get(item.entry.id, last)[1]))


def _new_entries(run: Run, repo: str, user_release: Release, entries: list[Entry]) -> list[Entry]:
    """Drop entries whose every PR the user already has (repeated beta entries, re-listed fixes)."""
    has = run.tools.cache.prs_user_has(repo, [pr for entry in entries for pr in entry.prs], user_release)
    return [entry for entry in entries if not (entry.prs and all(pr in has for pr in entry.prs))]


def _consider(scan: Scan, entry: Entry, pr: int | None, second_look: bool = False,
              first: Release | None = None) -> None:
    """Judge one relevant line's PR (or cited PR, or commit); `first`: the batch's oldest release shipping its PR."""
    evaluator, journal, result = scan.evaluator, scan.run.journal, scan.result
    pr_repo = entry.release.repo
    cited = cited_pr(entry, scan.names) if pr is None and not entry.prs else None
    if cited is not None:  # "… in pydantic-core#1833": the change is that repository's PR
        pr_repo, pr = cited
        journal.note(f"Release-note line in {display_version(shipped_in(entry).tag)} has no PR of its own; judging "
                     f"the one it cites, {pr_repo}#{pr}.")
    if pr is None and not entry.commits:
        journal.note(f"Release-note line in {display_version(shipped_in(entry).tag)} looked relevant but names no PR: "
                     f"\u201c{entry.text[:160]}\u201d.")
        return
    if pr is None:  # "… base_url (92e109c)": the line is the only evidence, the commit what to link to
        if any(c.commit == entry.commit_hashes[0] for c in result.candidates):
            return
        candidate = evaluator.evaluate_commit(entry, shipped_in(entry), repo=pr_repo)
    elif any(c.pr == pr and (c.repo or pr_repo) == pr_repo for c in result.candidates):
        return
    else:
        candidate = evaluator.evaluate(pr, entry, first or shipped_in(entry), source="scan", repo=pr_repo)
    if candidate is None:
        return
    if second_look:
        candidate = as_second_look(candidate, "its line scored far below the best lines of its releases")
        journal.note(f"{change(candidate)} ({candidate.version}) is listed at most as medium, after the others.")
    if listed(result.candidates, candidate):
        scan.lines[id(candidate)] = entry


def listed(candidates: list[Candidate], candidate: Candidate) -> bool:
    """Append `candidate` unless `MAX_MEDIUM` MEDIUMs are listed; a candidate scored in full then takes the place of
    the newest second look (`pr_evaluation.as_second_look`), so a line let in as a second look never keeps a later,
    better scored one out — unless it is objected (`_displaces_a_second_look`). Whether it was appended."""
    mediums = [c for c in candidates if c.confidence == Confidence.MEDIUM]
    if candidate.confidence == Confidence.MEDIUM and len(mediums) >= MAX_MEDIUM:
        looks = [c for c in mediums if c.second_look]
        if candidate.second_look or not _displaces_a_second_look(candidate) or not looks:
            return False
        del candidates[next(i for i, c in enumerate(candidates) if c is looks[-1])]
    candidates.append(candidate)
    return True


def _displaces_a_second_look(candidate: Candidate) -> bool:
    """Whether a later MEDIUM scored in full may take a listed second look's place once `MAX_MEDIUM` are listed.

    Why not when objected: a check found a reason it cannot be the fix (`objections.py`), so, like a second look, it
    is listed after the others and never leads; the two are then equally weak, and the one found first keeps its
    place (the listing's rule), as it does between two second looks."""
    return not candidate.objected


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
