"""Confidence that a PR fixes the problem, and the stricter check of HIGH candidates.

A candidate that names several of the problem's key concepts ("AVAssetDownloadTask",
"FORCE_CACHE") in its release note or title fixes this symptom; one that shares a
single concept is in the same area; one that shares only generic words ("crash",
"iOS") is speculative. See `evidence.py` for how concepts are formed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from wif_action import lexicon
from wif_action.engines.offline.evidence import Concept, Evidence
from wif_action.engines.offline.ranking import RepositoryStats
from wif_action.models import Confidence


@dataclass(frozen=True)
class Thresholds:
    """The offline judge's thresholds (lexicon.toml `[weight]`, where each is explained), as one value.

    Why: the composition root passes it to the judge, so calibration and cross-validation try other values
    by passing another object (`dataclasses.replace(SHIPPED, medium_mass=9)`), not by mutating module globals."""

    high_concepts: int
    high_coverage: float
    high_mass: float
    strong_concepts: int
    strong_coverage: float
    strong_mass: float
    verify_rarest: int
    medium_mass: float
    medium_concepts: int
    medium_named: float
    medium_section_floor: float
    body_concepts: int
    min_section_for_high: float
    named_credit: float
    common_share: float
    counted_share: float

    @classmethod
    def from_lexicon(cls) -> Thresholds:
        """The values of the lexicon's `[weight]` table (chosen by bench/quality_report.py --grid)."""
        values: dict[str, Any] = {item.name: (int if item.type == "int" else float)(lexicon.weight(item.name))
                                  for item in fields(cls)}
        return cls(**values)


SHIPPED = Thresholds.from_lexicon()


def in_mode(weights: Thresholds) -> Thresholds:
    """`weights` with the current input mode's own values laid over (lexicon.toml `[<mode>_weight]`,
    `lexicon.input_mode`): the judge's thresholds are the shared ones unless the mode has its own."""
    own = lexicon.mode_weights()
    chosen = {item.name: type(getattr(weights, item.name))(own[item.name]) for item in fields(Thresholds)
              if item.name in own}
    return replace(weights, **chosen) if chosen else weights


def confidence(evidence: Evidence, weights: Thresholds = SHIPPED) -> Confidence:
    """HIGH: a fix (or a wanted feature) whose headline names the problem's key concepts."""
    fixes = evidence.section_weight >= weights.min_section_for_high and evidence.ships
    if fixes and evidence.linked_issue is not None:
        return Confidence.HIGH
    if fixes and _strong_headline(evidence, weights):
        return Confidence.HIGH
    if fixes and _quoted_unique_fix(evidence):
        return Confidence.HIGH
    area = _headline_in_area(evidence, weights) or evidence.body_concepts >= weights.body_concepts
    section = max(evidence.section_weight, weights.medium_section_floor)
    if area and evidence.total_mass * section >= medium_bar(evidence, weights):
        return Confidence.MEDIUM
    return Confidence.LOW


def _headline_in_area(evidence: Evidence, weights: Thresholds = SHIPPED) -> bool:
    """The headline names one of the problem's ideas (`medium_concepts`) of a release line the batch filter scored at
    least `weak_line` (BM25 × section / scale, `Evidence.line_relevance`). Why: a line saying little of a long
    message, yet naming one of its words ("type", "inject", "data"), is no sign of the same area; only its PR
    description naming several of the problem's ideas (`body_concepts`) can then carry a MEDIUM. The batch filter's
    absolute floor (`min_relevance`) drops such a line before its PR is read, the right ones with it; here the
    floor is applied once the description could speak for it. Per input mode (`[message_weight]`; 0 in `[weight]`:
    off)."""
    named = len(evidence.named(weights.medium_named)) + evidence.area_named >= weights.medium_concepts
    floor = lexicon.weight("weak_line", evidence.from_message)
    return named and (evidence.line_relevance is None or evidence.line_relevance >= floor)


def medium_bar(evidence: Evidence, weights: Thresholds = SHIPPED) -> float:
    """The mass a candidate needs for MEDIUM. A line with no text beyond its headline (a release line citing only a
    commit, a PR with no description) can show no mass from a description, so it is held to `bodiless_mass` of the
    bar: the evidence asked for scales with the text there is to read. HIGH's bars are not scaled: a thin note is
    never a ✓ on less. The factor is a weight per input mode (`[message_weight]`: a message's problem carries more
    words, and more lines reach the lowered bar by them)."""
    factor = lexicon.weight("bodiless_mass", evidence.from_message) if evidence.bodiless else 1.0
    return weights.medium_mass * factor * evidence.scale


def _quoted_unique_fix(evidence: Evidence) -> bool:
    """A fix that names, verbatim, a code name the customer quoted ('http_ssl_verify_peer') that no other entry
    of the repository names: the one change that ever touched what they copied from their setup."""
    return evidence.quoted_unique and evidence.says_fix and evidence.section_weight >= 1.0 and evidence.ships \
        and not _failure_left_unsaid(evidence)


def _failure_left_unsaid(evidence: Evidence) -> bool:
    """The problem names its kind of failure ("crash"), the headline names no failure at all and says only by its
    commit type that it fixes something ("fix: Remove `SentrySystemEventBreadcrumbs` observers …" for a crash in
    `SentrySystemEventBreadcrumbs getBatteryStatus`): a code name copied from a stack trace is where it failed, and
    the one note naming it may be another change of that code (`_says_which_fix`'s reading of a `fix:` type). A
    headline naming a failure ("fix: add missing HttpStatusCode" for a TypeError) says what it fixes."""
    return bool(evidence.symptoms_asked) and not evidence.symptoms_named and not evidence.fix_verb


def _strong_headline(evidence: Evidence, weights: Thresholds = SHIPPED) -> bool:
    evidence = scope_files_only(evidence, weights)
    if _in_the_host_sdk(evidence):
        return False
    unnamed = bool(evidence.symptoms_asked) and not evidence.symptoms_asked & evidence.symptoms_named
    if unnamed and not evidence.says_fix:
        return False  # the subject matches, but it neither names the symptom ("ignored") nor says it fixes it
    if _another_failure(evidence):
        return False  # it fixes a crash, and the customer's arguments go missing: same subject, another bug
    if _kind_left_unnamed(evidence):
        return False  # a leak's fix says "leak" or "memory": a fix of the subject naming neither is another bug
    if evidence.defects and not evidence.defects_named:
        return False  # "unsymbolicated" is the defect itself: a fix of the subject that never names it is another
    if _names_only_the_quoted_code(evidence):
        return False  # "Improve the stacktrace of the `sentry:test` event": the command they ran, not its fix
    concepts = evidence.named(weights.named_credit)
    uncommon = evidence.uncommon(concepts, weights.common_share)
    if not uncommon:
        return False  # only words common in this repository's notes ("api", "client", "error"): not a ✓
    if _only_where(evidence, uncommon):
        return False  # only where it happens ("on Apple Silicon Macs"): the platform is a gate (objections), no ✓
    named, coverage = len(evidence.uncommon(concepts, weights.counted_share)), evidence.coverage
    mass = evidence.headline_mass / evidence.scale
    if named >= weights.high_concepts and coverage >= weights.high_coverage and mass >= weights.high_mass:
        return True
    return (_says_which_fix(evidence, unnamed) and not _unfiled_thin(evidence, weights)
            and named >= weights.strong_concepts
            and coverage >= weights.strong_coverage and mass >= weights.strong_mass)


def scope_files_only(evidence: Evidence, weights: Thresholds = SHIPPED) -> Evidence:
    """The evidence a ✓ is judged on: without the PR title's conventional-commit scope (`Evidence.unscoped`) when,
    read without it, the headline is thin (`thin`: no verb saying what it fixes, the problem's heaviest idea
    unnamed); else as gathered.

    Why: a scope files a change under a part of the code ("fix(OpenTelemetry): fuse Activity weakly …"), as the
    commit type files it as a fix; it says where, not what. A headline that says with a verb what it fixes, or names
    what the problem is mostly about, may count its scope ("fix(hono): …", "fix(UserDataBag): Handle bracketed IPv6
    …"); a thin one carried to ✓ by its scope is a fix somewhere in the integration the customer uses
    (lexicon.toml [weight] `thin_scope`; 0: off)."""
    unscoped = evidence.unscoped
    return unscoped if unscoped is not None and thin(unscoped, weights) else evidence


def _unfiled_thin(evidence: Evidence, weights: Thresholds = SHIPPED) -> bool:
    """A thin headline (`thin`: no verb saying what it fixes, the problem's heaviest idea unnamed) that says nothing
    of being a fix (`Evidence.says_fix`: no `fix:` type, no fix word) and that the maintainers did not file as one (its
    section weighs less than a fix's, lexicon.toml [section_weight]; a feature asked for weighs as a fix):
    lexicon.toml [weight] `thin_unfiled` (1: on, 0: off).

    Why: a thin ✓ rests on the problem's lighter ideas, and the heading or commit type is what says the change fixes
    something; with neither, the shared words are often the customer's setup ("a multi-schema whose dispatch value
    is false": "`:multi` with keyword `:dispatch` accumulates data to generated values" changes generation, not the
    lookup that fails)."""
    return lexicon.weight("thin_unfiled") > 0 and thin(evidence, weights) and not evidence.says_fix \
        and evidence.section_weight < lexicon.section_weights()["fix"]


def _only_where(evidence: Evidence, uncommon: list[Concept]) -> bool:
    """Every concept the headline names that is not everyday in the repository's notes names a platform ("Improve
    error message … on non-Apple Silicon Macs" for certificate errors on Apple Silicon Macs): it says where the
    problem happens, not what fails. Where is a gate (`objections.on_the_platform`), not evidence of the fix."""
    return not evidence.what(uncommon)


def _says_which_fix(evidence: Evidence, unnamed: bool) -> bool:
    """Whether a headline naming fewer concepts may still be HIGH: it names the problem's failure, or says with a
    verb what it fixes ("Fix …", "Prevent …"). A `fix:` commit type over a change of the same subject
    ("fix(fastapi): use … path for prefixed routers") files the change as a fix; it does not say it fixes
    this failure, and conventional-commit repositories put it on every fix."""
    return not unnamed or evidence.fix_verb


def _names_only_the_quoted_code(evidence: Evidence) -> bool:
    """The headline names the problem only by code the customer quoted (`php artisan sentry:test`, the command
    they ran) and does not say it fixes anything: it names the feature the problem is about, not a fix of it —
    every change to that command names it too."""
    return evidence.quoted_only and not evidence.says_fix


def _in_the_host_sdk(evidence: Evidence) -> bool:
    """A bundled SDK's change, and the request names code ("InvalidCastException") that only the customer's own
    SDK's notes name: the problem is in the customer's SDK itself, so a fix of the SDK it bundles is no ✓."""
    return bool(evidence.host_names)


def _another_failure(evidence: Evidence) -> bool:
    """The problem names its failure (a crash, a hang, something missing…) and the headline names only other
    failures: a fix of the same subject for another bug. Words a headline uses for its remedy ("Skip …") do
    not name a failure there."""
    asked = _families(evidence.symptoms_asked)
    named = _families(evidence.symptoms_named - lexicon.remedy_terms())
    return bool(asked and named) and not asked & named


def _kind_left_unnamed(evidence: Evidence) -> bool:
    """The problem asks a kind of failure whose fixes name it (lexicon `named_by_fix`: a memory leak) and the
    headline names none of those: "Fix `SessionDataTask` races when concurrent cancellation … access its callback
    storage" for callbacks that keep view controllers in memory fixes a race of that object, not its leak.

    Why only such kinds: a crash fix names its cause ("Fix division by zero when breadcrumbs are disabled", "Trim DSN
    string … to avoid `URISyntaxException`"), so a crash left unnamed says nothing; a leak fix says "leak",
    "memory", "reclaim memory" — every right ✓ of a labelled memory problem does."""
    needed = evidence.symptoms_asked & lexicon.named_by_fix_terms()
    return bool(needed) and not needed & evidence.symptoms_named


def _families(symptoms: frozenset[str]) -> set[int]:
    """The kinds of failure (lexicon: a symptom's `family`) these symptom terms name."""
    return {index for index, family in enumerate(lexicon.symptom_families()) if family & symptoms}


def rarest(evidence: Evidence, stats: RepositoryStats, repo: str, weights: Thresholds = SHIPPED) -> list[Concept]:
    """The key concepts fewest of the repository's entries mention, leaving out symptom classes.

    Why: "EXC_BAD_ACCESS" is rare in notes yet names the kind of failure, not where it
    happens; an unrelated crash fix names it as well ("… causing EXC_BAD_ACCESS during cold launch"), so it
    cannot be the specific term that confirms a match. So is an exception class ("NSInvalidArgumentException",
    lexicon pattern `failure_class`): a crash fix of another place names it as well."""
    specific = [c for c in evidence.concepts if not _symptom_class(c)] or evidence.concepts
    return sorted(specific, key=lambda c: min(stats.df(repo, t.key) for t in c.terms))[:weights.verify_rarest]


def _symptom_class(concept: Concept) -> bool:
    """A concept made of a symptom that says what failed (lexicon: `says_what`: crash, hang, memory, or a word
    folding onto one) and at most everyday words ("app crashes"): it says what went wrong, not where."""
    head = concept.terms[0]
    if head.identifier and lexicon.pattern("failure_class").match(head.surface):
        return True  # "NSInvalidArgumentException": the kind of failure, spelled as a class name
    words = {word for term in concept.terms for word in term.key.split()}
    classes, synonyms = lexicon.says_what_terms(), lexicon.synonyms()
    symptoms = {word for word in words if word in classes or synonyms.get(word) in classes}
    pieces = {piece for word in symptoms for piece in word.split("_")}  # EXC_BAD_ACCESS → exc, bad, access
    return bool(symptoms) and all(word in symptoms | pieces or word in lexicon.weak_words() for word in words)


def verified(evidence: Evidence, stats: RepositoryStats, repo: str, weights: Thresholds = SHIPPED) -> bool:
    """A strong headline that names one of the rarest key concepts, or a reference to the linked issue."""
    if evidence.linked_issue is not None or _quoted_unique_fix(evidence):
        return True
    named = evidence.named()
    return (_strong_headline(evidence, weights)
            and any(concept in named for concept in rarest(evidence, stats, repo, weights)))


def subjects(evidence: Evidence) -> tuple[str, ...]:
    """The problem's ideas the headline names verbatim — the key of the term that named each key concept, symptom
    classes ("crash", "EXC_BAD_ACCESS") left out — heaviest concept first (the problem's weight × the
    repository's idf): what the candidate is about, which `candidate_order.older_rivals` compares between two
    lines ("StrictMode" in both: the same subject; a line naming "path" does not name "root path")."""
    return tuple(_named_subjects(evidence))


def subject_shares(evidence: Evidence) -> tuple[float, ...]:
    """Per subject (`subjects`, same order): the share of the repository's notes naming its term — how everyday it
    is there ("thread" in 3.5% of sentry-cocoa's notes, "StrictMode" in 0.3%), which `candidate_order.older_rivals`
    reads to tell a rare subject two lines share from an everyday one."""
    return tuple(_named_subjects(evidence).values())


def partly(evidence: Evidence) -> tuple[str, ...]:
    """The term keys of the key concepts the headline names only in part (by a word of a code name: "path" of
    `PATH_INFO`; or by a synonym), symptom classes left out, heaviest concept first: what
    `candidate_order.later_rival` compares with the subject of a later line that names one of them verbatim."""
    return tuple(term.key for concept, credit in zip(evidence.concepts, evidence.credits, strict=True)
                 if 0 < credit < 1 and not _symptom_class(concept) for term in concept.terms)


def thin(evidence: Evidence, weights: Thresholds = SHIPPED) -> bool:
    """Whether the headline says with no verb what it fixes (`Evidence.fix_verb`: a `fix:` type or a Fixes heading
    alone only file it as a fix) and does not name the problem's heaviest key concept: what
    `candidate_order.older_rivals` reads to let an older line naming about as many of the problem's ideas rival it
    without naming its subject (`thin_rival`)."""
    heaviest = evidence.concepts[0] if evidence.concepts else None
    return heaviest is not None and not evidence.fix_verb \
        and not any(concept is heaviest for concept in evidence.named(weights.named_credit))


def _named_subjects(evidence: Evidence) -> dict[str, float]:
    """The subjects' keys, heaviest first, each with the share of the notes naming it (the first concept's, for
    a key two concepts name)."""
    index = {id(c): i for i, c in enumerate(evidence.concepts)}
    named = [index[id(c)] for c in evidence.named() if not _symptom_class(c)]
    shares = evidence.shares or [0.0] * len(evidence.concepts)
    found: dict[str, float] = {}
    for i in named:
        found.setdefault(evidence.keys[i], shares[i])
    return found
