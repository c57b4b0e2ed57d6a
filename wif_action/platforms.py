"""Which platforms a text is about ("On iOS, …", "Disable frame delay detection on web, linux and windows").

Why: a fix scoped to other platforms cannot fix the customer's symptom, and a hybrid SDK's bundled
SDKs are per platform (sentry-cocoa ships iOS, sentry-java Android). A platform the text names only
as the one that works ("Android looks fine", "works on Android") is not the customer's.
"""

from __future__ import annotations

import re

from indexer.registry import Registry

PLATFORMS = {
    "ios": "ios", "ipados": "ios", "iphone": "ios", "ipad": "ios", "macos": "macos", "mac catalyst": "macos",
    "tvos": "tvos", "watchos": "watchos", "visionos": "visionos", "android": "android", "web": "web",
    "browser": "web", "browsers": "web", "linux": "linux", "windows": "windows",
}
_WORD = re.compile(r"(?<![\w/.-])(" + "|".join(sorted(map(re.escape, PLATFORMS), key=len, reverse=True))
                   + r")(?![\w-])", re.IGNORECASE)
_FINE_AFTER = re.compile(r"^[\s,:()-]{0,3}(?:\w+\s+){0,3}?(?:looks?|is|are|seems?|works?|worked|has|have|runs?)"
                         r"\s+(?:fine|ok|okay|good|them|it|normal(?:ly)?|correct(?:ly)?|as expected)\b"
                         r"|^[\s,:()-]{0,3}(?:is|are)\s+(?:not|un)\s*affected", re.IGNORECASE)
_FINE_BEFORE = re.compile(r"\b(?:works?|fine|ok|okay|not on|except(?: on)?|unlike(?: on)?|but not(?: on)?)"
                          r"\s+(?:fine\s+)?(?:on|in)?\s*$", re.IGNORECASE)


def named_platforms(text: str) -> set[str]:
    """The platforms `text` says something happens on (those it names as working are left out)."""
    found: set[str] = set()
    for match in _WORD.finditer(text[:20_000]):
        word = match.group(1).lower()
        if word == "web" and not _web_as_platform(text, match):
            continue
        after, before = text[match.end():match.end() + 60], text[max(0, match.start() - 30):match.start()]
        if _FINE_AFTER.search(after) or _FINE_BEFORE.search(before):
            continue
        found.add(PLATFORMS[word])
    return found


def _web_as_platform(text: str, match: re.Match[str]) -> bool:
    """"web" as a platform ("on web", "web, linux and windows"), not "web vitals" or "webhook"."""
    before = text[max(0, match.start() - 4):match.start()].lower()
    after = text[match.end():match.end() + 2]
    return before.endswith(("on ", "for ")) or after.startswith((",", " a", ")")) or after == ""


def repository_platforms(registry: Registry, repo: str) -> set[str]:
    """The platforms a repository's SDK is for, from its registry aliases ("iOS" → sentry-cocoa)."""
    return {PLATFORMS[alias] for alias, target in registry.aliases.items() if target == repo and alias in PLATFORMS}
