"""Which platforms a text is about ("On iOS, …", "Disable frame delay detection on web, linux and windows").

Why: a fix scoped to other platforms cannot fix the customer's symptom, and a hybrid SDK's bundled
SDKs are per platform (sentry-cocoa ships iOS, sentry-java Android). A platform the text names only
as the one that works ("Android looks fine", "works on Android", or by contrast: "on Android the feedback
appears, on iOS nothing arrives") is not the customer's.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cache

from indexer.registry import Registry
from wif_action import lexicon
from wif_action.lexicon.control_case import control_statement


@cache
def _platform_word(words: frozenset[str]) -> re.Pattern[str]:
    """Any of the lexicon's platform words, as a whole word (built once per table)."""
    return re.compile(r"(?<![\w/.-])" + lexicon.alternation(words) + r"(?![\w-])", re.IGNORECASE)


def named_platforms(text: str) -> set[str]:
    """The platforms `text` says something happens on (those it names as working are left out)."""
    text = text[:20_000]
    platform_of = lexicon.platform_of()
    works_after, works_before = lexicon.pattern("works_after"), lexicon.pattern("works_before")
    layout = _Layout(text)
    named: list[tuple[str, re.Match[str]]] = []
    for match in _platform_word(frozenset(platform_of)).finditer(text):
        word = match.group(0).lower()
        if word in lexicon.words("platform_only_as_one") and not _used_as_platform(text, match):
            continue
        after, before = text[match.end():match.end() + 60], text[max(0, match.start() - 30):match.start()]
        if works_after.search(after) or works_before.search(before) or layout.in_control_statement(match):
            continue
        named.append((platform_of[word], match))
    return layout.not_by_contrast(named) | _labelled_platforms(text)


def _labelled_platforms(text: str) -> set[str]:
    """The platforms of a line's "/"-joined label ("Native/macOS: …" → macos, "Android NDK/Linux: …"): the label
    scopes the line, so each part that starts with a platform word counts, though a platform word after "/" is
    otherwise read as a path."""
    platform_of, words = lexicon.platform_of(), _platform_word(frozenset(lexicon.platform_of()))
    parts = [part.strip() for label in lexicon.pattern("platform_label").finditer(text)
             for part in label["label"].split("/")]
    return {platform_of[found.group(0).lower()] for part in parts if (found := words.match(part)) is not None}


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


@dataclass(frozen=True)
class _Breaks:
    """Where a pattern breaks a text (`starts`/`ends` of its matches, in order), found once."""

    starts: list[int]
    ends: list[int]

    @classmethod
    def of(cls, pattern: re.Pattern[str], text: str, start: int = 0, end: int | None = None) -> _Breaks:
        found = list(pattern.finditer(text, start, len(text) if end is None else end))
        return cls([m.start() for m in found], [m.end() for m in found])

    def around(self, match: re.Match[str], start: int, end: int) -> tuple[int, int, int]:
        """(where the part holding `match` starts, where the break after it starts and ends); `start`/`end` when
        there is no break before/after it."""
        before = bisect_right(self.ends, match.start())
        after = bisect_left(self.starts, match.end())
        return ((self.ends[before - 1] if before else start),
                *((self.starts[after], self.ends[after]) if after < len(self.starts) else (end, end)))


class _Layout:
    """A text's sentences, statements (`statement_break`) and clauses (`contrast_break`), found once, with what each
    says (complains, is the control case) judged once.

    Why: every platform word asks for its sentence, statement and clause, and for the clauses of the other platform
    words of its sentence; searching the text from its start each time was quadratic (cubic for contrast), minutes
    on 20 KB of platform words in a question."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._sentences = _Breaks.of(_SENTENCE_END, text)
        self._statements = _Breaks.of(lexicon.pattern("statement_break"), text)
        self._clause_breaks: dict[tuple[int, int], _Breaks] = {}
        self._complains: dict[tuple[int, int], bool] = {}
        self._controls: dict[tuple[int, int], bool] = {}
        self._complaining: dict[tuple[int, int], set[str]] = {}

    def in_control_statement(self, match: re.Match[str]) -> bool:
        """Whether `match` stands in a statement that is the control case as a whole (`_control_statement`)."""
        start, _, stop = self._statements.around(match, 0, len(self.text))
        if (start, stop) not in self._controls:
            self._controls[(start, stop)] = _control_statement(self.text[start:stop])
        return self._controls[(start, stop)]

    def not_by_contrast(self, named: list[tuple[str, re.Match[str]]]) -> set[str]:
        """The platforms of `named` (in the text's order) not named as the one that works by contrast: "…, on Android
        the feedback appears in the issue, on iOS nothing arrives at all": in a sentence naming two platforms, one
        whose clause complains of nothing, while another platform's clause does, is named as the one that works."""
        starts = [match.start() for _, match in named]
        return {platform for platform, match in named if not self._works_by_contrast(platform, match, named, starts)}

    def _works_by_contrast(self, platform: str, match: re.Match[str], named: list[tuple[str, re.Match[str]]],
                           starts: list[int]) -> bool:
        start, end, _ = self._sentences.around(match, 0, len(self.text))
        if self._clause_complains(match, start, end):
            return False
        if (start, end) not in self._complaining:
            in_sentence = named[bisect_left(starts, start):bisect_left(starts, end)]
            self._complaining[(start, end)] = {other_platform for other_platform, other in in_sentence
                                               if self._clause_complains(other, start, end)}
        return bool(self._complaining[(start, end)] - {platform})

    def _clause_complains(self, match: re.Match[str], start: int, end: int) -> bool:
        """Whether the clause of the sentence `start:end` holding `match` (between `contrast_break`s) complains."""
        if (start, end) not in self._clause_breaks:
            self._clause_breaks[(start, end)] = _Breaks.of(lexicon.pattern("contrast_break"), self.text, start, end)
        clause_start, clause_end, _ = self._clause_breaks[(start, end)].around(match, start, end)
        if (clause_start, clause_end) not in self._complains:
            self._complains[(clause_start, clause_end)] = bool(
                lexicon.pattern("complains").search(self.text[clause_start:clause_end]))
        return self._complains[(clause_start, clause_end)]


def _control_statement(statement: str) -> bool:
    """The statement is the customer's control case as a whole (`control_case.control_statement`: "…; Intel Macs and
    Linux runners work."): its platforms are what works. Why it matters here: a platform read from the control case
    objected the right fix as "about macos, and the problem is on linux"."""
    return control_statement(statement)


def _used_as_platform(text: str, match: re.Match[str]) -> bool:
    """"web" as a platform ("on web", "web, linux and windows", the text's last word), not "web vitals" or
    "webhook" (lexicon `platform_only_as_one`, `pattern.platform_before`, `pattern.platform_list_after`)."""
    before = text[max(0, match.start() - 4):match.start()]
    after = text[match.end():match.end() + 2]
    return bool(lexicon.pattern("platform_before").search(before) or lexicon.pattern("platform_list_after").match(after)
                or after == "")


MAX_API_LEVEL = 99


def as_api_levels(text: str) -> str:
    """The text with each Android release it names written as its API level ("Android 6.0 and older" → "Android API
    level 23 and older", "Android 6/7" → "Android API level 23-24"; lexicon `[android_api_level]`).

    Why: customers name the Android release their users run, release notes the API level a fix is for ("crash on
    Android API levels 23 and below"); both name the same devices."""
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
