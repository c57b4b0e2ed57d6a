"""Run `wif eval` on the public cases with GitHub served by the fake server (no network).

Usage: python bench/eval_offline.py [--input fields|message] [--bundled | --cases FILE] [other `wif eval` options]

Which cases (the header line of the report says how many):
  default      the README table's: the public cases asked of `cache.db.example` (published releases), without
               the `bundled_fix` ones (scored apart) and without those with `unreleased_newest` (their fake
               GitHub withholds releases: tests/test_unreleased.py) — 49 cases
  --bundled    the public `bundled_fix` cases (README: "scored apart") — 7 cases
  --cases F    every case of file F as it is (`bench/data/holdout_cases.jsonl`: the holdout, bench/README.md)

Why: the cases' linked issues and PR lookups need a GitHub API; the fake serves the
real fixture data (tests/data/github), so the numbers are reproducible offline.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action.cli import main  # noqa: E402

PUBLIC = ROOT / "tests" / "data" / "eval" / "cases.jsonl"


def selected(bundled: bool) -> str:
    """The README table's public cases (or the bundled ones) in a temporary file; its path."""
    lines = [line for line in PUBLIC.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases = [json.loads(line) for line in lines]
    kept = [line for line, case in zip(lines, cases, strict=True) if not case.get("unreleased_newest")
            and (case["category"] == "bundled_fix") == bundled]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", prefix="wif-eval-", delete=False,
                                     encoding="utf-8") as handle:
        handle.write("\n".join(kept) + "\n")
    return handle.name


def run(argv: list[str]) -> int:
    temporary = None
    if "--cases" in argv:
        at = argv.index("--cases")
        cases, argv = argv[at + 1], argv[:at] + argv[at + 2:]
    else:
        bundled = "--bundled" in argv
        argv = [arg for arg in argv if arg != "--bundled"]
        cases = temporary = selected(bundled)
        print("cases: " + ("the public bundled_fix cases" if bundled else "the README table's public cases "
              "(bundled_fix and unreleased_newest apart)"), file=sys.stderr)
    try:
        with FakeGitHub() as github:
            os.environ["GITHUB_API_URL"] = github.url
            os.environ.pop("GITHUB_TOKEN", None)
            return main(["eval", cases, "--db", str(ROOT / "cache.db.example"), "--engine", "offline", *argv])
    finally:
        if temporary:
            os.unlink(temporary)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
