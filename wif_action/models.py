"""Typed data passed between the workflow, subtasks, tools and engines.

Every subtask returns one of these with an explicit outcome, so the workflow
can sequence them without inspecting free text.

Plain dataclasses, not pydantic models: they only hold data the code itself built (from the cache, a
GitHub reply it checked, an engine), and importing pydantic and building its validators cost an offline
answer ~75 ms. The LLM's structured outputs stay pydantic models in `engines/openai_engine.py`.
`to_json` is the `--json` shape; `from_json` rebuilds one from it (the Action's redaction round trip).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, TypeVar

from indexer.github_refs import split_commit


class Outcome(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    NO_RESULT = "no_result"
    TOO_OLD = "too_old"
    ALREADY_LATEST = "already_latest"
    UNRELEASED = "unreleased"  # fixed on the default branch (its CHANGELOG's Unreleased notes), in no release yet
    NEEDS_CLARIFICATION = "needs_clarification"
    FAILED = "failed"


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(kw_only=True)
class Request:
    """What the support engineer asked, after extraction."""

    sdk: str | None = None
    repo: str | None = None
    version: str | None = None
    problem: str = ""
    links: list[str] = field(default_factory=list)
    raw_text: str = ""
    # "React Native 8.9.2 … @sentry/react-native": a version the text ties to a name the SDK shares with its
    # framework or platform; the SDK's only if the resolved repository released it (`confirm_tentative_version`)
    tentative_version: str | None = None
    # the problem was condensed out of a free-text message (a Slack message, `/wif …`, `wif ask --message`), not
    # given as a field: everything the customer pasted around the symptom (setup, code, logs) is in it too
    from_message: bool = False


@dataclass(kw_only=True)
class Release:
    """A cached release; `tag` is exactly as on GitHub, `version` is normalised."""

    id: int
    repo: str
    tag: str
    version: str
    version_key: str
    published_at: str | None = None
    url: str | None = None
    stable: bool = True
    # The default branch's Unreleased notes as a pseudo-release (id -repo_id, tag "Unreleased", `published_at`
    # when they were read): never a published release, never in a release query.
    unreleased: bool = False


UNRELEASED_VERSION = "unreleased"  # `version` of the Unreleased pseudo-release and of its candidates


def unreleased_release(repo: str, repo_id: int = 0, read_at: str | None = None, url: str | None = None) -> Release:
    """The pseudo-release of `repo`'s Unreleased notes (id -repo_id; 0 when nothing is cached)."""
    return Release(id=-repo_id, repo=repo, tag="Unreleased", version=UNRELEASED_VERSION, version_key="~unreleased",
                   published_at=read_at, url=url, stable=False, unreleased=True)


@dataclass(kw_only=True)
class UnreleasedNotes:
    """What the cache holds of a repository's Unreleased notes: `status` ok / no_changelog / no_section /
    not_text; `release` is the pseudo-release their entries belong to."""

    status: str
    read_at: str
    url: str | None = None
    heading: str = ""
    truncated: bool = False
    entries: int = 0
    release: Release


@dataclass(kw_only=True)
class UnreleasedCheck:
    """Whether the run judged the Unreleased notes, and if not why (the trace and `--json` say it)."""

    checked: bool = False
    entries: int = 0
    read_at: str | None = None
    url: str | None = None
    after: str | None = None  # the newest published release: an unreleased fix ships in the one after it
    why_not: str = ""


@dataclass(kw_only=True)
class Entry:
    """One parsed release-note line of a cached release."""

    id: int
    release: Release
    section: str
    heading: str = ""
    text: str
    prs: list[int] = field(default_factory=list)
    issues: list[int] = field(default_factory=list)
    position: int = 0
    commits: list[str] = field(default_factory=list)  # commits the line cites (used when it cites no PR): its own
    # repository's as hashes, then another's as `owner/repo@sha` (`indexer.github_refs.commit_ref`)
    # Set on an entry of a bundled SDK's release (its `release`) brought in by a bump of the customer's SDK:
    # the customer's release that first ships it, and the bump line that says so.
    bundled_in: Release | None = None
    bump: str = ""

    def cited_commit(self) -> tuple[str, str] | None:
        """(repository, hash) of the commit the line stands for (its first: its own repository's when it cites
        one), or None."""
        return split_commit(self.commits[0], self.release.repo) if self.commits else None

    @property
    def commit_hashes(self) -> tuple[str, ...]:
        """The hashes of every commit the line cites, whichever repository's."""
        return tuple(split_commit(ref, self.release.repo)[1] for ref in self.commits)


@dataclass(kw_only=True)
class BundleBump:
    """A host release's bump of a bundled SDK ("Bump Cocoa SDK from v8.13.0 to v8.14.2")."""

    release: Release
    name: str
    bundled_repo: str | None
    from_text: str | None
    to_text: str
    from_key: str | None
    to_key: str | None
    text: str


@dataclass(kw_only=True)
class RelevantEntry:
    """An entry an engine judged relevant to the problem, with the PR to look at."""

    entry: Entry
    pr: int | None
    relevance: float = 0.0
    reason: str = ""
    second_look: bool = False  # admitted far below the batch's best (offline filter): listed, never leads


@dataclass(kw_only=True)
class PullRequest:
    repo: str
    number: int
    title: str
    body: str = ""
    state: str = ""
    merged: bool = False
    merged_at: str | None = None
    merge_commit_sha: str | None = None
    url: str
    # A release-note line citing a commit and no PR is judged as a stand-in with number 0, the line as its title
    # and this hash; the answer then names the commit, not a PR.
    commit: str | None = None


@dataclass(kw_only=True)
class Score:
    """A confidence with the one-sentence reason that cites the PR title or description."""

    confidence: Confidence
    reason: str
    strength: float | None = None  # how much of the problem the PR's headline names, comparable within one run
    # (offline: the idf-weighted problem vocabulary it names); None: the engine measures none
    breadth: float | None = None  # the share (0…1) of the problem's distinct ideas the headline names (offline: the
    # weight of the key concepts `Evidence.named` at `named_credit`); None: the engine measures none
    subjects: tuple[str, ...] = ()  # the problem's ideas the headline names verbatim, heaviest first (offline:
    # `scoring.subjects`, the key of the term that named each key concept); empty: the engine says none
    shares: tuple[float, ...] = ()  # per subject: the share of its repository's notes naming that term (how
    # everyday it is there); empty: the engine measures none
    partly: tuple[str, ...] = ()  # the problem's ideas the headline names only in part (offline: `scoring.partly`,
    # the key of each key concept named by a word of it, "path" for `PATH_INFO`); empty: the engine says none
    thin: bool = False  # the headline says with no verb what it fixes and leaves the problem's heaviest idea unnamed
    # (offline: `scoring.thin`); False: the engine says nothing of it

    def __post_init__(self) -> None:
        self.confidence = Confidence(self.confidence)


@dataclass(frozen=True)
class Grounds:
    """What a candidate's level rests on, beyond its level: the problem's ideas its headline names (`Score.subjects`),
    whether the run read its PR (`own_text`: False for a line whose PR details were unavailable — the release line
    is then its only evidence) and whether the line cites a commit and no PR (`commit_line`: the note is then the
    change's own record, its commit subject, judged as its only text), and whether its level is MEDIUM only by a cap
    (`capped`: the engine scored it HIGH, the second check confirmed it, nothing objected, and a cap of
    `objections.CAPS` lowered it). Read by `candidate_order.older_rivals`."""

    subjects: tuple[str, ...] = ()
    own_text: bool = False
    commit_line: bool = False
    capped: bool = False
    shares: tuple[float, ...] = ()  # per subject (`Score.shares`): how everyday its term is in the repository's notes
    partly: tuple[str, ...] = ()  # the problem's ideas it names only in part (`Score.partly`)
    thin: bool = False  # its headline says no fix verb and leaves the heaviest idea unnamed (`Score.thin`)


@dataclass(kw_only=True)
class Verdict:
    """The adversarial second check of a HIGH candidate."""

    confirmed: bool
    reason: str


@dataclass(kw_only=True)
class IssueResolution:
    """What a linked issue (or PR) URL resolves to."""

    repo: str
    number: int
    is_pull: bool = False
    closing_prs: list[int] = field(default_factory=list)
    closing_commit: str | None = None
    state: str = ""


@dataclass(kw_only=True)
class Via:
    """The bundled SDK release a fix reached the customer's SDK through."""

    repo: str
    version: str


@dataclass(kw_only=True)
class Candidate:
    """`version`/`tag` are always the customer's SDK release; `repo` is the PR's repository."""

    version: str
    tag: str
    pr: int | None  # None: the release-note line cites a commit and no PR (`commit`, `url` link to it)
    url: str
    confidence: Confidence
    reason: str
    entry: str = ""
    source: str = "scan"
    repo: str | None = None
    via: Via | None = None
    commit: str | None = None
    objected: bool = False  # a check of wif_action/objections.py found a reason it cannot be the fix
    second_look: bool = False  # listed only as a second look (pr_evaluation.as_second_look): never leads
    strength: float | None = None  # the engine's `Score.strength` (before any check lowered its level)
    breadth: float | None = None  # the engine's `Score.breadth`
    filed: float | None = None  # the weight of the section its line is filed under (`candidate_order.filed_weight`)
    unreleased: bool = False  # from the default branch's Unreleased notes: `version` is "unreleased", no release

    def __post_init__(self) -> None:
        self.confidence = Confidence(self.confidence)


@dataclass(kw_only=True)
class Checked:
    first: str
    last: str
    releases: int
    entries: int = 0  # release-note entries judged in those releases


@dataclass(kw_only=True)
class NearMiss:
    """A PR the run judged and found too weak to be the fix: shown with a no_result, so people see why."""

    version: str
    pr: int | None
    url: str
    reason: str
    repo: str | None = None
    commit: str | None = None


@dataclass(kw_only=True)
class ExtractedRequest:
    """What the run understood the question to be, and where each field came from
    ("given": a structured input; "message": read from the free text; "link": the linked issue's repository;
    "registry": the repository the SDK name resolved to; "inferred": no SDK named, chosen from the wording)."""

    sdk: str | None = None
    repo: str | None = None
    version: str | None = None
    problem: str = ""
    links: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)


@dataclass(kw_only=True)
class Skipped:
    step: str
    reason: str


@dataclass(kw_only=True)
class Usage:
    github_requests: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # part of prompt_tokens, billed at the cached rate
    reasoning_tokens: int = 0  # part of completion_tokens
    cost_usd: float | None = None  # at the configured models' prices; None when a price is unknown


@dataclass(kw_only=True)
class Answer:
    """The result of one question; `message` is the Markdown shown to people."""

    outcome: Outcome
    repo: str | None = None
    user_version: str | None = None
    candidates: list[Candidate] = field(default_factory=list)
    checked: Checked | None = None
    prs_evaluated: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    message: str = ""
    usage: Usage = field(default_factory=Usage)
    trace: list[str] = field(default_factory=list)
    rejected_claims: list[str] = field(default_factory=list)
    question: str = ""  # the clarification / failure text, so each channel can re-render the message
    near_misses: list[NearMiss] = field(default_factory=list)
    request: ExtractedRequest | None = None
    max_releases: int = 100  # the release-count guard this run applied
    unreleased_notes: UnreleasedCheck | None = None
    latest: bool = False  # the customer's version is the newest stable release

    def __post_init__(self) -> None:
        self.outcome = Outcome(self.outcome)

    def public_json(self) -> dict:
        """The `--json` object of `wif ask` (the documented keys, nothing internal). A candidate from the
        Unreleased notes has `version` null and `unreleased` true: it is in no release yet."""
        data = to_json(self)
        for candidate in data["candidates"]:
            if candidate["unreleased"]:
                candidate["version"] = candidate["tag"] = None
        return {
            key: data[key]
            for key in (
                "outcome", "repo", "user_version", "candidates", "checked",
                "prs_evaluated", "skipped", "message", "usage", "trace", "near_misses", "request", "unreleased_notes",
            )
        }


@dataclass(kw_only=True)
class AskInput:
    """What a trigger passes in: structured fields (dispatch) and/or free text (/wif, Slack)."""

    sdk: str | None = None
    repo: str | None = None
    version: str | None = None
    problem: str | None = None
    links: list[str] = field(default_factory=list)
    message: str | None = None


def to_json(value: Any) -> Any:
    """`value` as JSON data: a dataclass as an object of its fields (in declaration order), an enum as its value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    return value


T = TypeVar("T")


def from_json(kind: type[T], data: Any) -> T:
    """The `kind` (a dataclass of this module) that `to_json` turned into `data`; a key it does not
    declare is an error."""
    return typing.cast(T, _value(kind, data))


def _value(kind: Any, data: Any) -> Any:
    if data is None or kind is Any:
        return data
    origin = typing.get_origin(kind)
    if origin is types.UnionType or origin is typing.Union:
        kinds = [k for k in typing.get_args(kind) if k is not type(None)]
        return _value(kinds[0], data) if len(kinds) == 1 else data
    if origin is list:
        return [_value(typing.get_args(kind)[0], item) for item in data]
    if origin is dict:
        return {key: _value(typing.get_args(kind)[1], item) for key, item in data.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        if unknown := sorted(set(data) - set(hints)):
            raise TypeError(f"{kind.__name__} has no field {', '.join(unknown)}")
        return kind(**{key: _value(hints[key], item) for key, item in data.items()})
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(data)
    return data
