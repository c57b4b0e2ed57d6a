"""What one repository's indexing pass did: the `--json` summary and the progress line `wif index` prints."""

from __future__ import annotations

from dataclasses import dataclass, field

from indexer.packages import shown
from indexer.release_notes import PARSER_VERSION


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


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _or_unknown(value: int | None) -> str:
    return "unknown" if value is None else str(value)
