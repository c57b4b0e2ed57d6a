"""`wif eval`'s harness: each case through a freshly built workflow, as `wif ask` runs it, and the report
(the command is `commands/evaluate.py`, which loads this, and with it the workflow, only when cases run)."""


from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from indexer.registry import RegistryError
from indexer.schema import CacheError
from wif_action.app import AppConfig, build_workflow
from wif_action.evaluation import (
    Case,
    CaseFileError,
    CaseResult,
    Claim,
    Verdict,
    load_cases,
    summarize,
    top_candidate,
)
from wif_action.models import Answer, AskInput
from wif_action.ports import ToolError
from wif_action.run_records.tables import format_table
from wif_action.subtasks.judging import fell_back
from wif_action.tools.progress import RecordingProgress

SETUP_ERRORS = (CacheError, RegistryError, ValueError)


def run_eval(args: argparse.Namespace) -> int:
    """`wif eval` with its parsed arguments."""
    try:
        cases = select(load_cases(args.cases), args.only, args.case)
    except CaseFileError as error:
        print(f"wif eval: {error}", file=sys.stderr)
        return 2
    config = AppConfig(db=args.db, engine=args.engine, registry=args.registry, runs_db=args.runs_db,
                       run_source="eval")
    try:
        judge = build_workflow(dataclasses.replace(config, runs_db=None), RecordingProgress()).tools.judge
        preflight(judge)
        results = [run_case(case, args.input, config) for case in cases]
    except SETUP_ERRORS as error:
        print(f"wif eval: {error}", file=sys.stderr)
        return 2
    except ToolError as error:
        print(f"wif eval: the {judge.name} engine's endpoint failed the check before the first case "
              f"({error.reason}); nothing was evaluated", file=sys.stderr)
        return 2
    counted = [r for r in results if not r.fell_back]
    apart = [r for r in results if r.fell_back]
    header = {"cases_file": str(args.cases), "engine": _engine_label(judge), "input": args.input,
              "db": str(args.db), "fell_back": [r.id for r in apart]}
    report = summarize(cases, counted) if counted else None
    if args.json:
        print(json.dumps(to_json(header, report, results), ensure_ascii=False))
    else:
        print(render_report(header, report, results, cases))
    return 1 if apart else 0


def preflight(judge: object) -> None:
    """A remote engine answers one tiny call per model before any case runs (raises ToolError)."""
    check = getattr(judge, "preflight", None)
    if check is not None:
        check()


def _engine_label(judge: object) -> str:
    name = str(getattr(judge, "name", "?"))
    model, verify = getattr(judge, "model", None), getattr(judge, "verify_model", None)
    if not model:
        return name
    return f"{name} ({model}" + (f", verify {verify})" if verify and verify != model else ")")


def select(cases: list[Case], only: str | None, ids: list[str]) -> list[Case]:
    """The cases to run; an --only or --case that matches nothing is a usage error."""
    if only:
        wanted = {name.strip() for name in only.split(",") if name.strip()}
        cases = [case for case in cases if case.category in wanted]
    if ids:
        cases = [case for case in cases if case.id in set(ids)]
    if not cases:
        raise CaseFileError("no case matches --only/--case")
    return cases


def case_input(case: Case, mode: str) -> AskInput:
    """What a trigger would pass for this case."""
    if mode == "message":
        return AskInput(message=case.message, links=list(case.links))
    return AskInput(repo=case.repo, sdk=None if case.repo else case.sdk, version=case.version,
                    problem=case.problem, links=list(case.links))


def run_case(case: Case, mode: str, config: AppConfig) -> CaseResult:
    """One case through a fresh workflow; an exception inside the run is a result, not a harness failure."""
    started = time.perf_counter()
    guard = case.max_releases or config.max_releases  # the case is asked as `wif ask --max-releases N` would
    workflow = build_workflow(dataclasses.replace(config, run_source=f"eval:{case.id}", max_releases=guard),
                              RecordingProgress())
    try:
        answer = workflow.run(case_input(case, mode))
    except Exception as error:  # the harness reports a crashing case and goes on
        return CaseResult(id=case.id, outcome="error", seconds=time.perf_counter() - started,
                          error=f"{type(error).__name__}: {error}"[:300], summary="the run raised")
    return result_of(case.id, answer, time.perf_counter() - started)


def result_of(case_id: str, answer: Answer, seconds: float) -> CaseResult:
    claims = [Claim(version=c.version, tag=c.tag, pr=c.pr, confidence=c.confidence.value, reason=c.reason,
                    repo=c.repo, objected=c.objected, commit=c.commit, strength=c.strength,
                    breadth=c.breadth, second_look=c.second_look, filed=c.filed)
              for c in answer.candidates]
    usage = answer.usage
    result = CaseResult(id=case_id, outcome=answer.outcome.value, candidates=claims,
                        github_requests=usage.github_requests, llm_calls=usage.llm_calls,
                        prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                        cached_tokens=usage.cached_tokens, reasoning_tokens=usage.reasoning_tokens,
                        cost_usd=usage.cost_usd if usage.llm_calls else 0.0, seconds=round(seconds, 3),
                        fell_back=fell_back(answer.skipped))
    result.summary = _summary(result, answer)
    return result


def _summary(result: CaseResult, answer: Answer) -> str:
    """Why it answered that: the top candidate's reason, else the answer's headline (+ skipped steps)."""
    top = top_candidate(result)
    text = top.reason if top else next((line for line in answer.message.splitlines() if line.strip()), "")
    if answer.skipped:
        text += " [skipped: " + "; ".join(f"{s.step}: {s.reason}" for s in answer.skipped[:2]) + "]"
    return " ".join(text.split())[:300]


# -- output -------------------------------------------------------------------------------------------
def to_json(header: dict, report: dict | None, results: list[CaseResult]) -> dict:
    """Metrics cover the counted cases only; a case that fell back carries `fell_back` and no verdict."""
    verdicts = {v.id: v for v in report["verdicts"]} if report else {}
    cases = [{**r.model_dump(), **verdicts[r.id].model_dump(exclude={"id", "outcome"}), "miss": verdicts[r.id].miss}
             if r.id in verdicts else r.model_dump() for r in results]
    metrics = {key: value for key, value in report.items() if key != "verdicts"} if report else None
    return {**header, "metrics": metrics, "cases": cases}


def render_report(header: dict, report: dict | None, results: list[CaseResult], cases: list[Case]) -> str:
    title = (f"WIF eval — {len(results)} cases from {header['cases_file']}, engine {header['engine']}, "
             f"input {header['input']}")
    apart = _fell_back_section(header["engine"], [r for r in results if r.fell_back])
    if report is None:
        return "\n\n".join([title, apart, "No case was judged end to end by this engine: nothing to report."])
    parts = [title, apart, _outcome_section(report), _fix_section(report), _usage_section(report),
             _misses_section(report, results, cases)]
    return "\n\n".join(part for part in parts if part)


def _fell_back_section(engine: str, apart: list[CaseResult]) -> str:
    if not apart:
        return ""
    rows = [[r.id, ", ".join(r.fell_back), r.summary] for r in apart]
    return (f"NOT COUNTED — {len(apart)} case(s) fell back to the offline engine; the metrics below are "
            f"{engine}'s on the other cases only\n" + format_table(["case", "steps answered offline", "why"], rows,
                                                                  limit=110))


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _outcome_section(report: dict) -> str:
    overall = report["outcome"]
    rows = [[name, m["cases"], m["right"], m["acceptable"], _pct(m["accuracy"]),
             "" if m["top1"] is None else m["top1"]] for name, m in report["per_category"].items()]
    rows.append(["ALL", overall["cases"], overall["right"], overall["acceptable"], _pct(overall["accuracy"]),
                 report["fixes"]["top1"]])
    return "Outcome accuracy (right + acceptable)\n" + format_table(
        ["category", "cases", "right", "acceptable", "accuracy", "top-1"], rows)


def _fix_section(report: dict) -> str:
    f = report["fixes"]
    rows = [
        ["top-1 exact (release + PR)", f"{f['top1']}/{f['cases_with_fix']}", _pct(f["top1_rate"])],
        ["found among candidates", f"{f['found']}/{f['cases_with_fix']}", _pct(f["found_rate"])],
        ["precision of HIGH answers", f"{f['right_high']}/{f['high_answers']}", _pct(f["high_precision"])],
        ["cases with a wrong claim (must_not_claim)", f"{f['wrong_claims']}", ""],
    ]
    return "Fixes\n" + format_table(["metric", "count", "rate"], rows)


def _usage_section(report: dict) -> str:
    rows = [[name, s["mean"], s["median"], s["max"], s["total"]] for name, s in report["usage"].items()]
    note = ("" if "cost_usd" in report["usage"] else
            "\n(cost_usd: a model's price is unknown; add it with WIF_PRICES='{\"model\": [in, cached, out]}' "
            "in USD per 1M tokens)")
    return "Cost per case (cost_usd at list prices, wif_action/tools/llm_models.py)\n" + format_table(
        ["measure", "mean", "median", "max", "total"], rows) + note


def _misses_section(report: dict, results: list[CaseResult], cases: list[Case]) -> str:
    by_id = {r.id: r for r in results}
    case_of = {c.id: c for c in cases}
    shown = [v for v in report["verdicts"] if v.miss or v.outcome_status == "acceptable"]
    if not shown:
        return "Misses: none"
    rows = [_miss_row(v, by_id[v.id], case_of[v.id]) for v in shown]
    return "Misses (and tolerated answers)\n" + format_table(
        ["case", "status", "expected", "answered", "top candidate", "why"], rows, limit=110)


def _expected(case: Case) -> str:
    expect = case.expect
    fix = f" {expect.fixed_in} #{'/#'.join(map(str, expect.prs))}" if expect.fixed_in else ""
    return expect.outcome + fix


def _miss_row(verdict: Verdict, result: CaseResult, case: Case) -> list:
    top = top_candidate(result)
    status = "tolerated" if not verdict.miss else ("WRONG CLAIM " + ", ".join(verdict.wrong_claims)
                                                   if verdict.wrong_claims else "miss")
    return [verdict.id, status, _expected(case), result.outcome,
            f"{top.version} {_change(top)} ({top.confidence})" if top else "–", result.error or result.summary]


def _change(claim: Claim) -> str:
    return f"#{claim.pr}" if claim.pr is not None else f"commit {(claim.commit or '?')[:7]}"
