"""Slack and issue-comment delivery against the fake servers: progress, throttling, failures, mentions."""

from __future__ import annotations

import itertools

import pytest

from tests.fakes.github_server import FakeGitHub
from tests.fakes.slack_server import FakeSlack
from wif_action.app import write_github
from wif_action.delivery.answer_text import AnswerText
from wif_action.delivery.comment_progress import CommentDelivery
from wif_action.delivery.github_event import comment_trigger
from wif_action.delivery.slack_progress import SlackDelivery, SlackProgress
from wif_action.delivery.slack_thread import thread_text
from wif_action.delivery.throttle import ThrottledLines
from wif_action.models import Answer, Candidate, Confidence, NearMiss, Outcome, Skipped
from wif_action.ports import ToolError
from wif_action.rendering import render
from wif_action.tools.github_issues import IssueThread
from wif_action.tools.progress import FanOutProgress
from wif_action.tools.slack import MARKDOWN_LIMIT, SlackClient

CHANNEL, TS = "C0SUPPORT", "1700000000.000100"


@pytest.fixture
def slack():
    with FakeSlack() as fake:
        yield fake


def client(fake: FakeSlack, token: str = "xoxb-test") -> SlackClient:
    return SlackClient(token, fake.url + "/api/")


class Skips(list):
    def __call__(self, step: str, reason: str) -> None:
        self.append((step, reason))


# ------------------------------------------------------------------------- throttling
class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_throttle_sends_at_most_once_per_interval_and_always_the_last_state():
    clock, sent = FakeClock(), []
    lines = ThrottledLines(lambda state: sent.append((clock.now, state)), 1.0, clock, clock.sleep)
    lines.add("a")
    clock.now = 0.3
    lines.add("b")
    clock.now = 0.6
    lines.add("c")
    assert [state for _, state in sent] == [["a"]]
    lines.flush()
    assert sent[-1] == (1.0, ["a", "b", "c"])  # waited out the interval, then sent everything
    clock.now = 5.0
    lines.add("d")
    lines.flush()  # nothing pending: no extra send
    assert [state for _, state in sent] == [["a"], ["a", "b", "c"], ["a", "b", "c", "d"]]
    times = [t for t, _ in sent]
    assert all(later - earlier >= 1.0 for earlier, later in itertools.pairwise(times))


# ------------------------------------------------------------------------- Slack progress and answer
def test_progress_is_one_message_edited_then_the_answer_is_a_new_reply(slack):
    skips = Skips()
    delivery = SlackDelivery(client(slack), CHANNEL, TS, skips, interval=0.0)
    progress = delivery.progress()
    progress.checkpoint("Analyzing…")
    progress.checkpoint("Scanning releases 8.49.0–8.52.0 (4 releases)…")
    progress.finish("Done.")
    assert delivery.post_answer("✓ This was fixed in **v8.52.0**.")
    first, answer = slack.messages
    assert first["thread_ts"] == TS and answer["thread_ts"] == TS and first["ts"] != answer["ts"]
    assert slack.history[first["ts"]][0].endswith("- Analyzing…")
    assert slack.history[first["ts"]][-1].endswith("- Scanning releases 8.49.0–8.52.0 (4 releases)…\n- Done.")
    assert answer["markdown_text"] == "✓ This was fixed in **v8.52.0**." and answer["unfurl_links"] is False
    assert not skips


def test_throttled_progress_flushes_the_last_checkpoint(slack):
    progress = SlackProgress(client(slack), CHANNEL, TS, Skips(), interval=0.3)
    for n in range(5):
        progress.checkpoint(f"Scanned {n} of 5 releases…")
    progress.finish("Done.")
    assert slack.requests["chat.postMessage"] == 1 and slack.requests["chat.update"] == 1
    assert slack.history[slack.messages[0]["ts"]][-1].endswith("Scanned 4 of 5 releases…\n- Done.")


def test_without_a_thread_a_parent_quotes_the_question(slack):
    delivery = SlackDelivery(client(slack), CHANNEL, None, Skips(), interval=0.0)
    assert delivery.read_thread() == ""
    delivery.open_thread("sentry-cocoa 8.48.0: tags empty <!here> @bob")
    parent = slack.messages[0]
    assert parent["thread_ts"] is None and "> sentry-cocoa 8.48.0: tags empty" in parent["markdown_text"]
    assert "<!here>" not in parent["markdown_text"] and "@bob" not in parent["markdown_text"]
    delivery.post_answer("answer")
    assert slack.messages[-1]["thread_ts"] == parent["ts"]


@pytest.mark.parametrize("error", ["channel_not_found", "not_in_channel", "invalid_auth"])
def test_slack_errors_become_skipped_steps_and_drop_the_sink(slack, error):
    slack.fail_method("chat.postMessage", error, times=None)
    skips = Skips()
    delivery = SlackDelivery(client(slack), CHANNEL, TS, skips, interval=0.0)
    fan_out = FanOutProgress(delivery.progress())
    fan_out.checkpoint("Analyzing…")
    fan_out.checkpoint("Scanning…")
    assert not fan_out.sinks and len(fan_out.errors) == 1
    assert not delivery.post_answer("answer")
    assert [step for step, _ in skips] == ["Slack progress updates", "Slack answer"]
    assert all(error in reason for _, reason in skips)


def test_rate_limit_is_retried_after_retry_after(slack):
    slack.add_fault("POST", r"chat\.postMessage", status=429, headers={"Retry-After": "0"}, times=2)
    assert client(slack).post(CHANNEL, "hello", thread_ts=TS)[0] == CHANNEL
    assert slack.requests["chat.postMessage"] == 3


def test_rate_limit_beyond_the_retries_is_a_tool_error(slack):
    slack.add_fault("POST", r"chat\.postMessage", status=429, headers={"Retry-After": "0"}, times=None)
    with pytest.raises(ToolError, match=r"HTTP 429|ratelimited"):
        client(slack).post(CHANNEL, "hello")


def test_connection_refused_trips_a_breaker(slack):
    url = slack.url + "/api/"
    slack.stop()
    broken = SlackClient("xoxb-test", url)
    with pytest.raises(ToolError, match=r"chat\.postMessage failed"):
        broken.post(CHANNEL, "hello")
    with pytest.raises(ToolError, match="unreachable"):
        broken.update(CHANNEL, TS, "hello")


def test_long_answers_fit_slacks_limit(slack):
    client(slack).post(CHANNEL, "x" * 20_000)
    assert len(slack.messages[0]["markdown_text"]) <= MARKDOWN_LIMIT


# ------------------------------------------------------------------------- reading the thread
def test_thread_is_relabelled_and_bots_are_skipped(slack):
    slack.seed_thread(CHANNEL, TS, [
        {"user": "U7ALICE", "text": "Customer on sentry-java 8.17.0 sees 504s"},
        {"user": "U8BOB", "text": "<@U7ALICE> which OkHttp version? cc <!subteam^S1|@android>"},
        {"user": "U0BOT", "text": "⏳ WIF is looking", "bot_id": "B1"},
        {"user": "U7ALICE", "text": "4.12, <@U9NOBODY> knows more"},
    ])
    text = SlackDelivery(client(slack), CHANNEL, TS, Skips()).read_thread()
    assert text == ("User 1: Customer on sentry-java 8.17.0 sees 504s\n\n"
                    "User 2: User 1 which OkHttp version? cc android\n\n"
                    "User 1: 4.12, someone knows more")


def test_unreadable_thread_is_a_skipped_step(slack):
    slack.fail_method("conversations.replies", "missing_scope")
    skips = Skips()
    assert SlackDelivery(client(slack), CHANNEL, TS, skips).read_thread() == ""
    assert skips == [("reading the Slack thread", "conversations.replies failed: missing_scope")]


def test_thread_text_ignores_empty_and_join_messages():
    messages = [{"user": "U1", "text": ""}, {"user": "U2", "subtype": "channel_join", "text": "joined"},
                {"user": "U3", "text": "hi"}]
    assert thread_text(messages) == "User 1: hi"


# ------------------------------------------------------------------------- per-channel rendering
def high_answer() -> Answer:
    candidate = Candidate(version="8.52.0", tag="8.52.0", pr=5242, url="https://github.com/o/r/pull/5242",
                          confidence=Confidence.HIGH, reason="Fixes @someone's <!channel> bug")
    answer = Answer(outcome=Outcome.HIGH, repo="o/r", user_version="8.48.0", candidates=[candidate])
    answer.message = render(answer)
    return answer


def test_each_channel_gets_its_own_mention_and_delivery_skips():
    answer = Answer(outcome=Outcome.NO_RESULT, repo="o/r", user_version="8.48.0")
    answer.message = render(answer, "SDK maintainers (o/team)")
    text = AnswerText.of(answer, "SDK maintainers (o/team)")
    text.delivery_skipped = [Skipped(step="Slack answer", reason="channel_not_found")]
    slack_text = text.markdown("<!subteam^S0MAINT>", slack_group="S0MAINT")
    assert "Deferring to <!subteam^S0MAINT> for investigation" in slack_text
    assert "Deferring to @o/team" in text.markdown("@o/team", github_team="o/team")
    final = text.final()
    assert "SDK maintainers (o/team)" in final.message and "- Slack answer: channel_not_found" in final.message
    assert final.skipped[-1].step == "Slack answer"


def test_quoted_text_in_an_answer_cannot_ping():
    text = AnswerText.of(high_answer())
    out = text.markdown("<!subteam^S0MAINT>", slack_group="S0MAINT")
    assert "@someone" not in out and "<!channel>" not in out


@pytest.mark.parametrize("outcome", [Outcome.NEEDS_CLARIFICATION, Outcome.FAILED])
def test_free_text_answers_survive_re_rendering(outcome):
    answer = Answer(outcome=outcome, trace=["Repository: unknown"], question="Which version is the customer on?")
    answer.message = render(answer, "SDK maintainers (o/t)")
    text = AnswerText.of(answer, "SDK maintainers (o/t)")
    assert text.markdown() == answer.message
    assert "Which version is the customer on?" in text.markdown("@o/t", github_team="o/t")


# ------------------------------------------------------------------------- the issue comment
@pytest.fixture
def github():
    with FakeGitHub() as fake:
        fake.add_repo("acme/support")
        yield fake


def comment_delivery(github: FakeGitHub, body: str = "/wif sdk: x version: 1.0.0 y") -> CommentDelivery:
    comment = github.add_comment("acme/support", 3, body)
    trigger = comment_trigger({"action": "created", "issue": {"number": 3, "title": "t"},
                               "repository": {"full_name": "acme/support"},
                               "comment": {**comment, "author_association": "MEMBER"}})
    thread = IssueThread(write_github({"GITHUB_API_URL": github.url, "GITHUB_TOKEN": "t"}), "acme/support", 3)
    return CommentDelivery(thread, trigger, Skips(), interval=0.0)


def test_high_answer_gets_rocket_and_progress_is_edited_in_place(github):
    delivery = comment_delivery(github)
    delivery.start()
    progress = delivery.progress()
    progress.checkpoint("Analyzing…")
    progress.checkpoint("Scanning releases…")
    assert delivery.post_answer("✓ fixed", Outcome.HIGH)
    bots = [c for c in github.comments[("acme/support", 3)] if c["user"]["type"] == "Bot"]
    assert len(bots) == 1 and bots[0]["body"] == f"{delivery.trigger.marker}\n✓ fixed"
    assert [r["content"] for r in github.reactions] == ["eyes", "rocket"]
    assert github.requests["PATCH /repos/{o}/{r}/issues/comments/{id}"] == 3


@pytest.mark.parametrize(("outcome", "lead", "reaction"), [
    (Outcome.UNRELEASED, Confidence.HIGH, "hooray"),  # fixed on the default branch: says so, defers nothing
    (Outcome.UNRELEASED, Confidence.MEDIUM, "confused"),  # a MEDIUM, released or not, defers to maintainers
    (Outcome.UNRELEASED, None, "confused"),
    (Outcome.HIGH, Confidence.HIGH, "rocket"),
    (Outcome.ALREADY_LATEST, None, "confused"),
])
def test_the_final_reaction_says_what_the_answer_is(github, outcome, lead, reaction):
    delivery = comment_delivery(github)
    delivery.start()
    assert delivery.post_answer("answer", outcome, lead)
    assert [r["content"] for r in github.reactions] == ["eyes", reaction]


def test_a_human_comment_with_the_marker_is_never_edited(github):
    delivery = comment_delivery(github)
    github.add_comment("acme/support", 3, f"{delivery.trigger.marker} fake", user="mallory")
    delivery.start()
    delivery.post_answer("answer", Outcome.MEDIUM)
    comments = github.comments[("acme/support", 3)]
    assert comments[1]["body"] == f"{delivery.trigger.marker} fake"
    assert comments[2]["user"]["type"] == "Bot" and comments[2]["body"].endswith("answer")
    assert [r["content"] for r in github.reactions] == ["eyes", "confused"]


def test_github_failures_become_skipped_steps(github):
    delivery = comment_delivery(github)
    github.add_fault(None, r"/issues/", status=403, times=None)
    delivery.start()
    assert not delivery.post_answer("answer", Outcome.HIGH)
    steps = [step for step, _ in delivery._on_skip]
    assert steps == ["GitHub reaction 'eyes'", "GitHub progress comment", "GitHub answer comment"]


@pytest.mark.parametrize("fault", [
    {"status": 200, "truncate": True},  # IncompleteRead
    {"status": 200, "body": {"ok": False, "error": {"code": "weird", "nested": [1]}}},  # an object `error`
    {"status": 200, "raw_body": b"<html>proxy login</html>", "headers": {"Content-Type": "text/html"}},
])
def test_bad_slack_replies_are_tool_errors_never_crashes(slack, fault):
    """Whatever Slack (or a proxy) answers, the client raises ToolError only: Slack can cost Slack
    delivery, never the analysis."""
    slack.add_fault("POST", r"chat\.postMessage", times=None, **fault)
    with pytest.raises(ToolError, match=r"chat\.postMessage failed"):
        client(slack).post(CHANNEL, "hello")


@pytest.mark.slow
def test_a_dripping_slack_is_cut_off_by_the_wall_clock_bound(slack):
    """One byte every 0.5 s never trips the read timeout; the total bound per call does."""
    slack.add_fault("POST", r"chat\.postMessage", status=None, times=None, drip=0.5)
    broken = SlackClient("xoxb-test", slack.url + "/api/", timeout=5, call_seconds=1.0)
    with pytest.raises(ToolError, match=r"did not answer within 1 s"):
        broken.post(CHANNEL, "hello")
    with pytest.raises(ToolError, match="skipped"):
        broken.update(CHANNEL, TS, "hello")


# ------------------------------------------------------------------------- a line citing only a commit
SHA = "92e109c4e5f60718293a4b5c6d7e8f9012345678"


def commit_answer(outcome: Outcome = Outcome.MEDIUM) -> Answer:
    """An answer led by a release line citing a commit and no PR (or, for no_result, listing one as a near miss)."""
    url = f"https://github.com/o/r/commit/{SHA}"
    if outcome == Outcome.NO_RESULT:
        answer = Answer(outcome=outcome, repo="o/r", user_version="1.0.0",
                        near_misses=[NearMiss(version="1.2.0", pr=None, url=url, reason="weak", commit=SHA)])
    else:
        answer = Answer(outcome=outcome, repo="o/r", user_version="1.0.0", candidates=[Candidate(
            version="1.2.0", tag="v1.2.0", pr=None, commit=SHA, url=url, confidence=Confidence.MEDIUM,
            reason='Release note "client: preserve query params on base_url (92e109c)" matches "query params".')])
    answer.message = render(answer)
    return answer


@pytest.mark.parametrize("outcome", [Outcome.MEDIUM, Outcome.NO_RESULT])
def test_a_commit_only_answer_links_its_commit_in_slack_and_the_issue_comment(slack, github, outcome):
    link = f"[commit 92e109c](https://github.com/o/r/commit/{SHA})"
    text = AnswerText.of(commit_answer(outcome))
    delivery = SlackDelivery(client(slack), CHANNEL, TS, Skips(), interval=0.0)
    assert delivery.post_answer(text.markdown("<!subteam^S0MAINT>", slack_group="S0MAINT"))
    assert link in slack.messages[-1]["markdown_text"] and "PR #" not in slack.messages[-1]["markdown_text"]
    comment = comment_delivery(github)
    comment.start()
    assert comment.post_answer(text.markdown("@o/team", github_team="o/team"), outcome, Confidence.MEDIUM)
    bot = [c for c in github.comments[("acme/support", 3)] if c["user"]["type"] == "Bot"][-1]
    assert link in bot["body"] and "PR #" not in bot["body"]
