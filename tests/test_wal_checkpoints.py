"""Background checkpoints (indexer/wal_checkpoints.py): what a commit wrote reaches the cache file itself while the
writer's connection is still open, and closing in the documented order leaves no log behind."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry
from indexer.wal_checkpoints import Checkpoints

NOTES = "### Fixes\n\n- Fix a crash on launch (#1)\n"


def _write_release(db, slug: str) -> None:
    release = ReleaseRecord(1, "1.0.0", "1.0.0", NOTES, False, False, "2024-01-01T00:00:00Z", None)
    write_with_retry(db, lambda: apply_update(db, RepositoryUpdate(slug=slug, releases=[release], etag=None)), print)


def _releases_in_the_file_alone(path: Path, tmp_path: Path) -> int:
    """Rows a copy of the main file holds without its write-ahead log (what a checkpoint has copied there)."""
    copy = tmp_path / "copy.db"
    shutil.copy(path, copy)
    conn = sqlite3.connect(copy)
    try:
        if not conn.execute("select 1 from sqlite_master where name = 'releases'").fetchone():
            return 0  # not even the schema yet
        return conn.execute("select count(*) from releases").fetchone()[0]
    finally:
        conn.close()


def test_a_commit_reaches_the_file_while_the_writer_is_open(tmp_path) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path, create=True)
    checkpoints = Checkpoints(path)
    _write_release(db, "getsentry/sentry-ruby")
    assert _releases_in_the_file_alone(path, tmp_path) == 0  # only in the log so far
    checkpoints.after_commit()
    checkpoints.close()  # waits for the copy
    assert _releases_in_the_file_alone(path, tmp_path) == 1
    db.close()
    assert not Path(f"{path}-wal").exists()  # the writer's close was the last: the log is gone


def test_an_unopenable_file_leaves_checkpoints_to_the_writer(tmp_path) -> None:
    checkpoints = Checkpoints(tmp_path / "no-such-dir" / "cache.db")
    checkpoints.after_commit()
    checkpoints.close()
