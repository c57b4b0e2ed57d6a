"""A version written after a name the SDK shares with its framework ("React Native 8.9.2", the SDK named elsewhere).

Extraction cannot tell whose number that is; the workflow reads it as the SDK's only when the resolved
repository released exactly that version, and not so long ago that the answer would be "too old".
"""

from __future__ import annotations

import pytest

from indexer.registry import load_registry
from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask
from wif_action.engines.offline.extraction import extract
from wif_action.models import AskInput, Outcome

REPO = "getsentry/sentry-react-native"
RELEASES = ["8.8.0", "8.9.2", "8.10.0", "8.11.0"]  # oldest first
FIX = "### Fixes\n\n- Prevent crash loop from malformed recrash reports in SentryCrashDoctor (#31)\n"
QUESTION = ("{framework} {version}, iOS: the app is stuck in a crash loop from malformed recrash reports in "
            "SentryCrashDoctor. Fixed in a newer @sentry/react-native?")
REGISTRY = load_registry()


@pytest.fixture(scope="module")
def cache_and_github(tmp_path_factory):
    with FakeGitHub() as github:
        bodies = {"8.11.0": FIX}
        releases = [{"tag_name": tag, "body": bodies.get(tag, "### Fixes\n\n- Fix typings (#1)\n")}
                    for tag in reversed(RELEASES)]
        github.add_repo(REPO, releases=releases, pulls=[
            {"number": 1, "title": "Fix typings", "merged": True},
            {"number": 31, "title": "Prevent crash loop from malformed recrash reports in SentryCrashDoctor",
             "merged": True}])
        db = tmp_path_factory.mktemp("tentative") / "cache.db"
        build_cache(db, github, [REPO], pulls="recent", max_pulls=None)
        yield db, github


@pytest.mark.parametrize(("message", "tentative"), [
    (QUESTION.format(framework="React Native", version="8.9.2"), "8.9.2"),
    ("Flutter 9.1.0 on Android: crash on start. Fixed in a newer sentry_flutter?", "9.1.0"),
    ("Unity 3.2.1: a crash on quit inside sentry-unity's native layer", "3.2.1"),
    # not the customer's by the words before the name
    ("@sentry/react-native: crash loop on launch. Is it fixed in React Native 8.10.0?", None),
    ("@sentry/react-native: crash loop on launch. Works fine with React Native 8.10.0", None),
    # a platform of another SDK (Android is sentry-java's alias), or no version at all (".NET 8", "Android 14")
    ("Android 14.1.0, @sentry/react-native: crash loop on launch", None),
    (".NET 8 with Sentry.AspNetCore: requests are not traced", None),
    ("Android 14: sentry-android drops breadcrumbs", None),
])
def test_a_version_after_a_shared_name_is_only_tentative(message: str, tentative: str | None) -> None:
    request = extract(message, REGISTRY)
    assert (request.version, request.tentative_version) == (None, tentative)


def test_a_version_of_the_sdk_named_elsewhere_is_no_tentative_one() -> None:
    request = extract("Kotlin 2.1.0 broke the build of our app on sentry_flutter 8.9.0", REGISTRY)
    assert (request.version, request.tentative_version) == ("8.9.0", None)


@pytest.mark.slow
def test_a_release_of_the_resolved_repository_is_read_as_the_sdks_version(cache_and_github):
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message=QUESTION.format(framework="React Native", version="8.9.2")))
    assert answer.outcome == Outcome.HIGH, answer.message
    assert answer.user_version == "8.9.2" and answer.candidates[0].pr == 31
    assert answer.request is not None and (answer.request.version, answer.request.sources["version"]) == (
        "8.9.2", "message")
    assert any(line.startswith("Version 8.9.2: written after a name") for line in answer.trace)


@pytest.mark.parametrize("version", [
    "8.9.0",  # not a release of the repository: React Native's own number, as far as WIF knows
    "8.9",  # partial: the cache would complete it to 8.9.2, which is a guess, not a reading
])
def test_a_number_the_repository_never_released_exactly_leaves_the_version_question(cache_and_github, version):
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message=QUESTION.format(framework="React Native", version=version)))
    assert answer.outcome == Outcome.NEEDS_CLARIFICATION
    assert answer.message.startswith("Which version of the SDK") and answer.user_version is None


@pytest.mark.parametrize(("max_releases", "taken"), [(2, True), (1, False)])
def test_a_release_older_than_the_release_guard_is_not_taken(cache_and_github, max_releases, taken):
    """8.9.2 has two stable releases after it: within a guard of 2, beyond a guard of 1 (a "too old" answer from
    a number that may well be the framework's would mislead)."""
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message=QUESTION.format(framework="React Native", version="8.9.2")),
                    max_releases=max_releases)
    assert (answer.user_version == "8.9.2") is taken
    assert (answer.outcome == Outcome.NEEDS_CLARIFICATION) is not taken


def test_a_version_given_as_a_field_wins(cache_and_github):
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(version="8.8.0", message=QUESTION.format(framework="React Native",
                                                                                       version="8.9.2")))
    assert answer.user_version == "8.8.0" and answer.request is not None
    assert answer.request.sources["version"] == "given"
