"""Run `wif eval` on the public cases with GitHub served by the fake server (no network).

Usage: python bench/eval_offline.py [--input fields|message] [--bundled | --unreleased | --cases FILE]
       [other `wif eval` options]
       python bench/eval_offline.py --readme   # rewrite the README eval table's in-sample columns in place

Which cases (the header line of the report says how many):
  default       the README table's: the public cases asked of `cache.db.example` (published releases), without
                the `bundled_fix` ones (scored apart) and without those with `unreleased_newest` — 49 cases
  --bundled     the public `bundled_fix` cases (README: "scored apart") — 7 cases
  --unreleased  the public cases with `unreleased_newest` (fixes not released yet) — 4 cases, asked of a cache
                indexed from a fake GitHub that withholds the newest releases and serves their notes under
                `## Unreleased` (tests/unreleased_eval.py)
  --cases F     every case of file F as it is (`bench/data/holdout_cases.jsonl`: the holdout, bench/README.md);
                its cases with `unreleased_newest`, if any, run second on such a cache

--readme runs the default cases in both input modes and writes what they score into the README's eval table
(the "fields input" and "message input" columns; the CV columns come from bench/crossval_offline.py and are left
as they are); tests/test_docs.py checks the table against this command's --json.

Why: the cases' linked issues and PR lookups need a GitHub API; the fake serves the
real fixture data (tests/data/github), so the numbers are reproducible offline.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.github_server import FakeGitHub  # noqa: E402
from tests.unreleased_eval import split_cases, withheld, withheld_github  # noqa: E402
from wif_action.cli import main  # noqa: E402

PUBLIC = ROOT / "tests" / "data" / "eval" / "cases.jsonl"
README = ROOT / "README.md"
TABLE_HEAD = "| metric | fields input | fields, CV | message input | message, CV |"
COLUMNS = {"fields": 1, "message": 3}  # the README table's in-sample column of each input mode (0: the metric)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({round(100 * part / whole)}%)" if whole else f"{part}/{whole}"


def _requests(usage: dict) -> str:
    return f"{usage['mean']:.2f} / {usage['max']:.0f}"


# Each README row: its cell from `wif eval --json`'s metrics.
ROWS: dict[str, Callable[[dict], str]] = {
    "outcome accuracy (right + tolerated)": lambda m: _share(m["outcome"]["right"] + m["outcome"]["acceptable"],
                                                             m["outcome"]["cases"]),
    "top-1 exact fix (release + PR)": lambda m: _share(m["fixes"]["top1"], m["fixes"]["cases_with_fix"]),
    "fix found among candidates": lambda m: _share(m["fixes"]["found"], m["fixes"]["cases_with_fix"]),
    "precision of HIGH answers": lambda m: _share(m["fixes"]["right_high"], m["fixes"]["high_answers"]),
    "answers naming a `must_not_claim` fix": lambda m: str(m["fixes"]["wrong_claims"]),
    "GitHub requests per question (mean / max)": lambda m: _requests(m["usage"]["github_requests"]),
}


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
    published: Path | None
    unreleased: Path | None
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


def rewrite_table(readme: str, metrics: dict[str, dict]) -> str:
    """`readme` with its eval table's in-sample cells set from each mode's metrics (`{"fields": …, "message": …}`);
    every other cell and line as it was. Why in place: the table's rows, CV columns and prose around it are
    written by hand; only these cells are what this command measures."""
    head, found, rest = readme.partition(TABLE_HEAD + "\n")
    if not found:
        raise SystemExit(f"README.md has no eval table (a line {TABLE_HEAD!r})")
    lines = rest.split("\n")
    for index, line in enumerate(lines[1:], start=1):  # lines[0]: the separator row
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] in ROWS:
            for mode, column in COLUMNS.items():
                cells[column] = ROWS[cells[0]](metrics[mode])
            lines[index] = "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"
    return head + found + "\n".join(lines)


def measured(mode: str) -> dict:
    """The metrics `--input mode --json` prints for the README's cases."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run(["--input", mode, "--json"])
    if code:
        raise SystemExit(f"wif eval --input {mode} exited {code}")
    return json.loads(out.getvalue())["metrics"]


def write_readme() -> int:
    """Measure both input modes and rewrite README.md's eval table with what they score."""
    text = README.read_text(encoding="utf-8")
    updated = rewrite_table(text, {mode: measured(mode) for mode in COLUMNS})
    README.write_text(updated, encoding="utf-8")
    print("README.md: eval table " + ("unchanged" if updated == text else "rewritten"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(write_readme() if sys.argv[1:] == ["--readme"] else run(sys.argv[1:]))
