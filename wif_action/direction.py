"""Whether a change goes the way the customer asks: adding what they miss, or removing what they get too much of.

Why: an entry about the same thing but the opposite change is not the fix ("Send `internal_error` as span
status" for spans wrongly recorded as `internal_error`; "Remove user attributes from logs" for attributes
missing from logs). Both sides are read from their wording: the change's leading verb, and whether the
problem complains that the thing is there or that it is missing, in the sentence that names it.
"""

from __future__ import annotations

import re

_PREFIX = re.compile(r"^\W*(?:[a-z]+(?:\([^)]*\))?!?:\s*)?", re.IGNORECASE)
_ADDS = frozenset({"add", "adds", "added", "send", "sends", "set", "sets", "include", "includes", "capture",
                   "captures", "report", "reports", "record", "records", "attach", "attaches", "enable", "enables",
                   "emit", "emits", "track", "tracks", "create", "creates"})
_REMOVES = frozenset({"remove", "removes", "removed", "drop", "drops", "stop", "stops", "skip", "skips", "ignore",
                      "ignores", "filter", "filters", "disable", "disables", "exclude", "excludes", "avoid",
                      "avoids", "omit", "omits", "suppress", "suppresses"})
_NEGATED_VERB = re.compile(r"^(?:don'?t|do not|does not|no longer|never)\s+(\w+)", re.IGNORECASE)
_ABSENT = re.compile(r"\b(?:missing|without|empty|lost|lose|loses|lack|lacks|no|none|never|not (?:sent|captured|"
                     r"reported|recorded|shown|attached|included|set)|dropped|disappear\w*)\b", re.IGNORECASE)
_PRESENT = re.compile(r"\b(?:(?:recorded|reported|captured|sent|shown|marked|counted|flagged|treated) as|too many|"
                      r"shows? up(?: as| in)?|not real|false positives?|"
                      r"duplicate[sd]?|spurious|unexpected|unwanted|inflat\w*|noise|shouldn'?t|should not|"
                      r"even though|every (?:\w+ ){0,2}(?:is|are) (?:recorded|reported|captured|sent|marked))\b",
                      re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_][\w.]{2,}")
_COMMON = frozenset({"the", "and", "for", "with", "when", "that", "this", "from", "into", "are", "was", "were",
                     "not", "all", "any", "its", "has", "have", "sdk", "sentry", "error", "errors", "event",
                     "events", "issue", "issues", "fix", "fixes", "fixed"})


def change_direction(headline: str) -> str | None:
    """"adds" or "removes" when the headline starts with such a verb ("Send …", "Do not capture …")."""
    text = _PREFIX.sub("", headline.strip(), count=1)
    negated = _NEGATED_VERB.match(text)
    if negated:
        return "removes" if negated.group(1).lower() in _ADDS else None
    first = text.split(maxsplit=1)[0].strip("`*").lower() if text.split() else ""
    if first in _ADDS:
        return "adds"
    if first in _REMOVES:
        return "removes"
    return None


def opposite(headline: str, problem: str) -> str | None:
    """A reason when the change goes against what the problem asks for, else None."""
    direction = change_direction(headline)
    if direction is None:
        return None
    objects = _objects(headline)
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", problem[:5000]):
        named = objects & _words(sentence)
        if not named:
            continue
        complains_present, complains_absent = bool(_PRESENT.search(sentence)), bool(_ABSENT.search(sentence))
        thing = sorted(named)[0]
        if direction == "adds" and complains_present and not complains_absent:
            return f"it adds {thing}, and the problem is that {thing} is there when it should not be"
        if direction == "removes" and complains_absent and not complains_present:
            return f"it removes {thing}, and the problem is that {thing} is missing"
    return None


_CLAUSE = re.compile(r"\s(?:when|if|for|as|in|on|instead|to|from|with|after|before|during|by|because|so|that|"
                     r"unless|while|and|or)\s|[,;:(]", re.IGNORECASE)


def _objects(headline: str) -> set[str]:
    """What the verb acts on: the words up to the first clause ("Skip UI crumbs when sender is nil" → UI crumbs)."""
    text = _PREFIX.sub("", headline.strip(), count=1)
    text = _CLAUSE.split(text, maxsplit=1)[0]
    return _words(text) - _ADDS - _REMOVES - {"don't", "do", "does", "longer", "never"}


def _words(text: str) -> set[str]:
    return {word.lower().strip(".") for word in _WORD.findall(text.replace("`", ""))} - _COMMON
