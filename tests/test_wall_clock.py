"""Total wall-clock bounds: a slow-drip upstream (one byte at a time, so per-read timeouts never fire)
cannot hold a run past its deadline, and a call cut off trips that tool's breaker."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from indexer.wall_clock import BackgroundThread, WallClockExceeded, bounded_interrupt, run_within
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.workflow_helpers import EXAMPLE_B
from wif_action.app import AppConfig, build_workflow
from wif_action.journal import Journal
from wif_action.models import Answer, Outcome
from wif_action.ports import ToolUnavailable
from wif_action.tools.deadline import WallClock
from wif_action.tools.progress import RecordingProgress

COCOA = "getsentry/sentry-cocoa"
DRIP_SECONDS = 0.5  # per byte: a read timeout never fires
READ_TIMEOUT = 10  # far above the drip, so a byte the loaded machine sends late cannot end a read either


def skipped(answer: Answer) -> str:
    return "\n".join(f"{s.step}: {s.reason}" for s in answer.skipped)


def test_a_background_thread_runs_its_calls_in_turn_and_hands_back_results_and_errors():
    thread = BackgroundThread("test-background")
    order: list[int] = []
    first = thread.submit(lambda: order.append(1) or "one")
    failing = thread.submit(lambda: {}["missing"])
    last = thread.submit(lambda: order.append(2) or "two")
    assert (first.result(5), last.result(5)) == ("one", "two")
    assert isinstance(failing.exception(5), KeyError)
    assert order == [1, 2]
    worker = next(t for t in threading.enumerate() if t.name == "test-background")
    assert worker.daemon  # a hung call never keeps the process alive at exit
    thread.close()
    worker.join(30)
    assert not worker.is_alive()


def test_closing_a_background_thread_cancels_what_has_not_started_and_ends_it_after_its_teardown():
    """`close` cancels the calls not started, lets the one under way finish, then runs `teardown` in the thread
    (which closes what the calls opened there); wait=True returns only once the thread has ended."""
    torn_down_in: list[str] = []
    thread = BackgroundThread("test-close", teardown=lambda: torn_down_in.append(threading.current_thread().name))
    started, go = threading.Event(), threading.Event()
    running = thread.submit(lambda: started.set() or go.wait(30))
    queued = thread.submit(lambda: "never run")
    assert started.wait(30)
    worker = next(t for t in threading.enumerate() if t.name == "test-close")
    thread.close(wait=False)
    assert queued.cancelled() and not running.done()
    go.set()
    assert running.result(30) is True
    worker.join(30)
    assert not worker.is_alive() and torn_down_in == ["test-close"]
    waited = BackgroundThread("test-close-wait", teardown=lambda: torn_down_in.append("waited"))
    assert waited.submit(lambda: 1).result(30) == 1
    waited.close()
    assert torn_down_in[-1] == "waited"
    assert not [t for t in threading.enumerate() if t.name == "test-close-wait"]


def test_bounded_interrupt_handles_ctrl_c_only_inside_and_only_where_python_would():
    """Its Ctrl-C handler is in place only inside the block (then Python's own again); from another thread than the
    main one, or where Ctrl-C is not Python's default (ignored, someone else's handler), nothing is changed. (Its
    deadline itself: tests/test_cache_survival.py, in a `wif index` process.)"""
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with bounded_interrupt(130, "interrupted"):
        assert signal.getsignal(signal.SIGINT) not in (signal.default_int_handler, signal.SIG_IGN)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    seen: list[object] = []

    def elsewhere() -> None:
        with bounded_interrupt(130, "interrupted"):
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with bounded_interrupt(130, "interrupted"):
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def test_run_within_returns_raises_or_cuts_off():
    assert run_within(5, lambda: 42) == 42
    with pytest.raises(KeyError):
        run_within(5, lambda: {}["missing"])
    release = threading.Event()
    with pytest.raises(WallClockExceeded):
        run_within(0.2, release.wait)
    release.set()
    with pytest.raises(WallClockExceeded):
        run_within(0, lambda: 1)  # no time left: not even started


def test_a_cut_off_call_trips_the_breaker_for_the_rest_of_the_run():
    clock = WallClock("github", Journal(), per_call=0.2)
    calls: list[int] = []
    release = threading.Event()

    def hang() -> None:
        calls.append(1)
        release.wait(10)

    with pytest.raises(ToolUnavailable, match=r"the 0\.2 s bound per call"):
        clock.call(hang)
    with pytest.raises(ToolUnavailable, match="not called: an earlier call got no complete answer"):
        clock.call(hang)
    release.set()
    assert calls == [1]


@pytest.fixture
def cocoa_db(cache_path_for) -> Path:
    return cache_path_for([COCOA])


@pytest.mark.slow
def test_a_dripping_github_cannot_hold_the_run_past_its_deadline(cocoa_db, fake_github: FakeGitHub):
    """GitHub answers one byte every 0.5 s, so its read timeout never fires: only the wall-clock bound ends the
    call. The run still answers from the cached notes (MEDIUM: no PR details were read)."""
    fake_github.add_fault(method=None, path_regex=r".*", status=None, times=None, drip=DRIP_SECONDS)
    config = AppConfig(db=cocoa_db, engine="offline", env={"GITHUB_API_URL": fake_github.url},
                       github_timeout=READ_TIMEOUT, deadline_seconds=3)
    answer = build_workflow(config, RecordingProgress()).run(EXAMPLE_B)
    assert answer.outcome == Outcome.MEDIUM, (answer.outcome, answer.message)
    assert any(c.pr == 5242 for c in answer.candidates)
    assert "cut off at the run's deadline" in skipped(answer), skipped(answer)


@pytest.mark.slow
def test_a_dripping_llm_endpoint_falls_back_to_the_offline_engine(example_cache_path, fake_github: FakeGitHub):
    """The OpenAI endpoint drips; its first call is cut at the deadline, the breaker keeps it from being
    called again, and the offline engine with GitHub's PR details still finds PR 5242 (HIGH)."""
    fake_github.add_issue(COCOA, 5397, title="WatchdogTermination events have empty tags", closed_by_pr=4953)
    with FakeOpenAI() as openai_fake:
        openai_fake.add_fault(method=None, path_regex=r".*", status=None, times=None, drip=DRIP_SECONDS)
        env = {"GITHUB_API_URL": fake_github.url, "OPENAI_API_KEY": "sk-test-key",
               "OPENAI_BASE_URL": openai_fake.url + "/v1", "WIF_LLM_TIMEOUT": str(READ_TIMEOUT),
               "WIF_LLM_MAX_RETRIES": "0"}
        config = AppConfig(db=example_cache_path, engine="openai", env=env, deadline_seconds=4)
        answer = build_workflow(config, RecordingProgress()).run(EXAMPLE_B)
        calls = len(openai_fake.log)
    assert calls == 1, calls
    assert answer.outcome == Outcome.HIGH, (answer.outcome, answer.message)
    assert [c.pr for c in answer.candidates if c.confidence == "high"] == [5242]
