"""The offline `Judge`: rules and BM25 instead of a language model.

Why it exists: WIF must answer without an API key (CI, air-gapped installs, tests),
and a calibrated lexical engine is predictable: it only claims HIGH when the PR
and release note name the problem's specific terms, and says which ones.
"""

from __future__ import annotations

import re

from indexer.registry import Registry
from wif_action import lexicon
from wif_action.engines.offline import features, scoring
from wif_action.engines.offline.evidence import Evidence, gather
from wif_action.engines.offline.extraction import extract
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.engines.offline.reasons import quote_title, term_list
from wif_action.engines.offline.relevance import rank_entries, score_entries
from wif_action.engines.offline.relevance import shortlist as relevance_shortlist
from wif_action.lexicon.names import alias_kind_weight
from wif_action.lexicon.terms import Term, analyse
from wif_action.models import Confidence, Entry, PullRequest, RelevantEntry, Request, Score, Usage, Verdict
from wif_action.ports import NoteStatistics, ToolError
from wif_action.question import Question


class OfflineJudge:
    """`ports.Judge` without a language model."""

    name = "offline"
    local = True

    def __init__(self, cache: NoteStatistics | None, registry: Registry,
                 weights: scoring.Thresholds = scoring.SHIPPED):
        self.cache = cache
        self.registry = registry
        self.weights = weights  # the thresholds (the composition root may pass others: calibration)
        self._stats = RepositoryStats(cache) if cache is not None else None  # None: batch statistics only
        self.rejected_claims: list[str] = []  # the offline engine only quotes its input

    def thresholds(self) -> scoring.Thresholds:
        """The thresholds the question's input mode judges by: `weights` with the mode's own values laid over
        (`scoring.in_mode`)."""
        return scoring.in_mode(self.weights)

    # --- Subtasks 1 and 2 -------------------------------------------------------------

    def extract_request(self, message: str) -> Request:
        return extract(message, self.registry)

    def resolve_repository_ambiguous(self, context: str, choices: list[str]) -> str | None:
        """The choice whose registry names occur in the context; None without a clear winner."""
        scores = dict.fromkeys(choices, 0.0)
        for alias, repo in self.registry.find_in_text(context or ""):
            if repo in scores:
                scores[repo] += alias_kind_weight(alias, repo)[0]
        for repo in choices:
            if re.search(rf"(?<![\w-]){re.escape(repo.split('/')[-1])}(?![\w-])", context or "", re.IGNORECASE):
                scores[repo] += lexicon.weight("own_name")
        ranked = sorted(scores.items(), key=lambda item: -item[1])
        if not ranked or ranked[0][1] <= 0 or (len(ranked) > 1 and ranked[1][1] >= ranked[0][1]):
            return self._only_one_knows(context or "", choices)
        return ranked[0][0]

    def _only_one_knows(self, context: str, choices: list[str]) -> str | None:
        """The one choice whose release notes name a code name of the request ("WatchdogTermination", or its
        words "watchdog termination"; "EXC_BREAKPOINT") that no other choice's notes name; None when none or
        several do.

        Why code names only: a code name is specific to an SDK, an everyday word is not."""
        if self._stats is None or not choices:
            return None
        terms = _code_names(context[:int(lexicon.weight("context_chars"))])  # the start says what it is about
        if not terms:
            return None
        try:
            for repo in choices:
                self._stats.load(repo, terms)
        except ToolError:
            return None
        knows = {repo: {t.key for t in terms if self._stats.df(repo, t.key) > 0} for repo in choices}
        owners = [repo for repo in choices
                  if knows[repo] - set().union(*(knows[other] for other in choices if other != repo))]
        return owners[0] if len(owners) == 1 else None

    # --- Subtask 5 ----------------------------------------------------------------------

    def filter_relevant_entries(self, entries: list[Entry], question: Question) -> list[RelevantEntry]:
        if not entries:
            return []
        stats = self._statistics(_repositories(entries), question.terms, [entry.text for entry in entries])
        return rank_entries(entries, question.terms, stats, question.wants_functionality)

    def shortlist(self, entries: list[Entry], question: Question, size: int) -> list[Entry]:
        """The `size` entries of a batch most worth an LLM's reading (see `relevance.shortlist`): what goes first
        when a pathological batch is cut (`openai_engine.BATCH_ENTRY_CAP`)."""
        if not entries:
            return []
        stats = self._statistics(_repositories(entries), question.terms, [entry.text for entry in entries])
        return relevance_shortlist(entries, question.terms, stats, question.wants_functionality, size)

    def score_pr_confidence(self, pr: PullRequest, entry: Entry | None, question: Question) -> Score:
        stats, evidence = self._evidence(pr, entry, question)
        if not evidence.ships and evidence.linked_issue is None:
            return Score(confidence=Confidence.LOW,
                         reason=f"PR {quote_title(pr.title)} changes CI, docs, tests, samples or internal code only, "
                                "which never reach the customer's app.")
        weights = self.thresholds()
        level = scoring.confidence(evidence, weights)
        model = features.active_model()
        if model is not None:
            level = features.level(model, features.candidate_features(evidence, stats, evidence.repo or pr.repo, pr,
                                                                      weights), level)
        return Score(confidence=level, reason=_score_reason(pr, evidence, level),
                     strength=round(evidence.headline_mass / evidence.scale, 3),
                     breadth=round(evidence.breadth(weights.named_credit), 3), subjects=scoring.subjects(evidence),
                     shares=scoring.subject_shares(evidence), partly=scoring.partly(evidence),
                     thin=scoring.thin(evidence, weights))

    def candidate_features(self, pr: PullRequest, entry: Entry | None, question: Question) -> dict[str, float]:
        """The named features the confidence model reads (`features.candidate_features`), for fitting it."""
        stats, evidence = self._evidence(pr, entry, question)
        return features.candidate_features(evidence, stats, evidence.repo or pr.repo, pr, self.thresholds())

    def verify_pr_match(self, pr: PullRequest, entry: Entry | None, question: Question) -> Verdict:
        """Confirm only if the entry or PR names the problem's rarest terms, not just generic ones."""
        stats, evidence = self._evidence(pr, entry, question)
        repo = evidence.repo or pr.repo
        title = quote_title(pr.title)
        what = f"Release note {title}" if pr.commit is not None else f"PR title {title} and its release note"
        if evidence.linked_issue is not None:
            return Verdict(confirmed=True, reason=f"PR {title} refers to the issue linked in the request.")
        named = evidence.named()
        covered = term_list([c.name for c in named]) or "none of them"
        weights = self.thresholds()
        confirmed = scoring.verified(evidence, stats, repo, weights)
        model = features.active_model()
        if model is not None:
            hand = Confidence.HIGH if confirmed else Confidence.MEDIUM
            confirmed = features.level(model, features.candidate_features(evidence, stats, repo, pr, weights),
                                       hand) is Confidence.HIGH
        if confirmed:
            return Verdict(confirmed=True, reason=f"{what} name {covered}, "
                                                  "the problem's most specific terms.")
        missing = term_list([c.name for c in scoring.rarest(evidence, stats, repo, weights) if c not in named])
        return Verdict(confirmed=False, reason=f"{what} name {covered}, "
                                               f"but not enough of the problem's most specific terms "
                                               f"({missing or 'the rest'}).")

    # --- helpers ------------------------------------------------------------------------

    def usage(self) -> Usage:
        return Usage()

    def _statistics(self, repos: list[str], query: dict[str, Term], texts: list[str]) -> RepositoryStats:
        """Whole-repository statistics from the cache, for each repository whose entries are judged (a
        bundled SDK's entries are scored against its own repository); the batch itself if the cache
        cannot say."""
        terms = list(query.values())
        if self._stats is not None:
            try:
                for repo in repos:
                    self._stats.load(repo, terms)
                if all(self._stats.documents(repo)[0] > 0 for repo in repos):
                    return self._stats
            except ToolError:
                pass
        stats = RepositoryStats(BatchStatistics(texts))
        for repo in repos:
            stats.load(repo, terms)
        return stats

    def _evidence(self, pr: PullRequest, entry: Entry | None, question: Question) -> tuple[RepositoryStats, Evidence]:
        texts = [entry.text] if entry else [pr.title]
        repo = self._vocabulary_of(pr, entry)
        stats = self._statistics([repo], question.terms, texts)
        linked = [int(link.rsplit("/", 1)[-1]) for link in question.links
                  if f"github.com/{pr.repo}/".lower() in link.lower()]
        evidence = gather(pr, entry, question.terms, stats, question.wants_functionality, linked,
                          question.problem_keys, repo, question.quoted, question.alternatives, question.quoted_code,
                          question.own_names, question.deployment_keys)
        evidence.host_names = self._host_names(question, repo)
        evidence.from_message = question.from_message
        if entry is not None and lexicon.weight("weak_line", question.from_message) > 0:
            evidence.line_relevance = self._line_relevance(entry, question, stats if repo == entry.release.repo
                                                           else None)
        return stats, evidence

    def _line_relevance(self, entry: Entry, question: Question, stats: RepositoryStats | None = None) -> float:
        """The release line's score as the batch filter gave it (BM25 × section against its release's repository),
        per scale: how much of the problem the line itself says, whatever its PR's text adds. Read only where the
        mode's `weak_line` floor is on (a score is never below 0), with the statistics `_evidence` loaded when they
        are that repository's."""
        repo = entry.release.repo
        stats = stats or self._statistics([repo], question.terms, [entry.text])
        score = score_entries([entry], question.terms, stats, question.wants_functionality)[0][0]
        return score / stats.scale(repo)

    def _host_names(self, question: Question, repo: str) -> tuple[str, ...]:
        """Code names of the request ("InvalidCastException") that the customer's own SDK's notes name and the
        notes of `repo`, an SDK it bundles, never do: the problem is in the customer's SDK's code, which a fix of
        the bundled one does not touch. Empty when `repo` is the customer's own or either is not cached."""
        home = question.customer.repo
        if self._stats is None or not home or home == repo:
            return ()
        names = [term for key, term in question.terms.items()  # an SDK's name ("sentry_flutter") says whose SDK,
                 if key in question.identifiers and not self.registry.find_in_text(term.surface)]  # not where
        try:
            for each in (home, repo):
                self._stats.load(each, names)
            if not all(self._stats.documents(each)[0] > 0 for each in (home, repo)):
                return ()
        except ToolError:
            return ()
        return tuple(term.surface for term in names
                     if self._stats.df(home, term.key) > 0 and self._stats.df(repo, term.key) == 0)

    def _vocabulary_of(self, pr: PullRequest, entry: Entry | None) -> str:
        """Whose notes the terms are weighed against: the PR's repository, or — for a PR of an uncached
        repository that a line cites ("… in pydantic-core#1879") — the repository of that line."""
        if entry is None or entry.release.repo == pr.repo or self.cache is None:
            return pr.repo
        try:
            return pr.repo if self.cache.has_repository(pr.repo) else entry.release.repo
        except ToolError:
            return pr.repo


_KEBAB = re.compile(r"(?<![\w./@-])[a-z][a-z0-9]+(?:-[a-z][a-z0-9]+)+(?![\w/@-])")  # lower-case words joined by "-"


def _code_names(text: str) -> list[Term]:
    """The identifiers of `text`, each with the phrase of its words ("watchdog termination"), and its kebab-case
    names ("actix-web", "sentry-tower": how packages and crates are named; a phrase for the full-text count)."""
    names: list[Term] = []
    for term in analyse(text):
        if term.identifier:
            names.append(term)
            names += [part for part in analyse(term.surface) if part.kind == "bigram"]
    names += [Term(name, name, kind="identifier") for name in _KEBAB.findall(text)]
    return list({term.key: term for term in names}.values())


def _repositories(entries: list[Entry]) -> list[str]:
    return list(dict.fromkeys(entry.release.repo for entry in entries))


def _score_reason(pr: PullRequest, evidence: Evidence, level: Confidence) -> str:
    """One sentence citing the PR title (for a line citing only a commit, the release note) and the shared terms."""
    names = term_list(evidence.best_names(8))
    title = quote_title(pr.title)
    if level is Confidence.HIGH and evidence.linked_issue is not None:
        return f"PR {title} refers to the issue linked in the request" + (f" and matches {names}." if names else ".")
    what = f"Release note {title}" if pr.commit is not None else f"PR title {title}"
    if not names:
        return f"{what} shares no specific terms with the problem."
    if level is Confidence.HIGH:
        return f"Release note {title} matches {names}." if pr.commit is not None else \
            f"PR title {title} and its release note match {names}."
    if level is Confidence.MEDIUM:
        return f"{what} is in the same area: it shares {names} with the problem."
    return f"{what} shares only {names} with the problem, which is weak evidence."
