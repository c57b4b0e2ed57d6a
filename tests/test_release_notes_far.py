"""The parser on real release-note formats of the far holdout's repositories (bench/data/far), none of which the
11 fixture repositories use. Why: WIF is judged on formats it never saw; these snippets are copied verbatim from
their changelogs, so a parser change that stops splitting one of them into entries (section, PR or commit) fails
here before it shows as a far-holdout miss."""

from __future__ import annotations

from indexer.release_notes import parse_release_notes

REQUESTS_HISTORY = """**Improvements**
- Digest Auth hashing algorithms have added `usedforsecurity=False` to clarify
  security considerations. (#7310)

**Bugfixes**
- ``Response.history`` no longer contains a reference to itself, preventing
  accidental looping when traversing the history list. (#7328)
- Requests no longer incorrectly strips duplicate leading slashes in
  URI paths. This should address user issues with specific presigned
  URLs. Note the full fix requires urllib3 2.7.0+. (#7315)
"""

SENTRY_GO_CRAFT = """### Bug Fixes 🐛

- (httpclient) Clone request before adding trace headers by @giortzisg in [#1290](https://github.com/getsentry/sentry-go/pull/1290)
- Safe concurrent access for span and scope by @giortzisg in [#1285](https://github.com/getsentry/sentry-go/pull/1285)

### Internal Changes 🔧

#### Deps

- Bump actions/checkout from 6.0.2 to 6.0.3 by @dependabot in [#1313](https://github.com/getsentry/sentry-go/pull/1313)
"""

HTTPX_KEEPACHANGELOG = """### Added

* Add `chunk_size` parameter to `iter_raw()`, `iter_bytes()`, `iter_text()`. (Pull #1277)

### Fixed

* Add missing `raw_path` to ASGI scope. (Pull #1357)
* Transport instances now inherit from `httpx.BaseTransport`. (Pull #1522, #1550)
"""

ANTHROPIC_RELEASE_PLEASE = """### Bug Fixes

* **memory:** return resolved path from async _validate_path ([7b0add3](https://github.com/anthropics/anthropic-sdk-python/commit/7b0add32bd5fc59ad0fa277ef6982ee1df1eed7a))
* **runner:** skip tool calls SessionToolRunner does not own ([#1817](https://github.com/anthropics/anthropic-sdk-python/issues/1817)) ([9425c6a](https://github.com/anthropics/anthropic-sdk-python/commit/9425c6a0c6ff5e1d459ac081914f3df496365884))
"""  # noqa: E501 (copied verbatim)


def shape(body: str, repo: str) -> list[tuple[str, tuple[int, ...], str]]:
    """(section, PRs, first three words) of each entry."""
    return [(e.section, e.prs, " ".join(e.text.split()[:3])) for e in parse_release_notes(body, repo)]


def test_bold_section_names_and_entries_wrapped_over_lines() -> None:
    assert shape(REQUESTS_HISTORY, "psf/requests") == [
        ("improvement", (7310,), "Digest Auth hashing"),
        ("fix", (7328,), "``Response.history`` no longer"),
        ("fix", (7315,), "Requests no longer"),
    ]
    assert parse_release_notes(REQUESTS_HISTORY, "psf/requests")[2].text.endswith("requires urllib3 2.7.0+. (#7315)")


def test_craft_headings_with_emoji_and_by_author_in_linked_pr() -> None:
    assert shape(SENTRY_GO_CRAFT, "getsentry/sentry-go") == [
        ("fix", (1290,), "(httpclient) Clone request"),
        ("fix", (1285,), "Safe concurrent access"),
        ("dependency", (1313,), "Bump actions/checkout from"),
    ]


def test_keep_a_changelog_sections_and_pull_references() -> None:
    assert shape(HTTPX_KEEPACHANGELOG, "encode/httpx") == [
        ("feature", (1277,), "Add `chunk_size` parameter"),
        ("fix", (1357,), "Add missing `raw_path`"),
        ("fix", (1522, 1550), "Transport instances now"),
    ]


def test_release_please_lines_keep_the_commit_and_read_a_pr_linked_as_an_issue() -> None:
    memory, runner = parse_release_notes(ANTHROPIC_RELEASE_PLEASE, "anthropics/anthropic-sdk-python")
    assert (memory.section, memory.prs, memory.commits) == ("fix", (), ("7b0add32bd5fc59ad0fa277ef6982ee1df1eed7a",))
    assert (runner.section, runner.prs) == ("fix", (1817,))
    assert runner.commits == ("9425c6a0c6ff5e1d459ac081914f3df496365884",)
