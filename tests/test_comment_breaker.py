"""Issue-comment delivery is bounded like Slack's: one total wall-clock bound per call, a circuit
breaker after a failure that would repeat, and a 401 that says which token needs which permission."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.github_server import FakeGitHub
from wif_action.app import write_github
from wif_action.tools.github_issues import GitHubWriteError, IssueThread

REPO = "acme/support"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.add_repo(REPO)
        fake.add_comment(REPO, 3, "/wif sdk: x version: 1.0.0 y")
        yield fake


def thread(github: FakeGitHub, seconds: float = 30.0) -> IssueThread:
    return IssueThread(write_github({"GITHUB_API_URL": github.url, "GITHUB_TOKEN": "t"}), REPO, 3,
                       call_seconds=seconds)


def test_a_hung_github_costs_one_bounded_call(github):
    github.add_fault(method=None, path_regex=r"/comments", status=None, times=None, delay=30)
    comments = thread(github, seconds=0.5)
    with pytest.raises(GitHubWriteError, match=r"did not answer within 0\.5 s"):
        comments.create("answer")
    seen = github.total_requests()
    with pytest.raises(GitHubWriteError, match="not attempted"):
        comments.edit(1, "progress")
    assert github.total_requests() == seen  # the breaker: no second connection


def test_a_rejected_token_says_which_permission_it_needs_and_stops_calling(github):
    github.add_fault(method="POST", path_regex=r"/comments", status=401, times=None,
                     body={"message": "Bad credentials"})
    comments = thread(github)
    with pytest.raises(GitHubWriteError) as failure:
        comments.create("answer")
    assert failure.value.status == 401
    assert "`github-token`" in failure.value.reason and "`issues: write`" in failure.value.reason
    seen = github.total_requests()
    with pytest.raises(GitHubWriteError, match="not attempted"):
        comments.create("answer again")
    assert github.total_requests() == seen


def test_a_one_off_refusal_does_not_trip_the_breaker(github):
    """422 (a body GitHub refuses) is about that call only; the next call is made."""
    github.add_fault(method="POST", path_regex=r"/comments", status=422, times=1, body={"message": "Validation"})
    comments = thread(github)
    with pytest.raises(GitHubWriteError, match="HTTP 422"):
        comments.create("answer")
    assert comments.create("answer") > 0
