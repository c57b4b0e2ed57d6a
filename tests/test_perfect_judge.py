"""The full LLM path on every labelled case (issue 24): `wif eval --engine openai` against a fake OpenAI server
that answers like a perfect judge (tests/perfect_judge.py). Every fix must be found, in both input modes, on the
public (published, then not yet released) and the holdout cases: a miss here is the workflow's (a fix the LLM
was never shown), not a model's. Real `openai` client over real HTTP to FakeOpenAI; real PyGithub to FakeGitHub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.perfect_judge import PerfectJudge
from tests.unreleased_eval import split_cases, withheld, withheld_github
from wif_action.cli import main
from wif_action.evaluation import load_cases

ROOT = Path(__file__).parent.parent
PUBLIC = ROOT / "tests" / "data" / "eval" / "cases.jsonl"
HOLDOUT = ROOT / "bench" / "data" / "holdout_cases.jsonl"


def published(tmp_path: Path) -> Path:
    """The public cases a cache of published releases can answer (the unreleased_newest ones need a fake GitHub
    that withholds releases: tests/test_unreleased.py)."""
    lines = [line for line in PUBLIC.read_text(encoding="utf-8").splitlines()
             if line.strip() and not json.loads(line).get("unreleased_newest")]
    path = tmp_path / "published.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow  # the whole LLM path over every labelled case: ~3 s each on an idle core
@pytest.mark.parametrize("mode", ["fields", "message"])
@pytest.mark.parametrize("which", ["public", "holdout"])
def test_a_perfect_judge_finds_every_fix(capsys, monkeypatch, shared_fake_github, example_cache_path, tmp_path,
                                         which, mode):
    cases = published(tmp_path) if which == "public" else HOLDOUT
    judge, code, report = _evaluate(monkeypatch, capsys, cases, example_cache_path, shared_fake_github.url, mode)
    fixes, usage = report["metrics"]["fixes"], report["metrics"]["usage"]
    missed = [c["id"] for c in report["cases"] if c.get("has_fix") and not c.get("found")]
    print(f"{which} {mode}: top-1 {fixes['top1']}/{fixes['cases_with_fix']}, found {fixes['found']}, "
          f"HIGH {fixes['right_high']}/{fixes['high_answers']}, "
          f"prompt tokens per case {usage['prompt_tokens']['mean']:.0f} (cached {usage['cached_tokens']['mean']:.0f})")
    assert code == 0 and report["fell_back"] == [], "every case judged by the LLM path end to end"
    assert judge.unmatched == [], "every prompt names its question"
    assert missed == [] and fixes["found"] == fixes["cases_with_fix"] > 30
    assert fixes["wrong_claims"] == 0


@pytest.fixture(scope="module")
def withheld_cache(tmp_path_factory):
    """The public cases with `unreleased_newest`, and a cache indexed from a fake GitHub that withholds their
    repositories' newest releases and serves those notes as Unreleased (tests/unreleased_eval.py)."""
    work = tmp_path_factory.mktemp("unreleased")
    _, cases = split_cases(PUBLIC, work)
    with withheld_github(withheld(cases), work / "withheld.db") as github:
        yield cases, work / "withheld.db", github


@pytest.mark.parametrize("mode", ["fields", "message"])
def test_a_perfect_judge_finds_every_unreleased_fix(capsys, monkeypatch, withheld_cache, mode):
    cases, db, github = withheld_cache
    judge, code, report = _evaluate(monkeypatch, capsys, cases, db, github.url, mode)
    fixes, outcome = report["metrics"]["fixes"], report["metrics"]["outcome"]
    print(f"unreleased {mode}: outcomes {outcome['right']}/{outcome['cases']}, top-1 {fixes['top1']}/"
          f"{fixes['cases_with_fix']}, found {fixes['found']}")
    assert code == 0 and report["fell_back"] == [] and judge.unmatched == []
    assert fixes["found"] == fixes["top1"] == fixes["cases_with_fix"] == 3 and fixes["wrong_claims"] == 0
    assert outcome["right"] == outcome["cases"] == 4, "the three unreleased fixes, and no_result where none is"


def _evaluate(monkeypatch, capsys, cases, db, github_url, mode):
    """`wif eval --engine openai --json` of `cases` on `db`, the LLM a perfect judge of those cases behind the
    fake OpenAI server: (judge, exit code, report)."""
    judge = PerfectJudge(load_cases(cases))
    with FakeOpenAI(judge) as llm:
        for key, value in {"GITHUB_API_URL": github_url, "OPENAI_API_KEY": "sk-test-key",
                           "OPENAI_BASE_URL": llm.url + "/v1", "WIF_LLM_MAX_RETRIES": "0"}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        code = main(["eval", str(cases), "--db", str(db), "--engine", "openai", "--input", mode, "--json"])
    return judge, code, json.loads(capsys.readouterr().out)
