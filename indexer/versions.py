"""Version parsing for release tags and user-typed versions.

Tags come as `8.1.0`, `v8.1.0`, `sentry-cocoa@8.1.0`, `@sentry/browser@8.0.0`,
`release-8.0`; users type `8.48`, `v9`, `8.0.0-beta.3`. Everything is parsed
with `packaging` and turned into a fixed-width sort key so that "releases
strictly after V, oldest first" is one indexed string comparison in SQLite.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

_TRAILING_VERSION = re.compile(r"(\d+(?:\.\d+){0,6}(?:[-._+]?[A-Za-z][A-Za-z0-9.+-]{0,40})?)$")
_PHASES = {"dev": "0", "a": "1", "b": "2", "rc": "3", None: "5"}
_WIDTH = 12
_PARTS = 6
_MAX_NUMBER = 10**_WIDTH - 2  # the key stores post + 1, and 10**_WIDTH - 1 stands for "no dev part"
_MAX_EPOCH = 9999
_LOCAL_SEPARATORS = re.compile(r"[._-]")
# A version written in prose ("v8.52.0", "8.0.0-beta.1"; at least major.minor; a sentence's final dot is
# not part of it), group 1 without the "v".
# The one rule for "does this text name a version" (claim checks, reason scrubbing, extraction checks).
VERSION_IN_TEXT = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)*(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)(?!\w|\.\w)",
                             re.IGNORECASE)


def parse_tag(tag: str | None) -> Version | None:
    """Parse a release tag or a user-typed version; None when it is not a version."""
    if not tag:
        return None
    text = tag.strip()[:100]
    text = text.rsplit("@", 1)[-1].rsplit("/", 1)[-1]
    for candidate in (text, _trailing(text)):
        if candidate:
            try:
                version = Version(candidate)
            except InvalidVersion:
                continue
            if _orderable(version):
                return version
    return None


def _orderable(version: Version) -> bool:
    """Whether `version_key` orders it exactly (its fields are fixed-width); others are not versions.

    Why: a clamped 13-digit number or a 7th release part would tie with, or sort before,
    versions it is greater than, and "releases strictly after V" would then be wrong.
    """
    numbers = [*version.release[:_PARTS], version.pre[1] if version.pre else 0, version.post or 0,
               version.dev or 0]
    return version.epoch <= _MAX_EPOCH and not any(version.release[_PARTS:]) and max(numbers) <= _MAX_NUMBER


def _trailing(text: str) -> str | None:
    match = _TRAILING_VERSION.search(text)
    return match.group(1) if match else None


def version_key(version: Version) -> str:
    """A fixed-width string whose lexicographic order is the PEP 440 order.

    Why: SQLite compares TEXT bytewise, and an indexed `version_key > ?` beats
    loading every release into Python to compare `Version` objects.
    """
    release = [min(part, 10**_WIDTH - 1) for part in version.release[:_PARTS]]
    release += [0] * (_PARTS - len(release))
    parts = [f"{version.epoch:04d}"] + [f"{part:0{_WIDTH}d}" for part in release]
    if version.pre:
        phase, number = _PHASES[version.pre[0]], version.pre[1]
    elif version.dev is not None and version.post is None:
        phase, number = _PHASES["dev"], 0
    else:
        phase, number = _PHASES[None], 0
    parts.append(f"{phase}{number:0{_WIDTH}d}")
    post = -1 if version.post is None else version.post
    parts.append(f"{post + 1:0{_WIDTH}d}")
    dev = version.dev if version.dev is not None else 10**_WIDTH - 1
    parts.append(f"{dev:0{_WIDTH}d}")
    parts.append(_local_key(version.local))
    return ".".join(parts)


def _local_key(local: str | None) -> str:
    """PEP 440 order of a local part ("+build.12"): segment by segment, numbers by value and after words."""
    if not local:
        return ""
    return ".".join(_local_segment(segment) for segment in _LOCAL_SEPARATORS.split(local))


def _local_segment(segment: str) -> str:
    if segment.isdigit():
        digits = str(int(segment))
        return f"n{len(digits):03d}{digits}"
    return "a" + segment


def display_version(tag: str) -> str:
    """The tag as people write it in answers: without a leading `v` or package prefix."""
    text = tag.rsplit("@", 1)[-1]
    return text[1:] if text[:1] in ("v", "V") and text[1:2].isdigit() else text


def release_prefix_matches(candidate: Version, typed: Version, typed_text: str) -> bool:
    """Whether an incomplete user version ("8.48", "v9") is a prefix of a release version."""
    parts = len(_numeric_parts(typed_text))
    return parts > 0 and candidate.release[:parts] == typed.release[:parts]


def _numeric_parts(text: str) -> list[str]:
    core = text.strip().lstrip("vV").split("-", 1)[0].split("+", 1)[0]
    return [p for p in core.split(".") if p.isdigit()]


def is_quad(text: str) -> bool:
    """Four numbers without a "v" ("2.11.0.0", "10.0.0.12"): a version or an IPv4 address."""
    parts = text.split(".")
    return len(parts) == 4 and all(part.isdigit() for part in parts)


def is_complete(text: str) -> bool:
    """True when the user typed at least major.minor.patch (or a pre-release suffix)."""
    return len(_numeric_parts(text)) >= 3 or bool(re.search(r"[A-Za-z]", text.strip().lstrip("vV")))
