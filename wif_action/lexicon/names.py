"""What kind of name a registry alias is: a package name only one SDK has, an "X SDK" phrase, or a platform word.

Why here: both reading a support message (which SDK is meant) and analysing the question (an SDK's own name
says which repository, not what is wrong) weigh names the same way; and `wif ask` and the Action's on-the-spot
indexing resolve a name to its repository the same way (`name_repository`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.registry import SLUG, Registry
from wif_action import lexicon

# The weights of the three kinds of name: lexicon.toml [weight] alias_package, alias_sdk_phrase, alias_platform.


def is_package_weight(weight: float) -> bool:
    """A mention of this weight is a package name only one SDK has ("@sentry/react-native", "sentry_flutter")."""
    return weight >= lexicon.weight("alias_package")


def alias_kind_weight(alias: str, repo: str) -> tuple[float, bool]:
    """(weight, names the SDK itself): package names beat "X SDK" phrases beat platform words.

    Why: "sentry_flutter" or "@sentry/react-native" can only mean one SDK, while
    "Android" or "iOS" also describe where a React Native or Flutter app runs.
    """
    name = repo.split("/", 1)[-1].lower()
    if looks_like_package(alias) or any(word in alias for word in lexicon.words("vendor_words")) or alias == name:
        return lexicon.weight("alias_package"), True
    if lexicon.pattern("sdk_phrase_alias").search(alias):
        return lexicon.weight("alias_sdk_phrase"), True
    if alias in name and alias not in lexicon.words("version_named"):
        return lexicon.weight("alias_sdk_phrase"), True
    return lexicon.weight("alias_platform"), False


def looks_like_package(alias: str) -> bool:
    """The alias is spelt as only a package is ("@sentry/react-native", "sentry_flutter", "sentry-laravel",
    "Sentry.AspNetCore"): a scope, separator or dotted part that prose words do not have."""
    return bool(re.search(r"[@/_:]|\w\.\w|-", alias))


def distinctive_part(name: str) -> str | None:
    """The part of a repository's (or a typed SDK's) name that names the project: the name without the words that
    say what kind of package it is ("anthropic" of anthropic-sdk-python or "Anthropic Python SDK", "openai" of
    openai-python, "widget" of widget-sdk); None when nothing is left to strip or what is left is no name.

    Why: people name a package by that part ("Customer on anthropic 0.40.0"), and a repository that no registry
    declares can be found by it only where a text uses it as a package's name (`Registry.add_repositories`)."""
    parts = [part for part in re.split(r"[-_.\s]+", name.strip().lower()) if part]
    generic = lexicon.words("sdk_words", "version_named", "not_a_name", "name_affixes")
    kept = [part for part in parts if part not in generic]
    if not kept or len(kept) == len(parts):
        return None
    part = "-".join(kept)
    if len(part) < 3 or not re.search(r"[a-z]", part) or part in lexicon.words("stopwords", "weak"):
        return None
    return part


def package_choices(registry: Registry, name: str) -> list[str]:
    """The repositories an SDK name given as such (a field, an engine's extracted SDK) means as a package name: as
    typed, else by its distinctive part ("Anthropic Python SDK" → "anthropic")."""
    return registry.package_choices(name) or registry.package_choices(distinctive_part(name) or "")


def in_named_ecosystem(registry: Registry, text: str, choices: list[str]) -> list[str]:
    """The choices publishing to a package manager the text names ("the sentry crate", `mix deps.get`: lexicon
    `[[ecosystem]]`) per the registry's `ecosystems`; all of them when the text names none or none publishes there.

    Why: a package name several repositories share ("sentry" is a Rust crate, an Elixir hex package, a PHP
    composer package, …) is one package per manager; naming the manager names the package."""
    named = lexicon.ecosystems_named(text)
    meant = [repo for repo in choices if named & set(registry.ecosystems(repo))] if named else []
    return meant or choices


@dataclass(frozen=True)
class Naming:
    """What an SDK name, a repository field and the request's text name: one repository, or the `choices` left
    after the package manager the text names narrowed `narrowed_from` (empty when it did not narrow them)."""

    repo: str | None = None
    choices: tuple[str, ...] = ()
    narrowed_from: tuple[str, ...] = ()


def name_repository(registry: Registry, sdk: str | None, repo: str | None, text: str) -> Naming:
    """The repository an SDK name and repository field mean, the request's words narrowing a shared name.

    Why one function: `wif ask` (`subtasks/resolve_repository`) and the Action's on-the-spot indexing
    (`commands/action_cache.repository_for`) must mean the same repository by the same words, or the Action
    indexes one repository and the answer asks for another. In order: a slug given as the repository, a name the
    registry knows, then the repositories a shared name could mean (the registry's ambiguous names, else the
    package names of cached or listed repositories, also by their distinctive part) kept to those publishing to a
    package manager the text names ("the sentry crate": cargo). A slug in the SDK field counts as given too:
    action.yml's `sdk` input takes "owner/repo", and a repository not listed is still the one to index or name."""
    found = _slug(repo) or registry.lookup(sdk) or registry.lookup(repo) or _slug(sdk)
    if found is not None:
        return Naming(repo=found)
    choices = (registry.choices(sdk) or package_choices(registry, sdk)) if sdk else []
    meant = in_named_ecosystem(registry, text, choices)
    narrowed = tuple(choices) if len(meant) < len(choices) else ()
    if len(meant) == 1:  # an SDK named by a package name one repository has ("anthropic"), or by its manager
        return Naming(repo=meant[0], narrowed_from=narrowed)
    return Naming(choices=tuple(meant), narrowed_from=narrowed)


def _slug(value: str | None) -> str | None:
    value = (value or "").strip()
    return value if SLUG.match(value) else None
