"""BM25 over release-note entries, with document statistics of the whole repository.

Why whole-repository statistics: a batch holds at most five releases, far too few
documents to tell a rare, telling word ("AVAssetDownloadTask") from one that is in
every other entry of that SDK ("crash" in a crash reporter). The cache's FTS5
index counts document frequencies across all of the repository's entries.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from wif_action import lexicon
from wif_action.lexicon.terms import Term, analyse, term_counts
from wif_action.models import Entry
from wif_action.ports import TermStatistics

# BM25's k1 and b, the idf unit and how much an entry of each section counts for a bug report: lexicon.toml
# [weight] and [section_weight], read where used.

def section_weight(section: str, feature_request: bool) -> float:
    if feature_request and section in lexicon.words("feature_sections"):
        return lexicon.weight("missing_functionality_section")
    weights = lexicon.section_weights()
    return weights.get(section, weights["other"])


class BatchStatistics:
    """Statistics over the given texts only: the fallback when the cache cannot count terms."""

    def __init__(self, texts: list[str]):
        self.docs = [term_counts(text) for text in texts]

    def stored_term_counts(self, entry_ids: list[int], fingerprint: str,
                           keys: Collection[str] | None = None) -> dict[int, dict[str, int]]:
        return {}

    def term_statistics(self, repo: str, terms: list[str]) -> tuple[int, float, dict[str, int]]:
        lengths = [sum(doc.values()) for doc in self.docs] or [1]
        keys = {term: _key_of(term) for term in terms}
        return (len(self.docs), sum(lengths) / len(lengths),
                {term: sum(1 for doc in self.docs if doc.get(key)) for term, key in keys.items()})


def _key_of(surface: str) -> str:
    """The term key a surface word or phrase analyses to (a phrase's bigram, not its first word)."""
    terms = analyse(surface) or [Term(surface, surface)]
    return next((t.key for t in terms if t.surface.lower() == surface.lower()), terms[0].key)


@dataclass
class RepositoryStats:
    """Document count, mean length and per-term document frequencies, cached per repository."""

    source: TermStatistics
    _docs: dict[str, tuple[int, float]] = field(default_factory=dict)
    _df: dict[tuple[str, str], int] = field(default_factory=dict)

    def load(self, repo: str, terms: list[Term]) -> None:
        """Fetch what is not cached yet in one call (a query per new term). A word that other words fold onto
        (lexicon `[equivalent]`: "configuration", "config") is counted under each spelling, and the most
        frequent one is its document frequency: notes name it either way."""
        surface_to_key = {t.surface: t.key for t in terms}
        alike = lexicon.spelled_alike()
        for t in terms:
            for spelling in alike.get(t.key, ()) if t.kind in ("word", "part") else ():
                surface_to_key.setdefault(spelling, t.key)
        missing = sorted({surface for surface, key in surface_to_key.items() if (repo, key) not in self._df})
        if repo in self._docs and not missing:
            return
        docs, avg_len, frequencies = self.source.term_statistics(repo, missing)
        self._docs[repo] = (docs, avg_len)
        for surface, count in frequencies.items():
            key = surface_to_key.get(surface, surface)
            self._df[(repo, key)] = max(count, self._df.get((repo, key), 0))

    def entry_counts(self, entries: list[Entry], keys: Collection[str] | None = None) -> list[Mapping[str, int]]:
        """Each entry's term counts: as stored at index time under the current lexicon (one query), else counted.
        With `keys` (the query's), an entry stored without any of them has {} (it shares nothing to score)."""
        stored = self.source.stored_term_counts([entry.id for entry in entries], lexicon.fingerprint(), keys)
        return [counts if (counts := stored.get(entry.id)) is not None else term_counts(entry.text)
                for entry in entries]

    def documents(self, repo: str) -> tuple[int, float]:
        return self._docs.get(repo, (0, 1.0))

    def df(self, repo: str, key: str) -> int:
        return self._df.get((repo, key), 0)

    def scale(self, repo: str) -> float:
        """Score thresholds scale with the largest possible idf, so they hold for small and large repositories."""
        docs, _ = self.documents(repo)
        return max(math.log(1 + docs), 1.0) / lexicon.weight("reference_unit")

    def idf(self, repo: str, key: str) -> float:
        """BM25 (Robertson–Spärck Jones) idf; never negative."""
        docs, _ = self.documents(repo)
        df = min(self.df(repo, key), docs)
        return math.log(1 + (docs - df + 0.5) / (df + 0.5))


@dataclass
class Match:
    """A BM25 score with the query terms it matched (best contribution first)."""

    score: float
    matched: list[tuple[Term, float]]

    def names(self, limit: int = 4) -> list[str]:
        return [term.surface for term, _ in self.matched[:limit]]


def bm25(counts: Mapping[str, int], query: dict[str, Term], stats: RepositoryStats, repo: str) -> Match:
    """Score one document (term counts) against weighted query terms."""
    shared = [(key, term, tf) for key, term in query.items() if (tf := counts.get(key, 0))]
    if not shared:  # most entries of a scan share no term with the problem
        return Match(0, [])
    _, avg_len = stats.documents(repo)
    length = sum(counts.values()) or 1
    k1, b = lexicon.weight("k1"), lexicon.weight("b")
    norm = k1 * (1 - b + b * length / max(avg_len, 1.0))
    contributions = [(term, term.weight * stats.idf(repo, key) * tf * (k1 + 1) / (tf + norm))
                     for key, term, tf in shared]
    contributions.sort(key=lambda item: -item[1])
    return Match(sum(value for _, value in contributions), contributions)
