"""Entries of a release body that is prose, not a list: its paragraphs and lines that cite a change.

Some releases say what changed without a list or a heading: a patch release's one paragraph ("This release
fixes a regression where … ([#6722])") or old notes of one change per line ("fix: aspnet fqdn (#485) @user").
The scanner keeps the paragraphs no entry came from; when the whole body gave no entry, each of them becomes
entries here, so the fix it names can be an answer. A paragraph is one entry (its wrapped lines one sentence),
except that a line ending in a reference or a credit (``(#485) @user``, ``… #372``) ends an entry, so a
paragraph of one change per line gives one entry per line; so does a line that starts like a change (a
conventional-commit prefix, ``fix: …``, or a leading commit hash, ``0a1b2c3 Fix …``).

Only a piece that cites a PR or a commit of the repository becomes an entry: boilerplate ("Full Changelog:
…/compare/…", "Pre-release, see the GitHub release", "No changes", install steps, a thank-you) cites none, and
a line citing nothing could not be an answer anyway. Reference-link definitions (``[#6722]: https://…``) are
the citations' targets, not text. The section is what a headingless list item would get: the heading's, else
the piece's own wording (``fix: …`` → fix), else "other".
"""

from __future__ import annotations

import re

from indexer.release_notes.references import _LEADING_SHA, _looks_like_sha, _render_unit
from indexer.release_notes.scanner import _emit, _State, _Unit
from indexer.release_notes.sections import _classify_conventional

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
        for piece in _pieces(lines, state.repo):
            _emit(state, context, [_Unit(piece, True)], False, cited=True)


def _pieces(lines: list[str], repo: str | None) -> list[list[str]]:
    """A paragraph's entries: its text up to each reference or credit that ends a line or a sentence, and from
    each line that starts like a change ("fix: …", "0a1b2c3 Fix …"); link definitions left out."""
    pieces: list[list[str]] = [[]]
    for line in lines:
        if _LINK_DEFINITION.match(line):
            continue
        if pieces[-1] and _starts_entry(line):
            pieces.append([])
        start = 0
        for match in _SENTENCE_END.finditer(line):
            pieces[-1].append(line[start:match.end()].rstrip())
            pieces.append([])
            start = match.end()
        rest = line[start:]
        if rest:
            pieces[-1].append(rest)
        if _ENDS_ENTRY.search(_render_unit(rest, repo, None)[0].rstrip()):  # "(https://…/pull/77)" reads "(#77)"
            pieces.append([])
    return [piece for piece in pieces if piece]


def _starts_entry(line: str) -> bool:
    """A conventional-commit prefix of a known type or a leading commit hash: a change's first line."""
    if _classify_conventional(line) is not None:
        return True
    sha = _LEADING_SHA.match(line)
    return sha is not None and _looks_like_sha(sha.group(1))
