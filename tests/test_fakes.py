"""The fakes, exercised with the real clients (PyGithub, openai, slack_sdk) over real HTTP."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai
import pytest
from github import Auth, Github, GithubException, RateLimitExceededException, UnknownObjectException
from openai import OpenAI
from pydantic import BaseModel, ValidationError
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from tests.fakes.github_server import DATA_DIR, FakeGitHub, load_repo_fixture
from tests.fakes.openai_server import FakeOpenAI, FakeReply, schema_example
from tests.fakes.slack_server import FakeSlack

PY = "getsentry/sentry-python"
JS = "getsentry/sentry-javascript"
# sentry-python PR 7129 (merged 2026-08-07) closes issue 7065; first release containing it: 2.67.0
FIX_PR, FIX_ISSUE = 7129, 7065


def _github(fake: FakeGitHub, per_page: int = 100, **kwargs: Any) -> Github:
    return Github(
        base_url=fake.url,
        per_page=per_page,
        retry=None,
        seconds_between_requests=0,
        seconds_between_writes=0,
        **kwargs,
    )


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(repos=[PY, JS]) as fake:
        yield fake


@pytest.fixture
def small_gh() -> Iterator[FakeGitHub]:
    """A synthetic repo with five releases and two PRs."""
    with FakeGitHub(repos=[]) as fake:
        fake.add_repo(
            "acme/widget",
            releases=[
                {"tag_name": f"1.{i}.0", "published_at": f"2026-01-0{i + 1}T10:00:00Z", "body": f"- fix (#{i})"}
                for i in range(4, -1, -1)
            ],
            pulls=[{"number": 3, "merged_at": "2026-01-03T09:00:00Z", "closes_issues": [30]}],
        )
        yield fake


# ---------------------------------------------------------------------------------------- GitHub


def test_fixture_helpers() -> None:
    data = load_repo_fixture(PY)
    assert data["repo"] == PY
    assert (DATA_DIR / "getsentry__sentry-python.json.gz").exists()
    assert data["releases"][0]["tag_name"] == "2.68.0"


@pytest.mark.slow
def test_get_repo_and_unknown_repo(gh: FakeGitHub) -> None:
    g = _github(gh)
    repo = g.get_repo(PY)
    assert (repo.full_name, repo.name, repo.owner.login, repo.default_branch) == (
        PY,
        "sentry-python",
        "getsentry",
        "main",
    )
    with pytest.raises(UnknownObjectException):
        g.get_repo("getsentry/sentry-cocoa")  # exists on disk, but not in repos=[...]
    assert gh.requests["GET /repos/{o}/{r}"] == 2


def test_releases_paginate_with_github_link_header(small_gh: FakeGitHub) -> None:
    tags = [r.tag_name for r in _github(small_gh, per_page=2).get_repo("acme/widget").get_releases()]
    assert tags == ["1.4.0", "1.3.0", "1.2.0", "1.1.0", "1.0.0"]
    assert small_gh.requests["GET /repos/{o}/{r}/releases"] == 3
    assert [e["query"].get("page") for e in small_gh.requests_for("GET /repos/{o}/{r}/releases")] == [
        None,
        "2",
        "3",
    ]
    status, headers, _ = _get(small_gh.url + "/repos/acme/widget/releases?per_page=2&page=2")
    base = small_gh.url + "/repos/acme/widget/releases?per_page=2&page="
    assert status == 200
    assert headers["Link"] == (
        f'<{base}1>; rel="prev", <{base}3>; rel="next", <{base}3>; rel="last", <{base}1>; rel="first"'
    )


def test_full_fixture_releases_in_order(gh: FakeGitHub) -> None:
    tags = [r.tag_name for r in _github(gh).get_repo(PY).get_releases()]
    assert tags == [r["tag_name"] for r in load_repo_fixture(PY)["releases"]]
    assert gh.requests["GET /repos/{o}/{r}/releases"] == 4  # 321 releases, 100 per page


def test_conditional_request_304_and_new_etag_after_mutation(gh: FakeGitHub) -> None:
    g = _github(gh)
    status, headers, body = g.requester.requestJson("GET", f"/repos/{PY}/releases", parameters={"per_page": 100})
    etag = headers["etag"]
    assert status == 200 and etag.startswith('"') and json.loads(body)[0]["tag_name"] == "2.68.0"
    remaining = gh.rate_limit_remaining
    status, headers, body = g.requester.requestJson(
        "GET", f"/repos/{PY}/releases", parameters={"per_page": 100}, headers={"If-None-Match": etag}
    )
    assert status == 304 and not body
    assert gh.rate_limit_remaining == remaining  # 304s are free
    gh.add_release(PY, {"tag_name": "2.69.0", "published_at": "2026-08-20T00:00:00Z", "body": "- new"})
    status, headers, body = g.requester.requestJson(
        "GET", f"/repos/{PY}/releases", parameters={"per_page": 100}, headers={"If-None-Match": etag}
    )
    assert status == 200 and headers["etag"] != etag and json.loads(body)[0]["tag_name"] == "2.69.0"


def test_release_mutations(gh: FakeGitHub) -> None:
    repo = _github(gh).get_repo(PY)
    release = repo.get_release("2.67.0")
    assert release.update() is False  # object-level conditional request → 304
    gh.edit_release(PY, "2.67.0", body="edited")
    assert release.update() is True and release.body == "edited"
    gh.set_body_empty(PY, "2.66.0")
    gh.remove_release(PY, "2.67.1")
    assert repo.get_release("2.67.0").body == "edited"
    assert repo.get_release("2.66.0").body == ""
    with pytest.raises(UnknownObjectException):
        repo.get_release("2.67.1")
    with pytest.raises(KeyError):
        gh.add_release("getsentry/sentry-cocoa", {"tag_name": "1.0.0"})  # not in repos=[...]


def test_latest_release_and_by_tag(gh: FakeGitHub) -> None:
    repo = _github(gh).get_repo(PY)
    assert repo.get_latest_release().tag_name == "2.68.0"
    rel = repo.get_release("2.67.0")
    assert rel.tag_name == "2.67.0" and rel.published_at.year == 2026 and "#7129" in rel.body
    gh.add_release(PY, {"tag_name": "3.0.0rc1", "prerelease": True, "published_at": "2026-09-01T00:00:00Z"})
    assert repo.get_latest_release().tag_name == "2.68.0"


def test_get_pull(gh: FakeGitHub) -> None:
    pull = _github(gh).get_repo(PY).get_pull(FIX_PR)
    fixture = load_repo_fixture(PY)["pulls"][str(FIX_PR)]
    assert pull.merged and pull.merge_commit_sha == fixture["merge_commit_sha"]
    assert (pull.base.ref, pull.head.ref, pull.user.login, pull.labels) == ("main", f"fix-{FIX_PR}", "contributor", [])
    with pytest.raises(UnknownObjectException):
        _github(gh).get_repo(PY).get_pull(999_999)


def test_issue_and_timeline(gh: FakeGitHub) -> None:
    repo = _github(gh).get_repo(PY)
    merge_sha = repo.get_pull(FIX_PR).merge_commit_sha
    issue = repo.get_issue(FIX_ISSUE)
    assert (issue.state, issue.state_reason, issue.pull_request) == ("closed", "completed", None)
    assert issue.html_url == f"https://github.com/{PY}/issues/{FIX_ISSUE}"
    events = list(issue.get_timeline())
    xref = next(e for e in events if e.event == "cross-referenced")
    assert xref.source.type == "issue" and xref.source.issue.number == FIX_PR
    assert xref.source.issue.pull_request.merged_at is not None
    closed = next(e for e in events if e.event == "closed")
    assert closed.commit_id == merge_sha
    assert repo.get_issue(FIX_PR).pull_request is not None  # a PR seen through the issues API
    with pytest.raises(UnknownObjectException):
        repo.get_issue(1)


def test_add_issue_overrides(gh: FakeGitHub) -> None:
    gh.add_issue(PY, 424242, title="Crash on start", closed_by_pr=FIX_PR, cross_referenced_prs=[7128])
    repo = _github(gh).get_repo(PY)
    issue = repo.get_issue(424242)
    assert issue.title == "Crash on start"
    events = list(issue.get_timeline())
    assert sorted(e.source.issue.number for e in events if e.event == "cross-referenced") == [7128, FIX_PR]
    assert next(e for e in events if e.event == "closed").commit_id == repo.get_pull(FIX_PR).merge_commit_sha


def test_compare_first_release_containing_merge(gh: FakeGitHub) -> None:
    repo = _github(gh).get_repo(PY)
    sha = repo.get_pull(FIX_PR).merge_commit_sha
    assert repo.compare(sha, "2.66.1").status == "behind"
    cmp = repo.compare(sha, "2.67.0")
    assert cmp.status == "ahead" and cmp.ahead_by >= 1 and cmp.behind_by == 0
    assert repo.compare("2.67.0", "2.67.0").status == "identical"
    assert repo.compare("2.66.0", "2.67.0").status == "ahead"
    assert repo.compare("2.67.0", "2.66.0").status == "behind"
    assert repo.compare(sha[:10], "2.68.0").status == "ahead"  # short shas resolve too
    with pytest.raises(UnknownObjectException):
        repo.compare("deadbeefdead", "2.68.0")


@pytest.mark.slow
def test_compare_models_backport_lines(gh: FakeGitHub) -> None:
    """9.47.1 (published after 10.22.0) lacks main-line fixes from the v10 era but has its own."""
    repo = _github(gh).get_repo(JS)
    fixture = load_repo_fixture(JS)
    v10_fix = next(
        p for p in fixture["pulls"].values() if "2025-10-01" < p["merged_at"] < "2025-10-20" and "v9" not in p["title"]
    )
    v9_fix = fixture["pulls"]["18214"]  # fix(v9/core), listed in 9.47.1's body
    assert repo.compare(v10_fix["merge_commit_sha"], "10.22.0").status == "ahead"
    assert repo.compare(v10_fix["merge_commit_sha"], "9.47.1").status == "diverged"
    assert repo.compare(v9_fix["merge_commit_sha"], "9.47.1").status == "ahead"
    assert repo.compare("9.20.0", "10.22.0").status == "ahead"  # old main-line tag is in v10
    assert repo.compare("10.21.0", "9.47.1").status == "diverged"


def test_changelog_contents_at_tag(gh: FakeGitHub) -> None:
    repo = _github(gh).get_repo(PY)
    text = repo.get_contents("CHANGELOG.md", ref="2.67.0").decoded_content.decode()
    assert text.startswith("# Changelog\n\n## 2.67.0\n\n")
    assert "## 2.66.1\n\n" in text and "## 2.68.0" not in text
    with pytest.raises(UnknownObjectException):
        repo.get_contents("README.md", ref="2.67.0")
    with pytest.raises(GithubException) as info:  # GitHub's message here is not "Not Found"
        repo.get_contents("CHANGELOG.md", ref="no-such-tag")
    assert info.value.status == 404


def test_rate_limit_endpoint_and_headers(gh: FakeGitHub) -> None:
    g = _github(gh)
    g.get_repo(PY)
    assert g.rate_limiting == (4999, 5000)
    overview = g.get_rate_limit()
    assert overview.resources.core.remaining == 4999 and overview.resources.core.limit == 5000
    assert overview.rate.used == 1 and overview.resources.search.limit == 30


def test_rate_limit_exhausted(gh: FakeGitHub) -> None:
    g = _github(gh)
    gh.rate_limit_remaining = 0
    with pytest.raises(RateLimitExceededException) as info:
        g.get_repo(PY)
    assert info.value.status == 403
    assert info.value.headers is not None and info.value.headers["x-ratelimit-remaining"] == "0"


def test_fault_then_success(gh: FakeGitHub) -> None:
    g = _github(gh)
    repo = g.get_repo(PY)
    gh.add_fault(method="GET", path_regex=r"/pulls/\d+", status=500, times=1)
    with pytest.raises(GithubException) as info:
        repo.get_pull(FIX_PR)
    assert info.value.status == 500
    assert repo.get_pull(FIX_PR).number == FIX_PR
    assert gh.requests["GET /repos/{o}/{r}/pulls/{n}"] == 2


def test_token_required() -> None:
    with FakeGitHub(repos=[PY], token="ghs_secret") as fake:
        with pytest.raises(GithubException) as info:
            _github(fake).get_repo(PY)
        assert info.value.status == 401
        assert _github(fake, auth=Auth.Token("ghs_secret")).get_repo(PY).full_name == PY
        status, _, _ = _get(fake.url + f"/repos/{PY}", {"Authorization": "Bearer ghs_secret"})
        assert status == 200


def test_comments_edit_and_reactions(gh: FakeGitHub) -> None:
    issue = _github(gh).get_repo(PY).get_issue(FIX_ISSUE)
    comment = issue.create_comment("⏳ Looking…")
    assert comment.user.login == "wif-bot[bot]" and comment.user.type == "Bot"
    comment.edit("**Fixed** in 2.67.0")
    assert comment.body == "**Fixed** in 2.67.0"
    reaction = comment.create_reaction("rocket")
    assert reaction.content == "rocket"
    assert [c["body"] for c in gh.comments[(PY, FIX_ISSUE)]] == ["**Fixed** in 2.67.0"]
    assert [(r["comment_id"], r["content"]) for r in gh.reactions] == [(comment.id, "rocket")]
    assert [c.body for c in issue.get_comments()] == ["**Fixed** in 2.67.0"]
    assert _github(gh).get_repo(PY).get_issue(FIX_ISSUE).get_comment(comment.id).body == "**Fixed** in 2.67.0"


def test_workflow_dispatch(gh: FakeGitHub) -> None:
    workflow = _github(gh).get_repo(PY).get_workflow("wif.yml")
    assert (workflow.path, workflow.state) == (".github/workflows/wif.yml", "active")
    run = workflow.create_dispatch(ref="main", inputs={"sdk": "sentry-python"}, return_run_details=True)
    assert run.id == 123 and run.html_url == f"https://github.com/{PY}/actions/runs/123"
    assert workflow.create_dispatch(ref="main", inputs={"sdk": "x"}) is True  # 204 path
    assert [(d["ref"], d["inputs"], d["return_run_details"]) for d in gh.dispatches] == [
        ("main", {"sdk": "sentry-python"}, True),
        ("main", {"sdk": "x"}, False),
    ]
    with pytest.raises(GithubException) as info:
        workflow.create_dispatch(ref="main", inputs={f"k{i}": "v" for i in range(11)}, throw=True)
    assert info.value.status == 422


def test_counts_and_reset(gh: FakeGitHub) -> None:
    g = _github(gh)
    g.get_repo(PY).get_pull(FIX_PR)
    assert gh.total_requests() == 2
    assert gh.log[-1]["path"] == f"/repos/{PY}/pulls/{FIX_PR}"
    assert gh.log[-1]["headers"]["User-Agent"].startswith("PyGithub")
    gh.reset_counts()
    assert gh.total_requests() == 0 and gh.log == []


# ---------------------------------------------------------------------------------------- OpenAI


class Verdict(BaseModel):
    fixed: bool
    version: str | None
    reason: str


@pytest.fixture
def oai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _client(fake: FakeOpenAI, **kwargs: Any) -> OpenAI:
    return OpenAI(api_key="test", base_url=fake.url + "/v1", max_retries=0, **kwargs)


def _ask(client: OpenAI, **kwargs: Any) -> Any:
    return client.chat.completions.parse(
        model="gpt-test",
        messages=[{"role": "user", "content": "Was it fixed? " * 10}],
        response_format=Verdict,
        **kwargs,
    )


def test_openai_parse_with_queue_and_responder(oai: FakeOpenAI) -> None:
    oai.queue({"fixed": True, "version": "2.67.0", "reason": "PR 7129"})
    oai.responder = lambda body: Verdict(fixed=False, version=None, reason=body["model"])
    client = _client(oai)
    first = _ask(client)
    assert first.choices[0].message.parsed == Verdict(fixed=True, version="2.67.0", reason="PR 7129")
    assert _ask(client).choices[0].message.parsed == Verdict(fixed=False, version=None, reason="gpt-test")
    assert first.usage is not None and first.usage.prompt_tokens == len("Was it fixed? " * 10) // 4
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens > 0
    assert first.model == "gpt-test" and first.id.startswith("chatcmpl-")
    assert oai.schema_names() == ["Verdict", "Verdict"]
    assert oai.log[0]["json"]["response_format"]["json_schema"]["strict"] is True
    assert oai.requests["POST /v1/chat/completions"] == 2


def test_openai_default_reply_fits_schema(oai: FakeOpenAI) -> None:
    assert _ask(_client(oai)).choices[0].message.parsed == Verdict(fixed=False, version="", reason="")
    assert schema_example({"enum": ["yes", "no"]}) == "yes"


def test_openai_refusal(oai: FakeOpenAI) -> None:
    oai.queue(FakeReply(refusal="I can't help with that."))
    message = _ask(_client(oai)).choices[0].message
    assert message.refusal == "I can't help with that." and message.parsed is None


def test_openai_length_finish_reason(oai: FakeOpenAI) -> None:
    oai.queue(FakeReply(content='{"fixed": tr', finish_reason="length"))
    with pytest.raises(openai.LengthFinishReasonError):
        _ask(_client(oai))


def _unknown_keys(model: BaseModel, path: str = "") -> list[str]:
    """Keys of a reply the SDK's types do not declare (they land in `model_extra`), anywhere in it."""
    found = [f"{path}.{key}" for key in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, BaseModel):
                found += _unknown_keys(item, f"{path}.{name}")
    return found


def test_openai_replies_have_the_api_shape(oai: FakeOpenAI) -> None:
    """Every key the fake sends is one the SDK's ChatCompletion types declare, with the usage details
    (cached, reasoning tokens), finish_reason, refusal and logprobs a real reply carries."""
    completion = _client(oai).chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "Answer in JSON."}],
        response_format={"type": "json_object"})
    assert _unknown_keys(completion) == []
    usage, choice = completion.usage, completion.choices[0]
    assert usage is not None and usage.prompt_tokens_details and usage.completion_tokens_details
    assert usage.prompt_tokens_details.cached_tokens == 0 and usage.completion_tokens_details.reasoning_tokens == 0
    assert usage.completion_tokens_details.accepted_prediction_tokens == 0
    assert (choice.finish_reason, choice.message.refusal, choice.logprobs) == ("stop", None, None)
    assert completion.object == "chat.completion" and completion.system_fingerprint


def test_openai_prompt_caching_serves_a_repeated_long_prefix(oai: FakeOpenAI) -> None:
    """As OpenAI's prompt caching: from 1,024 tokens, in steps of 128, per model; a short prompt never."""
    client = _client(oai)
    system = "You judge release notes. " * 200  # 5,000 characters ≈ 1,250 tokens

    def cached(user: str, model: str = "gpt-test", head: str = system) -> int:
        usage = client.chat.completions.create(model=model, messages=[
            {"role": "system", "content": head}, {"role": "user", "content": user}]).usage
        assert usage is not None and usage.prompt_tokens_details is not None
        return usage.prompt_tokens_details.cached_tokens or 0

    assert cached("first question") == 0
    assert cached("second question") == 1_152  # 1,250 shared tokens: the 1,024 + 128 step below it
    assert cached("first question", model="gpt-other") == 0
    assert cached("short", head="short system prompt") == cached("short", head="short system prompt") == 0


def test_openai_rejects_what_the_api_rejects(oai: FakeOpenAI) -> None:
    client = _client(oai)
    with pytest.raises(openai.BadRequestError, match="must contain the word 'json'"):
        client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}],
                                       response_format={"type": "json_object"})
    loose = {"type": "object", "properties": {"a": {"type": "string"}}, "required": []}
    with pytest.raises(openai.BadRequestError, match="'required' is required"):
        client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}],
                                       response_format={"type": "json_schema", "json_schema": {
                                           "name": "Loose", "schema": loose, "strict": True}})


def test_openai_a_long_answer_is_cut_at_the_token_cap(oai: FakeOpenAI) -> None:
    oai.queue({"fixed": True, "version": "1.0.0", "reason": "x" * 400})
    with pytest.raises(openai.LengthFinishReasonError):
        _ask(_client(oai), max_completion_tokens=20)


def test_openai_rate_limit_and_scripted_error(oai: FakeOpenAI) -> None:
    oai.add_fault(method="POST", path_regex="/chat/completions", status=429, headers={"retry-after": "0"})
    with pytest.raises(openai.RateLimitError):
        _ask(_client(oai))
    oai.queue(FakeReply(status=400, content="bad schema"))
    with pytest.raises(openai.BadRequestError, match="bad schema"):
        _ask(_client(oai))


def test_openai_timeout(oai: FakeOpenAI) -> None:
    oai.add_fault(method="POST", path_regex="/chat/completions", status=None, gate=threading.Event())  # never set
    with pytest.raises(openai.APITimeoutError):
        _ask(_client(oai, timeout=0.5))


def test_openai_broken_responses(oai: FakeOpenAI) -> None:
    """What the client raises for transport-level garbage (not all of it is an OpenAIError)."""
    oai.add_fault(method="POST", path_regex="/chat/completions", status=200, raw_body=b'{"choices": [')
    with pytest.raises(json.JSONDecodeError):
        _ask(_client(oai))
    oai.add_fault(method="POST", path_regex="/chat/completions", drop_connection=True)
    with pytest.raises(openai.APIConnectionError):
        _ask(_client(oai))
    oai.queue("this is not JSON")
    with pytest.raises(ValidationError):
        _ask(_client(oai))


def test_openai_requires_bearer(oai: FakeOpenAI) -> None:
    req = urllib.request.Request(oai.url + "/v1/chat/completions", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=30)
    assert info.value.code == 401


# ----------------------------------------------------------------------------------------- Slack


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def _slack(fake: FakeSlack) -> WebClient:
    return WebClient(token="xoxb-test", base_url=fake.url + "/api/")


def test_slack_post_then_update(slack: FakeSlack) -> None:
    client = _slack(slack)
    posted = client.chat_postMessage(channel="C123", markdown_text="⏳ Looking…", unfurl_links=False)
    assert posted["ok"] and posted["channel"] == "C123" and posted["ts"] == "1700000000.000100"
    updated = client.chat_update(channel=posted["channel"], ts=posted["ts"], markdown_text="**Fixed**")
    assert updated["ts"] == posted["ts"]
    assert slack.history[posted["ts"]] == ["⏳ Looking…", "**Fixed**"]
    stored = slack.messages[0]
    assert (stored["markdown_text"], stored["text"], stored["unfurl_links"]) == ("**Fixed**", None, False)
    assert client.chat_postMessage(channel="C123", text="again")["ts"] == "1700000000.000300"
    with pytest.raises(SlackApiError) as info:
        client.chat_update(channel="C123", ts="1.000000", text="x")
    assert info.value.response["error"] == "message_not_found"
    with pytest.raises(SlackApiError) as info:
        client.chat_postMessage(channel="C123", text="x", markdown_text="**x**")
    assert info.value.response["error"] == "markdown_text_conflict"
    assert slack.requests["chat.postMessage"] == 3 and slack.requests["chat.update"] == 2


def test_slack_thread_replies_and_reactions(slack: FakeSlack) -> None:
    client = _slack(slack)
    slack.seed_thread("C9", "1690000000.000100", [{"user": "U1", "text": "Is #123 fixed?"}, {"text": "+1"}])
    client.chat_postMessage(channel="C9", thread_ts="1690000000.000100", markdown_text="Yes, in 2.67.0")
    replies = client.conversations_replies(channel="C9", ts="1690000000.000100")
    assert [m["text"] for m in replies["messages"]] == ["Is #123 fixed?", "+1", "Yes, in 2.67.0"]
    assert replies["has_more"] is False and replies["messages"][0]["reply_count"] == 2
    client.reactions_add(channel="C9", timestamp="1690000000.000100", name="eyes")
    assert slack.reactions == [{"channel": "C9", "ts": "1690000000.000100", "name": "eyes", "user": "U0WIFBOT"}]
    assert client.auth_test()["user_id"] == "U0WIFBOT"


def test_slack_scripted_error(slack: FakeSlack) -> None:
    slack.fail_method("chat.postMessage", error="channel_not_found", times=1)
    client = _slack(slack)
    with pytest.raises(SlackApiError) as info:
        client.chat_postMessage(channel="C1", text="hi")
    assert info.value.response["error"] == "channel_not_found"
    assert client.chat_postMessage(channel="C1", text="hi")["ok"]


def test_slack_429_retry(slack: FakeSlack) -> None:
    slack.add_fault(method="POST", path_regex=r"chat\.postMessage", status=429, headers={"Retry-After": "0"})
    client = _slack(slack)
    with pytest.raises(SlackApiError) as info:
        client.chat_postMessage(channel="C1", text="hi")
    assert info.value.response.status_code == 429
    slack.add_fault(method="POST", path_regex=r"chat\.postMessage", status=429, headers={"Retry-After": "0"})
    client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=1))
    assert client.chat_postMessage(channel="C1", text="hi")["ok"]
    assert slack.requests["chat.postMessage"] == 3 and len(slack.messages) == 1


# ---------------------------------------------------------------------------------- shared plumbing


def test_fault_options_raw_drop_forever_and_clear(small_gh: FakeGitHub) -> None:
    url = small_gh.url + "/repos/acme/widget"
    small_gh.add_fault(path_regex=r"^/repos/acme/widget$", status=200, raw_body=b'{"broken": ')
    assert _get(url)[2] == b'{"broken": '
    small_gh.add_fault(path_regex=r"^/repos/acme/widget$", drop_connection=True)
    conn = http.client.HTTPConnection("127.0.0.1", small_gh.port, timeout=30)
    conn.request("GET", "/repos/acme/widget")
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        conn.getresponse()
    conn.close()
    fault = small_gh.add_fault(method=None, path_regex="/widget", status=503, times=None, body={"message": "down"})
    assert [_get(url)[0] for _ in range(3)] == [503, 503, 503] and fault.hits == 3
    small_gh.clear_faults()
    status, headers, _ = _get(url)
    assert status == 200 and headers["X-RateLimit-Limit"] == "5000"
    assert [e["status"] for e in small_gh.log] == [200, "dropped", 503, 503, 503, 200]


def test_concurrent_requests_are_counted(small_gh: FakeGitHub) -> None:
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: _get(small_gh.url + "/repos/acme/widget/pulls/3")[0], range(40)))
    assert statuses == [200] * 40
    assert small_gh.requests["GET /repos/{o}/{r}/pulls/{n}"] == 40 and len(small_gh.log) == 40
    assert small_gh.errors == []


def test_a_connection_is_kept_alive_between_requests_until_the_fake_stops(small_gh: FakeGitHub) -> None:
    """Clients reuse a connection (PyGithub's and openai's pools do): no connect and no serving thread per request.
    Once the fake stops, a kept-alive connection is closed too: the fake is down for every client."""
    conn = http.client.HTTPConnection("127.0.0.1", small_gh.port, timeout=30)
    try:
        sockets = []
        for _ in range(3):
            conn.request("GET", "/repos/acme/widget/pulls/3")
            response = conn.getresponse()
            assert response.status == 200 and json.loads(response.read())["number"] == 3
            assert not response.will_close
            sockets.append(conn.sock)
        assert sockets[0] is not None and sockets == [sockets[0]] * 3  # one connection served all three
        assert small_gh.requests["GET /repos/{o}/{r}/pulls/{n}"] == 3
        small_gh.stop()
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            conn.request("GET", "/repos/acme/widget/pulls/3")
            conn.getresponse()
    finally:
        conn.close()


def test_stop_releases_the_port() -> None:
    fake = FakeSlack().start()
    port = fake.port
    fake.stop()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
