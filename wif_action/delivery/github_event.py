"""What started this run: a `workflow_dispatch`, a `/wif` issue comment, or anything else.

Why the gating is repeated here although the workflow's `if:` already gates:
a copied workflow may lack it, and a re-run must still never answer a
stranger, a pull request, or WIF's own comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

MARKER_PREFIX = "<!-- wif:"
TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
MAX_REQUEST_CHARS = 20_000
HINT_KEYS = ("sdk", "repo", "version", "problem", "links", "link")
_KEY_ALIASES = {"link": "links"}
# Case-insensitive like the workflow's `startsWith(github.event.comment.body, '/wif')` (GitHub ignores case
# there), so every comment that starts a job is also read as a command.
_COMMAND = re.compile(r"\A\s*/wif(?=\s|\Z)", re.IGNORECASE)
_HINT = re.compile(r"(?:(?<=\s)|\A)(" + "|".join(HINT_KEYS) + r")\s*:[ \t]*", re.IGNORECASE)


@dataclass
class WifCommand:
    """A parsed `/wif ...` comment: `key: value` hints plus the remaining free text."""

    hints: dict[str, str] = field(default_factory=dict)
    text: str = ""

    @property
    def links(self) -> list[str]:
        return re.findall(r"https?://[^\s,]+", self.hints.get("links", ""))


@dataclass
class Trigger:
    """The event, reduced to what delivery needs; `ignore` says why WIF must stay silent."""

    event: str
    repo: str | None = None
    issue: int | None = None
    comment_id: int | None = None
    command: WifCommand | None = None
    request_text: str = ""
    ignore: str | None = None

    @property
    def is_comment(self) -> bool:
        return self.event == "issue_comment" and self.ignore is None

    @property
    def marker(self) -> str:
        """The hidden tag of the answer comment, so a re-run edits it instead of adding another."""
        return f"{MARKER_PREFIX}{self.repo}#{self.issue}:{self.comment_id} -->"


def parse_command(body: object) -> WifCommand | None:
    """The `/wif` command in a comment body, or None when the body is not one."""
    if not isinstance(body, str) or not _COMMAND.match(body):
        return None
    rest = _COMMAND.sub("", body, count=1)
    matches = list(_HINT.finditer(rest))
    hints: dict[str, str] = {}
    free = [rest[: matches[0].start()] if matches else rest]
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(rest)
        key = _KEY_ALIASES.get(match.group(1).lower(), match.group(1).lower())
        value, tail = _hint_value(key, rest[match.end():end])
        if value and key not in hints:
            hints[key] = value
        free.append(tail)
    return WifCommand(hints=hints, text=" ".join(" ".join(free).split()))


def _hint_value(key: str, raw: str) -> tuple[str, str]:
    """(value, leftover free text): a problem runs to the next hint; other values are one word or "quoted"."""
    if key == "problem":
        return raw.strip(), ""
    if key == "links":
        line, _, tail = raw.partition("\n")
        return line.strip(), tail
    quoted = re.match(r'\s*"([^"\n]*)"', raw)
    if quoted:
        return quoted.group(1).strip(), raw[quoted.end():]
    word = re.match(r"\s*(\S*)", raw)
    return (word.group(1), raw[word.end():]) if word else ("", raw)


def load_trigger(env: Mapping[str, str]) -> Trigger:
    """The trigger from GITHUB_EVENT_NAME and the event JSON at GITHUB_EVENT_PATH."""
    event = env.get("GITHUB_EVENT_NAME", "") or "manual"
    if event != "issue_comment":
        return Trigger(event=event, repo=env.get("GITHUB_REPOSITORY") or None)
    payload, problem = _read_event(env.get("GITHUB_EVENT_PATH"))
    if problem is not None:  # never answered: nobody can say who asked; the reason names the file's fault
        return Trigger(event=event, repo=env.get("GITHUB_REPOSITORY") or None, ignore=problem)
    return comment_trigger(payload, env.get("GITHUB_REPOSITORY"))


def _read_event(path: str | None) -> tuple[dict, str | None]:
    """The event payload, or why there is none to read (said instead of "the comment does not start with
    /wif", which would blame a comment nobody has seen)."""
    if not path:
        return {}, "GITHUB_EVENT_PATH is not set, so there is no comment to read"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        return {}, f"the event file at GITHUB_EVENT_PATH cannot be read ({error.strerror or error})"
    except ValueError as error:  # not UTF-8, not JSON
        return {}, f"the event file at GITHUB_EVENT_PATH is not JSON ({str(error)[:120]})"
    if not isinstance(data, dict):
        return {}, "the event file at GITHUB_EVENT_PATH is not a JSON object"
    return data, None


def comment_trigger(payload: Mapping, fallback_repo: str | None = None) -> Trigger:
    """A Trigger for an `issue_comment` payload; `ignore` is set unless WIF should answer it."""
    comment = _dict(payload.get("comment"))
    issue = _dict(payload.get("issue"))
    repo = _dict(payload.get("repository")).get("full_name") or fallback_repo
    command = parse_command(comment.get("body"))
    trigger = Trigger(event="issue_comment", repo=repo if isinstance(repo, str) else None,
                      issue=_int(issue.get("number")), comment_id=_int(comment.get("id")), command=command)
    trigger.ignore = _ignore_reason(payload, comment, issue, command, trigger)
    if trigger.ignore is None and command is not None:
        trigger.request_text = request_text(issue.get("title"), issue.get("body"), command)
    return trigger


def _ignore_reason(payload: Mapping, comment: dict, issue: dict, command: WifCommand | None,
                   trigger: Trigger) -> str | None:
    """Why this comment must not be answered (None: answer it). Order: cheapest, most common first."""
    body = comment.get("body") if isinstance(comment.get("body"), str) else ""
    user = _dict(comment.get("user"))
    checks = [
        (payload.get("action", "created") != "created", "the comment was not newly created"),
        (command is None, "the comment does not start with /wif"),
        ("pull_request" in issue, "the comment is on a pull request, not an issue"),
        (user.get("type") == "Bot" or MARKER_PREFIX in str(body or ""), "the comment was written by a bot (or by WIF)"),
        (not isinstance(comment.get("author_association"), str)
         or comment.get("author_association") not in TRUSTED_ASSOCIATIONS,
         "the commenter is not an owner, member or collaborator of the repository"),
        (not (trigger.repo and trigger.issue and trigger.comment_id),
         "the event lacks the repository, issue or comment"),
    ]
    return next((reason for failed, reason in checks if failed), None)


def request_text(title: object, body: object, command: WifCommand) -> str:
    """The command's free text first, then the issue title and body as context, bounded so a huge issue
    cannot flood the engines. Why this order: the `/wif` line is the question; a long issue body (logs,
    stack traces) is cut, never the question, and an SDK or version the question names is read first."""
    question = command.text.strip()[:MAX_REQUEST_CHARS]
    context = "\n\n".join(part for part in (str(title or "").strip(), str(body or "").strip()) if part)
    room = MAX_REQUEST_CHARS - len(question) - 2
    if not context or room <= 0:
        return question or context[:MAX_REQUEST_CHARS]
    return f"{question}\n\n{context[:room]}" if question else context[:MAX_REQUEST_CHARS]


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
