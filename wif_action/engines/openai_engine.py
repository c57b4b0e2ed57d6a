"""The judgement tools of the spec, answered by an OpenAI model with structured outputs.

Every reply is parsed into a strict pydantic model (no defaults, every field
required, so the JSON schema is strict) and then checked against the input:
ids, PRs, links, versions and repositories the model names that were not in
the input are dropped and recorded in `rejected_claims`, because release
notes, PR bodies and the request are untrusted text that may try to steer it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, Literal

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel

from indexer.github_refs import GITHUB_URL
from indexer.versions import VERSION_IN_TEXT, is_quad
from wif_action.engines.offline.versions_in_text import SdkName, quad_named
from wif_action.models import (
    Confidence,
    Entry,
    PullRequest,
    RelevantEntry,
    Request,
    Score,
    Usage,
    Verdict,
)
from wif_action.ports import ToolError
from wif_action.question import Customer, Question
from wif_action.tools.llm import LLMCallRecord, LLMClient

REQUEST_TEXT_LIMIT = 8_000  # raw request text sent to filter/score/verify
EXTRACT_TEXT_LIMIT = 16_000  # message sent to extract_request
SUMMARIZE_OVER_CHARS = 80_000  # ≈ 20,000 tokens: the spec's "summarize before scoring" threshold
BODY_LIMIT = 80_000  # hard cap on PR text sent to score/verify
SUMMARIZE_INPUT_LIMIT = 200_000  # hard cap on text sent to summarize
ENTRY_TEXT_LIMIT = 500  # one release-note line
MAX_RELEVANT = 8
MAX_TOKENS = {
    "extract_request": 600,
    "resolve_repository": 200,
    "filter_relevant_entries": 1_500,
    "score_pr_confidence": 400,
    "verify_pr_match": 500,
    "summarize": 1_200,
}
_BLOCK_TAGS = ("customer", "request", "problem", "release_notes", "release_entry", "pull_request", "choices", "text",
               "purpose", "context")
_TAG_PATTERN = re.compile(r"<\s*(/?)\s*(" + "|".join(_BLOCK_TAGS) + r")\b[^>]*>", re.IGNORECASE)


# Response models: strict schemas, so no defaults; `X | None` for optional values.
class ExtractedRequest(BaseModel):
    sdk: str | None
    version: str | None
    problem: str
    links: list[str]


class RepositoryChoice(BaseModel):
    repository: str | None
    reason: str


# Label after reason: a model writes keys in schema order, so the reason is written before the label it justifies.
class RelevantId(BaseModel):
    id: int
    pr: int | None
    reason: str
    relevance: float


class RelevantEntries(BaseModel):
    entries: list[RelevantId]


class PRScore(BaseModel):
    reason: str
    confidence: Literal["high", "medium", "low"]


class PRVerdict(BaseModel):
    objection: str | None
    confirmed: bool
    reason: str


class Summary(BaseModel):
    summary: str


@cache
def load_prompt(name: str) -> str:
    """The system prompt of one tool (`wif_action/prompts/<name>.md`)."""
    return resources.files("wif_action").joinpath(f"prompts/{name}.md").read_text(encoding="utf-8").strip()


def block(tag: str, text: str) -> str:
    """One delimited DATA block; tags of our own blocks inside the text are defused."""
    safe = _TAG_PATTERN.sub(lambda m: f"‹{m.group(1)}{m.group(2)}›", text)
    return f"<{tag}>\n{safe}\n</{tag}>"


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, with a visible marker when cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... truncated, {len(text) - limit} more characters ...]"


Shortlist = Callable[[list[Entry], Question, int], list[Entry]]
# Entries of one batch the LLM reads: every entry, unless a batch is pathological. Over the 528 five-release
# batches of the 11 fixture repositories: median 20 entries, p90 62, p99 161, max 256 — this cuts 3 of them
# (0.6 %), keeping the ranker's best first (~8,000 prompt tokens at most).
BATCH_ENTRY_CAP = 200


class OpenAIJudge:
    """The `Judge` port over an `LLMClient`; verification may use a different (stronger) model."""

    name = "openai"
    local = False

    def __init__(self, llm: LLMClient, model: str, verify_model: str | None = None, registry: Any = None,
                 shortlist: Shortlist | None = None):
        self.llm = llm
        self.shortlist = shortlist  # the offline ranker: which entries of a pathological batch go first
        self.model = model
        self.verify_model = verify_model or model
        self.registry = registry
        self.rejected_claims: list[str] = []
        self._summaries: dict[tuple[str, int], str] = {}

    # -- the Judge port -----------------------------------------------------------------------------
    def extract_request(self, message: str) -> Request:
        user = block("request", clip(message, EXTRACT_TEXT_LIMIT))
        reply = self._ask("extract_request", user, ExtractedRequest)
        sdk = (reply.sdk or "").strip() or None
        repo = self.registry.lookup(sdk) if self.registry is not None and sdk else None
        version = self._typed_version(reply.version, message)
        held = version is not None and not self._named_version(message, version, sdk, repo)
        return Request(
            sdk=sdk,
            repo=repo,
            version=None if held else version,
            problem=" ".join(reply.problem.split()),
            links=self._checked_links(reply.links, message),
            raw_text=message,
            tentative_version=version if held else None,
        )

    def resolve_repository_ambiguous(self, context: str, choices: list[str]) -> str | None:
        if not choices:
            return None
        user = "\n\n".join([
            block("choices", "\n".join(choices)),
            block("request", clip(context, REQUEST_TEXT_LIMIT)),
        ])
        reply = self._ask("resolve_repository", user, RepositoryChoice)
        if reply.repository is None:
            return None
        chosen = reply.repository.strip()
        if chosen not in choices:
            self._reject(f"resolve_repository: '{chosen}' is not one of the choices")
            return None
        return chosen

    def filter_relevant_entries(
        self, entries: list[Entry], question: Question
    ) -> list[RelevantEntry]:
        if self.shortlist is not None and len(entries) > BATCH_ENTRY_CAP:
            entries = self.shortlist(entries, question, BATCH_ENTRY_CAP)
        if not entries:
            return []
        user = "\n\n".join([
            self._question_blocks(question),
            block("release_notes", "\n".join(_entry_line(i, e) for i, e in enumerate(entries, 1))),
        ])
        reply = self._ask("filter_relevant_entries", user, RelevantEntries)
        return self._relevant(reply.entries, entries)

    def score_pr_confidence(
        self, pr: PullRequest, entry: Entry | None, question: Question
    ) -> Score:
        reply = self._ask("score_pr_confidence", self._pr_message(pr, entry, question), PRScore)
        return Score(confidence=Confidence(reply.confidence), reason=" ".join(reply.reason.split()))

    def verify_pr_match(
        self, pr: PullRequest, entry: Entry | None, question: Question
    ) -> Verdict:
        user = self._pr_message(pr, entry if self.second_opinion else None, question)
        reply = self._ask("verify_pr_match", user, PRVerdict, model=self.verify_model)
        reason = " ".join(reply.reason.split())
        if not reply.confirmed and reply.objection:
            reason = f"{reason} Objection: {' '.join(reply.objection.split())}"
        return Verdict(confirmed=reply.confirmed, reason=reason)

    def summarize(self, text: str, purpose: str) -> str:
        user = "\n\n".join([block("purpose", purpose), block("text", clip(text, SUMMARIZE_INPUT_LIMIT))])
        return self._ask("summarize", user, Summary).summary.strip()

    @property
    def second_opinion(self) -> bool:
        """Whether verification is another model. If not, the one model must not simply re-read what it scored:
        it verifies from the pull request's own title and description, without the release-note line (the
        spec's HIGH asks those to name the symptom), under the skeptical prompt."""
        return self.verify_model != self.model

    @property
    def call_seconds(self) -> float:
        """The longest one judgement may take (every retry inside it); the run's wall clock allows this much."""
        return max(self.llm.call_seconds(self.model), self.llm.call_seconds(self.verify_model)) + 5

    def bind_deadline(self, seconds_left: Callable[[], float]) -> None:
        """Attempts are bounded by the run's deadline: a retry starts only while time remains."""
        self.llm.time_left = seconds_left

    @property
    def calls(self) -> list[LLMCallRecord]:
        """Every LLM call so far (prompt, reply, tokens, latency, error) for the run record."""
        return self.llm.calls

    def usage(self) -> Usage:
        calls = self.llm.calls
        return Usage(
            llm_calls=len(calls),
            prompt_tokens=sum(call.prompt_tokens for call in calls),
            completion_tokens=sum(call.completion_tokens for call in calls),
            cached_tokens=sum(call.cached_tokens for call in calls),
            reasoning_tokens=sum(call.reasoning_tokens for call in calls),
            cost_usd=self.llm.cost_usd(),
        )

    def preflight(self) -> None:
        """One tiny call to each configured model; raises ToolError when the endpoint cannot be used."""
        for model in dict.fromkeys((self.model, self.verify_model)):
            self.llm.preflight(model)

    # -- helpers --------------------------------------------------------------------------------------
    def _ask(self, tool: str, user: str, schema: type[BaseModel], *, model: str | None = None) -> Any:
        result = self.llm.parse(model or self.model, load_prompt(tool), user, schema, MAX_TOKENS[tool],
                                tool=tool)
        return result.parsed

    def _reject(self, claim: str) -> None:
        self.rejected_claims.append(claim)

    @staticmethod
    def _question_blocks(question: Question) -> str:
        """Who asks, the problem, and what the request says beyond it (fields input: only the links, if any)."""
        blocks = [block("customer", customer_text(question.customer)), block("problem", clip(question.problem, 1_000))]
        rest = request_beyond(question.problem, question.request_text)
        if rest:
            blocks.append(block("request", clip(rest, REQUEST_TEXT_LIMIT)))
        return "\n\n".join(blocks)

    def _pr_message(self, pr: PullRequest, entry: Entry | None, question: Question) -> str:
        parts = [self._question_blocks(question)]
        if entry is not None:
            parts.append(block("release_entry", _entry_line(None, entry)))
        parts.append(block("pull_request", self._pr_text(pr, question.problem)))
        return "\n\n".join(parts)

    def _pr_text(self, pr: PullRequest, problem: str) -> str:
        state = "merged" if pr.merged else (pr.state or "unknown")
        if pr.commit is not None:  # a line citing a commit and no PR: the note is the only text
            return f"Commit {pr.commit[:12]} in {pr.repo} (no pull request; the release note is its only text)\n" \
                   f"Title: {pr.title}\n"
        head = f"PR #{pr.number} in {pr.repo} ({state})\nTitle: {pr.title}\n"
        return head + "Description:\n" + clip(self._pr_body(pr, problem), BODY_LIMIT)

    def _pr_body(self, pr: PullRequest, problem: str) -> str:
        """The PR body, summarised first when over ~20,000 tokens (once per PR, reused by verify)."""
        body = pr.body or "(no description)"
        if len(body) <= SUMMARIZE_OVER_CHARS:
            return body
        key = (pr.repo, pr.number)
        if key not in self._summaries:
            purpose = f"Decide whether PR #{pr.number} ('{pr.title}') fixes this problem: {problem}"
            try:
                summary = "(summary of a long description)\n" + self.summarize(body, purpose)
            except ToolError:  # degrade to the truncated body rather than lose the PR
                summary = body
            self._summaries[key] = summary
        return self._summaries[key]

    def _relevant(self, picks: list[RelevantId], entries: list[Entry]) -> list[RelevantEntry]:
        """Map the model's ids back to entries, dropping anything not in the batch."""
        chosen: dict[int, RelevantEntry] = {}
        for pick in picks:
            if not 1 <= pick.id <= len(entries):
                self._reject(f"filter_relevant_entries: entry id {pick.id} was not in the batch")
                continue
            if pick.id in chosen:
                continue
            entry = entries[pick.id - 1]
            chosen[pick.id] = RelevantEntry(
                entry=entry, pr=self._entry_pr(pick, entry),
                relevance=min(max(pick.relevance, 0.0), 1.0), reason=" ".join(pick.reason.split()),
            )
        best = sorted(chosen, key=lambda i: -chosen[i].relevance)[:MAX_RELEVANT]
        return [chosen[i] for i in sorted(best)]

    def _entry_pr(self, pick: RelevantId, entry: Entry) -> int | None:
        """The PR of a picked entry; a PR the entry does not list is replaced by the entry's own."""
        if pick.pr is not None and pick.pr not in entry.prs:
            self._reject(f"filter_relevant_entries: PR #{pick.pr} is not listed in entry [{pick.id}]")
        elif pick.pr is not None:
            return pick.pr
        return entry.prs[0] if entry.prs else None

    def _typed_version(self, version: str | None, message: str) -> str | None:
        """The version as typed in the message; a version the message does not contain is dropped."""
        if not version or not version.strip():
            return None
        version = version.strip()
        if version in message:
            return version
        for token in (match.group(0) for match in VERSION_IN_TEXT.finditer(message)):
            if _same_version(token, version):
                return token
        self._reject(f"extract_request: version '{version}' does not appear in the request")
        return None

    def _named_version(self, message: str, version: str, sdk: str | None, repo: str | None) -> bool:
        """Whether the message says the model's version is one, by the offline extraction's rule (four numbers need
        the SDK's name or a tight cue right before them, `versions_in_text.quad_named`): else it is held as
        tentative, the customer's only if the resolved repository released it, as the offline engine holds it."""
        if not is_quad(version):
            return True
        spans = [match.span() for name in self._names_of(message, sdk, repo)
                 for match in re.finditer(rf"(?<![\w@/.-]){re.escape(name)}(?![\w-]|\.\w)", message, re.IGNORECASE)]
        names = [SdkName(start, end) for start, end in spans]
        return any(quad_named(message, match.start(), names)
                   for match in re.finditer(rf"(?<![\w.]){re.escape(version)}(?![\w]|\.\w)", message))

    def _names_of(self, message: str, sdk: str | None, repo: str | None) -> list[str]:
        """The model's SDK name and every alias of its repository the message writes."""
        aliases = [alias for alias, named in self.registry.find_in_text(message) if repo and named == repo] \
            if self.registry is not None else []
        return [name for name in [sdk or "", *aliases] if name]

    def _checked_links(self, links: list[str], message: str) -> list[str]:
        """GitHub URLs that really are in the message, in order, without duplicates."""
        kept: list[str] = []
        for link in (link.strip().rstrip(".,;)>") for link in links):
            if not GITHUB_URL.match(link):
                continue
            if link not in message:
                self._reject(f"extract_request: link {link} does not appear in the request")
                continue
            if link not in kept:
                kept.append(link)
        return kept


def request_beyond(problem: str, request_text: str) -> str:
    """The request text less a leading copy of the problem: free text stays whole; fields input, whose request
    is the problem plus its links, is not sent twice."""
    flat_problem, flat_request = " ".join(problem.split()), " ".join(request_text.split())
    if flat_problem and flat_request.startswith(flat_problem):
        return flat_request[len(flat_problem):].strip()
    return request_text.strip()


def customer_text(customer: Customer) -> str:
    """The `<customer>` block: SDK, repository, version in use, platform and the SDKs it bundles, one line each
    ("not stated" when unknown, so the model never guesses). The SDK name is the customer's own words
    (flattened, clipped), else the repository's name."""
    named = clip(" ".join((customer.sdk or "").split()), 100)
    sdk = named or (customer.repo.rsplit("/", 1)[-1] if customer.repo else "not stated")  # a repo given, no name
    repo = f" (repository {customer.repo})" if customer.repo else ""
    version = clip(" ".join((customer.version or "").split()), 40) or "not stated"
    if not customer.platforms:
        platform = "not stated"
    elif customer.platform_source == "sdk":
        platform = f"not stated; the SDK runs on {', '.join(customer.platforms)}"
    else:
        platform = ", ".join(customer.platforms)
    bundles = f"\nBundles: {', '.join(customer.bundles)}" if customer.bundles else ""
    return f"SDK: {sdk}{repo}\nVersion in use: {version}\nPlatform: {platform}{bundles}"


def _entry_line(number: int | None, entry: Entry) -> str:
    """`[n] (release 8.52.0, section fixes) text` — compact, with PR numbers made explicit."""
    text = " ".join(entry.text.split())
    missing = [f"#{pr}" for pr in entry.prs if f"#{pr}" not in text]
    if missing:
        text += f" (PR {', '.join(missing)})"
    prefix = f"[{number}] " if number is not None else ""
    where = f"(release {entry.release.version}, section {entry.section})"
    if entry.bundled_in is not None:  # a bundled SDK's entry: its own release, and the customer's that ships it
        where = (f"(release {entry.release.version} of {entry.release.repo}, bundled in release "
                 f"{entry.bundled_in.version}, section {entry.section})")
    return f"{prefix}{where} {clip(text, ENTRY_TEXT_LIMIT)}"


def _same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return False
