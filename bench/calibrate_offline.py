"""Calibrate the offline engine on tests/data/eval/cases.jsonl by emulating the workflow offline.

Per case: extract the request with the offline engine, gate it like Subtasks 2 and 4
(unknown SDK / missing or invalid version / too old / already latest), follow linked
issues through the fixtures' `closes_issues` (the workflow asks GitHub), then scan the
stable releases after the user's version in batches of 5, oldest first:
filter → score → verify → the engine-independent checks (wif_action/objections.py), stopping at
the first confirmed HIGH. PRs the user already has (`cache.user_has_pr`) are skipped, as the
workflow does. The answer is the first HIGH, else the oldest MEDIUM nothing objects to. It runs
in seconds, so thresholds can be tried quickly; `wif eval`
(the real workflow against the fake GitHub) gives the same numbers within a case or two.

    python bench/calibrate_offline.py                        # builds a scratch cache from the fixtures
    python bench/calibrate_offline.py --db cache.db.example -v --only cocoa
    python bench/calibrate_offline.py --input fields         # sdk/version/problem given as fields
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from indexer.registry import load_registry  # noqa: E402
from indexer.schema import open_cache  # noqa: E402
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry  # noqa: E402
from wif_action.engines.offline import OfflineJudge  # noqa: E402
from wif_action.models import Confidence, Entry, PullRequest, Release, Request, Score  # noqa: E402
from wif_action.objections import weighed  # noqa: E402
from wif_action.question import Question, question_of  # noqa: E402
from wif_action.tools.cache import SqliteReleaseCache  # noqa: E402

FIXTURES = ROOT / "tests" / "data" / "github"
CASES = ROOT / "tests" / "data" / "eval" / "cases.jsonl"
BATCH = 5


@dataclass
class Found:
    """One candidate the emulated scan produced."""

    version: str
    pr: int
    confidence: Confidence
    source: str
    reason: str
    objected: bool = False  # an engine-independent check (wif_action/objections.py) found a reason against it


@dataclass
class Outcome:
    kind: str  # high, medium, no_result, too_old, already_latest, needs_clarification
    candidates: list[Found] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)


def build_cache(path: Path) -> None:
    """A release cache from the test fixtures (releases, entries, pulls)."""
    db = open_cache(path, create=True)
    for fixture in sorted(FIXTURES.glob("*.json.gz")):
        data = json.loads(gzip.decompress(fixture.read_bytes()))
        releases = [ReleaseRecord(id=r["id"], tag=r["tag_name"], name=r.get("name"), body=r.get("body"),
                                  draft=bool(r.get("draft")), prerelease=bool(r.get("prerelease")),
                                  published_at=r.get("published_at"), url=r.get("html_url"))
                    for r in data["releases"]]
        pulls = [{"number": p["number"], "title": p.get("title") or "", "body": p.get("body") or "",
                  "state": p.get("state") or "", "merged": int(bool(p.get("merged"))),
                  "merged_at": p.get("merged_at"), "merge_commit_sha": p.get("merge_commit_sha"),
                  "url": p.get("html_url")} for p in data["pulls"].values()]
        update = RepositoryUpdate(data["repo"], releases, None, pulls)
        write_with_retry(db, lambda update=update: apply_update(db, update), print)


def closing_prs() -> dict[tuple[str, int], list[int]]:
    """(repo, issue) → PRs that close it, from the fixtures (stands in for the GitHub API)."""
    closes: dict[tuple[str, int], list[int]] = defaultdict(list)
    for fixture in sorted(FIXTURES.glob("*.json.gz")):
        data = json.loads(gzip.decompress(fixture.read_bytes()))
        for pull in data["pulls"].values():
            for issue in pull.get("closes_issues") or []:
                closes[(data["repo"], int(issue))].append(int(pull["number"]))
    return closes


class Emulator:
    def __init__(self, cache: SqliteReleaseCache, judge: OfflineJudge, closes: dict):
        self.cache, self.judge, self.closes = cache, judge, closes
        self._analysed: tuple[Request, Question] | None = None

    def run(self, case: dict, mode: str) -> tuple[Request, Outcome]:
        request = self._request(case, mode)
        if not request.repo or not request.version:
            return request, Outcome("needs_clarification")
        user = self.cache.find_release(request.repo, request.version)
        if user is None:
            return request, Outcome("needs_clarification")
        count = self.cache.count_stable_after(request.repo, user.version_key)
        if count > 100:
            return request, Outcome("too_old")
        if count == 0:
            return request, Outcome("already_latest")
        outcome = Outcome("no_result")
        self._links(request, user, outcome)
        if not any(c.confidence == Confidence.HIGH for c in outcome.candidates):
            self._scan(request, user, outcome)
        highs = [c for c in outcome.candidates if c.confidence == Confidence.HIGH]
        outcome.kind = "high" if highs else ("medium" if outcome.candidates else "no_result")
        return request, outcome

    def _request(self, case: dict, mode: str) -> Request:
        """What the workflow would pass the engine: `message` extracts everything from the text (links
        given apart are appended); `fields` takes the case's sdk/version/problem as given, and the
        problem is also the raw text, as the workflow does; `problem` extracts but uses the case's problem."""
        links = case.get("links") or []
        if mode == "fields":
            return Request(sdk=case["sdk"], repo=case["repo"], version=case["version"], problem=case["problem"],
                           links=links, raw_text=case["problem"])
        text = case["message"] + "".join(f"\n{link}" for link in links if link not in case["message"])
        request = self.judge.extract_request(text)
        if mode == "problem":
            request = request.model_copy(update={"problem": case["problem"]})
        return request

    def _links(self, request: Request, user: Release, outcome: Outcome) -> None:
        for link in request.links:
            parts = link.rstrip("/").split("/")
            repo, number = f"{parts[-4]}/{parts[-3]}", int(parts[-1])
            prs = [number] if parts[-2] == "pull" else self.closes.get((repo, number), [])
            for pr in prs:
                release = self.cache.first_stable_release_with_pr(repo, pr)
                if release is None or release.version_key <= user.version_key or \
                        self.cache.user_has_pr(repo, pr, user):
                    outcome.trace.append(f"link PR #{pr} discarded")
                    continue
                entry = next((e for e in self.cache.entries([release.id]) if pr in e.prs), None)
                self._evaluate(request, pr, entry, release, "link", outcome)

    def _question(self, request: Request) -> Question:
        """The request analysed once, as the workflow does."""
        if self._analysed is None or self._analysed[0] is not request:
            self._analysed = (request, question_of(request, self.judge.registry))
        return self._analysed[1]

    def _scan(self, request: Request, user: Release, outcome: Outcome) -> None:
        releases = self.cache.stable_after(request.repo, user.version_key, 101)
        for start in range(0, len(releases), BATCH):
            batch = releases[start:start + BATCH]
            entries = [e for e in self.cache.entries([r.id for r in batch])
                       if not (e.prs and all(self.cache.user_has_pr(request.repo, p, user) for p in e.prs))]
            for item in self.judge.filter_relevant_entries(entries, self._question(request)):
                if item.pr is None or any(c.pr == item.pr for c in outcome.candidates):
                    continue
                self._evaluate(request, item.pr, item.entry, item.entry.release, "scan", outcome)
            if any(c.confidence == Confidence.HIGH for c in outcome.candidates):
                return

    def _evaluate(self, request: Request, pr: int, entry: Entry | None, release: Release, source: str,
                  outcome: Outcome) -> None:
        repo = release.repo
        pull = self.cache.cached_pull(repo, pr) or PullRequest(
            repo=repo, number=pr, title=entry.text if entry else f"PR #{pr}",
            url=f"https://github.com/{repo}/pull/{pr}")
        score = self.judge.score_pr_confidence(pull, entry, self._question(request))
        level, reason = score.confidence, score.reason
        if level == Confidence.HIGH:
            verdict = self.judge.verify_pr_match(pull, entry, self._question(request))
            if not verdict.confirmed:
                level, reason = Confidence.MEDIUM, f"{reason} [verify: {verdict.reason}]"
        weighed_score, objected = weighed(Score(confidence=level, reason=reason), pull, entry,
                                          self._question(request))
        level, reason = weighed_score.confidence, weighed_score.reason
        outcome.trace.append(f"{source} {release.tag} #{pr} {level.value}: {reason}")
        if level != Confidence.LOW:
            outcome.candidates.append(Found(release.tag, pr, level, source, reason, objected))


def _norm(version: str | None) -> str:
    return (version or "").lstrip("vV")


def judge_case(case: dict, request: Request, outcome: Outcome) -> dict:
    """Per-case metrics: extraction, outcome, top-1 and found (fix cases), HIGH correctness, must-not-claim.

    The answer is the first HIGH, else the oldest MEDIUM nothing objects to (as the workflow renders it). An
    `already_has_fix` case's outcome is right when no fix is claimed HIGH (a MEDIUM is tolerated).
    """
    expect = case["expect"]
    good = {(_norm(expect.get("fixed_in")), pr) for pr in expect.get("prs", [])}
    good |= {(_norm(a["fixed_in"]), a["pr"]) for a in expect.get("also_acceptable", [])}
    bad = {a["pr"] for a in expect.get("must_not_claim", [])}
    highs = [c for c in outcome.candidates if c.confidence == Confidence.HIGH]
    answer = highs[0] if highs else min(outcome.candidates, key=lambda c: (c.objected, _key(c.version)), default=None)
    fix_case = expect["outcome"] == "high"
    wanted = {expect["outcome"]} | ({"medium"} if expect["outcome"] == "no_result" else set())
    return {
        "extraction": request.repo == case["repo"] and _norm(request.version) == _norm(case["version"]),
        "outcome": outcome.kind in wanted or (fix_case and bool(answer) and (_norm(answer.version), answer.pr) in good
                                                and outcome.kind == "high"),
        "fix_case": fix_case,
        "top1": fix_case and bool(answer) and (_norm(answer.version), answer.pr) in good,
        "found": fix_case and any((_norm(c.version), c.pr) in good for c in outcome.candidates),
        "high": bool(highs),
        "high_ok": bool(highs) and (_norm(highs[0].version), highs[0].pr) in good,
        "claimed_bad": any(c.pr in bad for c in outcome.candidates),
        "answer": f"{outcome.kind}:{answer.version}#{answer.pr}" if answer else outcome.kind,
    }


def _key(version: str) -> tuple:
    from indexer.versions import parse_tag, version_key

    parsed = parse_tag(version)
    return (version_key(parsed),) if parsed else (version,)


def table(rows: list[tuple[dict, dict]]) -> str:
    """Per category: cases, right extraction, right outcome, and for fix cases top-1 / found / HIGH precision."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for case, result in rows:
        groups[case["category"]].append(result)
        groups["ALL"].append(result)
    lines = [f"{'category':16s} {'n':>3s} {'extract':>7s} {'outcome':>7s} {'top-1':>7s} {'found':>7s} {'HIGH':>5s} "
             f"{'HIGH prec':>9s} {'bad claim':>9s}"]
    for name in sorted(groups, key=lambda g: (g == "ALL", g)):
        results = groups[name]
        fixes = [r for r in results if r["fix_case"]]
        highs = [r for r in results if r["high"]]
        lines.append(f"{name:16s} {len(results):3d} {sum(r['extraction'] for r in results):7d} "
                     f"{sum(r['outcome'] for r in results):7d} {_ratio(fixes, 'top1'):>7s} "
                     f"{_ratio(fixes, 'found'):>7s} {len(highs):5d} {_ratio(highs, 'high_ok'):>9s} "
                     f"{sum(r['claimed_bad'] for r in results):9d}")
    return "\n".join(lines)


def _ratio(results: list[dict], key: str) -> str:
    return f"{sum(r[key] for r in results)}/{len(results)}" if results else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="release cache to use (default: build one from the fixtures)")
    parser.add_argument("--only", help="run cases whose id contains this text")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each case's trace")
    parser.add_argument("--input", choices=("message", "fields", "problem"), default="message",
                        help="message: extract from the text (default); fields: the case's sdk/version/problem; "
                             "problem: extract, but use the case's hand-written problem")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.db) if args.db else Path(tmp) / "cache.db"
        if not args.db:
            build_cache(path)
        cache = SqliteReleaseCache.open(path)
        emulator = Emulator(cache, OfflineJudge(cache, load_registry()), closing_prs())
        rows = []
        for line in CASES.read_text().splitlines():
            case = json.loads(line)
            if args.only and args.only not in case["id"]:
                continue
            request, outcome = emulator.run(case, args.input)
            result = judge_case(case, request, outcome)
            rows.append((case, result))
            expected = case["expect"].get("fixed_in"), case["expect"].get("prs")
            flag = "ok " if result["top1"] or (result["outcome"] and not result["fix_case"]) else (
                "~  " if result["found"] else "XX ")
            print(f"{flag}{case['id']:48s} {case['category']:16s} got {result['answer']:28s} want {expected}")
            if args.verbose:
                for step in outcome.trace:
                    print(f"      {step}")
        print()
        print(table(rows))


if __name__ == "__main__":
    main()
