"""What one run has read, skipped and concluded — the evidence behind the answer.

Why a ledger: every version, PR and URL in an answer must be one the run
actually read. Subtasks record what they read here; the answer is checked
against it before anything is shown.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from indexer.github_refs import COMMIT_MENTION, PR_MENTION, commit_mentions, looks_like_commit
from indexer.versions import VERSION_IN_TEXT
from wif_action.models import Skipped


@dataclass
class Journal:
    deadline: float = field(default_factory=lambda: time.monotonic() + 240)
    skipped: list[Skipped] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    versions_read: set[str] = field(default_factory=set)
    prs_read: set[int] = field(default_factory=set)
    urls_read: set[str] = field(default_factory=set)
    commits_read: set[str] = field(default_factory=set)

    def skip(self, step: str, reason: str) -> None:
        entry = Skipped(step=step, reason=reason[:300])
        if entry not in self.skipped:
            self.skipped.append(entry)

    def note(self, line: str) -> None:
        self.trace.append(line)

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def seconds_left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def read_version(self, *versions: str | None) -> None:
        self.versions_read.update(v.lstrip("vV") for v in versions if v)

    def read_pr(self, number: int | None, url: str | None = None) -> None:
        if number:
            self.prs_read.add(int(number))
        if url:
            self.urls_read.add(url)

    def read_commit(self, sha: str, url: str) -> None:
        """A commit a release-note line cited (the line was read from the cache), and the link built from it."""
        self.commits_read.add(sha)
        self.urls_read.add(url)

    def commit_read(self, sha: str, also: tuple[str, ...] = ()) -> bool:
        """Whether the run read this commit (or it is one of `also`), by any length of its hash: "92e109c" names
        the read full SHA, and a full SHA the one a line cites by its short hash."""
        sha = sha.lower()
        return any(read.lower().startswith(sha) or sha.startswith(read.lower()) for read in (*self.commits_read, *also))

    def scrub_unread(self, text: str, allowed_prs: tuple[int, ...] = (), allowed_commits: tuple[str, ...] = ()) -> str:
        """`text` with every version, PR number and commit hash the run never read blanked to "…" (`allowed_*`:
        those the judged line cites).

        Why: an engine's reason may quote a PR title verbatim, and a hostile title ("…answer v99.0.0
        PR #1 (commit 1a2b3c4)…") must not reach people as if WIF said it; the offline engine's reasons get the
        same."""
        def version(match: re.Match[str]) -> str:
            return match.group(0) if match.group(1).lstrip("vV") in self.versions_read else "…"

        def pr(match: re.Match[str]) -> str:
            number = int(match.group(1))
            return match.group(0) if number in self.prs_read or number in allowed_prs else "…"

        def commit(match: re.Match[str]) -> str:
            sha = match.group(1)
            return "…" if looks_like_commit(sha) and not self.commit_read(sha, allowed_commits) else match.group(0)

        return COMMIT_MENTION.sub(commit, PR_MENTION.sub(pr, VERSION_IN_TEXT.sub(version, text)))

    def unread_claims(self, text: str, quoted: str = "") -> list[str]:
        """Versions, PR numbers or commit hashes named in `text` that the run never read (an engine made them up).

        `quoted` is short evidence the text may cite verbatim (a PR title, the release-note line, the PRs and
        commits it cites).
        """
        quoted_versions = set(VERSION_IN_TEXT.findall(quoted))
        quoted_prs = set(PR_MENTION.findall(quoted))
        quoted_commits = commit_mentions(quoted)
        claims = [f"version {v}" for v in VERSION_IN_TEXT.findall(text)
                  if v.lstrip("vV") not in self.versions_read and v not in quoted_versions]
        claims += [f"PR #{n}" for n in PR_MENTION.findall(text) if int(n) not in self.prs_read and n not in quoted_prs]
        claims += [f"commit {sha}" for sha in dict.fromkeys(commit_mentions(text))
                   if not self.commit_read(sha, tuple(quoted_commits))]
        return claims
