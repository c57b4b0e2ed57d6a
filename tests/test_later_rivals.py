"""A later line of the HIGH's batch that the filter ranked above it rivals the ✓ (`scan_demotions.
demote_behind_later_lines`, `candidate_order.later_rival`, issue 21), and a rival naming the HIGH's subject inside
a longer phrase names it (`candidate_order._within`). Real cache (SQLite), real workflow, offline engine, fake
GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cache_helpers import line_pulls, releases_with_filler
from tests.fakes.github_server import FakeGitHub
from tests.lexicon_helpers import use_weights
from tests.workflow_helpers import ask
from wif_action.candidate_order import later_rival, older_rivals
from wif_action.models import AskInput, Candidate, Confidence, Grounds, Outcome

REPO = "acme/sockets"
PROBLEM = "Large WebSocket messages that arrive in masked fragments are read corrupted."
OTHER = "Fixed control frames breaking fragmented WebSocket messages"  # 1.1.0: the same part, another trigger
FIX = "Fixed reading fragmented WebSocket messages when the payload was masked"  # 1.2.0: what the customer sees
FILLER = ["Update the docs footer", "Bump the test matrix", "Tidy the changelog script", "Rename an internal helper"]
LINES = {"1.0.0": FILLER[0], "1.1.0": OTHER, "1.2.0": FIX, "1.3.0": FILLER[1]}
PRS = {"1.0.0": 10, "1.1.0": 11, "1.2.0": 12, "1.3.0": 13}


@pytest.fixture
def github():
    with FakeGitHub() as fake:
        fake.add_repo(REPO, pulls=line_pulls(LINES, PRS))
        yield fake


def cache_with(path: Path) -> Path:
    return releases_with_filler(path, REPO, LINES, PRS, FILLER[1:])


def test_a_later_line_the_filter_ranked_above_the_high_makes_both_medium(tmp_path, github, lexicon_restored) -> None:
    """Customer on 1.0.0: 1.1.0's fix of another trigger of the same part is a ✓ on its own, and the scan stops
    there; 1.2.0's line, ranked above it in the same batch and naming the problem better, is judged too: both are
    listed as MEDIUM, the earlier one's reason naming the later one. With the rule off (inf) 1.1.0 is the ✓."""
    path = cache_with(tmp_path / "cache.db")
    question = AskInput(repo=REPO, version="1.0.0", problem=PROBLEM)
    use_weights(later_rival=0.7, held_releases=0)
    answer, _ = ask(path, github.url, question)
    assert answer.outcome == Outcome.MEDIUM, answer.message
    by_pr = {c.pr: c for c in answer.candidates}
    assert sorted(by_pr) == [11, 12] and all(c.confidence == Confidence.MEDIUM for c in answer.candidates)
    assert "PR #12 of the later 1.2.0 is about the same thing" in by_pr[11].reason
    use_weights(later_rival=float("inf"))
    answer, _ = ask(path, github.url, question)
    assert answer.outcome == Outcome.HIGH and [c.pr for c in answer.candidates] == [11], answer.message


def candidate(version: str, pr: int, confidence: Confidence, strength: float, objected: bool = False) -> Candidate:
    return Candidate(version=version, tag=version, pr=pr, url="", confidence=confidence, reason="",
                     strength=strength, objected=objected)


def test_a_later_rival_needs_the_strength_the_subject_and_a_later_release(lexicon_restored) -> None:
    """echo: "Fix timeout middleware not sending status code …" (4.2.2, strength 19.0) against the later "Fix
    Timeout middleware Context propagation" (4.4.0, 14.9, the same first subject): a rival at 0.7, not at 0.8; not
    when objected, of an older release, about another subject or with its PR unread."""
    use_weights(later_rival=0.7, later_subject=1)
    high = candidate("4.2.2", 1805, Confidence.HIGH, 19.0)
    rival = candidate("4.4.0", 1910, Confidence.HIGH, 14.9)
    grounds = {1805: Grounds(subjects=("timeout middlewar", "error"), own_text=True),
               1910: Grounds(subjects=("timeout middlewar", "context"), own_text=True),
               1: Grounds(subjects=("context",), own_text=True),
               2: Grounds(subjects=("timeout middlewar",), own_text=False)}
    named = lambda c: grounds.get(c.pr)  # noqa: E731
    assert later_rival(high, [rival], named) is rival
    assert later_rival(high, [candidate("4.4.0", 1910, Confidence.MEDIUM, 14.9, objected=True)], named) is None
    assert later_rival(high, [candidate("4.2.1", 1910, Confidence.MEDIUM, 30.0)], named) is None
    assert later_rival(high, [candidate("4.4.0", 1, Confidence.MEDIUM, 30.0)], named) is None
    assert later_rival(high, [candidate("4.4.0", 2, Confidence.MEDIUM, 30.0)], named) is None
    use_weights(later_subject=0)  # any subject
    assert later_rival(high, [candidate("4.4.0", 1, Confidence.MEDIUM, 30.0)], named) is not None
    use_weights(later_rival=0.8)
    assert later_rival(high, [rival], named) is None
    use_weights(later_rival=float("inf"))
    assert later_rival(high, [candidate("4.4.0", 1910, Confidence.HIGH, 100.0)], named) is None


def test_a_rival_naming_the_highs_subject_in_a_longer_phrase_names_it(lexicon_restored) -> None:
    """opentelemetry-java: the customer's own "Fix OpenTracing header name issue" (subject "header name") is about
    the "header" a later "Fix `JaegerPropagator` baggage header key case sensitivity" names first; a word of the
    phrase that is not the HIGH's subject ("name") or a phrase the subject only starts ("headers") does not count,
    nor anything with `subject_in_phrase` 0."""
    use_weights(older_rival=0.8, subject_in_phrase=1)
    high = candidate("1.65.0", 8496, Confidence.HIGH, 19.9)
    rival = candidate("1.32.0", 5840, Confidence.MEDIUM, 37.9)

    def grounds(*subjects: str) -> dict[int, Grounds]:
        return {8496: Grounds(subjects=("header", "baggag"), own_text=True),
                5840: Grounds(subjects=subjects, own_text=True)}

    by = grounds("opentracing", "header name")
    assert older_rivals([high, rival], lambda c: by.get(c.pr)) == [(high, rival)]
    for other in (("name",), ("headers name",), ("opentracing",)):
        theirs = grounds(*other)
        assert older_rivals([high, rival], lambda c, g=theirs: g.get(c.pr)) == []  # type: ignore[misc]
    use_weights(subject_in_phrase=0)
    assert older_rivals([high, rival], lambda c: by.get(c.pr)) == []


def test_a_later_line_naming_in_full_what_the_high_names_in_part_rivals_it(lexicon_restored) -> None:
    """rack: "Fix `Rack::Lint` matching some paths incorrectly as authority form" (3.1.4, a ✓ on "lint", "form")
    names the problem's `PATH_INFO` only by its word "path"; the later "Allow empty PATH_INFO." (3.1.7), ranked above
    it, names it verbatim as its first subject: a rival, though the two share no subject. Not when the rival's
    first subject is another idea, nor with `later_in_full` 0."""
    use_weights(later_rival=0.7, later_subject=1, later_in_full=1)
    high = candidate("3.1.4", 2220, Confidence.HIGH, 19.7)
    rival = candidate("3.1.7", 2214, Confidence.MEDIUM, 25.0)
    grounds = {2220: Grounds(subjects=("lint", "form"), own_text=True, partly=("path_info", "path info", "info")),
               2214: Grounds(subjects=("path_info",), own_text=True),
               3: Grounds(subjects=("mount", "path_info"), own_text=True)}
    named = lambda c: grounds.get(c.pr)  # noqa: E731
    assert later_rival(high, [rival], named) is rival
    assert later_rival(high, [candidate("3.1.7", 3, Confidence.MEDIUM, 25.0)], named) is None
    use_weights(later_in_full=0)
    assert later_rival(high, [rival], named) is None


def test_a_word_of_a_code_name_names_its_concept_only_in_part() -> None:
    """`scoring.partly`: "Fix Lint matching some paths …" names `PATH_INFO` by its word "path" (part credit), so the
    concept's terms are listed; the concepts it names verbatim ("lint") and those it does not name at all are not."""
    from wif_action.engines.offline import scoring
    from wif_action.engines.offline.evidence import gather
    from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
    from wif_action.lexicon.terms import analyse
    from wif_action.models import PullRequest

    problem = "Lint raises `PATH_INFO must start with a slash` for the mounted app's root"
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(["PATH_INFO", "lint", "path", "mounted app", "root", "slash"]
                                            + ["release health"] * 200))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title="Fix Lint matching some paths incorrectly as authority form", body="",
                     url="https://example.invalid/4")
    evidence = gather(pr, None, query, stats, False, [], frozenset(query), "r")
    partly = scoring.partly(evidence)
    assert "path_info" in partly and "lint" not in partly and "slash" not in partly


SETUP_WORDS = ("With `--interactive` it prompts me for a required var; I hit Esc and it does not quit, the task runs "
               "anyway.")
NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
         "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
         "xray", "yankee", "zulu", "amber", "basil", "cedar", "dune"]


def test_a_line_ranked_just_below_the_high_naming_a_rarer_idea_rivals_it(tmp_path, lexicon_restored) -> None:
    """go-task: the customer's setup ("`--interactive` … prompts … required var") is all 1.1.0's "Fixed `--interactive`
    prompts for required vars sometimes appearing in a random order" names, a ✓ on its own; 1.2.0's "Fixed pressing
    `Esc` at an `--interactive` prompt not cancelling the run", ranked just below it in the batch, names the
    symptom too, an idea as rare as any the ✓ names. With `later_reach` 0.6 it is judged and rivals: both MEDIUM, the
    later one leading as the clear match. At 1 (only lines ranked above) 1.1.0 is the ✓."""
    lines = {"1.0.0": "Update the docs footer",
             "1.1.0": "Fixed `--interactive` prompts for required vars sometimes appearing in a random order",
             "1.2.0": "Fixed pressing `Esc` at an `--interactive` prompt not cancelling the run",
             "1.3.0": "Bump the test matrix"}
    prs = {"1.0.0": 10, "1.1.0": 11, "1.2.0": 12, "1.3.0": 13}
    pulls = [dict(pull, title="fix: escape key presses not cancelling the prompt for required vars")
             if pull["number"] == 12 else pull for pull in line_pulls(lines, prs)]
    filler = ["Bump the test matrix", *(f"Tidy the {name} module" for name in NAMES)]  # the notes' everyday words
    path = releases_with_filler(tmp_path / "cache.db", "acme/runner", lines, prs, filler)
    question = AskInput(repo="acme/runner", version="1.0.0", problem=SETUP_WORDS)
    with FakeGitHub() as github:
        github.add_repo("acme/runner", pulls=pulls)
        use_weights(later_rival=0.7, later_reach=0.6, held_releases=0)
        answer, _ = ask(path, github.url, question)
        assert answer.outcome == Outcome.MEDIUM, answer.message
        assert [c.pr for c in answer.candidates][:1] == [12] and {c.pr for c in answer.candidates} == {11, 12}
        assert "PR #12 of the later 1.2.0 is about the same thing" in next(c for c in answer.candidates
                                                                         if c.pr == 11).reason
        use_weights(later_reach=1.0)
        answer, _ = ask(path, github.url, question)
        assert answer.outcome == Outcome.HIGH and [c.pr for c in answer.candidates] == [11], answer.message


def test_a_line_ranked_below_the_high_rivals_only_naming_a_rarer_idea(lexicon_restored) -> None:
    """`later_rival`'s `below`: the HIGH "… `--interactive` prompts for required vars … random order" (subjects
    "interact", "prompt requir"; the rarer in 0.27% of the notes) against lines of its batch ranked below it. One
    naming "esc" too, as rare, rivals, in its own release as well; one naming the same ideas (the fix told twice),
    an idea as rare but only a word of the HIGH's phrase ("prompt"), or an everyday one ("command" in 1.4% of the
    notes, under the HIGH's rarest but above `rival_share`) does not. Ranked above the HIGH, the same lines rival
    on strength and subject alone."""
    use_weights(later_rival=0.7, later_subject=1, rival_share=0.01)
    high = candidate("3.52.0", 2871, Confidence.HIGH, 31.5)
    shares = {"interact": 0.0106, "prompt requir": 0.0027, "esc": 0.0027, "prompt": 0.0027, "command": 0.0144}

    def grounds_of(*subjects: str) -> Grounds:
        return Grounds(subjects=subjects, shares=tuple(shares[s] for s in subjects), own_text=True)

    grounds = {2871: grounds_of("interact", "prompt requir"), 2942: grounds_of("interact", "esc", "prompt requir"),
               1: grounds_of("interact", "prompt requir"), 2: grounds_of("interact", "prompt"),
               3: grounds_of("interact", "command")}
    named = lambda c: grounds.get(c.pr)  # noqa: E731
    rival = candidate("3.53.1", 2942, Confidence.HIGH, 40.3)
    assert later_rival(high, [rival], named, below=[rival]) is rival
    same_release = candidate("3.52.0", 2942, Confidence.MEDIUM, 30.0)
    assert later_rival(high, [same_release], named, below=[same_release]) is same_release
    for pr in (1, 2, 3):
        line = candidate("3.53.1", pr, Confidence.HIGH, 40.0)
        assert later_rival(high, [line], named, below=[line]) is None
        assert later_rival(high, [line], named) is line  # ranked above: the rule as it was



def test_an_everyday_idea_a_line_ranked_below_names_is_no_rival_however_everyday_the_highs(lexicon_restored) -> None:
    """sentry-android-gradle-plugin: the ✓ "Defer the telemetry default-org lookup … configuration cache no longer
    re-runs `sentry-cli` on every build" names only ideas in 4–8% of the notes ("configur cach", "build"); a sibling
    quoting an error ("… starting process 'command …'") names "command" (1.4%), rarer than those, but not rare
    (`rival_share` 1%): no rival. With the bar at 2% it would be one."""
    use_weights(later_rival=0.7, later_subject=1, rival_share=0.01)
    high = candidate("6.11.0", 1263, Confidence.HIGH, 21.4)
    sibling = candidate("6.11.0", 1264, Confidence.HIGH, 25.8)
    grounds = {1263: Grounds(subjects=("build", "configur cach"), shares=(0.0769, 0.0433), own_text=True),
               1264: Grounds(subjects=("command", "build", "configur cach"), shares=(0.0144, 0.0769, 0.0433),
                             own_text=True)}
    named = lambda c: grounds.get(c.pr)  # noqa: E731
    assert later_rival(high, [sibling], named, below=[sibling]) is None
    use_weights(rival_share=0.02)
    assert later_rival(high, [sibling], named, below=[sibling]) is sibling
