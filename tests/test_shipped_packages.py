"""Which packages of a bundled SDK a hybrid ships: the scope a release-note line names (`line_scopes`), the
registry's `ships` and `packages` (`Registry.shipped_packages`, `Registry.package_names`), and the scan leaving out a
bundled line scoped to a package the host does not ship (subtasks/bundled_sdks.py), end to end through the fake
GitHub.

Why: an Electron app runs @sentry/browser and @sentry/node, never @sentry/nextjs; "fix(nextjs): …" in a
sentry-javascript release its bump brings in cannot fix its customers' problem, and following it costs answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer.registry import RegistryError, load_registry, package_key
from indexer.release_notes import line_scopes, parse_release_notes
from tests.test_bundled_sdks import COCOA, PROBLEM, RN, _cache, github  # noqa: F401  (github: the fixture)
from wif_action.app import AppConfig, build_workflow
from wif_action.models import Answer, AskInput
from wif_action.tools.progress import RecordingProgress

JAVASCRIPT, ELECTRON = "getsentry/sentry-javascript", "getsentry/sentry-electron"


@pytest.mark.parametrize(("line", "scopes"), [
    # sentry-javascript's conventional-commit lines, its backport branches and several packages at once
    ("fix(nextjs): Use global scope for generic event filters (#12205)", ["nextjs"]),
    ("fix(v8/core): Ensure `dropUndefinedKeys()` does not break class instances (#13245)", ["v8/core"]),
    ("fix(core, node): Fix request data isolation (#15000)", ["core", "node"]),
    ("feat(replay)!: Remove `maskInputOptions` (#9000)", ["replay"]),
    ("**feat(nextjs): Add Turbopack support for `thirdPartyErrorFilterIntegration`**", ["nextjs"]),
    # a leading bracket or bold name, a name and a colon (sentry-dotnet "NLog: …", "ASP.NET Core: …")
    ("[nextjs] Fix the edge runtime's request isolation (#1)", ["nextjs"]),
    ("**nextjs**: Fix the edge runtime (#1)", ["nextjs"]),
    ("**Nuxt:** Fix server init (#1)", ["nuxt"]),
    ("NLog: Fix the target's layout (#2100)", ["nlog"]),
    ("ASP.NET Core: Fix request body capture (#2200)", ["asp.net core"]),
    # unscoped lines
    ("fix: Sync global scope to main process (#1024)", ["fix"]),
    ("Crash in SentryTracer when cancelling timer (#3333)", []),
    ("[#1234](https://github.com/x/y/pull/1234) Fix a crash", []),
    ("[docs](https://docs.sentry.io) moved", []),
])
def test_line_scopes_of_real_line_shapes(line, scopes):
    assert line_scopes(line) == scopes


def test_the_scope_survives_the_parser():
    """The entry text the scan reads keeps the line's scope (only the list marker goes)."""
    [entry] = parse_release_notes("### Bug Fixes\n\n- fix(nextjs): Fix memory leak (#12335)\n", JAVASCRIPT)
    assert line_scopes(entry.text) == ["nextjs"]


@pytest.mark.parametrize(("name", "key"), [
    ("@sentry/nextjs", "nextjs"), ("v8/nextjs", "nextjs"), ("io.sentry:sentry-android", "android"),
    ("sentry-cocoa", "cocoa"), ("ASP.NET  Core", "asp.net core"), ("Node.js", "node.js"),
])
def test_package_key(name, key):
    assert package_key(name) == key


def test_the_packaged_registry_says_what_electron_ships_of_sentry_javascript():
    registry = load_registry()
    ships = registry.shipped_packages(ELECTRON, JAVASCRIPT)
    assert ships is not None and {"browser", "node", "core"} <= ships and "nextjs" not in ships
    packages = registry.package_names(JAVASCRIPT)
    assert {"nextjs", "nuxt", "react", "profiling-node", "browser", "node"} <= packages
    assert "core" in packages and "redis" not in packages  # an integration, not a package: its lines stay
    assert registry.shipped_packages(ELECTRON, "getsentry/sentry-native") is None  # not said: all of it
    assert registry.shipped_packages("getsentry/sentry-unity", JAVASCRIPT) is None


@pytest.mark.parametrize("ships", [["@sentry/browser"], {"getsentry/x": "@sentry/browser"}, {"not a slug": []},
                                   {"getsentry/x": [3]}])
def test_a_malformed_ships_entry_is_a_clear_error(tmp_path, ships):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {"acme/host": {"ships": ships}}}))
    with pytest.raises(RegistryError, match="'ships' of acme/host"):
        load_registry(path)


def _ask(db: Path, github, registry: Path) -> Answer:  # noqa: F811
    config = AppConfig(db=db, engine="offline", env={"GITHUB_API_URL": github.url}, github_timeout=30,
                       registry=registry)
    return build_workflow(config, RecordingProgress()).run(AskInput(repo=RN, version="5.9.1", problem=PROBLEM))


def _scoped(github, scope: str) -> None:  # noqa: F811
    body = next(r["body"] for r in github.repo(COCOA).releases if r["tag_name"] == "8.13.1")
    github.edit_release(COCOA, "8.13.1", body=body.replace("- Crash in SentryTracer",
                                                           f"- fix({scope}): Crash in SentryTracer"))


def _registry(tmp_path: Path, ships: list[str] | None) -> Path:
    host: dict = {"bundles": {"Cocoa": COCOA}}
    if ships is not None:
        host["ships"] = {COCOA: ships}
    path = tmp_path / "registry.json"
    cocoa = {"packages": ["Sentry", "SentrySwiftUI", "Sentry-Dynamic"]}
    path.write_text(json.dumps({"repositories": {RN: host, COCOA: cocoa}}))
    return path


@pytest.mark.slow
def test_a_bundled_line_for_a_platform_the_host_does_not_ship_is_not_judged(tmp_path, github):  # noqa: F811
    """A host that ships sentry-cocoa's `Sentry` package only: "fix(SentrySwiftUI): …" in a release its bump brings
    in is left out (the trace says so), and without `ships` every line is judged."""
    _scoped(github, "SentrySwiftUI")
    db = _cache(tmp_path, github, [RN, COCOA])
    answer = _ask(db, github, _registry(tmp_path, ["Sentry"]))
    assert all(c.pr != 3333 for c in answer.candidates)
    assert any("for packages sentry-react-native does not ship (sentryswiftui) not judged" in line
               for line in answer.trace), answer.trace
    everything = _ask(db, github, _registry(tmp_path, None))
    assert (everything.outcome.value, everything.candidates[0].pr) == ("high", 3333)


@pytest.mark.slow
def test_a_bundled_line_for_a_shipped_package_is_judged(tmp_path, github):  # noqa: F811
    _scoped(github, "Sentry")
    answer = _ask(_cache(tmp_path, github, [RN, COCOA]), github, _registry(tmp_path, ["Sentry"]))
    first = answer.candidates[0]
    assert (answer.outcome.value, first.version, first.pr, first.repo) == ("high", "5.12.0", 3333, COCOA)
    assert not any("does not ship" in line for line in answer.trace)
