"""Short, human-readable summaries of tool arguments and results for run records.

Why summaries and not the values: a batch of entries or a PR body is kilobytes;
the record needs to say *which* release, PR or entry was involved, not copy it.
"""

from __future__ import annotations

from typing import Any

from wif_action.models import Entry, IssueResolution, PullRequest, Release, RelevantEntry, Request, Score, Verdict
from wif_action.question import Question
from wif_action.run_records.tables import clip

ARGUMENT_LIMIT = 300
_TEXT_LIMIT = 80


def summarise(value: Any) -> str:
    """One short phrase for a value: `release 8.52.0`, `PR #5242`, `12 entries`, `'text…'`."""
    if value is None or isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, str):
        return repr(clip(value, _TEXT_LIMIT))
    describe = _DESCRIBE.get(type(value))  # a model of wif_action/models.py
    if describe:
        return str(describe(value))
    if isinstance(value, Question):  # the problem says which question; its analysis is derived from it
        return f"question {summarise(value.problem)}"
    if isinstance(value, list | tuple | set | frozenset):
        return _collection(list(value))
    if isinstance(value, dict):
        return f"{{{len(value)} keys}}"
    return type(value).__name__


def summarise_call(args: tuple, kwargs: dict) -> str:
    parts = [summarise(a) for a in args] + [f"{k}={summarise(v)}" for k, v in kwargs.items()]
    return clip(", ".join(parts), ARGUMENT_LIMIT)


def _collection(items: list) -> str:
    if not items:
        return "[]"
    if all(isinstance(i, bool | int | float | str) for i in items) and len(items) <= 5:
        return "[" + ", ".join(summarise(i) for i in items) + "]"
    if all(isinstance(i, Entry) for i in items):
        return f"{len(items)} entries of {_release_span([i.release for i in items])}"
    if all(isinstance(i, Release) for i in items):
        return f"{len(items)} releases {_release_span(items)}"
    if len(items) <= 3:
        return "[" + ", ".join(summarise(i) for i in items) + "]"
    return f"{len(items)} × {type(items[0]).__name__}"


def _release_span(releases: list[Release]) -> str:
    tags = list(dict.fromkeys(r.tag for r in releases))
    return tags[0] if len(tags) == 1 else f"{tags[0]}–{tags[-1]}"


_DESCRIBE: dict[type, Any] = {
    Release: lambda r: f"release {r.tag}",
    Entry: lambda e: f"entry {e.id} ({e.release.tag}: {clip(e.text, 40)})",
    RelevantEntry: lambda r: f"entry {r.entry.id} ({r.entry.release.tag}) → PR #{r.pr}",
    PullRequest: lambda p: f"PR #{p.number} ({clip(p.title, 50)})",
    Score: lambda s: f"{s.confidence.value}: {clip(s.reason, 60)}",
    Verdict: lambda v: f"{'confirmed' if v.confirmed else 'rejected'}: {clip(v.reason, 60)}",
    IssueResolution: lambda i: f"#{i.number} {i.state or '?'} closing PRs {i.closing_prs}",
    Request: lambda r: f"sdk={r.sdk} repo={r.repo} version={r.version} problem={clip(r.problem, 40)!r}",
}
