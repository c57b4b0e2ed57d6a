"""`wif eval`: metric definitions on hand-made results, and a regression floor on the public cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer.registry import load_registry
from tests.fakes.github_server import FakeGitHub
from wif_action.cli import main
from wif_action.engines.offline import OfflineJudge
from wif_action.engines.openai_engine import BATCH_ENTRY_CAP
from wif_action.evaluation import (
    Case,
    CaseFileError,
    CaseResult,
    Claim,
    judge_result,
    load_cases,
    summarize,
    top_candidate,
)
from wif_action.question import analyse_question
from wif_action.tools.cache import SqliteReleaseCache

CASES = Path(__file__).parent / "data" / "eval" / "cases.jsonl"

# Regression floors for the offline engine on the public cases (bundled_fix apart): at or just under the
# numbers of leave-one-repository-out cross-validation (bench/crossval_offline.py), which are what the
# engine earns on repositories it was not tuned on. When set: fields CV top-1 33/37, found 35/37, HIGH
# precision 26/27 = 0.96 (`wif eval`: 38/49 outcomes, 33/37, 35/37, 26/26); message CV top-1 33/37, found
# 34/37, HIGH 22/22 (`wif eval`: 34/49, 33/37, 34/37, 22/22).
FLOORS = {
    "fields": {"accuracy": 0.76, "top1": 32, "found": 34, "high_precision": 0.95},
    "message": {"accuracy": 0.67, "top1": 32, "found": 33, "high_precision": 0.95},
}


def case(**fields) -> Case:
    base = {"id": "c", "category": "fix", "expect": {"outcome": "high", "fixed_in": "v1.2.0", "prs": [12]}}
    return Case.model_validate({**base, **fields})


def claim(version: str, pr: int, confidence: str = "high") -> Claim:
    return Claim(version=version.lstrip("v"), tag=version, pr=pr, confidence=confidence)


def result(outcome: str, *claims: Claim, case_id: str = "c") -> CaseResult:
    return CaseResult(id=case_id, outcome=outcome, candidates=list(claims))


# -- metric definitions -----------------------------------------------------------------------------
def test_top1_compares_tags_without_the_leading_v_and_needs_the_right_pr():
    assert judge_result(case(), result("high", claim("1.2.0", 12))).top1
    assert not judge_result(case(), result("high", claim("1.2.0", 13))).top1
    assert not judge_result(case(), result("high", claim("1.3.0", 12))).top1


def test_also_acceptable_counts_for_top1():
    c = case(expect={"outcome": "high", "fixed_in": "1.2.0", "prs": [12],
                     "also_acceptable": [{"fixed_in": "1.4.0", "pr": 40}]})
    verdict = judge_result(c, result("high", claim("v1.4.0", 40)))
    assert verdict.top1 and verdict.found and not verdict.miss


def test_a_fix_citing_a_commit_is_matched_by_sha_prefix_and_never_by_a_pr_line():
    c = case(expect={"outcome": "high", "fixed_in": "v1.2.0", "commits": ["7b0add32bd5fc59ad0fa277ef6982ee1df1eed7a"]})
    by_commit = Claim(version="1.2.0", tag="v1.2.0", pr=None, confidence="high", commit="7b0add3")
    assert judge_result(c, result("high", by_commit)).top1
    other = by_commit.model_copy(update={"commit": "7b0add4"})
    assert not judge_result(c, result("high", other)).found
    too_short = by_commit.model_copy(update={"commit": "7b0"})
    assert not judge_result(c, result("high", too_short)).found
    assert not judge_result(c, result("high", claim("1.2.0", 12))).found  # a PR claim is no commit fix
    forbidden = case(category="already_has_fix", expect={
        "outcome": "no_result", "must_not_claim": [{"fixed_in": "1.2.0", "commit": "7b0add32"}]})
    assert judge_result(forbidden, result("medium", by_commit)).wrong_claims == ["1.2.0 commit 7b0add3"]


def test_a_fix_ref_names_a_pr_or_a_commit(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "x", "category": "already_has_fix", "expect": {
        "outcome": "no_result", "must_not_claim": [{"fixed_in": "1.0.0"}]}}) + "\n")
    with pytest.raises(CaseFileError, match=":1: not a valid case"):
        load_cases(path)
    path.write_text(path.read_text().replace('"1.0.0"', '"1.0.0", "commit": "abcdef1"'))
    assert load_cases(path)[0].expect.must_not_claim[0].commit == "abcdef1"


def test_top_candidate_is_the_first_high_and_found_looks_at_all():
    r = result("high", claim("1.1.0", 11, "medium"), claim("1.3.0", 30), claim("1.2.0", 12, "medium"))
    assert top_candidate(r).pr == 30
    verdict = judge_result(case(), r)
    assert not verdict.top1 and verdict.found and verdict.miss


def test_without_a_high_the_top_candidate_is_the_oldest_medium_nothing_objects_to():
    objected = claim("1.1.0", 11, "medium").model_copy(update={"objected": True})
    r = result("medium", claim("1.3.0", 30, "medium"), objected, claim("1.2.0", 12, "medium"))
    assert top_candidate(r).pr == 12
    assert top_candidate(result("medium", objected)).pr == 11


def test_must_not_claim_is_detected_in_any_candidate():
    c = case(category="already_has_fix",
             expect={"outcome": "no_result", "must_not_claim": [{"fixed_in": "v0.9.0", "pr": 9}]})
    verdict = judge_result(c, result("medium", claim("2.0.0", 20, "medium"), claim("0.9.0", 9, "medium")))
    assert verdict.wrong_claims == ["0.9.0 #9"]
    assert verdict.outcome_status == "wrong" and verdict.miss


def test_a_medium_naming_another_release_is_tolerated_on_already_has_fix_only():
    c = case(category="already_has_fix",
             expect={"outcome": "no_result", "must_not_claim": [{"fixed_in": "0.9.0", "pr": 9}]})
    tolerated = judge_result(c, result("medium", claim("2.0.0", 20, "medium")))
    assert tolerated.outcome_status == "acceptable" and not tolerated.miss
    fix_case = case(expect={"outcome": "no_result"})
    assert judge_result(fix_case, result("medium", claim("2.0.0", 20, "medium"))).outcome_status == "wrong"


def test_high_precision_counts_every_high_answer_across_all_cases():
    cases = [case(id="right"), case(id="wrong-pr"),
             case(id="no-fix", category="already_has_fix", expect={"outcome": "no_result"}),
             case(id="medium")]
    results = [result("high", claim("1.2.0", 12), case_id="right"),
               result("high", claim("1.2.0", 99), case_id="wrong-pr"),
               result("high", claim("3.0.0", 30), case_id="no-fix"),
               result("medium", claim("1.2.0", 12, "medium"), case_id="medium")]
    metrics = summarize(cases, results)
    fixes = metrics["fixes"]
    assert (fixes["high_answers"], fixes["right_high"]) == (3, 1)
    assert fixes["high_precision"] == pytest.approx(1 / 3)
    assert (fixes["cases_with_fix"], fixes["top1"], fixes["found"]) == (3, 2, 2)
    assert metrics["outcome"]["right"] == 2  # "right" and "wrong-pr" both answered high
    assert metrics["per_category"]["already_has_fix"]["accuracy"] == 0


def test_high_precision_counts_a_confident_unreleased_answer_and_not_a_medium_one():
    """"✓ Fixed on the default branch by PR #N" is a claim a customer acts on, like "✓ fixed in vX"."""
    unreleased = {"outcome": "unreleased", "prs": [50]}
    cases = [case(id="right", category="unreleased_fix", expect=unreleased),
             case(id="wrong", category="unreleased_fix", expect=unreleased),
             case(id="published", expect={"outcome": "high", "fixed_in": "1.2.0", "prs": [12]}),
             case(id="medium", category="unreleased_fix", expect=unreleased)]
    results = [result("unreleased", claim("unreleased", 50), case_id="right"),
               result("unreleased", claim("unreleased", 51), case_id="wrong"),
               result("unreleased", claim("unreleased", 12), case_id="published"),
               result("unreleased", claim("unreleased", 50, "medium"), case_id="medium")]
    fixes = summarize(cases, results)["fixes"]
    assert (fixes["high_answers"], fixes["right_high"]) == (3, 1)
    assert [judge_result(c, r).high for c, r in zip(cases, results, strict=True)] == [True, True, True, False]


def test_usage_stats_are_per_case():
    results = [CaseResult(id=str(i), outcome="no_result", github_requests=n) for i, n in enumerate([0, 2, 7])]
    stats = summarize([case(id=str(i)) for i in range(3)], results)["usage"]["github_requests"]
    assert (stats["mean"], stats["median"], stats["max"]) == (3, 2, 7)


@pytest.mark.parametrize("text, fragment", [
    ('{"id": "x"}\n', ":1:"),
    ('{"id": "a", "category": "fix", "expect": {"outcome": "high"}}\nnot json\n', ":2:"),
    ("", "no cases"),
])
def test_bad_case_files_name_the_problem(tmp_path, text, fragment):
    path = tmp_path / "cases.jsonl"
    path.write_text(text)
    with pytest.raises(CaseFileError, match=fragment):
        load_cases(path)


def test_the_public_cases_parse():
    cases = load_cases(CASES)
    assert len(cases) >= 40 and all(c.expect.outcome for c in cases)


# -- the harness ------------------------------------------------------------------------------------
@pytest.fixture
def fake_github(shared_fake_github: FakeGitHub) -> FakeGitHub:
    """The session's fake GitHub (all fixture repositories), counters reset."""
    shared_fake_github.reset_counts()
    return shared_fake_github


def run_eval(capsys, monkeypatch, fake: FakeGitHub, cache: Path, *args: str,
             cases: Path = CASES) -> tuple[int, str, str]:
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = main(["eval", str(cases), "--db", str(cache), "--engine", "offline", *args])
    out, err = capsys.readouterr()
    return code, out, err


def published_only(tmp_path: Path) -> tuple[Path, int]:
    """The public cases asked of a cache of published releases: without bundled_fix (scored apart) and without
    the `unreleased_newest` ones, whose fake GitHub withholds releases (tests/test_unreleased.py)."""
    lines = [line for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    kept = [line for line in lines if json.loads(line)["category"] != "bundled_fix"
            and not json.loads(line).get("unreleased_newest")]
    path = tmp_path / "published.jsonl"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path, len(kept)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fields", "message"])
def test_offline_engine_stays_above_the_floor(capsys, monkeypatch, fake_github, example_cache_path, mode, tmp_path):
    cases, count = published_only(tmp_path)
    code, out, err = run_eval(capsys, monkeypatch, fake_github, example_cache_path, "--input", mode, "--json",
                              cases=cases)
    assert code == 0, err
    report = json.loads(out)
    metrics, floor = report["metrics"], FLOORS[mode]
    assert report["engine"] == "offline"
    assert len(report["cases"]) == count == 49
    assert metrics["outcome"]["accuracy"] >= floor["accuracy"]
    assert metrics["fixes"]["top1"] >= floor["top1"]
    assert metrics["fixes"]["found"] >= floor["found"]
    assert metrics["fixes"]["high_precision"] >= floor["high_precision"]
    assert metrics["fixes"]["wrong_claims"] == 0
    assert not [c["id"] for c in report["cases"] if c["error"]]
    # per-case GitHub requests are measured per case: they add up to what the server saw
    assert sum(c["github_requests"] for c in report["cases"]) == fake_github.total_requests()


# The holdout questions (bench/data/holdout_cases.jsonl: written from the data by an agent that never saw WIF's
# answers; see bench/README.md). The public floors above come from cases the rules were designed on; these
# guard what the engine does on questions nobody tuned on. When set: fields top-1 27/36, found 29/36, HIGH 19
# right of 21; message top-1 23/36, found 30/36, HIGH 14 right of 15.
# Since then the holdout gained 8 bundled-SDK questions (issue 22): with them fields top-1 38/44, HIGH 26/26; message
# top-1 34/44, HIGH 17 right of 18. The floors below were set before and still hold.
HOLDOUT = Path(__file__).parent.parent / "bench" / "data" / "holdout_cases.jsonl"
HOLDOUT_FLOORS = {"fields": {"top1": 26, "found": 28, "high_precision": 0.85},
                  "message": {"top1": 22, "found": 29, "high_precision": 0.85}}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fields", "message"])
def test_offline_engine_stays_above_the_holdout_floor(capsys, monkeypatch, fake_github, example_cache_path, mode):
    code, out, err = run_eval(capsys, monkeypatch, fake_github, example_cache_path, "--input", mode, "--json",
                              cases=HOLDOUT)
    assert code == 0, err
    fixes, floor = json.loads(out)["metrics"]["fixes"], HOLDOUT_FLOORS[mode]
    assert fixes["top1"] >= floor["top1"] and fixes["found"] >= floor["found"]
    assert fixes["high_precision"] >= floor["high_precision"] and fixes["wrong_claims"] == 0


# Bundled-SDK cases, scored apart (issue 12). Three of the seven are more than 100 stable releases behind
# (React Native 5.9.1: 121, 4.4.0: 154; Flutter 6.8.0: 113) and carry max_releases: 200, which `wif eval` passes
# (issue 22). When set: fields top-1 6/7, found 7/7, HIGH 4 right of 5 (the Flutter frame-delay case takes a later
# cocoa fix, #6393, as HIGH); message top-1 7/7, found 7/7, HIGH 3/3 (`wif eval --only bundled_fix`). Raised when the
# .NET MAUI case led with the right #4211 again: top-1 7/7 in both modes, HIGH 3/3, no wrong ✓ in either.
BUNDLED_FLOORS = {"fields": {"top1": 7, "found": 7}, "message": {"top1": 7, "found": 7}}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fields", "message"])
def test_bundled_sdk_cases_stay_above_their_floor(capsys, monkeypatch, fake_github, example_cache_path, mode):
    code, out, err = run_eval(capsys, monkeypatch, fake_github, example_cache_path, "--input", mode, "--json",
                              "--only", "bundled_fix")
    assert code == 0, err
    report = json.loads(out)
    fixes, floor = report["metrics"]["fixes"], BUNDLED_FLOORS[mode]
    assert fixes["top1"] >= floor["top1"] and fixes["found"] >= floor["found"]
    assert fixes["wrong_claims"] == 0
    assert not [c["id"] for c in report["cases"] if c["outcome"] == "too_old"], "max_releases was not passed"
    assert fixes["high_answers"] == fixes["right_high"]  # no wrong ✓



@pytest.mark.slow
def test_tables_show_categories_and_misses_with_what_was_answered(capsys, monkeypatch, fake_github,
                                                                   example_cache_path):
    code, out, _ = run_eval(capsys, monkeypatch, fake_github, example_cache_path,
                            "--only", "already_has_fix,link_fast_path")
    assert code == 0
    assert "Outcome accuracy" in out and "precision of HIGH answers" in out and "Cost per case" in out
    assert "already_has_fix" in out and "link_fast_path" in out and "too_old" not in out
    misses = out.split("Misses", 1)[1]
    assert "expected" in misses and "top candidate" in misses


def test_runs_db_records_every_case(capsys, monkeypatch, fake_github, example_cache_path, tmp_path):
    runs = tmp_path / "runs.db"
    code, _, err = run_eval(capsys, monkeypatch, fake_github, example_cache_path, "--only", "too_old,unknown_sdk",
                            "--runs-db", str(runs))
    assert code == 0, err
    assert main(["runs", "query", "--runs-db", str(runs), "--json",
                 "SELECT source, status FROM runs ORDER BY id"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 3 and all(r["source"].startswith("eval:") and r["status"] == "complete" for r in rows)


def test_harness_failures_exit_2(capsys, monkeypatch, fake_github, example_cache_path, tmp_path):
    not_a_cache = tmp_path / "x.db"
    not_a_cache.write_text("hello")
    assert run_eval(capsys, monkeypatch, fake_github, not_a_cache)[0] == 2
    bad_cases = tmp_path / "cases.jsonl"
    bad_cases.write_text("{broken\n")
    code = main(["eval", str(bad_cases), "--db", str(example_cache_path), "--engine", "offline"])
    assert code == 2 and ":1:" in capsys.readouterr().err
    assert run_eval(capsys, monkeypatch, fake_github, example_cache_path, "--only", "nonexistent")[0] == 2


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fields", "message"])
def test_the_llm_reads_the_fix_in_every_public_and_holdout_case(example_cache_path, mode):
    """The LLM reads every entry of a batch; only a batch over BATCH_ENTRY_CAP is cut, to the offline ranker's
    best. The expected fix's entry must reach the LLM in every labelled fix/feature case, or it can never find it."""
    registry = load_registry()
    cache = SqliteReleaseCache.open(example_cache_path)
    judge = OfflineJudge(cache, registry)
    lines = CASES.read_text().splitlines() + HOLDOUT.read_text().splitlines()
    cases = [json.loads(line) for line in lines if line.strip()]
    cases = [c for c in cases if c["category"] in ("fix", "feature") and c["expect"].get("prs")]
    missed = [c["id"] for c in cases if not _fix_in_shortlist(cache, judge, c, mode)]
    assert len(cases) >= 60 and missed == []


def _fix_in_shortlist(cache, judge, case: dict, mode: str) -> bool:
    """Whether the expected PR's entry is in the shortlist of the first batch (of 5, oldest first) holding it."""
    if mode == "fields":
        problem, text = case["problem"], case["problem"]
    else:
        request = judge.extract_request(case["message"])
        problem, text = request.problem, request.raw_text
    user = cache.find_release(case["repo"], case["version"])
    want = set(case["expect"]["prs"]) | {a["pr"] for a in case["expect"].get("also_acceptable", [])}
    releases = cache.stable_after(case["repo"], user.version_key, 101)
    for start in range(0, len(releases), 5):
        entries = cache.entries([r.id for r in releases[start:start + 5]])
        if any(set(e.prs) & want for e in entries):
            question = analyse_question(problem, text, judge.registry)
            read = judge.shortlist(entries, question, BATCH_ENTRY_CAP) if len(entries) > BATCH_ENTRY_CAP else entries
            return any(set(e.prs) & want for e in read)
    return False


# Fixes merged but not released (issue 22): the cases with `unreleased_newest`, asked of a cache indexed from a
# fake GitHub that withholds the newest releases and serves their notes under ## Unreleased (tests/unreleased_eval.py).
# When set: fields 4/4 outcomes, top-1 3/3; message 3/4, top-1 2/3 (`python bench/eval_offline.py --unreleased`),
# no wrong claim.
UNRELEASED_FLOORS = {"fields": {"right": 4, "top1": 3}, "message": {"right": 3, "top1": 2}}


@pytest.mark.parametrize("mode", ["fields", "message"])
def test_unreleased_cases_answer_from_the_default_branch(capsys, monkeypatch, tmp_path, mode):
    from tests.unreleased_eval import split_cases, withheld, withheld_github

    _, cases = split_cases(CASES, tmp_path)
    with withheld_github(withheld(cases), tmp_path / "cache.db") as fake:
        code, out, err = run_eval(capsys, monkeypatch, fake, tmp_path / "cache.db", "--input", mode, "--json",
                                  cases=cases)
    assert code == 0, err
    report = json.loads(out)
    assert len(report["cases"]) == 4 and {c["id"] for c in report["cases"]} >= {
        "cocoa-unreleased-urlsession-request-mutation-race", "python-negative-gevent-events-delayed"}
    floor = UNRELEASED_FLOORS[mode]
    assert report["metrics"]["outcome"]["right"] >= floor["right"]
    assert report["metrics"]["fixes"]["top1"] >= floor["top1"] and report["metrics"]["fixes"]["wrong_claims"] == 0
    negative = next(c for c in report["cases"] if c["id"] == "python-negative-gevent-events-delayed")
    assert negative["outcome"] == "no_result"
