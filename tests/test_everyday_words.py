"""No ✓ from everyday words: a concept whose word a large share of *this* repository's notes name (computed from
the cache's document frequencies, not a global stop list) cannot by itself make a HIGH."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.conftest import EXAMPLE_CACHE
from tests.lexicon_helpers import use_weights
from wif_action.app import AppConfig, build_workflow
from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, PullRequest
from wif_action.tools.progress import RecordingProgress

PROBLEM = "Uploads time out when the proxy url has a port."
TITLE = "Fix uploads timing out when the proxy url has a port"


def _level(notes: list[str], weights: scoring.Thresholds = scoring.SHIPPED) -> Confidence:
    query = {term.key: term for term in analyse(PROBLEM)}
    stats = RepositoryStats(BatchStatistics(notes))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=TITLE, body="", url="https://example.invalid/4")
    return scoring.confidence(gather(pr, None, query, stats, False, [], frozenset(query), "r"), weights)


@pytest.mark.parametrize(("notes_naming_them", "level"), [
    (9, Confidence.HIGH),  # 9 of 100 notes: below the share that makes a word everyday in this repository
    (10, Confidence.MEDIUM),  # 10 of 100 (scoring.SHIPPED.common_share): everyday here, so the same headline is no ✓
    (40, Confidence.MEDIUM),
])
def test_words_common_in_this_repository_alone_are_no_high(notes_naming_them, level):
    assert scoring.SHIPPED.common_share == 0.1
    notes = ["uploads timeout proxy url port"] * notes_naming_them + ["release health"] * (100 - notes_naming_them)
    assert _level(notes) == level


def test_one_uncommon_concept_among_everyday_ones_still_counts():
    """"uploads" and "proxy" are everyday in this repository, "port" is not: the headline names a specific idea."""
    notes = ["uploads proxy url"] * 15 + ["port"] * 5 + ["release health"] * 80
    assert _level(notes) == Confidence.HIGH


@pytest.mark.parametrize(("notes_naming_them", "level"), [
    (15, Confidence.HIGH),  # in 15% of the notes: everyday, but still one of the ideas a ✓ names
    (20, Confidence.MEDIUM),  # one note in five (scoring.SHIPPED.counted_share): not counted, "port" alone is no ✓
])
def test_a_word_of_every_fifth_note_is_not_counted_among_the_ideas_of_a_high(notes_naming_them, level):
    """"Run all processing steps with `--no-upload`" for a mapping upload failing at a step names "step" and "upload",
    a word of a fifth of the repository's notes: one idea and a word every other change names, no ✓."""
    assert scoring.SHIPPED.counted_share == 0.2
    notes = ["uploads proxy url"] * notes_naming_them + ["port"] * 5 + ["release health"] * (95 - notes_naming_them)
    assert _level(notes) == level


def test_the_share_is_per_repository():
    """The same words are everyday in one repository and specific in another (no global stop list)."""
    assert _level(["uploads timeout proxy url port"] * 20 + ["release health"] * 80) == Confidence.MEDIUM
    assert _level(["uploads timeout proxy url port"] * 20 + ["release health"] * 380) == Confidence.HIGH


def test_in_a_handful_of_notes_no_word_is_everyday():
    """A repository with five notes: every word is in a fifth of them, which says nothing about everyday use
    (scoring.SHIPPED.common_share counts against at least lexicon.toml's common_min_notes notes)."""
    assert _level(["uploads timeout proxy url port"] * 2 + ["release health"] * 3) == Confidence.HIGH


def test_the_thresholds_are_a_value_passed_to_the_judge_not_module_state():
    """Calibration tries another threshold by passing another `Thresholds` (here: a higher everyday share, so 10
    of 100 notes is no longer everyday and the headline is a ✓ again); the shipped value is untouched."""
    notes = ["uploads timeout proxy url port"] * 10 + ["release health"] * 90
    assert _level(notes) == Confidence.MEDIUM
    assert _level(notes, replace(scoring.SHIPPED, common_share=0.5)) == Confidence.HIGH
    assert _level(notes) == Confidence.MEDIUM and scoring.Thresholds.from_lexicon() == scoring.SHIPPED


def test_the_composition_root_hands_its_thresholds_to_the_offline_judge(tmp_path):
    weights = replace(scoring.SHIPPED, medium_mass=99.0)
    config = AppConfig(db=EXAMPLE_CACHE, engine="offline", env={"GITHUB_API_URL": "http://127.0.0.1:9"},
                       weights=weights)
    assert build_workflow(config, RecordingProgress()).tools.judge.weights is weights
    shipped = build_workflow(replace(config, weights=None), RecordingProgress()).tools.judge
    assert shipped.weights == scoring.SHIPPED


AREA_PROBLEM = "Alpha bravo. Charlie delta. Echo foxtrot. Golf hotel. India juliet."
AREA_WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


@pytest.mark.parametrize(("area_concepts", "title", "level"), [
    (8, "Fix golf india juliet handling", Confidence.MEDIUM),  # "golf" is the problem's 7th idea: same area
    (6, "Fix golf india juliet handling", Confidence.LOW),  # only the six key ones count: no idea of it named
    (8, "Fix golf", Confidence.LOW),  # in the area, but too little of the problem named (medium_mass)
    (8, "Fix india juliet handling", Confidence.LOW),  # the 9th and 10th ideas are beyond the area
])
def test_a_headline_naming_an_idea_just_after_the_key_ones_is_in_the_same_area(area_concepts, title, level,
                                                                              lexicon_restored):
    """The MEDIUM gate (`scoring.confidence`'s area) reads the problem's first `area_concepts` ideas, more than the
    `key_concepts` a ✓ is measured against: a note naming the 7th ("Fixed importing in Node ESM" for an ESM server
    whose message leads with CommonJS, named exports, JSX, SSR) is about the problem, never a ✓ on it alone."""
    use_weights(area_concepts=area_concepts)
    query = {term.key: term for term in analyse(AREA_PROBLEM) if term.kind != "bigram"}
    notes = [word for i, word in enumerate(AREA_WORDS) for _ in range(i + 1)] + ["release health"] * 200
    stats = RepositoryStats(BatchStatistics(notes))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=title, body="", url="https://example.invalid/4")
    evidence = gather(pr, None, query, stats, False, [], frozenset(query), "r")
    assert [c.name for c in evidence.concepts] == AREA_WORDS[:6] and not evidence.named(0.5)
    assert scoring.confidence(evidence) == level
