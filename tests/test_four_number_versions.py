"""Four-number versions ("2.11.0.0": Haskell's PVP, .NET assemblies), which are also how an IPv4 address is written.

A message reads them as the customer's version where the text says so (right after the SDK's name, or a tight cue
such as "version"); elsewhere they are tentative, the customer's only if the resolved repository released exactly
that four-number version, so an address in a pasted log ("connect to 10.0.0.12 failed") is never read as one.
The rest of the version path (order, "strictly after", pre-releases, the answer's text) holds for four numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.registry import Registry
from indexer.versions import parse_tag, version_key
from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.workflow_helpers import ask
from wif_action.engines.offline.extraction import extract
from wif_action.engines.offline.versions_in_text import SdkName, find_versions
from wif_action.engines.openai_engine import OpenAIJudge
from wif_action.models import AskInput, Outcome
from wif_action.tools.llm import LLMClient

REPO = "haskell/haskell-language-server"
REGISTRY = Registry(aliases={"hls": REPO, "haskell-language-server": REPO, "sentry-python": "getsentry/sentry-python"})


@pytest.mark.parametrize(("message", "version"), [
    ("HLS 2.11.0.0 (VS Code): the quick fix leaves a space after the parenthesis", "2.11.0.0"),
    ("haskell-language-server@2.11.0.0 leaves a space after the parenthesis", "2.11.0.0"),
    ("haskell-language-server version 2.9.0.1: hover is shifted", "2.9.0.1"),
    ("We use HLS, version: 2.9.0.1. Hover is shifted", "2.9.0.1"),
    ("we're on HLS 2.11.0.0 and hover is shifted", "2.11.0.0"),
    ("HLS v2.11.0.0 shifts hover", "v2.11.0.0"),
    # "HLS" is an alias of the kind platforms have (no SDK-naming weight), yet four numbers after it are a version
    ("HLS 2.11.0.0 on GHC 9.12.2: a haskell-language-server code action breaks the file", "2.11.0.0"),
    ("HLS 2.2.0.0, cabal project (GHC 9.4): haskell-language-server can't find module A", "2.2.0.0"),
    # an address in the same message is not the version, whatever comes first
    ("connect to 10.0.0.12 failed, then HLS 2.11.0.0 crashed", "2.11.0.0"),
    ("sentry-python 2.1.0 drops events; connect to 10.0.0.12 failed", "2.1.0"),
])
def test_four_numbers_the_text_calls_a_version_are_read(message: str, version: str) -> None:
    request = extract(message, REGISTRY)
    assert (request.version, request.tentative_version) == (version, None)


@pytest.mark.parametrize(("message", "tentative"), [
    # addresses in pasted logs: at most tentative, and only a four-number release of the repository confirms them
    ("HLS: connect to 10.0.0.12 failed", "10.0.0.12"),
    ("HLS crashes; server listening on 0.0.0.0", "0.0.0.0"),
    ("HLS can't reach the proxy; ssh deploy@10.0.0.12 works", "10.0.0.12"),
    ("HLS at 10.0.0.12 never answers", "10.0.0.12"),  # "at"/"on" after the name: where it runs
    ("HLS: the client 10.0.0.3 disconnects", "10.0.0.3"),
    ("we're on 2.11.0.0 and HLS shifts hover", "2.11.0.0"),  # "on" precedes addresses too: left to the releases
    # a port or a prefix length: an address, not even tentative
    ("HLS: 192.168.1.1:8080 refused the connection", None),
    ("HLS: routes for 10.0.0.0/8 are dropped", None),
])
def test_four_numbers_the_text_does_not_call_a_version_are_only_tentative(message: str, tentative: str | None) -> None:
    request = extract(message, REGISTRY)
    assert (request.version, request.tentative_version) == (None, tentative)


def test_hostile_text_of_many_addresses_reads_no_version() -> None:
    log = "\n".join(f"connect to 10.0.{i}.{i} failed (retry {i})" for i in range(300))
    mentions = find_versions(log, [])
    assert mentions and all(mention.tentative for mention in mentions)
    assert extract(f"HLS:\n{log}", REGISTRY).version is None
    assert find_versions("HLS 1.2.3.4.5 and 1.2.3.4", [SdkName(0, 3)])[-1].tentative is True  # not adjacent


@pytest.mark.parametrize(("lower", "higher"), [
    ("2.9.0.1", "2.10.0.0"), ("2.11.0.0", "2.11.0.1"), ("2.11.0.1rc1", "2.11.0.1"), ("2.11.0.1", "2.11.1"),
    ("1.10.0.0", "1.10.0.0.1"),
])
def test_four_number_versions_order_by_their_key(lower: str, higher: str) -> None:
    low, high = parse_tag(lower), parse_tag(higher)
    assert low is not None and high is not None
    assert version_key(low) < version_key(high)


def test_trailing_zeros_are_the_same_version() -> None:
    """PEP 440: 2.11.0 and 2.11.0.0 are one version; the key says so (a customer's "2.11.0" finds 2.11.0.0)."""
    assert version_key(parse_tag("2.11.0")) == version_key(parse_tag("2.11.0.0"))  # type: ignore[arg-type]


SYMPTOM = "the quick fix that removes a redundant constraint leaves a stray space after the opening parenthesis"
FIX = "Fix stray space left after the opening parenthesis when removing a redundant constraint"


@pytest.fixture(scope="module")
def cache_and_github(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, FakeGitHub]]:
    """Four-number releases: the fix in 2.11.0.0 (#40), and in a pre-release before it (#39, never scanned)."""
    releases = [  # newest first, as GitHub lists them
        {"tag_name": "2.12.0.0", "body": "- Bump dependencies (#42)\n"},
        {"tag_name": "2.11.0.1", "body": "- Housekeeping (#41)\n"},
        {"tag_name": "2.11.0.0", "body": f"- {FIX} (#40)\n"},
        {"tag_name": "2.10.0.1-rc1", "body": f"- {FIX} (#39)\n", "prerelease": True},
        {"tag_name": "2.10.0.0", "body": "- Initial release (#1)\n"},
    ]
    pulls = [{"number": n, "title": FIX if n in (39, 40) else "Housekeeping", "merged": True}
             for n in (1, 39, 40, 41, 42)]
    with FakeGitHub() as github:
        github.add_repo(REPO, releases=releases, pulls=pulls)
        db = tmp_path_factory.mktemp("fourpart") / "cache.db"
        build_cache(db, github, [REPO], pulls="recent", max_pulls=None)
        yield db, github


@pytest.mark.slow
@pytest.mark.parametrize("message", [
    f"haskell-language-server 2.10.0.0: {SYMPTOM}. Fixed in a later release?",
    f"We're on 2.10.0.0 and in haskell-language-server {SYMPTOM}. Fixed in a later release?",  # tentative, released
])
def test_a_fix_strictly_after_a_four_number_version_is_answered(cache_and_github, message: str) -> None:
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message=message))
    assert answer.user_version == "2.10.0.0" and answer.repo == REPO
    assert answer.candidates and (answer.candidates[0].pr, answer.candidates[0].version) == (40, "2.11.0.0")
    assert "fixed in **v2.11.0.0**" in answer.message and "#39" not in answer.message  # the pre-release is never read
    assert answer.checked is not None and answer.checked.first == "2.11.0.0"


@pytest.mark.slow
def test_a_fix_released_at_the_customers_four_number_version_is_not_a_later_fix(cache_and_github) -> None:
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message=f"haskell-language-server 2.11.0.0: {SYMPTOM}. Fixed later?"))
    assert answer.user_version == "2.11.0.0" and answer.outcome == Outcome.NO_RESULT
    assert all(candidate.pr != 40 for candidate in answer.candidates)
    assert answer.checked is not None and (answer.checked.first, answer.checked.last) == ("2.11.0.1", "2.12.0.0")


@pytest.mark.slow
def test_an_address_is_never_the_customers_version(cache_and_github) -> None:
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message=f"haskell-language-server: {SYMPTOM}; connect to 10.0.0.12 "
                                                     "failed. Fixed?"))
    assert answer.outcome == Outcome.NEEDS_CLARIFICATION and answer.message.startswith("Which version of the SDK")


@pytest.mark.slow
def test_four_numbers_equal_to_a_three_number_release_are_not_confirmed(tmp_path: Path) -> None:
    """"connect to 10.0.0.0" equals a 10.0.0 by PEP 440; a repository that writes three numbers never released it."""
    with FakeGitHub() as github:
        github.add_repo(REPO, releases=[{"tag_name": "10.0.1", "body": f"- {FIX} (#41)\n"},
                                        {"tag_name": "10.0.0", "body": "- Initial release (#1)\n"}],
                        pulls=[{"number": 41, "title": FIX, "merged": True}])
        build_cache(tmp_path / "cache.db", github, [REPO], pulls="recent", max_pulls=None)
        answer, _ = ask(tmp_path / "cache.db", github.url,
                        AskInput(message=f"haskell-language-server: {SYMPTOM}; connect to 10.0.0.0 failed"))
    assert answer.outcome == Outcome.NEEDS_CLARIFICATION


@pytest.mark.parametrize(("message", "version", "tentative"), [
    ("HLS 2.11.0.0 shifts hover; connect to 10.0.0.12 failed", "2.11.0.0", None),
    ("HLS shifts hover; connect to 10.0.0.12 failed", None, "10.0.0.12"),  # a model taking the address
])
def test_the_llm_engine_reads_four_numbers_by_the_same_rule(message: str, version: str | None,
                                                            tentative: str | None) -> None:
    with FakeOpenAI() as fake:
        judge = OpenAIJudge(LLMClient("test", base_url=fake.url + "/v1", max_retries=0, timeout=30), "model-a",
                            registry=REGISTRY)
        fake.queue({"sdk": "HLS", "version": version or tentative, "problem": "hover shifts", "links": []})
        request = judge.extract_request(message)
    assert (request.repo, request.version, request.tentative_version) == (REPO, version, tentative)
