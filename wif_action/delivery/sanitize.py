"""Neutralise pings in text WIF posts: quoted PRs, release notes and requests must notify no one.

Why: WIF quotes text written by others (PR titles, release notes, the request
itself). Posted verbatim, an `@user`, `@org/team`, `<!channel>` or `<@U123>`
in that text would notify people. Only the maintainer group the deployment
configured may be mentioned. A zero-width space keeps the text readable while
breaking the mention syntax of both GitHub and Slack.
"""

from __future__ import annotations

import re

ZWSP = "\u200b"
# A URL token: an `@` inside one (npm package URLs, user@host) is part of the link, not a mention.
URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`|\\^]+")
# Slack control sequences (`<!here>`, `<!subteam^S1>`, `<@U1>`) and HTML comments (`<!--`) start like this.
SLACK_SPECIAL = re.compile(r"<(?=[!@])")
AT_MENTION = re.compile(r"@(?=[A-Za-z0-9])")


def sanitize(text: str, *, slack_group: str | None = None, github_team: str | None = None) -> str:
    """Text with every ping neutralised except `<!subteam^slack_group>` and `@github_team`."""
    if not text:
        return ""
    allowed_slack = f"<!subteam^{slack_group}" if slack_group else None
    team = (github_team or "").lstrip("@") or None
    parts: list[str] = []
    position = 0
    for url in URL.finditer(text):
        parts.append(_neutralise(text[position:url.start()], allowed_slack, team))
        parts.append(url.group(0))
        position = url.end()
    parts.append(_neutralise(text[position:], allowed_slack, team))
    return "".join(parts)


def _neutralise(text: str, allowed_slack: str | None, team: str | None) -> str:
    quiet = SLACK_SPECIAL.sub(lambda m: _slack(text, m.start(), allowed_slack), text)
    return AT_MENTION.sub(lambda m: _at(quiet, m.start(), team), quiet)


def _slack(text: str, start: int, allowed: str | None) -> str:
    if allowed and text.startswith(allowed, start) and text[start + len(allowed):][:1] in (">", "|"):
        return "<"
    return "<" + ZWSP


def _at(text: str, start: int, team: str | None) -> str:
    if team and text.startswith(team, start + 1):
        after = text[start + 1 + len(team):][:1]
        if not after or not (after.isalnum() or after in "_/-"):
            return "@"
    return "@" + ZWSP


def slack_mention(group_id: str | None) -> str | None:
    """The Slack user-group mention for a registry `slack_group_id` (None when unset or malformed)."""
    if group_id and re.fullmatch(r"S[A-Z0-9]{2,20}", group_id):
        return f"<!subteam^{group_id}>"
    return None


def github_mention(team: str | None) -> str | None:
    """`@org/team` for a registry `github_team` (None when unset or malformed)."""
    name = (team or "").strip().lstrip("@")
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        return "@" + name
    return None
