"""Sanitising text WIF posts: no quoted text may ping anyone but the configured maintainer group."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wif_action.delivery.sanitize import ZWSP, github_mention, sanitize, slack_mention

GROUP, TEAM = "S0MAINT", "getsentry/team-mobile"
# Independent of the implementation: what GitHub and Slack would treat as a ping.
URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`|\\^]+")
GITHUB_PING = re.compile(r"@[A-Za-z0-9]")
SLACK_PING = re.compile(r"<(?:!(?:channel|here|everyone|subteam\^[^>|]*)|@[UW][A-Z0-9]*)")

FRAGMENTS = st.sampled_from([
    "@", "@user", "@here", "@channel", "@everyone", "@getsentry/team-mobile", "@getsentry/team-mobilex",
    "@getsentry/other", "<!channel>", "<!here>", "<!everyone>", "<!here|here>", "<@U123ABC>", "<@W99>",
    "<!subteam^S0MAINT>", "<!subteam^S0MAINT|@mobile>", "<!subteam^S0OTHER>", "<!subteam^S0MAINTX>", "<", "!",
    "https://www.npmjs.com/package/@sentry/node", "http://x@y", "mail@example.com", "`@code`", "(", ")", " ",
    "\n", ZWSP, "\u200d", "text", "#123", "<!--", "-->", "&lt;!here&gt;", "＠user",
])
TEXT = st.lists(st.one_of(FRAGMENTS, st.text(max_size=8)), max_size=30).map("".join)


def pings(text: str) -> tuple[list[str], list[str]]:
    """(GitHub pings, Slack pings) outside URLs, minus the configured group and team."""
    outside = URL.sub(" ", text)
    github = [m.group(0) for m in GITHUB_PING.finditer(outside)
              if not (outside.startswith("@" + TEAM, m.start())
                      and not re.match(r"[\w/-]", outside[m.start() + 1 + len(TEAM):][:1]))]
    slack = [m.group(0) for m in SLACK_PING.finditer(text)
             if not re.match(rf"<!subteam\^{GROUP}[>|]", text[m.start():])]
    return github, slack


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(TEXT)
@example("@user <!channel> <!here> <!everyone> <@U1> <!subteam^S0OTHER> @getsentry/other")
def test_no_ping_survives_except_the_configured_group(text):
    assert pings(sanitize(text, slack_group=GROUP, github_team=TEAM)) == ([], [])


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_without_configuration_nothing_pings(text):
    out = sanitize(text)
    assert not GITHUB_PING.search(URL.sub(" ", out))
    assert not SLACK_PING.search(out)


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_sanitising_only_inserts_zero_width_spaces_and_is_idempotent(text):
    out = sanitize(text, slack_group=GROUP, github_team=TEAM)
    assert out.replace(ZWSP, "") == text.replace(ZWSP, "")
    assert sanitize(out, slack_group=GROUP, github_team=TEAM) == out


def test_examples():
    assert sanitize("thanks @bob") == f"thanks @{ZWSP}bob"
    assert sanitize("<!here> look") == f"<{ZWSP}!here> look"
    assert sanitize("<@U123>") == f"<{ZWSP}@{ZWSP}U123>"
    assert sanitize("ping <!subteam^S0MAINT>", slack_group=GROUP) == "ping <!subteam^S0MAINT>"
    assert sanitize("ping <!subteam^S0MAINT>") == f"ping <{ZWSP}!subteam^S0MAINT>"
    assert sanitize("@getsentry/team-mobile", github_team=TEAM) == "@getsentry/team-mobile"
    assert sanitize("@getsentry/team-mobile2", github_team=TEAM) == f"@{ZWSP}getsentry/team-mobile2"
    link = "[npm](https://www.npmjs.com/package/@sentry/node)"
    assert sanitize(link) == link
    assert sanitize("<!-- wif:a/b#1:2 -->").startswith(f"<{ZWSP}!--")


def test_mentions_from_the_registry():
    assert slack_mention("S0MAINT") == "<!subteam^S0MAINT>"
    assert slack_mention(None) is None and slack_mention("<!here>") is None
    assert github_mention("getsentry/team-mobile") == "@getsentry/team-mobile"
    assert github_mention("@getsentry/team-mobile") == "@getsentry/team-mobile"
    assert github_mention("not a team") is None and github_mention(None) is None
