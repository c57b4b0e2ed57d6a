"""bench/ablate.py switches one lexicon entry or rule off at a time, sees answers change, and restores the lexicon."""

from __future__ import annotations

import copy
import os

import pytest

from bench.ablate import (
    CASE_FILES,
    ROOT,
    ablations,
    affected,
    all_switched_off,
    answers,
    compare,
    recording,
    switched_off,
)
from tests.fakes.github_server import FakeGitHub
from tests.lexicon_helpers import use_weights
from wif_action import lexicon, objections
from wif_action.app import AppConfig
from wif_action.evaluation import load_cases

# A holdout question about a bug the customer's release already fixed: "leak" folds onto "memory", which keeps
# a later, unrelated span-leak fix from being a wrong HIGH (the row `symptom:memory:leak` of the ablation table).
CASE = "h-dotnet-already-fixed-spanprocessor-invalidcast"


@pytest.fixture
def config(monkeypatch):
    """The shipped example cache, read only, as bench/ablate.py runs it (GitHub: the fake over the fixtures)."""
    with FakeGitHub() as github:
        monkeypatch.setitem(os.environ, "GITHUB_API_URL", github.url)
        monkeypatch.delitem(os.environ, "GITHUB_TOKEN", raising=False)
        yield AppConfig(db=ROOT / "cache.db.example", engine="offline", run_source="eval")


def test_every_entry_has_one_name_and_every_kind_is_covered() -> None:
    names = [ablation.name for ablation in ablations()]
    assert len(names) == len(set(names))
    for kind in ("symptom:", "platform:", "words:", "pattern:", "abbreviation:", "rule:objection:", "rule:scoring."):
        assert any(name.startswith(kind) for name in names), kind
    assert len([n for n in names if n.startswith("pattern:")]) == len(lexicon.pattern_names())


def test_switching_an_entry_off_changes_the_answer_it_is_for_and_restores_the_lexicon(config, lexicon_restored) -> None:
    # `thin_scope` also keeps #5393 from a ✓ (its `fix(OpenTelemetry):` scope carries it): off, so the "leak" row shows
    use_weights(thin_scope=0)
    cases = [case for path in CASE_FILES for case in load_cases(path) if case.id == CASE]
    packaged = copy.deepcopy(lexicon.data())
    used: dict[str, dict[str, set[str]]] = {"fields": {}, "message": {}}
    with recording():
        base = {mode: answers(cases, mode, config, used[mode]) for mode in ("fields", "message")}
    leak = next(ablation for ablation in ablations() if ablation.name == "symptom:memory:leak")
    assert affected(cases, leak, used["message"]) == cases  # the run looked "leak" up: it is run again
    never = next(ablation for ablation in ablations() if ablation.name == "pattern:greeting")
    assert affected(cases, never, used["fields"]) == []  # no greeting in the fields input: nothing to re-run
    with switched_off(leak, packaged):
        assert "leak" not in lexicon.synonyms()
        now = {mode: answers(cases, mode, config) for mode in ("fields", "message")}
    row = compare(leak.name, base, now)
    # in both modes the later #5393 becomes a wrong ✓ (fields reads the shared max_per_batch 4, which lets it in)
    assert row.changed.get("message") and row.changed.get("fields") and row.worse == 2 and row.better == 0
    assert lexicon.synonyms()["leak"] == "memori"  # back to the lexicon the run started with


def test_a_rule_switched_off_is_put_back() -> None:
    checks = objections.CHECKS
    rule = next(ablation for ablation in ablations() if ablation.name == "rule:objection:on_the_platform")
    with switched_off(rule, copy.deepcopy(lexicon.data())):
        assert objections.on_the_platform not in objections.CHECKS
    assert objections.CHECKS is checks


def test_entries_switched_off_together_are_all_off_at_once_and_put_back() -> None:
    """`--together`: the joint effect of several entries (what one at a time cannot show)."""
    packaged = copy.deepcopy(lexicon.data())
    lexicon.use(packaged)
    checks = objections.CHECKS
    names = {"symptom:memory:leak", "platform:ios:ipad", "rule:objection:on_the_platform"}
    chosen = [ablation for ablation in ablations() if ablation.name in names]
    assert len(chosen) == 3
    try:
        with all_switched_off(chosen, packaged):
            assert "leak" not in lexicon.synonyms() and "ipad" not in lexicon.platform_of()
            assert objections.on_the_platform not in objections.CHECKS
        assert lexicon.synonyms()["leak"] == "memori" and "ipad" in lexicon.platform_of()
        assert objections.CHECKS is checks
    finally:
        lexicon.use(None)
