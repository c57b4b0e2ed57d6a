"""Add the commit messages a fixture's commit-only release-note lines cite (`commits` of a `*.json.gz`).

Why: WIF follows a line that cites a commit and no PR like a PR line, reading the commit's message through
`GET /repos/{o}/{r}/commits/{sha}`; the fake GitHub the benchmarks run serves it from the fixture's `commits`
records (`{"repository", "sha", "message"}`, another repository's commit too), so evaluation runs the shipped path.
Each message is `git show -s --format=%B` of the commit in a git mirror of its repository (the `fetch` tool's
`/work/.mirror/<owner>+<name>/repo`); a commit a mirror lacks is left out (GitHub's 422: the note alone is judged).

    python bench/commit_data.py bench/data/near/socketio__socket.io-client.json.gz \
        --mirror socketio/socket.io-client=/work/.mirror/socketio+socket.io-client/repo \
        --mirror socketio/engine.io-client=/work/.mirror/socketio+engine.io-client/repo
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from indexer.github_refs import split_commit  # noqa: E402
from indexer.release_notes import parse_release_notes  # noqa: E402


def cited_commits(fixture: dict) -> list[tuple[str, str]]:
    """(repository, hash) of every commit a line citing no PR stands for (the first it cites), in release order."""
    repo = fixture["repo"]
    cited: dict[tuple[str, str], None] = {}
    for release in fixture["releases"]:
        for entry in parse_release_notes(release.get("body"), repo):
            if not entry.prs and entry.commits:
                cited[split_commit(entry.commits[0], repo)] = None
    return list(cited)


def message(git_dir: str, sha: str) -> tuple[str, str] | None:
    """(full hash, message) of `sha` in the mirror; None when the mirror does not have it."""
    done = subprocess.run(["git", "--git-dir", git_dir, "show", "-s", "--format=%H%n%B", f"{sha}^{{commit}}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None
    full, _, text = done.stdout.partition("\n")
    return full.strip(), text.rstrip("\n")


def add_commits(fixture: dict, mirrors: dict[str, str]) -> tuple[int, int]:
    """Write `fixture["commits"]` for its cited commits; (found, cited)."""
    records = []
    cited = cited_commits(fixture)
    for repo, sha in cited:
        git_dir = mirrors.get(repo.lower())
        found = message(git_dir, sha) if git_dir else None
        if found is not None:
            records.append({"repository": repo, "sha": found[0], "message": found[1]})
    fixture["commits"] = sorted(records, key=lambda r: (r["repository"], r["sha"]))
    return len(records), len(cited)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fixture", type=Path, help="an <owner>__<name>.json.gz of tests/data/github or bench/data")
    parser.add_argument("--mirror", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
                        help="a git mirror of a repository whose commits the notes cite (repeatable)")
    args = parser.parse_args()
    mirrors = {slug.lower(): path for slug, _, path in (m.partition("=") for m in args.mirror)}
    fixture = json.loads(gzip.decompress(args.fixture.read_bytes()))
    found, cited = add_commits(fixture, mirrors)
    args.fixture.write_bytes(gzip.compress(json.dumps(fixture, sort_keys=True).encode(), mtime=0))
    print(f"{args.fixture}: {found} of {cited} cited commits' messages")


if __name__ == "__main__":
    main()
