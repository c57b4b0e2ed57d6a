"""The offline judge over a small real release cache: BM25 ranking, section weights, scores, verification."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest

from indexer.registry import load_registry
from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry
from wif_action import lexicon
from wif_action.engines.offline import OfflineJudge, scoring
from wif_action.engines.offline import evidence as evidence_module
from wif_action.engines.offline.change_kind import ships_to_users
from wif_action.engines.offline.evidence import Concept, Evidence, gather, key_concepts
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.stemmer import stem
from wif_action.lexicon.terms import Term, alternatives, analyse
from wif_action.models import Confidence, Entry, PullRequest, Release, Usage
from wif_action.question import Question, analyse_question
from wif_action.tools.cache import SqliteReleaseCache

REPO = "acme/widget-sdk"
FILLER = [
    "Fix crash when closing the SDK", "Fix crash in breadcrumb serialization", "Fix crash on app start",
    "Fix missing tags on error events", "Fix crash when the network is offline", "Improve app start tracing",
    "Fix wrong environment on sessions", "Fix crash in the profiler", "Fix app hang detection on slow devices",
    "Fix duplicate spans for HTTP requests", "Fix crash when attaching screenshots", "Fix user context on events",
    "Fix envelope storage when the disk is low", "Fix device model on tablets",
]
BODIES = {
    "1.0.0": "### Fixes\n\n" + "".join(f"- {text} (#{100 + i})\n" for i, text in enumerate(FILLER[:6])),
    "1.1.0": "### Fixes\n\n- Fix crash with AVAssetDownloadTask in urlSessionTask:setState: (#110)\n"
             "- Fix memory leak in session tracking (#111)\n\n"
             "### Dependencies\n\n- Bump Cocoa SDK from v8.1.0 to v8.2.0 (#112)\n",
    "1.2.0": "### Features\n\n- Add `ignoreTransactions` option to drop transactions by name (#120)\n\n"
             "### Fixes\n\n- Fix transactions being dropped when their name is empty (#121)\n",
    "1.3.0": "### Fixes\n\n- Fix crash on app start after an update (#130)\n"
             "- Fix crash reporting of unhandled exceptions on watchOS\n\n"
             "### Internal\n\n- Refactor crash reporter tests (#133)\n",
    "1.4.0": "### Fixes\n\n" + "".join(f"- {text} (#{140 + i})\n" for i, text in enumerate(FILLER[6:])),
}
PULLS = {
    110: ("fix: Crash with AVAssetDownloadTask in setState",
          "Apple throws NSGenericException when originalRequest is read on AVAssetDownloadTask.\n\nFixes #7886"),
    111: ("fix: Memory leak in session tracking since 1.0.0 (revert of #99)", "Sessions leaked since v1.0.0."),
    120: ("feat: Add ignoreTransactions option", "Drop transactions by name with strings or regular expressions."),
    121: ("fix: Keep transactions with an empty name", "Transactions without a name were dropped."),
    130: ("fix: Crash on app start", "A crash on app start after updating the app."),
}
AVASSET_PROBLEM = ("The app crashes with an NSGenericException when an AVAssetDownloadTask (offline HLS download) "
                   "changes state in urlSessionTask:setState:.")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> SqliteReleaseCache:
    path = tmp_path_factory.mktemp("offline") / "cache.db"
    db = open_cache(path, create=True)
    releases = [ReleaseRecord(id=i + 1, tag=tag, name=tag, body=body, draft=False, prerelease=False,
                              published_at=f"2026-0{i + 1}-01T00:00:00Z",
                              url=f"https://github.com/{REPO}/releases/tag/{tag}")
                for i, (tag, body) in enumerate(BODIES.items())]
    pulls = [{"number": n, "title": title, "body": body, "state": "closed", "merged": 1,
              "url": f"https://github.com/{REPO}/pull/{n}"} for n, (title, body) in PULLS.items()]
    update = RepositoryUpdate(slug=REPO, releases=releases, etag=None, pulls=pulls)
    write_with_retry(db, lambda: apply_update(db, update), on_busy=print)
    return SqliteReleaseCache(db)


@pytest.fixture
def judge(cache: SqliteReleaseCache) -> OfflineJudge:
    return OfflineJudge(cache, load_registry())


def asked(problem: str, request_text: str) -> Question:
    """The question as the workflow analyses it (SDK names of the packaged registry damped)."""
    return analyse_question(problem, request_text, load_registry())


def entries_after(cache: SqliteReleaseCache, version: str) -> list[Entry]:
    user = cache.find_release(REPO, version)
    return cache.entries([r.id for r in cache.stable_after(REPO, user.version_key, 10)])


def entry_with(cache: SqliteReleaseCache, pr: int) -> Entry:
    return next(e for e in entries_after(cache, "1.0.0") if pr in e.prs)


def pull(cache: SqliteReleaseCache, number: int) -> PullRequest:
    return cache.cached_pull(REPO, number)


def test_stemmer_folds_inflections() -> None:
    assert stem("crash") == stem("crashes") == stem("crashed") == stem("crashing") == "crash"
    assert stem("hanging") == stem("hangs") == stem("hang") == "hang"
    assert stem("caresses") == "caress" and stem("ponies") == "poni" and stem("relational") == "relat"


def test_identifiers_are_kept_whole_and_split() -> None:
    keys = [t.key for t in analyse("Stuck in SentryContextStorage.root() and before_send")]
    assert {"sentrycontextstorage.root", stem("sentrycontextstorage"), "context", "root", "before_send"} <= set(keys)
    assert "hang" in keys  # "stuck" also counts as the symptom "hang"


def test_a_camel_case_name_and_its_lower_case_spelling_are_one_term() -> None:
    """"OpenCensus bridge" (the customer) and "Fix opencensus shim …" (the note) name one thing: a CamelCase code
    name is keyed as its letters written as one lower-case word are, stem and all ("opencensus" stems to
    "opencensu"), so each side's spelling meets the other's; its parts and their bigram stay."""
    camel = {t.key: t.kind for t in analyse("Spans started through the OpenCensus bridge")}
    lower = {t.key: t.kind for t in analyse("Fix opencensus shim spanBuilderWithRemoteParent behavior")}
    shared = {key for key in camel.keys() & lower.keys() if camel[key] == "identifier"}
    assert shared == {"opencensu"} and lower["opencensu"] == "word"
    assert {"open", "censu", "open censu"} <= camel.keys()
    assert {t.key for t in analyse("WebView")} >= {t.key for t in analyse("webview")} == {"webview"}
    assert next(t.key for t in analyse("before_send")) == "before_send"  # a snake_case name is kept as written


def test_dunder_names_are_code_identifiers() -> None:
    """"__init__" and "__cause__" are what people grep for, like "before_send"; a plain "init" is a word."""
    terms = {t.key: t.kind for t in analyse("the model's own __init__ loses __cause__ on init")}
    assert (terms["__init__"], terms["__cause__"], terms["init"]) == ("identifier", "identifier", "word")


def test_a_leading_underscore_name_is_also_the_word_it_is_of() -> None:
    """A note's "`__stdcall` calling convention" meets a question's "defaults to stdcall": the C keyword (or a
    "_private" name) is a code name, and the word after its underscores is a term of it, as a dunder's is."""
    note = {t.key: t.kind for t in analyse("cJSON now works with the `__stdcall` calling convention on Windows")}
    assert note["__stdcall"] == "identifier" and "stdcall" in note
    question = {t.key for t in analyse("our codebase defaults to stdcall")}
    assert "stdcall" in question & note.keys()
    assert {"_private", "privat"} <= {t.key for t in analyse("the `_private` helper")}


def test_bm25_ranks_the_matching_entry_first(cache, judge) -> None:
    found = judge.filter_relevant_entries(entries_after(cache, "1.0.0"), asked(AVASSET_PROBLEM, AVASSET_PROBLEM))
    assert found and found[0].pr == 110
    assert "AVAssetDownloadTask" in found[0].reason or "setState" in found[0].reason
    assert len(found) <= lexicon.weight("max_per_batch") and all(a.relevance >= b.relevance
                                                         for a, b in itertools.pairwise(found))


def test_fix_beats_feature_for_a_bug_but_not_for_missing_functionality(cache, judge) -> None:
    fix = entry_with(cache, 121)
    feature = replace(fix, id=9999, section="feature", prs=[120], text=fix.text + " too")
    bug = "Transactions whose name is empty are dropped."
    ranked = judge.filter_relevant_entries([feature, fix], asked(bug, bug))
    assert ranked[0].pr == 121  # the same words in a feature entry count half
    assert all(r.relevance <= 0.5 * ranked[0].relevance + 1e-9 for r in ranked[1:])
    wish = "There is no way to keep transactions whose name is empty; is there an option for that?"
    ranked = judge.filter_relevant_entries([feature, fix], asked(wish, wish))
    assert {r.pr for r in ranked} == {120, 121}
    assert ranked[1].relevance == pytest.approx(ranked[0].relevance, rel=0.1)


def test_dependency_and_internal_entries_are_not_relevant(cache, judge) -> None:
    problem = "Crash reporter tests; bump Cocoa SDK"
    found = judge.filter_relevant_entries(entries_after(cache, "1.0.0"), asked(problem, problem))
    assert {112, 133}.isdisjoint({r.pr for r in found})


def test_a_batch_with_nothing_in_common_with_the_problem_returns_nothing(cache, judge) -> None:
    problem = "Quaternion zygote xylophone"
    assert judge.filter_relevant_entries(entries_after(cache, "1.0.0"), asked(problem, problem)) == []


def test_the_best_entry_of_a_batch_is_returned_however_low_its_absolute_score(cache, judge) -> None:
    """Rank decides, not an absolute floor: one weak shared word still puts the entry forward."""
    problem = "Quaternion devices"
    found = judge.filter_relevant_entries(entries_after(cache, "1.0.0"), asked(problem, problem))
    assert [item.pr for item in found][:1] == [147]


def test_entries_without_a_pr_are_returned_with_none(cache, judge) -> None:
    problem = "Unhandled exceptions on watchOS are not reported."
    found = judge.filter_relevant_entries(entries_after(cache, "1.2.0"), asked(problem, problem))
    assert found[0].pr is None and "watchOS" in found[0].entry.text


def test_a_specific_match_is_high_and_verified_with_a_one_sentence_reason(cache, judge) -> None:
    pr, entry = pull(cache, 110), entry_with(cache, 110)
    score = judge.score_pr_confidence(pr, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM))
    assert score.confidence == Confidence.HIGH
    assert score.reason.startswith(f'PR title "{pr.title}"') and score.reason.endswith(".")
    assert "\n" not in score.reason and "AVAssetDownloadTask" in score.reason
    assert judge.verify_pr_match(pr, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).confirmed


def test_the_score_measures_how_much_of_the_problem_the_headline_names(cache, judge) -> None:
    """`Score.strength` (what `candidate_order.clear_leader` compares): more of the problem named, more strength."""
    pr, entry = pull(cache, 110), entry_with(cache, 110)
    full = judge.score_pr_confidence(pr, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).strength
    vague = replace(pr, title="Crash in setState")
    part = judge.score_pr_confidence(vague, replace(entry, text="Crash in setState"),
                                     asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).strength
    assert full is not None and part is not None and full > part > 0


def test_the_score_measures_how_many_of_the_problems_ideas_the_headline_names(cache, judge) -> None:
    """`Score.breadth` (what `candidate_order.lead_measure` weighs strength by): more of the problem's words about
    the one idea raise the strength, not the breadth; a second idea of the problem raises both."""
    pr, entry = pull(cache, 110), entry_with(cache, 110)

    def score(title: str) -> tuple[float, float]:
        found = judge.score_pr_confidence(replace(pr, title=title, body=""), replace(entry, text=title),
                                          asked(AVASSET_PROBLEM, AVASSET_PROBLEM))
        assert found.strength is not None and found.breadth is not None
        return found.strength, found.breadth

    one, worded, two = (score("Fix AVAssetDownloadTask"), score("Fix AVAssetDownloadTask state change"),
                        score("Fix NSGenericException in AVAssetDownloadTask"))
    assert worded[0] > one[0] and worded[1] == one[1] > 0
    assert two[0] > one[0] and 1.0 >= two[1] > one[1]


def test_verify_rejects_a_match_on_generic_words_only(cache, judge) -> None:
    problem = "Crash on app start when the device is low on storage, in the StorageGuard module."
    verdict = judge.verify_pr_match(pull(cache, 130), entry_with(cache, 130), asked(problem, problem))
    assert not verdict.confirmed and pull(cache, 130).title in verdict.reason


@pytest.mark.parametrize("prefix", ["refactor(samples): ", "ci: ", "docs: ", "test(e2e): ", "fix(internal): "])
def test_a_change_that_never_ships_to_users_is_never_high(cache, judge, prefix) -> None:
    """The same strong match is HIGH as a fix and LOW (not a candidate) as CI/docs/tests/samples/internal work."""
    fix = pull(cache, 110)
    tooling = replace(fix, title=prefix + "Crash with AVAssetDownloadTask in setState")
    entry = entry_with(cache, 110)
    assert judge.score_pr_confidence(fix, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).confidence == Confidence.HIGH
    score = judge.score_pr_confidence(tooling, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM))
    assert score.confidence == Confidence.LOW and "never reach the customer's app" in score.reason


@pytest.mark.parametrize(("title", "high"), [("feat(player): Crash with AVAssetDownloadTask in setState", False),
                                            ("fix(player): Crash with AVAssetDownloadTask in setState", True),
                                            ("Crash with AVAssetDownloadTask in setState", True)])
def test_under_a_mixed_heading_the_pr_title_says_whether_it_is_a_feature(cache, judge, title, high) -> None:
    """"Various fixes & improvements" files everything as `other`; a bug is fixed by a fix, and a PR titled
    "feat(…): …" is a feature (HIGH only when the problem asks for missing functionality)."""
    pr = replace(pull(cache, 110), title=title)
    entry = replace(entry_with(cache, 110), section="other")
    level = judge.score_pr_confidence(pr, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).confidence
    assert (level == Confidence.HIGH) is high


@pytest.mark.parametrize(("headline", "ships"), [
    ("refactor(samples): Compose replay", False), ("ci: cache pods", False), ("chore(tests,ci): x", False),
    ("fix(core): Send status", True), ("feat(browser): Add option", True), ("Fix crash on start", True),
    ("chore(deps): bump foo to 1.2.3", True),
    ("Update `strict` docstring in `model_validate` method", False), ("Improve the README", False),
    ("Fix crash when docs are loaded", True),
    # a change placed in the project's examples (pattern.examples_only); a sample rate is no sample
    ("Fix Retry strategy ShouldHandle in example code by @x in #2527", False),
    ("Fix the timeout in the samples.", False),
    ("Fix crash in sample rate calculation", True), ("Fix crash in examples of the error message", True),
])
def test_ships_to_users_reads_the_commit_type_and_scope(headline, ships) -> None:
    assert ships_to_users(headline) is ships


@pytest.mark.parametrize(("headline", "asked", "ships"), [
    ("fix(test): handle deduped events when collecting", frozenset({"test", "collect"}), True),
    ("fix(test): handle deduped events when collecting", frozenset({"collect"}), False),
    ("test: handle deduped events when collecting", frozenset({"test"}), False),  # the type says test-only
    ("fix(ci): retry the upload", frozenset({"ci"}), False),  # not a `used_scopes` part
    ("fix(internal): close the pool", frozenset({"intern"}), False),
])
def test_a_test_scoped_change_ships_when_the_problem_is_about_tests(headline, asked, ships) -> None:
    """The SDK's test helpers ship (`Sentry.Test`): a `fix(test):` change is the customer's when they ask about
    their tests (lexicon `used_scopes`); other no-ship scopes stay unshipped whatever the problem names."""
    assert ships_to_users(headline, asked) is ships


def test_without_used_scopes_a_test_scoped_change_never_ships() -> None:
    tables = lexicon.data()
    tables["words"]["used_scopes"] = []
    lexicon.use(tables)
    try:
        assert not ships_to_users("fix(test): handle deduped events when collecting", frozenset({"test"}))
    finally:
        lexicon.use(None)


def test_a_pr_that_refers_to_the_linked_issue_is_high(cache, judge) -> None:
    request = "Crash on download, looks like https://github.com/acme/widget-sdk/issues/7886 - fixed?"
    score = judge.score_pr_confidence(pull(cache, 110), entry_with(cache, 110), asked("Crash on download", request))
    verdict = judge.verify_pr_match(pull(cache, 110), entry_with(cache, 110), asked("Crash on download", request))
    assert score.confidence == Confidence.HIGH and verdict.confirmed
    assert "#7886" not in score.reason + verdict.reason  # an issue number would read as an unread PR claim


def test_reasons_never_name_numbers_that_look_like_versions_or_prs(cache, judge) -> None:
    """The workflow rejects reasons naming versions or PRs it never read; titles are quoted without them."""
    problem = "PR 504 status responses, a session memory leak and v1.2 rc errors in AVAssetDownloadTask setState"
    for number in PULLS:
        pr, entry = pull(cache, number), entry_with(cache, number)
        for reason in (judge.score_pr_confidence(pr, entry, asked(problem, problem)).reason,
                       judge.verify_pr_match(pr, entry, asked(problem, problem)).reason):
            assert not re.search(r"(?:#|\bPR\s*#?)\d+|\d+\.\d+", reason, re.IGNORECASE), reason


def test_huge_problem_and_pr_body_complete(cache, judge) -> None:
    problem = ("The app crashes with AVAssetDownloadTask in setState. " * 20_000)[:1_000_000]
    big = replace(pull(cache, 110), body="Detailed notes. " * 13_000)
    assert judge.filter_relevant_entries(entries_after(cache, "1.0.0"), asked(problem, problem))
    assert judge.score_pr_confidence(big, entry_with(cache, 110), asked(problem, problem)).reason
    assert judge.verify_pr_match(big, entry_with(cache, 110), asked(problem, problem)).reason


def test_without_cache_statistics_the_batch_is_used() -> None:
    judge = OfflineJudge(None, load_registry())
    release = Release(id=1, repo=REPO, tag="1.0.0", version="1.0.0", version_key="k")
    entries = [Entry(id=i, release=release, section="fix", text=text, prs=[i])
               for i, text in enumerate(["Fix crash with AVAssetDownloadTask", "Fix tags", "Fix user context"])]
    found = judge.filter_relevant_entries(entries, asked(AVASSET_PROBLEM, AVASSET_PROBLEM))
    assert found and found[0].pr == 0


def test_name_and_usage() -> None:
    judge = OfflineJudge(None, load_registry())
    assert judge.name == "offline" and judge.usage() == Usage()


def test_stemmer_matches_sqlite_fts5_porter_on_every_word_of_the_example_cache(example_cache_path) -> None:
    """Our stems must be FTS5's, or term statistics counted by FTS5 would miss our query terms."""
    import sqlite3

    with sqlite3.connect(example_cache_path) as cache_db:
        texts = [text for (text,) in cache_db.execute("SELECT text FROM entries")]
    words = sorted({word.lower() for text in texts for word in re.findall(r"[A-Za-z]+", text)})
    assert len(words) > 5000
    fts = sqlite3.connect(":memory:")
    fts.execute("CREATE VIRTUAL TABLE words USING fts5(word, tokenize='porter')")
    fts.executemany("INSERT INTO words(rowid, word) VALUES (?, ?)", list(enumerate(words, 1)))
    fts.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, 'instance')")
    porter = dict(fts.execute("SELECT doc, term FROM stems").fetchall())
    fts.close()
    differ = [(word, stem(word), porter.get(i)) for i, word in enumerate(words, 1) if stem(word) != porter.get(i)]
    assert differ == []


def test_the_llm_shortlist_keeps_the_best_entries_of_a_batch_in_their_order(cache, judge) -> None:
    entries = entries_after(cache, "1.0.0")
    short = judge.shortlist(entries, asked(AVASSET_PROBLEM, AVASSET_PROBLEM), size=3)
    assert len(short) == 3 and 110 in short[0].prs + short[1].prs + short[2].prs
    assert [entries.index(e) for e in short] == sorted(entries.index(e) for e in short)
    dependency = next(e for e in entries if e.section == "dependency")
    assert dependency not in short  # a bump the problem does not name is not worth the LLM's reading
    assert judge.shortlist(entries, asked(AVASSET_PROBLEM, AVASSET_PROBLEM), size=100) == entries


def _concept(text: str) -> Concept:
    terms = [term for term in analyse(text) if term.kind != "synonym"]
    return Concept(terms, 1.0, {term.key for term in terms})


@pytest.mark.parametrize(("text", "symptom"), [
    ("EXC_BAD_ACCESS", True), ("app crashes", True), ("frozen", True), ("app hangs", True),
    ("SentryBreadcrumb", False), ("addBreadcrumb", False), ("scroll view", False), ("crash reporter", False),
    ("leaks in the uploader", False),
    # an exception class names the kind of failure ("… NSInvalidArgumentException crash in the replay converter")
    ("NSInvalidArgumentException", True), ("NullPointerException", True), ("TypeError", True),
    ("ValidationErrors", True), ("HTTPExceptions", True),  # a class of several failures is named in the plural too
    ("SentryCrashDoctor", False), ("ErrorHandler", False), ("exception handler", False),
])
def test_a_symptom_class_says_what_failed_not_where(text, symptom):
    assert scoring._symptom_class(_concept(text)) is symptom


def test_the_verify_step_needs_a_specific_concept_not_a_crash_signal():
    """An unrelated crash fix names EXC_BAD_ACCESS too: the rare concepts that confirm a match are the
    specific ones (where it crashes), so EXC_BAD_ACCESS and "app crashes" are not among them."""
    concepts = [_concept("SentryBreadcrumb"), _concept("EXC_BAD_ACCESS"), _concept("app crashes"),
                _concept("threads")]
    stats = RepositoryStats(BatchStatistics(["SentryBreadcrumb"] * 40 + ["EXC_BAD_ACCESS"] + ["threads"] * 9))
    stats.load("r", [t for c in concepts for t in c.terms])
    rarest = scoring.rarest(Evidence(1.0, concepts=concepts, credits=[0, 1, 1, 0]), stats, "r")
    assert [c.name for c in rarest] == ["threads", "SentryBreadcrumb"]


@pytest.mark.parametrize(("headline", "credit"), [
    ("Raise RecursionError on deep structures", 1.0),  # the identifier itself
    ("Stop the recursion error on deep structures", 1.0),  # a phrase of its words
    ("Raise a clearer error on deep structures", 0.5),  # one everyday word of several: named in part
    ("Avoid recursive calls on deep structures", 0.5),
])
def test_an_identifier_concept_is_named_in_full_only_by_itself_or_its_phrase(headline, credit):
    """A fix saying "error" does not name the customer's RecursionError (which made an unrelated pydantic fix
    HIGH); "recursion error" or RecursionError does."""
    query = {term.key: term for term in analyse("Deep structures raise RecursionError")}
    stats = RepositoryStats(BatchStatistics(["RecursionError", "recursion error", "error", "recursive", "deep"]))
    stats.load("r", list(query.values()))
    evidence = gather(PullRequest(repo="r", number=1, title=headline, url="u"), None, query, stats, False, [])
    home = next(i for i, c in enumerate(evidence.concepts) if c.name == "RecursionError")
    assert evidence.credits[home] == credit


@pytest.mark.parametrize(("headline", "credit"), [
    ("Prevent crash loop from malformed reports", 1.0),  # the phrase
    ("Prevent crash-loop from malformed reports", 1.0),
    ("Prevent a Session Replay crash while redacting", 0.5),  # its symptom word alone: what failed, not where
    ("Break the retain loop of the frame reporter", 1.0),  # its other word is no symptom: as before
])
def test_the_symptom_word_of_a_phrase_names_it_only_in_part(headline, credit):
    """Every crash fix says "crash": alone it does not name the customer's "crash loop" (which made two unrelated
    crash fixes a ✓ for a crash-loop question)."""
    query = {term.key: term for term in analyse("The app is stuck in a crash loop")}
    stats = RepositoryStats(BatchStatistics(["crash loop", "crash", "crash", "loop", "app", "stuck"]))
    stats.load("r", list(query.values()))
    evidence = gather(PullRequest(repo="r", number=1, title=headline, url="u"), None, query, stats, False, [])
    home = next(i for i, c in enumerate(evidence.concepts) if c.name == "crash loop")
    assert evidence.credits[home] == credit


def test_an_sdk_prefixed_identifier_is_named_by_its_one_distinctive_word():
    """SentryBreadcrumb's only word that is not the SDK's name is "breadcrumb": notes write "breadcrumbs"."""
    query = {term.key: term for term in analyse("EXC_BAD_ACCESS inside SentryBreadcrumb")}
    stats = RepositoryStats(BatchStatistics(["SentryBreadcrumb", "breadcrumbs", "EXC_BAD_ACCESS"]))
    stats.load("r", list(query.values()))
    pull = PullRequest(repo="r", number=1, title="Fix crash when modifying breadcrumbs", url="u")
    evidence = gather(pull, None, query, stats, False, [])
    home = next(i for i, c in enumerate(evidence.concepts) if c.name == "SentryBreadcrumb")
    assert evidence.credits[home] == 1.0


def test_key_concepts_come_from_the_problem_when_it_has_enough_of_them():
    """Context words of a pasted message ("Discover query") must not dilute the symptom's concepts."""
    query = {term.key: term for term in analyse("WatchdogTermination issues show empty tags for the OS. "
                                                "Discover query shows it too.")}
    stats = RepositoryStats(BatchStatistics(["WatchdogTermination tags OS", "discover query", "empty tags"]))
    stats.load("r", list(query.values()))
    problem = frozenset(term.key for term in analyse("WatchdogTermination issues show empty tags for the OS."))
    names = {c.name for c in key_concepts(query, stats, "r", problem)}
    assert "Discover" not in names and "query" not in names and "WatchdogTermination" in names
    assert {"Discover", "query"} & {c.name for c in key_concepts(query, stats, "r")}


def test_a_dotted_identifier_and_the_identifier_it_starts_with_are_one_concept():
    """"SentrySDK.start" names "SentrySDK": a note that mentions `SentrySDK.start` shares one idea with a
    problem "blocked inside SentrySDK.start", not two (which alone made an unrelated logger fix HIGH)."""
    problem = "The main thread is blocked inside SentrySDK.start waiting on the dynamic loader lock."
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(["SentrySDK.start logger", "dynamic loader", "lock"]
                                            + ["SentrySDK init"] * 3))
    stats.load("r", list(query.values()))
    concepts = key_concepts(query, stats, "r")
    home = next(c for c in concepts if "sentrysdk.start" in {t.key for t in c.terms})
    assert "sentrysdk" in {t.key for t in home.terms}
    assert not any(c is not home and "sentrysdk" in {t.key for t in c.terms} for c in concepts)


def test_one_phrase_of_the_headline_names_one_concept():
    """"user IP" names the concept "IP"; the "user" inside it is not a second named concept, so a headline
    about a user's IP set by hand is not two concepts of "the load balancer's IP instead of the user's IP"."""
    query = {term.key: term for term in analyse("Events show the balancer IP instead of the user IP.")}
    stats = RepositoryStats(BatchStatistics(["IP address", "user IP", "balancer"] + ["user"] * 10
                                            + ["release health"] * 20))
    stats.load("r", list(query.values()))
    concepts = key_concepts(query, stats, "r")
    assert sorted(c.name.lower() for c in concepts) == ["balancer", "ip", "user"]  # "user": a concept of its own
    pr = PullRequest(repo="r", number=1, title="Do not overwrite user IP if set manually", body="",
                     url="https://example.invalid/1")
    evidence = gather_for(pr, query, stats)
    names = [c.name for c in evidence.named()]
    assert len(names) == 1 and names[0].lower() in ("ip", "user ip")
    separately = gather_for(PullRequest(repo="r", number=2, title="Keep the user name when the IP changes", body="",
                                        url="https://example.invalid/2"),
                            query, stats)
    assert len(separately.named()) == 2  # "user" and "IP" in different phrases: two concepts


def test_overlapping_phrases_of_the_problem_are_one_named_idea():
    """"app hangs are reported twice" gives the concepts "app hangs" and "hangs reported"; a headline "App hangs
    report with high durations" names both through one phrase, which is one idea (and not the "twice")."""
    query = {term.key: term for term in analyse("App hangs are reported twice.")}
    stats = RepositoryStats(BatchStatistics(["app hangs"] * 3 + ["hangs reported"] + ["twice"]
                                            + ["reported"] * 9 + ["app start"] * 20))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=3, title="Fix App hangs report with high durations", body="",
                     url="https://example.invalid/3")
    evidence = gather_for(pr, query, stats)
    assert len([c for c in evidence.concepts if evidence.credits[evidence.concepts.index(c)] >= 1]) >= 2
    assert len(evidence.named()) == 1 and scoring.confidence(evidence) != Confidence.HIGH


def gather_for(pr: PullRequest, query: dict, stats: RepositoryStats) -> Evidence:
    return gather(pr, None, query, stats, False, [])


@pytest.mark.parametrize(("title", "high"), [
    ("Normalize the spotlight upload option URL", False),  # the subject, not the symptom
    ("Fix the spotlight upload option URL", True),  # says it fixes the subject
    ("Spotlight upload option URL no longer ignored", True),  # names the symptom
])
def test_a_high_names_the_symptom_or_says_it_fixes_it(title, high):
    """"the spotlight upload option URL is ignored": a headline about the option that neither says "ignored"
    nor says it fixes anything matches the subject only, and the spec's HIGH needs the symptom."""
    problem = "The spotlight upload option URL is ignored."
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(["spotlight upload"] * 2 + ["option URL"] * 2 + ["ignored"] * 3
                                            + ["release health"] * 40))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=title, body="", url="https://example.invalid/4")
    evidence = gather(pr, None, query, stats, False, [], frozenset(query))
    assert (scoring.confidence(evidence) == Confidence.HIGH) is high


@pytest.mark.parametrize(("title", "high"), [
    ("Fix the spotlight upload option URL", True),  # names no failure: the fix of the subject
    ("Fix spotlight upload option URL being ignored", True),  # the same kind of failure ("missing")
    ("Fix a crash in the spotlight upload option URL", False),  # another failure of the same subject
])
def test_a_high_fixes_the_kind_of_failure_the_problem_has(title, high):
    """"the spotlight upload option URL goes missing": a fix of a crash in the same subject is another bug."""
    assert _high_for("The spotlight upload option URL goes missing.", title) is high


@pytest.mark.parametrize(("title", "high"), [
    ("fix: Skip the spotlight upload option URL when it is nil", True),  # "skip" is the remedy, not a failure
    ("Fix spotlight upload option URL missing from events", False),  # another failure: something missing
])
def test_a_remedy_word_names_no_failure(title, high):
    assert _high_for("The app crashes when the spotlight upload option URL is nil.", title) is high


def _high_for(problem: str, title: str) -> bool:
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(["spotlight upload"] * 2 + ["option URL"] * 2 + ["missing"] * 3
                                            + ["crash"] * 5 + ["nil"] * 3 + ["release health"] * 40))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=title, body="", url="https://example.invalid/4")
    evidence = gather(pr, None, query, stats, False, [], frozenset(query))
    return scoring.confidence(evidence) == Confidence.HIGH


@pytest.mark.parametrize(("title", "high"), [
    ("Fix fatal app hang events reported as handled in crash reports", False),  # the subject only
    ("Fix symbolication of fatal app hang events in crash reports", True),  # names the defect
])
def test_a_high_names_what_an_un_word_says_is_wrong(title, high):
    """"fatal app hang events show unsymbolicated stack traces": the "un-" word is the defect itself, so a fix
    of fatal app hang events that never names symbolication is another fix of the same subject, not HIGH."""
    problem = "Fatal app hang events in crash reports show unsymbolicated stack traces."
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(["symbolication"] * 2 + ["fatal app hang"] * 2 + ["stack traces"] * 3
                                            + ["crash reports"] * 3 + ["release health"] * 40))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=5, title=title, body="", url="https://example.invalid/5")
    evidence = gather(pr, None, query, stats, False, [], frozenset(query), "r")
    assert (scoring.confidence(evidence) == Confidence.HIGH) is high


def test_an_un_word_the_notes_never_use_stands_for_the_word_they_use():
    """Customers write "unsymbolicated", notes write "symbolication": the idea is kept as a key concept (that a
    note about symbolication names), instead of dropping out as a word no note uses."""
    query = {term.key: term for term in analyse("Fatal app hang events show unsymbolicated stack traces.")}
    stats = RepositoryStats(BatchStatistics(["Fix symbolication of fatal app hangs", "stack traces"] * 2
                                            + ["app hang events"] * 3 + ["release health"] * 30))
    stats.load("r", list(query.values()))
    names = {t.key for c in key_concepts(query, stats, "r", frozenset(query)) for t in c.terms}
    assert "symbol" in names and "unsymbol" not in names
    handled = {term.key: term for term in analyse("Unhandled exceptions are not reported.")}
    stats = RepositoryStats(BatchStatistics(["Unhandled exceptions", "handled flag", "release health"]))
    stats.load("r", list(handled.values()))
    assert "handl" not in {t.key for c in key_concepts(handled, stats, "r") for t in c.terms}  # a word notes use


@pytest.mark.parametrize(("text", "folded"), [
    ("before_send filtered the event out", "drop"),
    ("the processor leaks spans", "memori"),
    ("the app is frozen", "hang"), ("tags are empty", "miss"), ("sent twice", "duplic"),
    ("EXC_BAD_ACCESS on start", "crash"),
    ("measurements arrive without their units", "miss"),
])
def test_symptom_words_people_spell_differently_fold_onto_one_term(text, folded):
    """A note saying "dropped" names the customer's "discarded" (at synonym credit), and the symptom check of a
    HIGH knows both are the same symptom."""
    assert folded in {term.key for term in analyse(text) if term.kind in ("synonym", "word")}


@pytest.mark.parametrize(("quoted", "title", "high"), [
    (True, "Fix the `http_ssl_verify_peer` option to set the correct value", True),
    (False, "Fix the `http_ssl_verify_peer` option to set the correct value", False),  # not quoted by the customer
    (True, "Document the `http_ssl_verify_peer` option", False),  # names it, but fixes nothing
])
def test_a_fix_naming_the_one_code_name_the_customer_quoted_is_high(quoted, title, high):
    """A code name copied in quotes from the customer's setup, that only one entry of the repository names,
    is named by that entry's fix: the one change that ever touched it."""
    name = "'http_ssl_verify_peer'" if quoted else "http_ssl_verify_peer"
    problem = f"They set {name} => false; curl still fails against self-hosted Sentry with a self-signed chain."
    texts = [title, "Fix curl handle reuse", "Fix self-hosted DSN parsing", "Fix certificate chain loading",
             "Fix failing uploads", "Support self-signed certificates"] + ["release health"] * 30
    stats = RepositoryStats(BatchStatistics(texts))
    query = {term.key: term for term in analyse(problem)}
    stats.load("r", list(query.values()))
    quoted_keys = frozenset({"http_ssl_verify_peer"} if quoted else set())
    release = Release(id=1, repo="r", tag="4.4.0", version="4.4.0", version_key="k")
    entry = Entry(id=1, release=release, section="fix", text=title, prs=[9])
    pr = PullRequest(repo="r", number=9, title=title, body="", url="https://example.invalid/9")
    evidence = gather(pr, entry, query, stats, False, [], frozenset(query), "r", quoted_keys)
    assert (scoring.confidence(evidence) == Confidence.HIGH) is high
    assert scoring.verified(evidence, stats, "r") is high


def judged_among(question: Question, title: str, others: list[str], tag: str,
                 alternatives: tuple[frozenset[str], ...] | None = None) -> Evidence:
    """The evidence for a fix line `title` (PR #9, the same title) in a repository whose notes are `others` plus 30
    "release health" lines, judged for `question` (with other `alternatives` if given)."""
    stats = RepositoryStats(BatchStatistics([title, *others] + ["release health"] * 30))
    stats.load("r", list(question.terms.values()))
    release = Release(id=1, repo="r", tag=tag, version=tag, version_key="k")
    entry = Entry(id=1, release=release, section="fix", text=title, prs=[9])
    pr = PullRequest(repo="r", number=9, title=title, body="", url="https://example.invalid/9")
    chosen = question.alternatives if alternatives is None else alternatives
    return gather(pr, entry, question.terms, stats, False, [], question.problem_keys, "r", question.quoted, chosen,
                  question.quoted_code)


@pytest.mark.parametrize(("quoted", "title", "high"), [
    ("response.headers.toJSON()", "fix: toJSON method keeps array values", True),  # the name alone
    ("response.headers.toJSON()", "fix: AxiosError.toJSON method to avoid circular references", False),  # another's
    ("AxiosError.toJSON()", "fix: AxiosError.toJSON method to avoid circular references", True),  # the owner named
    ("response.headers.toJSON()", "fix: AxiosError.toJSON and toJSON of headers keep arrays", True),  # and alone
])
def test_a_quoted_method_named_only_on_another_owner_is_not_the_customers(quoted, title, high):
    """`evidence._anothers_member`: a method name is shared by many classes; a fix naming the one code name the
    customer quoted (`quoted_unique`) only as the member of a class the question never names
    ("AxiosError.toJSON" for `response.headers.toJSON()`) fixes another class's method: no HIGH from that name."""
    problem = f"We pass `{quoted}` on to the browser and the three set-cookie values arrive joined as one string."
    evidence = judged_among(analyse_question(problem, ""), title,
                            ["Fix cookie parsing", "Fix browser builds", "Fix string escaping"], "1.2.0")
    assert evidence.quoted_unique is high
    assert (scoring.confidence(evidence) == Confidence.HIGH) is high


@pytest.mark.parametrize(("title", "high"), [
    ("fix: Remove `SentrySystemEventBreadcrumbs` observers with the most specific detail", False),  # no failure named
    ("Fix crash in `SentrySystemEventBreadcrumbs` observers", True),  # the failure asked, named
    ("fix: `SentrySystemEventBreadcrumbs` observers missing after a restart", True),  # a failure named
    ("Prevent `SentrySystemEventBreadcrumbs` observers from outliving the app", True),  # says with a verb it fixes
])
def test_a_quoted_stack_frame_named_by_a_fix_that_names_no_failure_is_no_high(title: str, high: bool) -> None:
    """`scoring._failure_left_unsaid`: a class copied from a crash's stack trace is where it failed, not a setting
    only one change ever touched; the one note naming it that names no failure and says only by its `fix:` type
    that it fixes something may be another change of that class (near-cordova-bundled-cocoa-battery-breadcrumb-crash:
    a wrong ✓ on sentry-cocoa #2489 while #3582 "Fix rare battery breadcrumbs crash" is the fix)."""
    problem = "A few iOS users crash and the stack trace ends in `SentrySystemEventBreadcrumbs getBatteryStatus`."
    evidence = judged_among(analyse_question(problem, ""), title, ["Fix app start spans", "Fix session replay masking",
                            "Improve user data scrubbing", "Fix build on Xcode 15"], "8.0.0")
    assert evidence.quoted_unique
    assert (scoring.confidence(evidence) == Confidence.HIGH) is high


def test_device_makers_a_question_names_are_one_idea() -> None:
    """`Question.alternatives` groups the device makers and lines a message names (lexicon `devices`): "for Samsung
    and Xiaomi users but never on a Pixel" asks about which device, so a note naming "Pixel" and "Xiaomi" (another
    fix on those devices) names one idea, not two concepts: no HIGH by the device names; read apart, they made one."""
    problem = "App start data shows up for Samsung and Xiaomi users but never for anyone on a Pixel."
    title = "Session Replay: fix video encoding on Pixel devices and SIGABRT on Xiaomi devices"
    question = analyse_question(problem, "")
    assert {"samsung", "xiaomi", "pixel"} in [set(group) for group in question.alternatives]
    others = ["Fix app start spans", "Fix cold start on Android", "Improve user data scrubbing",
              "Fix build on Gradle 8"]

    def level(alternatives: tuple[frozenset[str], ...]) -> Confidence:
        return scoring.confidence(judged_among(question, title, others, "1.4.0", alternatives))

    assert level(question.alternatives) != Confidence.HIGH
    assert level(()) == Confidence.HIGH


def test_words_written_as_alternatives_are_one_idea():
    """"slow/frozen frames" asks about one kind of frame: a note naming "slow" and "frozen" names that idea
    once, not twice (which alone made an unrelated frame-rounding fix HIGH for "long frame delays")."""
    problem = "Transactions report long frame delays (slow/frozen frame durations longer than the transaction)."
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(["slow frames", "frozen frames", "frame delay", "long tasks",
                                             "durations", "longer"] + ["transaction"] * 10))
    stats.load("r", list(query.values()))
    together = key_concepts(query, stats, "r", alternatives=alternatives(problem))
    assert any({"slow", "frozen"} <= {t.key for t in c.terms} for c in together)
    apart = key_concepts(query, stats, "r")
    assert not any({"slow", "frozen"} <= {t.key for t in c.terms} for c in apart)


@pytest.mark.parametrize(("text", "groups"), [
    ("slow/frozen frames", [{"slow", "frozen"}]),
    ("timeouts/refused connections and type/message", [{"timeout", "refus"}, {"type", "messag"}]),
    ("@sentry/react 5.0 and sentry/sentry", []),  # package names
    ("see https://example.com/a/b and src/app/main.py", []),  # URLs and paths
    ("I/O instrumentation", []),  # one letter is not a word
])
def test_alternatives_are_words_joined_by_a_slash(text, groups):
    assert [set(group) for group in alternatives(text)] == groups


def test_a_batch_yields_at_most_max_per_batch_entries_to_judge(cache, judge) -> None:
    """Equally relevant entries beyond the cap are not judged (each costs a PR lookup); up to it, all are. The cap
    is read from lexicon.toml [weight] where it is used: another table (`lexicon.use`) is another cap."""
    base = entry_with(cache, 121)
    problem = "Transactions whose name is empty are dropped."

    def batch(size: int) -> list[Entry]:
        return [replace(base, id=5000 + i, prs=[5000 + i], text=f"{base.text} ({i})")
                for i in range(size)]

    shipped = int(lexicon.weight("max_per_batch"))
    assert len(judge.filter_relevant_entries(batch(shipped), asked(problem, problem))) == shipped
    assert len(judge.filter_relevant_entries(batch(shipped + 1), asked(problem, problem))) == shipped
    tables = lexicon.data()
    changed = {**tables, "weight": {**tables["weight"], "max_per_batch": shipped - 1}}
    lexicon.use(changed)
    try:
        assert len(judge.filter_relevant_entries(batch(shipped), asked(problem, problem))) == shipped - 1
    finally:
        lexicon.use(None)


def test_the_score_names_the_subjects_its_headline_names_heaviest_first(cache, judge) -> None:
    """`Score.subjects` (what `candidate_order.older_rivals` compares): the problem's ideas the headline names
    verbatim, by the term that named them, heaviest first, the kind of failure ("crash") left out; a headline
    naming only the failure names no subject."""
    pr, entry = pull(cache, 110), entry_with(cache, 110)
    subjects = judge.score_pr_confidence(pr, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).subjects
    assert subjects and subjects[0] == "avassetdownloadtask"
    shares = judge.score_pr_confidence(pr, entry, asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).shares
    assert len(shares) == len(subjects) and all(0 < share < 1 for share in shares)
    assert not {"crash", "nsgenericexception"} & set(subjects)
    only_crash = replace(pr, title="Fix a crash", body="")
    assert judge.score_pr_confidence(only_crash, replace(entry, text="Fix a crash"),
                                     asked(AVASSET_PROBLEM, AVASSET_PROBLEM)).subjects == ()


def test_subjects_are_the_named_concepts_by_their_credited_term_heaviest_first() -> None:
    """`scoring.subjects` over evidence as `gather` leaves it: concepts in the order of their weight, those named
    in full only (credit 1), each by the term that named it ("path", not the concept's head "root path"), the
    kind of failure left out."""
    def concept(key: str, value: float, kind: str = "word") -> Concept:
        return Concept([Term(key, key, 1.0, kind)], value, set(key.split()))

    concepts = [concept("root path", 9.0, "bigram"), concept("crash", 8.0), concept("url", 7.0),
                concept("starlette", 6.0)]
    evidence = Evidence(1.0, concepts=concepts, credits=[1.0, 1.0, 1.0, 0.5],
                        matched=[{"path"}, {"crash"}, {"url"}, {"starlette"}],
                        keys=["path", "crash", "url", "starlette"], shares=[0.2, 0.01, 0.001, 0.0])
    assert scoring.subjects(evidence) == ("path", "url")
    assert scoring.subject_shares(evidence) == (0.2, 0.001)  # per subject: how everyday its term is there


def _command_evidence(quoted_code: frozenset[str], says_fix: bool) -> Evidence:
    """A headline ("Improve the stacktrace of the `php artisan sentry:test` event") naming two of the problem's
    three concepts, both words of the command the customer quoted; the third ("proxy") it does not name."""
    terms = [Term("sentry:test", "sentry:test", 3.0, "identifier"), Term("php artisan", "php artisan", 2.0, "bigram"),
             Term("proxi", "proxy", 2.0)]
    concepts = [Concept([term], 10.0, {term.key}) for term in terms]
    evidence = Evidence(1.0, concepts=concepts, credits=[1.0, 1.0, 0.0], matched=[{t.key} for t in terms],
                        keys=[t.key for t in terms], shares=[0.01, 0.02, 0.01],
                        headline={t.key: (t, 10.0) for t in terms[:2]}, says_fix=says_fix, fix_verb=says_fix)
    evidence.quoted_only = evidence_module._quoted_only(evidence, quoted_code)
    return evidence


def test_a_headline_naming_only_the_quoted_command_is_no_high() -> None:
    """`scoring._names_only_the_quoted_code`: named only by the code the customer quoted (the command they ran) and
    saying no fix, a headline names the feature, not its fix: MEDIUM. The same headline is HIGH when one named
    concept is not quoted code, when it says it fixes something, or when it names every concept of the problem."""
    command = frozenset({"sentry:test", "php artisan", "php", "artisan"})
    assert scoring.confidence(_command_evidence(command, says_fix=False)) == Confidence.MEDIUM
    assert scoring.confidence(_command_evidence(frozenset({"sentry:test"}), says_fix=False)) == Confidence.HIGH
    assert scoring.confidence(_command_evidence(command, says_fix=True)) == Confidence.HIGH
    everything = _command_evidence(command, says_fix=False)
    everything.credits = [1.0, 1.0, 1.0]
    assert not evidence_module._quoted_only(everything, command | {"proxi"})  # nothing beyond the quote


@pytest.mark.parametrize(("text", "said", "aside"), [
    ("Remove the relaxation to prevent hangs during init (#9) IMPORTANT: StrictMode violations may appear again "
     "in debug builds. This is intentional.", "Remove the relaxation to prevent hangs during init (#9) This is "
     "intentional.", "IMPORTANT: StrictMode violations may appear again in debug builds."),
    ("Mask the camera view. This may result in more of the screen being redacted. (#6)",
     "Mask the camera view.", "This may result in more of the screen being redacted. (#6)"),
    ("Fix a crash that may occur on start (#1)", "Fix a crash that may occur on start (#1)", ""),  # the first
    ("Fix the upload. It might have failed on slow networks before.", "Fix the upload.",  # sentence is the change
     "It might have failed on slow networks before."),
    ("Fix grouping. Exceptions are grouped by type (#3)", "Fix grouping. Exceptions are grouped by type (#3)", ""),
    # advice to the reader (lexicon `advice`), also after the line's own PR reference (`reference_break`)
    ("Only upload `.dart` files when `upload_sources` is enabled (#247) Enable `upload_sources` to opt in to Flutter "
     "web source context", "Only upload `.dart` files when `upload_sources` is enabled (#247)",
     "Enable `upload_sources` to opt in to Flutter web source context"),
    ("Add device name (#2741) Set `options.sendDefaultPii = true` if you want the device name reported",
     "Add device name (#2741)", "Set `options.sendDefaultPii = true` if you want the device name reported"),
    ("Group exceptions by cause (#2803). To opt in, set `groupExceptions=true`", "Group exceptions by cause (#2803).",
     "To opt in, set `groupExceptions=true`"),
    ("(quart) Use `inspect.iscoroutinefunction` when Quart does (#6133)",  # the line's own change stays
     "(quart) Use `inspect.iscoroutinefunction` when Quart does (#6133)", ""),
    ("Fix the upload (#12) Sources are uploaded with their maps", "Fix the upload (#12) Sources are uploaded with "
     "their maps", ""),
])
def test_a_later_sentence_saying_what_the_change_may_cause_is_no_headline(text, said, aside):
    """`evidence._without_side_effects`: after a note's first sentence, one hedged with "may"/"might" (a caveat,
    a side effect) leaves the headline for the explanation; the first sentence, whatever it hedges, stays."""
    assert evidence_module._without_side_effects(text) == (said, aside)


def test_the_words_of_a_caveat_do_not_make_a_high():
    """"StrictMode violations in debug builds": a change whose note names them only in its caveat ("IMPORTANT:
    StrictMode violations may appear again in debug builds") causes them, it does not fix them — the caveat's
    words weigh as explanation, so it is no HIGH; the same words as the note's change are."""
    problem = "With StrictMode on, debug builds log StrictMode violations caused by the SDK."
    caveat = ("Remove the runtime manager's relaxation to prevent hangs during init (#9) IMPORTANT: StrictMode "
              "violations may appear again in debug builds.")
    fixed = "Avoid StrictMode violations in debug builds (#9)"
    texts = [caveat, "Fix a hang during init", "Add debug logs", "Fix builds on Windows"] + ["release health"] * 30
    stats = RepositoryStats(BatchStatistics(texts))
    query = {term.key: term for term in analyse(problem)}
    stats.load("r", list(query.values()))
    release = Release(id=1, repo="r", tag="4.4.0", version="4.4.0", version_key="k")

    def evidence_of(text: str) -> Evidence:
        entry = Entry(id=1, release=release, section="fix", text=text, prs=[9])
        pr = PullRequest(repo="r", number=9, title="Remove the relaxation", body="", url="https://example.invalid/9")
        return gather(pr, entry, query, stats, False, [], frozenset(query), "r")

    hedged = evidence_of(caveat)
    assert stem("violations") not in hedged.headline and stem("violations") in hedged.body
    assert scoring.confidence(hedged) != Confidence.HIGH
    assert scoring.confidence(evidence_of(fixed)) == Confidence.HIGH


NO_LONGER_PROBLEM = "On iOS, crashes are no longer reported after the game closes and re-initialises the SDK."
NO_LONGER_NOTE = "The SDK no longer reports an OOM when a crash happens after closing the SDK"


def test_no_longer_is_no_term_of_a_problem_or_a_note():
    """"no longer" is how a problem says something stopped ("crashes are no longer reported") and how a note says
    what its fix stops ("The SDK no longer reports an OOM …"); like "more" and "less", "longer" says nothing of the
    subject, so the two share "crash" and "report", not "longer"."""
    keys = {term.key for term in analyse(NO_LONGER_PROBLEM)}
    assert "crash report" in keys and not any("longer" in key for key in keys)
    assert not any("longer" in term.key for term in analyse(NO_LONGER_NOTE))


def test_without_it_no_longer_is_a_rare_term_an_unrelated_fix_shares():
    tables = lexicon.data()
    tables["words"]["stopwords"].remove("longer")
    lexicon.use(tables)
    try:
        shared = {t.key for t in analyse(NO_LONGER_PROBLEM)} & {t.key for t in analyse(NO_LONGER_NOTE)}
        assert "longer" in shared
    finally:
        lexicon.use(None)


@pytest.mark.parametrize("fix_verb", [False, True])
def test_a_5xx_response_is_the_failure_a_two_concept_headline_must_say_it_fixes(fix_verb) -> None:
    """A 502 the customer gets (folded onto "5xx", lexicon `symptom` 5xx) names what failed: a headline naming two of
    the problem's other concepts ("fix(middleware/proxy): append RealIP to X-Forwarded-For …" for a proxy answering
    502 when the client cancels) is a HIGH only when it names the 5xx or says with a verb what it fixes
    (`scoring._says_which_fix`); its `fix:` commit type alone files it as some fix of the proxy."""
    question = analyse_question("Through the proxy middleware a cancelled request is answered 502 and forwarded.")
    assert question.problem_keys & lexicon.says_what_terms() == {"5xx"}
    terms = [Term("middlewar proxi", "middleware proxy", 2.0, "bigram"), Term("forward", "forward", 2.0),
             Term("cancel", "cancel", 2.0)]
    concepts = [Concept([term], 10.0, {term.key}) for term in terms]
    evidence = Evidence(1.0, concepts=concepts, credits=[1.0, 1.0, 0.0], matched=[{t.key} for t in terms],
                        keys=[t.key for t in terms], shares=[0.01, 0.01, 0.01],
                        headline={t.key: (t, 10.0) for t in terms[:2]}, says_fix=True, fix_verb=fix_verb,
                        symptoms_asked=frozenset(question.problem_keys & lexicon.symptom_terms()))
    assert scoring.confidence(evidence) == (Confidence.HIGH if fix_verb else Confidence.MEDIUM)


def test_a_headline_with_no_fix_verb_that_leaves_the_heaviest_idea_unnamed_is_thin(cache, judge) -> None:
    """`Score.thin` (what `candidate_order.older_rivals` reads for `thin_rival`): "Fix crash with AVAssetDownloadTask"
    says with a verb what it fixes and names the problem's heaviest idea; a headline naming only its lighter words
    ("HLS download" …) under a `fix:` type, without a verb that says what it fixes, is thin."""
    pr, entry = pull(cache, 110), entry_with(cache, 110)
    question = asked(AVASSET_PROBLEM, AVASSET_PROBLEM)
    assert judge.score_pr_confidence(pr, entry, question).thin is False
    light = replace(pr, title="fix: offline HLS download state")
    score = judge.score_pr_confidence(light, replace(entry, text="Offline HLS download state"), question)
    assert score.thin is True
