"""JobRunner's stop: nothing accepted is lost and nothing raises, whatever the sweeper or a handler is doing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from wif_action.slack_jobs import JobRunner, RequestLog

JOB = {"kind": "shortcut", "message": "Android 8.39.0: ANR on start"}


def test_a_request_submitted_while_closing_is_left_to_the_next_process(tmp_path: Path):
    """A request accepted as the runner closes is neither run on a stopped pool (RuntimeError in the Slack
    handler) nor lost: its lease runs out and the next process's sweep runs it."""
    ran: list[dict[str, Any]] = []
    first = RequestLog(tmp_path / "requests.db", lease=0)
    runner = JobRunner(first, ran.append)
    runner.close()
    assert first.accept("sc:late", JOB)
    runner.submit("sc:late")  # no error
    assert ran == [] and first.states() == {"accepted": 1}
    nxt = JobRunner(RequestLog(tmp_path / "requests.db"), ran.append)
    assert nxt.sweep() == 1
    nxt.close()
    assert ran == [JOB] and first.states() == {"done": 1}


class _HeldSweep(RequestLog):
    """A sweep that is under way when the runner closes: it returns what it took over only once `close` has
    begun, and then waits (up to a deadline) for the pool to be closed, which a close that does not wait for
    the sweeper does at once."""

    runner: JobRunner
    held = False

    def take_over(self) -> list[str]:
        keys = super().take_over()
        if not self.held and keys:
            self.held = True
            assert self.runner._stop.wait(30)
            for _ in range(20):  # a deadline (2 s), not an order the fixed runner must meet
                if getattr(self.runner, "_closed", False):
                    break
                time.sleep(0.1)
        return keys


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_close_waits_for_a_sweep_under_way_and_runs_what_it_took_over(tmp_path: Path):
    ran: list[dict[str, Any]] = []
    requests = _HeldSweep(tmp_path / "requests.db", lease=0)
    runner = JobRunner(requests, ran.append, sweep_seconds=0.01)
    requests.runner = runner
    runner.start_sweeping()  # its first sweep finds nothing; the thread's next one takes this over
    assert requests.accept("sc:dead-process", JOB)
    for _ in range(3000):  # until the sweeper has taken it over and waits for close to begin (30 s deadline)
        if requests.held:
            break
        time.sleep(0.01)
    assert requests.held
    runner.close()
    assert ran == [JOB] and requests.states() == {"done": 1}
