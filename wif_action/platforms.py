"""Which platforms a text is about ("On iOS, …", "Disable frame delay detection on web, linux and windows").

Why: a fix scoped to other platforms cannot fix the customer's symptom, and a hybrid SDK's bundled
SDKs are per platform (sentry-cocoa ships iOS, sentry-java Android). A platform the text names only
as the one that works ("Android looks fine", "works on Android") is not the customer's.
"""

from __future__ import annotations

import re
from functools import cache

from indexer.registry import Registry
from wif_action import lexicon


@cache
def _platform_word(words: frozenset[str]) -> re.Pattern[str]:
    """Any of the lexicon's platform words, as a whole word (built once per table)."""
    return re.compile(r"(?<![\w/.-])" + lexicon.alternation(words) + r"(?![\w-])", re.IGNORECASE)


def named_platforms(text: str) -> set[str]:
    """The platforms `text` says something happens on (those it names as working are left out)."""
    found: set[str] = set()
    platform_of = lexicon.platform_of()
    works_after, works_before = lexicon.pattern("works_after"), lexicon.pattern("works_before")
    for match in _platform_word(frozenset(platform_of)).finditer(text[:20_000]):
        word = match.group(0).lower()
        if word == "web" and not _web_as_platform(text, match):
            continue
        after, before = text[match.end():match.end() + 60], text[max(0, match.start() - 30):match.start()]
        if works_after.search(after) or works_before.search(before):
            continue
        found.add(platform_of[word])
    return found


def _web_as_platform(text: str, match: re.Match[str]) -> bool:
    """"web" as a platform ("on web", "web, linux and windows"), not "web vitals" or "webhook"."""
    before = text[max(0, match.start() - 4):match.start()].lower()
    after = text[match.end():match.end() + 2]
    return before.endswith(("on ", "for ")) or after.startswith((",", " a", ")")) or after == ""


def repository_platforms(registry: Registry, repo: str) -> set[str]:
    """The platforms a repository's SDK is for, from its registry aliases ("iOS" → sentry-cocoa)."""
    platform_of = lexicon.platform_of()
    return {platform_of[alias] for alias, target in registry.aliases.items() if target == repo and alias in platform_of}
