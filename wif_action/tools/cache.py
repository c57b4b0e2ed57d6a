"""Read-only queries over the release cache (I/O only, no judgement).

Every method is one indexed query. A database error is re-raised as
CacheReadError, which no step degrades on (it is not a ToolError), so it
reaches the workflow and the run fails instead of answering from a half-read cache.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from packaging.version import Version

from indexer.repository_terms import ENTRY_LENGTH_SQL
from indexer.schema import read_cache
from indexer.versions import is_complete, parse_tag, release_prefix_matches, version_key
from wif_action.models import BundleBump, Entry, PullRequest, Release, UnreleasedNotes, unreleased_release
from wif_action.ports import CacheReadError
from wif_action.tools.term_index import key_needle

_IDS_PER_QUERY = 500  # well under SQLite's limit on bound parameters
_RELEASE_COLUMNS = "r.id, s.slug, r.tag, r.version, r.version_key, r.published_at, r.url, r.stable"


def _list(text: str | None) -> list:
    """A JSON list column; most entries cite nothing ("[]") or one PR ("[5242]"), which need no JSON parser
    (json.loads costs ~2 µs, over a thousand times a scan)."""
    if not text or text == "[]":
        return []
    inner = text[1:-1]
    if inner.isascii() and inner.isdigit():
        return [int(inner)]
    return json.loads(text)


@functools.lru_cache(maxsize=8)
def _naming_any(keys: frozenset[str]) -> Callable[[str], bool]:
    """Whether stored counts (`term_index.encode`'s JSON) name one of `keys` (each batch of a question asks
    with the same keys: built once)."""
    if not keys:
        return lambda _counts: False
    search = re.compile("|".join(re.escape(key_needle(key)) for key in sorted(keys))).search
    return lambda counts: search(counts) is not None


def _release(row: tuple) -> Release:
    return Release(id=row[0], repo=row[1], tag=row[2], version=row[3], version_key=row[4],
                   published_at=row[5], url=row[6], stable=bool(row[7]))


class Queryable(Protocol):
    """A `sqlite3.Connection` (what `read_cache` opens), or anything with its `execute` (sqlite-utils' Database)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> sqlite3.Cursor: ...

    def close(self) -> None: ...


class SqliteReleaseCache:
    """The ReleaseCache port over a plain `sqlite3` connection (answering never imports sqlite-utils)."""

    def __init__(self, db: Queryable):
        self.db = db
        self._commits_column: bool | None = None
        self._entry_terms: bool | None = None
        self._repository_terms: bool | None = None
        self._unreleased_commits_column: bool | None = None

    @classmethod
    def open(cls, path: str | Path) -> SqliteReleaseCache:
        return cls(read_cache(path))

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as error:
            raise CacheReadError(f"{error}; rebuild the cache with `wif index`") from error

    def _rows(self, sql: str, params: list) -> list[tuple]:
        with self._errors():
            return self.db.execute(sql, params).fetchall()

    def repositories(self) -> list[str]:
        return [row[0] for row in self._rows("select slug from repositories order by slug", [])]

    def has_repository(self, repo: str) -> bool:
        return bool(self._rows("select 1 from repositories where slug = ? and releases > 0", [repo]))

    def find_release(self, repo: str, version: str) -> Release | None:
        """Exact match on the normalised version; an incomplete one ("8.48", "v9") is completed
        to the newest stable release with that prefix."""
        typed = parse_tag(version)
        if typed is None:
            return None
        exact = self._rows(  # `version` too: a local version ("3.0.0+1") keyed by an older WIF
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and (r.version_key = ? or r.version = ?) order by r.stable desc limit 1",
            [repo, version_key(typed), str(typed)],
        )
        if exact:
            return _release(exact[0])
        return self._complete(repo, typed, version)

    def _complete(self, repo: str, typed: Version, text: str) -> Release | None:
        if is_complete(text):
            return None
        candidates = [_release(row) for row in self._rows(
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and r.stable = 1 order by r.version_key desc", [repo])]
        for release in candidates:
            parsed = parse_tag(release.version)
            if parsed and release_prefix_matches(parsed, typed, text):
                return release
        return None

    def count_stable_after(self, repo: str, key: str) -> int:
        return self._rows(
            "select count(*) from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and r.stable = 1 and r.version_key > ?", [repo, key])[0][0]

    def stable_after(self, repo: str, key: str, limit: int) -> list[Release]:
        return [_release(row) for row in self._rows(
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and r.stable = 1 and r.version_key > ? order by r.version_key limit ?",
            [repo, key, limit])]

    def stable_up_to(self, repo: str, key: str, limit: int) -> list[Release]:
        """The newest `limit` stable releases at or before `key` (a release of that key included), oldest first."""
        rows = self._rows(
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and r.stable = 1 and r.version_key <= ? order by r.version_key desc limit ?",
            [repo, key, limit])
        return [_release(row) for row in reversed(rows)]

    def latest_stable(self, repo: str) -> Release | None:
        rows = self._rows(
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and r.stable = 1 order by r.version_key desc limit 1", [repo])
        return _release(rows[0]) if rows else None

    def stable_releases(self, repo: str) -> list[Release]:
        return [_release(row) for row in self._rows(
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and r.stable = 1 order by r.version_key", [repo])]

    def entries(self, release_ids: list[int], sections: frozenset[str] | None = None) -> list[Entry]:
        """Entries of these releases (only those of `sections` when given: the bundled releases a bump brings
        in are judged by a few sections, and building every other entry cost more than judging them); a
        negative id is a repository's Unreleased pseudo-release (its entries get negative ids too, so they never
        collide with a published release's)."""
        pseudo = [-i for i in release_ids if i < 0]
        release_ids = [i for i in release_ids if i >= 0]
        unreleased = [entry for repo_id in pseudo for entry in self._unreleased_entries(repo_id)
                      if sections is None or entry.section in sections]
        return self._published_entries(release_ids, sections) + unreleased

    def _published_entries(self, release_ids: list[int], sections: frozenset[str] | None) -> list[Entry]:
        if not release_ids:
            return []
        marks = ",".join("?" * len(release_ids))
        releases = {row[0]: _release(row) for row in self._rows(
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            f"where r.id in ({marks})", list(release_ids))}
        commits = "e.commits" if self._has_commits() else "'[]'"
        wanted = sorted(sections) if sections is not None else []
        only = f" and e.section in ({','.join('?' * len(wanted))})" if sections is not None else ""
        rows = self._rows(
            f"select e.id, e.release_id, e.section, e.heading, e.text, e.prs, e.issues, e.position, {commits} "
            f"from entries e join releases r on r.id = e.release_id where e.release_id in ({marks}){only} "
            "order by r.version_key, e.position", [*release_ids, *wanted])
        return [Entry(id=row[0], release=releases[row[1]], section=row[2], heading=row[3] or "",
                      text=row[4], prs=_list(row[5]), issues=_list(row[6]),
                      position=row[7], commits=_list(row[8])) for row in rows]

    def _has_commits(self) -> bool:
        """Whether the file has `entries.commits` (writer-only m006: a reader opens an older cache without it)."""
        if self._commits_column is None:
            columns = self._rows("select name from pragma_table_info('entries')", [])
            self._commits_column = any(row[0] == "commits" for row in columns)
        return self._commits_column

    def unreleased_notes(self, repo: str) -> UnreleasedNotes | None:
        """The repository's cached Unreleased notes; None when the indexer never read them (or the cache
        predates them: schema m004 is optional for readers)."""
        if not self._has_unreleased_tables():
            return None
        rows = self._rows(
            "select u.repo_id, u.status, u.read_at, u.url, u.heading, u.truncated, "
            "(select count(*) from unreleased_entries e where e.repo_id = u.repo_id) "
            "from unreleased_notes u join repositories s on s.id = u.repo_id where s.slug = ?", [repo])
        if not rows:
            return None
        repo_id, status, read_at, url, heading, truncated, count = rows[0]
        return UnreleasedNotes(status=status, read_at=read_at, url=url, heading=heading or "", entries=count,
                               truncated=bool(truncated), release=self._pseudo(repo_id, repo, read_at, url))

    @staticmethod
    def _pseudo(repo_id: int, repo: str, read_at: str | None, url: str | None) -> Release:
        return unreleased_release(repo, repo_id, read_at, url)

    def _has_unreleased_tables(self) -> bool:
        return bool(self._rows("select 1 from sqlite_master where type = 'table' and name = 'unreleased_entries'", []))

    def _unreleased_entries(self, repo_id: int) -> list[Entry]:
        if not self._has_unreleased_tables():
            return []
        commits = "e.commits" if self._has_unreleased_commits() else "'[]'"
        rows = self._rows(
            "select e.id, s.slug, u.read_at, u.url, e.section, e.heading, e.text, e.prs, e.issues, e.position, "
            f"{commits} from unreleased_entries e join unreleased_notes u on u.repo_id = e.repo_id "
            "join repositories s on s.id = e.repo_id where e.repo_id = ? order by e.position", [repo_id])
        return [Entry(id=-row[0], release=self._pseudo(repo_id, row[1], row[2], row[3]), section=row[4],
                      heading=row[5] or "", text=row[6], prs=_list(row[7]),
                      issues=_list(row[8]), position=row[9], commits=_list(row[10]))
                for row in rows]

    def _has_unreleased_commits(self) -> bool:
        """Whether the file has `unreleased_entries.commits` (writer-only m010: an older cache lacks it)."""
        if self._unreleased_commits_column is None:
            columns = self._rows("select name from pragma_table_info('unreleased_entries')", [])
            self._unreleased_commits_column = any(row[0] == "commits" for row in columns)
        return self._unreleased_commits_column

    def bundle_bumps(self, release_ids: list[int]) -> list[BundleBump]:
        """The bundled-SDK bumps these releases' notes announce, in release then line order."""
        if not release_ids:
            return []
        marks = ",".join("?" * len(release_ids))
        rows = self._rows(
            f"select {_RELEASE_COLUMNS}, b.name, b.bundled_repo, b.from_text, b.to_text, b.from_key, b.to_key, "
            "e.text from bundle_bumps b join releases r on r.id = b.release_id "
            "join repositories s on s.id = r.repo_id join entries e on e.id = b.entry_id "
            f"where b.release_id in ({marks}) order by r.version_key, e.position, b.id",
            list(release_ids))
        return [BundleBump(release=_release(row[:8]), name=row[8], bundled_repo=row[9], from_text=row[10],
                           to_text=row[11], from_key=row[12], to_key=row[13], text=row[14]) for row in rows]

    def bundled_key_at(self, repo: str, bundled_repo: str, host_key: str, *, inclusive: bool) -> str | None:
        """The newest bundled version (key) a stable release of `repo` at (or, not inclusive, before)
        `host_key` bumped `bundled_repo` to: what that release ships, as far as the notes say."""
        rows = self._rows(
            "select max(b.to_key) from bundle_bumps b join releases r on r.id = b.release_id "
            "join repositories s on s.id = b.repo_id where s.slug = ? and b.bundled_repo = ? and r.stable = 1 "
            f"and r.version_key {'<=' if inclusive else '<'} ? and b.to_key is not null",
            [repo, bundled_repo, host_key])
        return rows[0][0] if rows else None

    def stable_between(self, repo: str, after_key: str, upto_key: str) -> list[Release]:
        """Stable releases with after_key < version_key <= upto_key, oldest first (what a bump brings in)."""
        return [_release(row) for row in self._rows(
            f"select {_RELEASE_COLUMNS} from releases r join repositories s on s.id = r.repo_id "
            "where s.slug = ? and r.stable = 1 and r.version_key > ? and r.version_key <= ? order by r.version_key",
            [repo, after_key, upto_key])]

    def first_release_bundling(self, repo: str, bundled_repo: str, bundled_key: str) -> Release | None:
        """The oldest stable release of `repo` whose notes bump `bundled_repo` to `bundled_key` or later."""
        rows = self._rows(
            f"select {_RELEASE_COLUMNS} from bundle_bumps b join releases r on r.id = b.release_id "
            "join repositories s on s.id = r.repo_id where s.slug = ? and b.bundled_repo = ? and r.stable = 1 "
            "and b.to_key >= ? order by r.version_key limit 1", [repo, bundled_repo, bundled_key])
        return _release(rows[0]) if rows else None

    def bundled_repositories(self, repo: str) -> list[str]:
        """The repositories whose SDKs `repo`'s notes bump (as the registry named them at indexing)."""
        return [row[0] for row in self._rows(
            "select distinct b.bundled_repo from bundle_bumps b join repositories s on s.id = b.repo_id "
            "where s.slug = ? and b.bundled_repo is not null order by 1", [repo])]

    def first_stable_release_with_pr(self, repo: str, pr: int) -> Release | None:
        rows = self._rows(
            f"select {_RELEASE_COLUMNS} from pr_first_release f join releases r on r.id = f.release_id "
            "join repositories s on s.id = f.repo_id where s.slug = ? and f.pr = ?", [repo, pr])
        return _release(rows[0]) if rows else None

    def user_has_pr(self, repo: str, pr: int, user_release: Release) -> bool:
        return pr in self.prs_user_has(repo, [pr], user_release)

    def prs_user_has(self, repo: str, prs: list[int], user_release: Release) -> set[int]:
        """The PRs listed by a release at or below the user's version that was published no later than it.

        Why the date: a backport on an older line (9.47.1 published after 10.22.0) has a lower
        version but is not in the user's build. One query for a whole batch of release notes.
        """
        numbers = sorted({int(pr) for pr in prs})
        if not numbers:
            return set()
        marks = ",".join("?" * len(numbers))
        published = user_release.published_at
        rows = self._rows(
            "select distinct ep.pr from entry_prs ep join releases r on r.id = ep.release_id "
            f"join repositories s on s.id = ep.repo_id where s.slug = ? and ep.pr in ({marks}) "
            "and r.version_key <= ? and (r.published_at is null or ? is null or r.published_at <= ?)",
            [repo, *numbers, user_release.version_key, published, published])
        return {row[0] for row in rows}

    def cached_pull(self, repo: str, number: int) -> PullRequest | None:
        """A cached PR; None on a miss, and for numbers the indexer found are not PRs (state
        'not_found', kept so it does not re-fetch them) — the caller then asks the API."""
        rows = self._rows(
            "select p.number, p.title, p.body, p.state, p.merged, p.merged_at, p.merge_commit_sha, p.url "
            "from pulls p join repositories s on s.id = p.repo_id where s.slug = ? and p.number = ? "
            "and coalesce(p.state, '') != 'not_found'",
            [repo, number])
        if not rows:
            return None
        row = rows[0]
        return PullRequest(repo=repo, number=row[0], title=row[1] or "", body=row[2] or "", state=row[3] or "",
                           merged=bool(row[4]), merged_at=row[5], merge_commit_sha=row[6],
                           url=row[7] or f"https://github.com/{repo}/pull/{row[0]}")

    def stored_term_counts(self, entry_ids: list[int], fingerprint: str,
                           keys: Collection[str] | None = None) -> dict[int, dict[str, int]]:
        """The term counts `wif index` stored for these entries (tools/term_index.py) under `fingerprint`; an
        entry without such a row is left out (the caller counts it), and so is every entry of a cache that
        predates them (schema m009 is writer-only). With `keys`, a row that names none of them is {}, not
        decoded: one regex of the keys' JSON spellings tells (a false hit only costs a decode)."""
        ids = sorted({i for i in entry_ids if i >= 0})
        if not ids or not self._has_entry_terms():
            return {}
        shares = None if keys is None else _naming_any(frozenset(keys))
        found: dict[int, dict[str, int]] = {}
        for start in range(0, len(ids), _IDS_PER_QUERY):
            part = ids[start:start + _IDS_PER_QUERY]
            marks = ",".join("?" * len(part))
            rows = self._rows(f"select entry_id, counts from entry_terms where entry_id in ({marks}) "
                              "and fingerprint = ?", [*part, fingerprint])
            found.update((row[0], json.loads(row[1]) if shares is None or shares(row[1]) else {}) for row in rows)
        return found

    def _has_entry_terms(self) -> bool:
        if self._entry_terms is None:
            self._entry_terms = bool(self._rows("select 1 from pragma_table_info('entry_terms') limit 1", []))
        return self._entry_terms

    def term_statistics(self, repo: str, terms: list[str]) -> tuple[int, float, dict[str, int]]:
        """(documents, mean document length in tokens, document frequency per term) for BM25
        over all of a repository's entries: the first two as `wif index` stored them (schema m011), else
        counted; the frequencies from the FTS5 index (they depend on the question's terms)."""
        docs, avg_len = self._stored_documents(repo) or self._rows(
            f"select count(*), avg({ENTRY_LENGTH_SQL}) "
            "from entries e join repositories s on s.id = e.repo_id where s.slug = ?", [repo])[0]
        frequencies: dict[str, int] = {}
        for term in terms:
            frequencies[term] = self._rows(
                # The full-text query runs once (a subquery), then this repository's rows are probed by rowid:
                # joined instead, SQLite may run the match once per entry of the repository.
                "select count(*) from entries e join repositories s on s.id = e.repo_id where s.slug = ? "
                "and e.rowid in (select rowid from entries_fts where entries_fts match ?)",
                [repo, '"' + term.replace('"', "") + '"'])[0][0]
        return docs or 0, float(avg_len or 1.0), frequencies

    def _stored_documents(self, repo: str) -> tuple[int, float] | None:
        """(documents, mean length) as the indexer stored them; None without a row (a repository whose notes
        changed since, one with no notes) or without the table (writer-only m011): the caller counts them."""
        if self._repository_terms is None:
            self._repository_terms = bool(self._rows("select 1 from pragma_table_info('repository_terms') limit 1",
                                                     []))
        if not self._repository_terms:
            return None
        rows = self._rows("select t.documents, t.mean_length from repository_terms t "
                          "join repositories s on s.id = t.repo_id where s.slug = ?", [repo])
        return (rows[0][0], rows[0][1]) if rows else None
