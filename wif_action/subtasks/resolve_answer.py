"""Subtask 6: decide the outcome, check every claim against what was read, render the answer."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from indexer.versions import display_version
from wif_action.candidate_order import candidate_order
from wif_action.journal import Journal
from wif_action.models import (
    Answer,
    Candidate,
    Checked,
    Confidence,
    ExtractedRequest,
    NearMiss,
    Outcome,
    Release,
    UnreleasedCheck,
    Usage,
)
from wif_action.rendering import render
from wif_action.run_context import Run, mention_for


@dataclass(kw_only=True)
class Findings:
    """Everything the earlier subtasks concluded, as input to the answer."""

    outcome: Outcome | None = None
    repo: str | None = None
    user_version: str | None = None
    user_release: Release | None = None
    candidates: list[Candidate] = field(default_factory=list)
    scanned: list[Release] = field(default_factory=list)
    prs_evaluated: int = 0
    question: str = ""
    entries_reviewed: int = 0
    near_misses: list[NearMiss] = field(default_factory=list)
    request: ExtractedRequest | None = None
    max_releases: int = 100  # the release-count guard the run applied (named by a too_old answer)
    unreleased: UnreleasedCheck | None = None  # whether the Unreleased notes were judged, or why not
    on_latest: bool = False  # the customer is on the newest stable release


def resolve_answer(run: Run, findings: Findings) -> Answer:
    """The answer from what the run concluded; its maintainers named as the run's options and registry say."""
    journal = run.journal
    candidates = _supported(findings.candidates, journal)
    outcome = findings.outcome or _outcome_from(candidates)
    if outcome == Outcome.HIGH:
        candidates = [c for c in candidates if c.confidence == Confidence.HIGH] + \
                     [c for c in candidates if c.confidence != Confidence.HIGH]
    elif outcome == Outcome.UNRELEASED:  # the unreleased fix leads; published MEDIUMs follow
        candidates = [c for c in candidates if c.unreleased] + [c for c in candidates if not c.unreleased]
    elif outcome not in (Outcome.MEDIUM,):
        candidates = []
    answer = Answer(
        outcome=outcome, repo=findings.repo, user_version=_user_version(findings),
        candidates=_listed(outcome, candidates),
        checked=_checked(outcome, findings, candidates), prs_evaluated=findings.prs_evaluated,
        skipped=journal.skipped, usage=_usage(run), trace=journal.trace, rejected_claims=journal.rejected,
        question=findings.question, request=findings.request, max_releases=findings.max_releases,
        near_misses=_closest(findings.near_misses) if outcome == Outcome.NO_RESULT else [],
        unreleased_notes=findings.unreleased, latest=findings.on_latest,
    )
    answer.message = render(answer, mention_for(run.options, run.registry, findings.repo))
    return answer


def _usage(run: Run) -> Usage:
    """What the run's engine spent, and how many GitHub requests it made."""
    return replace(run.tools.judge.usage(), github_requests=run.tools.github.requests_made)


def _supported(candidates: list[Candidate], journal: Journal) -> list[Candidate]:
    """Keep only candidates whose version, PR and URL the run actually read."""
    kept = []
    for candidate in candidates:
        change = candidate.pr in journal.prs_read if candidate.pr is not None else \
            candidate.commit in journal.commits_read
        read = candidate.version.lstrip("vV") in journal.versions_read and change and candidate.url in journal.urls_read
        if read:
            kept.append(candidate)
        else:
            what = f"PR #{candidate.pr}" if candidate.pr is not None else f"commit {candidate.commit}"
            journal.rejected.append(f"candidate {candidate.version} / {what} was not read; dropped")
    return kept


def _listed(outcome: Outcome, candidates: list[Candidate]) -> list[Candidate]:
    """The candidates in the order the answer's message lists them (`candidate_order`, the one top-candidate
    rule); an unreleased answer's unreleased fix first. Why: `--json`'s and the run's first candidate must be the
    one the message leads with; sorted by level alone, a MEDIUM answer listed an older MEDIUM first while its
    message led with the clear leader."""
    ordered = candidate_order(candidates)
    if outcome == Outcome.UNRELEASED:
        ordered = sorted(ordered, key=lambda c: not c.unreleased)
    return ordered


def _outcome_from(candidates: list[Candidate]) -> Outcome:
    """A published HIGH, else an unreleased HIGH, else a published MEDIUM (the customer can have it today),
    else an unreleased MEDIUM — among the MEDIUMs, one nothing objects to before an objected one
    (`candidate_order`: an objected candidate never leads while another of its level stands)."""
    published = [c for c in candidates if not c.unreleased]
    if any(c.confidence == Confidence.HIGH for c in published):
        return Outcome.HIGH
    if any(c.confidence == Confidence.HIGH for c in candidates):
        return Outcome.UNRELEASED
    if any(not (c.objected or c.second_look) for c in published):
        return Outcome.MEDIUM
    if any(not (c.objected or c.second_look) for c in candidates):
        return Outcome.UNRELEASED
    if published:
        return Outcome.MEDIUM
    if candidates:
        return Outcome.UNRELEASED
    return Outcome.NO_RESULT


def _user_version(findings: Findings) -> str | None:
    if findings.user_release is not None:
        return display_version(findings.user_release.tag)
    return findings.user_version


def _checked(outcome: Outcome, findings: Findings, candidates: list[Candidate]) -> Checked | None:
    scanned = findings.scanned
    if not scanned:
        return None
    last = scanned[-1]
    if outcome == Outcome.HIGH:
        highs = {c.tag for c in candidates if c.confidence == Confidence.HIGH and c.source == "scan"}
        in_scan = [r for r in scanned if r.tag in highs]
        if in_scan:
            last = in_scan[-1]
    releases = scanned[: scanned.index(last) + 1]
    return Checked(first=display_version(releases[0].tag), last=display_version(last.tag), releases=len(releases),
                   entries=findings.entries_reviewed)


def _closest(near_misses: list[NearMiss], shown: int = 3) -> list[NearMiss]:
    """The first PRs the scan judged and ruled out, oldest first (the judge saw these as the most relevant)."""
    return near_misses[:shown]
