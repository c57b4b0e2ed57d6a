"""Draw the candidate lines a bench/data/near repository's cases are written from, in a fixed random order.

Why: a labelled case must come from the data, not from what WIF happens to answer; drawing the lines with a
fixed seed before anyone runs WIF on them (as bench/data/far was made) keeps the choice honest and repeatable.
Two pools, each shuffled with `random.Random(seed)`:

- own: a Fixes-style entry of one of the host's releases R citing exactly one PR; the customer's version is a
  stable release 1–8 before R (drawn with the same generator);
- bundled: a Fixes-style entry citing one PR of a bundled SDK's release B (tests/data/github) that a bump line of
  host release R brings in (B in the bump's range, which starts, as the scan's does, at what the previous stable
  host release shipped when that is older or the line names no from-version; no earlier host release bundling
  B); the customer's version is
  the host release 1–3 before R (the labeller checks it does not bundle B yet: bench/verify_cases.py).

The labeller walks each list in order, keeps a line when it names a symptom a customer can report (no build-only,
internal or vague line, none the customer's release could not have had), writes problem, message and label, and
only then runs WIF.

    python bench/near_draw.py getsentry/sentry-unity --seed 21 [--top 30]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from packaging.version import Version  # noqa: E402

from bench.labelled import fixture_dir  # noqa: E402
from indexer.bumps import bundled_name, parse_bumps  # noqa: E402
from indexer.registry import load_registry  # noqa: E402
from indexer.release_notes import parse_release_notes  # noqa: E402
from indexer.versions import parse_tag  # noqa: E402
from tests.fakes.github_server import load_repo_fixture  # noqa: E402

FIX_SECTIONS = ("fix",)


def stable(repo: str) -> list[dict]:
    """Stable releases, oldest first, with their parsed version."""
    data = load_repo_fixture(repo, fixture_dir())
    found = []
    for release in data["releases"]:
        version = parse_tag(release["tag_name"])
        if version is not None and not release.get("prerelease") and not version.is_prerelease:
            found.append({**release, "version": version})
    return sorted(found, key=lambda r: r["version"])


def fix_lines(release: dict, repo: str) -> list[tuple[str, int]]:
    """(text, PR) of the entries of a Fixes-style section citing exactly one PR."""
    return [(e.text, e.prs[0]) for e in parse_release_notes(release.get("body"), repo)
            if e.section.lower().startswith(FIX_SECTIONS) and len(e.prs) == 1]


def own_pool(repo: str, rng: random.Random) -> list[str]:
    releases = stable(repo)
    pool = [(i, text, pr) for i, r in enumerate(releases) if i > 0 for text, pr in fix_lines(r, repo)]
    rng.shuffle(pool)
    out = []
    for i, text, pr in pool:
        user = releases[max(0, i - rng.randint(1, 8))]
        out.append(f"own  R={releases[i]['tag_name']} V={user['tag_name']} #{pr}: {text[:160]}")
    return out


def bundled_pool(repo: str, rng: random.Random) -> list[str]:
    registry = load_registry()
    targets = registry.bundles(repo)
    releases = stable(repo)
    seen: dict[str, set[str]] = {}
    shipped: dict[str, Version] = {}  # per bundled repository: the newest version an earlier host release bumped to
    pool = []
    for i, host in enumerate(releases):
        shipped_before = dict(shipped)
        for entry in parse_release_notes(host.get("body"), repo):
            for bump in parse_bumps(entry.text, targets):
                target = targets.get(bundled_name(bump.name))
                if not target or bump.to_version is None:
                    continue
                shipped[target] = max(bump.to_version, shipped.get(target, bump.to_version))
                # as the scan does (bundled_sdks._start): from what the previous release shipped, when older
                known = [v for v in (bump.from_version, shipped_before.get(target)) if v is not None]
                if not known or i == 0:
                    continue
                try:
                    bundled = stable(target)
                except FileNotFoundError:
                    continue
                for b in bundled:
                    if min(known) < b["version"] <= bump.to_version and \
                            b["tag_name"] not in seen.setdefault(target, set()):
                        seen[target].add(b["tag_name"])
                        pool += [(i, target, b["tag_name"], text, pr) for text, pr in fix_lines(b, target)]
    rng.shuffle(pool)
    out = []
    for i, target, via, text, pr in pool:
        user = releases[max(0, i - rng.randint(1, 3))]
        out.append(f"bund R={releases[i]['tag_name']} V={user['tag_name']} via {target} {via} #{pr}: {text[:140]}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", help="owner/name of a bench/data/near repository")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--top", type=int, default=30, help="lines to print per pool")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("\n".join(own_pool(args.repo, rng)[:args.top]))
    print("\n".join(bundled_pool(args.repo, rng)[:args.top]))


if __name__ == "__main__":
    main()
