"""Entries of a release body that is prose, not a list: its paragraphs and lines that cite a change.

Some releases say what changed without a list or a heading: a patch release's one paragraph ("This release
fixes a regression where … ([#6722])") or old notes of one change per line ("fix: aspnet fqdn (#485) @user").
The scanner keeps the paragraphs no entry came from; when the whole body gave no entry, each of them becomes
entries here, so the fix it names can be an answer. A paragraph is one entry (its wrapped lines one sentence),
except that a line ending in a reference or a credit (``(#485) @user``, ``… #372``) ends an entry, so a
paragraph of one change per line gives one entry per line.

Only a piece that cites a PR or a commit of the repository becomes an entry: boilerplate ("Full Changelog:
…/compare/…", "Pre-release, see the GitHub release", "No changes", install steps, a thank-you) cites none, and
a line citing nothing could not be an answer anyway. Reference-link definitions (``[#6722]: https://…``) are
the citations' targets, not text. The section is what a headingless list item would get: the heading's, else
the piece's own wording (``fix: …`` → fix), else "other".
"""

from __future__ import annotations

import re

from indexer.release_notes.scanner import _emit, _State, _Unit

_LINK_DEFINITION = re.compile(r"\[[^\[\]\n]{1,100}\]:\s+\S")
# What closes an entry: parenthesised references ("(#485)", "([#6722])", "(#157, #103)"), a commit in parentheses
# ("(92e109c)") or a credit ("@user"). Parenthesised references count wherever they stand, so splitting after them
# changes no reference; a bare "#N" at a line's end does not split (joined, it may be a mention mid-sentence).
_CLOSER = (r"(?:\(\s*\[?#\d{1,7}\]?(?:\s*,\s*\[?#\d{1,7}\]?){0,20}\s*\)"
           r"|\((?=[0-9a-f]{0,39}\d)(?=[0-9a-f]{0,39}[a-f])[0-9a-f]{7,40}\)|@[\w-]{1,60})")
_ENDS_ENTRY = re.compile(_CLOSER + r"[.;]?$")  # a line that ends an entry
_SENTENCE_END = re.compile(_CLOSER + r"[.;][ \t]+(?=[A-Z])")  # "Fixes A (#1). Fixes B (#2)." splits after "(#1)."


def prose_entries(state: _State) -> None:
    """Emit the kept paragraphs' pieces that cite a PR or commit (called when the body gave no entry)."""
    for context, lines in state.prose:
        for piece in _pieces(lines):
            _emit(state, context, [_Unit(piece, True)], False, cited=True)


def _pieces(lines: list[str]) -> list[list[str]]:
    """A paragraph's entries: its text up to each reference or credit that ends a line or a sentence, link
    definitions left out."""
    pieces: list[list[str]] = [[]]
    for line in lines:
        if _LINK_DEFINITION.match(line):
            continue
        start = 0
        for match in _SENTENCE_END.finditer(line):
            pieces[-1].append(line[start:match.end()].rstrip())
            pieces.append([])
            start = match.end()
        rest = line[start:]
        if rest:
            pieces[-1].append(rest)
        if _ENDS_ENTRY.search(rest):
            pieces.append([])
    return [piece for piece in pieces if piece]
