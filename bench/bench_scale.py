"""How `wif ask` latency and the cache's range queries behave as the cache grows (1 → 10 → 50 repositories).

Caches are synthesised from the GitHub fixtures through `indexer.store`: the real
repositories first, then copies of them under other names (`copies/<name>-<n>`),
so a 50-repository cache holds ~13,000 releases. Every size answers the same
questions about getsentry/sentry-cocoa (the public cases for it, fields input,
offline engine, PR details from the cache, FakeGitHub for misses).

Measured per size: file size; the range query (`stable_after` + the first batch's
`entries`) median over many runs; `wif ask` in process (build_workflow + run, per
question, several repeats) median and max; `wif ask` once as a subprocess.

    python bench/bench_scale.py [--sizes 1,10,50] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fixture_cache import all_fixture_repos, build_cache
from indexer.versions import parse_tag, version_key
from tests.fakes.github_server import FakeGitHub
from wif_action.app import AppConfig, build_workflow
from wif_action.commands.eval_cases import case_input
from wif_action.evaluation import Case, load_cases
from wif_action.run_records.tables import format_table
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.progress import RecordingProgress

ROOT = Path(__file__).resolve().parent.parent
TARGET = "getsentry/sentry-cocoa"
WIF = Path(sys.executable).with_name("wif")


def repositories(size: int) -> list[tuple[str, str]]:
    """(fixture, slug) pairs: the target first, the other real repositories, then renamed copies."""
    fixtures = [TARGET] + [r for r in all_fixture_repos() if r != TARGET]
    pairs = [(r, r) for r in fixtures[:size]]
    copy = 0
    while len(pairs) < size:
        source = fixtures[copy % len(fixtures)]
        pairs.append((source, f"copies/{source.split('/')[1]}-{copy // len(fixtures) + 1}"))
        copy += 1
    return pairs


def timed(call: Callable[[], object], runs: int) -> list[float]:
    """Wall times in milliseconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def range_query_ms(db: Path, version: str, runs: int = 200) -> float:
    cache = SqliteReleaseCache.open(db)
    parsed = parse_tag(version)
    if parsed is None:
        raise ValueError(f"not a version: {version!r}")
    key = version_key(parsed)

    def query() -> None:
        releases = cache.stable_after(TARGET, key, 100)
        cache.entries([r.id for r in releases[:5]])

    return statistics.median(timed(query, runs))


def ask_ms(db: Path, env: dict[str, str], cases: list[Case], repeats: int) -> list[float]:
    config = AppConfig(db=db, engine="offline", env=env)
    times: list[float] = []
    for case in cases:
        times += timed(partial(_ask, config, case), repeats)
    return times


def _ask(config: AppConfig, case: Case) -> None:
    build_workflow(config, RecordingProgress()).run(case_input(case, "fields"))


def subprocess_ms(db: Path, env: dict[str, str], case: Case) -> float:
    command = [str(WIF), "ask", "--quiet", "--json", "--engine", "offline", "--db", str(db), "--repo", TARGET,
               "--version", case.version or "", "--problem", case.problem or ""]
    started = time.perf_counter()
    subprocess.run(command, env={**os.environ, **env}, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def measure(size: int, workdir: Path, env: dict[str, str], cases: list[Case], repeats: int) -> list:
    started = time.perf_counter()
    db = build_cache(workdir / f"cache-{size}.db", repositories(size))
    build_s = time.perf_counter() - started
    releases = SqliteReleaseCache.open(db).db.execute("select count(*) from releases").fetchone()[0]
    asks = ask_ms(db, env, cases, repeats)
    return [size, releases, round(db.stat().st_size / 1e6, 1), round(build_s, 1),
            round(range_query_ms(db, cases[0].version or "0"), 3), round(statistics.median(asks), 1),
            round(max(asks), 1), round(subprocess_ms(db, env, cases[0]), 0)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,50", help="repository counts (default 1,10,50)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each question per size")
    args = parser.parse_args()
    cases = [c for c in load_cases(ROOT / "tests/data/eval/cases.jsonl") if c.repo == TARGET and c.version]
    rows = []
    subprocess.run([str(WIF), "--help"], check=True, capture_output=True)  # warm bytecode caches first
    with tempfile.TemporaryDirectory() as tmp, FakeGitHub() as fake:
        env = {"GITHUB_API_URL": fake.url}
        for size in (int(s) for s in args.sizes.split(",")):
            rows.append(measure(size, Path(tmp), env, cases, args.repeats))
    print(f"Scale — {len(cases)} {TARGET} questions × {args.repeats} repeats per cache size (offline engine)\n")
    print(format_table(["repos", "releases", "file MB", "build s", "range query ms (median)",
                        "ask in-process ms (median)", "ask in-process ms (max)", "ask subprocess ms"], rows))


if __name__ == "__main__":
    main()
