"""What each ✓ rests on: per HIGH answer of the labelled pool, the concepts its headline names and which one alone,
taken away, would drop it to MEDIUM — the right ✓s next to the wrong ones.

Why: a HIGH that one concept carries, or one that a word everyday in the repository's notes carries, or one named
only by the PR title, is a thin basis; on repositories nobody tuned WIF on such a ✓ is wrong more often. This lists,
per ✓, the named concepts (key, share of the repository's notes naming it, where it is named: the release line or
the PR title only) and marks those whose removal drops the HIGH (`scoring.confidence` and `scoring.verified` again on
the evidence without it), then sums the traits over right and wrong ✓s.

    python bench/robustness.py --db /tmp/c.db [--mode fields] [--json out.json] [ID …]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.calibrate_offline import judge_weights, parse_setting, thresholds  # noqa: E402
from bench.labelled import fixture_dir, registry_file  # noqa: E402
from bench.quality_report import labelled_cases  # noqa: E402
from bench.why_missed import MODES  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action.app import AppConfig, build_workflow  # noqa: E402
from wif_action.candidate_order import top_candidate  # noqa: E402
from wif_action.commands.eval_cases import case_input, result_of  # noqa: E402
from wif_action.engines.offline import judge as offline_judge  # noqa: E402
from wif_action.engines.offline import scoring  # noqa: E402
from wif_action.engines.offline.evidence import Evidence  # noqa: E402
from wif_action.engines.offline.ranking import RepositoryStats  # noqa: E402
from wif_action.evaluation import Case, judge_result  # noqa: E402
from wif_action.lexicon.terms import term_counts  # noqa: E402
from wif_action.models import Answer, Confidence, Entry, PullRequest  # noqa: E402
from wif_action.question import Question  # noqa: E402
from wif_action.tools.progress import RecordingProgress  # noqa: E402

Recorded = dict[tuple[str, int | str], tuple[Evidence, str]]


def without(evidence: Evidence, index: int) -> Evidence:
    """The evidence as if the headline did not name concept `index` (its terms gone from the headline)."""
    other = copy.copy(evidence)
    other.credits = list(evidence.credits)
    other.credits[index] = 0.0
    other.matched = list(evidence.matched)
    other.matched[index] = set()
    keys = {t.key for t in evidence.concepts[index].terms}
    other.headline = {k: v for k, v in evidence.headline.items() if k not in keys}
    return other


def still_high(evidence: Evidence, weights: scoring.Thresholds) -> bool:
    return scoring.confidence(evidence, weights) is Confidence.HIGH and scoring._strong_headline(evidence, weights)


def describe(evidence: Evidence, entry_text: str, weights: scoring.Thresholds) -> dict:
    """The named concepts of a HIGH and which of them carry it alone."""
    named = evidence.named(weights.named_credit)
    index = {id(c): i for i, c in enumerate(evidence.concepts)}
    line = term_counts(entry_text[:400])
    rows = []
    for concept in named:
        i = index[id(concept)]
        share = round(evidence.shares[i], 3) if evidence.shares else 0.0
        rows.append({"key": evidence.keys[i], "head": concept.terms[0].key, "share": share,
                     "credit": evidence.credits[i], "in_line": bool(line.get(evidence.keys[i])),
                     "carries": not still_high(without(evidence, i), weights)})
    heaviest = evidence.concepts[0] if evidence.concepts else None
    return {"named": rows, "concepts": len(evidence.concepts),
            "heaviest_named": heaviest is not None and any(c is heaviest for c in named),
            "heaviest": heaviest.terms[0].key if heaviest is not None else "", "coverage": round(evidence.coverage, 3),
            "mass": round(evidence.headline_mass / evidence.scale, 2), "fix_verb": evidence.fix_verb,
            "symptoms_asked": sorted(evidence.symptoms_asked), "symptoms_named": sorted(evidence.symptoms_named),
            "linked": evidence.linked_issue is not None, "quoted_unique": evidence.quoted_unique}


def answer(case: Case, mode: str, config: AppConfig) -> tuple[Answer, Recorded]:
    """The answer and the evidence of the first scoring of each PR (the scan's, with the PR's title and body; a
    later one may be a rival's reading of the line alone), with the PR title it read."""
    first: Recorded = {}
    method = offline_judge.OfflineJudge._evidence

    def evidence(self: offline_judge.OfflineJudge, pr: PullRequest, entry: Entry | None,
                 question: Question) -> tuple[RepositoryStats, Evidence]:
        stats, found = method(self, pr, entry, question)
        first.setdefault((pr.repo, pr.number if pr.commit is None else f"commit:{pr.commit}"), (found, pr.title))
        return stats, found

    offline_judge.OfflineJudge._evidence = evidence  # type: ignore[method-assign]
    try:
        guard = case.max_releases or config.max_releases
        workflow = build_workflow(replace(config, max_releases=guard), RecordingProgress())
        return workflow.run(case_input(case, mode)), first
    finally:
        offline_judge.OfflineJudge._evidence = method  # type: ignore[method-assign]


def inspect(case: Case, mode: str, config: AppConfig) -> dict | None:
    """One HIGH answer (None for any other): right or wrong, and what its evidence rests on (`describe`)."""
    result, record = answer(case, mode, config)
    top = top_candidate(result.candidates)
    if top is None or top.confidence is not Confidence.HIGH:
        return None
    verdict = judge_result(case, result_of(case.id, result, 0.0))
    key = (top.repo or case.repo or "", top.pr if top.pr is not None else f"commit:{top.commit}")
    found = record.get(key)
    row = {"id": case.id, "mode": mode, "right": verdict.top1, "top": f"{top.version} #{top.pr}",
           "entry": top.entry[:140], "title": found[1][:140] if found else ""}
    if found is not None:
        row.update(describe(found[0], top.entry, config.weights or scoring.SHIPPED))
    return row


def summary(rows: list[dict]) -> None:
    """Per trait, how many right and wrong ✓s have it."""
    traits = {
        "one concept carries it": lambda r: sum(n["carries"] for n in r.get("named", [])) >= 1,
        "every named concept carries it": lambda r: r.get("named") and all(n["carries"] for n in r["named"]),
        "a carrier only in the PR title": lambda r: any(n["carries"] and not n["in_line"] for n in r.get("named", [])),
        "a carrier with share >= 0.05": lambda r: any(n["carries"] and n["share"] >= 0.05 for n in r.get("named", [])),
        "a named concept with share >= 0.1": lambda r: any(n["share"] >= 0.1 for n in r.get("named", [])),
        "two named concepts": lambda r: len(r.get("named", [])) == 2,
        "no fix verb": lambda r: not r.get("fix_verb", True),
        "the heaviest concept not named": lambda r: "heaviest_named" in r and not r["heaviest_named"],
        "a carrier named by a word of its phrase": lambda r: any(n["carries"] and n["key"] != n["head"]
                                                                 for n in r.get("named", [])),
    }
    for mode in MODES:
        mine = [r for r in rows if r["mode"] == mode]
        right, wrong = [r for r in mine if r["right"]], [r for r in mine if not r["right"]]
        print(f"{mode}: {len(right)} right ✓, {len(wrong)} wrong ✓")
        for name, test in traits.items():
            hits = sum(bool(test(r)) for r in right), sum(bool(test(r)) for r in wrong)
            print(f"  {name:40s} right {hits[0]:4d}   wrong {hits[1]:3d}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--db", required=True)
    parser.add_argument("--mode", choices=MODES, action="append")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    cases = [c for c in labelled_cases() if not args.ids or c.id in args.ids]
    weights, rest = judge_weights(parse_setting(args.set))
    rows = []
    with FakeGitHub(fixture_dir()) as github, thresholds(rest):
        github.rate_limit_limit = github.rate_limit_remaining = 10**9
        config = AppConfig(db=Path(args.db), engine="offline", env={"GITHUB_API_URL": github.url}, weights=weights,
                           registry=registry_file())
        for mode in args.mode or MODES:
            for case in cases:
                found = inspect(case, mode, config)
                if found is not None:
                    rows.append(found)
                    if not found["right"] or args.ids:
                        print(json.dumps(found))
    summary(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
