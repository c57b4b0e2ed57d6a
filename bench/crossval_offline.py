"""Leave-one-repository-out cross-validation of the offline engine's thresholds.

Why: tuning constants until the public cases pass measures nothing about questions WIF
never saw. Every threshold setting in `GRID` is run once over all public cases (through the
shipped workflow, `bench/calibrate_offline.ShippedRunner`: bundled SDKs, cited PRs and the one
top-candidate rule included; by default every labelled case: public, holdout and bench/data/near, see
bench/labelled.py; `--cases FILE` picks files); then, for each repository in turn, the
setting that scores best on the *other* repositories is chosen and the held-out
repository's cases are scored with it. The CV numbers are those held-out scores; the
in-sample numbers are the best single setting chosen on all cases. Reported in three groups, each in-sample
and CV: the SDKs' own fixes, `bundled_fix` cases (asked with their `max_releases`), and cases with
`unreleased_newest` (asked of a cache that withholds the newest releases; a confident `unreleased` answer
counts as HIGH).

    python bench/crossval_offline.py --input fields
    python bench/crossval_offline.py --input message
    python bench/crossval_offline.py --input message --shortlist   # the LLM shortlist's recall
    python bench/crossval_offline.py --input fields --cases tests/data/eval/cases.jsonl   # the public cases only

Each setting answers every case through the workflow (~0.1 s a case), so a run takes minutes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.calibrate_offline import CASES, Scored, ShippedRunner, labelled  # noqa: E402
from bench.fixture_cache import all_fixture_repos, build_cache  # noqa: E402
from bench.labelled import case_files, fixture_dir, labelled_db, registry_file  # noqa: E402
from bench.objective import objective  # noqa: E402
from indexer.registry import load_registry  # noqa: E402
from wif_action import lexicon  # noqa: E402
from wif_action.engines.offline import OfflineJudge  # noqa: E402
from wif_action.evaluation import Case  # noqa: E402
from wif_action.models import Request  # noqa: E402
from wif_action.question import question_of  # noqa: E402
from wif_action.tools.cache import SqliteReleaseCache  # noqa: E402

# The thresholds the procedure may choose between: (module, name) → candidate values.
# lexicon.toml [weight] names; each run varies them in the input mode's own table (`settings`).
GRID: dict[str, tuple[float, ...]] = {
    "weight.min_relevance": (0.0, 3.5, 7.0),
    "weight.relative_to_best": (0.5, 0.6),
    "weight.max_per_batch": (2, 3, 4),
    "weight.high_coverage": (0.25, 0.35),
    "weight.strong_coverage": (0.3, 0.35),
}


def settings(mode: str) -> list[dict[str, float]]:
    """Every combination of the grid as the input mode's own values, `<mode>_weight.NAME` → value (what
    `ShippedRunner.run` sets). Why the mode's table, not `[weight]`: the run reads a mode's own value first
    (lexicon.input_mode), so a `weight.NAME` the mode overrides would be varied without effect; and the values chosen
    here are what that mode's table would ship (lexicon.toml [fields_weight] / [message_weight])."""
    targets = [f"{mode}_weight.{target.rpartition('.')[2]}" for target in GRID]
    axes = [mode_values(mode, target) for target in GRID]
    return [dict(zip(targets, values, strict=True)) for values in itertools.product(*axes)]


def mode_values(mode: str, target: str) -> tuple[float, ...]:
    """A grid axis as one mode varies it: GRID's values and the mode's shipped one (message's own
    relative_to_best 0.55 between 0.5 and 0.6), so a tie can always go to what ships."""
    own = shipped(f"{mode}_weight.{target.rpartition('.')[2]}")
    return tuple(sorted({*GRID[target], own}))


def shipped(target: str) -> float:
    """The shipped value of a grid's `<mode>_weight.NAME`: the mode's own (lexicon.toml [<mode>_weight]) or the
    shared [weight] one."""
    table, _, name = target.rpartition(".")
    with lexicon.input_mode(table.removesuffix("_weight") if table != "weight" else None):
        return lexicon.weight(name)


def summary(results: list[Scored]) -> str:
    fixes = [r for r in results if r.fix_case]
    highs = [r for r in results if r.high]
    top1, found = sum(r.top1 for r in fixes), sum(r.found for r in fixes)
    high_ok = sum(r.high_ok for r in highs)
    prec = f"{high_ok / len(highs):.2f}" if highs else "-"
    n = len(fixes) or 1
    return (f"top-1 {top1}/{len(fixes)} ({top1 / n:.2f})  found {found}/{len(fixes)} ({found / n:.2f})  "
            f"HIGH {high_ok}/{len(highs)} (prec {prec})  outcome {sum(r.outcome for r in results)}/"
            f"{len(results)}  must_not_claim named {sum(r.claimed_bad for r in results)}")


def describe(setting: dict[str, float]) -> str:
    return ", ".join(f"{target.rpartition('.')[2]}={value}" for target, value in setting.items())


def request_of(judge: OfflineJudge, case: dict, mode: str) -> Request:
    """What a trigger hands the workflow: the case's fields, or the request extracted from its message."""
    links = case.get("links") or []
    if mode == "fields":
        return Request(sdk=case["sdk"], repo=case["repo"], version=case["version"], problem=case["problem"],
                       links=links, raw_text=case["problem"])
    return judge.extract_request(case["message"] + "".join(f"\n{link}" for link in links
                                                           if link not in case["message"]))


SHORTLIST_SIZES = (2, 4, 6, 8, 12)


def shortlist_hits(cache: SqliteReleaseCache, judge: OfflineJudge, case: dict, mode: str, size: int) -> bool:
    """Is the expected fix's entry in the LLM shortlist of the first batch that contains it?"""
    request = request_of(judge, case, mode)
    user = cache.find_release(case["repo"], case["version"])
    if user is None:
        return False
    expect = case["expect"]
    want = set(expect["prs"]) | {a["pr"] for a in expect.get("also_acceptable", [])}
    releases = cache.stable_after(case["repo"], user.version_key, 101)
    for start in range(0, len(releases), 5):
        entries = cache.entries([r.id for r in releases[start:start + 5]])
        if any(set(e.prs) & want for e in entries):
            short = judge.shortlist(entries, question_of(request, judge.registry), size)
            return any(set(e.prs) & want for e in short)
    return False


def shortlist_report(cases: list[dict], mode: str) -> None:
    """Per held-out repository: the smallest size with full recall on the others; its held-out recall."""
    fixes = [c for c in cases if c["expect"]["outcome"] == "high" and c.get("repo") and c["category"] != "bundled_fix"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cache.db"
        build_cache(path, [(repo, repo) for repo in all_fixture_repos()])
        cache = SqliteReleaseCache.open(path)
        judge = OfflineJudge(cache, load_registry())
        hits = {size: {c["id"]: shortlist_hits(cache, judge, c, mode, size) for c in fixes}
                for size in SHORTLIST_SIZES}
    for size in SHORTLIST_SIZES:
        print(f"shortlist size {size:2d}: in-sample recall {sum(hits[size].values())}/{len(fixes)}")
    cv = 0
    for repo in sorted({c["repo"] for c in fixes}):
        train = [c["id"] for c in fixes if c["repo"] != repo]
        size = next((s for s in SHORTLIST_SIZES if all(hits[s][k] for k in train)), SHORTLIST_SIZES[-1])
        cv += sum(hits[size][c["id"]] for c in fixes if c["repo"] == repo)
    print(f"shortlist CV (LORO, smallest size with full recall on the other repositories): {cv}/{len(fixes)} "
          f"({cv / len(fixes):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", choices=("message", "fields"), default="message")
    parser.add_argument("--cases", action="append", type=Path, metavar="FILE",
                        help="cases file (repeatable; default: every labelled case, public + holdout + "
                             "bench/data/near)")
    parser.add_argument("--without-near", action="store_true",
                        help="by default, leave bench/data/near out (the labelled pool before it)")
    parser.add_argument("--shortlist", action="store_true", help="measure the LLM shortlist's recall instead")
    args = parser.parse_args()
    if args.shortlist:
        shortlist_report([json.loads(line) for line in CASES.read_text().splitlines()], args.input)
        return
    with_near = not args.without_near
    cases = labelled(args.cases or case_files(with_near=with_near))
    grid = settings(args.input)
    # Ties between settings go to the one closest to the shipped defaults (a prior fixed before any case is
    # scored), not to whichever comes first in GRID.
    prior = [sum(shipped(target) == value for target, value in setting.items()) for setting in grid]
    with ShippedRunner(labelled_db(with_near), fixture_dir(with_near), registry_file(with_near)) as runner:
        runs = [{row.id: row for row in runner.run(cases, args.input, setting)} for setting in grid]
    groups = {name: [c.id for c in cases if group_of(c) == name] for name in GROUPS}
    every = [c.id for c in cases]
    repos = sorted({runs[0][k].repo for k in every})
    held: dict[str, Scored] = {}
    print(f"input={args.input}; {len(cases)} cases; {len(grid)} threshold settings; "
          f"held-out repository → setting chosen on the other repositories' cases (every kind)")
    for repo in repos:
        train = [k for k in every if runs[0][k].repo != repo]
        best = max(range(len(grid)), key=lambda i: (objective(runs[i][k].graded for k in train), prior[i], -i))
        held.update({k: runs[best][k] for k in every if runs[0][k].repo == repo})
        print(f"  {repo:30s} {describe(grid[best])}")
    best_all = max(range(len(grid)), key=lambda i: (objective(runs[i][k].graded for k in every), prior[i], -i))
    print(f"\nin-sample setting: {describe(grid[best_all])}")
    for name, ids in groups.items():
        if ids:
            print(f"{name:10s} in-sample  {summary([runs[best_all][k] for k in ids])}")
            print(f"{name:10s} CV (LORO)  {summary([held[k] for k in ids])}")


# How the cases are reported: the SDKs' own fixes, fixes that came in through a bundled SDK, and fixes not
# released yet (`unreleased_newest`: asked of a cache that withholds the newest releases).
GROUPS = ("main", "bundled", "unreleased")


def group_of(case: Case) -> str:
    if case.unreleased_newest:
        return "unreleased"
    return "bundled" if case.category == "bundled_fix" else "main"

if __name__ == "__main__":
    main()
