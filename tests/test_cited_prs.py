"""A release-note line without a PR of its own is judged by the other repository's PR it cites."""

from __future__ import annotations

import pytest

from indexer.registry import load_registry
from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import ask
from wif_action.models import AskInput, Entry, Release
from wif_action.subtasks.cited_prs import cited_pr, repository_names

HOST = Release(id=1, repo="pydantic/pydantic", tag="v2.12.4", version="2.12.4", version_key="k")


@pytest.mark.parametrize(("text", "cited"), [
    ("Fix field serializers on nested TypedDicts by @davidhewitt in pydantic-core#1879.",
     ("pydantic/pydantic-core", 1879)),
    ("Fix crash (acme/widget-core#77)", ("acme/widget-core", 77)),
    ("Fix crash in unknown-lib#12", None),  # a name neither bundled nor cached: not guessed
    ("Fix crash (pydantic/pydantic#12)", None),  # its own repository: the parser counts those
    ("Upgrade to Python 3.12#1 support", None),
])
def test_a_cited_pr_of_another_repository_is_found_by_slug_or_known_name(text, cited):
    names = repository_names([*load_registry().bundles("pydantic/pydantic").values(), "getsentry/sentry-python"])
    assert names["pydantic-core"] == "pydantic/pydantic-core"
    assert cited_pr(Entry(id=1, release=HOST, section="fix", text=text), names) == cited


def _ask(tmp_path, serve_pr: bool):
    line = "Fix the widget flickering on rotation by @dev in acme/widget-core#77"
    releases = [{"tag_name": "1.1.0", "body": f"### Fixes\n\n- {line}\n"}, {"tag_name": "1.0.0", "body": "- x"}]
    with FakeGitHub() as github:
        github.add_repo("acme/host", releases=releases, pulls=[])
        pulls = [{"number": 77, "title": "Fix the widget flickering on rotation", "merged": True}] if serve_pr else []
        github.add_repo("acme/widget-core", releases=[], pulls=pulls)
        db = tmp_path / "cache.db"
        build_cache(db, github, ["acme/host"], pulls="recent", max_pulls=None)
        answer, _ = ask(db, github.url, AskInput(repo="acme/host", version="1.0.0",
                                                problem="The widget flickers on rotation."))
    return answer


def test_the_cited_pr_is_the_candidate_and_its_repository_is_named(tmp_path):
    answer = _ask(tmp_path, serve_pr=True)
    top = answer.candidates[0]
    assert (answer.outcome.value, top.version, top.pr, top.repo) == ("high", "1.1.0", 77, "acme/widget-core")
    assert "[PR acme/widget-core#77](https://github.com/acme/widget-core/pull/77)" in answer.message
    assert any("judging the one it cites, acme/widget-core#77" in line for line in answer.trace)


def test_without_the_cited_pr_s_details_it_is_never_high(tmp_path):
    answer = _ask(tmp_path, serve_pr=False)
    assert answer.outcome.value == "medium" and answer.candidates[0].pr == 77
