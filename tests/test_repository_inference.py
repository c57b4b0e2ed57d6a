"""A request that names no SDK: the repository is inferred only when its own code names point at one."""

from __future__ import annotations

import pytest

from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask
from wif_action.models import AskInput, Outcome

NOTES = {
    "acme/apple-sdk": ["- Initial release", "### Fixes\n\n- Fix empty tags on watchdog termination events (#11)\n"
                       "- Fix crash in SentryTracer when a span finishes twice (#12)\n"],
    "acme/web-sdk": ["- Initial release", "### Fixes\n\n- Fix empty tags on page load events (#21)\n"
                     "- Fix SentryTracer typings (#22)\n"],
}


@pytest.fixture(scope="module")
def cache_and_github(tmp_path_factory):
    with FakeGitHub() as github:
        for repo, bodies in NOTES.items():
            releases = [{"tag_name": f"1.{minor}.0", "body": body} for minor, body in reversed(list(enumerate(bodies)))]
            numbers = [11, 12] if repo == "acme/apple-sdk" else [21, 22]
            pulls = [{"number": n, "title": bodies[1].split(f"(#{n})")[0].rsplit("- ", 1)[-1], "merged": True}
                     for n in numbers]
            github.add_repo(repo, releases=releases, pulls=pulls)
        db = tmp_path_factory.mktemp("inference") / "cache.db"
        build_cache(db, github, list(NOTES), pulls="recent", max_pulls=None)
        yield db, github


@pytest.mark.slow
def test_a_code_name_only_one_repository_knows_decides_it(cache_and_github):
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message="Customer on 1.0.0: WatchdogTermination events have empty "
                                                     "tags. Was this fixed?"))
    assert answer.outcome in (Outcome.HIGH, Outcome.MEDIUM), answer.message
    assert answer.repo == "acme/apple-sdk" and answer.candidates[0].pr == 11
    assert answer.request is not None and answer.request.sources["repo"] == "inferred"
    assert any(line.startswith("Repository: acme/apple-sdk (inferred") for line in answer.trace)


@pytest.mark.parametrize("message", [
    "Customer on 1.0.0: events have empty tags. Was this fixed?",  # no code name at all
    "Customer on 1.0.0: SentryTracer crashes when a span finishes. Was this fixed?",  # both repositories know it
    "Customer on 9.9.9: WatchdogTermination events have empty tags.",  # no cached repository has 9.9.9
])
def test_without_a_code_name_of_one_repository_the_question_stands(cache_and_github, message):
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message=message))
    assert answer.outcome == Outcome.NEEDS_CLARIFICATION
    assert answer.message.startswith("Which SDK is this about?") and not answer.candidates
