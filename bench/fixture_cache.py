"""Build release caches straight from the GitHub fixtures, through `indexer.store` (no HTTP).

Why not `wif index` against the fake: the benchmarks need many caches, some with
a repository copied under other names (to grow the cache), and every PR's
details cached; writing the fixture data through the store is the same code
that `wif index` ends in, without the rate limit of a real or fake API.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.labelled import fixture_dir  # noqa: E402
from indexer.schema import open_cache  # noqa: E402
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry  # noqa: E402
from tests.fakes.github_server import available_repos, load_repo_fixture  # noqa: E402
from wif_action.tools.term_index import refresh  # noqa: E402


def release_records(fixture: dict) -> list[ReleaseRecord]:
    return [
        ReleaseRecord(id=int(r["id"]), tag=r["tag_name"], name=r.get("name"), body=r.get("body"),
                      draft=bool(r.get("draft")), prerelease=bool(r.get("prerelease")),
                      published_at=r.get("published_at"), url=r.get("html_url"))
        for r in fixture["releases"]
    ]


def pull_rows(fixture: dict, slug: str) -> list[dict]:
    return [
        {"number": int(p["number"]), "title": p.get("title") or "", "body": p.get("body") or "",
         "state": p.get("state") or "", "merged": int(bool(p.get("merged") or p.get("merged_at"))),
         "merged_at": p.get("merged_at"), "merge_commit_sha": p.get("merge_commit_sha"),
         "url": (p.get("html_url") or "").replace(fixture["repo"], slug)
         or f"https://github.com/{slug}/pull/{p['number']}"}
        for p in fixture.get("pulls", {}).values()
    ]


def add_repository(db, source_repo: str, slug: str | None = None, *, id_offset: int = 0,
                   pulls: bool = True, data_dir: Path | None = None) -> None:
    """Write one fixture repository (of `data_dir`, default tests/data/github) into the cache, optionally under
    another slug (release ids shifted)."""
    fixture = load_repo_fixture(source_repo, data_dir)
    slug = slug or fixture["repo"]
    records = release_records(fixture)
    for record in records:
        record.id += id_offset
        if record.url:
            record.url = record.url.replace(fixture["repo"], slug)
    update = RepositoryUpdate(slug=slug, releases=records, etag=None, pulls=pull_rows(fixture, slug) if pulls else [])
    write_with_retry(db, lambda: apply_update(db, update), on_busy=lambda message: None)


def build_cache(path: str | Path, repos: Iterable[tuple[str, str]], *, pulls: bool = True,
                data_dir: Path | None = None, terms: bool = True) -> Path:
    """A fresh cache at `path` holding (fixture repo, slug) pairs; copies get distinct release ids.

    `terms=False` leaves out the term counts (about half the build): for readers of releases, notes and PRs only
    (bench/verify_cases.py), never for the judge, which would recompute them on every question."""
    path = Path(path)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    db = open_cache(path, create=True)
    for copy, (source, slug) in enumerate(repos):
        add_repository(db, source, slug, id_offset=copy * 10_000_000_000, pulls=pulls, data_dir=data_dir)
    if terms:
        refresh(db.conn)  # the term counts `wif index` stores
    db.conn.close()
    return path


def all_fixture_repos(data_dir: Path | None = None) -> list[str]:
    return available_repos(data_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description="Build a release cache of every labelled repository (releases, "
                                                 "notes, PR details and term counts), as `wif index` would: "
                                                 "tests/data/github and bench/data/near.")
    parser.add_argument("target", nargs="?", default="cache.db", help="cache file to (re)write (default: cache.db)")
    parser.add_argument("--without-near", action="store_true", help="tests/data/github's repositories only")
    args = parser.parse_args()
    data_dir = fixture_dir(not args.without_near)
    repos = available_repos(data_dir)
    build_cache(args.target, [(repo, repo) for repo in repos], data_dir=data_dir)
    print(f"wrote {args.target}: {len(repos)} repositories")


if __name__ == "__main__":
    main()
