"""What the file at `--db` is, from its first 100 bytes, and which kind of "cannot use it" an error is.

Why: a question used to run `PRAGMA quick_check` over the whole file (21 ms on the example cache, 379 ms on a
20× cache) and every SQLite error at open became "not a readable cache … delete it" — so a full disk advised
deleting a valid cache and `--db README.md` advised deleting the README. The header tells a SQLite database
from any other file and a truncated database from a whole one for the price of one read; every page is
checked by `wif index` (the writer), and a page damaged later fails the read that meets it.
Three kinds of refusal, each with its own advice: not a cache (never suggest deleting it), damaged (rebuild
it, moving the file aside), cannot be opened now (disk full, permissions, locked: the file is fine, retry).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_BYTES = 100
WAL_HEADER_BYTES = 32  # a -wal file this long or shorter holds no page
# SQLite result codes (primary, the low byte of sqlite_errorcode) that say "not now", not "not a cache".
_NOT_NOW = {3: "permission denied", 5: "another process holds a lock", 6: "another connection holds a lock",
            7: "out of memory", 8: "the file or its directory is read-only", 10: "often a full disk",
            13: "the disk is full", 14: "SQLite cannot open the file or its -wal/-shm companion",
            15: "locked by the file system"}
_CORRUPT, _NOTADB = 11, 26


class CacheError(Exception):
    """The cache file cannot be used; the message says what to do."""


class NotACache(CacheError):
    """The file is something else (a text file, another program's database): point --db elsewhere."""


class CacheDamaged(CacheError):
    """A WIF file whose contents are damaged: rebuild it."""


class NeverFilled(CacheError):
    """A WIF cache no index run has stored a release in (a first `wif index` that reached nothing)."""


class CacheUnavailable(CacheError):
    """The file cannot be opened or written right now (disk full, permissions, locked); it was not changed."""


def header_problem(path: Path) -> tuple[type[CacheError], str] | None:
    """Why the file's header says it is not a whole SQLite database (None: it may be one).

    Checks the magic string, the page size, and — when the header's page count is current (its
    "version-valid-for" equals the change counter) — that the file holds every page it counts.
    """
    try:
        with path.open("rb") as file:
            header = file.read(HEADER_BYTES)
            size = path.stat().st_size
    except OSError as error:
        raise CacheUnavailable(f"{path} cannot be read now ({error.strerror or error}); the file was not changed. "
                               "Check its permissions and the disk, then retry.") from error
    if not header.startswith(SQLITE_MAGIC):
        return NotACache, "not a SQLite database"
    if len(header) < HEADER_BYTES:
        return CacheDamaged, "its header is cut short"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return CacheDamaged, f"its header names an impossible page size ({page_size})"
    pages = int.from_bytes(header[28:32], "big")
    current = header[24:28] == header[92:96]
    if current and pages and size < pages * page_size and not _log_pending(path):
        return CacheDamaged, f"truncated: {size:,} bytes where its header counts {pages * page_size:,}"
    return None


def _log_pending(path: Path) -> bool:
    """A write-ahead log with frames lies beside the file. Why it matters: a checkpoint copies the log's pages in
    page order, page 1 (the header's new page count) first, so a process killed during it leaves the file short
    of its header's count while the log still holds every page; SQLite reads that file whole (and the indexer's
    `quick_check` still finds real damage)."""
    try:
        return Path(f"{path}-wal").stat().st_size > WAL_HEADER_BYTES
    except OSError:
        return False


def classify(error: sqlite3.DatabaseError) -> type[CacheError]:
    """The kind of refusal an SQLite error at open means."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code in _NOT_NOW or (isinstance(error, sqlite3.OperationalError) and not code):
        return CacheUnavailable
    if code == _NOTADB:
        return NotACache
    return CacheDamaged


def is_busy(error: BaseException | None) -> bool:
    """SQLITE_BUSY: another process holds a lock that SQLite's busy handler did not wait for."""
    return isinstance(error, sqlite3.OperationalError) and getattr(error, "sqlite_errorcode", 0) & 0xFF == 5


def reason(error: sqlite3.DatabaseError) -> str:
    """A short reason for an SQLite error: SQLite's own words, explained when its result code says more."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    return f"{error} — {_NOT_NOW[code]}" if code in _NOT_NOW else str(error)
