"""The composite action, driven for real: action.yml's `run:` steps in bash, as a runner would.

The harness (tests/action_harness.py) loads action.yml, evaluates the `${{ }}` expressions of each
step's `env:` (and of its script, exactly as GitHub would) from a context dict, gives every step the
files and variables a runner gives (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH, ...),
skips only `uses:` steps, and talks to fake GitHub, Slack and OpenAI servers on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.action_harness import (
    ACTION,
    BASH,
    CHANNEL,
    COREUTILS,
    LATEST_PYTHON,
    OUTCOMES,
    ROOT,
    SUPPORT_REPO,
    ActionRunner,
    assert_answer_outputs,
    closed_port,
    comment_event,
    condition,
    dispatch_event,
    parse_command_file,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.slack_server import FakeSlack

pytestmark = pytest.mark.slow  # runs the Action's steps or `wif` as processes; `-m "not slow"` skips it


# --------------------------------------------------------------------------- fixtures and events
@pytest.fixture
def github() -> Any:
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture
def slack() -> Any:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def runner(tmp_path, github, slack) -> ActionRunner:
    return ActionRunner(tmp_path, github, slack)


@pytest.fixture
def cache_db(cache_path_for) -> str:
    return str(cache_path_for(["getsentry/sentry-cocoa", "getsentry/sentry-python"]))


# --------------------------------------------------------------------------- tests
def test_no_expression_inside_any_run_script():
    documents = [ACTION] + [yaml.safe_load(p.read_text()) for p in (ROOT / ".github" / "workflows").glob("*.yml")]
    steps = list(ACTION["runs"]["steps"])
    for document in documents[1:]:
        for job in document["jobs"].values():
            steps += job.get("steps", [])
    scripts = [step["run"] for step in steps if "run" in step]
    assert scripts
    assert not [s for s in scripts if "${{" in s]


def test_dispatch_with_slack_thread_updates_progress_and_answers_in_thread(runner, slack, cache_db):
    parent_ts = "1700000000.000100"
    slack.seed_thread(CHANNEL, parent_ts, [
        {"user": "U1", "text": "Customer on sentry-python 2.68.0: spans dropped after fork. Fixed?"},
        {"user": "U2", "text": "<@U1> which framework?"},
        {"user": "U1", "text": "Django, gunicorn with preload"},
        {"user": "U9", "text": "bot noise", "bot_id": "B1"},
    ])
    inputs = {**LATEST_PYTHON, "slack-channel": CHANNEL, "slack-thread-ts": parent_ts,
              "slack-bot-token": "xoxb-test", "cache-db": cache_db, "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event({}))
    assert_answer_outputs(result)
    assert result.outputs["outcome"] == "already_latest"
    replies = [m for m in slack.messages if m.get("thread_ts") == parent_ts and m.get("bot_id") == slack.bot_id]
    assert len(replies) == 2, replies  # the progress message and the answer: a new reply
    progress, answer = replies
    history = slack.history[progress["ts"]]
    assert "Analyzing…" in history[0] and len(history) >= 2 and "Done." in history[-1]
    assert answer["markdown_text"] and answer["text"] is None
    assert "latest stable release" in answer["markdown_text"]
    assert slack.requests["conversations.replies"] == 1


def test_dispatch_without_thread_posts_a_parent_quoting_the_question(runner, slack, cache_db):
    inputs = {**LATEST_PYTHON, "slack-channel": CHANNEL, "slack-bot-token": "xoxb-test", "cache-db": cache_db,
              "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event({}))
    assert_answer_outputs(result)
    parent = slack.messages[0]
    assert parent["thread_ts"] is None and "> sentry-python 2.68.0: Spans are dropped" in parent["markdown_text"]
    replies = [m for m in slack.messages if m.get("thread_ts") == parent["ts"]]
    assert len(replies) == 2
    assert slack.requests["conversations.replies"] == 0


def test_wif_comment_reacts_and_edits_one_marked_comment_even_on_rerun(runner, github, cache_db):
    event = comment_event(github, "/wif sdk: sentry-python version: 2.68.0 spans are dropped after fork")
    trigger_id = event["comment"]["id"]
    inputs = {"cache-db": cache_db, "engine": "offline"}
    first = runner.run(inputs, "issue_comment", event)
    assert_answer_outputs(first)
    assert first.outputs["outcome"] == "already_latest"
    comments = github.comments[(SUPPORT_REPO, 7)]
    answers = [c for c in comments if c["user"]["type"] == "Bot"]
    assert len(answers) == 1
    marker = f"<!-- wif:{SUPPORT_REPO}#7:{trigger_id} -->"
    assert answers[0]["body"].startswith(marker) and "latest stable release" in answers[0]["body"]
    reactions = [r["content"] for r in github.reactions if r["comment_id"] == trigger_id]
    assert reactions == ["eyes", "confused"]
    edits = github.requests["PATCH /repos/{o}/{r}/issues/comments/{id}"]
    second = runner.run(inputs, "issue_comment", event)
    assert_answer_outputs(second)
    assert len([c for c in github.comments[(SUPPORT_REPO, 7)] if c["user"]["type"] == "Bot"]) == 1
    assert github.requests["PATCH /repos/{o}/{r}/issues/comments/{id}"] > edits


@pytest.mark.parametrize("kind", ["non-member", "pull-request"])
def test_ignored_comments_post_nothing(runner, github, slack, cache_db, kind):
    body = "please check this" if kind == "not-a-command" else "/wif sdk: sentry-python version: 2.68.0 forks"
    event = comment_event(github, body, association="NONE" if kind == "non-member" else "MEMBER",
                          pull_request=kind == "pull-request", user_type="Bot" if kind == "bot" else "User")
    github.reset_counts()
    result = runner.run({"cache-db": cache_db, "slack-channel": CHANNEL, "slack-bot-token": "xoxb-test"},
                        "issue_comment", event)
    assert result.returncodes[-1] == 0, result.logs
    assert result.outputs["outcome"] == "ignored"
    assert github.total_requests() == 0 and slack.total_requests() == 0
    assert len(github.comments[(SUPPORT_REPO, 7)]) == 1 and not github.reactions


def test_slack_rate_limit_is_retried(runner, slack, cache_db):
    slack.seed_thread(CHANNEL, "1700000000.000100", [{"user": "U1", "text": "sentry-python 2.68.0 fork issue"}])
    slack.add_fault("POST", r"chat\.postMessage", status=429, headers={"Retry-After": "0"}, times=1)
    inputs = {**LATEST_PYTHON, "slack-channel": CHANNEL, "slack-thread-ts": "1700000000.000100",
              "slack-bot-token": "xoxb-test", "cache-db": cache_db, "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event({}))
    assert_answer_outputs(result)
    assert slack.requests["chat.postMessage"] == 3  # 429, retried progress post, answer
    assert len(slack.messages) == 3
    assert "Skipped steps" not in result.outputs["answer"]


@pytest.mark.parametrize("failure", ["refused", "channel_not_found"])
def test_slack_down_still_answers_in_summary_and_outputs(runner, slack, cache_db, failure):
    if failure == "refused":
        runner.extra_env["SLACK_API_URL"] = f"http://127.0.0.1:{closed_port()}/api/"
    else:
        slack.fail_method("chat.postMessage", failure, times=None)
        slack.fail_method("conversations.replies", failure, times=None)
    inputs = {**LATEST_PYTHON, "slack-channel": CHANNEL, "slack-thread-ts": "1700000000.000100",
              "slack-bot-token": "xoxb-test", "cache-db": cache_db, "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event({}))
    assert_answer_outputs(result)
    assert result.outputs["outcome"] == "already_latest"
    assert "**Skipped steps**" in result.outputs["answer"] and "Slack answer" in result.outputs["answer"]
    assert "Traceback" not in result.summary and "Traceback" not in result.outputs["answer"]
    assert not slack.messages


INJECTIONS = ["$(touch {marker})", "`touch {marker}`", '"; touch {marker}; echo "', "'; touch {marker}; echo '",
              "${{{{ secrets.X }}}} $(touch {marker})", "a\nb<<EOF\n$(touch {marker})\nEOF\n\"; rm -rf {marker}"]


def test_injection_in_dispatch_inputs_is_never_executed(runner, cache_db, tmp_path):
    marker = tmp_path / "pwned"
    sdk, version, problem, links, message, channel = (p.format(marker=marker) for p in INJECTIONS)
    inputs = {"sdk": sdk, "version": version, "problem": problem, "links": links, "message": message,
              "slack-channel": channel, "slack-thread-ts": version, "cache-db": cache_db, "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event(inputs))
    assert result.returncodes[-1] in (0, 2), result.logs
    assert not marker.exists()
    assert result.outputs["outcome"] in OUTCOMES
    assert set(result.steps["wif"]["outputs"]) == {"outcome", "fixed-in", "pr", "answer", "result-json"}


def test_injection_in_a_wif_comment_is_never_executed(runner, github, cache_db, tmp_path):
    marker = tmp_path / "pwned"
    title, body, first, second, third, _ = (p.format(marker=marker) for p in INJECTIONS)
    event = comment_event(github, f"/wif sdk: sentry-python version: 2.68.0 {first} {second}\n{third}",
                          issue_body=body)
    event["issue"]["title"] = title
    result = runner.run({"cache-db": cache_db, "engine": "offline"}, "issue_comment", event)
    assert_answer_outputs(result)
    assert not marker.exists()


def test_multiline_answer_and_outputs_parse(runner, cache_db):
    inputs = {"sdk": "sentry-python", "version": "2.66.0", "problem": "Spans are dropped after os.fork()",
              "cache-db": cache_db, "engine": "offline"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event(inputs))
    assert_answer_outputs(result)
    assert "\n" in result.outputs["answer"]
    assert set(result.outputs) == {"outcome", "fixed-in", "pr", "answer", "result-json"}
    if result.outputs["outcome"] == "high":
        assert result.outputs["fixed-in"] and result.outputs["pr"].startswith("https://github.com/")
    else:
        assert result.outputs["fixed-in"] == result.outputs["pr"] == ""
    assert "## WIF: was it fixed?" in result.summary and "**Reasoning**" in result.summary


def test_openai_engine_against_the_fake_server(runner, cache_db):
    with FakeOpenAI() as openai:
        inputs = {"message": "Customer on sentry-python 2.68.0: spans are dropped after fork. Fixed?",
                  "cache-db": cache_db, "engine": "openai", "openai-api-key": "sk-test",
                  "openai-base-url": openai.url + "/v1", "model": "gpt-test"}
        result = runner.run(inputs, "workflow_dispatch", dispatch_event(inputs))
        assert openai.chat_requests()
    assert_answer_outputs(result)


def test_missing_cache_indexes_the_question_repository_on_the_spot(runner, tmp_path):
    runner.fake_gh()  # no release asset
    result = runner.run({**LATEST_PYTHON, "engine": "offline"}, "workflow_dispatch", dispatch_event({}))
    assert_answer_outputs(result)
    assert result.outputs["outcome"] == "already_latest", result.logs
    assert "release download wif-cache -p cache.db -R acme/support" in runner.gh_calls.read_text()
    assert (tmp_path / "home" / ".cache" / "wif" / "cache.db").stat().st_size > 0


def test_release_asset_is_used_when_gh_downloads_it(runner, tmp_path, cache_db):
    """The fake gh (a committed script, never one written by the test) copies this test's own copy of the cache."""
    runner.fake_gh(asset=cache_db)
    runner.github.add_fault(None, r"/releases", status=500, times=None)  # indexing would fail loudly
    result = runner.run({**LATEST_PYTHON, "engine": "offline", "cache-repo": "acme/wif"}, "workflow_dispatch",
                        dispatch_event({}))
    assert_answer_outputs(result)
    assert result.outputs["outcome"] == "already_latest", result.logs
    assert runner.gh_calls.read_text().startswith("release download wif-cache -p cache.db -R acme/wif -D ")


def test_configuration_error_exits_non_zero_but_writes_summary(runner):
    result = runner.run({"sdk": "no-such-sdk-anywhere", "version": "1.0.0", "problem": "x", "engine": "offline"},
                        "workflow_dispatch", dispatch_event({}))
    assert result.returncodes[-1] == 2
    assert result.outputs["outcome"] == "failed"
    assert "couldn't complete the analysis" in result.outputs["answer"]
    assert "Traceback" not in result.summary


def test_a_shared_name_with_no_cache_names_the_choices_instead_of_no_known_sdk(runner):
    """No cache, and "sentry" is several SDKs with nothing in the question to narrow it (no package manager):
    nothing is indexed on the spot, and the answer lists what it could be rather than "no known SDK"."""
    result = runner.run({"sdk": "sentry", "version": "1.0.0", "problem": "Events are dropped.", "engine": "offline"},
                        "workflow_dispatch", dispatch_event({}))
    assert result.returncodes[-1] == 2 and result.outputs["outcome"] == "failed"
    answer = result.outputs["answer"]
    assert "\u201csentry\u201d could be getsentry/" in answer and "does not say which to index" in answer, answer
    assert "does not name a known SDK" not in answer and not runner.github.log


@pytest.mark.parametrize("value", ["0", "ten", "-5"])
def test_a_bad_max_releases_input_is_a_configuration_error(runner, cache_db, value):
    result = runner.run({**LATEST_PYTHON, "cache-db": cache_db, "engine": "offline", "max_releases": value},
                        "workflow_dispatch", dispatch_event({}))
    assert result.returncodes[-1] == 2
    assert result.outputs["outcome"] == "failed"
    assert f"the max_releases input must be a positive whole number, not '{value}'" in result.outputs["answer"]


def test_the_max_releases_input_raises_the_guard(runner, cache_db):
    """sentry-python 2.0.0 is more than 5 releases behind: with max_releases 5 it is too old, and the answer
    names the setting."""
    inputs = {"sdk": "sentry-python", "version": "2.0.0", "problem": "Spans are dropped when the app forks.",
              "cache-db": cache_db, "engine": "offline", "max_releases": "5"}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event({}))
    assert result.returncodes[-1] == 0, result.logs
    assert result.outputs["outcome"] == "too_old"
    assert "more than 5 releases behind" in result.outputs["answer"] and "max_releases" in result.outputs["answer"]


def test_unexpected_error_is_a_failed_answer_without_traceback(runner, cache_db, tmp_path):
    broken = tmp_path / "registry.json"
    broken.write_text(json.dumps({"repositories": {"getsentry/sentry-python": {"aliases": 5}}}))
    inputs = {**LATEST_PYTHON, "cache-db": cache_db, "engine": "offline", "registry": str(broken)}
    result = runner.run(inputs, "workflow_dispatch", dispatch_event({}))
    assert result.returncodes[-1] in (0, 2), result.logs
    assert result.outputs["outcome"] in OUTCOMES
    assert "Traceback" not in result.outputs["answer"] and "Traceback" not in result.summary


def test_harness_parses_multiline_outputs(tmp_path):
    path = tmp_path / "out"
    path.write_text("a=1\nanswer<<ghadelimiter_x\nline 1\nline=2\nghadelimiter_x\nb<<D\n\nD\n")
    assert parse_command_file(path) == {"a": "1", "answer": "line 1\nline=2", "b": ""}


def test_a_run_reaches_only_what_the_harness_links(runner, tmp_path):
    """A run's PATH is the harness's own folders of links (`COREUTILS`, python, wif; gh once a test fakes it), not
    /usr/bin: a program no test faked — a real gh on this machine, curl, git — is "command not found" (exit 127),
    loudly, instead of reaching the network; `python` is this interpreter, with this checkout's package."""
    env = runner.base_env("workflow_dispatch", tmp_path / "event.json")
    folders = [Path(folder) for folder in env["PATH"].split(":")]
    assert all(folder.is_relative_to(tmp_path) for folder in folders), env["PATH"]
    assert {path.name for folder in folders for path in folder.iterdir()} <= {"python", "python3", "wif", *COREUTILS}

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([BASH, "--noprofile", "--norc", "-c", command], env=env, capture_output=True,
                              text=True, timeout=60)
    for program in ("gh", "curl", "git"):
        missing = run(f"{program} --version")
        assert missing.returncode == 127 and "command not found" in missing.stderr, (program, missing)
    imported = run('python -c "import wif_action; print(wif_action.__file__)"')
    assert imported.stdout.strip() == str(ROOT / "wif_action" / "__init__.py"), imported
    runner.fake_gh()
    assert shutil.which("gh", path=env["PATH"]) == str(runner.bin / "gh")


def test_maintainer_groups_are_mentioned_per_channel(runner, github, slack, cache_db, tmp_path):
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps({"repositories": {"getsentry/sentry-python": {
        "aliases": ["sentry-python"], "slack_group_id": "S0PYTHON", "github_team": "getsentry/team-python"}}}))
    event = comment_event(github, "/wif sdk: sentry-python version: 2.68.0 spans dropped, cc @bob <!here>")
    inputs = {"cache-db": cache_db, "engine": "offline", "registry": str(registry), "slack-channel": CHANNEL,
              "slack-bot-token": "xoxb-test"}
    result = runner.run(inputs, "issue_comment", event)
    assert_answer_outputs(result)
    slack_answer = slack.messages[-1]["markdown_text"]
    assert "Deferring to <!subteam^S0PYTHON>." in slack_answer
    comment = next(c for c in github.comments[(SUPPORT_REPO, 7)] if c["user"]["type"] == "Bot")["body"]
    assert "Deferring to @getsentry/team-python." in comment
    assert "SDK maintainers (getsentry/team-python)" in result.outputs["answer"]
    assert "<!here>" not in slack.messages[0]["markdown_text"] and "@bob" not in slack.messages[0]["markdown_text"]
    assert (tmp_path / "temp" / "wif-runs.db").exists()


def test_an_unexpected_exception_is_a_failed_answer(tmp_path, monkeypatch, capsys, cache_db):
    import argparse

    from wif_action.commands import action
    from wif_action.workflow import Workflow

    def boom(self, inputs):
        raise RuntimeError("internal detail")

    monkeypatch.setattr(Workflow, "run", boom)
    for name in ("OPENAI_API_KEY", "SLACK_BOT_TOKEN", "INPUT_SLACK_CHANNEL", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    files = {name: tmp_path / name for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")}
    env = {**{k: str(v) for k, v in files.items()}, "RUNNER_TEMP": str(tmp_path), "GITHUB_EVENT_NAME":
           "workflow_dispatch", "INPUT_CACHE_DB": cache_db, "INPUT_ENGINE": "offline", **LATEST_PYTHON_ENV}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert action.run(argparse.Namespace()) == 0
    outputs = parse_command_file(files["GITHUB_OUTPUT"])
    assert outputs["outcome"] == "failed" and "internal detail" not in outputs["answer"]
    assert "Traceback" not in files["GITHUB_STEP_SUMMARY"].read_text()
    assert "RuntimeError: internal detail" in capsys.readouterr().err


LATEST_PYTHON_ENV = {f"INPUT_{k.upper()}": v for k, v in LATEST_PYTHON.items()}


def test_harness_conditions_match_the_action():
    context = {"steps": {"db": {"outputs": {"found": "true"}}, "wif": {"outputs": {"result-json": "/r.json"}}}}
    conditions = {step.get("name"): step["if"] for step in ACTION["runs"]["steps"] if "if" in step}
    assert condition(conditions["Restore the release cache from the Actions cache"], context, True) is False
    assert condition(conditions["Upload the result"], context, False) is True
    context["steps"]["wif"]["outputs"]["result-json"] = ""
    assert condition(conditions["Upload the result"], context, True) is False
    assert condition("steps.db.outputs.found == 'true'", context, False) is False  # implicit success()


def test_outputs_use_an_unguessable_delimiter(tmp_path):
    from wif_action.delivery.outputs import write_outputs

    path = tmp_path / "out"
    hostile = "line\nghadelimiter_00000000-0000-0000-0000-000000000000\noutcome=high\nEOF"
    write_outputs(path, {"answer": hostile, "outcome": "no_result"})
    write_outputs(None, {"ignored": "x"})  # run locally: no GITHUB_OUTPUT, no error
    assert parse_command_file(path) == {"answer": hostile, "outcome": "no_result"}
    delimiters = re.findall(r"<<(ghadelimiter_[0-9a-f-]{36})\n", path.read_text())
    assert len(set(delimiters)) == 2
