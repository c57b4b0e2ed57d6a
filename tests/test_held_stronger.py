"""A fix the customer already runs that names the problem better holds back a later ✓ of another part of the code
(`candidate_order.stronger_held`, lexicon.toml [weight] `held_stronger`; issue 21): the boundaries — confirmed HIGH on
its own words, filed as a fix, no subject in common with the later line, at least `held_stronger` times its strength."""

from __future__ import annotations

from pathlib import Path

from tests.cache_helpers import write_releases
from tests.fakes.github_server import FakeGitHub
from tests.lexicon_helpers import use_weights
from tests.workflow_helpers import ask
from wif_action.candidate_order import stronger_held
from wif_action.models import AskInput, Candidate, Confidence, Grounds, Outcome

HIGH_SUBJECTS = Grounds(subjects=("dispatch", "multi"), shares=(0.003, 0.026))  # the later ✓: the customer's setup
HELD_SUBJECTS = Grounds(subjects=("fals", "mu", "kei"), shares=(0.006, 0.026, 0.074))  # the customer's own fix
FIX, OTHER = 1.0, 0.8  # lexicon.toml [section_weight]


def line(version: str, pr: int, strength: float, confidence: Confidence = Confidence.HIGH, *, filed: float | None = FIX,
         objected: bool = False) -> Candidate:
    return Candidate(version=version, tag=version, pr=pr, url="", confidence=confidence, reason="", strength=strength,
                     breadth=0.4, filed=filed, objected=objected)


def rival(held: Candidate | None = None, held_grounds: Grounds = HELD_SUBJECTS,
          high_grounds: Grounds = HIGH_SUBJECTS) -> Candidate | None:
    high, older = line("0.16.4", 2, 17.5, filed=OTHER), held or line("0.16.2", 1, 22.9)
    grounds = {2: high_grounds, 1: held_grounds}
    return stronger_held(high, [older], lambda c: grounds.get(c.pr or 0))


def test_a_stronger_fix_of_another_part_of_the_code_holds_the_later_line_back(lexicon_restored) -> None:
    """0.16.2 says "Fix `mu/get-in` for false-y keys" in more of the problem's words than 0.16.4's `:multi`
    `:dispatch` line: the later line is no ✓."""
    use_weights(held_stronger=1.0)
    assert rival() is not None
    assert rival(line("0.16.2", 1, 17.5)) is not None  # exactly as strong: the bar is inclusive


def test_a_weaker_or_unconfirmed_or_objected_line_holds_nothing_back(lexicon_restored) -> None:
    use_weights(held_stronger=1.0)
    assert rival(line("0.16.2", 1, 17.4)) is None
    assert rival(line("0.16.2", 1, 22.9, Confidence.MEDIUM)) is None
    assert rival(line("0.16.2", 1, 22.9, objected=True)) is None


def test_a_line_not_filed_as_a_fix_says_it_fixed_nothing(lexicon_restored) -> None:
    """"Calculated break duration for Circuit breaker" (a feature's line) is no fix the customer already runs."""
    use_weights(held_stronger=1.0)
    assert rival(line("0.16.2", 1, 22.9, filed=OTHER)) is None
    assert rival(line("0.16.2", 1, 22.9, filed=None)) is None


def test_a_line_of_the_same_part_of_the_code_is_left_to_the_other_held_rules(lexicon_restored) -> None:
    """A stronger older fix of the same code is often the earlier fix the later line fixes again: a subject in common
    by the same term, by a word of a phrase ("header" of "policy header") or inside a code name ("breadcrumb" of
    `SentryBreadcrumb`) keeps the later ✓."""
    use_weights(held_stronger=1.0)
    assert rival(held_grounds=Grounds(subjects=("fals", "dispatch"), shares=(0.006, 0.003))) is None
    assert rival(held_grounds=Grounds(subjects=("content secur", "polici header"), shares=(0.004, 0.004)),
                 high_grounds=Grounds(subjects=("respons", "header"), shares=(0.09, 0.16))) is None
    assert rival(held_grounds=Grounds(subjects=("sentrybreadcrumb",), shares=(0.001,)),
                 high_grounds=Grounds(subjects=("breadcrumb",), shares=(0.025,))) is None
    assert rival(held_grounds=Grounds(subjects=("mu",), shares=(0.026,))) is not None  # "mu" is no part of "multi"


def test_only_an_older_release_and_the_rule_is_off_at_inf(lexicon_restored) -> None:
    use_weights(held_stronger=1.0)
    assert rival(line("0.16.5", 1, 22.9)) is None
    use_weights(held_stronger=float("inf"))
    assert rival() is None


REPO = "acme/schemas"
PROBLEM = "Looking up a false key with get-in on a multi schema with a dispatch function returns the wrong branch."
FIX = "Fix `get-in` looking up a false key, which returned the wrong branch"  # 1.4.0, the customer's own
LATER = "Multi schemas with a keyword dispatch accumulate data to generated values"  # 1.5.0, another part
TAGS = ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0"]
THINGS = ["registry cache", "json transformer", "pretty printer", "clj-kondo export", "swagger output", "humanizer",
          "function instrumentation", "map keys", "sequence schemas", "regex schemas", "error paths", "default values"]


def schema_cache(path: Path) -> Path:
    """Seven releases with a dozen unrelated lines each, 1.4.0 fixing `get-in` on false keys under its fixes,
    1.5.0 changing what multi schemas generate."""
    prs = {tag: 100 + i for i, tag in enumerate(TAGS)}
    notes = {}
    for i, tag in enumerate(TAGS):
        fixes = "".join(f"- Fix the {thing} for {KINDS[(i + n) % len(KINDS)]} (#{prs[tag] * 100 + n})\n"
                        for n, thing in enumerate(THINGS, 1))
        own = {"1.4.0": f"### Fixes\n\n- {FIX} (#{prs[tag]})\n", "1.5.0": f"- {LATER} (#{prs[tag]})\n"}
        notes[tag] = own.get(tag, "") + "\n### Fixes\n\n" + fixes
    return write_releases(path, REPO, notes)


KINDS = ["nested maps", "empty input", "docs", "large numbers", "nil values", "startup order"]


def test_the_customers_stronger_fix_holds_a_later_line_of_another_part_back(tmp_path, lexicon_restored) -> None:
    """Customer on 1.4.0, whose release fixed `get-in` on false keys: 1.5.0's multi-schema line, a ✓ on the
    customer's setup words with the rule off, is a MEDIUM whose reason names 1.4.0's line."""
    path = schema_cache(tmp_path / "cache.db")
    with FakeGitHub() as github:
        github.add_repo(REPO, pulls=[{"number": 105, "title": LATER, "merged": True, "body": ""}])
        use_weights(held_stronger=float("inf"))
        answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.4.0", problem=PROBLEM))
        assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 105, answer.message
        use_weights(held_stronger=1.0)
        answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.4.0", problem=PROBLEM))
    assert answer.outcome == Outcome.MEDIUM and answer.candidates[0].pr == 105, answer.message
    assert "your version already includes 1.4.0, whose line for PR #104 names the problem better" \
        in answer.candidates[0].reason
