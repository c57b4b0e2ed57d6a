"""A line the customer already runs that names the problem more specifically holds a later ✓ back
(`candidate_order.more_specific_held`, lexicon.toml [weight] `held_specific`, `held_specific_releases`; issue 21):
the boundaries of "more specifically" — a subject in common, nothing specific only the later line names, something
specific only the older line names, more of the problem's ideas."""

from __future__ import annotations

from pathlib import Path

from tests.cache_helpers import write_releases
from tests.fakes.github_server import FakeGitHub
from tests.lexicon_helpers import use_weights
from tests.workflow_helpers import ask
from wif_action.candidate_order import more_specific_held
from wif_action.models import AskInput, Candidate, Confidence, Grounds, Outcome

HIGH_SUBJECTS = Grounds(subjects=("body", "grpc gateway"), shares=(0.024, 0.006))  # the later ✓'s headline
HELD_SUBJECTS = Grounds(subjects=("null", "json", "grpc gateway"), shares=(0.012, 0.027, 0.006))  # the customer's


def line(version: str, pr: int, confidence: Confidence = Confidence.HIGH, breadth: float = 0.5, *,
         objected: bool = False) -> Candidate:
    return Candidate(version=version, tag=version, pr=pr, url="", confidence=confidence, reason="", breadth=breadth,
                     objected=objected)


def rival(high_grounds: Grounds = HIGH_SUBJECTS, held_grounds: Grounds = HELD_SUBJECTS, *,
          held: Candidate | None = None, high_breadth: float = 0.32) -> Candidate | None:
    high, older = line("3.8.0", 2, breadth=high_breadth), held or line("3.3.0", 1)
    grounds = {2: high_grounds, 1: held_grounds}
    return more_specific_held(high, [older], lambda c: grounds.get(c.pr or 0))


def test_an_older_line_naming_a_specific_idea_the_later_one_lacks_holds_it_back(lexicon_restored) -> None:
    """3.3.0 names the gateway and `null` (specific: 1.2% of the notes); 3.8.0 names the gateway and only the
    everyday "body" beyond it: 3.3.0 is the customer's fix, 3.8.0 another fix of that part of the code."""
    assert rival() is not None
    assert rival(held=line("3.3.0", 1, Confidence.MEDIUM)) is not None  # a MEDIUM on its words is enough


def test_a_later_line_naming_a_specific_idea_the_older_one_lacks_keeps_its_check(lexicon_restored) -> None:
    """The later line names "block" (0.3% of the notes), which the older one does not: it is the later fix of that."""
    high = Grounds(subjects=("block", "grpc gateway"), shares=(0.003, 0.006))
    assert rival(high) is None


def test_no_rival_without_a_subject_in_common_or_a_specific_idea_of_its_own(lexicon_restored) -> None:
    assert rival(held_grounds=Grounds(subjects=("null", "json"), shares=(0.012, 0.027))) is None  # no shared subject
    same = Grounds(subjects=("body", "grpc gateway"), shares=(0.024, 0.006))
    assert rival(held_grounds=same) is None  # the fixed-again line: the same subjects, nothing more specific
    everyday = Grounds(subjects=("json", "grpc gateway"), shares=(0.027, 0.006))
    assert rival(held_grounds=everyday) is None  # what only it names is everyday


def test_the_older_line_must_name_more_of_the_problems_ideas(lexicon_restored) -> None:
    assert rival(high_breadth=0.5) is None  # as broad, not broader
    assert rival(held=line("3.3.0", 1, Confidence.LOW)) is None
    assert rival(held=line("3.3.0", 1, objected=True)) is None


def test_a_qualifier_of_the_later_lines_phrase_names_it_the_head_noun_does_not(lexicon_restored) -> None:
    """"Sentinel" (of "sentinel server") says which server: the older line names the later one's subject; "view" (of
    "scroll view") is only the kind of thing: it does not."""
    high = Grounds(subjects=("sentinel server", "fail"), shares=(0.004, 0.023))
    assert rival(high, Grounds(subjects=("sentinel", "authent"), shares=(0.038, 0.011))) is not None
    high = Grounds(subjects=("scroll view", "session replay"), shares=(0.0005, 0.042))
    assert rival(high, Grounds(subjects=("text", "view"), shares=(0.003, 0.006))) is None


def test_the_rule_is_off_at_zero(lexicon_restored) -> None:
    use_weights(held_specific=0.0)
    assert rival() is None


REPO = "acme/gateway"
PROBLEM = "The gRPC gateway plugin fails the request when the incoming JSON body contains null values."
FIX = "gRPC gateway: `null` in the JSON payload caused an uncaught exception during encoding"  # 1.0.0
LATER = "gRPC gateway plugin: a request whose JSON body fails to decode is answered with 400 instead of 500"  # 1.5.0
TAGS = ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0"]
THINGS = ["cron scheduler", "admin listener", "vault reference", "upstream healthcheck", "dns resolver", "acme renewal",
          "cluster sync", "log rotation", "lua sandbox", "prometheus exporter", "rate counter", "session cookie"]


def gateway_cache(path: Path) -> Path:
    """Seven releases with a dozen unrelated plugin lines each (so a word one line names is rare in the notes, while
    "plugin", "request", "fails" and "body" are everyday), 1.0.0 naming the problem's `null` in the JSON, 1.5.0 the
    gateway plugin's JSON body on another error."""
    lines = {tag: f"Fix the {THINGS[i]} timing" for i, tag in enumerate(TAGS)} | {"1.0.0": FIX, "1.5.0": LATER}
    prs = {tag: 100 + i for i, tag in enumerate(TAGS)}
    notes = {tag: "### Fixes\n\n" + "".join(f"- Fix the {thing} plugin {kind} (#{prs[tag] * 100 + n})\n"
                                           for n, (thing, kind) in enumerate(zip(THINGS, _kinds(i), strict=True), 1))
             + f"- {lines[tag]} (#{prs[tag]})\n" for i, tag in enumerate(TAGS)}
    return write_releases(path, REPO, notes)


def _kinds(i: int) -> list[str]:
    kinds = ["docs", "body size limit", "when a request fails", "retry count", "request body logging", "startup order"]
    return [kinds[(i + n) % len(kinds)] for n in range(len(THINGS))]


def test_the_customers_older_fix_beyond_the_held_releases_holds_a_later_check_back(tmp_path, lexicon_restored) -> None:
    """Customer on 1.4.0, whose 1.0.0 (the fifth release back, past `held_releases`) says it fixed `null` in the
    gateway's JSON: 1.5.0's line on the gateway's body is a MEDIUM, its reason naming 1.0.0's line as the more
    specific; with `held_specific` 0 it is the ✓."""
    path = gateway_cache(tmp_path / "cache.db")
    prs = {tag: 100 + i for i, tag in enumerate(TAGS)}
    with FakeGitHub() as github:
        github.add_repo(REPO, pulls=[{"number": prs["1.5.0"], "title": LATER, "merged": True, "body": ""}])
        answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.4.0", problem=PROBLEM))
        assert answer.outcome == Outcome.MEDIUM and answer.candidates[0].pr == 105, answer.message
        assert "your version already includes 1.0.0, whose line for PR #100 names the problem more specifically" \
            in answer.candidates[0].reason
        use_weights(held_specific=0.0)
        answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.4.0", problem=PROBLEM))
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 105, answer.message
