"""WIF_BACKOFF_SCALE scales how long a retry waits, never whether it retries (indexer.backoff).

The fault tests (tests/test_faults_*.py) count the retries over real HTTP with the scale at 0; these check
that each client's wait is the library's own wait times the scale, so production (scale 1) is unchanged.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler
from slack_sdk.http_retry.builtin_interval_calculators import FixedValueRetryIntervalCalculator
from slack_sdk.http_retry.response import HttpResponse

from indexer.backoff import backoff_scale
from indexer.github_client import BoundedRetry, GitHubPolicy, github_retry
from wif_action.tools.llm import LLMClient
from wif_action.tools.slack import BoundedRateLimitRetry, ScaledInterval, web_client


@pytest.mark.parametrize(("value", "scale"), [(None, 1.0), ("0", 0.0), ("0.25", 0.25), (" 2 ", 2.0),
                                               ("-1", 1.0), ("nan", 1.0), ("soon", 1.0), ("", 1.0)])
def test_the_scale_is_a_non_negative_number_and_defaults_to_the_libraries_waits(value, scale) -> None:
    assert backoff_scale({} if value is None else {"WIF_BACKOFF_SCALE": value}) == scale


def _github_reply(headers: dict[str, str]) -> SimpleNamespace:
    return SimpleNamespace(headers=headers, status=503)


def test_github_waits_retry_after_times_the_scale_and_keeps_the_scale_on_each_attempt() -> None:
    retry = BoundedRetry(wait_scale=0.5, total=2, backoff_factor=0.5, max_rate_limit_wait=30)
    assert retry.next_wait(_github_reply({"Retry-After": "4"})) == 2.0
    later = retry.new(total=1)
    assert later.wait_scale == 0.5 and later.max_rate_limit_wait == 30
    assert BoundedRetry(wait_scale=1.0, total=2, max_rate_limit_wait=30).next_wait(
        _github_reply({"Retry-After": "4"})) == 4.0


def test_github_exponential_back_off_is_scaled() -> None:
    retry = BoundedRetry(wait_scale=1.0, total=5, backoff_factor=0.5, backoff_jitter=0.0)
    for _ in range(3):  # urllib3 backs off from the second consecutive error on
        retry = retry.increment(method="GET", url="/x", error=ConnectionError("refused"))
    assert retry.next_wait() == retry.get_backoff_time() > 0
    assert BoundedRetry(wait_scale=0.0, total=5, backoff_factor=0.5).new(total=2).next_wait() == 0


def test_the_github_client_takes_the_scale_from_its_policy() -> None:
    assert GitHubPolicy().backoff_scale == 0.0  # conftest sets WIF_BACKOFF_SCALE=0 for the suite
    retry = github_retry(GitHubPolicy(backoff_scale=0.75))
    assert retry is not None and retry.wait_scale == 0.75 and retry.total == 2
    assert github_retry(GitHubPolicy(retries=None)) is None


def test_the_llm_client_takes_the_scale_from_the_environment(monkeypatch) -> None:
    """The LLM client's own retry loop (openai's is off) decides with the policy's wait and sleeps it × scale."""
    assert LLMClient("k", base_url="http://127.0.0.1:9").wait_scale == 0.0  # conftest: WIF_BACKOFF_SCALE=0
    monkeypatch.setenv("WIF_BACKOFF_SCALE", "0.5")
    assert LLMClient("k", base_url="http://127.0.0.1:9").wait_scale == 0.5


def test_slack_rate_limit_wait_is_retry_after_plus_jitter_times_the_scale() -> None:
    reply = HttpResponse(status_code=429, headers={"Retry-After": ["3"]}, body={}, data=b"")
    assert 3.0 <= BoundedRateLimitRetry(wait_scale=1.0).next_wait(reply) < 4.0
    assert 1.5 <= BoundedRateLimitRetry(wait_scale=0.5).next_wait(reply) < 2.0
    assert BoundedRateLimitRetry(wait_scale=0.0).next_wait(reply) == 0.0


def test_slack_connection_retries_back_off_by_the_scale() -> None:
    assert ScaledInterval(0.5, FixedValueRetryIntervalCalculator(2.0)).calculate_sleep_duration(1) == 1.0
    handlers = web_client("xoxb-test").retry_handlers
    connection = [h for h in handlers if isinstance(h, ConnectionErrorRetryHandler)]
    assert len(connection) == 1 and isinstance(connection[0].interval_calculator, ScaledInterval)
    assert connection[0].max_retry_count == 1  # slack_sdk's default policy, kept
