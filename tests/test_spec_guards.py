"""Spec MUSTs pinned at their boundary, each by a fixed example a one-line mutation cannot pass (issue 25):
a typed partial version with a `v` prefix, the batch rule (5 per batch, progress between batches), and a
pre-release tag GitHub does not flag. Real caches (SQLite) and the real workflow against the fake GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.schema import open_cache
from tests.cache_helpers import write_releases
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask
from wif_action.models import AskInput, Outcome

REPO = "acme/tiny"
PROBLEM = "The widget crashes when the network drops."


def cache_with(path: Path, tags: list[str]) -> Path:
    """A cache holding `tags` of REPO (oldest first), each with one unrelated fix line, none flagged by
    GitHub as a pre-release."""
    return write_releases(path, REPO, {tag: f"### Fixes\n\n- Update the docs footer ({tag}) (#{n + 1})\n"
                                       for n, tag in enumerate(tags)})


@pytest.fixture
def github():
    with FakeGitHub() as fake:
        fake.add_repo(REPO)
        yield fake


@pytest.mark.parametrize("typed", ["1.0", "v1.0", "V1.0"])
def test_a_partial_version_with_a_v_prefix_starts_the_scan_where_the_plain_one_does(tmp_path, github, typed):
    """Releases 1.0.1, 1.0.2, 1.1.1: "1.0" is completed against the real tags (to the newest 1.0.x, 1.0.2,
    the scan then starting at 1.1.1); "v1.0" and "V1.0" are the same version typed differently."""
    path = cache_with(tmp_path / "cache.db", ["1.0.1", "1.0.2", "1.1.1"])
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version=typed, problem=PROBLEM))
    assert answer.user_version == "1.0.2", answer.message
    assert answer.checked is not None and (answer.checked.first, answer.checked.last) == ("1.1.1", "1.1.1")


def test_the_scan_reports_progress_between_batches_of_five(tmp_path, github):
    """12 releases after the customer's version: batches of 5, 5, 2, oldest first; "Scanned 5 of 12…" and
    "Scanned 10 of 12…" between them (a batch of 4 or 6 says other numbers)."""
    tags = [f"1.{minor}.0" for minor in range(13)]  # 1.0.0 (the customer's) then 12 newer
    path = cache_with(tmp_path / "cache.db", tags)
    answer, progress = ask(path, github.url, AskInput(repo=REPO, version="1.0.0", problem=PROBLEM))
    assert answer.outcome == Outcome.NO_RESULT, answer.message
    scanned = [line for line in progress.lines if line.startswith("Scanned ")]
    assert scanned == ["Scanned 5 of 12 releases…", "Scanned 10 of 12 releases…"]
    assert answer.checked is not None and (answer.checked.first, answer.checked.last) == ("1.1.0", "1.12.0")


def test_an_rc_tag_github_does_not_flag_as_prerelease_is_not_stable(tmp_path, github):
    """`2.0.0-rc.1` with GitHub's prerelease=false: the tag's SemVer pre-release part decides; it is not
    stored as stable and never scanned or offered as a fix."""
    path = cache_with(tmp_path / "cache.db", ["1.0.0", "2.0.0-rc.1", "2.0.0"])
    db = open_cache(path)
    try:
        stable = dict(db.execute("select tag, stable from releases").fetchall())
    finally:
        db.close()
    assert stable == {"1.0.0": 1, "2.0.0-rc.1": 0, "2.0.0": 1}
    answer, _ = ask(path, github.url, AskInput(repo=REPO, version="1.0.0", problem=PROBLEM))
    assert answer.checked is not None and (answer.checked.first, answer.checked.last) == ("2.0.0", "2.0.0")
    assert answer.checked.releases == 1
    assert "rc" not in " ".join(c.version for c in answer.candidates)
