"""Monorepos: one repository tags several packages' releases (`@acme/core@1.2.0`, `@acme/ui@1.2.0`); WIF keeps one
package's releases per SDK (indexer/packages.py), over the real indexer, SQLite and the fake GitHub over HTTP."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path

import pytest

from indexer.packages import OWN, MixedPackages, PackageHint, choose, tag_package
from indexer.registry import RegistryError, load_registry
from indexer.schema import open_cache
from indexer.store import ReleaseRecord, RepositoryUpdate, apply_update, write_with_retry
from tests.fakes.github_server import FakeGitHub
from wif_action.cli import main

REPO = "acme/widgets"
CORE, UI = "@acme/core", "@acme/ui"
OLD = "2024-01-{:02d}T00:00:00Z"
PROBLEM = "memory leak in the event queue flush when the app goes to background"


def release(package: str, version: str, body: str, day: int) -> dict:
    return {"tag_name": f"{package}@{version}", "body": body, "published_at": OLD.format(day)}


def interleaved() -> list[dict]:
    """Both packages publish 1.0.0–1.3.0 the same days, newest first; only @acme/ui's 1.2.0 and @acme/core's 1.3.0
    fix the leak, and the other releases change unrelated things."""
    rows = []
    for minor in range(4):
        for package in (CORE, UI):
            fixes = (package, minor) in ((UI, 2), (CORE, 3))
            number = (100 if package == CORE else 200) + minor
            line = ("Fix memory leak in the event queue flush when the app goes to background" if fixes
                    else f"Update the {package.rsplit('/', 1)[-1]} settings page layout {minor}")
            rows.append(release(package, f"1.{minor}.0", f"### Bug Fixes\n\n- {line} (#{number})\n", minor + 1))
    return list(reversed(rows))


def pulls() -> list[dict]:
    return [{"number": number, "title": f"PR {number}", "body": "", "merged": True,
             "merged_at": "2024-01-01T00:00:00Z"} for number in (100, 101, 102, 103, 200, 201, 202, 203)]


@pytest.fixture
def fake(monkeypatch) -> FakeGitHub:
    with FakeGitHub(repos=[REPO]) as github:
        github.add_repo(REPO, interleaved(), pulls())
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        yield github


def registry_file(tmp_path: Path, **entry: object) -> Path:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {REPO: {"aliases": ["widgets"], **entry}}}))
    return path


def run(*args: str) -> tuple[int, dict | None, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--json"])
    text = out.getvalue()
    return code, (json.loads(text) if text.strip() else None), err.getvalue()


def index(db: Path, registry: Path | None) -> tuple[int, dict, str]:
    code, data, err = run("index", "--db", str(db), "--repo", REPO, "--no-unreleased",
                          *(["--registry", str(registry)] if registry else []))
    assert data is not None, err
    return code, data["repos"][0], err


def ask(db: Path, version: str, *extra: str) -> dict:
    code, data, err = run("ask", "--db", str(db), "--repo", REPO, "--version", version, "--problem", PROBLEM,
                          "--engine", "offline", "--quiet", *extra)
    assert code == 0 and data is not None, err
    return data


def tags(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [row[0] for row in conn.execute("select tag from releases order by version_key")]
    finally:
        conn.close()


def table_rows(db: Path) -> dict[str, list]:
    conn = sqlite3.connect(db)
    try:
        return {table: conn.execute(f"select * from {table} order by 1, 2").fetchall()
                for table in ("releases", "entries", "entry_prs", "pr_first_release", "pulls")}
    finally:
        conn.close()


# ------------------------------------------------------------------------------------------- tags and choice
@pytest.mark.parametrize(("tag", "slug", "key"), [
    ("@emotion/react@11.13.5", "emotion-js/emotion", "@emotion/react"),
    ("tokio-util-0.7.11", "tokio-rs/tokio", "tokio-util"),
    ("tokio-1.38.0", "tokio-rs/tokio", OWN),  # the repository's own name
    ("exporters/otlp/v1.2.3", "open-telemetry/opentelemetry-go", "exporters/otlp"),
    ("otel/v1.2.3", "acme/go", "otel"),
    ("v1.2.3", "acme/go", OWN),
    ("8.0.0-rc-1", "acme/sdk", OWN),  # a pre-release's hyphens name no package
    ("release-8.0", "acme/sdk", OWN),  # words.toml tag_words
    ("Name_v2.1", "acme/sdk", "name"),
    ("sentry-cocoa@8.1.0", "getsentry/sentry-cocoa", OWN),
    ("nightly", "acme/sdk", OWN),
])
def test_the_package_a_tag_names(tag: str, slug: str, key: str) -> None:
    assert tag_package(tag, slug) == key


def test_the_package_kept_declared_stored_alone_or_the_repositorys_own() -> None:
    both = [f"{CORE}@1.0.0", f"{UI}@1.0.0", f"{UI}@1.1.0"]
    assert choose(REPO, both, PackageHint(declared="@ACME/core"), None) == CORE
    assert choose(REPO, both, PackageHint(declared=CORE), stored=UI) == CORE  # the registry wins over the cache
    assert choose(REPO, both, PackageHint(), stored=UI) == UI
    assert choose(REPO, [f"{UI}@1.0.0"], PackageHint(), None) == UI  # one package is no monorepo
    assert choose(REPO, [*both, "v2.0.0"], PackageHint(), None) == OWN
    assert choose(REPO, both, PackageHint(names=("@acme/ui", "Widgets")), None) == UI  # an alias names it
    assert choose("tokio-rs/tokio", ["tokio-1.38.0", "tokio-util-0.7.11"], PackageHint(), None) == OWN
    assert choose(REPO, [], PackageHint(), None) == OWN


def test_several_packages_and_nothing_saying_which_is_refused_naming_them() -> None:
    with pytest.raises(MixedPackages) as refused:
        choose(REPO, [f"{CORE}@1.0.0", f"{UI}@1.0.0", f"{UI}@1.1.0"], PackageHint(names=("widgets",)), None)
    assert f"{UI} (2 releases), {CORE} (1 release)" in str(refused.value) and '"package"' in str(refused.value)
    with pytest.raises(MixedPackages, match="none of its release tags names it"):
        choose(REPO, [f"{CORE}@1.0.0"], PackageHint(declared="@acme/cor"), None)


def test_the_registry_declares_the_package(tmp_path: Path) -> None:
    registry = load_registry(registry_file(tmp_path, package=CORE))
    assert registry.package(REPO) == CORE and registry.package_hint(REPO).declared == CORE
    assert "widgets" in registry.package_hint(REPO).names
    assert load_registry(registry_file(tmp_path)).package(REPO) is None
    for bad in ("", 3, ["@acme/core"]):
        with pytest.raises(RegistryError, match="'package' of acme/widgets"):
            load_registry(registry_file(tmp_path, package=bad))


# ------------------------------------------------------------------------------------ indexing and answers
def test_only_the_declared_packages_releases_are_cached_and_answered_from(fake, tmp_path) -> None:
    db = tmp_path / "cache.db"
    code, report, err = index(db, registry_file(tmp_path, package=CORE))
    assert code == 0 and report["error"] is None, err
    assert report["package"] == CORE and report["stable"] == report["new"] == 4
    assert "kept package @acme/core only (not cached: 4 of @acme/ui)" in err
    assert tags(db) == [f"{CORE}@1.{minor}.0" for minor in range(4)]
    answer = ask(db, "v1.1.0")  # as customers type it: resolved to @acme/core's 1.1.0
    prs = {candidate["pr"] for candidate in answer["candidates"]}
    assert answer["outcome"] in ("high", "medium") and 103 in prs
    assert not prs & {200, 201, 202, 203}  # never @acme/ui's fix (#202, in its own 1.2.0, scanned first if mixed)
    assert answer["candidates"][0]["version"] == "1.3.0"


def test_the_release_count_guard_counts_the_packages_releases_only(fake, tmp_path) -> None:
    db = tmp_path / "cache.db"
    assert index(db, registry_file(tmp_path, package=CORE))[0] == 0
    assert ask(db, "1.0.0", "--max-releases", "3")["outcome"] != "too_old"  # three of @acme/core after 1.0.0
    assert ask(db, "1.0.0", "--max-releases", "2")["outcome"] == "too_old"  # (six with @acme/ui's)


def test_an_alias_naming_one_package_picks_it_without_a_declaration(fake, tmp_path) -> None:
    db = tmp_path / "cache.db"
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {REPO: {"aliases": [UI]}}}))
    code, report, err = index(db, path)
    assert code == 0 and report["package"] == UI, err
    assert tags(db) == [f"{UI}@1.{minor}.0" for minor in range(4)]


def test_several_packages_without_a_declaration_are_refused_and_nothing_is_cached(fake, tmp_path) -> None:
    db = tmp_path / "cache.db"
    code, report, err = index(db, registry_file(tmp_path))
    assert code == 1 and report["package"] is None
    assert "acme/widgets releases 2 packages from one repository (@acme/core (4 releases), @acme/ui (4 releases))" \
        in report["error"]
    assert '"package": "<name>"' in report["error"] and "Traceback" not in err
    assert not db.exists() or tags(db) == []


def test_rerunning_the_index_is_idempotent_and_new_releases_of_other_packages_are_not_cached(fake, tmp_path) -> None:
    db, registry = tmp_path / "cache.db", registry_file(tmp_path, package=CORE)
    assert index(db, registry)[0] == 0
    before = table_rows(db)
    fake.reset_counts()
    code, report, _ = index(db, registry)
    assert code == 0 and (report["new"], report["updated"], report["stable"]) == (0, 0, 4)
    assert {entry["status"] for entry in fake.log} == {304} and table_rows(db) == before

    fake.add_release(REPO, release(UI, "1.4.0", "- Fix the ui (#204)\n", 8))
    code, report, err = index(db, registry)
    assert code == 0 and (report["new"], report["updated"], report["stable"]) == (0, 0, 4), err
    fake.add_release(REPO, release(CORE, "1.4.0", "- Fix the core (#104)\n", 9))
    code, report, _ = index(db, registry)
    assert (report["new"], report["stable"]) == (1, 4 + 1)
    assert [tag for tag in tags(db) if "1.4.0" in tag] == [f"{CORE}@1.4.0"]
    again = table_rows(db)
    assert index(db, registry)[0] == 0 and table_rows(db) == again


def test_a_changed_declaration_reads_every_page_again_and_keeps_the_new_package(fake, tmp_path) -> None:
    db = tmp_path / "cache.db"
    assert index(db, registry_file(tmp_path, package=CORE))[0] == 0
    code, report, _ = index(db, registry_file(tmp_path, package=UI))
    assert code == 0 and report["package"] == UI and report["new"] == 4
    assert tags(db) == [f"{UI}@1.{minor}.0" for minor in range(4)]


def test_a_cache_from_before_packages_is_read_and_then_cleaned_without_a_request(fake, tmp_path) -> None:
    """A cache written before m012 (no `repositories.package`, every package's releases): `wif ask` still reads
    it, and the next index run deletes the other package's releases though GitHub answers 304."""
    db, registry = tmp_path / "cache.db", registry_file(tmp_path, package=CORE)
    assert index(db, registry)[0] == 0
    cache = open_cache(db)
    ui = [ReleaseRecord(id=9_000 + minor, tag=f"{UI}@1.{minor}.0", name=None, body=f"- Fix the ui (#{200 + minor})\n",
                        draft=False, prerelease=False, published_at=OLD.format(minor + 1), url=None)
          for minor in range(4)]
    write_with_retry(cache, lambda: apply_update(cache, RepositoryUpdate(slug=REPO, releases=ui, etag=None)),
                     on_busy=lambda _: None)
    cache.execute("alter table repositories drop column package")
    cache.execute("delete from _sqlite_migrations where name = 'm012_repository_package'")
    cache.conn.close()
    assert len(tags(db)) == 8
    assert ask(db, "1.0.0")["outcome"] in ("high", "medium", "no_result")  # an older schema still answers

    fake.reset_counts()
    code, report, err = index(db, registry)
    assert code == 0 and report["package"] == CORE, err
    assert {entry["status"] for entry in fake.log} == {304}
    assert "4 cached releases of them deleted" in err and report["stable"] == 4
    assert tags(db) == [f"{CORE}@1.{minor}.0" for minor in range(4)]
    conn = sqlite3.connect(db)
    assert conn.execute("select count(*) from entry_prs where pr >= 200").fetchone()[0] == 0
    assert conn.execute("select package from repositories").fetchone()[0] == CORE
    conn.close()


def test_a_dormant_package_behind_its_siblings_releases_costs_no_extra_pages(tmp_path, monkeypatch) -> None:
    """Pages of other packages' releases end the paging like the package's own cached ones, once older than the
    refresh window; on the package's first read every page is read."""
    siblings = [release(UI, f"2.{minor}.0", f"- ui change {minor}\n", minor + 3) for minor in range(9, -1, -1)]
    own = [release(CORE, f"1.{minor}.0", f"- core change {minor}\n", minor + 1) for minor in (1, 0)]
    with FakeGitHub(repos=[REPO], per_page_max=2) as github:
        github.add_repo(REPO, [*siblings, *own])
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        db, registry = tmp_path / "cache.db", registry_file(tmp_path, package=CORE)
        code, report, _ = index(db, registry)
        assert code == 0 and report["requests"] == 6 and report["stable"] == 2  # 12 releases, 2 a page
        github.add_release(REPO, release(UI, "2.10.0", "- ui change 10\n", 9))  # old: the page settles at once
        code, report, _ = index(db, registry)
        assert code == 0 and report["requests"] == 1 and (report["new"], report["stable"]) == (0, 2)
        github.add_release(REPO, {"tag_name": f"{UI}@2.11.0", "body": "- ui change 11\n"})  # published now
        code, report, _ = index(db, registry)
        assert code == 0 and report["requests"] == 2 and report["stable"] == 2
        github.add_release(REPO, {"tag_name": f"{CORE}@1.2.0", "body": "- core change 2 (#7)\n"})
        code, report, _ = index(db, registry)
        assert code == 0 and report["requests"] == 2 and (report["new"], report["stable"]) == (1, 3)
