"""Typed data passed between the workflow, subtasks, tools and engines.

Every subtask returns one of these with an explicit outcome, so the workflow
can sequence them without inspecting free text.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


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



class Request(BaseModel):
    """What the support engineer asked, after extraction."""

    sdk: str | None = None
    repo: str | None = None
    version: str | None = None
    problem: str = ""
    links: list[str] = Field(default_factory=list)
    raw_text: str = ""


class Release(BaseModel):
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


class UnreleasedNotes(BaseModel):
    """What the cache holds of a repository's Unreleased notes: `status` ok / no_changelog / no_section /
    not_text; `release` is the pseudo-release their entries belong to."""

    status: str
    read_at: str
    url: str | None = None
    heading: str = ""
    truncated: bool = False
    entries: int = 0
    release: Release


class UnreleasedCheck(BaseModel):
    """Whether the run judged the Unreleased notes, and if not why (the trace and `--json` say it)."""

    checked: bool = False
    entries: int = 0
    read_at: str | None = None
    url: str | None = None
    after: str | None = None  # the newest published release: an unreleased fix ships in the one after it
    why_not: str = ""


class Entry(BaseModel):
    """One parsed release-note line of a cached release."""

    id: int
    release: Release
    section: str
    heading: str = ""
    text: str
    prs: list[int] = Field(default_factory=list)
    issues: list[int] = Field(default_factory=list)
    position: int = 0
    commits: list[str] = Field(default_factory=list)  # commit hashes the line cites (used when it cites no PR)
    # Set on an entry of a bundled SDK's release (its `release`) brought in by a bump of the customer's SDK:
    # the customer's release that first ships it, and the bump line that says so.
    bundled_in: Release | None = None
    bump: str = ""


class BundleBump(BaseModel):
    """A host release's bump of a bundled SDK ("Bump Cocoa SDK from v8.13.0 to v8.14.2")."""

    release: Release
    name: str
    bundled_repo: str | None
    from_text: str | None
    to_text: str
    from_key: str | None
    to_key: str | None
    text: str


class RelevantEntry(BaseModel):
    """An entry an engine judged relevant to the problem, with the PR to look at."""

    entry: Entry
    pr: int | None
    relevance: float = 0.0
    reason: str = ""


class PullRequest(BaseModel):
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


class Score(BaseModel):
    """A confidence with the one-sentence reason that cites the PR title or description."""

    confidence: Confidence
    reason: str
    strength: float | None = None  # how much of the problem the PR's headline names, comparable within one run
    # (offline: the idf-weighted problem vocabulary it names); None: the engine measures none


class Verdict(BaseModel):
    """The adversarial second check of a HIGH candidate."""

    confirmed: bool
    reason: str


class IssueResolution(BaseModel):
    """What a linked issue (or PR) URL resolves to."""

    repo: str
    number: int
    is_pull: bool = False
    closing_prs: list[int] = Field(default_factory=list)
    closing_commit: str | None = None
    state: str = ""


class Via(BaseModel):
    """The bundled SDK release a fix reached the customer's SDK through."""

    repo: str
    version: str


class Candidate(BaseModel):
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
    strength: float | None = None  # the engine's `Score.strength` (before any check lowered its level)
    unreleased: bool = False  # from the default branch's Unreleased notes: `version` is "unreleased", no release


class Checked(BaseModel):
    first: str
    last: str
    releases: int
    entries: int = 0  # release-note entries judged in those releases


class NearMiss(BaseModel):
    """A PR the run judged and found too weak to be the fix: shown with a no_result, so people see why."""

    version: str
    pr: int | None
    url: str
    reason: str
    repo: str | None = None
    commit: str | None = None


class ExtractedRequest(BaseModel):
    """What the run understood the question to be, and where each field came from
    ("given": a structured input; "message": read from the free text; "link": the linked issue's repository;
    "registry": the repository the SDK name resolved to; "inferred": no SDK named, chosen from the wording)."""

    sdk: str | None = None
    repo: str | None = None
    version: str | None = None
    problem: str = ""
    links: list[str] = Field(default_factory=list)
    sources: dict[str, str] = Field(default_factory=dict)


class Skipped(BaseModel):
    step: str
    reason: str


class Usage(BaseModel):
    github_requests: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # part of prompt_tokens, billed at the cached rate
    reasoning_tokens: int = 0  # part of completion_tokens
    cost_usd: float | None = None  # at the configured models' prices; None when a price is unknown


class Answer(BaseModel):
    """The result of one question; `message` is the Markdown shown to people."""

    outcome: Outcome
    repo: str | None = None
    user_version: str | None = None
    candidates: list[Candidate] = Field(default_factory=list)
    checked: Checked | None = None
    prs_evaluated: int = 0
    skipped: list[Skipped] = Field(default_factory=list)
    message: str = ""
    usage: Usage = Field(default_factory=Usage)
    trace: list[str] = Field(default_factory=list)
    rejected_claims: list[str] = Field(default_factory=list)
    question: str = ""  # the clarification / failure text, so each channel can re-render the message
    near_misses: list[NearMiss] = Field(default_factory=list)
    request: ExtractedRequest | None = None
    max_releases: int = 100  # the release-count guard this run applied
    unreleased_notes: UnreleasedCheck | None = None
    latest: bool = False  # the customer's version is the newest stable release

    def public_json(self) -> dict:
        """The `--json` object of `wif ask` (the documented keys, nothing internal). A candidate from the
        Unreleased notes has `version` null and `unreleased` true: it is in no release yet."""
        data = self.model_dump(mode="json")
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


class AskInput(BaseModel):
    """What a trigger passes in: structured fields (dispatch) and/or free text (/wif, Slack)."""

    sdk: str | None = None
    repo: str | None = None
    version: str | None = None
    problem: str | None = None
    links: list[str] = Field(default_factory=list)
    message: str | None = None
