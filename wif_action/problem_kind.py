"""What kind of request a problem is: a broken behaviour, or functionality that does not exist yet.

Why its own module: the offline engine weighs feature entries like fixes for such requests, and the
scan only brings in a bundled SDK's feature entries for them; both must agree on the rule.
"""

from __future__ import annotations

from wif_action import lexicon


def feature_sections() -> frozenset[str]:
    """Release-note sections that add functionality: as good as fixes when the request asks for what is missing."""
    return lexicon.words("feature_sections")


def wants_functionality(text: str) -> bool:
    """Whether the request reads as missing functionality (then features are as good as fixes)."""
    return bool(lexicon.pattern("missing_functionality").search(text[:20_000]))
