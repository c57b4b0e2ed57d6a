"""The one top-candidate rule: which candidate an answer leads with, and the order it lists the others in.

Why one home: the rendered answer, `wif eval`, calibration and the run records all name "the" top candidate.
Written four times, the copies drifted (the run records' ignored objections), so a run record could name
another top PR than the answer. Every reader asks here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from indexer.versions import parse_tag, version_key


class Ranked(Protocol):
    """What the rule reads of a candidate (an answer's `Candidate`, an evaluation `Claim`, …)."""

    @property
    def confidence(self) -> str: ...

    @property
    def objected(self) -> bool: ...

    @property
    def tag(self) -> str: ...

    @property
    def version(self) -> str: ...


R = TypeVar("R", bound=Ranked)
UNRELEASED = "unreleased"  # the version of a candidate from the default branch's Unreleased notes


def candidate_order(candidates: Iterable[R]) -> list[R]:
    """HIGH candidates first, in the order found; then the others, oldest release first. At each of the two
    levels a candidate an objection marks (`objections.py`: other platform, opposite direction, …) comes
    after those nothing objects to, so it never leads while another candidate of its level stands."""
    def key(candidate: R) -> tuple[bool, bool, str]:
        high = candidate.confidence == "high"
        return not high, candidate.objected, "" if high else release_order(candidate)

    return sorted(candidates, key=key)


def top_candidate(candidates: Iterable[R]) -> R | None:
    """The candidate the answer leads with (the first of `candidate_order`); None without candidates."""
    ordered = candidate_order(candidates)
    return ordered[0] if ordered else None


def release_order(candidate: Ranked) -> str:
    """A sort key of the candidate's release (its tag, else its version): a fix not released yet after every
    release; unparsable ones first."""
    if candidate.version == UNRELEASED:
        return "~"
    parsed = parse_tag(candidate.tag or candidate.version)
    return version_key(parsed) if parsed else ""
