"""Evaluation cases and the metrics over their results — pure functions, no I/O besides loading cases.

Why separate from the command: the metric definitions (what counts as a right
answer, an acceptable one, a wrong claim) are the contract of the eval and are
unit-tested on hand-made results; `wif eval` only runs cases and prints.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, model_validator

from wif_action import candidate_order

UNRELEASED = "unreleased"  # the outcome, and the version of a candidate from the Unreleased notes
USAGE_FIELDS = ("github_requests", "llm_calls", "prompt_tokens", "completion_tokens", "cached_tokens",
                "reasoning_tokens", "cost_usd", "seconds")


class CaseFileError(Exception):
    """The cases file cannot be used; the message names the line."""


class FixRef(BaseModel):
    """A fix: its release and its PR, or (a release line citing only a commit) the commit's SHA or a prefix."""

    fixed_in: str
    pr: int | None = None
    commit: str | None = Field(default=None, min_length=7)
    repo: str | None = None  # the PR's repository when it is not the case's (a bundled SDK's fix)

    @model_validator(mode="after")
    def _names_a_fix(self) -> FixRef:
        if self.pr is None and self.commit is None:
            raise ValueError("a fix names a PR or a commit")
        return self


class Expectation(BaseModel):
    outcome: str
    fixed_in: str | None = None
    prs: list[int] = Field(default_factory=list)
    commits: list[str] = Field(default_factory=list)  # the fix's release line cites these commits and no PR
    also_acceptable: list[FixRef] = Field(default_factory=list)
    must_not_claim: list[FixRef] = Field(default_factory=list)
    pr_repo: str | None = None  # bundled_fix: the bundled SDK's repository whose PR fixed it
    via: str | None = None  # bundled_fix: "sentry-cocoa 8.13.1", the bundled release that carries it

    def fixes(self) -> list[FixRef]:
        """Every (release, PR) that is a right answer: the expected fix's PRs plus `also_acceptable`. An
        `unreleased` fix is in no release: its candidates carry the version "unreleased"."""
        if self.outcome == UNRELEASED and not self.fixed_in:
            return [FixRef(fixed_in=UNRELEASED, pr=pr, repo=self.pr_repo) for pr in self.prs]
        main = [FixRef(fixed_in=self.fixed_in, pr=pr, repo=self.pr_repo) for pr in self.prs] if self.fixed_in else []
        main += [FixRef(fixed_in=self.fixed_in, commit=sha) for sha in self.commits] if self.fixed_in else []
        return main + list(self.also_acceptable)


class Case(BaseModel):
    id: str
    category: str
    expect: Expectation
    repo: str | None = None
    sdk: str | None = None
    version: str | None = None
    problem: str | None = None
    message: str | None = None
    links: list[str] = Field(default_factory=list)
    difficulty: str | None = None
    max_releases: int | None = Field(default=None, ge=1)  # asked with the release-count guard raised to this
    unreleased_newest: int | None = Field(default=None, ge=1)  # the fake GitHub withholds the newest K releases


class Claim(BaseModel):
    """A candidate of an answer, reduced to what the metrics compare."""

    version: str
    tag: str = ""
    pr: int | None  # None: a release-note line citing a commit and no PR
    confidence: str
    reason: str = ""
    repo: str | None = None  # the PR's repository
    objected: bool = False  # a check of wif_action/objections.py objected: rendered last
    second_look: bool = False  # listed only as a second look (`Candidate.second_look`): after every other MEDIUM
    commit: str | None = None
    strength: float | None = None  # the engine's evidence strength (`Candidate.strength`)
    breadth: float | None = None  # the share of the problem's ideas its headline names (`Candidate.breadth`)
    filed: float | None = None  # the weight of the section its line is filed under (`Candidate.filed`)


class CaseResult(BaseModel):
    """What WIF answered for one case (and what it cost)."""

    id: str
    outcome: str
    candidates: list[Claim] = Field(default_factory=list)
    github_requests: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    summary: str = ""
    error: str | None = None
    fell_back: list[str] = Field(default_factory=list)  # steps the offline engine answered instead


class Verdict(BaseModel):
    """How one result compares with its case."""

    id: str
    category: str
    expected: str
    outcome: str
    outcome_status: str  # right | acceptable | wrong
    has_fix: bool
    top1: bool = False
    found: bool = False
    high: bool = False  # a ✓ answer: `high`, or `unreleased` led by a HIGH candidate (`is_high`)
    wrong_claims: list[str] = Field(default_factory=list)

    @property
    def miss(self) -> bool:
        return self.outcome_status == "wrong" or (self.has_fix and not self.top1) or bool(self.wrong_claims)


def load_cases(path: str | Path) -> list[Case]:
    """Parse a JSONL cases file; raises CaseFileError naming the bad line."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise CaseFileError(f"cannot read {path}: {error}") from error
    cases = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            cases.append(Case.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as error:
            raise CaseFileError(f"{path}:{number}: not a valid case ({_first_line(error)})") from error
    if not cases:
        raise CaseFileError(f"{path}: no cases")
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        raise CaseFileError(f"{path}: duplicate case ids")
    return cases


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0][:200]


def bare(version: str | None) -> str:
    """A version/tag for comparison: trimmed, leading `v` removed."""
    text = (version or "").strip()
    return text[1:] if text[:1] in ("v", "V") else text


def is_claim_of(claim: Claim, refs: list[FixRef]) -> bool:
    """Whether a candidate names one of `refs` (same PR of the same repository, same release by tag or
    version). A ref with a repository (a bundled SDK's PR) needs a claim of that repository: PR numbers
    of two repositories collide."""
    releases = {bare(claim.tag), bare(claim.version)} - {""}
    return any(_same_fix(claim, ref) and bare(ref.fixed_in) in releases and (ref.repo is None or claim.repo == ref.repo)
               for ref in refs)


def _same_fix(claim: Claim, ref: FixRef) -> bool:
    """The same PR, or (a line citing no PR) the same commit, either SHA a prefix of the other."""
    if ref.pr is not None:
        return claim.pr == ref.pr
    sha, want = (claim.commit or "").lower(), (ref.commit or "").lower()
    return claim.pr is None and len(sha) >= 7 and (sha.startswith(want) or want.startswith(sha))


def top_candidate(result: CaseResult) -> Claim | None:
    """The candidate the answer leads with, by the one rule (`candidate_order.top_candidate`)."""
    return candidate_order.top_candidate(result.candidates)


def is_high(result: CaseResult) -> bool:
    """Whether the answer is a ✓: a published HIGH, or an `unreleased` one whose leading candidate is HIGH ("✓
    Fixed on the default branch by …"). Both are claims a customer acts on, so HIGH precision counts both."""
    if result.outcome == "high":
        return True
    top = top_candidate(result)
    return result.outcome == UNRELEASED and top is not None and top.confidence == "high"


def outcome_status(case: Case, result: CaseResult) -> str:
    """right, acceptable (a MEDIUM on an already-has-fix case that claims nothing forbidden), or wrong."""
    if result.outcome == case.expect.outcome:
        return "right"
    if case.category == "already_has_fix" and result.outcome == "medium" and not wrong_claims(case, result):
        return "acceptable"
    return "wrong"


def wrong_claims(case: Case, result: CaseResult) -> list[str]:
    """Candidates that name a `must_not_claim` entry, as `version #PR`."""
    return [f"{c.version} " + (f"#{c.pr}" if c.pr is not None else f"commit {(c.commit or '?')[:7]}")
            for c in result.candidates if is_claim_of(c, case.expect.must_not_claim)]


def judge_result(case: Case, result: CaseResult) -> Verdict:
    fixes = case.expect.fixes()
    top = top_candidate(result)
    return Verdict(
        id=case.id, category=case.category, expected=case.expect.outcome, outcome=result.outcome,
        outcome_status=outcome_status(case, result), has_fix=bool(fixes),
        top1=bool(fixes) and top is not None and is_claim_of(top, fixes),
        found=bool(fixes) and any(is_claim_of(c, fixes) for c in result.candidates),
        high=is_high(result), wrong_claims=wrong_claims(case, result),
    )


def ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def accuracy(verdicts: list[Verdict]) -> dict:
    right = sum(v.outcome_status == "right" for v in verdicts)
    acceptable = sum(v.outcome_status == "acceptable" for v in verdicts)
    return {"cases": len(verdicts), "right": right, "acceptable": acceptable,
            "accuracy": ratio(right + acceptable, len(verdicts)), "strict_accuracy": ratio(right, len(verdicts))}


def fix_metrics(verdicts: list[Verdict]) -> dict:
    """Top-1 and found-among-candidates over cases with an expected fix; HIGH precision over every ✓ answer
    (`is_high`: a confident `unreleased` one too)."""
    with_fix = [v for v in verdicts if v.has_fix]
    highs = [v for v in verdicts if v.high]
    right_highs = sum(v.has_fix and v.top1 for v in highs)
    return {
        "cases_with_fix": len(with_fix),
        "top1": sum(v.top1 for v in with_fix), "top1_rate": ratio(sum(v.top1 for v in with_fix), len(with_fix)),
        "found": sum(v.found for v in with_fix), "found_rate": ratio(sum(v.found for v in with_fix), len(with_fix)),
        "high_answers": len(highs), "right_high": right_highs, "high_precision": ratio(right_highs, len(highs)),
        "wrong_claims": sum(bool(v.wrong_claims) for v in verdicts),
    }


def usage_stats(results: list[CaseResult]) -> dict:
    """Mean, median and max per case of each cost measure."""
    stats = {}
    for name in USAGE_FIELDS:
        known = [getattr(r, name) for r in results if getattr(r, name) is not None]
        if name == "cost_usd" and len(known) < len(results):
            continue  # a price is unknown: no cost rather than a partial one
        values = [float(value) for value in known] or [0.0]
        stats[name] = {"mean": statistics.fmean(values), "median": statistics.median(values), "max": max(values),
                       "total": sum(values)}
    return stats


def summarize(cases: list[Case], results: list[CaseResult]) -> dict:
    """All metrics of a run: overall and per-category accuracy, fix metrics, usage, verdicts."""
    by_id = {case.id: case for case in cases}
    verdicts = [judge_result(by_id[r.id], r) for r in results]
    per_category: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        per_category[verdict.category].append(verdict)
    return {
        "outcome": accuracy(verdicts),
        "per_category": {name: {**accuracy(vs), **_category_fix(vs)} for name, vs in sorted(per_category.items())},
        "fixes": fix_metrics(verdicts),
        "usage": usage_stats(results),
        "verdicts": verdicts,
    }


def _category_fix(verdicts: list[Verdict]) -> dict:
    with_fix = [v for v in verdicts if v.has_fix]
    return {"top1": sum(v.top1 for v in with_fix) if with_fix else None}
