"""Opening a cache: cheap for questions, and each refusal says which kind it is (issues 23, 25 #9, 26).

Not a cache (a README, another program's database): named as such, never suggested for deletion, untouched.
Damaged (truncated, garbage pages): rebuild it. Cannot be opened now (no room for SQLite's `-shm` file, a
lock): the file is fine, retry — and a question is still answered from the file read as immutable when no
write-ahead log is pending. A cache a first `wif index` never filled is said to be so.
"""

from __future__ import annotations

import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.schema import CacheDamaged, CacheError, NotACache, open_cache, read_cache
from tests.fakes.github_server import FakeGitHub
from wif_action.cli import main

ROOT = Path(__file__).resolve().parent.parent
COCOA = "getsentry/sentry-cocoa"
ASK = ["--engine", "offline", "--sdk", "sentry-cocoa", "--version", "8.48.0", "--quiet",
       "--problem", "WatchdogTermination issues have empty tags (e.g. OS)"]


@pytest.fixture
def cocoa_cache(cache_path_for, tmp_path) -> Path:
    path = tmp_path / "cache.db"
    shutil.copy(cache_path_for([COCOA]), path)
    return path


def ask(capsys, db: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["ask", "--db", str(db), *ASK, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_readme_is_not_a_cache_and_is_never_suggested_for_deletion(capsys, tmp_path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# My project\n\nNot a database at all.\n" * 20)
    before = readme.read_bytes()
    code, _, err = ask(capsys, readme)
    assert code == 2
    assert "is not a WIF release cache (not a SQLite database)" in err and "delete" not in err.lower(), err
    assert main(["index", "--db", str(readme), "--repo", COCOA]) == 2
    err = capsys.readouterr().err
    assert "is not a WIF release cache" in err and "delete" not in err.lower(), err
    assert readme.read_bytes() == before
    assert not Path(f"{readme}-wal").exists() and not Path(f"{readme}-shm").exists()


def test_another_programs_database_is_not_a_cache(tmp_path) -> None:
    other = tmp_path / "app.db"
    with sqlite3.connect(other) as conn:
        conn.execute("create table users (id integer primary key)")
    with pytest.raises(NotACache, match="not a WIF release cache") as refused:
        read_cache(other)
    assert "delete" not in str(refused.value).lower()


def test_a_truncated_cache_is_damaged_and_told_to_rebuild(cocoa_cache) -> None:
    data = cocoa_cache.read_bytes()
    cocoa_cache.write_bytes(data[: len(data) // 2])
    with pytest.raises(CacheDamaged, match=r"damaged WIF release cache \(truncated.*wif index --db"):
        read_cache(cocoa_cache)


def _killed_mid_checkpoint(source: Path, target: Path) -> None:
    """`target`: `source` as a process killed while copying its write-ahead log into the file leaves it: the log
    holds every committed page, the file has the log's page 1 (its header counting the grown database) but not
    yet the pages past its old end."""
    writer = sqlite3.connect(source, isolation_level=None)
    writer.execute("PRAGMA journal_mode = wal")
    writer.execute("PRAGMA wal_autocheckpoint = 0")  # every commit stays in the log
    writer.execute("create table filler (text)")
    writer.execute("with recursive n(i) as (select 1 union all select i + 1 from n where i < 200) "
                   "insert into filler select hex(randomblob(2000)) from n")
    shutil.copy(source, target)  # the file and its log as the killed process left them
    shutil.copy(f"{source}-wal", f"{target}-wal")
    writer.close()
    page_size = int.from_bytes(target.read_bytes()[16:18], "big")
    log = Path(f"{target}-wal").read_bytes()
    frames = range(32, len(log) - 24 - page_size + 1, 24 + page_size)
    first = [offset for offset in frames if int.from_bytes(log[offset:offset + 4], "big") == 1][-1]
    with target.open("r+b") as file:
        file.write(log[first + 24:first + 24 + page_size])


def test_a_cache_killed_while_its_log_was_copied_is_whole_not_damaged(cocoa_cache, tmp_path) -> None:
    """A `wif index` killed (SIGTERM, power loss) during a checkpoint leaves a file shorter than its header's page
    count, with the write-ahead log beside it holding every page: SQLite reads it whole, so it is no damaged
    cache to rebuild; both openings accept it and see everything committed."""
    target = tmp_path / "killed.db"
    _killed_mid_checkpoint(cocoa_cache, target)
    header = target.read_bytes()[:100]
    assert int.from_bytes(header[28:32], "big") * int.from_bytes(header[16:18], "big") > target.stat().st_size
    open_cache(target).close()
    conn = read_cache(target)
    assert conn.execute("select count(*) from filler").fetchone()[0] == 200
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()


def test_questions_do_not_read_every_page_but_the_indexer_does(cocoa_cache) -> None:
    """A page damaged after the header is found by `wif index` at open; a question opens the file without
    scanning it (what made every answer pay ~21 ms, ~380 ms at 20×) and fails at the read that meets it."""
    with sqlite3.connect(cocoa_cache) as conn:
        page_size = conn.execute("pragma page_size").fetchone()[0]
        pages = [row[0] for row in conn.execute("select pageno from dbstat where name = 'entries' and pageno > 1")]
    with cocoa_cache.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * page_size)
            file.write(b"\xff" * page_size)
    read_cache(cocoa_cache).close()
    with pytest.raises(CacheDamaged, match="damaged WIF release cache"):
        open_cache(cocoa_cache, create=True)


def _wal_mode(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("pragma journal_mode=wal")
    conn.close()


def _no_room() -> None:
    """In the child: no file may grow (RLIMIT_FSIZE 0, EFBIG instead of SIGXFSZ) — what a full disk does to
    SQLite, for any user, root included: it cannot size the `-shm` file it needs to read a WAL database."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def wif_on_a_full_disk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wif_action.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, preexec_fn=_no_room)


def test_a_full_disk_still_answers_a_question(cocoa_cache) -> None:
    _wal_mode(cocoa_cache)
    result = wif_on_a_full_disk("ask", "--db", str(cocoa_cache), *ASK, "--json")
    assert result.returncode == 0, result.stderr
    assert '"outcome"' in result.stdout and "8.52.0" in result.stdout


def test_a_full_disk_with_a_pending_log_is_cannot_open_now_never_delete(cocoa_cache, tmp_path) -> None:
    """With writes of another process still in the write-ahead log, the main file alone would be stale:
    the question is refused, as "not now" (the file is fine), never "damaged" or "delete"."""
    _wal_mode(cocoa_cache)
    writer = sqlite3.connect(cocoa_cache)
    writer.execute("pragma wal_autocheckpoint=0")
    writer.execute("update repositories set last_error = 'pending in the log'")
    writer.commit()
    pending = Path(f"{cocoa_cache}-wal").read_bytes()
    writer.close()
    Path(f"{cocoa_cache}-wal").write_bytes(pending)  # the log as a writer killed before checkpointing leaves it
    before = cocoa_cache.read_bytes()
    for command in (["ask", "--db", str(cocoa_cache), *ASK], ["index", "--db", str(cocoa_cache), "--repo", COCOA]):
        result = wif_on_a_full_disk(*command)
        assert result.returncode == 2, (command[0], result.stderr)
        assert "cannot be opened now" in result.stderr and "was not changed" in result.stderr, result.stderr
        assert "delete" not in result.stderr.lower() and "damaged" not in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert cocoa_cache.read_bytes() == before


def test_a_first_index_that_reached_nothing_leaves_a_cache_said_never_filled(capsys, monkeypatch, tmp_path) -> None:
    db = tmp_path / "cache.db"
    with FakeGitHub() as github:
        github.add_fault(None, r"^/repos/", status=502, times=None)
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        code = main(["index", "--db", str(db), "--repo", COCOA])
    err = capsys.readouterr().err
    assert code != 0
    assert "holds no releases yet" in err, err
    with pytest.raises(CacheError, match="never been filled"):
        read_cache(db)
    code, _, err = ask(capsys, db)
    assert code == 2 and "never been filled" in err and "delete" not in err.lower()
