"""The write-ahead log copied into the cache file in a background thread while `wif index` writes on.

Why: each repository is one commit to the write-ahead log; the log is copied into the cache file (a checkpoint:
reading back every page, writing it, two fsyncs) when it passes `wal_autocheckpoint` and when the file is
closed. In the indexing thread that is a wait on the disk (~0.1 s, most of it I/O, for the 11 fixture
repositories), and at the end of a first run nothing else is left to do meanwhile. From a second connection in
a thread, after each repository's commit, a PASSIVE checkpoint copies what is committed while the indexer
writes the next repository (SQLite lets one checkpointer run beside one writer), so the close only copies the
last few commits. Nothing is lost either way: a checkpoint never changes what the file holds, only where.
"""

from __future__ import annotations

import contextlib
import sqlite3
from concurrent.futures import Future
from pathlib import Path

from indexer.wall_clock import BackgroundThread


class Checkpoints:
    """Background checkpoints of one cache file; `close` before the indexer closes its own connection (the last
    connection to close copies what is left and removes the log)."""

    def __init__(self, path: str | Path) -> None:
        self._conn: sqlite3.Connection | None = None
        with contextlib.suppress(sqlite3.Error):  # without it, checkpoints happen as before, in the writer
            self._conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._thread = BackgroundThread("wif-checkpoint")
        self._running: Future[None] | None = None

    def after_commit(self) -> None:
        """Copy what is committed now, unless the copy started after the last commit is still running."""
        if self._conn is None or (self._running is not None and not self._running.done()):
            return
        self._running = self._thread.submit(self._checkpoint)

    def close(self) -> None:
        if self._running is not None:
            self._running.exception()  # wait; a failed copy is left to the writer's close
        self._thread.close()
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def _checkpoint(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
