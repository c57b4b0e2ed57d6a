"""The indexer's parse workers (indexer/notes_pool.py) and the read-ahead of `index_repositories`: the cache holds
the same rows whether notes are parsed in worker processes or in the indexing process, whatever the workers do."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import threading
from pathlib import Path

import pytest

from indexer.github_source import ReleaseSource
from indexer.indexing import index_repositories
from indexer.notes_pool import (
    WORKERS_ENV,
    Derive,
    NotesPool,
    parse_here,
    workers_available,
    workers_setting_problem,
)
from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry
from tests.fakes.github_server import load_repo_fixture
from wif_action.tools.term_index import counter, refresh, store_new

RUBY = "getsentry/sentry-ruby"  # 90 releases
PHP = "getsentry/sentry-php"  # 124 releases
RUN_COLUMNS = {"fetched_at", "last_indexed_at", "last_checked_at", "read_at", "applied_at"}  # when, not what



def bodies(repo: str) -> list[str]:
    return [release.get("body") or "" for release in load_repo_fixture(repo)["releases"]]


def rows_digest(path: Path) -> dict[str, tuple[int, str]]:
    """Each table's row count and digest, without the columns that record when a run happened."""
    conn = sqlite3.connect(path)
    try:
        digests = {}
        for (table,) in conn.execute("select name from sqlite_master where type = 'table' order by name"):
            columns = [f'"{row[1]}"' for row in conn.execute(f"pragma table_info('{table}')")
                       if row[1] not in RUN_COLUMNS]
            rows = conn.execute(f'select {", ".join(columns)} from "{table}" order by {", ".join(columns)}')
            digest, count = hashlib.sha256(), 0
            for row in rows:
                digest.update(repr(row).encode())
                count += 1
            digests[table] = (count, digest.hexdigest())
        return digests
    finally:
        conn.close()


def test_workers_parse_and_count_as_the_process_would() -> None:
    """Rows in the order of the bodies, each the in-process parse; each entry text's count as `counter` gives it."""
    pool = NotesPool(counter, workers=2, min_bodies=1)
    try:
        parsed = list(pool.parse_many(bodies(PHP), PHP))
    finally:
        pool.close()
    assert parsed == list(parse_here(bodies(PHP), PHP))
    count = counter()
    texts = {row[3] for rows in parsed for row in rows}
    assert pool.computed.keys() == texts
    assert all(pool.computed[text] == count(text) for text in texts)


def test_what_was_prefetched_is_what_is_asked_for_else_it_is_parsed_anew() -> None:
    pool = NotesPool(workers=2, min_bodies=1)
    try:
        pool.prefetch(bodies(PHP), PHP)
        pool.prefetch(bodies(RUBY), RUBY)  # the next repository's, read ahead: PHP's stays
        assert list(pool.parse_many(bodies(PHP), PHP)) == list(parse_here(bodies(PHP), PHP))
        changed = bodies(RUBY)[1:]  # not what was prefetched (say, the write found one body already stored)
        assert list(pool.parse_many(changed, RUBY)) == list(parse_here(changed, RUBY))
    finally:
        pool.close()


def test_a_worker_that_dies_leaves_its_notes_to_the_process() -> None:
    pool = NotesPool(counter, workers=2, min_bodies=1)
    try:
        list(pool.parse_many(bodies(RUBY)[:4], RUBY))  # the workers are up
        executor = pool._executor
        assert executor is not None
        for pid in list(executor._processes):  # killed as the OOM killer would
            os.kill(pid, signal.SIGKILL)
        assert list(pool.parse_many(bodies(PHP), PHP)) == list(parse_here(bodies(PHP), PHP))
        assert list(pool.parse_many(bodies(RUBY), RUBY)) == list(parse_here(bodies(RUBY), RUBY))  # from then on
    finally:
        pool.close()


def test_workers_forked_for_a_thread_that_has_ended_still_parse_until_close() -> None:
    """The kernel's parent-death signal (`_end_with_parent`) follows the thread that forked: workers forked by the
    indexer's read thread were SIGKILLed when it ended (on Ctrl-C at once), one of them mid-way through writing a
    parsed chunk back, and `close` then waited forever for the rest of that message. Started from a thread that
    then ends, the workers still parse and count every chunk (none falls back to the process), and `close` stops
    them."""
    pool = NotesPool(counter, workers=2, min_bodies=1)
    try:
        reader = threading.Thread(target=pool.prefetch, args=(bodies(PHP), PHP))
        reader.start()
        reader.join()
        executor = pool._executor
        assert executor is not None
        workers = list(executor._processes.values())
        parsed = list(pool.parse_many(bodies(PHP), PHP))
        assert all(worker.is_alive() for worker in workers)
    finally:
        pool.close()
    assert parsed == list(parse_here(bodies(PHP), PHP))
    assert pool.computed.keys() == {row[3] for rows in parsed for row in rows}, "a chunk was parsed in the process"
    assert not any(worker.is_alive() for worker in workers)


def test_a_pool_started_before_any_note_parses_and_counts_the_same() -> None:
    """`start` (a first run: before the indexer loads its client) forks the workers with nothing to parse yet;
    each loads the parser and the counter itself (`_start_worker`), and the rows and counts are the same."""
    pool = NotesPool(counter, workers=2)
    pool.start()
    try:
        assert pool._executor is not None and len(pool._executor._processes) == 2
        parsed = list(pool.parse_many(bodies(PHP), PHP))
    finally:
        pool.close()
    assert parsed == list(parse_here(bodies(PHP), PHP))
    count = counter()
    assert pool.computed and all(pool.computed[text] == count(text) for text in pool.computed)


def test_only_a_new_cache_starts_the_workers_before_indexing(tmp_path) -> None:
    from indexer.cli import _new_cache

    path = tmp_path / "cache.db"
    assert _new_cache(path)
    path.write_bytes(b"")
    assert _new_cache(path)  # an empty file is filled from scratch too
    path.write_bytes(b"SQLite format 3\x00")
    assert not _new_cache(path)  # an update: most runs parse a few notes, in the process


def test_nothing_is_started_after_close() -> None:
    """`prefetch` runs in the indexer's read thread: one that comes after the run closed the pool (an error, a
    Ctrl-C) starts no process, and a later parse happens in the process."""
    pool = NotesPool(workers=2, min_bodies=1)
    pool.close()
    pool.start()
    pool.prefetch(bodies(RUBY), RUBY)
    assert pool._executor is None
    assert list(pool.parse_many(bodies(RUBY)[:3], RUBY)) == list(parse_here(bodies(RUBY)[:3], RUBY))
    assert pool._executor is None


def test_few_bodies_one_core_or_workers_capped_start_no_process(monkeypatch) -> None:
    pool = NotesPool(workers=2, min_bodies=1000)
    assert list(pool.parse_many(bodies(RUBY), RUBY)) == list(parse_here(bodies(RUBY), RUBY))
    assert pool._executor is None
    assert NotesPool(workers=1, min_bodies=1)._executor_for(10) is None
    monkeypatch.setenv(WORKERS_ENV, "0")
    assert workers_available() == 0


def test_store_uses_the_counts_the_workers_computed(tmp_path) -> None:
    """`Derive.store` writes what the workers counted, not a second count of its own (here a marked value
    shows which was written)."""
    db = open_cache(tmp_path / "cache.db", create=True)
    notes = "### Fixes\n\n- Fix a crash on launch (#1)\n- Add a feature (#2)\n"
    release = ReleaseRecord(1, "1.0.0", "1.0.0", notes, False, False, "2024-01-01T00:00:00Z", None)
    write_with_retry(db, lambda: apply_update(db, RepositoryUpdate(slug=RUBY, releases=[release], etag=None)), print)
    conn = db.conn
    texts = [row[0] for row in conn.execute("select text from entries order by id")]
    assert len(texts) == 2
    assert refresh(conn, {texts[0]: '{"marked":1}'}) == 2
    stored = dict(conn.execute("select e.text, t.counts from entries e join entry_terms t on t.entry_id = e.id"))
    assert stored[texts[0]] == '{"marked":1}'
    assert stored[texts[1]] == counter()(texts[1])
    db.close()


@pytest.mark.slow  # two index runs
def test_the_cache_is_the_same_with_workers_and_without(fake_github, tmp_path, monkeypatch) -> None:
    """A whole run, read-ahead included: every row the same (a repository that fails between two others too),
    whether the term counts are stored at the end (in the process) or with each repository (by the workers)."""
    repos = [RUBY, "getsentry/nope", PHP]
    digests, lines = [], []
    for workers, derive in (("0", Derive(refresh, counter)), ("2", Derive(refresh, counter, store_new))):
        monkeypatch.setenv(WORKERS_ENV, workers)
        path = tmp_path / f"cache-{workers}.db"
        progress: list[str] = []
        reports = index_repositories(path, ReleaseSource(fake_github.url, retries=None), repos,
                                     on_progress=progress.append, derive=derive)
        assert [report.repo for report in reports] == repos
        assert [bool(report.error) for report in reports] == [False, True, False]
        lines.append([line.split(":")[0] for line in progress])
        digests.append(rows_digest(path))
    assert digests[0] == digests[1]
    assert lines[0] == lines[1] == repos  # one progress line per repository, in order


def test_each_repository_stores_its_term_counts_so_the_final_refresh_finds_none(fake_github, tmp_path) -> None:
    """`Derive.store_new` writes each repository's term counts with its entries (in its transaction): the
    `store` after indexing has nothing left to count, and every entry has its row."""
    refreshed: list[int] = []

    def store(conn, computed):
        refreshed.append(refresh(conn, computed))

    path = tmp_path / "cache.db"
    index_repositories(path, ReleaseSource(fake_github.url, retries=None), [RUBY, PHP], on_progress=lambda _: None,
                       derive=Derive(store, counter, store_new))
    assert refreshed == [0]
    conn = sqlite3.connect(path)
    missing = conn.execute("select count(*) from entries e left join entry_terms t on t.entry_id = e.id "
                           "where t.entry_id is null").fetchone()[0]
    total = conn.execute("select count(*) from entry_terms").fetchone()[0]
    conn.close()
    assert missing == 0 and total > 0


ORPHAN_CHECK = """
import sys, time
from indexer.notes_pool import NotesPool
pool = NotesPool(workers=2, min_bodies=1)
list(pool.parse_many(["- a note (#1)"] * 4, "o/r"))
print(" ".join(str(pid) for pid in pool._executor._processes), flush=True)
time.sleep(600)
"""


@pytest.mark.slow  # runs a process
def test_a_killed_indexer_takes_its_workers_with_it() -> None:
    """SIGKILL leaves no chance to stop the pool: the workers must not wait for work forever."""
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    parent = subprocess.Popen([sys.executable, "-c", ORPHAN_CHECK], cwd=root, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(root)})
    assert parent.stdout is not None
    workers = [int(pid) for pid in parent.stdout.readline().split()]
    assert len(workers) == 2
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 60  # a bound on the wait, not a timing claim: the kernel kills them at once
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("value", ["two", "-1", "1.5"])
def test_a_workers_setting_that_is_no_whole_number_is_a_usage_error_before_indexing(value, tmp_path, monkeypatch,
                                                                                   capsys) -> None:
    """`WIF_INDEX_WORKERS=two wif index …` says what is wrong and indexes nothing (no cache file is created),
    rather than running with the default as if the operator's cap had been read."""
    from wif_action.cli import main

    monkeypatch.setenv(WORKERS_ENV, value)
    db = tmp_path / "cache.db"
    assert main(["index", "--db", str(db), "--repo", RUBY]) == 2
    assert f"WIF_INDEX_WORKERS must be a whole number of processes (0 or 1: parse in the indexing process), " \
           f"not {value!r}" in capsys.readouterr().err
    assert not db.exists()
    monkeypatch.setenv(WORKERS_ENV, "0")
    assert workers_setting_problem() is None
