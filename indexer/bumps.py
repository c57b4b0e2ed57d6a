"""Bundled-SDK bumps in a hybrid SDK's release notes ("Bump Cocoa SDK from v8.13.0 to v8.14.2 (#3370)").

Why: React Native, Flutter, .NET, Unity and Android ship other SDKs inside them, and their notes
are the only record of which bundled release each of their releases carries. A fix made in the
bundled SDK reaches the customer through the first host release whose bump covers it.
Versions follow the tag rules of indexer.versions; one that does not parse is kept as text
(`from_version`/`to_version` None) so the bump is never followed on a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from packaging.version import Version

from indexer.release_notes.sections import commit_prefix_pattern
from indexer.versions import parse_tag
from indexer.words import alternation, words

# "Bump Cocoa SDK from v8.13.0 to v8.14.2", "Bump Sentry Android SDK to 5.3.0", "Bump `sentry-native` SDK to …",
# "Bump: Sentry-Android to 6.1.0 and Sentry-Cocoa to 7.x (#N)", "Bump sentry-cocoa from 8.1.0 to 8.2.0".
# Without the word "SDK" the name must read as a Sentry package ("sentry-cocoa"), so "Bump Gradle from
# v8.9.0 to v8.10.0" and "Bump CLI from …" are not bundled SDKs; names still go through the registry.
_NAME = r"(?:Sentry[\s-]+)?`?(?P<name>[A-Za-z.][\w.-]{0,30})`?"
_SENTRY_NAME = r"`?(?P<name>sentry-[A-Za-z][\w.-]{0,30})`?"
_RANGE = (r"(?:from\s+\[?`?(?P<from>[^\s`\]\[()]+)`?\]?(?:\([^)]*\))?\s+)?"
          r"to\s+(?:version\s+)?\[?`?(?P<to>[^\s`\]\[()]+)`?")
# A bump line's start: a list marker, any conventional-commit prefix ("chore(deps): ", "feat: "), then a verb of
# words.toml `bump_verbs` ("Bump", "Update", "Upgraded"): the wordings hybrid SDKs' notes use for the same act. An
# "Update"/"Upgrade" line (`range_only_bump_verbs`) counts only with a from-version: the to-only ones
# ("chore(deps): update Java SDK to v8.37.1", sentry-dotnet 6.x) cost answers when followed (words.toml).
_VERB = r"^\s*(?:[-*+]\s*)?(?:{prefix}\s*)?(?P<verb>{verbs})(?:s|d|ed)?:?\s+(?:the\s+)?"
# "Bump JavaScript Sibling SDKs from v10.52.0 to v10.60.0" (sentry-capacitor: @sentry/browser, /vue, /react … move
# together): the packages of one SDK bumped as a set.
_SDK = r"(?:\s+Sibling)?\s+SDKs?"
# The range before the name: "Update from v7.61.0 to v7.63.0 of JavaScript SDKs" (sentry-electron 4.x–5.x).
_RANGE_FIRST = (r"(?:from\s+\[?`?(?P<from>[^\s`\]\[()]+)`?\]?\s+)?to\s+\[?`?(?P<to>[^\s`\]\[()]+)`?\]?\s+of\s+")


def bump_verbs() -> list[str]:
    """The verbs a bump line starts with (words.toml `bump_verbs`), sorted: the store looks for them first."""
    return sorted(words("bump_verbs"))


def _verb() -> str:
    return _VERB.format(prefix=commit_prefix_pattern(), verbs=alternation(words("bump_verbs")))


@lru_cache(maxsize=1)
def _bump_line() -> re.Pattern[str]:
    return re.compile(
        rf"{_verb()}(?:{_NAME}{_SDK}\s+(?:\([^)]*\)\s+)?|{_SENTRY_NAME.replace('name', 'bare')}\s+){_RANGE}",
        re.IGNORECASE,
    )


@lru_cache(maxsize=1)
def _range_first() -> re.Pattern[str]:
    return re.compile(rf"{_verb()}{_RANGE_FIRST}{_NAME}{_SDK}\b", re.IGNORECASE)


# Any one-word name ("Bump `pydantic-core` to v2.14.3"): accepted only for names the registry declares. After
# "Sentry" ("Bump Sentry Android from v8.51.0 to v8.53.0": sentry-godot names its bundled SDKs so) only with a
# from-version: the to-only lines of that shape in the fixtures ("Bump: Sentry Cocoa to 7.11.0 and Sentry Android
# to 5.7.0", old sentry-react-native/sentry-dart) are never followable and stay unread as they were.
@lru_cache(maxsize=1)
def _declared_bump() -> re.Pattern[str]:
    return re.compile(
        rf"{_verb()}(?P<sentry>Sentry[\s-]+)?`?(?P<name>[A-Za-z.][\w.-]{{0,40}})`?\s+(?:\([^)]*\)\s+)?{_RANGE}",
        re.IGNORECASE)


# A second bump in the same line: "… and Sentry-Cocoa to 7.x".
_AND_BUMP = re.compile(rf"\s*(?:,|and|&)\s+(?:{_NAME}(?:{_SDK})?\s+){_RANGE}", re.IGNORECASE)

_VERSION_TEXT = re.compile(r"^v?\d+\.\d+")


@dataclass(frozen=True)
class Bump:
    """One bump line: the bundled SDK's name as written, and the versions it moved between."""

    name: str
    from_text: str | None
    to_text: str
    from_version: Version | None
    to_version: Version | None
    text: str

    @property
    def followable(self) -> bool:
        """Whether the bundled releases it brings in can be listed: both ends are versions."""
        return self.from_version is not None and self.to_version is not None


def parse_bump(line: str) -> Bump | None:
    """The (first) bump a release-note line announces, or None when it is not a bundled-SDK bump."""
    bumps = parse_bumps(line)
    return bumps[0] if bumps else None


def parse_bumps(line: str, declared: Iterable[str] = ()) -> list[Bump]:
    """Every bundled-SDK bump a release-note line announces ("Bump: A to 1.0 and B to 2.0").

    `declared`: bundled names (one spelling, `bundled_name`) a registry declares for this repository; a
    bump of one of them needs no "SDK" in its wording ("Bump `pydantic-core` to v2.14.3")."""
    match = _bump_line().match(line)
    if match and _loose(match):
        return []
    if not match and (first := _range_first().match(line)) is not None:
        return [] if _loose(first) else [_bump(first.group("name"), first, line)]
    if not match:
        generic = _declared_bump().match(line)
        if generic is None or bundled_name(generic.group("name")) not in set(declared) or _loose(generic):
            return []
        if generic.group("sentry") and generic.group("from") is None:
            return []  # "Bump: Sentry Cocoa to 7.11.0": never followable; see _declared_bump
        return [_bump(generic.group("name"), generic, line)]
    bumps = [_bump(match.group("name") or match.group("bare"), match, line)]
    position = match.end()
    while (more := _AND_BUMP.match(line, position)) is not None:
        bumps.append(_bump(more.group("name"), more, line))
        position = more.end()
    return bumps


def _loose(match: re.Match[str]) -> bool:
    """Whether a line worded with a verb of words.toml `range_only_bump_verbs` ("Update", "Upgrade") names no
    from-version ("chore(deps): update Java SDK to v8.37.1"): not read as a bump (see words.toml)."""
    return match.group("verb").lower() in words("range_only_bump_verbs") and match.group("from") is None


def _bump(name: str, match: re.Match[str], line: str) -> Bump:
    start, end = match.group("from"), match.group("to").rstrip(".,;:")
    return Bump(name=name, from_text=start, to_text=end, from_version=_version(start), to_version=_version(end),
                text=line.strip())


def _version(text: str | None) -> Version | None:
    """A version as tags write it ("v8.14.2", "8.0.0-beta.1"); a commit hash or branch is not one."""
    return parse_tag(text) if text and _VERSION_TEXT.match(text) else None


def bundled_name(name: str) -> str:
    """A bump's SDK name in one spelling ("javascript", "sentry-native" → "native"), for registry lookups."""
    key = name.strip("`").lower()
    return key.removeprefix("sentry-")
