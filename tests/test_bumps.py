"""Bundled-SDK bump lines, in the wordings hybrid SDKs' notes really use."""

from __future__ import annotations

import json

import pytest
from packaging.version import Version

from indexer.bumps import bundled_name, parse_bump, parse_bumps
from indexer.registry import RegistryError, load_registry

REAL_LINES = [  # copied from the release notes of the fixture repositories
    ("- Bump Cocoa SDK from v8.13.0 to v8.14.2 ([#3370](https://github.com/getsentry/sentry-react-native/pull/3370))",
     "Cocoa", "8.13.0", "8.14.2"),
    ("- Bump Android SDK from v8.37.1 to v8.38.0 ([#3631](https://github.com/getsentry/sentry-dart/pull/3631))",
     "Android", "8.37.1", "8.38.0"),
    ("- Bump Native SDK from v0.16.1 to v0.16.2 ([#5910](https://github.com/getsentry/sentry-java/pull/5910))",
     "Native", "0.16.1", "0.16.2"),
    ("- Bump Java SDK from v8.34.1 to v8.35.0 ([#5017](https://github.com/getsentry/sentry-dotnet/pull/5017))",
     "Java", "8.34.1", "8.35.0"),
    ("- Bump Javascript SDK from v8.42.0 to v9.5.0 ([#2784](https://github.com/getsentry/sentry-dart/pull/2784))",
     "Javascript", "8.42.0", "9.5.0"),
    ("- Bump Cocoa SDK from v8.0.0-beta.1 to v8.0.0 (#2410)", "Cocoa", "8.0.0b1", "8.0.0"),
    # sentry-capacitor (bench/data/near): its browser, vue, react … packages bumped as one set
    ("- Bump JavaScript Sibling SDKs from v10.52.0 to v10.60.0 "
     "([#1303](https://github.com/getsentry/sentry-capacitor/pull/1303))", "JavaScript", "10.52.0", "10.60.0"),
]


@pytest.mark.parametrize(("line", "name", "start", "end"), REAL_LINES)
def test_real_bump_lines_parse(line, name, start, end):
    bump = parse_bump(line)
    assert bump is not None and bump.name == name and bump.followable
    assert bump.from_version == Version(start) and bump.to_version == Version(end)


def test_a_bump_without_a_from_version_is_kept_but_not_followable():
    bump = parse_bump("- Bump Sentry Android SDK to 5.3.0 #1860")
    assert bump is not None and bump.name == "Android" and bump.to_version == Version("5.3.0")
    assert not bump.followable


def test_versions_that_do_not_parse_are_kept_as_text_never_followed():
    bump = parse_bump("- Bump `sentry-native` SDK to `d11359b` of [feat/inproc_handler_strategy](https://x/1)")
    assert bump is not None and bundled_name(bump.name) == "native"
    assert bump.to_text == "d11359b" and bump.to_version is None and not bump.followable


@pytest.mark.parametrize("line", [
    "- Bump Android SDK Stubs from v8.32.0 to v8.33.0 (#5697)",
    "- Bump the version of the .NET SDK that we use from 9.0.203 to 9.0.301 (#4272)",
    "- Bump Gradle from v8.9.0 to v8.10.0 (#4063)",
    "- Fix crash when the Cocoa SDK from v8.13.0 is used",
])
def test_lines_that_are_not_bundled_sdk_bumps(line):
    assert parse_bump(line) is None


def test_names_have_one_spelling():
    assert {bundled_name(n) for n in ("JavaScript", "Javascript", "`sentry-javascript`")} == {"javascript"}


@pytest.mark.parametrize(("line", "found"), [
    ("- Bump: Sentry-Android to 6.1.0 and Sentry-Cocoa to 7.2.0 (#12)", [("android", None, "6.1.0"),
                                                                        ("cocoa", None, "7.2.0")]),
    ("- Bump sentry-cocoa from 8.1.0 to 8.2.0 ([#3](x))", [("cocoa", "8.1.0", "8.2.0")]),
    ("- Bump CLI from v2.1.0 to v2.2.0", []),
])
def test_older_wordings_and_two_bumps_in_one_line(line, found):
    assert [(bundled_name(b.name), b.from_text, b.to_text) for b in parse_bumps(line)] == found


def test_a_registry_declares_what_each_repository_bundles(tmp_path):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {"acme/hybrid": {"bundles": {"Core": "acme/core", "JS": "acme/js"}},
                                                 "acme/core": {}}}))
    registry = load_registry(path)
    assert registry.bundles("acme/hybrid") == {"core": "acme/core", "js": "acme/js"}
    assert registry.all_repositories() == ["acme/hybrid", "acme/core", "acme/js"]
    path.write_text(json.dumps({"repositories": {"acme/hybrid": {"bundles": {"Core": "not a slug"}}}}))
    with pytest.raises(RegistryError, match="'Core' of acme/hybrid must map to an owner/repo"):
        load_registry(path)


def test_the_packaged_registry_follows_the_sentry_hybrids():
    registry = load_registry()
    assert registry.bundles("getsentry/sentry-react-native")["cocoa"] == "getsentry/sentry-cocoa"
    assert registry.bundles("getsentry/sentry-dart")["android"] == "getsentry/sentry-java"
    assert registry.bundles("getsentry/sentry-dotnet")["java"] == "getsentry/sentry-java"
    assert "getsentry/sentry-native" in registry.all_repositories()


def test_the_sentry_build_plugins_bundle_the_cli():
    """The Gradle and Dart plugins ship sentry-cli and say so ("Bump CLI from v2.39.0 to v2.39.1"): a sentry-cli
    fix reaches their customers through that bump, so sentry-cli is indexed with them and its names are known."""
    registry = load_registry()
    gradle, dart = "getsentry/sentry-android-gradle-plugin", "getsentry/sentry-dart-plugin"
    assert registry.bundles(gradle) == {"cli": "getsentry/sentry-cli", "android": "getsentry/sentry-java"}
    assert registry.bundles(dart) == {"cli": "getsentry/sentry-cli"}
    assert "getsentry/sentry-cli" in registry.all_repositories()
    assert registry.lookup("@sentry/cli") == registry.lookup("sentry-cli") == "getsentry/sentry-cli"
    line = "- Bump CLI from v2.39.0 to v2.39.1 ([#838](https://github.com/getsentry/sentry-android-gradle-plugin/pull/838))"
    [bump] = parse_bumps(line, registry.bundles(gradle))
    assert (bundled_name(bump.name), bump.followable) == ("cli", True)
    assert parse_bumps(line) == []  # without the declaration "CLI" is no bundled SDK ("Bump Gradle from …")


@pytest.mark.parametrize(("line", "found"), [
    ("* Bump `pydantic-core` to `v2.14.3` by @someone in [#8262](https://x/8262)", ("pydantic-core", None, "v2.14.3")),
    ("* Bump pydantic-core from 2.14.1 to 2.14.3, significant changes", ("pydantic-core", "2.14.1", "2.14.3")),
    ("- Bump Java SDK (Android) from v7.1.0 to v7.2.0 (#3)", ("java", "v7.1.0", "v7.2.0")),
    ("- chore(deps): Bump the Native SDK from 0.7.0 to 0.7.2", ("native", "0.7.0", "0.7.2")),
    # sentry-godot (bench/data/near), a name its registry entry declares, without "SDK"
    ("- Bump Sentry Android from v8.51.0 to v8.53.0 ([#855](https://github.com/getsentry/sentry-godot/pull/855))",
     ("android", "v8.51.0", "v8.53.0")),
])
def test_more_bump_wordings_and_names_a_registry_declares(line, found):
    bumps = parse_bumps(line, declared=["pydantic-core", "android"])
    assert [(bundled_name(b.name), b.from_text, b.to_text) for b in bumps] == [found]


def test_a_declared_name_after_sentry_needs_a_from_version():
    line = "- Bump: Sentry Cocoa to 7.11.0 and Sentry Android to 5.7.0 (#2160)"  # sentry-react-native 3.3.5
    assert parse_bumps(line, declared=["cocoa", "android"]) == []


def test_an_undeclared_name_without_sdk_is_not_a_bundle():
    assert parse_bumps("* Bump `pydantic-core` to `v2.14.3`") == []
    assert parse_bumps("- Bump Gradle from v8.9.0 to v8.10.0 (#4063)", declared=["pydantic-core"]) == []
    assert parse_bumps("- Bump Sentry JavaScript from v10.69.0 to v10.70.0 (#862)", declared=["android"]) == []


@pytest.mark.parametrize(("line", "found"), [
    # sentry-electron 6.x: "Update", a "feat:" prefix, from/to written as links (the entry keeps their text)
    ("- feat: Update JavaScript SDKs from v9.1.0 to v9.6.0", ("javascript", "v9.1.0", "v9.6.0")),
    ("- Update JavaScript SDKs from v10.26.0 to v10.27.0", ("javascript", "v10.26.0", "v10.27.0")),
    # sentry-electron 4.x–5.x: the range before the name
    ("- feat: Update from v7.61.0 to v7.63.0 of JavaScript SDKs (#719)", ("javascript", "v7.61.0", "v7.63.0")),
    ("- test: Update from v7.58.0 to v7.61.0 of JavaScript SDKs (#709)", ("javascript", "v7.58.0", "v7.61.0")),
    # "Bump" in every wording keeps its to-only lines (the scan starts where the previous release's bump ended)
    ("- build(ios): Bump `sentry-cocoa` to 8.21.0 ([#366](https://github.com/getsentry/sentry-cordova/pull/366))",
     ("cocoa", None, "8.21.0")),
    ("- Bump Sentry JavaScript SDK to `7.119.1` ([#375](https://github.com/getsentry/sentry-cordova/pull/375))",
     ("javascript", None, "7.119.1")),
    ("- Bumped `sentry-cocoa` to `3.3.3`", ("cocoa", None, "3.3.3")),
])
def test_update_and_range_first_wordings(line, found):
    assert [(bundled_name(b.name), b.from_text, b.to_text) for b in parse_bumps(line)] == [found]


@pytest.mark.parametrize("line", [
    # to-only "Update"/"Upgrade" lines (words.toml `range_only_bump_verbs`): sentry-electron 7.6+, sentry-dotnet 6.x,
    # sentry-dart 9.x, old sentry-react-native and sentry-dotnet 3.x
    "- Update JavaScript SDKs to v10.33.0 by @timfish in #1287",
    "- Update Sentry SDKs to v10.34.0 by @github-actions in [#1290](https://github.com/getsentry/sentry-electron/pull/1290)",
    "- chore(deps): update Java SDK to v8.37.1 by @github-actions in #5071",
    "- Updated Sentry Android SDK to version 6.3.0 (#1826)",
    "- Upgrade `sentry-cocoa` to `3.8.1`",
    "- feat: Update to v8.51.0 of the JavaScript SDKs (#1066)",
])
def test_to_only_update_lines_are_not_read(line):
    assert parse_bumps(line) == []
    assert parse_bumps(line, ["javascript", "sentry", "java", "android", "cocoa"]) == []


def test_electron_names_its_javascript_sdks_sentry_sdks():
    """sentry-electron's bumps say "Update Sentry SDKs from vA to vB" as well as "JavaScript SDKs": its registry entry
    declares "Sentry" for sentry-javascript, so such a bump reaches that repository's releases."""
    registry = load_registry()
    [bump] = parse_bumps("- Update Sentry SDKs from v10.33.0 to v10.34.0 by @github-actions in [#1290](x)",
                         registry.bundles("getsentry/sentry-electron"))
    assert registry.bundles("getsentry/sentry-electron")[bundled_name(bump.name)] == "getsentry/sentry-javascript"
    assert bump.to_version == Version("10.34.0")


@pytest.mark.parametrize("line", [
    "- Update the version of the .NET SDK that we use from 9.0.203 to 9.0.301 (#4272)",
    "- Update Gradle from v8.9.0 to v8.10.0 (#4063)",
    "- Update from v8.48.0 to v8.51.0 (#1066)",  # no name: which SDK is not said
    "- Updated the Sentry CLI command to upload debug symbols (#12)",
    "- Fix: update Cocoa SDK from v8.1 would crash",
])
def test_update_lines_that_are_not_bundled_sdk_bumps(line):
    assert parse_bumps(line) == []
