"""Follow bundled-SDK bumps during the scan: a hybrid SDK's release brings in a bundled SDK's releases.

Why: React Native, Flutter, .NET, Unity and Android ship other SDKs inside them; a crash fixed in
sentry-cocoa 8.13.1 reaches a React Native customer in the release whose notes say only
"Bump Cocoa SDK from v8.13.0 to v8.14.2". When a release of the batch bumps a bundled SDK from A to B
and that SDK's repository is cached, its stable releases in (A, B] add their entries to the batch,
marked with the host release (`Entry.bundled_in`). A bump without a "from" starts at the version the
previous stable host release bundled; one whose versions do not parse is noted and never followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexer.registry import package_key
from indexer.release_notes import line_scopes
from indexer.versions import display_version
from wif_action import lexicon
from wif_action.models import BundleBump, Entry, Release
from wif_action.platforms import repository_platforms
from wif_action.problem_kind import feature_sections
from wif_action.run_context import Run


@dataclass
class BundleFollower:
    """Per-run state: which bundled releases were already brought in, and what could not be followed."""

    run: Run
    repo: str
    user_release: Release
    features: bool = False
    platforms: frozenset[str] = frozenset()  # the platforms the customer's problem is on (may be none)
    _followed: set[int] = field(default_factory=set)
    _user_has: dict[str, str | None] = field(default_factory=dict)
    _missing: dict[str, list[str]] = field(default_factory=dict)
    _off_platform: dict[str, list[str]] = field(default_factory=dict)

    def entries(self, batch: list[Release]) -> list[Entry]:
        """Entries of the bundled releases the batch's bumps bring in (cache reads only)."""
        found: list[Entry] = []
        for bump in self.run.tools.cache.bundle_bumps([release.id for release in batch]):
            found += self._follow(bump)
        return found

    def report(self) -> None:
        """Say, once, which bumps were not followed: the bundled SDK is not cached, or is for other platforms."""
        for bundled, versions in self._off_platform.items():
            listed, wanted = _listed(versions), ", ".join(sorted(self.platforms))
            self.run.journal.note(f"Bumps of {_short(bundled)} in {listed} not followed: it ships for other "
                                  f"platforms than the problem's ({wanted}).")
        for bundled, versions in self._missing.items():
            listed = _listed(versions)
            self.run.journal.skip(f"follow bumps of {_short(bundled)}",
                                  f"release notes of {_short(bundled)} not in the cache; bumps in {listed} "
                                  "not followed")

    def _follow(self, bump: BundleBump) -> list[Entry]:
        host = display_version(bump.release.tag)
        bundled, journal, cache = bump.bundled_repo, self.run.journal, self.run.tools.cache
        if bundled is None or bundled == self.repo:
            return []
        if not self._on_the_platform(bundled, bump):
            return []
        if not cache.has_repository(bundled):
            self._missing.setdefault(bundled, []).append(host)
            return []
        start = _start(bump.from_key, cache.bundled_key_at(self.repo, bundled, bump.release.version_key,
                                                           inclusive=False))
        if bump.to_key is None or start is None:
            journal.note(f"{host}: \u201c{bump.text[:160]}\u201d does not say which {_short(bundled)} versions it "
                         "moved between; not followed.")
            return []
        releases = [r for r in cache.stable_between(bundled, start, bump.to_key)
                    if r.id not in self._followed and not self._user_has_it(bundled, r)]
        self._followed.update(r.id for r in releases)
        if not releases:
            return []
        journal.read_version(*(r.version for r in releases), *(display_version(r.tag) for r in releases))
        entries = self._shipped(bundled, cache.entries([r.id for r in releases], self._sections()), host)
        for entry in entries:  # read just now for this bump: marked in place (replace() costs ~6 µs an entry)
            entry.bundled_in, entry.bump = bump.release, bump.text
        journal.note(f"{host} bundles {_short(bundled)} {_span(releases)} (\u201c{bump.text[:160]}\u201d): "
                     f"{len(entries)} entries of {len(releases)} releases judged with {host}'s own.")
        return entries

    def _shipped(self, bundled: str, entries: list[Entry], host: str) -> list[Entry]:
        """The entries not scoped to a package of `bundled` the customer's SDK does not ship (registry `ships`):
        "fix(nextjs): …" cannot reach an Electron app, which ships @sentry/browser and @sentry/node. A line with no
        scope, or one naming what the registry does not know as a package of `bundled` ("fix(core)"), stays."""
        ships = self.run.registry.shipped_packages(self.repo, bundled)
        if ships is None:
            return entries
        packages = self.run.registry.package_names(bundled)
        kept, left = [], set()
        for entry in entries:
            scopes = [package_key(scope) for scope in line_scopes(entry.text)]
            if scopes and all(scope in packages and scope not in ships for scope in scopes):
                left.update(scopes)
            else:
                kept.append(entry)
        if left:
            self.run.journal.note(f"{host}: {len(entries) - len(kept)} lines of {_short(bundled)} for packages "
                                  f"{_short(self.repo)} does not ship ({_listed(sorted(left))}) not judged.")
        return kept

    def _on_the_platform(self, bundled: str, bump: BundleBump) -> bool:
        """A bundled SDK for other platforms than the problem's (sentry-java for an iOS crash) cannot fix it."""
        if not self.platforms:
            return True
        ships = repository_platforms(self.run.registry, bundled)
        if not ships or ships & self.platforms:
            return True
        self._off_platform.setdefault(bundled, []).append(display_version(bump.release.tag))
        return False

    def _user_has_it(self, bundled: str, release: Release) -> bool:
        """A bundled release at or before what the customer's own release bundles is already in their build."""
        if bundled not in self._user_has:
            self._user_has[bundled] = self.run.tools.cache.bundled_key_at(
                self.repo, bundled, self.user_release.version_key, inclusive=True)
        has = self._user_has[bundled]
        return has is not None and release.version_key <= has

    def _sections(self) -> frozenset[str]:
        symptom_sections = lexicon.words("symptom_sections")  # indexer/data/words.toml, with why
        return symptom_sections | feature_sections() if self.features else symptom_sections


def _start(from_key: str | None, shipped_before: str | None) -> str | None:
    """Where the bundled releases a stable release brings in start: what the previous stable release shipped, when
    that is older than the bump's from-version. A stable release's notes often name only the last hop ("Bump CLI
    from v3.3.2 to v3.3.3") while its pre-releases' notes took the earlier ones (3.2.0 → 3.3.0 → 3.3.2), and a
    customer on the previous stable release gets all of them with this one."""
    known = [key for key in (from_key, shipped_before) if key is not None]
    return min(known) if known else None


def _listed(versions: list[str], shown: int = 6) -> str:
    unique = list(dict.fromkeys(versions))
    more = f" and {len(unique) - shown} more" if len(unique) > shown else ""
    return ", ".join(unique[:shown]) + more


def _short(repo: str) -> str:
    return repo.split("/", 1)[-1]


def _span(releases: list[Release]) -> str:
    first, last = display_version(releases[0].tag), display_version(releases[-1].tag)
    return first if first == last else f"{first}–{last}"
