"""Peak memory and bytes received of `wif ask` when GitHub answers a PR lookup with a 300 MB body.

    python bench/bench_body_cap.py [--megabytes 300]

A process per run (peak RSS from getrusage of the child), against the local fake GitHub serving sentry-cocoa
without cached PR details, so every PR lookup reaches the misbehaving endpoint. Before the body cap the reply
was downloaded whole, once per PR; now it is cut off at indexer.github_client.ITEM_BODY_BYTES and the breaker
stops further lookups.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import build_cache  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402

PROBLEM = "WatchdogTermination issues have empty tags (e.g., OS)."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=300)
    args = parser.parse_args()
    with FakeGitHub() as github, tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "cache.db"
        build_cache(db, github, ["getsentry/sentry-cocoa"])
        fault = github.add_fault("GET", r"/pulls/\d+$", huge=args.megabytes * 1024 * 1024, huge_length=False,
                                 times=None)
        env = {**os.environ, "GITHUB_API_URL": github.url}
        env.pop("GITHUB_TOKEN", None)
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "wif_action.cli", "ask", "--db", str(db), "--engine", "offline",
                               "--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem", PROBLEM, "--json"],
                              capture_output=True, text=True, env=env, cwd=ROOT, check=False)
        seconds = time.monotonic() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        outcome = done.stdout.split('"outcome": "', 1)[-1].split('"', 1)[0]
        print(f"{args.megabytes} MB PR reply: outcome {outcome}, exit {done.returncode}, peak RSS {peak_mb:.0f} MB, "
              f"{fault.hits} lookups of the huge PR, {fault.sent / 1e6:.1f} MB sent by the server, {seconds:.1f} s")


if __name__ == "__main__":
    main()
