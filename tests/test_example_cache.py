"""The committed cache.db.example is what the code builds from tests/data/github.

Why: the suite (conftest.example_cache_path), bench/eval_offline.py and the README's first command read the
committed file instead of rebuilding it (~19 s) whenever this code would have written it; this test is what
keeps that claim honest. When it fails, run `python scripts/build_example_cache.py` and commit the result.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_CACHE, example_is_current

# When a row was fetched (and the fake's ETag of the reply) differ between two builds; the rest is derived data.
_FETCH_TIMES = {"fetched_at", "last_indexed_at", "last_checked_at", "releases_etag"}
_ENTRY_KEYED = {"entries", "bundle_bumps"}
_TABLES = ["repositories", "releases", "entries", "entry_prs", "pr_first_release", "pulls", "bundle_bumps"]


def _rows(path: Path, table: str) -> list[tuple]:
    """A table's rows without fetch times; an entry (a row id that depends on the order of re-parses) is
    named by its release and position."""
    conn = sqlite3.connect(path)
    try:
        columns = [row[1] for row in conn.execute(f"pragma table_info([{table}])")
                   if row[1] not in _FETCH_TIMES and not (row[1] == "id" and table in _ENTRY_KEYED)]
        listed = ", ".join("e.release_id, e.position" if column == "entry_id" else f"t.[{column}]"
                           for column in columns)
        join = " join entries e on e.id = t.entry_id" if "entry_id" in columns else ""
        return sorted(conn.execute(f"select {listed} from [{table}] t{join}").fetchall(), key=repr)
    finally:
        conn.close()


@pytest.mark.slow
@pytest.mark.timeout(900)  # the build (its fixture's setup counts) is ~20 s of CPU; 120 s ran out at a load of 14
def test_a_current_committed_example_cache_equals_a_build_from_sources(built_example_cache: Path) -> None:
    """The fixtures copy cache.db.example only when it is current (example_is_current); then it must be what
    the code builds. A stale one (an older notes parser or schema) is never copied: the build is used."""
    if not example_is_current(EXAMPLE_CACHE):
        assert example_is_current(built_example_cache), "a build from sources must be current"
        return
    for table in _TABLES:
        committed, fresh = _rows(EXAMPLE_CACHE, table), _rows(built_example_cache, table)
        assert len(committed) == len(fresh), f"{table}: {len(committed)} rows committed, {len(fresh)} built"
        differing = [pair for pair in zip(committed, fresh, strict=True) if pair[0] != pair[1]]
        assert not differing, f"{table}: first difference {differing[0]}"


def test_a_cache_without_the_current_notes_parser_is_not_current(example_cache_path: Path, tmp_path: Path) -> None:
    copy = tmp_path / "cache.db"
    copy.write_bytes(example_cache_path.read_bytes())
    assert example_is_current(copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("update repositories set notes_parser = notes_parser - 1 where id = 1")
    assert not example_is_current(copy)
    assert not example_is_current(tmp_path / "missing.db")
