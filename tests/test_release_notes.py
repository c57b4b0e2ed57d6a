"""Unit and property tests for the release-notes parser (small literal bodies, no data files)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer import release_notes
from indexer.release_notes import (
    SECTIONS,
    ReleaseNoteEntry,
    classify_bullet,
    classify_heading,
    parse_release_notes,
    references,
    scanner,
    sections,
)

REPO = "getsentry/sentry-demo"
PULL = "https://github.com/getsentry/sentry-demo/pull"
ISSUES = "https://github.com/getsentry/sentry-demo/issues"


def parse(body: str, repo: str | None = REPO) -> list[ReleaseNoteEntry]:
    return parse_release_notes(body, repo)


def only(body: str, repo: str | None = REPO) -> ReleaseNoteEntry:
    entries = parse(body, repo)
    assert len(entries) == 1, entries
    return entries[0]


# --------------------------------------------------------------------------- headings


@pytest.mark.parametrize(
    ("heading", "section"),
    [
        ("Fixes", "fix"),
        ("Bug Fixes", "fix"),
        ("Bug fixes", "fix"),
        ("Bug Fixes 🐛", "fix"),
        ("Fixes 🐛", "fix"),
        ("Fixed", "fix"),
        ("Fix", "fix"),
        ("Security", "fix"),
        ("Security Fixes", "fix"),
        ("Features", "feature"),
        ("New Features", "feature"),
        ("New Features ✨", "feature"),
        ("Added", "feature"),
        ("Add", "feature"),  # the imperative kind headings (`#### Add` / `#### Fix` / `#### Remove`)
        ("Changed", "improvement"),
        ("Changes", "improvement"),
        ("Improvements", "improvement"),
        ("Enhancements", "improvement"),
        ("Performance", "performance"),
        ("Performance Improvements", "performance"),
        ("Breaking Changes", "breaking"),
        ("⚠ BREAKING CHANGES", "breaking"),
        ("Breaking Changes:", "breaking"),
        ("Removed", "breaking"),
        ("Remove", "breaking"),
        ("Deprecations", "deprecation"),
        ("Deprecated", "deprecation"),
        ("Dependencies", "dependency"),
        ("Dependencies ⬆️", "dependency"),
        ("Packaging", "dependency"),
        ("Deps", "dependency"),
        ("Internal", "internal"),
        ("Internal Changes 🔧", "internal"),
        ("Chores", "internal"),
        ("Tests", "internal"),
        ("Build System", "internal"),
        ("CI", "internal"),
        ("Refactors", "internal"),
        ("Documentation", "docs"),
        ("Documentation 📚", "docs"),
        ("Docs", "docs"),
        ("Misc", "other"),
        ("Miscellaneous", "other"),
        ("Other Changes", "other"),
        ("Reverts", "other"),
        ("What's Changed", "other"),
        ("What’s Changed", "other"),
        ("Various fixes & improvements", "other"),
        ("Important Changes", "feature"),
        ("v1.9.0a1 (2021-12-18) Changes", "improvement"),
        ("**Fixes**", "fix"),
        ("Bug fixes (2 changes)", "fix"),  # GitLab counts its changes
        ("Hotfixes", "fix"),
        ("Continuous Integration", "internal"),
        ("Maintenance", "internal"),
        ("Under the hood", "internal"),
    ],
)
def test_classify_heading_known(heading: str, section: str) -> None:
    assert classify_heading(heading) == section


@pytest.mark.parametrize(
    "heading", ["Flutter", "Dart", "Openai Agents", "2.4.x (2020-01-01)", "2.1.2-beta", "", "How To Upgrade"]
)
def test_classify_heading_unknown(heading: str) -> None:
    assert classify_heading(heading) is None


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("fix: Sanitize UserInfo #770", "fix"),
        ("fix(nextjs): Mark redirect server actions as ok", "fix"),
        ("feat(scope): Add thing", "feature"),
        ("Feat: Add current route as transaction", "feature"),
        ("perf(core): Reuse JSON", "performance"),
        ("docs: Elaborate on autodetection", "docs"),
        ("chore: X handle update", "internal"),
        ("ci: Pin coverage", "internal"),
        ("test(node): Remove fake test", "internal"),
        ("refactor: Move code", "internal"),
        ("build(deps): bump sphinx from 4.1.1 to 4.5.0", "dependency"),
        ("chore(deps-dev): Bump the react-router group", "dependency"),
        ("Bump `black` from 22 to 23", "dependency"),
        ("Fix crash on start", "fix"),
        ("Fixed a build error", "fix"),
        ("Fixes `user.id` not set", "fix"),
        ("Fixing flaky test", "fix"),
        ("bugfix for the thing", "fix"),
        ("hotfix: revert", "fix"),
        ("**fix(node): Avoid double-wrapping**", "fix"),
        ("(sidekiq) Fix retry limit", "fix"),
        ("Apache Spark: Fix spark driver integration", "fix"),
        # a label naming a kind of change is the line's own heading (guzzle 6.x: "Bug fix: rewind seekable …")
        ("Bug fix: rewind seekable request bodies before dispatching to cURL. #1422", "fix"),
        ("Improvement: Always include the Content-Length", "improvement"),
        ("Changed: the default timeout", None),  # a generic heading's word decides nothing
        ("Add `origin` to spans", "feature"),
        ("Deprecate `enable_tracing`", "deprecation"),
        ("Reset `DedupeIntegration`'s last-seen", None),
        ("", None),
    ],
)
def test_classify_bullet(text: str, section: str | None) -> None:
    assert classify_bullet(text) == section


def test_markdown_heading_levels_and_emoji() -> None:
    body = (
        "# Fixes\n- a (#1)\n# New Features ✨\n- b (#2)\n#### ⚠ BREAKING CHANGES\n- c (#3)\n"
        "## Fixed:\n- d (#4)\n### Internal Changes 🔧 ###\n- e (#5)\n"
    )
    entries = parse(body)
    assert [(e.section, e.heading, e.prs) for e in entries] == [
        ("fix", "Fixes", (1,)),
        ("feature", "New Features ✨", (2,)),
        ("breaking", "New Features ✨ > ⚠ BREAKING CHANGES", (3,)),
        ("fix", "New Features ✨ > Fixed:", (4,)),
        ("internal", "New Features ✨ > Fixed: > Internal Changes 🔧", (5,)),
    ]


def test_a_list_item_that_only_names_a_section_is_a_heading_over_its_items() -> None:
    """Old mix CHANGELOGs (sentry-elixir 7.x–8.x) nest their entries under list items naming the section: each
    nested item is an entry of that section, not one entry gluing the section's name to all of them; a short
    entry with nested details ("TTFD fixes") stays an entry."""
    body = ("* Bug Fixes\n  * Fix issue from using spawn\\_link stacktrace (#315)\n  * Relax plug\\_cowboy versions"
            " (#314)\n\n* Breaking Changes:\n  * Require Elixir 1.7+\n\n### Features\n\n* TTFD fixes\n"
            "  * Report TTFD when the screen is drawn (#9)\n")
    entries = parse_release_notes(body, "getsentry/sentry-elixir")
    assert [(e.section, e.heading, e.text, e.prs) for e in entries] == [
        ("fix", "Bug Fixes", "Fix issue from using spawn_link stacktrace (#315)", (315,)),
        ("fix", "Bug Fixes", "Relax plug_cowboy versions (#314)", (314,)),
        ("breaking", "Breaking Changes", "Require Elixir 1.7+", ()),
        ("feature", "Features", "TTFD fixes Report TTFD when the screen is drawn (#9)", (9,)),
    ]


def test_bold_and_colon_pseudo_headings() -> None:
    body = "**Features**\n\n- Add a (#1)\n\nBug fixes:\n\n- Crash b (#2)\n\n**Warning**\n\n- Plain c (#3)\n"
    entries = parse(body)
    assert [(e.section, e.heading) for e in entries] == [
        ("feature", "Features"),
        ("fix", "Bug fixes"),
        ("fix", "Bug fixes"),  # "**Warning**" is not a section word: context unchanged
    ]


def test_colon_line_inside_paragraph_is_not_a_heading() -> None:
    body = "### Important Changes\n\nThis brings with it a variety of\nchanges:\n\n- Something new (#1)\n"
    assert only(body).section == "feature"


def test_specific_heading_wins_over_wording_but_not_over_a_fix_type() -> None:
    """A verb does not refile a line, its own conventional-commit type "fix" does (echo's generated notes file
    "fix(middleware/proxy): …" under **Enhancements** by its labels); "fix(deps)" is no fix."""
    body = ("### Features\n\n- Fix typo in the new API (#1)\n- fix: also this (#2)\n- chore: tidy (#3)\n"
            "- fix(deps): bump x (#4)\n")
    assert [e.section for e in parse(body)] == ["feature", "fix", "feature", "feature"]
    echo = ("**Enhancements**\n\n* fix(middleware/proxy): append RealIP to X-Forwarded-For for WebSocket requests by "
            "@kawaway in https://github.com/labstack/echo/pull/2994\n"
            "* Fix proxy panic when balancer has no targets by @shblue21 in https://github.com/labstack/echo/pull/2977\n")
    assert [e.section for e in parse(echo)] == ["fix", "improvement"]


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("* Bug fix: rewind seekable request bodies before dispatching to cURL.", "fix"),  # guzzle 6.x
        ("* Bug fix: Fixed a bug where the ProgressHandler was not called", "fix"),
        ("* Bugfix: handle empty bodies", "fix"),
        ("* Bug fixes: handle empty bodies", "fix"),
        ("* Fixed: handle empty bodies", "fix"),
        ("* Security fix: strip the Authorization header on cross-origin redirects", "fix"),
        ("* Improvement: Added the ability to disable the proxy", "improvement"),
        ("* Feature: Added `TransferStats`", "feature"),
        ("* BC break: removed the `Client::sendAll` method", "breaking"),
        ("* Deprecation: `Utils::defaultUserAgent`", "deprecation"),
        ("* Android: Fix a crash on start", "fix"),  # a label that names no kind: the words after it decide
        ("* Android: Add a new option", "other"),
        ("* Features and fixes: many", "other"),  # names several kinds
    ],
)  # fmt: skip
def test_a_kind_label_files_a_line_like_a_heading(line: str, section: str) -> None:
    """Heading-less changelogs state each line's kind as a label ("Bug fix: …"); it is read with the heading words."""
    assert only("Changelog\n\n" + line + "\n").section == section



@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("* [Bug] Fix chaos outcome exception handling by @peter-csala in https://github.com/App-vNext/Polly/pull/2101",
         "fix"),  # Polly's generated notes: the tag, not the first word, says the kind
        ("* [Docs] Add cheat sheet for outcome chaos strategy by @x in https://github.com/App-vNext/Polly/pull/1984",
         "docs"),
        ("* [Docs] Fix link to ResiliencePipelineBuilder by @x in https://github.com/App-vNext/Polly/pull/1685",
         "docs"),
        ("* [Feature]: Add a new option (#3)", "feature"),
        ("* [Dio] Ref: Replace FailedRequestAdapter with FailedRequestInterceptor (#728)", "internal"),  # a scope tag
        ("* [Android] Fix a crash on start (#4)", "fix"),  # the words after a scope tag decide
    ],
)  # fmt: skip
def test_a_leading_bracketed_tag_files_a_line_by_its_kind(line: str, section: str) -> None:
    """GitHub's generated notes (one flat list under "What's Changed") keep a PR title's bracketed tag ("[Bug] …",
    "[Docs] …"); it states the line's kind as a heading would, or names a scope the words after it classify."""
    assert only("## What's Changed\n\n" + line + "\n").section == section

def test_generic_heading_defers_to_wording() -> None:
    body = (
        "### Other Changes\n\n"
        "- fix(nextjs): Mark redirects as ok (#1)\n"
        "- feat(node): Add option (#2)\n"
        "- chore(deps): Bump hono (#3)\n"
        "- perf(core): Faster (#4)\n"
        "- docs: Explain (#5)\n"
        "- ref(core): Move code (#6)\n"
        "- Improve something (#7)\n"
    )
    assert [e.section for e in parse(body)] == [
        "fix",
        "feature",
        "dependency",
        "performance",
        "docs",
        "internal",
        "other",
    ]


def test_various_fixes_and_improvements() -> None:
    body = (
        "### Various fixes & improvements\n\n"
        "- Fix `parse_url` (#2161) by @sentrivana\n"
        "- Reset `DedupeIntegration`'s `last-seen` if `before_send` dropped the event (#4142) by @x\n"
        "- build(deps): bump sphinx (#1376) by @dependabot\n"
        "- Add `origin` to spans (#3133) by @y\n"
    )
    assert [(e.section, e.prs) for e in parse(body)] == [
        ("fix", (2161,)),
        ("other", (4142,)),
        ("dependency", (1376,)),
        ("other", (3133,)),
    ]


def test_important_changes_bold_bullet_with_paragraphs() -> None:
    explanation = "This release adds an option that lets you ignore spans. " * 30
    body = (
        "### Important Changes\n\n"
        f"- **feat(browser): Add option to ignore spans ([#16443]({PULL}/16443))**\n\n"
        f"{explanation}\n\n"
        "```js\nSentry.init({ dsn: '(#99)' });\n```\n\n"
        "Second paragraph is not attached.\n\n"
        "- **fix(node): Avoid double-wrapping http module (#16177)**\n\n"
        "  When running in ESM mode (see #1234) spans were duplicated.\n"
    )
    first, second = parse(body)
    assert first.section == "feature"
    assert first.prs == (16443,)
    assert first.text.startswith("feat(browser): Add option to ignore spans (#16443) This release adds")
    assert len(first.text) <= 700
    assert "Sentry.init" not in first.text and "Second paragraph" not in first.text
    assert second.section == "fix"
    assert second.prs == (16177,)  # refs in explanatory paragraphs are not claimed
    assert "ESM mode" in second.text


def test_bold_bullet_wrapped_marker_form() -> None:
    body = "### Important Changes\n\n**- feat(node): Make `@sentry/node` powered by OpenTelemetry (#10762)**\n\nText.\n"
    entry = only(body)
    assert (entry.section, entry.prs) == ("feature", (10762,))
    assert entry.text.startswith("feat(node): Make `@sentry/node` powered by OpenTelemetry (#10762)")


def test_whats_changed_with_subgroups() -> None:
    body = (
        "### What's Changed\n\nSome intro.\n\n"
        "#### Packaging\n\n* Bump `pydantic-core` by @d in [#1](https://github.com/pydantic/pydantic/pull/1)\n\n"
        "#### New Features\n\n* Add `EllipsisType` by @v in [#2](https://github.com/pydantic/pydantic/pull/2)\n\n"
        "#### Changes\n\n* Populate slots by @v in [#3](https://github.com/pydantic/pydantic/pull/3)\n\n"
        "#### Performance\n\n* Cache property by @v in [#4](https://github.com/pydantic/pydantic/pull/4)\n\n"
        "#### Fixes\n\n* Validate outputs by @j in [#5](https://github.com/pydantic/pydantic/pull/5)\n\n"
        "### New Contributors\n\n* @j made their first contribution in "
        "[#5](https://github.com/pydantic/pydantic/pull/5)\n"
    )
    entries = parse(body, "pydantic/pydantic")
    assert [(e.section, e.prs, e.heading) for e in entries] == [
        ("dependency", (1,), "What's Changed > Packaging"),
        ("feature", (2,), "What's Changed > New Features"),
        ("improvement", (3,), "What's Changed > Changes"),
        ("performance", (4,), "What's Changed > Performance"),
        ("fix", (5,), "What's Changed > Fixes"),
    ]


def test_packaging_after_new_contributors_is_kept() -> None:
    body = "### New Contributors\n\n* @a made their first contribution in #7\n\n#### Packaging\n\n* Bump x in #8\n"
    entry = only(body)
    assert (entry.section, entry.prs) == ("dependency", (8,))


def test_non_section_subgroups_keep_parent() -> None:
    body = (
        "### Fixes\n\n#### Flutter\n\n- Crash on start ([#1](url))\n\n#### Dart\n\n- Leak (#2)\n\n"
        "### Bug Fixes 🐛\n\n#### Other\n\n- Add cycle detection by @e in [#3]({PULL}/3)\n"
    ).replace("{PULL}", PULL)
    entries = parse(body)
    assert [(e.section, e.heading) for e in entries] == [
        ("fix", "Fixes > Flutter"),
        ("fix", "Fixes > Dart"),
        ("fix", "Bug Fixes 🐛 > Other"),
    ]


def test_no_heading_uses_wording() -> None:
    body = "- fix: Sanitize UserInfo #770\n- feat(scope): Add thing (#2)\n- Fix crash (#3)\n- Update readme (#4)\n"
    assert [(e.section, e.prs, e.heading) for e in parse(body)] == [
        ("fix", (770,), ""),
        ("feature", (2,), ""),
        ("fix", (3,), ""),
        ("other", (4,), ""),
    ]


def test_version_headings_inside_body() -> None:
    body = (
        "### Features\n\n- New thing (#1)\n\n"
        "### 2.4.3 (2020-08-13)\n\n- Fix null env (#1057)\n- Enforce a timeout (#979)\n\n"
        "### v1.9.0a1 (2021-12-18) Changes\n\n* Fix issue where None was invalid, #3444 by @t\n"
        "* Add `AmqpDsn` class, #3254 by @k\n\n"
        "### 2.1.2-beta\n\n- Serilog sink loads options (#380)\n"
    )
    assert [(e.section, e.heading, e.prs) for e in parse(body)] == [
        ("feature", "Features", (1,)),
        ("fix", "", (1057,)),
        ("other", "", (979,)),
        ("fix", "v1.9.0a1 (2021-12-18) Changes", (3444,)),
        ("improvement", "v1.9.0a1 (2021-12-18) Changes", (3254,)),
        ("other", "", (380,)),
    ]


def test_details_summary_internal_changes() -> None:
    body = (
        "### Other Changes\n\n- fix(core): A ([#1]({PULL}/1))\n\n"
        "<details>\n  <summary><strong>Internal Changes</strong></summary>\n\n"
        "- feat(server-utils): B ([#2]({PULL}/2))\n- test: C ([#3]({PULL}/3))\n\n</details>\n\n"
        "Work in this release was contributed by @x. Thank you for your contribution!\n\n"
        "- fix(core): D ([#4]({PULL}/4))\n"
    ).replace("{PULL}", PULL)
    assert [(e.section, e.heading, e.prs) for e in parse(body)] == [
        ("fix", "Other Changes", (1,)),
        ("internal", "Internal Changes", (2,)),
        ("internal", "Internal Changes", (3,)),
        ("fix", "Other Changes", (4,)),
    ]


# --------------------------------------------------------------------------- references


@pytest.mark.parametrize(
    ("bullet", "prs", "text_part"),
    [
        ("- Fix X (#1234)", (1234,), "(#1234)"),
        ("- Fix X (#4917 and #4918)", (4917, 4918), "(#4917 and #4918)"),
        ("- Fix X (#5532, #5593)", (5532, 5593), "(#5532, #5593)"),
        (f"- Fix X ([#1234]({PULL}/1234))", (1234,), "Fix X (#1234)"),
        (f"- Fix X [#1234]({PULL}/1234)", (1234,), "Fix X #1234"),
        (f"- Fix X [(#1234)]({PULL}/1234)", (1234,), "Fix X (#1234)"),
        (f"- Fix X by @user in [#1234]({PULL}/1234)", (1234,), "by @user in #1234"),
        (f"- Fix X by @user in {PULL}/1234", (1234,), "by @user in #1234"),
        (f"- Fix X {PULL}/1234", (1234,), "Fix X #1234"),
        (f"- Fix X [PR]({PULL}/1234)", (1234,), "PR (#1234)"),
        ("- fix: Sanitize UserInfo #770", (770,), "#770"),
        ("* support generic models, #3551 by @PrettyWood", (3551,), "#3551 by @PrettyWood"),
        ("- ref: Add SentryMechanismMeta #1048: Replaced dict", (1048,), "#1048:"),
        ("- Add libraries to InAppExclude #555 (@bruno-garcia)", (555,), "#555"),
        ("- #97 Sentry environment takes precedence", (97,), "#97"),
        ("- Enums use name ([##1506](https://github.com/getsentry/sentry-demo/pull/#1506))", (1506,), "#1506"),
        ("- Fix leftover call ([#2722](https://github.com/getsentry/sentry-demo/2722)", (2722,), "#2722"),
        ("- Fix X ([#2564] https://github.com/getsentry/sentry-demo/pull/2564)", (2564,), "#2564"),
        ("- feat(core): IPv6 hosts ([#2996](https://github.com/getsentry/sentry-demo/pull/2996)) (#17708)",
         (2996, 17708), "(#17708)"),  # a backport: the later bare number is its PR
        ("- fix(nextjs): Match only numbers (#9416) (CVE-2023-46729)", (9416,), "(CVE-2023-46729)"),
    ],
)  # fmt: skip
def test_pr_reference_forms(bullet: str, prs: tuple[int, ...], text_part: str) -> None:
    entry = only(bullet)
    assert entry.prs == prs
    assert entry.issues == ()
    assert text_part in entry.text


@pytest.mark.parametrize(
    ("bullet", "prs", "issues"),
    [
        ("* fix(middleware/static): don't double-unescape request path (#2599) by @vishr in "
         "https://github.com/getsentry/sentry-demo/pull/3006", (3006,), (2599,)),  # echo's generated notes
        ("- Release lock (#6148) by @v in [#6159](https://github.com/getsentry/sentry-demo/pull/6159)",
         (6159,), (6148,)),
        ("- Add hint to breadcrumb for GraphQL (#3413) ([#3431](https://github.com/getsentry/sentry-demo/pull/3431))",
         (3431,), (3413,)),
        ("* Ensure proxy connection is closed in proxyRaw function(#2837) by @k in "
         "https://github.com/getsentry/sentry-demo/pull/2838", (2838,), (2837,)),
        ("- Fix a crash (#41)", (41,), ()),  # no explicit pull link: the bare number is the PR
        ("- Fix a crash (#41, #40)", (41, 40), ()),
    ],
)  # fmt: skip
def test_bare_number_next_to_an_explicit_pull_link_is_its_issue(
        bullet: str, prs: tuple[int, ...], issues: tuple[int, ...]) -> None:
    """Only an explicit ``/pull/N`` link makes a lower bare ``#N`` on its line the issue the PR is about."""
    entry = only(bullet)
    assert (entry.prs, entry.issues) == (prs, issues)


def test_release_please_issue_link_is_a_pr_and_commit_is_not() -> None:
    bullet = (
        "* **client:** avoid mutating config ([#2700](https://github.com/openai/openai-python/issues/2700)) "
        "([e040d22](https://github.com/openai/openai-python/commit/e040d22c2df068e908f69dc6b892e7f8b3fe6e99))"
    )
    entry = only("### Bug Fixes\n\n" + bullet, "openai/openai-python")
    assert (entry.section, entry.prs, entry.issues) == ("fix", (2700,), ())
    assert entry.text == "client: avoid mutating config (#2700) (e040d22)"


def test_changesets_credit_prefix_leaves_the_change_first_and_keeps_its_pr() -> None:
    bullet = ("- [#512](https://github.com/acme/sdk/pull/512) [`9f8e7d6`](https://github.com/acme/sdk/commit/9f8e7d6)"
              " Thanks [@carol](https://github.com/carol), [@dan](https://github.com/dan)! - Fix wrong timestamps")
    entry = only("### Patch Changes\n\n" + bullet, "acme/sdk")
    assert (entry.text, entry.prs) == ("Fix wrong timestamps (#512)", (512,))
    assert only("### Patch Changes\n\n- 1a2b3c4: Fix memory leak in the queue").text == "Fix memory leak in the queue"
    assert only("- Thanks to everyone! - the team").text == "Thanks to everyone! - the team"  # not a credit prefix


@pytest.mark.parametrize(("bullet", "section"), [
    ("* [#2734](https://github.com/acme/sdk/pull/2734) Fix parseHeader to return undefined instead of NaN", "fix"),
    ("* [#2765](https://github.com/acme/sdk/pull/2765) fix: CJS namespace access for nested types", "fix"),
    ("* [#2790](https://github.com/acme/sdk/pull/2790) Bump brace-expansion from 1.1.11 to 1.1.16", "dependency"),
    ("* #12, #13: Fixed a crash on empty input", "fix"),
    ("* [#2799](https://github.com/acme/sdk/pull/2799) Make the `major_api_version` constant public", "other"),
])
def test_a_line_led_by_its_pr_is_classified_by_the_words_after_it(bullet: str, section: str) -> None:
    """Stripe's SDKs write heading-less lines that start with the PR ("[#2734](…) Fix …"): read from its first
    word, every such line was "other", so no fix line of those notes was a fix."""
    entry = only(bullet, "acme/sdk")
    assert entry.section == section
    assert entry.prs == tuple(sorted({2734, 2765, 2790, 2799, 12, 13} & set(entry.prs))) and entry.prs


_ACME_PULL = "https://github.com/acme/sdk/pull"


@pytest.mark.parametrize(("body", "expected"), [
    # flat: one item per scope line (clog's single-item scopes)
    ("#### Bug Fixes\n\n* **http2:** avoid buffering writes (#4102)\n* **client:** fix panic on empty DNS (#2292)\n",
     [("http2: avoid buffering writes (#4102)", (4102,)), ("client: fix panic on empty DNS (#2292)", (2292,))]),
    # a scope group: every nested item is an entry of its own, led by the scope; the next top-level item ends it
    ("#### Bug Fixes\n\n* **http1:**\n  * discard content-length header (#4124)\n"
     "  * use append for repeat trailers (#4107)\n* **http2:** avoid buffering writes (#4102)\n",
     [("http1: discard content-length header (#4124)", (4124,)), ("http1: use append for repeat trailers (#4107)",
                                                                 (4107,)), ("http2: avoid buffering writes (#4102)",
                                                                            (4102,))]),
    # Alamofire: the nested "Fixed by … in Pull Request #N" says who and which PR of its parent, no entry of its own
    ("### Fixed\n- Passing `queue` parameter to `DataStream` serializers.\n  - Fixed by [Jon Shier]"
     f"(https://github.com/jshier) in Pull Request [#3879]({_ACME_PULL}/3879).\n"
     f"- `validate` reads the file size.\n  - Updated by [Jon](https://github.com/jon) in Pull Request [#3899]"
     f"({_ACME_PULL}/3899).\n",
     [("Passing `queue` parameter to `DataStream` serializers. Fixed by Jon Shier in Pull Request #3879.", (3879,)),
      ("`validate` reads the file size. Updated by Jon in Pull Request #3899.", (3899,))]),
    # mixed: "-" items four spaces deep, a detail nested under a scoped item joins that item, the group ends at a
    # top-level item without a scope, and a scope written "**x**:" (colon outside the bold)
    ("#### Bug Fixes\n\n- **http1**:\n    - discard content-length header (#4124)\n"
     "        - the header is dropped when chunked\n    - use append for repeat trailers (#4107)\n"
     "- plain fix of a crash (#4103)\n",
     [("http1: discard content-length header (#4124) the header is dropped when chunked", (4124,)),
      ("http1: use append for repeat trailers (#4107)", (4107,)), ("plain fix of a crash (#4103)", (4103,))]),
    # a heading ends a group: the next heading's items carry no scope of the last group
    ("#### Bug Fixes\n\n* **http1:**\n\t* discard content-length header (#4124)\n\n#### Features\n\n"
     "  * add an option (#5)\n",
     [("http1: discard content-length header (#4124)", (4124,)), ("add an option (#5)", (5,))]),
], ids=["flat", "scope-group", "attribution-sub-bullet", "mixed-indentation", "heading-ends-group"])
def test_items_under_a_scope_only_item_are_entries_of_their_own(body: str, expected: list) -> None:
    """clog (hyper) groups a scope's fixes under "* **http1:**": read as one entry, six fixes shared one text and six
    PRs, and the entry read as its first item. A nested item under an item that says more than its scope (Alamofire's
    attribution line) still belongs to it."""
    assert [(e.text, e.prs) for e in parse(body, "acme/sdk")] == expected


def test_a_bold_label_with_text_after_it_is_an_entry_not_a_scope() -> None:
    assert len(parse("* **Note:** see below\n* Fix a crash (#1)\n")) == 2


def test_older_changesets_credit_the_commit_before_the_pr_and_list_dependency_updates() -> None:
    """@emotion/react 11.0–11.1: "[`sha`](…) [#N](…) Thanks [@user](…)! - text" (the commit first) kept the credit in
    the entry's text ("`fdd46bdf` #2112 Thanks @Andarist! - Fixed …"); every changesets package also lists its
    monorepo dependencies' updates, "Updated dependencies [`sha`]: …", under "Patch Changes": a dependency line
    citing only commits, which was filed as a fix."""
    bullet = ("- [`fdd46bd`](https://github.com/acme/sdk/commit/fdd46bd) [#2112](https://github.com/acme/sdk/pull/2112)"
              " Thanks [@carol](https://github.com/carol)! - Fixed tree shaking\n\n- Updated dependencies "
              "[[`8dc1a6d`](https://github.com/acme/sdk/commit/8dc1a6d)]:\n  - @acme/cache@11.14.0\n")
    fixed, deps = parse("### Patch Changes\n\n" + bullet, "acme/sdk")
    assert (fixed.text, fixed.prs, fixed.section) == ("Fixed tree shaking (#2112)", (2112,), "fix")
    assert (deps.section, deps.prs, deps.commits) == ("dependency", (), ("8dc1a6d",))


@pytest.mark.parametrize(("bullet", "section", "text"), [
    ("* 1a2b3c4 fix: handle a None body (#12)", "fix", "fix: handle a None body (#12)"),  # GoReleaser's list
    ("* 5d6e7f8 feat(api)!: add streaming", "feature", "feat(api)!: add streaming"),
    ("* deadbeef fix: words", "other", "deadbeef fix: words"),  # no digit: a word, not a commit hash
    ("* facade1 some words", "other", "facade1 some words"),  # no commit type after it
])
def test_a_commit_hash_before_a_commit_type_is_moved_out_of_the_way(bullet: str, section: str, text: str) -> None:
    entry = only("## Changelog\n" + bullet)
    assert (entry.section, entry.text) == (section, text)


def test_restructuredtext_links_cite_their_pr() -> None:
    entry = only("Fixes\n-----\n\n- Fix race in flush (`#101 <https://github.com/acme/sdk/pull/101>`_)", "acme/sdk")
    assert (entry.section, entry.text, entry.prs) == ("fix", "Fix race in flush (#101)", (101,))
    other = only("- Bump (`#7 <https://github.com/other/lib/pull/7>`__)", "acme/sdk")
    assert other.prs == () and "other/lib#7" in other.text



def test_restructuredtext_double_backtick_literals_leave_the_link_a_link() -> None:
    """urllib3's CHANGES.rst (towncrier): a ``literal`` before the `#N <…>`__ link used to pair its second backtick
    with the link's, swallowing the link into a code span ("… port. (`#3664 #3664`__)"), and a `` (Pull #N) ``
    between two literals lost its PR."""
    real = ("Bugfixes\n--------\n\n- Fixed ``HTTPConnectionPool`` when used in Emscripten with no explicit port. "
            "(`#3664 <https://github.com/urllib3/urllib3/issues/3664>`__)\n")
    entry = only(real, "urllib3/urllib3")
    assert (entry.section, entry.prs) == ("fix", (3664,))
    assert entry.text == "Fixed ``HTTPConnectionPool`` when used in Emscripten with no explicit port. (#3664)"
    old = ("* Deprecated negotiating TLSv1 and TLSv1.1 by default. Users that\n  still wish to use TLS earlier "
           "than 1.2 without a deprecation warning\n  should opt-in explicitly by setting "
           "``ssl_version=ssl.PROTOCOL_TLSv1_1`` (Pull #2002)\n  **Starting in urllib3 v2.0: Connections that "
           "receive a ``DeprecationWarning`` will fail**\n")
    assert only(old, "urllib3/urllib3").prs == (2002,)

@pytest.mark.parametrize("heading", ["### Known issues", "### Known Bugs", "Known issues:", "**Known limitations**"])
def test_known_issues_are_not_entries(heading: str) -> None:
    """A release lists the bugs it still has under "Known issues": reading them as fixes would answer ✓."""
    body = f"### Fixes\n\n- Fix crash in tracer (#1)\n\n{heading}\n\n- Crash when opening the camera (#2)\n"
    assert [entry.prs for entry in parse(body)] == [(1,)]


def test_upkeep_headings_let_a_bullets_own_wording_decide() -> None:
    """"Maintenance" lists CI and bumps, and now and then a real fix: the fix keeps its section."""
    entries = parse("### Maintenance\n\n- fix: crash in tracer (#1)\n- Update CI workflow (#2)\n")
    assert [entry.section for entry in entries] == ["fix", "internal"]


def test_towncrier_sphinx_roles_cite_their_numbers() -> None:
    """towncrier notes (aiohttp, yarl, …) cite with Sphinx roles; :pr: is a PR, :issue: a PR unless closed by it."""
    entry = only("### Bugfixes\n\n- Fixed a leak in the pool -- by :user:`alice` (:pr:`1240`).")
    assert (entry.text, entry.prs) == ("Fixed a leak in the pool -- by @alice (#1240).", (1240,))
    assert only("- Fix the pool (:issue:`1234`)").prs == (1234,)
    closing = only("- Fix the pool (#1300), fixes :issue:`1234`")
    assert (closing.prs, closing.issues) == ((1300,), (1234,))


def test_towncrier_references_paragraph_counts_as_the_entrys_citations() -> None:
    """towncrier puts an entry's references in a paragraph of their own, after its fixed phrase; any other
    explanatory paragraph still cites nothing."""
    body = ("### Bugfixes\n\n- Fixed a memory leak in the pool.\n\n"
            "  *Related issues and pull requests on GitHub:*\n  :issue:`1234`, :issue:`1235`.\n")
    entry = only(body)
    assert (entry.text, entry.prs) == ("Fixed a memory leak in the pool. #1234, #1235.", (1234, 1235))
    prose = only("### Bugfixes\n\n- Fixed a memory leak in the pool.\n\n  It came with :issue:`1234`.\n")
    assert prose.prs == ()


@pytest.mark.parametrize("bullet", ["- [#123] Don't panic on empty input", "- (#123) Don't panic on empty input",
                                    "- [#123]: Don't panic on empty input"])
def test_a_bracketed_number_leading_the_bullet_cites_its_pr(bullet: str) -> None:
    assert only("## Fixes\n\n" + bullet).prs == (123,)


def test_mid_sentence_bare_ref_is_not_claimed() -> None:
    bullet = f"- Fix iOS screenshots by reverting the migration from #6380 ([#6491]({PULL}/6491), [#6497]({PULL}/6497))"
    entry = only("### Fixes\n\n" + bullet)
    assert entry.prs == (6491, 6497)
    assert "#6380" in entry.text
    assert only("- Re-land the change from #12 with fixes").prs == ()


@pytest.mark.parametrize(
    ("bullet", "issues"),
    [
        ("- Fixes #182", (182,)),
        ("- Fixed #12 and #13", (12, 13)),
        ("- Closes #6", (6,)),
        ("- Resolves #5", (5,)),
        ("- Fixes GH-12", (12,)),
        ("- Fix crash (closes getsentry/sentry-demo#77)", (77,)),
        ("- Fixed https://github.com/getsentry/sentry-demo/issues/200 Make userId optional", (200,)),
        (f"- Fixes [#1911]({ISSUES}/1911)", (1911,)),
        (f"- Fixes [#1475]({ISSUES}/1475) and [#1303]({ISSUES}/1303)", (1475, 1303)),
        (f"- Has a [known issue]({ISSUES}/5334)", (5334,)),
    ],
)
def test_issue_reference_forms(bullet: str, issues: tuple[int, ...]) -> None:
    entry = only(bullet)
    assert entry.issues == issues
    assert entry.prs == ()


def test_nested_fixes_issue_goes_to_parent() -> None:
    body = (
        "### Bug Fixes\n\n"
        f"- Remove bad encoding arguments [#1914]({PULL}/1914)\n"
        f"  - Fixes [#1911]({ISSUES}/1911)\n"
        f"- Add missing checks [#1919]({PULL}/1919)\n"
    )
    first, second = parse(body)
    assert (first.prs, first.issues) == ((1914,), (1911,))
    assert first.text == "Remove bad encoding arguments #1914 Fixes #1911"
    assert (second.prs, second.issues) == ((1919,), ())


@pytest.mark.parametrize(
    "bullet",
    [
        "- See CHANGELOG.md#123 for details",
        "- See https://github.com/getsentry/sentry-demo/blob/main/CHANGELOG.md#123",
        "- Works with C#7 and abc#12",
        "- Use `#123` as a literal",
        "- Commit [abc1234](https://github.com/getsentry/sentry-demo/commit/abc1234)",
        "- Escaped &#123; entity",
        "- Mentions GH-12 without keyword",
    ],
)
def test_not_references(bullet: str) -> None:
    entry = only(bullet)
    assert (entry.prs, entry.issues) == ((), ())


def test_other_repository_links_are_not_counted_when_repo_given() -> None:
    bullet = (
        "- Bump Cocoa SDK from v8.13.0 to v8.14.2 "
        "([#4567](https://github.com/getsentry/sentry-cocoa/pull/4567)) "
        "see https://github.com/getsentry/sentry-cocoa/issues/5 and getsentry/sentry-cocoa#6 "
        "([#3340](https://github.com/getsentry/sentry-react-native/pull/3340))"
    )
    entry = only(bullet, "getsentry/sentry-react-native")
    assert entry.prs == (3340,)
    assert entry.issues == ()
    assert "getsentry/sentry-cocoa#4567" in entry.text
    anywhere = only(bullet, None)
    assert anywhere.prs == (4567, 3340)


def test_dependencies_nested_links_are_appended_not_counted() -> None:
    body = (
        "### Dependencies\n\n"
        f"- Bump Native SDK from v0.12.2 to v0.12.3 ([#5012]({PULL}/5012))\n"
        "  - [changelog](https://github.com/getsentry/sentry-native/blob/master/CHANGELOG.md#0123)\n"
        "  - [diff](https://github.com/getsentry/sentry-native/compare/0.12.2...0.12.3)\n"
        f"  - [#77]({PULL}/77)\n"
    )
    for repo in (REPO, None):
        entry = only(body, repo)
        assert (entry.section, entry.prs, entry.issues) == ("dependency", (5012,), ())
        assert entry.text.startswith("Bump Native SDK from v0.12.2 to v0.12.3 (#5012) changelog diff")


def test_continuation_and_nested_bullets_join_parent() -> None:
    body = (
        (
            "* Add support for `Decimal` validation in `Field()`,\n"
            "  to allow better support from editors, [#3507](https://github.com/pydantic/pydantic/pull/3507) by @t\n"
            "- Prevent an ANR when the encoder gets stuck (#5842)\n"
            "  - Some encoders never signal end-of-stream (#5843)\n"
            "    - deeper detail\n"
            "- Explained bullet (#1)\n\n"
            "  Re-lands [#6380]({PULL}/6380). See [the original issue]({ISSUES}/2160).\n"
        )
        .replace("{PULL}", PULL)
        .replace("{ISSUES}", ISSUES)
    )
    first, second, third = parse(body, None)
    assert first.prs == (3507,)
    assert first.text.startswith("Add support for `Decimal` validation in `Field()`, to allow better")
    assert second.text == (
        "Prevent an ANR when the encoder gets stuck (#5842) Some encoders never signal end-of-stream (#5843) "
        "deeper detail"
    )
    assert second.prs == (5842, 5843)
    assert third.prs == (1,)
    assert third.issues == (2160,)
    assert "Re-lands #6380" in third.text


def test_list_markers() -> None:
    body = "- a (#1)\n* b (#2)\n+ c (#3)\n1. d (#4)\n2) e (#5)\n"
    assert [e.prs for e in parse(body)] == [(1,), (2,), (3,), (4,), (5,)]


def test_duplicate_refs_are_deduplicated() -> None:
    bullet = f"- Add option ([#5377]({PULL}/5377)) by @a in [#5377]({PULL}/5377) (#5377)"
    assert only(bullet).prs == (5377,)


# --------------------------------------------------------------------------- skipped content


def test_blockquotes_and_alerts_are_skipped() -> None:
    body = (
        "> [!WARNING]\n> The packages now require Swift 6.1+ (#1).\n> - not an entry (#2)\n\n"
        "### Features\n\n- Real entry (#3)\n  > quoted inside (#4)\n"
    )
    entry = only(body)
    assert entry.prs == (3,)
    assert "quoted" not in entry.text


def test_mkdocs_admonition_is_skipped() -> None:
    body = '!!! warning "Yanked"\n    This release was yanked (#1).\n\n    - not an entry (#2)\n\n* Real (#3)\n'
    assert only(body).prs == (3,)


def test_code_fences_are_skipped() -> None:
    body = (
        "```\n- not a bullet (#99)\n### Not a heading\n```\n\n"
        "### Fixes\n\n- Real entry (#1)\n\n  ```python\n  - code (#98)\n  ```\n  More text.\n"
        "~~~\n- tilde fence (#97)\n~~~\n"
    )
    entry = only(body)
    assert (entry.section, entry.prs) == ("fix", (1,))
    assert "code" not in entry.text and "More text." in entry.text


def test_new_contributors_full_changelog_thanks_and_intro_are_skipped() -> None:
    body = (
        "The Sentry SDK team is happy to announce the immediate availability of v4.29.0.\n\n"
        "### Features\n\n- Scrub headers [(#2126)](https://github.com/getsentry/sentry-demo/pull/2126)\n\n"
        "### New Contributors\n\n* @x made their first contribution in "
        "[#10789](https://github.com/getsentry/sentry-demo/pull/10789)\n\n"
        "**Full Changelog**: https://github.com/getsentry/sentry-demo/compare/v1...v2\n"
        "Full Changelog: [v1...v2](https://github.com/getsentry/sentry-demo/compare/v1...v2)\n\n"
        "Work in this release was contributed by @x. Thank you for your contribution!\n"
    )
    entry = only(body)
    assert (entry.section, entry.prs, entry.text) == ("feature", (2126,), "Scrub headers (#2126)")


def test_html_comments_tables_and_images_are_skipped() -> None:
    body = (
        "<!-- prettier-ignore-start\n- commented bullet (#1)\n-->\n"
        "| col | col |\n| --- | --- |\n| - (#2) | x |\n\n"
        "![screenshot](https://example.com/a.png)\n\n"
        "- Entry with image ![img](https://example.com/b.png) and <br/> html <!-- note --> (#3)\n"
    )
    entry = only(body)
    assert entry.prs == (3,)
    assert entry.text == "Entry with image and html (#3)"


def test_plain_line_changelog_entries() -> None:
    body = (
        "Fix Background worker dispose logs error message (#408)\n"
        "Fix sentry serilog extension method collapsing (#406)\n\n"
        "Thanks @snakefoot and @JimHume for the fixes\n\n"
        "This release adds a new SDK which is available as an\n"
        "alpha release. Let us know about problems with using it. (#6000)\n\n"
        "By: @someone (#1773)\n"
    )
    assert [(e.section, e.prs) for e in parse(body)] == [("fix", (408,)), ("fix", (406,))]


def test_a_prose_body_with_a_reference_is_an_entry() -> None:
    body = (
        "This release fixes a regression where the `select!` macro stopped accepting\n"
        "expressions that make use of temporary lifetime extension. ([#6722])\n\n"
        f"[#6722]: {PULL}/6722\n"
    )
    entry = only(body)
    assert (entry.section, entry.prs, entry.heading) == ("other", (6722,), "")
    assert entry.text.startswith("This release fixes a regression where the `select!` macro stopped accepting expr")
    assert "[#6722]:" not in entry.text and "http" not in entry.text  # the link definition is no text


def test_plain_conventional_lines_without_a_heading_are_entries() -> None:
    body = (
        "fix: aspnet fqdn (#485) @bruno-garcia\n"
        "feat: Add integration to TaskScheduler.UnobservedTaskException (#481) @lucas\n"
        "build(deps): bump Serilog.AspNetCore from 3.2.0 to 3.4.0 (#477) @dependabot-preview\n"
        "build(deps): bump Microsoft.Extensions.Logging.Debug @dependabot-preview\n"
        "Set DateFormatHandling.IsoDateFormat for serializer. Fixes #351 (#353) @olsh\n"
        f"Fix a leak in the transport ({PULL}/9)\n"
    )
    assert [(e.section, e.prs, e.issues) for e in parse(body)] == [
        ("fix", (485,), ()), ("feature", (481,), ()), ("dependency", (477,), ()),  # the bump citing nothing: no entry
        ("other", (353,), (351,)), ("fix", (9,), ()),
    ]


def test_prose_sentences_that_each_cite_a_change_are_entries_and_a_commit_counts() -> None:
    body = (
        "This release fixes a panic in the parser (#10). It also fixes a deadlock\n"
        "in the pool (#12).\n\n"
        "This reverts the change from #123\nbecause it broke uploads (#456).\n\n"
        "Fixes a crash on start (92e10c3).\n"
    )
    assert [(e.prs, e.commits, e.text) for e in parse(body)] == [
        ((10,), (), "This release fixes a panic in the parser (#10)."),
        ((12,), (), "It also fixes a deadlock in the pool (#12)."),
        ((456,), (), "This reverts the change from #123 because it broke uploads (#456)."),  # a mention, no split
        ((), ("92e10c3",), "Fixes a crash on start (92e10c3)."),
    ]
    assert [e.section for e in parse(body)] == ["other", "other", "other", "fix"]


def test_prose_lines_that_start_like_a_change_or_end_in_a_link_are_entries_of_their_own() -> None:
    body = (
        "0a1b2c3 fix: crash on start\n4d5e6f7 feat: add retries\nwhen the server is busy\n\n"
        f"Fixed a crash when the config is empty ({PULL}/77).\nImproved logging ({PULL}/78).\n\n"
        "fix: a change citing nothing\nfeat: add a flag (#9)\n"
    )
    assert [(e.section, e.prs, e.commits, e.text) for e in parse(body)] == [
        ("fix", (), ("0a1b2c3",), "fix: crash on start"),
        ("feature", (), ("4d5e6f7",), "feat: add retries when the server is busy"),
        ("fix", (77,), (), "Fixed a crash when the config is empty (#77)."),
        ("other", (78,), (), "Improved logging (#78)."),
        ("feature", (9,), (), "feat: add a flag (#9)"),
    ]


@pytest.mark.parametrize("body", [
    "**Full Changelog**: https://github.com/getsentry/sentry-demo/compare/1.0.0...1.0.1\n",
    "Pre-release, see [the GitHub release](https://github.com/getsentry/sentry-demo/releases/tag/v2.0b1) for details.",
    "## What's Changed\n\nNo user-facing changes.\n\n## New Contributors\n"
    f"* @alice made their first contribution in {PULL}/5\n\n@bob made their first contribution in {PULL}/6\n",
    "Install it with:\n\n```\npip install sentry-demo==1.2.3 # (#7)\n```\n\nThanks to @alice and @bob!\n",
    "This release was published to fix a publishing issue with 7.59.0. See [7.59.0](#7590) for its changes.\n",
    "Fixed #163\n",  # an issue only: no change to answer with
    "See the [PR](https://github.com/other/repo/pull/8) upstream (#other)\n",
])
def test_a_body_of_boilerplate_only_yields_nothing(body: str) -> None:
    assert parse(body) == []


def test_prose_is_no_entry_when_the_body_has_a_list() -> None:
    body = "This release fixes a crash\non start (#5) for everyone.\n\n### Fixes\n\n- Fix the upload (#6)\n"
    assert [e.prs for e in parse(body)] == [(6,)]


@pytest.mark.parametrize("body", [None, "", "   \n\n", 42, b"- fix (#1)"])
def test_empty_or_invalid_body(body: object) -> None:
    assert parse_release_notes(body) == []  # type: ignore[arg-type]


def test_text_is_capped() -> None:
    body = "- Fix crash (#1) " + "word " * 5000 + "\n  - nested (#2)\n"
    entry = only(body)
    assert len(entry.text) <= 4000
    assert entry.prs == (1,)  # #2 fell outside the kept text, so it is not claimed


def test_five_thousand_bullets() -> None:
    lines = [f"- Fix thing {i} ([#{i}]({PULL}/{i}))" for i in range(1, 5001)]
    entries = parse("### Fixes\n\n" + "\n".join(lines))
    assert len(entries) == 5000
    assert [e.position for e in entries] == list(range(5000))
    assert all(e.prs == (e.position + 1,) and e.section == "fix" for e in entries)


# --------------------------------------------------------------------------- properties

_WORDS = st.sampled_from(["Fix", "fix:", "feat(x):", "Add", "crash", "the", "`code`", "**bold**", "by", "@u", "in"])
_REFS = st.sampled_from(
    [
        "(#12)",
        "#34",
        "(#5, #6 and #7)",
        f"[#89]({PULL}/89)",
        f"[(#90)]({PULL}/90)",
        "[#91](https://github.com/other/repo/pull/91)",
        f"({PULL}/92)",
        f"[#93]({ISSUES}/93)",
        "Fixes #94",
        "closes GH-95",
        "getsentry/sentry-demo#96",
        "CHANGELOG.md#97",
        "[x](",
        "](#98)",
        "(((#99",
        "#",
    ]
)
_PHRASE = st.lists(st.one_of(_WORDS, _REFS, st.text(max_size=8)), max_size=8).map(" ".join)
_HEADINGS = st.sampled_from(
    ["Fixes", "Bug Fixes 🐛", "What's Changed", "Packaging", "Flutter", "2.4.x (2020-01-01)", "New Contributors", ""]
)
_LINE = st.one_of(
    st.tuples(st.integers(1, 7), _HEADINGS).map(lambda t: "#" * t[0] + " " + t[1]),
    st.tuples(
        st.sampled_from(["", "  ", "    ", "\t"]), st.sampled_from(["- ", "* ", "+ ", "1. ", "**- "]), _PHRASE
    ).map("".join),
    _PHRASE,
    st.sampled_from(
        [
            "",
            "```",
            "  ```js",
            "~~~",
            "> [!WARNING]",
            "> - quoted (#1)",
            '!!! warning "x"',
            "<details>",
            "<summary><strong>Internal Changes</strong></summary>",
            "</details>",
            "<!-- c",
            "-->",
            "| a | b |",
            "---",
            "**Fixes**",
            "Bug fixes:",
            "### New Contributors",
        ]
    ),
)
_BODY = st.lists(_LINE, max_size=25).map("\n".join)


def _check_invariants(body: str, entries: list[ReleaseNoteEntry]) -> None:
    assert isinstance(entries, list)
    assert [e.position for e in entries] == list(range(len(entries)))
    for entry in entries:
        assert isinstance(entry, ReleaseNoteEntry)
        assert entry.section in SECTIONS
        assert entry.text and len(entry.text) <= 4000
        assert len(set(entry.prs)) == len(entry.prs)
        assert len(set(entry.issues)) == len(entry.issues)
        assert all(str(n) in entry.text for n in entry.prs)
        assert all(n > 0 and str(n) in body for n in entry.prs + entry.issues)
        assert not set(entry.prs) & set(entry.issues)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text())
def test_property_any_text(body: str) -> None:
    for repo in (None, REPO):
        entries = release_notes._parse(body, repo)  # no safety net: bugs must surface
        _check_invariants(body, entries)
        assert parse_release_notes(body, repo) == entries


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_BODY, st.sampled_from([None, REPO, "other/repo"]))
def test_property_markdown_like(body: str, repo: str | None) -> None:
    entries = release_notes._parse(body, repo)
    _check_invariants(body, entries)
    for entry in entries:
        if repo == REPO:
            assert 91 not in entry.prs  # another repository's PR link


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="#-*+ ()[]`<>!|~\n\t:/.0123456789ahttps", max_size=3000))
def test_property_markup_soup(body: str) -> None:
    _check_invariants(body, release_notes._parse(body, REPO))


def test_no_repeated_groups_with_inner_quantifiers() -> None:
    """Guard against catastrophic backtracking creeping into the module's patterns."""
    repeated = re.compile(r"\([^()]*[*+}][^()]*\)[*+{]")
    assert repeated.search(r"(a+)+") and repeated.search(r"(?:[ \t]+x)*") and repeated.search(r"(?:\d{1,3},){2,}")
    modules = (release_notes, references, scanner, sections)
    patterns = [v for module in modules for v in vars(module).values() if isinstance(v, re.Pattern)]
    assert len(patterns) > 20
    for pattern in patterns:
        assert not repeated.search(pattern.pattern), pattern.pattern


def test_summary_other_changes_is_a_heading() -> None:
    body = (
        "### Fixes\n\n- a (#1)\n\n<details>\n<summary>Other Changes</summary>\n\n- ref: b (#2)\n- c (#3)\n</details>\n"
    )
    assert [(e.section, e.heading) for e in parse(body)] == [
        ("fix", "Fixes"),
        ("internal", "Other Changes"),
        ("other", "Other Changes"),
    ]


def test_dependabot_redirect_links_are_github_links() -> None:
    own = "[#7](https://github-redirect.dependabot.com/getsentry/sentry-demo/pull/7)"
    other = "[#8](https://github-redirect.dependabot.com/getsentry/sentry-java/issues/8)"
    entry = only(f"- Fix crash ({own}), see {other}")
    assert (entry.prs, entry.issues) == ((7,), ())
    assert "getsentry/sentry-java#8" in entry.text


# ---------------------------------------------------------------- formats not in the shared data
@pytest.mark.parametrize(("body", "expected"), [
    ("Bug fixes\n---------\n* Fix crash when opening settings (#123)\n\nFeatures\n--------\n* Add retry option (#124)",
     [("fix", (123,)), ("feature", (124,))]),
    ("### Patch Changes\n\n- [#123](https://github.com/acme/sdk/pull/123) [`abc1234`](https://github.com/acme/sdk/"
     "commit/abc1234) Thanks [@alice](https://github.com/alice)! - Fix crash when opening settings\n\n"
     "### Minor Changes\n\n- [#130](https://github.com/acme/sdk/pull/130) Thanks [@bob](https://github.com/bob)! "
     "- Add retries", [("fix", (123,)), ("feature", (130,))]),
    ("## What's Changed\n* Fix crash when opening settings by @alice in https://github.com/acme/sdk/pull/123\n"
     "* build(deps): bump foo from 1.0 to 1.1 by @dependabot[bot] in https://github.com/acme/sdk/pull/126\n\n"
     "## New Contributors\n* @zed made their first contribution in https://github.com/acme/sdk/pull/125\n\n"
     "**Full Changelog**: https://github.com/acme/sdk/compare/v1.0.0...v1.1.0",
     [("fix", (123,)), ("dependency", (126,))]),
    ("### Fixed\n- Crash when the cache is empty ([#123](https://github.com/acme/sdk/pull/123))\n"
     "### Security\n- Escape user input in logs (#127)", [("fix", (123,)), ("fix", (127,))]),
])
def test_common_formats_beyond_the_shared_data(body: str, expected: list[tuple[str, tuple[int, ...]]]) -> None:
    entries = parse_release_notes(body, "acme/sdk")
    assert [(e.section, e.prs) for e in entries] == expected


def test_html_headings_and_lists_are_read_like_markdown() -> None:
    """A body published as HTML has entries: headings name sections, items are bullets, <a href> links cite
    PRs, a nested item belongs to its parent, and a <details> block keeps its own section."""
    body = (
        "<h3>Bug Fixes</h3>\n<ul>\n  <li>Fix a crash when the\n      socket closes "
        '(<a href="https://github.com/o/r/pull/45">#45</a>)</li>\n'
        "  <li>Fix memory leak (#46)\n    <ul><li>also in the worker (#47)</li></ul>\n  </li>\n</ul>\n"
        "<h3>Features</h3>\n<ol><li>Add <code>retry</code> option (#48)</li></ol>\n"
        "<details><summary>Internal</summary><ul><li>CI tweak (#49)</li></ul></details>\n"
    )
    entries = [(e.section, e.text, e.prs) for e in parse_release_notes(body, "o/r")]
    assert entries == [
        ("fix", "Fix a crash when the socket closes (#45)", (45,)),
        ("fix", "Fix memory leak (#46) also in the worker (#47)", (46, 47)),
        ("feature", "Add retry option (#48)", (48,)),
        ("internal", "CI tweak (#49)", (49,)),
    ]


def test_html_notes_on_one_line_are_read_too() -> None:
    body = '<h3>Bug Fixes</h3><ul><li>Fix race in flush (#41)</li><li>Fix leak (#42)</li></ul>'
    assert [(e.section, e.text) for e in parse_release_notes(body, "o/r")] == [
        ("fix", "Fix race in flush (#41)"), ("fix", "Fix leak (#42)")]


def test_a_markdown_bullet_mentioning_an_html_tag_is_not_an_html_list() -> None:
    body = "### Fixes\n\n- Fix rendering of `<li>` and <ul> elements (#5)\n"
    assert [(e.section, e.text) for e in parse_release_notes(body, "o/r")] == [
        ("fix", "Fix rendering of `<li>` and <ul> elements (#5)")]


def test_every_reference_of_a_leading_group_cites_a_pr() -> None:
    """zap: `* [#554][], [#1017][]: Close JSON namespaces …` (Markdown reference links before the text) cites both;
    only the first was read, so the fix was stored under an old PR and its own was lost. A mid-sentence pair is
    still not claimed."""
    body = ("Bugfixes:\n* [#554][], [#1017][]: Close JSON namespaces opened in `MarshalLogObject` methods.\n"
            "* [#460][] and [#470][]: Support errors produced by `go.uber.org/multierr`.\n"
            "* Fix x #12 and #13 of the encoder.\n\n[#554]: https://github.com/uber-go/zap/pull/554\n")
    assert [entry.prs for entry in parse_release_notes(body, "uber-go/zap")] == [(554, 1017), (460, 470), ()]
