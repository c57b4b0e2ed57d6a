"""`wif dispatch`: starts wif.yml through the workflow_dispatch API, with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.fakes.github_server import FakeGitHub
from wif_action.cli import main

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["dispatch", "--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem", "Tags are empty",
        "--repo", "acme/support"]


@pytest.fixture
def github(monkeypatch):
    with FakeGitHub(token="ghp_test") as fake:
        fake.add_repo("acme/support")
        monkeypatch.setenv("GITHUB_API_URL", fake.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
        yield fake


def test_dispatch_prints_the_run_url_and_sends_the_inputs(github, capsys):
    code = main([*ARGS, "--links", "https://github.com/getsentry/sentry-cocoa/issues/5397",
                 "--slack-channel", "C0SUPPORT", "--slack-thread-ts", "1700000000.000100"])
    assert code == 0
    assert capsys.readouterr().out.strip() == "https://github.com/acme/support/actions/runs/123"
    (record,) = github.dispatches
    assert record["workflow"] == "wif.yml" and record["ref"] == "main" and record["return_run_details"]
    assert record["inputs"] == {"sdk": "sentry-cocoa", "version": "8.48.0", "problem": "Tags are empty",
                                "links": "https://github.com/getsentry/sentry-cocoa/issues/5397",
                                "slack_channel": "C0SUPPORT", "slack_thread_ts": "1700000000.000100"}


def test_inputs_match_the_workflow(github):
    main([*ARGS, "--links", "x", "--slack-channel", "C1", "--slack-thread-ts", "1.2"])
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "wif.yml").read_text())
    declared = workflow[True]["workflow_dispatch"]["inputs"]  # PyYAML reads the key `on` as True
    assert set(github.dispatches[0]["inputs"]) <= set(declared) and len(declared) <= 10


def test_empty_optional_inputs_are_left_out(github):
    assert main(ARGS) == 0
    assert set(github.dispatches[0]["inputs"]) == {"sdk", "version", "problem"}


def test_gh_token_is_accepted(github, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("GH_TOKEN", "ghp_test")
    assert main(ARGS) == 0


@pytest.mark.parametrize(("setup", "expected"), [
    (lambda fake, mp: setattr(fake, "workflow_files", {"other.yml"}), "not found"),
    (lambda fake, mp: mp.setenv("GITHUB_TOKEN", "wrong"), "token was rejected"),
    (lambda fake, mp: setattr(fake, "max_dispatch_inputs", 2), "refused the inputs"),
])
def test_clear_errors(github, monkeypatch, capsys, setup, expected):
    setup(github, monkeypatch)
    assert main(ARGS) == 1
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
    assert not github.dispatches


@pytest.mark.parametrize(("fault", "expected"), [
    ({"status": 502}, "GitHub kept failing (HTTP 502) after retries"),
    ({"status": 503}, "GitHub kept failing (HTTP 503) after retries"),
    ({"status": None, "drop_connection": True}, "cannot reach GitHub ("),
])
def test_a_failing_github_is_said_in_words_not_an_exception_name(github, capsys, fault, expected):
    """Retries exhausted on 5xx (requests' RetryError) or no answer at all: one line that says what happened,
    exit 1, never "failed: RetryError" or a traceback."""
    github.add_fault("POST", r"/dispatches$", times=None, **fault)
    assert main(ARGS) == 1
    err = capsys.readouterr().err
    assert expected in err and "RetryError" not in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("fault", "expected"), [
    ({"status": 200, "raw_body": b'{"workflow_run_id": 12, "html_u'}, "GitHub's reply was not JSON"),
    ({"status": 422, "raw_body": b'{"message": "Unexpected inp'}, "GitHub's reply was not JSON"),
])
def test_a_reply_that_is_not_json_says_the_run_may_have_started_and_where_to_look(github, capsys, fault, expected):
    """A cut-off reply to the dispatch was "cannot reach GitHub (JSONDecodeError)": wrong (GitHub answered), and a
    2xx may have started the run, so a retry could start a second one."""
    github.add_fault("POST", r"/dispatches$", times=None, **fault)
    assert main(ARGS) == 1
    err = capsys.readouterr().err
    assert expected in err and "whether the run started is unknown, see " \
        "https://github.com/acme/support/actions/workflows/wif.yml" in err, err
    assert "JSONDecodeError" not in err and "cannot reach" not in err and len(err.strip().splitlines()) == 1


def test_run_details_of_the_wrong_type_still_report_the_started_run(github, capsys):
    """A 200 whose run details hold another JSON type (`html_url: 5`) was "cannot reach GitHub
    (BadAttributeException)" for a run GitHub had started; now it is started, with the workflow's runs page."""
    github.add_fault("POST", r"/dispatches$", status=200, times=None,
                     raw_body=b'{"workflow_run_id": [1], "run_url": {}, "html_url": 5}')
    assert main(ARGS) == 0
    assert capsys.readouterr().out.strip() == "https://github.com/acme/support/actions/workflows/wif.yml"


def test_usage_errors(github, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    assert main(["dispatch", "--sdk", "x", "--version", "1", "--problem", "p", "--repo", ""]) == 2
    assert main([*ARGS, "--slack-thread-ts", "1700000000.000100"]) == 2
    assert "--slack-channel" in capsys.readouterr().err


def test_a_message_alone_is_enough(github):
    """A Slack message is free text: it is dispatched as `message`, and wif.yml does not require the fields."""
    text = "iOS 8.48.0: WatchdogTermination tags are empty ${{ secrets.X }} <!channel>"
    assert main(["dispatch", "--message", text, "--repo", "acme/support", "--slack-channel", "C1"]) == 0
    assert github.dispatches[0]["inputs"] == {"message": text, "slack_channel": "C1"}
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "wif.yml").read_text())
    declared = workflow[True]["workflow_dispatch"]["inputs"]
    assert not any(spec.get("required") for spec in declared.values())


def test_neither_message_nor_all_fields_is_a_usage_error(github, capsys):
    assert main(["dispatch", "--sdk", "x", "--repo", "acme/support"]) == 2
    assert "give --message, or --sdk, --version and --problem" in capsys.readouterr().err
    assert not github.dispatches
