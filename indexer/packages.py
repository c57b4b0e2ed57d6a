"""Which package of a repository an SDK is, for repositories that release several packages (monorepos).

A monorepo tags each package's releases apart: `@emotion/react@11.13.5` (changesets, lerna), `tokio-util-0.7.11`
(a cargo workspace), `exporters/otlp/v1.2.3` (Go modules). Read as one SDK, a customer on `@emotion/react`
11.10.0 would be answered from `@emotion/cache`'s notes, and "newer than 11.10.0" would compare across packages.
So the indexer keeps one package's releases per repository (indexer/indexing.py): the package the registry
declares (`"package"`), else the one it kept before, else the only one the tags name, else the repository's own
(plain tags `v1.2.3`, or tags carrying the repository's or one of its registry names: `tokio-1.38.0` of
tokio-rs/tokio); when none of those decides, it refuses and names the packages found, never mixing them.

A package is named by its key: the tag's package name in lower case, "" for the repository's own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from indexer.versions import parse_tag
from indexer.words import words

OWN = ""  # the key of the repository's own package
# A tag's package name and its version: "name@1.2.3", "path/v1.2.3", "name-1.2.3", "name_v1.2.3". The name starts
# with no digit nor a lone "v" before a digit, so "1.2.3-rc-1" and "v1.2.3" name none.
_NAMED = re.compile(r"^(?P<name>(?!v?\d)[^\s@]\S*?|@[^\s@/]+/[^\s@]+?)(?:@|/|[-_])(?P<version>v?\d\S*)$")
SHOWN = 8  # packages a refusal names before "and N more"


class MixedPackages(Exception):
    """The tags name several packages and nothing says which one the SDK is; `str(error)` says what to do."""


@dataclass(frozen=True)
class PackageHint:
    """What a registry says of a repository: the package declared (`"package"`), None when it declares none, and
    the names people call the SDK by (its aliases), which pick the package among several when one matches."""

    declared: str | None = None
    names: tuple[str, ...] = field(default_factory=tuple)


def tag_package(tag: str, slug: str) -> str:
    """The key of the package a release tag names ("" for the repository's own: "v1.2.3", "release-1.2",
    "tokio-1.38.0" of tokio-rs/tokio); a tag with no version is the repository's own."""
    match = _NAMED.match(tag.strip())
    if match is None or parse_tag(match.group("version")) is None:
        return OWN
    return package_key(match.group("name"), slug)


def package_key(name: str, slug: str) -> str:
    """A package name as a key: lower case; "" for the repository's name itself and for words that name no package
    ("release", "version": words.toml `tag_words`)."""
    key = name.strip().lower()
    if key in ("", ".", "v", slug.rsplit("/", 1)[-1].lower()) or key in words("tag_words"):
        return OWN
    return key


def shown(key: str, slug: str) -> str:
    """A key as people read it: the repository's own package by its name."""
    return key or f"{slug.rsplit('/', 1)[-1]} (tags without a package name)"


def choose(slug: str, tags: Iterable[str], hint: PackageHint, stored: str | None) -> str:
    """The key of the package to keep for `slug`, from its release tags (cached and fetched), the registry's
    `hint` and the key kept by the last index run (`stored`; None before the first run that chose one).

    Why the stored key before detection: a repository that tagged one package and starts tagging a second keeps
    the first, rather than refusing from then on. Raises MixedPackages."""
    found = Counter(tag_package(tag, slug) for tag in tags if parse_tag(tag) is not None)
    if hint.declared is not None:
        key = package_key(hint.declared, slug)
        if found and key not in found:
            raise MixedPackages(f"the registry says {slug} is the package '{hint.declared}', but none of its release "
                                f"tags names it; they name {_listing(found, slug)}. Correct \"package\" in the "
                                "registry entry.")
        return key
    if stored is not None:
        return stored
    if len(found) <= 1:
        return next(iter(found), OWN)
    names = {package_key(name, slug) for name in hint.names}
    own = [key for key in found if key == OWN or key in names]
    if len(own) == 1:
        return own[0]
    raise MixedPackages(f"{slug} releases {len(found)} packages from one repository ({_listing(found, slug)}); "
                        "WIF keeps one package's releases per SDK, and nothing says which one this is. Add "
                        f"\"package\": \"<name>\" to {slug}'s registry entry (the name as its tags write it).")


def _listing(found: Counter[str], slug: str) -> str:
    """"@emotion/react (32 releases), @emotion/cache (30 releases), … and 5 more", most releases first."""
    ordered = sorted(found.items(), key=lambda item: (-item[1], item[0]))
    parts = [f"{shown(key, slug)} ({count} release{'' if count == 1 else 's'})" for key, count in ordered[:SHOWN]]
    more = len(ordered) - SHOWN
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")
