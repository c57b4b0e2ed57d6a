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

SECTIONS = (
    "fix",
    "feature",
    "improvement",
    "performance",
    "breaking",
    "deprecation",
    "dependency",
    "internal",
    "docs",
    "other",
)


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


_RESET = _Rule("other", generic=True, reset=True)
_FIX_WORD = re.compile(r"\bfix|\bbugs?\b|\bbugfix")
_MIXED_OTHER = re.compile(r"\bfeatures?\b|\bimprovements?\b|\benhancements?\b|\bchanges?\b")
_HEADING_RULES: tuple[tuple[re.Pattern[str], _Rule], ...] = (
    (re.compile(r"\bnew contributors?\b"), _Rule("other", skip=True)),
    # bugs still open in this release ("Known issues"): listing them is the opposite of fixing them
    (re.compile(r"\bknown (?:issues?|bugs?|problems?|limitations?|regressions?)\b"), _Rule("other", skip=True)),
    (re.compile(r"\bwhat'?s changed\b|\bwhat changed\b"), _Rule("other", generic=True)),
    (re.compile(r"\bbreaking\b|\bbc break|\bremoved\b|\bremovals?\b|\bapi changes\b"), _Rule("breaking")),
    (re.compile(r"\bdeprecat|\bobsolet"), _Rule("deprecation")),
    (re.compile(r"\bsecurity\b"), _Rule("fix")),
    # changesets (JS monorepos): semver bump groups; a patch change is a fix unless it says otherwise
    (re.compile(r"\bmajor changes\b"), _Rule("breaking")),
    (re.compile(r"\bminor changes\b"), _Rule("feature", generic=True)),
    (re.compile(r"\bpatch changes\b"), _Rule("fix", generic=True)),
)
_HEADING_RULES_LATE: tuple[tuple[re.Pattern[str], _Rule], ...] = (
    (
        re.compile(r"\binternals?\b|\bchores?\b|\brefactor|\btests?\b|\btesting\b|\bbuild\b|\bci\b|\btooling\b"
                   r"|\bcontinuous integration\b"),
        _Rule("internal"),
    ),
    # upkeep lists mix CI and bumps with the odd "fix: …": the bullet's own wording decides
    (re.compile(r"\bmaintenance\b|\bhousekeeping\b|\bunder the hood\b|\bbehind the scenes\b"),
     _Rule("internal", generic=True)),
    (re.compile(r"\bhotfix(?:es)?\b|\bcorrections?\b"), _Rule("fix")),
    (re.compile(r"\bfeatures?\b|\badded\b|\bnew\b|\bexperimental\b|\bhighlights?\b|\badditions?\b"), _Rule("feature")),
    (re.compile(r"\bimprovements?\b|\benhancements?\b|\bimproved\b"), _Rule("improvement")),
    (re.compile(r"\bimportant\b|\bnotable\b"), _Rule("feature", generic=True)),
    (re.compile(r"\bdependenc|\bdeps\b|\bpackaging\b|\bbumps?\b"), _Rule("dependency")),
    (re.compile(r"\bdocumentation\b|\bdocs?\b"), _Rule("docs")),
    (re.compile(r"\breverts?\b"), _Rule("other")),
    (re.compile(r"\bmisc|\bother|\bvarious\b|\bgeneral\b|\bsummary\b"), _Rule("other", generic=True)),
    (re.compile(r"\bbehaviou?r|\bchanged?\b|\bchanges\b"), _Rule("improvement", generic=True)),
)
_VERSION_IN_HEADING = re.compile(r"(?<![\w.])v?\d{1,4}\.(?:\d{1,4}|x)(?:[.\w+-]{0,40})")
_DATE_IN_HEADING = re.compile(r"\d{4}-\d{2}-\d{2}")
_VERSION_FILLER = frozenset({"", "v", "version", "release", "released", "unreleased"})
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
    """Map normalised heading words to a rule (first matching family wins)."""
    if not text or len(text.split()) > _MAX_HEADING_WORDS:
        return None
    for pattern, rule in _HEADING_RULES:
        if pattern.search(text):
            return rule
    has_fix = _FIX_WORD.search(text) is not None
    if has_fix and _MIXED_OTHER.search(text):
        return _Rule("other", generic=True)  # "Various fixes & improvements", "Features and Fixes"
    if has_fix:
        return _Rule("fix")
    if "performance" in text and "feature" not in text and "monitoring" not in text:
        return _Rule("performance")
    for pattern, rule in _HEADING_RULES_LATE:
        if pattern.search(text):
            return rule
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
    if rule is None and rest in _VERSION_FILLER:
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

_CC_TYPES = {
    "fix": "fix", "fixes": "fix", "fixed": "fix", "bugfix": "fix", "hotfix": "fix", "security": "fix",
    "feat": "feature", "feature": "feature", "feats": "feature",
    "perf": "performance",
    "docs": "docs", "doc": "docs",
    "chore": "internal", "ci": "internal", "test": "internal", "tests": "internal",
    "build": "internal", "refactor": "internal", "ref": "internal", "style": "internal",
    "lint": "internal", "meta": "internal",
    "deps": "dependency", "dep": "dependency",
    "revert": "other",
}  # fmt: skip
_DEP_SCOPES = frozenset({"deps", "deps-dev", "dependencies", "dependency", "dev-deps"})
_CONVENTIONAL = re.compile(r"([A-Za-z]{2,10})(?:\(([^()\n]{0,60})\))?!?:\s")
_SCOPE_PREFIX = re.compile(r"\(([^()\n]{1,60})\)\s+")
_LABEL_PREFIX = re.compile(r"([A-Z][\w .+/-]{0,30}):\s+")
_BC_BREAK = re.compile(r"\[(?:bc break|breaking)\]", re.IGNORECASE)
_FIRST_WORD = re.compile(r"[A-Za-z]{1,20}")
_STRONG_WORDS = {
    "fix": "fix", "fixes": "fix", "fixed": "fix", "fixing": "fix", "bugfix": "fix",
    "bugfixes": "fix", "hotfix": "fix",
    "bump": "dependency", "bumps": "dependency", "bumped": "dependency", "deps": "dependency",
}  # fmt: skip
_WEAK_WORDS = {
    "add": "feature", "adds": "feature", "added": "feature", "adding": "feature",
    "introduce": "feature", "introduces": "feature", "introduced": "feature",
    "support": "feature", "supports": "feature", "allow": "feature", "allows": "feature",
    "implement": "feature", "implemented": "feature", "expose": "feature", "new": "feature",
    "improve": "improvement", "improved": "improvement", "improves": "improvement",
    "optimize": "performance", "optimise": "performance", "speed": "performance",
    "deprecate": "deprecation", "deprecated": "deprecation", "deprecates": "deprecation",
    "document": "docs", "documented": "docs",
    "revert": "other", "reverts": "other", "reverted": "other",
}  # fmt: skip


# changesets' entry prefixes: "#123 `abc1234` Thanks @user! - Fix …" and "abc1234: Fix …"
_CHANGESET_THANKS = re.compile(
    r"(?:#\d{1,7}\s{1,3})?(?:`?[0-9a-f]{7,40}`?\s{1,3})?Thanks [^!\n]{1,200}!\s{1,3}-\s{1,3}")
_CHANGESET_SHA = re.compile(r"[0-9a-f]{7,40}:\s{1,3}")


def _bullet_core(text: str) -> str:
    """Bullet text without leading emphasis, brackets, list noise and changeset prefixes."""
    core = text.lstrip(" *_`>").strip()
    prefix = _CHANGESET_THANKS.match(core) or _CHANGESET_SHA.match(core)
    return core[prefix.end():] if prefix else core


def _classify_conventional(text: str) -> str | None:
    """Section from a conventional-commit prefix (``fix(scope):``, ``build(deps):``)."""
    match = _CONVENTIONAL.match(text)
    if not match:
        return None
    kind = match.group(1).lower()
    scope = (match.group(2) or "").strip().lower()
    if kind not in _CC_TYPES:
        return None
    if scope in _DEP_SCOPES:
        return "dependency"
    return _CC_TYPES[kind]


def _classify_wording(text: str, weak: bool) -> str | None:
    """Section implied by the bullet's own words; ``weak`` also trusts verbs like "Add"."""
    core = _bullet_core(text)
    if _BC_BREAK.match(core):
        return "breaking"
    found = _classify_conventional(core)
    if found:
        return found
    for prefix in (_SCOPE_PREFIX, _LABEL_PREFIX):
        match = prefix.match(core)
        if match:
            core = core[match.end() :]
            found = _classify_conventional(core)
            if found:
                return found
    word_match = _FIRST_WORD.match(core)
    if not word_match:
        return None
    word = word_match.group(0).lower()
    if word in _STRONG_WORDS:
        return _STRONG_WORDS[word]
    return _WEAK_WORDS.get(word) if weak else None


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


def classify_bullet(text: str) -> str | None:
    """Section implied by a bullet's own wording ("fix(x): …", "Fixed …", "Add …"), else None."""
    if not isinstance(text, str):
        return None
    return _classify_wording(text[:_MAX_TEXT], weak=True)
