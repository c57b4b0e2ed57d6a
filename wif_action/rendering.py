"""The Markdown answer, in the spec's Subtask 6 formats.

Standard Markdown (`**v8.52.0**`, `[PR #5242](url)`), which GitHub renders and
Slack renders through `markdown_text`. Pure functions of the Answer, so each
delivery channel can re-render with its own maintainer mention.
"""

from __future__ import annotations

from datetime import UTC, datetime

from wif_action.candidate_order import candidate_order, clear_leader
from wif_action.models import Answer, Candidate, Confidence, NearMiss, Outcome

DEFAULT_MENTION = "SDK maintainers"


def render(answer: Answer, mention: str = DEFAULT_MENTION, *, question: str | None = None) -> str:
    """The Markdown answer; `question` defaults to the answer's own clarification/failure text."""
    body = _HEADLINES[answer.outcome](answer, mention, answer.question if question is None else question)
    parts = [body, _checked(answer), _near_misses(answer), _reasoning(answer), _skipped(answer)]
    return "\n\n".join(part for part in parts if part).strip()


def _v(version: str | None) -> str:
    """"v8.1.0" for a bare version; a tag that does not start with a digit ("v2.0.0", tokio's "tokio-1.51.3")
    is shown as is, not as "vtokio-1.51.3"."""
    version = (version or "?").strip()
    return f"v{version}" if version[:1].isdigit() else version


def _pr_link(candidate: Candidate | NearMiss, home: str | None) -> str:
    """`[PR #5242](url)`, or `[commit 92e109c](url)` for a line that cites no PR; a PR of another repository
    than the answer's (a bundled SDK's, a linked one) names it:
    `[PR owner/repo#3333](url)`."""
    if candidate.pr is None:  # a release-note line citing a commit and no PR
        owner = f"{candidate.repo} " if candidate.repo and candidate.repo != home else ""
        return f"[commit {owner}{(candidate.commit or '')[:7]}]({candidate.url})"
    where = f"{candidate.repo}#" if candidate.repo and candidate.repo != home else "#"
    return f"[PR {where}{candidate.pr}]({candidate.url})"


def _bundling(candidate: Candidate) -> str:
    """How a bundled SDK's fix reached the customer's release: ` (it bundles sentry-cocoa 8.13.1)`."""
    via = candidate.via
    return f" (it bundles {via.repo.split('/', 1)[-1]} {via.version})" if via is not None else ""


def _high(answer: Answer, mention: str, question: str) -> str:
    highs = [c for c in candidate_order(answer.candidates) if c.confidence == Confidence.HIGH]
    first = highs[0]
    lines = [f"✓ This was fixed in **{_v(first.version)}**{_bundling(first)}. See {_pr_link(first, answer.repo)}."]
    for other in highs[1:]:
        lines.append(f"✓ Also fixed in **{_v(other.version)}**{_bundling(other)}: {_pr_link(other, answer.repo)}.")
    lines.append("")
    lines += [f"> {_pr_link(c, answer.repo)}: {c.reason}" for c in highs]
    return "\n".join(lines)


def _candidates_heading(mediums: list[Candidate]) -> str:
    """Says how the list is ordered, so nobody reads the first line as merely the oldest."""
    first = "the one naming clearly the most of the problem first, then " if clear_leader(mediums) else ""
    last = "; any with a reason against them last" if any(c.objected or c.second_look for c in mediums) else ""
    return f"Candidates ({first}oldest first{last}):"


def _medium(answer: Answer, mention: str, question: str) -> str:
    mediums = candidate_order(answer.candidates)
    first, home = mediums[0], answer.repo
    lines = [f"**{_v(first.version)}**{_bundling(first)} includes changes that may address this "
             f"({_pr_link(first, home)}),",
             f"but I'm not fully certain. Deferring to {mention} to confirm.", ""]
    if len(mediums) > 1:
        lines.append(_candidates_heading(mediums))
        lines += [f"- {_where(c)} {_pr_link(c, answer.repo)}: {c.reason}" for c in mediums]
    else:
        lines.append(f"> {_pr_link(first, answer.repo)}: {first.reason}")
    return "\n".join(lines)


def _unreleased(answer: Answer, mention: str, question: str) -> str:
    """A fix on the default branch, in no release yet: "✓ Fixed on the default branch by [PR #N](url), not
    released yet — it should ship in the release after **vX** (notes read 3 h ago)." (MEDIUM: "may")."""
    first = next(c for c in answer.candidates if c.unreleased)
    notes = answer.unreleased_notes
    after = f"the release after **{_v(notes.after)}**" if notes and notes.after else "the next release"
    read = f" (notes read {age(notes.read_at)})" if notes and notes.read_at else ""
    if first.confidence == Confidence.HIGH:
        lines = [f"✓ Fixed on the default branch by {_pr_link(first, answer.repo)}, not released yet — "
                 f"it should ship in {after}{read}."]
    else:
        lines = [f"The default branch has a change, not released yet, that may address this "
                 f"({_pr_link(first, answer.repo)}) — it should ship in {after}{read}.",
                 f"I'm not fully certain. Deferring to {mention} to confirm."]
    lines += ["", f"> {_pr_link(first, answer.repo)}: {first.reason}"]
    others = [c for c in answer.candidates if c is not first]
    if others:
        lines += ["", "Other candidates:"]
        lines += [f"- {_where(c)} {_pr_link(c, answer.repo)}: {c.reason}" for c in others]
    return "\n".join(lines)


def _where(candidate: Candidate) -> str:
    return "not released yet" if candidate.unreleased else f"**{_v(candidate.version)}**{_bundling(candidate)}"


def _no_result(answer: Answer, mention: str, question: str) -> str:
    notes = answer.unreleased_notes
    if answer.latest and notes and notes.checked:
        return (f"{_v(answer.user_version)} is the latest stable release of {answer.repo}, and I wasn't able to "
                f"identify a fix among the changes not released yet (the Unreleased notes on its default branch).\n"
                f"Deferring to {mention} for investigation.")
    also = " or among the changes not released yet" if notes and notes.checked else ""
    return (f"I wasn't able to identify a fix in the releases after {_v(answer.user_version)}{also}.\n"
            f"Deferring to {mention} for investigation.")


def _too_old(answer: Answer, mention: str, question: str) -> str:
    return (f"The reported version ({_v(answer.user_version)}) is more than {answer.max_releases} releases behind\n"
            f"the latest stable release. Unable to look this up efficiently.\nDeferring to {mention}.\n\n"
            f"(The limit of {answer.max_releases} is the release-count guard; an operator can raise it with "
            f"`--max-releases`, the Action input `max_releases` or `WIF_MAX_RELEASES`.)")


def _already_latest(answer: Answer, mention: str, question: str) -> str:
    return (f"{_v(answer.user_version)} is the latest stable release of {answer.repo}, so no newer release "
            f"can contain a fix yet.\nDeferring to {mention}.")


def _needs_clarification(answer: Answer, mention: str, question: str) -> str:
    return question or "Could you clarify the SDK and the exact version the customer is on?"


def _failed(answer: Answer, mention: str, question: str) -> str:
    reason = question or "an internal step failed"
    return f"I couldn't complete the analysis: {reason}\nDeferring to {mention}."


_HEADLINES = {
    Outcome.HIGH: _high,
    Outcome.MEDIUM: _medium,
    Outcome.NO_RESULT: _no_result,
    Outcome.TOO_OLD: _too_old,
    Outcome.ALREADY_LATEST: _already_latest,
    Outcome.UNRELEASED: _unreleased,
    Outcome.NEEDS_CLARIFICATION: _needs_clarification,
    Outcome.FAILED: _failed,
}


def _checked(answer: Answer) -> str:
    notes = answer.unreleased_notes
    unreleased = f"the Unreleased notes of CHANGELOG.md on the default branch ({notes.entries} entries judged)" \
        if notes and notes.checked and answer.outcome != Outcome.HIGH else ""
    if answer.checked is None or answer.checked.releases == 0:
        return f"Checked: {unreleased} in {answer.repo}." if unreleased else ""
    first, last = answer.checked.first, answer.checked.last
    span = first if first == last else f"{first}–{last}"
    lines = [f"Checked: releases {span} in {answer.repo}" + (f", then {unreleased}." if unreleased else ".")]
    if answer.outcome in (Outcome.HIGH, Outcome.MEDIUM, Outcome.UNRELEASED) and answer.prs_evaluated > 1:
        lines.append(f"Relevant PRs evaluated: {answer.prs_evaluated}.")
    if answer.outcome == Outcome.NO_RESULT:
        lines.append(f"Release notes reviewed: {answer.checked.releases}.")
        if answer.checked.entries:
            lines.append(f"Entries judged: {answer.checked.entries}.")
    return "\n".join(lines)


def _near_misses(answer: Answer) -> str:
    """With a no_result: the PRs that were judged and ruled out, and why."""
    if answer.outcome != Outcome.NO_RESULT or not answer.near_misses:
        return ""
    lines = ["**Closest, ruled out**"]
    lines += [f"- **{_v(miss.version)}** {_pr_link(miss, answer.repo)}: {miss.reason}" for miss in answer.near_misses]
    return "\n".join(lines)


def _reasoning(answer: Answer) -> str:
    if not answer.trace:
        return ""
    return "**Reasoning**\n" + "\n".join(f"- {line}" for line in answer.trace)


def _skipped(answer: Answer) -> str:
    if not answer.skipped:
        return ""
    return "**Skipped steps**\n" + "\n".join(f"- {s.step}: {s.reason}" for s in answer.skipped)


def age(read_at: str | None, now: datetime | None = None) -> str:
    """How long ago the notes were read, as people say it: "3 h ago", "2 days ago", "just now"."""
    try:
        then = datetime.fromisoformat((read_at or "").replace("Z", "+00:00"))
    except ValueError:
        return "at an unknown time"
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    seconds = max(0.0, ((now or datetime.now(UTC)) - then).total_seconds())
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 2 * 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} days ago"
