"""Choosing the few entries of a batch worth a PR lookup.

A batch is up to five releases; each candidate costs a PR fetch and a score, and
the spec wants lazy loading, so only the batch's best entries within a share of its
best score are returned, at most `max_per_batch` (lexicon.toml [weight]). An absolute score floor does not
transfer between repositories with different note styles; leave-one-repository-out
cross-validation (bench/crossval_offline.py) chose no floor in both input modes.
"""

from __future__ import annotations

import re

from wif_action import lexicon
from wif_action.engines.offline.ranking import Match, RepositoryStats, bm25, section_weight
from wif_action.engines.offline.reasons import term_list
from wif_action.lexicon.terms import Term
from wif_action.models import Entry, RelevantEntry

# min_relevance, relative_to_best, max_per_batch: lexicon.toml [weight], chosen by bench/crossval_offline.py
# (leave-one-repository-out over the labelled cases).


def score_entries(entries: list[Entry], query: dict[str, Term], stats: RepositoryStats,
                  feature_request: bool) -> list[tuple[float, Match, Entry]]:
    """BM25 × section weight of each entry, in the given order."""
    scored: list[tuple[float, Match, Entry]] = []
    for entry, counts in zip(entries, stats.entry_counts(entries, sorted(query)), strict=True):
        match = bm25(counts, query, stats, entry.release.repo)
        scored.append((match.score * section_weight(entry.section, feature_request), match, entry))
    return scored


def shortlist(entries: list[Entry], query: dict[str, Term], stats: RepositoryStats, feature_request: bool,
              size: int) -> list[Entry]:
    """The `size` best-scoring entries of a batch, in their original order.

    Why: an LLM reading every line of a batch pays for hundreds of unrelated entries; the
    offline score ranks the right one near the top, and section weights already push
    dependency, internal and docs entries down unless the problem names what they touch.
    When few entries share a word with the problem, the rest of the `size` are the batch's
    first entries, so the LLM still sees what only a paraphrase would connect.
    """
    scored = score_entries(entries, query, stats, feature_request)
    best = sorted(range(len(entries)), key=lambda i: (-scored[i][0], i))[:size]
    return [entries[i] for i in sorted(best)]


def rank_entries(entries: list[Entry], query: dict[str, Term], stats: RepositoryStats,
                 feature_request: bool) -> list[RelevantEntry]:
    """Relevant entries, best first; repeats of the same note or PR keep the oldest release.

    Those within `relative_to_best` of the batch's best are picked; the rest of `max_per_batch`, best first, goes to
    second looks (`RelevantEntry.second_look`) at lines of a section fixes are listed in: a right line worded unlike
    the question ("Emscripten" for "Pyodide") scores far below a batch's best, yet among its best few, and a second
    look lists it beside the better candidates without letting it lead (scan_release_notes._second_look). No share
    of the best to choose: which lines get a look is `max_per_batch`'s (LOO-CV), what they may become is fixed.
    Each of the three thresholds is the question's input mode's (`lexicon.input_mode`: a problem condensed out of a
    free-text message has its own, lexicon.toml [message_weight]; a form's fields [fields_weight])."""
    scored = score_entries(entries, query, stats, feature_request)
    best = max((score for score, _, _ in scored), default=0.0)
    repo = entries[0].release.repo if entries else ""
    floor = lexicon.weight("min_relevance") * stats.scale(repo)
    bar = max(floor, lexicon.weight("relative_to_best") * best)
    most = int(lexicon.weight("max_per_batch"))
    chosen: list[RelevantEntry] = []
    seen: set[str] = set()
    for score, match, entry in sorted(scored, key=lambda item: -item[0]):
        if score <= 0 or score < floor or len(chosen) >= most:
            break
        keys = {_normalised(entry.text)} | {f"#{pr}" for pr in entry.prs}
        if keys & seen or (score < bar and not _second_look_at(entry, feature_request)):
            continue
        seen |= keys
        chosen.append(RelevantEntry(entry=entry, pr=entry.prs[0] if entry.prs else None, relevance=round(score, 3),
                                    reason=_reason(entry, match), second_look=score < bar))
    return chosen


def _second_look_at(entry: Entry, feature_request: bool) -> bool:
    """Whether the entry's section is one a fix is listed in (a weight of at least `min_section_for_high`): only such
    a line gets a second look; a dependency, internal or docs line far below the best is what its section says."""
    return section_weight(entry.section, feature_request) >= lexicon.weight("min_section_for_high")


def _normalised(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()[:200]


def _reason(entry: Entry, match: Match) -> str:
    return f"{entry.section.capitalize()} entry shares {term_list(match.names(8))} with the problem."
