"""What kind of request a problem is: a broken behaviour, or functionality that does not exist yet.

Why its own module: the offline engine weighs feature entries like fixes for such requests, and the
scan only brings in a bundled SDK's feature entries for them; both must agree on the rule.
"""

from __future__ import annotations

import re

# Release-note sections that add functionality: as good as fixes when the request asks for what is missing.
FEATURE_SECTIONS = frozenset({"feature", "improvement"})

_THING = r"(?:option|api|way|setting|config\w*|handler|method|hook|callback|integration|support|flag|parameter)"
# "wants to know / confirm whether …" asks about the fix, not for functionality.
_NOT_ASKING = r"(?! to (?:know|understand|confirm|check|verify|ask|find out|see|make sure|learn|hear|clarify)\b)"
# Phrases of a request for functionality that does not exist yet (then features count like fixes).
_MISSING_FUNCTIONALITY = re.compile("|".join([
    r"\bis there (?:something|anything) (?:like|similar)",
    rf"\bis there (?:an?|any|some|something|anything)\b(?: \w+){{0,2}} ?{_THING}",
    r"\bno way to\b", r"\bthere(?: is|'s) no\b", r"\bno (?:option|api|setting|support|handler|way)\b",
    r"\b(?:does ?n[o']t|do ?n[o']t|can ?n[o']t|cannot) (?:support|configure|customi[sz]e)",
    r"\b(?:can ?n[o']t|cannot|unable to|no way to) (?:tell|distinguish|differentiate|know whether)\b",
    r"\bnot supported\b", r"\bsupport for\b",
    r"\bonly (?:accepts?|supports?|allows?|takes?|reads?|sends?|carry|carries)\b",
    rf"(?<!n't )(?<!not )\bwants?{_NOT_ASKING} to\b", rf"\bwould like\b{_NOT_ASKING}",
    r"\bfeature request\b", r"\bis it possible to\b",
    r"\bbe able to\b", r"\boption to\b", r"\bcan (?:a|the) (?:newer|later|new)\b",
]), re.IGNORECASE)


def wants_functionality(text: str) -> bool:
    """Whether the request reads as missing functionality (then features are as good as fixes)."""
    return bool(_MISSING_FUNCTIONALITY.search(text[:20_000]))
