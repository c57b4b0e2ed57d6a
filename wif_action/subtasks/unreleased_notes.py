"""After the scan: the default branch's Unreleased notes, judged as one last batch.

Why: a customer on the newest release whose bug was fixed last week would otherwise hear "already
latest". When the spec's scan of published releases ends without a HIGH (or there was nothing newer
to scan), the Unreleased entries the indexer cached (indexer/unreleased.py) are judged with the same
rules — the same filter, PR details, second check and objections (`scan_release_notes` over the
pseudo-release). Entries whose PRs a published release already lists are dropped first: those are
released, and the scan had its chance at them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexer.versions import display_version
from wif_action.models import UNRELEASED_VERSION, Candidate, Release, UnreleasedCheck, UnreleasedNotes
from wif_action.rendering import age
from wif_action.run_context import Run
from wif_action.subtasks.pr_evaluation import PrEvaluator
from wif_action.subtasks.scan_release_notes import scan_release_notes

_WHY_NOT = {
    "no_changelog": "the repository has no CHANGELOG.md on its default branch",
    "no_section": "CHANGELOG.md on the default branch has no Unreleased section",
    "not_text": "CHANGELOG.md on the default branch is not text",
}


@dataclass(kw_only=True)
class UnreleasedResult:
    check: UnreleasedCheck
    candidates: list[Candidate] = field(default_factory=list)


def check_unreleased(run: Run, repo: str, latest: Release | None, evaluator: PrEvaluator,
                     known: list[Candidate]) -> UnreleasedResult:
    """Judge the cached Unreleased notes of `repo`; `latest` is the newest published release (what a customer
    can have at most). The trace says what was checked, or why not."""
    notes = run.tools.cache.unreleased_notes(repo)
    after = display_version(latest.tag) if latest else None
    why_not = _why_not(notes)
    if notes is None or why_not or latest is None:
        why_not = why_not or "no published release to compare with"
        run.journal.note(f"Unreleased notes not checked: {why_not}.")
        return UnreleasedResult(check=UnreleasedCheck(why_not=why_not, after=after))
    run.journal.read_version(UNRELEASED_VERSION)
    run.journal.urls_read.add(notes.url or "")
    run.progress.checkpoint("Checking the Unreleased notes on the default branch…")
    scan = scan_release_notes(run, repo, latest, [notes.release], evaluator, known=known)
    found = [c for c in scan.candidates if c.unreleased]
    check = UnreleasedCheck(checked=True, entries=scan.entries_reviewed, read_at=notes.read_at, url=notes.url,
                            after=after)
    run.journal.note(f"Checked the Unreleased notes of CHANGELOG.md on {repo}'s default branch (read "
                     f"{age(notes.read_at)}): {scan.entries_reviewed} entries not in any release judged, "
                     f"{len(found)} candidate{'' if len(found) == 1 else 's'}."
                     + (" The section was cut at its size limit when indexed." if notes.truncated else ""))
    return UnreleasedResult(check=check, candidates=found)


def _why_not(notes: UnreleasedNotes | None) -> str:
    if notes is None:
        return "the cache holds none for this repository (run `wif index` to read them)"
    if notes.status in _WHY_NOT:
        return _WHY_NOT[notes.status]
    if notes.entries == 0:
        return "the Unreleased section of CHANGELOG.md lists no entries"
    return ""
