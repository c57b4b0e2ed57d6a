"""Confidence that a PR fixes the problem, and the stricter check of HIGH candidates.

A candidate that names several of the problem's key concepts ("AVAssetDownloadTask",
"FORCE_CACHE") in its release note or title fixes this symptom; one that shares a
single concept is in the same area; one that shares only generic words ("crash",
"iOS") is speculative. See `evidence.py` for how concepts are formed.
"""

from __future__ import annotations

from wif_action.engines.offline.evidence import Concept, Evidence
from wif_action.engines.offline.ranking import RepositoryStats
from wif_action.engines.offline.vocabulary import SYNONYMS, WEAK_WORDS
from wif_action.models import Confidence

# Calibrated on tests/data/eval with bench/calibrate_offline.py.
HIGH_CONCEPTS = 3  # HIGH: the headline names this many key concepts verbatim,
HIGH_COVERAGE = 0.25  # ... carrying this share of the key concepts' weight,
HIGH_MASS = 12.0  # ... and this much idf-weighted problem vocabulary;
STRONG_CONCEPTS = 2  # or fewer concepts with a very strong headline match
STRONG_COVERAGE = 0.35
STRONG_MASS = 12.0  # same floor as the three-concept rule: two concepts need more coverage instead
VERIFY_RAREST = 3  # the second check: one of the problem's rarest key concepts is named verbatim
MEDIUM_MASS = 9.0  # idf-weighted terms over headline and description for MEDIUM
MEDIUM_CONCEPTS = 1  # ... with a key concept (at least half-)named in the headline
BODY_CONCEPTS = 3  # ... or this many in the description
MIN_SECTION_FOR_HIGH = 0.75  # fixes (and features, for missing functionality) can be HIGH
NAMED_CREDIT = 0.5  # a folded synonym ("missing" for "empty") names a concept too


SYMPTOM_CLASSES = frozenset({"crash", "hang", "memori"})  # folded symptom terms that say what, not where


def confidence(evidence: Evidence) -> Confidence:
    """HIGH: a fix (or a wanted feature) whose headline names the problem's key concepts."""
    fixes = evidence.section_weight >= MIN_SECTION_FOR_HIGH and evidence.ships
    if fixes and evidence.linked_issue is not None:
        return Confidence.HIGH
    if fixes and _strong_headline(evidence):
        return Confidence.HIGH
    if fixes and _quoted_unique_fix(evidence):
        return Confidence.HIGH
    area = len(evidence.named(0.5)) >= MEDIUM_CONCEPTS or evidence.body_concepts >= BODY_CONCEPTS
    if area and evidence.total_mass * max(evidence.section_weight, 0.5) >= MEDIUM_MASS * evidence.scale:
        return Confidence.MEDIUM
    return Confidence.LOW


def _quoted_unique_fix(evidence: Evidence) -> bool:
    """A fix that names, verbatim, a code name the customer quoted ('http_ssl_verify_peer') that no other entry
    of the repository names: the one change that ever touched what they copied from their setup."""
    return evidence.quoted_unique and evidence.says_fix and evidence.section_weight >= 1.0 and evidence.ships


def _strong_headline(evidence: Evidence) -> bool:
    if evidence.symptoms_asked and not evidence.symptoms_asked & evidence.symptoms_named and not evidence.says_fix:
        return False  # the subject matches, but it neither names the symptom ("ignored") nor says it fixes it
    if _another_failure(evidence):
        return False  # it fixes a crash, and the customer's arguments go missing: same subject, another bug
    if evidence.defects and not evidence.defects_named:
        return False  # "unsymbolicated" is the defect itself: a fix of the subject that never names it is another
    named, coverage = len(evidence.named(NAMED_CREDIT)), evidence.coverage
    mass = evidence.headline_mass / evidence.scale
    return ((named >= HIGH_CONCEPTS and coverage >= HIGH_COVERAGE and mass >= HIGH_MASS)
            or (named >= STRONG_CONCEPTS and coverage >= STRONG_COVERAGE and mass >= STRONG_MASS))


# Symptom terms (vocabulary.SYNONYMS' folded values) that name one kind of failure: "missing", "dropped" and
# "ignored" all say something expected did not arrive.
SYMPTOM_FAMILIES = ({"crash"}, {"hang"}, {"memori"}, {"duplic"}, {"miss", "drop", "ignor"})


# Symptom terms a headline also uses for the remedy ("Skip UI crumbs when …", "Drop spans that …").
REMEDY_SYMPTOMS = frozenset({"drop", "ignor"})


def _another_failure(evidence: Evidence) -> bool:
    """The problem names its failure (a crash, a hang, something missing…) and the headline names only other
    failures: a fix of the same subject for another bug. Words a headline uses for its remedy ("Skip …") do
    not name a failure there."""
    asked = _families(evidence.symptoms_asked)
    named = _families(evidence.symptoms_named - REMEDY_SYMPTOMS)
    return bool(asked and named) and not asked & named


def _families(symptoms: frozenset[str]) -> set[int]:
    return {index for index, family in enumerate(SYMPTOM_FAMILIES) if family & symptoms}


def rarest(evidence: Evidence, stats: RepositoryStats, repo: str) -> list[Concept]:
    """The key concepts fewest of the repository's entries mention, leaving out symptom classes.

    Why: "EXC_BAD_ACCESS" or "SIGSEGV" is rare in notes yet names the kind of failure, not where it
    happens; an unrelated crash fix names it as well ("… causing EXC_BAD_ACCESS during cold launch"), so it
    cannot be the specific term that confirms a match."""
    specific = [c for c in evidence.concepts if not _symptom_class(c)] or evidence.concepts
    return sorted(specific, key=lambda c: min(stats.df(repo, t.key) for t in c.terms))[:VERIFY_RAREST]


def _symptom_class(concept: Concept) -> bool:
    """A concept made of a symptom (crash, hang, memory, or a word folding onto one: vocabulary.SYNONYMS)
    and at most everyday words ("app crashes"): it says what went wrong, not where."""
    words = {word for term in concept.terms for word in term.key.split()}
    symptoms = {word for word in words if word in SYMPTOM_CLASSES or SYNONYMS.get(word) in SYMPTOM_CLASSES}
    pieces = {piece for word in symptoms for piece in word.split("_")}  # EXC_BAD_ACCESS → exc, bad, access
    return bool(symptoms) and all(word in symptoms | pieces or word in WEAK_WORDS for word in words)


def verified(evidence: Evidence, stats: RepositoryStats, repo: str) -> bool:
    """A strong headline that names one of the rarest key concepts, or a reference to the linked issue."""
    if evidence.linked_issue is not None or _quoted_unique_fix(evidence):
        return True
    named = evidence.named()
    return _strong_headline(evidence) and any(concept in named for concept in rarest(evidence, stats, repo))
