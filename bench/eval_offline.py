"""Run `wif eval` on the public cases with GitHub served by the fake server (no network).

Usage: python bench/eval_offline.py [--cases FILE] [--input fields|message] [other `wif eval` options]
(`--cases bench/data/holdout_cases.jsonl`: the holdout questions, see bench/README.md)

Why: the cases' linked issues and PR lookups need a GitHub API; the fake serves the
real fixture data (tests/data/github), so the numbers are reproducible offline.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action.cli import main  # noqa: E402


def run(argv: list[str]) -> int:
    cases = str(ROOT / "tests" / "data" / "eval" / "cases.jsonl")
    if "--cases" in argv:
        at = argv.index("--cases")
        cases, argv = argv[at + 1], argv[:at] + argv[at + 2:]
    with FakeGitHub() as github:
        os.environ["GITHUB_API_URL"] = github.url
        os.environ.pop("GITHUB_TOKEN", None)
        return main(["eval", cases, "--db", str(ROOT / "cache.db.example"), "--engine", "offline", *argv])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
