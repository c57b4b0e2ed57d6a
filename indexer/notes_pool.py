"""Release notes parsed (and their derived data computed) in worker processes while `wif index` writes.

Why: parsing the notes and counting each entry's terms is most of a first index (~1.05 of ~1.9 s of CPU for the
11 fixture repositories), all pure Python, so one process keeps one core busy. A repository with at least
`MIN_BODIES` bodies to parse has them parsed by forked workers, `CHUNK` bodies a job, its entries inserted in
order as the jobs come back (the writer inserts one chunk while the workers parse the next); each worker also
computes the `Derive.per_text` value of every entry text it parsed (the judge's term counts), which
`Derive.store` then writes instead of computing them again. The cache's rows are the same either way: a worker
runs the same parser on the same body, and the results are taken in the order submitted.

A first run (`wif index` on a new cache) forks the workers before anything else (`start`): each loads the parser
and the judge's counter itself while the indexer loads its GitHub client and opens the cache, on the other core.

Below `MIN_BODIES` (an incremental run, a test's few releases), on one core, or where `fork` is not the platform's
way (only Linux forks here: macOS's system libraries are not fork-safe), nothing is started and parsing stays in
the process. A worker that dies or fails leaves its chunk, and the rest of the run, to be parsed in the process.

Why forking in the middle of a run is safe: a worker only runs the parser and the counter on the bodies it is
sent; it never touches the SQLite connection, the HTTP sessions or the threads it inherited, ignores Ctrl-C (the
parent stops the pool) and ends with `os._exit`, so nothing inherited is closed or flushed twice. A parent killed
outright takes its workers with it (`_end_with_parent`).

Why the workers are forked by a thread of the pool's own, alive until `close` has stopped them: the kernel's
parent-death signal (`_end_with_parent`) follows the thread that forked, not the process. Forked by the indexer's
read thread (the first repository with many notes is read there), they were SIGKILLed whenever that thread ended:
on Ctrl-C it ends at once (`_ReadAhead.close(wait=False)`), and a worker killed while writing back a parsed chunk
larger than the pipe left half a message, for which the executor's result thread then waited forever, and
`close` with it (the indexer never exited).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.release_notes import parse_release_notes

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

MIN_BODIES = 64  # fewer bodies than this are parsed in the process: starting workers costs ~10 ms each
CHUNK = 16  # bodies per job: small enough to keep the workers busy while the writer inserts what came back
MAX_WORKERS = 4
MAX_DERIVED = 200_000  # entry texts whose derived value is kept for `Derive.store` (it computes any other itself)

TextWork = Callable[[str], str]
# One entry as `indexer.store.insert_entries` writes it: position, section, heading, text, its PRs, issues and
# commits as JSON lists, and its PR numbers. Plain tuples: a worker's reply is pickled, and dataclasses cost
# more to rebuild than to parse.
EntryRow = tuple[int, str, str, str, str, str, str, tuple[int, ...]]
ParseMany = Callable[[Sequence[str], str], Iterator[list[EntryRow]]]  # (bodies, slug) → the rows of each body
# What the writer calls with the (id, text) of the entries it just inserted, inside its transaction.
EntriesWritten = Callable[[sqlite3.Connection, Sequence[tuple[int, str]]], object]


def entry_rows(body: str, slug: str) -> list[EntryRow]:
    """The rows of one release body's entries (`parse_release_notes(body, repo=slug)`)."""
    return [(entry.position, entry.section, entry.heading, entry.text, _json_list(entry.prs),
             _json_list(entry.issues), _json_list(entry.commits), entry.prs)
            for entry in parse_release_notes(body, repo=slug)]


def parse_here(bodies: Sequence[str], slug: str) -> Iterator[list[EntryRow]]:
    """`ParseMany` in this process, one body after another."""
    return (entry_rows(body, slug) for body in bodies)


def _json_list(values: tuple) -> str:
    """`json.dumps(list(values))`; most entries cite no issue and no commit, and "[]" costs no encoder call."""
    return json.dumps(list(values)) if values else "[]"


@dataclass(frozen=True)
class Derive:
    """Derived data of the cached notes, handed to the indexer by the commands that index (the judge's term
    counts: the indexer imports nothing of the judge).

    `store(conn, computed)` runs after indexing and brings the derived data up to date; `computed` maps entry
    texts to the value `per_text` gave in the parse workers, for it to reuse (it computes what is missing).
    `per_text()` makes, once in each worker, the function of one entry text (it may keep a memo).
    `store_new(conn, entries, computed)`, if given, stores the derived data of the entries each repository's
    write just inserted, in that write's transaction: the work is done while the workers parse the next
    repository, and `store` at the end finds nothing left (one cheap query) instead of all of it."""

    store: Callable[[sqlite3.Connection, Mapping[str, str]], object]
    per_text: Callable[[], TextWork] | None = None
    store_new: Callable[[sqlite3.Connection, Sequence[tuple[int, str]], Mapping[str, str]], object] | None = None


WORKERS_ENV = "WIF_INDEX_WORKERS"  # an operator's cap on the parse workers: 0 or 1 parses in the process


def workers_available() -> int:
    """The cores this process may run on (its CPU affinity, at most MAX_WORKERS and `WIF_INDEX_WORKERS`), 0 where
    workers are not forked."""
    if not sys.platform.startswith("linux"):
        return 0
    cores = min(MAX_WORKERS, len(os.sched_getaffinity(0)))
    cap = os.environ.get(WORKERS_ENV, "").strip()
    return min(cores, int(cap)) if cap.isdigit() else cores


def workers_setting_problem() -> str | None:
    """What is wrong with `WIF_INDEX_WORKERS`, if set to anything but a whole number ≥ 0: said before indexing
    starts, instead of silently running with the default."""
    cap = os.environ.get(WORKERS_ENV, "").strip()
    if not cap or cap.isdigit():
        return None
    return f"{WORKERS_ENV} must be a whole number of processes (0 or 1: parse in the indexing process), not {cap!r}"


class NotesPool:
    """The run's parse workers, started by the first repository with `min_bodies` bodies to parse."""

    def __init__(self, per_text: Callable[[], TextWork] | None = None, *, workers: int | None = None,
                 min_bodies: int = MIN_BODIES, derive: Derive | None = None) -> None:
        self.per_text = per_text if derive is None else derive.per_text
        self._store_new = derive.store_new if derive is not None else None
        self.workers = workers_available() if workers is None else workers
        self.min_bodies = min_bodies
        self.computed: dict[str, str] = {}  # entry text → its `per_text` value, for `Derive.store`
        self._executor: ProcessPoolExecutor | None = None
        self._failed = self.workers < 2
        self._ahead: dict[str, _Jobs] = {}  # per repository, what `prefetch` started until `parse_many` asks
        # `prefetch` runs in the indexer's read thread, `parse_many` and `close` in its main thread
        self._lock = threading.Lock()
        self._closed = False
        self._stopped = threading.Event()  # set by `close` once the workers are stopped: their forking thread ends

    def start(self) -> None:
        """Fork the workers now, before the indexer loads its GitHub client and opens the cache: a first run (a new
        cache) parses every note, so the workers will be needed, and each loads the parser and the lexicon itself
        while the indexer loads the rest (on another core) instead of after it. Nothing is started on one core,
        where `fork` is not used, or when the pool was closed."""
        with self._lock:
            if self._executor is None and not self._failed and not self._closed:
                self._executor = self._start(warm=False)

    def prefetch(self, bodies: Sequence[str], slug: str) -> None:
        """Start parsing `bodies` now, for a `parse_many` of the same bodies later: the workers parse while the
        indexer reads and writes other things (the next repository's releases, this one's release rows). What an
        earlier call started for `slug` and nobody asked for is dropped. Safe from another thread than the one
        that writes; after `close`, nothing is started."""
        with self._lock:
            self._drop_ahead(slug)
            jobs = None if self._closed else self._submit(bodies, slug)
            if jobs is not None:
                self._ahead[slug] = jobs

    def parse_many(self, bodies: Sequence[str], slug: str) -> Iterator[list[EntryRow]]:
        """`ParseMany`: the rows of each body, in order, as `parse_here` gives them."""
        with self._lock:
            ahead = self._ahead.get(slug)
            if ahead is not None and ahead.bodies == list(bodies):
                del self._ahead[slug]
                return self._collect(ahead)
            jobs = None if self._closed else self._submit(bodies, slug)
        return parse_here(bodies, slug) if jobs is None else self._collect(jobs)

    def written(self) -> EntriesWritten | None:
        """What the writer calls with the entries it inserted (`Derive.store_new` with the values the workers
        computed), None without it."""
        store_new, computed = self._store_new, self.computed
        if store_new is None:
            return None
        return lambda conn, entries: store_new(conn, entries, computed)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for slug in list(self._ahead):
                self._drop_ahead(slug)
            executor, self._executor = self._executor, None
        try:
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
        finally:
            self._stopped.set()

    def _submit(self, bodies: Sequence[str], slug: str) -> _Jobs | None:
        executor = self._executor_for(len(bodies))
        if executor is None:
            return None
        try:
            return _Jobs(slug, list(bodies), executor)
        except Exception:
            self._failed = True
            return None

    def _executor_for(self, bodies: int) -> ProcessPoolExecutor | None:
        if self._failed or bodies < self.min_bodies:
            return None
        if self._executor is None:
            self._executor = self._start()
        return self._executor

    def _start(self, warm: bool = True) -> ProcessPoolExecutor | None:
        """The executor, every worker forked. `warm`: the parser and the counter load here first, once, and the
        workers inherit them (a pool started mid-run); else each worker loads them itself (`start`)."""
        import multiprocessing
        from concurrent.futures import Future, ProcessPoolExecutor

        per_text = self.per_text
        if warm:
            parse_release_notes("- warm up (#1)", repo="o/r")  # the parser's lazy imports load once, before forking
            if per_text is not None:
                per_text()("warm up")  # so does what the counter reads (the lexicon)

        def fork() -> ProcessPoolExecutor:
            executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                           initializer=_start_worker, initargs=(os.getpid(), per_text))
            started = executor.submit(int)  # with `fork`, every worker is forked by the first submit, in one go
            if warm:
                started.result()
            return executor

        forked: Future[ProcessPoolExecutor] = Future()
        threading.Thread(target=_fork_and_outlive, args=(fork, forked, self._stopped), name="wif-notes-pool",
                         daemon=True).start()
        try:
            return forked.result()
        except (OSError, RuntimeError, ValueError):  # no process could be started (limits, a sandbox, no fork)
            self._failed = True
            return None

    def _drop_ahead(self, slug: str) -> None:
        jobs = self._ahead.pop(slug, None)
        if jobs is not None:
            jobs.cancel()

    def _collect(self, jobs: _Jobs) -> Iterator[list[EntryRow]]:
        try:
            for future, chunk in zip(jobs.futures, jobs.chunks, strict=True):
                try:
                    parsed, computed = future.result()
                except Exception:  # a dead or failing worker: this chunk, and the rest, parse here
                    self._failed = True
                    parsed, computed = [entry_rows(body, jobs.slug) for body in chunk], {}
                if len(self.computed) < MAX_DERIVED:
                    self.computed.update(computed)
                yield from parsed
        finally:
            jobs.cancel()


class _Jobs:
    """One repository's bodies, submitted `CHUNK` at a time."""

    def __init__(self, slug: str, bodies: list[str], executor: ProcessPoolExecutor) -> None:
        self.slug, self.bodies = slug, bodies
        self.chunks = [bodies[start:start + CHUNK] for start in range(0, len(bodies), CHUNK)]
        self.futures: list[Future[_Chunk]] = [executor.submit(_parse_chunk, slug, chunk) for chunk in self.chunks]

    def cancel(self) -> None:
        for future in self.futures:
            future.cancel()


def _fork_and_outlive(fork: Callable[[], ProcessPoolExecutor], forked: Future[ProcessPoolExecutor],
                      stopped: threading.Event) -> None:
    """`fork()` in this thread, its executor (or error) handed over in `forked`; then wait until `stopped` (set by
    `NotesPool.close` once the workers have ended): the workers' parent-death signal fires when this thread ends,
    and only the process dying must end it before then (module docstring)."""
    try:
        forked.set_result(fork())
    except BaseException as error:  # handed to `_start`, which waits for it
        forked.set_exception(error)
        return
    stopped.wait()


_Chunk = tuple[list[list[EntryRow]], dict[str, str]]
_per_text: TextWork | None = None  # in a worker: what `Derive.per_text` made
_sent: set[str] = set()  # in a worker: texts whose value it already returned (the parent keeps them for the run)


def _start_worker(parent: int, per_text: Callable[[], TextWork] | None) -> None:
    global _per_text
    _end_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool
    parse_release_notes("- warm up (#1)", repo="o/r")  # loaded here if the pool was started before the parser was
    _per_text = per_text() if per_text is not None else None


def _end_with_parent(parent: int) -> None:
    """A killed indexer (SIGKILL, the OOM killer) cannot stop its pool: its workers would wait for work forever.
    The kernel sends each one SIGKILL when the parent dies (PR_SET_PDEATHSIG); one whose parent died before
    that was set ends now."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _parse_chunk(slug: str, bodies: Sequence[str]) -> _Chunk:
    parsed = [entry_rows(body, slug) for body in bodies]
    computed: dict[str, str] = {}
    if _per_text is not None:
        for rows in parsed:
            for row in rows:
                text = row[3]
                if text not in _sent:
                    _sent.add(text)
                    computed[text] = _per_text(text)
    return parsed, computed
