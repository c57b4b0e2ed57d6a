"""`wif eval --engine openai` cannot report the offline engine's work as the LLM's (issue 24): the endpoint is
checked before the first case, a case that fell back is reported apart, and tokens and cost are the LLM's.
Real `openai` client over real HTTP to FakeOpenAI; real PyGithub to FakeGitHub."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, FakeReply, requested_schema, schema_example
from tests.workflow_helpers import keyword_responder
from wif_action.cli import main
from wif_action.tools.llm_models import PRICES, cost_usd

CASES = Path(__file__).parent / "data" / "eval" / "cases.jsonl"
EXAMPLE_B = "spec-example-b"


def run_eval(capsys, monkeypatch, github: FakeGitHub, openai: FakeOpenAI, cache: Path, *args: str,
             **env: str) -> tuple[int, str, str]:
    settings = {"GITHUB_API_URL": github.url, "OPENAI_API_KEY": "sk-test-key", "OPENAI_BASE_URL": openai.url + "/v1",
                "WIF_LLM_MAX_RETRIES": "0", "WIF_LLM_TIMEOUT": "30", "WIF_MODEL": "gpt-4.1-mini",
                "WIF_VERIFY_MODEL": "gpt-4.1", **env}
    for key, value in settings.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    code = main(["eval", str(CASES), "--db", str(cache), "--engine", "openai", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_endpoint_that_rejects_every_call_is_refused_before_the_first_case(
        capsys, monkeypatch, shared_fake_github, example_cache_path, openai_fake):
    openai_fake.add_fault("POST", r"/chat/completions$", status=400, times=None)
    code, out, err = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path)
    assert code == 2 and out == ""
    assert "failed the check before the first case" in err and "nothing was evaluated" in err
    assert len(openai_fake.chat_requests()) == 1


def test_a_case_that_fell_back_is_reported_apart_and_not_counted(
        capsys, monkeypatch, shared_fake_github, example_cache_path, openai_fake):
    judge = keyword_responder("watchdog")
    openai_fake.responder = lambda request: (FakeReply(status=500) if requested_schema(request)[0] == "PRScore"
                                             else judge(request))  # the check passes; scoring fails
    code, out, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                            "--case", EXAMPLE_B)
    assert code == 1
    assert "NOT COUNTED — 1 case(s) fell back to the offline engine" in out
    assert "No case was judged end to end by this engine" in out and "HIGH answers" not in out


def test_the_report_counts_only_what_the_llm_judged(capsys, monkeypatch, shared_fake_github, example_cache_path,
                                                    openai_fake):
    openai_fake.responder = keyword_responder("watchdog")
    code, out, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                            "--case", EXAMPLE_B, "--json")
    report = json.loads(out)
    assert code == 0 and report["fell_back"] == [] and report["metrics"]["fixes"]["top1"] == 1
    assert report["engine"] == "openai (gpt-4.1-mini, verify gpt-4.1)"


def with_cached_tokens(responder: Any) -> Any:
    """The responder's replies with OpenAI-shaped usage: half of each prompt served from the cache."""

    def respond(request: dict) -> Any:
        content = responder(request)
        if content is None:  # what the fake would answer by default: a minimal instance of the schema
            content = schema_example(requested_schema(request)[1] or {})
        prompt = sum(len(m["content"]) for m in request["messages"]) // 4
        return FakeReply(content=content, usage={
            "prompt_tokens": prompt, "completion_tokens": 50, "total_tokens": prompt + 50,
            "prompt_tokens_details": {"cached_tokens": prompt // 2},
            "completion_tokens_details": {"reasoning_tokens": 10}})

    return respond


def test_cached_and_reasoning_tokens_and_the_cost_are_reported(capsys, monkeypatch, shared_fake_github,
                                                                example_cache_path, openai_fake):
    openai_fake.responder = with_cached_tokens(keyword_responder("watchdog"))
    code, out, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                            "--case", EXAMPLE_B, "--json")
    case = json.loads(out)["cases"][0]
    assert code == 0 and case["cached_tokens"] * 2 <= case["prompt_tokens"] and case["cached_tokens"] > 0
    assert case["reasoning_tokens"] == 10 * case["llm_calls"]
    verify_calls = [r for r in openai_fake.chat_requests()[1:] if r["model"] == "gpt-4.1"]
    assert verify_calls, "the verify model was asked"
    cheapest = cost_usd(PRICES["gpt-4.1-mini"], case["prompt_tokens"], case["cached_tokens"],
                        case["completion_tokens"])
    dearest = cost_usd(PRICES["gpt-4.1"], case["prompt_tokens"], case["cached_tokens"], case["completion_tokens"])
    assert cheapest < case["cost_usd"] < dearest, "each call at its own model's price"
    code, out, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                            "--case", EXAMPLE_B)
    table = {line.split()[0]: line.split()[1:] for line in out[out.index("Cost per case"):].splitlines()[3:11]}
    assert {"cached_tokens", "reasoning_tokens", "cost_usd"} <= table.keys()
    assert table["cached_tokens"][0] not in ("0", "0.0") and table["reasoning_tokens"][0] not in ("0", "0.0")


def test_an_unknown_price_is_said_not_guessed(capsys, monkeypatch, shared_fake_github, example_cache_path,
                                              openai_fake):
    openai_fake.responder = keyword_responder("watchdog")
    code, out, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                            "--case", EXAMPLE_B, WIF_MODEL="my-local-model", WIF_VERIFY_MODEL="my-local-model")
    assert code == 0 and "a model's price is unknown" in out and "WIF_PRICES" in out
    code, out, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                            "--case", EXAMPLE_B, "--json", WIF_MODEL="my-local-model",
                            WIF_VERIFY_MODEL="my-local-model", WIF_PRICES='{"my-local-model": [1, 0.5, 2]}')
    assert json.loads(out)["cases"][0]["cost_usd"] > 0


def test_the_workflow_hands_the_engine_the_customers_context(capsys, monkeypatch, shared_fake_github,
                                                             example_cache_path, openai_fake):
    """The resolved repository, the customer's SDK and version reach every filter/score/verify prompt."""
    openai_fake.responder = keyword_responder("watchdog")
    code, _, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                          "--case", EXAMPLE_B, "--input", "fields")
    judged = [r for r in openai_fake.chat_requests()
              if requested_schema(r)[0] in ("RelevantEntries", "PRScore", "PRVerdict")]
    assert code == 0 and {requested_schema(r)[0] for r in judged} == {"RelevantEntries", "PRScore", "PRVerdict"}
    for request in judged:
        user = request["messages"][-1]["content"]
        assert user.startswith("<customer>\nSDK: sentry-cocoa (repository getsentry/sentry-cocoa)\n"
                               "Version in use: 8.48.0\nPlatform: not stated; the SDK runs on ios, macos,")
        assert user.count("WatchdogTermination issues have empty tags") == 1, "fields input: the problem once"
        assert "<request>\nhttps://github.com/getsentry/sentry-cocoa/issues/5397\n</request>" in user


def test_a_reason_naming_the_customers_own_version_is_no_invented_claim(capsys, monkeypatch, shared_fake_github,
                                                                        example_cache_path, openai_fake):
    """The prompt now shows the customer's version; a model citing it (on the links fast path too, which reads
    no release range) names data the run read, so the HIGH answer stands."""
    openai_fake.responder = keyword_responder("avasset", reason="The customer on 9.12.0 hits exactly this crash.")
    code, out, _ = run_eval(capsys, monkeypatch, shared_fake_github, openai_fake, example_cache_path,
                            "--case", "cocoa-avasset-download-crash-link", "--input", "fields", "--json")
    case = json.loads(out)["cases"][0]
    assert code == 0 and case["outcome"] == "high" and case["candidates"][0]["pr"] == 7891, case["summary"]
