"""A bundled SDK's fix is no ✓ for a problem that names code only the customer's own SDK's notes name.

Why: a hybrid SDK (sentry-dotnet) bundles others (sentry-java for Android); both have an OpenTelemetry span
processor. A request quoting `InvalidCastException`, which the .NET notes name and the Java notes never do, is
about the .NET code; a Java fix that shares "OpenTelemetry", "span" and "exception" with it is the same area at
most. Also: "throws" is a kind of failure (lexicon symptom `throw`), so a headline naming only another one (a
leak) fixes another bug."""

from __future__ import annotations

import pytest

from indexer.registry import load_registry
from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry
from wif_action.engines.offline import OfflineJudge, scoring
from wif_action.engines.offline.evidence import gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, PullRequest, Request
from wif_action.question import question_of
from wif_action.tools.cache import SqliteReleaseCache

HOST, BUNDLED = "o/host", "o/bundled"
NOTES = {
    HOST: ["Fix InvalidCastException in SentrySpanProcessor with OpenTelemetry (#1)", "Add session replay (#2)"],
    BUNDLED: ["Handle no-op scopes when starting a span through OpenTelemetry (#11)", "Add ANR detection (#12)"],
}
PROBLEM = "The OpenTelemetry span processor throws InvalidCastException when spans end."


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> SqliteReleaseCache:
    db = open_cache(tmp_path_factory.mktemp("host") / "cache.db", create=True)
    for offset, (repo, notes) in enumerate(NOTES.items()):
        body = "### Fixes\n\n" + "".join(f"- {note}\n" for note in notes)
        release = ReleaseRecord(id=offset + 1, tag="1.0.0", name="1.0.0", body=body, draft=False, prerelease=False,
                                published_at="2026-01-01T00:00:00Z",
                                url=f"https://github.com/{repo}/releases/tag/1.0.0")
        update = RepositoryUpdate(slug=repo, releases=[release], etag=None, pulls=[])
        write_with_retry(db, lambda update=update: apply_update(db, update), on_busy=print)
    return SqliteReleaseCache(db)


def _question(repo: str | None):
    return question_of(Request(repo=repo, version="1.0.0", problem=PROBLEM, raw_text=PROBLEM), load_registry(), repo)


def test_code_only_the_host_sdk_names_is_found_for_a_bundled_repository(cache):
    judge = OfflineJudge(cache, load_registry())
    assert judge._host_names(_question(HOST), BUNDLED) == ("InvalidCastException",)


def test_nothing_when_the_candidate_is_the_customers_own_or_the_customer_unknown(cache):
    judge = OfflineJudge(cache, load_registry())
    assert judge._host_names(_question(HOST), HOST) == ()
    assert judge._host_names(_question(None), BUNDLED) == ()
    assert OfflineJudge(None, load_registry())._host_names(_question(HOST), BUNDLED) == ()


def test_a_bundled_fix_for_the_host_sdks_code_is_at_most_medium(cache):
    judge = OfflineJudge(cache, load_registry())
    pr = PullRequest(repo=BUNDLED, number=11, title="fix: handle no-op scopes when starting a span through "
                     "OpenTelemetry (throws InvalidOperationException)", body="", url="https://example.invalid/11")
    _, evidence = judge._evidence(pr, None, _question(HOST))
    assert evidence.host_names and not scoring._strong_headline(evidence)
    assert judge.score_pr_confidence(pr, None, _question(HOST)).confidence is not Confidence.HIGH
    evidence.host_names = ()
    assert scoring._strong_headline(evidence)  # the same headline, judged as the customer's own: HIGH


def test_throws_is_a_failure_and_a_leak_fix_names_another():
    problem = "The span processor throws when spans end, in the OpenTelemetry integration."
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(["span processor", "OpenTelemetry", "leak"] + ["release health"] * 200))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title="Fix the span processor leaking spans that never end in OpenTelemetry",
                     body="", url="https://example.invalid/4")
    evidence = gather(pr, None, query, stats, False, [], frozenset(query), "r")
    assert "throw" in evidence.symptoms_asked and scoring._another_failure(evidence)
    assert scoring.confidence(evidence) is not Confidence.HIGH
