"""The default branch's Unreleased notes: fixes merged but in no release yet.

Most projects that keep a CHANGELOG write every merged change under `## Unreleased` at the top of
`CHANGELOG.md` before it ships. The indexer caches that section per repository (table
`unreleased_notes`, its entries in `unreleased_entries`; schema m004), parsed with the release-notes
parser, with when it was read. It is never mixed with published releases, is replaced on every run
(an unchanged file costs one 304), and disappears when the section does (it shipped).

Bounded: at most MAX_SECTION_CHARS of the section are kept (a bigger one is cut at a line and marked
truncated); a file that is not text (NUL bytes, mostly undecodable) caches nothing and says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from sqlite_utils import Database

from indexer.github_source import DefaultChangelog
from indexer.release_notes import PARSER_VERSION, parse_release_notes
from indexer.store import now, repository_id

MAX_SECTION_CHARS = 200_000  # a real Unreleased section is a few KB; sentry-javascript's longest ~30 KB
MAX_ENTRIES = 1_000
# `## Unreleased`, `## [Unreleased]`, `# Unreleased changes`, `### 🚀 Unreleased - 2025-01-01`, `## [unreleased]: …`
_UNRELEASED = re.compile(r"^(#{1,3})[ \t]+[^\w\n\[]{0,8}\[?unreleased\b[^\n]*$", re.IGNORECASE | re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(\[?(?:version |release )?v?\d+\.\d+)?", re.MULTILINE | re.IGNORECASE)

OK, NO_CHANGELOG, NO_SECTION, NOT_TEXT = "ok", "no_changelog", "no_section", "not_text"


@dataclass
class Section:
    """What a CHANGELOG says is unreleased: `status` is one of OK, NO_SECTION, NOT_TEXT."""

    status: str
    heading: str = ""
    body: str = ""
    truncated: bool = False


@dataclass
class Outcome:
    """What one run did with a repository's Unreleased notes, for the progress line."""

    status: str  # ok / no_changelog / no_section / not_text / not_modified / failed
    entries: int = 0
    truncated: bool = False
    error: str = ""
    reparsed: bool = False
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if self.status == "failed":
            return f"Unreleased notes not read ({self.error}); the previous ones are kept"
        if self.status == NO_CHANGELOG:
            return "no CHANGELOG.md on the default branch, so no Unreleased notes"
        if self.status == NO_SECTION:
            return "CHANGELOG.md has no Unreleased section, nothing unreleased cached"
        if self.status == NOT_TEXT:
            return "CHANGELOG.md is not text, nothing unreleased cached"
        cut = " (section cut at its size limit)" if self.truncated else ""
        unchanged = "CHANGELOG.md not modified (304), " if self.status == "not_modified" else ""
        return f"{unchanged}{self.entries} Unreleased entr{'y' if self.entries == 1 else 'ies'} cached{cut}"


def unreleased_section(data: bytes) -> Section:
    """The Unreleased section of a CHANGELOG's bytes: from its heading to the next heading of the same or a
    higher level, or the first version heading (the first published release's `## X.Y.Z`)."""
    text = data.decode("utf-8", "replace")
    if "\x00" in text or text.count("\ufffd") > max(16, len(text) // 100):
        return Section(NOT_TEXT)
    match = _UNRELEASED.search(text)
    if match is None:
        return Section(NO_SECTION)
    level = len(match.group(1))
    end = next((h.start() for h in _HEADING.finditer(text, match.end()) if len(h.group(1)) <= level or h.group(2)),
               len(text))
    body = text[match.end():end].strip("\n")
    truncated = len(body) > MAX_SECTION_CHARS
    if truncated:
        body = body[:body.rfind("\n", 0, MAX_SECTION_CHARS) + 1 or MAX_SECTION_CHARS]
    return Section(OK, match.group(0).lstrip("#").strip()[:200], body, truncated)


# ---------------------------------------------------------------------------- storage
def stored_etag(db: Database, slug: str) -> str | None:
    """The ETag of the CHANGELOG.md the stored notes came from (None: never read, or an older parser)."""
    row = db.execute("select u.etag, u.parser from unreleased_notes u join repositories s on s.id = u.repo_id "
                     "where s.slug = ?", [slug]).fetchone()
    return row[0] if row and row[1] == PARSER_VERSION else None


def cited_pulls(db: Database, slug: str, reply: DefaultChangelog | None) -> list[int]:
    """The PRs the Unreleased notes cite, in the section's order: as `reply` has them (a 200 or a 404), else (a
    304, or not read) as cached."""
    if reply is not None and reply.status == 404:
        return []
    if reply is not None and reply.status != 304:
        section = unreleased_section(reply.data or b"")
        entries = parse_release_notes(section.body, repo=slug)[:MAX_ENTRIES] if section.body else []
        return [number for entry in entries for number in entry.prs]
    rows = db.execute("select e.prs from unreleased_entries e join repositories s on s.id = e.repo_id "
                      "where s.slug = ? order by e.position", [slug])
    return [int(number) for (prs,) in rows for number in json.loads(prs or "[]")]


def store(db: Database, slug: str, reply: DefaultChangelog) -> Outcome:
    """Replace the repository's Unreleased notes with what `reply` says (call inside one transaction)."""
    repo_id = repository_id(db, slug)
    if reply.status == 304:
        db.execute("update unreleased_notes set read_at = ? where repo_id = ?", [now(), repo_id])
        count = db.execute("select count(*), max(truncated) from unreleased_entries e "
                           "join unreleased_notes u on u.repo_id = e.repo_id where e.repo_id = ?", [repo_id]).fetchone()
        return Outcome("not_modified", entries=count[0], truncated=bool(count[1]))
    section = Section(NO_CHANGELOG) if reply.status == 404 else unreleased_section(reply.data or b"")
    db.execute("delete from unreleased_entries where repo_id = ?", [repo_id])
    db.execute("delete from unreleased_notes where repo_id = ?", [repo_id])
    db.execute("insert into unreleased_notes (repo_id, status, heading, body, truncated, etag, url, read_at, parser) "
               "values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               [repo_id, section.status, section.heading, section.body, int(section.truncated),
                reply.etag, reply.url, now(), PARSER_VERSION])
    entries = parse_release_notes(section.body, repo=slug)[:MAX_ENTRIES] if section.body else []
    db.conn.executemany(
        "insert into unreleased_entries (repo_id, position, section, heading, text, prs, issues, commits) "
        "values (?, ?, ?, ?, ?, ?, ?, ?)",
        [(repo_id, e.position, e.section, e.heading, e.text, json.dumps(list(e.prs)), json.dumps(list(e.issues)),
          json.dumps(list(e.commits))) for e in entries])
    return Outcome(section.status, entries=len(entries), truncated=section.truncated)
