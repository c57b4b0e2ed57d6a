"""Cost per question on the public cases: a naive reference implementation vs WIF, in one run.

Naive (how a reference implementation works): on every question page through ALL of the
repository's releases with the GitHub API (per_page=100, against FakeGitHub, requests
counted by the server), then send the raw bodies of each batch of 5 stable releases after
the user's version to the LLM, one call per batch with the problem, until the batch that
contains the expected fix (or all batches). Prompt size = raw bodies + problem per call.

WIF: the real `build_workflow` run per question (fields input), against the same
FakeGitHub and a release cache. GitHub requests are the run's own. Prompt size:
  * offline — what the OpenAI engine would send for the batches actually scanned: the
    compact entry lines of each `filter_relevant_entries` batch + problem;
  * oracle  — with `--oracle`, the OpenAI engine against a fake LLM that answers
    perfectly (picks the expected PR's line, scores it high): the exact text of every LLM
    call (system prompts, entry batches, PR scoring and verification), from the call records.

Wall time excludes LLM latency on both sides. Tokens ≈ characters / 4.

    python bench/bench_cost.py [--db cache.db] [--oracle] [--cases tests/data/eval/cases.jsonl]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from github import Github

from bench.fixture_cache import all_fixture_repos, build_cache
from indexer.versions import parse_tag, version_key
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from wif_action.app import AppConfig, build_workflow
from wif_action.commands.eval_cases import case_input
from wif_action.engines import DEFAULT_MODEL, DEFAULT_VERIFY_MODEL
from wif_action.engines.openai_engine import _entry_line
from wif_action.evaluation import Case, load_cases
from wif_action.run_records.tables import format_table
from wif_action.tools.cache import SqliteReleaseCache
from wif_action.tools.llm_models import cost_usd, price_for
from wif_action.tools.progress import RecordingProgress

ROOT = Path(__file__).resolve().parent.parent
BATCH = 5
ORACLE = "wif + oracle LLM (all prompts)"
SKIPPED_CATEGORIES = {"unknown_sdk", "missing_version", "invalid_version"}  # no release range to compare


@dataclasses.dataclass
class Cost:
    requests: int = 0
    prompt_chars: int = 0
    llm_calls: int = 0
    seconds: float = 0.0
    batches: list[list[str]] = dataclasses.field(default_factory=list)  # tags sent, per LLM call (naive)
    derived: bool = False  # computed from another run: no requests or wall time of its own
    usd: float | None = None  # LLM cost at list prices, prompt caching as the fake server simulates it
    usd_uncached: float | None = None  # … had no prompt token been cached
    cached_tokens: int = 0
    prompt_tokens: int = 0  # as the LLM server counted them

    @property
    def tokens(self) -> int:
        return self.prompt_chars // 4


# -- the naive reference ------------------------------------------------------------------------------
def naive_cost(fake: FakeGitHub, case: Case) -> Cost:
    before = fake.total_requests()
    started = time.perf_counter()
    releases = all_releases(fake, _repo(case))
    after = _stable_after(releases, case.version)
    batches = [after[i:i + BATCH] for i in range(0, len(after), BATCH)]
    cost = Cost()
    for batch in batches:
        cost.prompt_chars += sum(len(r.get("body") or "") for r in batch) + len(case.problem or "")
        cost.llm_calls += 1
        cost.batches.append([r["tag_name"] for r in batch])
        if _contains_fix(batch, case):
            break
    cost.seconds = time.perf_counter() - started
    cost.requests = fake.total_requests() - before
    return cost


def _repo(case: Case) -> str:
    """The case's repository (`run` keeps only cases that name one)."""
    if case.repo is None:
        raise ValueError(f"case {case.id} names no repository")
    return case.repo


def all_releases(fake: FakeGitHub, repo: str) -> list[dict]:
    """Every release of `repo`, page by page (per_page=100), as the reference implementation reads them."""
    requester = Github(base_url=fake.url, per_page=100, retry=None, seconds_between_requests=0).requester
    releases: list[dict] = []
    for page in range(1, 1000):
        _, data = requester.requestJsonAndCheck("GET", f"/repos/{repo}/releases", {"per_page": 100, "page": page})
        releases += data
        if len(data) < 100:
            break
    return releases


def _stable_after(releases: list[dict], version: str | None) -> list[dict]:
    user = parse_tag(version)
    if user is None:
        return []
    stable = [(parse_tag(r["tag_name"]), r) for r in releases if not r.get("draft") and not r.get("prerelease")]
    newer = [(v, r) for v, r in stable if v is not None and not v.is_prerelease and v > user]
    return [r for _, r in sorted(newer, key=lambda pair: version_key(pair[0]))]


def _contains_fix(batch: list[dict], case: Case) -> bool:
    wanted = {ref.fixed_in.lstrip("v") for ref in case.expect.fixes()}
    return any(r["tag_name"].lstrip("v") in wanted for r in batch)


def compact_cost(cache: SqliteReleaseCache, repo: str, naive: Cost, problem: str) -> Cost:
    """The naive run's own batches, sent as WIF's compact entry lines instead of raw bodies."""
    cost = Cost(llm_calls=naive.llm_calls, derived=True)
    for tags in naive.batches:
        ids = [release.id for release in (cache.find_release(repo, tag) for tag in tags) if release]
        entries = cache.entries(ids)
        cost.prompt_chars += len("\n".join(_entry_line(i, e) for i, e in enumerate(entries, 1))) + len(problem)
    return cost


# -- WIF --------------------------------------------------------------------------------------------
class BatchMeter:
    """Wraps the judge: measures the compact prompt of every `filter_relevant_entries` batch."""

    def __init__(self, judge: Any):
        self._judge = judge
        self.chars = 0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._judge, name)

    def filter_relevant_entries(self, entries, question):
        if entries:
            self.calls += 1
            self.chars += len("\n".join(_entry_line(i, e) for i, e in enumerate(entries, 1))) + len(question.problem)
        return self._judge.filter_relevant_entries(entries, question)


def wif_cost(config: AppConfig, fake: FakeGitHub, case: Case) -> Cost:
    """One question through the real workflow; prompt size from the batches or the LLM call records."""
    before = fake.total_requests()
    started = time.perf_counter()
    workflow = build_workflow(config, RecordingProgress())
    meter = BatchMeter(workflow.tools.judge)
    llm = getattr(workflow.tools.judge, "llm", None)
    if llm is None:
        workflow.tools.judge = meter
    answer = workflow.run(case_input(case, "fields"))
    seconds = time.perf_counter() - started
    assert answer.usage.github_requests == fake.total_requests() - before, "request count mismatch"
    if llm is not None:
        calls = llm.calls
        prices = [price_for(c.model, {}) for c in calls]
        uncached = None if None in prices else sum(
            cost_usd(p, c.prompt_tokens, 0, c.completion_tokens) for p, c in zip(prices, calls, strict=True) if p)
        return Cost(answer.usage.github_requests, sum(len(c.prompt_text) for c in calls), len(calls), seconds,
                    usd=llm.cost_usd(), usd_uncached=uncached, cached_tokens=sum(c.cached_tokens for c in calls),
                    prompt_tokens=sum(c.prompt_tokens for c in calls))
    return Cost(answer.usage.github_requests, meter.chars, meter.calls, seconds)


def oracle(case: Case):
    """A fake LLM that knows the expected fix: it picks that PR's line and scores it high."""
    prs = {ref.pr for ref in case.expect.fixes()}

    def respond(request: dict) -> Any:
        schema = request["response_format"]["json_schema"]["name"]
        user = request["messages"][-1]["content"]
        if schema == "RelevantEntries":
            ids = [int(m.group(1)) for m in re.finditer(r"^\[(\d+)\] (.*)$", user, re.M)
                   if any(f"#{pr}" in m.group(2) for pr in prs)]
            return {"entries": [{"id": i, "pr": None, "relevance": 0.9, "reason": "names the symptom"} for i in ids]}
        if schema == "PRScore":
            hit = any(f"PR #{pr} " in user for pr in prs)
            return {"confidence": "high" if hit else "low", "reason": "The PR title describes the symptom."}
        if schema == "PRVerdict":
            return {"objection": None, "confirmed": True, "reason": "The change addresses the symptom."}
        return None

    return respond


# -- report -----------------------------------------------------------------------------------------
def ratio(a: float, b: float) -> str:
    return "∞ (WIF: 0)" if not b and a else ("–" if not b else f"{a / b:.1f}×")


def summary_rows(name: str, costs: list[Cost]) -> list:
    def mean(attr: str) -> float:
        return statistics.fmean(getattr(c, attr) for c in costs)

    derived = all(c.derived for c in costs)
    return [name, None if derived else mean("requests"), mean("llm_calls"), mean("prompt_chars"), mean("tokens"),
            float(statistics.median(c.prompt_chars for c in costs)), None if derived else mean("seconds") * 1000]


def run(args: argparse.Namespace) -> None:
    cases = [c for c in load_cases(args.cases) if c.category not in SKIPPED_CATEGORIES and c.repo and c.version
             and (c.category == "bundled_fix") == args.bundled]
    with tempfile.TemporaryDirectory() as tmp, FakeGitHub() as fake:
        fake.rate_limit_remaining = fake.rate_limit_limit = 10**9
        db = args.db or build_cache(Path(tmp) / "cache.db", [(r, r) for r in all_fixture_repos()])
        cache = SqliteReleaseCache.open(db)
        offline = AppConfig(db=db, engine="offline", env={"GITHUB_API_URL": fake.url})
        columns: dict[str, list[Cost]] = {"naive": [], "naive batches as compact lines": [], "wif offline": []}
        for case in cases:
            naive = naive_cost(fake, case)
            columns["naive"].append(naive)
            compact = compact_cost(cache, _repo(case), naive, case.problem or "")
            columns["naive batches as compact lines"].append(compact)
            columns["wif offline"].append(wif_cost(offline, fake, case))
        if args.oracle:
            columns[ORACLE] = oracle_costs(db, fake, cases)
    print_report(cases, columns, args.per_case)


def oracle_costs(db: str | Path, fake: FakeGitHub, cases: list[Case]) -> list[Cost]:
    costs = []
    with FakeOpenAI() as llm:
        env = {"GITHUB_API_URL": fake.url, "OPENAI_API_KEY": "sk-bench-0000000000", "OPENAI_BASE_URL": llm.url + "/v1",
               "WIF_LLM_MAX_RETRIES": "0"}
        config = AppConfig(db=db, engine="openai", env=env)
        for case in cases:
            llm.responder = oracle(case)
            costs.append(wif_cost(config, fake, case))
    return costs


def print_report(cases: list[Case], columns: dict[str, list[Cost]], show_cases: bool) -> None:
    headers = ["per question (mean)", "GitHub requests", "LLM calls", "prompt chars", "≈ tokens",
               "prompt chars (median)", "wall ms"]
    rows = [summary_rows(name, costs) for name, costs in columns.items()]
    print(f"Cost per question — {len(cases)} public cases with a release range (naive vs WIF)\n")
    print(format_table(headers, rows))
    naive = columns["naive"]
    print("\nRatios (naive ÷ variant, totals over all questions)")
    ratio_rows = []
    for name, costs in list(columns.items())[1:]:
        ratio_rows.append([name] + [
            "–" if costs[0].derived and a in ("requests", "seconds")
            else ratio(sum(getattr(c, a) for c in naive), sum(getattr(c, a) for c in costs))
            for a in ("requests", "llm_calls", "prompt_chars", "seconds")])
    print(format_table(["variant", "GitHub requests", "LLM calls", "prompt size", "wall time"], ratio_rows))
    oracle = columns.get(ORACLE, [])
    if oracle and all(c.usd is not None and c.usd_uncached is not None for c in oracle):
        usd = [c.usd or 0.0 for c in oracle]
        uncached = [c.usd_uncached or 0.0 for c in oracle]
        share = sum(c.cached_tokens for c in oracle) / max(1, sum(c.prompt_tokens for c in oracle))
        print(f"\nLLM cost per question ({ORACLE}; the default models, {DEFAULT_MODEL} and verify "
              f"{DEFAULT_VERIFY_MODEL}, at the list prices of wif_action/tools/llm_models.py): "
              f"mean ${statistics.fmean(usd):.4f}, "
              f"median ${statistics.median(usd):.4f}, max ${max(usd):.4f}; {share:.0%} of prompt tokens served "
              f"from the fake's prompt cache — without it mean ${statistics.fmean(uncached):.4f}")
    if show_cases:
        names = list(columns)
        print("\nPer case: GitHub requests / prompt chars (" + ", ".join(names) + ")")
        rows = [[case.id, case.category, *(columns[n][i].requests for n in names[:1] + names[2:]),
                 *(columns[n][i].prompt_chars for n in names)] for i, case in enumerate(cases)]
        short = ["naive", "compact", "offline", "oracle"][:len(names)]
        print(format_table(["case", "category", *(f"req {n}" for n in short[:1] + short[2:]),
                            *(f"chars {n}" for n in short)], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=str(ROOT / "tests/data/eval/cases.jsonl"))
    parser.add_argument("--db", help="release cache (default: built from the fixtures in a temp dir)")
    parser.add_argument("--bundled", action="store_true",
                        help="the bundled_fix cases instead of the others (reported apart, as in `wif eval`)")
    parser.add_argument("--oracle", action="store_true", help="also run the OpenAI engine against an oracle fake LLM")
    parser.add_argument("--per-case", action="store_true", help="print the per-case table too")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
