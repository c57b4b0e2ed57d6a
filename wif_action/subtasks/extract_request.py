"""Subtask 1: extract sdk, version, problem and links from what the trigger passed in."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from indexer.github_refs import find_links, parse_link
from indexer.versions import is_complete, is_quad
from wif_action.journal import Journal
from wif_action.models import AskInput, Request
from wif_action.ports import ToolError
from wif_action.run_context import Run
from wif_action.subtasks.judging import judged

MAX_TEXT = 20_000
NO_SDK_QUESTION = "Which SDK is this about? I couldn't find an SDK I know in the request."


@dataclass(kw_only=True)
class ExtractResult:
    outcome: Literal["ok", "needs_clarification"]
    request: Request
    question: str = ""
    sources: dict[str, str] = field(default_factory=dict)  # field → "given", "message" or "link"


def extract_request(run: Run, inputs: AskInput) -> ExtractResult:
    """Fields given by the trigger win; free text fills what is missing."""
    journal = run.journal
    message = (inputs.message or "").strip()[:MAX_TEXT]
    extracted = Request()
    if message:
        try:
            extracted = judged(run, "extract request", lambda j: j.extract_request(message))
        except ToolError as error:
            journal.skip("extract request", error.reason)
    problem = (inputs.problem or "").strip()[:MAX_TEXT]
    links = _links([*inputs.links, *extracted.links])
    sdk = _clean(inputs.sdk) or _named_in(extracted, message, journal)
    repo = _clean(inputs.repo) or (None if _clean(inputs.sdk) else extracted.repo)
    from_link = False
    if not (sdk or repo) and links:
        linked = parse_link(links[0])
        repo, from_link = (linked.repo if linked else None), True
        journal.note(f"No SDK named; using the repository of the linked {links[0]}.")
    raw_parts = (problem, message, "\n".join(link for link in links if link not in message))
    request = Request(
        sdk=sdk, repo=repo, version=_clean(inputs.version) or extracted.version,
        problem=problem or extracted.problem or message[:500], links=links,
        raw_text="\n\n".join(part for part in raw_parts if part) or extracted.raw_text,
        tentative_version=None if _clean(inputs.version) else extracted.tentative_version,
        from_message=from_message(inputs),
    )
    given = {"sdk": inputs.sdk, "repo": inputs.repo, "version": inputs.version, "problem": inputs.problem,
             "links": inputs.links}
    sources = {name: "given" if _given(given[name]) else "message" for name in given if getattr(request, name)}
    if from_link and request.repo:
        sources["repo"] = "link"
    return ExtractResult(outcome=_outcome(request), request=request, question=missing_field_question(request),
                         sources=sources)


def from_message(inputs: AskInput) -> bool:
    """Whether the question's problem comes out of free text (no problem field, a message): `Request.from_message`,
    and the input mode whose weights the run reads (`lexicon.input_mode`, set by the workflow before extraction)."""
    return not (inputs.problem or "").strip() and bool((inputs.message or "").strip())


def confirm_tentative_version(run: Run, request: Request, repo: str) -> Request:
    """The request with its tentative version as the version, if `repo` released exactly that version.

    "React Native 8.9.2 … Fixed in a newer @sentry/react-native?": 8.9.2 follows a name the SDK shares with its
    framework, so extraction could not tell whose it is ("we're on 2.11.0.0": four numbers with no name or tight
    cue before them, which could be an address); a release of the resolved repository with that exact
    number says it is the SDK's. A partial number ("Android 8.1", ".NET 8.0"), one the SDK never released
    ("Flutter 3.22.0") or one so old that the answer would be "too old" ("Kotlin 2.1.0" against sentry-java's
    2.1.0 of 2020: more than the release guard's count after it) stays the framework's; the version question
    stands. Four numbers must be a release written with four ("10.0.0.0" equals a 10.0.0 by PEP 440)."""
    tentative = request.tentative_version
    if request.version or not tentative or not is_complete(tentative):
        return request
    cache = run.tools.cache
    release = cache.find_release(repo, tentative)  # a CacheReadError goes up, as for the repository
    quad = is_quad(tentative)
    if release is None or cache.count_stable_after(repo, release.version_key) > run.options.max_releases:
        return request
    if quad and len(release.version.split(".")) != 4:  # "10.0.0.0" is equal to a 10.0.0: not a number it released
        return request
    why = "four numbers, as an address is written," if quad else \
        f"written after a name {repo} shares with its framework or platform,"
    run.journal.note(f"Version {tentative}: {why} and a release of {repo}, so read as the SDK's version.")
    return replace(request, version=tentative)


def _named_in(extracted: Request, message: str, journal: Journal) -> str | None:
    """The engine's SDK name, unless it is unknown and not in the message (it would be echoed back as if typed)."""
    sdk = _clean(extracted.sdk)
    if sdk and not extracted.repo and sdk.casefold() not in message.casefold():
        journal.rejected.append(f"extract request: SDK \u201c{sdk[:80]}\u201d is neither known nor in the request")
        return None
    return sdk


def _given(value: str | list[str] | None) -> bool:
    return any(_clean(item) for item in value) if isinstance(value, list) else bool(_clean(value))


def _clean(value: str | None) -> str | None:
    value = (value or "").strip()
    return value[:200] or None


def _links(candidates: list[str]) -> list[str]:
    found: list[str] = []
    for text in candidates:
        for link in find_links(text or ""):
            if link.url not in found:
                found.append(link.url)
    return found[:5]


def _outcome(request: Request) -> Literal["ok", "needs_clarification"]:
    return "ok" if missing_field_question(request) == "" else "needs_clarification"


def missing_field_question(request: Request) -> str:
    """The question to ask when the request lacks an SDK, a version or a problem; "" when complete."""
    if not (request.sdk or request.repo):
        return NO_SDK_QUESTION
    if not request.version:
        return "Which version of the SDK is the customer on? The request doesn't say."
    if not request.problem.strip():
        return "What problem does the customer see? The request has no description."
    return ""
