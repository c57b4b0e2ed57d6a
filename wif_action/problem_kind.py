"""What kind of request a problem is: a broken behaviour, or functionality that does not exist yet.

Why its own module: the offline engine weighs feature entries like fixes for such requests, and the
scan only brings in a bundled SDK's feature entries for them; both must agree on the rule.
"""

from __future__ import annotations

from wif_action import lexicon
from wif_action.lexicon.terms import without_quoted


def feature_sections() -> frozenset[str]:
    """Release-note sections that add functionality: as good as fixes when the request asks for what is missing."""
    return lexicon.words("feature_sections")


def wants_functionality(text: str) -> bool:
    """Whether the request reads as missing functionality (then features are as good as fixes), in the customer's
    own words (`asked_in_own_words`)."""
    return bool(lexicon.pattern("missing_functionality").search(asked_in_own_words(text[:20_000])))


def asked_in_own_words(text: str) -> str:
    """The text without its quoted spans, without the clauses saying when or where the problem shows (lexicon
    `condition_clause`) and without those conceding a fact the complaint stands against (`concession_clause`).

    Why: "failed with \"This version of Sentry does not support artifact bundles\"" quotes what the tool printed, and
    "writes its progress lines to the error stream when there is no terminal" says when the bug shows; neither asks
    for something the SDK lacks, yet both read so, and a request for functionality lists the fixes after the
    features (`objections.a_feature_for_missing_functionality`) — the broken behaviour's fix last. So does "logs a
    warning on each call, even though there is no body for a GET": what the customer concedes is how things are."""
    own = lexicon.pattern("concession_clause").sub(" ", without_quoted(text))
    return lexicon.pattern("condition_clause").sub(" ", own)
