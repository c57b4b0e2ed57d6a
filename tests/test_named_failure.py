"""Two checks of what a headline says about the problem's kind of failure:

- a `fix:` commit type files a change as a fix; it does not say it fixes *this* failure, so a headline that names
  neither the failure nor a fix verb needs the full HIGH bar (three concepts), not the two-concept one; a headline
  saying its subject does not work ("… masking not working …", "… didn't work") names a bug as plainly as "Fix …";
- a symptom spelling the problem uses to name a thing the repository's notes name by that phrase ("frozen" of
  "frozen frames", a measurement) does not fold onto its symptom (no hang is asked, and a headline about hangs
  does not name it)."""

from __future__ import annotations

from tests.lexicon_helpers import use_weights
from wif_action.engines.offline import scoring
from wif_action.engines.offline.change_kind import fix_verb, says_fix
from wif_action.engines.offline.evidence import Evidence, gather
from wif_action.engines.offline.ranking import BatchStatistics, RepositoryStats
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, PullRequest

FILLER = ["release health"] * 200


def _evidence(problem: str, title: str, notes: list[str]) -> Evidence:
    query = {term.key: term for term in analyse(problem)}
    stats = RepositoryStats(BatchStatistics(notes + FILLER))
    stats.load("r", list(query.values()))
    pr = PullRequest(repo="r", number=4, title=title, body="", url="https://example.invalid/4")
    return gather(pr, None, query, stats, False, [], frozenset(query), "r")


def test_a_fix_commit_type_is_no_fix_verb():
    assert says_fix("fix(fastapi): use the route path for prefixed routers")
    assert not fix_verb("fix(fastapi): use the route path for prefixed routers")
    assert not fix_verb("fix: use the route path")
    assert fix_verb("fix(fastapi): prevent doubled paths") and fix_verb("Fix doubled paths") \
        and fix_verb("- Prevents a crash")


def test_a_headline_saying_its_subject_does_not_work_says_which_fix():
    for headline in ("Session replay masking not working inside scroll view (#4498)",
                     "`attach-screenshot` set on Manual init. didn't work (#2186)",
                     "Enabling logs through Logback did not work in 3.15.0", "Breadcrumbs stopped working on tvOS",
                     "Option X doesn't work with Y"):
        assert says_fix(headline) and fix_verb(headline), headline
    for headline in ("Ignore broken regex for tracePropagationTarget", "Masking works with scroll views now",
                     "Add a working directory option", "It works again"):
        assert not fix_verb(headline), headline


def test_a_headline_opening_with_the_bug_says_which_fix():
    """Changelogs that file fixes under a fix heading and describe each by its bug ("An issue that …", "A rare crash
    from …") name the bug as plainly as "Fix an issue that …" (lexicon `bug_named_first`); a headline that names an
    issue tracker or a new API names no bug."""
    for headline in ("An issue that the processor is not applied to original image data when "
                     "`DefaultCacheSerializer.preferCacheOriginalData` is set to `true`. #1999",
                     "A rare crash from `_UIImageCGImageContent` when loading GIF files on iOS 15 or later. #2004",
                     "- An issue where the placeholder stays after a failure", "A potential problem with disk cache"):
        assert says_fix(headline) and fix_verb(headline), headline
    for headline in ("An issue tracker link in the README", "A new `KFImage` modifier", "The issue template",
                     "Track an issue that …"):
        assert not fix_verb(headline), headline


def test_two_concepts_under_a_headline_opening_with_the_bug_are_high():
    """The problem names its failure ("without"), the headline names the bug, not that symptom: like a "Fix …" line,
    two concepts are enough for HIGH; the same words stated as a plain change are not."""
    problem = "With the cache serializer set to keep original data, images read from disk show without our processor."
    notes = ["cache serializer", "processor", "original data", "disk cache"]
    plain = _evidence(problem, "The processor for original data of the cache serializer", notes)
    stated = _evidence(problem, "An issue that the processor is not applied to original data of the cache serializer",
                       notes)
    assert stated.symptoms_asked and not stated.symptoms_asked & stated.symptoms_named
    assert scoring.confidence(plain) is Confidence.MEDIUM and scoring.confidence(stated) is Confidence.HIGH


def test_two_concepts_under_a_headline_saying_they_did_not_work_are_high():
    """The problem names its failure ("without"), the headline does not; it says the feature did not work."""
    problem = "Screenshots are missing from events when the SDK is started manually."
    notes = ["screenshots", "manual init", "events", "started"]
    plain = _evidence(problem, "attach-screenshot on manual init", notes)
    stated = _evidence(problem, "attach-screenshot on manual init didn't work", notes)
    assert plain.symptoms_asked and not plain.symptoms_asked & stated.symptoms_named
    assert scoring.confidence(plain) is Confidence.MEDIUM and scoring.confidence(stated) is Confidence.HIGH


PROBLEM = "Request URLs contain the root path prefix twice under a FastAPI mount."
NOTES = ["FastAPI integration", "prefix handling", "mount points", "root path"]


def test_two_concepts_under_a_fix_commit_type_without_the_failure_are_no_high():
    """The subject matches ("prefix", "FastAPI"), the failure ("twice") is not named and no verb says a fix."""
    evidence = _evidence(PROBLEM, "fix(fastapi): use the effective route for prefixed routers", NOTES)
    assert len(evidence.named(scoring.SHIPPED.named_credit)) == 2
    assert scoring.confidence(evidence) is Confidence.MEDIUM


def test_the_same_headline_with_a_fix_verb_or_the_failure_named_stays_high():
    """Two concepts, as above: a verb that says a fix, or the failure named, is enough for HIGH."""
    assert scoring.confidence(_evidence(PROBLEM, "fix(fastapi): prevent wrong prefixes of FastAPI routers",
                                        NOTES)) is Confidence.HIGH
    assert scoring.confidence(_evidence(PROBLEM, "fix(fastapi): prefix added twice for FastAPI routers",
                                        NOTES)) is Confidence.HIGH


FRAMES = "On iOS some transactions report slow/frozen frame delays far longer than the transaction."


def test_a_symptom_word_naming_a_thing_the_notes_know_is_no_symptom():
    """The notes say "frozen frames": the problem's "frozen frame" is that measurement, not a hang."""
    evidence = _evidence(FRAMES, "Fix wrong frame delay which led to false app hangs",
                         ["Report slow and frozen frames", "frame delay tracking", "app hangs"])
    assert "hang" not in evidence.symptoms_asked
    frozen = next(i for i, c in enumerate(evidence.concepts) if c.name == "frozen")
    assert evidence.credits[frozen] == 0.0


def test_the_same_word_is_a_symptom_where_the_notes_do_not_name_the_phrase():
    evidence = _evidence("The UI is frozen after opening the camera screen.", "Fix app hang on the camera screen",
                         ["camera screen support", "app hangs", "UI frozen at launch"])
    assert "hang" in evidence.symptoms_asked
    frozen = next(i for i, c in enumerate(evidence.concepts) if c.name == "frozen")
    assert evidence.credits[frozen] == scoring.lexicon.weight("synonym_credit")


BAGGAGE = "Baggage entries extracted by the `OtTracePropagator` are missing."
PROPAGATOR_NOTES = ["OtTracePropagator", "baggage entries", "W3CBaggagePropagator", "extract"]


def test_a_fix_of_a_security_advisory_does_not_say_it_fixes_the_failure(lexicon_restored):
    """opentelemetry-java 1.62.0: "Fix GHSA-…: Apply limits to baggage entries for … `OtTracePropagator` …" fixes an
    advisory; the words after it say what changed, and name neither the missing entries nor a fix of them: no HIGH on
    two concepts. With `advisory_fix` 0 the "Fix" counted as a fix verb and the line was a ✓."""
    headline = "Fix GHSA-rcgg-9c38-7xpx: Apply limits to baggage entries for `OtTracePropagator`"
    evidence = _evidence(BAGGAGE, headline, PROPAGATOR_NOTES)
    assert not evidence.says_fix and not evidence.fix_verb
    assert scoring.confidence(evidence) is Confidence.MEDIUM
    use_weights(advisory_fix=0)
    assert scoring.confidence(_evidence(BAGGAGE, headline, PROPAGATOR_NOTES)) is Confidence.HIGH


def test_what_a_leading_remedy_verb_skips_is_no_failure_it_names(lexicon_restored):
    """"Skip empty baggage entries …" skips empty entries (the trigger); it does not name the customer's missing
    entries as the failure it fixes ("empty" folds onto "missing"), so it is no HIGH; the remedy word stays named.
    "Fix missing baggage entries …" names the failure. With `remedy_object` 0 the skipped "empty" named it."""
    skip = "Trace propagators: Skip empty baggage entries in `OtTracePropagator` extract"
    evidence = _evidence(BAGGAGE, skip, PROPAGATOR_NOTES)
    assert "miss" not in evidence.symptoms_named and "ignor" in evidence.symptoms_named
    assert scoring.confidence(evidence) is Confidence.MEDIUM
    fixed = _evidence(BAGGAGE, "Fix missing baggage entries in `OtTracePropagator` extract", PROPAGATOR_NOTES)
    assert "miss" in fixed.symptoms_named and scoring.confidence(fixed) is Confidence.HIGH
    use_weights(remedy_object=0)
    evidence = _evidence(BAGGAGE, skip, PROPAGATOR_NOTES)
    assert "miss" in evidence.symptoms_named and scoring.confidence(evidence) is Confidence.HIGH


def test_support_is_weak_evidence():
    """"Our app still supports iOS 13" says what the customer ships, "… without isolated deinit support" what a
    toolchain lacks: "support" is an everyday word of notes and requests (lexicon `weak`), weak evidence on its own
    (Kingfisher 8.8.0's deinit fix, a ✓ on "image view" and "support" for an iOS 13 indicator that never shows)."""
    for word in ("support", "supports", "supported"):
        [term] = analyse(word)
        assert term.weight == scoring.lexicon.weight("weak_factor"), word


LEAK = "After a download task is cancelled, its callbacks stay in memory and keep our view controllers alive: a leak."
LEAK_NOTES = ["SessionDataTask", "download task", "callbacks", "cancelled", "view controllers"]


def test_a_leak_fix_names_the_leak():
    """A memory problem (lexicon `named_by_fix`: its fixes say "leak" or "memory"): a fix of the same object naming
    another failure of it, or none, is no ✓; the same headline naming the leak is."""
    race = _evidence(LEAK, "Fix download task races when cancelled tasks access their callbacks", LEAK_NOTES)
    assert race.symptoms_asked and not race.symptoms_named
    assert scoring.confidence(race) is Confidence.MEDIUM
    leak = _evidence(LEAK, "Fix download task callbacks leaking when cancelled tasks are removed", LEAK_NOTES)
    assert scoring.confidence(leak) is Confidence.HIGH


def test_a_crash_fix_may_name_its_cause_alone():
    """A crash is no `named_by_fix` kind: its fix names the cause ("division by zero"), and stays HIGH."""
    evidence = _evidence("The app crashes when breadcrumbs are disabled and a SIGFPE handler runs.",
                         "Fix division by zero when breadcrumbs are disabled and the SIGFPE handler runs",
                         ["breadcrumbs disabled", "SIGFPE handler", "division by zero"])
    assert evidence.symptoms_asked and not evidence.symptoms_named
    assert scoring.confidence(evidence) is Confidence.HIGH


OTEL = ("With the OpenTelemetry integration our pods grow: a ConcurrentDictionary of span objects held by "
        "SentrySpanProcessor keeps spans of filtered requests.")
OTEL_NOTES = ["OpenTelemetry", "SentrySpanProcessor", "ConcurrentDictionary", "span", "filtered requests", "held"]


def test_a_thin_headlines_scope_files_the_change_and_carries_no_check_mark(lexicon_restored):
    """A conventional-commit scope says where a change is filed ("fix(OpenTelemetry): …"), not what it fixes: a
    headline with no fix verb that leaves the problem's heaviest idea unnamed is judged without its scope
    (`scoring.scope_files_only`); with a verb saying what it fixes the scope counts."""
    thin = _evidence(OTEL, "fix(OpenTelemetry): `SentrySpanProcessor` no longer keeps spans whose Activity is held",
                     OTEL_NOTES)
    assert thin.unscoped is not None and scoring.thin(thin.unscoped)
    assert scoring.confidence(thin) is Confidence.MEDIUM
    verb = _evidence(OTEL, "fix(OpenTelemetry): prevent `SentrySpanProcessor` keeping spans whose Activity is held",
                     OTEL_NOTES)
    assert scoring.confidence(verb) is Confidence.HIGH
    use_weights(thin_scope=0)
    assert scoring.confidence(_evidence(OTEL, "fix(OpenTelemetry): `SentrySpanProcessor` no longer keeps spans whose "
                                              "Activity is held", OTEL_NOTES)) is Confidence.HIGH


MULTI = ("Looking up a branch of a multi-schema whose dispatch value is false returns the whole schema instead of that "
         "branch.")
MULTI_NOTES = ["multi schema", "dispatch keyword", "branch", "schema", "schema", "returns", "values", "false"]


def _filed(problem: str, headline: str, notes: list[str], section_weight: float) -> Confidence:
    evidence = _evidence(problem, headline, notes)
    evidence.section_weight = section_weight
    return scoring.confidence(evidence)


def test_a_thin_headline_neither_saying_nor_filed_as_a_fix_has_no_two_concept_check_mark(lexicon_restored):
    """Two of the problem's lighter ideas ("multi", "dispatch": the customer's setup) under a headline with no fix
    verb, no `fix:` type and no fix heading (a plain bullet: `other`) say nothing of fixing this problem
    (`scoring._unfiled_thin`): MEDIUM. Filed as a fix, opened by a fix verb or typed `fix:`, the same two ideas make
    the ✓; so does the plain line with `thin_unfiled` 0."""
    plain = "`:multi` with keyword `:dispatch` accumulates data to generated samples"
    assert scoring.thin(_evidence(MULTI, plain, MULTI_NOTES))
    assert _filed(MULTI, plain, MULTI_NOTES, 0.8) is Confidence.MEDIUM
    assert _filed(MULTI, plain, MULTI_NOTES, 1.0) is Confidence.HIGH
    for said in ("Fix `:multi` with keyword `:dispatch` accumulating data to generated samples",
                 "fix: `:multi` with keyword `:dispatch` accumulates data to generated samples"):
        assert _filed(MULTI, said, MULTI_NOTES, 0.8) is Confidence.HIGH, said
    use_weights(thin_unfiled=0)
    assert _filed(MULTI, plain, MULTI_NOTES, 0.8) is Confidence.HIGH
