"""Indexer benchmark against the in-process fake GitHub (all fixture repositories).

    python bench/bench_index.py [--pulls recent] [--pull-latency-ms 50] [--max-pulls 300]

Prints, per repository, the requests and wall time of a full index and of a no-op re-index,
then the database size and the latency of the agent's hot query, "stable releases after V"
(`SqliteReleaseCache.stable_after`), on the repository with the most stable releases.
Last, `--pulls recent` of sentry-cocoa (`--max-pulls` PRs) with every PR request delayed by
`--pull-latency-ms`, fetched one at a time and by the pool (PULL_WORKERS), and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from indexer.github_source import PULL_WORKERS, ReleaseSource  # noqa: E402
from indexer.indexing import RepoReport, index_repository  # noqa: E402
from indexer.schema import open_cache  # noqa: E402
from tests.fakes.github_server import FakeGitHub, available_repos  # noqa: E402
from wif_action.tools.cache import SqliteReleaseCache  # noqa: E402

RUNS = 200
RANGE = 100  # the agent's release-count guard: it never asks for more than this


def index_all(db_path: Path, fake: FakeGitHub, repos: list[str], pulls: str, workers: int = PULL_WORKERS,
              max_pulls: int | None = None) -> list[RepoReport]:
    db = open_cache(db_path, create=True)
    source = ReleaseSource(fake.url, retries=None, requests_per_minute=None, pull_workers=workers)
    try:
        return [index_repository(db, source, repo, pulls=pulls, max_pulls=max_pulls, on_progress=lambda _: None)
                for repo in repos]
    finally:
        db.close()
        source.close()


def range_latency_ms(db_path: Path, repo: str) -> tuple[float, str, int]:
    """Median latency of `stable_after` for the version RANGE stable releases before the newest."""
    cache = SqliteReleaseCache.open(db_path)
    releases = cache.stable_releases(repo)
    since = releases[max(0, len(releases) - RANGE - 1)]
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        found = cache.stable_after(repo, since.version_key, RANGE + 1)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), since.version, len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pulls", choices=("none", "recent"), default="none")
    parser.add_argument("--pull-latency-ms", type=float, default=50, help="delay of each PR request (default 50)")
    parser.add_argument("--max-pulls", type=int, default=300, help="PRs of the latency rows (default 300)")
    args = parser.parse_args()
    repos = available_repos()
    with tempfile.TemporaryDirectory() as tmp, FakeGitHub() as fake:
        fake.rate_limit_limit = fake.rate_limit_remaining = 10**9
        db_path = Path(tmp) / "cache.db"
        full = index_all(db_path, fake, repos, args.pulls)
        noop = index_all(db_path, fake, repos, args.pulls)
        _table(full, noop, args.pulls)
        size = sum(p.stat().st_size for p in Path(tmp).glob("cache.db*"))
        largest = max(full, key=lambda report: report.stable).repo
        median, since, rows = range_latency_ms(db_path, largest)
    print(f"\ndatabase: {size / 1e6:.1f} MB (with WAL)")
    print(f"stable_after on {largest}: {rows} releases after {since}, median {median:.3f} ms of {RUNS} runs")
    pull_latency(args.pull_latency_ms / 1000, args.max_pulls)


def pull_latency(delay: float, count: int) -> None:
    """`--pulls recent` with every PR request `delay` late: one worker, then the pool (the same PRs)."""
    repo, seconds = "getsentry/sentry-cocoa", {}
    with tempfile.TemporaryDirectory() as tmp, FakeGitHub() as fake:
        fake.rate_limit_limit = fake.rate_limit_remaining = 10**9
        fake.add_fault("GET", r"/pulls/\d+$", status=None, delay=delay, times=None)
        for workers in (1, PULL_WORKERS):
            started = time.perf_counter()
            report = index_all(Path(tmp) / f"pulls-{workers}.db", fake, [repo], "recent", workers, count)[0]
            seconds[workers] = time.perf_counter() - started
            print(f"\n{repo}, {report.pulls} PRs at {delay * 1000:g} ms each, {workers} worker(s): "
                  f"{seconds[workers]:.2f} s", end="")
    print(f"\npool ({PULL_WORKERS} workers) over one at a time: {seconds[1] / seconds[PULL_WORKERS]:.1f}× faster")


def _table(full: list[RepoReport], noop: list[RepoReport], pulls: str) -> None:
    print(f"full index and no-op re-index, pulls={pulls}")
    header = f"{'repository':32} {'releases':>8} {'stable':>6} {'PRs':>5} {'full req':>8} {'full s':>7} " \
             f"{'no-op req':>9} {'no-op ms':>8}"
    print(header)
    print("-" * len(header))
    for first, again in zip(full, noop, strict=True):
        print(f"{first.repo:32} {first.releases:8} {first.stable:6} {first.pulls:5} {first.requests:8} "
              f"{first.seconds:7.2f} {again.requests:9} {again.seconds * 1000:8.1f}")
    print("-" * len(header))
    print(f"{'total':32} {sum(r.releases for r in full):8} {sum(r.stable for r in full):6} "
          f"{sum(r.pulls for r in full):5} {sum(r.requests for r in full):8} {sum(r.seconds for r in full):7.2f} "
          f"{sum(r.requests for r in noop):9} {sum(r.seconds for r in noop) * 1000:8.1f}")


if __name__ == "__main__":
    main()
