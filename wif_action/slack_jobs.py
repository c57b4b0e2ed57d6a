"""The Slack app's accepted requests: written down before the ack, dispatched after it, each exactly once.

Why a SQLite file: Slack retries a delivery it believes failed (`X-Slack-Retry-Num`), and the retry may reach
the app after a restart or at a second replica sharing the file; a set in memory would start the workflow again
(a duplicate run and a duplicate answer). A request is recorded here before Slack gets its 200, so an accepted
request survives a crash; a worker thread dispatches it after the ack and marks it done. A row whose worker
died (its lease ran out) is taken up by whichever process sweeps first; rows older than the expiry are deleted
(Slack stops retrying after minutes).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

EXPIRY_SECONDS = 3600.0  # Slack retries within ~5 minutes; an hour is far past the last retry
LEASE_SECONDS = 120.0  # longer than one job can take (a dispatch and a Slack reply, each bounded)
_SCHEMA = """CREATE TABLE IF NOT EXISTS requests (
  key TEXT PRIMARY KEY, received REAL NOT NULL, state TEXT NOT NULL, owner TEXT NOT NULL,
  lease_until REAL NOT NULL, job TEXT)"""
_COLUMNS = frozenset({"key", "received", "state", "owner", "lease_until", "job"})
log = logging.getLogger("wif.slack")


class StateFileError(Exception):
    """The file of accepted requests cannot be used (not SQLite, damaged, a directory, another program's table)."""


class RequestLog:
    """Accepted Slack requests by key, shared by every process that opens the same file."""

    def __init__(self, path: str | Path, *, expiry: float = EXPIRY_SECONDS, lease: float = LEASE_SECONDS,
                 clock: Callable[[], float] = time.time):
        self.path, self.expiry, self.lease, self._clock = str(path), expiry, lease, clock
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            with self._db() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
                columns = {row[1] for row in db.execute("PRAGMA table_info(requests)")}
        except sqlite3.Error as error:  # why: a traceback at start-up said less than this line
            raise StateFileError(f"{self.path} cannot hold the Slack app's accepted requests ({error}): give another "
                                 "--state (WIF_SLACK_STATE), or remove it when no request is pending") from error
        if not _COLUMNS.issubset(columns):
            raise StateFileError(f"{self.path} holds another program's 'requests' table (columns "
                                 f"{', '.join(sorted(columns))}): give another --state (WIF_SLACK_STATE)")
        with contextlib.suppress(OSError):
            os.chmod(self.path, 0o600)  # a pending job holds the function's short-lived token

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            yield db
        finally:
            db.close()

    def accept(self, key: str, job: Mapping[str, Any]) -> bool:
        """True the first time `key` is seen (the job is stored, leased to this process); False for a repeat."""
        now = self._clock()
        with self._db() as db:
            db.execute("DELETE FROM requests WHERE received < ?", (now - self.expiry,))
            inserted = db.execute("INSERT OR IGNORE INTO requests VALUES (?, ?, 'accepted', ?, ?, ?)",
                                  (key, now, self.owner, now + self.lease, json.dumps(dict(job))))
            return inserted.rowcount == 1

    def renew(self, key: str) -> dict[str, Any] | None:
        """The job, if this process still holds its lease (renewed now); None if done or taken over."""
        now = self._clock()
        with self._db() as db:
            renewed = db.execute("UPDATE requests SET lease_until = ? WHERE key = ? AND owner = ? "
                                 "AND state = 'accepted'", (now + self.lease, key, self.owner))
            if renewed.rowcount != 1:
                return None
            row = db.execute("SELECT job FROM requests WHERE key = ?", (key,)).fetchone()
        return dict(json.loads(row[0])) if row and row[0] else None

    def take_over(self) -> list[str]:
        """Keys of accepted requests whose lease ran out (their process died), now leased to this one."""
        now = self._clock()
        with self._db() as db:
            keys = [row[0] for row in db.execute(
                "SELECT key FROM requests WHERE state = 'accepted' AND lease_until <= ?", (now,))]
            return [key for key in keys if db.execute(
                "UPDATE requests SET owner = ?, lease_until = ? WHERE key = ? AND state = 'accepted' "
                "AND lease_until <= ?", (self.owner, now + self.lease, key, now)).rowcount == 1]

    def finish(self, key: str) -> None:
        """Done: the job (and the token it held) is dropped; the key stays until expiry to refuse retries."""
        with self._db() as db:
            db.execute("UPDATE requests SET state = 'done', job = NULL WHERE key = ?", (key,))

    def states(self) -> dict[str, int]:
        with self._db() as db:
            return dict(db.execute("SELECT state, count(*) FROM requests GROUP BY state").fetchall())


Job = Callable[[dict[str, Any]], None]


class JobRunner:
    """Runs accepted requests on worker threads, after the ack; also sweeps up requests a dead process left."""

    def __init__(self, requests: RequestLog, run: Job, *, workers: int = 4, sweep_seconds: float = 30.0):
        self.requests, self._run = requests, run
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="wif-slack-job")
        self._stop = threading.Event()
        self._sweep_seconds = sweep_seconds
        self._sweeper: threading.Thread | None = None
        self._queued: set[str] = set()  # a key queued twice here (its lease ran out in the queue) runs once
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, key: str) -> None:
        """Run `key`'s job on a worker. Once closing, it is left to its lease: the next process sweeps it up
        (a pool shut down would raise instead, in a Slack handler or the sweeper)."""
        with self._lock:
            if key in self._queued or self._closed:
                return
            self._queued.add(key)
            self._pool.submit(self._one, key)

    def _one(self, key: str) -> None:
        try:
            job = self.requests.renew(key)
            if job is None:  # done already, or another process took it over
                return
            try:
                self._run(job)
            except Exception as error:  # a bug must not lose the row's state or kill the worker
                log.error("slack job %s failed: %s", key, type(error).__name__)
            self.requests.finish(key)
        finally:
            with self._lock:
                self._queued.discard(key)

    def sweep(self) -> int:
        """Submit every request whose lease ran out; returns how many."""
        keys = self.requests.take_over()
        for key in keys:
            self.submit(key)
        return len(keys)

    def start_sweeping(self) -> None:
        def loop() -> None:
            while not self._stop.wait(self._sweep_seconds):
                self.sweep()
        self.sweep()
        self._sweeper = threading.Thread(target=loop, name="wif-slack-sweep", daemon=True)
        self._sweeper.start()

    def close(self) -> None:
        """Stop sweeping and finish every job already accepted (a graceful stop loses none): a sweep under way
        submits what it took over before the pool stops taking jobs."""
        self._stop.set()
        if self._sweeper is not None:
            self._sweeper.join()
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=True)
