"""OpenAI-compatible server faults: rate limits, server errors, timeouts, refusals, cut-off and
schema-invalid output, and answers naming data the run never read.

With the offline fallback engine the run still answers; without one (`fallback=False`) the
judging steps are skipped and the outcome is still defined. Retries are bounded: a failure that
will repeat (unreachable, timed out, rate limited, 5xx) stops LLM calls for the rest of the run,
and so do three failed calls in a row — shown by counting requests on the fake.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.workflow_helpers import EXAMPLE_B, keyword_responder
from wif_action.app import AppConfig, build_workflow
from wif_action.models import Answer, AskInput, Confidence, Outcome
from wif_action.tools.progress import RecordingProgress

COCOA = "getsentry/sentry-cocoa"
CHAT = r"/chat/completions"
MAX_FAILED_CALLS = 3  # LLMClient gives up on the engine after this many failures in a row

Setup = Callable[[FakeOpenAI], Any]


@pytest.fixture
def cache(cache_path_for) -> Path:
    """sentry-cocoa with the PR details of its recent releases (shared; read-only)."""
    return cache_path_for([COCOA], pulls="recent")


@pytest.fixture
def github(example_b_github: FakeGitHub) -> FakeGitHub:
    return example_b_github



def ask_openai(cache: Path, github_url: str, openai_url: str, *, fallback: bool = True, timeout: float = 30,
               retries: int = 0, inputs: AskInput = EXAMPLE_B) -> Answer:
    """`wif ask --engine openai` as composed by the app; `fallback=False` drops the offline engine."""
    env = {"GITHUB_API_URL": github_url, "OPENAI_API_KEY": "sk-test-key", "OPENAI_BASE_URL": openai_url + "/v1",
           "WIF_LLM_TIMEOUT": str(timeout), "WIF_LLM_MAX_RETRIES": str(retries), "WIF_MODEL": "gpt-test"}
    workflow = build_workflow(AppConfig(db=cache, engine="openai", env=env, github_timeout=30), RecordingProgress())
    if not fallback:
        workflow.tools.fallback = None
    return workflow.run(inputs)


def skipped(answer: Answer) -> str:
    return "\n".join(f"{s.step}: {s.reason}" for s in answer.skipped)


def assert_defined(answer: Answer) -> None:
    assert answer.outcome in set(Outcome)
    assert answer.message.strip() and "Traceback" not in answer.message
    assert "**Skipped steps**" in answer.message and all(s.reason in answer.message for s in answer.skipped)


def every_reply(reply: FakeReply) -> Setup:
    def setup(fake: FakeOpenAI) -> None:
        fake.responder = lambda _request: reply
    return setup


def every_call(status: int | None, **fault: Any) -> Setup:
    return lambda fake: fake.add_fault("POST", CHAT, status=status, times=None, **fault)


# id: (setup, client retries, client timeout, phrase of the skip reason, most chat requests in the run)
UNAVAILABLE = {
    "429-retry-after": (every_call(429, headers={"Retry-After": "1"}), 1, 30, "rate limited", 2),
    "500": (every_call(500), 1, 30, "HTTP 500", 2),
    "timeout": (every_call(None, gate=threading.Event()), 0, 1, "timed out", 1),  # held until the fake stops
    "connection-dropped": (every_call(None, drop_connection=True), 0, 30, "could not connect", 1),
}
UNUSABLE = {
    "refusal": (every_reply(FakeReply(refusal="I can't help with that.")), 0, 30, "refused", MAX_FAILED_CALLS),
    "finish-reason-length": (every_reply(FakeReply(content='{"entries": [{"id": 1, ', finish_reason="length")),
                             0, 30, "cut off", MAX_FAILED_CALLS),
    "schema-mismatch": (every_reply(FakeReply(content='{"unexpected": true}')), 0, 30, "schema", MAX_FAILED_CALLS),
}
FAULTS = {**UNAVAILABLE, **UNUSABLE}


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "retries", "timeout", "phrase", "most"), FAULTS.values(), ids=FAULTS.keys())
def test_with_the_offline_fallback_the_run_still_answers(cache, github, openai_fake, setup, retries,
                                                         timeout, phrase, most):
    setup(openai_fake)
    answer = ask_openai(cache, github.url, openai_fake.url, retries=retries, timeout=timeout)
    assert_defined(answer)
    assert answer.outcome in (Outcome.HIGH, Outcome.MEDIUM, Outcome.NO_RESULT)
    assert answer.checked is not None, "the scan ran (with the offline engine)"
    fallbacks = [s for s in answer.skipped if "used the offline engine instead" in s.reason]
    assert fallbacks and phrase in fallbacks[0].reason, skipped(answer)
    assert len(openai_fake.chat_requests()) <= most


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "retries", "timeout", "phrase", "most"), FAULTS.values(), ids=FAULTS.keys())
def test_without_a_fallback_the_judging_steps_are_skipped(cache, github, openai_fake, setup, retries,
                                                          timeout, phrase, most):
    setup(openai_fake)
    answer = ask_openai(cache, github.url, openai_fake.url, fallback=False, retries=retries,
                        timeout=timeout)
    assert_defined(answer)
    assert answer.outcome == Outcome.FAILED, "nothing was judged: no claim of 'no fix found'"
    assert "could not be read or judged" in answer.message
    assert phrase in skipped(answer) and "filter notes of 8.49.0" in skipped(answer)
    assert "scan release notes: stopped" in skipped(answer)
    assert len(openai_fake.chat_requests()) <= most


def test_a_rate_limit_that_clears_is_retried(cache, github, openai_fake):
    openai_fake.responder = keyword_responder("watchdog")
    openai_fake.add_fault("POST", CHAT, status=429, headers={"Retry-After": "1"}, times=1)
    answer = ask_openai(cache, github.url, openai_fake.url, fallback=False, retries=1)
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 5242
    assert not answer.skipped


def test_one_bad_reply_does_not_give_up_on_the_engine(cache, github, openai_fake):
    openai_fake.responder = keyword_responder("watchdog")
    openai_fake.queue(FakeReply(refusal="No."))  # the first filter call only
    answer = ask_openai(cache, github.url, openai_fake.url, fallback=False)
    assert "refused" in skipped(answer)
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 5242


# --------------------------------------------------------------------------- claims the run never read
INVENTED_VERSION, INVENTED_PR = "42.0.1", 987654


def inventing_responder(request: dict) -> Any:
    """Finds the watchdog fix, but every free-text field names a version and a PR the run never read."""
    schema = request["response_format"]["json_schema"]["name"]
    claim = f"Fixed in {INVENTED_VERSION} by PR #{INVENTED_PR}, see https://github.com/{COCOA}/pull/{INVENTED_PR}."
    if schema == "RelevantEntries":
        found = keyword_responder("watchdog")(request)
        return {"entries": [{**item, "pr": INVENTED_PR, "reason": claim} for item in found["entries"]]}
    if schema == "PRScore":
        return {"confidence": "high", "reason": claim}
    if schema == "PRVerdict":
        return {"objection": claim, "confirmed": False, "reason": claim}
    return None


def test_claims_the_run_never_read_are_rejected_not_shown(cache, github, openai_fake):
    openai_fake.responder = inventing_responder
    answer = ask_openai(cache, github.url, openai_fake.url, fallback=False)
    assert_defined(answer)
    assert INVENTED_VERSION not in answer.message and str(INVENTED_PR) not in answer.message
    assert answer.rejected_claims
    assert all(c.pr != INVENTED_PR and c.version != INVENTED_VERSION for c in answer.candidates)
    assert all(c.confidence != Confidence.HIGH for c in answer.candidates), "an unchecked claim is never HIGH"


def test_a_reason_quoting_the_customers_event_and_trace_ids_keeps_its_high(cache, github, openai_fake):
    """The customer's Sentry event id (32 hex) and trace id (a UUID) are no commits: a reason quoting them is no
    claim of data the run never read, so the verified fix stays HIGH and the ids reach people unblanked."""
    event, trace = "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "550e8400-e29b-41d4-a716-44665544000a"
    reason = f"The PR fixes watchdog tags; the customer's event {event} (trace {trace}) shows them empty."
    openai_fake.responder = keyword_responder("watchdog", reason=reason)
    inputs = dataclasses.replace(EXAMPLE_B, problem=f"{EXAMPLE_B.problem} Event {event}, trace {trace}.")
    answer = ask_openai(cache, github.url, openai_fake.url, fallback=False, inputs=inputs)
    assert not answer.rejected_claims, answer.rejected_claims
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 5242
    assert answer.candidates[0].reason == reason


def test_an_extracted_request_naming_things_not_in_the_message_is_not_echoed(cache, github, openai_fake):
    openai_fake.queue({"sdk": f"sentry-cocoa {INVENTED_VERSION} (fixed by PR #{INVENTED_PR})",
                       "version": INVENTED_VERSION, "problem": "tags are empty",
                       "links": [f"https://github.com/{COCOA}/pull/{INVENTED_PR}"]})
    inputs = AskInput(message="A customer's watchdog terminations have empty tags. Was that fixed?")
    answer = ask_openai(cache, github.url, openai_fake.url, fallback=False, inputs=inputs)
    assert answer.outcome == Outcome.NEEDS_CLARIFICATION
    assert INVENTED_VERSION not in answer.message and str(INVENTED_PR) not in answer.message
    assert answer.rejected_claims


NOT_A_COMPLETION = {
    "html": (b"<html><body>Sign in to continue</body></html>", "text/html"),
    "empty": (b"", "application/json"),
    "not-json": (b"this is not json", "text/plain"),
    "no-choices": (b'{"id": "x", "object": "chat.completion"}', "application/json"),
    "null-message": (b'{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": null}]}',
                     "application/json"),
}


@pytest.mark.parametrize("reply", list(NOT_A_COMPLETION))
def test_a_200_that_is_not_a_chat_completion_is_an_unusable_reply(cache, github, openai_fake, reply):
    """A proxy's sign-in page or an empty 200 must not abort the analysis: it counts as an unusable
    reply, the engine is given up after a few, and the offline engine answers (the link finds PR 5242)."""
    body, content_type = NOT_A_COMPLETION[reply]
    openai_fake.add_fault(method="POST", path_regex=r"chat/completions", status=200, times=None, raw_body=body,
                          headers={"Content-Type": content_type})
    answer = ask_openai(cache, github.url, openai_fake.url)
    assert_defined(answer)
    assert answer.outcome == Outcome.HIGH, (answer.outcome, answer.message)
    assert [c.pr for c in answer.candidates if c.confidence == "high"] == [5242]
    assert "not a chat completion" in skipped(answer), skipped(answer)
