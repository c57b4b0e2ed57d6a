"""What one scan of the release notes works with, shared by the scan and the demotions after it.

Why a module of its own: the scan (`scan_release_notes`) fills it batch by batch; the rules that lower a HIGH
afterwards (`scan_demotions`) read it and judge more lines the same way, through the same helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from indexer.versions import display_version
from wif_action.models import Candidate, Confidence, Entry, Release, RelevantEntry
from wif_action.ports import Judge
from wif_action.run_context import Run
from wif_action.subtasks.judging import judged
from wif_action.subtasks.pr_evaluation import PrEvaluator

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
class Scan:
    """One scan's working set: the run, the PR evaluator, what it found so far, and the short names a line may
    cite another repository by (`cited_prs.repository_names`)."""

    run: Run
    evaluator: PrEvaluator
    result: ScanResult
    names: dict[str, str]
    lines: dict[int, Entry] = field(default_factory=dict)  # id of a candidate → the release line it was judged on
    passed: list[Passed] = field(default_factory=list)  # lines of the batch of a HIGH the scan stopped at
    held: Callable[[Scan], None] | None = None  # lowers a HIGH behind the customer's own lines before the scan stops
    resumed: bool = False  # a HIGH was lowered there and the scan went on: it ends with the batch

    def stops(self) -> bool:
        """Whether the scan has what it needs and stops: `confirmed_high`, once every HIGH found has been weighed
        against the lines of the releases the customer already runs (`held`, when set): a HIGH lowered there is
        another fix of the same area, so the scan goes on to the end of its batch (`resumed`) for this problem's."""
        if self.held is not None and self.confirmed_high():
            self.held(self)
            self.resumed = self.resumed or not self.confirmed_high()
        return self.confirmed_high()

    def confirmed_high(self) -> bool:
        """As many HIGHs as the run asks for (`max_high`): the scan stops."""
        return confirmed_high_count(self.result) >= self.run.options.max_high


@dataclass
class Passed:
    """The lines of a batch the scan never judged because it stopped at `high`, each ranked above the HIGH's own
    line by the filter (`relevance`) or close below it (`later_reach`), with what `scan_release_notes._consider`
    needs to judge them; `relevance`: the HIGH's line's."""

    high: Candidate
    items: list[RelevantEntry]
    by_id: dict[int, Entry]
    first: dict[tuple[str, int], Release]
    relevance: float = 0.0


def confirmed_high_count(result: ScanResult) -> int:
    return sum(1 for c in result.candidates if c.confidence == Confidence.HIGH)


def named_line(item: RelevantEntry, by_id: dict[int, Entry]) -> tuple[Entry, int | None] | None:
    """The batch's entry the filter named and the PR it is judged by (the one named, else the line's first; None
    for a line citing only a commit), or None when the filter named an entry or PR the batch does not have."""
    entry = by_id.get(item.entry.id)
    if entry is None or (item.pr is not None and item.pr not in entry.prs):
        return None
    return entry, item.pr if item.pr is not None else (entry.prs[0] if entry.prs else None)


def relevant_entries(scan: Scan, entries: list[Entry], batch: list[Release]) -> list[RelevantEntry]:
    """The judge's pick, asked for at most MAX_ENTRIES_PER_CALL entries at a time (raises ToolError)."""
    question = scan.evaluator.question
    relevant: list[RelevantEntry] = []
    for start in range(0, len(entries), MAX_ENTRIES_PER_CALL):
        chunk = entries[start:start + MAX_ENTRIES_PER_CALL]

        def pick(judge: Judge, chunk: list[Entry] = chunk) -> list[RelevantEntry]:
            return judge.filter_relevant_entries(chunk, question)

        relevant += judged(scan.run, f"filter notes of {span(batch)}", pick)
    return relevant


def shipped_in(entry: Entry) -> Release:
    """The customer's SDK release that ships an entry: its own, or the one bundling it."""
    return entry.bundled_in or entry.release


def span(batch: list[Release]) -> str:
    first, last = display_version(batch[0].tag), display_version(batch[-1].tag)
    return first if first == last else f"{first}–{last}"


def change(candidate: Candidate) -> str:
    """"PR #12", "commit 92e109c", a bundled SDK's with its SDK: "sentry-java PR #4724"."""
    change = f"PR #{candidate.pr}" if candidate.pr is not None else f"commit {str(candidate.commit)[:7]}"
    return f"{candidate.via.repo.split('/')[-1]} {change}" if candidate.via is not None else change
