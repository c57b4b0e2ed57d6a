"""Response bodies from GitHub are capped (issue 13, item 8): a 300 MB reply is cut off, not downloaded,
and a server that sends one is not asked again for the next PR. Real PyGithub over HTTP against the fake.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.github_client import ITEM_BODY_BYTES, LIST_BODY_BYTES, body_cap
from tests.test_faults_github import COCOA, RUBY, ask_github, skipped, wif_index
from tests.test_faults_github import cocoa_db as cocoa_db  # the fixture, shared
from tests.test_faults_openai import ask_openai
from tests.test_faults_openai import cache as cache  # the fixture, shared
from tests.workflow_helpers import EXAMPLE_B
from wif_action.models import AskInput, Outcome
from wif_action.tools.llm import LLM_BODY_BYTES

HUGE = 96 * 1024 * 1024  # what a misbehaving proxy sent; never held in memory by the fake either


def _socket_buffers() -> int:
    """The most a loopback connection holds beyond what the client read: the largest receive and send buffers
    the kernel may grow them to. Why not a fixed 2× the cap: on a loaded machine the fake writes ahead of a slow
    reader, and Linux grows the receive buffer (tcp_rmem, up to 32 MB here) before the client stops at the cap."""
    total = 0
    for name, fallback in (("ipv4/tcp_rmem", 6 << 20), ("ipv4/tcp_wmem", 4 << 20)):
        try:
            total += int(Path(f"/proc/sys/net/{name}").read_text().split()[-1])
        except (OSError, ValueError, IndexError):
            total += fallback
    return total


@pytest.mark.slow
@pytest.mark.parametrize("announced", [True, False], ids=["content-length", "until-close"])
def test_an_oversize_pr_is_a_failed_lookup_asked_once_and_never_downloaded(cocoa_db, fake_github, announced):
    github = fake_github
    fault = github.add_fault("GET", r"/pulls/\d+$", huge=HUGE, huge_length=announced, times=None)
    answer = ask_github(cocoa_db, github.url, inputs=AskInput(sdk=EXAMPLE_B.sdk, version=EXAMPLE_B.version,
                                                              problem=EXAMPLE_B.problem))
    assert answer.outcome != Outcome.FAILED
    assert "over the 5,242,880-byte cap" in skipped(answer)
    assert fault.hits == 1  # the breaker: the next PR is not fetched from this server
    assert fault.sent < ITEM_BODY_BYTES + _socket_buffers() < HUGE  # stopped reading at the cap (+ kernel buffers)
    assert all(c.confidence.value != "high" for c in answer.candidates)  # no PR details, no HIGH


def test_a_releases_page_above_the_item_cap_is_still_indexed(monkeypatch, tmp_path, fake_github):
    """A page of release notes may be larger than one PR may be: lists get the larger cap."""
    body = "### Fixes\n\n- Fix a crash (#1)\n\n" + "An overlong paragraph of notes. " * 200_000  # ~6.4 MB
    fake_github.add_repo("acme/verbose", releases=[{"tag_name": "1.0.0", "body": body}])
    code, data, err = wif_index(monkeypatch, fake_github.url, tmp_path / "cache.db", "--repo", "acme/verbose")
    assert code == 0, err
    assert data["repos"][0]["error"] is None and data["repos"][0]["stable"] == 1
    assert len(body.encode()) > ITEM_BODY_BYTES


def test_an_oversize_releases_page_fails_that_repository_clearly(monkeypatch, tmp_path, fake_github):
    fault = fake_github.add_fault("GET", rf"^/repos/{RUBY}/releases$", huge=LIST_BODY_BYTES + 1,
                                  huge_length=False, times=None)
    code, data, err = wif_index(monkeypatch, fake_github.url, tmp_path / "cache.db", "--repo", RUBY)
    assert code == 1
    assert "over the 33,554,432-byte cap" in data["repos"][0]["error"] and "Traceback" not in err
    assert fault.hits == 1


@pytest.mark.parametrize(("path", "cap"), [
    (f"/repos/{COCOA}/pulls/5242", ITEM_BODY_BYTES),
    (f"/repos/{COCOA}/issues/5397", ITEM_BODY_BYTES),
    (f"/repos/{COCOA}/issues/5397/timeline?per_page=100&page=2", ITEM_BODY_BYTES),
    (f"/repos/{COCOA}/releases?per_page=100", LIST_BODY_BYTES),
    (f"/repos/{COCOA}/contents/CHANGELOG.md?ref=8.52.0", LIST_BODY_BYTES),
])
def test_single_prs_and_issues_get_the_small_cap(path, cap):
    assert body_cap(path) == cap


@pytest.mark.slow
@pytest.mark.parametrize("announced", [True, False], ids=["content-length", "until-close"])
def test_an_oversize_llm_reply_falls_back_to_the_offline_engine(cache, example_b_github, openai_fake, announced):
    fault = openai_fake.add_fault("POST", r"/chat/completions$", huge=HUGE, huge_length=announced, times=None)
    answer = ask_openai(cache, example_b_github.url, openai_fake.url)
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 5242  # the offline engine answered
    assert "over the 8,388,608-byte cap" in skipped(answer)
    assert fault.hits == 1 and fault.sent < LLM_BODY_BYTES + _socket_buffers() < HUGE  # cap + kernel buffers


def test_a_gzip_bomb_from_github_is_capped_as_it_is_decompressed(cocoa_db, fake_github):
    """A few KB of gzip on the wire that expands to 64 MiB: the cap counts decompressed bytes, so it stops at
    5 MiB of them, once (the breaker), and the answer still comes from the cache."""
    import gzip

    bomb = gzip.compress(b" " * (64 * 1024 * 1024), compresslevel=9)
    fault = fake_github.add_fault("GET", r"/pulls/\d+$", status=200, raw_body=bomb, times=None,
                                  headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    answer = ask_github(cocoa_db, fake_github.url, inputs=AskInput(sdk=EXAMPLE_B.sdk, version=EXAMPLE_B.version,
                                                                   problem=EXAMPLE_B.problem))
    assert len(bomb) < ITEM_BODY_BYTES  # the wire size alone would pass the cap
    assert answer.outcome != Outcome.FAILED
    assert "over the 5,242,880-byte cap" in skipped(answer)
    assert fault.hits == 1


@pytest.mark.parametrize("announced", [True, False], ids=["content-length", "until-close"])
def test_an_oversize_slack_reply_is_one_failed_call_never_downloaded(announced):
    """Slack Web API replies had no cap: a 300 MB reply took 683 MB of memory. Now one call, cut at 8 MiB."""
    from tests.fakes.slack_server import FakeSlack
    from wif_action.ports import ToolError
    from wif_action.tools.slack import SLACK_BODY_BYTES, SlackClient

    with FakeSlack() as slack:
        fault = slack.add_fault("POST", r"/chat\.postMessage$", huge=HUGE, huge_length=announced, times=None)
        client = SlackClient("xoxb-test", slack.url + "/api/")
        with pytest.raises(ToolError, match="over the 8,388,608-byte cap"):
            client.post("C0SUPPORT", "hello")
        with pytest.raises(ToolError, match="skipped"):  # the breaker: not asked again
            client.post("C0SUPPORT", "hello again")
    assert fault.hits == 1 and fault.sent < SLACK_BODY_BYTES + _socket_buffers() < HUGE  # cap + kernel buffers
