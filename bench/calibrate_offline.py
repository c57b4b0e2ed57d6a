"""Calibrate the offline engine through the shipped workflow: the labelled cases, thresholds set for the run.

Why the shipped workflow: a copy of the scan drifts (the previous emulator had no bundled SDKs, no cited
PRs and its own top-candidate rule), so its numbers described code that does not ship. Each case goes
through `wif eval`'s own `run_case` — the workflow `wif ask` runs: links fast path, batches, bundled SDKs,
cited PRs, objections, the one top-candidate rule (`wif_action/candidate_order.py`) — offline engine,
GitHub served by the fake server (tests/fakes), so nothing reaches the network. A threshold is changed for
the run, never by copying code. Every weight lives in lexicon.toml `[weight]`: `--set weight.max_per_batch=3`
runs with that table changed (`lexicon.use`), and a judge threshold (`--set weight.medium_mass=9`, or the older
spelling `scoring.MEDIUM_MASS=9`: a `scoring.Thresholds` field) is passed to the judge in another `Thresholds`
object through the composition root (`AppConfig.weights`); any other `module.NAME` is set on the shipped module
for the run.

    python bench/calibrate_offline.py --input fields
    python bench/calibrate_offline.py --input message --set scoring.HIGH_COVERAGE=0.3 -v --only cocoa
    python bench/calibrate_offline.py --input fields --set weight.max_per_batch=3
    python bench/calibrate_offline.py --cases bench/data/holdout_cases.jsonl
"""

from __future__ import annotations

import argparse
import copy
import importlib
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.objective import Graded, graded  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from tests.unreleased_eval import withheld_github  # noqa: E402
from wif_action import lexicon  # noqa: E402
from wif_action.app import AppConfig  # noqa: E402
from wif_action.commands.eval_cases import run_case  # noqa: E402
from wif_action.engines.offline.scoring import SHIPPED, Thresholds  # noqa: E402
from wif_action.evaluation import Case, CaseResult, is_high, judge_result, load_cases, top_candidate  # noqa: E402

CASES = ROOT / "tests" / "data" / "eval" / "cases.jsonl"
CACHE = ROOT / "cache.db.example"
OFFLINE = "wif_action.engines.offline"
# `weight.NAME` (the value both input modes share) and `<mode>_weight.NAME` (one mode's own, lexicon.input_mode)
WEIGHT_TABLES = ("weight", *(f"{mode}_weight" for mode in lexicon.MODES))


@dataclass(frozen=True)
class Scored:
    """One case's answer, reduced to what calibration and cross-validation compare."""

    id: str
    repo: str
    category: str
    answer: str
    fix_case: bool
    top1: bool
    found: bool
    outcome: bool  # right or acceptable
    high: bool
    high_ok: bool
    claimed_bad: bool
    graded: Graded  # what LOO-CV's one objective reads (bench/objective.py)


def labelled(paths: list[Path]) -> list[Case]:
    """Every case of the files; `ShippedRunner` answers an `unreleased_newest` one on its own cache."""
    return [case for path in paths for case in load_cases(path)]


def judge_weights(setting: Mapping[str, float]) -> tuple[Thresholds, dict[str, float]]:
    """The judge's thresholds with this setting's `scoring.NAME` / `weight.name` values of `Thresholds` fields
    (passed to the judge, not set on the module), and the rest of the setting (set for the run by `thresholds`)."""
    names = {item.name for item in fields(Thresholds)}
    chosen: dict[str, float] = {}
    rest: dict[str, float] = {}
    for target, value in setting.items():
        module_name, _, name = target.rpartition(".")
        if module_name.rpartition(".")[2] in ("scoring", "weight") and name.lower() in names:
            chosen[name.lower()] = value
        else:
            rest[target] = value
    return replace(SHIPPED, **{name: type(getattr(SHIPPED, name))(value) for name, value in chosen.items()}), rest


@contextmanager
def thresholds(setting: Mapping[str, float]) -> Iterator[None]:
    """For the block: `weight.name` → the lexicon's `[weight]` table with that value (`lexicon.use`);
    `fields_weight.name` / `message_weight.name` → that input mode's own table (`[<mode>_weight]`: what a form's
    fields / a problem condensed out of a message reads, over the shared `[weight]`);
    `module.NAME` (a module of wif_action.engines.offline, or a dotted module path) → set on the shipped module."""
    saved = []
    packaged = lexicon.data()
    tables = copy.deepcopy(packaged)  # data() is the cached table itself: edit a copy
    changed = False
    for target, value in setting.items():
        module_name, _, name = target.rpartition(".")
        if module_name in WEIGHT_TABLES:
            if name not in tables["weight"]:
                raise SystemExit(f"lexicon.toml [weight] has no '{name}'")
            tables.setdefault(module_name, {})[name] = value  # message_weight: a message's own value
            changed = True
            continue
        module = importlib.import_module(module_name if "." in module_name else f"{OFFLINE}.{module_name}")
        if not hasattr(module, name):
            raise SystemExit(f"{module.__name__} has no {name}: weights are set as weight.NAME "
                             "(lexicon.toml [weight])")
        old = getattr(module, name)
        saved.append((module, name, old))
        setattr(module, name, type(old)(value))
    if changed:
        lexicon.use(tables)
    try:
        yield
    finally:
        for module, name, old in reversed(saved):
            setattr(module, name, old)
        if changed:
            lexicon.use(packaged)


class ShippedRunner:
    """Answers cases through the shipped workflow against one fake GitHub (start it with `with`). A case with
    `unreleased_newest` is asked of its own cache, indexed (once, on first use) from a fake that withholds the
    newest releases and serves their notes as CHANGELOG.md's Unreleased section (tests/unreleased_eval.py), as
    `bench/eval_offline.py --unreleased` does."""

    def __init__(self, db: Path = CACHE, data_dir: Path | None = None, registry: Path | None = None):
        self.db, self._github, self.registry, self.data_dir = db, FakeGitHub(data_dir), registry, data_dir
        # a grid or a cross-validation makes far more than the fake's default 5,000 requests; past them every PR
        # read would fail with a rate-limit 403 and the answers would be scored without PR details
        self._github.rate_limit_limit = self._github.rate_limit_remaining = 10**9
        self._stack = ExitStack()
        self._withheld: dict[tuple[tuple[str, int], ...], AppConfig] = {}

    def __enter__(self) -> ShippedRunner:
        self._github.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
        self._github.__exit__(*exc)

    def run(self, cases: list[Case], mode: str, setting: Mapping[str, float] | None = None) -> list[Scored]:
        results = self.results(cases, mode, setting)
        with thresholds(judge_weights(setting or {})[1]), lexicon.input_mode(mode):  # judged as the run read
            return [scored(case, result) for case, result in zip(cases, results, strict=True)]

    def results(self, cases: list[Case], mode: str, setting: Mapping[str, float] | None = None) -> list[CaseResult]:
        """What `wif eval` answers for each case (the one runner of calibration, cross-validation and
        bench/quality_report.py)."""
        weights, rest = judge_weights(setting or {})
        config = AppConfig(db=self.db, engine="offline", env={"GITHUB_API_URL": self._github.url}, weights=weights,
                           registry=self.registry)
        withheld = self._unreleased_config(cases) if any(case.unreleased_newest for case in cases) else config
        withheld = replace(withheld, weights=weights)
        with thresholds(rest):
            return [run_case(case, mode, withheld if case.unreleased_newest else config) for case in cases]

    def _unreleased_config(self, cases: list[Case]) -> AppConfig:
        """The cache and fake GitHub of the `unreleased_newest` cases among `cases` (one K per repository)."""
        withhold = withheld_of(cases)
        key = tuple(sorted(withhold.items()))
        if key not in self._withheld:
            work = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="wif-unreleased-")))
            fake = self._stack.enter_context(withheld_github(withhold, work / "unreleased.db",
                                                             data_dir=self.data_dir))
            self._withheld[key] = AppConfig(db=work / "unreleased.db", engine="offline",
                                            env={"GITHUB_API_URL": fake.url}, registry=self.registry)
        return self._withheld[key]


def withheld_of(cases: list[Case]) -> dict[str, int]:
    """repository → K for the cases with `unreleased_newest`."""
    found: dict[str, int] = {}
    for case in cases:
        if case.unreleased_newest and case.repo and found.setdefault(case.repo, case.unreleased_newest) \
                != case.unreleased_newest:
            raise ValueError(f"{case.repo}: cases withhold different numbers of releases")
    return found


def scored(case: Case, result: CaseResult) -> Scored:
    verdict = judge_result(case, result)
    top = top_candidate(result)
    high = is_high(result)  # a confident `unreleased` answer is a ✓ too
    return Scored(id=case.id, repo=case.repo or case.sdk or "-", category=case.category,
                  answer=f"{result.outcome}:{top.version}#{top.pr}" if top else result.outcome,
                  fix_case=verdict.has_fix, top1=verdict.top1, found=verdict.found,
                  outcome=verdict.outcome_status != "wrong", high=high, high_ok=high and verdict.top1,
                  claimed_bad=bool(verdict.wrong_claims), graded=graded(case, result))


def table(rows: list[Scored]) -> str:
    """Per category: cases, right outcome, and for fix cases top-1 / found; HIGH answers and their precision."""
    groups: dict[str, list[Scored]] = defaultdict(list)
    for row in rows:
        groups[row.category].append(row)
        groups["ALL"].append(row)
    lines = [f"{'category':16s} {'n':>3s} {'outcome':>7s} {'top-1':>7s} {'found':>7s} {'HIGH':>5s} "
             f"{'HIGH prec':>9s} {'bad claim':>9s}"]
    for name in sorted(groups, key=lambda g: (g == "ALL", g)):
        group = groups[name]
        fixes = [r for r in group if r.fix_case]
        highs = [r for r in group if r.high]
        lines.append(f"{name:16s} {len(group):3d} {sum(r.outcome for r in group):7d} "
                     f"{_ratio(sum(r.top1 for r in fixes), len(fixes)):>7s} "
                     f"{_ratio(sum(r.found for r in fixes), len(fixes)):>7s} {len(highs):5d} "
                     f"{_ratio(sum(r.high_ok for r in highs), len(highs)):>9s} {sum(r.claimed_bad for r in group):9d}")
    return "\n".join(lines)


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole}" if whole else "-"


def parse_setting(assignments: list[str]) -> dict[str, float]:
    setting = {}
    for assignment in assignments:
        target, equals, value = assignment.partition("=")
        if not equals or "." not in target:
            raise SystemExit(f"--set wants MODULE.NAME=VALUE (e.g. weight.max_per_batch=3), got '{assignment}'")
        setting[target] = float(value)
    return setting


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", choices=("message", "fields"), default="message")
    parser.add_argument("--cases", action="append", type=Path, metavar="FILE",
                        help="cases file (repeatable; default: the public cases)")
    parser.add_argument("--db", type=Path, default=CACHE, help="release cache (default: cache.db.example)")
    parser.add_argument("--only", help="run cases whose id contains this text")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="a weight (weight.NAME, lexicon.toml [weight]) or a module constant set for this run "
                             "(repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each case's expected answer")
    args = parser.parse_args()
    cases = [case for case in labelled(args.cases or [CASES]) if not args.only or args.only in case.id]
    with ShippedRunner(args.db) as runner:
        rows = runner.run(cases, args.input, parse_setting(args.set))
    for case, row in zip(cases, rows, strict=True):
        flag = "ok " if row.top1 or (row.outcome and not row.fix_case) else ("~  " if row.found else "XX ")
        print(f"{flag}{row.id:48s} {row.category:16s} got {row.answer}")
        if args.verbose:
            fixes = ", ".join(f"{fix.fixed_in} #{fix.pr}" for fix in case.expect.fixes())
            print(f"      want {case.expect.outcome}: {fixes}")
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
