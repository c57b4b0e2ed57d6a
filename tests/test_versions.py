"""Tag parsing and the SQLite sort key: "releases after V" is a string comparison, so the key
must order exactly like PEP 440."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from indexer.versions import display_version, is_complete, parse_tag, version_key


@pytest.mark.parametrize(
    ("tag", "expected", "prerelease"),
    [
        ("8.1.0", "8.1.0", False),
        ("v8.1.0", "8.1.0", False),
        ("V2.0", "2.0", False),
        ("sentry-cocoa@8.1.0", "8.1.0", False),
        ("@sentry/browser@8.0.0", "8.0.0", False),
        ("@sentry/browser@8.0.0-beta.1", "8.0.0b1", True),
        ("release-8.0", "8.0", False),
        ("cocoa/8.52.0", "8.52.0", False),
        ("8.0.0-beta.1", "8.0.0b1", True),
        ("7.0.0-rc.1", "7.0.0rc1", True),
        ("0.0.1-preview1", "0.0.1rc1", True),
        ("2.0.0a3", "2.0.0a3", True),
        ("3.0.0+1", "3.0.0+1", False),
        ("1.2.3.post1", "1.2.3.post1", False),
    ],
)
def test_tag_forms(tag: str, expected: str, prerelease: bool) -> None:
    version = parse_tag(tag)
    assert version is not None, tag
    assert str(version) == expected
    assert version.is_prerelease is prerelease


@pytest.mark.parametrize("tag", ["8.0.0-SNAPSHOT", "4.x", "", None, "latest", "nightly", "4.0.0-M1"])
def test_not_versions(tag: str | None) -> None:
    assert parse_tag(tag) is None


def test_short_versions_equal_their_padded_form() -> None:
    assert version_key(parse_tag("8.48")) == version_key(parse_tag("8.48.0")) == version_key(parse_tag("v8.48.0"))


def test_display_and_completeness() -> None:
    assert display_version("sentry-cocoa@8.1.0") == "8.1.0"
    assert display_version("v8.1.0") == "8.1.0"
    assert display_version("version-1") == "version-1"
    assert is_complete("8.48.0") and is_complete("8.0.0-beta.1")
    assert not is_complete("8.48") and not is_complete("v9")


def test_known_order() -> None:
    ordered = ["1.0.dev0", "1.0a1.dev1", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0+local", "1.0.post1.dev0",
               "1.0.post1", "1.0.1", "1.1", "2!0.1"]
    keys = [version_key(Version(text)) for text in ordered]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


_numbers = st.integers(min_value=0, max_value=10**9)
_versions = st.builds(
    lambda epoch, release, pre, post, dev: Version(
        (f"{epoch}!" if epoch else "")
        + ".".join(map(str, release))
        + (f"{pre[0]}{pre[1]}" if pre else "")
        + (f".post{post}" if post is not None else "")
        + (f".dev{dev}" if dev is not None else "")
    ),
    epoch=st.integers(min_value=0, max_value=3),
    release=st.lists(_numbers, min_size=1, max_size=6),
    pre=st.none() | st.tuples(st.sampled_from(["a", "b", "rc"]), st.integers(min_value=0, max_value=99)),
    post=st.none() | st.integers(min_value=0, max_value=99),
    dev=st.none() | st.integers(min_value=0, max_value=99),
)


@given(_versions, _versions)
def test_key_order_is_pep440_order(a: Version, b: Version) -> None:
    assert (version_key(a) < version_key(b)) == (a < b)
    assert (version_key(a) == version_key(b)) == (a == b)


@given(_versions)
def test_key_survives_a_round_trip_through_text(version: Version) -> None:
    assert version_key(parse_tag(f"v{version}")) == version_key(version)


def test_property_tests_never_time_their_examples() -> None:
    """A paused process (a loaded CI machine) must not fail a property test: no per-example deadline (hypothesis's
    default 200 ms fails, or reports Flaky, an example the scheduler held up) and no timed health check, for a test
    that sets nothing itself (the two above) or only some settings (tests/conftest.py loads the profile)."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
    assert settings(max_examples=300).deadline is None  # a test's own @settings inherit it
