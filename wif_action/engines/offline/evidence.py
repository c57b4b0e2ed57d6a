"""What a candidate (release-note entry + PR) shares with the problem, measured by key concepts.

The problem's key concepts are its heaviest terms (weight × repository idf) that the
repository's notes know at all, with contained terms merged: "rate limit" and "limit"
are one concept, as are "SentryBreadcrumb" and "breadcrumb". Counting
concepts rather than terms keeps one idea phrased three ways from looking like
three independent matches.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

from indexer.release_notes import commit_prefix
from wif_action import lexicon
from wif_action.engines.offline.change_kind import fix_verb, says_fix, section_of, ships_to_users
from wif_action.engines.offline.ranking import RepositoryStats, section_weight
from wif_action.lexicon.stemmer import stem
from wif_action.lexicon.terms import MAX_ANALYSED_CHARS, Term, analyse, qualified_members, term_counts
from wif_action.models import Entry, PullRequest

# Weights and limits (key_concepts, part_credit, headline_chars, …): lexicon.toml [weight], where each is
# explained, read where used (`lexicon.weight`), so `lexicon.use()` and calibration change them for a run.


@dataclass
class Concept:
    """One idea of the problem: its heaviest term plus terms made of a subset (or superset) of its words."""

    terms: list[Term]
    value: float
    atoms: set[str]

    @property
    def name(self) -> str:
        return self.terms[0].surface


@dataclass
class Evidence:
    """Shared terms of the headline (entry + PR title) and of the PR description."""

    section_weight: float
    scale: float = 1.0  # RepositoryStats.scale: thresholds on masses are multiplied by it
    concepts: list[Concept] = field(default_factory=list)
    headline: dict[str, tuple[Term, float]] = field(default_factory=dict)
    body: dict[str, tuple[Term, float]] = field(default_factory=dict)
    credits: list[float] = field(default_factory=list)
    matched: list[set[str]] = field(default_factory=list)  # per concept: atoms of the term that earned its credit
    keys: list[str] = field(default_factory=list)  # per concept: the key of the term that earned its credit
    shares: list[float] = field(default_factory=list)  # per concept: share of the repository's notes naming the
    # term that earned its credit (how everyday that word is there: "api" is in 28% of openai-python's notes)
    wheres: list[bool] = field(default_factory=list)  # per concept: the term that earned its credit names only a
    # platform ("Windows", "Apple Silicon Macs"): where the problem happens, not what fails
    linked_issue: int | None = None
    repo: str = ""  # whose notes weighed the terms
    quoted_unique: bool = False  # names verbatim a code name the customer quoted that no other entry names
    quoted_only: bool = False  # every concept it names, it names by the words of code the customer quoted, and
    # the problem has concepts beyond them (`php artisan sentry:test`, and the proxy it times out through)
    symptoms_asked: frozenset[str] = frozenset()  # symptom classes the problem names (crash, hang, missing, …)
    symptoms_named: frozenset[str] = frozenset()  # … and those the headline names
    defects: frozenset[str] = frozenset()  # what an "un-" word of the problem lacks ("symbol" of "unsymbolicated")
    defects_named: frozenset[str] = frozenset()  # … and those the headline names
    says_fix: bool = False  # the headline says it fixes something ("Fix iOS screenshots …", "fix(x): …")
    fix_verb: bool = False  # … with a verb ("Fix …", "fix(x): prevent …"), not only a `fix:` commit type
    ships: bool = True  # False for CI, docs, tests, samples, internal changes (see `ships_to_users`)
    host_names: tuple[str, ...] = ()  # code names only the customer's own SDK names, for a bundled SDK's PR
    area_named: int = 0  # concepts after the key ones (to `area_concepts`) the headline names: in the same area
    bodiless: bool = False  # no text beyond the headline to read (a commit line, a PR with no description): the
    # MEDIUM bar is `bodiless_mass` of a PR line's (`scoring.medium_bar`)
    from_message: bool = False  # the problem was condensed out of a free-text message (`Question.from_message`)
    line_relevance: float | None = None  # the release line's BM25 × section / scale, as the batch filter scored it
    # (`relevance.score_entries`); None without a line
    unscoped: Evidence | None = None  # the same without the PR title's conventional-commit scope, when that scope
    # names a term of the problem nothing else of the headline names (`_unscoped`, `scoring.scope_files_only`)

    @property
    def headline_mass(self) -> float:
        return sum(value for _, value in self.headline.values())

    @property
    def total_mass(self) -> float:
        return self.headline_mass + lexicon.weight("body_factor") * sum(value for _, value in self.body.values())

    @property
    def coverage(self) -> float:
        """Share of the key concepts' weight the headline names."""
        total = sum(c.value for c in self.concepts)
        return sum(c.value * credit for c, credit in zip(self.concepts, self.credits, strict=True)) / total \
            if total else 0.0

    def uncommon(self, concepts: list[Concept], common_share: float) -> list[Concept]:
        """The concepts whose credited term fewer than `common_share` of the repository's notes name."""
        shares = dict(zip((id(c) for c in self.concepts), self.shares or [0.0] * len(self.concepts), strict=True))
        return [c for c in concepts if shares[id(c)] < common_share]

    def what(self, concepts: list[Concept]) -> list[Concept]:
        """The concepts not named by a platform word alone (`wheres`): what the headline says failed, not where."""
        wheres = dict(zip((id(c) for c in self.concepts), self.wheres or [False] * len(self.concepts), strict=True))
        return [c for c in concepts if not wheres[id(c)]]

    def named(self, at_least: float = 1.0) -> list[Concept]:
        """Key concepts the headline names with at least this credit (1.0 = verbatim).

        Named concepts that share a content word are one phrase of the headline, counted once: "… user IP …"
        names "IP" through "user IP", and its "user" does not count again; "App hangs report …" names "app hangs"
        and "hangs reported" of "app hangs are reported twice" as one idea, not two."""
        matched = self.matched or [set() for _ in self.concepts]
        hits = [(c, atoms) for c, credit, atoms in zip(self.concepts, self.credits, matched, strict=True)
                if credit >= at_least]
        kept: list[tuple[Concept, set[str]]] = []
        for concept, atoms in hits:  # heaviest first: a later one sharing a content word is the same phrase
            if not any((atoms & other) - lexicon.weak_words() for _, other in kept):
                kept.append((concept, atoms))
        return [c for c, _ in kept]

    def breadth(self, at_least: float) -> float:
        """Share of the key concepts' weight the headline names, each (one phrase counted once: `named`) named with
        at least this credit. Unlike `headline_mass`, one idea the headline spells three ways ("watchdog
        termination", "watchdog", "termination") counts once, so it says how much of the problem's breadth it names."""
        total = sum(c.value for c in self.concepts)
        return sum(c.value for c in self.named(at_least)) / total if total else 0.0

    @property
    def body_concepts(self) -> int:
        return sum(1 for c in self.concepts if any(t.key in self.body for t in c.terms))

    def best_names(self, limit: int = 4) -> list[str]:
        ranked = sorted(self.headline.values(), key=lambda item: -item[1])
        if len(ranked) < limit:
            ranked += sorted(self.body.values(), key=lambda item: -item[1])
        return list(dict.fromkeys(term.surface for term, _ in ranked))[:limit]


def key_concepts(query: dict[str, Term], stats: RepositoryStats, repo: str,
                 problem_keys: frozenset[str] | None = None,
                 alternatives: tuple[frozenset[str], ...] = (),
                 plain: dict[str, tuple[Term, str]] | None = None, limit: str = "key_concepts") -> list[Concept]:
    """The problem's `key_concepts` (a weight) heaviest ideas that occur in the repository's notes.

    `problem_keys`: the terms of the condensed problem; when it has `min_problem_concepts` known terms, the key
    concepts come from it alone, so context words of a pasted message ("Discover query") cannot dilute them.
    `plain`: `_without_negation` of the query, when the caller has it already."""
    plain = _without_negation(query, stats, repo) if plain is None else plain
    query = {**query, **{key: term for key, (term, _) in plain.items()}}
    if problem_keys is not None:
        problem_keys = problem_keys | _positive_forms(plain, problem_keys)
    values = {key: term.weight * stats.idf(repo, key) for key, term in query.items()
              if term.kind != "synonym" and stats.df(repo, key) > 0}
    own = {key: value for key, value in values.items() if problem_keys is not None and key in problem_keys}
    if len(own) >= lexicon.weight("min_problem_concepts"):
        values = own
    concepts: list[Concept] = []
    for key, value in sorted(values.items(), key=lambda item: -item[1])[:int(lexicon.weight("candidate_terms"))]:
        term, atoms = query[key], _atoms(query[key])
        home = next((c for c in concepts if atoms <= c.atoms or c.atoms <= atoms
                     or any(atoms | c.atoms <= group for group in alternatives)), None)
        if home is None:
            concepts.append(Concept([term], value, atoms))
        else:
            home.terms.append(term)
    return concepts[:int(lexicon.weight(limit))]


def _area_named(evidence: Evidence, beyond: list[Concept], headline: Counter[str], modifiers: frozenset[str]) -> int:
    """How many of the problem's next concepts after the key ones (up to `area_concepts`) the headline names with at
    least `medium_named` credit, each a phrase of its own (not a word of a key concept it names: `Evidence.named`)."""
    half = lexicon.weight("medium_named")
    taken = set().union(*(atoms for atoms, credit in zip(evidence.matched, evidence.credits, strict=True)
                          if credit >= half)) - lexicon.weak_words()
    count = 0
    for concept in beyond:
        credit, atoms = max(((_concept_credit(concept, term, headline, modifiers), _atoms(term))
                             for term in concept.terms), key=lambda item: (item[0], len(item[1])))
        if credit >= half and not (atoms - lexicon.weak_words()) & taken:
            count += 1
            taken |= atoms - lexicon.weak_words()
    return count


def _without_negation(query: dict[str, Term], stats: RepositoryStats, repo: str) -> dict[str, tuple[Term, str]]:
    """"unsymbolicated" is a word no note uses, while notes say "symbolication": an "un-" word the repository's
    notes never use stands for the idea without "un" when they know that one. Returns key → (term, the un-word's
    key)."""
    found: dict[str, tuple[Term, str]] = {}
    prefixes = tuple(lexicon.words("negating_prefix"))
    for key, term in query.items():
        prefix = next((p for p in prefixes if term.surface.lower().startswith(p)), None)
        if term.kind == "word" and prefix is not None and len(term.surface) >= 7 and stats.df(repo, key) == 0:
            found.update({t.key: (Term(t.key, t.surface, term.weight, "word"), key)
                          for t in analyse(term.surface[len(prefix):]) if t.kind == "word" and t.key not in query})
    if found:
        stats.load(repo, [term for term, _ in found.values()])
    return {key: value for key, value in found.items() if stats.df(repo, key) > 0}


def _positive_forms(plain: dict[str, tuple[Term, str]], problem_keys: frozenset[str] | None) -> frozenset[str]:
    """The words the notes use for the problem's own "un-" words (all of the query's without `problem_keys`)."""
    return frozenset(key for key, (_, origin) in plain.items() if problem_keys is None or origin in problem_keys)


def _atoms(term: Term) -> set[str]:
    """The word stems a term is made of (a bigram's two words, an identifier's parts)."""
    if term.kind == "bigram":
        return set(term.key.split())
    if term.identifier:  # its parts, and the identifiers it is made of ("SentrySDK" of "SentrySDK.start")
        return {t.key for t in analyse(term.surface) if t.kind in ("part", "identifier")} | {term.key}
    return {term.key}


def gather(pr: PullRequest, entry: Entry | None, query: dict[str, Term], stats: RepositoryStats,
           feature_request: bool, linked_issues: list[int], problem_keys: frozenset[str] | None = None,
           repo: str | None = None, quoted: frozenset[str] = frozenset(),
           alternatives: tuple[frozenset[str], ...] = (), quoted_code: frozenset[str] = frozenset(),
           unmatched: frozenset[str] = frozenset(), where: frozenset[str] = frozenset()) -> Evidence:
    """Everything the scorer needs about one candidate; `repo`: whose notes weigh the terms (the PR's);
    `unmatched`: query terms no note is credited with (the asked SDK's own name, `Question.own_names`): they stay
    among the concepts a note should cover, so leaving them out never makes another candidate look stronger;
    `where`: the term keys of where the customer's service runs (`Question.deployment_keys`), which name where like
    the platform words do (`Evidence.wheres`)."""
    repo = repo or pr.repo
    section = section_of(entry, pr) if entry else None
    plain = _without_negation(query, stats, repo)
    wide = key_concepts(query, stats, repo, problem_keys, alternatives, plain, "area_concepts")
    evidence = Evidence(section_weight(section, feature_request) if section else 1.0, scale=stats.scale(repo),
                        concepts=wide[:int(lexicon.weight("key_concepts"))])
    note, cut = entry.text if entry else "", int(lexicon.weight("headline_chars"))  # the rest explains it
    said, aside = _without_side_effects(note[:cut])
    headline = term_counts(said + "\n" + pr.title) - _label_parts(said)
    members = qualified_members(said + "\n" + pr.title)
    explained = aside + "\n" + note[cut:] + "\n" + pr.body[:MAX_ANALYSED_CHARS]
    body = term_counts(explained)
    for key in unmatched:
        headline.pop(key, None)
        body.pop(key, None)
    for key, term in query.items():
        value = term.weight * stats.idf(repo, key)
        if headline.get(key):
            evidence.headline[key] = (term, value)
        elif body.get(key):
            evidence.body[key] = (term, value)
    # in a handful of notes no word is everyday
    documents = max(int(lexicon.weight("common_min_notes")), stats.documents(repo)[0])
    modifiers = _named_things(query, stats, repo)
    _credit_concepts(evidence, headline, modifiers, stats, repo, documents, where)
    evidence.area_named = _area_named(evidence, wide[len(evidence.concepts):], headline, modifiers)
    evidence.linked_issue = _references(pr, linked_issues)
    evidence.repo = repo
    evidence.bodiless = not explained.strip()
    evidence.quoted_unique = any(key in headline and stats.df(repo, key) == 1
                                 and not _anothers_member(key, headline, members, query) for key in quoted)
    evidence.quoted_only = _quoted_only(evidence, quoted_code)
    evidence.symptoms_asked = _symptoms_asked(query, problem_keys, modifiers)
    evidence.symptoms_named = _symptoms_named(said, pr.title, headline)
    evidence.defects = _positive_forms(plain, problem_keys)
    evidence.defects_named = evidence.defects & frozenset(headline)
    claim = _without_advisory(note)
    title = _without_advisory(pr.title)
    evidence.says_fix = says_fix(claim) or says_fix(title)
    evidence.fix_verb = fix_verb(claim) or fix_verb(title)
    asked = frozenset(problem_keys if problem_keys is not None else query)
    evidence.ships = ships_to_users(note, asked) and ships_to_users(pr.title, asked)
    evidence.unscoped = _unscoped(evidence, said, pr.title, headline, modifiers, stats, repo, documents, where)
    return evidence


def _credit_concepts(evidence: Evidence, headline: Counter[str], modifiers: frozenset[str], stats: RepositoryStats,
                     repo: str, documents: int, where: frozenset[str]) -> None:
    """Per key concept, the credit the headline earns it and the term that earned it (`Evidence.credits`, `matched`,
    `keys`, `shares`, `wheres`)."""
    for concept in evidence.concepts:
        credit, atoms, term = max(((_concept_credit(concept, term, headline, modifiers), _atoms(term), term)
                                   for term in concept.terms), key=lambda item: (item[0], len(item[1])))
        evidence.credits.append(credit)
        evidence.matched.append(atoms)
        evidence.keys.append(term.key)
        evidence.shares.append(stats.df(repo, term.key) / documents)
        evidence.wheres.append(atoms <= (platform_keys(frozenset(lexicon.platform_of())) | where))


def _unscoped(evidence: Evidence, said: str, title: str, headline: Counter[str], modifiers: frozenset[str],
              stats: RepositoryStats, repo: str, documents: int, where: frozenset[str]) -> Evidence | None:
    """The evidence as if the PR title had no conventional-commit scope ("fix(OpenTelemetry): fuse Activity …" read
    as "fix: fuse Activity …"), when the scope names a term of the problem the rest of the headline does not; else
    None. `scoring` reads it for a thin headline only (`scoring.scope_files_only`)."""
    prefix = commit_prefix(title)
    if prefix is None or not prefix[1] or lexicon.weight("thin_scope") <= 0:
        return None
    unscoped = term_counts(said + "\n" + title.replace(f"({prefix[1]})", "", 1))
    bare = Counter({key: count for key, count in unscoped.items() if key in headline})  # `unmatched` left out too
    only = {key for key in evidence.headline if headline.get(key) and not bare.get(key)}
    if not only:
        return None
    other = copy.copy(evidence)
    other.headline = {key: value for key, value in evidence.headline.items() if key not in only}
    other.credits, other.matched, other.keys, other.shares, other.wheres = [], [], [], [], []
    _credit_concepts(other, bare, modifiers, stats, repo, documents, where)
    return other


def _label_parts(note: str) -> Counter[str]:
    """The words of the code names in the note's component label ("open", "telemetri" of "OpenTelemetry: Replace
    the worker-level table cache …"), each as often as the label says it, when `label_name_whole` (lexicon.toml
    [weight]; 0: off) is on: the headline reads the label's name whole (the name, or its words as one phrase), not
    one of its words alone.

    Why: a label files the line under a part of the library; a word of that part's name ("open" of OpenTelemetry)
    says nothing of what the line fixes, and met "too many open files" as the problem's word. In the line's own
    words a name's words stay ("`BatchQueue`" names a batch queue)."""
    if lexicon.weight("label_name_whole") <= 0:
        return Counter()
    label = lexicon.pattern("component_label").match(note.strip())
    if label is None:
        return Counter()
    return Counter(term.key for term in analyse(label.group()) if term.kind == "part")


def _without_advisory(note: str) -> str:
    """The note without a leading "Fix GHSA-…:" / "Fix CVE-…:" (lexicon `advisory_fix`; `advisory_fix` weight 0: kept):
    a fix verb whose object is a security advisory's id says which advisory, not which failure, and the words after
    it say what changed ("Apply limits to baggage entries …")."""
    if lexicon.weight("advisory_fix") <= 0:
        return note
    return lexicon.pattern("advisory_fix").sub("", note, count=1)


def _symptoms_named(said: str, title: str, headline: Counter[str]) -> frozenset[str]:
    """The symptom terms the headline names as a failure: not those only in what a leading remedy verb acts on
    ("Skip empty baggage keys …": "empty" is what it skips, the trigger, not a failure it cures; the remedy word
    itself stays, as `scoring._another_failure` reads it), when `remedy_object` (lexicon.toml [weight]) is on."""
    named = frozenset(headline) & lexicon.symptom_terms()
    if lexicon.weight("remedy_object") <= 0:
        return named
    kept = term_counts(_without_remedied(said) + "\n" + _without_remedied(title))
    return frozenset(key for key in named if kept.get(key) or key in lexicon.remedy_terms())


def _without_remedied(text: str) -> str:
    """The text without the object of its leading remedy verb (after a commit prefix or a component label: "Trace
    propagators: Skip empty baggage keys in `X` extract" → "in `X` extract")."""
    rest = lexicon.pattern("headline_prefix").sub("", text.strip(), count=1)
    rest = lexicon.pattern("component_label").sub("", rest, count=1)
    verb, _, after = rest.partition(" ")
    synonyms = lexicon.synonyms()
    if synonyms.get(stem(verb.strip("`*").lower())) not in lexicon.remedy_terms():
        return text
    parts = lexicon.pattern("clause_break").split(after, maxsplit=1)
    return parts[1] if len(parts) > 1 else ""


@cache
def platform_keys(words: frozenset[str]) -> frozenset[str]:
    """The term keys of the lexicon's platform words ("windows" → window, "apple silicon" → appl, silicon, appl
    silicon), once per table."""
    return frozenset(term.key for word in words for term in analyse(word))


def _without_side_effects(headline: str) -> tuple[str, str]:
    """The headline without the sentences after its first that say what the change may cause ("IMPORTANT:
    StrictMode violations may appear again in debug builds.", "This may change grouping of exceptions."), and
    those sentences. Why: such a sentence is a caveat about the change's side effect, not what it fixed or added;
    its words ("violations", "debug builds") weigh as explanation, not as the headline naming the problem. So does
    one telling the reader how to turn the change on (lexicon `advice`: "Enable `upload_sources` to opt in to Flutter
    web source context", also after the line's own PR reference, `reference_break`): it names the option to set, not
    what the change fixed."""
    kept: list[str] = []
    aside: list[str] = []
    for i, sentence in enumerate(lexicon.pattern("note_sentence_break").split(headline)):
        if i and lexicon.pattern("side_effect").search(sentence):
            aside.append(sentence)
            continue
        for j, piece in enumerate(lexicon.pattern("reference_break").split(sentence)):
            (aside if (i or j) and lexicon.pattern("advice").search(piece) else kept).append(piece)
    if not aside:
        return headline, ""
    return " ".join(kept), " ".join(aside)


def _anothers_member(key: str, headline: Counter[str], members: list[tuple[str, frozenset[str]]],
                     query: dict[str, Term]) -> bool:
    """Whether the headline names the code name `key` only as the member of owners the question never names
    ("fix: AxiosError.toJSON method …" for a customer's `response.headers.toJSON()`): another class's method of
    the same name, not the one the customer quoted."""
    owners = [found for member, found in members if member == key]
    return bool(owners) and headline[key] <= len(owners) and not any(found & query.keys() for found in owners)


def _quoted_only(evidence: Evidence, quoted_code: frozenset[str]) -> bool:
    """Whether the headline names the problem only by the code the customer quoted (the command they ran, the
    class they call), while the problem has concepts beyond it: it names where, not what went wrong."""
    index = {id(c): i for i, c in enumerate(evidence.concepts)}
    named = [index[id(c)] for c in evidence.named()]
    return bool(named) and len(named) < len(evidence.concepts) \
        and all(evidence.keys[i] in quoted_code for i in named)


def _named_things(query: dict[str, Term], stats: RepositoryStats, repo: str) -> frozenset[str]:
    """Symptom spellings the problem uses to name a thing the repository's notes name by that phrase ("frozen"
    of "slow/frozen frame durations": the notes know "frozen frames", a measurement, not a hang): there the word
    does not fold onto its symptom."""
    synonyms = lexicon.synonyms()
    found = set()
    for key, term in query.items():
        first = key.split(" ", 1)[0]
        if term.kind == "bigram" and synonyms.get(first, first) != first and stats.df(repo, key) > 0:
            found.add(first)
    return frozenset(found)


def _symptoms_asked(query: dict[str, Term], problem_keys: frozenset[str] | None,
                    modifiers: frozenset[str]) -> frozenset[str]:
    """The symptoms the problem names, less those it reaches only through a spelling that names a thing."""
    keys = frozenset(problem_keys or ())
    asked = keys & lexicon.symptom_terms()
    synonyms = lexicon.synonyms()
    only_named_things = {symptom for symptom in asked
                         if (term := query.get(symptom)) is not None and term.kind == "synonym"
                         and all(word in modifiers for word in keys if synonyms.get(word) == symptom != word)}
    return asked - only_named_things


def _concept_credit(concept: Concept, term: Term, headline: Counter[str],
                    modifiers: frozenset[str] = frozenset()) -> float:
    """The credit `term` earns for its concept. A concept headed by an identifier ("RecursionError") is named in
    full by the identifier, a phrase of its words ("recursion error") or its one distinctive word
    ("breadcrumbs" for SentryBreadcrumb); one of several words alone ("error", "recursive") names it only in
    part, as `_credit` scores an identifier's words."""
    credit = _credit(term, headline, frozenset(lexicon.synonyms()[word] for word in modifiers))
    head = concept.terms[0]
    if _symptom_of_phrase(head, term):
        return min(credit, lexicon.weight("part_credit"))
    if not head.identifier or term.kind not in ("word", "part"):
        return credit
    distinctive = {t.key for t in analyse(head.surface) if t.kind == "part" and t.key not in lexicon.weak_words()}
    return credit if distinctive == {term.key} else min(credit, lexicon.weight("part_credit"))


def _symptom_of_phrase(head: Term, term: Term) -> bool:
    """The symptom word of a two-word concept ("crash" of "crash loop"): alone it says only what failed, which
    every crash fix names ("… a Session Replay crash"), so it names the concept in part, not in full."""
    return head.kind == "bigram" and term.kind in ("word", "part") and term.key in head.key.split() \
        and term.key in lexicon.says_what_terms()


def _credit(term: Term, headline: Counter[str], unfolded: frozenset[str] = frozenset()) -> float:
    """1 when the headline names the term; part credit for its synonym (not one of `unfolded`) or an
    identifier's words."""
    if headline.get(term.key):
        return 1.0
    analysed = analyse(term.surface)
    credit = lexicon.weight("synonym_credit") if any(headline.get(t.key) for t in analysed
                                   if t.kind == "synonym" and t.key not in unfolded) else 0.0
    parts = [t.key for t in analysed if t.kind == "part"]
    if term.identifier and parts:
        credit = max(credit, lexicon.weight("part_credit") * sum(1 for key in parts if headline.get(key)) / len(parts))
    return credit


def _references(pr: PullRequest, issues: list[int]) -> int | None:
    """The first linked issue the PR title or description refers to (#N or an issue URL)."""
    text = f"{pr.title}\n{pr.body[:MAX_ANALYSED_CHARS]}"
    for number in issues:
        if re.search(rf"(?:(?<![\w/])#|/issues/){number}\b", text):
            return number
    return None
