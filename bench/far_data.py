"""Build the far holdout's release data (bench/data/far/*.json.gz) from a repository's git history.

Why: every labelled case of tests/data and bench/data is over the same 11 repositories, so nothing measures WIF
on a repository or release-note format it has never seen. GitHub releases are not in a git mirror, so each
release's body is the CHANGELOG section of that version (what these projects publish as the release), its date
the tag's; each PR a note cites is read from its squash or merge commit ("… (#123)" / "Merge pull request #123"):
title = subject, body = commit body, merged_at = commit date, merge_commit_sha = the commit. Written in the
GitHub REST shape of tests/data/github, trimmed to the newest `--releases` stable releases and the PRs they cite.

    python bench/far_data.py getsentry/sentry-go /path/to/sentry-go.git --changelog CHANGELOG.md --releases 60
    python bench/far_data.py getsentry/sentry-unity /path/to/sentry-unity.git --releases 60 --out bench/data/near
    python bench/far_data.py tokio-rs/tokio /path/to/tokio.git --changelog tokio/CHANGELOG.md --tag-prefix tokio- \
        --out bench/data/near

A workspace that tags each crate or package (`tokio-1.38.0`, `tokio-util-0.7.11`) takes `--tag-prefix`: only the
tags of that prefix are the releases, and the prefix stays in the tag name, as GitHub shows it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import zlib
from datetime import UTC, datetime
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "far"
HEADINGS = (
    # keepachangelog / craft "## 0.47.0"; conventional-changelog "## [1.7.9](…/compare/v1.7.8...v1.7.9) (date)",
    # whose minor releases take one "#": "# [1.7.0](…) (date)"; Black's "## Version 26.3.0" (and its two-part
    # pre-releases "## Version 21.12b0", which must end the stable section above them); clog's patch releases take
    # three: hyper's "### v1.10.1 (2026-05-29)" between "## v1.11.0 (…)" and "## v1.10.0 (…)"
    re.compile(r"^#{1,3} (?:Version )?\[?v?(?P<v>\d+\.\d+(?:\.\d+[\w.+-]*|(?:a|b|rc)\d+))\]?"
               r"(?:\([^)\s]*\))?(?: [^\n]*)?$", re.M),
    re.compile(r"^v?(?P<v>\d+\.\d+\.\d+) \([^)\n]*\)\n(?:-{3,}|={3,})$", re.M),  # setext/rst "2.7.0 (…)\n==="
    re.compile(r"^Version (?P<v>\d+\.\d+\.\d+)\n-{3,}$", re.M),  # Pallets' CHANGES.rst: "Version 3.0.2\n-------------"
    # kotlinx.serialization's / express's setext "1.9.0 / 2025-06-27\n===" (pre-releases "1.9.0-RC / …" end a section)
    re.compile(r"^v?(?P<v>\d+\.\d+\.\d+[\w.+-]*) / [^\n]*\n={3,}$", re.M),
)
# X.Y.Z, or the four numbers of Haskell's Package Versioning Policy (haskell-language-server's "## 2.9.0.1",
# tags `2.9.0.1`): before, every release of such a project was read as a pre-release and left out
STABLE = re.compile(r"^\d+\.\d+\.\d+(?:\.\d+)?$")
# a stable-looking version that a heading calls a pre-release in words: Absinthe's "## v1.5.0 (Rc)" / "(Beta)"
PRE_LABEL = re.compile(r"\((?:rc|beta|alpha|pre|preview)\b[^)\n]*\)", re.I)
# `#N <…>`__: reStructuredText (towncrier); :issue:`N` / :pr:`N`: Sphinx roles (aiohttp's towncrier, Pallets);
# cJSON's bare "…, see #886" (its older lines link "see [#546](…/pull/546)")
PR_REF = re.compile(r"(?:\(#|\[#|`#|/pull/|\bPull #|:(?:issue|pr):`|\bsee #)(\d+)\b")


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True).stdout


def sections(text: str) -> list[tuple[str, str]]:
    """(version, body) of every stable version heading, newest first as the file lists them; a pre-release
    heading ("## 0.13.0.dev1", or one that says so in words: "## v1.5.0 (Rc)") ends the section above it and is
    left out."""
    pattern = max(HEADINGS, key=lambda p: len(p.findall(text)))
    marks = list(pattern.finditer(text))
    return [(m["v"], text[m.end():(marks[i + 1].start() if i + 1 < len(marks) else len(text))].strip("\n"))
            for i, m in enumerate(marks) if STABLE.match(m["v"]) and not PRE_LABEL.search(m[0])]


def tag_dates(repo: str, prefix: str = "") -> dict[str, tuple[str, str]]:
    """version → (tag name, ISO date of the tagged commit) for plain `vX.Y.Z` / `X.Y.Z` tags, or with `prefix`
    only `<prefix>X.Y.Z` / `<prefix>vX.Y.Z` (one crate of a workspace: `tokio-1.38.0`, not `tokio-util-0.7.11`)."""
    found: dict[str, tuple[str, str]] = {}
    out = git(repo, "for-each-ref", "refs/tags", "--format=%(refname:short)\t%(*committerdate:iso-strict)"
              "\t%(committerdate:iso-strict)")
    for line in out.splitlines():
        tag, peeled, direct = line.split("\t")
        if not tag.startswith(prefix):
            continue
        version = tag.removeprefix(prefix).removeprefix("v")
        if STABLE.match(version):
            found[version] = (tag, _utc(peeled or direct))
    return found


def _utc(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def pr_commits(repo: str) -> dict[int, dict]:
    """PR number → details from squash ("title (#N)") and merge ("Merge pull request #N from …") commits."""
    pulls: dict[int, dict] = {}
    out = git(repo, "log", "--format=%H%x1f%cI%x1f%s%x1f%b%x1e")
    for record in out.split("\x1e"):
        parts = record.strip("\n").split("\x1f")
        if len(parts) != 4:
            continue
        sha, date, subject, body = parts
        squash = re.search(r"\(#(\d+)\)$", subject)
        merge = re.match(r"Merge pull request #(\d+) from ", subject)
        if squash:
            number, title = int(squash[1]), subject[:squash.start()].rstrip()
        elif merge:
            number, title = int(merge[1]), (body.strip().splitlines() or [subject])[0]
            body = "\n".join(body.strip().splitlines()[1:]).strip()
        else:
            continue
        pulls.setdefault(number, {"number": number, "title": title, "body": body.strip(), "state": "closed",
                                  "merged": True, "merged_at": _utc(date), "merge_commit_sha": sha,
                                  "closes_issues": []})
    return pulls


def build(slug: str, repo: str, changelog: str, count: int, tag_prefix: str = "", rev: str = "HEAD") -> dict:
    text = git(repo, "show", f"{rev}:{changelog}")
    dates = tag_dates(repo, tag_prefix)
    chosen = [(v, body) for v, body in sections(text) if v in dates][:count]
    commits = pr_commits(repo)
    releases, pulls = [], {}
    for version, body in chosen:
        tag, date = dates[version]
        releases.append({"id": zlib.crc32(f"{slug}@{tag}".encode()), "tag_name": tag, "name": version,
                         "body": body, "draft": False, "prerelease": False, "published_at": date,
                         "html_url": f"https://github.com/{slug}/releases/tag/{tag}"})
        for number in map(int, PR_REF.findall(body)):
            if number in commits:
                pulls[str(number)] = {**commits[number], "html_url": f"https://github.com/{slug}/pull/{number}"}
    releases.sort(key=lambda r: str(r["published_at"]), reverse=True)  # ISO dates: text order is time order
    return {"repo": slug, "derived_from": {"git_head": git(repo, "rev-parse", rev).strip(),
                                           "changelog": changelog, "releases": len(releases)},
            "releases": releases, "pulls": dict(sorted(pulls.items(), key=lambda kv: int(kv[0])))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("slug", help="owner/name")
    parser.add_argument("git_dir", help="a clone or bare mirror of the repository")
    parser.add_argument("--changelog", default="CHANGELOG.md")
    parser.add_argument("--releases", type=int, default=60, help="newest stable releases to keep (default 60)")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="directory to write <owner>__<name>.json.gz to (default bench/data/far; the labelled "
                             "in-sample repositories go to bench/data/near)")
    parser.add_argument("--tag-prefix", default="", help="only tags `<prefix>X.Y.Z` are releases (a workspace's "
                                                            "crate, e.g. `tokio-`)")
    parser.add_argument("--rev", default="HEAD", help="the commit to read the CHANGELOG at (a repository that moved "
                                                      "away leaves only a notice at HEAD: socket.io-client)")
    args = parser.parse_args()
    data = build(args.slug, args.git_dir, args.changelog, args.releases, args.tag_prefix, args.rev)
    owner, name = args.slug.split("/")
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / f"{owner}__{name}.json.gz"
    target.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
    print(f"wrote {target}: {len(data['releases'])} releases, {len(data['pulls'])} PRs")


if __name__ == "__main__":
    main()
