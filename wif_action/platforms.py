"""Which platforms a text is about ("On iOS, …", "Disable frame delay detection on web, linux and windows").

Why: a fix scoped to other platforms cannot fix the customer's symptom, and a hybrid SDK's bundled
SDKs are per platform (sentry-cocoa ships iOS, sentry-java Android). A platform the text names only
as the one that works ("Android looks fine", "works on Android", or by contrast: "on Android the feedback
appears, on iOS nothing arrives") is not the customer's.
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
    text = text[:20_000]
    platform_of = lexicon.platform_of()
    works_after, works_before = lexicon.pattern("works_after"), lexicon.pattern("works_before")
    named: list[tuple[str, re.Match[str]]] = []
    for match in _platform_word(frozenset(platform_of)).finditer(text):
        word = match.group(0).lower()
        if word == "web" and not _web_as_platform(text, match):
            continue
        after, before = text[match.end():match.end() + 60], text[max(0, match.start() - 30):match.start()]
        if works_after.search(after) or works_before.search(before) \
                or _control_statement(_statement_at(text, match)):
            continue
        named.append((platform_of[word], match))
    found = {platform for platform, match in named if not _works_by_contrast(text, platform, match, named)}
    return found | _labelled_platforms(text)


def _labelled_platforms(text: str) -> set[str]:
    """The platforms of a line's "/"-joined label ("Native/macOS: …" → macos, "Android NDK/Linux: …"): the label
    scopes the line, so each part that starts with a platform word counts, though a platform word after "/" is
    otherwise read as a path."""
    platform_of, words = lexicon.platform_of(), _platform_word(frozenset(lexicon.platform_of()))
    parts = [part.strip() for label in lexicon.pattern("platform_label").finditer(text)
             for part in label["label"].split("/")]
    return {platform_of[found.group(0).lower()] for part in parts if (found := words.match(part)) is not None}


def _statement_at(text: str, match: re.Match[str]) -> str:
    """The statement holding `match`: its sentence, or the part of it between ";" (lexicon `statement_break`)."""
    breaks = lexicon.pattern("statement_break")
    starts = [found.end() for found in breaks.finditer(text, 0, match.start())]
    stop = breaks.search(text, match.end())
    return text[(starts[-1] if starts else 0):(stop.end() if stop else len(text))]


def _control_statement(statement: str) -> bool:
    """"…fails with a certificate error; Intel Macs and Linux runners work.": a statement whose verb is what works
    (`works_last`), that complains of nothing, names no failure and sets nothing against it ("but", "although":
    the other side of a contrast may be the symptom) is the customer's control case as a whole, however far its
    platform is from its verb. Why: "works fine" right after the platform is only one way to say it; a platform
    read from the control case objected the right fix as "about macos, and the problem is on linux"."""
    return bool(lexicon.pattern("works_last").search(statement)) and not any(
        lexicon.pattern(name).search(statement) for name in ("complains", "names_failure", "contrast_word"))


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


def _works_by_contrast(text: str, platform: str, match: re.Match[str],
                       named: list[tuple[str, re.Match[str]]]) -> bool:
    """"…, on Android the feedback appears in the issue, on iOS nothing arrives at all": in a sentence naming two
    platforms, one whose clause complains of nothing, while another platform's clause does, is named as the one
    that works."""
    complains = lexicon.pattern("complains")
    start, end = _sentence(text, match)
    if complains.search(_clause(text, match, start, end)):
        return False
    return any(other_platform != platform and start <= other.start() < end
               and complains.search(_clause(text, other, start, end)) for other_platform, other in named)


def _sentence(text: str, match: re.Match[str]) -> tuple[int, int]:
    """Where the sentence holding `match` starts and ends."""
    starts = [found.end() for found in _SENTENCE_END.finditer(text, 0, match.start())]
    stop = _SENTENCE_END.search(text, match.end())
    return (starts[-1] if starts else 0), (stop.start() if stop else len(text))


def _clause(text: str, match: re.Match[str], start: int, end: int) -> str:
    """The clause of the sentence `start:end` holding `match`, between the lexicon's `contrast_break`s."""
    breaks = list(lexicon.pattern("contrast_break").finditer(text, start, end))
    before = [found.end() for found in breaks if found.end() <= match.start()]
    after = [found.start() for found in breaks if found.start() >= match.end()]
    return text[(before[-1] if before else start):(after[0] if after else end)]


def _web_as_platform(text: str, match: re.Match[str]) -> bool:
    """"web" as a platform ("on web", "web, linux and windows"), not "web vitals" or "webhook"."""
    before = text[max(0, match.start() - 4):match.start()].lower()
    after = text[match.end():match.end() + 2]
    return before.endswith(("on ", "for ")) or after.startswith((",", " a", ")")) or after == ""


MAX_API_LEVEL = 99


def as_api_levels(text: str) -> str:
    """The text with each Android release it names written as its API level ("Android 6.0 and older" → "Android API
    level 23 and older", "Android 6/7" → "Android API level 23-24"; lexicon `[android_api_level]`).

    Why: customers name the Android release their users run, release notes the API level a fix is for ("crash on
    Android API levels 23 and below"); both name the same devices."""
    if "ndroid" not in text:
        return text
    return lexicon.pattern("android_version").sub(_api_level_of, text)


def _api_level_of(match: re.Match[str]) -> str:
    low = _level(match["version"])
    high = _level(match["upto"]) if match["upto"] else low
    if low is None or high is None or high < low:
        return match.group(0)
    return f"Android API {low}" + (f"-{high}" if high != low else "")


def _level(version: str) -> int | None:
    """The API level of an Android release as written ("4.0", "7.1"), else of its major ("6.0" is "6")."""
    levels = lexicon.android_api_levels()
    return levels.get(version, levels.get(version[:-2] if version.endswith(".0") else version))


def api_levels(text: str) -> frozenset[int]:
    """The Android API levels a text names ("crash on Android API levels 23 and below" → 1…23; "devices running
    API level 34+" → 34…99; "Android 6.0 and older" → 1…23: `as_api_levels`), empty when it names none.

    Why: a fix scoped to API 34+ cannot fix a crash on API 23 and below, though both are "Android devices" whose
    "app start" is the subject; the platform alone does not tell them apart."""
    levels: set[int] = set()
    for match in lexicon.pattern("api_level").finditer(as_api_levels(text[:20_000])):
        level, op = int(match["level"]), match["op"] or ""
        low, high = level, level
        if match["upto"]:
            high = max(level, int(match["upto"]))
        elif op in ("<", "<=", "≤") or match["below"]:
            low, high = 1, level - 1 if op == "<" else level
        elif op in (">", ">=", "≥") or match["plus"] or match["above"]:
            low, high = level + 1 if op == ">" else level, MAX_API_LEVEL
        levels.update(range(low, high + 1))
    return frozenset(levels)


def repository_platforms(registry: Registry, repo: str) -> set[str]:
    """The platforms a repository's SDK is for, from its registry aliases ("iOS" → sentry-cocoa)."""
    platform_of = lexicon.platform_of()
    return {platform_of[alias] for alias, target in registry.aliases.items() if target == repo and alias in platform_of}
