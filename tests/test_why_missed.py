"""bench/why_missed.py says at which step a case's right fix was lost, with the numbers that decided it.

Why: a fix not found can be lost in the batch filter (no shared word, below the share of the batch's best, past
the batch's limit) or in the score (below the MEDIUM floors); choosing a generic remedy starts from knowing which,
so the tool must name the step that really dropped it — checked here by moving the floors and watching the
reported step move with them.
"""

from __future__ import annotations

import dataclasses

import pytest

from bench.calibrate_offline import thresholds
from bench.fixture_cache import build_cache
from bench.why_missed import explain, headline
from tests.fakes.github_server import FakeGitHub
from wif_action import lexicon
from wif_action.app import AppConfig
from wif_action.engines.offline.scoring import SHIPPED
from wif_action.evaluation import load_cases
from wif_action.models import Answer, Candidate, Confidence, Outcome

PUBLIC = "tests/data/eval/cases.jsonl"
CASE = "php-empty-string-encoding-error"  # "Empty strings will no longer display `<encoding error>` …" (#1940)


@pytest.fixture(scope="module")
def php(tmp_path_factory: pytest.TempPathFactory):
    db = build_cache(tmp_path_factory.mktemp("why") / "php.db", [("getsentry/sentry-php", "getsentry/sentry-php")])
    case = next(c for c in load_cases(PUBLIC) if c.id == CASE)
    with FakeGitHub() as github:
        yield case, AppConfig(db=db, engine="offline", env={"GITHUB_API_URL": github.url})


def test_a_listed_fix_is_reported_listed_with_its_batch_rank(php) -> None:
    case, config = php
    lines = explain(case, "fields", config)
    assert lines[0].startswith(f"[fields] {CASE}: high 4.17.0 #1940") and lines[0].endswith("top-1 right")
    assert "rank 1/" in lines[1] and "shares encoding=" in lines[1]
    assert lines[2].endswith("LISTED as high")


def test_a_fix_below_the_medium_floor_is_reported_as_scored_low_with_the_floor(php) -> None:
    case, config = php
    unreachable = dataclasses.replace(SHIPPED, medium_mass=1000.0, high_mass=1000.0, strong_mass=1000.0)
    lines = explain(case, "fields", dataclasses.replace(config, weights=unreachable))
    assert lines[0].endswith("not found")
    low = next(line for line in lines if "scored LOW" in line)
    assert "< medium_mass×scale" in low
    assert any("trace: PR #1940 (4.17.0): low" in line for line in lines)


def test_a_fix_the_batch_filter_cut_is_reported_with_the_rule_that_cut_it(php) -> None:
    case, config = php
    with thresholds({"fields_weight.max_per_batch": 0}):  # the fields mode reads its own value first
        lines = explain(case, "fields", config)
    assert lines[0].endswith("not found")
    assert any("DROPPED by the filter: cut by max_per_batch 0 (0 scored higher)" in line for line in lines)


def test_the_header_names_the_candidate_the_verdict_judges() -> None:
    """The one top-candidate rule picks the clear leader (#1940 names far more of the problem) though an older
    MEDIUM is listed first: the header names #1940, the candidate its "top-1 right" is about."""
    case = next(c for c in load_cases(PUBLIC) if c.id == CASE)
    listed = [Candidate(version="4.10.0", tag="4.10.0", pr=11, url="u", confidence=Confidence.MEDIUM, reason="r",
                        strength=1.0),
              Candidate(version="4.17.0", tag="4.17.0", pr=1940, url="u", confidence=Confidence.MEDIUM, reason="r",
                        strength=5.0)]
    head = headline(case, "fields", Answer(outcome=Outcome.MEDIUM, candidates=listed))
    assert head == f"[fields] {CASE}: medium 4.17.0 #1940 — top-1 right"


DART_PLUGIN = "near-dartplugin-web-source-context-missing"  # #285 (2.2.1) shares its batch with the HIGH #247 (2.2.0)


def test_a_second_look_passed_over_by_an_earlier_high_is_reported_as_such(tmp_path, lexicon_restored) -> None:
    """The right line, a second look of the batch, was never judged: the report names the second look and its numbers,
    not "an earlier HIGH … or no PR" alone. (#247 is a ✓ only with its nested advice read as headline: `advice` off.)"""
    from bench.labelled import fixture_dir, near_case_files, registry_file

    tables = lexicon.data()
    tables["pattern"]["advice"]["re"] = "(?!)"
    lexicon.use(tables)

    repo = "getsentry/sentry-dart-plugin"
    data = fixture_dir()
    db = build_cache(tmp_path / "dart.db", [(repo, repo)], data_dir=data)
    case = next(c for path in near_case_files() for c in load_cases(str(path)) if c.id == DART_PLUGIN)
    with FakeGitHub(data) as github:
        config = AppConfig(db=db, engine="offline", env={"GITHUB_API_URL": github.url}, registry=registry_file())
        lines = explain(case, "fields", config)
    never = next(line for line in lines if "never scored" in line)
    assert "picked as a second look" in never and "< relative_to_best×best" in never
