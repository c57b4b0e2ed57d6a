"""The far holdout's labels hold against its own data (bench/data/far), as verify_cases checks the others.

Why: its cases are the only read of WIF on repositories and release-note formats no other case touches; a label
the data does not support (a PR not in the fix release, or already in the customer's) would measure nothing.
"""

from __future__ import annotations

import json

from bench.fixture_cache import build_cache
from bench.quality_report import FAR
from bench.verify_cases import problems
from tests.fakes.github_server import available_repos
from wif_action.tools.cache import SqliteReleaseCache


def test_far_cases_hold_against_far_data(tmp_path) -> None:
    cases = [json.loads(line) for line in (FAR / "cases.jsonl").read_text().splitlines() if line.strip()]
    repos = set(available_repos(FAR))
    assert {case["repo"] for case in cases} == repos
    assert not repos & set(available_repos()), "a far repository must be one no other case is over"
    cache = SqliteReleaseCache.open(build_cache(tmp_path / "far.db", [(r, r) for r in sorted(repos)], data_dir=FAR,
                                                     terms=False))
    assert {case["id"]: problems(case, cache) for case in cases} == {case["id"]: [] for case in cases}
