"""The judge's knowledge as data: one home for every word list, synonym, symptom, platform, cue phrase and weight.

Why: the rules used to be word lists and regexes written beside the code in many modules, so adding one
synonym meant editing several tables no test held together. Now `lexicon.toml` holds them and this module
reads it: typed records, and regexes built from the tables the first time they are used (never at import).
`use()` swaps the data (bench/ablate.py switches entries off with it; tests check the tables agree).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from indexer import words as indexer_words
from indexer.release_notes import commit_prefix_pattern
from indexer.words import alternation
from wif_action.lexicon.stemmer import stem

_F = TypeVar("_F", bound=Callable[..., Any])
_CACHED: list[Any] = []
_PLACEHOLDER = re.compile(r"<<(\w+)(?::([\w,]+))?>>")


def _cached(function: _F) -> _F:
    """functools.cache, registered so `use()` can forget what was built from the old data."""
    wrapped = cache(function)
    _CACHED.append(wrapped)
    return wrapped  # type: ignore[return-value]


@dataclass(frozen=True)
class Symptom:
    """A kind of failure people and notes spell differently; `term` is the stem every spelling folds onto."""

    name: str
    term: str
    family: str
    words: tuple[str, ...]
    says_what: bool = False  # says what failed, not where
    remedy: bool = False  # headlines also use its words for the remedy ("Skip …")
    named_by_fix: bool = False  # a fix of this kind of failure names it ("Fix memory leak …"), whatever its cause


@dataclass(frozen=True)
class Platform:
    name: str
    words: tuple[str, ...]


_override: dict[str, Any] | None = None


@_cached
def data() -> dict[str, Any]:
    """The raw tables (a copy of `use()`'s data, else the packaged lexicon.toml with the `[words]` lists of
    indexer/data/words.toml, the one home of change kinds, commit types and fix verbs, among its own)."""
    if _override is not None:
        return copy.deepcopy(_override)
    tables = tomllib.loads(resources.files(__package__).joinpath("lexicon.toml").read_text(encoding="utf-8"))
    tables["words"] = {**copy.deepcopy(indexer_words.tables()["words"]), **tables["words"]}
    return tables


# What turns a text into its terms, with data() (the question side, `question_terms`, `control_case`, counts nothing).
_ANALYSIS_CODE = ("__init__.py", "cleaning.py", "terms.py", "stemmer.py")
_NOT_ANALYSIS = ("weight", "fields_weight", "message_weight", "section_weight", "ecosystem",
                 "counterpart")  # tables no term key depends on


@_cached
def fingerprint() -> str:
    """A digest of what a text's terms depend on: these tables as loaded and the analysing code.

    Why: term counts stored at index time (schema m009) are used only under the same fingerprint, so an edited
    lexicon.toml, stemmer or tokeniser (or `use()`) is never judged with counts of the old one. The numeric
    weights are left out: they weigh terms, they never decide which terms a text has, so tuning one keeps the
    stored counts (and the committed cache.db.example) valid."""
    tables = {name: table for name, table in data().items() if name not in _NOT_ANALYSIS}
    digest = hashlib.sha256(json.dumps(tables, sort_keys=True, default=str).encode())
    digest.update(commit_prefix_pattern().encode())
    package = resources.files(__package__)
    for name in _ANALYSIS_CODE:
        try:
            digest.update(package.joinpath(name).read_bytes())
        except OSError:  # no source to read (a frozen build): match no stored counts, compute them
            digest.update(repr(id(digest)).encode())
    return digest.hexdigest()[:16]


def use(tables: dict[str, Any] | None) -> None:
    """Judge with these tables from now on (None: the packaged ones); everything built from the old is rebuilt."""
    global _override
    _override = copy.deepcopy(tables) if tables is not None else None
    for function in _CACHED:
        function.cache_clear()


@_cached
def words(*names: str) -> frozenset[str]:
    """The union of these word lists, as written (lower case)."""
    tables = data()["words"]
    return frozenset(word for name in names for word in tables[name])


@_cached
def stopwords() -> frozenset[str]:
    return words("stopwords")


@_cached
def weak_words() -> frozenset[str]:
    """Stems of common verbs and adjectives: kept, but weak evidence on their own."""
    return frozenset(stem(word) for word in words("weak"))


_FOLDS = ("abbreviation", "equivalent")  # short forms ("deps"), other words for the same thing ("mutex")


@_cached
def equivalents() -> dict[str, str]:
    """Stem of a short form or of another word for a word → that word's stem (`[abbreviation]` "deps" → "depend",
    `[equivalent]` "mutex" → "lock"): both read as one, in every form ("mutexes")."""
    return {stem(word): stem(meant) for table in _FOLDS for word, meant in data().get(table, {}).items()}


@_cached
def spelled_alike() -> dict[str, tuple[str, ...]]:
    """Stem a word folds onto → the word and every short form or equivalent of it, as written (FTS5 counts each
    spelling; a note writing either one names the word)."""
    found: dict[str, list[str]] = {}
    for table in _FOLDS:
        for word, meant in data().get(table, {}).items():
            found.setdefault(stem(meant), [meant]).append(word)
    return {key: tuple(dict.fromkeys(words)) for key, words in found.items()}


@_cached
def symptoms() -> tuple[Symptom, ...]:
    return tuple(Symptom(name=record["name"], term=stem(record["name"]), family=record["family"],
                         words=tuple(record.get("words", ())), says_what=bool(record.get("says_what")),
                         remedy=bool(record.get("remedy")), named_by_fix=bool(record.get("named_by_fix")))
                 for record in data().get("symptom", []))


@_cached
def synonyms() -> dict[str, str]:
    """Stem (or lower-case code name) of each spelling → the symptom term it folds onto."""
    return {_key(word): symptom.term for symptom in symptoms() for word in symptom.words}


@_cached
def duration_units() -> dict[str, int]:
    """A unit a duration is written in ("ms", "seconds", "min", "hrs") → its length in milliseconds
    (`[duration_unit]`)."""
    return {unit.lower(): int(length) for unit, length in data().get("duration_unit", {}).items()}


@_cached
def duration_pattern() -> re.Pattern[str]:
    """A number and the `[duration_unit]` after it ("300s", "30 seconds", "5 min"): group 1 the number, group 2 the
    unit."""
    return re.compile(rf"\b(\d{{1,6}}) ?({alternation(frozenset(duration_units()))})\b", re.IGNORECASE)


@_cached
def number_words() -> dict[str, int]:
    """A number spelled out ("five") → its value (`[number_word]`)."""
    return {word.lower(): int(value) for word, value in data().get("number_word", {}).items()}


@_cached
def android_api_levels() -> dict[str, int]:
    """An Android release ("6", "7.1") → its API level (`[android_api_level]`)."""
    return {str(version): int(level) for version, level in data().get("android_api_level", {}).items()}


def _spelled_units() -> frozenset[str]:
    return frozenset(unit for unit in duration_units() if len(unit) > 2)  # "five s", "ten h": no duration


@_cached
def spelled_duration_pattern() -> re.Pattern[str]:
    """A spelled-out number and the `[duration_unit]` word after it ("five minutes", "thirty-second"): group 1 the
    number word, group 2 the unit."""
    units = alternation(_spelled_units())
    return re.compile(rf"\b({alternation(frozenset(number_words()))})[ -]({units})\b", re.IGNORECASE)


@_cached
def spelled_duration_hints() -> tuple[str, ...]:
    """Lower-case pieces one of which every spelled duration holds (the unit words no other contains: "sec" of
    "seconds" and "milliseconds"): a text holding none has no spelled duration, and skips the pattern."""
    units = _spelled_units()
    return tuple(sorted(unit for unit in units if not any(other != unit and other in unit for other in units)))


def _key(word: str) -> str:
    return stem(word) if word.isalpha() else word


@_cached
def reading_patterns() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(name, what it reads as, hints) of each pattern with a `reads` template: a phrase people and notes write in
    different words ("init it again", "re-initialise" / "restart"), read as the one term they share too. `hints`:
    lower-case pieces one of which every match holds (a text holding none skips the pattern), or the name of the word
    list the pattern is built from (its words are the hints)."""
    return tuple((name, str(spec["reads"]), _hints(spec["hints"]))
                 for name, spec in data()["pattern"].items() if "reads" in spec)


def _hints(hints: str | list[str]) -> tuple[str, ...]:
    return tuple(sorted(words(hints))) if isinstance(hints, str) else tuple(hints)


@_cached
def symptom_names() -> dict[str, str]:
    """How a folded term reads in an answer's reason ("memori" → "memory")."""
    return {symptom.term: symptom.name for symptom in symptoms()}


@_cached
def symptom_terms() -> frozenset[str]:
    return frozenset(synonyms().values())


@_cached
def symptom_families() -> tuple[frozenset[str], ...]:
    """The symptom terms grouped by kind of failure ("missing", "dropped", "ignored": something did not arrive)."""
    families: dict[str, set[str]] = {}
    for symptom in symptoms():
        families.setdefault(symptom.family, set()).add(symptom.term)
    return tuple(frozenset(terms) for terms in families.values())


@_cached
def says_what_terms() -> frozenset[str]:
    return frozenset(symptom.term for symptom in symptoms() if symptom.says_what)


@_cached
def remedy_terms() -> frozenset[str]:
    return frozenset(symptom.term for symptom in symptoms() if symptom.remedy)


@_cached
def named_by_fix_terms() -> frozenset[str]:
    return frozenset(symptom.term for symptom in symptoms() if symptom.named_by_fix)


@_cached
def platforms() -> tuple[Platform, ...]:
    return tuple(Platform(record["name"], tuple(record["words"])) for record in data().get("platform", []))


@_cached
def platform_of() -> dict[str, str]:
    """Each platform word → the platform it names ("iphone" → "ios")."""
    return {word: platform.name for platform in platforms() for word in platform.words}


@_cached
def ecosystem_patterns() -> dict[str, re.Pattern[str]]:
    """Each package manager → the pattern of the words that name it in a message (`[[ecosystem]]`)."""
    return {record["name"]: re.compile(rf"(?<![\w.-]){alternation(frozenset(record['words']))}(?![\w-]|\.\w)",
                                       re.IGNORECASE)
            for record in data().get("ecosystem", [])}


def ecosystems_named(text: str) -> frozenset[str]:
    """The package managers a text names ("the sentry crate" → cargo; "`mix deps.get` fails" → hex)."""
    return frozenset(name for name, found in ecosystem_patterns().items() if found.search(text))


def _counterparts() -> list[dict[str, Any]]:
    """The `[[counterpart]]` records with two sides of at least a word each (bench/ablate.py empties one)."""
    return [record for record in data().get("counterpart", [])
            if len(record["sides"]) == 2 and all(record["sides"])]


@_cached
def counterparts() -> dict[str, str]:
    """Each side of an exchange (`[[counterpart]]`, named by its first word: "request") → the other side."""
    pairs = [tuple(words[0] for words in record["sides"]) for record in _counterparts()]
    return {side: other for one, two in pairs for side, other in ((one, two), (two, one))}


@_cached
def _side_of() -> dict[str, str]:
    """Stem of each word naming a side (`[[counterpart]]`) → that side (its first word)."""
    return {stem(word): words[0] for record in _counterparts() for words in record["sides"]
            for word in words}


def sides_named(text: str) -> dict[str, frozenset[str]]:
    """The sides of an exchange a text names, by any form of their words ("Requests", "responses"), each with the
    stems of the words right after it that it qualifies ("response body" → {"response": {"bodi"}})."""
    side_of, stop = _side_of(), stopwords()
    tokens = re.findall(r"[A-Za-z]+", text)
    keys = [stem(token.lower()) for token in tokens]
    found: dict[str, set[str]] = {}
    for index, key in enumerate(keys):
        if key not in side_of:
            continue
        heads = found.setdefault(side_of[key], set())
        after = keys[index + 1] if index + 1 < len(keys) else None
        if after is not None and after not in side_of and tokens[index + 1].lower() not in stop:
            heads.add(after)
    return {side: frozenset(heads) for side, heads in found.items()}


# The input modes a question comes in (`Request.from_message`): a form's fields, or a problem condensed out of a
# free-text message. Each may have its own value of any `[weight]`: lexicon.toml `[fields_weight]`, `[message_weight]`.
MODES = ("fields", "message")
_mode: ContextVar[str | None] = ContextVar("wif_input_mode", default=None)


@contextmanager
def input_mode(mode: str | None) -> Iterator[None]:
    """Within the block, `weight(name)` reads the mode's own value when its table (`[<mode>_weight]`) has one.

    Why a context and not an argument: weights are read in some 80 places of the judge, the scan and the candidate
    order; the workflow knows the mode once per question (`Workflow.run`) and every read in its run takes it, so any
    weight can get a per-mode value in data alone, without code that names it. None: the shared `[weight]` values."""
    if mode is not None and mode not in MODES:
        raise ValueError(f"unknown input mode {mode!r} (one of {', '.join(MODES)})")
    token = _mode.set(mode)
    try:
        yield
    finally:
        _mode.reset(token)


def mode_weights(mode: str | None = None) -> dict[str, float]:
    """The values the input mode (default: the current one) has of its own (`[<mode>_weight]`); {} for none."""
    mode = mode or _mode.get()
    return {name: float(value) for name, value in data().get(f"{mode}_weight", {}).items()} if mode else {}


def weight(name: str, from_message: bool | None = None) -> float:
    """A numeric weight: the input mode's own value (`[<mode>_weight]`) when it has one, else the `[weight]` value
    both modes share. The mode is the run's (`input_mode`); `from_message` names it where a caller judges a
    question outside a run (`Question.from_message`: True the message mode, False the fields mode)."""
    mode = _mode.get() if from_message is None else ("message" if from_message else "fields")
    if mode is not None:
        own = data().get(f"{mode}_weight", {})
        if name in own:
            return float(own[name])
    return float(data()["weight"][name])


@_cached
def section_weights() -> dict[str, float]:
    return {section: float(value) for section, value in data()["section_weight"].items()}


@_cached
def source(name: str) -> str:
    """The regex source of a pattern, `<<placeholders>>` expanded."""
    spec = data()["pattern"][name]
    text = spec["re"] if isinstance(spec["re"], str) else "".join(spec["re"])
    return _PLACEHOLDER.sub(lambda match: _expand(match.group(1), match.group(2)), text)


def selection(name: str, lemmas: str) -> frozenset[str]:
    """The words of a list sharing a stem with one of `lemmas` ("fix,resolve": fix, fixes, …, resolved).

    Why: a pattern that needs only some of a list's verbs selects them from the one list instead of spelling
    out a second list beside it (a new form of "fix" added to the table reaches every pattern)."""
    stems = {stem(lemma) for lemma in lemmas.split(",")}
    return frozenset(word for word in words(name) if stem(word) in stems)


def _expand(name: str, lemmas: str | None = None) -> str:
    if lemmas is not None:
        return alternation(selection(name, lemmas))
    if name == "commit_prefix":
        return commit_prefix_pattern()
    if name == "fix_commit_prefix":
        return commit_prefix_pattern("fix")
    if name in data()["pattern"]:
        return source(name)
    return alternation(words(name))


@_cached
def pattern(name: str) -> re.Pattern[str]:
    """A compiled pattern of the lexicon (built on first use, then kept)."""
    spec = data()["pattern"][name]
    return re.compile(source(name), re.IGNORECASE if spec.get("ignorecase", True) else 0)


def pattern_names() -> list[str]:
    return list(data()["pattern"])


def word_list_names() -> list[str]:
    return list(data()["words"])
