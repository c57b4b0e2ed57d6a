"""The incremental indexing algorithm: GitHub releases → one cache transaction per repository.

Cost model (why it is shaped like this):

* Nothing changed → one conditional request (`If-None-Match` → 304, free of rate limit).
* Something changed → page newest-first and stop at the first page whose releases are all
  cached unchanged *and* older than the refresh window; recent notes do get edited after
  publishing, old ones practically never.
* All network I/O for a repository happens before its single write transaction, so a run
  killed mid-fetch leaves that repository exactly as it was.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, wait
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from indexer import unreleased
from indexer.cached import CachedRelease, cached_releases, repo_id, stable_count, stored_etag
from indexer.changelog import changelog_section
from indexer.github_source import DefaultChangelog, Page, ReleaseSource, SourceError, check_slug
from indexer.notes_pool import Derive, NotesPool
from indexer.packages import MixedPackages, PackageHint, choose, package_key, tag_package
from indexer.pull_choice import low_rate_limit, not_a_pull, same_body, wanted_pulls
from indexer.report import RepoReport
from indexer.schema import open_cache, read_only
from indexer.store import (
    ReleaseRecord,
    RepositoryUpdate,
    apply_update,
    keep_package_unchanged,
    mark_checked,
    packaged_package_hint,
    refresh_bundle_bumps,
    reparse_if_stale,
    stored_package,
    write_with_retry,
)
from indexer.wal_checkpoints import Checkpoints
from indexer.wall_clock import BackgroundThread

MAX_PAGES = 500  # 50,000 releases: far beyond any SDK; a bound on a misbehaving server
Progress = Callable[[str], None]


STOP_AFTER_SYSTEMIC = 3  # consecutive repositories failing the same systemic way end an index run


class ReadStopped(Exception):
    """A read ahead of the writer was stopped because the run ended (nobody waits for its result)."""


# ---------------------------------------------------------------------------- entry points
def index_repositories(
    db_path: str | Path, source: ReleaseSource, slugs: Iterable[str], *, derive: Derive | None = None,
    workers: int | None = None, notes: NotesPool | None = None, **options: Any
) -> list[RepoReport]:
    """Index each repository in turn; one failing repository never stops the others. `derive` (given by the
    commands that index: the judge's term counts, which the indexer does not compute itself) then brings the
    derived data up to date; if it fails the cache is still complete (readers compute what is missing).
    Notes are parsed by up to `workers` processes (default: one per core; indexer/notes_pool.py), and each
    entry's derived value computed there too; `notes`: those workers, already started by the caller (closed here).

    Raises CacheError (from open_cache) when the file is not a usable cache.
    """
    pool = notes if notes is not None else NotesPool(workers=workers, derive=derive)
    try:
        db = open_cache(db_path, create=True)
    except BaseException:
        pool.close()
        raise
    checkpoints = Checkpoints(db_path)
    try:
        reports = _index_until_systemic_failure(db, _ReadAhead(db, db_path, source), list(dict.fromkeys(slugs)),
                                                {**options, "notes": pool}, checkpoints.after_commit)
        pool.close()
        if derive is not None:
            _derive(db, derive, pool.computed, options.get("on_progress", print))
        return reports
    finally:
        pool.close()
        checkpoints.close()
        db.close()


def _derive(db: Database, derive: Derive, computed: dict[str, str], on_progress: Progress) -> None:
    try:
        derive.store(db.conn, computed)
    except sqlite3.DatabaseError as error:
        on_progress(f"Derived data not stored ({error}); answers compute it, the next index run retries.")


def _index_until_systemic_failure(db: Database, reader: _ReadAhead, slugs: list[str], options: dict,
                                  written: Callable[[], None] = lambda: None) -> list[RepoReport]:
    """Index in turn, but stop after STOP_AFTER_SYSTEMIC repositories in a row failed the same systemic way.

    Why: against a hung or broken GitHub every repository costs the full timeout and retries, so
    `--all` would spend half an hour before saying anything useful. What was indexed is kept.

    Each repository after the first is read (`_RepositoryPass.read`, GitHub requests and cache reads only) by
    `reader`, in a background thread, while the one before it is written here: the run waits on GitHub and on
    SQLite at the same time, and the parse workers get the next repository's notes before this one's are all
    written. Only a repository read without error lets the next read start early, so the stop below sees each
    failure when it happens and starts no request after it. The thread has ended when this returns or raises
    (Ctrl-C excepted: `_ReadAhead.close`).
    """
    reports: list[RepoReport] = []
    try:
        reading: Future[_RepositoryPass] | None = None
        for position, slug in enumerate(slugs):
            run = reading.result() if reading is not None else _read(db, reader.source, slug, options)
            reading = None
            following = slugs[position + 1] if position + 1 < len(slugs) else None
            if following is not None and run.report.error is None:
                reading = reader.submit(following, options)
            reports.append(run.finish())
            written()
            recent = [report.systemic for report in reports[-STOP_AFTER_SYSTEMIC:]]
            if len(recent) == STOP_AFTER_SYSTEMIC and recent[0] and len(set(recent)) == 1:
                progress = options.get("on_progress", print)
                left = slugs[position + 1:]
                progress(f"Stopped: {STOP_AFTER_SYSTEMIC} repositories in a row failed the same way ({recent[0]}); "
                         f"{len(left)} not attempted, everything indexed so far is kept.")
                reports += [RepoReport(other, error=f"not attempted: {recent[0]}", systemic=recent[0])
                            for other in left]
                break
            if following is not None and reading is None:
                reading = reader.submit(following, options)
    except (KeyboardInterrupt, SystemExit):
        reader.close(wait=False)
        raise
    finally:
        reader.close()
    return reports


class _ReadAhead:
    """The next repository's read, in a thread of its own with a read-only connection of its own.

    Why its own connection: the writer's is closed as soon as the run ends, on an error too; a read sharing it
    could still be inside a query then ("Cannot operate on a closed database", or worse for a caller that goes
    on in the same process). Why `close` stops and waits: a caller that goes on must not have a thread still
    sending requests for a run that ended; the read stops at its next request (`_RepositoryPass.stop`), so the
    wait is at most the request under way. Ctrl-C does not wait even that long (`close(wait=False)`): the
    process is ending, and what the thread still holds is its own."""

    def __init__(self, db: Database, path: str | Path, source: ReleaseSource) -> None:
        self.db, self.path, self.source = db, path, source
        self._stop = threading.Event()
        self._own: Database | None = None  # opened, used and closed in the thread
        self._thread = BackgroundThread("wif-index-read", teardown=self._close_db)

    def submit(self, slug: str, options: dict) -> Future[_RepositoryPass]:
        return self._thread.submit(partial(self._read, slug, options))

    def close(self, *, wait: bool = True) -> None:
        self._stop.set()
        self._thread.close(wait=wait)

    def _read(self, slug: str, options: dict) -> _RepositoryPass:
        run = _repository_pass(self.db, self.source, slug, **options)
        run.stop = self._stop
        try:
            if self._own is None:
                self._own = read_only(self.path)
        except sqlite3.Error as error:
            run.report.error = f"cache read failed: {error}"
            return run
        run.reads = self._own
        run.read()
        return run

    def _close_db(self) -> None:
        if self._own is not None:
            with contextlib.suppress(sqlite3.Error):
                self._own.close()
            self._own = None


def _read(db: Database, source: ReleaseSource, slug: str, options: dict) -> _RepositoryPass:
    run = _repository_pass(db, source, slug, **options)
    run.read()
    return run


def index_repository(
    db: Database,
    source: ReleaseSource,
    slug: str,
    *,
    refresh_window_days: float = 30,
    changelog_fallback: bool = True,
    pulls: str = "none",
    max_pulls: int | None = None,
    on_progress: Progress = print,
    now: datetime | None = None,
    bundles: Mapping[str, dict[str, str]] | None = None,
    unreleased: bool = True,
    notes: NotesPool | None = None,
    packages: Mapping[str, PackageHint] | None = None,
) -> RepoReport:
    """Bring one repository's cached releases (and optionally PR details) up to date.

    `bundles`: per repository, the bundled SDK names its bump lines use → repositories (a user's registry);
    a repository not in it gets the packaged registry's. `unreleased`: also cache the Unreleased section of
    CHANGELOG.md on the default branch (one conditional request). `notes`: the run's parse workers (None: notes are
    parsed here, one after another). `packages`: per repository, what a registry says of its packages (which one
    of a monorepo's the SDK is, indexer/packages.py); a repository not in it gets the packaged registry's."""
    return _repository_pass(db, source, slug, refresh_window_days=refresh_window_days,
                            changelog_fallback=changelog_fallback, pulls=pulls, max_pulls=max_pulls,
                            on_progress=on_progress, now=now, bundles=bundles, unreleased=unreleased,
                            notes=notes, packages=packages).execute()


def _repository_pass(db: Database, source: ReleaseSource, slug: str, *, refresh_window_days: float = 30,
                     changelog_fallback: bool = True, pulls: str = "none", max_pulls: int | None = None,
                     on_progress: Progress = print, now: datetime | None = None,
                     bundles: Mapping[str, dict[str, str]] | None = None, unreleased: bool = True,
                     notes: NotesPool | None = None,
                     packages: Mapping[str, PackageHint] | None = None) -> _RepositoryPass:
    if pulls not in ("none", "recent"):
        raise ValueError(f"pulls must be 'none' or 'recent', not {pulls!r}")
    cutoff = (now or datetime.now(UTC)) - timedelta(days=refresh_window_days)
    return _RepositoryPass(db, source, slug, RepoReport(slug), on_progress, cutoff, changelog_fallback,
                           pulls == "recent", max_pulls, (bundles or {}).get(slug), unreleased, notes,
                           (packages or {}).get(slug))


@dataclass
class _RepositoryPass:
    """One repository's indexing pass: all GitHub reads first, then one write transaction."""

    db: Database
    source: ReleaseSource
    slug: str
    report: RepoReport
    on_progress: Progress
    cutoff: datetime  # releases published after this are re-read: their notes may still be edited
    changelog_fallback: bool
    with_pulls: bool
    max_pulls: int | None
    bundles: dict[str, str] | None = None
    unreleased: bool = True
    notes: NotesPool | None = None
    package_hint: PackageHint | None = None  # what a registry says of the repository's packages
    unreleased_reply: DefaultChangelog | None = None  # read by `_read`, stored after the releases
    unreleased_error: str | None = None
    update: RepositoryUpdate | None = None  # what `read` learned, for `finish` to write
    failure: str | None = None  # why GitHub could not be read, for `finish` to note on the repository's row
    reads: Database | None = None  # the connection `read` uses (None: `db`), when it runs in another thread
    stop: threading.Event | None = None  # set: `read` stops before its next request (raises ReadStopped)

    def execute(self) -> RepoReport:
        self.read()
        return self.finish()

    def read(self) -> None:
        """Every GitHub request of the pass (releases, the Unreleased notes, PR details) and the cache reads they
        need; writes nothing (`finish` does, a failure's note included), so it may run in another thread while
        the main thread writes another repository."""
        started, requests_before = time.monotonic(), self.source.requests
        self.source.begin_repository()
        try:
            check_slug(self.slug)
            self._read()
        except SourceError as error:
            self.report.error = error.message
            self.report.systemic = _systemic_kind(error)
            self.failure = error.message
        except sqlite3.OperationalError as error:  # `read` only reads the cache (it writes nothing since 7d7d5b0)
            self.report.error = f"cache read failed: {error}"
        self.report.requests = self.source.requests - requests_before
        limits = self.source.rate_limit()
        self.report.rate_limit_remaining = limits[0] if limits else None
        self.report.seconds = time.monotonic() - started

    def finish(self) -> RepoReport:
        """The pass's writes (one transaction for the releases, one for the Unreleased notes), then its progress
        line."""
        started = time.monotonic()
        if self.failure is not None:
            self._record_failure(self.failure)
            self.report.stable = stable_count(self.db, self.slug)
        if self.report.error is None:
            try:
                self._write_releases()
                if self.unreleased:
                    self._unreleased_notes()
            except sqlite3.OperationalError as error:
                self.report.error = f"cache write failed: {error}"
        self.report.seconds += time.monotonic() - started
        self.on_progress(self.report.line())
        return self.report

    def _read(self) -> None:
        report = self.report
        self._check_stop()
        hint = self.package_hint or packaged_package_hint(self.slug)
        stored = stored_package(self._reads, self.slug)
        expected = package_key(hint.declared, self.slug) if hint.declared is not None else stored
        # a package declared instead of the one cached: every page is read again (the cache holds none of its tags)
        etag = stored_etag(self._reads, self.slug) if stored is None or expected == stored else None
        first = self.source.first_page(self.slug, etag)
        report.not_modified = first.status == 304
        cached = cached_releases(self._reads, self.slug, bodies=not report.not_modified)  # a 304 compares none
        fetched: list[ReleaseRecord] = []
        if not report.not_modified:
            fetched = self._changed_pages(first, cached, expected)
        fetched, cached = self._one_package(fetched, cached, hint, stored)
        if not report.not_modified:
            self._fill_empty_bodies(fetched, cached)
            # a token pasted into notes (or echoed into them) is never stored, nor published with the cache
            redactor = self.source.redactor
            fetched = [replace(r, name=redactor.text(r.name), body=redactor.text(r.body)) for r in fetched]
            if self.notes is not None:  # the workers parse what `apply_update` will write while the rest is read
                self.notes.prefetch([r.body or "" for r in fetched if not same_body(r, cached)], self.slug)
        if self.unreleased:  # read before the PR details (the PRs its notes cite are the newest), stored after
            self._read_unreleased()
        pull_rows = self._fetch_pulls(fetched, cached) if self.with_pulls else []
        report.releases, report.pulls = len(fetched), len(pull_rows)
        self.update = RepositoryUpdate(slug=self.slug, releases=fetched, etag=first.etag, bundles=self.bundles,
                                       pulls=[self.source.redactor.value(row) for row in pull_rows],
                                       parse_many=self.notes.parse_many if self.notes else None,
                                       written=self.notes.written() if self.notes else None,
                                       package=report.package)

    def _one_package(self, fetched: list[ReleaseRecord], cached: dict[str, CachedRelease], hint: PackageHint,
                     stored: str | None) -> tuple[list[ReleaseRecord], dict[str, CachedRelease]]:
        """The fetched and cached releases of the one package kept (indexer/packages.py); the others are counted
        in the report. Raises SourceError (not systemic) when the tags name several packages and nothing says
        which one the SDK is: nothing is written, rather than mixing them."""
        try:
            keep = choose(self.slug, [*cached, *(record.tag for record in fetched)], hint, stored)
        except MixedPackages as error:
            raise SourceError(self.slug, str(error)) from None
        self.report.package = keep
        others: dict[str, int] = {}
        for tag in dict.fromkeys([*cached, *(record.tag for record in fetched)]):
            if (key := tag_package(tag, self.slug)) != keep:
                others[key] = others.get(key, 0) + 1
        self.report.other_packages = others
        if not others:
            return fetched, cached
        return ([record for record in fetched if tag_package(record.tag, self.slug) == keep],
                {tag: old for tag, old in cached.items() if tag_package(tag, self.slug) == keep})

    @property
    def _reads(self) -> Database:
        return self.reads if self.reads is not None else self.db

    def _check_stop(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise ReadStopped(self.slug)

    def _write_releases(self) -> None:
        report, update = self.report, self.update
        if update is None:  # nothing was read
            return
        if report.not_modified and not update.pulls:
            report.reparsed, report.dropped = self._write(self._checked_unchanged)
            report.stable = stable_count(self.db, self.slug)
            return
        result = self._write(lambda: apply_update(self.db, update))
        report.new, report.updated, report.stable = result.new, result.updated, result.stable
        report.reparsed, report.dropped = result.reparsed, result.dropped
        report.skipped_tags = list(result.skipped_tags)

    def _read_unreleased(self) -> None:
        """Read the default branch's CHANGELOG.md (one conditional request); a failure is kept for the report."""
        try:
            self._check_stop()
            self.unreleased_reply = self.source.default_changelog(self.slug,
                                                                  unreleased.stored_etag(self._reads, self.slug))
        except SourceError as error:
            self.unreleased_error = error.message

    def _unreleased_notes(self) -> None:
        """Replace the cached Unreleased notes (own transaction, after the releases'): a failure here is a
        warning, never the repository's error, and keeps the notes read last time."""
        reply = self.unreleased_reply
        if reply is None:
            outcome = unreleased.Outcome("failed", error=self.unreleased_error or "not read")
            self.report.warnings.append(outcome.describe())
        else:
            outcome = self._write(lambda: unreleased.store(self.db, self.slug, reply))
        self.report.unreleased, self.report.unreleased_status = outcome.describe(), outcome.status

    def _checked_unchanged(self) -> tuple[int, int]:
        """A 304: nothing fetched, but the registry's `bundles` or the notes parser may have changed since the
        last run, and an older cache may hold other packages' releases. Returns how many stored releases were
        re-parsed, and how many of other packages deleted."""
        mark_checked(self.db, self.slug)
        package = self.update.package if self.update is not None else None
        dropped = keep_package_unchanged(self.db, self.slug, package) if package is not None else 0
        reparsed = reparse_if_stale(self.db, self.slug, self.notes.parse_many if self.notes else None,
                                    self.notes.written() if self.notes else None)
        refresh_bundle_bumps(self.db, self.slug, self.bundles)
        return reparsed, dropped

    def _write(self, work: Callable[[], Any]) -> Any:
        return write_with_retry(self.db, work, on_busy=lambda message: self.on_progress(f"{self.slug}: {message}"))

    def _record_failure(self, message: str) -> None:
        """Note the error on a repository the cache already knows; unknown slugs leave no row behind."""
        if repo_id(self.db, self.slug) is None:
            return
        with contextlib.suppress(sqlite3.OperationalError):  # a busy cache must not mask the real failure
            self._write(lambda: mark_checked(self.db, self.slug, error=message))

    # ------------------------------------------------------------------------ releases
    def _changed_pages(self, first: Page, cached: dict[str, CachedRelease], package: str | None) -> list[ReleaseRecord]:
        """Pages newest-first until one is all cached, unchanged and older than the refresh window; with
        `package` (the key of the one package kept), other packages' releases do not count."""
        records: list[ReleaseRecord] = []
        seen: set[str] = set()  # next-page URLs followed: a server whose links loop must not loop us
        page: Page | None = first
        while page is not None:
            self.report.pages += 1
            releases = page.releases or []
            records.extend(releases)
            if not releases or _page_settled(releases, cached, self.cutoff, self.slug, package):
                break
            if page.next_url in seen or len(seen) >= MAX_PAGES:
                raise SourceError(self.slug, f"GitHub's next-page links loop (or exceed {MAX_PAGES} pages) at "
                                             f"{(page.next_url or '')[:200]}; stopped")
            if page.next_url:
                seen.add(page.next_url)
            self._check_stop()
            page = self.source.next_page(self.slug, page)
        return records

    def _fill_empty_bodies(self, records: list[ReleaseRecord], cached: dict[str, CachedRelease]) -> None:
        """Empty release body → the version's section of CHANGELOG.md at that tag.

        A section found earlier is reused (a tag's file does not change); a release whose
        fallback already failed is not retried, so an unchanged page costs no extra requests.
        """
        for record in records:
            if record.body:
                continue
            old = cached.get(record.tag)
            if old is not None and old.body_source == "changelog":
                record.body, record.body_source = old.body, "changelog"
                continue
            if not self.changelog_fallback or record.draft or (old is not None and not old.body):
                continue
            self._check_stop()
            section = changelog_section(self.source.changelog_at(self.slug, record.tag), record.tag)
            if section:
                record.body, record.body_source = section, "changelog"

    # ------------------------------------------------------------------------ pull requests
    def _fetch_pulls(self, fetched: list[ReleaseRecord], cached: dict[str, CachedRelease]) -> list[dict]:
        """Details of PRs the cache lacks, cited by the Unreleased notes and the newest stable releases, newest
        first (the order of `wanted_pulls`, kept whatever order the answers come in).

        Up to `pull_workers` requests at once (`ReleaseSource.pull_pool`), starting with one and doubling with
        each answer (a server failing the first request sees one); bounded by `max_pulls` per run (the rest
        follow on later runs). A failure (e.g. rate limit) stops PR fetching and keeps the details before it in
        that order, and the releases: the requests already under way are waited for and dropped, none is
        started after it.
        """
        wanted = wanted_pulls(self._reads, self.slug, fetched, cached, self.unreleased_reply)
        if self.max_pulls is not None:
            wanted = wanted[:max(0, self.max_pulls)]
        rows: list[dict] = []
        reason: str | None = None
        pending: deque[tuple[int, Future[dict | None]]] = deque()
        numbers = iter(wanted)
        pool = self.source.pull_pool()
        window = 1
        try:
            while True:
                while reason is None and len(pending) < window:
                    number = next(numbers, None)
                    if number is None:
                        break
                    # the rate limit a request under way will spend is not in the last response's headers yet
                    reason = low_rate_limit(self.source, under_way=sum(not f.done() for _, f in pending))
                    if reason is None:
                        self._check_stop()
                        pending.append((number, pool.submit(self.source.pull, self.slug, number)))
                if not pending:
                    break
                number, future = pending.popleft()
                try:
                    pull = future.result()
                except SourceError as error:
                    reason = error.message
                    break
                rows.append(pull or not_a_pull(self.slug, number))
                window = min(self.source.pull_workers, window * 2)
        finally:
            for _, later in pending:
                later.cancel()
            wait([later for _, later in pending])
        if reason:
            self.report.warnings.append(f"stopped fetching PR details after {len(rows)} of {len(wanted)}: {reason}")
            self.on_progress(f"{self.slug}: {self.report.warnings[-1]}")
        return rows


# ---------------------------------------------------------------------------- release helpers
def _settled(releases: list[ReleaseRecord], cached: dict[str, CachedRelease], cutoff: datetime) -> bool:
    return all(_unchanged(record, cached) and not _recent(record, cutoff) for record in releases)


def _page_settled(releases: list[ReleaseRecord], cached: dict[str, CachedRelease], cutoff: datetime, slug: str,
                  package: str | None) -> bool:
    """`_settled`; with `package` (the key of the one package kept), other packages' releases count as cached and
    unchanged (their notes are never stored) once older than the window, but only when the cache already holds
    releases of the package: on its first read (or a newly declared package) every page is read.

    Why: a package that has not released for a while sits behind pages of its siblings' releases; they end the
    paging as its own cached releases would."""
    if package is None:
        return _settled(releases, cached, cutoff)
    if not any(tag_package(tag, slug) == package for tag in cached):
        return False
    own = [record for record in releases if tag_package(record.tag, slug) == package]
    return _settled(own, cached, cutoff) and not any(_recent(record, cutoff) for record in releases)


def _unchanged(record: ReleaseRecord, cached: dict[str, CachedRelease]) -> bool:
    old = cached.get(record.tag)
    if old is None:
        return False
    return old.body == (record.body or "") or (not record.body and old.body_source == "changelog")


def _recent(record: ReleaseRecord, cutoff: datetime) -> bool:
    """Published inside the refresh window; an unknown date (drafts) counts as old."""
    if not record.published_at:
        return False
    try:
        published = datetime.fromisoformat(record.published_at.replace("Z", "+00:00"))
    except ValueError:
        return True
    if published.tzinfo is None:
        published = published.replace(tzinfo=UTC)
    return published >= cutoff


def _systemic_kind(error: SourceError) -> str | None:
    """A failure that every repository would hit too (not one repository's 404 or bad notes)."""
    if error.status == 0 and error.message.startswith("cannot reach"):
        return "GitHub unreachable or timing out"
    if error.status == 401:
        return "the GitHub token was rejected (401)"
    if error.status in (403, 429) and "rate limit" in error.message.lower():
        return "GitHub rate limit exhausted"
    if error.status >= 500:
        return f"GitHub server errors ({error.status})"
    return None
