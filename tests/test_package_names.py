"""A cached repository named by a package name no registry declares: its distinctive part ("anthropic" of
anthropic-sdk-python, "openai" of openai-python) or its one-word name ("requests"), only where the text uses it as
a package's name (before a version, before "SDK"/"client"/…, after an install command or an import), never as a
word in prose ("the requests fail"); a name several cached repositories share asks which (both engines).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.registry import Registry, load_registry
from tests.conftest import one_fix_per_repository
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, requested_schema
from tests.workflow_helpers import ask
from wif_action import lexicon
from wif_action.api import ask as wif_ask
from wif_action.commands.action_cache import repository_for
from wif_action.engines.offline.extraction import extract
from wif_action.lexicon.names import distinctive_part
from wif_action.models import AskInput, Outcome
from wif_action.question import question_of
from wif_action.subtasks.resolve_repository import could_be

# Repositories of tests/data/github, as an organisation's own registry would have them: none declared.
FIXTURES = ["openai/openai-python", "pydantic/pydantic", "getsentry/sentry-python", "getsentry/sentry-cocoa"]
# Made-up ones: a distinctive part ("widget"), one two repositories share ("gizmo"), a one-word common name.
MADE_UP = ["acme/widget-sdk", "acme/gizmo-py", "acme/gizmo-go", "acme/requests"]


@pytest.fixture(autouse=True)
def _packaged_lexicon() -> Iterator[None]:
    lexicon.use(None)
    yield
    lexicon.use(None)


def _empty_registry(tmp_path: Path) -> Path:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {}}))
    return path


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    """An operator's registry that declares nothing, plus the cached repositories (as `app.load_known_registry`)."""
    known = load_registry(_empty_registry(tmp_path))
    known.add_repositories(FIXTURES + MADE_UP, distinctive=distinctive_part)
    return known


@pytest.mark.parametrize(("name", "part"), [
    ("anthropic-sdk-python", "anthropic"), ("openai-python", "openai"), ("widget-sdk", "widget"),
    ("gizmo-py", "gizmo"), ("Anthropic Python SDK", "anthropic"), ("acme-widget-sdk", "acme-widget"),
    # nothing to strip, or nothing left that is a name
    ("sentry-cocoa", None), ("requests", None), ("sentry-python", None), ("sdk-python", None), ("new-sdk", None),
    ("go-sdk", None), ("js-sdk", None),
])
def test_the_distinctive_part_of_a_name(name: str, part: str | None) -> None:
    assert distinctive_part(name) == part


def test_contextual_names_are_not_aliases_and_a_declared_name_stays_declared(registry: Registry,
                                                                           tmp_path: Path) -> None:
    assert registry.lookup("widget") is None and registry.lookup("gizmo") is None  # never a name by itself
    assert registry.package_choices("widget") == ["acme/widget-sdk"]
    assert registry.package_choices("openai") == ["openai/openai-python"]
    assert registry.choices("gizmo") == ["acme/gizmo-py", "acme/gizmo-go"] and registry.choices("widget") == []
    assert registry.lookup("requests") == "acme/requests"  # a field naming the SDK by its exact name
    declared = tmp_path / "declared.json"
    declared.write_text(json.dumps({"repositories": {"acme/widget-sdk": {"aliases": ["widget"]},
                                                      "acme/requests": {}}}))
    operator = load_registry(declared)
    operator.add_repositories(MADE_UP, distinctive=distinctive_part)
    assert operator.lookup("widget") == "acme/widget-sdk" and "widget" not in operator.contextual
    assert "requests" not in operator.contextual  # the operator declared acme/requests: its name is theirs


@pytest.mark.parametrize(("message", "repo", "version"), [
    ("Customer on openai 1.40.0: streaming responses hang", "openai/openai-python", "1.40.0"),
    ("openai==1.40.0 drops the query string", "openai/openai-python", "1.40.0"),
    ("Upgraded to openai v1.40 and streaming hangs", "openai/openai-python", "v1.40"),
    ("After pip install openai, 1.40.0 hangs on streaming", "openai/openai-python", "1.40.0"),
    ("The openai SDK hangs on streaming since 1.40.0", "openai/openai-python", "1.40.0"),
    ("Customer on widget 1.2.0: the widget flickers on rotation", "acme/widget-sdk", "1.2.0"),
    ("requests 2.31.0: the requests fail with a timeout", "acme/requests", "2.31.0"),
    ("Customer on pydantic 2.5.0: validators run twice", "pydantic/pydantic", "2.5.0"),
    ("openai: streaming responses hang since 1.40.0", "openai/openai-python", "1.40.0"),
    ("Hi team,\n> requests: the session leaks sockets on 2.31.0", "acme/requests", "2.31.0"),
])
def test_a_name_used_as_a_package_names_its_repository(registry: Registry, message: str, repo: str,
                                                       version: str) -> None:
    request = extract(message, registry)
    assert (request.repo, request.version) == (repo, version)


@pytest.mark.parametrize("message", [
    "The widget flickers on rotation since 1.2.0",  # "widget" is a word here
    "the requests fail with a timeout on 2.31.0",
    "HTTP requests are 2.5 times slower",  # a measurement, not a version
    "our openai calls time out when the proxy drops the connection (1.40.0)",
    "the requests client-side hang on 2.31.0",
    "The customer says the widget: it flickers on 1.2.0",  # a colon, but no label a line starts with
    "widget://open fails on 1.2.0",  # a URL scheme
])
def test_the_same_word_in_prose_names_nothing(registry: Registry, message: str) -> None:
    request = extract(message, registry)
    assert request.repo is None and request.sdk is None


def test_a_name_several_cached_repositories_share_is_asked_about(registry: Registry) -> None:
    request = extract("gizmo 1.0.0 crashes when the socket closes", registry)
    assert (request.sdk, request.repo, request.version) == ("gizmo", None, "1.0.0")
    assert request.problem == "crashes when the socket closes"


NOTES = {
    "acme/widget-sdk": "### Fixes\n\n- Fix widget flicker on screen rotation (#11)\n",
    "acme/gizmo-py": "### Fixes\n\n- Fix crash when the socket closes during a handshake (#21)\n",
    "acme/gizmo-go": "### Fixes\n\n- Fix panic when the socket closes during a handshake (#31)\n",
}


@pytest.fixture(scope="module")
def cache_and_github(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, FakeGitHub]]:
    db = tmp_path_factory.mktemp("package-names") / "cache.db"
    with one_fix_per_repository(db, NOTES) as github:
        yield db, github


@pytest.mark.slow
def test_a_message_naming_the_package_is_answered(cache_and_github: tuple[Path, FakeGitHub]) -> None:
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(message="Customer on widget 1.0.0: the widget flickers when the "
                                                     "screen rotates. Fixed later?"))
    assert answer.repo == "acme/widget-sdk" and answer.candidates and answer.candidates[0].pr == 11


@pytest.mark.parametrize("inputs", [
    AskInput(message="gizmo 1.0.0: crash when the socket closes during a handshake. Fixed later?"),
    AskInput(sdk="Gizmo", version="1.0.0", problem="Crash when the socket closes during a handshake."),
])
def test_a_shared_name_asks_which_repository(cache_and_github: tuple[Path, FakeGitHub], inputs: AskInput) -> None:
    db, github = cache_and_github
    answer, _ = ask(db, github.url, inputs)
    assert answer.outcome == Outcome.NEEDS_CLARIFICATION and not answer.candidates
    assert "acme/gizmo-py" in answer.message and "acme/gizmo-go" in answer.message


def test_a_typed_sdk_name_finds_the_repository_by_its_distinctive_part(
        cache_and_github: tuple[Path, FakeGitHub]) -> None:
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(sdk="Widget JS SDK", version="1.0.0",
                                             problem="The widget flickers when the screen rotates."))
    assert answer.repo == "acme/widget-sdk"
    assert answer.outcome in (Outcome.HIGH, Outcome.MEDIUM)


def test_the_llm_engine_gets_the_same_choices(cache_and_github: tuple[Path, FakeGitHub]) -> None:
    """The LLM reads "gizmo" as the SDK; the resolve step shows it the two cached repositories it could mean and
    takes its pick (only one of them)."""
    db, github = cache_and_github
    seen: list[str] = []

    def respond(body: dict) -> Any:
        schema, _ = requested_schema(body)
        if schema == "ExtractedRequest":
            return {"sdk": "gizmo", "version": "1.0.0", "problem": "Panic when the socket closes.", "links": []}
        if schema == "RepositoryChoice":
            seen.append(body["messages"][-1]["content"])
            return {"repository": "acme/gizmo-go", "reason": "a panic is Go's"}
        return None

    with FakeOpenAI(respond) as openai:
        answer, _ = ask(db, github.url, AskInput(message="gizmo 1.0.0: our Go service panics when the socket "
                                                         "closes during a handshake."),
                        engine="openai", openai_url=openai.url)
    assert len(seen) == 1 and "acme/gizmo-py" in seen[0] and "acme/gizmo-go" in seen[0]
    assert answer.repo == "acme/gizmo-go"


def test_a_package_name_counts_little_in_the_question_like_any_sdk_name(registry: Registry) -> None:
    """"anthropic" in "Customer on anthropic 0.40.0 …" says which repository, not what is wrong, as "sentry-cocoa"
    does: the question weighs it as an SDK name (lexicon weight `sdk_name`), or it would match every note that
    names the project."""
    for message in ("Customer on openai 1.40.0: streaming responses hang", "The openai SDK hangs on streaming"):
        question = question_of(extract(message, registry), registry)
        assert question.terms["openai"].weight <= lexicon.weight("sdk_name")
        assert question.terms["stream"].weight > lexicon.weight("sdk_name")


def _declared(tmp_path: Path) -> Path:
    """An operator's registry listing repositories without declaring their package names."""
    path = tmp_path / "declared.json"
    path.write_text(json.dumps({"repositories": {"acme/doohickey-sdk": {}, "acme/gadget-py": {},
                                                 "acme/gadget-go": {}}}))
    return path


@pytest.mark.parametrize(("message", "outcome", "phrase"), [
    # listed, not cached: the operator is told what to index instead of "I don't know the SDK"
    ("Customer on doohickey 2.0.0: crash on start. Fixed?", Outcome.FAILED, "no releases of acme/doohickey-sdk"),
    ("The doohickey crashes on start since 2.0.0. Fixed?", Outcome.NEEDS_CLARIFICATION, "Which SDK"),
    ("gadget 2.0.0: crash on start. Fixed?", Outcome.NEEDS_CLARIFICATION, "acme/gadget-py or acme/gadget-go"),
])
def test_a_listed_repository_is_named_by_its_package_name_too(cache_and_github: tuple[Path, FakeGitHub],
                                                              tmp_path: Path, message: str, outcome: Outcome,
                                                              phrase: str) -> None:
    db, github = cache_and_github
    answer = wif_ask(db, message=message, registry=_declared(tmp_path), engine="offline",
                     env={"GITHUB_API_URL": github.url})
    assert answer.outcome == outcome and phrase in answer.message


@pytest.mark.parametrize(("inputs", "repo"), [
    (AskInput(message="doohickey 2.0.0 crashes on start"), "acme/doohickey-sdk"),
    (AskInput(sdk="Doohickey SDK", version="2.0.0", problem="Crash on start."), "acme/doohickey-sdk"),
    (AskInput(message="The doohickey crashes on start since 2.0.0"), None),
    (AskInput(sdk="gadget", version="2.0.0", problem="Crash on start."), None),  # two listed: no guess
])
def test_the_actions_on_the_spot_indexing_finds_a_listed_repository_by_its_package_name(
        tmp_path: Path, inputs: AskInput, repo: str | None) -> None:
    registry = load_registry(_declared(tmp_path))
    registry.add_package_names(list(registry.repositories), distinctive_part)
    assert repository_for(inputs, registry) == repo


@pytest.mark.parametrize(("message", "repo"), [
    # the whole phrase is the package's name, not the packaged registry's "Python SDK" (sentry-python) after it
    ("Customer on the Widget Python SDK 1.2.0: the widget flickers on rotation", "acme/widget-sdk"),
    ("widget python sdk (1.2.0): the widget flickers on rotation", "acme/widget-sdk"),
    # … while "Python SDK" alone is still the registry's
    ("Customer on the Python SDK 2.3.1: celery spans are missing", "getsentry/sentry-python"),
])
def test_a_package_name_before_a_platform_sdk_phrase_names_its_own_sdk(message: str, repo: str) -> None:
    packaged = load_registry()
    packaged.add_repositories([*MADE_UP, "getsentry/sentry-python"], distinctive=distinctive_part)
    assert extract(message, packaged).repo == repo


def test_an_ambiguous_name_of_the_registry_lists_a_few_choices_and_counts_the_rest(
        cache_and_github: tuple[Path, FakeGitHub]) -> None:
    db, github = cache_and_github
    answer, _ = ask(db, github.url, AskInput(sdk="sentry", version="1.0.0", problem="Crash on start."))
    assert answer.outcome == Outcome.NEEDS_CLARIFICATION
    assert answer.message.startswith("\u201csentry\u201d could be getsentry/sentry-")
    assert re.search(r"(?:getsentry/sentry-[a-z-]+, ){4}getsentry/sentry-[a-z-]+ or 2 others\.", answer.message)


def test_the_llm_engines_sdk_named_by_one_repositorys_package_name_needs_no_choice(
        cache_and_github: tuple[Path, FakeGitHub]) -> None:
    """"widget" from the LLM's extraction is acme/widget-sdk's package name alone: resolved without asking the
    model to choose."""
    db, github = cache_and_github
    schemas: list[str | None] = []

    def respond(body: dict) -> Any:
        schema, _ = requested_schema(body)
        schemas.append(schema)
        if schema == "ExtractedRequest":
            return {"sdk": "widget", "version": "1.0.0", "problem": "The widget flickers on rotation.", "links": []}
        return None

    with FakeOpenAI(respond) as openai:
        answer, _ = ask(db, github.url, AskInput(message="Customer on widget 1.0.0: the widget flickers when the "
                                                         "screen rotates."), engine="openai", openai_url=openai.url)
    assert answer.repo == "acme/widget-sdk" and "RepositoryChoice" not in schemas


@pytest.mark.parametrize(("inputs", "repo"), [
    (AskInput(sdk="sentry", version="0.34.0", problem="The sentry crate panics on startup."), "getsentry/sentry-rust"),
    (AskInput(sdk="sentry", version="10.1.0", problem="After mix deps.get the logger handler crashes."),
     "getsentry/sentry-elixir"),
    (AskInput(message="Customer on the sentry crate 0.34.0: it panics on startup. Fixed?"), "getsentry/sentry-rust"),
    (AskInput(message="cargo add sentry 0.34.0, then the app panics on startup"), "getsentry/sentry-rust"),
    (AskInput(message="sentry-elixir 10.1.0: the logger handler crashes"), "getsentry/sentry-elixir"),
    (AskInput(sdk="sentry", version="1.0.0", problem="Events are dropped."), None),  # shared, nothing narrows it
    # action.yml's `sdk` input takes owner/repo: a repository no registry lists is still the one to index
    (AskInput(sdk="acme/widget", version="1.0.0", problem="Crash on start."), "acme/widget"),
])
def test_the_on_the_spot_indexing_and_wif_ask_mean_the_same_repository(example_cache_path: Path,
                                                                      shared_fake_github: FakeGitHub,
                                                                      inputs: AskInput, repo: str | None) -> None:
    """A name several SDKs share ("sentry": the Rust crate, the Elixir hex package, …) narrowed by the package
    manager the question names: the Action indexes on the spot the repository `wif ask` then answers about (one
    resolver, `lexicon.names.name_repository`), not none ("no known SDK") nor another. The example cache has
    neither, so the answer names the repository it needs; unresolved, both ask which."""
    registry = load_registry(None)
    registry.add_package_names(list(registry.repositories), distinctive_part)
    answer = wif_ask(example_cache_path, sdk=inputs.sdk, version=inputs.version, problem=inputs.problem,
                     message=inputs.message, engine="offline", env={"GITHUB_API_URL": shared_fake_github.url})
    assert repository_for(inputs, registry) == answer.repo == repo
    if repo is None:
        assert answer.outcome == Outcome.NEEDS_CLARIFICATION and "could be" in answer.message
    else:
        assert answer.outcome == Outcome.FAILED and f"no releases of {repo}" in answer.message


@pytest.mark.parametrize(("choices", "said"), [
    (["a/x"], "\u201cx\u201d could be a/x"),
    (["a/x", "b/x"], "\u201cx\u201d could be a/x or b/x"),
    ([f"o/x{i}" for i in range(6)], "\u201cx\u201d could be o/x0, o/x1, o/x2, o/x3, o/x4 or o/x5"),
    ([f"o/x{i}" for i in range(8)], "\u201cx\u201d could be o/x0, o/x1, o/x2, o/x3, o/x4 or 3 others"),
])
def test_a_shared_name_is_listed_the_same_way_by_wif_ask_and_the_action(choices: list[str], said: str) -> None:
    """`could_be`: wif ask's clarifying question and the Action's refusal to index on the spot list a shared name's
    repositories alike, and the caller's list is left as it was."""
    given = list(choices)
    assert could_be("x", given) == said and given == choices
