"""GitHub references, parsed and written one way: issue/PR URLs, `owner/repo#N`, PR and commit mentions.

Why one home: the extractor, the link checker, the OpenAI engine's claim check and the
offline extractor each had a regex for "a GitHub issue or PR URL" that disagreed on case,
`http`, `www.` and trailing fragments — a link one step accepted, the next ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GITHUB_WEB = "https://github.com"
_OWNER_REPO = r"[\w.-]+/[\w.-]+"
# An issue or pull request URL anywhere in text: case, http(s) and `www.` as people paste them.
ISSUE_OR_PR_URL = re.compile(rf"https?://(?:www\.)?github\.com/({_OWNER_REPO})/(issues|pull)/(\d+)", re.IGNORECASE)
# Any github.com URL (a link an engine may name).
GITHUB_URL = re.compile(r"^https?://(?:www\.)?github\.com/\S+$", re.IGNORECASE)
# A PR or issue number as notes and reasons write it: #123, PR 123, PR #123, /pull/123, /issues/123.
PR_MENTION = re.compile(r"(?:#|\bPR\s*#?|/pull/|/issues/)(\d+)\b", re.IGNORECASE)
# A commit hash as notes, reasons and links write it: 7 to 40 hex characters standing alone ("92e109c",
# "/commit/92e109c…"), not a group of a UUID ("550e8400-e29b-…"); `looks_like_commit` keeps those that look like a hash.
COMMIT_MENTION = re.compile(r"(?<![0-9a-z])(?<![0-9a-f]-)([0-9a-f]{7,40})(?![0-9a-z])(?!-[0-9a-f])", re.IGNORECASE)
# How long an abbreviated hash is written: git's default 7 grows to ~12 in the largest repositories. Longer runs
# short of 40 are other ids a question or a reason quotes: 16 (a span id), 32 (a Sentry event id, a trace id, MD5).
MAX_ABBREVIATED = 12


def looks_like_commit(token: str) -> bool:
    """A full 40-hex SHA, or an abbreviation (7 to 12) with a digit and a letter ("92e109c"; "deadbeef" is a word,
    "1234567" a number), as the release-note parser reads them. Why not any length: a reason quoting the
    customer's event id was read as a commit the run never read, so the verified answer was demoted."""
    if len(token) == 40:
        return True
    return len(token) <= MAX_ABBREVIATED and any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def commit_mentions(text: str) -> list[str]:
    """The commit hashes `text` names (`COMMIT_MENTION`, `looks_like_commit`), lower-cased."""
    tokens = (match.group(1).lower() for match in COMMIT_MENTION.finditer(text))
    return [token for token in tokens if looks_like_commit(token)]


def commit_ref(repo: str, sha: str) -> str:
    """`owner/repo@sha`: how a release-note line's commit of *another* repository is stored among the line's commits
    (`entries.commits`), beside this repository's bare hashes. Why: socket.io-client's notes cite engine.io-client's
    commits for the fixes it ships from there; the answer must link that repository's commit, not a 404 here."""
    return f"{repo}@{sha}"


def split_commit(ref: str, home: str) -> tuple[str, str]:
    """(repository, hash) of a stored commit (`commit_ref`): a bare hash is a commit of `home`, the line's own."""
    repo, at, sha = ref.rpartition("@")
    return (repo, sha) if at and repo else (home, ref)


@dataclass(frozen=True)
class GitHubLink:
    """An issue or PR of a repository; `url` is the canonical form (no query, fragment or case quirks)."""

    repo: str
    kind: str  # "issues" or "pull"
    number: int

    @property
    def url(self) -> str:
        return f"{GITHUB_WEB}/{self.repo}/{self.kind}/{self.number}"


def parse_link(text: str) -> GitHubLink | None:
    """The issue/PR that a URL names, or None when `text` does not start with one."""
    match = ISSUE_OR_PR_URL.match(text.strip())
    return GitHubLink(match.group(1), match.group(2).lower(), int(match.group(3))) if match else None


def find_links(text: str) -> list[GitHubLink]:
    """Every issue/PR URL in `text`, canonical, first occurrence first."""
    found = (GitHubLink(m.group(1), m.group(2).lower(), int(m.group(3))) for m in ISSUE_OR_PR_URL.finditer(text))
    return list(dict.fromkeys(found))


def format_ref(repo: str, number: int) -> str:
    """`owner/repo#N`, how answers and traces name a PR of any repository."""
    return f"{repo}#{number}"


def pr_url(repo: str, number: int) -> str:
    return f"{GITHUB_WEB}/{repo}/pull/{number}"


def issue_url(repo: str, number: int) -> str:
    return f"{GITHUB_WEB}/{repo}/issues/{number}"


def compare_url(repo: str, base: str, head: str) -> str:
    return f"{GITHUB_WEB}/{repo}/compare/{base}...{head}"
