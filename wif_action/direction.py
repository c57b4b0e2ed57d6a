"""Whether a change goes the way the customer asks: adding what they miss, or removing what they get too much of.

Why: an entry about the same thing but the opposite change is not the fix ("Send `internal_error` as span
status" for spans wrongly recorded as `internal_error`; "Remove user attributes from logs" for attributes
missing from logs). Both sides are read from their wording: the change's leading verb, and whether the
problem complains that the thing is there or that it is missing, in the sentence that names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wif_action import lexicon
from wif_action.lexicon.stemmer import stem

# The verbs (lexicon `direction_adds`/`direction_removes`) and the complaints (patterns `complains_absent`/
# `complains_present`) are lexicon data.
_WORD = re.compile(r"[A-Za-z_][\w.]{2,}")


def change_direction(headline: str) -> str | None:
    """"adds" or "removes" when the headline starts with such a verb ("Send …", "Do not capture …")."""
    text = lexicon.pattern("headline_prefix").sub("", headline.strip(), count=1)
    negated = lexicon.pattern("negated_verb").match(text)
    if negated:
        return "removes" if negated.group(1).lower() in lexicon.words("direction_adds") else None
    words = [word.strip("`*").lower() for word in text.split()[:2]]
    first = words[0] if words else ""
    if first in lexicon.words("direction_adds"):
        return "adds"
    if first in lexicon.words("direction_removes"):
        return _not_doing(words[1]) if len(words) > 1 and _gerund(words[1]) else "removes"
    return None


def _gerund(word: str) -> bool:
    """A verb's "-ing" form (lexicon pattern `gerund`) that the stemmer shortens ("serializing"; not "string")."""
    return bool(lexicon.pattern("gerund").match(word)) and stem(word) != word


def _not_doing(action: str) -> str | None:
    """The direction of a removing verb followed by the action it stops ("Avoid serializing …", "Stop sending …"):
    the opposite of the action's — "removes" when it stops adding (sending spans), "adds" when it stops removing
    ("stop suppressing exception chains" keeps them) — else None: not doing a conversion ("avoid serializing null
    optional bodies", "avoid parsing incomplete output") removes none of the things it names.

    Why: read as "removes null", the direction check held a right fix at MEDIUM ("it removes null, and the problem
    is that null is missing") for a request body sent as the text null."""
    verb = stem(action)
    if verb in {stem(word) for word in lexicon.words("direction_adds")}:
        return "removes"
    return "adds" if verb in {stem(word) for word in lexicon.words("direction_removes")} else None


@dataclass(frozen=True)
class Complaint:
    """One sentence of the problem: the things it names, and whether it complains they are there or missing."""

    words: frozenset[str]
    present: bool
    absent: bool


def complaints(problem: str) -> tuple[Complaint, ...]:
    """The problem's sentences as complaints (read once per question, `question.Question.complaints`)."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", problem[:5000]):
        sentence = without_conditions(sentence)
        words = frozenset(_words(sentence))
        if words:
            found.append(Complaint(words, bool(lexicon.pattern("complains_present").search(sentence)),
                                   bool(lexicon.pattern("complains_absent").search(sentence))))
    return tuple(found)


def without_conditions(sentence: str) -> str:
    """The sentence without its clauses saying when or where the problem shows (lexicon `condition_clause`).

    Why: "The SDK throws … while adding its internal breadcrumbs when a previous breadcrumb has no data" complains of
    the exception; "has no data" is when it happens. Read as "data is missing", it objected to the fix "Ignore null
    data on Internal breadcrumbs" as removing what the customer misses."""
    return lexicon.pattern("condition_clause").sub(" ", sentence)


def opposite(headline: str, problem: tuple[Complaint, ...]) -> str | None:
    """A reason when the change goes against what the problem (its `complaints`) asks for, else None."""
    direction = change_direction(headline)
    if direction is None:
        return None
    objects = _objects(headline)
    for complaint in problem:
        named = objects & complaint.words
        if not named:
            continue
        thing = sorted(named)[0]
        if direction == "adds" and complaint.present and not complaint.absent:
            return f"it adds {thing}, and the problem is that {thing} is there when it should not be"
        if direction == "removes" and complaint.absent and not complaint.present:
            return f"it removes {thing}, and the problem is that {thing} is missing"
    return None


def _objects(headline: str) -> set[str]:
    """What the verb acts on: the words after it up to the first clause ("Skip UI crumbs when sender is nil" → UI
    crumbs; "No longer send spans for …" → spans: a negation, read by the pattern that finds it, is no object),
    without stopwords ("the" of "Stop recording the health checks …" is shared by any sentence of the problem)."""
    text = lexicon.pattern("headline_prefix").sub("", headline.strip(), count=1)
    negated = lexicon.pattern("negated_verb").match(text)
    text = lexicon.pattern("clause_break").split(text[negated.start(1):] if negated else text, maxsplit=1)[0]
    return _words(text) - lexicon.words("direction_adds", "direction_removes", "stopwords")


def _words(text: str) -> set[str]:
    return {word.lower().strip(".") for word in _WORD.findall(text.replace("`", ""))}
