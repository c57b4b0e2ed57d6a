"""Build `cache.db.example`: every fixture repository in tests/data/github, indexed for real.

    python scripts/build_example_cache.py [OUTPUT]      (default: cache.db.example at the repo root)

Why a fake server instead of GitHub: the example must be reproducible from the repository
alone and must not spend anyone's rate limit. The path is the production one — PyGithub over
HTTP to an in-process FakeGitHub, `index_repositories` with PR details for the newest stable
releases — then VACUUM and a rollback journal, so the result is one self-contained file.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from indexer.github_source import ReleaseSource  # noqa: E402
from indexer.indexing import index_repositories  # noqa: E402
from indexer.notes_pool import Derive  # noqa: E402
from tests.fakes.github_server import FakeGitHub, available_repos  # noqa: E402
from wif_action.tools.term_index import counter, refresh  # noqa: E402


def build(output: Path) -> None:
    partial = output.with_name(output.name + ".partial")
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)
    started = time.monotonic()
    with FakeGitHub() as fake:
        fake.rate_limit_limit = fake.rate_limit_remaining = 10**9  # ~10k requests for unlimited PR details
        source = ReleaseSource(fake.url, retries=None, requests_per_minute=None)  # a local fake: no pacing
        reports = index_repositories(partial, source, available_repos(), pulls="recent", max_pulls=None,
                                     on_progress=print, derive=Derive(refresh, counter))
        requests = fake.total_requests()
    failed = [report for report in reports if report.error]
    if failed:
        sys.exit(f"not written: {len(failed)} repositories failed")
    _compact(partial)
    os.replace(partial, output)
    size = output.stat().st_size
    print(f"{output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}: "
          f"{size / 1e6:.1f} MB, {sum(r.stable for r in reports)} stable releases in {len(reports)} repositories, "
          f"{requests} requests, {time.monotonic() - started:.1f}s")


def _compact(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("INSERT INTO entries_fts(entries_fts) VALUES('optimize')")
        conn.execute("VACUUM")
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description="Build cache.db.example from the fixture repositories "
                                     "(a local fake GitHub, no network; ~20 s).")
    parser.add_argument("output", nargs="?", type=Path, default=ROOT / "cache.db.example",
                        help="where to write the cache (default: cache.db.example at the repository root)")
    build(parser.parse_args().output.resolve())


if __name__ == "__main__":
    main()
