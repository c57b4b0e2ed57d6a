"""GitHub faults, for `wif ask`'s lookups (issue, timeline, PR, compare), `wif index` and the Action.

Every scenario checks that the run ends with a defined outcome and exit code, that the answer (or
the per-repository report) names what was skipped and why, and that retries are bounded. Bounds
are shown by counting requests on the fake, never by timing: a `Retry-After` beyond the allowed wait
(3600 s here) must fail fast, since sleeping would blow the suite's own timeout.

Client timeouts: only the scenarios about timeouts (`slow`) use a 1 s timeout, against a fake that holds
each request until it stops (a delay of 3 s was answered in time whenever the client's thread waited 2 s
for a core). Every other scenario uses CLIENT_TIMEOUT, a bound only a hung fake reaches: with 1 s, a reply the
loaded CI machine is slow to produce timed out, the client's read retry sent the request again, and
the exact request counts were off by one (a flaky test, not a product bug).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.action_harness import ActionRunner, assert_answer_outputs, closed_port, comment_event, dispatch_event
from tests.fakes.github_server import FakeGitHub
from tests.fakes.slack_server import FakeSlack
from tests.workflow_helpers import EXAMPLE_B
from wif_action.app import AppConfig, build_workflow
from wif_action.cli import main
from wif_action.models import Answer, AskInput, Outcome
from wif_action.tools.progress import RecordingProgress

COCOA = "getsentry/sentry-cocoa"
RUBY = "getsentry/sentry-ruby"  # one page of releases
PHP = "getsentry/sentry-php"  # two pages of releases
SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}
LONG_WAIT = {"Retry-After": "3600"}  # far beyond any allowed wait: must fail at once, never sleep
SHORT_WAIT = {"Retry-After": "1"}
CLIENT_TIMEOUT = 30.0  # never reached by a fake that answers, however loaded the machine
TIMEOUT = 1.0  # for the scenarios where the fake holds every request (until it stops), to see the client time out
RECENT = "2099-01-01T00:00:00Z"  # inside any refresh window, so the indexer asks for the next page

Setup = Callable[[FakeGitHub], Any]


def each_call(status: int, **fault: Any) -> Setup:
    """Every GitHub API request answers `status` (with the given headers / body)."""
    return lambda fake: fake.add_fault(None, r"^/repos/", status=status, times=None, **fault)


def slow(fake: FakeGitHub) -> None:
    fake.add_fault(None, r"^/repos/", status=None, gate=threading.Event(), times=None)  # held until the fake stops


def exhausted(fake: FakeGitHub) -> None:
    fake.rate_limit_remaining = 0  # 403 "API rate limit exceeded", X-RateLimit-Remaining: 0, reset in 1 h


def raw(path: str, body: bytes) -> Setup:
    return lambda fake: fake.add_fault("GET", path, status=200, raw_body=body, times=None)


def skipped(answer: Answer) -> str:
    return "\n".join(f"{s.step}: {s.reason}" for s in answer.skipped)


def assert_defined(answer: Answer) -> None:
    """An answer people can read: a known outcome, a message, skipped steps listed, no traceback."""
    assert answer.outcome in set(Outcome)
    assert answer.message.strip() and "Traceback" not in answer.message
    if answer.skipped:
        assert "**Skipped steps**" in answer.message
        assert all(s.reason in answer.message for s in answer.skipped)


# --------------------------------------------------------------------------- wif ask
@pytest.fixture
def cocoa_db(cache_path_for) -> Path:
    """sentry-cocoa without PR details in the cache: every PR lookup goes to the API."""
    return cache_path_for([COCOA])


@pytest.fixture
def github(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_issue(COCOA, 5397, title="WatchdogTermination events have empty tags", closed_by_pr=4953)
    return fake_github


def ask_github(db: Path, api_url: str, *, inputs: AskInput = EXAMPLE_B, deadline: float = 60.0,
               timeout: float = CLIENT_TIMEOUT) -> Answer:
    """`wif ask`'s composition (real PyGithub client, default retries and waits), offline engine."""
    config = AppConfig(db=db, engine="offline", env={"GITHUB_API_URL": api_url}, github_timeout=timeout,
                       deadline_seconds=deadline)
    return build_workflow(config, RecordingProgress()).run(inputs)


# id: (setup, phrase every GitHub skip must contain, most requests the run may make; None: one per lookup)
ASK_FAULTS = {
    "500": (each_call(500), "HTTP 500", 3),  # 1 + 2 retries, then the breaker
    "502": (each_call(502), "HTTP 502", 3),
    "503": (each_call(503), "HTTP 503", 3),
    "403-secondary-retry-after": (each_call(403, headers=LONG_WAIT, body=SECONDARY), "rate limit", 1),
    "429-retry-after": (each_call(429, headers=LONG_WAIT), "rate limit", 1),
    "429": (each_call(429), "rate limit", 1),
    "primary-exhausted": (exhausted, "rate limit", 1),
    "slow": (slow, "timed out", 2),  # 1 + 1 read retry, then the breaker
    "malformed-json": (raw(r"^/repos/", b"{not json"), "malformed", None),
    "pull-is-a-list": (raw(r"/pulls/\d+$", b"[1, 2]"), "unexpected", None),
    "issue-is-a-list": (raw(r"/issues/5397$", b"[1, 2]"), "unexpected", None),
    "pull-fields-of-the-wrong-type": (raw(r"/pulls/\d+$", b'{"number": "x", "title": {}, "merged_at": 5}'),
                                      "unexpected", None),
    "pull-merged-at-not-a-string": (raw(r"/pulls/\d+$", b'{"number": 1, "title": "t", "state": "closed", '
                                                         b'"merged_at": 5}'), "unexpected", None),
}


def test_without_faults_nothing_is_skipped(cocoa_db, github):
    answer = ask_github(cocoa_db, github.url)
    assert not answer.skipped
    assert github.total_requests() == answer.prs_evaluated + 2  # issue, timeline, then each PR once


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "phrase", "most"), ASK_FAULTS.values(), ids=ASK_FAULTS.keys())
def test_ask_survives_github_faults(cocoa_db, github, setup: Setup, phrase: str, most: int | None):
    setup(github)
    answer = ask_github(cocoa_db, github.url, timeout=TIMEOUT if setup is slow else CLIENT_TIMEOUT)
    assert_defined(answer)
    if any("details" in s.step for s in answer.skipped):
        assert answer.outcome in (Outcome.MEDIUM, Outcome.NO_RESULT), "no HIGH without the PR's details"
    github_skips = [s for s in answer.skipped if "link" in s.step or "details" in s.step]
    assert github_skips, skipped(answer)
    assert all(phrase in s.reason for s in github_skips), skipped(answer)
    assert github.total_requests() <= (answer.prs_evaluated + 2 if most is None else most)  # no retry, no repeat
    assert answer.usage.github_requests <= github.total_requests()  # usage counts calls, the fake retries too


@pytest.mark.parametrize(("status", "headers", "body"), [
    (500, None, None), (502, None, None), (403, SHORT_WAIT, SECONDARY), (429, SHORT_WAIT, None),
], ids=["500", "502", "403-secondary", "429"])
def test_ask_recovers_from_one_transient_error(cocoa_db, github, status, headers, body):
    expected = ask_github(cocoa_db, github.url)
    baseline = github.total_requests()
    github.reset_counts()
    github.add_fault(None, r"^/repos/", status=status, headers=headers, body=body, times=1)
    answer = ask_github(cocoa_db, github.url)
    assert (answer.outcome, answer.candidates) == (expected.outcome, expected.candidates)
    assert not answer.skipped
    assert github.total_requests() == baseline + 1


def test_ask_with_github_unreachable_trips_the_breaker(cocoa_db):
    answer = ask_github(cocoa_db, f"http://127.0.0.1:{closed_port()}")
    assert_defined(answer)
    assert answer.outcome in (Outcome.MEDIUM, Outcome.NO_RESULT)
    assert "cannot reach the GitHub API" in skipped(answer)
    assert answer.usage.github_requests == 1, "one failed connection, then no further attempts"


def test_ask_compare_faults_skip_the_release_search(cocoa_db, github):
    """A linked fix the release notes never mention is placed with the compare API; that failing is a skip."""
    github.add_pull(COCOA, {"number": 990001, "title": "Fix empty tags of watchdog terminations",
                            "merged_at": "2025-04-01T00:00:00Z"})
    github.add_issue(COCOA, 990002, title="Watchdog tags empty", closed_by_pr=990001)
    github.add_fault("GET", r"/compare/", status=502, times=None)
    inputs = replace(EXAMPLE_B, links=[f"https://github.com/{COCOA}/issues/990002"])
    answer = ask_github(cocoa_db, github.url, inputs=inputs)
    assert_defined(answer)
    assert "find the release of PR #990001: GitHub kept failing (HTTP 502)" in skipped(answer)
    assert github.requests["GET /repos/{o}/{r}/compare/{basehead}"] == 3


def test_an_expired_deadline_makes_no_github_request(cocoa_db, github):
    answer = ask_github(cocoa_db, github.url, deadline=0)
    assert_defined(answer)
    assert github.total_requests() == 0
    assert "deadline" in skipped(answer)


@pytest.mark.slow
def test_the_deadline_stops_lookups_on_a_slow_github(cocoa_db, github):
    github.add_fault(None, r"^/repos/", status=None, delay=1.0, times=None)  # slow, but within the timeout
    answer = ask_github(cocoa_db, github.url, deadline=1.5)
    assert_defined(answer)
    assert github.total_requests() <= 3, "no lookup starts after the deadline"
    assert "deadline" in skipped(answer)


# --------------------------------------------------------------------------- wif index
def wif_index(monkeypatch: pytest.MonkeyPatch, api_url: str, db: Path, *args: str,
              timeout: float = CLIENT_TIMEOUT) -> tuple[int, dict, str]:
    """`wif index --json --timeout T` in-process against `api_url`; (exit code, JSON, stderr)."""
    monkeypatch.setenv("GITHUB_API_URL", api_url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["index", "--db", str(db), "--json", "--timeout", f"{timeout:g}", *args])
    return code, json.loads(out.getvalue() or "{}"), err.getvalue()


def next_link(target: Callable[[FakeGitHub], str]) -> Setup:
    """Page 1 is one recent release whose `Link: rel="next"` points at `target(fake)`."""
    def setup(fake: FakeGitHub) -> None:
        body = [{"id": 1, "tag_name": "9.9.9", "published_at": RECENT, "body": "- Fix a thing (#1)"}]
        fake.add_fault("GET", r"/releases$", status=200, body=body, times=None,
                       headers={"Link": f'<{target(fake)}>; rel="next"'})
    return setup


def on_releases(status: int, **fault: Any) -> Setup:
    return lambda fake: fake.add_fault("GET", r"/releases$", status=status, times=None, **fault)


def slow_releases(fake: FakeGitHub) -> None:
    fake.add_fault("GET", r"/releases$", status=None, gate=threading.Event(), times=None)  # held until it stops


INDEX_FAULTS = {  # id: (setup, phrase of the repository's error, most requests)
    "500": (on_releases(500), "GitHub kept failing after retries", 4),  # 1 + 3 retries
    "502": (on_releases(502), "GitHub kept failing after retries", 4),
    "503": (on_releases(503), "GitHub kept failing after retries", 4),
    "403-secondary-retry-after": (on_releases(403, headers=LONG_WAIT, body=SECONDARY), "rate limit", 1),
    "429-retry-after": (on_releases(429, headers=LONG_WAIT), "rate limit", 1),
    "429": (on_releases(429), "HTTP 429", 1),
    "primary-exhausted": (exhausted, "rate limit exhausted", 1),
    "slow": (slow_releases, "timed out", 4),
    "malformed-json": (lambda fake: fake.add_fault("GET", r"/releases$", status=200, raw_body=b"{not json",
                                                   times=None), "malformed JSON", 1),
    "next-link-to-a-404": (next_link(lambda fake: f"{fake.url}/nowhere?page=2"), "next-page link", 2),
    "next-link-to-another-host": (next_link(lambda fake: f"https://elsewhere.example/repos/{RUBY}/releases?page=2"),
                                  "another host", 1),
    "next-link-loops": (next_link(lambda fake: f"{fake.url}/repos/{RUBY}/releases?page=2"), "loop", 3),
}


@pytest.mark.slow
@pytest.mark.timeout(30)
@pytest.mark.parametrize(("setup", "phrase", "most"), INDEX_FAULTS.values(), ids=INDEX_FAULTS.keys())
def test_index_fails_one_repository_clearly(monkeypatch, tmp_path, fake_github, setup: Setup, phrase: str,
                                             most: int):
    setup(fake_github)
    code, data, err = wif_index(monkeypatch, fake_github.url, tmp_path / "cache.db", "--repo", RUBY,
                                timeout=TIMEOUT if setup is slow_releases else CLIENT_TIMEOUT)
    assert code == 1, err
    [report] = data["repos"]
    assert report["error"] and phrase in report["error"], report
    assert f"{RUBY}: FAILED: " in err and "Traceback" not in err
    assert fake_github.total_requests() <= most


@pytest.mark.parametrize(("status", "headers", "body"), [
    (500, None, None), (403, SHORT_WAIT, SECONDARY), (429, SHORT_WAIT, None),
], ids=["500", "403-secondary", "429"])
def test_index_recovers_from_one_transient_error(monkeypatch, tmp_path, fake_github, status, headers, body):
    fake_github.add_fault("GET", r"/releases$", status=status, headers=headers, body=body, times=1)
    code, data, err = wif_index(monkeypatch, fake_github.url, tmp_path / "cache.db", "--repo", RUBY)
    assert code == 0, err
    assert data["repos"][0]["error"] is None and data["repos"][0]["stable"] > 0


def test_index_failure_of_one_repository_spares_the_others(monkeypatch, tmp_path, fake_github):
    fake_github.add_fault("GET", rf"^/repos/{RUBY}/releases$", status=200, raw_body=b"{not json", times=None)
    code, data, err = wif_index(monkeypatch, fake_github.url, tmp_path / "cache.db", "--repo", RUBY, "--repo", PHP)
    assert code == 0, err
    reports = {r["repo"]: r for r in data["repos"]}
    assert "malformed JSON" in reports[RUBY]["error"] and reports[PHP]["error"] is None


RELEASE = {"id": 1, "tag_name": "9.9.9", "name": "9.9.9", "body": "- Fix a thing (#1)", "draft": False,
           "prerelease": False, "published_at": "2026-01-01T00:00:00Z", "html_url": "https://github.com/x/y/releases/1"}


@pytest.mark.parametrize(("page", "said"), [
    (["9.9.9"], "release 0 is string, not an object"), ([None], "release 0 is null, not an object"),
    ([{**RELEASE, "body": ["- Fix (#1)"]}], "release 0 has `body` of type list"),
    ([RELEASE, {**RELEASE, "id": 2, "tag_name": 999}], "release 1 has `tag_name` of type number"),
    ([{**RELEASE, "name": {"en": "9.9.9"}}], "release 0 has `name` of type object"),
    ([{**RELEASE, "prerelease": "yes"}], "release 0 has `prerelease` of type string"),
    ([{**RELEASE, "id": "1"}], "release 0 has no numeric id"),
])
def test_a_releases_page_of_other_json_types_fails_that_repository_only(monkeypatch, tmp_path, fake_github, page,
                                                                        said):
    """A page of releases whose entries are not objects, or whose fields have other JSON types, ended the whole run
    with a TypeError/AttributeError/ValueError traceback (or was stored misread: `"prerelease": "yes"`)."""
    fake_github.add_fault("GET", rf"^/repos/{RUBY}/releases$", status=200, body=page, times=None)
    code, data, err = wif_index(monkeypatch, fake_github.url, tmp_path / "cache.db", "--repo", RUBY, "--repo", PHP)
    assert code == 0, err
    reports = {r["repo"]: r for r in data["repos"]}
    assert f"unexpected releases payload (HTTP 200): {said}" in reports[RUBY]["error"], reports[RUBY]["error"]
    assert reports[PHP]["error"] is None and reports[PHP]["stable"] > 0 and "Traceback" not in err


def test_index_unreachable_api(monkeypatch, tmp_path):
    code, data, err = wif_index(monkeypatch, f"http://127.0.0.1:{closed_port()}", tmp_path / "cache.db",
                                "--repo", RUBY)
    assert code == 1 and "cannot reach GITHUB_API_URL" in data["repos"][0]["error"]
    assert "Traceback" not in err


@pytest.mark.parametrize("credentials", ["x-access-token:{token}@", "{token}@"])
def test_an_unreachable_api_url_is_shown_without_its_credentials(monkeypatch, tmp_path, fake_github, credentials):
    """A GitHub Enterprise URL may carry its token as user-info or in the query; "cannot reach GITHUB_API_URL (…)"
    printed it as configured (stderr, the --json report, a Slack answer of an on-the-spot index), GITHUB_TOKEN's
    value included. Shown now: scheme, host, port and path only; a timeout's reason the same."""
    token, query = "ghp_" + "Q7x" * 12, "hunter2" * 3
    port = closed_port()
    url = f"http://{credentials.format(token=token)}127.0.0.1:{port}/api/v3?token={query}"
    code, data, err = wif_index(monkeypatch, url, tmp_path / "cache.db", "--repo", RUBY)
    said = f"{data['repos'][0]['error']}\n{err}"
    assert code == 1 and f"cannot reach GITHUB_API_URL (http://127.0.0.1:{port}/api/v3: " in said, said
    assert token not in said and query not in said and "Traceback" not in said


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]"], ids=["malformed", "wrong-shape"])
def test_index_pull_detail_faults_keep_the_releases(monkeypatch, tmp_path, fake_github, body):
    fake_github.add_fault("GET", r"/pulls/\d+$", status=200, raw_body=body, times=None)
    code, data, err = wif_index(monkeypatch, fake_github.url, tmp_path / "cache.db", "--repo", RUBY,
                                "--pulls", "recent")
    assert code == 0, err
    assert data["repos"][0]["error"] is None and data["repos"][0]["stable"] > 0
    assert "stopped fetching PR details" in err and "Traceback" not in err
    assert fake_github.requests["GET /repos/{o}/{r}/pulls/{n}"] == 1


# --------------------------------------------------------------------------- the Action
@pytest.fixture
def runner(tmp_path, github) -> Iterator[ActionRunner]:
    with FakeSlack() as slack:
        yield ActionRunner(tmp_path, github, slack)


@pytest.mark.slow
def test_action_honours_wif_deadline(runner, github, cocoa_db):
    runner.extra_env["WIF_DEADLINE"] = "0"
    inputs = {"sdk": EXAMPLE_B.sdk, "version": EXAMPLE_B.version, "problem": EXAMPLE_B.problem,
              "links": EXAMPLE_B.links[0], "cache-db": str(cocoa_db), "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event(inputs))
    assert_answer_outputs(result)
    assert github.total_requests() == 0
    assert "deadline" in result.outputs["answer"] and "Traceback" not in result.summary


@pytest.mark.slow
def test_action_with_github_down_still_answers(runner, github, cocoa_db):
    github.add_fault(None, r"^/repos/", status=503, times=None)
    inputs = {"sdk": EXAMPLE_B.sdk, "version": EXAMPLE_B.version, "problem": EXAMPLE_B.problem,
              "links": EXAMPLE_B.links[0], "cache-db": str(cocoa_db), "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event(inputs))
    assert_answer_outputs(result)
    assert result.outputs["outcome"] in ("medium", "no_result")
    assert "GitHub kept failing (HTTP 503)" in result.outputs["answer"]
    assert github.total_requests() <= 3


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_action_comment_writes_never_wait_out_a_long_retry_after(runner, github, cocoa_db):
    event = comment_event(github, "/wif sdk: sentry-cocoa version: 8.48.0 WatchdogTermination tags are empty")
    github.add_fault("POST", r"^/repos/", status=403, headers=LONG_WAIT, body=SECONDARY, times=None)
    github.add_fault("PATCH", r"^/repos/", status=403, headers=LONG_WAIT, body=SECONDARY, times=None)
    result = runner.run({"cache-db": str(cocoa_db), "engine": "offline"}, "issue_comment", event)
    assert_answer_outputs(result)
    answer = result.outputs["answer"]
    assert "- GitHub answer comment: creating the answer comment: not attempted (an earlier call failed: " \
           "reacting eyes failed: HTTP 403 GitHub asked to retry after 3600 s" in answer
    writes = [entry for entry in github.log if entry["method"] in ("POST", "PATCH")]
    assert len(writes) == 1, "the first refused write trips the breaker: no retries, no waits, no further writes"


@pytest.mark.slow
def test_action_first_run_with_github_down_is_a_clear_configuration_failure(runner, github):
    github.add_fault(None, r"^/repos/", status=502, times=None)  # no cache given, none to download: index fails
    runner.fake_gh()  # finds no release asset (never the real gh: network)
    result = runner.run({"sdk": "sentry-python", "version": "2.68.0", "problem": "Spans are dropped.",
                         "engine": "offline"}, "workflow_dispatch", dispatch_event({}))
    assert result.returncodes[-1] == 2, result.logs
    assert result.outputs["outcome"] == "failed"
    assert "Indexing getsentry/sentry-python failed: GitHub kept failing after retries" in result.outputs["answer"]
    assert "Traceback" not in result.summary and result.outputs["answer"] in result.summary
    assert github.total_requests() <= 3  # 1 + 2 retries


@pytest.mark.slow
def test_wif_ask_cli_honours_wif_deadline(cocoa_db, github):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GITHUB_API_URL": github.url, "WIF_DEADLINE": "0",
           "WIF_BACKOFF_SCALE": "0"}
    args = ["ask", "--db", str(cocoa_db), "--engine", "offline", "--sdk", EXAMPLE_B.sdk, "--version",
            EXAMPLE_B.version, "--problem", EXAMPLE_B.problem, "--link", EXAMPLE_B.links[0], "--json"]
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", *args], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["outcome"] != "failed" and "deadline" in data["message"], data["outcome"]
    assert github.total_requests() == 0


def test_after_the_deadline_the_cached_notes_still_answer_without_pr_details(cocoa_db, github):
    """`--deadline 0`: no network, but the offline engine scans the cached notes. Without PR details
    (none cached here, GitHub cut off) nothing is HIGH."""
    answer = ask_github(cocoa_db, github.url, deadline=0)
    assert github.total_requests() == 0
    assert answer.outcome == Outcome.MEDIUM, (answer.outcome, answer.message)
    assert any(c.pr == 5242 for c in answer.candidates), [c.pr for c in answer.candidates]
    assert "PR #5242 details: not attempted: the run's deadline was reached" in skipped(answer)


@pytest.mark.slow
def test_after_the_deadline_cached_pr_details_still_count(cache_path_for, github):
    """With the PR's details in the release cache, the post-deadline scan can still answer HIGH."""
    answer = ask_github(cache_path_for([COCOA], pulls="recent"), github.url, deadline=0)
    assert github.total_requests() == 0
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 5242, answer.outcome


@pytest.mark.parametrize("message", ["Bad credentials", "Requires authentication", "", "token expired"])
def test_a_rejected_token_stops_github_calls_and_says_which_token_and_permission(cocoa_db, github, message):
    """Any 401 (not only GitHub's "Bad credentials" wording) trips the breaker: one request, then the scan
    finishes from the cache, and the skipped step names GITHUB_TOKEN / `github-token`, what reading needs,
    and GitHub's own reason."""
    github.add_fault(method=None, path_regex=r".*", status=401, times=None, body={"message": message})
    answer = ask_github(cocoa_db, github.url)
    assert_defined(answer)
    assert github.total_requests() == 1
    text = skipped(answer)
    assert "HTTP 401" in text and "`github-token`" in text and "pull-requests: read" in text, text
    assert message in text
    assert answer.outcome != Outcome.HIGH  # no PR details were read


@pytest.mark.slow
def test_a_full_disk_for_outputs_and_summary_costs_only_those_channels(runner, github, cocoa_db):
    """GITHUB_OUTPUT and GITHUB_STEP_SUMMARY on a full disk: the log says so, no traceback, the step
    succeeds, and Slack still gets the answer."""
    runner.full_disk_in_answer_step = True
    inputs = {"sdk": EXAMPLE_B.sdk, "version": EXAMPLE_B.version, "problem": EXAMPLE_B.problem,
              "links": EXAMPLE_B.links[0], "cache-db": str(cocoa_db), "engine": "offline",
              "slack-channel": "C0123ABC", "slack-bot-token": "xoxb-test"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event(inputs))
    assert result.returncodes and all(code == 0 for code in result.returncodes), result.logs[-2000:]
    assert "could not write the step outputs (GITHUB_OUTPUT)" in result.logs
    assert "could not write the job summary (GITHUB_STEP_SUMMARY)" in result.logs
    assert "Traceback" not in result.logs
    answers = [m for m in runner.slack.messages if m.get("thread_ts") and "5242" in (m.get("markdown_text") or "")]
    assert answers, [m.get("markdown_text", "")[:80] for m in runner.slack.messages]


@pytest.mark.slow
def test_a_huge_question_cannot_push_the_answer_out_of_the_summary(runner, github, cocoa_db):
    """GitHub caps a step summary at 1 MiB in bytes: a 10 MB `/wif` body is quoted only in part, the
    summary stays under the cap and keeps the whole answer."""
    body = "/wif sdk: sentry-cocoa version: 8.48.0 problem: WatchdogTermination tags are empty " + "é" * 5_000_000
    event = comment_event(github, body)
    result = runner.run({"cache-db": str(cocoa_db), "engine": "offline"}, "issue_comment", event)
    assert_answer_outputs(result)
    summary = result.summary
    assert len(summary.encode("utf-8")) <= 1_048_576
    assert result.outputs["answer"].strip() and result.outputs["answer"] in summary


def test_the_summary_caps_the_quoted_question_and_counts_bytes():
    from wif_action.delivery.outputs import QUESTION_CHARS, fit_bytes, summary_markdown

    answer = Answer(outcome=Outcome.NO_RESULT, message="THE ANSWER")
    markdown = summary_markdown(answer, "é" * 3_000_000, [])
    assert "THE ANSWER" in markdown and markdown.count("é") == QUESTION_CHARS
    assert fit_bytes("é" * 10, 5) == "éé" and len(fit_bytes("aé" * 10, 8).encode()) <= 8


@pytest.mark.parametrize("body", [b"<html><body>Sign in</body></html>", b'{"message": "ok"}', b"[]"])
def test_a_200_that_is_not_a_pr_is_a_failed_lookup_never_pr_details(cocoa_db, github, body):
    """An HTML page (PyGithub wraps it as {"data": ...}) or a wrong-shape JSON for a PR is a failed
    lookup, listed under skipped steps; without PR details nothing is HIGH."""
    github.add_fault("GET", r"/pulls/\d+$", status=200, times=None, raw_body=body,
                     headers={"Content-Type": "text/html" if body.startswith(b"<") else "application/json"})
    answer = ask_github(cocoa_db, github.url)
    assert_defined(answer)
    assert answer.outcome != Outcome.HIGH, answer.message
    text = skipped(answer)
    assert "not a PR or issue" in text or "unexpected response" in text, text


@pytest.mark.slow
def test_a_retried_connection_is_reported_once_in_words_not_by_urllib3(github):
    """The CLI's stderr says what was skipped and why; urllib3's per-attempt warning (a raw exception repr)
    is not shown on top of it."""
    github.add_fault(None, r"/issues/", drop_connection=True, times=None)
    result = subprocess.run(
        [sys.executable, "-m", "wif_action.cli", "ask", "--db", "cache.db.example", "--sdk", "sentry-cocoa",
         "--version", "8.48.0", "--problem", "WatchdogTermination issues have empty tags (e.g. OS)",
         "--link", f"https://github.com/{COCOA}/issues/5397"],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent.parent,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GITHUB_API_URL": github.url, "WIF_BACKOFF_SCALE": "0"})
    assert result.returncode == 0, result.stderr[-1000:]
    assert "check link getsentry/sentry-cocoa#5397" in result.stdout + result.stderr
    assert "urllib3" not in result.stderr and "Retrying" not in result.stderr, result.stderr
    assert github.total_requests() >= 2, "the dropped connection was retried"


def test_indexing_on_the_spot_fits_inside_wif_deadline(runner, github):
    """No usable cache and a GitHub that drips its reply: indexing gets the run's deadline less the
    analysis's reserve (8 s - 2 s), not its own 5-minute budget, and the run ends `failed` saying so."""
    runner.extra_env["WIF_DEADLINE"] = "8"
    github.add_fault("GET", r"/releases", status=200, drip=1.0, times=None)
    inputs = {"sdk": EXAMPLE_B.sdk, "version": EXAMPLE_B.version, "problem": EXAMPLE_B.problem,
              "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event(inputs))
    assert "Indexing getsentry/sentry-cocoa failed" in result.summary, result.logs[-2000:]
    budget = re.search(r"within the repository's (\d+) s budget", result.summary)
    assert budget and int(budget.group(1)) <= 6, result.summary[-600:]
    assert "Traceback" not in result.logs
