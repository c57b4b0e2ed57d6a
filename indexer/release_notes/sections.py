"""Section classification: the normalised ``SECTIONS``, what a heading means, and what a bullet's wording says.

``classify_heading`` maps headings from the many release-note styles ("Bug Fixes 🐛",
"What's Changed", "2.4.x (2020-01-01)") to a ``_Rule``; ``classify_bullet`` reads
conventional-commit prefixes and leading verbs ("fix(x): …", "Fixed …", "Add …") so bullets
under generic headings still get a specific section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from indexer.release_notes.model import _MAX_HEADING, _MAX_TEXT
from indexer.release_notes.references import _strip_inline_markup
from indexer.words import tables, whole_words, words

SECTIONS: tuple[str, ...] = tuple(tables()["sections"])  # read once: the parser's own vocabulary of change kinds


# --------------------------------------------------------------------------- headings


@dataclass(frozen=True)
class _Rule:
    """How a heading classifies its bullets.

    ``generic`` headings ("Other Changes", "What's Changed", …) let a bullet's own wording
    decide and only supply the default; ``skip`` drops the bullets ("New Contributors");
    ``reset`` marks a version heading inside a body, which ends the previous section.
    """

    section: str
    generic: bool = False
    skip: bool = False
    reset: bool = False


@dataclass(frozen=True)
class _HeadingRecord:
    """One `[[heading]]` of indexer/data/words.toml: the words that make a heading this rule's."""

    rule: _Rule
    words: re.Pattern[str]
    mixed_with: re.Pattern[str] | None
    unless: re.Pattern[str] | None


_RESET = _Rule("other", generic=True, reset=True)
_MIXED = _Rule("other", generic=True)  # "Various fixes & improvements", "Features and Fixes"


def _optional(items: list[str] | None) -> re.Pattern[str] | None:
    return re.compile(whole_words(items)) if items else None


@lru_cache(maxsize=1)
def _heading_records() -> tuple[_HeadingRecord, ...]:
    """The heading rules of words.toml, in order (the first that a heading names decides)."""
    return tuple(_HeadingRecord(rule=_Rule(record["section"], generic=record.get("generic", False),
                                           skip=record.get("skip", False)),
                                words=re.compile(whole_words(record["words"])),
                                mixed_with=_optional(record.get("mixed_with")), unless=_optional(record.get("unless")))
                 for record in tables()["heading"])


_VERSION_IN_HEADING = re.compile(r"(?<![\w.])v?\d{1,4}\.(?:\d{1,4}|x)(?:[.\w+-]{0,40})")
_DATE_IN_HEADING = re.compile(r"\d{4}-\d{2}-\d{2}")
_HEADING_JUNK = re.compile(r"[^a-z0-9'&/+. -]+")
_MAX_HEADING_WORDS = 7
_CHANGE_COUNT = re.compile(r"\(\s*\d+\s+changes?\s*\)")


def _normalise_heading(heading: str) -> str:
    """Lower-case heading text without Markdown, emoji or punctuation noise."""
    text = _strip_inline_markup(heading[:_MAX_HEADING]).lower().replace("\u2019", "'")
    text = _CHANGE_COUNT.sub(" ", text)  # GitLab: "Bug fixes (2 changes)"
    text = _HEADING_JUNK.sub(" ", text)
    return " ".join(text.split()).strip(" :.-")


def _rule_for_words(text: str) -> _Rule | None:
    """Map normalised heading words to a rule (the first `[[heading]]` of words.toml the text names wins)."""
    if not text or len(text.split()) > _MAX_HEADING_WORDS:
        return None
    for record in _heading_records():
        if not record.words.search(text) or (record.unless is not None and record.unless.search(text)):
            continue
        return _MIXED if record.mixed_with is not None and record.mixed_with.search(text) else record.rule
    return None


@lru_cache(maxsize=1024)  # a few dozen headings ("### Fixes") recur across thousands of releases
def _heading_rule(heading: str) -> _Rule | None:
    """Rule for a heading; ``_RESET`` for a bare version heading such as ``2.4.x (2020-01-01)``."""
    text = _normalise_heading(heading)
    without_version = _DATE_IN_HEADING.sub(" ", text)
    without_version, found = _VERSION_IN_HEADING.subn(" ", without_version)
    if not found:
        return _rule_for_words(text)
    rest = " ".join(without_version.replace("(", " ").replace(")", " ").split())
    rule = _rule_for_words(rest)
    if rule is None and (not rest or rest in words("version_heading_words")):
        return _RESET
    return rule


def classify_heading(heading: str) -> str | None:
    """Normalised section for a heading such as "Bug Fixes 🐛"; None for unknown headings."""
    if not isinstance(heading, str):
        return None
    rule = _heading_rule(heading)
    if rule is None or rule.reset:
        return None
    return rule.section


# --------------------------------------------------------------------------- bullet wording

_CONVENTIONAL = re.compile(r"([A-Za-z]{2,10})(?:\(([^()\n]{0,60})\))?!?:\s")
_SCOPE_PREFIX = re.compile(r"\(([^()\n]{1,60})\)\s+")
_LABEL_PREFIX = re.compile(r"([A-Z][\w .+/-]{0,30}):\s+")
# a leading bracketed tag, "[Bug] Fix …", "[Docs] Add …" (a kind: the line's own heading), "[Android] Fix …" (a
# scope: the wording after it decides); not a link's text ("[#12](…)", "[`x`][ref]")
_BRACKET_TAG = re.compile(r"\[([^\]\n#]{1,40})\](?![(\[])\s*:?\s+")
_BC_BREAK = re.compile(r"\[(?:bc break|breaking)\]", re.IGNORECASE)
_FIRST_WORD = re.compile(r"[A-Za-z]{1,20}")


def _by_word(table: dict[str, list[str]]) -> dict[str, str]:
    """A words.toml table of section → words, as word → section."""
    return {word: section for section, listed in table.items() for word in listed}


@lru_cache(maxsize=1)
def _commit_types() -> dict[str, str]:
    """Conventional-commit type → section (`[commit_type]`)."""
    return _by_word(tables()["commit_type"])


@lru_cache(maxsize=2)
def _bullet_words(strength: str) -> dict[str, str]:
    """A bullet's first word → section (`[bullet_word.strong]`: under any heading; `.weak`: generic ones only)."""
    return _by_word(tables()["bullet_word"][strength])


# changesets' entry prefixes: "#123 `abc1234` Thanks @user! - Fix …" (older changesets: "`abc1234` #123 Thanks …")
# and "abc1234: Fix …"
_CHANGESET_THANKS = re.compile(
    r"(?:`?[0-9a-f]{7,40}`?\s{1,3})?(?:#\d{1,7}\s{1,3})?(?:`?[0-9a-f]{7,40}`?\s{1,3})?"
    r"Thanks [^!\n]{1,200}!\s{1,3}-\s{1,3}")
_CHANGESET_SHA = re.compile(r"[0-9a-f]{7,40}:\s{1,3}")
# a line led by the PR it cites, "[#2734](…/pull/2734) Fix …" (Stripe's SDKs; rendered "#2734 Fix …"), also a group
# ("#12, #13: Fix …"): the change starts after it
_LEADING_REFS = re.compile(r"#\d[\d#, ]{0,80}?[:-]?\s{1,3}(?=[^\s#])")


def _bullet_core(text: str) -> str:
    """Bullet text without leading emphasis, brackets, list noise, changeset prefixes and leading PR references."""
    core = text.lstrip(" *_`>").strip()
    prefix = _CHANGESET_THANKS.match(core) or _CHANGESET_SHA.match(core) or _LEADING_REFS.match(core)
    return core[prefix.end():] if prefix else core


def _classify_conventional(text: str) -> str | None:
    """Section from a conventional-commit prefix (``fix(scope):``, ``build(deps):``)."""
    match = _CONVENTIONAL.match(text)
    if not match:
        return None
    kind = match.group(1).lower()
    scope = (match.group(2) or "").strip().lower()
    if kind not in _commit_types():
        return None
    if scope in words("dependency_scopes"):
        return "dependency"
    return _commit_types()[kind]


@lru_cache(maxsize=1)
def _dependency_list() -> re.Pattern[str]:
    """A bullet opening that lists dependency updates ("Updated dependencies [`8dc1a6d`]: …", changesets)."""
    return re.compile(whole_words(sorted(words("dependency_list_openers"))), re.IGNORECASE)


def _conventional_kind(core: str) -> str | None:
    """Section of the conventional-commit type a bullet's core starts with, also after a ``(scope)`` or ``Label:``
    that leads it ("**client:** fix: …")."""
    found = _classify_conventional(core)
    for prefix in (_SCOPE_PREFIX, _LABEL_PREFIX):
        match = None if found else prefix.match(core)
        if match:
            core = core[match.end() :]
            found = _classify_conventional(core)
    return found


def own_fix_type(text: str) -> bool:
    """Whether a bullet's own conventional-commit type says it fixes something ("fix(binder): …", "fix: …"), which
    holds under any heading: generated notes file a line by its PR's labels ("fix(proxy): …" under
    "Enhancements"), the author's type says what the change is. A dependency scope ("fix(deps): …") does not."""
    return _conventional_kind(_bullet_core(text[:_MAX_TEXT])) == "fix"


def _classify_wording(text: str, weak: bool) -> str | None:
    """Section implied by the bullet's own words; ``weak`` also trusts verbs like "Add"."""
    core = _bullet_core(text)
    if _BC_BREAK.match(core):
        return "breaking"
    if _dependency_list().match(core):
        return "dependency"
    found = _classify_conventional(core)
    if found:
        return found
    for prefix in (_BRACKET_TAG, _SCOPE_PREFIX, _LABEL_PREFIX):
        match = prefix.match(core)
        if match:
            if prefix is not _SCOPE_PREFIX and (labelled := _kind_label(match.group(1))):
                return labelled  # "Bug fix: rewind …", "[Bug] Fix …": the label is the line's own heading
            core = core[match.end() :]
            found = _classify_conventional(core)
            if found:
                return found
    word_match = _FIRST_WORD.match(core)
    if not word_match:
        return None
    word = word_match.group(0).lower()
    if word in _bullet_words("strong"):
        return _bullet_words("strong")[word]
    return _bullet_words("weak").get(word) if weak else None


def _kind_label(label: str) -> str | None:
    """The section a line's label names when it is a kind of change ("Bug fix", "Improvement", "Feature"), as a
    heading would; a label naming a platform or a package ("Python", "NLog") or a generic heading ("Changed") names
    none."""
    rule = _heading_rule(label)
    return rule.section if rule is not None and not (rule.reset or rule.skip or rule.generic) else None


# The one conventional-commit prefix grammar ("fix(celery)!:"): `commit_prefix` reads it, and the judge's lexicon
# embeds it (`commit_prefix_pattern`) in its headline patterns, so every reader agrees on what a prefix is.
COMMIT_PREFIX = r"(?P<type>[a-z]+)(?:\((?P<scope>[^)]*)\))?!?:"
_COMMIT_PREFIX = re.compile(r"^\W*" + COMMIT_PREFIX, re.IGNORECASE)


def commit_prefix_pattern(kind: str | None = None) -> str:
    """`COMMIT_PREFIX` without its named groups, to embed in another pattern; `kind` fixes the type ("fix")."""
    pattern = COMMIT_PREFIX if kind is None else COMMIT_PREFIX.replace("[a-z]+", re.escape(kind), 1)
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


def commit_prefix(headline: str) -> tuple[str, str] | None:
    """The conventional-commit type (lower case) and scope a headline starts with ("fix(celery): …" →
    ("fix", "celery")), else None."""
    match = _COMMIT_PREFIX.match(headline)
    return (match["type"].lower(), match["scope"] or "") if match is not None else None


# Where a multi-package SDK's notes say which of its packages or platforms a line is about: a conventional-commit
# scope ("fix(nextjs): …", "fix(v8/core): …", "fix(core, node): …"), a leading bracket ("[nextjs] …"), a bold name
# ("**nextjs**: …", "**nextjs:** …") or a leading name and colon ("NLog: …", "ASP.NET Core: …").
_BRACKET_SCOPE = re.compile(r"^[\s>*+-]*\[(?P<scope>[^\]\n#]{1,40})\](?![(\[])\s*:?\s")
_BOLD_SCOPE = re.compile(r"^[\s>+-]*\*\*(?P<scope>[^*\n]{1,40}?):?\*\*:?\s")
_NAME_SCOPE = re.compile(r"^[\s>*+-]*(?P<scope>[A-Za-z][\w .+/-]{0,30}):\s")


def line_scopes(text: str) -> list[str]:
    """The package or platform names a release-note line says it is about, as written (lower case), [] for a line
    that names none ("fix(core, node): …" → ["core", "node"]; "fix: …", "Fix a crash" → []).

    Why: a hybrid SDK ships some packages of the SDK it bundles (an Electron app runs @sentry/browser and
    @sentry/node, never @sentry/nextjs); a bundled line scoped to a package the host does not ship cannot fix its
    customers' problem (subtasks/bundled_sdks.py)."""
    if not isinstance(text, str):
        return []
    shape = next((m for m in (p.match(text) for p in (_COMMIT_PREFIX, _BRACKET_SCOPE, _BOLD_SCOPE, _NAME_SCOPE))
                  if m and m["scope"]), None)
    found = shape["scope"] if shape is not None else ""
    return [" ".join(part.split()).lower() for part in found.split(",") if part.strip()]


def classify_bullet(text: str) -> str | None:
    """Section implied by a bullet's own wording ("fix(x): …", "Fixed …", "Add …"), else None."""
    if not isinstance(text, str):
        return None
    return _classify_wording(text[:_MAX_TEXT], weak=True)
