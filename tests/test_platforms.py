"""Which platforms a problem or a release note is about (wif_action/platforms.py)."""

from __future__ import annotations

import pytest

from indexer.registry import load_registry
from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask
from wif_action import lexicon, platforms
from wif_action.models import AskInput, Confidence, PullRequest, Score
from wif_action.objections import on_the_api_levels
from wif_action.platforms import api_levels, as_api_levels, named_platforms, repository_platforms
from wif_action.question import analyse_question


@pytest.mark.parametrize(("text", "platforms"), [
    ("On iOS, session replays show scroll views unmasked", {"ios"}),
    ("on iOS a few transactions show frame delays that make no sense. Android looks fine.", {"ios"}),
    ("the Android app-start measurements show up without units, iOS has them", {"android"}),
    ("works on Android but crashes on iOS", {"ios"}),
    ("Disable sff & frame delay detection on web, linux and windows", {"web", "linux", "windows"}),
    ("Sentry .NET 3.27.0 (MAUI, Android): session counts are too high", {"android"}),
    ("Add web vitals to the tracing integration", set()),
    ("the webhook handler drops events", set()),
    ("crash when the app starts", set()),
])
def test_named_platforms_leave_out_the_ones_that_work(text, platforms):
    assert named_platforms(text) == platforms


@pytest.mark.parametrize(("text", "platforms"), [
    # one clause complains, the other platform's says only what happens there: that one works
    ("they call captureUserFeedback after an error, on Android the feedback appears in the issue, on iOS nothing "
     "arrives at all.", {"ios"}),
    ("On iOS the events have no release, while Android events get the app version.", {"ios"}),
    # a word ending in "nt" ("current") is no negation
    ("On Android the events arrive with the current release, on iOS nothing arrives.", {"ios"}),
    # the other clause complains too, or neither does: both are the customer's
    ("On iOS nothing arrives, and on Android neither.", {"ios", "android"}),
    ("iOS native crashes / app hangs and Android NDK crashes still arrive at full volume, as if the native layer "
     "never got the sample rate.", {"ios", "android"}),
    ("Transactions on Android run for 300 seconds; on iOS they end much sooner.", {"android", "ios"}),
    # the contrast is read inside one sentence only
    ("On iOS nothing arrives. On Android the feedback appears in the issue.", {"ios", "android"}),
])
def test_a_platform_named_by_contrast_with_a_complaint_is_the_one_that_works(text, platforms):
    assert named_platforms(text) == platforms


@pytest.mark.parametrize(("text", "platforms"), [
    # near-cli-apple-silicon-company-ca: the control case is its own statement, after ";" (fields) or a sentence
    # (message), its verb far from the platform; read as the customer's, "linux" objected the right macOS fix
    ("On Apple Silicon Macs every command fails with a certificate error, although our root CA is trusted on those "
     "machines; Intel Macs and Linux runners work.", {"macos"}),  # "Apple Silicon" is a Mac
    ("sentry-cli 3.0.1 on our MacBooks fails with `SSL certificate problem`. The Intel Macs and the Linux CI runners "
     "with the same CLI version work. Anything we can upgrade to?", {"macos"}),  # the MacBooks are the customer's
    ("Uploads hang on iOS. Android and the web build are fine.", {"ios"}),
    # a statement that names a failure too, or sets something against what works, is no control case as a whole
    ("On Windows the app crashes at start and the Linux build is fine.", {"windows"}),
    ("Uploads time out on Linux although macOS works.", {"linux", "macos"}),
    # what works must be the statement's verb: "works for a while" says when it fails
    ("On Windows the uploader works for a while, then stops.", {"windows"}),
])
def test_a_statement_saying_what_works_names_no_platform_of_the_customer(text, platforms):
    assert named_platforms(text) == platforms


@pytest.mark.parametrize(("guard", "text"), [
    ("names_failure", "On Windows the app crashes at start and the Linux build is fine."),
    ("contrast_word", "Uploads time out on Linux although macOS works."),
])
def test_each_guard_of_the_control_statement_keeps_the_customers_platform(guard, text) -> None:
    """Switched off, the guard's statement reads as a control case as a whole and the failing platform is lost."""
    tables = lexicon.data()
    tables["pattern"][guard]["re"] = "(?!)"
    lexicon.use(tables)
    try:
        assert named_platforms(text) <= {"macos"}
    finally:
        lexicon.use(None)


def test_the_platform_objection_does_not_read_the_control_statement() -> None:
    """The right fix of near-cli-apple-silicon-company-ca ("ARM-based macOS") is not objected as "about macos, and
    the problem is on linux" when Linux is named only as what works."""
    question = analyse_question("Every command fails with a certificate error on Apple Silicon; Intel Macs and Linux "
                                "runners work.")
    assert question.platforms == frozenset({"macos"})  # "Apple Silicon" is a Mac; "Linux" is what works


@pytest.mark.parametrize(("text", "platforms"), [
    # sentry-unreal 1.13.0 (#1420): a fix of the Mac crash reporter, not a Windows one ("window" is no platform)
    ("Fix Sentry Crash Reporter showing an empty window for packaged games on Mac", {"macos"}),
    ("Fix screenshot capture after Sentry disabled on Mac (#1101)", {"macos"}),
    # sentry-unreal 1.18.0 (#1500), the other side: the Windows fix names Windows, not the Mac
    ("Increase the crash handler thread stack guarantee to 128 KiB on Windows to make stack-overflow crash capture "
     "more reliable (#1500)", {"windows"}),
    ("Add Mac Catalyst support", {"macos"}),
    # "mac" only as a whole word
    ("Fix crash when the machine has no network", set()),
    ("Fix the macro expansion of SENTRY_ASSERT", set()),
    # a MacBook is a Mac: the build machine a question names ("moved to M1 MacBooks, `cordova build ios` fails")
    ("Fix reading the MacBook model name", {"macos"}),
    ("since we moved to M1 MacBooks, `cordova build ios` for the simulator fails when linking", {"macos", "ios"}),
])
def test_the_mac_is_named_as_macos(text, platforms):
    assert named_platforms(text) == platforms


@pytest.mark.parametrize(("text", "platforms"), [
    # sentry-native 0.15.0 (#1768), bundled in sentry-unreal 1.14.0: a macOS line, not an answer to a Windows crash
    ("Native/macOS: crash reports now include full stack traces for all threads. Previously, non-crashing threads "
     "showed only a single frame. (#1768)", {"macos"}),
    ("Crashpad/Windows: fix a crash when the handler path has spaces (#12)", {"windows"}),
    ("**iOS/Android**: app start spans are sent once (#3)", {"ios", "android"}),
    ("Native/Breakpad/Windows: capture stack overflows (#4)", {"windows"}),
    ("Android NDK/Linux: symbolicate system frames (#5)", {"android", "linux"}),
    # a path or a URL is no label, and neither is a part that does not start with a platform word
    ("Fix a crash in src/android/Foo.kt: null check (#6)", set()),
    ("See https://example.com/android: details", set()),
    ("Fix web/server: split (#7)", set()),
])
def test_a_lines_platform_label_is_its_platform(text, platforms):
    assert named_platforms(text) == platforms


def test_repository_platforms_come_from_registry_aliases():
    registry = load_registry()
    assert "ios" in repository_platforms(registry, "getsentry/sentry-cocoa")
    assert repository_platforms(registry, "getsentry/sentry-java") == {"android"}
    assert repository_platforms(registry, "getsentry/sentry-native") == set()


IOS_FRAME_DELAYS = "On iOS, the frame tracker reports absurdly long frame delays."


def _ask_frames(tmp_path, headline: str, scopes: list[tuple[int, int, str]]):
    """Ask about IOS_FRAME_DELAYS over acme/frames: release 1.0.0, then per (minor, PR, scope) a release whose
    one fix is "<headline> <scope>" (PR title the same)."""
    notes = "### Fixes\n\n- {text} (#{pr})\n"
    releases = [{"tag_name": "1.0.0", "body": "- Initial"}]
    releases += [{"tag_name": f"1.{minor}.0", "body": notes.format(text=f"{headline} {where}".strip(), pr=pr)}
                 for minor, pr, where in scopes]
    pulls = [{"number": pr, "title": f"{headline} {where}".strip(), "merged": True} for _, pr, where in scopes]
    with FakeGitHub() as github:
        github.add_repo("acme/frames", releases=list(reversed(releases)), pulls=pulls)
        db = tmp_path / "cache.db"
        build_cache(db, github, ["acme/frames"], pulls="recent", max_pulls=None)
        answer, _ = ask(db, github.url, AskInput(repo="acme/frames", version="1.0.0", problem=IOS_FRAME_DELAYS))
    return answer


def test_a_fix_scoped_to_other_platforms_is_not_the_high_answer(tmp_path):
    answer = _ask_frames(tmp_path, "Fix absurdly long frame delays reported by the frame tracker",
                         [(1, 11, "on web, linux and windows"), (2, 12, "on iOS")])
    assert (answer.outcome.value, answer.candidates[0].version, answer.candidates[0].pr) == ("high", "1.2.0", 12)
    scoped = [line for line in answer.trace if line.startswith("PR #11")]
    assert scoped and "medium" in scoped[0] and "about linux, web, windows" in scoped[0], answer.trace


def test_a_medium_scoped_to_other_platforms_is_listed_after_one_that_is_not(tmp_path):
    """Without a HIGH the answer leads with the oldest MEDIUM, unless a check objects to it: an older change
    "on web, linux and windows" cannot fix an iOS problem, so the newer candidate leads."""
    answer = _ask_frames(tmp_path, "Fix frame tracker delays", [(1, 11, "on web, linux and windows"), (2, 12, "")])
    assert answer.outcome.value == "medium", answer.trace
    assert [(c.pr, c.objected) for c in answer.candidates] == [(12, False), (11, True)]
    assert answer.message.startswith("**v1.2.0** includes changes"), answer.message
    assert "any with a reason against them last" in answer.message


@pytest.mark.parametrize(("text", "levels"), [
    # sentry-kotlin-multiplatform 0.0.3 (#61) and the customer's words
    ("fix: crash on Android API levels 23 and below (#61)", range(1, 24)),
    ("The app crashes on start on older Android devices (Android 6 / API 23 and below) when the SDK initialises.",
     range(1, 24)),
    # sentry-java 8.32.0 (#4999), sentry-java 6.32.0 (#2990)
    ("Fix cold/warm app start type detection for Android devices running API level 34+", range(34, 100)),
    ("Make `SystemEventsBroadcastReceiver` exported on API 33+ (#2990)", range(33, 100)),
    ("Crash on API < 21", range(1, 21)),
    ("Only on API 21-23", range(21, 24)),
    ("Broken on API 33 or higher", range(33, 100)),
    # no level: a version, lower-case "api", no number
    ("Upgrade the API 2.0 client", ()),
    ("the api 2 endpoint times out", ()),
    ("Android app start is slow", ()),
    # an Android release reads as its API level (lexicon [android_api_level]); a package's version does not
    ("their Android app crashes at startup on old phones (Android 6.0 and older)", range(1, 24)),
    ("Crash reports from Android 6/7 devices", range(23, 25)),
    ("sentry-cordova 1.2.0, Android 12+: the ANRs", range(31, 100)),
    ("Android 8 to 10 only", range(26, 30)),
    ("Upgraded sentry-android 7.1.0 and Android 7.14.0", ()),
    ("Only on Android 6.0.1 phones", ()),
])
def test_the_android_api_levels_a_text_names(text, levels):
    assert api_levels(text) == frozenset(levels)


def _objection(problem: str, headline: str):
    score = Score(confidence=Confidence.HIGH, reason="It matches.")
    pull = PullRequest(repo="getsentry/sentry-java", number=1, title=headline, url="https://github.com/x/y/pull/1")
    return on_the_api_levels(score, pull, None, analyse_question(problem))


KMP_OLD_ANDROID = ("The app crashes on start on older Android devices (Android 6 / API 23 and below) when the SDK "
                   "initialises.")


def test_an_android_release_reads_as_its_api_level_in_the_questions_terms_and_levels():
    """"Android 6.0 and older" is what a note calls "API levels 23 and below": the question has its terms, and a fix
    for API 34+ is objected to as for "API 23 and below"."""
    assert as_api_levels("old phones (Android 6.0 and older) crash") == "old phones (Android API 23 and older) crash"
    assert as_api_levels("Android 3 phones") == "Android 3 phones"  # no entry: left as written
    question = analyse_question("The app crashes at startup on old phones (Android 6.0 and older).")
    assert {"api", "android api"} <= question.terms.keys() and question.api_levels == frozenset(range(1, 24))
    objection = _objection("The app crashes at startup on old phones (Android 6.0 and older).",
                           "Fix app start type detection for Android devices running API level 34+")
    assert objection is not None and "the problem is on 23 and below" in objection.reason


def test_a_minor_android_release_with_its_own_entry_reads_as_its_level_even_when_it_ends_in_zero():
    """"Android 4.0" is API 14 (its own `[android_api_level]` entry), not the missing major "4"; "Android 10.0" has no
    entry of its own and reads as its major's."""
    assert as_api_levels("crash on Android 4.0 devices") == "crash on Android API 14 devices"
    assert as_api_levels("Android 4.0 to 4.4") == "Android API 14-19"
    assert as_api_levels("Android 10.0 only") == "Android API 29 only"


def test_a_fix_for_other_android_api_levels_is_not_the_high_answer():
    objection = _objection(KMP_OLD_ANDROID, "fix(android): Fix cold/warm app start type detection for Android "
                                            "devices running API level 34+")
    assert objection is not None and objection.confidence is Confidence.MEDIUM
    assert "API levels 34+, and the problem is on 23 and below" in objection.reason


@pytest.mark.parametrize(("problem", "headline"), [
    (KMP_OLD_ANDROID, "fix: Android init crash on API level 23 and below"),  # the levels overlap: the fix (#61)
    (KMP_OLD_ANDROID, "Fix cold/warm app start type detection"),  # the fix names no level
    # nor the problem
    ("The app crashes on start on older Android devices", "Fix crash on devices running API level 34+"),
])
def test_a_fix_for_the_problems_api_levels_or_without_any_is_not_objected_to(problem, headline):
    assert _objection(problem, headline) is None


def test_each_statement_is_judged_once_however_many_platform_words_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostile question of 20 KB of platform words: each statement and clause is found and judged once (it was
    searched again from the text's start for every word: minutes), and the answer is what it was."""
    calls: list[str] = []
    judge = platforms._control_statement

    def counted(statement: str) -> bool:
        calls.append(statement)
        return judge(statement)

    monkeypatch.setattr(platforms, "_control_statement", counted)
    assert named_platforms("iOS Android linux " * 1200) == {"ios", "android", "linux"}
    assert len(calls) == 1
    calls.clear()
    assert named_platforms("On iOS, iOS and iOS it crashes; Android, Linux, Linux and Android work. " * 250) == {"ios"}
    assert 0 < len(calls) <= 500  # at most once per statement (500), not once per word (1,750)
