"""Helpers for tests on real cache files."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def without_migration(source: Path, copy: Path, table: str, migration: str) -> Path:
    """A copy of ``source`` as a WIF from before ``migration`` wrote it: the derived ``table`` and its record gone."""
    copy.write_bytes(source.read_bytes())
    with sqlite3.connect(copy) as raw:
        raw.execute(f"drop table {table}")
        raw.execute("delete from _sqlite_migrations where name = ?", [migration])
    raw.close()
    return copy
