"""Time `wif ask` as a process on the issue-12 example: React Native 5.9.1, a crash fixed in sentry-cocoa.

    python bench/bench_bundled.py

Two caches, both holding getsentry/sentry-react-native and getsentry/sentry-cocoa:
- `cache.db.example` (all releases): 5.9.1 is 121 stable releases behind, so the spec's guard answers too_old;
- the same repositories with React Native's releases from 6.0.0 on removed, so the range is within 100 and the
  bundled fix is found (5.12.0, sentry-cocoa PR #3333 via sentry-cocoa 8.13.1).
GitHub is the local fake server (no network); the offline engine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import build_cache  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from tests.test_bundled_sdks import COCOA, PROBLEM, RN, _trimmed  # noqa: E402


def ask(db: Path, api_url: str) -> tuple[float, dict]:
    env = {**os.environ, "GITHUB_API_URL": api_url}
    env.pop("GITHUB_TOKEN", None)
    env.pop("OPENAI_API_KEY", None)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "wif_action.cli", "ask", "--db", str(db), "--engine", "offline",
                           "--repo", RN, "--version", "5.9.1", "--problem", PROBLEM, "--json"],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    return time.perf_counter() - started, json.loads(done.stdout)


def main() -> None:
    with FakeGitHub() as github, tempfile.TemporaryDirectory() as tmp:
        trimmed = Path(tmp) / "cache.db"
        build_cache(trimmed, _trimmed(github), [RN, COCOA])
        for name, db in (("cache.db.example", ROOT / "cache.db.example"), ("trimmed", trimmed)):
            runs = [ask(db, github.url) for _ in range(3)]
            seconds = sorted(run[0] for run in runs)[1]
            answer = runs[0][1]
            top = answer["candidates"][0] if answer["candidates"] else {}
            print(f"{name}: {answer['outcome']} {top.get('version', '-')} PR {top.get('repo', '')}#{top.get('pr', '-')}"
                  f" via {top.get('via')}; {seconds:.2f} s (median of 3, as a process)")


if __name__ == "__main__":
    main()
