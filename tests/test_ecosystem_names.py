"""A package name several repositories share, told apart by the package manager the message names.

"sentry" is a Rust crate, an Elixir hex package, a PHP composer package, a NuGet package, …: "the sentry crate
0.48.1" or "`mix deps.get` fails after bumping to sentry 13.4.0" names one of them. The words that name a manager
are the lexicon's `[[ecosystem]]` records; which manager each repository publishes to is registry data
(`"ecosystems": ["cargo"]`, generated from the release registry's `canonical` ids), so an organisation's registry
tells its own shared names apart the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from indexer.registry import Registry, RegistryError, load_registry
from tests.conftest import one_fix_per_repository
from tests.fakes.github_server import FakeGitHub
from wif_action import lexicon
from wif_action.api import ask as wif_ask
from wif_action.engines.offline.extraction import extract
from wif_action.engines.offline.judge import _code_names
from wif_action.lexicon.names import distinctive_part, in_named_ecosystem
from wif_action.lexicon.terms import analyse
from wif_action.models import Outcome
from wif_action.question import question_of

RUST, ELIXIR = "getsentry/sentry-rust", "getsentry/sentry-elixir"


@pytest.fixture(autouse=True)
def _packaged_lexicon() -> Iterator[None]:
    lexicon.use(None)
    yield
    lexicon.use(None)


def test_the_packaged_registry_says_where_each_repository_publishes() -> None:
    registry = load_registry()
    assert registry.ecosystems(RUST) == ["cargo"] and registry.ecosystems(ELIXIR) == ["hex"]
    assert {RUST, ELIXIR} <= set(registry.choices("sentry"))


def test_an_ecosystems_entry_that_is_no_list_of_names_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {"acme/gizmo-py": {"ecosystems": "pypi"}}}))
    with pytest.raises(RegistryError, match="'ecosystems' of acme/gizmo-py"):
        load_registry(path)


DART, DOTNET, JAVA, PHP, POWERSHELL = (f"getsentry/sentry-{name}" for name in ("dart", "dotnet", "java", "php",
                                                                                 "powershell"))
# Each [[ecosystem]] record, a message naming the shared "sentry" by that manager, and the repository it means.
READINGS = [
    ("cargo", "After bumping the sentry crate to 0.48.1, our reqwest calls negotiate HTTP/2", RUST),
    ("cargo", "`cargo tree -e features` shows sentry 0.48.1 turning on http2", RUST),
    ("hex", "`mix deps.get` fails after bumping to sentry 13.4.0", ELIXIR),
    ("hex", "sentry 13.4.0: the mix.exs of our umbrella app no longer compiles", ELIXIR),
    ("pub", "pubspec.yaml has sentry 8.0.0 and `flutter build web` fails", DART),
    ("nuget", "Our csproj references sentry 4.0.0 and the build warns about a downgrade", DOTNET),
    ("maven", "build.gradle pulls sentry 7.0.0 and R8 strips the breadcrumbs", JAVA),
    ("composer", "composer update moved sentry 4.0.0 and now the transport throws", PHP),
    ("psgallery", "Install-Module installed sentry 0.1.0 and Start-Sentry fails", POWERSHELL),
    ("npm", "sentry 8.0.0 from npm breaks our bundle", None),  # no "sentry" choice publishes to npm
    ("pypi", "pip resolved sentry 2.0.0 and imports fail", None),  # … nor to PyPI
    ("cocoapods", "Our Podfile pins sentry 8.0.0 and the build warns twice", None),  # … nor to CocoaPods
]


def _switched_off(name: str) -> dict:
    tables = lexicon.data()
    tables["ecosystem"] = [record for record in tables["ecosystem"] if record["name"] != name]
    return tables


def test_every_ecosystem_of_the_lexicon_is_held_by_a_message() -> None:
    assert {record["name"] for record in lexicon.data()["ecosystem"]} == {name for name, *_ in READINGS}


@pytest.mark.parametrize(("name", "message", "repo"), READINGS, ids=[f"{n}-{i}" for i, (n, *_) in enumerate(READINGS)])
def test_the_package_manager_a_message_names_narrows_a_shared_name(name: str, message: str, repo: str | None) -> None:
    registry = load_registry()
    choices = registry.choices("sentry")
    assert lexicon.ecosystems_named(message) == {name}
    assert in_named_ecosystem(registry, message, choices) == ([repo] if repo else choices)
    lexicon.use(_switched_off(name))
    assert lexicon.ecosystems_named(message) == set()


@pytest.mark.parametrize("message", [
    "sentry 13.4.0: a mix of errors and transactions is dropped",  # "mix" as a word names no manager
    "sentry 2.0.0: the hex dump in the breadcrumb is cut off",
    "sentry 2.0.0 on our Kubernetes pod loses events",
])
def test_the_same_words_in_prose_narrow_nothing(message: str) -> None:
    registry = load_registry()
    assert in_named_ecosystem(registry, message, registry.choices("sentry")) == registry.choices("sentry")


@pytest.mark.parametrize(("message", "version"), [
    ("After bumping the sentry crate to 0.48.1, our reqwest calls negotiate HTTP/2", "0.48.1"),
    ("`mix deps.get` fails after bumping to sentry 13.4.0: igniter conflict", "13.4.0"),
])
def test_a_registry_name_several_sdks_share_is_read_as_the_sdk_named(message: str, version: str) -> None:
    """With no other SDK named, "sentry" used as a package's name is the SDK the message is about: the workflow
    then narrows its repositories (before: no SDK read at all, and WIF asked "Which SDK is this about?")."""
    request = extract(message, load_registry())
    assert (request.sdk, request.repo, request.version) == ("sentry", None, version)
    assert "sentry" not in request.problem.split()[:3]


@pytest.mark.parametrize("message", [
    "Requests whose handler panics never show up in Sentry; we are on 0.34.0",  # the product, not a package
    "Flutter app, Sentry 9.1.0, no events",  # another SDK named: that one is read, as before
    # a linked repository says which: its repository, as without the shared name
    "Tags show (empty) on sentry 8.48.0: https://github.com/getsentry/sentry-cocoa/issues/5397",
])
def test_a_shared_name_not_used_as_a_package_or_beside_another_sdk_is_not_the_sdk(message: str) -> None:
    request = extract(message, load_registry())
    assert request.sdk != "sentry" and request.sdk != "Sentry"
    if "github.com" in message:
        assert request.repo == "getsentry/sentry-cocoa"


def _with_tokio(tmp_path: Path) -> Registry:
    """The packaged registry plus an operator's entry naming tokio-rs/tokio "tokio", as `wif ask` builds it."""
    data = json.loads(resources.files("indexer").joinpath("data/registry.json").read_text())
    data["repositories"]["tokio-rs/tokio"] = {"aliases": ["tokio"]}
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data))
    registry = load_registry(path)
    registry.add_package_names(list(registry.repositories), distinctive_part)
    return registry


def test_the_shared_name_before_the_customers_version_beats_another_sdk_named_as_the_runtime(tmp_path: Path) -> None:
    """"sentry 0.47.0 in a tokio app": the version is written after "sentry", and tokio (a cached repository) is
    where the customer's code runs; it has no release 0.47.0 of its own. Before, tokio was read as the SDK and WIF
    answered "tokio-rs/tokio has no release 0.47.0" (near-rust-already-fixed-hubswitchguard-wrong-thread)."""
    registry = _with_tokio(tmp_path)
    message = ("sentry 0.47.0 in a tokio app: events pick up the wrong scope when a `HubSwitchGuard` lives "
               "across `.await`. Which release fixed that?")
    assert (extract(message, registry).sdk, extract(message, registry).repo) == ("sentry", None)
    assert extract("Our tokio app on sentry 0.47.0 loses the scope", registry).sdk == "sentry"


@pytest.mark.parametrize(("message", "repo"), [
    ("tokio 1.40.0 app with sentry: events pick up the wrong scope", "tokio-rs/tokio"),  # tokio's own version
    ("Tags show (empty) on sentry 8.48.0 (sentry-cocoa)", "getsentry/sentry-cocoa"),  # spelt as only a package is
    ("Flutter app, Sentry 9.1.0, no events", "getsentry/sentry-dart"),  # one of the shared name's repositories
])
def test_a_name_spelt_as_a_package_or_one_of_the_shared_names_repositories_stays(message: str,
                                                                                   repo: str, tmp_path: Path) -> None:
    assert extract(message, _with_tokio(tmp_path)).repo == repo


NOTES = {
    "acme/gizmo-py": "### Fixes\n\n- Fix crash when the socket closes during a handshake (#21)\n",
    "acme/gizmo-js": "### Fixes\n\n- Fix panic when the socket closes during a handshake in `socket-pool` (#31)\n",
}


@pytest.fixture(scope="module")
def cache_and_github(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, FakeGitHub]]:
    db = tmp_path_factory.mktemp("ecosystems") / "cache.db"
    with one_fix_per_repository(db, NOTES) as github:
        yield db, github


def _registry(tmp_path: Path, declared: bool) -> Path:
    """An organisation's registry listing both repositories, with or without where each publishes."""
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {
        "acme/gizmo-py": {"ecosystems": ["pypi"]} if declared else {},
        "acme/gizmo-js": {"ecosystems": ["npm"]} if declared else {},
    }}))
    return path


@pytest.mark.parametrize(("message", "repo", "pr"), [
    ("pip install gizmo==1.0.0 and it crashes when the socket closes during a handshake. Fixed later?",
     "acme/gizmo-py", 21),
    ("Our package.json pins gizmo 1.0.0 and it panics when the socket closes during a handshake. Fixed later?",
     "acme/gizmo-js", 31),
])
def test_a_shared_package_name_is_answered_for_the_manager_the_message_names(
        cache_and_github: tuple[Path, FakeGitHub], tmp_path: Path, message: str, repo: str, pr: int) -> None:
    db, github = cache_and_github
    env = {"GITHUB_API_URL": github.url}
    answer = wif_ask(db, message=message, registry=_registry(tmp_path, True), engine="offline", env=env)
    assert answer.repo == repo and answer.candidates and answer.candidates[0].pr == pr
    undeclared = wif_ask(db, message=message, registry=_registry(tmp_path, False), engine="offline", env=env)
    assert undeclared.outcome == Outcome.NEEDS_CLARIFICATION and "acme/gizmo-js or acme/gizmo-py" in undeclared.message
    lexicon.use(_switched_off("pypi" if repo.endswith("py") else "npm"))
    off = wif_ask(db, message=message, registry=_registry(tmp_path, True), engine="offline", env=env)
    assert off.outcome == Outcome.NEEDS_CLARIFICATION


def test_a_kebab_case_name_only_one_choices_notes_name_picks_it(cache_and_github: tuple[Path, FakeGitHub],
                                                                 tmp_path: Path) -> None:
    """"actix-web app on sentry 0.39.0", "sentry-tower's http layer": packages and crates are named in kebab case,
    and a name of the message that the notes of one choice alone name says which (as a code name does:
    `OfflineJudge._only_one_knows`); no manager named, no registry data needed."""
    db, github = cache_and_github
    message = "gizmo 1.0.0 with socket-pool panics when the socket closes during a handshake. Fixed later?"
    answer = wif_ask(db, message=message, registry=_registry(tmp_path, False), engine="offline",
                     env={"GITHUB_API_URL": github.url})
    assert answer.repo == "acme/gizmo-js" and answer.candidates and answer.candidates[0].pr == 31
    assert [t.key for t in _code_names("actix-web app on sentry-tower's layer, a built-in")] == \
        ["actix-web", "sentry-tower", "built-in"]


def test_a_package_manager_the_request_names_weighs_as_an_sdk_name() -> None:
    """"iOS build through CocoaPods": how the SDK is installed, not what is wrong; as a full-weight term it matched
    every note about pods (h-flutter-ios-duplicate-cpp-library stayed MEDIUM, bench/ablation.md)."""
    registry = load_registry()
    message = ("Flutter, sentry_flutter 7.10.1, iOS build through CocoaPods: Xcode now prints a 'duplicate "
               "libraries' linker warning for the C++ library that comes from Sentry's pod.")
    question = question_of(extract(message, registry), registry)
    key = analyse("CocoaPods")[0].key  # the code name, keyed as the word "cocoapods" is
    assert question.terms[key].weight <= lexicon.weight("sdk_name") < question.terms["duplic"].weight
    lexicon.use(_switched_off("cocoapods"))
    assert question_of(extract(message, registry), registry).terms[key].weight > lexicon.weight("sdk_name")
