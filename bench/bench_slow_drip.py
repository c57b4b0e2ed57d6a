"""Slow-drip upstreams vs the run's deadline, measured as a process (issue 13's scenario).

GitHub and the OpenAI endpoint both answer one byte every --drip seconds (so per-read timeouts
never fire); `wif ask` runs on cache.db.example for the spec's Example B with WIF_DEADLINE set.
Prints, per engine: wall time of the process, exit code, outcome and the HIGH PR.

    python bench/bench_slow_drip.py --drip 4 --deadline 20 --trials 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tabulate import tabulate  # noqa: E402

from tests.fakes.github_server import FakeGitHub  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI  # noqa: E402

EXAMPLE_B = ["--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem",
             "WatchdogTermination issues have empty tags (e.g. OS)",
             "--link", "https://github.com/getsentry/sentry-cocoa/issues/5397"]


def one_run(engine: str, github: FakeGitHub, openai_fake: FakeOpenAI, deadline: float) -> list[object]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GITHUB_API_URL": github.url,
           "WIF_DEADLINE": str(deadline), "OPENAI_API_KEY": "sk-bench-key", "OPENAI_BASE_URL": openai_fake.url + "/v1"}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", "ask", "--db", str(ROOT / "cache.db.example"),
                             "--engine", engine, *EXAMPLE_B, "--json", "--quiet"],
                            capture_output=True, text=True, env=env, cwd=ROOT, timeout=deadline * 20)
    seconds = time.monotonic() - started
    try:
        answer = json.loads(result.stdout)
    except ValueError:
        return [engine, f"{seconds:.1f}", result.returncode, "no JSON", ""]
    high = [c.get("pr") for c in answer.get("candidates", []) if c.get("confidence") == "high"]
    return [engine, f"{seconds:.1f}", result.returncode, answer.get("outcome"), ",".join(map(str, high))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--drip", type=float, default=4.0, help="seconds per byte (default 4)")
    parser.add_argument("--deadline", type=float, default=20.0, help="WIF_DEADLINE (default 20)")
    parser.add_argument("--trials", type=int, default=1)
    args = parser.parse_args()
    rows = []
    with FakeGitHub() as github, FakeOpenAI() as openai_fake:
        github.add_issue("getsentry/sentry-cocoa", 5397, title="WatchdogTermination events have empty tags",
                         closed_by_pr=4953)
        for fake in (github, openai_fake):
            fake.add_fault(method=None, path_regex=r".*", status=None, times=None, drip=args.drip)
        for _ in range(args.trials):
            for engine in ("offline", "openai"):
                rows.append(one_run(engine, github, openai_fake, args.deadline))
    print(tabulate(rows, headers=["engine", "process s", "exit", "outcome", "HIGH PR"]))


if __name__ == "__main__":
    main()
