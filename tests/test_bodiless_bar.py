"""A candidate with no text beyond its headline (a release line citing only a commit, a PR with no description) is
held to `bodiless_mass` of the MEDIUM bar: it can show no mass from a description (`scoring.medium_bar`). The factor
is a weight per input mode, and HIGH's bars are not scaled."""

from __future__ import annotations

from dataclasses import replace

import pytest

from wif_action import lexicon
from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import Concept, Evidence, gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.terms import Term
from wif_action.models import Confidence, Entry, PullRequest, Release

REPO = "acme/widget"
RELEASE = Release(id=1, repo=REPO, tag="2.0.0", version="2.0.0", version_key="k")


def _evidence(mass: float, bodiless: bool, from_message: bool = False) -> Evidence:
    """One key concept named verbatim in the headline with this much mass: in the area, never HIGH alone."""
    term = Term("timeout", "timeout")
    return Evidence(1.0, scale=1.0, concepts=[Concept([term], mass, {"timeout"})], credits=[1.0],
                    matched=[{"timeout"}], keys=["timeout"], shares=[0.01], wheres=[False],
                    headline={"timeout": (term, mass)}, bodiless=bodiless, from_message=from_message)


def test_the_shipped_factor_lowers_the_bar_for_fields_only() -> None:
    assert lexicon.weight("bodiless_mass") < 1.0
    assert lexicon.weight("bodiless_mass", from_message=True) == 1.0


def test_a_bodiless_line_is_medium_on_less_mass_than_a_line_with_a_description() -> None:
    """Between the lowered bar and the full one: MEDIUM without a description to read, LOW with one."""
    full = lexicon.weight("medium_mass")
    mass = (full + full * lexicon.weight("bodiless_mass")) / 2
    assert scoring.confidence(_evidence(mass, bodiless=True)) == Confidence.MEDIUM
    assert scoring.confidence(_evidence(mass, bodiless=False)) == Confidence.LOW
    assert scoring.confidence(_evidence(mass, bodiless=True, from_message=True)) == Confidence.LOW  # message: 1.0
    below = full * lexicon.weight("bodiless_mass") * 0.95
    assert scoring.confidence(_evidence(below, bodiless=True)) == Confidence.LOW


def test_the_lowered_bar_makes_no_high() -> None:
    """A thin note is never a ✓ on less: one everyday concept, however heavy, stays MEDIUM."""
    evidence = replace(_evidence(100.0, bodiless=True), shares=[0.5])
    assert scoring.confidence(evidence) == Confidence.MEDIUM


@pytest.mark.parametrize(("text", "body", "commit", "bodiless"), [
    ("properly report timeout error when connecting (5bc94b5)", "", "5bc94b5", True),  # a commit line
    ("Report the timeout error (#12)", "", None, True),  # a PR with no description
    ("Report the timeout error (#12)", "The reason was the socket's error.", None, False),
    ("Report the timeout error (#12). " + "x" * 400, "", None, False),  # the note explains past its headline
])
def test_gather_says_whether_there_is_text_beyond_the_headline(text: str, body: str, commit: str | None,
                                                               bodiless: bool) -> None:
    stats = RepositoryStats(BatchStatistics([text, "Add a retry budget"]))
    query = {"timeout": Term("timeout", "timeout")}
    stats.load(REPO, list(query.values()))
    entry = Entry(id=1, release=RELEASE, section="fix", text=text, commits=[commit] if commit else [])
    pull = PullRequest(repo=REPO, number=0 if commit else 12, title=text if commit else "Report the timeout error",
                       body=body, merged=True, url="u", commit=commit)
    assert gather(pull, entry, query, stats, False, []).bodiless is bodiless
