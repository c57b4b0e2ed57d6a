"""A text as the analyser reads it: URLs, PR references, ticket keys, @mentions (not annotations), versions,
measurements out; durations one term.

Why a module of its own: this is the first pass every text takes (a question, a release note at index time), and
what it keeps decides which terms are counted, so it is part of the lexicon's fingerprint (`lexicon._ANALYSIS_CODE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wif_action import lexicon

MAX_ANALYSED_CHARS = 20_000  # bounds work on huge problems and PR bodies

_URL = re.compile(r"https?://\S+")
_REFERENCE = re.compile(r"(?<![\w/])(?:[\w.-]+/[\w.-]+)?#\d+\b|\bGH-\d+\b|(?<![\w/])@[\w-]+(?![\w/-])")
MAX_CREDIT_CHARS = 40  # how much of the text before an @name is read for a credit (a bound on work)
_VERSION_LIKE = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
_NOISE_NUMBER = re.compile(r"\d+(?:[.,]\d+)?\s*%|\b\d+(?:m|kb|mb|gb|k|x|px|fps)\b|\b\d+(?:st|nd|rd|th)\b",
                           re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# A runtime's or protocol's version ("Elixir 1.19", "Unity 6", "HTTP/2", "Elixir-1.19.0"): the word before it
# (lexicon `versioned_names`), the number as written, and the number joined to its word.
_SUBJECT_BEFORE = re.compile(r"(?<![\w.+#-])([A-Za-z][\w.+#]*)[ \t/-]{1,2}$")
SUBJECT_VERSION = re.compile(r"(\d{1,4}(?:\.\d{1,4}){0,2})")


def clean(text: str) -> str:
    """Text without URLs, PR/issue references, tracker ticket keys (lexicon `pattern.tracker_key`), @mentions (an
    annotation's name stays: `_reference_or_annotation`), versions and measurements. A pattern is applied only
    when the text holds a character every match of it needs (a substitution only ever adds spaces): most notes
    cite no URL and most words hold no digit, and the skipped scans were a third of counting an index run."""
    text = (text or "")[:MAX_ANALYSED_CHARS]
    if "http" in text:
        text = _URL.sub(" ", text)
    if "#" in text or "@" in text or "GH-" in text:
        text = _REFERENCE.sub(_reference_or_annotation, text)
    if "-" in text:
        text = lexicon.pattern("tracker_key").sub(_name_or_space, text)
    lower = text.lower()
    for name, reads, hints in lexicon.reading_patterns():
        if any(hint in lower for hint in hints):
            text = lexicon.pattern(name).sub(_also_reads(reads), text)
    if _DIGIT.search(text) is not None:
        if "." in text:
            text = _VERSION_LIKE.sub(_version_or_space, text)
        text = _NOISE_NUMBER.sub(" ", lexicon.duration_pattern().sub(_seconds, text))
    lower = text.lower()
    if any(hint in lower for hint in lexicon.spelled_duration_hints()):
        text = lexicon.spelled_duration_pattern().sub(_spelled_seconds, text)
        text = lexicon.pattern("subsecond").sub(_subsecond, text)
    return text


def _reference_or_annotation(match: re.Match[str]) -> str:
    """A reference or a person's @handle is no text to judge; an annotation or decorator written the same way
    ("Support @JsonNames for enum values", "`@Sendable`", "`@field_validator`", "@SerialName(\"x\")") is a code name:
    its name stays. An @name is one when it is quoted or called, or when it is capitalised and the text before it
    is not a credit (lexicon `pattern.credit_before`: "by @Viicos", "Thanks @Arghnews", "(#637) @PureKrome").

    Why: a customer pastes the annotation their code carries, and the note naming it is the one about it; both
    sides read it as a handle before, and the line matched on its other words only."""
    found, text, start = match.group(), match.string, match.start()
    if not found.startswith("@"):
        return " "
    name = found[1:]
    if text[match.end():match.end() + 1] == "(" or text[start - 1:start] in ("`", "'", '"'):
        return f" {name}"
    before = text[max(0, start - MAX_CREDIT_CHARS):start]
    line_start = not text[text.rfind("\n", 0, start) + 1:start].strip(" \t")
    capitalised = name[:1].isupper() and any(ch.islower() for ch in name)
    return f" {name}" if capitalised and not line_start and not lexicon.pattern("credit_before").search(before) \
        else " "


def _also_reads(reads: str) -> Callable[[re.Match[str]], str]:
    """A phrase followed by what it also reads as (its pattern's `reads`, groups expanded: "32-bit float" →
    "32-bit float float32"); the phrase's own words stay, as a note may use them too."""
    return lambda match: f"{match.group()} {match.expand(reads)} "


def _seconds(match: re.Match[str]) -> str:
    """A duration (`lexicon.duration_pattern`) as one term: whole seconds ("5 min" → "300s"), else milliseconds
    ("1500ms" stays "1500ms"). Why: the same timeout written in two units is one term (lexicon `[duration_unit]`)."""
    number = match.group(1)
    count = int(number) if number.isdigit() else lexicon.number_words()[number.lower()]
    length = count * lexicon.duration_units()[match.group(2).lower()]
    return f"{length // 1000}s" if length % 1000 == 0 else f"{length}ms"


def _spelled_seconds(match: re.Match[str]) -> str:
    """A spelled-out duration (`lexicon.spelled_duration_pattern`: "two minutes") as its seconds and its unit word
    ("120s minutes"). Why both: the seconds meet a note's "120s"; people also write the unit alone ("more than a
    minute"), which only the unit word meets. A tens word before an `ordinal_units` word ("the thirty-second
    release", "twenty second") also spells an ordinal (the 32nd, the 22nd): no duration is read there; "thirty
    seconds" and "five-second" still are one."""
    ordinal = match.group(2).lower() in lexicon.words("ordinal_units")
    if ordinal and _tens(lexicon.number_words()[match.group(1).lower()]):
        return match.group(0)
    return f"{_seconds(match)} {match.group(2)}"


def _tens(value: int) -> bool:
    """Twenty, thirty, … ninety: the numbers a compound ordinal starts with ("forty-second")."""
    return value > 10 and value % 10 == 0


def _subsecond(match: re.Match[str]) -> str:
    """A phrase of a duration below one second (lexicon `pattern.subsecond`), followed by the one term every such
    phrase shares; the phrase's own words stay ("sub" is what notes have been counted by)."""
    return f"{match.group()} subsecond"


def _name_or_space(match: re.Match[str]) -> str:
    """A ticket key ("JAVA-559") is a reference, no text to judge; one whose key is a name the number belongs to
    ("UTF-8", "ISO-8601", "HTTP-2": lexicon `numbered_names`, `versioned_names`) stays."""
    return match.group() if match.group("key").lower() in _numbered_names() else " "


def _numbered_names() -> frozenset[str]:
    return lexicon.words("numbered_names", "versioned_names")


def _version_or_space(match: re.Match[str]) -> str:
    """A version is noise (the SDK's, a dependency's) unless it is a runtime's or protocol's ("Elixir 1.19")."""
    found = match.group()
    if SUBJECT_VERSION.fullmatch(found):
        before = _SUBJECT_BEFORE.search(match.string, max(0, match.start() - 40), match.start())
        if before is not None and before.group(1).lower() in versioned_names():
            return found
    return " "


def versioned_names() -> frozenset[str]:
    """The runtimes and protocols a number right after names the version of (lexicon `versioned_names`)."""
    return lexicon.words("versioned_names")

