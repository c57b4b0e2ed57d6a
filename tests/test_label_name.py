"""A component label's code name files a line under a part of the library ("OpenTelemetry: Replace …"): the
headline reads the name whole, not by one of its words, so "open" of OpenTelemetry does not meet "the open files
limit" (lexicon `[weight] label_name_whole`, engines/offline/evidence.py `_label_parts`). ("too many open files" reads
as a leak too, `pattern.open_files`, whose fix must name it: the problem here says "limit", so only the label rule
keeps the line from a ✓.)"""

from __future__ import annotations

from tests.lexicon_helpers import use_weights
from wif_action.engines.offline import scoring
from wif_action.engines.offline.evidence import Evidence, gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, Entry, PullRequest, Release

PROBLEM = ("`lsof -p <nginx worker>` shows thousands of open UDP sockets to CoreDNS and after a day the workers hit "
           "the open files limit")
LINE = "OpenTelemetry: Replace the worker-level table cache with `BatchQueue` to avoid data race."
NOTES = ["OpenTelemetry: fix span names", "worker events", "open the admin listener", "UDP sockets", "DNS client",
         "data race in the balancer"] + ["plugin iterator"] * 200


def _evidence(problem: str, line: str, title: str = "fix(otel): use `BatchQueue` to avoid a data race") -> Evidence:
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(NOTES))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=title, body="", url="https://example.invalid/4")
    release = Release(id=1, repo="r", tag="3.1.0", version="3.1.0", version_key="3.1.0")
    entry = Entry(id=1, release=release, section="fix", text=line, prs=[4])
    return gather(pr, entry, query, stats, False, [], frozenset(query), "r")


def test_a_word_of_a_labels_name_is_not_the_problems_word(lexicon_restored):
    evidence = _evidence(PROBLEM, LINE)
    assert "open" not in evidence.headline and "worker" in evidence.headline
    assert scoring.confidence(evidence) is not Confidence.HIGH
    use_weights(label_name_whole=0)
    evidence = _evidence(PROBLEM, LINE)
    assert "open" in evidence.headline and scoring.confidence(evidence) is Confidence.HIGH


def test_the_labels_name_whole_and_a_names_words_in_the_line_still_count():
    """The customer naming the label ("OpenTelemetry spans") meets it; a code name in the line's own words
    (`BatchQueue`) still names its words ("batch queue"), and an unlabelled line's name keeps its words."""
    assert "opentelemetri" in _evidence("OpenTelemetry spans race in the batch queue", LINE).headline
    assert {"batch", "queue"} <= set(_evidence("the batch queue races", LINE).headline)
    assert "open" in _evidence(PROBLEM, "Replace the OpenTelemetry worker-level table cache").headline
