"""Run `wif eval` on the public cases with GitHub served by the fake server (no network).

Usage: python bench/eval_offline.py [--input fields|message] [--bundled | --unreleased | --cases FILE]
       [other `wif eval` options]

Which cases (the header line of the report says how many):
  default       the README table's: the public cases asked of `cache.db.example` (published releases), without
                the `bundled_fix` ones (scored apart) and without those with `unreleased_newest` — 49 cases
  --bundled     the public `bundled_fix` cases (README: "scored apart") — 7 cases
  --unreleased  the public cases with `unreleased_newest` (fixes not released yet) — 4 cases, asked of a cache
                indexed from a fake GitHub that withholds the newest releases and serves their notes under
                `## Unreleased` (tests/unreleased_eval.py)
  --cases F     every case of file F as it is (`bench/data/holdout_cases.jsonl`: the holdout, bench/README.md);
                its cases with `unreleased_newest`, if any, run second on such a cache

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
from tests.unreleased_eval import split_cases, withheld, withheld_github  # noqa: E402
from wif_action.cli import main  # noqa: E402

PUBLIC = ROOT / "tests" / "data" / "eval" / "cases.jsonl"


def selected(kind: str, into: Path) -> Path:
    """The public cases of one kind (`table`, `bundled`, `unreleased`) in a file under `into`."""
    lines = [line for line in PUBLIC.read_text(encoding="utf-8").splitlines() if line.strip()]

    def kind_of(case: dict) -> str:
        if case.get("unreleased_newest"):
            return "unreleased"
        return "bundled" if case["category"] == "bundled_fix" else "table"

    path = into / f"{kind}.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines if kind_of(json.loads(line)) == kind), encoding="utf-8")
    return path


def run(argv: list[str]) -> int:
    os.environ.pop("GITHUB_TOKEN", None)
    with tempfile.TemporaryDirectory(prefix="wif-eval-") as work:
        if "--cases" in argv:
            at = argv.index("--cases")
            given, argv = Path(argv[at + 1]), argv[:at] + argv[at + 2:]
            published, unreleased = split_cases(given, Path(work))
        else:
            kind = "bundled" if "--bundled" in argv else "unreleased" if "--unreleased" in argv else "table"
            argv = [arg for arg in argv if arg not in ("--bundled", "--unreleased")]
            print(f"cases: the public {kind} cases" if kind != "table" else
                  "cases: the README table's public cases (bundled_fix and unreleased_newest apart)", file=sys.stderr)
            chosen = selected(kind, Path(work))
            published, unreleased = (None, chosen) if kind == "unreleased" else (chosen, None)
        code = 0
        if published is not None and published.stat().st_size:
            with FakeGitHub() as github:
                os.environ["GITHUB_API_URL"] = github.url
                code = main(["eval", str(published), "--db", str(ROOT / "cache.db.example"), "--engine", "offline",
                             *argv])
        if unreleased is not None and unreleased.stat().st_size:
            db = Path(work) / "unreleased.db"
            with withheld_github(withheld(unreleased), db) as github:
                os.environ["GITHUB_API_URL"] = github.url
                code = main(["eval", str(unreleased), "--db", str(db), "--engine", "offline", *argv]) or code
        return code


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
