"""A release cache for the eval cases with `unreleased_newest` (tests/data/eval/README.md).

Their fake GitHub withholds the newest K stable releases of the case's repository and serves those
releases' notes under `## Unreleased` in CHANGELOG.md on the default branch; the cache is indexed from
it by the real indexer, so the answer can only come from the Unreleased notes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from indexer.github_source import ReleaseSource
from indexer.indexing import index_repositories
from tests.fakes.github_server import FakeGitHub


def withheld(cases: Path) -> dict[str, int]:
    """repository → K for every case of `cases` with `unreleased_newest` (one K per repository)."""
    found: dict[str, int] = {}
    for line in cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line) if line.strip() else {}
        count = case.get("unreleased_newest")
        if count and case.get("repo") and found.setdefault(case["repo"], count) != count:
            raise ValueError(f"{case['repo']}: cases withhold different numbers of releases")
    return found


def split_cases(cases: Path, into: Path) -> tuple[Path, Path]:
    """`cases` as two files in `into`: the published ones, and those with `unreleased_newest`."""
    lines = [line for line in cases.read_text(encoding="utf-8").splitlines() if line.strip()]
    published, unreleased = into / "published.jsonl", into / "unreleased.jsonl"
    published.write_text("".join(f"{line}\n" for line in lines if not json.loads(line).get("unreleased_newest")))
    unreleased.write_text("".join(f"{line}\n" for line in lines if json.loads(line).get("unreleased_newest")))
    return published, unreleased


@contextmanager
def withheld_github(withhold: dict[str, int], db: Path, pulls: str = "none",
                    data_dir: Path | None = None) -> Iterator[FakeGitHub]:
    """A fake GitHub withholding the newest releases as `withhold` says, and `db` indexed from it. `data_dir`: the
    fixtures it serves (default tests/data/github; bench/labelled.fixture_dir() adds bench/data/near's)."""
    with FakeGitHub(data_dir) as fake:
        for repo, count in withhold.items():
            fake.withhold_newest(repo, count)
        fake.rate_limit_limit = fake.rate_limit_remaining = 10**9
        source = ReleaseSource(fake.url, retries=None, requests_per_minute=None)
        reports = index_repositories(db, source, sorted(withhold), pulls=pulls, max_pulls=None,
                                     on_progress=lambda _line: None)
        failed = [f"{r.repo}: {r.error}" for r in reports if r.error]
        if failed:
            raise RuntimeError(f"indexing failed: {failed}")
        fake.reset_counts()
        yield fake
