"""Check a cases file's expected answers against the release cache (no network).

Usage: python bench/verify_cases.py [CASES ...] [--db cache.db.example]
       python bench/verify_cases.py                       # the holdout and every bench/data/near cases file
       python bench/verify_cases.py bench/data/far/cases.jsonl --data bench/data/far   # the far holdout

Cases over a bench/data/near repository are checked against a cache of every labelled repository (tests/data/github
and bench/data/near, bench/labelled.py), so a hybrid's bundled fix is checked against the bundled SDK's releases.

For each `fix`/`feature` case: the customer's version V and the fix release R are stable releases of the
repository, R comes after V, the expected PR is cited by an entry of R and by no stable release up to V
or between V and R. For `already_latest`: V is the newest stable release. For `already_has_fix`: each
`must_not_claim` PR first ships at or before V. For `bundled_fix`: the expected PR first ships in the bundled
SDK's release `via` (as WIF reads a release's PRs: a backport on an older line published after a release is not in
it), which V does not bundle yet and R is the first release to bundle (through its notes' bump lines).
For `unreleased_fix`: the expected PR first ships in one of the `unreleased_newest` newest stable releases (the
ones the fake GitHub withholds), and V is not one of them. Why: a hand- or helper-written case whose
answer the data does not support measures nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.labelled import labelled_db, near_case_files, near_repos  # noqa: E402
from wif_action.models import Release  # noqa: E402
from wif_action.tools.cache import SqliteReleaseCache  # noqa: E402

CHECKED = ("fix", "feature", "already_has_fix", "already_latest", "bundled_fix", "unreleased_fix")


def problems(case: dict, cache: SqliteReleaseCache) -> list[str]:
    """What in the case the cache contradicts (empty when it holds; a never-fixed `no_result` case names no
    release to check: its evidence says which releases were read)."""
    repo, expect = case["repo"], case["expect"]
    if case["category"] not in CHECKED:
        return []
    user = cache.find_release(repo, case["version"])
    if user is None or not user.stable:
        return [f"version {case['version']} is not a stable release"]
    if case["category"] == "already_latest":
        newest = cache.latest_stable(repo)
        return [] if newest is not None and newest.version_key == user.version_key else \
            [f"{user.version} is not the newest stable release ({newest.version if newest else 'none'})"]
    if case["category"] == "already_has_fix":
        return [f"{bad.get('pr') or bad.get('commit')} ships after {user.version}"
                for bad in expect.get("must_not_claim", []) if not _user_has(cache, repo, bad, user)]
    if case["category"] == "unreleased_fix":
        return unreleased_problems(case, cache, user)
    fixed = cache.find_release(repo, expect["fixed_in"])
    if fixed is None or not fixed.stable or fixed.version_key <= user.version_key:
        return [f"fix release {expect['fixed_in']} is not a stable release after {user.version}"]
    if case["category"] == "bundled_fix":
        return bundled_problems(case, cache, user, fixed)
    found = []
    for pr in expect.get("prs", []):
        first = cache.first_stable_release_with_pr(repo, pr)
        if first is None or first.version_key != fixed.version_key:
            found.append(f"#{pr} first ships in {first.version if first else 'no stable release'}")
    for sha in expect.get("commits", []):
        first = first_stable_release_with_commit(cache, repo, sha)
        if first is None or first.version_key != fixed.version_key:
            found.append(f"commit {sha[:7]} first ships in {first.version if first else 'no stable release'}")
    return found


def unreleased_problems(case: dict, cache: SqliteReleaseCache, user: Release) -> list[str]:
    """A fix merged but in no published release: the fake GitHub withholds the newest `unreleased_newest` stable
    releases (their notes become CHANGELOG.md's Unreleased section), so the expected PR must first ship in one of
    them, and the customer's release must be one that stays published."""
    repo, expect, count = case["repo"], case["expect"], case.get("unreleased_newest") or 0
    stable = cache.stable_releases(repo)
    if not 0 < count < len(stable):
        return [f"unreleased_newest {count} withholds no release or every release"]
    oldest_withheld = stable[-count]
    found = [] if expect.get("fixed_in") is None else ["fixed_in of an unreleased fix must be null"]
    if user.version_key >= oldest_withheld.version_key:
        found.append(f"{user.version} is withheld (one of the newest {count}), not a published release")
    for pr in expect.get("prs", []):
        first = cache.first_stable_release_with_pr(repo, pr)
        if first is None or first.version_key < oldest_withheld.version_key:
            found.append(f"#{pr} first ships in {first.version if first else 'no stable release'}, "
                         f"not in a withheld release")
    return found


def first_stable_release_with_commit(cache: SqliteReleaseCache, repo: str, sha: str) -> Release | None:
    """The oldest stable release with an entry citing `sha` (either SHA a prefix of the other): a line that
    cites a commit and no PR."""
    want = sha.lower()
    for release in cache.stable_releases(repo):
        if any(c.lower().startswith(want) or want.startswith(c.lower())
               for entry in cache.entries([release.id]) for c in entry.commit_hashes if len(c) >= 7):
            return release
    return None


def _user_has(cache: SqliteReleaseCache, repo: str, fix: dict, user: Release) -> bool:
    if fix.get("pr") is not None:
        return cache.user_has_pr(repo, fix["pr"], user)
    first = first_stable_release_with_commit(cache, repo, fix["commit"])
    return first is not None and first.version_key <= user.version_key


def bundled_problems(case: dict, cache: SqliteReleaseCache, user: Release, fixed: Release) -> list[str]:
    """A bundled SDK's fix: its PR first ships in the bundled release `via`; the customer's release bundles an
    older one, and `fixed_in` is the first release of the customer's SDK whose bump brings `via` in."""
    repo, expect = case["repo"], case["expect"]
    bundled, name_version = expect["pr_repo"], expect["via"].split()
    via = cache.find_release(bundled, name_version[-1])
    if via is None or not via.stable:
        return [f"{expect['via']} is not a stable release of {bundled}"]
    found = []
    releases = cache.stable_releases(bundled)
    before_via = [r for r in releases if r.version_key < via.version_key]
    for pr in expect["prs"]:
        # "carries" as WIF reads it (cache.prs_user_has): a release at or below, published no later; a backport
        # on an older line (8.43.3 published after 8.44.0) is in neither 8.44.0 nor 8.44.1
        if not cache.user_has_pr(bundled, pr, via):
            first = cache.first_stable_release_with_pr(bundled, pr)
            found.append(f"{bundled}#{pr} first ships in {first.version if first else 'no stable release'}")
        elif before_via and cache.user_has_pr(bundled, pr, before_via[-1]):
            found.append(f"{bundled}#{pr} already ships in {before_via[-1].version}")
    has = cache.bundled_key_at(repo, bundled, user.version_key, inclusive=True)
    if has is not None and has >= via.version_key:
        found.append(f"{user.version} already bundles {expect['via']}")
    first_host = cache.first_release_bundling(repo, bundled, via.version_key)
    if first_host is None or first_host.version_key != fixed.version_key:
        found.append(f"{expect['via']} is first bundled by {first_host.version if first_host else 'no release'}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", type=Path,
                        default=[ROOT / "bench" / "data" / "holdout_cases.jsonl", *near_case_files()])
    parser.add_argument("--db", help="release cache (default: cache.db.example, or a cache of every labelled "
                                     "repository when a case is over a bench/data/near one)")
    parser.add_argument("--data", help="check against a cache built from this directory's fixtures instead of --db")
    args = parser.parse_args()
    cases = [json.loads(line) for path in args.cases for line in path.read_text().splitlines() if line.strip()]
    db = args.db or str(ROOT / "cache.db.example")
    if args.data:
        from bench.quality_report import build_db
        db = build_db(Path(args.data))
    elif args.db is None and {c.get("repo") for c in cases} & set(near_repos()):
        db = str(labelled_db())
    cache = SqliteReleaseCache.open(db)
    checked = [c for c in cases if c["category"] in CHECKED and c.get("repo")]
    failed = 0
    for case in checked:
        for problem in problems(case, cache):
            failed += 1
            print(f"{case['id']}: {problem}")
    print(f"{len(checked)} cases checked, {failed} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
