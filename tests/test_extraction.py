"""Rule-based request extraction of the offline engine: SDK, version, problem and links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.registry import load_registry
from wif_action.engines.offline import OfflineJudge
from wif_action.engines.offline.extraction import condense, extract
from wif_action.models import Request

CASES_FILE = Path(__file__).parent / "data" / "eval" / "cases.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text().splitlines()]
REGISTRY = load_registry()


def message_of(case: dict) -> str:
    """The message plus links given apart from it (spec Example B's link was a hyperlink)."""
    extra = [link for link in case.get("links") or [] if link not in case["message"]]
    return "\n".join([case["message"], *extra])


def plain(version: str | None) -> str | None:
    return version.lstrip("vV") if version else None


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_every_eval_message_gives_the_expected_repository_and_version(case: dict) -> None:
    request = extract(message_of(case), REGISTRY)
    assert (request.repo, plain(request.version)) == (case["repo"], plain(case["version"]))
    assert request.raw_text == message_of(case)


@pytest.mark.parametrize(("message", "repo", "version"), [
    ("Kotlin 2.1.0 broke the build of our app on sentry_flutter 8.9.0", "getsentry/sentry-dart", "8.9.0"),
    ("The fix for this is in 8.43.0 and they've been using 8.48.0 with the iOS SDK", "getsentry/sentry-cocoa",
     "8.48.0"),
    ("Since 2024.05.01, from 10.0.0.12, the Python SDK 2.1.0 drops events", "getsentry/sentry-python", "2.1.0"),
    ("sentry-cocoa v9 crashes on launch", "getsentry/sentry-cocoa", "v9"),
    ("Node 20.11.0 with @sentry/node 8.1.0: spans missing", "getsentry/sentry-javascript", "8.1.0"),
    ("Is it fixed in a later 2.12.x? pydantic 2.12.0 fails to pickle", "pydantic/pydantic", "2.12.0"),
    ("React Native app, crashes on Android and iOS with @sentry/react-native 6.1.0",
     "getsentry/sentry-react-native", "6.1.0"),
    ("We use @sentry/browser@7.10.0 and see dropped spans", "getsentry/sentry-javascript", "7.10.0"),
    ("sentry-sdk==2.1.0 in requirements, celery tasks lose context", "getsentry/sentry-python", "2.1.0"),
    ('implementation "io.sentry:sentry-android:7.3.0": ANRs not reported', "getsentry/sentry-java", "7.3.0"),
    ("SDK version: 8.2.1 (sentry-cocoa). Crash on launch, 2.5 seconds in", "getsentry/sentry-cocoa", "8.2.1"),
    ("Python 3.12.1 + sentry-sdk 1.40.0, on iOS 17.2 too", "getsentry/sentry-python", "1.40.0"),
    ("Upgraded from sentry-cocoa 8.1.0 to 8.2.0 and now it crashes", "getsentry/sentry-cocoa", "8.2.0"),
    # an upgrade of something else is that thing's version; the named SDK's own version wins
    ("We bumped okhttp to 4.12.0 and sentry-android 6.30.0 reports 504s twice", "getsentry/sentry-java", "6.30.0"),
    ("On sentry-cocoa 8.20.0; after they upgraded Xcode to 15.2 it crashes", "getsentry/sentry-cocoa", "8.20.0"),
    ("They upgraded React Native to 0.73.4 and use @sentry/react-native 5.15.0; builds fail",
     "getsentry/sentry-react-native", "5.15.0"),
    ("sentry-cocoa 8.1.0 at first, then upgraded to 8.20.0 and it still crashes", "getsentry/sentry-cocoa", "8.20.0"),
    ("We upgraded the SDK to 8.20.0 (sentry-cocoa) and it crashes", "getsentry/sentry-cocoa", "8.20.0"),
])
def test_versions_and_sdks_that_are_something_else_are_skipped(message: str, repo: str, version: str) -> None:
    request = extract(message, REGISTRY)
    assert (request.repo, request.version) == (repo, version)


def test_sdk_is_the_alias_as_written_and_links_are_normalised() -> None:
    request = extract("Hi team! Sentry.Serilog 6.4.0 drops logs, see "
                      "https://github.com/getsentry/sentry-dotnet/issues/5400#issuecomment-1 and "
                      "https://github.com/getsentry/sentry-dotnet/pull/5456. Fixed?", REGISTRY)
    assert request.sdk == "Sentry.Serilog"
    assert request.links == ["https://github.com/getsentry/sentry-dotnet/issues/5400",
                             "https://github.com/getsentry/sentry-dotnet/pull/5456"]


def test_problem_keeps_the_symptom_and_drops_greeting_sdk_phrase_urls_and_bare_questions() -> None:
    request = extract("Hey team, Cocoa 9.12.0 user: app crashes with NSGenericException in "
                      "urlSessionTask:setState:. See https://github.com/getsentry/sentry-cocoa/issues/7886 - "
                      "was it fixed? Is this a known bug?", REGISTRY)
    assert "NSGenericException" in request.problem and "urlSessionTask:setState:" in request.problem
    for gone in ("Hey", "9.12.0", "https://", "known bug", "was it fixed"):
        assert gone not in request.problem
    assert len(extract("crash " * 5000, REGISTRY).problem) <= 400


@pytest.mark.parametrize(("message", "problem"), [
    ("Hi team! Quick one: customer on Java SDK v8.10.0 reports that OkHttp spans have no status code. Thanks!",
     "OkHttp spans have no status code."),
    ("sentry-cocoa 8.1.0: they see crashes on launch. Thanks in advance!", "crashes on launch."),
    ("FYI - sentry-ruby 5.18.0, the customer says that Sidekiq jobs are reported twice. Cheers",
     "Sidekiq jobs are reported twice."),
    ("On 8.45.0 (sentry-cocoa) session replays are blank.", "session replays are blank."),  # SDK after its version
])
def test_who_speaks_asides_and_thanks_are_not_the_problem(message: str, problem: str) -> None:
    """"customer reports that" made "reports" a concept that matched an unrelated "Fix reporting …" entry."""
    assert extract(message, REGISTRY).problem == problem


@pytest.mark.parametrize(("message", "repo", "version"), [
    ("iOS 8.48.0 app crashes on launch with a watchdog termination", "getsentry/sentry-cocoa", "8.48.0"),
    ("Android 8.39.0 ANR reported twice", "getsentry/sentry-java", "8.39.0"),
    ("python 2.10.0 celery spans missing", "getsentry/sentry-python", "2.10.0"),
    ("on iOS 17.2 with sentry-cocoa 8.40.0 the app hangs", "getsentry/sentry-cocoa", "8.40.0"),
])
def test_platform_word_and_version_read_as_that_platforms_sdk_when_no_sdk_is_named(message, repo, version) -> None:
    request = extract(message, load_registry())
    assert (request.repo, request.version) == (repo, version)


def test_chat_speaker_labels_are_not_part_of_the_problem() -> None:
    message = ("User 1: we are on sentry-python 2.10.0\nUser 2: the celery task spans are missing after "
               "the upgrade\nUser 1: still missing today")
    request = extract(message, load_registry())
    assert request.repo == "getsentry/sentry-python" and request.version == "2.10.0"
    assert "celery task spans are missing" in request.problem
    assert "User 1" not in request.problem and "User 2" not in request.problem


def test_unknown_sdk_and_missing_version_stay_unset() -> None:
    assert extract("The Roku SDK version 2.1.0 loses device info", REGISTRY).repo is None
    # a platform word next to an SDK WIF does not know is not that platform's SDK: the question is about Roku
    request = extract("Roku SDK 2.1.0 on Android TV: crash reports lack the device model", REGISTRY)
    assert (request.sdk, request.repo, request.version) == ("Roku SDK", None, "2.1.0")
    assert extract("Our SDK 2.0.0 on Android crashes", REGISTRY).repo == "getsentry/sentry-java"
    request = extract("sentry_flutter: replays have no taps (on a recent version)", REGISTRY)
    assert (request.repo, request.version) == ("getsentry/sentry-dart", None)


def test_repository_comes_from_a_link_when_no_sdk_is_named() -> None:
    request = extract("Tags show (empty) on 8.48.0: https://github.com/getsentry/sentry-cocoa/issues/5397", REGISTRY)
    assert (request.repo, request.version) == ("getsentry/sentry-cocoa", "8.48.0")


def test_ambiguous_names_resolve_only_with_a_clear_winner() -> None:
    judge = OfflineJudge(None, REGISTRY)
    choices = ["getsentry/sentry-dart", "getsentry/sentry-java", "getsentry/sentry-dotnet"]
    dart = judge.resolve_repository_ambiguous("Flutter app, Sentry 9.1.0, no events", choices)
    assert dart == "getsentry/sentry-dart"
    assert judge.resolve_repository_ambiguous("Sentry 9.1.0 loses events", choices) is None
    assert judge.resolve_repository_ambiguous("Android and .NET MAUI", ["getsentry/sentry-java",
                                                                        "getsentry/sentry-dotnet"]) is not None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400) | st.builds(lambda a, v, b: f"{a} {v} {b}", st.text(max_size=80),
                                         st.from_regex(r"v?\d{1,3}(\.\d{1,3}){0,3}(-rc\.\d)?", fullmatch=True),
                                         st.text(max_size=80)))
@pytest.mark.slow
def test_any_text_gives_a_request_whose_version_is_in_the_text(text: str) -> None:
    request = extract(text, REGISTRY)
    assert isinstance(request, Request)
    assert request.version is None or request.version in text
    assert len(request.problem) <= 400


def test_sentences_about_the_support_case_are_not_the_problem():
    text = ("Many of the tags (for example OS) in WatchdogTermination issues show (empty). I found a GitHub issue "
            "which sounds like it could be the root cause. The fix for this issue is in 8.43.0 and they've been "
            "using 8.48.0 for quite some time already. Discover query also shows no improvement.")
    assert condense(text, [], None) == "Many of the tags (for example OS) in WatchdogTermination issues show (empty)."
