"""The release cache survives: SIGKILLed indexers, two indexers at once, damaged and foreign files.

`wif index` runs as a real subprocess against an in-process FakeGitHub. A kill lands exactly where it is
meant to, on any machine load: mid-fetch by holding one release page on a gate of the fake, mid-write by
holding a repository write (every row written, nothing committed) in the subprocess until the test has
killed it. After every kill the file must open, pass `PRAGMA integrity_check`, and hold each repository
either exactly as before the run or exactly as a clean build; the next run must then complete to a clean
build. Two indexers at once run against a fake whose release pages are slowed slightly, so they overlap.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlite_utils import Database

from indexer import schema
from indexer.schema import MIGRATIONS, CacheError, open_cache
from indexer.wall_clock import STUCK_DUMP_ENV
from tests.conftest import build_cache
from tests.fakes.github_server import FakeGitHub
from tests.workflow_helpers import build
from wif_action.models import Answer, AskInput, Outcome
from wif_action.tools.cache import SqliteReleaseCache

PHP, RUBY, OPENAI, DOTNET = ("getsentry/sentry-php", "getsentry/sentry-ruby", "openai/openai-python",
                             "getsentry/sentry-dotnet")
REPOS = [PHP, RUBY, OPENAI, DOTNET]
OLD_REPOS = [PHP, DOTNET]  # in the "before" cache, each missing its newest releases; RUBY and OPENAI absent
REMOVED_NEWEST = 5
PAGE_DELAY = 0.03  # seconds per release page: two indexers started together then overlap
SUBPROCESS_TIMEOUT = 60
WRITE_MARKER = "WRITE-START"
HELD_MARKER = "WRITE-HELD"
HOLD_ENV = "WIF_TEST_HOLD_WRITE"
GRACE_ENV = "WIF_TEST_INTERRUPT_GRACE"  # indexer.wall_clock.INTERRUPT_GRACE in the subprocess
STUCK_CLOSE_ENV = "WIF_TEST_STUCK_CLOSE"
STUCK = "interrupted (still stopping after"  # what `bounded_interrupt` says when it ends a stuck stop

# `wif index`, announcing on stderr (inside the transaction) each repository write it starts. With HOLD_ENV=n, the
# nth write, once every row of it is written and nothing committed, says so and waits for stdin: a kill or a signal
# sent then lands inside that write, however slow or loaded the machine. The wait polls: Python runs a signal's
# handler in the main thread only between bytecodes, and one blocking read there never returned when the kernel
# delivered the SIGINT to another thread (the read-ahead or a pool thread): the test timed out under load.
# GRACE_ENV sets how long a Ctrl-C'd run may take to stop (`indexer.wall_clock.bounded_interrupt`); with
# STUCK_CLOSE_ENV, stopping the parse workers never returns. SIGUSR1 dumps every thread's stack (`Indexer.finish`).
ANNOUNCING_WIF = f"""
import faulthandler
import os
import select
import signal
import sys
import threading
import indexer.indexing as indexing
import indexer.notes_pool as notes_pool
import indexer.wall_clock as wall_clock
from wif_action.cli import main
faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test's dump of every thread when a run hangs
wall_clock.INTERRUPT_GRACE = float(os.environ.get("{GRACE_ENV}") or wall_clock.INTERRUPT_GRACE)
if os.environ.get("{STUCK_CLOSE_ENV}"):  # the parse workers' stop never returns (a stuck join, a lost reply)
    notes_pool.NotesPool.close = lambda self: threading.Event().wait()
_apply = indexing.apply_update
_hold = int(os.environ.get("{HOLD_ENV}") or 0)
_writes = []
def _announced(db, update):
    print("{WRITE_MARKER} " + update.slug, file=sys.stderr, flush=True)
    result = _apply(db, update)
    _writes.append(update.slug)
    if len(_writes) == _hold:
        print("{HELD_MARKER} " + update.slug, file=sys.stderr, flush=True)
        while not select.select([sys.stdin], [], [], 0.05)[0]:
            pass  # not one blocking read: a signal the kernel hands to another thread is run here within 0.05 s
    return result
indexing.apply_update = _announced
sys.exit(main(sys.argv[1:]))
"""

pytestmark = pytest.mark.slow  # runs `wif` processes (kills, concurrent indexers); `-m "not slow"` skips it

# The next WIF version: one more migration than this one (so today's caches are "older").
NEXT_WIF = """
import sys
from indexer.schema import MIGRATIONS, migration
@migration(MIGRATIONS)
def m099_survival_test(db):
    db["releases"].add_column("survival_note", str)
from wif_action.cli import main
sys.exit(main(sys.argv[1:]))
"""

Snapshot = dict[str, list[tuple]]
_SNAPSHOT_QUERIES = {
    "repository": "select releases, stable, skipped_tags from repositories where slug = :slug",
    "releases": "select r.tag, r.name, r.version, r.version_key, r.published_at, r.prerelease, r.draft, "
                "r.stable, r.url, r.body, r.body_source from releases r "
                "join repositories s on s.id = r.repo_id where s.slug = :slug",
    "entries": "select r.tag, e.position, e.section, e.heading, e.text, e.prs, e.issues from entries e "
               "join releases r on r.id = e.release_id join repositories s on s.id = e.repo_id "
               "where s.slug = :slug",
    "entry_prs": "select r.tag, e.position, ep.pr from entry_prs ep join entries e on e.id = ep.entry_id "
                 "join releases r on r.id = ep.release_id join repositories s on s.id = ep.repo_id "
                 "where s.slug = :slug",
    "pr_first_release": "select f.pr, r.tag, f.version_key from pr_first_release f "
                        "join releases r on r.id = f.release_id join repositories s on s.id = f.repo_id "
                        "where s.slug = :slug",
}
_UNIQUE_KEYS = {
    "repositories": "slug",
    "releases": "repo_id, tag",
    "entries": "release_id, position",
    "entry_prs": "entry_id, pr",
    "pr_first_release": "repo_id, pr",
}


# ---------------------------------------------------------------------------------------------- helpers
def snapshot(path: Path, slug: str) -> Snapshot:
    """One repository's rows, as sorted tuples without timestamps or autoincrement ids."""
    conn = sqlite3.connect(path)
    try:
        return {name: sorted(conn.execute(sql, {"slug": slug}).fetchall(), key=repr)
                for name, sql in _SNAPSHOT_QUERIES.items()}
    finally:
        conn.close()


def slugs_in(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {row[0] for row in conn.execute("select slug from repositories")}
    finally:
        conn.close()


def assert_sound(path: Path) -> None:
    """Opens as a cache, passes SQLite's and FTS5's integrity checks, has no duplicate rows."""
    open_cache(path).close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("insert into entries_fts(entries_fts) values ('integrity-check')")
        for table, key in _UNIQUE_KEYS.items():
            total, distinct = conn.execute(
                f"select count(*), (select count(*) from (select distinct {key} from {table})) from {table}"
            ).fetchone()
            assert total == distinct, f"duplicate {table} rows on ({key})"
    finally:
        conn.close()


def wif_env(github_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("GITHUB_TOKEN", "OPENAI_API_KEY", "GITHUB_API_URL")}
    return env | {"GITHUB_API_URL": github_url, "PYTHONPATH": str(Path(__file__).parent.parent)}


def index_args(db: Path, repos: list[str]) -> list[str]:
    return ["index", "--db", str(db), *(arg for repo in repos for arg in ("--repo", repo))]


def run_wif(args: list[str], github_url: str, *, program: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", program, *args] if program else [sys.executable, "-m", "wif_action.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=wif_env(github_url),
                          timeout=SUBPROCESS_TIMEOUT)


class Indexer:
    """A `wif index` subprocess whose stderr lines are collected as they arrive."""

    def __init__(self, db: Path, repos: list[str], github_url: str, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen([sys.executable, "-c", ANNOUNCING_WIF, *index_args(db, repos)],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env=wif_env(github_url) | (env or {}))
        self.stderr: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))
            self._lines.put(line)
        self._lines.put(None)

    def wait_for_line(self, marker: str, nth: int = 1, timeout: float = SUBPROCESS_TIMEOUT) -> bool:
        """Block until the nth stderr line starting with `marker`; False if the run ended first."""
        seen, deadline = 0, time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self._lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if line is None:
                return False
            seen += line.startswith(marker)
            if seen >= nth:
                return True
        raise TimeoutError(f"the indexer never printed {marker} {nth} times")

    def wait_for_write(self, nth: int, timeout: float = SUBPROCESS_TIMEOUT) -> bool:
        """Block until the nth repository write has started; False if the run ended first."""
        return self.wait_for_line(WRITE_MARKER, nth, timeout)

    def kill(self) -> bool:
        """SIGKILL; True when the process was still running (the kill really interrupted it)."""
        running = self.proc.poll() is None
        self.proc.kill()
        self.proc.wait(timeout=SUBPROCESS_TIMEOUT)
        self._reader.join(timeout=5)
        self._close_stdin()
        return running

    def finish(self) -> int:
        try:
            code = self.proc.wait(timeout=SUBPROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.dump_and_kill()
            raise AssertionError("the indexer hung; its threads and its workers':\n" + "\n".join(self.stderr)) from None
        self._reader.join(timeout=5)
        self._close_stdin()
        return code

    def dump_and_kill(self) -> None:
        """Every thread's stack, of the indexer and of each process it forked (faulthandler, on SIGUSR1, which a
        fork inherits), on its stderr; then SIGKILL to them all."""
        pids = [self.proc.pid, *_children(self.proc.pid)]
        for pid in pids:  # one at a time: their dumps share one pipe
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGUSR1)
            time.sleep(0.5)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait(timeout=SUBPROCESS_TIMEOUT)
        self._reader.join(timeout=5)

    def _close_stdin(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()


def _children(pid: int) -> list[int]:
    """The processes `pid` forked (any of its threads), from /proc."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def slowed(fake: FakeGitHub) -> FakeGitHub:
    """Every releases page answers after PAGE_DELAY (status=None: delay only, then serve normally)."""
    fake.add_fault(None, r"/releases", status=None, times=None, delay=PAGE_DELAY)
    fake.rate_limit_limit = fake.rate_limit_remaining = 10**9
    return fake


# ---------------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def clean_cache(cache_path_for) -> Path:
    """The reference: every repository of REPOS indexed from scratch."""
    return cache_path_for(REPOS)


@pytest.fixture(scope="module")
def new_state(clean_cache) -> dict[str, Snapshot]:
    return {slug: snapshot(clean_cache, slug) for slug in REPOS}


@pytest.fixture(scope="module")
def old_cache(tmp_path_factory) -> Path:
    """The cache before the run: PHP and DOTNET without their newest releases and with an edited
    note on the first page; RUBY and OPENAI not indexed yet."""
    path = tmp_path_factory.mktemp("old-cache") / "cache.db"
    with FakeGitHub() as fake:
        for slug in OLD_REPOS:
            tags = [release["tag_name"] for release in fake.repo(slug).releases[:REMOVED_NEWEST + 1]]
            for tag in tags[:REMOVED_NEWEST]:
                fake.remove_release(slug, tag)
            fake.edit_release(slug, tags[-1], body="- Older wording of these notes (#1)\n")
        build_cache(path, fake, OLD_REPOS)
    return path


@pytest.fixture(scope="module")
def old_state(old_cache, new_state) -> dict[str, Snapshot]:
    state = {slug: snapshot(old_cache, slug) for slug in REPOS}
    assert all(state[slug] != new_state[slug] for slug in REPOS), "a run must change every repository"
    return state


@pytest.fixture
def slow_github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield slowed(fake)


# ---------------------------------------------------------------------------------------------- SIGKILL
@dataclass(frozen=True)
class KillPoint:
    """Where a SIGKILL lands, held there until it does (no timing): a release page in flight (the fake holds the
    request of `page`, a path regex, on a gate) or the `write`th repository write with every row of it written and
    nothing committed. `unchanged` is the repository that must be exactly as before the run."""

    unchanged: str
    page: str | None = None
    write: int = 0

    def kill(self, db: Path, fake: FakeGitHub) -> Indexer:
        gate = threading.Event()
        fault = fake.add_fault("GET", self.page, status=None, gate=gate) if self.page else None
        indexer = Indexer(db, REPOS, fake.url, env={HOLD_ENV: str(self.write)})
        try:
            if fault is not None:
                deadline = time.monotonic() + SUBPROCESS_TIMEOUT
                while not fault.hits and indexer.proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.002)
                assert fault.hits, f"{self}: the page was never requested\n" + "\n".join(indexer.stderr)
            else:
                assert indexer.wait_for_line(HELD_MARKER), f"{self}: never held\n" + "\n".join(indexer.stderr)
            assert indexer.kill(), f"{self}: the run ended before the kill"
        finally:
            gate.set()
            fake.clear_faults()
        return indexer


KILL_POINTS = [
    KillPoint(PHP, page=f"^/repos/{PHP}/releases$"),  # the first request: nothing written yet
    KillPoint(PHP, write=1),  # the first repository, a changed one, written and not committed
    KillPoint(OPENAI, page=f"^/repos/{OPENAI}/releases$"),  # mid-run, a new repository's first page in flight
    KillPoint(DOTNET, write=4),  # the last write: the three before it committed
]


def test_sigkilled_indexer_leaves_every_repository_old_or_new(tmp_path, old_cache, old_state, new_state,
                                                              fake_github):
    """SIGKILL mid-fetch and mid-write: the file stays sound, every repository old or new (the one killed in its
    write or fetch exactly old), and the next run completes to a clean build."""
    db = tmp_path / "cache.db"
    fake_github.rate_limit_limit = fake_github.rate_limit_remaining = 10**9
    for point in KILL_POINTS:
        shutil.copy(old_cache, db)
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        point.kill(db, fake_github)
        assert_sound(db)
        for slug in REPOS:
            state = snapshot(db, slug)
            assert state in (old_state[slug], new_state[slug]), f"{point}: {slug} is half-written"
        assert snapshot(db, point.unchanged) == old_state[point.unchanged], point

    result = run_wif(index_args(db, REPOS), fake_github.url)
    assert result.returncode == 0, result.stderr
    assert_sound(db)
    assert slugs_in(db) == set(REPOS)
    assert {slug: snapshot(db, slug) for slug in REPOS} == new_state


def _processes_with(marker: str) -> list[int]:
    """The processes whose environment holds `marker` (a `wif index` and every worker it forked inherit it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:  # ended meanwhile, or not ours to read
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stopped_indexer_leaves_no_process_behind_and_the_next_run_completes(tmp_path, old_cache, old_state,
                                                                              new_state, slow_github, stop):
    """Ctrl-C or SIGTERM while the parse workers run (forked mid-run, from the thread that reads the next
    repository: RUBY is new to the old cache) and the third repository's write is held uncommitted: the run ends
    (Ctrl-C: "interrupted", exit 130, no traceback), no worker or thread outlives it, every repository is old or
    new (the held one old), and the next run completes to a clean build. (Sent after the third write had started
    but not held, the signal came after the run's end on a loaded machine: exit 0.)"""
    db = tmp_path / "cache.db"
    shutil.copy(old_cache, db)
    marker = f"wif-review-{os.getpid()}-{stop}-{random.random()}"
    indexer = Indexer(db, REPOS, slow_github.url, env={"WIF_INDEX_WORKERS": "2", "WIF_REVIEW_MARKER": marker,
                                                        HOLD_ENV: "3", STUCK_DUMP_ENV: "1"})
    assert indexer.wait_for_line(HELD_MARKER), indexer.stderr  # the third write, not committed, waits for us
    assert len(_processes_with(marker)) >= 3, "the indexer and its 2 parse workers"
    indexer.proc.send_signal(stop)
    code = indexer.finish()
    if stop == signal.SIGINT:
        if any(line.startswith(STUCK) for line in indexer.stderr):  # bounded, but say where the stop was stuck
            warnings.warn("a Ctrl-C'd wif index was stuck stopping:\n" + "\n".join(indexer.stderr), stacklevel=1)
        assert code == 130 and any(line.startswith("interrupted") for line in indexer.stderr), indexer.stderr
        assert not any("Traceback" in line for line in indexer.stderr), "\n".join(indexer.stderr)
    else:
        assert code == -signal.SIGTERM
    deadline = time.monotonic() + 10  # the kernel's SIGKILL to the workers (PR_SET_PDEATHSIG) is not instant
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(marker) == []
    assert_sound(db)
    for slug in REPOS:
        assert snapshot(db, slug) in (old_state[slug], new_state[slug]), f"{slug} is half-written"
    assert snapshot(db, OPENAI) == old_state[OPENAI], "the held write was rolled back"
    result = run_wif(index_args(db, REPOS), slow_github.url)
    assert result.returncode == 0, result.stderr
    assert {slug: snapshot(db, slug) for slug in REPOS} == new_state


def test_a_ctrl_c_whose_stop_is_stuck_still_ends_the_run_within_the_grace(tmp_path, old_cache, old_state,
                                                                           slow_github):
    """Ctrl-C with the third write held, and stopping the parse workers never returns (what hung a loaded run for
    its 60 s timeout): the run ends `INTERRUPT_GRACE` after the Ctrl-C anyway (1 s here), with exit 130, saying
    so, no traceback, no worker left behind and the held write rolled back."""
    db = tmp_path / "cache.db"
    shutil.copy(old_cache, db)
    marker = f"wif-stuck-{os.getpid()}-{random.random()}"
    indexer = Indexer(db, REPOS, slow_github.url, env={"WIF_INDEX_WORKERS": "2", "WIF_REVIEW_MARKER": marker,
                                                        HOLD_ENV: "3", GRACE_ENV: "1", STUCK_CLOSE_ENV: "1"})
    assert indexer.wait_for_line(HELD_MARKER), indexer.stderr
    assert len(_processes_with(marker)) >= 3, "the indexer and its 2 parse workers"
    indexer.proc.send_signal(signal.SIGINT)
    assert indexer.finish() == 130, indexer.stderr
    assert any(line.startswith(STUCK) for line in indexer.stderr), indexer.stderr
    assert not any("Traceback" in line for line in indexer.stderr), "\n".join(indexer.stderr)
    deadline = time.monotonic() + 10  # the workers' parent-death SIGKILL
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(marker) == []
    assert_sound(db)
    assert snapshot(db, OPENAI) == old_state[OPENAI], "the held write was rolled back"


# ---------------------------------------------------------------------------------------------- two at once
_PROGRESS = re.compile(r"^[\w.-]+/[\w.-]+: (?:\d+ fetched|not modified|cache busy \(another indexer is writing\), "
                       rf"retrying)|^{WRITE_MARKER} ")


@pytest.mark.parametrize("start", ["fresh", "old"])
def test_two_indexers_on_one_file(tmp_path, start, old_cache, new_state, slow_github):
    db = tmp_path / "cache.db"
    if start == "old":
        shutil.copy(old_cache, db)
    first = Indexer(db, [PHP, RUBY, OPENAI], slow_github.url)
    second = Indexer(db, [OPENAI, DOTNET, PHP], slow_github.url)
    codes = first.finish(), second.finish()
    noise = [line for line in first.stderr + second.stderr if not _PROGRESS.match(line)]
    assert codes == (0, 0) and not noise, "\n".join(noise)
    assert_sound(db)
    assert {slug: snapshot(db, slug) for slug in REPOS} == new_state


def test_an_indexer_opening_while_another_creates_the_schema_waits_for_it(tmp_path):
    """Deterministic form of the race above: the first creator holds its transaction open while the
    second opens the same new file; the second must wait and then find the schema in place."""
    db_path = tmp_path / "cache.db"
    first = sqlite3.connect(db_path, isolation_level=None)
    first.execute("PRAGMA journal_mode=wal")
    first.execute("BEGIN IMMEDIATE")
    MIGRATIONS.apply(Database(first))
    opened: list[object] = []
    second = threading.Thread(target=lambda: opened.append(_open_or_error(db_path)))
    second.start()
    time.sleep(0.3)  # the second opener is now waiting on the first's write lock
    first.execute("COMMIT")
    first.close()
    second.join(timeout=SUBPROCESS_TIMEOUT)
    assert opened and not isinstance(opened[0], Exception), opened
    assert_sound(db_path)


def test_an_open_that_finds_the_file_locked_retries_instead_of_refusing_it(tmp_path, monkeypatch):
    """SQLite answers "database is locked" without waiting in a few WAL cases (the CI failure of two
    indexers on one old file); the busy handler is made to give up at once here to force that answer."""
    db_path = tmp_path / "cache.db"
    open_cache(db_path, create=True).close()
    monkeypatch.setattr(schema, "BUSY_TIMEOUT_MS", 1)
    holder = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.8, lambda: (holder.execute("COMMIT"), holder.close()))
    release.start()
    try:
        assert _open_or_error(db_path) == "opened"
    finally:
        release.join()


def _open_or_error(path: Path) -> object:
    try:
        open_cache(path, create=True).close()
    except Exception as error:  # reported to the test thread
        return error
    return "opened"


def test_a_file_left_half_created_is_initialised(tmp_path, shared_fake_github):
    """What a kill between creating the migrations table and the first migration used to leave."""
    db = tmp_path / "cache.db"
    conn = sqlite3.connect(db)
    conn.execute("create table _sqlite_migrations (id integer primary key, migration_set text, name text, "
                 "applied_at text)")
    conn.close()
    result = run_wif(index_args(db, [PHP]), shared_fake_github.url)
    assert result.returncode == 0, result.stderr
    assert_sound(db)


# ---------------------------------------------------------------------------------------------- damaged files
def _truncated(source: Path, target: Path) -> None:
    data = source.read_bytes()
    target.write_bytes(data[: len(data) // 2])


def _empty(source: Path, target: Path) -> None:
    target.write_bytes(b"")


def _not_sqlite(source: Path, target: Path) -> None:
    target.write_bytes(b"PK\x03\x04 this is a zip archive, not a database\n" * 200)


def _other_app(source: Path, target: Path) -> None:
    conn = sqlite3.connect(target)
    conn.execute("create table users (id integer primary key, name text)")
    conn.execute("insert into users (name) values ('ada')")
    conn.commit()
    conn.close()


def _newer_migration(source: Path, target: Path) -> None:
    shutil.copy(source, target)
    conn = sqlite3.connect(target)
    conn.execute("insert into _sqlite_migrations (migration_set, name, applied_at) "
                 "values ('wif-cache', 'm999_from_the_future', '2099-01-01')")
    conn.commit()
    conn.close()


def _corrupt_pages(source: Path, target: Path) -> None:
    """Garbage over every page of the release and entry tables; the header and schema stay intact."""
    if source != target:
        shutil.copy(source, target)
    conn = sqlite3.connect(target)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [row[0] for row in conn.execute(
        "select pageno from dbstat where name in ('releases', 'entries', 'entries_fts_data', 'entry_prs') "
        "and pageno > 1")]
    conn.close()
    noise = random.Random(7)
    with target.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * page_size)
            file.write(noise.randbytes(page_size))


DAMAGE: dict[str, Callable[[Path, Path], None]] = {
    "truncated": _truncated, "empty": _empty, "not-sqlite": _not_sqlite, "other-app": _other_app,
    "newer-schema": _newer_migration, "corrupt-pages": _corrupt_pages,
}


@pytest.fixture(scope="module")
def ask_question(clean_cache) -> list[str]:
    """`wif ask` arguments for PHP at a version with a few newer stable releases (a real scan)."""
    cache = SqliteReleaseCache.open(clean_cache)
    stable = cache.stable_releases(PHP)
    cache.db.close()
    version = stable[-12].version
    return ["--engine", "offline", "--repo", PHP, "--version", version, "--json",
            "--problem", "Breadcrumbs are missing from error events sent by the Laravel integration"]


def _assert_refused(result: subprocess.CompletedProcess, command: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout[-500:], result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert f"wif {command}:" in result.stderr and "wif index" in result.stderr, result.stderr


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_wif_ask_refuses_a_damaged_cache(tmp_path, damage, clean_cache, ask_question, shared_fake_github):
    db = tmp_path / "cache.db"
    DAMAGE[damage](clean_cache, db)
    result = run_wif(["ask", "--db", str(db), *ask_question], shared_fake_github.url)
    if result.returncode == 1:  # answered `failed`: only a failure that says how to rebuild is acceptable
        answer = json.loads(result.stdout)
        assert answer["outcome"] == Outcome.FAILED and "wif index" in answer["message"], answer["outcome"]
        assert "✗ Failed." in result.stderr and "✓ Done." not in result.stderr, result.stderr[-500:]
    else:
        _assert_refused(result, "ask")


@pytest.mark.parametrize("damage", ["truncated", "not-sqlite", "other-app", "newer-schema", "corrupt-pages"])
def test_wif_index_refuses_a_damaged_or_foreign_cache(tmp_path, damage, clean_cache, shared_fake_github):
    db = tmp_path / "cache.db"
    DAMAGE[damage](clean_cache, db)
    before = db.read_bytes()
    result = run_wif(index_args(db, [PHP]), shared_fake_github.url)
    _assert_refused(result, "index")
    assert db.read_bytes() == before, "a refused file must be left untouched"


def test_wif_index_initialises_an_empty_file(tmp_path, shared_fake_github):
    db = tmp_path / "cache.db"
    db.write_bytes(b"")
    result = run_wif(index_args(db, [PHP]), shared_fake_github.url)
    assert result.returncode == 0, result.stderr
    assert_sound(db)


def test_an_older_schema_is_refused_by_ask_and_migrated_by_index(tmp_path, clean_cache, ask_question,
                                                                 shared_fake_github):
    db = tmp_path / "cache.db"
    shutil.copy(clean_cache, db)
    asked = run_wif(["ask", "--db", str(db), *ask_question], shared_fake_github.url, program=NEXT_WIF)
    _assert_refused(asked, "ask")
    assert "older schema" in asked.stderr

    indexed = run_wif(index_args(db, [PHP]), shared_fake_github.url, program=NEXT_WIF)
    assert indexed.returncode == 0, indexed.stderr
    conn = sqlite3.connect(db)
    applied = [row[0] for row in conn.execute("select name from _sqlite_migrations order by id")]
    columns = {row[1] for row in conn.execute("PRAGMA table_info(releases)")}
    conn.close()
    assert applied == ["m001_release_cache", "m002_bundle_bumps", "m003_notes_parser", "m004_unreleased_notes",
                       "m005_read_indexes", "m006_entry_commits", "m008_entries_fts_by_store", "m009_entry_terms",
                       "m010_unreleased_commits", "m011_repository_terms", "m012_repository_package",
                       "m099_survival_test"]
    assert "survival_note" in columns
    assert snapshot(db, PHP) == snapshot(clean_cache, PHP)


# ---------------------------------------------------------------------------------------------- half-read
class FailingAfter:
    """The real cache, whose reads start failing (as SQLite reports a damaged page) after `good`
    successful `entries` calls, like a file damaged while a run reads it."""

    def __init__(self, cache: SqliteReleaseCache, good: int):
        self._cache, self._good = cache, good

    def entries(self, release_ids: list[int], sections: frozenset[str] | None = None) -> list:
        if self._good <= 0:
            with self._cache._errors():
                raise sqlite3.DatabaseError("database disk image is malformed")
        self._good -= 1
        return self._cache.entries(release_ids, sections)

    def __getattr__(self, name: str):
        return getattr(self._cache, name)


def _ask_in_process(cache_path: Path, github_url: str, ask_question: list[str],
                    damage: Callable[[SqliteReleaseCache], object]) -> Answer:
    workflow, _ = build(cache_path, github_url)
    workflow.tools.cache = damage(workflow.tools.cache)
    version = ask_question[ask_question.index("--version") + 1]
    problem = ask_question[ask_question.index("--problem") + 1]
    return workflow.run(AskInput(repo=PHP, version=version, problem=problem))


def _assert_failed_with_hint(answer: Answer) -> None:
    assert answer.outcome == Outcome.FAILED, (answer.outcome, answer.message)
    assert "wif index" in answer.message and not answer.candidates


@pytest.mark.parametrize("good", [0, 1, 2])
def test_a_cache_that_fails_mid_run_never_yields_an_answer(clean_cache, shared_fake_github, ask_question, good):
    answer = _ask_in_process(clean_cache, shared_fake_github.url, ask_question,
                             lambda cache: FailingAfter(cache, good))
    _assert_failed_with_hint(answer)


def test_a_cache_failure_a_step_swallows_still_fails_the_run(cache_path_for, shared_fake_github):
    """PR details come from the cache first; a GitHub error there only degrades that PR, so were a cache
    read error a ToolError the run would answer (MEDIUM) from a cache it could not fully read."""
    workflow, _ = build(cache_path_for(["getsentry/sentry-cocoa"]), shared_fake_github.url)
    cache = workflow.tools.cache

    def damaged_pull(repo: str, number: int) -> None:
        with cache._errors():
            raise sqlite3.DatabaseError("database disk image is malformed")

    cache.cached_pull = damaged_pull
    answer = workflow.run(AskInput(sdk="sentry-cocoa", version="8.48.0",
                                   problem="WatchdogTermination issues have empty tags (e.g., OS)."))
    _assert_failed_with_hint(answer)


def test_a_file_damaged_after_opening_never_yields_an_answer(tmp_path, clean_cache, shared_fake_github,
                                                             ask_question):
    db = tmp_path / "cache.db"
    shutil.copy(clean_cache, db)

    def damage_file(cache: SqliteReleaseCache) -> SqliteReleaseCache:
        _corrupt_pages(db, db)
        with db.open("r+b") as file:  # a new change counter: SQLite drops the pages it had cached
            file.seek(24)
            file.write((int.from_bytes(file.read(4), "big") + 1).to_bytes(4, "big"))
        return cache

    _assert_failed_with_hint(_ask_in_process(db, shared_fake_github.url, ask_question, damage_file))


def test_open_cache_rejects_pages_corrupted_after_the_header(tmp_path, clean_cache):
    db = tmp_path / "cache.db"
    _corrupt_pages(clean_cache, db)
    with pytest.raises(CacheError, match="wif index"):
        open_cache(db)
