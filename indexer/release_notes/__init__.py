"""Parse one GitHub release body (Markdown or a plain CHANGELOG section) into entries.

WIF answers "was this fixed, where, by which PR" from release notes, so every bullet of a
release has to become an entry with a normalised section and the PR/issue numbers it cites.
The notes come from many hand-written and generated styles (Sentry house style, craft
auto-notes, release-please, GitHub's "What's Changed", Keep-a-Changelog, changesets, an
reStructuredText CHANGELOG), so the parser is a forgiving line scanner rather than a Markdown
renderer. A changesets credit ("#512 `9f8e7d6` Thanks @carol! - Fix …") or commit prefix
("1a2b3c4: Fix …") is moved out of the way so the entry starts with the change.

Reference rules (chosen so that a PR number is only claimed when the notes really cite it):

* ``[#N](…/pull/N)``, ``[(#N)](…/pull/N)``, `` `#N <…/pull/N>`_ ``, a bare ``…/pull/N`` URL → PR ``N``.
* ``[#N](…/issues/N)`` (release-please writes PR links this way; GitHub redirects) → PR ``N``
  unless a closing keyword precedes it (``Fixes [#N](…/issues/N)``) → issue ``N``.
  Any other ``…/issues/N`` URL or link → issue ``N``.
* A bare ``#N`` (or ``owner/repo#N`` of the same repository) counts as a PR only when it is
  parenthesised (``(#1234)``, ``(#4917 and #4918)``), part of the trailing reference group
  of its line (``… #770``, ``…, #3551 by @user``), leads the line (``#97 Sentry …``, also each
  reference of a leading group: ``[#554][], [#1017][]: Close …``) or ends a title
  (``Title #1048: details``). A mid-sentence ``#N`` ("reverting … from #6380 (#6491)") is
  ambiguous between an issue and an earlier PR and is not counted; it stays in the text.
* ``Fixes/Closes/Resolves #N`` (also ``GH-N``, ``owner/repo#N``, issue URLs) → issue ``N``.
* A bare ``#N`` that would cite a PR is an issue when its line links a higher-numbered PR explicitly
  (``… (#2599) by @x in https://…/pull/3006``: generated notes print the PR's title, which names its issue; an
  issue predates the PR that fixes it). A higher bare ``#N`` stays a PR (a backport: ``([#17357](…/pull/17357))
  (#17359)``).
* With ``repo`` given, links and URLs to other repositories are never counted as PRs or issues.
* Commits (``commits``): a ``…/commit/<sha>`` URL of the same repository, a hash in parentheses, backticks
  or brackets (``… base_url (92e109c)``) with a digit and a letter, a full 40-hex SHA, and a leading credit
  hash (``1a2b3c4: Fix …``); after them, a commit URL of another repository as ``owner/repo@sha``
  (``github_refs.commit_ref``: socket.io-client's lines citing engine.io-client's commits). A line that cites a
  commit but no PR is judged with its text as the only evidence, and answered with that commit.

Only the bullet line itself (plus lines that continue it without a blank line) and its
nested sub-bullets contribute references; explanatory paragraphs after a blank line are
kept as text but often mention older PRs ("Re-lands #6380, reverted by #6491"), so their
numbers are not claimed (explicit issue links there are).

Entries are list items (``-``, ``*``, ``+``, ``1.``). Prose, blockquotes/alerts, admonitions,
code fences, tables, other HTML and "New Contributors" lists are skipped (HTML headings and lists are
read as their Markdown equivalents, see ``html.py``); the exceptions are old
plain-text changelogs whose paragraph lines each end in ``(#N)``, where every line is an entry, and a body
that gives no entry at all, whose prose paragraphs and lines that cite a PR or commit are its entries
(``prose.py``: "This release fixes a regression … ([#6722])").
"""

from __future__ import annotations

import logging

from indexer.release_notes.model import ReleaseNoteEntry
from indexer.release_notes.sections import (
    SECTIONS,
    classify_bullet,
    classify_heading,
    commit_prefix,
    commit_prefix_pattern,
    line_scopes,
)

__all__ = ["PARSER_VERSION", "SECTIONS", "ReleaseNoteEntry", "classify_bullet", "classify_heading",
           "commit_prefix", "commit_prefix_pattern", "line_scopes", "parse_release_notes"]

# Raise when the same body parses to different entries: a cache whose entries an older parser wrote re-parses
# its stored bodies on the next `wif index` run (no GitHub request), so parser fixes reach existing caches.
PARSER_VERSION = 16  # 3: commits a line cites (entries.commits); 4: ``literal`` spans (rst) no longer swallow links;
# 5: a list item that only names a section ("* Bug Fixes" over "  * Fix …") is a heading, its items the entries;
# 6: every reference of a leading group ("[#554][], [#1017][]: Close …") cites a PR, not only the first;
# 7: a body with no entry yields its prose paragraphs/lines that cite a PR or commit (prose.py);
# 8: older changesets credits ("`sha` #N Thanks @user! - …") leave the change first; "Updated dependencies …" lines
# are dependency lines;
# 9: bundled-SDK bump lines in more wordings (bumps.py: "Update"/"Upgrade" with both ends, any commit prefix, "to
# version X", "Update from vA to vB of JavaScript SDKs"): the entries are 8's, bundle_bumps are rebuilt with them
# 10: a line's label naming a kind of change ("Bug fix: …", "Improvement: …", as a heading would) is its section
# 11: a line's own conventional-commit type "fix" wins over a feature-like heading ("fix(proxy): …" under
# "Enhancements"); a bare #N below an explicit /pull/N link of its line is that PR's issue ("… (#2599) by @x in
# …/pull/3006")
# 12: a line led by the PR it cites ("[#2734](…/pull/2734) Fix …", Stripe's SDKs) is classified by the words after it
# 13: a leading bracketed tag naming a kind of change is the line's section ("[Bug] Fix …" fix, "[Docs] Add …" docs:
# Polly's generated notes); another tag ("[Dio] Ref: …") leaves the words after it to decide
# 14: the items nested under a scope-only item ("* **http1:**", clog's scope groups) are entries of their own, each
# led by the scope, not one entry citing every item's PR
# 15: a commit link of another repository is kept among the line's commits as ``owner/repo@sha`` (after its own
# repository's hashes), so a line citing only that commit is judged and links it
# 16: a heading in the imperative ("#### Add", "#### Remove", beside "#### Fix": Kingfisher's CHANGELOG) files its
# lines as the past tense does ("Added" feature, "Removed" breaking), not as `other`

_log = logging.getLogger(__name__)


def _parse(body: str, repo: str | None) -> list[ReleaseNoteEntry]:
    """Scan the body line by line; see module docstring for the rules."""
    # Imported here: the judge reads sections (commit_prefix, classify_bullet) on every answer, the scanner only
    # `wif index` needs (~3 ms of regexes and classes an offline answer would load for nothing).
    from indexer.release_notes.html import html_lists_to_markdown
    from indexer.release_notes.prose import prose_entries
    from indexer.release_notes.scanner import _MAX_LINE, _close_bullet, _handle_line, _State

    state = _State(repo=repo)
    text = html_lists_to_markdown(body.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", ""))
    for line in text.split("\n"):
        _handle_line(state, line[:_MAX_LINE].expandtabs(4))
    _close_bullet(state)
    if not state.entries:  # no list item or entry line: the prose's paragraphs that cite a change (prose.py)
        prose_entries(state)
    return state.entries


def parse_release_notes(body: str | None, repo: str | None = None) -> list[ReleaseNoteEntry]:
    """Entries of one release body; never raises (malformed input yields fewer entries)."""
    if not isinstance(body, str) or not body.strip():
        return []
    if not isinstance(repo, str) or "/" not in repo:
        repo = None
    try:
        return _parse(body, repo)
    except Exception:  # pragma: no cover - safety net; the property tests call _parse directly
        _log.exception("release-notes parse failed")
        return []
