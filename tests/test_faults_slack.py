"""Slack faults, through `wif action` (action.yml's steps in bash) against the fake Slack.

Whatever Slack does, the answer still reaches the job summary and the step outputs, the skipped
steps say that Slack delivery failed and why, no traceback is posted anywhere, and Slack is
called a bounded number of times: a `Retry-After` beyond the allowed wait is not slept on, and
failures that would repeat (bad token, rate limit, connection) stop further Slack calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.action_harness import (
    CHANNEL,
    LATEST_PYTHON,
    ActionResult,
    ActionRunner,
    assert_answer_outputs,
    dispatch_event,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.slack_server import FakeSlack

THREAD_TS = "1700000000.000100"
METHODS = ("chat.postMessage", "chat.update", "conversations.replies")
HTML = {"Content-Type": "text/html"}

Setup = Callable[[FakeSlack], Any]


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        fake.seed_thread(CHANNEL, THREAD_TS, [{"user": "U1", "text": "sentry-python 2.68.0: spans dropped after fork"}])
        fake.reset_counts()
        yield fake


@pytest.fixture
def runner(tmp_path, slack) -> Iterator[ActionRunner]:
    with FakeGitHub() as github:
        yield ActionRunner(tmp_path, github, slack)


@pytest.fixture
def cache_db(cache_path_for) -> str:
    return str(cache_path_for(["getsentry/sentry-cocoa", "getsentry/sentry-python"]))  # test_action's, shared


def answer_in_slack_thread(runner: ActionRunner, cache_db: str, thread: bool = True) -> ActionResult:
    """The latest-release question (no GitHub or LLM needed), answered in a Slack thread."""
    inputs = {**LATEST_PYTHON, "slack-channel": CHANNEL, "slack-bot-token": "xoxb-test", "cache-db": cache_db,
              "engine": "offline", **({"slack-thread-ts": THREAD_TS} if thread else {})}
    return runner.run(inputs, "workflow_dispatch", dispatch_event({}))


def assert_answered_without_slack(result: ActionResult, slack: FakeSlack) -> None:
    """The answer is in the outputs and summary, Slack's failure is a skipped step, no traceback anywhere."""
    assert_answer_outputs(result)
    assert result.outputs["outcome"] == "already_latest"
    answer = result.outputs["answer"]
    assert "**Skipped steps**" in answer and "- Slack answer: " in answer, answer
    assert "Slack answer" in str(result.json()["skipped"])
    for text in (answer, result.summary, str(result.json()), *(str(m.get("markdown_text")) for m in slack.messages)):
        assert "Traceback" not in text


def fail_everything(error: str) -> Setup:
    def setup(slack: FakeSlack) -> None:
        for method in METHODS:
            slack.fail_method(method, error, times=None)
    return setup


def every_call(status: int | None, **fault: Any) -> Setup:
    return lambda slack: slack.add_fault("POST", r"^/api/", status=status, times=None, **fault)


SLACK_FAULTS = {  # id: (setup, phrase of the skip reason, most Slack requests in the run)
    "channel_not_found": (fail_everything("channel_not_found"), "channel_not_found", 3),
    "not_in_channel": (fail_everything("not_in_channel"), "not_in_channel", 3),
    "invalid_auth": (fail_everything("invalid_auth"), "invalid_auth", 1),  # the token is bad for every call
    "429-forever": (every_call(429, headers={"Retry-After": "0"}), "ratelimited", 3),  # 1 + 2 retries, then stop
    "429-retry-after-too-long": (every_call(429, headers={"Retry-After": "3600"}), "ratelimited", 1),
    "connection-dropped": (every_call(None, drop_connection=True), "Slack unreachable", 2),  # + slack_sdk's retry
    "html-error-page": (every_call(502, raw_body=b"<html>502 Bad Gateway</html>", headers=HTML), "Slack answer", 3),
}


@pytest.mark.slow
@pytest.mark.timeout(60)
@pytest.mark.parametrize(("setup", "phrase", "most"), SLACK_FAULTS.values(), ids=SLACK_FAULTS.keys())
def test_slack_failures_still_answer_in_summary_and_outputs(runner, slack, cache_db, setup: Setup, phrase: str,
                                                            most: int):
    setup(slack)
    result = answer_in_slack_thread(runner, cache_db)
    assert_answered_without_slack(result, slack)
    assert phrase in result.outputs["answer"]
    assert slack.total_requests() <= most
    assert not [m for m in slack.messages if m.get("bot_id")]


@pytest.mark.slow
def test_without_a_thread_a_refused_parent_skips_slack_entirely(runner, slack, cache_db):
    slack.fail_method("chat.postMessage", "not_in_channel", times=None)
    result = answer_in_slack_thread(runner, cache_db, thread=False)
    assert_answer_outputs(result)
    assert "Slack thread: chat.postMessage failed: not_in_channel" in result.outputs["answer"]
    assert slack.total_requests() == 1, "no progress or answer posts into a thread that does not exist"


@pytest.mark.slow
def test_a_rate_limit_that_clears_still_delivers_everything(runner, slack, cache_db):
    slack.add_fault("POST", r"^/api/", status=429, headers={"Retry-After": "0"}, times=2)
    result = answer_in_slack_thread(runner, cache_db)
    assert_answer_outputs(result)
    assert "Skipped steps" not in result.outputs["answer"]
    answer = [m for m in slack.messages if m.get("bot_id")][-1]
    assert "latest stable release" in answer["markdown_text"]


@pytest.mark.slow
def test_failing_progress_edits_drop_only_the_progress(runner, slack, cache_db):
    slack.fail_method("chat.update", "message_not_found", times=None)
    result = answer_in_slack_thread(runner, cache_db)
    assert_answer_outputs(result)
    assert "Slack progress updates: chat.update failed: message_not_found" in result.outputs["answer"]
    posted = [m for m in slack.messages if m.get("bot_id")]
    assert len(posted) == 2 and "latest stable release" in posted[-1]["markdown_text"]
    assert slack.requests["chat.update"] == 1, "a failing progress sink is dropped, not retried per checkpoint"
