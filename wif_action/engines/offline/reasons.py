"""Wording helpers for the one-sentence reasons the engine gives.

Why a module: the workflow rejects any version or PR number in a reason that the run
never read, so term lists must never contain something that reads like one ("pr 504",
"#12", "1.4") unless it is quoted from the PR title itself.
"""

from __future__ import annotations

import re

from indexer.github_refs import PR_MENTION
from indexer.versions import VERSION_IN_TEXT

MAX_TITLE_CHARS = 120
_CLAIM_LIKE = re.compile(r"\d+\.\d+|#\d|\bpr\s*\d|/(?:pull|issues)/\d", re.IGNORECASE)
_CLAIM_TOKEN = re.compile(f"{VERSION_IN_TEXT.pattern}|{PR_MENTION.pattern}", re.IGNORECASE)


def term_list(names: list[str], limit: int = 4) -> str:
    """`"a", "b", "c"`: the first `limit` names that cannot be mistaken for a version or PR number."""
    safe = [name for name in dict.fromkeys(names) if not _CLAIM_LIKE.search(name)]
    return ", ".join(f'"{name}"' for name in safe[:limit])


def quote_title(title: str) -> str:
    """The PR title in double quotes, on one line, shortened at a word boundary.

    Version and PR numbers in it become "…": a title (or a release note standing in for
    a missing PR) must not put numbers into the answer that the run did not conclude.
    """
    title = _CLAIM_TOKEN.sub("…", " ".join((title or "").split()).replace('"', "'"))
    if len(title) > MAX_TITLE_CHARS:
        title = title[:MAX_TITLE_CHARS].rsplit(" ", 1)[0] + "…"
    return f'"{title}"'
