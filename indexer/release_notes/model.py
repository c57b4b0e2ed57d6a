"""The parser's output record and the size limits shared by its modules.

``ReleaseNoteEntry`` is what ``parse_release_notes`` returns for each bullet; the ``_MAX_*``
limits bound the work done on hostile or huge release bodies and are kept together here so
the heading, rendering and scanning modules apply the same caps.
"""

from __future__ import annotations

from dataclasses import dataclass

_MAX_TEXT = 4000  # entry text cap (chars)
_MAX_BOLD_TEXT = 600  # bold-title bullets: title plus the start of the explanation
_MAX_RAW = 16000  # raw source chars collected per bullet; bounds work on huge bullets
_MAX_REFS_PER_UNIT = 200  # bounds quadratic-ish work on pathological reference lists
_MAX_HEADING = 300


@dataclass(frozen=True)
class ReleaseNoteEntry:
    """One bullet of a release, classified, with the PRs/issues it references."""

    section: str
    text: str
    prs: tuple[int, ...]
    issues: tuple[int, ...]
    position: int
    heading: str
    commits: tuple[str, ...] = ()  # commit hashes the line cites (full SHA when a commit URL gives it)
