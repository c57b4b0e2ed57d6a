"""The `/wif` comment command: parsing (any text, never an exception) and who may trigger WIF."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wif_action.delivery.github_event import (
    MARKER_PREFIX,
    MAX_REQUEST_CHARS,
    comment_trigger,
    load_trigger,
    parse_command,
    request_text,
)


def payload(body: str, *, association: str = "MEMBER", user_type: str = "User", pull_request: bool = False,
            action: str = "created", title: str = "Customer report", issue_body: str = "") -> dict:
    issue = {"number": 12, "title": title, "body": issue_body}
    if pull_request:
        issue["pull_request"] = {"url": "https://api.github.com/repos/acme/support/pulls/12"}
    return {"action": action, "issue": issue, "repository": {"full_name": "acme/support"},
            "comment": {"id": 99, "body": body, "author_association": association,
                        "user": {"login": "alice", "type": user_type}}}


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_without_error(text):
    for body in (text, "/wif " + text, "/wif" + text):
        command = parse_command(body)
        if command is not None:
            assert isinstance(command.hints, dict) and isinstance(command.text, str)
            assert set(command.hints) <= {"sdk", "repo", "version", "problem", "links"}


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                 max_size=4), max_leaves=20))
@pytest.mark.slow
def test_any_payload_shape_is_handled(data):
    trigger = comment_trigger(data if isinstance(data, dict) else {"comment": data})
    assert trigger.ignore  # malformed events are never answered


def test_hints_and_free_text():
    command = parse_command("/wif sdk: sentry-cocoa version: 8.48.0 WatchdogTermination tags are empty")
    assert command.hints == {"sdk": "sentry-cocoa", "version": "8.48.0"}
    assert command.text == "WatchdogTermination tags are empty"
    command = parse_command('/wif sdk: "React Native" version: 5.1.0\nproblem: crash on start\nlinks: '
                            "https://github.com/getsentry/sentry-react-native/issues/1, https://x.y/2")
    assert command.hints["sdk"] == "React Native" and command.hints["problem"] == "crash on start"
    assert command.links == ["https://github.com/getsentry/sentry-react-native/issues/1", "https://x.y/2"]
    assert parse_command("/wif customer on iOS 8.1 sees crashes").text == "customer on iOS 8.1 sees crashes"
    assert parse_command("/wif").text == ""


@pytest.mark.parametrize("body", ["/wifi please", "wif sdk: x", "please /wif", ""])
def test_not_a_command(body):
    assert parse_command(body) is None


def test_a_trusted_wif_comment_on_an_issue_is_answered():
    trigger = comment_trigger(payload("/wif sdk: sentry-cocoa version: 8.48.0 tags empty",
                                      title="Tags empty", issue_body="Seen on iOS"))
    assert trigger.ignore is None and trigger.is_comment
    assert (trigger.repo, trigger.issue, trigger.comment_id) == ("acme/support", 12, 99)
    assert trigger.request_text == "tags empty\n\nTags empty\n\nSeen on iOS"  # the question first
    assert trigger.marker == "<!-- wif:acme/support#12:99 -->"


@pytest.mark.parametrize("association", ["OWNER", "MEMBER", "COLLABORATOR"])
def test_trusted_associations(association):
    assert comment_trigger(payload("/wif x", association=association)).ignore is None


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"association": "NONE"}, "not an owner"),
    ({"association": "CONTRIBUTOR"}, "not an owner"),
    ({"association": "FIRST_TIME_CONTRIBUTOR"}, "not an owner"),
    ({"pull_request": True}, "pull request"),
    ({"user_type": "Bot"}, "bot"),
    ({"action": "edited"}, "not newly created"),
])
def test_gating(kwargs, reason):
    assert reason in comment_trigger(payload("/wif sdk: x", **kwargs)).ignore


def test_wif_never_answers_its_own_comment():
    body = f"/wif {MARKER_PREFIX}acme/support#12:98 -->\nanswer"
    assert "bot" in comment_trigger(payload(body)).ignore


def test_request_text_is_bounded():
    trigger = comment_trigger(payload("/wif " + "y" * 50_000, issue_body="x" * 50_000))
    assert len(trigger.request_text) == MAX_REQUEST_CHARS


def test_load_trigger_reads_the_event_file(tmp_path):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload("/wif sdk: sentry-java version: 8.17.0 504s")))
    trigger = load_trigger({"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(path)})
    assert trigger.ignore is None and trigger.command.hints["sdk"] == "sentry-java"
    dispatch = load_trigger({"GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_REPOSITORY": "acme/support"})
    assert dispatch.ignore is None and not dispatch.is_comment
    broken = load_trigger({"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(tmp_path / "nope")})
    assert broken.ignore


@pytest.mark.parametrize(("content", "reason"), [
    (b"{not json", "the event file at GITHUB_EVENT_PATH is not JSON"),
    (b"\xff\xfe\x00binary", "the event file at GITHUB_EVENT_PATH is not JSON"),
    (b"", "the event file at GITHUB_EVENT_PATH is not JSON"),
    (b"[1, 2]", "the event file at GITHUB_EVENT_PATH is not a JSON object"),
    (None, "the event file at GITHUB_EVENT_PATH cannot be read (No such file or directory)"),
    ("directory", "the event file at GITHUB_EVENT_PATH cannot be read (Is a directory)"),
    ("unset", "GITHUB_EVENT_PATH is not set"),
])
def test_an_unreadable_event_file_is_never_answered_and_says_why(tmp_path, content, reason):
    """A runner's broken event file: no answer (nobody can say who asked), and the reason names the file,
    not "the comment does not start with /wif" of a comment nobody has read."""
    path = tmp_path / "event.json"
    if content == "directory":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    env = {"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_REPOSITORY": "acme/support"}
    if content != "unset":
        env["GITHUB_EVENT_PATH"] = str(path)
    trigger = load_trigger(env)
    assert trigger.ignore is not None and reason in trigger.ignore and not trigger.is_comment


@pytest.mark.parametrize("body", ["/WIF sdk: sentry-cocoa version: 8.48.0 tags are empty",
                                  "/Wif sdk: sentry-cocoa version: 8.48.0 tags are empty"])
def test_the_command_is_case_insensitive_like_the_workflows_startswith(body):
    """GitHub's startsWith in wif.yml's `if:` ignores case, so `/WIF` starts a job; the parser must agree."""
    command = parse_command(body)
    assert command is not None and command.hints["version"] == "8.48.0"


def test_the_workflow_condition_is_the_one_the_parser_mirrors():
    workflow = (Path(__file__).parent.parent / ".github/workflows/wif.yml").read_text()
    assert "startsWith(github.event.comment.body, '/wif')" in workflow


def test_the_wif_line_is_read_first_and_a_long_issue_body_is_cut_not_the_question():
    command = parse_command("/wif sentry-cocoa 8.48.0: WatchdogTermination tags are empty")
    assert command is not None
    log = "Thread 0 crashed with a very long log line\n" * 2000  # ~84k characters of pasted logs
    text = request_text("App hangs on launch", log, command)
    assert text.startswith("sentry-cocoa 8.48.0: WatchdogTermination tags are empty\n\nApp hangs on launch")
    assert len(text) == MAX_REQUEST_CHARS
    assert request_text("Title", "", parse_command("/wif")) == "Title"
