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
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, wait
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from packaging.version import Version
from sqlite_utils import Database

from indexer import unreleased
from indexer.github_source import DefaultChangelog, Page, ReleaseSource, SourceError, check_slug
from indexer.notes_pool import Derive, NotesPool
from indexer.packages import MixedPackages, PackageHint, choose, package_key, shown, tag_package
from indexer.release_notes import PARSER_VERSION, parse_release_notes
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
from indexer.versions import parse_tag, version_key
from indexer.wal_checkpoints import Checkpoints
from indexer.wall_clock import BackgroundThread

RECENT_STABLE_RELEASES = 110  # the agent gives up beyond 100 releases; PR details past that are never read
PULL_RATE_RESERVE = 100  # PR details are optional: leave this many requests for other repositories' releases
MAX_PAGES = 500  # 50,000 releases: far beyond any SDK; a bound on a misbehaving server
NOT_FOUND_STATE = "not_found"  # pulls row for a number that is not a PR (an issue), so it is not re-fetched
Progress = Callable[[str], None]


STOP_AFTER_SYSTEMIC = 3  # consecutive repositories failing the same systemic way end an index run


class ReadStopped(Exception):
    """A read ahead of the writer was stopped because the run ended (nobody waits for its result)."""

@dataclass
class RepoReport:
    """What one repository's pass did; `stable` counts the cache after the run."""

    repo: str
    releases: int = 0  # fetched this run
    stable: int = 0
    new: int = 0
    updated: int = 0
    skipped_tags: list[str] = field(default_factory=list)
    requests: int = 0
    rate_limit_remaining: int | None = None
    error: str | None = None
    # why the failure would repeat for every repository (GitHub unreachable, 5xx, rate limit, token rejected)
    systemic: str | None = None
    not_modified: bool = False
    pages: int = 0
    pulls: int = 0
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    reparsed: int = 0  # stored releases re-parsed by a newer notes parser (no request)
    unreleased: str = ""  # what became of the default branch's Unreleased notes (indexer/unreleased.py)
    unreleased_status: str | None = None
    package: str | None = None  # the key of the monorepo package kept (indexer/packages.py; "" the repository's own)
    other_packages: dict[str, int] = field(default_factory=dict)  # key → releases of other packages not cached
    dropped: int = 0  # cached releases of other packages deleted

    def summary(self) -> dict:
        """The `--json` shape."""
        return {"repo": self.repo, "releases": self.releases, "stable": self.stable, "new": self.new,
                "updated": self.updated, "requests": self.requests, "error": self.error,
                "unreleased": self.unreleased_status, "package": self.package}

    def line(self) -> str:
        """One human progress line."""
        tail = f"{_plural(self.requests, 'request')}, rate limit {_or_unknown(self.rate_limit_remaining)} left"
        if self.error:
            return f"{self.repo}: FAILED: {self.error} ({tail})"
        if self.not_modified:
            head = f"not modified (304), {self.stable} stable cached"
        else:
            head = (f"{self.releases} fetched ({_plural(self.pages, 'page')}), {self.new} new, "
                    f"{self.updated} updated, {_plural(len(self.skipped_tags), 'skipped tag')}, "
                    f"{self.stable} stable cached")
        if self.pulls:
            head += f", {_plural(self.pulls, 'PR')} fetched"
        if self.reparsed:
            head += f", {_plural(self.reparsed, 'stored release')} re-parsed (notes parser v{PARSER_VERSION})"
        if self.other_packages:
            head += f"; {self._packages_line()}"
        if self.unreleased:
            head += f"; {self.unreleased}"
        return f"{self.repo}: {head}; {tail}"


    def _packages_line(self) -> str:
        """"kept package @emotion/react only (not cached: 30 releases of @emotion/cache, …)"."""
        keys = sorted(self.other_packages, key=lambda key: (-self.other_packages[key], key))
        named = ", ".join(f"{self.other_packages[key]} of {shown(key, self.repo)}" for key in keys[:3])
        more = f" and {len(keys) - 3} more packages" if len(keys) > 3 else ""
        dropped = f", {_plural(self.dropped, 'cached release')} of them deleted" if self.dropped else ""
        return f"kept package {shown(self.package or '', self.repo)} only (not cached: {named}{more}{dropped})"


@dataclass
class _Cached:
    id: int
    body: str
    body_source: str
    version_key: str | None
    stable: bool


# ---------------------------------------------------------------------------- entry points
def index_repositories(
    db_path: str | Path, source: ReleaseSource, slugs: Iterable[str], *, derive: Derive | None = None,
    workers: int | None = None, notes: NotesPool | None = None, **options
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
            self.report.stable = _stable_count(self.db, self.slug)
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
        etag = _stored_etag(self._reads, self.slug) if stored is None or expected == stored else None
        first = self.source.first_page(self.slug, etag)
        report.not_modified = first.status == 304
        cached = _cached_releases(self._reads, self.slug, bodies=not report.not_modified)  # a 304 compares none
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
                self.notes.prefetch([r.body or "" for r in fetched if not _same_body(r, cached)], self.slug)
        if self.unreleased:  # read before the PR details (the PRs its notes cite are the newest), stored after
            self._read_unreleased()
        pull_rows = self._fetch_pulls(fetched, cached) if self.with_pulls else []
        report.releases, report.pulls = len(fetched), len(pull_rows)
        self.update = RepositoryUpdate(slug=self.slug, releases=fetched, etag=first.etag, bundles=self.bundles,
                                       pulls=[self.source.redactor.value(row) for row in pull_rows],
                                       parse_many=self.notes.parse_many if self.notes else None,
                                       written=self.notes.written() if self.notes else None,
                                       package=report.package)

    def _one_package(self, fetched: list[ReleaseRecord], cached: dict[str, _Cached], hint: PackageHint,
                     stored: str | None) -> tuple[list[ReleaseRecord], dict[str, _Cached]]:
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
            report.stable = _stable_count(self.db, self.slug)
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
        if _repo_id(self.db, self.slug) is None:
            return
        with contextlib.suppress(sqlite3.OperationalError):  # a busy cache must not mask the real failure
            self._write(lambda: mark_checked(self.db, self.slug, error=message))

    # ------------------------------------------------------------------------ releases
    def _changed_pages(self, first: Page, cached: dict[str, _Cached], package: str | None) -> list[ReleaseRecord]:
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

    def _fill_empty_bodies(self, records: list[ReleaseRecord], cached: dict[str, _Cached]) -> None:
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
    def _fetch_pulls(self, fetched: list[ReleaseRecord], cached: dict[str, _Cached]) -> list[dict]:
        """Details of PRs the cache lacks, cited by the Unreleased notes and the newest stable releases, newest
        first (the order of `_wanted_pulls`, kept whatever order the answers come in).

        Up to `pull_workers` requests at once (`ReleaseSource.pull_pool`), starting with one and doubling with
        each answer (a server failing the first request sees one); bounded by `max_pulls` per run (the rest
        follow on later runs). A failure (e.g. rate limit) stops PR fetching and keeps the details before it in
        that order, and the releases: the requests already under way are waited for and dropped, none is
        started after it.
        """
        wanted = _wanted_pulls(self._reads, self.slug, fetched, cached, self.unreleased_reply)
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
                    reason = _low_rate_limit(self.source, under_way=sum(not f.done() for _, f in pending))
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
                rows.append(pull or _not_a_pull(self.slug, number))
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
def _settled(releases: list[ReleaseRecord], cached: dict[str, _Cached], cutoff: datetime) -> bool:
    return all(_unchanged(record, cached) and not _recent(record, cutoff) for record in releases)


def _page_settled(releases: list[ReleaseRecord], cached: dict[str, _Cached], cutoff: datetime, slug: str,
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


def _unchanged(record: ReleaseRecord, cached: dict[str, _Cached]) -> bool:
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


_HEADING = re.compile(r"^(#{1,3})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_HEADING_VERSION = re.compile(r"^(?:(?:version|release)\s+)?\[?v?([^\]\s()]+)", re.IGNORECASE)


def changelog_section(text: str | None, tag: str) -> str | None:
    """The notes under `## <version>` / `## [<version>]` / `# v<version>` for `tag`, up to the
    next version heading (or a higher-level heading); None when absent or empty.

    A heading repeated for the same version (a re-tag, `v1.2.0` then `1.2.0`) yields the
    first non-empty section.
    """
    target = parse_tag(tag)
    if not text or target is None:
        return None
    headings = [(m, len(m.group(1)), _heading_version(m.group(2))) for m in _HEADING.finditer(text)]
    for index, (match, level, version) in enumerate(headings):
        if version != target:
            continue
        end = next((later.start() for later, later_level, later_version in headings[index + 1:]
                    if later_version is not None or later_level < level), len(text))
        section = text[match.end():end].strip()
        if section:
            return section
    return None


def _heading_version(title: str) -> Version | None:
    match = _HEADING_VERSION.match(title.strip())
    return parse_tag(match.group(1)) if match else None


# ---------------------------------------------------------------------------- pull request helpers
def _low_rate_limit(source: ReleaseSource, under_way: int = 0) -> str | None:
    limits = source.rate_limit()
    if limits and limits[0] - under_way <= PULL_RATE_RESERVE:
        return f"keeping the last {limits[0] - under_way} requests of the rate limit for release checks"
    return None


def _wanted_pulls(db: Database, slug: str, fetched: list[ReleaseRecord], cached: dict[str, _Cached],
                  changelog: DefaultChangelog | None = None) -> list[int]:
    """PR numbers not yet in `pulls`, newest first: cited by the Unreleased notes (`changelog` as just read, else
    the cached ones: merged, in no release yet, what a question about the newest version needs), then by the
    newest stable releases."""
    newest = _newest_stable(fetched, cached)
    known = _known_pulls(db, slug)
    changed = {record.tag: record for record in fetched if not _same_body(record, cached)}
    wanted: dict[int, None] = dict.fromkeys(
        number for number in unreleased.cited_pulls(db, slug, changelog) if number not in known)
    for tag in newest:
        if tag in changed:
            numbers: Iterable[int] = (pr for entry in parse_release_notes(changed[tag].body, repo=slug)
                                      for pr in entry.prs)
        else:
            numbers = _cached_release_pulls(db, cached[tag].id)
        for number in numbers:
            if number not in known:
                wanted.setdefault(number, None)
    return list(wanted)


def _same_body(record: ReleaseRecord, cached: dict[str, _Cached]) -> bool:
    old = cached.get(record.tag)
    return old is not None and old.body == (record.body or "")


def _newest_stable(fetched: list[ReleaseRecord], cached: dict[str, _Cached]) -> list[str]:
    """Tags of the newest stable releases after this run (fetched state overrides the cache)."""
    keys = {tag: old.version_key for tag, old in cached.items() if old.stable and old.version_key}
    for record in fetched:
        keys.pop(record.tag, None)
        key = stable_version_key(record)
        if key:
            keys[record.tag] = key
    return sorted(keys, key=keys.__getitem__, reverse=True)[:RECENT_STABLE_RELEASES]


def stable_version_key(record: ReleaseRecord) -> str | None:
    """The sort key of a stable release, None for drafts, pre-releases and unparseable tags
    (the same rule the store applies)."""
    version = parse_tag(record.tag)
    if version is None or record.draft or record.prerelease or version.is_prerelease:
        return None
    return version_key(version)


def _not_a_pull(slug: str, number: int) -> dict:
    return {"number": number, "title": "", "body": "", "state": NOT_FOUND_STATE, "merged": 0,
            "merged_at": None, "merge_commit_sha": None, "url": f"https://github.com/{slug}/pull/{number}"}


# ---------------------------------------------------------------------------- cache reads
def _repo_id(db: Database, slug: str) -> int | None:
    row = db.execute("select id from repositories where slug = ?", [slug]).fetchone()
    return row[0] if row else None


def _stored_etag(db: Database, slug: str) -> str | None:
    row = db.execute("select releases_etag from repositories where slug = ?", [slug]).fetchone()
    return row[0] if row else None


def _cached_releases(db: Database, slug: str, *, bodies: bool = True) -> dict[str, _Cached]:
    body = "r.body" if bodies else "''"
    rows = db.execute(
        f"select r.tag, r.id, {body}, r.body_source, r.version_key, r.stable from releases r "
        "join repositories s on s.id = r.repo_id where s.slug = ?", [slug])
    return {row[0]: _Cached(row[1], row[2] or "", row[3] or "release", row[4], bool(row[5])) for row in rows}


def _known_pulls(db: Database, slug: str) -> set[int]:
    repo_id = _repo_id(db, slug)
    if repo_id is None:
        return set()
    return {row[0] for row in db.execute("select number from pulls where repo_id = ?", [repo_id])}


def _cached_release_pulls(db: Database, release_id: int) -> list[int]:
    return [row[0] for row in db.execute(
        "select ep.pr from entry_prs ep join entries e on e.id = ep.entry_id "
        "where ep.release_id = ? order by e.position", [release_id])]


def _stable_count(db: Database, slug: str) -> int:
    row = db.execute("select stable from repositories where slug = ?", [slug]).fetchone()
    return int(row[0] or 0) if row else 0


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _or_unknown(value: int | None) -> str:
    return "unknown" if value is None else str(value)


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
